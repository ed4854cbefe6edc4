"""Time `load_trace` against XProf's converter (xplane.pb) and json.load (perfetto JSON).

Workload: `make_profile.py`'s 20 GPT train steps on CPU (about 590k events). Peers run in this
process, on the same files; medians of several runs, ratios printed. XProf is not a project
dependency: run this with a venv that has it (e.g. /work/bench-venv, with jax, numpy and
msgspec); without it the XProf comparison is skipped.

    /work/bench-venv/bin/python bench/bench_trace.py [--runs 5]
"""

from __future__ import annotations

import argparse
import gc
import gzip
import json
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "bench")]

from make_profile import newest_run  # noqa: E402

from tui.model.trace import load_trace, return_freed_memory  # noqa: E402


def interleaved_medians(fns: dict, runs: int) -> dict[str, float]:
    """Median wall time of each function, the functions taking turns in every round so that
    load from other processes on the machine falls on all of them alike."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(runs):
        for name, fn in fns.items():
            gc.collect()
            start = time.perf_counter()
            result = fn()
            times[name].append(time.perf_counter() - start)
            del result  # freeing what was loaded is not part of loading it
    return {name: statistics.median(values) for name, values in times.items()}


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def load_and_decode(path: Path):
    trace = load_trace(path)
    trace.decode_all()
    return trace


def report(label: str, ours: float, peer: float, peer_name: str, target: float) -> None:
    ratio = ours / peer
    verdict = "ok" if ratio <= target else "over target"
    print(f"  {label:<34} {ours:8.3f} s   {peer_name} {peer:8.3f} s   ratio {ratio:.3f} (target <= {target}) {verdict}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rss", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.rss:
        return rss_report(args.rss)
    run = newest_run()
    if run is None:
        sys.exit("no profile: run `python bench/make_profile.py` first")
    xplane = next(run.glob("*.xplane.pb"))
    perfetto = run / "perfetto_trace.json.gz"

    trace = load_and_decode(xplane)
    print(f"profile: {xplane} ({xplane.stat().st_size / 1e6:.1f} MB), {trace.event_count:,} events")
    del trace

    print("xplane.pb")
    fns = {"lazy": lambda: load_trace(xplane), "full": lambda: load_and_decode(xplane)}
    try:
        from xprof.convert import raw_to_tool_data
    except ImportError:
        medians = interleaved_medians(fns, args.runs)
        print(f"  load_trace {medians['lazy']:.3f} s, with every track decoded {medians['full']:.3f} s")
        print("  XProf not importable: peer skipped (pip install xprof in a bench venv)")
    else:
        fns["xprof"] = lambda: raw_to_tool_data.xspace_to_tool_data([str(xplane)], "trace_viewer", {})
        fns["xprof"]()  # the first call loads XProf's converters
        medians = interleaved_medians(fns, args.runs)
        report("load_trace (tracks decode lazily)", medians["lazy"], medians["xprof"], "xprof trace_viewer", 0.05)
        report("load_trace + decode every track", medians["full"], medians["xprof"], "xprof trace_viewer", 0.05)

    print("perfetto_trace.json.gz")
    fns = {
        "json.load": lambda: json.load(gzip.open(perfetto)),
        "lazy": lambda: load_trace(perfetto),
        "full": lambda: load_and_decode(perfetto),
    }
    medians = interleaved_medians(fns, args.runs)
    report("load_trace", medians["lazy"], medians["json.load"], "json.load", 0.5)
    report("load_trace + decode every track", medians["full"], medians["json.load"], "json.load", 0.5)

    print("selecting an event (args read from the source on demand)")
    for path in (xplane, perfetto):
        trace = load_and_decode(path)
        track = max(trace.tracks, key=lambda t: t.count)
        last = track.count - 1
        times = interleaved_medians({"first": partial(track.event_args, last)}, 1)
        times |= interleaved_medians({"again": partial(track.event_args, last - 1)}, args.runs)
        first, again = times["first"], times["again"]
        print(
            f"  {path.name:<24} first {first * 1e3:8.1f} ms, then {again * 1e3:6.2f} ms (last event of a {track.count:,}-event track)"
        )
        del trace

    print("memory (decoded, with lane indexes and self times built; RSS measured in a fresh process)")
    for path in (xplane, perfetto):
        out = subprocess.run([sys.executable, __file__, "--rss", str(path)], capture_output=True, text=True, check=True)
        print(f"  {path.name:<24} {out.stdout.strip()}")


def rss_report(path: Path) -> None:
    """Bytes per event: what the model counts, how much the process grew, and how much once the
    app has let an xplane's parsed data go (Trace.let_go_idle, after 30 s without a stats read)."""
    import jaxlib._profile_data  # noqa: F401  (imported before the baseline: the model's own imports)
    import msgspec  # noqa: F401
    import numpy  # noqa: F401

    gc.collect()
    before = rss_bytes()
    trace = load_and_decode(path)
    trace.aggregate()  # builds the lane indexes and self times
    return_freed_memory()  # as the timeline does once its tracks are decoded
    grown = rss_bytes() - before
    trace.let_go_idle(0.0)
    idle = rss_bytes() - before
    print(
        f"{trace.nbytes() / trace.event_count:6.1f} bytes/event in columns, indexes, strings and args;"
        f" the process grew {grown / trace.event_count:6.1f} bytes/event, {idle / trace.event_count:6.1f} once idle"
    )


if __name__ == "__main__":
    main()
