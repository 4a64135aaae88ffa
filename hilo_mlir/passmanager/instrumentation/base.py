"""The hooks an executor calls around each pass (MLIR's ``PassInstrumentation``).

Every concern that watches a run without being part of running a pass is one
:class:`PassInstrumentation`: IR printing, timing, the crash reproducer,
crash attribution, the checking mode, twin warnings. The executor
(:class:`hilo_mlir.passmanager.pipeline.Pipeline`) calls, for each step:

1. ``run_before_pass(step, module)`` on every instrument, in order;
2. ``run_before_op(step, op)`` / ``run_after_op(step, op, changed)`` around each
   op the pass runs on (the module, or each function of a function pass the
   executor runs function by function because an instrument asked for it with
   ``runs_per_op``);
3. ``run_after_pass(step, module, changed)`` in reverse order (an exception
   raised here fails the pass, as the checking mode does);
4. the verifier (when the policy asks for it); then, on any failure of the
   pass, its after-hooks or the verifier, ``run_after_pass_failed(step, op, error)``
   in order, where ``op`` is the op the pass was running on.

A failure outside any pass (the verification before a terminal pass, or at
the end) is ``run_after_pipeline_failed(step, error)`` (``step``: the terminal
pass about to run, or None at the end); ``run_after_pipeline`` closes a
successful run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.rewrite.rewriter import Change


class PassInstrumentation(Protocol):
    """Hooks around the passes of one pipeline run; every hook does nothing by default.

    An instrument belongs to one run (it may keep state between its hooks).
    ``op`` arguments are ``ir.Operation``; ``error`` is the exception the
    executor raises (a :class:`~hilo_mlir.support.diagnostics.HiloError` once
    translated, to which an instrument may add notes).
    """

    def run_before_pass(self, step: Step, op: Any) -> None:
        return None

    def runs_per_op(self, step: Step) -> bool:
        """True to have a function pass run function by function (``run_before_op`` per function)."""
        return False

    def run_before_op(self, step: Step, op: Any) -> None:
        return None

    def run_after_op(self, step: Step, op: Any, changed: bool) -> None:
        return None

    def run_after_pass(self, step: Step, op: Any, changed: Change) -> None:
        return None

    def run_after_pass_failed(self, step: Step, op: Any, error: BaseException) -> None:
        return None

    def run_after_pipeline(self, op: Any) -> None:
        return None

    def run_after_pipeline_failed(self, step: Step | None, op: Any, error: BaseException) -> None:
        return None
