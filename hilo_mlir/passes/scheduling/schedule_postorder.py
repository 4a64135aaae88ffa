"""``schedule-postorder`` (spine step 17, ``SchedulePostorder``; twin ``stablehlo-schedule-postorder``).

Reorders every block (nested ones included) into the post-order of a
depth-first search from its terminator's operands: each op right after the
ops it reads, side-effecting ops in their original relative order.
:func:`schedule_block_postorder` is the definition, one block at a time;
the pass computes the same order for every block of a function from its
:class:`~hilo_mlir.analysis.snapshot.FunctionSnapshot` (:class:`_Scheduler`)
and moves only the ops off a longest increasing subsequence of the new order
(:func:`_apply_order`).

The snapshot stays with the analysis manager, kept current by the rewriter,
with the order the pass left: analyze-schedule and hoist-compute read it
instead of the IR.

Cost: the snapshot is read once per function (or found cached); the pass
itself reads only the own effect of each op name and moves ops.
"""

from __future__ import annotations

import bisect
from typing import Any

from hilo_mlir.analysis.entry_block import LeafEffects, is_composite
from hilo_mlir.analysis.snapshot import BlockSnapshot, FunctionSnapshot, OpEntry
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TERMINATORS
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import block_ops
from hilo_mlir.passmanager.registry import register_twins

# --------------------------------------------------------------------------- the definition, one block


class ValueIndex:
    """Built once per block: result value -> producing op of the block, and the block's arguments.

    Answers "is ``v`` defined in this block?" with one dict lookup (values
    hash by their C++ pointer) instead of ``v.owner``, which makes a new
    Python view per call (~1.5 us).
    """

    def __init__(self, producer: dict, block):
        self.producer = producer
        self.args = set(block.arguments)


def block_inputs(op, index: ValueIndex) -> list:
    """Values an op of a block reads from that block: its operands and the values its
    nested regions capture, restricted to results of the block's ops and its
    arguments (``index``). Order: operands first, then captures in walk order;
    duplicates removed."""
    op = op.operation
    producer, args = index.producer, index.args
    seen = set()
    out = []

    def take(v):
        if (v in producer or v in args) and v not in seen:
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


def schedule_block_postorder(block, effects: EffectOracle) -> tuple[list, int] | None:
    """The post-order of ``block`` (terminator excluded) and how many ops change place.

    Dependencies of an op: the in-block producers of its operands and of the
    values its regions capture, in operand order, then the previous
    side-effecting op of the block (so side-effecting ops keep their relative
    order). The DFS starts from the terminator's operands, in order; ops not
    reachable from the terminator (dead pure ops, side-effecting ops after the
    last one the terminator reaches) are then used as roots in their original
    order, so they follow the reachable ones, each after its own operands.
    Returns None for a block without a known terminator. Moves nothing.
    """
    ops = block_ops(block)
    if not ops or ops[-1].name not in TERMINATORS:
        return None
    n = len(ops) - 1  # the body: ops[:n]; ops[n] is the terminator
    # Work on positions (ints), not op handles: one dict from each result to
    # the position of its producer, built once per block.
    prod = {r: i for i, o in enumerate(ops) for r in o.results}
    index = None  # built once, only if an op has regions (captures need block_inputs)

    def producer_positions(o) -> list:
        nonlocal index
        out, seen = [], set()
        if len(o.regions):
            if index is None:
                index = ValueIndex(prod, block)
            values = block_inputs(o, index)
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
    order_pos = postorder_positions(n, deps, producer_positions(ops[n]) + list(range(n)))
    changed = sum(1 for k, i in enumerate(order_pos) if k != i)
    return [ops[i] for i in order_pos], changed


def postorder_positions(n: int, deps: list, roots: list) -> list:
    """Positions 0..n-1 in DFS post-order from ``roots`` (see :func:`schedule_block_postorder`)."""
    visited = [False] * n
    order_pos: list[int] = []
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


def _apply_order(ops: list, order_pos: list, rw) -> None:
    """Reorder the block of ``ops`` (its terminator last) into ``order_pos`` with few moves.

    The ops on a longest increasing subsequence of ``order_pos`` keep their
    place; every other op is moved right before its successor in the new
    order, last to first (so that successor is already placed): a run of
    such ops in one batch, before the op that follows the run.
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
    k = n - 1
    while k >= 0:
        if keep[order_pos[k]]:
            k -= 1
            continue
        end = k  # order_pos[j..end] are moved, in order, before the op after them
        while k >= 0 and not keep[order_pos[k]]:
            k -= 1
        anchor = ops[order_pos[end + 1]] if end + 1 < n else ops[n]
        run = [ops[order_pos[j]] for j in range(k + 1, end + 1)]
        if len(run) == 1:
            rw.move_before(run[0], anchor)
        else:
            rw.move_all_before(run, anchor)


# --------------------------------------------------------------------------- the pass: every block from the snapshot


class _BlockRead:
    """What :func:`_read` found in one block (from the snapshot, in its order before the pass moved anything)."""

    __slots__ = ("any_composite", "any_effect", "effect_at", "entries", "inputs", "walk_operands")

    def __init__(self, entries: list[OpEntry]):
        self.entries = entries
        self.inputs: list[list[int]] = []  # per op: its operand ids, then those its regions capture (walk order)
        self.walk_operands: list[int] = []  # operand ids of the block's ops, nested first (post-order)
        self.any_effect = False
        self.any_composite = False  # a composite takes part in some op's effect
        self.effect_at: list[int] = []  # body positions of side-effecting ops, ascending


class _Scheduler:
    """Plans the post-order of a block and of every block nested in it, from a :class:`FunctionSnapshot`.

    :meth:`read` reads nothing from the IR (the snapshot holds names, operands
    and results) but the own effect of each op name once. The plans are
    applied after the whole function is read (:meth:`apply`): moves do not
    change what a block's reading found, so this is the order of
    :func:`schedule_block_postorder` on every block.
    """

    def __init__(self, snap: FunctionSnapshot, leaf: LeafEffects, ctx: Any):
        self.snap = snap
        self.leaf = leaf
        self.ctx = ctx
        self.blocks = 0
        self.moved = 0
        self.plans: list[tuple[BlockSnapshot, list[OpEntry], list[int]]] = []

    def read(self, bs: BlockSnapshot) -> _BlockRead:
        """Read ``bs`` (and plan the blocks nested in it first); plan ``bs`` itself."""
        entries = self.snap.ops_in(bs)
        r = _BlockRead(entries)
        n = len(entries) - 1
        by_name, leaf = self.leaf.by_name, self.leaf
        blocks = self.snap.blocks
        inputs, walk = r.inputs, r.walk_operands
        for k, x in enumerate(entries):
            name = x.name
            e = by_name.get(name)
            composite = False
            if e is None:
                e = leaf(x.op, name)
                composite = is_composite(name)
            if x.regions:
                nested: list[int] = []
                for bk in x.regions:
                    inner = self.read(blocks[bk])
                    e = e or inner.any_effect
                    composite = composite or inner.any_composite
                    nested += inner.walk_operands
                walk += nested
                inputs.append([*x.operands, *nested])
            else:
                inputs.append(list(x.operands))
            walk += x.operands
            if composite:
                r.any_composite = True
            if e:
                r.any_effect = True
                if k < n:
                    r.effect_at.append(k)
        self._plan(bs, r, n)
        return r

    def _plan(self, bs: BlockSnapshot, r: _BlockRead, n: int) -> None:
        scheduled = n >= 0 and r.entries[n].name in TERMINATORS
        if not scheduled:
            self.ctx.debug("block without a known terminator left in place")
            return
        self.blocks += 1
        if n < 2:  # one body op (or none) cannot move
            return
        order_pos = postorder_positions(n, *_dependencies(r, n))
        if order_pos != list(range(n)):
            self.plans.append((bs, r.entries, order_pos))
            self.moved += sum(1 for k, i in enumerate(order_pos) if k != i)

    def apply(self, rw: Any) -> None:
        """Reorder every planned block and tell the snapshot the order it now has."""
        for bs, entries, order_pos in self.plans:
            n = len(order_pos)
            _apply_order([x.op for x in entries], order_pos, rw)
            self.snap.reordered(bs, [entries[i].key for i in order_pos] + [entries[n].key])


def _dependencies(r: _BlockRead, n: int) -> tuple[list, list]:
    """``(deps, roots)`` of the block :func:`postorder_positions` orders (``n`` body ops).

    ``deps[k]``: the positions of the in-block producers op ``k`` reads, then
    the previous side-effecting op; roots: the terminator's producers, then
    every body op in order.
    """
    prod = {v: i for i, x in enumerate(r.entries) for v in x.results}
    get = prod.get
    deps: list = [None] * (n + 1)
    for k in range(n + 1):
        d = [i for i in map(get, r.inputs[k]) if i is not None]
        if len(d) > 1 and len(set(d)) != len(d):
            d = list(dict.fromkeys(d))
        deps[k] = d
    prev = None
    for k in r.effect_at:
        if prev is not None and prev not in deps[k]:
            deps[k].append(prev)
        prev = k
    return deps, deps[n] + list(range(n))


def _run_schedule_postorder(func_op: Any, ctx: Any) -> None:
    # The order of schedule_block_postorder on every block of ir_utils.all_blocks(func_op),
    # planned from the function's snapshot (kept by the analysis manager for the steps after).
    snap = ctx.get_analysis(FunctionSnapshot, func_op)
    sched = _Scheduler(snap, LeafEffects(EffectOracle(func_op)), ctx)
    for bk in snap.regions:
        sched.read(snap.blocks[bk])
    sched.apply(ctx.rewriter)
    if sched.blocks:
        ctx.stats["blocks"] += sched.blocks
    if sched.moved:
        ctx.stats["ops-moved"] += sched.moved


register_twins(
    "schedule-postorder",
    "Reorder each block into the post-order of a DFS from its terminator's operands",
    _run_schedule_postorder,
    class_name="SchedulePostorder",
    statistics=("blocks", "ops-moved"),
    source="seed 004 step 17 (gate cfg[0x130]); DESIGN.md catalogue step 17 (our interpretation)",
)
