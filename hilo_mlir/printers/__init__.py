"""Penguin printers: the shared driver tier and the MHLO / StableHLO printers."""

from .driver import DEFAULT_ROOT, PenguinPrinter

__all__ = ["DEFAULT_ROOT", "PenguinPrinter", "print_penguin"]


def print_penguin(module, dialect: str = "mhlo", root: str = DEFAULT_ROOT, filename: str | None = None) -> str:
    """Print ``module`` (an ``ir.Module`` or module op) as Penguin Python source.

    Args:
        module: the legalized module; its ``main`` is printed.
        dialect: ``"mhlo"`` or ``"stablehlo"`` (which printer twin).
        root: the Penguin module root.
        filename: the input file name, for ``DebugLocation``.

    Raises:
        HiloError: an op the printer cannot emit (with its location).
    """
    op = module.operation if hasattr(module, "operation") else module
    return PenguinPrinter(root=root, filename=filename).print_module(op)
