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

from typing import Any

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES, DialectTable, i64_list, table_for
from hilo_mlir.ir.utils import is_reduction_identity, reducer_kind
from hilo_mlir.passmanager.registry import PassInfo, register
from hilo_mlir.rewrite.pattern import PatternContext, PatternRewriter, RewritePattern, apply_patterns_once

#: the reduce and slice ops of every dialect, MHLO first
_REDUCES = tuple(t.name("reduce") for t in TABLES.values())
_SLICES = tuple(t.name("slice") for t in TABLES.values())


def _producer(v: ir.Value, d: DialectTable, short: str) -> ir.Operation | None:
    """The op defining ``v`` if it is ``d``'s ``short`` op; None for a block argument or another op."""
    if isinstance(v.owner, ir.Block):
        return None
    op = v.owner.operation
    return op if d.is_op(op, short) else None


def _single_use(v: ir.Value) -> bool:
    n = 0
    for _ in v.uses:
        n += 1
        if n > 1:
            return False
    return n == 1


class CombineReduceSliceReduce(RewritePattern):
    """``reduce(slice(reduce(x)))`` with one associative reducer -> ``reduce(slice'(x))`` (see the module docstring).

    Root: the outer reduce (either dialect). Refusals (``--debug``): not a
    reduce of a slice of a reduce, a variadic inner reduce, other users of the
    inner reduce or slice, different or non-associative reducers, a
    non-identity init, a dynamic or unranked input.
    """

    name, statistic = "reduce-slice-reduce", "reduces-combined"
    roots = _REDUCES

    def match(self, op: Any, rw: PatternRewriter) -> bool:
        r2 = op
        d = table_for(r2)
        assert d is not None, "a reduce of a dialect in TABLES"
        if len(r2.operands) != 2 or len(r2.results) != 1:
            return rw.notify_match_failure(r2, "variadic reduce")
        s = _producer(r2.operands[0], d, "slice")
        if s is None:
            return rw.notify_match_failure(r2, "operand is not a slice")
        r1 = _producer(s.operands[0], d, "reduce")
        if r1 is None:
            return rw.notify_match_failure(r2, "slice operand is not a reduce")
        if len(r1.operands) != 2 or len(r1.results) != 1:
            return rw.notify_match_failure(r2, "inner reduce is variadic")
        if not _single_use(r1.results[0]) or not _single_use(s.results[0]):
            return rw.notify_match_failure(r2, "inner reduce or slice has other users")
        k1, k2 = reducer_kind(r1, d), reducer_kind(r2, d)
        if k1 is None or k1 != k2:
            return rw.notify_match_failure(r2, f"reducers differ or are not a single associative op ({k1} vs {k2})")
        if not (is_reduction_identity(r1.operands[1], k1) and is_reduction_identity(r2.operands[1], k2)):
            return rw.notify_match_failure(r2, f"an init value is not the identity of {k1}")
        x = r1.operands[0]
        if x.type.typeid != ir.RankedTensorType.static_typeid or not ir.RankedTensorType(x.type).has_static_shape:
            return rw.notify_match_failure(r2, "dynamic or unranked input")
        return True

    def rewrite(self, op: Any, rw: PatternRewriter) -> None:
        r2 = op
        d = table_for(r2)
        assert d is not None, "matched"
        s = _producer(r2.operands[0], d, "slice")
        assert s is not None, "matched"
        r1 = s.operands[0].owner.operation
        x = r1.operands[0]
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
        rewriter = rw.rewriter
        with r2.context, r2.location:
            ns = rewriter.create(
                d.name("slice"),
                results=[ir.RankedTensorType.get(shape, xt.element_type)],
                operands=[x],
                attributes={"start_indices": d.i64_array(n_start), "limit_indices": d.i64_array(n_limit), "strides": d.i64_array(n_stride)},
                loc=s.location,
                before=r2,
            )
            rewriter.set_operand(r2, 0, ns.results[0])
            rewriter.set_attr(r2, "dimensions", d.i64_array(dims))
        # the slice and the inner reduce were visited before r2 (they are its producers)
        rw.erase_op(s)
        rw.erase_op(r1)


#: one sequence for every call (the drivers resolve its roots once per pass run)
_PATTERNS = (CombineReduceSliceReduce(),)


def _run(func_op: Any, ctx: PatternContext) -> None:
    # Every match has a slice between its two reduces: none in the function (census, no walk), nothing to do.
    census = ctx.census
    if census.names.isdisjoint(_REDUCES) or not census.ops_named(func_op, *_SLICES, any_order=True):
        return
    # One sweep in walk order: an inner (earlier) reduce is visited before the reduces using it, so a
    # combined reduce can feed another match further down.
    apply_patterns_once(func_op, _PATTERNS, ctx)


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
