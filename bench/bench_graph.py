"""Key-to-frame time of the graph and details screens on the 48-layer GPT train step.

Prints, for each interaction, our median key-to-frame time against a trivial Textual app
measured the same way in the same process (bench/keyframe.py), and the ratio (target <= 1.2):

- graph moves: the cursor steps to an operand and back to a user (no re-layout);
- graph re-centre: up, Enter on that operand, Backspace (two re-centres per three keys; after
  the first round both are on ops laid out before, which the screen keeps: going back is cheap);
- graph re-centre on new ops: down, Enter, walking down the graph (forward in the program), so
  every Enter lays out an op never shown before (no kept layout helps); only Enter is timed;
- schedule moves: j/k in the entry computation's program order (about 5k instructions; the
  module has 43k in all);
- details: j walks forward through the schedule with the details screen open, so every key
  shows a different instruction (a full page redraw, nothing reused); then j/k back and forth
  (each key shows the page of a moment ago, which the screen keeps).

The new-op and details cases run again with a pause before each key (as a person reading the
screen makes), and new ops once more at a quick tapper's pace (0.15 s between keys); in those
pauses the screens work ahead (tui/widgets/still.py):
the graph around the op under the cursor is laid out and drawn, the pages of j and k laid out.
Details j also runs held down (repeats 33 ms apart: the next page is laid out after each one).

    python -m bench.bench_graph [--layers 48] [--rounds 20] [--repeat 5] [--hlo saved.txt] [--only 4 9]

Each comparison runs `--repeat` times, the trivial app beside ours, keys interleaved
(bench/keyframe.py); the summary gives the median of those ratios and the ratio of the two
medians. The module comes from bench/workloads.py (compiled with JAX once, then cached).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from bench.keyframe import SIZE, key_to_frame
from bench.workloads import gpt_hlo


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=48)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--hlo", type=Path, help="an HLO text file instead of the GPT module")
    parser.add_argument("--only", type=int, nargs="*", help="run only these cases (numbered from 1, in the order above)")
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

    pause_s = 0.6  # a person reading the screen
    tapping_s = 0.15  # a person tapping keys quickly: the cursor stands still for a tick (tui/widgets/still.py)
    repeat_s = 0.033  # a held key's repeats (30 a second): the next page is laid out between them
    cases = [
        ("graph moves (k/j)", ["k", "j"], None, None, 0.0),
        ("graph re-centre (k/enter/backspace)", ["k", "enter", "backspace"], None, None, 0.0),
        ("graph re-centre on new ops (j, timed: enter)", ["j", "enter"], None, ["enter"], 0.0),
        ("  the same, after a pause", ["j", "enter"], None, ["enter"], pause_s),
        ("  the same, tapped 0.15 s apart", ["j", "enter"], None, ["enter"], tapping_s),
        ("schedule moves (j/k)", ["j", "k"], on_schedule, None, 0.0),
        ("details next op (j)", ["j"], on_details, None, 0.0),
        ("  the same, after a pause", ["j"], on_details, None, pause_s),
        ("  the same, held down", ["j"], on_details, None, repeat_s),
        ("details back and forth (j/k)", ["j", "k"], on_details, None, 0.0),
    ]
    for number, (label, keys, setup, timed, pause) in enumerate(cases, 1):
        if args.only and number not in args.only:
            continue
        label = label.strip()
        peers, ours = [], []
        for _ in range(args.repeat):  # what keyframe.compare does, keeping both times
            mine, peer = key_to_frame(app, keys, args.rounds, setup, timed=timed, pause_s=pause)
            ours.append(mine)
            peers.append(peer)
            print(f"{label}: key-to-frame {ours[-1] * 1000:.2f} ms vs trivial app {peers[-1] * 1000:.2f} ms"
                  f" -> ratio {ours[-1] / peers[-1]:.2f} [{SIZE[0]}x{SIZE[1]}]", flush=True)
        pairs = statistics.median(o / p for o, p in zip(ours, peers))
        print(f"== {label}: median of {args.repeat} ratios {pairs:.2f}; median {statistics.median(ours) * 1000:.2f} ms"
              f" vs {statistics.median(peers) * 1000:.2f} ms -> {statistics.median(ours) / statistics.median(peers):.2f}"
              " (target <= 1.2)", flush=True)


if __name__ == "__main__":
    main()
