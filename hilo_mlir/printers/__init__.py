"""Penguin printers: ``main`` of an mhlo/stablehlo module as a Penguin Python program (docs/penguin_format.md).

Layers, each importing only the ones above it in this list:

1. :mod:`.supported` (what can be printed), :mod:`.literals` (dense values as
   numpy arrays and Python literals), :mod:`.attr_text` (attribute text);
2. :mod:`.emit` -- names, specs, locations, attribute keywords and the one
   statement format (:func:`~.emit.format_statement`);
3. :mod:`.driver` -- the module, prologue, epilogue and the walk over blocks;
4. :mod:`.groups` (fusions, composites, calls) and :mod:`.regions` (ops with regions);
5. the handlers: :mod:`.constants`, :mod:`.dots`, :mod:`.custom_calls`,
   :mod:`.mhlo` (FusionKind), :mod:`.stablehlo` (CompositeKind);
6. this module: the one dispatch table :data:`HANDLERS` and the two printers.
"""

from .constants import print_constant
from .custom_calls import emit_custom_call
from .dots import print_dot
from .driver import REGIONS, PenguinPrinter
from .emit import DEFAULT_INLINE_LIMIT, DEFAULT_ROOT
from .groups import print_call
from .mhlo import print_fusion
from .regions import print_region_op
from .stablehlo import print_composite

__all__ = ["DEFAULT_ROOT", "DEFAULT_INLINE_LIMIT", "HANDLERS", "PenguinPrinter", "MhloPrinter", "StableHloPrinter",
           "print_penguin", "print_program"]

#: The dispatch table of both printers: short op name (both dialects), ``func.call``, or
#: :data:`~.driver.REGIONS` (any other op with regions) -> ``handler(printer, op)``.
#: Every other op is the generic statement.
HANDLERS = {
    "constant": print_constant,
    "dot": print_dot,
    "custom_call": emit_custom_call,
    "composite": print_composite,
    "fusion": print_fusion,
    "func.call": print_call,
    REGIONS: print_region_op,
}


class MhloPrinter(PenguinPrinter):
    """The ``mhlo-to-py-penguin`` printer.

    Both printers dispatch every op form the same way (``mhlo.fusion`` by
    FusionKind, composites -- ``mhlo.composite`` appears when a JAX module
    with composites is legalized to mhlo -- by CompositeKind), so a module
    prints the same whichever form its fusions take and the printer never
    disagrees with :func:`.supported.unsupported_reason`.
    """

    dialect = "mhlo"
    handlers = HANDLERS


class StableHloPrinter(PenguinPrinter):
    """The ``stablehlo-to-py-penguin`` printer (the same table and driver as :class:`MhloPrinter`)."""

    dialect = "stablehlo"
    handlers = HANDLERS


PRINTERS = {"mhlo": MhloPrinter, "stablehlo": StableHloPrinter}


def print_program(module, dialect: str = "mhlo", root: str = DEFAULT_ROOT, filename: str | None = None,
                  inline_limit: int = DEFAULT_INLINE_LIMIT, stats: dict | None = None) -> tuple[str, dict]:
    """Print ``module`` as Penguin Python; returns ``(source, files)``.

    Args:
        module: an ``ir.Module`` or module op; its ``main`` is printed.
        dialect: ``"mhlo"`` or ``"stablehlo"`` (which printer twin).
        root: the Penguin module root.
        filename: the input file name, for ``DebugLocation`` (replaces ``-``).
        inline_limit: non-splat constants with more elements go to ``.npy``.
        stats: if given, receives the per-op-name statement counts
            (``{mlir op name: n}``, the printer's per-op counter).

    Returns:
        The source text and ``{file name: bytes}`` of the ``.npy`` files that
        belong beside ``penguin.py``.

    Raises:
        HiloError: an op the printer cannot emit (with its location and the
            reason from ``supported.unsupported_reason``), ``NCC_ISPP054``,
            ``NCC_EVRF036``, unknown custom-call targets.
    """
    op = module.operation if hasattr(module, "operation") else module
    printer = PRINTERS.get(dialect or "mhlo", MhloPrinter)(root=root, filename=filename, inline_limit=inline_limit)
    src = printer.print_module(op)
    if stats is not None:
        stats.update(printer.per_op_counter)
    return src, dict(printer.files)


def print_penguin(module, dialect: str = "mhlo", root: str = DEFAULT_ROOT, filename: str | None = None,
                  inline_limit: int = DEFAULT_INLINE_LIMIT) -> str:
    """Like :func:`print_program` but returns only the source text."""
    return print_program(module, dialect, root, filename, inline_limit)[0]
