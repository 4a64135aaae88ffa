"""``LoadedModule``: a parsed module and the context that owns it (kept alive together)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxlib.mlir import ir


@dataclass
class LoadedModule:
    """A parsed module and the context that owns it (keep both alive together).

    Attributes:
        context: the ``ir.Context``.
        module: the ``ir.Module``.
        filename: the input's name, for diagnostics and ``DebugLocation``.
        dialect: ``"mhlo"``, ``"stablehlo"``, ``"mixed"`` or ``"none"``; ``""``
            until the import step (``hilo-import``) detects it from its input census.
        import_log: ``--debug`` lines of the reading itself (what the HLO import
            normalised: :mod:`hilo_mlir.driver.frontend.hlo`).
    """

    context: ir.Context
    module: ir.Module
    filename: str
    dialect: str = ""
    import_log: list[str] = field(default_factory=list)

    @classmethod
    def from_module(cls, context: ir.Context, module: ir.Module, filename: str) -> LoadedModule:
        """Wrap an already-parsed ``ir.Module`` (no walk; the dialect is detected when compiled)."""
        return cls(context, module, filename)
