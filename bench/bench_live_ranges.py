"""Live ranges of a program whose values are wide tuples, against the parse of the same text.

A loop that carries N arrays (per-parameter optimizer state) gives tuples of N elements, each read
by its own get-tuple-element: where every element's uses scanned all N readers, 3,000 carries took
6 s. Without XLA's live-range file (a bare .hlo, a profile opened alone) the memory screen computes
them, so they should cost about what parsing does. The program is compiled with JAX on CPU here
(a child process, so its dump flags stay its own); medians of several runs.

    python -m bench.bench_live_ranges [--carries 3000] [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

PROGRAM = textwrap.dedent("""
    import sys
    import jax, jax.numpy as jnp

    def step(params):
        return jax.lax.fori_loop(0, 10, lambda i, ps: [p * 0.9 + jnp.sin(p) for p in ps], params)

    jax.jit(step)([jnp.full((64,), float(k)) for k in range(int(sys.argv[1]))])[0].block_until_ready()
""")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--carries", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)

    from tui.model.hlo import parse_hlo
    from tui.model.live_ranges import compute_live_ranges

    with tempfile.TemporaryDirectory() as folder:
        env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={folder} --xla_dump_hlo_as_text", JAX_PLATFORMS="cpu")
        subprocess.run([sys.executable, "-c", PROGRAM, str(args.carries)], env=env, check=True)
        text = next(Path(folder).glob("*jit_step*after_optimizations.txt")).read_text()
    parse, ranges = [], []
    for _ in range(args.runs):
        start = time.perf_counter()
        module = parse_hlo(text)
        parse.append(time.perf_counter() - start)
        start = time.perf_counter()
        compute_live_ranges(module)
        ranges.append(time.perf_counter() - start)
    p, r = statistics.median(parse), statistics.median(ranges)
    print(f"{args.carries} carries, {module.instruction_count} instructions: parse {p:.3f} s, live ranges {r:.3f} s "
          f"-> {r / p:.2f}x the parse (medians of {args.runs})")


if __name__ == "__main__":
    main()
