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

Cost (issue 7; binding calls are the price): values are keyed by
``hash(value)`` (the C++ pointer, no binding call on lookup);
schedule-postorder reads every op once for the whole function (operands
serve both the op's own block and, as captures, its parent block), computes
the post-order and moves only the ops off a longest increasing subsequence
of it; it leaves the entry block it read (:class:`EntryBlock`) in
``ctx.analyses``, where analyze-schedule and hoist-compute find it while the
steps in between keep the IR (the pipeline drops it otherwise, MLIR's
preserved-analyses rule). scatter-motion and memcast-motion return at once
on a module without a scatter / convert (op census).

The shared helpers (:func:`has_side_effects`, :func:`block_inputs`,
:func:`type_bytes`, :func:`elem_bits`) are also used by the other leaf passes
of steps 16–25.

Source: seed 004 "The Ordered MHLO Pipeline" (order, gates, one-line purpose
of each pass); DESIGN.md "Pass catalogue" steps 17, 18, 20, 22, 23 (our
definition of the behaviour, since the seed only names these passes).
"""

from __future__ import annotations

import bisect
from fractions import Fraction

from ..dialects import SIDE_EFFECTING_OPS, hlo_short_name  # noqa: F401 (re-exported)
from ..effects import EffectOracle, has_side_effects  # noqa: F401 (one model, shared with cluster.py)
from ..ir import identity_key, ir
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

    This is the reference definition, one block at a time and without moving
    anything; the pass computes the same order for every block of a function
    in one visit (``_schedule_tree``; test/unit/test_sched_perf.py checks
    that they agree).
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
    order_pos = _postorder_positions(n, deps, producer_positions(ops[n]) + list(range(n)))
    changed = sum(1 for k, i in enumerate(order_pos) if k != i)
    return [ops[i] for i in order_pos], changed


class _LeafEffects:
    """``EffectOracle``'s own-effect answer per op, memoized per op name.

    An op's own effect (regions not counted) depends only on its name, except
    for a ``composite`` (its decomposition decides): those are asked per op,
    through the oracle's per-callee memo. Same model as :mod:`hilo_mlir.effects`.
    """

    def __init__(self, oracle: EffectOracle):
        self.oracle = oracle
        self.by_name: dict = {}

    def __call__(self, op, name: str) -> bool:
        r = self.by_name.get(name)
        if r is None:
            r = self.oracle._leaf_effect(op)
            if hlo_short_name(name) != "composite":
                self.by_name[name] = r
        return r


def _postorder_positions(n: int, deps: list, roots: list) -> list:
    """Positions 0..n-1 in DFS post-order from ``roots`` (see :func:`schedule_block_postorder`)."""
    visited = [False] * n
    order_pos = []
    append = order_pos.append
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
                append(node)
    return order_pos


def _apply_order(ops: list, order_pos: list) -> None:
    """Reorder the block of ``ops`` (its terminator last) into ``order_pos`` with few moves.

    The ops on a longest increasing subsequence of ``order_pos`` keep their
    place; every other op is moved right before its successor in the new
    order, last to first (so that successor is already placed).
    """
    n = len(order_pos)
    tails_val: list = []
    tails_k: list = []
    parent = [-1] * n
    for k, x in enumerate(order_pos):
        j = bisect.bisect_left(tails_val, x)
        parent[k] = tails_k[j - 1] if j else -1
        if j == len(tails_val):
            tails_val.append(x)
            tails_k.append(k)
        else:
            tails_val[j] = x
            tails_k[j] = k
    keep = [False] * n
    k = tails_k[-1] if tails_k else -1
    while k >= 0:
        keep[order_pos[k]] = True
        k = parent[k]
    anchor = ops[n]
    for k in range(n - 1, -1, -1):
        x = order_pos[k]
        o = ops[x]
        if not keep[x]:
            o.move_before(anchor)
        anchor = o


class EntryBlock:
    """A function's entry block as the scheduling passes read it (the analysis they share).

    Attributes (one entry per op, in block order, terminator last):
        ops: the ``ir.Operation`` s.
        inputs: ``hash(value)`` (a value hashes to its C++ pointer) of the
            op's operands and of the operands of every op nested in its
            regions (its captures among them; unordered, may repeat).
        results: the op's result values.
        effects: :class:`EffectOracle`'s answer for the op.

    Built by schedule-postorder (after its reordering) or on demand, and kept
    in ``ctx.analyses`` under :func:`_entry_key` while the steps that follow
    leave the block as it is (see :meth:`registry.PassContext.keep_analysis`).
    """

    __slots__ = ("ops", "inputs", "results", "effects")

    def __init__(self, ops, inputs, results, effects):
        self.ops, self.inputs, self.results, self.effects = ops, inputs, results, effects

    def permuted(self, order: list) -> "EntryBlock":
        """The same block after reordering into ``order`` (positions; the terminator stays last)."""
        order = order + [len(self.ops) - 1]
        return EntryBlock([self.ops[i] for i in order], [self.inputs[i] for i in order],
                          [self.results[i] for i in order], [self.effects[i] for i in order])


def _entry_key(func_op):
    return ("scheduling.EntryBlock", identity_key(func_op))


def _nested_summary(op, leaf: _LeafEffects) -> tuple[list, bool]:
    """(``hash`` of the operands of ``op`` and of every op nested in it; does a nested op have an effect of its own).

    One walk; the own effect of ``op`` itself is included (callers or it with it anyway).
    """
    out: list = []
    extend = out.extend
    found = False
    by_name = leaf.by_name
    advance = ir.WalkResult.ADVANCE

    def visit(inner):
        nonlocal found
        extend(map(hash, inner.operands))
        if not found:
            name = inner.name
            e = by_name.get(name)
            if e is None:
                e = leaf(inner, name)
            found = e
        return advance

    op.walk(visit)
    return out, found


def _compute_entry_block(func_op, leaf: _LeafEffects | None = None) -> EntryBlock:
    """Read the entry block of ``func_op`` once (one walk per region-holding op)."""
    if leaf is None:
        leaf = _LeafEffects(EffectOracle(func_op))
    by_name = leaf.by_name
    ops = _block_ops(func_op.regions[0].blocks[0])
    inputs, results, effects = [], [], []
    for o in ops:
        if len(o.regions):
            values, e = _nested_summary(o, leaf)
        else:
            values = list(map(hash, o.operands))
            name = o.name
            e = by_name.get(name)
            if e is None:
                e = leaf(o, name)
        inputs.append(values)
        results.append(list(o.results))
        effects.append(e)
    return EntryBlock(ops, inputs, results, effects)


def _entry_block(func_op, ctx) -> EntryBlock:
    """The :class:`EntryBlock` of ``func_op``: the one in ``ctx.analyses`` if still kept, else computed."""
    info = None  # TEMPORARY until EntryBlock is an analysis of the manager
    return info if info is not None else _compute_entry_block(func_op)


def _schedule_tree(block, leaf: _LeafEffects, ctx, counts: list, nested_in_op: bool = False,
                   entry: list | None = None) -> tuple[bool, list]:
    """Schedule ``block`` and every block nested in it (see :func:`schedule_block_postorder`).

    One visit per op: its operands are read once and serve both its own
    block's dependencies and, as a capture, those of the op of the enclosing
    block that holds it. ``counts``: [blocks scheduled, ops moved], added to.
    Returns (does any op of the block, nested ones included, have an effect
    of its own; if ``nested_in_op``, the operands of the block's ops in
    post-order walk order, nested ops first), which is what the enclosing
    block needs for its region ops. If ``entry`` is a list, the
    :class:`EntryBlock` of ``block`` as left is appended to it.
    """
    ops = [o.operation for o in block.operations]
    scheduled = bool(ops) and ops[-1].name in TERMINATORS
    if not scheduled:
        ctx.debug("block without a known terminator left in place")
    n = len(ops) - 1
    keep_inputs = entry is not None or (scheduled and n >= 2)
    walk_operands: list = []
    any_effect = False
    inputs: list = [None] * len(ops)  # per op: operands, then captures in walk order
    effect_at: list = []  # positions (< n) of side-effecting ops, ascending
    effs = [False] * len(ops) if entry is not None else None  # per op: EffectOracle's answer
    by_name = leaf.by_name
    k = 0
    for o in ops:
        opnds = list(map(hash, o.operands))  # a Value hashes to its C++ pointer: an exact key
        e = by_name.get(o.name)
        if e is None:
            e = leaf(o, o.name)
        if len(o.regions):
            nested: list = []
            for region in o.regions:
                for b in region.blocks:
                    be, bw = _schedule_tree(b, leaf, ctx, counts, True)
                    e = e or be
                    nested += bw
            if nested_in_op:
                walk_operands += nested
            if keep_inputs:
                inputs[k] = opnds + nested
        elif keep_inputs:
            inputs[k] = opnds
        if nested_in_op:
            walk_operands += opnds
        if e:
            any_effect = True
            if effs is not None:
                effs[k] = True
            if k < n:
                effect_at.append(k)
        k += 1
    if scheduled:
        counts[0] += 1
    results = None
    if entry is not None:
        results = [list(o.results) for o in ops]
        entry.append(EntryBlock(ops, inputs, results, effs))
    if not scheduled or n < 2:  # one body op (or none) cannot move
        return any_effect, walk_operands
    if results is None:
        prod = {hash(r): i for i, o in enumerate(ops) for r in o.results}
    else:
        prod = {hash(r): i for i, rs in enumerate(results) for r in rs}
    get = prod.get
    deps: list = [None] * (n + 1)
    for k in range(n + 1):
        d = [i for i in map(get, inputs[k]) if i is not None]
        if len(d) > 1 and len(set(d)) != len(d):
            d = list(dict.fromkeys(d))
        deps[k] = d
    prev = None
    for k in effect_at:
        if prev is not None and prev not in deps[k]:
            deps[k].append(prev)
        prev = k
    order_pos = _postorder_positions(n, deps, deps[n] + list(range(n)))
    if order_pos != list(range(n)):
        _apply_order(ops, order_pos)
        counts[1] += sum(1 for k, i in enumerate(order_pos) if k != i)
        if entry is not None:
            entry[-1] = entry[-1].permuted(order_pos)
    return any_effect, walk_operands


def _run_schedule_postorder(func_op, ctx):
    # Same order as schedule_block_postorder on every block of all_blocks(func_op),
    # computed in one visit of the function (issue 7: bounded visits per op).
    leaf = _LeafEffects(EffectOracle(func_op))
    counts = [0, 0]  # blocks scheduled, ops moved
    entry: list = []
    for r, region in enumerate(func_op.regions):
        for b, block in enumerate(region.blocks):
            _schedule_tree(block, leaf, ctx, counts, entry=entry if r == 0 and b == 0 else None)
    if counts[0]:
        ctx.stats["blocks"] += counts[0]
    if counts[1]:
        ctx.stats["ops-moved"] += counts[1]
    if entry:  # the entry block as left, for analyze-schedule and hoist-compute
        ctx.keep_analysis(_entry_key(func_op))
    if not counts[1]:
        ctx.mark_all_preserved()
    else:
        ctx.mark_ops_moved()  # only moves: the census keeps names, counts and types


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


def peak_live_bytes(func_op, info: EntryBlock | None = None) -> tuple[int, int, int]:
    """Peak live bytes of the function body in its current order.

    Program points are the ops of the entry block, 0..n-1 (the terminator is
    the last). A block argument is live from point 0 to its last use; an op's
    result from its op to its last use (a use inside a nested region counts at
    the enclosing op of the entry block); a result without uses is live at its
    op only; an unused argument at point 0 only. Values inside nested regions
    are transient to their op and not counted. Bytes per value:
    :func:`type_bytes`; dynamic shapes count 0. ``info``: the entry block's
    :class:`EntryBlock` if the caller has it (read from the IR otherwise).

    Returns:
        (peak bytes, index of the first op where the peak is reached, number of
        values of unknown size).
    """
    block = func_op.regions[0].blocks[0]
    if info is None:
        info = _compute_entry_block(func_op)
    n = len(info.ops)
    if n == 0:
        return 0, 0, 0
    delta = [0] * (n + 1)
    unknown = 0
    # Last use of every value (keyed by hash(value)), by one forward sweep: a
    # use inside op i (its operands or those of ops nested in its regions) is
    # at point i. Every use of an entry-block value sits in some op of the
    # entry block (dominance), so this is the max over its uses of their
    # enclosing op's position.
    last: dict = {}
    update = last.update
    fromkeys = dict.fromkeys
    for i, values in enumerate(info.inputs):
        update(fromkeys(values, i))
    sizes: dict = {}  # hash(type) -> bytes (types are uniqued: one type_bytes per distinct type)
    get_last = last.get

    def add(v, start):
        nonlocal unknown
        t = v.type
        th = hash(t)
        b = sizes.get(th, -1)
        if b == -1:
            b = sizes[th] = type_bytes(t)
        if b is None:
            unknown += 1
            return
        if b == 0:
            return
        end = get_last(hash(v), start)
        if end < start:
            end = start
        delta[start] += b
        delta[end + 1] -= b

    for a in block.arguments:
        add(a, 0)
    for i, rs in enumerate(info.results):
        for r in rs:
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
    info = _entry_block(func_op, ctx)
    peak, at, unknown = peak_live_bytes(func_op, info)
    # Only a function attribute changes: the entry block (and the census) stay valid.
    ctx.keep_analysis(_entry_key(func_op))
    with func_op.context:
        new = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), peak)
        attrs = func_op.attributes
        if PEAK_ATTR in attrs and attrs[PEAK_ATTR] == new:
            ctx.mark_all_preserved()  # the stamp is already there: nothing rewritten
        else:
            attrs[PEAK_ATTR] = new
            ctx.mark_census_preserved()
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
    for op in ctx.ops_named(func_op, d.name("scatter")):  # walk order, from the census
        by_block.setdefault(op.block, []).append(op)
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
    else:
        ctx.mark_ops_moved()  # only moves: the census keeps names, counts and types


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
    info = _entry_block(func_op, ctx)
    ops = info.ops
    if not ops:
        return
    params = parameter_indices(func_op)
    # Values keyed by hash(value) (the C++ pointer); ops by position.
    args = [(hash(a), a.arg_number) for a in block.arguments]
    param_args = {h for h, i in args if i in params}
    block_args = {h for h, _ in args}
    get = {hash(r): i for i, rs in enumerate(info.results) for r in rs}.get
    effects, inputs = info.effects, info.inputs
    hoistable = [False] * len(ops)
    for k in range(len(ops) - 1):
        if effects[k]:
            continue
        # The op reads entry-block values: its operands and what its regions
        # capture (other values in its inputs are defined inside it).
        ok = True
        for h in inputs[k]:
            p = get(h)
            if p is None:
                if h in block_args and h not in param_args:
                    ok = False
                    break
            elif not hoistable[p]:
                ok = False
                break
        if ok:
            hoistable[k] = True
    first = hoistable.index(False)  # the terminator is never hoistable
    anchor = ops[first]
    moved = 0
    for k in range(first + 1, len(ops)):
        if hoistable[k]:
            ops[k].move_before(anchor)
            moved += 1
    ctx.stats["hoistable"] += sum(hoistable)
    ctx.stats["ops-hoisted"] += moved
    if not moved:
        ctx.mark_all_preserved()
    else:
        ctx.mark_ops_moved()  # only moves: the census keeps names, counts and types


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
    if not ctx.module_may_contain(d.name("convert")):  # no convert to sink anywhere
        ctx.mark_all_preserved()
        return
    movers = []
    mover_names = frozenset(d.name(n) for n in MOVEMENT_OPS)
    advance = ir.WalkResult.ADVANCE

    def visit(op):
        if op.name in mover_names:
            movers.append(op)
        return advance

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
