"""`xla-tui script.py` and `tui.capture(fn, *args)`: real scripts and functions, captured and reopened.

The examples run once each through the CLI (module fixture, saved with --save); the tests then
check what XLA and the profiler left against the manifest, the summary and the app.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from conftest import FIXTURES, REPO, TerminalOutput, screen_text

from tui.model.capture_manifest import CAPTURE_MANIFEST

# A script that compiles, says so, then waits to be stopped.
SLEEPY_SCRIPT = ("import time, jax, jax.numpy as jnp\n"
                 "jax.jit(lambda x: jnp.sin(x) + 1)(jnp.ones(2)).block_until_ready()\n"
                 "print('compiled', flush=True)\n"
                 "time.sleep(600)\n")

# A script in the way users write them: it REPLACES XLA_FLAGS before importing JAX (so the
# dump flags must come back at backend start), uses jax.random (whose `jit__normal` module is
# larger than the step), and raises after the step ran.
RAISING_SCRIPT = textwrap.dedent(
    """
    import os, sys
    os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"
    import jax, jax.numpy as jnp

    print("argv", sys.argv[1:], "name", __name__, "devices", jax.device_count(), flush=True)

    @jax.jit
    def step(x):
        return jnp.tanh(x @ x.T).sum()

    x = jax.random.normal(jax.random.key(0), (64, 64))
    for _ in range(3):
        step(x).block_until_ready()

    def check(value):
        raise ValueError(f"loss diverged at {value}")

    check(3)
    """
)

# Two programs whose ops share names (on a CPU every matmul is a `ynn_fusion`, every lone sine
# a `wrapped_sine`): the profile's op events say which program each ran in, by a stat.
TWO_PROGRAMS_SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp

    @jax.jit
    def big(a):
        return jnp.sin(a @ a)

    @jax.jit
    def small(b):
        return jnp.sin(b @ b)

    @jax.jit
    def again(x):  # compiled at two shapes: two programs of one module name
        return jnp.sin(x @ x)

    again.lower(jnp.ones((128, 128))).compile()  # a third program of the name, compiled and never run
    a, b = jnp.ones((256, 256)), jnp.ones((8, 8))
    for _ in range(5):
        big(a).block_until_ready()
    for _ in range(3):
        small(b).block_until_ready()
    for x, times in ((jnp.ones((16, 16)), 2), (jnp.ones((32, 32)), 4)):
        for _ in range(times):
            again(x).block_until_ready()
    """
)

LOOPING_SCRIPT = textwrap.dedent(
    """
    import jax, jax.numpy as jnp
    f = jax.jit(lambda x: jnp.cos(x) * 2)
    x = jnp.ones(100)
    for i in range(10**9):
        x = f(x).block_until_ready()
        if i == 3:
            print("running", flush=True)
    """
)


def xla_tui(*args: str, cwd: Path = REPO, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tui", *args], capture_output=True, text=True, cwd=cwd,
                          env=env or dict(os.environ), timeout=300)


@pytest.fixture(scope="module")
def captures(tmp_path_factory) -> dict[str, tuple[Path, subprocess.CompletedProcess]]:
    """name -> (saved capture folder, the CLI run that made it with --summary --json)."""
    root = tmp_path_factory.mktemp("captures")
    (root / "raising.py").write_text(RAISING_SCRIPT)
    (root / "two_programs.py").write_text(TWO_PROGRAMS_SCRIPT)
    runs = {
        "transformer": ("examples/transformer.py",),
        "sharded": ("examples/sharded.py",),
        "mlp": ("examples/mlp.py",),
        "raising": (str(root / "raising.py"), "--lr", "0.1"),
        "two_programs": (str(root / "two_programs.py"),),
    }

    def capture(name: str) -> tuple[Path, subprocess.CompletedProcess]:
        script, *args = runs[name]
        return root / name, xla_tui("--summary", "--json", "--save", str(root / name), script, *args)

    with ThreadPoolExecutor(2) as pool:  # CI has two cores
        return dict(zip(runs, pool.map(capture, runs)))


def summary_of(run: subprocess.CompletedProcess) -> dict:
    """The JSON summary: all of stdout (what the script printed went to stderr)."""
    return json.loads(run.stdout)


def manifest_of(folder: Path) -> dict:
    return json.loads((folder / CAPTURE_MANIFEST).read_text())


def test_transformer_capture_opens_on_the_train_step_with_its_profile(captures):
    folder, run = captures["transformer"]
    assert run.returncode == 0, run.stderr
    assert "step 7: loss" in run.stderr  # the script's own output passes through, beside the JSON
    summary = summary_of(run)
    assert summary["main_module"].endswith(".jit_train_step")
    names = {m["name"] for m in summary["modules"]}
    assert {"jit_train_step", "jit_broadcast_in_dim", "jit_convert_element_type"} <= names  # helpers stay listed
    main = next(m for m in summary["modules"] if m["label"] == summary["main_module"])
    assert main["instructions"] > 1000 and main["peak_memory_source"] == "XLA live-range file"
    assert summary["trace"]["events"] > 1000
    assert summary["capture"]["exit_status"] == 0 and summary["capture"]["error"] is None

    # The profile holds the train step's own ops, tagged by XLA with the module's name and number,
    # over its 8 steps.
    tagged = module_op_args(folder, "jit_train_step")
    number = int(summary["main_module"].split(".")[0].removeprefix("module_"))
    assert {args["program_id"] for args in tagged} == {number}
    assert len({args["run_id"] for args in tagged}) == 8


def test_manifest_lists_the_run_and_every_file(captures):
    folder, _ = captures["raising"]
    manifest = manifest_of(folder)
    assert manifest["kind"] == "script" and manifest["script"].endswith("raising.py")
    assert manifest["args"] == ["--lr", "0.1"] and manifest["exit_status"] == 1 and manifest["seconds"] > 0
    assert manifest["cwd"] == str(REPO)
    on_disk = sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name != CAPTURE_MANIFEST)
    assert manifest["files"] == on_disk
    assert any(f.endswith("jit_step.cpu_after_optimizations-live-range.txt") for f in manifest["files"])
    assert any(f.endswith("jit_step.cpu_after_optimizations-buffer-assignment.txt") for f in manifest["files"])
    assert any(f.endswith(".xplane.pb") for f in manifest["files"])
    assert "--xla_dump_to=" in manifest["xla_flags"]


def test_a_script_that_replaces_xla_flags_and_raises(captures):
    folder, run = captures["raising"]
    assert run.returncode == 1
    # the script ran as `python raising.py --lr 0.1`, with its own XLA flag in force
    assert "argv ['--lr', '0.1'] name __main__ devices 4" in run.stderr
    printed, traceback, saved = run.stderr.rstrip().partition("Traceback")[0], *run.stderr.rstrip().rsplit("\n", 1)
    traceback = traceback[len(printed):]  # after what the script printed (stderr under --json)
    assert traceback.startswith("Traceback (most recent call last):\n  File ")  # as Python prints it,
    assert traceback.endswith("\nValueError: loss diverged at 3")
    assert "capture_child" not in traceback and "runpy" not in traceback  # from the script's frames on
    assert saved == f"xla-tui: the capture is saved in {folder}; reopen it with `xla-tui {folder}`"
    summary = summary_of(run)
    assert summary["capture"]["error"].rstrip().endswith("ValueError: loss diverged at 3")
    # ...and our dump flags too: what it compiled before raising is there, its step the main module
    # although jax.random's module is larger
    modules = {m["name"]: m for m in summary["modules"]}
    assert summary["main_module"].endswith(".jit_step")
    assert modules["jit__normal"]["instructions"] > modules["jit_step"]["instructions"]

    text = xla_tui("--summary", str(folder))  # reopened from the saved folder
    assert text.returncode == 0, text.stderr
    assert "exit status 1" in text.stdout and "ValueError: loss diverged at 3" in text.stdout
    assert "main module: " + summary["main_module"] in text.stdout


def test_a_script_a_signal_ended_is_said_to_be_killed_by_it(captures, tmp_path):
    """A negative exit status is the signal that ended the script (SIGABRT: -6), said by name in
    the summary and the banner, not as "exit status -6"."""
    import json
    import shutil

    from tui.model.capture_manifest import error_tail, how_it_ended

    folder = tmp_path / "aborted"
    shutil.copytree(captures["raising"][0], folder)
    manifest = manifest_of(folder)
    manifest.update(exit_status=-int(signal.SIGABRT), error=None)
    (folder / CAPTURE_MANIFEST).write_text(json.dumps(manifest))
    text = xla_tui("--summary", str(folder))
    assert text.returncode == 0, text.stderr
    assert "  killed by SIGABRT, ran " in text.stdout and "exit status -6" not in text.stdout
    assert error_tail(manifest) == "the script was killed by SIGABRT"
    assert (how_it_ended(1), how_it_ended(-99)) == ("exit status 1", "killed by signal 99")


def test_multi_device_example(captures):
    folder, run = captures["sharded"]
    assert run.returncode == 0, run.stderr
    summary = summary_of(run)
    assert summary["main_module"].endswith(".jit_train_step")
    hlo = next((folder / "dump").glob("*jit_train_step.cpu_after_optimizations.txt")).read_text()
    assert "num_partitions=8" in hlo and "all-reduce" in hlo
    # the step's ops ran on each of the 8 host devices
    assert {args["device_ordinal"] for args in module_op_args(folder, "jit_train_step")} == set(range(8))


def module_op_args(folder: Path | str, module: str) -> list[dict]:
    """The args of every profiled op that XLA tagged with `module`."""
    from tui.model.trace import load_trace

    trace = load_trace(Path(folder) / manifest_of(Path(folder))["profile"])
    found = []
    for track in trace.tracks:
        for i in range(track.count):
            args = track.event_args(i)
            if args.get("hlo_module") == module:
                found.append(args)
    return found


def test_mlp_example_and_reopening_a_saved_capture(captures):
    folder, run = captures["mlp"]
    assert run.returncode == 0, run.stderr
    first = summary_of(run)
    again = xla_tui("--summary", "--json", str(folder))
    assert again.returncode == 0, again.stderr
    reopened = json.loads(again.stdout)
    assert reopened["main_module"] == first["main_module"] and first["main_module"].endswith(".jit_train_step")
    assert reopened["modules"] == first["modules"] and reopened["trace"] == first["trace"]


def test_a_profile_given_replaces_the_saved_captures_own(captures):
    """`xla-tui DIR --profile PATH`: the profile asked for is loaded, not the capture's, and a
    warning says the capture's own was replaced (the capture's was loaded, "1 more ignored");
    one of the capture's own profiles, given so, replaces nothing."""
    folder, _ = captures["mlp"]
    other = FIXTURES / "transformer" / "profile" / "host.xplane.pb"
    alone = xla_tui("--summary", "--json", str(other))
    given = xla_tui("--summary", "--json", str(folder), "--profile", str(other))
    assert alone.returncode == 0 and given.returncode == 0, given.stderr
    trace, own = summary_of(given)["trace"], summary_of(captures["mlp"][1])["trace"]
    assert (trace["events"], trace["span_us"]) == (summary_of(alone)["trace"]["events"], summary_of(alone)["trace"]["span_us"])
    assert (trace["events"], trace["span_us"]) != (own["events"], own["span_us"])
    assert (f"the capture's own profile ({folder / 'profile'}) was replaced by the profile given ({other})"
            in summary_of(given)["warnings"])
    inside = xla_tui("--summary", "--json", str(folder), "--profile", str(next((folder / "profile").rglob("*.xplane.pb"))))
    assert inside.returncode == 0 and not any("replaced" in w for w in summary_of(inside)["warnings"]), inside.stderr


def test_a_cpu_ops_time_is_its_own_programs_where_programs_share_op_names(captures):
    """Ops of one name in two programs (5 runs of `big`, 3 of `small`): the op table, an op's
    runs and a program's time each count the events of that program only, as the events' own
    `hlo_module` stats say (a CPU profile has no `XLA Modules` line to place them by)."""
    from tui.model.inputs import load_workspace
    from tui.model.links import TraceLinks, occurrences, program_of, program_ran, top_ops

    folder, run = captures["two_programs"]
    assert run.returncode == 0, run.stderr[-3000:]
    ws = load_workspace([folder])
    modules = {entry.name: entry.load() for entry in ws.modules if entry.name in ("jit_big", "jit_small")}
    shared = {i.name for i in modules["jit_big"].instructions()} & {i.name for i in modules["jit_small"].instructions()}
    rows = [row for row in top_ops(ws) if row.name in shared]
    assert rows and {row.count for row in rows if row.program.startswith("jit_big")} == {5}
    assert {row.count for row in rows if row.program.startswith("jit_small")} == {3}
    trace = ws.trace
    for module, runs in (("jit_big", 5), ("jit_small", 3)):
        links = TraceLinks(trace, modules[module])
        for name in shared & {row.name for row in rows}:
            tracks, events = occurrences(trace, module, name)
            assert len(events) == runs, (module, name)
            assert all(trace.tracks[k].event_args(i)["hlo_module"] == module for k, i in zip(tracks.tolist(), events.tolist()))
            assert links.occurrences(modules[module].instruction(name)).count == runs
        own = sum(row.total_ns for row in top_ops(ws) if row.program and row.program.startswith(module))
        assert links.step_ns()[0] == own
    agains = [entry for entry in ws.modules if entry.name == "jit_again"]
    assert len(agains) == 3
    never_ran = [entry for entry in agains if program_ran(trace, program_of(entry)) is None]
    assert [entry.load().entry.parameters[0].shape.dims for entry in never_ran] == [(128, 128)]
    agains = sorted((entry for entry in agains if entry not in never_ran), key=lambda entry: entry.label)
    # the program that ran most opens: big (5 runs), not `again` (6 calls, but 2 and 4 of two
    # programs, and none of the third, compiled ahead)
    assert ws.main.name == "jit_big"
    for entry, runs in zip(agains, (2, 4)):  # each program's own runs, by its id in the ops' stats
        program = program_ran(trace, program_of(entry))
        assert program is not None
        module = entry.load()
        ins = next(i for i in module.entry.instructions if i.opcode == "fusion" or "fusion" in i.name)
        assert TraceLinks(trace, module, program).occurrences(ins).count == runs
        assert len(occurrences(trace, entry.name, ins.name, program)[1]) == runs


def test_temporary_capture_is_removed_and_no_profile_means_no_trace(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    script = tmp_path / "tiny.py"
    script.write_text("import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: x * 2)(jnp.ones(3)))\n")
    run = xla_tui("--summary", "--json", "--no-profile", str(script), env=dict(os.environ, TMPDIR=str(tmp)))
    assert run.returncode == 0, run.stderr
    summary = summary_of(run)
    assert summary["trace"] is None and summary["main_module"].endswith(".jit__lambda")
    assert list(tmp.iterdir()) == []  # the temporary capture folder is gone
    files = [m["file"] for m in summary["modules"]]  # and named as such, not by a path that looks real
    assert files and all(f.startswith("<capture>/dump/module_") for f in files) and str(tmp) not in run.stdout


def test_flags_that_limit_the_dump_are_overridden_and_said(tmp_path):
    """XLA_FLAGS that dump only some modules (`--xla_dump_hlo_module_re`) or strip their metadata
    (`--xla_dump_disable_metadata`) left the capture without its programs, or their source
    lines, silently: they are overridden, as `--xla_dump_to` is, and the summary says so. The
    environment's own `--xla_dump_to` is said to be the environment's, not the script's."""
    script = tmp_path / "tiny.py"
    script.write_text("import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: jnp.sin(x) * 2)(jnp.ones(3)))\n")
    limits = (f"--xla_dump_to={tmp_path / 'env_dump'} --xla_dump_hlo_module_re=no_such_module"
              " --xla_dump_disable_metadata --xla_dump_max_hlo_modules=-1")
    saved = tmp_path / "saved"
    run = xla_tui("--summary", "--json", "--no-profile", "--save", str(saved), str(script),
                  env=dict(os.environ, XLA_FLAGS=limits))
    assert run.returncode == 0, run.stderr[-2000:]
    summary = summary_of(run)
    assert summary["main_module"].endswith(".jit__lambda")
    hlo = next((saved / "dump").glob("*jit__lambda*after_optimizations.txt")).read_text()
    assert 'metadata={op_name="jit(<lambda>)/' in hlo  # op names and source: the metadata kept
    overridden = [w for w in summary["warnings"] if "was overridden: the capture dumps every module" in w]
    assert [w.split("'")[1].split()[0] for w in overridden] == [  # the one that limits nothing is left alone
        "--xla_dump_hlo_module_re=no_such_module", "--xla_dump_disable_metadata"]
    dump_to = [w for w in summary["warnings"] if "--xla_dump_to=" in w]
    assert dump_to == [f"XLA_FLAGS' own --xla_dump_to={tmp_path / 'env_dump'} was overridden: the modules are in the capture's dump folder"]
    assert summary["capture"]["kind"] == "script" and not (tmp_path / "env_dump").exists()


def test_a_save_folder_with_quotes_and_backslashes_gets_the_dump(tmp_path):
    """XLA's flag parser ends a quoted value at a `"` and reads a backslash as an escape: the
    dump of `--save 'my "run" \\ dir'` went to `my ` beside it, and the capture held no module."""
    script = tmp_path / "tiny.py"
    script.write_text("import jax, jax.numpy as jnp\nprint(jax.jit(lambda x: jnp.sin(x) * 2)(jnp.ones(3)))\n")
    saved = tmp_path / 'my "run" \\ dir'
    run = xla_tui("--summary", "--json", "--no-profile", "--save", str(saved), str(script))
    assert run.returncode == 0, run.stderr[-2000:]
    assert summary_of(run)["main_module"].endswith(".jit__lambda")
    assert list((saved / "dump").glob("*jit__lambda*after_optimizations.txt"))
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([script.name, saved.name])  # nothing dumped beside it


@pytest.mark.parametrize("manifest, problem", [("{", "bad JSON"), ('{"script": "x.py"}', "needs the keys")])
def test_a_broken_manifest_is_one_clear_line(tmp_path, manifest, problem):
    (tmp_path / CAPTURE_MANIFEST).write_text(manifest)
    run = xla_tui("--summary", str(tmp_path))
    assert run.returncode == 2 and run.stderr.count("\n") == 1, run.stderr
    assert run.stderr.startswith(f"xla-tui: {tmp_path / CAPTURE_MANIFEST}: ") and problem in run.stderr


def test_profile_seconds_stops_the_profiler_early(tmp_path):
    script = tmp_path / "slow.py"
    script.write_text("import time, jax, jax.numpy as jnp\n"
                      "f = jax.jit(lambda x: x * 2)\n"
                      "f(jnp.ones(3)).block_until_ready()\n"
                      "time.sleep(3)\n"
                      "f(jnp.ones(3)).block_until_ready()\n")
    run = xla_tui("--summary", "--json", "--profile-seconds", "0.2", str(script))
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)
    assert "--profile-seconds" in summary["capture"]["profile_note"]
    assert summary["trace"]["events"] > 0 and summary["trace"]["span_us"] / 1e6 < summary["capture"]["seconds"] - 1


def test_sigterm_ends_the_script_and_removes_the_temporary_capture(tmp_path):
    """A closed SSH session or `kill` must not leave a capture in /tmp, nor the script running."""
    script = tmp_path / "sleepy.py"
    script.write_text("import os, time, jax, jax.numpy as jnp\n"
                      "jax.jit(lambda x: x + 1)(jnp.ones(2))\n"
                      "print(os.getpid(), flush=True)\n"
                      "time.sleep(600)\n")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    child = subprocess.Popen([sys.executable, "-m", "tui", "--summary", str(script)], cwd=REPO, text=True,
                             stdout=subprocess.PIPE, env=dict(os.environ, TMPDIR=str(tmp)))
    try:
        script_pid = int(child.stdout.readline())
        assert len(list(tmp.iterdir())) == 1
        child.terminate()
        assert child.wait(timeout=60) == 128 + signal.SIGTERM
    finally:
        child.kill()
    assert list(tmp.iterdir()) == []
    with pytest.raises(ProcessLookupError):
        os.kill(script_pid, 0)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP])
def test_kill_or_a_closed_ssh_session_keeps_a_saved_capture(tmp_path, signum):
    """`kill` (or a dropped SSH session) during `--save DIR` stops the script as Ctrl-C does and
    keeps what it compiled, with its manifest and profile, so that `xla-tui DIR` reopens it;
    xla-tui exits with 128 + the signal, without a traceback of its own."""
    script = tmp_path / "sleepy.py"
    script.write_text(SLEEPY_SCRIPT)
    saved = tmp_path / "saved"
    child = subprocess.Popen([sys.executable, "-m", "tui", "--summary", "--json", "--save", str(saved), str(script)],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while child.stderr.readline().strip() != "compiled":  # the script prints to stderr under --json
            assert child.poll() is None
        assert list((saved / "dump").glob("*jit__lambda*after_optimizations.txt"))
        child.send_signal(signum)
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 128 + signum and out == "", err
    assert str(REPO / "tui") not in err and f"the capture is saved in {saved}" in err, err  # the script's traceback alone
    reopened = xla_tui("--summary", "--json", str(saved))
    assert reopened.returncode == 0, reopened.stderr
    summary = summary_of(reopened)
    assert summary["main_module"].endswith(".jit__lambda") and summary["trace"]["events"] > 0
    assert summary["capture"]["exit_status"] == 130 and "KeyboardInterrupt" in summary["capture"]["error"]
    assert f"the run was cut short: xla-tui got {signal.Signals(signum).name} while the script ran" in summary["warnings"]


def test_a_dropped_ssh_session_keeps_a_saved_capture(tmp_path):
    """The terminal gone and SIGHUP sent to the whole foreground group, as the kernel does, the
    script among them (it dies at once, its profile unwritten): the modules are kept, and
    xla-tui exits 129 (saying where the capture is, into the closed terminal, raised EIO: 1)."""
    import pty

    script = tmp_path / "sleepy.py"
    script.write_text(SLEEPY_SCRIPT)
    saved = tmp_path / "saved"
    main, terminal = pty.openpty()
    child = subprocess.Popen([sys.executable, "-m", "tui", "--summary", "--save", str(saved), str(script)], cwd=REPO,
                             stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True)
    os.close(terminal)
    seen = b""
    try:
        while b"compiled" not in seen:
            seen += os.read(main, 65536)
        os.close(main)  # the session's terminal hangs up
        os.killpg(child.pid, signal.SIGHUP)
        assert child.wait(timeout=60) == 128 + signal.SIGHUP
    finally:
        child.kill()
    reopened = xla_tui("--summary", "--json", str(saved))
    assert reopened.returncode == 0, reopened.stderr
    summary = summary_of(reopened)
    assert summary["main_module"].endswith(".jit__lambda") and summary["capture"]["exit_status"] == -signal.SIGHUP
    assert "the run was cut short: xla-tui got SIGHUP while the script ran" in summary["warnings"]


FAILING_SCRIPT = "import os, sys, jax, jax.numpy as jnp\nprint(jax.jit(lambda x: x * 2)(jnp.ones(3)))\n{end}\n"


@pytest.mark.parametrize("end, status", [("sys.exit(3)", 3), ("os.abort()", 128 + signal.SIGABRT)])
def test_a_run_exits_with_its_scripts_status_and_a_reopened_capture_with_0(tmp_path, end, status):
    """The run that executed the script exits with the script's status (as a shell gives it:
    128 + N for signal N); reopening the saved capture reads a file, exits 0 and says how the
    script ended."""
    script = tmp_path / "failing.py"
    script.write_text(FAILING_SCRIPT.format(end=end))
    saved = tmp_path / "saved"
    run = xla_tui("--summary", "--no-profile", "--save", str(saved), str(script))
    assert run.returncode == status, run.stderr[-2000:]
    reopened = xla_tui("--summary", str(saved))
    assert reopened.returncode == 0, reopened.stderr
    said = "exit status 3" if status == 3 else "killed by SIGABRT"
    assert said in run.stdout and said in reopened.stdout and ".jit__lambda" in reopened.stdout


def test_the_ui_run_of_a_failed_script_exits_with_its_status(tmp_path):
    """As `--summary` does: quitting the UI on a script that exited 3 exits 3."""
    import pty

    script = tmp_path / "failing.py"
    script.write_text(FAILING_SCRIPT.format(end="sys.exit(3)"))
    main, terminal = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
    child = subprocess.Popen([sys.executable, "-m", "tui", "--no-profile", str(script)], cwd=REPO, env=env,
                             stdin=terminal, stdout=terminal, stderr=terminal, start_new_session=True)
    os.close(terminal)
    out = TerminalOutput(main)
    try:
        out.read_while(lambda: b"Graph" not in out.seen)  # the UI is up
        os.write(main, b"q")
        out.read_while(lambda: child.poll() is None)
        assert child.wait(timeout=60) == 3, out.seen[-2000:]
    finally:
        child.kill()
        os.close(main)


def test_the_text_summary_starts_on_a_line_of_its_own(tmp_path):
    """A script whose output does not end its last line had the summary glued to it."""
    script = tmp_path / "partial.py"
    script.write_text("import sys\nsys.stdout.write('no newline at the end')\n")
    run = xla_tui("--summary", str(script))
    assert run.stdout.startswith("no newline at the end\n"), run.stdout[:200]


def test_scripts_that_run_their_own_way(tmp_path):
    """What a script does to its own process is its business: what it prints goes to stderr
    under `--summary --json` (stdout is the JSON alone), a `--` first among its arguments is its own, a script reached by a link imports beside the file it links to, one
    that closes its stdout still succeeded, and one that starts its own profiler trace before
    JAX runs anything (JAX starts its backends holding the profiler's lock: ours, started then,
    waited on it for ever) keeps its trace, with ours said to be left out."""
    real, link = tmp_path / "real", tmp_path / "link"
    real.mkdir()
    (real / "sibling.py").write_text("VALUE = 7\n")
    (real / "run.py").write_text(textwrap.dedent(f"""
        import sys, sibling
        import jax, jax.numpy as jnp
        print("ARGV", sys.argv[1:], sibling.VALUE, flush=True)
        if "--theirs" in sys.argv:
            jax.profiler.start_trace({str(tmp_path / "theirs")!r})
        jax.jit(lambda x: jnp.sin(x) @ x)(jnp.ones((8, 8))).block_until_ready()
        if "--theirs" in sys.argv:
            jax.profiler.stop_trace()
        if "--close" in sys.argv:
            sys.stdout.close()
        """))
    link.mkdir()
    (link / "run.py").symlink_to(real / "run.py")
    args = (str(link / "run.py"), "--", "--summary", "x")
    result = xla_tui("--summary", "--json", *args)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "ARGV ['--', '--summary', 'x'] 7" in result.stderr and summary_of(result)["main_module"].endswith("jit__lambda")
    closed = xla_tui("--summary", "--json", str(real / "run.py"), "--close")
    assert closed.returncode == 0 and "Traceback" not in closed.stderr, closed.stderr[-2000:]
    theirs = subprocess.run([sys.executable, "-m", "tui", "--summary", "--json", str(real / "run.py"), "--theirs"],
                            capture_output=True, text=True, cwd=REPO, timeout=120)
    assert theirs.returncode == 0, theirs.stderr[-2000:]
    summary = summary_of(theirs)
    assert summary["trace"] is None and any("started its own profiler trace" in w for w in summary["warnings"])
    assert list((tmp_path / "theirs").rglob("*.xplane.pb"))
    # a mistyped --main: the run is not thrown away (the error named a folder just removed)
    mistyped = xla_tui("--summary", "--main", "nosuch", str(real / "run.py"))
    kept = mistyped.stderr.split("the capture is saved in ")[-1].split(";")[0]
    assert mistyped.returncode == 2 and "no module matches --main 'nosuch'" in mistyped.stderr
    try:
        assert Path(kept).is_dir() and xla_tui("--summary", kept).returncode == 0
    finally:
        shutil.rmtree(kept, ignore_errors=True)


def test_a_scripts_own_subprocesses_do_not_dump_into_the_capture(tmp_path):
    """A worker the script starts inherits its environment: it got the capture's --xla_dump_to
    and wrote its modules over the script's (module_0002 was the worker's). Once XLA has read
    its flags the capture's leave XLA_FLAGS, and the script's own stay for the worker."""
    (tmp_path / "worker.py").write_text(textwrap.dedent("""
        import os, jax, jax.numpy as jnp
        def worker_fn(x):
            return x * 3
        print("WORKER", jax.jit(worker_fn)(jnp.ones((16, 16))).sum(), os.environ.get("XLA_FLAGS"), flush=True)
        """))
    (tmp_path / "spawner.py").write_text(textwrap.dedent("""
        import os, subprocess, sys
        # a worker started before the script's own JAX starts (it dumped into the capture then)
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "worker.py")], check=True)
        import jax, jax.numpy as jnp
        def parent_fn(x):
            return jnp.tanh(x @ x)
        jax.jit(parent_fn)(jnp.ones((64, 64))).block_until_ready()
        subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "worker.py")], check=True)
        jax.jit(parent_fn)(jnp.ones((32, 32))).block_until_ready()  # compiled after: still dumped
        """))
    saved = tmp_path / "capture"
    env = dict(os.environ, XLA_FLAGS="--xla_cpu_use_thunk_runtime=true")
    run = xla_tui("--summary", "--json", "--save", str(saved), str(tmp_path / "spawner.py"), env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stderr.count("WORKER 768.0 --xla_cpu_use_thunk_runtime=true") == 2  # the user's flags, not ours
    names = [m["name"] for m in summary_of(run)["modules"]]
    assert names.count("jit_parent_fn") == 2 and "jit_worker_fn" not in names
    assert not [path for path in (saved / "dump").iterdir() if "worker_fn" in path.name]


def test_a_scripts_threads_and_exit_handlers_run_as_under_python(tmp_path):
    """Python waits for a script's threads before it exits: their work is in the profile (a
    thread still running lost all of it). `__main__` stays the script's module to the end: an
    exit handler that pickles one of its classes failed (`attribute lookup on __main__`)."""
    (tmp_path / "threads.py").write_text(textwrap.dedent("""
        import atexit, pickle, threading, time
        import jax, jax.numpy as jnp

        class Checkpoint:
            pass

        def later():
            time.sleep(0.5)
            late = jax.jit(lambda x: jnp.cos(x) * 3)
            for _ in range(5):
                late(jnp.ones(64)).block_until_ready()
            print("THREAD", len(pickle.dumps(Checkpoint())) > 0, flush=True)

        atexit.register(lambda: print("ATEXIT", len(pickle.dumps(Checkpoint())) > 0, flush=True))
        threading.Thread(target=later).start()
        jax.jit(lambda x: x + 1)(jnp.ones(8)).block_until_ready()
        """))
    run = xla_tui("--summary", "--json", str(tmp_path / "threads.py"))
    assert run.returncode == 0, run.stderr[-2000:]
    assert "THREAD True" in run.stderr and "ATEXIT True" in run.stderr, run.stderr[-2000:]
    summary = summary_of(run)
    counts = {(row["program"], row["name"]): row["count"] for row in summary["trace"]["top_ops"]}
    assert 5 in counts.values(), counts  # the thread's five runs, after the script's body had ended


def test_the_program_that_waits_for_a_scripts_work_is_not_the_scripts(tmp_path):
    """The capture runs a tiny program on each device after the script's work, to wait for
    it: its runs were in the op tables and the program list (8 of 13 programs, on 8 devices)."""
    (tmp_path / "dropped.py").write_text(textwrap.dedent("""
        import jax, jax.numpy as jnp
        jax.config.update("jax_num_cpu_devices", 8)
        w = jax.random.normal(jax.random.key(0), (256, 256))
        x = jax.random.uniform(jax.random.key(1), (256, 256))
        step = jax.jit(lambda w, x: w - 0.01 * jnp.tanh(x @ w))
        for _ in range(30):
            step(w, x)  # results dropped: waited for by the capture's program
        """))
    run = xla_tui("--summary", "--json", str(tmp_path / "dropped.py"))
    assert run.returncode == 0, run.stderr[-2000:]
    trace = summary_of(run)["trace"]
    programs = [row["name"] or "" for row in trace["programs"]]
    assert any(name.startswith("jit__lambda") for name in programs) and not [name for name in programs if "drain" in name]
    assert not [row for row in trace["top_ops"] if "drain" in row["program"]]


def test_a_script_runs_as_under_python(tmp_path):
    """Saved into a folder with a space (XLA dumped into the folder named by its first word, and
    the capture had no module); its `__file__` absolute after a chdir, its argv[0] as typed (it
    was made absolute), `__builtins__` the module; its ops' Python stacks without our frames;
    its own --xla_dump_to, and one in the environment's XLA_FLAGS, said to be overridden (the
    environment's silently); and the steps it left queued at its end in the profile, those whose
    results it kept and those it dropped (it stopped before they ran: 60 steps counted 29, and
    8 of 30 dropped)."""
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent(f"""
        import os, sys
        os.environ["XLA_FLAGS"] = "--xla_dump_to={tmp_path / 'own_dump'}"
        import jax, jax.numpy as jnp
        here = __file__
        os.chdir("/")
        print("FILE", os.path.isabs(here), os.path.exists(here), file=sys.stderr)
        print("ARGV0", sys.argv[0], type(__builtins__).__name__, file=sys.stderr)
        step = jax.jit(lambda w: jnp.tanh(w @ w) @ w)
        w = jnp.ones((384, 384)) / 384
        for _ in range(40):
            w = step(w)  # never waited for
        def dropped(v):
            return jnp.sin(v @ v)
        dropped = jax.jit(dropped)
        for _ in range(30):
            dropped(w)  # never waited for, nor kept: 8 of 30 were in the profile
        """))
    saved = tmp_path / "my capture"
    env = dict(os.environ, XLA_FLAGS=f"--xla_dump_to={tmp_path / 'env_dump'}")
    run = xla_tui("--summary", "--json", "--save", str(saved), script.name, cwd=tmp_path, env=env)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "FILE True True" in run.stderr and not (tmp_path / "my").exists() and not (tmp_path / "own_dump").exists()
    assert "ARGV0 train.py module" in run.stderr and not (tmp_path / "env_dump").exists()
    summary = summary_of(run)
    assert summary["main_module"].endswith(".jit__lambda")
    assert any("the script's own --xla_dump_to=" in w and "overridden" in w for w in summary["warnings"])
    assert any(f"XLA_FLAGS' own --xla_dump_to={tmp_path / 'env_dump'} was overridden" in w for w in summary["warnings"])
    ops = [op for op in summary["trace"]["top_ops"] if op["program"].startswith("jit__lambda")]
    assert len(ops) >= 2 and {op["count"] for op in ops} == {40}
    ops = [op for op in summary["trace"]["top_ops"] if op["program"].startswith("jit_dropped")]
    assert ops and {op["count"] for op in ops} == {30}
    assert not any("drain" in path.name for path in (saved / "dump").iterdir())  # the program that waited for them
    from tui.model.inputs import load_workspace

    ws = load_workspace([str(saved)])
    stacks = [ins.stack for ins in ws.hlo.instructions() if ins.stack]
    assert stacks and all(frame.file == str(script) for stack in stacks for frame in stack)


EXEC_SCRIPT = textwrap.dedent('''
    import jax, jax.numpy as jnp

    SOURCE = """
    @jax.jit
    def execd_step(x):
        return jnp.sin(x) * 3

    def call_it():
        return execd_step(jnp.ones(4))

    call_it()
    """
    exec(SOURCE)
    ''')


def test_code_a_script_runs_through_exec_keeps_its_frames(tmp_path):
    """The frames of code run through `exec` (its file `<string>`) are in the ops' Python stacks,
    as under python: they were dropped with the frame of the `python -c` that started the script."""
    from tui.model.inputs import load_workspace

    script = tmp_path / "execs.py"
    script.write_text(EXEC_SCRIPT)
    plain = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, XLA_FLAGS=f"--xla_dump_to={tmp_path / 'plain'} --xla_dump_hlo_as_text"))
    assert plain.returncode == 0, plain.stderr[-2000:]
    run = xla_tui("--summary", "--no-profile", "--save", str(tmp_path / "saved"), str(script))
    assert run.returncode == 0, run.stderr[-2000:]

    def stack(folder: Path) -> list[tuple[str, int, str]]:
        ws = load_workspace([folder], main="jit_execd_step")
        sine = next(ins for ins in ws.main.load().instructions() if ins.opcode == "sine")
        return [(frame.file, frame.line, frame.function) for frame in sine.stack]

    assert stack(tmp_path / "saved") == stack(tmp_path / "plain") == [
        ("<string>", 4, "execd_step"), ("<string>", 7, "call_it"), ("<string>", 9, "<module>"), (str(script), 14, "<module>")]


def test_programs_run_as_often_are_told_apart_by_their_time(tmp_path):
    """An init and a whole-epoch scan each run once: the init's module is the larger (jax.random
    inlined) and its one dispatch the longer (compiling), but the epoch is where the time went;
    a user's function named with an underscore is the user's, not one of JAX's helpers."""
    script = tmp_path / "epoch.py"
    script.write_text(textwrap.dedent("""
        import jax, jax.numpy as jnp

        @jax.jit
        def init(key):
            k1, k2, k3 = jax.random.split(key, 3)
            return {"w": jax.random.normal(k1, (128, 128)), "v": jax.random.truncated_normal(k2, -2, 2, (128, 128)),
                    "b": jax.random.uniform(k3, (128,))}

        @jax.jit
        def _train_epoch(p, xs):
            def step(p, x):
                g = jax.grad(lambda p: jnp.mean(jnp.tanh(x @ p["w"] + p["b"]) @ p["v"]))(p)
                return jax.tree.map(lambda a, b: a - 0.01 * b, p, g), None
            return jax.lax.scan(step, p, xs)[0]

        jax.block_until_ready(_train_epoch(init(jax.random.key(0)), jnp.ones((100, 64, 128))))
        """))
    run = xla_tui("--summary", "--json", str(script))
    assert run.returncode == 0, run.stderr[-2000:]
    summary = summary_of(run)
    sizes = {m["name"]: m["instructions"] for m in summary["modules"]}
    assert sizes["jit_init"] > sizes["jit__train_epoch"]  # the larger-module rule would pick the init
    by_program = {}
    for op in summary["trace"]["top_ops"]:
        by_program[op["program"]] = by_program.get(op["program"], 0) + op["total_us"]
    busiest = max(by_program, key=by_program.get)
    assert busiest.startswith("jit__train_epoch(") and summary["main_module"].endswith(".jit__train_epoch")


def test_a_script_that_compiles_nothing_is_summed_up(tmp_path):
    """A script that starts JAX and fails before compiling anything: its profile holds no
    events, which is said, not taken for bad input (exit 2, no summary, the temporary capture
    kept); the summary gives its error and exit status."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    script = tmp_path / "check.py"
    script.write_text("import jax\nassert jax.device_count() == 64, 'wants 64 devices'\n")
    run = xla_tui("--summary", "--json", str(script), env=dict(os.environ, TMPDIR=str(tmp)))
    assert run.returncode == 1, run.stderr[-2000:]
    summary = summary_of(run)
    assert summary["trace"] is None and "wants 64 devices" in summary["capture"]["error"]
    assert any("profile is left out" in w and "holds no events" in w for w in summary["warnings"])
    assert any(w.startswith("no modules: <capture>/dump holds no XLA dump") for w in summary["warnings"])
    assert not any(str(tmp) in w for w in summary["warnings"])  # the temporary folder, gone as it is read
    assert list(tmp.iterdir()) == []


CACHED_SCRIPT = """
import sys, jax, jax.numpy as jnp
jax.config.update("jax_compilation_cache_dir", sys.argv[1])
jax.config.update("jax_enable_compilation_cache", True)  # over the capture's environment, which turns it off
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
step = jax.jit(lambda x: jnp.sin(x) @ x.T + 1)
x = jnp.ones((64, 64))
print(float(step(x).sum()))
if len(sys.argv) > 2:  # in-process: the cache has this program (filled just now), capture it
    import tui
    tui.capture(step, x, save_to=sys.argv[2])
"""


def test_a_scripts_persistent_compilation_cache_does_not_take_xlas_files_away(tmp_path):
    """On a persistent cache hit XLA compiles nothing and dumps only the optimized text: the
    captures turn the cache off, so the second run of a cached script (and a function captured
    where the cache has it) still has XLA's buffer assignment, live ranges and unoptimized HLO;
    also where the script turns it back on itself (its Python stacks then pointed at the run
    that filled the cache)."""
    script, cache = tmp_path / "cached.py", tmp_path / "cache"
    script.write_text(CACHED_SCRIPT)
    filled = subprocess.run([sys.executable, str(script), str(cache)], capture_output=True, text=True, timeout=300)
    assert filled.returncode == 0 and any(cache.iterdir()), filled.stderr[-2000:]  # the check can fail: a hit is there
    run = xla_tui("--summary", "--json", "--save", str(tmp_path / "cap"), str(script), str(cache))
    assert run.returncode == 0, run.stderr[-2000:]
    summary = summary_of(run)
    main = next(m for m in summary["modules"] if m["label"] == summary["main_module"])
    assert main["peak_memory_source"] == "XLA live-range file"
    assert (tmp_path / "cap" / "dump" / f"{main['label']}.before_optimizations.txt").is_file()
    assert any("persistent compilation cache" in w and str(cache) in w for w in summary["warnings"])
    in_process = subprocess.run([sys.executable, str(script), str(cache), str(tmp_path / "fn")], capture_output=True,
                                text=True, timeout=300, cwd=REPO)
    assert in_process.returncode == 0, in_process.stderr[-2000:]
    files = [p.name for p in (tmp_path / "fn" / "dump").iterdir()]
    assert any(n.endswith("-buffer-assignment.txt") for n in files) and any(n.endswith("before_optimizations.txt") for n in files)


def test_save_refuses_a_folder_with_files(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    run = xla_tui("--summary", "--save", str(tmp_path), "examples/mlp.py")
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "a capture is saved to a new or empty one" in run.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]


def test_ctrl_c_stops_the_script_and_keeps_what_it_compiled(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text(LOOPING_SCRIPT)
    child = subprocess.Popen([sys.executable, "-m", "tui", "--summary", "--json", "--save", str(tmp_path / "cap"), str(script)],
                             cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        while child.stderr.readline().strip() != "running":  # the script prints to stderr under --json
            assert child.poll() is None
        time.sleep(0.3)
        os.killpg(child.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        out, err = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 130, err
    summary = json.loads(out)
    assert summary["capture"]["exit_status"] == 130 and "KeyboardInterrupt" in summary["capture"]["error"]
    assert summary["main_module"].endswith(".jit__lambda") and summary["trace"]["events"] > 0


def test_import_tui_stays_light():
    probe = "import sys, tui; print(callable(tui.explore), 'jax' in sys.modules, 'textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["True", "False", "False"], out.stderr


# --- the Python API ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def transformer_inputs():
    sys.path.insert(0, str(REPO / "examples"))
    import numpy as np
    import transformer

    rng = np.random.default_rng(0)
    params = transformer.init_params(rng, layers=2)
    return transformer, (params, *transformer.make_batch(rng))


def test_a_donated_steps_peak_is_given_with_shared_memory_counted_once():
    """XLA's live-range file counts a donated parameter and the output written over it as two
    buffers, and its peak is then more than everything the program holds at all (its
    memory_analysis: arguments, outputs, temporaries, less what is aliased). The peak is still
    XLA's; beside it, the curve's maximum with that memory counted once, which is not."""
    import jax
    import jax.numpy as jnp

    import tui
    from tui.model.memory import peak_memory
    from tui.model.summary import format_summary, summarize

    def step(params, x):
        grad = jax.grad(lambda w: jnp.sum(jnp.tanh(x @ w + params["b"])))(params["w"])
        return {"w": params["w"] - 0.1 * grad, "b": params["b"]}

    params, x = {"w": jnp.ones((128, 128)), "b": jnp.ones((128,))}, jnp.ones((64, 128))
    ws = tui.capture(jax.jit(step, donate_argnums=0), params, x)
    memory = ws.main.compiled_stats["memory_analysis"]
    held = (memory["argument_size_in_bytes"] + memory["output_size_in_bytes"] - memory["alias_size_in_bytes"]
            + memory["temp_size_in_bytes"])
    peak = peak_memory(ws.main)
    assert peak.source == "XLA live-range file" and memory["alias_size_in_bytes"] > 0
    assert peak.bytes > held >= peak.shared_once > 0
    summary = summarize(ws)
    row = next(m for m in summary["modules"] if m["label"] == ws.main.label)
    assert row["peak_shared_once_bytes"] == peak.shared_once
    assert "counted once" in format_summary(summary)


def test_capture_a_jitted_function_with_profile(transformer_inputs):
    import jax

    import tui

    transformer, args = transformer_inputs
    ws = tui.capture(transformer.train_step, *args, profile=2)
    assert ws.main.name == "jit_train_step" and ws.main.stage == "after optimizations"
    assert ws.main.load().instruction_count > 1000
    # XLA's own analyses are kept, equal to what JAX reports for the same compile
    compiled = transformer.train_step.lower(*args).compile()
    memory = compiled.memory_analysis()
    stats = ws.main.compiled_stats
    assert stats["memory_analysis"]["temp_size_in_bytes"] == memory.temp_size_in_bytes
    assert stats["cost_analysis"]["flops"] == compiled.cost_analysis()["flops"]
    assert ws.main.live_range_path is not None and ws.main.buffer_assignment_path is not None
    # two profiled runs of this very compile
    tagged = module_op_args(ws.sources[0], "jit_train_step")
    assert {args["program_id"] for args in tagged} == {int(ws.main.label.split(".")[0].removeprefix("module_"))}
    assert len({args["run_id"] for args in tagged}) == 2
    # train_step donates its params: the caller's arrays must survive
    assert not any(leaf.is_deleted() for leaf in jax.tree.leaves(args))
    assert ws.capture["kind"] == "function" and ws.capture["script"] == "jit_train_step"
    # the ops' Python stacks end in the caller's code, not in xla-tui's lowering of it
    frames = [frame.file for ins in ws.main.load().instructions() for frame in ins.stack]
    assert any(f.endswith("transformer.py") for f in frames) and not any(f.startswith(str(REPO / "tui")) for f in frames)


def test_capture_plain_lowered_and_compiled(tmp_path):
    import jax
    import jax.numpy as jnp

    import tui

    def scaled_tanh(x, scale=2.0):
        return jnp.tanh(x) * scale

    x = jnp.ones((16, 16))
    for wrong in (-1, "yes", 2.5):  # refused before anything compiles or a folder is made
        with pytest.raises(ValueError, match="profile= takes True, False or a number of runs"):
            tui.capture(scaled_tanh, x, profile=wrong, save_to=tmp_path / "refused")
    assert not (tmp_path / "refused").exists()
    plain = tui.capture(scaled_tanh, x, save_to=tmp_path / "plain")
    assert plain.main.name == "jit_scaled_tanh" and plain.trace is None
    assert (tmp_path / "plain" / CAPTURE_MANIFEST).is_file()  # saved: reopen with `xla-tui DIR`

    lowered = jax.jit(scaled_tanh).lower(x)
    from_lowered = tui.capture(lowered, x, profile=True)
    assert from_lowered.main.name == "jit_scaled_tanh" and from_lowered.main.other_stage_path is not None
    assert from_lowered.trace is not None and from_lowered.trace.event_count > 0

    compiled = lowered.compile()
    from_compiled = tui.capture(compiled)
    assert from_compiled.main.load().instruction_count == from_lowered.main.load().instruction_count
    assert from_compiled.main.compiled_stats["memory_analysis"]["output_size_in_bytes"] == 16 * 16 * 4


def test_explore_opens_the_app_on_the_captured_function(monkeypatch):
    import jax.numpy as jnp

    import tui

    opened = []

    class App:  # records what the real XlaTuiApp would be given, and returns at once
        def __init__(self, *paths, workspace=None, **options):
            opened.append(workspace)

        def run(self):
            pass

    monkeypatch.setattr("tui.app.XlaTuiApp", App)
    with pytest.raises(RuntimeError, match="needs a terminal.*tui.capture"):  # pytest's stdin is none: nothing compiles
        tui.explore(lambda x: jnp.sin(x) @ x, jnp.ones((8, 8)), profile=True)
    assert opened == []
    monkeypatch.setattr("tui.cli.is_terminal", lambda: True)
    tui.explore(lambda x: jnp.sin(x) @ x, jnp.ones((8, 8)), profile=True)
    (ws,) = opened
    assert ws.main.name == "jit__lambda" and ws.trace is not None and ws.main.compiled_stats["cost_analysis"]["flops"] > 0


def test_capture_folder_lives_as_long_as_the_workspace():
    import gc

    import jax.numpy as jnp

    import tui

    ws = tui.capture(lambda x: x + 1, jnp.ones(4))
    folder = Path(ws.sources[0])
    assert folder.is_dir()
    del ws
    gc.collect()
    assert not folder.exists()


# --- the app ------------------------------------------------------------------------------------


@contextlib.asynccontextmanager
async def app_on(folder: Path):
    """The app on a capture folder, loaded."""
    from tui.app import XlaTuiApp

    app = XlaTuiApp(folder)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        yield app, pilot


async def test_app_opens_a_capture_on_the_train_step_with_its_profile(captures):
    from tui.widgets.error_banner import ErrorBanner

    async with app_on(captures["transformer"][0]) as (app, pilot):
        ws = app.workspace
        assert ws.main.name == "jit_train_step" and app.selection.module == ws.main.label
        assert ws.trace is not None and ws.trace.event_count > 1000
        assert not app.screen.query(ErrorBanner)
        assert "jit_train_step" in screen_text(app)
        await pilot.press("4")
        await pilot.pause()
        assert "/host:CPU" in screen_text(app)  # the profile's tracks


async def test_app_shows_the_scripts_error_until_clicked(captures):
    from tui.widgets.error_banner import ErrorBanner

    async with app_on(captures["raising"][0]) as (app, pilot):
        banner = app.screen.query_one(ErrorBanner)
        assert "ValueError: loss diverged at 3" in str(banner.render())
        assert app.workspace.main.name == "jit_step"
        await pilot.click(ErrorBanner)
        await pilot.pause()
        assert not app.screen.query(ErrorBanner)
        await pilot.press("2")
        await pilot.pause()
        assert not app.screen.query(ErrorBanner)


def test_a_capture_that_fails_leaves_its_folder_as_it_found_it(tmp_path):
    """A compile that fails (a custom call no one registered) raises XLA's error and takes back
    what it wrote to `save_to`: a folder it made is gone, an empty one is empty again, so the
    fixed function's capture can be saved there."""
    import jax
    import jax.numpy as jnp

    import tui

    def bad(x):
        return jax.ffi.ffi_call("no_such_target", jax.ShapeDtypeStruct(x.shape, x.dtype))(x)

    made, empty = tmp_path / "made", tmp_path / "empty"
    empty.mkdir()
    for folder in (made, empty):
        with pytest.raises(Exception, match="no_such_target"):
            tui.capture(bad, jnp.ones(4), save_to=folder)
        assert not made.exists() and list(empty.iterdir()) == []
        ws = tui.capture(lambda x: x * 2, jnp.ones(4), save_to=folder)
        assert ws.main is not None and (folder / CAPTURE_MANIFEST).is_file()
        if folder is made:
            shutil.rmtree(made)


def test_the_error_shown_says_where_and_what():
    """The summary's and the banner's error: the traceback's last frame and the message, as
    Python 3.11 prints them (with ^^^ marks under the source line), as JAX prints them (with a
    note on the frames it left out after the message), and for a SyntaxError; the three last
    lines of each lost the file and line."""
    from tui.model.capture_manifest import error_tail

    python = ('Traceback (most recent call last):\n  File "/w/raise_after.py", line 5, in <module>\n'
              '    raise ValueError("boom after compile")\n    ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\nValueError: boom after compile')
    assert error_tail({"error": python}) == 'File "/w/raise_after.py", line 5, in <module>\nValueError: boom after compile'
    jax_error = ('Traceback (most recent call last):\n  File "/w/jaxerr.py", line 9, in <module>\n    f(x)\n'
                 '  File "/w/jaxerr.py", line 6, in f\n    return x @ y\n           ~~^~~\n'
                 '  File "/v/lib/python3.11/site-packages/jax/_src/numpy/tensor_contractions.py", line 269, in matmul\n'
                 '    out = lax.dot_general(\n'
                 'TypeError: dot_general requires contracting dimensions to have the same shape, got (3,) and (4,).\n'
                 '--------------------\nFor simplicity, JAX has removed its internal frames from the traceback of the '
                 'following exception. Set JAX_TRACEBACK_FILTERING=off to include these.')
    assert error_tail({"error": jax_error}) == ('File "/w/jaxerr.py", line 6, in f\nTypeError: dot_general requires '
                                               'contracting dimensions to have the same shape, got (3,) and (4,).')
    syntax = '  File "/w/syntaxerr.py", line 2\n    def f(:\n          ^\nSyntaxError: invalid syntax'
    assert error_tail({"error": syntax}) == 'File "/w/syntaxerr.py", line 2\nSyntaxError: invalid syntax'
    assert error_tail({"error": "RuntimeError: no frames"}) == "RuntimeError: no frames"
