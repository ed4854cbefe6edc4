"""The one error type users see: bad input, reported as a single line with exit status 2."""

from __future__ import annotations

import os

NOT_A_FILE = "not a regular file (a pipe, socket or device): save it to a file and open that"


class InputError(Exception):
    """An input the user must fix: which file, what is wrong, and where (line/column for text)."""

    def __init__(self, path: str | os.PathLike | None, problem: str, line: int | None = None, column: int | None = None):
        self.path = os.fspath(path) if path is not None else None
        self.problem = problem
        self.line = line
        self.column = column
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.path is None and self.line is None:
            return self.problem
        where = self.path or "<input>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.problem}"
