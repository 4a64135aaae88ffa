"""Crash attribution: who hears the name of each pass before it runs (the batch engine names the pass a crash was in)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step


class CrashAttribution(PassInstrumentation):
    """Records the argument of the pass about to run (``last_pass``) and tells ``on_pass_start``.

    Args:
        on_pass_start: hears each pass argument before it runs (None: only recorded).
    """

    def __init__(self, on_pass_start: Callable[[str], None] | None = None):
        self.on_pass_start = on_pass_start
        self.last_pass: str | None = None

    def run_before_pass(self, step: Step, op: Any) -> None:
        self.last_pass = step.argument
        if self.on_pass_start is not None:
            self.on_pass_start(step.argument)
