"""Overhead of `xla-tui --summary script.py` against the plain `python script.py`.

The peer is the same script run by the same interpreter, measured in the same loop (runs
interleaved, so a busy machine slows both alike). Prints the median wall time of each and
the ratio; the target is <= 2.0. `--no-profile` and dump-only runs show where the time goes.

    python bench/bench_capture.py [--runs 5] [examples/transformer.py]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def wall(command: list[str]) -> float:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    t0 = time.perf_counter()
    subprocess.run(command, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("script", nargs="?", default="examples/transformer.py")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    python = sys.executable
    variants = {
        "python script.py (peer)": [python, args.script],
        "xla-tui --summary script.py": [python, "-m", "tui", "--summary", args.script],
        "xla-tui --summary --no-profile": [python, "-m", "tui", "--summary", "--no-profile", args.script],
    }
    times: dict[str, list[float]] = {name: [] for name in variants}
    wall(variants["python script.py (peer)"])  # warm the file cache and pyc files
    for _ in range(args.runs):
        for name, command in variants.items():
            times[name].append(wall(command))
    peer = statistics.median(times["python script.py (peer)"])
    print(f"{args.script}, median of {args.runs} interleaved runs")
    for name, samples in times.items():
        median = statistics.median(samples)
        print(f"  {name:32s} {median:6.2f} s   ratio {median / peer:4.2f}")


if __name__ == "__main__":
    main()
