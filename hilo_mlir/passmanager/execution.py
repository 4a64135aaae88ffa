"""Running one Python pass: the core shared by :class:`~hilo_mlir.passmanager.pipeline.Pipeline` and
:meth:`~hilo_mlir.passmanager.registry.PassInfo.add_to_pass_manager`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager.pass_context import CompileOutputs, PassContext, PipelineEnv, Statistics

if TYPE_CHECKING:
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.passmanager.registry import PassInfo
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.rewrite.rewriter import Change, Rewriter


def top_functions(module_op: Any) -> list[Any]:
    """The top-level ``func.func`` ops of ``module_op``, in order."""
    return [f.operation for f in module_op.regions[0].blocks[0].operations if f.operation.name == "func.func"]


def run_pass(
    info: PassInfo,
    options: dict[str, Any],
    module_op: Any,
    *,
    rewriter: Rewriter,
    analyses: AnalysisManager,
    stats: Statistics | None = None,
    log: list[str] | None = None,
    env: PipelineEnv | None = None,
    outputs: CompileOutputs | None = None,
    pipeline_steps: tuple[Step, ...] = (),
    per_function: bool = False,
    before_op: Callable[[Any], None] | None = None,
    after_op: Callable[[Any, bool], None] | None = None,
) -> Change:
    """Run the Python pass ``info`` with ``options`` on ``module_op``; return what its rewriter recorded.

    A func-anchored pass runs on each top-level function. With
    ``per_function`` the functions are run one at a time with ``before_op(f)``
    / ``after_op(f, changed_f)`` around each (``changed_f``: the rewriter
    recorded a change inside ``f``, or one it cannot place); otherwise the
    pass runs on the module (``run_on_module``) between ``before_op(module)``
    and ``after_op(module, changed)``.

    Raises:
        Whatever the pass raises (the caller translates it).
    """
    from hilo_mlir.ir.binding import identity_key
    from hilo_mlir.rewrite.rewriter import Change

    ctx = PassContext(
        info,
        options,
        rewriter=rewriter,
        analyses=analyses,
        module_op=module_op,
        stats=stats,
        log=log,
        env=env,
        outputs=outputs,
        pipeline_steps=pipeline_steps,
    )
    rewriter.take_changes()
    if not per_function:
        if before_op is not None:
            before_op(module_op)
        info.run_on_module(module_op, ctx)
        changed, _tops = rewriter.take_changes()
        if after_op is not None:
            after_op(module_op, changed != Change.NONE)
        return changed
    changed = Change.NONE
    for f in top_functions(module_op):
        if before_op is not None:
            before_op(f)
        info.run_on(f, ctx)
        c, tops = rewriter.take_changes()
        changed |= c
        if after_op is not None:
            after_op(f, bool(tops.get(identity_key(f))) or bool(c & Change.UNKNOWN))
    return changed
