"""The StableHLO printer (``stablehlo-to-py-penguin``): the CompositeKind dispatch surface (seed 002 section 2).

A StableHLO fusion is a ``stablehlo.composite`` whose cluster lives in a
private decomposition ``func.func``. :func:`print_composite` resolves the
decomposition, aliases the composite's operands onto its block arguments
(inner ops reference the composite's real operand names), pushes the summary
handle on the printer's nesting stack (the per-instance ``compOpStk``: inner
ops get ``parent=`` the composite), and runs the seven-way table
:data:`~.supported.COMPOSITE_KINDS`, four emitters:

=============  ==========================  ==================
CompositeKind  ``op=``                     ``hilo_fusion_op=``
=============  ==========================  ==================
ScheduleFusion (transparent, no header)
MulRedSqrt     ``'MulRedSqrt'`` + reduce_dims  ``'MulRedSqrt'``
DotLogistic    ``'DotFusion'``             ``'DotLogistic'``
Expm1          ``'Elementwise'``           ``'Expm1'``
Log1p          ``'Elementwise'``           ``'Log1p'``
Elementwise    ``'Elementwise'``           ``'Elementwise'``
DotSoftmax     ``'DotSoftmax'``            ``'DotSoftmax'``
other          ``HiloError`` ``NCC_ISPP054``
=============  ==========================  ==================

The header's ``xla_op`` is ``'mhlo.fusion'`` (the seed: the StableHLO
emitter keeps the MHLO-era tag). A composite without ``CompositeKind`` (JAX's
own, e.g. for ``chlo`` ops) is printed through its decomposition behind a
``CompositeOp`` header carrying its name, attributes and version.
"""

from __future__ import annotations

from ..diagnostics import HiloError
from . import supported as _sup
from .driver import PenguinPrinter


def print_composite(printer: PenguinPrinter, op) -> None:
    """Print a ``stablehlo.composite`` / ``mhlo.composite`` (docs/penguin_format.md section 6).

    Raises:
        HiloError: unknown decomposition function; operand/argument count
            mismatch; ``NCC_ISPP054`` for an unknown CompositeKind; a
            decomposition that (transitively) contains itself.
    """
    from ..ir import ir

    attrs = op.attributes
    decomp = ir.FlatSymbolRefAttr(attrs["decomposition"]).value
    f = printer.lookup_function(op, decomp)
    block = f.regions[0].blocks[0]
    kind = None
    if "CompositeKind" in attrs:
        a = attrs["CompositeKind"]
        kind = ir.StringAttr(a).value if a.typeid == ir.StringAttr.static_typeid else str(a)
    if decomp in printer.call_stack:
        raise HiloError(f"recursive decomposition @{decomp} cannot be printed", loc=op.location)
    printer.call_stack.append(decomp)
    try:
        if kind is None:
            items = [("name", printer.attr_value(attrs["name"]))]
            items.append(("composite_attributes",
                          printer.attr_value(attrs["composite_attributes"]) if "composite_attributes" in attrs else "{}"))
            items.append(("version", printer.attr_value(attrs["version"]) if "version" in attrs else "0"))
            items.append(("decomposition", repr(decomp)))
            printer.print_group(op, "CompositeOp", items, block, op.name)
            return
        entry = _sup.COMPOSITE_KINDS.get(kind)
        if entry is None:
            raise HiloError(f"unknown CompositeKind '{kind}' on '{op.name}'", loc=op.location, code="NCC_ISPP054")
        printer.print_kind_group(op, entry[0], entry[1], kind, block)
    finally:
        printer.call_stack.pop()


class StableHloPrinter(PenguinPrinter):
    """The ``stablehlo-to-py-penguin`` printer: the shared driver tier with the StableHLO label.

    It shares the whole driver tier with :class:`.mhlo.MhloPrinter` (seed 002
    section 1: "the two classes funnel every ordinary op through identical
    code"); its dispatch surface is :func:`print_composite`.
    """

    dialect = "stablehlo"
