"""Penguin printers: ``main`` of an mhlo/stablehlo module as a Penguin Python program (docs/penguin_format.md).

Layers, each importing only the ones above it in this list:

1. :mod:`.supported` (what can be printed), :mod:`.literals` (dense values as
   numpy arrays and Python literals), :mod:`.attr_text` (attribute text),
   :mod:`.records` (op records, function scopes, the one statement format
   :func:`~.records.format_statement`);
2. :mod:`.scopes` (region functions at the module level) and :mod:`.emit`
   -- names, specs, locations, attribute keywords, the statement assembler;
3. :mod:`.prologue` (``Function``, ``markInput``, ``markOutput``) and
   :mod:`.driver` -- the module and the walk over blocks;
4. :mod:`.groups` (fusions, composites, calls) and :mod:`.regions` (ops with regions);
5. the handlers: :mod:`.constants`, :mod:`.dots` (every matmul, convolutions),
   :mod:`.custom_calls`, :mod:`.mhlo` (FusionKind), :mod:`.stablehlo` (CompositeKind);
6. this module: the one dispatch table :data:`HANDLERS` and the two printers.
"""

from hilo_mlir.printers.constants import print_constant
from hilo_mlir.printers.custom_calls import emit_custom_call
from hilo_mlir.printers.dots import print_convolution, print_dot, print_dot_general
from hilo_mlir.printers.driver import REGIONS, PenguinPrinter
from hilo_mlir.printers.emit import DEFAULT_INLINE_LIMIT, DEFAULT_ROOT
from hilo_mlir.printers.groups import print_call
from hilo_mlir.printers.mhlo import print_fusion
from hilo_mlir.printers.prologue import DEFAULT_MODEL_TYPE, MODEL_TYPES
from hilo_mlir.printers.regions import print_region_op
from hilo_mlir.printers.stablehlo import print_composite

__all__ = [
    "DEFAULT_INLINE_LIMIT",
    "DEFAULT_MODEL_TYPE",
    "DEFAULT_ROOT",
    "HANDLERS",
    "MODEL_TYPES",
    "MhloPrinter",
    "PenguinPrinter",
    "StableHloPrinter",
    "print_penguin",
    "print_program",
]

#: The dispatch table of both printers: short op name (both dialects), ``func.call``, or
#: :data:`~.driver.REGIONS` (any other op with regions) -> ``handler(printer, op)``.
#: Every other op is the generic statement.
HANDLERS = {
    "constant": print_constant,
    "dot": print_dot,
    "dot_general": print_dot_general,
    "convolution": print_convolution,
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


class _Checking:
    """Mixin of the checking printers: every op through the full path and no memo read
    (``fast_paths = False``), values keyed on the binding objects instead of their integer ids."""

    fast_paths = False
    value_key = staticmethod(lambda v: v)


class CheckingMhloPrinter(_Checking, MhloPrinter):
    """:class:`MhloPrinter` without its fast paths: the slow truth the checking mode compares it with."""


class CheckingStableHloPrinter(_Checking, StableHloPrinter):
    """:class:`StableHloPrinter` without its fast paths."""


PRINTERS = {"mhlo": MhloPrinter, "stablehlo": StableHloPrinter}
CHECKING_PRINTERS = {"mhlo": CheckingMhloPrinter, "stablehlo": CheckingStableHloPrinter}


def print_program(
    module,
    dialect: str = "mhlo",
    root: str = DEFAULT_ROOT,
    filename: str | None = None,
    inline_limit: int = DEFAULT_INLINE_LIMIT,
    stats: dict | None = None,
    model_type: str = DEFAULT_MODEL_TYPE,
    parameters: dict | None = None,
    checking: bool = False,
) -> tuple[str, dict]:
    """Print ``module`` as Penguin Python; returns ``(source, files)``.

    Args:
        module: an ``ir.Module`` or module op; its ``main`` is printed.
        dialect: ``"mhlo"`` or ``"stablehlo"`` (which printer twin).
        root: the Penguin module root.
        filename: the input file name, for ``DebugLocation`` (replaces ``-``).
        inline_limit: non-splat constants with more elements go to ``.npy``.
        stats: if given, receives the per-op-name statement counts
            (``{mlir op name: n}``, the printer's per-op counter).
        model_type: the prologue's ``model-type`` (``generic``, ``transformer``, ``unet-inference``).
        parameters: if given, receives ``{input index: np_file}`` of the parameter inputs.
        checking: print with the checking printer (no fast path, no memo: the slow
            truth of the checking mode, ``HILO_MLIR_CHECK_ANALYSES=1``); the same bytes.

    Returns:
        The source text and ``{file name: bytes}`` of the ``.npy`` files that
        belong beside ``penguin.py``.

    Raises:
        HiloError: an op the printer cannot emit (with its location and the
            reason from ``supported.unsupported_reason``), ``NCC_ISPP054``,
            ``NCC_EVRF036``, unknown custom-call targets, an unknown model type.
    """
    op = module.operation if hasattr(module, "operation") else module
    table = CHECKING_PRINTERS if checking else PRINTERS
    printer = table.get(dialect or "mhlo", table["mhlo"])(root=root, filename=filename, inline_limit=inline_limit, model_type=model_type)
    src = printer.print_module(op)
    if stats is not None:
        stats.update(printer.per_op_counter)
    if parameters is not None:
        parameters.update(printer.parameters)
    return src, dict(printer.files)


def print_penguin(
    module, dialect: str = "mhlo", root: str = DEFAULT_ROOT, filename: str | None = None, inline_limit: int = DEFAULT_INLINE_LIMIT
) -> str:
    """Like :func:`print_program` but returns only the source text."""
    return print_program(module, dialect, root, filename, inline_limit)[0]
