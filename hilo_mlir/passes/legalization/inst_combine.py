"""Spine step 14: ``neuron-inst-combine`` (one pass for both dialects).

Source: seed 004 step 14 (``createNeuronInstCombinePass``, unconditional,
"reduce-slice-reduce peephole"; one shared symbol in both spines) and "Class
hierarchy" (``hilo::SimplifyReduceSliceReducePattern`` on the reduce op);
behaviour: DESIGN.md catalogue row 14 (our definition of the details).

Pattern (mhlo or stablehlo, matched by the op's own dialect)::

    %r1 = reduce(%x init: %i1) dims = D1          # single operand, single use
    %s  = slice %r1 [start:limit:stride]          # single use
    %r2 = reduce(%s init: %i2) dims = D2

with the same reducer in both (a body that is one ``add``, ``multiply``,
``maximum``, ``minimum``, ``and`` or ``or`` of its two block arguments, in
either order) and both inits the identity of that reducer (0, 1, -inf/min,
+inf/max, all-ones, 0: a non-identity init would be applied a different
number of times). Rewrite: ``%s' = slice %x`` (the slice moved to ``%x``'s
dimensions: full range on D1) and ``%r2`` reduces ``%s'`` over ``D1`` plus
``D2`` mapped to ``%x``'s dimensions; ``%r1`` and ``%s`` are erased.

Exact for integers and min/max; for floating add/multiply the summation
order changes (reassociation), as with any combined reduce.
Left alone (debug line): variadic reduces, different reducers, non-identity
inits, extra users of the intermediate values, dynamic shapes.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES, i64_list, table_for
from hilo_mlir.ir.utils import is_reduction_identity
from hilo_mlir.passmanager.registry import PassInfo, register

#: the reduce and slice ops of every dialect, MHLO first
_REDUCES = tuple(t.name("reduce") for t in TABLES.values())
_SLICES = tuple(t.name("slice") for t in TABLES.values())

_REDUCERS = ("add", "multiply", "maximum", "minimum", "and", "or")


def _producer(v, d, short):
    if isinstance(v.owner, ir.Block):
        return None
    op = v.owner.operation
    return op if d.is_op(op, short) else None


def _single_use(v) -> bool:
    n = 0
    for _ in v.uses:
        n += 1
        if n > 1:
            return False
    return n == 1


def _reducer_kind(reduce_op, d) -> str | None:
    """Short name of the body's binary op if the body is ``op(arg0, arg1)`` then return."""
    if len(reduce_op.regions) != 1 or len(reduce_op.regions[0].blocks) != 1:
        return None
    block = reduce_op.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    if len(ops) != 2 or len(block.arguments) != 2:
        return None
    bin_op, ret = ops
    kind = d.short(bin_op)
    if kind not in _REDUCERS or len(bin_op.operands) != 2 or len(ret.operands) != 1:
        return None
    a0, a1 = block.arguments[0], block.arguments[1]
    if not ((bin_op.operands[0] == a0 and bin_op.operands[1] == a1) or (bin_op.operands[0] == a1 and bin_op.operands[1] == a0)):
        return None
    if ret.operands[0] != bin_op.results[0]:
        return None
    return kind


def _try(r2, d, ctx) -> bool:
    if len(r2.operands) != 2 or len(r2.results) != 1:
        return False
    s = _producer(r2.operands[0], d, "slice")
    if s is None:
        return False
    r1 = _producer(s.operands[0], d, "reduce")
    if r1 is None:
        return False
    where = f"reduce at {r2.location}"
    if len(r1.operands) != 2 or len(r1.results) != 1:
        ctx.debug(f"{where}: inner reduce is variadic")
        return False
    if not _single_use(r1.results[0]) or not _single_use(s.results[0]):
        ctx.debug(f"{where}: inner reduce or slice has other users")
        return False
    k1, k2 = _reducer_kind(r1, d), _reducer_kind(r2, d)
    if k1 is None or k1 != k2:
        ctx.debug(f"{where}: reducers differ or are not a single associative op ({k1} vs {k2})")
        return False
    if not (is_reduction_identity(r1.operands[1], k1) and is_reduction_identity(r2.operands[1], k2)):
        ctx.debug(f"{where}: an init value is not the identity of {k1}")
        return False
    x = r1.operands[0]
    if x.type.typeid != ir.RankedTensorType.static_typeid or not ir.RankedTensorType(x.type).has_static_shape:
        ctx.debug(f"{where}: dynamic or unranked input")
        return False
    xt = ir.RankedTensorType(x.type)
    n = xt.rank
    d1 = set(i64_list(r1.attributes["dimensions"]))
    kept = [i for i in range(n) if i not in d1]
    start = i64_list(s.attributes["start_indices"])
    limit = i64_list(s.attributes["limit_indices"])
    stride = i64_list(s.attributes["strides"])
    n_start, n_limit, n_stride = [0] * n, list(xt.shape), [1] * n
    for j, xd in enumerate(kept):
        n_start[xd], n_limit[xd], n_stride[xd] = start[j], limit[j], stride[j]
    shape = [-(-(n_limit[i] - n_start[i]) // n_stride[i]) for i in range(n)]
    d2 = [kept[j] for j in i64_list(r2.attributes["dimensions"])]
    dims = sorted(d1 | set(d2))
    rw = ctx.rewriter
    with r2.context, r2.location:
        ns = rw.create(
            d.name("slice"),
            results=[ir.RankedTensorType.get(shape, xt.element_type)],
            operands=[x],
            attributes={"start_indices": d.i64_array(n_start), "limit_indices": d.i64_array(n_limit), "strides": d.i64_array(n_stride)},
            loc=s.location,
            before=r2,
        )
        rw.set_operand(r2, 0, ns.results[0])
        rw.set_attr(r2, "dimensions", d.i64_array(dims))
    rw.erase_op(s)
    rw.erase_op(r1)
    ctx.stats["reduces-combined"] += 1
    return True


def _run(func_op, ctx):
    if not ctx.module_may_contain(*_REDUCES):  # no reduce in the module: nothing to do
        return
    # Every match has a slice between its two reduces (census, no walk).
    if not ctx.ops_named(func_op, *_SLICES):
        return
    # Post-order: inner (earlier) reduces are visited before the ones using them;
    # a combined reduce can feed another match further down. The census lists
    # one name in walk (post-)order; a function with reduces of both dialects
    # is walked to keep their interleaving.
    mh, st = (ctx.ops_named(func_op, name) for name in _REDUCES)
    if not (mh and st):
        reduces = mh or st
    else:
        reduces = []

        def visit(op):
            d = table_for(op)
            if d is not None and d.is_op(op, "reduce"):
                reduces.append(op.operation)
            return ir.WalkResult.ADVANCE

        func_op.walk(visit, ir.WalkOrder.POST_ORDER)
    # Operation hashes follow operands/attributes: index everything before mutating.
    index = {op: i for i, op in enumerate(reduces)}
    inner_of = []
    for r2 in reduces:
        j = None
        d = table_for(r2)
        s = _producer(r2.operands[0], d, "slice") if len(r2.operands) == 2 else None
        if s is not None:
            r1 = _producer(s.operands[0], d, "reduce")
            j = index.get(r1) if r1 is not None else None
        inner_of.append(j)
    erased = set()
    for i, r2 in enumerate(reduces):
        if i in erased:
            continue
        if _try(r2, table_for(r2), ctx) and inner_of[i] is not None:
            erased.add(inner_of[i])


register(
    PassInfo(
        "neuron-inst-combine",
        "reduce -> slice -> reduce with the same associative reducer becomes slice -> one reduce (both dialects)",
        _run,
        anchor="func.func",
        dialect=None,
        class_name="NeuronInstCombine",
        statistics=("reduces-combined",),
        source="seed 004 step 14 (SimplifyReduceSliceReducePattern, one symbol for both spines); DESIGN.md row 14",
    )
)
