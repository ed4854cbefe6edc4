"""Key-to-frame time of the graph and details screens on the 48-layer GPT train step.

Prints, for each interaction, our median key-to-frame time against a trivial Textual app
measured the same way in the same process (bench/keyframe.py), and the ratio (target <= 1.2):

- graph moves: the cursor steps to an operand and back to a user (no re-layout);
- graph re-centre: up, Enter on that operand, Backspace (two layouts per three keys);
- schedule moves: j/k in the entry computation's program order (about 5k instructions; the
  module has 43k in all);
- details: j walks forward through the schedule with the details screen open, so every key
  shows a different instruction (a full page redraw, nothing reused).

    python -m bench.bench_graph [--layers 48] [--rounds 20] [--repeat 5] [--hlo saved.txt]

Each comparison runs `--repeat` times (peer and ours each time) and the median ratio is
reported: on a shared machine single runs swing by 2x. The module comes from
bench/workloads.py (compiled with JAX once, then cached).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from bench.keyframe import compare
from bench.workloads import gpt_hlo


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hlo", type=Path, help="an HLO text file instead of the GPT module")
    args = parser.parse_args(argv)
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

    from tui.app import XlaTuiApp
    from tui.model.workspace import ModuleEntry, Workspace

    path = args.hlo or gpt_hlo(args.layers)
    start = time.perf_counter()
    entry = ModuleEntry(label="gpt", name="gpt", path=path)
    hlo = entry.load()
    print(f"{path.name}: {hlo.instruction_count} instructions, {len(hlo.entry.instructions)} in the entry "
          f"(parsed in {time.perf_counter() - start:.2f} s)")
    # A dot in the middle of the program: operands above, users below, both sides busy.
    dots = [i for i in hlo.entry.instructions if i.opcode in ("dot", "fusion") and i.operands and i.users]
    middle = dots[len(dots) // 2]

    def app():
        ws = Workspace([entry])
        ws.select(instruction=middle)
        return XlaTuiApp(workspace=ws)

    async def on_schedule(app, pilot):
        await pilot.press("l")

    async def on_details(app, pilot):
        await pilot.press("2")

    cases = [
        ("graph moves (k/j)", ["k", "j"], None),
        ("graph re-centre (k/enter/backspace)", ["k", "enter", "backspace"], None),
        ("schedule moves (j/k)", ["j", "k"], on_schedule),
        ("details next op (j)", ["j"], on_details),
    ]
    medians = {}
    for label, keys, setup in cases:
        ratios = [compare(label, app, keys=keys, rounds=args.rounds, setup=setup) for _ in range(args.repeat)]
        medians[label] = statistics.median(ratios)
    print("median ratios: " + ", ".join(f"{label} {ratio:.2f}" for label, ratio in medians.items()))


if __name__ == "__main__":
    main()
