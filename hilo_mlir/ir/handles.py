"""Static names of the binding's handles, for annotations (this module imports no binding at run time).

jaxlib's stubs make ``ir.Value`` generic in its type and split an operation
into ``ir.Operation`` and its typed view ``ir.OpView``; the layers pass both
around. Import the aliases under ``if TYPE_CHECKING:`` (they exist for the
type checker only); :class:`Named` is a runtime protocol.

* ``Value``: an ``ir.Value`` of any type (an ``OpResult`` or a ``BlockArgument``).
* ``Op``: an ``ir.Operation`` or an ``ir.OpView`` (both have ``.operation``,
  ``.name``, ``.attributes``, ``.results``, ``.regions``, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol


class Named(Protocol):
    """Anything with an op name (``"stablehlo.add"``): an ``ir.Operation`` or ``ir.OpView``."""

    @property
    def name(self) -> str: ...


if TYPE_CHECKING:
    from typing import TypeAlias

    from hilo_mlir.ir.binding import ir

    Value: TypeAlias = ir.Value[ir.Type]
    Op: TypeAlias = ir.Operation | ir.OpView
