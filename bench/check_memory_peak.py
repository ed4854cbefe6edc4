"""Peak memory of the GPT train step: computed from the HLO text alone vs XLA's own live-range file.

    python -m bench.check_memory_peak [--layers 48] [--runs 3]

Target (issue 4): the computed peak within 1% of XLA's `Live ranges at N (peak)`, and equal to it
when the sidecar is read. Prints both peaks, the error, how many of XLA's value ranges the
rebuild reproduces, and the time to build the profile each way (the HLO parse is reported
apart: the app pays it once for every screen).
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.workloads import gpt_hlo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--runs", type=int, default=4)
    args = parser.parse_args()

    from tui.model.hlo import parse_hlo
    from tui.model.live_ranges import compute_live_ranges
    from tui.model.memory import SOURCE_COMPUTED, MemoryProfile, memory_profile
    from tui.model.workspace import ModuleEntry
    from tui.model.xla_memory_files import parse_live_range

    path = gpt_hlo(args.layers)
    live_range = path.with_name(path.name[: -len(".txt")] + "-live-range.txt")
    text = path.read_text()
    start = time.perf_counter()
    module = parse_hlo(text)
    parse_s = time.perf_counter() - start
    report = parse_live_range(live_range)

    computed_s, sidecar_s = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        ranges = compute_live_ranges(module)
        profile = MemoryProfile(module, ranges, SOURCE_COMPUTED)
        computed_s.append(time.perf_counter() - start)
        entry = ModuleEntry("gpt", "gpt", path, live_range_path=live_range)
        entry._hlo = module
        start = time.perf_counter()
        from_file = memory_profile(entry)
        sidecar_s.append(time.perf_counter() - start)

    same = sum(1 for v in ranges.values if report.buffers.get(v.name) == (v.start, v.end))
    error = 100 * (profile.peak_bytes - report.peak_bytes) / report.peak_bytes
    print(f"{path.name}: {module.instruction_count} instructions, {len(ranges.sequence)} in program order, "
          f"{len(ranges.values)} values (parse {parse_s:.2f} s)")
    print(f"XLA live-range file: peak {report.peak_bytes:,} bytes at #{report.peak_time}")
    print(f"computed from text:  peak {profile.peak_bytes:,} bytes at #{profile.peak_time} -> error {error:+.4f}% "
          f"(target within 1%); {same}/{len(report.buffers)} value ranges identical to XLA's")
    print(f"with the sidecar:    peak {from_file.peak_bytes:,} bytes at #{from_file.peak_time} "
          f"({'equal' if from_file.peak_bytes == report.peak_bytes else 'DIFFERENT'}; source: {from_file.source})")
    print(f"highest point of the live curve: {profile.max_bytes:,} bytes at #{profile.max_time}")
    print(f"profile build: computed {computed_s[0]:.2f} s the first time (decodes the attributes it reads), "
          f"then {statistics.median(computed_s[1:] or computed_s):.2f} s; from the sidecar "
          f"{statistics.median(sidecar_s):.2f} s (medians of {args.runs})")


if __name__ == "__main__":
    main()
