"""Spine step 27: ``canonicalize-for-tensorizer`` (twin ``canonicalize-for-penguin``, alias ``stablehlo-canonicalize-for-tensorizer``).

Eight semantics-preserving rewrites that make ops fit the backend (see
:func:`run_canonicalize_for_tensorizer`). Seed 004 names the pass (step 27,
"8 sub-rewriters"); the choice of the eight is ours (DESIGN.md catalogue).
"""

from __future__ import annotations

from collections.abc import Callable

from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.ir.utils import attr_is, defining_op, int_list, int_list_of
from hilo_mlir.passmanager.registry import register_twins
from hilo_mlir.rewrite.pattern import PatternRewriter, RewritePattern, apply_patterns_once

# --------------------------------------------------------------------------- helpers


def _static_shape(t):
    if not isinstance(t, ir.RankedTensorType) or not t.has_static_shape:
        return None
    return list(t.shape)


def _reshape(rw, value, t, before):
    """A ``reshape`` of ``value`` to ``t`` inserted before ``before`` (at its location)."""
    return rw.create(rw.d.name("reshape"), results=[t], operands=[value], before=before).results[0]


def _splat_bool(d, v):
    """The splat boolean value of a constant predicate, or None."""
    p = defining_op(v)
    if p is None or not d.is_op(p, "constant"):
        return None
    a = ir.DenseElementsAttr(p.attributes["value"])
    if not a.is_splat:
        return None
    s = a.get_splat_value()
    if isinstance(s, ir.BoolAttr):
        return bool(s.value)
    try:
        return bool(ir.IntegerAttr(s).value)
    except ValueError:
        return None


_MIRROR = {"EQ": "EQ", "NE": "NE", "LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE"}

# --------------------------------------------------------------------------- step 27: the eight rewrites


def _attr(op, name: str) -> ir.Attribute | None:
    """``op``'s attribute ``name``, or None (one the verifier requires: absent only in unverified IR)."""
    try:
        return op.attributes[name]
    except KeyError:
        return None


#: the key of an absent attribute in a memo (never a hash: Python turns a hash of -1 into -2)
_ABSENT = -1


def _pointer(obj: ir.Type | ir.Attribute | None) -> int:
    """The C++ pointer of a uniqued type or attribute (``hash`` is the pointer in the binding:
    :func:`_check_pointer_hash`), :data:`_ABSENT` for None."""
    return _ABSENT if obj is None else hash(obj)


def _check_pointer_hash(obj: ir.Type | ir.Attribute) -> None:
    """Raise :class:`AssertionError` unless ``hash(obj)`` is its C++ pointer (the memos' keys rely on it)."""
    if hash(obj) != identity_key(obj):
        raise AssertionError(f"canonicalize-for-tensorizer: hash({obj}) is not its pointer: the memo keys would be wrong")


class _Memo:
    """The refusals of a pattern whose answer depends only on uniqued objects (types, attributes):
    ``{their pointers: refusal or None}`` for one pass run. Keyed by pointers, so a lookup never
    calls the binding's equality (a tuple of ``ir.Type`` keys calls it per element on every hit).

    ``checking`` (the checking mode): every hit is compared with asking ``refusal_of`` again.
    """

    def __init__(self, refusal_of: Callable[..., str | None]) -> None:
        self.refusal_of = refusal_of
        self.answers: dict[tuple[int, ...], str | None] = {}
        self.checking = False  # set by the pass run (its analysis manager's checking mode)

    def match(self, objs: tuple[ir.Type | ir.Attribute | None, ...], op: ir.Operation, rw: PatternRewriter) -> bool:
        """True if ``refusal_of(*objs)`` is None, else False with the refusal as ``op``'s match failure.

        Raises:
            AssertionError: (checking mode) a remembered answer differs from asking again, or
                ``hash`` of a type or attribute is not its pointer.
        """
        key = tuple(map(_pointer, objs))
        answers = self.answers
        if key in answers:
            refusal = answers[key]
            if self.checking:
                for o in objs:
                    if o is not None:
                        _check_pointer_hash(o)
                if self.refusal_of(*objs) != refusal:
                    raise AssertionError(f"canonicalize-for-tensorizer: the memo answers {refusal!r} for {objs}, asking gives another")
        else:
            refusal = answers[key] = self.refusal_of(*objs)
        return refusal is None or rw.notify_match_failure(op, refusal)


class TransposeToReshape(RewritePattern):
    """transpose whose permutation keeps the non-unit dimensions in order -> reshape (identity -> operand).

    The answer depends only on the operand type and ``permutation`` (both uniqued): kept per
    pair for the pass run (two reads per op; the shape and the permutation once per pair).
    """

    name, roots = "transpose-to-reshape", ("transpose",)

    def __init__(self) -> None:
        self.memo = _Memo(self._refusal)

    def match(self, op, rw):
        return self.memo.match((op.operands[0].type, _attr(op, "permutation")), op, rw)

    @staticmethod
    def _refusal(t_in, perm_attr) -> str | None:
        """Why a transpose of a ``t_in`` by ``perm_attr`` is not a reshape, or None."""
        shape = _static_shape(t_in)
        if shape is None:
            return "operand shape is not static"
        non_unit = [p for p in (int_list(perm_attr) if perm_attr is not None else []) if shape[p] != 1]
        return None if non_unit == sorted(non_unit) else "moves non-unit dimensions"

    def rewrite(self, op, rw):
        src = op.operands[0]
        if int_list_of(op.attributes, "permutation") == list(range(src.type.rank)):
            rw.replace_op(op, [src])
            return
        rw.replace_op(op, [_reshape(rw, src, op.results[0].type, op)])


class ReshapeFold(RewritePattern):
    """reshape to the operand's own type -> operand; reshape(reshape(x)) -> reshape(x)."""

    name, roots = "reshape-fold", ("reshape",)

    def match(self, op, rw):
        src = op.operands[0]
        if src.type == op.result.type:
            return True
        inner = defining_op(src)
        return (inner is not None and rw.d.is_op(inner, "reshape")) or rw.notify_match_failure(op, "operand is not a reshape")

    def rewrite(self, op, rw):
        src = op.operands[0]
        if src.type == op.results[0].type:
            rw.replace_op(op, [src])
            return
        inner = defining_op(src)
        assert inner is not None  # match() saw a reshape
        x = inner.operands[0]
        if x.type == op.results[0].type:
            rw.replace_op(op, [x])
        else:
            rw.rewriter.set_operand(op, 0, x)
        if not list(inner.results[0].uses):
            rw.erase_op(inner)


class BroadcastToReshape(RewritePattern):
    """broadcast_in_dim that only inserts size-1 dimensions (increasing dims, same element count) -> reshape.

    The answer depends only on the operand type, the result type and
    ``broadcast_dimensions`` (all uniqued): kept per triple for the pass run
    (types and attributes are read once per op, shapes once per triple).
    """

    name, roots = "broadcast-to-reshape", ("broadcast_in_dim",)

    def __init__(self) -> None:
        self.memo = _Memo(self._refusal)

    def match(self, op, rw):
        return self.memo.match((op.operands[0].type, op.result.type, _attr(op, "broadcast_dimensions")), op, rw)

    @staticmethod
    def _refusal(t_in, t_out, dims_attr) -> str | None:
        """Why a broadcast from ``t_in`` to ``t_out`` over ``dims_attr`` is not a reshape, or None."""
        s_in, s_out = _static_shape(t_in), _static_shape(t_out)
        if s_in is None or s_out is None:
            return "shapes are not static"
        dims = int_list(dims_attr) if dims_attr is not None else []
        if dims != sorted(dims) or len(set(dims)) != len(dims):
            return "broadcast_dimensions are not increasing"
        if any(s_in[i] != s_out[dim] for i, dim in enumerate(dims)):
            return "expands a dimension"
        if any(s_out[j] != 1 for j in range(len(s_out)) if j not in set(dims)):
            return "inserts a dimension larger than 1"
        return None

    def rewrite(self, op, rw):
        src = op.operands[0]
        if src.type == op.results[0].type:
            rw.replace_op(op, [src])
            return
        rw.replace_op(op, [_reshape(rw, src, op.results[0].type, op)])


class ConvertNoop(RewritePattern):
    """convert to the operand's own type -> operand."""

    name, roots = "convert-noop", ("convert",)

    def match(self, op, rw):
        return op.operands[0].type == op.result.type or rw.notify_match_failure(op, "changes the type")

    def rewrite(self, op, rw):
        rw.replace_op(op, [op.operands[0]])


class DotToDotGeneral(RewritePattern):
    """dot -> dot_general contracting lhs's last dimension with rhs's first (precision_config kept)."""

    name, roots = "dot-to-dot-general", ("dot",)

    def match(self, op, rw):
        ranked = all(isinstance(v.type, ir.RankedTensorType) for v in (op.operands[0], op.operands[1]))
        return ranked or rw.notify_match_failure(op, "an operand is unranked")

    def rewrite(self, op, rw):
        d = rw.d
        lhs, rhs = op.operands[0], op.operands[1]
        lr = lhs.type.rank
        dnums = ir.Attribute.parse(f"#{d.prefix}.dot<lhs_contracting_dimensions = [{lr - 1}], rhs_contracting_dimensions = [0]>")
        attrs = {"dot_dimension_numbers": dnums}
        if "precision_config" in op.attributes:
            attrs["precision_config"] = op.attributes["precision_config"]
        new = rw.create(d.name("dot_general"), results=[op.results[0].type], operands=[lhs, rhs], attributes=attrs, before=op)
        rw.replace_op(op, [new.results[0]])


def _direction(op) -> str:
    return str(op.attributes["comparison_direction"]).rsplit(" ", 1)[-1].rstrip(">")


class CompareConstantRhs(RewritePattern):
    """compare(constant, x) -> compare(x, constant) with the mirrored direction."""

    name, roots = "compare-constant-rhs", ("compare",)

    def match(self, op, rw):
        d = rw.d
        lp, rp = defining_op(op.operands[0]), defining_op(op.operands[1])
        if lp is None or not d.is_op(lp, "constant") or (rp is not None and d.is_op(rp, "constant")):
            return rw.notify_match_failure(op, "lhs is not the only constant operand")
        return _direction(op) in _MIRROR or rw.notify_match_failure(op, "direction has no mirror")

    def rewrite(self, op, rw):
        lhs, rhs = op.operands[0], op.operands[1]
        new = ir.Attribute.parse(f"#{rw.d.prefix}<comparison_direction {_MIRROR[_direction(op)]}>")
        if not attr_is(op, "comparison_direction", new):
            rw.rewriter.set_attr(op, "comparison_direction", new)
        rw.rewriter.set_operand(op, 0, rhs)
        rw.rewriter.set_operand(op, 1, lhs)


class SelectSplatPredicate(RewritePattern):
    """select(splat constant predicate, a, b) -> a or b."""

    name, roots = "select-splat-predicate", ("select",)

    def _chosen(self, op, rw):
        b = _splat_bool(rw.d, op.operands[0])
        if b is None:
            return None
        return op.operands[1] if b else op.operands[2]

    def match(self, op, rw):
        chosen = self._chosen(op, rw)
        if chosen is None:
            return rw.notify_match_failure(op, "predicate is not a splat constant")
        return chosen.type == op.results[0].type or rw.notify_match_failure(op, "chosen operand has another type")

    def rewrite(self, op, rw):
        rw.replace_op(op, [self._chosen(op, rw)])


class SliceFull(RewritePattern):
    """slice of the whole operand with unit strides -> operand."""

    name, roots = "slice-full", ("slice",)

    def match(self, op, rw):
        src = op.operands[0]
        shape = _static_shape(src.type)
        if src.type != op.results[0].type or shape is None:
            return rw.notify_match_failure(op, "not a static slice of the same type")
        starts = int_list_of(op.attributes, "start_indices")
        limits = int_list_of(op.attributes, "limit_indices")
        strides = int_list_of(op.attributes, "strides")
        whole = all(s == 0 for s in starts) and limits == shape and all(s == 1 for s in strides)
        return whole or rw.notify_match_failure(op, "not the whole operand with unit strides")

    def rewrite(self, op, rw):
        rw.replace_op(op, [op.operands[0]])


def make_patterns() -> tuple[RewritePattern, ...]:
    """The eight rewrites of step 27, in the order of the docs (fresh instances: one set per pass run)."""
    return (
        TransposeToReshape(),
        ReshapeFold(),
        BroadcastToReshape(),
        ConvertNoop(),
        DotToDotGeneral(),
        CompareConstantRhs(),
        SelectSplatPredicate(),
        SliceFull(),
    )


#: the eight rewrites of step 27, in the order of the docs
PATTERNS: tuple[RewritePattern, ...] = make_patterns()


class _RunState:
    """One pass run's patterns (their memos hold types and attributes of that run's context)."""

    def __init__(self) -> None:
        self.patterns = make_patterns()


def run_canonicalize_for_tensorizer(func_op, ctx) -> None:
    """CanonicalizeForTensorizer: eight semantics-preserving rewrites that make ops fit the backend.

    One sweep of :data:`PATTERNS` over the function in pre-order
    (:func:`~hilo_mlir.rewrite.pattern.apply_patterns_once`: nested regions
    included; a producer is visited before its users, so chains collapse in
    one sweep and the pass is linear in the number of ops; no walk when no
    candidate the census lists matches). Each rewrite is counted in a
    statistic of its name; ``--debug`` says why a candidate was left alone:

    1. ``transpose-to-reshape``: ``transpose`` whose permutation keeps the
       relative order of the non-unit dimensions moves no data: it becomes a
       ``reshape`` (an identity permutation disappears). Static shapes only.
    2. ``reshape-fold``: ``reshape(reshape(x))`` -> ``reshape(x)`` (the inner one
       is erased when unused); a ``reshape`` to its operand's type disappears.
    3. ``broadcast-to-reshape``: ``broadcast_in_dim`` with increasing
       ``broadcast_dimensions`` that only inserts size-1 dimensions is a
       ``reshape`` (the identity broadcast disappears).
    4. ``convert-noop``: ``convert`` to the operand's own type disappears.
    5. ``dot-to-dot-general``: ``dot`` -> ``dot_general`` contracting lhs's last
       dimension with rhs's first (the backend has one matmul form);
       ``precision_config`` is kept.
    6. ``compare-constant-rhs``: ``compare(constant, x)`` -> ``compare(x,
       constant)`` with the mirrored direction (LT<->GT, LE<->GE; EQ, NE
       unchanged; ``compare_type`` kept; NaN behaviour unchanged).
    7. ``select-splat-predicate``: ``select`` whose predicate is a splat
       constant is the chosen operand.
    8. ``slice-full``: ``slice`` of the whole operand with unit strides is the
       operand.

    Shapes/dtypes: any ranked tensors; rewrites needing static shapes (1, 3, 8)
    skip dynamic ones. Raises nothing. Source: seed 004 step 27 ("8
    sub-rewriters"); the choice of the eight is ours (DESIGN.md decision 8).
    """
    state = ctx.state
    patterns = state.patterns if state is not None else make_patterns()
    checking = ctx.analyses.checking
    for p in patterns:
        memo = getattr(p, "memo", None)
        if isinstance(memo, _Memo):
            memo.checking = checking
    apply_patterns_once(func_op, patterns, ctx)


register_twins(
    "canonicalize-for-tensorizer",
    "Eight rewrites that make ops fit the backend (transpose/broadcast->reshape, reshape fold, no-op convert, dot->dot_general, "
    "constant on the compare rhs, select of a splat predicate, full slice)",
    run_canonicalize_for_tensorizer,
    stablehlo_argument="canonicalize-for-penguin",  # the binary's argument of the twin (seed 004, step 27)
    class_name="CanonicalizeForTensorizer",
    state=_RunState,
    statistics=tuple(p.name for p in PATTERNS),
    source="seed 004 step 27 (StableHLO twin argument 'canonicalize-for-penguin'); rewrites: our interpretation (DESIGN.md catalogue)",
)
