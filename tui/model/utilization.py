"""How much of the time each device was running something (like XProf's duty cycle): "is my GPU idle?".

A device's work is what its own lines show: a GPU's stream lines (kernels, copies, memsets), a
TPU's `XLA Ops` line; only events with nothing nested in them (an annotation around kernels is
not work). On a TPU an async op's `-done` event is the core waiting for it to finish (a
host-offload copy's can last most of a step), so it does not count either: where XProf's duty
cycle counts such waits as busy (86% on the corpus's v6e offload profile), this says 3%, what the
core computed. A device is busy
where at least one of these events runs; the share is the union of their intervals over a
window: a marked range, a step, an event on the host, or the device's own span from its first
event to its last. The union is merged once (DeviceTime), so any window's answer is two binary
searches: cheap enough to give for every step and every selected event.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from tui.model.timescale import format_ns
from tui.model.trace import Trace, Track

OPS_LINE = "XLA Ops"
_GPU_PROCESS = re.compile(r"\bGPU \d+\)?$")


class DeviceBusy(NamedTuple):
    device: str  # the plane: `/device:GPU:0`
    busy_ns: int
    window_ns: int

    @property
    def share(self) -> float:
        return self.busy_ns / self.window_ns if self.window_ns else 0.0


def device_work(trace: Trace) -> dict[str, list[Track]]:
    """Per device, the tracks that hold its work (see the module's docstring): an xplane's
    `/device:` planes, or a Chrome trace's GPU processes (PyTorch's `python (GPU 2)`) and
    their streams."""
    found: dict[str, list[Track]] = {}
    for track in trace.tracks:
        if not track.count:
            continue
        on_device = track.group.startswith("/device:") or _GPU_PROCESS.search(track.group)
        if on_device and (track.name.lower().startswith("stream") or track.name == OPS_LINE):
            found.setdefault(track.group, []).append(track)
    return found


class DeviceTime:
    """Each device's work merged into disjoint intervals, with their running total length."""

    def __init__(self, trace: Trace):
        self.devices: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        for device, tracks in device_work(trace).items():
            start, end = (np.concatenate(columns) for columns in zip(*map(_work, tracks)))
            if len(start):
                start, end = _merged(start, end)
                self.devices[device] = start, end, np.concatenate(([0], np.cumsum(end - start)))

    def busy(self, t0: int | None = None, t1: int | None = None,
             own: dict[str, tuple[int, int]] | None = None) -> list[DeviceBusy]:
        """Each device's busy time over [t0, t1] (over a window of its own in `own`, a device's
        own step), or over its own span where no window is given."""
        out = []
        for device, (start, end, total) in self.devices.items():
            lo, hi = (own or {}).get(device, (t0, t1))
            lo = int(start[0]) if lo is None else lo
            hi = int(end[-1]) if hi is None else hi
            first = int(np.searchsorted(end, lo, side="right"))  # the first interval ending after lo
            last = int(np.searchsorted(start, hi, side="left"))  # past the last starting before hi
            busy = 0
            if first < last:
                busy = int(total[last] - total[first]) - max(0, lo - int(start[first])) - max(0, int(end[last - 1]) - hi)
            out.append(DeviceBusy(device, busy, hi - lo))
        return out


def device_label(device: str) -> str:
    """A device's short name: `GPU:0` for `/device:GPU:0`, `GPU 2` for PyTorch's `python (GPU 2)`."""
    found = _GPU_PROCESS.search(device)
    return found.group(0).rstrip(")") if found else device.removeprefix("/device:")


def busy_text(devices: list[tuple[str, float, int | None]], most: int = 4) -> str:
    """`GPU:0 44.9% of 1.003 ms, …`: (device, share, window in ns or None) of the first `most`
    devices, and how many there are where more."""
    shown = ", ".join(f"{device.removeprefix('/device:')} {share:.1%}" + (f" of {format_ns(window, 4)}" if window else "")
                      for device, share, window in devices[:most])
    return shown + (f", … ({len(devices)} devices)" if len(devices) > most else "")


def _work(track: Track) -> tuple[np.ndarray, np.ndarray]:
    """(start, end) of a work line's events: those with nothing nested in them (not an
    annotation around kernels, such as PyTorch's `## Call CompiledFxGraph`), but a TPU's waits
    on async ops."""
    keep = track.self_ns == track.dur_ns
    if track.name == OPS_LINE:
        waiting = np.array([name.split(".")[0].split(" ")[0].endswith("-done") for name in track.names], bool)
        keep &= ~waiting[track.name_id]
    return track.start_ns[keep], track.start_ns[keep] + track.dur_ns[keep]


def _merged(start: np.ndarray, end: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The union of intervals as disjoint ones in time order: a new one starts where an
    interval starts past the reach of all before it."""
    order = np.argsort(start, kind="stable")
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    opens = np.concatenate(([True], start[1:] > reach[:-1]))
    closes = np.concatenate((opens[1:], [True]))
    return start[opens], reach[closes]
