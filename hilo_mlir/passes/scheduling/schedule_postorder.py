"""``schedule-postorder`` (spine step 17, ``SchedulePostorder``; twin ``stablehlo-schedule-postorder``).

Reorders every block (nested ones included) into the post-order of a
depth-first search from its terminator's operands: each op right after the
ops it reads, side-effecting ops in their original relative order.
:func:`schedule_block_postorder` is the definition, one block at a time;
the pass computes the same order for every block of a function in one visit
(:class:`_TreeScheduler`) and moves only the ops off a longest increasing
subsequence of the new order (:func:`_apply_order`).

The entry block it leaves is the :class:`~hilo_mlir.analysis.entry_block.EntryBlock`
that analyze-schedule and hoist-compute read: the pass hands it to the
analysis manager after its moves, which keeps it while the steps in between
leave it valid.

A function whose cached EntryBlock carries its maker's promise (the fusion
codegen's, for a new decomposition function: :attr:`EntryBlock.nested_blocks`)
and whose order is already the post-order, decided from that EntryBlock's
integers (:func:`settled_blocks`), is not read at all: nothing would move, and
the kept EntryBlock stays. The checking mode (``HILO_MLIR_CHECK_ANALYSES=1``)
runs :func:`schedule_block_postorder` on each of its blocks and raises
AssertionError if one would move or the block count differs.

Cost: every op is read once for the whole function (its operands serve both
its own block's dependencies and, as captures, those of the op of the
enclosing block that holds it); values are keyed by ``hash(value)`` (the C++
pointer, no binding call on lookup); the entry block's result ids go to the
EntryBlock for the passes after. A composite's effect is decided from the census's op names of
its decomposition (:class:`~hilo_mlir.analysis.entry_block.CensusEffectOracle`),
not by walking that function.
"""

from __future__ import annotations

import bisect
from itertools import chain
from operator import ne

from hilo_mlir.analysis.entry_block import CensusEffectOracle, EntryBlock, LeafEffects, is_composite
from hilo_mlir.fusion.order import read_values
from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.ir.dialects import TERMINATORS
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import all_blocks, block_ops, class_declares_no_regions, func_name
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
    producer, args = index.producer, index.args
    return [v for v in dict.fromkeys(read_values(op)) if v in producer or v in args]


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
    such ops before the op that follows the run. The moves reach the
    rewriter in one batch (:meth:`~hilo_mlir.rewrite.rewriter.Rewriter.move_each_before`).
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
    moves: list = []  # (op, anchor), in the order they are made
    k = n - 1
    while k >= 0:
        if keep[order_pos[k]]:
            k -= 1
            continue
        end = k  # order_pos[j..end] are moved, in order, before the op after them
        while k >= 0 and not keep[order_pos[k]]:
            k -= 1
        anchor = ops[order_pos[end + 1]] if end + 1 < n else ops[n]
        moves += [(ops[order_pos[j]], anchor) for j in range(k + 1, end + 1)]
    rw.move_each_before(moves)


# --------------------------------------------------------------------------- the pass: every block in one visit


class _BlockRead:
    """What one visit of a block found (see :meth:`_TreeScheduler.read`)."""

    __slots__ = ("any_composite", "any_effect", "effect_at", "effects", "inputs", "ops", "result_ids", "results", "walk_operands")

    def __init__(self, ops: list):
        self.ops = ops  # the block's ops (filled by the read when it takes them from the walk)
        self.inputs: list = [None] * len(ops)  # per op: operands, then captures (walk order)
        self.result_ids: list = [None] * len(ops)  # per op: the ids of its results (read with the inputs)
        self.results: list = [None] * len(ops)  # per op: its result values (the entry block's only)
        self.walk_operands: list = []  # operands of the block's ops, nested first (post-order)
        self.any_effect = False
        self.any_composite = False  # a composite takes part in some op's effect
        self.effect_at: list = []  # body positions of side-effecting ops, ascending
        self.effects: list | None = None  # per op: True/False, None if a composite takes part


class _TreeScheduler:
    """Schedules a block and every block nested in it, reading each op once.

    An op's operands are read once and serve both its own block's
    dependencies and, as captures, those of the op of the enclosing block that
    holds it. Counts the blocks scheduled and the ops moved.
    """

    def __init__(self, leaf: LeafEffects, ctx, func_op):
        self.leaf = leaf
        self.ctx = ctx
        self.checking = bool(ctx.analyses.checking)
        self.blocks = 0
        self.moved = 0
        self.walked = _preorder(func_op)  # every op of the function, the function first
        self.at = 1  # the next op of ``walked`` to read
        self.no_regions: dict[str, bool] = {}  # per op name: its class declares no region (declares_no_regions)

    def read(self, block, count: int, nested_in_op: bool, keep_inputs: bool, want_effects: bool) -> _BlockRead:
        """Read the ``count`` ops of ``block``, scheduling the blocks nested in them first.

        The ops are taken from the function's pre-order walk (:func:`_preorder`): a block's
        op comes right after the ops nested in the op before it, which this read takes
        while it schedules their blocks. With ``keep_inputs``, each op's inputs and result
        ids are kept; with ``want_effects`` (the entry block), its effects and result values
        too (:func:`op_results`). The checking mode compares the ops taken with the block's
        (:func:`block_ops`) and the result ids with each op's result list.
        """
        r = _BlockRead([None] * count)
        n = count - 1
        effects = r.effects = [False] * count if want_effects else None
        by_name, leaf, walked, ops = self.leaf.by_name, self.leaf, self.walked, r.ops
        no_regions = self.no_regions
        inputs, result_ids, results, walk_operands, effect_at = r.inputs, r.result_ids, r.results, r.walk_operands, r.effect_at
        any_effect = any_composite = False
        at = self.at
        for k in range(count):
            o = ops[k] = walked[at]
            at += 1
            opnds = list(map(hash, o.operands))  # a Value hashes to its C++ pointer: an exact key
            name = o.name
            e = by_name.get(name)
            composite = False
            if e is None:
                e = leaf(o, name)
                composite = is_composite(name)
            bare = no_regions.get(name)
            if bare is None:
                bare = no_regions[name] = declares_no_regions(o)
            if not bare and len(o.regions):
                self.at = at
                nested, inner_effect, inner_composite = self.nested(o)
                at = self.at
                e = e or inner_effect
                composite = composite or inner_composite
                if nested_in_op:
                    walk_operands += nested
                if keep_inputs:
                    inputs[k] = opnds + nested
            elif keep_inputs:
                inputs[k] = opnds
            if want_effects:
                rs = results[k] = op_results(o, name)
                result_ids[k] = list(map(hash, rs))
            elif keep_inputs:
                result_ids[k] = list(map(hash, op_results(o, name)))
            if nested_in_op:
                walk_operands += opnds
            any_composite = any_composite or composite
            if effects is not None:
                effects[k] = None if composite else bool(e)
            if e:
                any_effect = True
                if k < n:
                    effect_at.append(k)
        self.at = at
        r.any_effect, r.any_composite = any_effect, any_composite
        if self.checking:
            _check_read(block, r)
        return r

    def nested(self, o) -> tuple[list, bool, bool]:
        """Schedule the blocks of ``o``'s regions: ``(their walk operands, an effect among them, a composite
        among them)``."""
        nested: list = []
        effect = composite = False
        for region in o.regions:
            for b in region.blocks:
                inner = self.schedule(b, True)
                effect = effect or inner.any_effect
                composite = composite or inner.any_composite
                nested += inner.walk_operands
        return nested, effect, composite

    def schedule(self, block, nested_in_op: bool = False, entry: list | None = None) -> _BlockRead:
        """Schedule ``block`` (and the blocks nested in it); return what :meth:`read` found.

        If ``entry`` is a list, the :class:`EntryBlock` of ``block`` as left is appended to it.
        """
        count = len(block.operations)
        n = count - 1
        # inputs kept for a block of two body ops or more (needed if it ends in a known terminator)
        r = self.read(block, count, nested_in_op, entry is not None or n >= 2, entry is not None)
        scheduled = n >= 0 and r.ops[n].name in TERMINATORS
        if not scheduled:
            self.ctx.debug("block without a known terminator left in place")
        if scheduled:
            self.blocks += 1
        if entry is not None:
            assert r.effects is not None, "read for the entry block"
            entry.append(EntryBlock.from_parts(r.ops, r.inputs, r.results, r.effects, r.result_ids))
        if not scheduled or n < 2:  # one body op (or none) cannot move
            return r
        order_pos = _postorder(r.inputs, r.result_ids, r.effect_at, n, self.checking)
        if order_pos != list(range(n)):
            _apply_order(r.ops, order_pos, self.ctx.rewriter)
            self.moved += sum(map(ne, order_pos, range(n)))  # the ops off their place
            if entry is not None:
                entry[-1] = entry[-1].permuted(order_pos)
        return r


def _check_read(block, r: _BlockRead) -> None:
    """The checking mode of :meth:`_TreeScheduler.read`: the ops taken from the walk must be ``block``'s
    (:func:`block_ops`), an op whose class declares no region (:func:`declares_no_regions`) must have
    none, and the result ids read must be each op's result list; AssertionError if not."""
    ops = r.ops
    for o in ops:
        if declares_no_regions(o) and len(o.regions):
            raise AssertionError(f"schedule-postorder: '{o.name}' declares no region but has {len(o.regions)}")
    if [identity_key(o) for o in ops] != [identity_key(o) for o in block_ops(block)]:
        raise AssertionError("schedule-postorder: the ops taken from the walk are not the block's")
    for k, ids in enumerate(r.result_ids):
        if ids is not None and ids != [hash(v) for v in ops[k].results]:
            raise AssertionError(f"schedule-postorder: the results read of '{ops[k].name}' are not its result list")


def declares_no_regions(o: ir.Operation) -> bool:
    """The op class of ``o`` (its ODS declaration, ``_ODS_REGIONS == (0, True)``: no region, none variadic)
    says ``o`` has no region: then every op of its name has none, and the count need not be read.
    False when unknown (an unregistered op, a class without the declaration). One op view made per call.
    """
    return class_declares_no_regions(type(o.opview))


def op_results(o: ir.Operation, name: str) -> list:
    """``list(o.results)`` (``name``: ``o.name``): one binding call (``o.result``) for an op with one result.

    ``o.result`` makes one value; the result list makes a list object and then a
    value per item (~3x the instructions for one result). A terminator (which has
    none, usually) reads the list: no exception raised and caught.
    """
    if name in TERMINATORS:
        return list(o.results)
    try:
        return [o.result]  # raises ValueError unless the op has exactly one result
    except ValueError:
        return list(o.results)


def _preorder(func_op) -> list:
    """Every op of ``func_op`` as ``ir.Operation`` s in pre-order (``func_op`` first: each op, then
    the ops of its regions, block by block): one walk, no op view made per op (what
    :func:`block_ops` costs)."""
    out: list = []
    append = out.append
    advance = ir.WalkResult.ADVANCE

    def visit(o):
        append(o)
        return advance

    func_op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def _dependencies_of(inputs: list, result_ids: list, effect_at: list, n: int) -> tuple[list, list]:
    """``(deps, roots)`` of a block for :func:`postorder_positions` (``n`` body ops, the terminator last).

    ``deps[k]``: the positions of the in-block producers op ``k`` reads, then the previous
    side-effecting op; roots: the terminator's producers, then every body op in order. From
    integers: per op the ids it reads (``inputs``) and of its results (``result_ids``);
    ``effect_at``: the body positions of the side-effecting ops, ascending. The definition
    :func:`postorder_of_inputs` is checked against.
    """
    prod = {h: i for i, ids in enumerate(result_ids) for h in ids}
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
    return deps, deps[n] + list(range(n))


def postorder_of_inputs(inputs: list, result_ids: list, effect_at: list, n: int) -> list:
    """``postorder_positions(n, *_dependencies_of(inputs, result_ids, effect_at, n))`` without the
    dependency lists: the DFS follows each op's input ids through the producer map as it goes.

    The same order: a repeated producer, an id produced outside the block (None) and a
    previous side-effecting op already among the producers are skipped by the DFS anyway
    (visited, or no position), so the dependency lists' de-duplication changes nothing.
    Args as :func:`_dependencies_of`; returns positions 0..n-1.
    """
    get = {h: i for i, ids in enumerate(result_ids) for h in ids}.get
    prev_effect: list = [None] * n  # per body op: the side-effecting op before it, if it has an effect
    prev = None
    for k in effect_at:
        prev_effect[k] = prev
        prev = k
    visited = [False] * n
    order_pos: list[int] = []
    append = order_pos.append
    for root in chain(map(get, inputs[n]), range(n)):
        if root is None or visited[root]:
            continue
        visited[root] = True
        p = prev_effect[root]
        stack = [(root, map(get, inputs[root]) if p is None else chain(map(get, inputs[root]), (p,)))]
        while stack:
            node, it = stack[-1]
            for nxt in it:
                if nxt is not None and not visited[nxt]:
                    visited[nxt] = True
                    p = prev_effect[nxt]
                    stack.append((nxt, map(get, inputs[nxt]) if p is None else chain(map(get, inputs[nxt]), (p,))))
                    break
            else:
                stack.pop()
                append(node)
    return order_pos


def _postorder(inputs: list, result_ids: list, effect_at: list, n: int, checking: bool) -> list:
    """:func:`postorder_of_inputs`; with ``checking`` (the checking mode) compared with the
    definition (:func:`_dependencies_of`, :func:`postorder_positions`): AssertionError if they differ."""
    got = postorder_of_inputs(inputs, result_ids, effect_at, n)
    if checking:
        slow = postorder_positions(n, *_dependencies_of(inputs, result_ids, effect_at, n))
        if got != slow:
            raise AssertionError("schedule-postorder: the DFS over input ids differs from the one over dependency lists")
    return got


def settled_blocks(info: EntryBlock) -> int | None:
    """The number of blocks schedule-postorder would count in a function, if it would move nothing
    there, decided from ``info`` alone (no IR read); None when that cannot be told so.

    Needs the maker's promise :attr:`EntryBlock.nested_blocks` (one entry block ending in a known
    terminator; no nested block where anything can move) and every effect known (no composite):
    then only the entry block's order is in question, and it is settled when its post-order
    (:func:`postorder_of_inputs`) is the order it has.
    """
    nested = info.nested_blocks
    if nested is None:
        return None
    effects = info.effects
    if None in effects:
        return None
    n = len(info.ops) - 1
    if n >= 2:
        effect_at = [k for k in range(n) if effects[k]]
        if postorder_of_inputs(info.inputs, info.result_ids, effect_at, n) != list(range(n)):
            return None
    return 1 + nested


def _check_settled(func_op, blocks: int) -> None:
    """The checking mode of :func:`settled_blocks`: :func:`schedule_block_postorder` (the definition)
    on every block of ``func_op`` must move nothing and count ``blocks`` blocks; AssertionError if not."""
    oracle = EffectOracle(func_op)
    counted = 0
    for block in all_blocks(func_op):
        got = schedule_block_postorder(block, oracle)
        if got is None:
            continue
        counted += 1
        if got[1]:
            what = f"is in order, but {got[1]} ops of a block would move"
            raise AssertionError(f"schedule-postorder: the kept EntryBlock says @{func_name(func_op)} {what}")
    if counted != blocks:
        what = f"has {blocks} blocks to schedule, a walk finds {counted}"
        raise AssertionError(f"schedule-postorder: the kept EntryBlock says @{func_name(func_op)} {what}")


class _PostorderState:
    """Shared by the functions of one run: the effect answers per op name (and the oracle's
    per-decomposition memo), so a module of many small functions asks each name once, not once
    per function. Only ops move during the run, which changes no op's effect."""

    def __init__(self) -> None:
        self.leaf: LeafEffects | None = None


def _run_schedule_postorder(func_op, ctx):
    # The order of schedule_block_postorder on every block of ir_utils.all_blocks(func_op),
    # computed in one visit of the function.
    state = ctx.state
    kept = ctx.analyses.cached(EntryBlock, func_op)  # a new decomposition's, from the fusion codegen
    if kept is not None:
        blocks = settled_blocks(kept)
        if blocks is not None:  # in order already: nothing to read, the kept EntryBlock stays valid
            if ctx.analyses.checking:
                _check_settled(func_op, blocks)
            ctx.stats["blocks"] += blocks
            return
    if state.leaf is None:
        state.leaf = LeafEffects(CensusEffectOracle(func_op, ctx.census, ctx.analyses))
    tree = _TreeScheduler(state.leaf, ctx, func_op)
    entry: list = []
    for r, region in enumerate(func_op.regions):
        for b, block in enumerate(region.blocks):
            tree.schedule(block, entry=entry if r == 0 and b == 0 else None)
    if tree.at != len(tree.walked):
        raise AssertionError(f"schedule-postorder: read {tree.at} ops of @{func_name(func_op)}, its walk has {len(tree.walked)}")
    if tree.blocks:
        ctx.stats["blocks"] += tree.blocks
    if tree.moved:
        ctx.stats["ops-moved"] += tree.moved
    if entry:  # the entry block as left, for analyze-schedule and hoist-compute
        ctx.analyses.put(EntryBlock, func_op, entry[0])


register_twins(
    "schedule-postorder",
    "Reorder each block ending in a known terminator into the post-order of a DFS from the terminator's operands",
    _run_schedule_postorder,
    class_name="SchedulePostorder",
    statistics=("blocks", "ops-moved"),
    state=_PostorderState,
    source="seed 004 step 17 (gate cfg[0x130]); DESIGN.md catalogue step 17 (our interpretation)",
)
