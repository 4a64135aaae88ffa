"""The ops that may have become dead since the module last had none (a rewriter listener).

``remove-dead-values`` (upstream ``RemoveDeadValuesPass``) erases every op that
has no memory effect and no live result. Right after a real run of it or of
``canonicalize`` (which erases every trivially dead op) the module has no such
op; from then on an op can only become dead if it is new, if one of its
results lost a use (a user erased, an operand replaced) or if an attribute of
it changed (an effect that depends on one). :class:`DeadOpCandidates` hears
those from the :class:`~hilo_mlir.rewrite.rewriter.Rewriter` and keeps the ops
concerned, so that the pipeline's fast path
(:mod:`hilo_mlir.passmanager.dead_values`) looks at them alone instead of
running the C++ pass's liveness analysis on the whole module.

A change the rewriter did not see (``notify_unknown_change``) makes the set
unknown (:attr:`DeadOpCandidates.unknown`): the fast path then does not apply.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.rewrite.rewriter import Listener

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Value


def _nested(op: ir.Operation) -> list[ir.Operation]:
    """Every op nested in ``op`` (not ``op``), in walk order."""
    out: list[ir.Operation] = []

    def visit(o: ir.Operation) -> ir.WalkResult:
        out.append(o)
        return ir.WalkResult.ADVANCE

    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child.operation.walk(visit)
    return out


class DeadOpCandidates(Listener):
    """The ops that may be dead now (see the module doc): a rewriter listener.

    Attributes:
        ops: ``{identity_key(op): op}``: the candidates, each an op still in the module (an op is
            dropped from it when the rewriter erases it).
        unknown: the IR changed by means the rewriter did not see: the candidates say nothing.
    """

    def __init__(self) -> None:
        self.ops: dict[int, ir.Operation] = {}
        self.unknown = False

    def clear(self) -> None:
        """No candidate (the module has no dead op now)."""
        self.ops.clear()

    def _add(self, op: ir.Operation) -> None:
        self.ops[identity_key(op)] = op

    def _add_owner(self, value: Value) -> None:
        """The op defining ``value`` (none for a block argument: no block argument is ever removed in
        the modules the fast path takes, whose functions are all public)."""
        owner = value.owner
        if not isinstance(owner, ir.Block):
            self.ops[identity_key(owner)] = owner.operation

    # ------------------------------------------------------------------ the rewriter's listener

    def notify_unknown_change(self) -> None:
        self.unknown = True
        self.ops.clear()

    def notify_created(self, op: ir.Operation, top: int | None) -> None:
        """A new op (its regions empty): a candidate."""
        self._add(op)

    def notify_inserted(self, op: ir.Operation, top: int | None) -> None:
        """An op inserted or cloned: it and every op nested in it are candidates."""
        self._add(op)
        if len(op.regions):
            for o in _nested(op):
                self._add(o)

    def notify_erasing(self, op: ir.Operation, top: int | None) -> None:
        self.notify_erasing_all([op], [top])

    def notify_erasing_all(self, ops: list[ir.Operation], tops: list[int | None]) -> None:
        """The ops defining the operands of ``ops`` (and of the ops nested in them) lose a use: candidates;
        ``ops`` and what they hold leave the set (their wrappers are about to dangle)."""
        gone: list[ir.Operation] = []
        for op in ops:
            gone.append(op)
            if len(op.regions):
                gone.extend(_nested(op))
        add_owner = self._add_owner
        for o in gone:
            for v in o.operands:
                add_owner(v)
        pop = self.ops.pop
        for o in gone:
            pop(identity_key(o), None)

    def notify_uses_replaced(self, old: Value, new: Value, top: int | None) -> None:
        """``old`` lost its uses: its op is a candidate."""
        self._add_owner(old)

    def notify_operands_dropped(self, values: list[Value]) -> None:
        """Each value lost a use: its op is a candidate."""
        for v in values:
            self._add_owner(v)

    def notify_attribute_changed(self, op: ir.Operation, top: int | None) -> None:
        """An attribute may decide an op's effects (``has_side_effect``): the op is a candidate."""
        self._add(op)
