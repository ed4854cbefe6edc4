"""Shared fixtures: JAX programs compiled in the test run, committed fixtures, the corpus."""

from __future__ import annotations

import os
import select
import sys
import time
from pathlib import Path

import pytest

# Stable snapshots and quiet XLA: set before Textual or JAX is imported by any test.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ["NO_COLOR"] = "1"
os.environ["TEXTUAL_ANIMATIONS"] = "none"

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
CORPUS = REPO.parent / "shared" / "corpus"

sys.path.insert(0, str(REPO / "tests"))


class TerminalOutput:
    """What a program on a pseudo-terminal wrote (`seen`), read while a condition holds, for at
    most `seconds` in all."""

    def __init__(self, fd: int, seconds: float = 120):
        self.fd, self.seen = fd, b""
        self.deadline = time.monotonic() + seconds

    def read_while(self, going) -> None:
        while going() and time.monotonic() < self.deadline:
            if select.select([self.fd], [], [], 0.5)[0]:
                try:
                    self.seen += os.read(self.fd, 65536)
                except OSError:  # the program closed the terminal
                    return


@pytest.fixture(scope="session")
def corpus() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"real-world corpus not found at {CORPUS} (it sits beside the clone in CI)")
    return CORPUS


@pytest.fixture(scope="session")
def programs(tmp_path_factory) -> dict[str, Path]:
    """Every program of tests/programs.py, compiled once per test run: name -> its dump folder."""
    import programs as catalogue

    return catalogue.generate(tmp_path_factory.mktemp("programs"))


def hlo_files(folder: Path) -> list[Path]:
    """The HLO text files XLA dumped in a folder, before and after optimization."""
    return sorted(p for p in folder.iterdir() if p.name.endswith("optimizations.txt"))


def main_hlo(folder: Path, stage: str = "after") -> Path:
    """The program's own module (not JAX's helper modules) at one stage: 'after' or 'before'."""
    import json

    module = json.loads((folder / "program.json").read_text())["module"]
    suffix = "after_optimizations.txt" if stage == "after" else "before_optimizations.txt"
    return next(p for p in hlo_files(folder) if f".{module}." in p.name and p.name.endswith(suffix))


def screen_text(app) -> str:
    """What the terminal shows right now, as plain text (for asserting on rendered screens)."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def covered_ns(spans: list[tuple[int, int]]) -> int:
    """How long some interval of `spans` ((start, end) pairs) covers: merged one at a time, the
    plain oracle for busy time and for op time counted once."""
    covered, reach = 0, None
    for start, end in sorted(spans):
        if reach is None or start >= reach:
            covered += end - start
            reach = end
        elif end > reach:
            covered += end - reach
            reach = end
    return int(covered)
