"""The checking mode: what the rewriter recorded, compared with what actually happened.

On with ``HILO_MLIR_CHECK_ANALYSES=1`` (CI runs the lit suite and the spine
tests so), or ``Pipeline(check_analyses=True)``. Around every Python pass the
pipeline takes a :func:`fingerprint` of the module before and calls
:func:`check_step` after, which raises :class:`AnalysisCheckError` when

* the rewriter recorded nothing but the module's text changed (a mutation
  made behind the rewriter's back: the pipeline would have skipped the
  verifier and kept every analysis);
* it recorded only attribute changes (or only moves and attribute changes)
  but the ops, their operands and types, or their order (their multiset)
  changed;
* a kept :class:`~hilo_mlir.analysis.census.Census` differs from a fresh one
  (an op created, erased or moved without the rewriter, or a bug in the
  census's upkeep);
* any other cached analysis that can compare itself (``differences(fresh)``)
  differs from a fresh one.

MLIR does the same under ``EXPENSIVE_CHECKS`` with ``OperationFingerPrint``.
The cost is one print of the module and one census walk per pass; it is a
debugging and CI mode, never the default.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import checking_mode_enabled, ir
from hilo_mlir.rewrite.rewriter import Change
from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.ir.handles import Op

#: one op as :func:`structure` lists it: name, operand and result identities, result types,
#: and per region, per block, its argument types
_OpShape = tuple[str, tuple[int, ...], tuple[int, ...], tuple[str, ...], tuple[tuple[tuple[str, ...], ...], ...]]

ENV = "HILO_MLIR_CHECK_ANALYSES"


class AnalysisCheckError(HiloError):
    """A pass's record of its changes disagrees with the IR (a bug in that pass or in an analysis)."""


def enabled_by_env() -> bool:
    """True when ``HILO_MLIR_CHECK_ANALYSES`` is set to anything but ``""``/``0``/``false``/``no``/``off``."""
    return checking_mode_enabled()


def fingerprint(module_op: Op) -> str:
    """The module's generic text with locations: equal texts mean an unchanged module."""
    buf = io.StringIO()
    module_op.print(file=buf, print_generic_op_form=True, enable_debug_info=True, assume_verified=True)
    return buf.getvalue()


def structure(module_op: Op) -> list[_OpShape]:
    """Every op in walk order as (name, operand identities, result identities and types, region shape).

    Attributes are left out: an attribute-only change keeps this list equal;
    a move keeps it equal as a multiset.
    """
    out: list[_OpShape] = []
    advance = ir.WalkResult.ADVANCE

    def visit(o: ir.Operation) -> ir.WalkResult:
        regions = o.regions
        shape = tuple(tuple(tuple(map(str, b.arguments.types)) for b in r.blocks) for r in regions) if len(regions) else ()
        out.append((o.name, tuple(map(hash, o.operands)), tuple(map(hash, o.results)), tuple(map(str, o.results.types)), shape))
        return advance

    module_op.walk(visit)
    return out


class Snapshot:
    """What :func:`check_step` compares against: the module's text and structure before a pass."""

    __slots__ = ("structure", "text")

    def __init__(self, module_op: Op) -> None:
        self.text = fingerprint(module_op)
        self.structure = structure(module_op)


def check_step(pass_arg: str, module_op: Op, before: Snapshot, changes: Change, am: AnalysisManager) -> None:
    """Raise :class:`AnalysisCheckError` if ``changes`` or a cached analysis of ``am`` misstates the IR.

    Args:
        pass_arg: the pass that just ran (named in the error).
        module_op: the module it ran on.
        before: the :class:`Snapshot` of the module before the pass.
        changes: what the rewriter recorded during the pass.
        am: the run's :class:`~hilo_mlir.analysis.manager.AnalysisManager`.
    """
    problems: list[str] = []
    if changes == Change.NONE:
        if fingerprint(module_op) != before.text:
            problems.append("the rewriter recorded no change but the module changed (a mutation made without ctx.rewriter)")
    elif not (changes & ~Change.ATTRIBUTE):
        if structure(module_op) != before.structure:
            problems.append(
                "the rewriter recorded only attribute changes but ops, operands, types "
                "or their order changed (a mutation made without ctx.rewriter)"
            )
    elif not (changes & ~(Change.ATTRIBUTE | Change.MOVE)):
        if sorted(structure(module_op)) != sorted(before.structure):
            problems.append(
                "the rewriter recorded only moves and attribute changes but ops, operands "
                "or types changed (a mutation made without ctx.rewriter)"
            )
    for cls, op, inst in am.entries():
        diff = getattr(inst, "differences", None)
        if diff is None:
            continue
        for d in diff(cls(op, None)):
            problems.append(f"{cls.__name__}: {d}")
    if problems:
        raise AnalysisCheckError(f"analysis check failed after pass '{pass_arg}': " + "; ".join(problems[:6]))
