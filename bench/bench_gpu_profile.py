"""What opening a GPU profile's timeline costs beyond a CPU one's, step by step: the timeline's
decode worker reads the kernels' op stats, then derives XProf's `XLA Modules` / `XLA Ops`
lines (tui/model/derived_lines.py); `t` builds the op profile. Medians of several fresh loads.

Workload: `make_profile.py`'s 20 GPT train steps run on a GPU machine (that script profiles
whatever device JAX has; 58 layers on an H100 with JAX 0.11 give 75k events, 65k of them
kernels, in a 16 MB xplane). There is no GPU here, so the file is made there and timed here:

    python bench/make_profile.py --force      # on the GPU machine; copy the .xplane.pb back
    python bench/bench_gpu_profile.py PATH.xplane.pb [--runs 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tui.model.derived_lines import add_derived_lines  # noqa: E402
from tui.model.inputs import load_workspace  # noqa: E402
from tui.model.links import kernel_op_names, kernel_tracks, op_profile  # noqa: E402


def one_load(path: Path) -> tuple[dict[str, float], str]:
    times, began = {}, time.perf_counter()

    def lap(label: str) -> None:
        nonlocal began
        now = time.perf_counter()
        times[label], began = now - began, now

    ws = load_workspace([path])
    lap("load")
    ws.trace.decode_all()
    lap("decode every track")
    kernel_op_names(ws.trace)
    lap("kernels' op stats")
    ws.main.load()
    lap("parse the main program")
    added = add_derived_lines(ws)
    lap("derived lines")
    op_profile(ws)
    lap("op profile (t)")
    kernels = sum(ws.trace.tracks[k].count for k in kernel_tracks(ws.trace))
    facts = f"{ws.trace.event_count:,} events, {kernels:,} kernels; " + ", ".join(f"{t.name}: {t.count:,}" for t in added)
    return times, facts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    runs = [one_load(args.path) for _ in range(args.runs)]
    print(runs[0][1])
    for label in runs[0][0]:
        print(f"  {label:<24} {statistics.median(times[label] for times, _ in runs):.3f} s")


if __name__ == "__main__":
    main()
