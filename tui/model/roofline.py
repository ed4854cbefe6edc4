"""Peak compute and memory bandwidth of known accelerators, and what bounds an op on them.

An op whose arithmetic intensity (FLOPs per byte) is below the chip's ridge point
(peak FLOP/s / peak bytes/s) cannot keep the compute units busy: it is memory bound. The peaks
are dense bf16 matmul throughput and HBM bandwidth per chip, from the vendors' data sheets.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Chip:
    name: str
    peak_flops: float  # per second
    peak_bytes: float  # HBM bytes per second

    @property
    def ridge(self) -> float:
        """FLOPs per byte at which compute and memory take equal time."""
        return self.peak_flops / self.peak_bytes


# (pattern on the device's name, chip); the first match wins, so specific names come first.
CHIPS: tuple[tuple[str, Chip], ...] = (
    (r"v5p", Chip("TPU v5p", 459e12, 2765e9)),
    (r"v5 ?lite|v5e", Chip("TPU v5e", 197e12, 819e9)),
    (r"v6 ?lite|v6e|trillium", Chip("TPU v6e", 918e12, 1640e9)),
    (r"tpu.*v4|^v4", Chip("TPU v4", 275e12, 1200e9)),
    (r"tpu.*v3|^v3", Chip("TPU v3", 123e12, 900e9)),
    (r"tpu.*v2|^v2", Chip("TPU v2", 45e12, 600e9)),
    (r"h200", Chip("NVIDIA H200", 989e12, 4800e9)),
    (r"h100.*pcie", Chip("NVIDIA H100 PCIe", 756e12, 2000e9)),
    (r"h100", Chip("NVIDIA H100 SXM", 989e12, 3350e9)),
    (r"a100.*40g", Chip("NVIDIA A100 40GB", 312e12, 1555e9)),
    (r"a100", Chip("NVIDIA A100 80GB", 312e12, 2039e9)),
)


def chip_for(device_name: str) -> Chip | None:
    """The known chip a profile's device name describes (`TPU v5 lite`, `NVIDIA H100 80GB HBM3`)."""
    text = device_name.lower()
    for pattern, chip in CHIPS:
        if re.search(pattern, text):
            return chip
    return None


def profile_chip(devices) -> Chip | None:
    """The chip a profile ran on: its device plane's own peaks (a TPU's), else the table's chip
    for the device's name (a GPU's); None for a host CPU or an unknown chip."""
    for device in devices:
        if device.peak_teraflops_per_second and device.peak_hbm_bw_gigabytes_per_second:
            return Chip(device.device_type or device.name, device.peak_teraflops_per_second * 1e12,
                        device.peak_hbm_bw_gigabytes_per_second * 1e9)
        chip = chip_for(f"{device.device_type or ''} {device.name}")
        if chip is not None:
            return chip
    return None


@dataclass(frozen=True)
class Roofline:
    achieved_flops: float  # per second
    achieved_bytes: float  # per second
    bound: str  # "compute" or "memory"
    flops_fraction: float  # of the chip's peak
    bytes_fraction: float


def roofline(flops: float, bytes_accessed: float, seconds: float, chip: Chip) -> Roofline | None:
    """Achieved rates of one run of an op and what bounds it; None without time or bytes."""
    if seconds <= 0 or bytes_accessed <= 0 or flops < 0:
        return None
    bound = "compute" if flops / bytes_accessed >= chip.ridge else "memory"
    achieved_flops, achieved_bytes = flops / seconds, bytes_accessed / seconds
    return Roofline(achieved_flops, achieved_bytes, bound, achieved_flops / chip.peak_flops, achieved_bytes / chip.peak_bytes)
