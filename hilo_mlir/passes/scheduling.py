"""Scheduling and code-motion passes of the spine (seed 004 steps 17, 18, 20, 22, 23).

* ``schedule-postorder`` (17, ``SchedulePostorder``): reorder every block into
  the post-order of a depth-first search from the terminator's operands.
* ``analyze-schedule`` (18, ``AnalyzeSchedule``): live ranges of the values of
  the function body in the current order; the peak live bytes are stamped on
  the function as ``neuron.peak_live_bytes``.
* ``scatter-motion`` (20, ``ScatterMotion``): sink each scatter to just before
  its first user.
* ``hoist-compute`` (22, ``HoistCompute``): move the compute that depends only
  on parameters (``slowChangingIns``) or constants to the top of the function.
* ``memcast-motion`` (23, ``MemcastMotion``): sink widening converts below pure
  data movement so the movement runs on the narrow type.

Each is registered as an MHLO pass and its ``stablehlo-`` twin
(:func:`~hilo_mlir.registry.register_twins`): one implementation, op names
from the dialect table. Every pass here is linear in the number of ops of the
function: one order index per block, built once; sets and dicts for
membership; no per-op re-walks.

The shared helpers (:func:`has_side_effects`, :func:`block_inputs`,
:func:`type_bytes`, :func:`elem_bits`) are also used by the other leaf passes
of steps 16–25.

Source: seed 004 "The Ordered MHLO Pipeline" (order, gates, one-line purpose
of each pass); DESIGN.md "Pass catalogue" steps 17, 18, 20, 22, 23 (our
definition of the behaviour, since the seed only names these passes).
"""

from __future__ import annotations

from fractions import Fraction

from ..dialects import SIDE_EFFECTING_OPS, hlo_short_name
from ..ir import ir
from ..registry import register_twins

# --------------------------------------------------------------------------- shared helpers

#: Region terminators of the dialects we schedule.
TERMINATORS = frozenset({"func.return", "mhlo.return", "stablehlo.return"})

#: Op names outside mhlo/stablehlo that are known to be free of side effects.
_PURE_OTHER = frozenset({"func.return", "mhlo.return", "stablehlo.return", "func.constant"})


class EffectOracle:
    """Answers "may this op have side effects?" for one function, with a memo.

    An op is side-effecting when it is in :data:`~hilo_mlir.dialects.SIDE_EFFECTING_OPS`,
    is a ``func.call`` or an op of an unknown dialect (conservative), or holds a
    region that contains such an op. A ``stablehlo.composite`` is judged by its
    decomposition (looked up once in the module's symbol table); a composite
    whose decomposition cannot be found is treated as side-effecting.
    """

    def __init__(self, anchor_op):
        self._anchor = anchor_op
        self._funcs = None
        self._memo: dict = {}

    def _func_table(self) -> dict:
        if self._funcs is None:
            self._funcs = {}
            mod = self._anchor
            while mod is not None and mod.name != "builtin.module":
                mod = mod.parent
            if mod is not None:
                for o in mod.regions[0].blocks[0].operations:
                    o = o.operation
                    if o.name == "func.func":
                        self._funcs[o.attributes["sym_name"].value] = o
        return self._funcs

    def __call__(self, op) -> bool:
        op = op.operation
        name = op.name
        short = hlo_short_name(name)
        if short is None:
            if name.startswith("chlo.") or name in _PURE_OTHER:
                return False
            return True
        if short in SIDE_EFFECTING_OPS:
            return True
        if short == "composite":
            return self._composite(op)
        if len(op.regions) == 0:
            return False
        if op in self._memo:
            return self._memo[op]
        found = [False]

        def visit(inner):
            if inner != op and self._leaf_effect(inner):
                found[0] = True
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        op.walk(visit)
        self._memo[op] = found[0]
        return found[0]

    def _leaf_effect(self, op) -> bool:
        name = op.name
        short = hlo_short_name(name)
        if short is None:
            return not (name.startswith("chlo.") or name in _PURE_OTHER)
        if short == "composite":
            return self._composite(op)
        return short in SIDE_EFFECTING_OPS

    def _composite(self, op) -> bool:
        try:
            callee = ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value
        except (KeyError, ValueError):
            return True
        key = ("composite", callee)
        if key in self._memo:
            return self._memo[key]
        self._memo[key] = True  # recursion guard: a cycle counts as side-effecting
        f = self._func_table().get(callee)
        res = True
        if f is not None:
            found = [False]

            def visit(inner):
                if inner.name != "func.func" and self._leaf_effect(inner):
                    found[0] = True
                    return ir.WalkResult.INTERRUPT
                return ir.WalkResult.ADVANCE

            f.walk(visit)
            res = found[0]
        self._memo[key] = res
        return res


def has_side_effects(op) -> bool:
    """One-shot form of :class:`EffectOracle` (no memo across calls)."""
    return EffectOracle(op.operation)(op)


def block_inputs(op, pos: dict, block) -> list:
    """Values an op of ``block`` reads from ``block``: its operands and the values its
    nested regions capture, restricted to results of ops in ``pos`` (the block's
    order index) and arguments of ``block``. Order: operands first, then
    captures in walk order; duplicates removed.
    """
    op = op.operation
    seen = set()
    out = []

    def take(v):
        owner = v.owner
        if isinstance(owner, ir.Block):
            if owner != block:
                return
        elif owner.operation not in pos:
            return
        if v not in seen:
            seen.add(v)
            out.append(v)

    for v in op.operands:
        take(v)
    if len(op.regions):
        def visit(inner):
            if inner != op:
                for v in inner.operands:
                    take(v)
            return ir.WalkResult.ADVANCE

        op.walk(visit)
    return out


def producers_in_block(op, pos: dict, block) -> list:
    """The ops of ``block`` (in ``pos``) whose results ``op`` reads (operands + captures)."""
    out, seen = [], set()
    for v in block_inputs(op, pos, block):
        owner = v.owner
        if isinstance(owner, ir.Block):
            continue
        p = owner.operation
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out


def ancestor_in(op, pos: dict):
    """The op of the block indexed by ``pos`` that is ``op`` or contains it (None if none)."""
    op = op.operation
    while op is not None:
        if op in pos:
            return op
        parent = op.parent
        op = parent.operation if parent is not None else None
    return None


def elem_bits(t) -> int:
    """Bit width of an element type (complex: both parts; index: 64; unknown: 0)."""
    if isinstance(t, ir.IntegerType):
        return t.width
    if isinstance(t, ir.FloatType):
        return t.width
    if isinstance(t, ir.ComplexType):
        return 2 * elem_bits(t.element_type)
    if isinstance(t, ir.IndexType):
        return 64
    return 0


def type_bytes(t) -> int | None:
    """Bytes of a value of type ``t``.

    Ranked static tensor: elements x ceil(bits/8) (``i1`` is one byte, as XLA's
    PRED); tuple: the sum of its elements; token: 0. Returns None for a
    dynamic or unranked tensor (size unknown).
    """
    if isinstance(t, ir.RankedTensorType):
        if not t.has_static_shape:
            return None
        n = 1
        for s in t.shape:
            n *= s
        return n * ((elem_bits(t.element_type) + 7) // 8)
    if isinstance(t, ir.TupleType):
        total = 0
        for i in range(t.num_types):
            b = type_bytes(t.get_type(i))
            if b is None:
                return None
            total += b
        return total
    if isinstance(t, ir.ShapedType):  # unranked
        return None
    return 0


def all_blocks(func_op) -> list:
    """Every block of ``func_op``'s regions, nested ones included (walk order)."""
    blocks = []

    def visit(op):
        for r in op.regions:
            for b in r.blocks:
                blocks.append(b)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return blocks


def _block_ops(block) -> list:
    return [o.operation for o in block.operations]


# --------------------------------------------------------------------------- 17 schedule-postorder


def schedule_block_postorder(block, effects: EffectOracle) -> tuple[list, int] | None:
    """The post-order of ``block`` (terminator excluded) and how many ops change place.

    Dependencies of an op: the in-block producers of its operands and of the
    values its regions capture, in operand order, then the previous
    side-effecting op of the block (so side-effecting ops keep their relative
    order). The DFS starts from the terminator's operands, in order; ops not
    reachable from the terminator (dead pure ops, side-effecting ops after the
    last one the terminator reaches) are then used as roots in their original
    order, so they follow the reachable ones, each after its own operands.
    Returns None for a block without a known terminator.
    """
    ops = _block_ops(block)
    if not ops or ops[-1].name not in TERMINATORS:
        return None
    term = ops[-1]
    body = ops[:-1]
    pos = {o: i for i, o in enumerate(ops)}
    deps: dict = {}
    prev_effect = None
    for o in body:
        d = producers_in_block(o, pos, block)
        if effects(o):
            if prev_effect is not None and prev_effect not in d:
                d.append(prev_effect)
            prev_effect = o
        deps[o] = d
    roots = producers_in_block(term, pos, block) + body
    visited = set()
    order = []
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, iter(deps[root]))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if nxt not in visited:
                    visited.add(nxt)
                    stack.append((nxt, iter(deps[nxt])))
                    break
            else:
                stack.pop()
                order.append(node)
    changed = sum(1 for a, b in zip(order, body) if a != b)
    return order, changed


def _run_schedule_postorder(func_op, ctx):
    effects = EffectOracle(func_op)
    for block in all_blocks(func_op):
        res = schedule_block_postorder(block, effects)
        if res is None:
            ctx.debug("block without a known terminator left in place")
            continue
        order, changed = res
        ctx.stats["blocks"] += 1
        if not changed:
            continue
        term = _block_ops(block)[-1]
        for o in order:
            o.move_before(term)
        ctx.stats["ops-moved"] += changed


register_twins(
    "schedule-postorder",
    "Reorder each block into the post-order of a DFS from its terminator's operands",
    _run_schedule_postorder,
    class_name="SchedulePostorder",
    statistics=("blocks", "ops-moved"),
    source="seed 004 step 17 (gate cfg[0x130]); DESIGN.md catalogue step 17 (our interpretation)",
)


# --------------------------------------------------------------------------- 18 analyze-schedule

#: Function attribute holding the peak live bytes (i64) stamped by analyze-schedule.
PEAK_ATTR = "neuron.peak_live_bytes"


def peak_live_bytes(func_op) -> tuple[int, int, int]:
    """Peak live bytes of the function body in its current order.

    Program points are the ops of the entry block, 0..n-1 (the terminator is
    the last). A block argument is live from point 0 to its last use; an op's
    result from its op to its last use (a use inside a nested region counts at
    the enclosing op of the entry block); a result without uses is live at its
    op only; an unused argument at point 0 only. Values inside nested regions
    are transient to their op and not counted. Bytes per value:
    :func:`type_bytes`; dynamic shapes count 0.

    Returns:
        (peak bytes, index of the first op where the peak is reached, number of
        values of unknown size).
    """
    block = func_op.regions[0].blocks[0]
    ops = _block_ops(block)
    n = len(ops)
    if n == 0:
        return 0, 0, 0
    pos = {o: i for i, o in enumerate(ops)}
    delta = [0] * (n + 1)
    unknown = 0

    def last_use(v, start):
        last = start
        for u in v.uses:
            a = ancestor_in(u.owner, pos)
            if a is not None:
                i = pos[a]
                if i > last:
                    last = i
        return last

    def add(v, start):
        nonlocal unknown
        b = type_bytes(v.type)
        if b is None:
            unknown += 1
            return
        if b == 0:
            return
        end = last_use(v, start)
        delta[start] += b
        delta[end + 1] -= b

    for a in block.arguments:
        add(a, 0)
    for i, o in enumerate(ops):
        for r in o.results:
            add(r, i)
    peak, at, cur = 0, 0, 0
    for i in range(n):
        cur += delta[i]
        if cur > peak:
            peak, at = cur, i
    return peak, at, unknown


def _run_analyze_schedule(func_op, ctx):
    if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
        return  # a declaration
    peak, at, unknown = peak_live_bytes(func_op)
    with func_op.context:
        func_op.attributes[PEAK_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), peak)
    ctx.stats["functions"] += 1
    ctx.stats["peak-live-bytes"] = max(ctx.stats["peak-live-bytes"], peak)
    if unknown:
        ctx.stats["values-of-unknown-size"] += unknown
    ctx.debug(f"@{func_op.attributes['sym_name'].value}: peak live bytes {peak} at op #{at}")


register_twins(
    "analyze-schedule",
    "Live ranges in the current order; stamp peak live bytes on the function (neuron.peak_live_bytes)",
    _run_analyze_schedule,
    class_name="AnalyzeSchedule",
    statistics=("functions", "peak-live-bytes", "values-of-unknown-size"),
    source="seed 004 step 18 (gate cfg[0x134]); DESIGN.md catalogue step 18 (our interpretation)",
)


# --------------------------------------------------------------------------- 20 scatter-motion


def _run_scatter_motion(func_op, ctx):
    d = ctx.d
    by_block: dict = {}

    def visit(op):
        if d.is_op(op, "scatter"):
            by_block.setdefault(op.block, []).append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    for block, scatters in by_block.items():
        ops = _block_ops(block)
        pos = {o: i for i, o in enumerate(ops)}
        key = {o: Fraction(i) for i, o in enumerate(ops)}
        prev = {o: (ops[i - 1] if i else None) for i, o in enumerate(ops)}
        nxt = {o: (ops[i + 1] if i + 1 < len(ops) else None) for i, o in enumerate(ops)}
        # Last scatter first: a scatter whose first user is a later scatter sees
        # that scatter already at its final place.
        for s in reversed(scatters):
            users = set()
            for r in s.results:
                for u in r.uses:
                    a = ancestor_in(u.owner, pos)
                    if a is not None and a != s:
                        users.add(a)
            if not users:
                ctx.stats["no-user"] += 1
                continue
            first = min(users, key=lambda o: key[o])
            if prev[first] == s:
                ctx.stats["already-placed"] += 1
                continue
            # Unlink s, link it before `first`, give it a key between its neighbours.
            p, q = prev[s], nxt[s]
            if p is not None:
                nxt[p] = q
            if q is not None:
                prev[q] = p
            before = prev[first]
            prev[s], nxt[s] = before, first
            prev[first] = s
            if before is not None:
                nxt[before] = s
                key[s] = (key[before] + key[first]) / 2
            else:
                key[s] = key[first] - 1
            s.move_before(first)
            ctx.stats["scatters-sunk"] += 1


register_twins(
    "scatter-motion",
    "Sink each scatter to just before its first user (same block)",
    _run_scatter_motion,
    class_name="ScatterMotion",
    statistics=("scatters-sunk", "already-placed", "no-user"),
    source="seed 004 step 20 (unconditional); DESIGN.md catalogue step 20 (our interpretation)",
)


# --------------------------------------------------------------------------- 22 hoist-compute

#: Attribute on ``main`` listing the entry arguments that are parameters (seed 002 section 4).
PARAMS_ATTR = "slowChangingIns"


def parameter_indices(func_op) -> set[int]:
    """Indices in ``slowChangingIns`` on the function (dense int elements or i64 array); empty if absent."""
    attrs = func_op.attributes
    if PARAMS_ATTR not in attrs:
        return set()
    a = attrs[PARAMS_ATTR]
    if isinstance(a, ir.DenseI64ArrayAttr) or isinstance(a, ir.DenseI32ArrayAttr):
        return {int(x) for x in a}
    if isinstance(a, ir.DenseElementsAttr):
        import numpy as np

        return {int(x) for x in np.array(a).reshape(-1)}
    if isinstance(a, ir.ArrayAttr):
        return {int(ir.IntegerAttr(x).value) for x in a}
    return set()


def _run_hoist_compute(func_op, ctx):
    if len(func_op.regions) == 0 or len(func_op.regions[0].blocks) == 0:
        return
    block = func_op.regions[0].blocks[0]
    ops = _block_ops(block)
    if not ops:
        return
    pos = {o: i for i, o in enumerate(ops)}
    params = parameter_indices(func_op)
    param_args = {a for a in block.arguments if a.arg_number in params}
    effects = EffectOracle(func_op)
    hoistable = set()
    for o in ops[:-1]:
        if effects(o):
            continue
        ok = True
        for v in block_inputs(o, pos, block):
            owner = v.owner
            if isinstance(owner, ir.Block):
                if v not in param_args:
                    ok = False
                    break
            elif owner.operation not in hoistable:
                ok = False
                break
        if ok:
            hoistable.add(o)
    anchor = next((o for o in ops if o not in hoistable), None)
    if anchor is None:
        return
    moved = 0
    for o in ops[pos[anchor] + 1:]:
        if o in hoistable:
            o.move_before(anchor)
            moved += 1
    ctx.stats["hoistable"] += len(hoistable)
    ctx.stats["ops-hoisted"] += moved


register_twins(
    "hoist-compute",
    "Move ops that depend only on parameters (slowChangingIns) or constants to the top of the function",
    _run_hoist_compute,
    class_name="HoistCompute",
    statistics=("hoistable", "ops-hoisted"),
    source="seed 004 step 22 (gate cfg[0xE9]); DESIGN.md catalogue step 22 (our interpretation)",
)


# --------------------------------------------------------------------------- 23 memcast-motion

#: Pure data movement a widening convert is sunk below.
MOVEMENT_OPS = ("reshape", "transpose", "broadcast_in_dim", "slice")


def is_widening_convert(op, d) -> bool:
    """``convert`` whose element bit width grows (f16->f32, bf16->f32, i8->i32, i8->f32, ...).

    Complex and tuple types, dynamic shapes and encodings are not handled.
    """
    if not d.is_op(op, "convert"):
        return False
    src, dst = op.operands[0].type, op.results[0].type
    if not (isinstance(src, ir.RankedTensorType) and isinstance(dst, ir.RankedTensorType)):
        return False
    if src.encoding is not None or dst.encoding is not None:
        return False
    se, de = src.element_type, dst.element_type
    if isinstance(se, ir.ComplexType) or isinstance(de, ir.ComplexType):
        return False
    sb, db = elem_bits(se), elem_bits(de)
    return 0 < sb < db


def _run_memcast_motion(func_op, ctx):
    d = ctx.d
    movers = []

    def visit(op):
        if d.is_op(op, *MOVEMENT_OPS):
            movers.append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    # Walk order is def-before-use inside a block, so a chain
    # convert -> reshape -> transpose sinks through both in one sweep.
    with func_op.context:
        for mv in movers:
            src = mv.operands[0]
            if isinstance(src.owner, ir.Block):
                continue
            cv = src.owner.operation
            if not is_widening_convert(cv, d):
                continue
            narrow = cv.operands[0]
            rt = mv.results[0].type
            if not isinstance(rt, ir.RankedTensorType) or rt.encoding is not None:
                continue
            narrow_t = ir.RankedTensorType.get(list(rt.shape), narrow.type.element_type, loc=mv.location)
            attrs = {k: mv.attributes[k] for k in mv.attributes}
            ip = ir.InsertionPoint(mv)
            new_mv = ir.Operation.create(mv.name, results=[narrow_t], operands=[narrow] + list(mv.operands)[1:],
                                         attributes=attrs, loc=mv.location, ip=ip)
            new_cv = ir.Operation.create(cv.name, results=[rt], operands=[new_mv.results[0]],
                                         attributes={k: cv.attributes[k] for k in cv.attributes},
                                         loc=cv.location, ip=ip)
            mv.results[0].replace_all_uses_with(new_cv.results[0])
            mv.erase()
            ctx.stats["converts-sunk"] += 1
            if not list(cv.results[0].uses):
                cv.erase()


register_twins(
    "memcast-motion",
    "Sink widening converts below reshape/transpose/broadcast_in_dim/slice (movement on the narrow type)",
    _run_memcast_motion,
    class_name="MemcastMotion",
    statistics=("converts-sunk",),
    source="seed 004 step 23 (gate cfg[0xE5]); DESIGN.md catalogue step 23 (our interpretation)",
)
