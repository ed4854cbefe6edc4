"""Peak compute and memory bandwidth of known accelerators, what bounds an op on them, and
where each op sits under the roofs (the roofline chart's points).

An op whose arithmetic intensity (FLOPs per byte) is below the chip's ridge point
(peak FLOP/s / peak bytes/s) cannot keep the compute units busy: it is memory bound. The peaks
are dense bf16 matmul throughput and HBM bandwidth per chip, from the vendors' data sheets.

A GPU plane often names no chip (TensorFlow's, ROCm's): it gives the device's capabilities
instead (compute capability, SM or CU count, clock, memory bandwidth), as XProf reads them.
Then the peak is units x clock x the architecture's dense 16-bit matrix FLOPs per unit per
clock (`chip_from_capabilities`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class Chip:
    name: str
    peak_flops: float  # per second
    peak_bytes: float  # HBM bytes per second
    source: str = "the vendor's data sheet"  # where the peaks come from

    @property
    def ridge(self) -> float:
        """FLOPs per byte at which compute and memory take equal time."""
        return self.peak_flops / self.peak_bytes

    def bound(self, intensity: float) -> str:
        """What bounds an op of this many FLOPs per byte: `compute` from the ridge point on, else `memory`."""
        return "compute" if intensity >= self.ridge else "memory"


# (pattern on the device's name, chip); the first match wins, so specific names come first.
CHIPS: tuple[tuple[str, Chip], ...] = (
    (r"v5p", Chip("TPU v5p", 459e12, 2765e9)),
    (r"v5 ?lite|v5e", Chip("TPU v5e", 197e12, 819e9)),
    (r"v6 ?lite|v6e|trillium", Chip("TPU v6e", 918e12, 1640e9)),
    (r"tpu.*v4|^v4", Chip("TPU v4", 275e12, 1200e9)),
    (r"tpu.*v3|^v3", Chip("TPU v3", 123e12, 900e9)),
    (r"tpu.*v2|^v2", Chip("TPU v2", 45e12, 600e9)),
    (r"gb200", Chip("NVIDIA GB200 (one GPU)", 2500e12, 8000e9)),
    (r"b200", Chip("NVIDIA B200", 2250e12, 8000e9)),
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


# Dense bf16/fp16 matrix FLOPs per clock of one NVIDIA SM, by compute capability, for the
# data-center parts (GeForce cards of the same capability do half with fp32 accumulation).
# Each checks out against a data sheet: V100 80 SMs x 1.53 GHz x 1024 = 125 TFLOP/s, T4 65,
# A100 312, A10 125, L4 121, H100 SXM 989 at its 1.83 GHz tensor clock (the plane's clock is
# the highest boost, which reads about 8% over), B200 2250 at 1.86 GHz, RTX PRO 6000 Blackwell
# (sm_120) 500. A capability newer than these gets the newest one's below it, as XProf backs off.
NVIDIA_FLOPS_PER_SM_CLOCK = {(7, 0): 1024, (7, 5): 1024, (8, 0): 2048, (8, 6): 1024, (8, 9): 1024, (9, 0): 4096,
                             (10, 0): 8192, (10, 3): 8192, (12, 0): 1024}
# AMD Instinct parts by gfx version (what ROCm planes give as compute capability: gfx942 is 9.4,
# every gfx90x 9.0, whose minor older profilers left out; gfx950 is 9.5), CU count, least
# memory and least clock (kHz, as planes give it: an MI355X is an MI350X clocked higher): their
# planes' `memory_bandwidth` reads half the data sheet's (MI300X: 2.66 of 5.3 TB/s, the corpus
# profile's ops reach 3.1; MI355X: 4.1 of 8), so the sheet's peaks are used. An MI250(X) is two
# devices (GCDs).
AMD_CHIPS = (
    ((9, 5), 256, 0, 2_300_000, Chip("AMD Instinct MI355X", 2516.6e12, 8.0e12)),
    ((9, 5), 256, 0, 0, Chip("AMD Instinct MI350X", 2306.9e12, 8.0e12)),
    ((9, 4), 304, 224 << 30, 0, Chip("AMD Instinct MI325X", 1307.4e12, 6.0e12)),
    ((9, 4), 304, 0, 0, Chip("AMD Instinct MI300X", 1307.4e12, 5.3e12)),
    ((9, 4), 228, 0, 0, Chip("AMD Instinct MI300A", 980.6e12, 5.3e12)),
    ((9, 0), 110, 0, 0, Chip("AMD Instinct MI250X (one GCD)", 191.5e12, 1.6384e12)),
    ((9, 0), 104, 0, 0, Chip("AMD Instinct MI210 or one MI250 GCD", 181.0e12, 1.6384e12)),
    ((9, 0), 120, 0, 0, Chip("AMD Instinct MI100", 92.3e12, 1.2288e12)),
)


def chip_from_capabilities(stats: dict) -> Chip | None:
    """A GPU's peaks from its plane's capability stats (see module doc); None where the
    architecture or the stats are unknown."""
    major, minor, units = stats.get("compute_cap_major"), stats.get("compute_cap_minor"), stats.get("core_count")
    amd = str(stats.get("device_vendor", "")).upper() == "AMD"
    if amd and minor is None:
        minor = 0  # a gfx90x part, from a profiler that wrote no minor of 0
    if major is None or minor is None or not units:
        return None
    clock_khz = stats.get("clock_rate") or 0
    if amd:
        memory = stats.get("memory_size") or 0
        return next((chip for cap, cus, least, fastest, chip in AMD_CHIPS
                     if cap == (major, minor) and cus == units and memory >= least and clock_khz >= fastest), None)
    known = [cap for cap in NVIDIA_FLOPS_PER_SM_CLOCK if cap <= (major, minor)]
    bandwidth = stats.get("memory_bandwidth")
    if not known or not clock_khz or not bandwidth:
        return None
    like = max(known)
    per_clock = NVIDIA_FLOPS_PER_SM_CLOCK[like]
    assumed = "" if like == (major, minor) else f" (sm_{like[0]}{like[1]}'s: sm_{major}{minor} is newer than the table)"
    return Chip(f"NVIDIA sm_{major}{minor} GPU", units * clock_khz * 1e3 * per_clock, float(bandwidth),
                f"{units} SMs x {clock_khz / 1e6:.2f} GHz x {per_clock} FLOPs a clock{assumed}; the plane's memory bandwidth")


def profile_chip(devices) -> Chip | None:
    """The chip a profile ran on: its device plane's own peaks (a TPU's), else the table's chip
    for the device's name, else one from its capabilities (a GPU's); None for a host CPU or an
    unknown chip."""
    for device in devices:
        if device.peak_teraflops_per_second and device.peak_hbm_bw_gigabytes_per_second:
            return Chip(device.device_type or device.name, device.peak_teraflops_per_second * 1e12,
                        device.peak_hbm_bw_gigabytes_per_second * 1e9, "the device plane")
        chip = chip_for(f"{device.device_type or ''} {device.name}") or chip_from_capabilities(device.stats)
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
    achieved_flops, achieved_bytes = flops / seconds, bytes_accessed / seconds
    return Roofline(achieved_flops, achieved_bytes, chip.bound(flops / bytes_accessed), achieved_flops / chip.peak_flops, achieved_bytes / chip.peak_bytes)


class Point(NamedTuple):
    """One op on the roofline chart (XProf's Roofline Model tool)."""

    op: int  # its row in the op profile
    intensity: float  # FLOPs per byte accessed
    rate: float  # achieved FLOP/s over all its runs
    share: float  # of all ops' time


def points(rates: list[float | None], byte_rates: list[float | None], totals_ns: list[int]) -> list[Point]:
    """The ops that have both FLOPs and bytes, largest share of `totals_ns` (their op times)
    first. An op without FLOPs (a copy, a collective) has no place on a log axis of FLOPs per
    byte, as in XProf's chart."""
    everything = sum(totals_ns) or 1
    found = [Point(k, rate / moved, rate, total / everything)
             for k, (rate, moved, total) in enumerate(zip(rates, byte_rates, totals_ns)) if rate and moved]
    return sorted(found, key=lambda point: -point.share)


def attainable(chip: Chip, intensity: float) -> float:
    """The roof at an intensity: bandwidth-bound below the ridge point, compute-bound above."""
    return min(chip.peak_flops, intensity * chip.peak_bytes)
