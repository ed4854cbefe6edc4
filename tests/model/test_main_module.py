"""Choosing the user's program among JAX's helper modules: by the profile, else by size without helpers."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import CORPUS, FIXTURES

from tui.model.dump import scan_dump
from tui.model.inputs import load_workspace
from tui.model.main_module import Runs, is_helper, module_runs, pick_main
from tui.model.trace import load_trace

# What a typical script compiles: eager ops and jax.random outside jit (helpers, one of them
# larger than the step), a jitted lambda and the user's own step.
SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp

    @jax.jit
    def step(w, x):
        h = jax.nn.softmax(jnp.tanh(x @ w) @ w.T)
        h = jax.nn.gelu(jax.nn.standardize(h @ w) @ w)
        return jnp.tanh(jnp.cumsum(h, axis=0) @ w).sum() + jax.nn.logsumexp(h)

    key = jax.random.key(0)
    w = jax.random.normal(key, (32, 32))
    x = jnp.ones((8, 32)).astype(jnp.bfloat16).astype(jnp.float32)
    step(w, x)
    jax.jit(lambda v: v * 2)(x)
    for _ in range(3):  # eager ops a script runs beside its step, as often or more
        (x % 3, jnp.unstack(x), jax.nn.relu(x), jnp.linalg.norm(x), jax.lax.rem(x, 2.0))

    @jax.jit
    def _private_step(v):  # the user's, though named like JAX's private functions
        return jnp.cos(v).sum()

    _private_step(x)
    jax.export.export(jax.jit(jnp.sin))(x).call(x)  # a jax.export run: jit_call_exported is the user's program
    jax.lax.scan(lambda c, v: (c + v.sum(), None), 0.0, x)  # an eager scan over the user's body: jit_scan
    """
)


@pytest.fixture(scope="module")
def random_dump(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("random_dump")
    (root / "script.py").write_text(SCRIPT)
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={root / 'dump'} --xla_dump_hlo_as_text", JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, str(root / "script.py")], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    return root / "dump"


def test_helpers_are_told_from_the_users_modules(random_dump):
    names = {m.name for m in scan_dump(random_dump).modules}
    helpers = {n for n in names if is_helper(n)}
    assert {"jit_step", "jit__lambda", "jit__private_step", "jit_call_exported", "jit_scan"} <= names - helpers
    assert {"jit__normal", "jit_broadcast_in_dim", "jit_convert_element_type", "jit_remainder", "jit_unstack",
            "jit_relu", "jit_norm", "jit_rem"} <= helpers


def test_the_step_is_main_although_jax_random_compiled_a_larger_module(random_dump):
    by_name = {m.name: m for m in scan_dump(random_dump).modules}
    assert by_name["jit__normal"].size > by_name["jit_step"].size  # the plain "largest" rule would fail
    assert load_workspace([random_dump]).main.name == "jit_step"
    assert load_workspace([random_dump], main="jit__normal").main.name == "jit__normal"  # still reachable by name
    number = int(by_name["jit_step"].label.split(".")[0].removeprefix("module_"))  # and by number, as --help says
    for wanted in (str(number), f"{number:04d}"):
        assert load_workspace([random_dump], main=wanted).main.label == by_name["jit_step"].label


def _oracle_events(xplane: Path, keep) -> list[tuple[float, float]]:
    """(start, duration) in ns, by jaxlib's own reader, of the events whose (line, name) `keep` accepts."""
    from jax.profiler import ProfileData

    return [(event.start_ns, event.duration_ns) for plane in ProfileData.from_file(str(xplane)).planes
            for line in plane.lines for event in line.events if keep(line.name, event.name)]


def test_runs_from_host_dispatch_events_agree_with_jaxlib():
    """The fixture profiled 3 steps; JAX nests a second dispatch event in each call's first."""
    xplane = FIXTURES / "transformer" / "profile" / "host.xplane.pb"
    runs = module_runs(load_trace(xplane), ["jit_train_step", "jit_broadcast_in_dim", "jit_stage"])
    events = sorted(_oracle_events(xplane, lambda line, name: name == "PjitFunction(train_step)"))
    calls = events[0::2]
    assert len(events) == 6 and all(start + dur >= s2 + d2 for (start, dur), (s2, d2) in zip(events[0::2], events[1::2]))
    assert runs["jit_train_step"].count == 3
    # the dispatches' time (the first compiles, the run comes after them) is no measure of the program
    assert sum(dur for _, dur in calls) > 0 and runs["jit_train_step"].total_ns == 0
    assert load_workspace([FIXTURES / "transformer"]).main.name == "jit_train_step"


def test_runs_from_an_xla_modules_line_agree_with_jaxlib():
    xplane = CORPUS / "traces" / "xprof_tpu_v6e_inference_4chip.xplane.pb"
    if not xplane.is_file():
        pytest.skip(f"real-world corpus not found at {CORPUS} (it sits beside the clone in CI)")
    runs = module_runs(load_trace(xplane), ["jit_f", "jit__psum", "jit_broadcast_in_dim", "jit_absent"])
    assert "jit_absent" not in runs
    for module in ("jit_f", "jit__psum", "jit_broadcast_in_dim"):
        events = _oracle_events(xplane, lambda line, name: line == "XLA Modules" and name.startswith(module + "("))
        assert runs[module].count == len(events) > 0
        assert abs(runs[module].total_ns - sum(dur for _, dur in events)) <= len(events)


def test_pick_main_prefers_the_users_module_that_ran_most():
    modules = [("jit__normal", 900), ("jit_eval", 500), ("jit_train", 100), ("jit_broadcast_in_dim", 5)]
    name, size = (lambda m: m[0]), (lambda m: m[1])
    assert pick_main(modules, name, size) == ("jit_eval", 500)
    assert pick_main(modules, name, size, {"jit_train": Runs(8, 70), "jit_eval": Runs(1, 900)}) == ("jit_train", 100)
    assert pick_main(modules, name, size, {"jit_train": Runs(2, 70), "jit_eval": Runs(2, 90)}) == ("jit_eval", 500)
    # a helper that compiled long, ran once, or ran most, stays out of the way
    assert pick_main(modules, name, size, {"jit__normal": Runs(9, 10**9), "jit_train": Runs(1, 5)}) == ("jit_train", 100)
    assert pick_main(modules, name, size, {"jit_other": Runs(1, 1)}) == ("jit_eval", 500)  # nothing listed ran
    only_helpers = [("jit__normal", 9), ("jit_iota", 1)]
    assert pick_main(only_helpers, name, size) == ("jit__normal", 9)
    assert pick_main(only_helpers, name, size, {"jit_iota": Runs(3, 1)}) == ("jit_iota", 1)
    assert pick_main([], name, size) is None


def test_main_by_a_name_two_programs_share_picks_as_the_default_picks(tmp_path):
    """One jitted function compiled for two shapes: two modules named jit_step. `--main
    jit_step` opens the one xla-tui opens as the main without it (here the larger, the second
    compiled); it took the first in the folder."""
    script = tmp_path / "two_shapes.py"
    script.write_text(textwrap.dedent(
        """
        import jax, jax.numpy as jnp

        @jax.jit
        def step(x):
            return jnp.tanh(x @ x.T).sum(axis=0) * 2.0

        step(jnp.ones((2, 2)))
        step(jnp.ones((256, 128)))
        """
    ))
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={tmp_path / 'dump'} --xla_dump_hlo_as_text", JAX_PLATFORMS="cpu")
    run = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-3000:]
    ws = load_workspace([tmp_path / "dump"])
    steps = [m for m in ws.modules if m.name == "jit_step" and m.stage != "before optimizations"]
    assert len(steps) == 2
    default = ws.main
    assert default.name == "jit_step" and default.label == max(steps, key=lambda m: m.size).label != steps[0].label
    assert load_workspace([tmp_path / "dump"], main="jit_step").main.label == default.label
    assert load_workspace([tmp_path / "dump"], main=steps[0].label).main.label == steps[0].label  # its whole label: that one
