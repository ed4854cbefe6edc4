"""Parse speed: tui.model.hlo.parse_hlo vs XLA's C++ parser on the same text, same process.

    python -m bench.bench_parse [--layers 48] [--runs 7]

Target (issue 2): ratio <= 1.0 on the 48-layer GPT train step, with every instruction's opcode,
shape and operands parsed.
"""

from __future__ import annotations

import argparse
import statistics
import time

from bench.workloads import gpt_hlo


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()

    from jax._src.lib import xla_client

    from tui.model.hlo import parse_hlo

    path = gpt_hlo(args.layers)
    text = path.read_text()
    ours, xla = [], []
    for _ in range(args.runs):  # alternate so machine noise hits both alike
        start = time.perf_counter()
        module = parse_hlo(text)
        count = 0
        for ins in module.instructions():  # what the bar includes: every opcode, shape and operand list
            ins.opcode, ins.shape.byte_size, ins.operands
            count += 1
        ours.append(time.perf_counter() - start)
        start = time.perf_counter()
        xla_client.hlo.hlo_module_from_text(text)
        xla.append(time.perf_counter() - start)
    ratio = statistics.median(ours) / statistics.median(xla)
    print(f"{path.name}: {len(text) / 1e6:.1f} MB, {count} instructions")
    print(f"parse_hlo {statistics.median(ours) * 1000:.0f} ms, XLA C++ parser {statistics.median(xla) * 1000:.0f} ms "
          f"-> ratio {ratio:.2f} (target <= 1.0; medians of {args.runs})")


if __name__ == "__main__":
    main()
