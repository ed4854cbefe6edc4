"""Every screen, driven by its keys, on every kind of input: nothing may crash, and a pane whose
content the input lacks (no module in a profile, no profile beside an HLO file) says so."""

from __future__ import annotations

import shutil

import pytest
from conftest import FIXTURES, screen_text

from tui.app import XlaTuiApp

KEYS = {
    "1": ["j", "k", "enter", "e", "escape", "l", "j", "l", "right_square_bracket", "backspace", "slash", "escape"],
    "2": ["j", "down", "enter", "k", "end"],
    "3": ["right", "right", "p", "m", "down", "enter", "end", "home", "s"],
    "4": ["w", "w", "d", "s", "a", "right", "down", "enter", "0", "t", "m", "escape"],
}


async def drive(*paths) -> dict[str, str]:
    """Visit each screen, press its keys, and return what each screen showed at the end."""
    app = XlaTuiApp(*paths)
    shown = {}
    async with app.run_test(size=(120, 36)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.load_error is None
        for screen, keys in KEYS.items():
            await pilot.press(screen)
            await pilot.pause()
            for key in keys:
                await pilot.press(key)
            await app.workers.wait_for_complete()
            await pilot.pause()
            shown[screen] = screen_text(app)
    return shown


async def test_an_hlo_file_alone():
    shown = await drive(FIXTURES / "mlp.hlo")
    assert "No profile loaded" in shown["4"]
    assert "no HLO module" not in shown["1"]


async def test_a_profile_alone(tmp_path):
    """A Chrome trace with no xplane beside it holds no programs: the graph and details say so."""
    alone = tmp_path / "perfetto_trace.json.gz"
    shutil.copy(FIXTURES / "transformer" / "profile" / "perfetto_trace.json.gz", alone)
    shown = await drive(alone)
    assert "no HLO module" in shown["1"] and "no HLO module" in shown["2"]
    assert "No profile loaded" not in shown["4"]


@pytest.mark.parametrize("name", ["host.xplane.pb", "perfetto_trace.json.gz"])
async def test_a_profile_alone_with_its_programs(name):
    """An xplane holds the programs it saw (a Chrome trace takes them from the xplane beside it):
    every screen has something to show."""
    shown = await drive(FIXTURES / "transformer" / "profile" / name)
    assert all("no HLO module" not in text and "No profile loaded" not in text for text in shown.values())


@pytest.mark.parametrize("name", ["transformer", "sharded"])
async def test_dumps(name):
    shown = await drive(FIXTURES / name)
    assert all("no HLO module" not in text for text in shown.values())


async def test_a_gpu_dump_and_its_profile():
    """JAX 0.11 on an H100: tuple elements printed inline, kernels inside a CUDA graph."""
    shown = await drive(FIXTURES / "gpu" / "gpu.xplane.pb", FIXTURES / "gpu")
    assert all("no HLO module" not in text and "No profile loaded" not in text for text in shown.values())
    assert "XLA live-range file" in shown["3"]


@pytest.mark.parametrize("relative", [
    "traces/xprof_tpu_v6e_inference_4chip.xplane.pb",
    "traces/xprof_demo_tf_gpu_multiworker_2020.xplane.pb",
    "traces/non_xla/pytorch_kineto_torch_compile_triton.trace.json.gz",
    "hlo/dumps/ptxla_gpu_sm80",
    "hlo/xla_benchmarks/hlo_llama3_8b_cp_bf16_1x4.hlo",
    "hlo/xla_cpu_benchmarks/jax.issue.33666.linx.slow_0428.module_0006.hlo",
    "hlo/xla_misc/mobilenet_v2_ptxla.hlo",
])
async def test_real_inputs(corpus, relative):
    shown = await drive(corpus / relative)
    assert all(text.strip() for text in shown.values())
