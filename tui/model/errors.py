"""The one error type users see: bad input, reported as a single line with exit status 2."""

from __future__ import annotations

import errno
import os
import stat

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
        where = (self.path or "<input>").replace("\n", "\\n")  # a name with a newline stays on one line
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return f"{where}: {self.problem}"


def missing(path: str | os.PathLike) -> InputError:
    """The error for a path that does not exist as it is named: not there at all, or a symbolic
    link that points nowhere (said, with where it points) or round in a loop."""
    try:
        os.stat(path)
    except OSError as e:
        if e.errno == errno.ELOOP:
            return InputError(path, "a symbolic link loop (its links point round to each other)")
    if os.path.islink(path):
        return InputError(path, f"a symbolic link to {os.readlink(path)}, which does not exist")
    return InputError(path, "no such file or directory")


def unreadable(paths, error: BaseException) -> str:
    """One line for input that broke a reader in a way no check foresaw (a value of a type no
    tool writes, a number past what it can hold): the inputs, and what went wrong."""
    named = ", ".join(os.fspath(p) for p in paths) or "<input>"
    if isinstance(error, MemoryError):  # a memory limit below what the free-memory checks saw (ulimit -v)
        return f"{named}: too big to open here: reading it ran out of the memory this process may use"
    detail = " ".join(str(error).split())[:300]
    return f"{named}: cannot be read ({type(error).__name__}{': ' + detail if detail else ''})"


def open_regular(path: str | os.PathLike):
    """The file opened for reading in binary, or InputError where it is no regular file: a pipe
    or device found inside a folder would block the read for ever, or never end. (Opened
    without waiting for a writer, then checked.)"""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(path, NOT_A_FILE)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
