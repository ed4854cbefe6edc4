"""How much of the time each device was running something (XProf's duty cycle): "is my GPU idle?".

A device's work is what its own lines show: a GPU's stream lines (kernels, copies, memsets), a
TPU's `XLA Ops` line; only events with nothing nested in them (an annotation around kernels is
not work). On a TPU an async op's `-done` event is the core waiting for it to finish (a
host-offload copy's can last most of a step), so it does not count either. A device is busy
where at least one of these events runs; the share is the union of their intervals over a
window: a marked range, or the device's own span from its first event to its last.
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


def device_busy(trace: Trace, t0: int | None = None, t1: int | None = None) -> list[DeviceBusy]:
    """Each device's busy time over [t0, t1], or over its own span where no window is given."""
    out = []
    for device, tracks in device_work(trace).items():
        starts, ends = [], []
        for track in tracks:
            start, end = _work(track)
            starts.append(start)
            ends.append(end)
        start, end = np.concatenate(starts), np.concatenate(ends)
        if not len(start):
            continue
        lo = int(start.min()) if t0 is None else t0
        hi = int(end.max()) if t1 is None else t1
        out.append(DeviceBusy(device, _union(np.clip(start, lo, hi), np.clip(end, lo, hi)), hi - lo))
    return out


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


def _union(start: np.ndarray, end: np.ndarray) -> int:
    """Length of the union of intervals: each adds what it reaches past all that came before."""
    order = np.argsort(start, kind="stable")
    start, end = start[order], end[order]
    reach = np.maximum.accumulate(end)
    before = np.concatenate(([np.iinfo(np.int64).min], reach[:-1]))
    return int(np.maximum(0, end - np.maximum(start, before)).sum())
