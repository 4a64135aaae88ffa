"""Contractions: every matmul through one :func:`print_dot_op`; convolutions counted (format section 9).

``dot``, ``dot_general`` and the scaled matmul (:mod:`.custom_calls`) print
as one statement form::

    v = m1.DotOp(srcs=[lhs, rhs(, lhs_scale, rhs_scale)], dsts=[...],
                 lhs_batch_dimensions=[...], rhs_batch_dimensions=[...],
                 lhs_contracting_dimensions=[...], rhs_contracting_dimensions=[...],
                 op='<tag>', <other keywords>, xla_op='<mlir op>', dl=...)

``<tag>`` is the op's own name for ``dot`` / ``dot_general`` and
``'mhlo.scaled_dot'`` for the scaled matmul. ``dot`` has the dimension
numbers it implies (lhs contracting ``[rank - 1]``, rhs contracting ``[0]``,
no batch). The op's other attributes (``precision_config``,
``algorithm``, ...) follow ``op=`` as ordinary keywords.

Each printed contraction adds its multiply-accumulates to the printer's
``mac_count`` (the prologue's ``mac-count``): a dot, result elements times
the product of the contracting dimension sizes; a convolution, result
elements times (kernel elements / output features).
"""

from __future__ import annotations

import math

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import py_literal

_DIM_KEYS = ("lhs_batch_dimensions", "rhs_batch_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions")


def _attr(rec, name: str):
    """The attribute ``name`` of ``rec`` (from its snapshot when the binding could read them all), or None."""
    if rec.items is not None:
        return next((a for k, a in rec.items if k == name), None)
    attrs = rec.op.attributes
    return attrs[name] if name in attrs else None


def _shape(t) -> tuple:
    from hilo_mlir.ir.binding import ir

    return tuple(ir.RankedTensorType(t).shape)


def _shape_of(p, t) -> tuple:
    """:func:`_shape` of ``t``, cached by the type's id in the printer (types are uniqued)."""
    key = hash(t)
    shape = p.shapes.get(key)
    if shape is None:
        shape = p.shapes[key] = _shape(t)
    return shape


def _lhs_type(p, rec):
    """The type of ``rec``'s operand 0: from :attr:`~.emit.Emitter.value_types` when the walk noted it, else read."""
    t = p.value_types.get(rec.srcs[0]) if p.fast_paths and rec.srcs else None
    return t if t is not None else rec.op.operands[0].type


#: the memo tag of the contractions' statements (:meth:`~.emit.Emitter.operand_memo_key`)
MEMO_TAG = "dot"


def _memo_key(p, rec):
    """The key of a contraction's statement memo (:meth:`~.emit.Emitter.statement_from_memo`), or None (not memoised).

    The statement and its MACs are a function of the op name, the result types,
    the location, the attributes and the lhs type alone (:meth:`~.emit.Emitter.operand_memo_key`).
    """
    return p.operand_memo_key(MEMO_TAG, rec)


def print_dot_op(p, rec, dims, tag: str, items=(), dims_key=None, lhs=None, memo_key=None) -> None:
    """The one ``DotOp`` statement: the four dimension lists, ``op=tag``, then ``items``; counts the MACs.

    Args:
        rec: the op record (operand 0 is the lhs).
        dims: ``(lhs batch, rhs batch, lhs contracting, rhs contracting)`` lists of ints.
        tag: the ``op=`` value.
        items: further ``(keyword, source)`` pairs, printed after ``op=``.
        dims_key: a hashable key that determines ``dims`` (the ``dot_dimension_numbers``
            attribute's id, the lhs rank of a ``dot``): the rendered dimension keywords are
            cached under ``(dims_key, tag)`` in the printer (:attr:`~.emit.Emitter.dot_texts`).
        lhs: the lhs type (read from the op when None).
        memo_key: the statement is kept under this key (:meth:`~.emit.Emitter.statement`'s ``memo``).
    """
    head = p.dot_texts.get((dims_key, tag)) if dims_key is not None else None
    if head is None:
        head = tuple((k, py_literal([int(d) for d in v])) for k, v in zip(_DIM_KEYS, dims)) + (("op", py_literal(tag)),)
        if dims_key is not None:
            p.dot_texts[(dims_key, tag)] = head
    attrs = list(head)
    attrs.extend(items)
    lhs_shape = _shape_of(p, lhs if lhs is not None else rec.op.operands[0].type)
    result = _shape_of(p, rec.types[0]) if len(rec.types) == 1 else ()
    macs = math.prod(result) * math.prod(lhs_shape[d] for d in dims[2])
    p.mac_count += macs
    p.statement(rec, "DotOp", attrs, memo=(memo_key, macs) if memo_key is not None else None)


def print_dot(p, rec) -> None:
    """``dot``: the contraction of the lhs's last dimension with the rhs's first."""
    lhs = _lhs_type(p, rec)
    key = _memo_key(p, rec)
    if key is not None and p.statement_from_memo(rec, key):
        return
    lhs_rank = len(_shape_of(p, lhs))
    print_dot_op(p, rec, ([], [], [lhs_rank - 1], [0]), rec.name, p.attr_items(rec), ("dot", lhs_rank), lhs, key)


def print_dot_general(p, rec) -> None:
    """``dot_general``: the dimension lists from ``dot_dimension_numbers``; its other attributes after ``op=``.

    Raises:
        HiloError: no ``dot_dimension_numbers`` attribute.
    """
    lhs = _lhs_type(p, rec)
    key = _memo_key(p, rec)
    if key is not None and p.statement_from_memo(rec, key):
        return
    attr = _attr(rec, "dot_dimension_numbers")
    dims = p.dot_dims.get(hash(attr)) if attr is not None else None
    if dims is None:
        dims = _decode_dims(attr)
        if dims is None:
            raise HiloError(f"'{rec.name}' op has no dot_dimension_numbers", loc=rec.op.location)
        p.dot_dims[hash(attr)] = dims
    items = p.attr_items(rec, skip=("dot_dimension_numbers",))
    print_dot_op(p, rec, dims, rec.name, items, ("dot_general", hash(attr)), lhs, key)


print_dot.memo_tag = print_dot_general.memo_tag = MEMO_TAG  # type: ignore[attr-defined]  # the walker writes memo hits


def _decode_dims(attr) -> tuple | None:
    """The four dimension lists of a ``dot_dimension_numbers`` attribute (either dialect's), or None."""
    from hilo_mlir.ir.binding import mhlo, stablehlo

    for dialect in (stablehlo, mhlo):
        if attr is not None and dialect.DotDimensionNumbers.isinstance(attr):
            d = dialect.DotDimensionNumbers(attr)
            return (
                list(d.lhs_batching_dimensions),
                list(d.rhs_batching_dimensions),
                list(d.lhs_contracting_dimensions),
                list(d.rhs_contracting_dimensions),
            )
    return None


def print_convolution(p, rec) -> None:
    """``convolution``: the generic statement; its MACs counted.

    Raises:
        HiloError: no ``dimension_numbers`` attribute.
    """
    from hilo_mlir.ir.binding import mhlo, stablehlo

    dn = _attr(rec, "dimension_numbers")
    if dn is None:
        raise HiloError(f"'{rec.name}' op has no dimension_numbers", loc=rec.op.location)
    kernel = _shape(rec.op.operands[1].type)
    for dialect in (stablehlo, mhlo):
        if dialect.ConvDimensionNumbers.isinstance(dn):
            out_features = kernel[dialect.ConvDimensionNumbers(dn).kernel_output_feature_dimension]
            if out_features:
                p.mac_count += math.prod(_shape(rec.types[0])) * (math.prod(kernel) // out_features)
            break
    p.statement(rec, attrs=p.attr_items(rec))
