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

from ..dialects import SIDE_EFFECTING_OPS, hlo_short_name  # noqa: F401 (re-exported)
from ..effects import EffectOracle, has_side_effects  # noqa: F401 (one model, shared with cluster.py)
from ..ir import ir
from ..registry import register_twins

# --------------------------------------------------------------------------- shared helpers

#: Region terminators of the dialects we schedule.
TERMINATORS = frozenset({"func.return", "mhlo.return", "stablehlo.return"})

#: Op names outside mhlo/stablehlo that are known to be free of side effects.
_PURE_OTHER = frozenset({"func.return", "mhlo.return", "stablehlo.return", "func.constant"})


# EffectOracle / has_side_effects live in hilo_mlir.effects (one side-effect model
# for the fusion core and the scheduling passes); re-exported here for callers.


class ValueIndex:
    """Built once per block: result value -> producing op of the block, and the block's arguments.

    Answers "is ``v`` defined in this block, and by which op?" with one dict
    lookup (values hash by their C++ pointer) instead of ``v.owner``, which
    makes a new Python view per call (~1.5 us).
    """

    def __init__(self, ops, block):
        self.producer = {r: o for o in ops for r in o.results}
        self.args = set(block.arguments)

    def _init(self, producer: dict, block) -> "ValueIndex":
        """Fill from an existing ``{result: anything}`` map of the block (membership is all block_inputs needs)."""
        self.producer = producer
        self.args = set(block.arguments)
        return self


def block_inputs(op, pos: dict, block, index: ValueIndex | None = None) -> list:
    """Values an op of ``block`` reads from ``block``: its operands and the values its
    nested regions capture, restricted to results of ops in ``pos`` (the block's
    order index) and arguments of ``block``. Order: operands first, then
    captures in walk order; duplicates removed. ``index`` (a :class:`ValueIndex`
    of the same block and ops as ``pos``) makes the test a dict lookup.
    """
    op = op.operation
    seen = set()
    out = []

    if index is not None:
        producer, args = index.producer, index.args

        def take(v):
            if v not in producer and v not in args:
                return
            if v not in seen:
                seen.add(v)
                out.append(v)
    else:
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


def producers_in_block(op, pos: dict, block, index: ValueIndex | None = None) -> list:
    """The ops of ``block`` (in ``pos``) whose results ``op`` reads (operands + captures)."""
    out, seen = [], set()
    if index is not None:
        producer = index.producer
        op = op.operation
        # Without regions the inputs are the operands: read them once, no capture walk.
        values = op.operands if not len(op.regions) else block_inputs(op, pos, block, index)
        for v in values:
            p = producer.get(v)
            if p is not None and p not in seen:
                seen.add(p)
                out.append(p)
        return out
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
    n = len(ops) - 1  # the body: ops[:n]; ops[n] is the terminator
    # Work on positions (ints), not op handles: one dict from each result to
    # the position of its producer, built once per block.
    prod = {r: i for i, o in enumerate(ops) for r in o.results}
    pos = index = None  # built once, only if an op has regions (captures need block_inputs)

    def producer_positions(o) -> list:
        nonlocal pos, index
        out, seen = [], set()
        if len(o.regions):
            if index is None:
                pos = {x: i for i, x in enumerate(ops)}
                index = ValueIndex.__new__(ValueIndex)._init(prod, block)
            values = block_inputs(o, pos, block, index)
        else:
            values = o.operands
        for v in values:
            i = prod.get(v)
            if i is not None and i not in seen:
                seen.add(i)
                out.append(i)
        return out

    deps: list = [None] * n
    prev_effect = None
    for k in range(n):
        o = ops[k]
        d = producer_positions(o)
        if effects(o):
            if prev_effect is not None and prev_effect not in d:
                d.append(prev_effect)
            prev_effect = k
        deps[k] = d
    roots = producer_positions(ops[n]) + list(range(n))
    visited = [False] * n
    order_pos = []
    for root in roots:
        if visited[root]:
            continue
        visited[root] = True
        stack = [(root, iter(deps[root]))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if not visited[nxt]:
                    visited[nxt] = True
                    stack.append((nxt, iter(deps[nxt])))
                    break
            else:
                stack.pop()
                order_pos.append(node)
    changed = sum(1 for k, i in enumerate(order_pos) if k != i)
    return [ops[i] for i in order_pos], changed


def _run_schedule_postorder(func_op, ctx):
    effects = EffectOracle(func_op)
    moved_any = False
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
        moved_any = True
    if not moved_any:
        ctx.mark_all_preserved()


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
    delta = [0] * (n + 1)
    unknown = 0
    # Last use of every value, by one forward sweep: a use inside op i (its
    # operands or those of ops nested in its regions) is at point i. Every use
    # of an entry-block value sits in some op of the entry block (dominance),
    # so this is the max over its uses of their enclosing op's position.
    last: dict = {}
    for i, o in enumerate(ops):
        for v in o.operands:
            last[v] = i
        if len(o.regions):
            def visit(inner, _i=i):
                for v in inner.operands:
                    last[v] = _i
                return ir.WalkResult.ADVANCE

            o.walk(visit)

    def last_use(v, start):
        i = last.get(v, start)
        return i if i > start else start

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
    if not ctx.module_may_contain(d.name("scatter")):  # no seed op in the module: nothing to do
        ctx.mark_all_preserved()
        return
    by_block: dict = {}

    def visit(op):
        if d.is_op(op, "scatter"):
            by_block.setdefault(op.block, []).append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit)
    if not by_block:
        ctx.mark_all_preserved()
        return
    moved = 0
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
            moved += 1
    if not moved:
        ctx.mark_all_preserved()


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
    index = ValueIndex(ops, block)
    producer = index.producer
    hoistable = set()
    for o in ops[:-1]:
        if effects(o):
            continue
        ok = True
        # An entry-block op without regions reads only entry-block values: its operands.
        for v in (o.operands if not len(o.regions) else block_inputs(o, pos, block, index)):
            p = producer.get(v)
            if p is None:  # an argument of the block
                if v not in param_args:
                    ok = False
                    break
            elif p not in hoistable:
                ok = False
                break
        if ok:
            hoistable.add(o)
    anchor = next((o for o in ops if o not in hoistable), None)
    if anchor is None:
        ctx.mark_all_preserved()
        return
    moved = 0
    for o in ops[pos[anchor] + 1:]:
        if o in hoistable:
            o.move_before(anchor)
            moved += 1
    ctx.stats["hoistable"] += len(hoistable)
    ctx.stats["ops-hoisted"] += moved
    if not moved:
        ctx.mark_all_preserved()


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
    sunk = 0
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
            sunk += 1
            if not list(cv.results[0].uses):
                cv.erase()
    if not sunk:
        ctx.mark_all_preserved()


register_twins(
    "memcast-motion",
    "Sink widening converts below reshape/transpose/broadcast_in_dim/slice (movement on the narrow type)",
    _run_memcast_motion,
    class_name="MemcastMotion",
    statistics=("converts-sunk",),
    source="seed 004 step 23 (gate cfg[0xE5]); DESIGN.md catalogue step 23 (our interpretation)",
)
