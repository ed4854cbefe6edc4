"""Compile a catalogue of small JAX programs on CPU with XLA's dumps switched on.

Tests need real XLA output of many kinds: loops, conditionals, collectives, custom calls,
narrow dtypes. XLA reads XLA_FLAGS once, when JAX starts its backend, so every program runs in
a child process of its own with `--xla_dump_to=OUTDIR/<program>`. Each child compiles its
program ahead of time, runs it once, and writes beside XLA's files:

  program.json          {"program", "module" (the HLO module's name), "devices", "jax"}
  memory_analysis.json  the fields of `compiled.memory_analysis()`
  cost_analysis.json    `compiled.cost_analysis()`

Some dumps also hold small helper modules that JAX compiled while building the inputs;
program.json names the program's own module.

Usage: `python tests/programs.py OUTDIR [NAME ...]`, or `generate(outdir, names)` from a test.
The children ignore the caller's XLA_FLAGS so that the dumps do not depend on the shell.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding
from jax.sharding import PartitionSpec as P

REPO = Path(__file__).resolve().parents[1]
DUMP_FLAGS = "--xla_dump_hlo_as_text --xla_dump_hlo_as_proto"
EIGHT_DEVICES = "--xla_force_host_platform_device_count=8"


def _example(name):
    """Import examples/<name>.py; only ever called inside a child process."""
    sys.path.insert(0, str(REPO / "examples"))
    return __import__(name)


def _normal(*shape, seed=0, dtype=np.float32):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def _mesh_2x4():
    return Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("data", "model"))


# Each builder returns (a jitted or pmapped function, its arguments). The function's name
# becomes the HLO module's name, e.g. `jit_mlp_grad`.


def build_mlp_grad():
    mlp = _example("mlp")
    rng = np.random.default_rng(0)
    params = mlp.init_params(rng)
    x, labels = mlp.make_batch(rng)

    def mlp_grad(params, x, labels):
        return jax.grad(mlp.loss_fn)(params, x, labels)

    return jax.jit(mlp_grad), (params, x, labels)


def build_transformer():
    transformer = _example("transformer")
    rng = np.random.default_rng(0)
    params = transformer.init_params(rng, layers=2)
    return transformer.train_step, (params, *transformer.make_batch(rng))


def build_scan():
    def scan_rnn(w, xs):
        def cell(h, x):
            h = jnp.tanh(h @ w + x)
            return h, h.sum()

        return jax.lax.scan(cell, jnp.zeros(w.shape[0]), xs)

    return jax.jit(scan_rnn), (_normal(32, 32), _normal(16, 32, seed=1))


def build_scan_train_step():
    """A train step whose layers run in a scan (its weights sliced per layer, its activations
    stacked) and whose loss passes a cond: on a GPU, while loops of CUDA graphs whose slices
    run as memcpy nodes."""
    layers, width, batch = 4, 256, 64

    def layer(h, w):
        return jax.nn.gelu(h @ w["a"]) @ w["b"] + h, None

    def loss(params, x, y):
        h, _ = jax.lax.scan(layer, x, params)
        err = jnp.mean((h - y) ** 2)
        return jax.lax.cond(err > 1e3, jnp.sqrt, lambda e: e, err)

    def train_step(params, x, y):
        value, grads = jax.value_and_grad(loss)(params, x, y)
        return jax.tree.map(lambda p, g: p - 1e-3 * g, params, grads), value

    params = {"a": _normal(layers, width, 4 * width) * 0.02, "b": _normal(layers, 4 * width, width, seed=1) * 0.02}
    return jax.jit(train_step), (params, _normal(batch, width, seed=2), _normal(batch, width, seed=3))


def build_cond():
    def cond_branches(x, w):
        """The predicate depends on the data, so the conditional survives optimization."""
        return jax.lax.cond(x.sum() > 0, lambda: jnp.tanh(x @ w), lambda: jnp.cos(x) - x @ w.T)

    return jax.jit(cond_branches), (_normal(16, 16), _normal(16, 16, seed=1))


def build_remat():
    def remat_grad(w, x):
        @jax.checkpoint
        def block(w, y):
            return jnp.tanh(jnp.tanh(y @ w) @ w)

        def loss(w):
            y = x
            for _ in range(3):
                y = block(w, y)
            return (y**2).sum()

        return jax.grad(loss)(w)

    return jax.jit(remat_grad), (_normal(64, 64) * 0.1, _normal(32, 64, seed=1))


def build_spmd8():
    sharded = _example("sharded")
    rng = np.random.default_rng(0)
    params = sharded.shard(sharded.init_params(rng), sharded.PARAM_SPECS)
    x, y = sharded.shard(sharded.make_batch(rng), sharded.BATCH_SPECS)
    return sharded.train_step, (params, x, y)


def build_shard_map():
    mesh = _mesh_2x4()

    def local_matmul(x, w):
        return jax.lax.psum(x @ w, "model")

    def shard_map_psum(x, w):
        return jax.shard_map(
            local_matmul, mesh=mesh, in_specs=(P("data", "model"), P("model", None)), out_specs=P("data", None)
        )(x, w)

    x = jax.device_put(_normal(16, 32), NamedSharding(mesh, P("data", "model")))
    w = jax.device_put(_normal(32, 8, seed=1), NamedSharding(mesh, P("model", None)))
    return jax.jit(shard_map_psum), (x, w)


def build_collectives():
    """Each collective shard_map lowers to, on a 4x2 mesh: all-to-all (a tuple result on CPU),
    collective-permute, reduce-scatter, all-gather; and jax.random's bitcast-convert."""
    mesh = Mesh(np.array(jax.devices()).reshape(4, 2), ("x", "y"))

    def local(a, key):
        noise = jax.random.normal(key, a.shape, a.dtype)
        swapped = jax.lax.all_to_all(a + noise, "x", 0, 0, tiled=True)
        shifted = jax.lax.ppermute(swapped, "x", [(i, (i + 1) % 4) for i in range(4)])
        summed = jax.lax.psum_scatter(shifted, "y", scatter_dimension=1, tiled=True)
        return jax.lax.all_gather(summed, "y", axis=1, tiled=True)

    def collectives(a, key):
        return jax.shard_map(local, mesh=mesh, in_specs=(P("x", None), P()), out_specs=P("x", None),
                             check_vma=False)(a, key)

    a = jax.device_put(_normal(64, 16), NamedSharding(mesh, P("x", None)))
    return jax.jit(collectives), (a, jax.random.PRNGKey(0))


def build_two_loops():
    """A loop's result that a second loop carries unchanged: XLA merges the second loop's phi
    into the first's (one buffer live through both), not only phis of one real value."""

    def two_loops(x):
        y = jax.lax.fori_loop(0, 10, lambda i, c: jnp.sin(c) * 2, x)
        total, _ = jax.lax.fori_loop(0, 10, lambda i, c: (c[0] + c[1][i].sum(), c[1]), (0.0, y))
        return total

    return jax.jit(two_loops), (_normal(64, 512),)


def build_sort():
    def sort_and_argsort(x, keys):
        return jnp.sort(x, axis=-1), jnp.argsort(keys)

    return jax.jit(sort_and_argsort), (_normal(8, 128), _normal(256, seed=1))


def build_topk():
    def top_k(x):
        return jax.lax.top_k(x, 5)

    return jax.jit(top_k), (_normal(16, 256),)


def build_pmap():
    def pmap_center(x):
        """JAX 0.10 runs pmap through jit and shard_map: the module is named `jit__fun`."""
        return x - jax.lax.pmean(x, "i")

    return jax.pmap(pmap_center, axis_name="i"), (_normal(8, 32),)


def build_custom_call():
    def linalg_and_callback(a):
        """LAPACK (cholesky, eigh) and a host callback: each a custom-call on CPU."""
        spd = a @ a.T + a.shape[0] * jnp.eye(a.shape[0])
        chol = jnp.linalg.cholesky(spd)
        eigenvalues = jnp.linalg.eigvalsh(spd)
        total = jax.pure_callback(lambda v: np.asarray(v, np.float32).sum(), jax.ShapeDtypeStruct((), jnp.float32), chol)
        return chol, eigenvalues, total

    return jax.jit(linalg_and_callback), (_normal(8, 8),)


def build_while_loop():
    def collatz_steps(n):
        """Steps until n reaches 1: a trip count nobody knows before running."""

        def body(state):
            n, steps = state
            return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1

        return jax.lax.while_loop(lambda s: s[0] != 1, body, (n, jnp.int32(0)))[1]

    return jax.jit(collatz_steps), (np.int32(27),)


def build_fp8():
    def fp8_matmul(a, b):
        out = jnp.dot(a, b, preferred_element_type=jnp.float32)
        return out, out.astype(jnp.float8_e5m2)

    return jax.jit(fp8_matmul), (_normal(32, 32, dtype=jnp.float8_e4m3fn), _normal(32, 16, seed=1, dtype=jnp.float8_e5m2))


def build_bf16():
    def bf16_layer(x, w):
        return jax.nn.gelu(x @ w).sum(axis=0)

    return jax.jit(bf16_layer), (_normal(64, 128, dtype=jnp.bfloat16), _normal(128, 64, seed=1, dtype=jnp.bfloat16))


def build_int4():
    def int4_dequant(q, scale):
        """Packed 4-bit weights (layout E(4) on CPU) widened and scaled."""
        return q.astype(jnp.float32) * scale, q + q

    q = np.arange(-8, 8, dtype=np.int8).repeat(8).reshape(16, 8).astype(jnp.int4)
    return jax.jit(int4_dequant), (q, np.float32(0.5))


def build_uneven():
    mesh = Mesh(np.array(jax.devices()[:8]), ("x",))

    def uneven_rows(a, b):
        """12 rows constrained over 8 devices: XLA pads the last shards. Beside it two results
        sharded two other ways: the root tuple's sharding has a leaf for each."""
        return jax.lax.with_sharding_constraint(jnp.tanh(a), NamedSharding(mesh, P("x"))), b * 2, b.T

    # A replicated result: JAX 0.11 cannot name the uneven sharding XLA picks for it as a mesh spec.
    out = (NamedSharding(mesh, P()), NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, "x")))
    return jax.jit(uneven_rows, out_shardings=out), (_normal(12, 4), _normal(16, 8, seed=1))


def build_wide():
    """300 results: the root tuple has 300 operands (each value's uses are found without a scan
    of them all: a tuple of 20k took 18 s that way)."""

    def many_results(x):
        return tuple(jnp.sin(x * (i + 1)) for i in range(300))

    return jax.jit(many_results), (_normal(8),)


# name -> (builder, devices it needs); slowest first, so that parallel children finish together.
PROGRAMS = {
    "transformer": (build_transformer, 1),
    "spmd8": (build_spmd8, 8),
    "mlp_grad": (build_mlp_grad, 1),
    "shard_map": (build_shard_map, 8),
    "collectives": (build_collectives, 8),
    "pmap": (build_pmap, 8),
    "scan": (build_scan, 1),
    "cond": (build_cond, 1),
    "remat": (build_remat, 1),
    "sort": (build_sort, 1),
    "topk": (build_topk, 1),
    "custom_call": (build_custom_call, 1),
    "while_loop": (build_while_loop, 1),
    "two_loops": (build_two_loops, 1),
    "fp8": (build_fp8, 1),
    "bf16": (build_bf16, 1),
    "int4": (build_int4, 1),
    "uneven": (build_uneven, 8),
    "wide": (build_wide, 1),
}

MEMORY_FIELDS = (
    "argument_size_in_bytes",
    "output_size_in_bytes",
    "alias_size_in_bytes",
    "temp_size_in_bytes",
    "generated_code_size_in_bytes",
    "peak_memory_in_bytes",
    "host_argument_size_in_bytes",
    "host_output_size_in_bytes",
    "host_alias_size_in_bytes",
    "host_temp_size_in_bytes",
    "host_generated_code_size_in_bytes",
)


def _write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=1, sort_keys=True) + "\n")


def compile_and_run(name: str, outdir: Path) -> None:
    """Child side: build, compile, run once and record XLA's own analyses."""
    build, devices = PROGRAMS[name]
    fn, args = build()
    compiled = fn.lower(*args).compile()
    jax.block_until_ready(compiled(*args))
    memory = compiled.memory_analysis()
    _write_json(outdir / "memory_analysis.json", {field: getattr(memory, field) for field in MEMORY_FIELDS})
    _write_json(outdir / "cost_analysis.json", compiled.cost_analysis())
    module = compiled.runtime_executable().hlo_modules()[0].name
    _write_json(outdir / "program.json", {"program": name, "module": module, "devices": devices, "jax": jax.__version__})


def _run_child(name: str, dump_dir: Path) -> Path:
    shutil.rmtree(dump_dir, ignore_errors=True)
    dump_dir.mkdir(parents=True)
    flags = f"--xla_dump_to={dump_dir} {DUMP_FLAGS}"
    if PROGRAMS[name][1] > 1:
        flags += f" {EIGHT_DEVICES}"
    env = {**os.environ, "XLA_FLAGS": flags, "JAX_PLATFORMS": "cpu"}
    result = subprocess.run(
        [sys.executable, __file__, "--child", name, str(dump_dir)], env=env, capture_output=True, text=True
    )
    if result.returncode != 0:
        raise RuntimeError(f"program {name!r} failed:\n{result.stderr[-4000:]}")
    return dump_dir


def generate(outdir, names=None) -> dict[str, Path]:
    """Dump each named program (all by default) into outdir/<name>; returns name -> folder."""
    outdir = Path(outdir).resolve()
    names = list(PROGRAMS) if names is None else list(names)
    unknown = sorted(set(names) - set(PROGRAMS))
    if unknown:
        raise ValueError(f"unknown programs {unknown}; known: {sorted(PROGRAMS)}")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        folders = pool.map(lambda name: _run_child(name, outdir / name), names)
        return dict(zip(names, folders))


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        compile_and_run(argv[1], Path(argv[2]))
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("outdir", type=Path)
    parser.add_argument("names", nargs="*", help=f"programs to dump (default: all of {', '.join(PROGRAMS)})")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    folders = generate(args.outdir, args.names or None)
    for name, folder in folders.items():
        print(f"{name:12} {folder}")
    print(f"{len(folders)} programs in {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
