"""The CompositeKind dispatch: how a ``stablehlo.composite`` (or ``mhlo.composite``) prints (format section 6).

A StableHLO fusion is a ``stablehlo.composite`` whose cluster lives in a
private decomposition ``func.func``. :func:`print_composite` resolves the
decomposition, aliases the composite's operands onto its block arguments
(inner ops reference the composite's real operand names), pushes the summary
handle on the printer's nesting stack (inner ops get ``parent=`` the
composite), and dispatches on the ``CompositeKind`` attribute through
:data:`~.supported.COMPOSITE_KINDS`:

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

The header's ``xla_op`` is ``'mhlo.fusion'`` on both spines. A composite
without ``CompositeKind`` (JAX's own, e.g. for ``chlo`` ops) is printed
through its decomposition behind a ``CompositeOp`` header carrying its name,
attributes and version.
"""

from __future__ import annotations

from hilo_mlir.printers import supported as _sup
from hilo_mlir.printers.groups import print_group, print_kind_group
from hilo_mlir.printers.mhlo import string_attr
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import py_literal


def print_composite(p, rec):
    """Walk generator: a ``stablehlo.composite`` / ``mhlo.composite`` (docs/penguin_format.md section 6).

    Raises:
        HiloError: unknown decomposition function; operand/argument count
            mismatch; ``NCC_ISPP054`` for an unknown CompositeKind; a
            decomposition that (transitively) contains itself.
    """
    from hilo_mlir.ir.binding import ir

    op = rec.op
    attrs = dict(rec.items) if rec.items is not None else op.attributes
    decomp = ir.FlatSymbolRefAttr(attrs["decomposition"]).value
    f = p.lookup_function(op, decomp)
    block = f.regions[0].blocks[0]
    kind = string_attr(op, "CompositeKind", rec.items, p.strings if p.fast_paths else None)
    if decomp in p.call_stack:
        raise HiloError(f"recursive decomposition @{decomp} cannot be printed", loc=op.location)
    p.call_stack.append(decomp)
    try:
        if kind is None:
            items = [("name", p.attr_value(attrs["name"]))]
            items.append(("composite_attributes", p.attr_value(attrs["composite_attributes"]) if "composite_attributes" in attrs else "{}"))
            items.append(("version", p.attr_value(attrs["version"]) if "version" in attrs else "0"))
            items.append(("decomposition", py_literal(decomp)))
            yield print_group(p, rec, "CompositeOp", items, block, op.name)
            return
        entry = _sup.COMPOSITE_KINDS.get(kind)
        if entry is None:
            raise HiloError(f"unknown CompositeKind '{kind}' on '{op.name}'", loc=op.location, code="NCC_ISPP054")
        yield print_kind_group(p, rec, entry[0], entry[1], kind, block)
    finally:
        p.call_stack.pop()
