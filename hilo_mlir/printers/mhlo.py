"""The FusionKind dispatch: how an ``mhlo.fusion`` prints (format section 6).

An ``mhlo.fusion`` carries its cluster inline in its region and its kind in
the discardable string attribute ``FusionKind``. :func:`print_fusion`
dispatches on it through :data:`~.supported.FUSION_KINDS`:

=================================  =========================================
FusionKind                         printed as
=================================  =========================================
DotLogistic                        ``NeuronTensorOp(op='DotFusion')``
MulRedSqrt                         ``NeuronTensorOp(op='MulRedSqrt', reduce_dims=[...])``
Elementwise, Expm1, Log1p,         ``NeuronTensorOp(op='<kind>')``
DotSoftmax
ScheduleFusion                     no header: the body (the collectives) in order
anything else / missing            ``HiloError`` with code ``NCC_ISPP054``
=================================  =========================================

The summary is followed by the fusion body re-emitted transparently and
``<handle>.setResults([...])``. The kind string itself is the Python op name
and no ``hilo_fusion_op`` is printed (that keyword belongs to composites).
"""

from __future__ import annotations

from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.groups import print_kind_group
from hilo_mlir.support.diagnostics import HiloError


def string_attr(op, key: str, items=None, cache: dict | None = None) -> str | None:
    """The value of a string attribute of ``op`` (its text for another attribute kind), or None if absent.

    ``items``: ``op.attributes.items()`` when the caller read them already (the op record's).
    ``cache``: attribute id -> value (attributes are uniqued), read and filled when given.
    """
    from hilo_mlir.ir.binding import ir

    if items is not None:
        a = next((a for k, a in items if k == key), None)
        if a is None:
            return None
    else:
        attrs = op.attributes
        if key not in attrs:
            return None
        a = attrs[key]
    if cache is not None:
        value = cache.get(hash(a))
        if value is None:
            value = cache[hash(a)] = ir.StringAttr(a).value if a.typeid == ir.StringAttr.static_typeid else str(a)
        return value
    return ir.StringAttr(a).value if a.typeid == ir.StringAttr.static_typeid else str(a)


def print_fusion(p, rec):
    """Print an ``mhlo.fusion`` by its ``FusionKind``; returns the walk of its body.

    Raises:
        HiloError: ``NCC_ISPP054`` for a missing or unknown FusionKind (at the fusion).
    """
    op = rec.op
    kind = string_attr(op, "FusionKind", rec.items, p.strings if p.fast_paths else None)
    entry = _sup.FUSION_KINDS.get(kind) if kind is not None else None
    if entry is None:
        raise HiloError(f"unknown FusionKind '{kind or ''}' on '{op.name}'", loc=op.location, code="NCC_ISPP054")
    return print_kind_group(p, rec, entry[0], entry[1], kind, op.regions[0].blocks[0])
