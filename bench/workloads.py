"""Big workloads for the benches, generated with JAX on the CPU and cached under bench/.cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

CACHE = Path(__file__).resolve().parent / ".cache"
REPO = Path(__file__).resolve().parents[1]


def gpt_dump(layers: int = 48) -> Path:
    """An --xla_dump_to folder of the `layers`-deep GPT train step (HLO text, live ranges, buffers)."""
    folder = CACHE / f"gpt{layers}_dump"
    if not any(folder.glob("*train_step*after_optimizations.txt")):
        folder.mkdir(parents=True, exist_ok=True)
        flags = f"--xla_dump_to={folder} --xla_dump_hlo_as_text --xla_dump_hlo_module_re=.*train_step.*"
        env = dict(os.environ, XLA_FLAGS=flags, TF_CPP_MIN_LOG_LEVEL="3")
        code = f"import gpt; gpt.train_step.lower(*gpt.make_inputs({layers})).compile()"
        subprocess.run([sys.executable, "-c", code], cwd=REPO / "bench", env=env, check=True)
    return folder


def gpt_hlo(layers: int = 48) -> Path:
    """The optimized HLO text of the `layers`-deep GPT train step (about 6 MB for 48 layers)."""
    return next(gpt_dump(layers).glob("*train_step*after_optimizations.txt"))
