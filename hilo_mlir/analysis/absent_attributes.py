"""Discardable attribute names that no op of the module holds, known without a walk and kept current.

The import's input census reads every op's attribute names anyway (for the
sharding strip); it also says which of :data:`WATCHED` no op holds. That fact
then lasts the whole pipeline run:

* an upstream C++ pass never makes an attribute of one of these names: it knows
  none of them, and an op it rebuilds copies attributes its source held (a name
  no op holds stays so); the pipeline runs them without telling the rewriter,
  so they leave :class:`AbsentAttributes` as it is;
* a Python pass changes the IR through the :class:`~hilo_mlir.rewrite.rewriter.Rewriter`,
  whose listener this is: setting one of the names (``set_attr``), creating an
  op holding it, inserting an op from elsewhere that holds it (nested ops
  included; a clone only copies what its source held) makes the name
  present for good; a change the rewriter did not see forgets every name.

``identify-cross-pass-tensors`` asks it whether an old ``neuron.CrossPassTensor``
stamp may exist: on a module where none does (every compile of an input
without stamps) it reads no op's attributes. The checking mode of that pass
walks the module and compares. A name is tracked only while a pass that reads
it is still to run (:data:`READERS`): the reader takes the answer once and the
tracking ends (:meth:`~hilo_mlir.analysis.manager.AnalysisManager.take_attribute_absent`),
so the passes after it pay nothing for it.
"""

from __future__ import annotations

from collections.abc import Iterable

from hilo_mlir.ir.binding import ir
from hilo_mlir.rewrite.rewriter import Listener

#: the stamp of ``identify-cross-pass-tensors`` (on the op that defines a value crossing a pass boundary)
CROSS_PASS_TENSOR = "neuron.CrossPassTensor"

#: the names whose absence a pipeline run may track -> the pass arguments that read it
READERS: dict[str, tuple[str, ...]] = {
    CROSS_PASS_TENSOR: ("identify-cross-pass-tensors", "stablehlo-identify-cross-pass-tensors"),
}

#: the names the import's input census looks for
WATCHED = tuple(READERS)


class AbsentAttributes(Listener):
    """The names of :data:`WATCHED` (or any given) that no op of the module holds, kept current.

    Args:
        names: attribute names no op of the module holds now (e.g. ``{"neuron.CrossPassTensor"}``).

    Attributes:
        names: the names still known to be held by no op (a set of ``str``; only ever shrinks).
    """

    def __init__(self, names: Iterable[str]) -> None:
        self.names: set[str] = set(names)

    def absent(self, name: str) -> bool:
        """True if no op of the module holds the discardable attribute ``name`` (False: it may)."""
        return name in self.names

    def notify_attribute_set(self, op: ir.Operation, name: str) -> None:
        self.names.discard(name)

    def notify_created(self, op: ir.Operation, top: int | None) -> None:
        """An op :meth:`~hilo_mlir.rewrite.rewriter.Rewriter.create` made: its attributes are read
        while some name is still absent (nothing is nested in it)."""
        if self.names:
            self._saw(op)

    def notify_inserted(self, op: ir.Operation, top: int | None) -> None:
        """A clone, or an op built elsewhere: it and every op nested in it are read while some name is absent."""
        if not self.names:
            return
        if len(op.regions):
            advance = ir.WalkResult.ADVANCE

            def visit(o: ir.Operation) -> ir.WalkResult:
                self._saw(o)
                return advance

            op.walk(visit)
        else:
            self._saw(op)

    def notify_unknown_change(self) -> None:
        self.names.clear()

    def _saw(self, op: ir.Operation) -> None:
        """``op`` is in the module now: the names it holds are present."""
        attrs = op.attributes
        for name in [n for n in self.names if n in attrs]:
            self.names.discard(name)
