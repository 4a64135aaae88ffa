"""fuseMulRedSqrt: the RMSNorm core, ``(r)sqrt(mean(x * x) + eps)``, becomes one ``MulRedSqrt`` fusion.

Root: ``sqrt`` or ``rsqrt`` (not inside a fusion). Walking up its operand
through single-use links -- ``add`` of a constant (epsilon),
``multiply``/``divide`` by a constant (the mean's 1/N; a divide only as the
dividend), and ``reshape``/``broadcast_in_dim`` that only insert size-1
dimensions (``keepdims``) -- it must reach a single-use add-``reduce`` (one
input, body ``return(add(acc, x))``) of a single-use ``multiply(x, x)``. The
chain (multiply, reduce, links, root) becomes one ``MulRedSqrt`` fusion;
constants, their broadcasts and ``x`` stay live-ins. This is what
``jnp.mean(x*x, -1, keepdims=True) + eps`` then ``rsqrt`` lowers to.
"""

from __future__ import annotations

import itertools

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import FusionKind
from hilo_mlir.ir.utils import defining_op, has_one_use, int_list
from hilo_mlir.passes.fusion.op_fusion.common import inside_fusion, is_constant_like
from hilo_mlir.passes.fusion.op_fusion.run import FusionRun

#: the op kinds this sub-pass seeds from
ANCHORS = ("sqrt", "rsqrt")
RULE = "fuseMulRedSqrt"


def _int_list(attr) -> list[int] | None:
    try:
        return int_list(attr)
    except ValueError:
        return None


def _shape(v):
    try:
        rt = ir.RankedTensorType(v.type)
    except (ValueError, TypeError):
        return None
    return list(rt.shape) if rt.has_static_shape else None


def only_inserts_unit_dims(run: FusionRun, op) -> bool:
    """``reshape``/``broadcast_in_dim`` whose result is its operand with size-1 dimensions inserted."""
    src, dst = _shape(op.operands[0]), _shape(op.results[0])
    if src is None or dst is None or len(dst) < len(src):
        return False
    if run.d.is_op(op, "reshape"):
        return [x for x in src if x != 1] == [x for x in dst if x != 1]
    if "broadcast_dimensions" not in op.attributes:
        return False
    dims = _int_list(op.attributes["broadcast_dimensions"])
    if dims is None or len(dims) != len(src) or any(b <= a for a, b in itertools.pairwise(dims)):
        return False
    mapped = set(dims)
    if any(dst[d] != s for d, s in zip(dims, src)):
        return False
    return all(dst[i] == 1 for i in range(len(dst)) if i not in mapped)


def is_add_reduce(run: FusionRun, op) -> bool:
    """A one-input ``reduce`` whose body is ``return(add(arg0, arg1))`` (either order)."""
    d = run.d
    if not d.is_op(op, "reduce") or len(op.operands) != 2:
        return False
    regions = op.regions
    if len(regions) != 1:
        return False
    blocks = regions[0].blocks
    if len(blocks) != 1:
        return False
    b = blocks[0]
    args = b.arguments
    if len(args) != 2:
        return False
    body = [o.operation for o in b.operations]
    if len(body) != 2:
        return False
    add, ret = body
    if not d.is_op(add, "add") or not d.is_op(ret, "return"):
        return False
    a0, a1 = args[0], args[1]
    ops = add.operands
    if len(ops) != 2:
        return False
    o0, o1 = ops[0], ops[1]
    if not ((o0 == a0 and o1 == a1) or (o0 == a1 and o1 == a0)):
        return False
    rops = ret.operands
    return len(rops) == 1 and rops[0] == add.results[0]


def _reduce_end(run: FusionRun, p, rblock):
    """The chain ends at reduce ``p``: ``(([multiply, p], their operand lists), None)`` or ``(None, refusal)``."""
    d = run.d
    if not is_add_reduce(run, p):
        return None, ("reduce-not-add", p)
    pops = p.operands
    rops = [pops[0], pops[1]]  # is_add_reduce: one input and its init
    mul = defining_op(rops[0])
    if mul is None or not d.is_op(mul, "multiply") or mul.block != rblock or not has_one_use(mul):
        return None, ("reduce-input-not-square", mul if mul is not None else p)
    mops = mul.operands
    m0, m1 = mops[0], mops[1]
    if m0 != m1:
        return None, ("reduce-input-not-square", mul)
    return ([mul, p], [[m0, m1], rops]), None


def _link(run: FusionRun, p, short: str):
    """``(the value link p continues the chain with, p's operands)``, or ``(None, refusal)`` (``p`` is not a reduce)."""
    memo = run.const_memo
    if short == "add" or short == "multiply":
        pops = p.operands
        a, b = pops[0], pops[1]
        if is_constant_like(b, memo):
            return a, [a, b]
        if is_constant_like(a, memo):
            return b, [a, b]
        return None, ("link-operand-not-constant", p)
    if short == "divide":
        pops = p.operands
        a, b = pops[0], pops[1]
        if not is_constant_like(b, memo):
            return None, ("link-operand-not-constant", p)
        return a, [a, b]
    if short == "reshape" or short == "broadcast_in_dim":
        if not only_inserts_unit_dims(run, p):
            return None, ("not-unit-dim-insertion", p)
        a = p.operands[0]
        return a, [a]
    return None, ("chain-op-not-allowed", p)


class Chain:
    """A matched MulRedSqrt chain, with what the matcher read of it (handed to the cluster).

    Attributes:
        ops: multiply, reduce, links, root (block order).
        block: the ``ir.Block`` holding them.
        operands: per op (same order), all its operand values.
        results: per op, its result values (``[value]``; None for the root: not read).
    """

    __slots__ = ("block", "operands", "ops", "results")

    def __init__(self, ops: list, block, operands: list, results: list):
        self.ops, self.block, self.operands, self.results = ops, block, operands, results


def _match(run: FusionRun, root):
    """``(Chain, None)`` on a match, else ``(None, refusal)``."""
    rblock = root.block
    chain = [root]
    v = root.operands[0]
    operands = [[v]]  # sqrt/rsqrt: one operand
    results: list = [None]
    for _ in range(64):  # links are few; bound the walk
        p = defining_op(v)
        if p is None:
            return None, ("chain-reaches-argument", None)
        pb = p.block
        if pb is None or pb != rblock:
            return None, ("not-one-block", p)
        if not has_one_use(p):
            return None, ("chain-multi-use", p)
        results.append([v])  # p has one result (has_one_use), and v is one of p's results
        short = run.d.short(p)
        if short == "reduce":
            end, refusal = _reduce_end(run, p, rblock)
            if end is None:
                return None, refusal
            (mul, red), (mul_ops, red_ops) = end
            results.append([red_ops[0]])  # the reduce's input is the multiply's one result (has_one_use)
            return Chain([mul, red, *chain[::-1]], rblock, [mul_ops, red_ops, *operands[::-1]], results[::-1]), None
        v, got = _link(run, p, short)
        if v is None:
            return None, got
        chain.append(p)
        operands.append(got)
    return None, ("chain-too-long", None)


def fuse_mul_red_sqrt(run: FusionRun) -> None:
    """``(r)sqrt(links(reduce_add(x*x)))`` -> one ``MulRedSqrt`` fusion."""
    # The memo lives for this sub-pass only: its clusters rewire no constant chain (only the
    # root, a sqrt/rsqrt, has users outside), so an answer cannot go stale while it runs.
    run.const_memo.clear()
    kind = FusionKind.MUL_RED_SQRT
    for root in run.anchors(*ANCHORS):
        if root.block is None:
            continue
        if inside_fusion(root):
            run.refuse(RULE, kind, root, "inside-fusion")
            continue
        found, refusal = _match(run, root)
        if found is None:
            run.refuse(RULE, kind, root, refusal[0], refusal[1])
            continue
        # a sealed chain: in block order (each op uses the one before), every op but the root has one
        # use (the next op's operand), and the reduce's body uses only its own arguments (is_add_reduce)
        run.emit(found.ops, kind, RULE, anchor=root, sealed=True, reads=(found.block, found.operands, found.results))
