"""Keeping the parameter markers of step 26 alive through the spine's upstream passes (the import step's part).

A ``custom_call @AwsNeuronTransferWithStaticRing`` marker tags a parameter for
``penguinize-io`` (step 26); spelled ``has_side_effect = false`` with an unused
result, the upstream ``canonicalize`` (step 1) and ``remove-dead-values``
(step 13) would delete it first. The import step (:mod:`.stages`) marks every
such marker side-effecting before the spine runs.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.parameters import MARKER
from hilo_mlir.rewrite.rewriter import Rewriter


def protect_markers(module_op, custom_calls=None, rewriter: Rewriter | None = None) -> int:
    """Set ``has_side_effect = true`` on every ``custom_call @AwsNeuronTransferWithStaticRing``.

    A marker spelled ``has_side_effect = false`` whose result is unused (the
    usual form: the marker only tags the parameter) is deleted by the spine's
    upstream ``canonicalize`` (step 1) and ``remove-dead-values`` (step 13)
    before step 26 can record it. The import step calls this on
    the input before the spine runs; markers without the attribute are
    already kept by those passes. ``custom_calls``: every custom_call op of
    the module, if the caller has them (a census); default: one walk.
    ``rewriter``: the one to record the changes with (default: a fresh one;
    this runs outside a pipeline). Returns the number of markers changed.
    """
    found = []

    def visit(op):
        if op.name.endswith(".custom_call") and "call_target_name" in op.attributes:
            if ir.StringAttr(op.attributes["call_target_name"]).value == MARKER:
                found.append(op.operation)
        return ir.WalkResult.ADVANCE

    if custom_calls is None:
        module_op.walk(visit)
    else:
        for op in custom_calls:
            visit(op)
    n = 0
    rw = rewriter if rewriter is not None else Rewriter()
    with module_op.context:
        for op in found:
            cur = op.attributes["has_side_effect"] if "has_side_effect" in op.attributes else None
            if cur is None or not ir.BoolAttr(cur).value:
                rw.set_attr(op, "has_side_effect", ir.BoolAttr.get(True))
                n += 1
    return n
