"""Profile 20 GPT train steps with JAX on CPU: the workload `bench_trace.py` loads.

58 layers give about 590k events in the xplane (about 29.5k per step); the run also writes
`perfetto_trace.json.gz` beside it. Output goes to `bench/.cache/profile/` (gitignored); the
script prints the paths of the newest run's files. Reuses an existing run unless `--force`.

    python bench/make_profile.py [--layers 56] [--steps 20] [--force]
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOGDIR = HERE / ".cache" / "profile"


def newest_run(logdir: Path = LOGDIR) -> Path | None:
    runs = sorted((logdir / "plugins" / "profile").glob("*/"))
    return runs[-1] if runs else None


def make_profile(layers: int, steps: int, logdir: Path = LOGDIR) -> Path:
    """Run `steps` profiled train steps after one unprofiled compile step; return the run folder."""
    import jax

    sys.path.insert(0, str(HERE))
    from gpt import make_inputs, train_step

    params, tokens, targets = make_inputs(layers)
    params, loss = train_step(params, tokens, targets)
    loss.block_until_ready()
    with jax.profiler.trace(str(logdir), create_perfetto_trace=True):
        for step in range(steps):
            with jax.profiler.StepTraceAnnotation("train", step_num=step):
                params, loss = train_step(params, tokens, targets)
        loss.block_until_ready()
    return newest_run(logdir)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=58)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--force", action="store_true", help="profile again even if a run exists")
    args = parser.parse_args()
    run = newest_run()
    if run is None or args.force:
        shutil.rmtree(LOGDIR, ignore_errors=True)
        run = make_profile(args.layers, args.steps)
    for path in sorted(run.iterdir()):
        print(path)


if __name__ == "__main__":
    main()
