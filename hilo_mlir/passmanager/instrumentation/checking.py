"""The checking mode (``HILO_MLIR_CHECK_ANALYSES=1``) as an instrument: after each Python pass (and an
upstream step's Python fast path), what its rewriter recorded and every cached analysis are compared with
the IR (:mod:`hilo_mlir.analysis.check`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation

if TYPE_CHECKING:
    from hilo_mlir.analysis.check import Snapshot
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.rewrite.rewriter import Change


class AnalysisChecking(PassInstrumentation):
    """Snapshot the module before each Python pass; after it, raise
    :class:`~hilo_mlir.analysis.check.AnalysisCheckError` (failing the pass) on a misstated change.

    Args:
        analyses: the run's analysis manager, asked when the pass ends.
    """

    def __init__(self, analyses: Callable[[], AnalysisManager]):
        self._analyses = analyses
        self._before: Snapshot | None = None

    def run_before_pass(self, step: Step, op: Any) -> None:
        from hilo_mlir.analysis.check import Snapshot
        from hilo_mlir.passmanager.dead_values import FAST_PATH_PASS

        # an upstream step with a fast path in Python may run it: what it records is checked as a Python pass's
        self._before = Snapshot(op) if step.cpp_text is None or step.cpp_text == FAST_PATH_PASS else None

    def run_after_pass(self, step: Step, op: Any, changed: Change) -> None:
        from hilo_mlir.analysis.check import check_step

        before, self._before = self._before, None
        if before is not None:
            check_step(step.argument, op, before, changed, self._analyses())

    def run_after_pass_failed(self, step: Step, op: Any, error: BaseException) -> None:
        self._before = None
