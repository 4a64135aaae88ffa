"""Penguin printers: the shared driver tier and the MHLO / StableHLO printers (docs/penguin_format.md)."""

from .driver import DEFAULT_INLINE_LIMIT, DEFAULT_ROOT, PenguinPrinter
from .mhlo import MhloPrinter
from .stablehlo import StableHloPrinter

__all__ = ["DEFAULT_ROOT", "DEFAULT_INLINE_LIMIT", "PenguinPrinter", "MhloPrinter", "StableHloPrinter",
           "print_penguin", "print_program"]

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
