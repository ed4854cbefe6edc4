"""Decode the sharding attributes XLA prints in HLO text.

`sharding={...}`, `replica_groups=...` and `source_target_pairs=...` are compact: iota device
lists (`<=[4,2]T(1,0)`), trailing subgroup dims, tuple shardings, and the mesh/axis forms of
newer XLA (`{mesh['x'=2,'y'=4], [{'x'}, {}]}`, `mesh['x'=2,'y'=4] {'y'}`). The details screen
shows them as device grids, per-device shard shapes and explicit groups, so this module turns
the text into plain numbers. It follows XLA's own meaning (checked against
`xla_client.hlo.HloSharding` in the tests), including how XLA canonicalises subgroup dims.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass
from typing import Sequence

import numpy as np

# Trailing tile dims that group devices rather than split data, in the order XLA keeps them.
_SUBGROUP_ORDER = ("maximal", "manual", "unreduced", "replicated")
# Subgroup kinds that, covering all devices alone, mean the whole sharding is of that kind.
_WHOLE_KINDS = ("manual", "unreduced", "replicated")
_KIND_WORDS = ("replicated", "maximal", "manual", "unknown", "unreduced")

_SPACE = re.compile(r"\s*")
_TOKEN = re.compile(
    r"""(?:
      (?P<comment>/\*.*?\*/)
    | (?P<punct><=|[{}\[\](),=:?])
    | (?P<int>-?\d+)
    | (?P<word>[A-Za-z_]\w*)
    | (?P<string>'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")
    )""",
    re.VERBOSE | re.DOTALL,
)


class ShardingError(ValueError):
    """Malformed sharding, replica-group or source-target-pair text; says what and where."""


@dataclass(frozen=True, slots=True)
class Sharding:
    """One parsed `sharding=` value, in XLA's tile-assignment terms.

    Mesh/axis shardings are converted to the same terms (as XLA's `v3_to_v2_sharding` does);
    `raw` keeps the text they came from.
    """

    kind: str  # replicated | maximal | tiled | manual | unknown | unreduced | tuple
    tile_dims: tuple[int, ...] = ()  # tiled: tile-assignment dims, trailing subgroup dims included
    devices: tuple[int, ...] = ()  # tiled: device ids, row-major over tile_dims
    last_tile_dims: tuple[str, ...] = ()  # kinds of the trailing subgroup dims ("replicated", "manual", ...)
    device: int | None = None  # maximal: the one device
    elements: tuple[Sharding, ...] = ()  # tuple: one sharding per leaf
    raw: str = ""  # the sharding's text, braces included
    metadata: str = ""  # the text of `metadata={...}` inside the sharding, if any
    shard_group: str = ""  # "shard_as N" / "shard_like N", if any

    @property
    def data_tile_dims(self) -> tuple[int, ...]:
        return self.tile_dims[: len(self.tile_dims) - len(self.last_tile_dims)]

    @property
    def num_devices(self) -> int:
        """Devices the sharding names: 0 where it names none (replicated, manual, ...), the most of
        any element for a tuple."""
        if self.kind == "tiled":
            return len(self.devices)
        if self.kind == "maximal":
            return 1
        return max((e.num_devices for e in self.elements), default=0)

    def device_grid(self) -> np.ndarray:
        """Device ids laid out over `tile_dims`; one cell for maximal, empty for the rest."""
        if self.kind == "tiled":
            return np.array(self.devices, dtype=np.int64).reshape(self.tile_dims)
        if self.kind == "maximal":
            return np.array([self.device], dtype=np.int64)
        return np.zeros(0, dtype=np.int64)

    def shard_shape(self, dims: Sequence[int]) -> tuple[int, ...]:
        """Per-device dims of an array with logical `dims` (XLA pads uneven tiles, so ceil).

        Untiled kinds keep `dims`: each device holds the whole array (under manual sharding the
        HLO shape already is the per-device one).
        """
        dims = tuple(int(d) for d in dims)
        if self.kind == "tuple":
            raise ValueError("a tuple sharding has one shard shape per element; use elements[i]")
        if self.kind != "tiled":
            return dims
        tiles = self.data_tile_dims
        if len(tiles) != len(dims):
            raise ValueError(f"sharding tiles {len(tiles)} dims but the array has {len(dims)}: {list(dims)}")
        return tuple(-(-d // t) for d, t in zip(dims, tiles))

    def describe(self) -> str:
        if self.kind == "tuple":
            counts = Counter(e.describe() for e in self.elements)
            parts = ", ".join(f"{n}× {what}" for what, n in counts.items())
            return f"tuple of {len(self.elements)}" + (f": {parts}" if parts else "")
        if self.kind == "maximal":
            text = f"on device {self.device}"
        elif self.kind == "tiled":
            data = "x".join(map(str, self.data_tile_dims))
            text = f"tiled {data} over {self.num_devices} devices" if data else f"tiled over {self.num_devices} devices"
            groups = self.tile_dims[len(self.data_tile_dims):]
            text += "".join(f", {kind} x{size}" for kind, size in zip(self.last_tile_dims, groups))
        else:
            text = self.kind
        return f"{text}, {self.shard_group}" if self.shard_group else text


def iota_devices(dims: Sequence[int], reshape_dims: Sequence[int], perm: Sequence[int] | None = None) -> np.ndarray:
    """XLA's iota tile assignment `[dims]<=[reshape_dims]T(perm)`."""
    dims, reshape_dims = [int(d) for d in dims], [int(d) for d in reshape_dims]
    perm = list(range(len(reshape_dims))) if perm is None else [int(p) for p in perm]
    if sorted(perm) != list(range(len(reshape_dims))):
        raise ShardingError(f"T{tuple(perm)} is not a permutation of the {len(reshape_dims)} iota dims {reshape_dims}")
    if any(d < 1 for d in dims + reshape_dims):
        raise ShardingError(f"dims must be positive: {dims} <= {reshape_dims}")
    if math.prod(dims) != math.prod(reshape_dims):
        raise ShardingError(f"iota dims {reshape_dims} do not fill tile dims {dims}")
    return np.arange(math.prod(reshape_dims), dtype=np.int64).reshape(reshape_dims).transpose(perm).reshape(dims)


def parse_sharding(text: str) -> Sharding:
    """Parse a `sharding=` value, e.g. `{devices=[2,1,4]<=[8] last_tile_dim_replicate}`."""
    body, shift = text.strip(), len(text) - len(text.lstrip())
    if not body:
        raise ShardingError("empty sharding text")
    if not body.startswith("{"):
        body, shift = "{" + body + "}", shift - 1
    cur = _Cursor(body, text, shift)
    try:
        sharding = _sharding(cur)
    except RecursionError:  # tuple shardings nest as their shapes do: a few levels, not a thousand
        raise ShardingError("sharding nested too deeply to read") from None
    cur.expect_end()
    return sharding


def parse_replica_groups(text: str) -> list[list[int]]:
    """Explicit groups from `{{0,1},{2,3}}`, `[2,4]<=[8]`, `[4,2]<=[2,4]T(1,0)` or `mesh[...] {axes}`."""
    cur = _Cursor(text.strip(), text, len(text) - len(text.lstrip()))
    if cur.peek() == "{":
        groups = _int_list_list(cur)
    elif cur.peek() == "[":
        shape = _int_list(cur, "[", "]")
        if len(shape) != 2:
            raise cur.error(f"iota replica groups need [groups,size], got {shape}")
        groups = _iota_tail(cur, shape).tolist()
    elif cur.peek() == "mesh":
        groups = _mesh_groups(cur)
    else:
        raise cur.error("expected '{', '[' or 'mesh' to start replica groups")
    cur.expect_end()
    return groups


def parse_source_target_pairs(text: str) -> list[tuple[int, int]]:
    """`{{0,1},{1,2}}` -> [(0, 1), (1, 2)]."""
    cur = _Cursor(text.strip(), text, len(text) - len(text.lstrip()))
    pairs = _int_list_list(cur)
    cur.expect_end()
    for pair in pairs:
        if len(pair) != 2:
            raise cur.error(f"a source-target pair has two devices, got {pair}")
    return [(a, b) for a, b in pairs]


class _Cursor:
    """Tokens of one attribute value, with errors that point into the caller's text."""

    def __init__(self, body: str, original: str, shift: int = 0):
        self.body, self.original, self.shift = body, original, shift
        self.tokens: list[tuple[str, str, int, int]] = []  # (kind, text, start, end)
        self.at = 0
        pos = _SPACE.match(body).end()
        while pos < len(body):
            m = _TOKEN.match(body, pos)
            if m is None:
                raise ShardingError(self._where(f"unexpected character {body[pos]!r}", pos))
            if m.lastgroup != "comment":
                self.tokens.append((m.lastgroup, m.group(), pos, m.end()))
            pos = _SPACE.match(body, m.end()).end()

    def _where(self, problem: str, pos: int) -> str:
        shown = self.original if len(self.original) <= 120 else self.original[:117] + "..."
        return f"{problem} at column {max(pos + self.shift, 0) + 1} of {shown!r}"

    def error(self, problem: str) -> ShardingError:
        return ShardingError(self._where(problem, self.start()))

    def start(self) -> int:
        """Where the next token begins in the text."""
        return self.tokens[self.at][2] if self.at < len(self.tokens) else len(self.body)

    def end(self) -> int:
        """Where the last consumed token ends."""
        return self.tokens[self.at - 1][3]

    def peek(self, ahead: int = 0) -> str:
        i = self.at + ahead
        return self.tokens[i][1] if i < len(self.tokens) else ""

    def kind(self) -> str:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def next(self) -> str:
        if self.at >= len(self.tokens):
            raise self.error("unexpected end")
        self.at += 1
        return self.tokens[self.at - 1][1]

    def eat(self, token: str) -> bool:
        if self.peek() == token and self.kind() in ("punct", "word"):
            self.at += 1
            return True
        return False

    def expect(self, token: str) -> None:
        if not self.eat(token):
            raise self.error(f"expected {token!r}, got {self.peek()!r}" if self.peek() else f"expected {token!r} before the end")

    def expect_end(self) -> None:
        if self.at < len(self.tokens):
            raise self.error(f"unexpected {self.peek()!r} after the end")

    def int(self) -> int:
        if self.kind() != "int":
            raise self.error(f"expected an integer, got {self.peek()!r}" if self.peek() else "expected an integer before the end")
        return int(self.next())

    def raw_braced(self) -> str:
        """The source text of one balanced `{...}`, strings and all (metadata is kept as text)."""
        start = self.start()
        self.expect("{")
        depth = 1
        while depth:
            kind, token = self.kind(), self.next()
            if kind == "punct":
                depth += {"{": 1, "}": -1}.get(token, 0)
        return self.body[start: self.end()]


def _int_list(cur: _Cursor, open_: str, close: str) -> list[int]:
    cur.expect(open_)
    values = []
    if not cur.eat(close):
        values.append(cur.int())
        while cur.eat(","):
            values.append(cur.int())
        cur.expect(close)
    return values


def _int_list_list(cur: _Cursor) -> list[list[int]]:
    cur.expect("{")
    lists = []
    if not cur.eat("}"):
        lists.append(_int_list(cur, "{", "}"))
        while cur.eat(","):
            lists.append(_int_list(cur, "{", "}"))
        cur.expect("}")
    return lists


def _iota_tail(cur: _Cursor, dims: list[int]) -> np.ndarray:
    """`<=[reshape]T(perm)` after the tile dims."""
    cur.expect("<=")
    reshape = _int_list(cur, "[", "]")
    perm = _int_list(cur, "(", ")") if cur.eat("T") else None
    try:
        return iota_devices(dims, reshape, perm)
    except ShardingError as e:
        raise cur.error(str(e)) from None


def _sharding(cur: _Cursor) -> Sharding:
    start = cur.start()
    cur.expect("{")
    if cur.peek() in ("{", "}"):
        elements = []
        if cur.peek() == "{":
            elements.append(_sharding(cur))
            while cur.eat(","):
                elements.append(_sharding(cur))
        cur.expect("}")
        return Sharding("tuple", elements=tuple(elements), raw=cur.body[start: cur.end()])
    if cur.peek() == "mesh":
        fields = _mesh_sharding(cur)
    elif cur.peek() == "maximal_mesh":
        fields = _maximal_mesh(cur)
    else:
        fields = _tile_sharding(cur)
    cur.expect("}")
    return Sharding(**fields, raw=cur.body[start: cur.end()])


def _tile_sharding(cur: _Cursor) -> dict:
    """The body of a `{devices=[...]... last_tile_dims={...} metadata={...}}`-style sharding."""
    kind, device, dims, devices, subgroups = None, None, None, None, []
    replicate_last, metadata, shard_group = False, "", ""
    while cur.peek() not in ("}", ""):
        word = cur.next()
        if word in _KIND_WORDS:
            if kind not in (None, word):
                raise cur.error(f"sharding is both {kind} and {word}")
            kind = word
        elif word == "last_tile_dim_replicate":
            replicate_last = True
        elif word in ("shard_as", "shard_like"):
            shard_group = f"{word} {cur.int()}"
        elif word in ("device", "devices", "metadata", "last_tile_dims") and cur.eat("="):
            if word == "device":
                device = cur.int()
            elif word == "devices":
                dims = _int_list(cur, "[", "]")
                if cur.peek() == "<=":
                    devices = _iota_tail(cur, dims).ravel()
                else:
                    ids = [cur.int()]
                    while cur.eat(","):
                        ids.append(cur.int())
                    devices = np.array(ids, dtype=np.int64)
            elif word == "metadata":
                metadata = cur.raw_braced()
            else:
                cur.expect("{")
                subgroups = []
                while not cur.eat("}"):
                    if subgroups:
                        cur.expect(",")
                    if cur.peek() not in _SUBGROUP_ORDER:
                        raise cur.error(f"unknown subgroup kind {cur.peek()!r}")
                    subgroups.append(cur.next())
        else:
            cur.at -= 1
            raise cur.error(f"unexpected {word!r} in sharding")
    extras = {"metadata": metadata, "shard_group": shard_group}
    if kind == "maximal":
        if device is None or dims is not None:
            raise cur.error("a maximal sharding needs exactly one device=N")
        return {"kind": "maximal", "device": device, **extras}
    if device is not None:
        raise cur.error("device=N belongs to a maximal sharding")
    if kind is not None:
        if dims is not None or subgroups or replicate_last:
            raise cur.error(f"a {kind} sharding has no devices=")
        return {"kind": kind, **extras}
    if dims is None:
        raise cur.error("expected devices=[...] or one of " + ", ".join(_KIND_WORDS))
    if replicate_last and subgroups:
        raise cur.error("last_tile_dim_replicate and last_tile_dims= together")
    if replicate_last:
        subgroups = ["replicated"]
    if len(subgroups) > len(dims):
        raise cur.error(f"{len(subgroups)} subgroup kinds for {len(dims)} tile dims")
    return _tiled(cur, dims, devices, subgroups, extras)


def _tiled(cur: _Cursor, dims: list[int], devices: np.ndarray, kinds: list[str], extras: dict) -> dict:
    """Validate a tile assignment and canonicalise it as XLA does.

    XLA sorts subgroup dims by kind, merges dims of one kind, drops size-1 ones, sorts the
    devices of each replication group (their order carries no meaning), and calls a sharding
    whose data is not split and whose devices form one subgroup kind by that kind.
    """
    if any(d < 1 for d in dims):
        raise cur.error(f"tile dims must be positive: {dims}")
    if devices.size != math.prod(dims):
        raise cur.error(f"tile dims {dims} need {math.prod(dims)} devices, got {devices.size}")
    if devices.size < 2:
        raise cur.error("a tiled sharding needs more than one device")
    if (devices < 0).any():
        raise cur.error(f"negative device id {int(devices.min())}")
    rank = len(dims) - len(kinds)
    order = sorted(range(len(kinds)), key=lambda i: _SUBGROUP_ORDER.index(kinds[i]))
    grid = devices.reshape(dims).transpose(list(range(rank)) + [rank + i for i in order])
    merged_kinds, merged_sizes = [], []
    for i in order:
        size = dims[rank + i]
        if size == 1:
            continue
        if merged_kinds and merged_kinds[-1] == kinds[i]:
            merged_sizes[-1] *= size
        else:
            merged_kinds.append(kinds[i])
            merged_sizes.append(size)
    data = dims[:rank]
    if math.prod(data) == 1 and len(merged_kinds) == 1 and merged_kinds[0] in _WHOLE_KINDS:
        return {"kind": merged_kinds[0], **extras}
    tile_dims = tuple(data + merged_sizes)
    grid = grid.reshape(tile_dims)
    if merged_kinds[-1:] == ["replicated"]:
        grid = np.sort(grid, axis=-1)
    return {
        "kind": "tiled",
        "tile_dims": tile_dims,
        "devices": tuple(int(d) for d in grid.ravel()),
        "last_tile_dims": tuple(merged_kinds),
        **extras,
    }


def _maximal_mesh(cur: _Cursor) -> dict:
    """Newer XLA's `maximal_mesh[device_id=0]`: all of the value on one device."""
    cur.expect("maximal_mesh")
    cur.expect("[")
    cur.expect("device_id")
    cur.expect("=")
    device = cur.int()
    cur.expect("]")
    metadata = ""
    if cur.eat("metadata"):
        cur.expect("=")
        metadata = cur.raw_braced()
    return {"kind": "maximal", "device": device, "metadata": metadata, "shard_group": ""}


class _Mesh:
    """A named device mesh, `mesh['x'=2,'y'=4]` with optional `, device_ids=(...)`."""

    def __init__(self, cur: _Cursor):
        cur.expect("mesh")
        cur.expect("[")
        self.names: list[str] = []
        self.sizes: list[int] = []
        while not cur.eat("]"):
            if self.names:
                cur.expect(",")
            if cur.kind() != "string":
                raise cur.error(f"expected a quoted mesh axis name, got {cur.peek()!r}")
            name = cur.next()[1:-1]
            if name in self.names:
                raise cur.error(f"mesh axis {name!r} appears twice")
            cur.expect("=")
            size = cur.int()
            if size < 1:
                raise cur.error(f"mesh axis {name!r} has size {size}")
            self.names.append(name)
            self.sizes.append(size)
        count = math.prod(self.sizes)
        self.devices = np.arange(count, dtype=np.int64)
        if cur.peek() == "," and cur.peek(1) == "device_ids":
            cur.at += 2
            cur.expect("=")
            cur.expect("(")
            if cur.peek() == "[":
                reshape = _int_list(cur, "[", "]")
                perm = _int_list(cur, "(", ")") if cur.eat("T") else None
                try:
                    self.devices = iota_devices([count], reshape, perm)
                except ShardingError as e:
                    raise cur.error(str(e)) from None
            else:
                ids = [cur.int()]
                while cur.eat(","):
                    ids.append(cur.int())
                if sorted(ids) != list(range(count)):
                    raise cur.error(f"mesh device_ids must be a permutation of 0..{count - 1}")
                self.devices = np.array(ids, dtype=np.int64)
            cur.expect(")")

    def axis_ref(self, cur: _Cursor) -> tuple[int, int, int]:
        """`'x'` or sub-axis `'x':(pre)size` -> (mesh axis, pre-size, size)."""
        if cur.kind() != "string":
            raise cur.error(f"expected a quoted mesh axis name, got {cur.peek()!r}")
        name = cur.next()[1:-1]
        if name not in self.names:
            raise cur.error(f"axis {name!r} is not in the mesh {self.names}")
        axis = self.names.index(name)
        full = self.sizes[axis]
        if not cur.eat(":"):
            return axis, 1, full
        cur.expect("(")
        pre = cur.int()
        cur.expect(")")
        size = cur.int()
        if pre < 1 or size < 1 or full % (pre * size):
            raise cur.error(f"sub-axis {name!r}:({pre}){size} does not divide the axis of size {full}")
        return axis, pre, size

    def axis_set(self, cur: _Cursor) -> list[tuple[int, int, int]]:
        """`{'x', 'y':(1)2}`; a trailing `?` (an open dimension) is allowed and ignored."""
        cur.expect("{")
        refs, items = [], 0
        while not cur.eat("}"):
            if items:
                cur.expect(",")
            items += 1
            if not cur.eat("?"):
                refs.append(self.axis_ref(cur))
        return refs

    def pieces(self, refs: list[tuple[int, int, int]], cur: _Cursor) -> list[tuple[int, int, int]]:
        """Split each mesh axis at the sub-axis boundaries `refs` use; major pieces first."""
        pieces = []
        for axis, full in enumerate(self.sizes):
            cuts = sorted({1, full} | {c for a, pre, size in refs if a == axis for c in (pre, pre * size)})
            if any(b % a for a, b in zip(cuts, cuts[1:])):
                raise cur.error(f"sub-axes of {self.names[axis]!r} do not nest")
            pieces += [(axis, a, b // a) for a, b in zip(cuts, cuts[1:])]
        for ref in refs:
            if ref not in pieces:
                raise cur.error(f"sub-axes of {self.names[ref[0]]!r} overlap")
        if len(set(refs)) != len(refs):
            raise cur.error("a mesh axis is used twice")
        return pieces

    def arrange(self, pieces: list[tuple[int, int, int]], first: list[tuple[int, int, int]], last: list[tuple[int, int, int]]) -> np.ndarray:
        """Mesh devices over `pieces`, transposed to `first`, the unnamed pieces, then `last`."""
        rest = [p for p in pieces if p not in first and p not in last]
        perm = [pieces.index(p) for p in first + rest + last]
        return self.devices.reshape([size for _, _, size in pieces]).transpose(perm).ravel()


def _mesh_sharding(cur: _Cursor) -> dict:
    """`{mesh[...], [{'x'}, {}], replicated={...}, unreduced={...}, manual={...}}` in tile terms."""
    mesh = _Mesh(cur)
    cur.expect(",")
    dim_refs: list[list[tuple[int, int, int]]] = []
    groups: dict[str, list[tuple[int, int, int]]] = {"manual": [], "unreduced": [], "replicated": []}
    metadata, kind = "", None
    if cur.peek() in ("replicated", "manual", "unreduced"):
        kind = cur.next()
    else:
        cur.expect("[")
        while not cur.eat("]"):
            if dim_refs:
                cur.expect(",")
            dim_refs.append(mesh.axis_set(cur))
    while cur.eat(","):
        word = cur.next()
        cur.expect("=")
        if word == "metadata":
            metadata = cur.raw_braced()
        elif word in groups:
            groups[word] = mesh.axis_set(cur)
        else:
            cur.at -= 2
            raise cur.error(f"unexpected {word!r} in mesh sharding")
    extras = {"metadata": metadata, "shard_group": ""}
    if kind is not None:
        return {"kind": kind, **extras}
    named = [ref for refs in dim_refs for ref in refs] + groups["manual"] + groups["unreduced"]
    pieces = mesh.pieces(named + groups["replicated"], cur)
    if len(mesh.devices) == 1:
        return {"kind": "replicated", **extras}
    devices = mesh.arrange(pieces, named, [])
    spare = math.prod(piece[2] for piece in pieces if piece not in named)
    dims = [math.prod(r[2] for r in refs) for refs in dim_refs]
    dims += [math.prod(r[2] for r in groups["manual"]), math.prod(r[2] for r in groups["unreduced"]), spare]
    return _tiled(cur, dims, devices, ["manual", "unreduced", "replicated"], extras)


def _mesh_groups(cur: _Cursor) -> list[list[int]]:
    """`mesh[...] {axes}`: each group is the devices that differ only along `axes`."""
    mesh = _Mesh(cur)
    refs = mesh.axis_set(cur)
    pieces = mesh.pieces(refs, cur)
    # A group lists its devices with the first listed axis major: XLA 0.11 prints the groups of
    # `mesh['a'=2,'b'=2,'c'=2] {'c','a'}` in its legacy form as {0,4,1,5},{2,6,3,7}.
    size = math.prod(ref[2] for ref in refs)
    return mesh.arrange(pieces, [], list(refs)).reshape(-1, size).tolist()
