"""Shared reads of the NeuronOpFusion sub-passes: where an op sits, what a walk would find.

The matchers never spell an op name (they ask the dialect table, ``run.d``)
and never mutate IR (:class:`~hilo_mlir.passes.fusion.op_fusion.run.FusionRun` does,
through the rewriter).
"""

from __future__ import annotations

import functools

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import FUSION_OP_NAMES, is_fusion_like
from hilo_mlir.ir.utils import as_op, defining_op


def same_block(a, b) -> bool:
    """``a`` and ``b`` sit directly in the same block."""
    ba, bb = a.block, b.block
    return ba is not None and bb is not None and ba == bb  # ir.Block compares by its C++ pointer


_FUSION_LIKE = FUSION_OP_NAMES
_TOP = ("func.func", "builtin.module")


def inside_fusion(op) -> bool:
    """True if an ancestor of ``op`` is an ``mhlo.fusion`` / ``stablehlo.composite``."""
    p = op.parent
    while p is not None:
        name = p.name  # op.parent is an ir.Operation (never an OpView), so .name is the op name
        if name in _FUSION_LIKE:
            return True
        if name in _TOP:
            return False
        p = p.parent
    return False


def in_function_body(op, func) -> bool:
    """``op`` is nested in ``func`` and not inside a fusion: an op ``collect(func, ...)`` can find."""
    p = op.parent
    while p is not None:
        p = as_op(p)
        name = p.name
        if name in _FUSION_LIKE:
            return False
        if name == "func.func":
            return p == func
        if name == "builtin.module":
            return False
        p = p.parent
    return False


def collect(func_op, pred=None, names=None) -> list:
    """Ops of ``func_op`` (nested regions included, fusion bodies excluded) for which ``pred(op)``.

    Pre-order walk; the regions of fused ops are skipped (no sub-pass seeds
    inside an existing fusion). ``names`` (full op names)
    restricts the result to those ops with one name lookup per op (then
    ``pred``, if given, also has to hold).
    """
    out = []
    if names is not None:
        names = frozenset(names)

        def visit_named(op):
            op = op.operation
            name = op.name
            if name in _FUSION_LIKE:
                return ir.WalkResult.SKIP
            if name in names and (pred is None or pred(op)):
                out.append(op)
            return ir.WalkResult.ADVANCE

        func_op.walk(visit_named, ir.WalkOrder.PRE_ORDER)
        return out

    def visit(op):
        op = op.operation
        if is_fusion_like(op):
            return ir.WalkResult.SKIP
        if pred(op):
            out.append(op)
        return ir.WalkResult.ADVANCE

    func_op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


#: Anchor kinds whose ops never hold regions: for them the census's walk order
#: (post-order) restricted to one name is the pre-order ``collect`` gives.
REGION_FREE = frozenset({"add", "logistic", "sqrt", "rsqrt", "exponential_minus_one", "log_plus_one", "concatenate"})


def _chain(op, func) -> list:
    """``op``'s ancestors below ``func``, outermost first, ending with ``op``."""
    chain = [op]
    p = op.parent
    while p is not None:
        p = as_op(p)
        if p == func:
            break
        chain.append(p)
        p = p.parent
    chain.reverse()
    return chain


def _block_rank(parent, block) -> tuple:
    """(region number, block number) of ``block`` among ``parent``'s regions."""
    for ri, region in enumerate(parent.regions):
        for bi, b in enumerate(region.blocks):
            if b == block:
                return (ri, bi)
    return (len(parent.regions), 0)


def preorder_sorted(ops, func) -> list:
    """``ops`` (distinct ops nested in ``func``) in the pre-order a walk of ``func`` visits them.

    An op comes before the ops nested in it; ops of one block follow MLIR's
    block order (``is_before_in_block``); ops under one parent follow its
    region, then block order.
    """
    if len(ops) < 2:
        return list(ops)
    chains = [(_chain(o, func), o) for o in ops]

    def cmp(x, y) -> int:
        a, b = x[0], y[0]
        for i in range(min(len(a), len(b))):
            p, q = a[i], b[i]
            if p == q:
                continue
            pb, qb = p.block, q.block
            if pb == qb:
                return -1 if p.is_before_in_block(q) else 1
            parent = a[i - 1] if i else func
            return -1 if _block_rank(parent, pb) < _block_rank(parent, qb) else 1
        return len(a) - len(b)

    return [o for _, o in sorted(chains, key=functools.cmp_to_key(cmp))]


_ANY_SHORT: dict = {}  # op name -> the part after the first dot (any dialect)


def _any_short(name: str) -> str:
    short = _ANY_SHORT.get(name)
    if short is None:
        short = _ANY_SHORT[name] = name.split(".", 1)[-1]
    return short


def is_constant_like(v, memo: dict | None = None) -> bool:
    """``v`` is a constant or a broadcast_in_dim/reshape/convert chain of one (stays a live-in).

    ``memo`` (:func:`value_key` -> answer; :attr:`FusionRun.const_memo`) saves
    re-reading a constant many matches share; it must be cleared whenever an
    op is erased (a value's address may then be reused).
    """
    if memo is not None:
        k = hash(v)  # == value_key(v)
        hit = memo.get(k)
        if hit is None:
            hit = memo[k] = is_constant_like(v)
        return hit
    op = defining_op(v)
    for _ in range(8):
        if op is None:
            return False
        short = _any_short(op.name)
        if short in ("constant", "iota"):
            return True
        if short in ("broadcast_in_dim", "reshape", "convert", "broadcast"):
            op = defining_op(op.operands[0])
            continue
        return False
    return False


__all__ = ["REGION_FREE", "collect", "in_function_body", "inside_fusion", "is_constant_like", "preorder_sorted", "same_block"]
