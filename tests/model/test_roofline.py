"""Known chips by the names profiles give them, and the roofline verdict."""

from __future__ import annotations

from tui.model.roofline import chip_for, roofline


def test_device_names_map_to_chips():
    assert chip_for("TPU v5 lite").name == "TPU v5e"
    assert chip_for("TPU v5p").name == "TPU v5p"
    assert chip_for("TPU v6 lite").name == "TPU v6e"
    assert chip_for("TPU v4").name == "TPU v4"
    assert chip_for("NVIDIA H100 80GB HBM3").name == "NVIDIA H100 SXM"
    assert chip_for("NVIDIA H100 PCIe").name == "NVIDIA H100 PCIe"
    assert chip_for("NVIDIA H200").name == "NVIDIA H200"
    assert chip_for("NVIDIA A100-SXM4-40GB").name == "NVIDIA A100 40GB"
    assert chip_for("Host CPU") is None and chip_for("") is None


def test_bound_follows_the_ridge_point():
    chip = chip_for("TPU v4")
    ridge = chip.peak_flops / chip.peak_bytes
    low = roofline(flops=ridge / 2 * 1e6, bytes_accessed=1e6, seconds=1e-3, chip=chip)
    high = roofline(flops=ridge * 2 * 1e6, bytes_accessed=1e6, seconds=1e-3, chip=chip)
    assert low.bound == "memory" and high.bound == "compute"
    assert low.achieved_bytes == 1e9 and low.bytes_fraction == 1e9 / chip.peak_bytes
    assert roofline(1.0, 0.0, 1e-3, chip) is None and roofline(-1.0, 10.0, 1e-3, chip) is None
