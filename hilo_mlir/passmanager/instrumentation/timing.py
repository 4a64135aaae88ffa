"""Pass timing (``--mlir-timing``) as an instrument: wall seconds of each pass that succeeded."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.rewrite.rewriter import Change


class PassTiming(PassInstrumentation):
    """Appends ``(display name, seconds)`` to ``rows`` after each pass that succeeded (its verification excluded).

    Args:
        rows: the list to append to (the pipeline's ``timings``).
    """

    def __init__(self, rows: list[tuple[str, float]]):
        self.rows = rows
        self._t0 = 0.0

    def run_before_pass(self, step: Step, op: Any) -> None:
        self._t0 = time.perf_counter()

    def run_after_pass(self, step: Step, op: Any, changed: Change) -> None:
        self.rows.append((step.display, time.perf_counter() - self._t0))
