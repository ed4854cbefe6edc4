"""Known chips by the names profiles give them, and the roofline verdict."""

from __future__ import annotations

import pytest

from tui.model.roofline import chip_for, chip_from_capabilities, profile_chip, roofline


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


def capabilities(major, minor, units, clock_ghz=0.0, bandwidth=0.0, vendor=None, memory=0):
    stats = {"compute_cap_major": major, "compute_cap_minor": minor, "core_count": units,
             "clock_rate": int(clock_ghz * 1e6), "memory_bandwidth": bandwidth, "memory_size": memory}
    return stats if vendor is None else {**stats, "device_vendor": vendor}


@pytest.mark.parametrize("stats, sheet_tflops", [
    (capabilities(7, 0, 80, 1.53, 900e9), 125),  # V100 SXM2
    (capabilities(7, 5, 40, 1.59, 320e9), 65),  # T4
    (capabilities(8, 0, 108, 1.41, 2039e9), 312),  # A100
    (capabilities(8, 6, 72, 1.695, 600e9), 125),  # A10
    (capabilities(8, 9, 58, 2.04, 300e9), 121),  # L4
    (capabilities(10, 0, 148, 1.86, 8000e9), 2250),  # B200
    (capabilities(12, 0, 188, 2.6, 1792e9), 500),  # RTX PRO 6000 Blackwell
])
def test_an_unnamed_nvidia_gpu_gets_its_data_sheets_peak_from_its_sms_and_clock(stats, sheet_tflops):
    chip = chip_from_capabilities(stats)
    assert chip.peak_flops == pytest.approx(sheet_tflops * 1e12, rel=0.01)
    assert chip.peak_bytes == stats["memory_bandwidth"] and "SMs" in chip.source


def test_amd_instinct_parts_by_gfx_version_cus_and_memory():
    mi300x = capabilities(9, 4, 304, 2.1, 2662.4e9, "AMD", 192 << 30)
    assert chip_from_capabilities(mi300x).name == "AMD Instinct MI300X"
    assert chip_from_capabilities({**mi300x, "memory_size": 256 << 30}).name == "AMD Instinct MI325X"
    assert chip_from_capabilities({**mi300x, "core_count": 228}).name == "AMD Instinct MI300A"
    # The sheet's MI300X peak is what its CUs and clock make at 2048 FLOPs a clock.
    assert chip_from_capabilities(mi300x).peak_flops == pytest.approx(304 * 2.1e9 * 2048, rel=0.001)


def test_a_newer_nvidia_gpu_gets_the_newest_known_rate_below_it_and_says_so():
    """As XProf backs off to the highest compute capability it knows below the device's."""
    chip = chip_from_capabilities(capabilities(13, 0, 100, 2.0, 1e12))
    assert chip.peak_flops == 100 * 2.0e9 * 1024 and "sm_120's: sm_130 is newer" in chip.source
    assert "newer" not in chip_from_capabilities(capabilities(9, 0, 132, 1.83, 3350e9)).source


def test_blackwell_by_name():
    assert chip_for("NVIDIA B200").name == "NVIDIA B200"
    assert chip_for("NVIDIA GB200").name == "NVIDIA GB200 (one GPU)"


def test_amd_mi350_series_from_the_corpus_profiles_plane(corpus):
    """gfx950 (compute capability 9.5), 256 CUs: an MI355X at 2.4 GHz (the corpus's ROCm
    profile), an MI350X at 2.2; the sheet's peaks, its CUs x clock x 4096 FLOPs a clock."""
    from tui.model.trace import load_trace

    trace = load_trace(corpus / "traces" / "tracelens_jax_rocm_te_fused_attn.xplane.pb")
    chip = profile_chip(trace.devices.values())
    stats = trace.devices["/device:GPU:0"].stats
    assert (stats["compute_cap_major"], stats["compute_cap_minor"], stats["core_count"]) == (9, 5, 256)
    assert chip.name == "AMD Instinct MI355X" and chip.peak_bytes == 8.0e12
    assert chip.peak_flops == pytest.approx(256 * stats["clock_rate"] * 1e3 * 4096, rel=0.001)
    mi350x = chip_from_capabilities({**stats, "clock_rate": 2_200_000})
    assert mi350x.name == "AMD Instinct MI350X" and mi350x.peak_flops == pytest.approx(256 * 2.2e9 * 4096, rel=0.001)


def test_amd_gfx90x_parts_by_cus_also_without_a_minor():
    """Every gfx90x part is compute capability 9.0 (older ROCm profilers wrote no minor of 0):
    the CU count tells an MI250X's GCD from an MI210's and an MI100."""
    mi250x = capabilities(9, 0, 110, 1.7, 1.6e12, "AMD", 64 << 30)
    assert chip_from_capabilities(mi250x).name == "AMD Instinct MI250X (one GCD)"
    assert chip_from_capabilities(mi250x).peak_flops == pytest.approx(110 * 1.7e9 * 1024, rel=0.001)  # 383 TFLOP/s / 2
    no_minor = {key: value for key, value in mi250x.items() if key != "compute_cap_minor"}
    assert chip_from_capabilities(no_minor).name == "AMD Instinct MI250X (one GCD)"
    assert chip_from_capabilities({**mi250x, "core_count": 104}).name == "AMD Instinct MI210 or one MI250 GCD"
    assert chip_from_capabilities({**mi250x, "core_count": 120}).name == "AMD Instinct MI100"


def test_unknown_capabilities_are_no_chip():
    assert chip_from_capabilities({}) is None
    assert chip_from_capabilities(capabilities(6, 1, 20, 1.7, 320e9)) is None  # Pascal: no matrix units
    assert chip_from_capabilities(capabilities(9, 0, 60, 1.7, 1.0e12, "AMD", 16 << 30)) is None  # MI50: not in the table
    assert chip_from_capabilities(capabilities(8, 0, 108, 0.0, 2039e9)) is None  # no clock
    assert chip_from_capabilities({k: v for k, v in capabilities(8, 0, 108, 1.41, 2039e9).items()
                                   if k != "compute_cap_minor"}) is None  # an NVIDIA plane's minor is never left out


def test_profiles_without_chip_names_get_peaks_from_their_planes(corpus):
    """A TensorFlow V100 profile and a JAX-on-ROCm MI300X one name no chip; their planes'
    capabilities give it, and the summary says where the peaks came from."""
    from tui.model.trace import load_trace

    v100 = profile_chip(load_trace(corpus / "traces" / "xprof_demo_tf_gpu_multiworker_2020.xplane.pb").devices.values())
    assert v100.name == "NVIDIA sm_70 GPU" and v100.peak_flops == pytest.approx(125e12, rel=0.01)
    assert v100.peak_bytes == pytest.approx(898e9, rel=0.001)
    mi300x = profile_chip(load_trace(corpus / "traces" / "tracelens_jax08_rocm_conv3d_8gpu.xplane.pb").devices.values())
    assert mi300x.name == "AMD Instinct MI300X" and mi300x.peak_bytes == 5.3e12


def test_the_charts_points_are_each_ops_cost_over_its_runs():
    """On the H100 fixture: each plotted op's intensity is its instruction's FLOPs over its bytes
    (XLA's cost model), its rate those FLOPs times its runs over their time, and its share of
    the ops' time; ops without FLOPs (copies) are left out; largest share first; the roof is
    bandwidth times intensity up to the ridge point, the peak past it."""
    from conftest import FIXTURES

    from tui.model.cost import op_cost
    from tui.model.inputs import load_workspace
    from tui.model.links import op_profile
    from tui.model.roofline import attainable, points

    folder = FIXTURES / "gpu"
    profile = op_profile(load_workspace([next(folder.glob("*.xplane.pb")), folder]))
    everything = sum(row.total_ns for row in profile.ops)
    found = points(profile.rates, profile.byte_rates, [row.total_ns for row in profile.ops])
    assert 50 < len(found) < len(profile.ops)
    for point in found:
        row, cost = profile.ops[point.op], op_cost(profile.instructions[point.op])
        assert point.intensity == pytest.approx(cost.flops / cost.bytes_accessed)
        assert point.rate == pytest.approx(cost.flops * row.count / (row.total_ns / 1e9))
        assert point.share == row.total_ns / everything
    left_out = set(range(len(profile.ops))) - {point.op for point in found}
    assert left_out and all(profile.rates[k] is None or profile.byte_rates[k] is None for k in left_out)
    assert [point.share for point in found] == sorted((point.share for point in found), reverse=True)
    chip = profile.chip
    assert chip.name == "NVIDIA H100 SXM"
    assert attainable(chip, chip.ridge / 4) == pytest.approx(chip.peak_flops / 4)
    assert attainable(chip, chip.ridge * 4) == chip.peak_flops
    assert chip.bound(chip.ridge / 4) == "memory" and chip.bound(chip.ridge) == "compute"
