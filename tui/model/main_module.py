"""Which module is the user's program: the one that ran most, else the largest; JAX's helpers aside.

Every op a script runs outside `jit` is compiled by JAX as a small module of its own
(`jit_broadcast_in_dim`, `jit_convert_element_type`), and `jax.random` compiles private
functions (`jit__normal`, `jit__threefry_split`) whose HLO can outgrow a small train step. So
"the largest module" is not enough: a profile says what actually ran, and without one the
helpers step aside. Helpers are told by name (tui/model/eager_ops.py lists every jax.numpy,
jax.nn and jax.lax function and primitive, and JAX's own private jitted functions, `_normal`;
a user's `_train_step` is not one of those): a jitted function of the user's named like one
(`softmax`, `solve`) steps aside too, unless no other qualifies; `--main` names it.
"""

from __future__ import annotations

import re
from typing import Callable, NamedTuple, Sequence, TypeVar

import numpy as np

from tui.model.eager_ops import EAGER_OPS, PRIVATE_OPS

M = TypeVar("M")

# Underscore names that are the user's own: a jitted lambda, and `jax.pmap` (built on `_fun`).
USER_PRIVATE_NAMES = frozenset({"jit__lambda", "jit__fun", "pmap__lambda"})

_EVENT_PATTERNS = (
    (re.compile(r"(?:Pjit|Jit)Function\((.+)\)"), "jit_"),  # host dispatch of a jitted function
    (re.compile(r"PmapFunction\((.+)\)"), "pmap_"),
    (re.compile(r"(?:\[\d+\] )?\w+::Execute \((.+)\)"), ""),  # CPU multi-device: `[0] ...::Execute (jit_f)`
    (re.compile(r"(.+?)(?:\(\d+\))?"), ""),  # `XLA Modules` line: `jit_f(1234)`, or the module's own name
)


def name_key(name: str) -> str:
    """Module names as JAX sanitizes them: `jit_<lambda>` and `jit__lambda` are one module."""
    return re.sub(r"[^0-9A-Za-z.]+", "_", name).strip("_").lower()


def is_helper(name: str) -> bool:
    """A module JAX compiled for itself rather than for the user's own jitted function."""
    if name in USER_PRIVATE_NAMES:
        return False
    if name.startswith(("jit__", "pmap__")):  # JAX's private jitted functions (jax.random, jnp internals)
        return name_key(name.split("__", 1)[1]) in PRIVATE_OPS  # a user's own `_train_step` is theirs
    return name.startswith("jit_") and name_key(name[4:]) in EAGER_OPS


class Runs(NamedTuple):
    count: int
    total_ns: int


def module_runs(trace, module_names: Sequence[str]) -> dict[str, Runs]:
    """How often, and how long in all, each of `module_names` ran in the profile.

    Module events are device `XLA Modules` lines (`jit_step(1234)`), CPU executions
    (`[0] ...::Execute (jit_step)`) and the host's dispatch of a jitted function
    (`PjitFunction(step)`). Only the outermost events count: JAX nests a dispatch event in
    another of the same call, and in the tracing of a function that calls other jitted
    functions. Only the `XLA Modules` tracks are read when the profile has them, so device
    profiles stay cheap; their time is the device's. A host's dispatch is no measure of the
    program (its first call's includes compiling; the run itself comes after it): its time is
    left at 0 (modules that ran as often are then told apart by `program_time`).
    """
    by_key: dict[str, list[str]] = {}
    for module_name in module_names:
        by_key.setdefault(name_key(module_name), []).append(module_name)
    device = [t for t in trace.tracks if t.name == "XLA Modules" and t.count]
    tracks = device or [t for t in trace.tracks if t.count]
    name_ids = [track.name_id for track in tracks]  # decoding a track fills the name table
    keys = {i: key for i, event_name in enumerate(trace.names) if (key := _event_module(event_name, by_key))}
    if not keys:
        return {}
    wanted_ids = np.fromiter(keys, np.int64, len(keys))
    counts, totals = np.zeros(len(trace.names), np.int64), np.zeros(len(trace.names))
    for track, name_id in zip(tracks, name_ids):
        hit = np.flatnonzero(np.isin(name_id, wanted_ids))  # in start order, a parent before its children
        if not len(hit):
            continue
        start, end = track.start_ns[hit], track.end_ns[hit]
        outer = np.ones(len(hit), bool)
        outer[1:] = start[1:] >= np.maximum.accumulate(end)[:-1]
        ids = name_id[hit[outer]]
        counts += np.bincount(ids, minlength=len(counts))
        totals += np.bincount(ids, weights=track.dur_ns[hit[outer]], minlength=len(totals))
    runs: dict[str, Runs] = {}
    for i, key in keys.items():
        if counts[i]:
            for module_name in by_key[key]:
                before = runs.get(module_name, Runs(0, 0))
                runs[module_name] = Runs(before.count + int(counts[i]), before.total_ns + (int(totals[i]) if device else 0))
    return runs


def program_runs(trace) -> dict[str, int]:
    """How often each program (`jit_f(12)`: a module and its id) ran, where the profile tells
    programs of one name apart: a device's `XLA Modules` events are named so; a CPU's op events
    name theirs in stats (`hlo_module`, `program_id`), each run its own `run_id`."""
    from tui.model.links import MODULES_TRACK, event_programs

    counts: dict[str, int] = {}
    devices = [t for t in trace.tracks if t.name == MODULES_TRACK and t.count and not t.derived]
    for track in devices:
        for name, n in zip(*np.unique(track.name_id, return_counts=True)):
            counts[trace.names[name]] = counts.get(trace.names[name], 0) + int(n)
    if devices:
        return counts
    for track in [t for t in trace.tracks if t.count and not t.derived]:
        program_codes, programs = event_programs(track)
        if not programs:
            continue
        run_codes, _ = track.stat_codes("run_id")
        named = program_codes >= 0
        for code, n in zip(*np.unique(np.unique(np.stack([program_codes[named], run_codes[named]], 1), axis=0)[:, 0],
                                      return_counts=True)):
            counts[programs[code]] = counts.get(programs[code], 0) + int(n)
    return counts


def program_time(trace) -> dict[str, int]:
    """Each program's time in ns (`jit_f(12)`), its events' durations added up, on a profile
    whose events name their program in stats (a CPU's ops, a GPU's kernels): between modules
    that ran as often, the one the device spent its time on is the user's program."""
    from tui.model.links import event_programs

    times: dict[str, int] = {}
    for track in [t for t in trace.tracks if t.count and not t.derived]:
        codes, programs = event_programs(track)
        if programs:
            named = codes >= 0
            for code, total in enumerate(np.bincount(codes[named], weights=track.dur_ns[named], minlength=len(programs))):
                if total:
                    times[programs[code]] = times.get(programs[code], 0) + int(total)
    return times


def _event_module(event_name: str, wanted: dict[str, list[str]]) -> str | None:
    """The `name_key` of the wanted module an event stands for, if it stands for one."""
    for pattern, prefix in _EVENT_PATTERNS:
        m = pattern.fullmatch(event_name)
        if m is not None:
            key = name_key(prefix + m.group(1))
            if key in wanted:
                return key
    return None


def pick_main(modules: Sequence[M], name: Callable[[M], str], size: Callable[[M], object],
              runs: dict[str, Runs] | None = None, runs_key: Callable[[M], str] | None = None) -> M | None:
    """The user's module that ran most often (then longest, see `module_runs`; `runs` by
    `runs_key`, the name by default); else the largest by `size`. JAX's helpers count only when
    none of the user's modules qualify."""
    if not modules:
        return None
    key = runs_key or name
    own = [m for m in modules if not is_helper(name(m))] or list(modules)
    ran = [m for m in own if runs and key(m) in runs]
    if ran:
        return max(ran, key=lambda m: (runs[key(m)], size(m)))
    return max(own, key=size)
