"""XLA's live ranges, rebuilt from a scheduled module's text.

XLA decides which values exist, which must share a buffer and how long each lives in three
analyses: HloDataflowAnalysis (SSA form, bitcasts define nothing), HloAliasAnalysis (while
loops, conditionals, in-place ops and donated parameters put values in one buffer) and
HloLiveRange (the schedule flattened across while/conditional/call/async computations, each
value live from its definition to its last use or position). This module follows the same
rules so that, from the HLO text alone, every value gets the range XLA's `-live-range.txt`
prints for it. Sizes follow `ShapeUtil::ByteSizeOf(shape, 8)`, the size XLA's file reports.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tui.model import hlo_attrs
from tui.model.categories import async_part
from tui.model.hlo import HloComputation, HloInstruction, HloModule
from tui.model.shapes import ELEMENT_BITS, Shape

POINTER_BYTES = 8

Index = tuple[int, ...]
Position = tuple[HloInstruction, Index]

# Users that read only the top-level value of their operand (nested values pass through).
_TOP_LEVEL_USERS = frozenset(("get-tuple-element", "copy"))
_PASS_THROUGH_USERS = frozenset(("domain", "tuple"))
HANDS_ON = frozenset(("bitcast", "add-dependency", "domain", "opt-barrier", "optimization-barrier"))  # their operand's values
_FEW_OPERANDS = 16  # an instruction with more has its operands' places mapped (see _operand_slots)
_IO_ALIAS = re.compile(r"\{([\d,\s]*)\}:\s*\((\d+),\s*\{([\d,\s]*)\}")


@dataclass(frozen=True)
class LiveValue:
    """One HloValue: defined by `instruction` at `index`, live over [start, end] (inclusive)."""

    instruction: HloInstruction
    index: Index
    start: int
    end: int
    is_phi: bool = False
    buffer: int = -1  # the HloAliasAnalysis buffer it shares with the values of the same number; -1: not known

    @property
    def name(self) -> str:
        """The name XLA's live-range file prints: `dot.1{}`, `tuple.2{0}`."""
        return f"{self.instruction.name}{{{','.join(map(str, self.index))}}}"

    @property
    def shape(self) -> Shape:
        return subshape(self.instruction.shape, self.index)


@dataclass
class LiveRanges:
    """HloLiveRange's result: the flattened program order and every value's range in it."""

    sequence: list[HloInstruction]  # program order, called computations inlined
    values: list[LiveValue]

    @property
    def end_time(self) -> int:
        """The schedule's end: live-out values and read-only parameters end here."""
        return len(self.sequence)


def subshape(shape: Shape, index: Index) -> Shape:
    for i in index:
        shape = shape.tuple_shapes[i]
    return shape


def xla_byte_size(shape: Shape) -> int:
    """`ShapeUtil::ByteSizeOf(shape, 8)`: a tuple is its pointer table; arrays ignore tiling."""
    if shape.tuple_shapes is not None:
        return POINTER_BYTES * len(shape.tuple_shapes)
    if shape.dtype == "token":
        return 0
    if shape.dtype == "opaque":
        return POINTER_BYTES
    count = shape.element_count
    if shape.layout is not None and shape.layout.element_size_bits:
        return (count * shape.layout.element_size_bits + 7) // 8
    return count * ((ELEMENT_BITS[shape.dtype] + 7) // 8)


_INDICES: dict[int, tuple[Shape, list[tuple[Index, Shape]]]] = {}


def shape_indices(shape: Shape) -> list[tuple[Index, Shape]]:
    """Every subshape with its index, the whole shape first (XLA's ShapeTree order)."""
    cached = _INDICES.get(id(shape))
    if cached is not None and cached[0] is shape:
        return cached[1]
    out: list[tuple[Index, Shape]] = []

    def walk(index: Index, sub: Shape) -> None:
        out.append((index, sub))
        for i, element in enumerate(sub.tuple_shapes or ()):
            walk((*index, i), element)

    walk((), shape)
    _INDICES[id(shape)] = (shape, out)
    return out


def compute_live_ranges(module: HloModule) -> LiveRanges:
    """Every value's live range in a scheduled module, by XLA's rules (module-scoped)."""
    return _LiveRangeBuilder(module).run()


class _LiveRangeBuilder:
    def __init__(self, module: HloModule):
        self.module = module
        self.sets: dict[HloInstruction, dict[Index, int]] = {}
        self.defs: list[Position] = []  # value id -> defining position
        self.phis: dict[int, list[Position]] = {}  # phi id -> input positions
        self.time: dict[HloInstruction, int] = {}
        self.span: dict[HloComputation, tuple[int, int]] = {}
        self.sequence: list[HloInstruction] = []
        self.callers: dict[HloComputation, HloInstruction] = {}  # control-flow callee -> caller
        self.pairs: dict[HloInstruction, list] = {}
        self.slots: dict[HloInstruction, dict[HloInstruction, list[int]]] = {}  # see _operand_slots
        self.readers: dict[HloInstruction, tuple[list, list, set]] = {}  # see _readers

    # -- dataflow -------------------------------------------------------------------------
    def run(self) -> LiveRanges:
        entry = self.module.entry
        self._flow(entry)
        final = self._optimize_phis()
        positions = self._positions(final)
        self._flatten(entry)
        uses = {vid: self._uses(vid, places) for vid, places in positions.items()}
        values = self._ranges(positions, uses)
        buffers = self._buffers(positions, uses, final)
        self._normalize(values, buffers)
        buffer_of = {vid: number for number, group in enumerate(buffers) for vid in group}
        live = [LiveValue(ins, index, start, end, vid in self.phis, buffer_of.get(vid, -1))
                for vid, (ins, index, start, end) in values.items()]
        return LiveRanges(self.sequence, live)

    def _new(self, ins: HloInstruction, index: Index) -> int:
        self.defs.append((ins, index))
        return len(self.defs) - 1

    def _phi(self, ins: HloInstruction, index: Index, inputs: list[Position]) -> int:
        vid = self._new(ins, index)
        self.phis[vid] = inputs
        return vid

    def _flow(self, comp: HloComputation) -> None:
        """Value sets of a control-flow computation, callees first where operands flow into them."""
        for ins in comp.instructions:
            op = ins.opcode
            if op == "while":
                body, cond = self._called(ins, "body"), self._called(ins, "condition")
                for callee in (cond, body):
                    self.callers[callee] = ins
                    param = callee.parameters[0]
                    if param is body.root:
                        self.sets[param] = dict(self.sets[ins.operands[0]])
                    else:
                        self.sets[param] = {
                            index: self._phi(param, index, [(ins.operands[0], index), (body.root, index)])
                            for index, _ in shape_indices(param.shape)}
                    self._flow(callee)
                self.sets[ins] = {index: self._phi(ins, index, [(body.root, index), (ins.operands[0], index)])
                                  for index, _ in shape_indices(ins.shape)}
            elif op == "conditional":
                branches = self._branches(ins)
                for j, branch in enumerate(branches):
                    self.callers[branch] = ins
                    self._bind_params(branch, [ins.operands[j + 1]])
                    self._flow(branch)
                if len(branches) > 1:
                    self.sets[ins] = {index: self._phi(ins, index, [(b.root, index) for b in branches])
                                      for index, _ in shape_indices(ins.shape)}
                else:
                    self.sets[ins] = dict(self.sets[branches[0].root])
            elif op == "call":
                callee = self._called(ins, "to_apply")
                self.callers[callee] = ins
                self._bind_params(callee, ins.operands)
                self._flow(callee)
                self.sets[ins] = dict(self.sets[callee.root])
            elif async_part(op):
                self._flow_async(ins)
            elif op != "parameter" or ins not in self.sets:
                self.sets[ins] = self._instruction_set(ins)

    def _bind_params(self, comp: HloComputation, operands: list[HloInstruction]) -> None:
        for param in comp.parameters:
            self.sets[param] = dict(self.sets[operands[param.parameter_number]])

    def _flow_async(self, ins: HloInstruction) -> None:
        """An async op's values; a sugared one (`fusion-start`) calls the wrapped op's own
        computations, not a wrapper, so its result is its own new value."""
        op = async_part(ins.opcode)
        wrapped = next(iter(ins.called_computations), None) if op == ins.opcode else None
        if op == "async-start" and wrapped is not None:
            self.callers[wrapped] = ins
            self._bind_params(wrapped, ins.operands)
            self._flow(wrapped)
        out: dict[Index, int] = {}
        for index, sub in shape_indices(ins.shape):
            if sub.is_tuple or (op == "async-start" and index[0] > 1):
                out[index] = self._new(ins, index)
            elif op == "async-start" and index[0] == 0:
                out[index] = self.sets[ins.operands[index[1]]][index[2:]]
            elif op == "async-start":
                out[index] = self.sets[wrapped.root][index[1:]] if wrapped else self._new(ins, index)
            elif op == "async-update":
                out[index] = self.sets[ins.operands[0]][index]
            else:
                out[index] = self.sets[ins.operands[0]][(1, *index)]
        self.sets[ins] = out

    def _instruction_set(self, ins: HloInstruction) -> dict[Index, int]:
        """Which values an ordinary instruction defines and which flow in from its operands."""
        op = ins.opcode
        operands = ins.operands
        indices = shape_indices(ins.shape)
        if op in HANDS_ON:
            return dict(self.sets[operands[0]])
        if op == "get-tuple-element":
            k = int(ins.attr("index"))
            source = self.sets[operands[0]]
            return {index: source[(k, *index)] for index, _ in indices}
        if op == "tuple":
            out = {(): self._new(ins, ())}
            for i, operand in enumerate(operands):
                for index, vid in self.sets[operand].items():
                    out[(i, *index)] = vid
            return out
        if op == "copy":
            source = self.sets[operands[0]]
            return {index: self._new(ins, index) if not index else source[index] for index, _ in indices}
        if op == "copy-start":
            return {index: self.sets[operands[0]][()] if index == (1,) else self._new(ins, index)
                    for index, _ in indices}
        if op == "copy-done":
            return {(): self.sets[operands[0]][(0,)]}
        if op == "all-reduce-done":
            return dict(self.sets[operands[0]])
        if op in ("all-gather-start", "collective-permute-start", "send", "recv-done",
                  "all-gather-done", "collective-permute-done"):
            return self._collective_set(ins, indices)
        return {index: self._new(ins, index) for index, _ in indices}

    def _collective_set(self, ins: HloInstruction, indices) -> dict[Index, int]:
        op, operands = ins.opcode, ins.operands
        source = self.sets[operands[0]]
        out: dict[Index, int] = {}
        for index, sub in indices:
            forwarded = None
            if op == "all-gather-start" and not sub.is_tuple and index[0] == 0:
                forwarded = self.sets[operands[index[1] if len(operands) > 1 else 0]][()]
            elif op == "collective-permute-start" and index[:1] == (0,) and not sub.is_tuple:
                if len(operands) > 1 and len(operands) != 4:
                    forwarded = self.sets[operands[index[1]]][()]
                else:
                    forwarded = source[index[1:]]
            elif op == "send" and index[:1] == (0,):
                forwarded = source[index[1:]]
            elif op == "recv-done" and index[:1] == (0,):
                forwarded = source[index]
            elif op in ("all-gather-done", "collective-permute-done") and not sub.is_tuple:
                forwarded = source[(1, *index)]
            out[index] = self._new(ins, index) if forwarded is None else forwarded
        return out

    def _called(self, ins: HloInstruction, key: str) -> HloComputation:
        return self.module.computation(hlo_attrs.parse_name_list(ins.attr(key))[0])

    def _branches(self, ins: HloInstruction) -> list[HloComputation]:
        if ins.attr("branch_computations"):
            return [self.module.computation(n) for n in hlo_attrs.parse_name_list(ins.attr("branch_computations"))]
        return [self._called(ins, "true_computation"), self._called(ins, "false_computation")]

    def _optimize_phis(self) -> dict[int, int]:
        """XLA's phi-graph optimization (PhiGraph::Optimize), repeated until nothing changes: a
        phi whose inputs are all one value (a phi of its own included: a loop's output that an
        outer loop passes through unchanged) or itself is that value; a phi that, through the
        phis feeding it, can only ever hold one real value is that value."""
        operands = {vid: [self.sets[ins][index] for ins, index in inputs] for vid, inputs in self.phis.items()}
        final: dict[int, int] = {}

        def resolved(vid: int) -> int:
            while vid in final:
                vid = final[vid]
            return vid

        changed = True
        while changed:
            changed = False
            for phi in operands:
                if phi in final:
                    continue
                inputs = {resolved(vid) for vid in operands[phi]} - {phi}
                if len(inputs) == 1:
                    final[phi], changed = inputs.pop(), True
                    continue
                seen, stack, reals = {phi}, [phi], set()
                while stack and len(reals) < 2:
                    for vid in map(resolved, operands[stack.pop()]):
                        if vid not in self.phis:
                            reals.add(vid)
                        elif vid not in seen:
                            seen.add(vid)
                            stack.append(vid)
                if len(reals) == 1:
                    final[phi], changed = reals.pop(), True
        return {phi: resolved(phi) for phi in final}

    def _positions(self, final: dict[int, int]) -> dict[int, list[Position]]:
        """Every place each surviving value appears, its definition first."""
        positions: dict[int, list[Position]] = {}
        for vid, place in enumerate(self.defs):
            if vid not in final:
                positions[vid] = [place]
        for ins, values in self.sets.items():
            for index, vid in values.items():
                vid = final.get(vid, vid)
                values[index] = vid
                if self.defs[vid] != (ins, index):
                    positions[vid].append((ins, index))
        return positions

    # -- schedule and ranges --------------------------------------------------------------
    def _flatten(self, comp: HloComputation) -> None:
        """HloLiveRange::FlattenSchedule: called computations' instructions come before their caller."""
        if comp in self.span:
            return
        start = len(self.sequence)
        self.span[comp] = (start, start)  # visited
        for ins in comp.instructions:
            op = ins.opcode
            if op == "call":
                self._flatten(self._called(ins, "to_apply"))
            elif op == "conditional":
                for branch in self._branches(ins):
                    self._flatten(branch)
            elif op == "async-start":
                for wrapped in ins.called_computations:
                    self._flatten(wrapped)
            elif op == "while":
                self._flatten(self._called(ins, "condition"))
                self._flatten(self._called(ins, "body"))
            self.time[ins] = len(self.sequence)
            self.sequence.append(ins)
        self.span[comp] = (start, len(self.sequence))

    def _uses(self, vid: int, positions: list[Position]) -> list[tuple[HloInstruction, int, Index]]:
        """HloValue::GetUses: instructions that read the value (tuples and GTEs only pass it on,
        and GTEs and copies read only a whole value, not an element of a tuple), and roots."""
        roots = [ins for ins, _ in positions if ins.computation.root is ins]
        uses = []
        for ins, index in positions:
            whole, any_index, users = self._readers(ins)
            readers = any_index if index else whole
            for user in readers:
                uses += [(user, k, index) for k in self._operand_slots(user, ins)]
            for root in roots:  # a root passing the value on uses it too
                if root in users and root not in readers:
                    uses += [(root, k, index) for k in self._operand_slots(root, ins)]
        return uses

    def _readers(self, ins: HloInstruction) -> tuple[list, list, set]:
        """`ins`'s users that read a value it defines whole, those that read any of its values
        (a tuple of N elements read by N GTEs: each element's would scan all N), and all of them."""
        found = self.readers.get(ins)
        if found is None:
            whole = [u for u in ins.users if u.opcode in _TOP_LEVEL_USERS or u.opcode not in _PASS_THROUGH_USERS]
            any_index = [u for u in whole if u.opcode not in _TOP_LEVEL_USERS]
            found = self.readers[ins] = (whole, any_index, set(ins.users))
        return found

    def _operand_slots(self, user: HloInstruction, operand: HloInstruction) -> list[int]:
        """Where `operand` is among `user`'s operands: a scan of a few, else a lookup in a map of
        them made once (a tuple of 20k operands, each scanning them all, took 18 s)."""
        if len(user.operands) <= _FEW_OPERANDS:
            return [k for k, other in enumerate(user.operands) if other is operand]
        slots = self.slots.get(user)
        if slots is None:
            slots = self.slots[user] = {}
            for k, other in enumerate(user.operands):
                slots.setdefault(other, []).append(k)
        return slots.get(operand, [])

    def _ranges(self, positions, uses) -> dict[int, list]:
        """HloLiveRange::CalculateBufferStartEndMap for every value defined in program order."""
        module, entry, time, span = self.module, self.module.entry, self.time, self.span
        aliased = _aliased_parameters(module)
        end_time = len(self.sequence)
        out: dict[int, list] = {}
        for vid, places in positions.items():
            ins, index = places[0]
            if ins not in time:
                continue
            comp = ins.computation
            start = span[comp][0] if ins.opcode == "parameter" else time[ins]
            end = span[comp][1] if comp.root is ins else time[ins]
            caller = self.callers.get(comp)
            if caller is not None and caller.opcode == "async-start":
                # Inside an async computation a value lives until the async-done (from its own time, as in XLA).
                done = _async_done(caller)
                end = max(end, time[done] if done in time else span[comp][1])
            elif index[:1] == (1,) and ins.opcode != "async-start" and async_part(ins.opcode) == "async-start":
                done = _async_done(ins)  # a sugared start's result: the wrapped op's, as above
                end = max(end, time[done] if done in time else span[comp][1])
            for other, _ in places[1:]:
                if other.computation.root is other and other.computation in span:
                    end = max(end, span[other.computation][1])
                elif other in time:
                    end = max(end, time[other])
            if ins.opcode == "parameter" and comp is entry and (ins.parameter_number, index) not in aliased:
                end = end_time
            else:
                for user, _, _ in uses[vid]:
                    if user.opcode == "call" and self._called(user, "to_apply") in span:
                        continue
                    if user.opcode == "while" and self._called(user, "body") in span:
                        user = self._called(user, "body").parameters[0]
                    if user in time:
                        end = max(end, time[user])
            out[vid] = [ins, index, start, end]
        return out

    # -- buffers --------------------------------------------------------------------------
    def _buffers(self, positions, uses, final) -> list[list[int]]:
        """HloAliasAnalysis: values that must share one buffer, as groups of value ids."""
        parent = {vid: vid for vid in positions}

        def find(v: int) -> int:
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        def union(a: int, b: int) -> None:
            parent[find(a)] = find(b)

        def at(ins: HloInstruction, index: Index) -> int:
            return self.sets[ins][index]

        entry = self.module.entry
        outputs = output_aliases(self.module)
        params = {p.parameter_number: p for p in entry.parameters}
        for vid, places in positions.items():
            for ins, index in places:
                comp = ins.computation
                if ins is entry.root and index in outputs:
                    number, param_index = outputs[index]
                    if number in params:
                        union(vid, at(params[number], param_index))
                caller = self.callers.get(comp)
                if caller is not None and comp.root is ins and caller.opcode in ("while", "conditional"):
                    if caller.opcode == "conditional" or self._called(caller, "body") is comp:
                        union(vid, at(caller, index))
                for (number, operand_index), out_index in self._pairs(ins):
                    if out_index == index:
                        union(vid, at(ins.operands[number], operand_index))
            definer, index = places[0]
            caller = self.callers.get(definer.computation)
            if definer.opcode == "parameter" and caller is not None and caller.opcode == "while":
                union(vid, at(caller, index))
            for user, k, index in uses[vid]:
                if user.opcode == "while":
                    union(vid, at(user, index))
                for (number, operand_index), out_index in self._pairs(user):
                    if number == k and operand_index == index:
                        union(vid, at(user, out_index))
        groups: dict[int, list[int]] = {}
        for vid in positions:
            groups.setdefault(find(vid), []).append(vid)
        return [g for g in groups.values() if len(g) > 1]

    def _pairs(self, ins: HloInstruction) -> list:
        pairs = self.pairs.get(ins)
        if pairs is None:
            pairs = self.pairs[ins] = in_place_pairs(ins)
        return pairs

    @staticmethod
    def _normalize(values: dict[int, list], buffers: list[list[int]]) -> None:
        """HloLiveRange::NormalizeAliasedBuffers: values of one buffer take turns, never overlap."""
        for group in buffers:
            ranges = sorted((values[v][2], values[v][3], v) for v in group if v in values)
            for (_, _, first), (_, _, second) in zip(ranges, ranges[1:]):
                a, b = values[first], values[second]
                b[3] = max(a[3], b[3])
                a[3] = min(a[3], b[2])


def _async_done(start: HloInstruction) -> HloInstruction:
    ins = start
    while async_part(ins.opcode) != "async-done":
        follow = [u for u in ins.users if async_part(u.opcode) in ("async-update", "async-done")]
        if not follow:
            return start
        ins = follow[0]
    return ins


def _aliased_parameters(module: HloModule) -> set[tuple[int, Index]]:
    return {(number, index) for number, index in output_aliases(module).values()}


def output_aliases(module: HloModule) -> dict[Index, tuple[int, Index]]:
    """`input_output_alias={ {0}: (0, {}, may-alias) }` -> {output index: (parameter, index)}."""
    text = module.attributes.get("input_output_alias", "")

    def index(s: str) -> Index:
        return tuple(int(x) for x in s.split(",") if x.strip())

    return {index(out): (int(number), index(param)) for out, number, param in _IO_ALIAS.findall(text)}


def in_place_pairs(ins: HloInstruction) -> list[tuple[tuple[int, Index], Index]]:
    """AliasInfo::GetInPlaceInputOutputPairs: ((operand, operand index), output index) that must alias."""
    op = ins.opcode
    if op in ("dynamic-update-slice", "scatter", "all-reduce-start"):
        if op == "dynamic-update-slice":
            count = 1
        elif op == "scatter":
            count = (len(ins.operands) - 1) // 2
        else:
            count = len(ins.operands)
        if count == 1:
            return [((0, ()), ())]
        return [((i, ()), (i,)) for i in range(count)]
    if op == "collective-permute" and len(ins.operands) == 4:
        elements = ins.operands[1].shape.tuple_shapes
        if elements is None:
            return [((1, ()), ())]
        return [((1, ()), ())] + [((1, (i,)), (i,)) for i in range(len(elements))]
    if op == "collective-permute-start" and len(ins.operands) == 4:
        elements = ins.operands[1].shape.tuple_shapes
        if elements is None:
            return [((1, ()), (1,))]
        return [((1, ()), (1,))] + [((1, (i,)), (1, i)) for i in range(len(elements))]
    if op == "fusion":
        return _fusion_pairs(ins) + _declared_pairs(ins)
    if op in ("custom-call", "async-start"):
        return _declared_pairs(ins)
    if op == "set-dimension-size":
        return [((0, ()), ())]
    if op == "ragged-all-to-all":
        return [((1, ()), ())]
    return []


def _declared_pairs(ins: HloInstruction) -> list[tuple[tuple[int, Index], Index]]:
    raw = ins.attr("output_to_operand_aliasing")
    if not raw:
        return []
    return [((operand, operand_index), out) for out, operand, operand_index in hlo_attrs.parse_output_operand_aliasing(raw)]


def _fusion_pairs(fusion: HloInstruction) -> list[tuple[tuple[int, Index], Index]]:
    """In-place pairs a fusion inherits from the in-place op (DUS, scatter, ...) at its root."""
    called = fusion.called_computations
    if not called:
        return []
    root = called[0].root
    pairs = []
    for index, sub in shape_indices(fusion.shape):
        if sub.is_tuple:
            continue
        source, source_index = _follow(root, index)
        found = None
        for (number, operand_index), out_index in in_place_pairs(source):
            if out_index != source_index:
                continue
            found = _follow(source.operands[number], operand_index)
            if found[0].opcode == "fusion":
                for (inner, inner_index), inner_out in in_place_pairs(found[0]):
                    if inner_out == found[1]:
                        found = _follow(found[0].operands[inner], inner_index)
        if found is not None and found[0].opcode == "parameter":
            pairs.append(((found[0].parameter_number, found[1]), index))
    return pairs


def _follow(ins: HloInstruction, index: Index) -> tuple[HloInstruction, Index]:
    """FollowTupleIndirection, then through bitcasts: the instruction that really makes a value."""
    while ins.opcode == "tuple" and index:
        ins, index = ins.operands[index[0]], index[1:]
    while ins.opcode == "get-tuple-element":
        index = (int(ins.attr("index")), *index)
        ins = ins.operands[0]
    while not index and ins.opcode == "bitcast":
        ins = ins.operands[0]
    return ins, index
