"""tui.model.sharding against XLA itself.

Every distinct `sharding=` value in the corpus and in modules JAX builds for an 8-device CPU
mesh is decoded and compared with XLA's `HloSharding.from_string`; shard shapes and device
grids are compared with what JAX says each device holds; replica groups are compared with the
iota XLA expands and with the legacy form XLA prints for the same collective.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import CORPUS
from jax._src.lib import xla_client

from tui.model.sharding import (
    Sharding,
    ShardingError,
    iota_devices,
    parse_replica_groups,
    parse_sharding,
    parse_source_target_pairs,
)


# Runs in a child process: XLA_FLAGS must be set before JAX starts its CPU backend.
GENERATOR = r'''
import json, sys
import numpy as np
import jax, jax.numpy as jnp
from jax.sharding import AxisType, Mesh, NamedSharding, PartitionSpec as P

devs = np.array(jax.devices())
mesh = Mesh(devs.reshape(2, 4), ("x", "y"))
mesh3 = Mesh(devs.reshape(2, 2, 2), ("a", "b", "c"))
shuffled = Mesh(devs[[3, 1, 7, 5, 0, 2, 6, 4]].reshape(4, 2), ("p", "q"))
modules, layouts = {}, []

def record(name, f, *args):
    lowered = jax.jit(f).lower(*args)
    modules[name + ".before"] = lowered.as_text(dialect="hlo")
    modules[name + ".after"] = lowered.compile().as_text()

def constrain(m, spec):
    return lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(m, spec)) + 1

x = jnp.zeros((16, 6), jnp.float32)  # 6 does not split 4 ways: XLA pads the shards
cases = [(mesh, P("x", "y")), (mesh, P("y", "x")), (mesh, P("x")), (mesh, P(None, "y")),
         (mesh, P(("x", "y"))), (mesh, P(("y", "x"))), (mesh3, P("c", "a")), (mesh3, P(("c", "a"), "b")),
         (shuffled, P("q", "p")), (shuffled, P("p"))]
for i, (m, spec) in enumerate(cases):
    record(f"constraint{i}", constrain(m, spec), x)
    s = NamedSharding(m, spec)
    logical = list(m.devices.flat)  # HLO shardings name devices by their place in the mesh
    for shape in [(16, 8), (8, 24)]:
        layouts.append({
            "hlo": str(s._to_xla_hlo_sharding(len(shape))),
            "shape": shape,
            "shard_shape": s.shard_shape(shape),
            "starts": {logical.index(d): [sl.start or 0 for sl in idx] for d, idx in s.devices_indices_map(shape).items()},
        })
z = jax.device_put(jnp.ones((16, 8)), NamedSharding(mesh, P("x", None)))
record("matmul", lambda a, b: (a @ b.T).sum(0), z, z)

def collectives(a):
    s = jax.lax.psum(a, "y")
    g = jax.lax.all_gather(s, "x")
    p = jax.lax.ppermute(a, "y", [(i, (i + 1) % 4) for i in range(4)])
    r = jax.lax.psum_scatter(a, "y", scatter_dimension=0, tiled=True)
    t = jax.lax.all_to_all(a, "y", 0, 0, tiled=True)
    return g.sum(0) + p + jnp.tile(r, (4, 1)) + t
record("shard_map", jax.shard_map(collectives, mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"), check_vma=False), z)
record("partial_manual", lambda a: jax.shard_map(lambda b: jax.lax.psum(b, "x"), mesh=mesh, in_specs=P("x"), out_specs=P(),
                                                 axis_names={"x"}, check_vma=False)(a), z)
w = jax.device_put(jnp.ones((8, 8)), NamedSharding(mesh3, P("a", "c")))
record("mesh3_psum", jax.shard_map(lambda b: jax.lax.psum(b, ("a", "c")), mesh=mesh3, in_specs=P("a", "c"), out_specs=P(),
                                   check_vma=False), w)
record("mesh3_reduce", lambda a: jax.lax.with_sharding_constraint(a.sum(0), NamedSharding(mesh3, P("b"))), w)
record("mesh3_total", lambda a: a.sum(), w)
v = jax.device_put(jnp.ones((8, 8)), NamedSharding(mesh3, P(("c", "a"), "b")))
record("mesh3_gather", lambda a: jax.lax.with_sharding_constraint(a * 2, NamedSharding(mesh3, P())), v)
record("tuple", lambda a: (a * 2, jax.lax.with_sharding_constraint(a, NamedSharding(mesh, P(None, "y"))), a.sum()), z)
record("callback", lambda a: jax.experimental.io_callback(
    lambda v: v, jax.ShapeDtypeStruct(a.shape, a.dtype), a, sharding=jax.sharding.SingleDeviceSharding(jax.devices()[3])), z)
emesh = jax.make_mesh((2, 4), ("x", "y"), axis_types=(AxisType.Explicit, AxisType.Explicit))
ea = jax.device_put(jnp.ones((16, 8)), NamedSharding(emesh, P("x", "y")))
eb = jax.device_put(jnp.ones((8, 16)), NamedSharding(emesh, P("y", None)))
with jax.set_mesh(emesh):
    record("unreduced", lambda a, b: jnp.dot(a, b, out_sharding=P("x", None, unreduced={"y"})), ea, eb)
jax.config.update("jax_use_shardy_partitioner", False)  # GSPMD prints {manual} and manual subgroups
record("gspmd_shard_map", jax.shard_map(collectives, mesh=mesh, in_specs=P("x", "y"), out_specs=P(None, "y"),
                                        check_vma=False), z)
record("gspmd_partial_manual", lambda a: jax.shard_map(lambda b: jax.lax.psum(b, "x"), mesh=mesh, in_specs=P("x"),
                                                       out_specs=P(), axis_names={"x"}, check_vma=False)(a), z)
json.dump({"modules": modules, "layouts": layouts, "mesh": mesh.device_ids.tolist()}, sys.stdout)
'''

# The same programs under three XLA settings: today's defaults, collectives printed in the
# legacy replica-group forms, and the mesh/axis sharding form XLA prints behind a flag.
RUNS = {
    "default": "",
    "legacy_groups": "--xla_enable_rgv3_materialization=false",
    "mesh_shardings": "--xla_enable_hlo_sharding_v3=true",
}


@pytest.fixture(scope="module")
def generated() -> dict[str, dict]:
    procs = {}
    for run, flags in RUNS.items():
        env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count=8 {flags}", JAX_PLATFORMS="cpu")
        procs[run] = subprocess.Popen([sys.executable, "-c", GENERATOR], env=env, text=True,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    results = {}
    try:
        for run, proc in procs.items():
            out, err = proc.communicate(timeout=600)
            if proc.returncode != 0:
                pytest.fail(f"JAX generator ({run}) failed:\n{err[-3000:]}")
            results[run] = json.loads(out)
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.kill()
    return results


@pytest.fixture(scope="module")
def corpus_texts() -> list[str]:
    if not CORPUS.is_dir():
        pytest.skip(f"corpus not found at {CORPUS}")
    files = sorted(p for p in (CORPUS / "hlo").rglob("*") if p.suffix in (".hlo", ".txt"))
    return [p.read_text(errors="replace") for p in files]


def _closing_brace(text: str, start: int) -> int:
    """Index of the `}` closing the `{` at `start`; quoted strings may hold braces."""
    depth, quote, i = 0, None, start
    while True:
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1


_UNBRACED = re.compile(
    r"\[[\d,]*\]<=\[[\d,]*\](?:T\([\d,]*\))?"
    r"|mesh\[[^\]]*\](?:, device_ids=\((?:[^()]|\([^()]*\))*\))? \{[^}]*\}"
)


def attribute_values(text: str, key: str) -> list[tuple[str, str]]:
    """(instruction name, value) for each `key=` attribute in HLO text."""
    found = []
    for line in text.splitlines():
        if f"{key}=" not in line:
            continue
        name = re.match(r"\s*(?:ROOT\s+)?%?([\w.\-]+)\s*=", line)
        for m in re.finditer(rf"(?<![\w.]){key}=", line):
            start = m.end()
            if line.startswith("{", start):
                value = line[start: _closing_brace(line, start) + 1]
            else:
                unbraced = _UNBRACED.match(line, start)
                assert unbraced, f"unrecognised {key} value: {line[start:start + 80]}"
                value = unbraced.group(0)
            found.append((name.group(1) if name else "", value))
    return found


def distinct(texts, key: str) -> set[str]:
    return {value for text in texts for _, value in attribute_values(text, key)}


def xla_sharding(text: str):
    return xla_client.hlo.HloSharding.from_string(text)


def mismatch(ours: Sharding, xla) -> str | None:
    """Why `ours` differs from XLA's HloSharding, or None."""
    proto = xla.to_proto()
    if proto.type == xla_client.hlo.OpSharding_Type.TUPLE:
        if ours.kind != "tuple" or len(ours.elements) != len(xla.tuple_elements()):
            return f"expected a tuple of {len(xla.tuple_elements())}, got {ours.kind} {len(ours.elements)}"
        for i, (mine, theirs) in enumerate(zip(ours.elements, xla.tuple_elements())):
            why = mismatch(mine, theirs)
            if why:
                return f"element {i}: {why}"
        return None
    if proto.is_shard_group:
        kind = "as" if proto.shard_group_type == xla_client.hlo.OpSharding_ShardGroupType.AS else "like"
        if ours.shard_group != f"shard_{kind} {proto.shard_group_id}":
            return f"shard group {ours.shard_group!r} != shard_{kind} {proto.shard_group_id}"
    elif ours.shard_group:
        return f"unexpected shard group {ours.shard_group!r}"
    if xla.is_replicated():
        kind = "replicated"
    elif xla.is_manual():
        kind = "manual"
    elif xla.is_unreduced():
        kind = "unreduced"
    elif xla.is_unknown():
        kind = "unknown"
    elif xla.is_maximal():
        kind = "maximal"
    else:
        assert xla.is_tiled()
        kind = "tiled"
    if ours.kind != kind:
        return f"kind {ours.kind} != {kind}"
    if kind == "maximal" and ours.device != xla.tile_assignment_devices()[0]:
        return f"device {ours.device} != {xla.tile_assignment_devices()[0]}"
    if kind != "tiled":
        return None if ours.tile_dims == ours.devices == ours.last_tile_dims == () else "non-tiled with tiles"
    subgroups = ("replicated",) if xla.replicate_on_last_tile_dim() else tuple(t.name.lower() for t in xla.subgroup_types())
    theirs = (tuple(xla.tile_assignment_dimensions()), tuple(xla.tile_assignment_devices()), subgroups)
    mine = (ours.tile_dims, ours.devices, ours.last_tile_dims)
    return None if mine == theirs else f"{mine} != {theirs}"


def check_against_xla(texts) -> list[str]:
    failures = []
    for text in sorted(texts):
        xla = xla_sharding(text)
        if "mesh[" in text:
            xla = xla.v3_to_v2_sharding()
        why = mismatch(parse_sharding(text), xla)
        if why:
            failures.append(f"{text[:200]}: {why}")
    return failures


def test_corpus_shardings_match_xla(corpus_texts):
    texts = distinct(corpus_texts, "sharding")
    assert len(texts) > 30
    assert any(t.startswith("{{") for t in texts), "expected tuple shardings in the corpus"
    assert any("last_tile_dim_replicate" in t for t in texts)
    assert check_against_xla(texts) == []


def test_generated_shardings_match_xla(generated):
    texts = distinct(generated["default"]["modules"].values(), "sharding")
    for form in ("{manual}", "{maximal device=3}", "{replicated}", "last_tile_dims={manual, replicated}",
                 "last_tile_dims={unreduced}", "last_tile_dim_replicate", "T(1,0)}", "T(0,2,1)"):
        assert any(form in t for t in texts), f"JAX output lacks {form}"
    assert check_against_xla(texts) == []


def test_mesh_form_shardings_match_xla(generated):
    texts = distinct(generated["mesh_shardings"]["modules"].values(), "sharding")
    mesh_texts = {t for t in texts if "mesh[" in t}
    assert len(mesh_texts) >= 5
    assert check_against_xla(texts) == []


@pytest.mark.parametrize("text", [
    # Sub-axes, explicit and iota device orders, subgroups of every kind, open dims, metadata.
    "{mesh['x'=2,'y'=4], [{'y':(2)2}, {}], replicated={'x'}}",
    "{mesh['x'=2,'y'=4], [{'y':(2)2}, {}], unreduced={'x'}}",
    "{mesh['x'=2,'y'=4], [{'y':(2)2}, {}], manual={'x'}}",
    "{mesh['x'=2,'y'=2,'z'=2], [{}], unreduced={'x', 'y'}, manual={'z'}}",
    "{mesh['x'=2,'y'=2,'z'=2], [{}], replicated={'z'}, unreduced={'y'}}",
    "{mesh['x'=4,'y'=2], [{'x':(2)2}, {'y'}], manual={'x':(1)2}}",
    "{mesh['x'=8], [{'x':(2)2}, {'x':(4)2}]}",
    "{mesh['x'=2,'y'=4], [{'y':(2)2, 'x'}, {'y':(1)2}]}",
    "{mesh['x'=2,'y'=4], device_ids=([4,2]T(1,0)), [{'y'}, {}]}",
    "{mesh['x'=2,'y'=2], device_ids=(3,1,2,0), [{'y'}, {}]}",
    "{mesh['x'=2,'y'=4], [{'x'}, {?}], metadata={{op_name=\"a\"}, {op_name=\"b\"}}}",
    "{mesh['x'=2,'y'=4], [{}, {}], manual={'x', 'y'}}",
    "{mesh['x'=2], manual}",
    "{mesh[], replicated}",
    "{{mesh['x'=2,'y'=4], [{'x'}, {'y'}]}, {replicated}}",
])
def test_mesh_form_edge_cases_match_xla(text):
    assert check_against_xla([text]) == []


@pytest.mark.parametrize("text", [
    # Forms XLA accepts but never prints: it canonicalises them, and so must we.
    "{devices=[2,2,2,2]<=[16] last_tile_dims={manual, replicated, manual}}",
    "{devices=[2,2,2,2]<=[16] last_tile_dims={replicated, manual, replicated}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={unreduced, manual}}",
    "{devices=[2,2,2]<=[8] last_tile_dims={maximal, manual}}",
    "{devices=[2,2,1]<=[4] last_tile_dims={replicated}}",
    "{devices=[2,2,1,2]<=[8] last_tile_dims={manual, replicated}}",
    "{devices=[1,1,4]<=[4] last_tile_dim_replicate}",
    "{devices=[1,4]<=[4] last_tile_dims={manual}}",
    "{devices=[1,4]<=[4] last_tile_dims={unreduced}}",
    "{devices=[2,1]0,1 last_tile_dims={manual, replicated}}",
    "{devices=[1,2,2]<=[4] last_tile_dims={manual, replicated}}",
    "{devices=[2,4]<=[2,2,2]T(2,0,1)}",
    "{devices=[2,2]<=[2,2]T(0,1)}",
    "{devices=[2,2] 3, 1, 2, 0}",
    # Attributes XLA prints inside a sharding.
    "{devices=[2,1,2]<=[4] last_tile_dim_replicate metadata={op_name=\"a}b\" source_file=\"f.py\" source_line=3}}",
    "{replicated metadata={{op_name=\"a\"}, {op_name=\"b\"}}}",
    "{maximal device=2 shard_as 1 metadata={op_name=\"b\"}}",
    "{devices=[2,1]0,1 shard_like 2}",
    "{unknown shard_as 1}",
    "{{replicated}, /*index=1*/{manual}, {devices=[2,1]<=[2]}, {unreduced}}",
    "{}",
])
def test_edge_cases_match_xla(text):
    assert check_against_xla([text]) == []


def test_attribute_value_without_braces_and_nested_tuples():
    bare = parse_sharding("devices=[2,1,4]<=[8] last_tile_dim_replicate")
    assert bare == parse_sharding(" {devices=[2,1,4]<=[8] last_tile_dim_replicate}")
    assert bare.kind == "tiled" and bare.last_tile_dims == ("replicated",)
    nested = parse_sharding("{{replicated}, {{maximal device=1}, {devices=[2]<=[2]}}}")  # XLA flattens; we accept
    assert [e.kind for e in nested.elements] == ["replicated", "tuple"]
    assert [e.kind for e in nested.elements[1].elements] == ["maximal", "tiled"]
    assert nested.elements[1].elements[1].raw == "{devices=[2]<=[2]}"
    assert parse_sharding("{devices=[2,2]<=[4] metadata={op_name=\"x\"}}").metadata == '{op_name="x"}'


def test_maximal_mesh_is_the_newer_spelling_of_maximal():
    """JAX 0.11's dump of a `pure_callback` reads `sharding={maximal_mesh[device_id=0]}`."""
    newer, older = parse_sharding("{maximal_mesh[device_id=0]}"), parse_sharding("{maximal device=0}")
    assert (newer.kind, newer.device) == (older.kind, older.device) == ("maximal", 0)
    assert newer.device_grid().tolist() == older.device_grid().tolist()
    pair = parse_sharding("{{maximal_mesh[device_id=1] metadata={op_name=\"cb\"}}, {replicated}}")
    assert pair.elements[0].device == 1 and pair.elements[0].metadata == '{op_name="cb"}'


def test_shard_shape_and_device_grid_match_jax(generated):
    layouts = generated["default"]["layouts"]
    assert layouts
    for layout in layouts:
        sharding = parse_sharding(layout["hlo"])
        shard = sharding.shard_shape(layout["shape"])
        assert shard == tuple(layout["shard_shape"]), layout["hlo"]
        grid = sharding.device_grid()
        if sharding.kind != "tiled":
            continue
        assert grid.shape == sharding.tile_dims
        rank = len(sharding.data_tile_dims)
        for device, starts in layout["starts"].items():
            for position in np.argwhere(grid == int(device)):
                assert [int(p) * s for p, s in zip(position[:rank], shard)] == starts, (layout["hlo"], device)


def test_uneven_shard_shape_matches_xla_partitioner(generated):
    """f32[16,6] under each constraint: the partitioned module computes on padded shards."""
    modules = generated["default"]["modules"]
    checked = 0
    for name in (n for n in modules if n.startswith("constraint") and n.endswith(".before")):
        [text] = [v for op, v in attribute_values(modules[name], "sharding") if op.startswith("sharding_constraint")]
        rows, cols = parse_sharding(text).shard_shape((16, 6))
        if (rows, cols) == (16, 6):
            continue
        after = modules[name.replace(".before", ".after")]
        assert re.search(rf"f32\[{rows},{cols}\]", after), f"{text}: no f32[{rows},{cols}] in the partitioned module"
        checked += 1
    assert checked >= 5


def test_shard_shape_concrete():
    assert parse_sharding("{devices=[4,2]<=[8]}").shard_shape((16, 6)) == (4, 3)
    assert parse_sharding("{devices=[4,2]<=[8]}").shard_shape((10, 5)) == (3, 3)
    assert parse_sharding("{devices=[2,1,4]<=[8] last_tile_dim_replicate}").shard_shape((16, 6)) == (8, 6)
    assert parse_sharding("{devices=[1,3,2]<=[6] last_tile_dims={manual}}").shard_shape((7, 7)) == (7, 3)
    assert parse_sharding("{replicated}").shard_shape((16, 6)) == (16, 6)
    assert parse_sharding("{maximal device=1}").shard_shape([5]) == (5,)
    with pytest.raises(ValueError, match="2 dims but the array has 1"):
        parse_sharding("{devices=[4,2]<=[8]}").shard_shape((16,))
    with pytest.raises(ValueError, match="tuple"):
        parse_sharding("{{replicated}}").shard_shape((16,))


def test_device_grid_and_describe():
    tiled = parse_sharding("{devices=[2,4,2]<=[4,4]T(1,0) last_tile_dim_replicate}")
    assert tiled.device_grid().shape == (2, 4, 2)
    assert tiled.device_grid()[0, 0].tolist() == [0, 4]
    assert tiled.data_tile_dims == (2, 4) and tiled.num_devices == 16
    assert tiled.describe() == "tiled 2x4 over 16 devices, replicated x2"
    assert parse_sharding("{maximal device=3}").device_grid().tolist() == [3]
    assert parse_sharding("{replicated}").device_grid().size == 0
    assert parse_sharding("{maximal device=3 shard_as 2}").describe() == "on device 3, shard_as 2"
    manual = parse_sharding("{devices=[2,2,2]<=[8] last_tile_dims={manual, replicated}}")
    assert manual.describe() == "tiled 2 over 8 devices, manual x2, replicated x2"
    tup = parse_sharding("{{replicated}, {replicated}, {devices=[2,1]0,1}}")
    assert tup.describe() == "tuple of 3: 2× replicated, 1× tiled 2x1 over 2 devices"
    assert tup.num_devices == 2


def test_iota_devices_matches_xla():
    for dims, reshape, perm in [((2, 4), (8,), None), ((2, 4), (4, 2), (1, 0)), ((8, 2), (2, 8), (1, 0)),
                                ((2, 2, 2), (2, 2, 2), (0, 2, 1)), ((4, 6), (2, 3, 4), (2, 0, 1))]:
        t = f"T({','.join(map(str, perm))})" if perm else ""
        xla = xla_sharding(f"{{devices=[{','.join(map(str, dims))}]<=[{','.join(map(str, reshape))}]{t}}}")
        assert iota_devices(dims, reshape, perm).ravel().tolist() == list(xla.tile_assignment_devices())
    with pytest.raises(ShardingError, match="not a permutation"):
        iota_devices((2, 2), (2, 2), (1, 1))
    with pytest.raises(ShardingError, match="do not fill"):
        iota_devices((2, 2), (5,))


def _is_partition(groups: list[list[int]]) -> bool:
    flat = [d for g in groups for d in g]
    return len({len(g) for g in groups}) == 1 and sorted(flat) == list(range(len(flat)))


def test_iota_replica_groups_match_xla(corpus_texts, generated):
    texts = distinct(corpus_texts, "replica_groups") | distinct(generated["legacy_groups"]["modules"].values(), "replica_groups")
    iotas = {t for t in texts if "<=" in t}
    assert any("T(" in t for t in iotas) and len(iotas) >= 8
    for text in iotas:
        groups = parse_replica_groups(text)
        devices = xla_sharding("{devices=" + text + "}").tile_assignment_devices()
        assert np.array(groups).ravel().tolist() == list(devices), text
        assert _is_partition(groups), text
    assert parse_replica_groups("[2,4]<=[8]") == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert parse_replica_groups("[4,2]<=[2,4]T(1,0)") == [[0, 4], [1, 5], [2, 6], [3, 7]]


def test_mesh_replica_groups_match_legacy_forms(generated):
    """XLA prints the same collective as `mesh[...] {axes}` by default and as a list or iota without RGV3."""
    compared = 0
    for name, text in generated["default"]["modules"].items():
        legacy = dict(attribute_values(generated["legacy_groups"]["modules"][name], "replica_groups"))
        for instruction, value in attribute_values(text, "replica_groups"):
            if value.startswith("mesh") and instruction in legacy:
                # the same groups, each listing its devices in the same order; the order of the
                # groups themselves means nothing, and JAX 0.11's XLA lists them differently
                ours, xla = parse_replica_groups(value), parse_replica_groups(legacy[instruction])
                assert sorted(ours) == sorted(xla), (name, value)
                compared += 1
    assert compared >= 5


def test_mesh_replica_groups_over_several_axes_and_sub_axes():
    # Devices that differ only along the named (sub-)axes, the first listed axis major: JAX 0.11's
    # XLA prints `mesh['a'=2,'b'=2,'c'=2] {'c','a'}` in its legacy form as {0,4,1,5},{2,6,3,7}
    # (no JAX this project's CI installs prints axes out of mesh order).
    assert parse_replica_groups("mesh['a'=2,'b'=2,'c'=2] {'c','a'}") == [[0, 4, 1, 5], [2, 6, 3, 7]]
    assert parse_replica_groups("mesh['x'=2,'y'=4] {'x','y'}") == [list(range(8))]
    assert parse_replica_groups("mesh['x'=2,'y'=4] {'y','x'}") == [[0, 4, 1, 5, 2, 6, 3, 7]]
    assert parse_replica_groups("mesh['x'=8] {'x':(2)2}") == [[0, 2], [1, 3], [4, 6], [5, 7]]
    assert parse_replica_groups("mesh['x'=2,'y'=2], device_ids=(3,1,2,0) {'y'}") == [[3, 1], [2, 0]]


def test_list_replica_groups_mean_the_mesh_axes(corpus_texts, generated):
    texts = distinct(corpus_texts, "replica_groups") | distinct(generated["default"]["modules"].values(), "replica_groups")
    for text in (t for t in texts if t.startswith("{")):
        groups = parse_replica_groups(text)
        assert groups == [[int(d) for d in g.split(",")] for g in re.findall(r"\{([\d,]+)\}", text)]
    # psum over mesh axis "y" groups each row of the (2, 4) mesh; all_gather over "x" each column.
    mesh = np.array(generated["default"]["mesh"])
    module = dict(attribute_values(generated["default"]["modules"]["shard_map.before"], "replica_groups"))
    psum = next(v for k, v in module.items() if k.startswith("psum"))
    gather = next(v for k, v in module.items() if k.startswith("all_gather"))
    assert parse_replica_groups(psum) == mesh.tolist()
    assert parse_replica_groups(gather) == mesh.T.tolist()
    assert parse_replica_groups("{}") == []


def test_source_target_pairs(corpus_texts, generated):
    assert {"{{0,1},{1,2},{2,3},{3,0}}"} <= distinct(corpus_texts, "source_target_pairs")
    assert parse_source_target_pairs("{{0,1},{1,2},{2,3},{3,0}}") == [(0, 1), (1, 2), (2, 3), (3, 0)]
    # ppermute along "y" by +1: each device sends to its right neighbour in its mesh row.
    mesh = np.array(generated["default"]["mesh"])
    [(_, value)] = attribute_values(generated["default"]["modules"]["shard_map.before"], "source_target_pairs")
    expected = {(int(row[i]), int(row[(i + 1) % 4])) for row in mesh for i in range(4)}
    assert set(parse_source_target_pairs(value)) == expected
    assert parse_source_target_pairs("{}") == []


@pytest.mark.parametrize("text, problem", [
    ("{devices=[2,2]0,1,2}", "need 4 devices, got 3"),
    ("{devices=[2,2]<=[5]}", "do not fill"),
    ("{devices=[2,2]<=[2,2]T(1,1)}", "not a permutation"),
    ("{devices=[0,2]<=[0]}", "must be positive"),
    ("{devices=[2]-1,0}", "negative device id"),
    ("{devices=[1]0}", "more than one device"),
    ("{replicated", "expected '}' before the end"),
    ("{replicated,}", "unexpected ','"),
    ("{maximal}", "exactly one device=N"),
    ("{replicated device=1}", "belongs to a maximal sharding"),
    ("{manual devices=[2]0,1}", "a manual sharding has no devices="),
    ("{replicated maximal device=1}", "both replicated and maximal"),
    ("{devices=[2,2]<=[4] last_tile_dims={tuple}}", "unknown subgroup kind 'tuple'"),
    ("{devices=[2]<=[2] last_tile_dims={manual, replicated}}", "2 subgroup kinds for 1 tile dims"),
    ("{devices=[2,2]<=[4] last_tile_dim_replicate last_tile_dims={manual}}", "together"),
    ("{devices=[2,2]0,1,2,3}}", "after the end"),
    ("{foo}", "unexpected 'foo'"),
    ("{devices=[2,2]0,1,2,3 $}", "unexpected character '$' at column 23"),
    ("{mesh['x'=2], [{'q'}]}", "axis 'q' is not in the mesh"),
    ("{mesh['x'=4], [{'x':(1)3}]}", "does not divide"),
    ("{mesh['x'=4], [{'x':(1)2}, {'x'}]}", "overlap"),
    ("{mesh['x'=2,'x'=2], [{}]}", "appears twice"),
    ("{mesh['x'=2,'y'=2], device_ids=(0,1,2,2), [{}]}", "permutation"),
    ("  ", "empty sharding text"),
])
def test_malformed_sharding_raises(text, problem):
    with pytest.raises(ShardingError, match=re.escape(problem)):
        parse_sharding(text)


@pytest.mark.parametrize("text", ["{replicated", "{replicated,}", "{maximal}", "{replicated device=1}",
                                  "{devices=[2,2]<=[4] last_tile_dims={tuple}}",
                                  "{foo}", "{devices=[1]0}"])
def test_xla_rejects_what_we_reject(text):
    with pytest.raises(Exception):
        xla_sharding(text)


@pytest.mark.parametrize("text, problem", [
    ("{{0,1},{2,3}", "expected '}'"),
    ("{{0,1},{2,x}}", "expected an integer"),
    ("[2,4]<=[6]", "do not fill"),
    ("[8]<=[8]", "need [groups,size]"),
    ("(0,1)", "to start replica groups"),
    ("mesh['x'=2] {'y'}", "not in the mesh"),
])
def test_malformed_replica_groups_raise(text, problem):
    with pytest.raises(ShardingError, match=re.escape(problem)):
        parse_replica_groups(text)


def test_malformed_source_target_pairs_raise():
    with pytest.raises(ShardingError, match=re.escape("two devices, got [0, 1, 2]")):
        parse_source_target_pairs("{{0,1,2}}")
    with pytest.raises(ShardingError, match="expected '{'"):
        parse_source_target_pairs("[0,1]")


def test_a_sharding_nested_past_pythons_depth_is_a_sharding_error():
    """Hand-written edge case: braces 2,000 deep ran the parser out of stack (a RecursionError
    crashed the details page); it is a ShardingError, which the page shows as undecoded."""
    with pytest.raises(ShardingError, match="nested too deeply"):
        parse_sharding("{" * 2000 + "replicated" + "}" * 2000)
    assert parse_sharding("{{replicated}, {maximal device=1}}").elements[1].device == 1
