"""The checking mode: what the rewriter recorded, compared with what actually happened.

On with ``HILO_MLIR_CHECK_ANALYSES=1`` (CI runs the lit suite and the spine
tests so), or ``Pipeline(check_analyses=True)``. Around every Python pass the
pipeline takes a :func:`fingerprint` of the module before and calls
:func:`check_step` after, which raises :class:`AnalysisCheckError` when

* the rewriter recorded nothing but the module's text changed (a mutation
  made behind the rewriter's back: the pipeline would have skipped the
  verifier and kept every analysis);
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
import os

from ..diagnostics import HiloError
from ..rewriter import Change

ENV = "HILO_MLIR_CHECK_ANALYSES"


class AnalysisCheckError(HiloError):
    """A pass's record of its changes disagrees with the IR (a bug in that pass or in an analysis)."""


def enabled_by_env() -> bool:
    """True when ``HILO_MLIR_CHECK_ANALYSES`` is set to anything but ``""``/``0``/``false``."""
    return os.environ.get(ENV, "").strip().lower() not in ("", "0", "false", "no", "off")


def fingerprint(module_op) -> str:
    """The module's generic text with locations: equal texts mean an unchanged module."""
    buf = io.StringIO()
    module_op.print(file=buf, print_generic_op_form=True, enable_debug_info=True, assume_verified=True)
    return buf.getvalue()


def check_step(pass_arg: str, module_op, before: str, changes: Change, am) -> None:
    """Raise :class:`AnalysisCheckError` if ``changes`` or a cached analysis of ``am`` misstates the IR.

    Args:
        pass_arg: the pass that just ran (named in the error).
        module_op: the module it ran on.
        before: :func:`fingerprint` of the module before the pass.
        changes: what the rewriter recorded during the pass.
        am: the run's :class:`~hilo_mlir.analysis.manager.AnalysisManager`.
    """
    problems = []
    if changes == Change.NONE and fingerprint(module_op) != before:
        problems.append("the rewriter recorded no change but the module changed "
                        "(a mutation made without ctx.rewriter)")
    for cls, op, inst in am.entries():
        diff = getattr(inst, "differences", None)
        if diff is None:
            continue
        for d in diff(cls(op, None)):
            problems.append(f"{cls.__name__}: {d}")
    if problems:
        raise AnalysisCheckError(f"analysis check failed after pass '{pass_arg}': " + "; ".join(problems[:6]))

