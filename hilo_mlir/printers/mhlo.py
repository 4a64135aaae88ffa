"""The MHLO printer (``mhlo-to-py-penguin``): the FusionKind dispatch surface (seed 002 section 1, DESIGN.md "The printer").

An ``mhlo.fusion`` carries its cluster inline in its region and its kind in
the discardable string attribute ``FusionKind``. :func:`print_fusion`
dispatches on it through :data:`~.supported.FUSION_KINDS`:

=================================  =========================================
FusionKind                         printed as (docs/penguin_format.md sec. 6)
=================================  =========================================
DotLogistic                        ``NeuronTensorOp(op='DotFusion')``
MulRedSqrt                         ``NeuronTensorOp(op='MulRedSqrt', reduce_dims=[...])``
Elementwise, Expm1, Log1p,         ``NeuronTensorOp(op='<kind>')``
DotSoftmax
ScheduleFusion                     no header: the body (the collectives) in order
anything else / missing            ``HiloError`` with code ``NCC_ISPP054``
=================================  =========================================

The summary is followed by the fusion body re-emitted transparently and
``<handle>.setResults([...])``. On the MHLO spine the kind string itself is
the Python op name and no ``hilo_fusion_op`` is printed (the seed: that
attribute is StableHLO-only). Everything else is the shared driver tier.
"""

from __future__ import annotations

from ..diagnostics import HiloError
from . import supported as _sup
from .driver import PenguinPrinter


def print_fusion(printer: PenguinPrinter, op) -> None:
    """Print an ``mhlo.fusion`` by its ``FusionKind``.

    Raises:
        HiloError: ``NCC_ISPP054`` for a missing or unknown FusionKind (at the fusion).
    """
    kind = None
    attrs = op.attributes
    if "FusionKind" in attrs:
        from ..ir import ir

        a = attrs["FusionKind"]
        kind = ir.StringAttr(a).value if a.typeid == ir.StringAttr.static_typeid else str(a)
    entry = _sup.FUSION_KINDS.get(kind) if kind is not None else None
    if entry is None:
        raise HiloError(f"unknown FusionKind '{kind or ''}' on '{op.name}'", loc=op.location, code="NCC_ISPP054")
    printer.print_kind_group(op, entry[0], entry[1], kind, op.regions[0].blocks[0])


class MhloPrinter(PenguinPrinter):
    """The ``mhlo-to-py-penguin`` printer: the shared driver tier with the MHLO label.

    Both printers dispatch every op form the same way (``mhlo.fusion`` through
    :func:`print_fusion`, composites - ``mhlo.composite`` appears when a JAX
    module with composites is legalized to mhlo - through
    :func:`.stablehlo.print_composite`), so a module prints the same whichever
    form its fusions take and the printer never disagrees with
    :func:`.supported.unsupported_reason`.
    """

    dialect = "mhlo"
