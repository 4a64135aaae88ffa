"""Pass statistics (``--mlir-pass-statistics``): one :class:`~hilo_mlir.passmanager.pass_context.Statistics` per pass."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation
from hilo_mlir.passmanager.pass_context import Statistics

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step


class PassStatistics(PassInstrumentation):
    """The statistics of a run's Python passes, by display name (shared by every step of one pass).

    Attributes:
        stats: ``{pass display name: Statistics}`` (what ``--mlir-pass-statistics`` reports).
    """

    def __init__(self) -> None:
        self.stats: dict[str, Statistics] = {}

    def for_step(self, step: Step) -> Statistics:
        """The counter ``step``'s pass bumps (made on first use, with the pass's declared names)."""
        info = step.info
        assert info is not None, "a Python step has its PassInfo"
        key = info.display_name
        stats = self.stats.get(key)
        if stats is None:
            stats = self.stats[key] = Statistics(info.statistics, info.argument)
        return stats

    def run_before_pass(self, step: Step, op: Any) -> None:
        if step.cpp_text is None and step.info is not None:
            self.for_step(step)
