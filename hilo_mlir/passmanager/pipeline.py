"""Textual pass pipelines: resolving them into steps, and our executor.

MLIR's pipeline syntax (``builtin.module(func.func(cse,neuron-op-fusion{fuse-dot-logistic=true}),canonicalize)``)
is parsed by :mod:`hilo_mlir.passmanager.pipeline_parser`, not by the binding, so that
Python passes and upstream C++ passes mix in one pipeline, with nesting and
options.

Execution model (DESIGN.md "Rules of the IR"): each step runs on the module,
then the verifier runs and a failure names the pass that broke the IR.

* A Python pass runs its function directly on its anchor ops (a func-anchored
  pass once per top-level ``func.func``). The binding's ``PassManager`` cannot
  nest a Python pass under ``func.func`` (it aborts the process), so we do not
  ask it to.
* An upstream C++ pass runs in a one-pass binding ``PassManager`` built from
  its textual form (nesting kept: ``func.func(cse)``).

Everything that watches a run is a :class:`~hilo_mlir.passmanager.instrumentation.base.PassInstrumentation`
called around each step (MLIR's seams): IR printing (``--mlir-print-ir-*``),
timing (``--mlir-timing``), statistics (``--mlir-pass-statistics``), the
crash reproducer, crash attribution, the checking mode and twin warnings,
each in :mod:`hilo_mlir.passmanager.instrumentation`. What is left here is
the executor: the step loop, the verification policy, the analysis manager's
lifetime and the translation of a pass's failure into one diagnostic. A
Python pass runs through :func:`hilo_mlir.passmanager.execution.run_pass`, the
core ``PassInfo.add_to_pass_manager`` shares.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.execution import run_pass, top_functions
from hilo_mlir.passmanager.instrumentation import Instrumentation as Instrumentation  # re-exported (driver)
from hilo_mlir.passmanager.instrumentation import module_to_text, statistics_report, timing_report
from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation
from hilo_mlir.passmanager.instrumentation.checking import AnalysisChecking
from hilo_mlir.passmanager.instrumentation.crash_attribution import CrashAttribution
from hilo_mlir.passmanager.instrumentation.crash_reproducer import CrashReproducer
from hilo_mlir.passmanager.instrumentation.ir_printing import IRPrinter
from hilo_mlir.passmanager.instrumentation.statistics import PassStatistics
from hilo_mlir.passmanager.instrumentation.timing import PassTiming
from hilo_mlir.passmanager.instrumentation.twin_warnings import TwinWarnings
from hilo_mlir.passmanager.pass_context import CompileOutputs as CompileOutputs  # re-exported (driver)
from hilo_mlir.passmanager.pass_context import PipelineEnv as PipelineEnv  # re-exported (driver)
from hilo_mlir.passmanager.pipeline_parser import Element as Element  # re-exported
from hilo_mlir.passmanager.pipeline_parser import parse_options as parse_options  # re-exported
from hilo_mlir.passmanager.pipeline_parser import parse_pipeline as parse_pipeline  # re-exported
from hilo_mlir.passmanager.steps import Step as Step  # re-exported
from hilo_mlir.passmanager.steps import build_steps as build_steps  # re-exported
from hilo_mlir.passmanager.steps import step_for as step_for  # re-exported
from hilo_mlir.passmanager.steps import steps_from_text as steps_from_text  # re-exported
from hilo_mlir.support.diagnostics import (
    NOT_UTF8_MESSAGE,
    Diagnostic,
    HiloError,
    escape_text,
    from_mlir_error,
    location_line,
    location_to_str,
    not_utf8,
)
from hilo_mlir.support.mlir_strings import mlir_escape

# --------------------------------------------------------------------------- executor

#: Upstream passes that make no value of a new type: they erase ops, values, block arguments and
#: function results, replace a value by one of the same type, and create only ops whose results
#: have the types of results they replace (remove-dead-values' ``canonicalize`` step runs the region-branch
#: ops' canonicalisation: it drops operands and results, inlines regions, folds to constants of the
#: result's type, and makes ``ub.poison`` of a replaced value's type). The value types of the module before such a step are
#: a superset of those after it, so the census taken after it starts from the ones taken before it
#: (:meth:`~hilo_mlir.analysis.manager.AnalysisManager.carry_types_over`, a stale set): a type
#: question answered "no" (no token, no 64-bit integer) then reads no type. The checking mode holds
#: every stale set to be a superset of the module's types after each pass.
TYPE_SUBSET_PASSES = frozenset({"remove-dead-values", "symbol-dce", "trivial-dce", "cse"})


if TYPE_CHECKING:
    from hilo_mlir.analysis.census import Census
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.rewrite.rewriter import Change, Rewriter


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for the duration (restored after, even on error).

    A compile creates millions of short-lived binding wrappers (``ir.Operation``,
    ``ir.Value``, ``ir.Type``); reference counting frees them, but every
    700 allocations the cyclic collector rescans the survivors, and its full
    collections cost ~20 ms each on a 33k-op module (issue 7 profile). The IR
    holds no Python cycles, so nothing is lost by collecting once afterwards.
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _as_instrumentation(instr: Instrumentation | None) -> Instrumentation:
    """``instr``, or the default :class:`Instrumentation` (nothing reported) for None.

    Raises:
        TypeError: ``instr`` is not an :class:`Instrumentation` (construct one: its fields are the ``--mlir-*`` flags).
    """
    if instr is None:
        return Instrumentation()
    if not isinstance(instr, Instrumentation):
        raise TypeError(f"instrumentation must be an Instrumentation or None, not {type(instr).__name__}")
    return instr


class Pipeline:
    """An ordered list of steps and how to run them.

    Args:
        steps: the :class:`Step` list.
        instrumentation: the ``--mlir-*`` reporting asked for (turned into instruments).
        env: what the run is given (:class:`PipelineEnv`: file name, ``--debug``, gates).
        outputs: what the run produces (:class:`CompileOutputs`: the printer's source and files ...).
        verify_each: run the verifier after every step that changed the IR and
            name the step that broke it (mlir-opt's default, ``--verify-each``).
            When False (the main job's policy, as the real binary runs its
            pass manager), the module is verified once before a terminal
            (printer) step and at the end, and a failure says to rerun with
            ``--verify-each``.
        check_analyses: the checking mode (:mod:`hilo_mlir.analysis.check`);
            default from ``HILO_MLIR_CHECK_ANALYSES``. Forces ``verify_each``.
        instruments: more :class:`PassInstrumentation` objects, called after the built-in ones.
        max_pass_index: ``--max-pass-index N`` (LLVM's ``-opt-bisect-limit``): steps whose index
            (0: the first step) is above N are skipped, except terminal (printer) steps, which always
            run; each step logs ``BISECT: running pass (i) <pass>`` or ``BISECT: NOT running pass (i)
            <pass>`` (``--debug``). None: every step runs.
        verify_at_end: without ``verify_each``, verify the module at the end if a step changed
            it. False for a pipeline a pass runs inside itself when the pipeline around it
            verifies later (the import step's bridge in the main job).

    Attributes:
        stats: ``{pass display name: Statistics}`` filled by Python passes.
        timings: ``[(display, seconds)]`` of the last run.
        verify_timings: ``[(display, seconds)]``: each verifier run.
        changes: ``[(display, Change)]``: what each Python step recorded
            (upstream steps: ``Change.UNKNOWN``).
        fast_paths: indices (in ``steps``) of the upstream steps that ran as their Python fast path
            (``remove-dead-values``, :mod:`hilo_mlir.passmanager.dead_values`) rather than in C++.
        log: debug lines the passes recorded.
        instruments: the run's instruments, in the order their before-hooks are called.
    """

    def __init__(
        self,
        steps: Sequence[Step],
        instrumentation: Instrumentation | None = None,
        env: PipelineEnv | None = None,
        outputs: CompileOutputs | None = None,
        verify_each: bool = True,
        check_analyses: bool | None = None,
        instruments: Sequence[PassInstrumentation] = (),
        max_pass_index: int | None = None,
        verify_at_end: bool = True,
    ):
        from hilo_mlir.analysis.check import enabled_by_env

        self.steps = list(steps)
        self.instr = _as_instrumentation(instrumentation)
        self.timings: list[tuple[str, float]] = []
        self.verify_timings: list[tuple[str, float]] = []
        self._unrecorded: list[str] = []  # steps since the last change that recorded none (for the verifier's note)
        self.changes: list[tuple[str, Change]] = []
        self.fast_paths: list[int] = []
        # canonicalize ran: from then on remove-dead-values may take its fast path (a pipeline that is not
        # a spine, remove-dead-values alone, runs the C++ pass as asked)
        self._after_canonicalize = False
        self._ran_fast = False  # the step that just ran took its fast path
        self.log: list[str] = []
        self.env = env if env is not None else PipelineEnv(debug=self.instr.debug)
        self.outputs = outputs if outputs is not None else CompileOutputs()
        self.check_analyses = enabled_by_env() if check_analyses is None else bool(check_analyses)
        self.verify_each = verify_each or self.check_analyses
        if self.env.verify_each != self.verify_each:
            self.env = dataclasses.replace(self.env, verify_each=self.verify_each)
        self._am: AnalysisManager | None = None
        self._statistics = PassStatistics()
        self._attribution = CrashAttribution(self.instr.on_pass_start)
        self._reproducer = (
            CrashReproducer(self.instr.reproducer, self.steps, self.env.filename, self.verify_each, self.instr.stream)
            if self.instr.reproducer
            else None
        )
        built_in: list[PassInstrumentation | None] = [
            IRPrinter(self.instr),  # first: it prints the previous pass's "After" dumps before anything else is said
            self._reproducer,
            self._attribution,
            self._statistics,
            AnalysisChecking(self._analyses) if self.check_analyses else None,
            # it times the pass and the census the twin check rebuilds after an upstream step (a walk
            # the pass would otherwise do itself), not the instruments before it
            PassTiming(self.timings),
            TwinWarnings(self._analyses, self.warn),
        ]
        self.instruments: list[PassInstrumentation] = [i for i in built_in if i is not None] + list(instruments)
        self.max_pass_index = max_pass_index
        self.verify_at_end = verify_at_end

    @property
    def stats(self) -> dict[str, registry.Statistics]:
        return self._statistics.stats

    @property
    def last_pass(self) -> str | None:
        """The argument of the last pass that started (None before the first)."""
        return self._attribution.last_pass

    @property
    def reproducer_path(self) -> str | None:
        """Where the crash reproducer was written (None: no failure, or not asked for)."""
        return self._reproducer.written if self._reproducer is not None else None

    def _analyses(self) -> AnalysisManager:
        assert self._am is not None, "asked outside a run"
        return self._am

    @classmethod
    def from_text(cls, text: str, **kw: Any) -> Pipeline:
        return cls(steps_from_text(text), **kw)

    def text(self) -> str:
        """The pipeline in MLIR syntax."""
        return "builtin.module(" + ",".join(s.text() for s in self.steps) + ")"

    def _dump(self, module: Any, title: str) -> None:
        out = self.instr.stream
        out.write(f"// -----// IR Dump {title} //----- //\n")
        out.write(module_to_text(module, self.instr.print_generic, self.instr.print_debuginfo, self.instr.elide_elements_if_larger))
        out.write("\n")

    def run(self, module: Any, census: Census | None = None) -> None:
        """Run every step on ``module``; see :meth:`_run` (the cyclic GC is paused meanwhile)."""
        with gc_paused():
            self._run(module, census)

    def _run(self, module: Any, census: Census | None = None) -> None:
        """Run every step on ``module`` (an ``ir.Module``); raise HiloError on failure.

        ``census``: a :class:`~hilo_mlir.analysis.census.Census` of ``module``
        as it is now, to start from; default: one is taken when a pass first asks.
        """
        from hilo_mlir.analysis.census import Census
        from hilo_mlir.analysis.manager import AnalysisManager
        from hilo_mlir.rewrite.rewriter import Rewriter

        op = module.operation
        rewriter = Rewriter(op)
        am = self._am = AnalysisManager(op, rewriter)
        am.checking = self.check_analyses
        if self.check_analyses:  # the rewriter's own checks too (erasures, given top-level ops), as under the variable
            rewriter.check_erasures = rewriter.check_block_tops = True
        if census is not None:
            am.put(Census, op, census)
        unverified = False  # the IR changed since the verifier last ran
        try:
            for index, step in enumerate(self.steps):
                if self._bisect_skips(index, step):
                    continue
                if not self.verify_each and unverified and step.info is not None and step.info.terminal:
                    self._verify_outside(op, step)
                    unverified = False
                self._ran_fast = False
                changed = self._run_step(step, op, rewriter, am)
                if step.cpp_text == "canonicalize":
                    self._after_canonicalize = True
                if self._ran_fast:
                    self.fast_paths.append(index)
                self.changes.append((step.display, changed))
                # a plugin's pass is verified after (with --verify-each) even when it recorded nothing
                if not self._changed(step, changed):
                    self._unrecorded.append(step.argument)  # not verified after: it recorded no change
                else:
                    if not self.verify_each:
                        unverified = True
                    elif step.cpp_text is None or self._ran_fast:  # the binding's pass manager verifies its own passes
                        self._verify_after(op, step)
                    self._unrecorded = []
            if unverified and self.verify_at_end:
                self._verify_outside(op, None)
            for inst in self.instruments:
                inst.run_after_pipeline(op)
        finally:
            self._am = None
            am.close()

    def _bisect_skips(self, index: int, step: Step) -> bool:
        """``--max-pass-index``: True when step ``index`` is past the limit (a terminal step always runs)."""
        if self.max_pass_index is None:
            return False
        skip = index > self.max_pass_index and not (step.info is not None and step.info.terminal)
        self.log.append(f"BISECT: {'NOT ' if skip else ''}running pass ({index}) {step.argument}")
        return skip

    def _changed(self, step: Step, changed: Change) -> bool:
        from hilo_mlir.rewrite.rewriter import Change

        plugin = step.info is not None and bool(step.info.origin)
        return changed != Change.NONE or (self.verify_each and plugin)

    def warn(self, message: str, loc: Any = None) -> None:
        """Emit a warning diagnostic (to ``instr.on_diagnostic``, else printed to the dump stream)."""
        fname = self.env.filename
        d = Diagnostic(
            "warning",
            message,
            location_to_str(loc, fname) if loc is not None else None,
            location_line(loc) if loc is not None else None,
            raw=str(loc) if loc is not None else None,
        )
        if self.instr.on_diagnostic is not None:
            self.instr.on_diagnostic(d)
        else:
            self.instr.stream.write(d.format() + "\n")

    # -- steps -----------------------------------------------------------------------------

    def _run_step(self, step: Step, op: Any, rewriter: Rewriter, am: AnalysisManager) -> Change:
        """Run one step with its instruments' hooks; return the :class:`~hilo_mlir.rewrite.rewriter.Change` it recorded."""
        from hilo_mlir.ir.binding import ir
        from hilo_mlir.passmanager.dead_values import FAST_PATH_PASS
        from hilo_mlir.rewrite.rewriter import Change

        for inst in self.instruments:
            inst.run_before_pass(step, op)
        current = [op]  # the op the pass is running on (a failure dumps it)
        try:
            try:
                fast = self._fast_path(step, op, rewriter, am, current) if step.cpp_text == FAST_PATH_PASS else None
                if fast is not None:
                    changed = fast
                elif step.cpp_text is not None:
                    kept = am.kept_types() if step.argument in TYPE_SUBSET_PASSES else None
                    am.invalidate_all()  # an upstream pass may change anything
                    rewriter.take_changes()
                    self._run_upstream(step, op, current)
                    if kept is not None:  # a superset of the types now: the next census starts from it
                        am.carry_types_over(kept)
                    changed = Change.UNKNOWN
                else:
                    changed = self._run_python(step, op, rewriter, am, current)
                    if step.info is not None and step.info.origin:  # a plugin may set attributes without the rewriter
                        am.forget_absent_attributes()
                for inst in reversed(self.instruments):  # inside the try: an instrument may fail the pass (checking mode)
                    inst.run_after_pass(step, op, changed)
            except HiloError as e:
                am.invalidate_all()
                rewriter.take_changes()
                e.pass_name = step.argument
                raise
            except ir.MLIRError as e:
                am.invalidate_all()
                err = from_mlir_error(e)
                err.message = f"{err.message} (in pass '{step.argument}')"
                err.pass_name = step.argument
                raise err from None
            except (RuntimeError, UnicodeDecodeError) as e:
                am.invalidate_all()
                if not not_utf8(e):
                    raise self._unexpected(step, e) from e
                err = HiloError(f"{NOT_UTF8_MESSAGE} (in pass '{step.argument}')", filename=self.env.filename)
                err.pass_name = step.argument
                raise err from None
            except Exception as e:  # noqa: BLE001 - re-raised, named after the pass
                am.invalidate_all()
                raise self._unexpected(step, e) from e
        except Exception as failure:  # noqa: BLE001 - the instruments hear it, then it goes on
            for inst in self.instruments:
                inst.run_after_pass_failed(step, current[0], failure)
            raise
        return changed

    # -- remove-dead-values without the C++ pass ---------------------------------------------

    def _fast_path(self, step: Step, op: Any, rewriter: Rewriter, am: AnalysisManager, current: list[Any]) -> Change | None:
        """``remove-dead-values`` in Python (:mod:`hilo_mlir.passmanager.dead_values`) when a ``canonicalize`` ran
        before it and the module is in the subset where the C++ pass does no more: every op is read (from the
        census's op lists, no walk; the checking mode compares them with a walk's); the change it recorded, or None: run the C++ pass."""
        from hilo_mlir.passmanager import dead_values
        from hilo_mlir.rewrite.rewriter import Change

        if self._per_function(step) or not self._after_canonicalize:
            return None
        census = am.census()
        why = dead_values.in_subset(census)
        if why is not None:
            self.log.append(f"remove-dead-values: the C++ pass runs ({why})")
            return None
        roots = dead_values.unused_ops_listed(census)  # the census's lists: no walk
        if am.checking:
            dead_values.check_unused_ops(op, roots)
        dead = dead_values.dead_closure(roots)
        if not isinstance(dead, list):
            at = location_to_str(dead.location, self.env.filename) or "an unknown location"
            what = escape_text(f"'{dead.name}' op, a kind not judged, at {at}")  # input text: one escaped line
            self.log.append(f"remove-dead-values: the C++ pass runs (a dead {what})")
            return None
        rewriter.take_changes()
        before, after = self._before_op(step, current), self._after_op(step)
        before(op)
        if am.checking:
            dead_values.checked_erase_dead(op, dead, rewriter)
        else:
            dead_values.erase_dead(dead, rewriter)
        changed, _tops = rewriter.take_changes()
        after(op, changed != Change.NONE)
        self.log.append(f"remove-dead-values: in Python, {len(dead)} dead ops erased")
        self._ran_fast = True
        return changed

    def _unexpected(self, step: Step, e: Exception) -> Exception:
        """What to raise for an exception a pass raised that is not a diagnostic: a plugin's bug is a
        ``HiloError`` naming the pass and its plugin; any other keeps its type and carries the pass's
        argument as ``hilo_pass`` (the tools' "internal error" line names it)."""
        origin = step.info.origin if step.info is not None else ""
        if origin:
            err = HiloError(f"pass '{step.argument}' (plugin {origin}) failed: {type(e).__name__}: {e}", filename=self.env.filename)
            err.pass_name = step.argument
            _locate_in_plugin(err, e)
            return err
        try:
            e.hilo_pass = step.argument  # type: ignore[attr-defined]
        except AttributeError:  # an exception type without a __dict__
            pass
        return e

    def _per_function(self, step: Step) -> bool:
        return any(inst.runs_per_op(step) for inst in self.instruments)

    def _before_op(self, step: Step, current: list[Any]) -> Callable[[Any], None]:
        def before(anchor: Any) -> None:
            current[0] = anchor
            for inst in self.instruments:
                inst.run_before_op(step, anchor)

        return before

    def _after_op(self, step: Step) -> Callable[[Any, bool], None]:
        def after(anchor: Any, changed: bool) -> None:
            for inst in reversed(self.instruments):
                inst.run_after_op(step, anchor, changed)

        return after

    def _run_upstream(self, step: Step, op: Any, current: list[Any]) -> None:
        """An upstream step: one binding ``PassManager`` on the module, or per function when asked."""
        from hilo_mlir.ir.binding import passmanager

        assert step.cpp_text is not None, "an upstream step has its textual form"
        per_function = self._per_function(step)
        anchors = top_functions(op) if per_function else [op]
        pm = passmanager.PassManager.parse(step.cpp_text if per_function else f"builtin.module({step.cpp_text})")
        pm.enable_verifier(self.verify_each)
        before, after = self._before_op(step, current), self._after_op(step)
        for anchor in anchors:
            before(anchor)
            pm.run(anchor)  # the binding's pass manager verified it
            after(anchor, True)  # the IR printer compares the text itself

    def _run_python(self, step: Step, op: Any, rewriter: Rewriter, am: AnalysisManager, current: list[Any]) -> Change:
        info = step.info
        assert info is not None and info.run is not None, "a Python step has its PassInfo"
        return run_pass(
            info,
            step.options,
            op,
            rewriter=rewriter,
            analyses=am,
            stats=self._statistics.for_step(step),
            log=self.log,
            env=self.env,
            outputs=self.outputs,
            pipeline_steps=tuple(self.steps),
            per_function=self._per_function(step),
            before_op=self._before_op(step, current),
            after_op=self._after_op(step),
        )

    # -- verification --------------------------------------------------------------------

    def _verify_after(self, op: Any, step: Step) -> None:
        """The verifier after ``step`` (``--verify-each``); a failure is the step's."""
        try:
            self._verify(op, step)
        except HiloError as e:
            for inst in self.instruments:
                inst.run_after_pass_failed(step, op, e)
            raise

    def _verify_outside(self, op: Any, step: Step | None) -> None:
        """The verifier before terminal ``step`` (None: at the end); a failure is the pipeline's."""
        try:
            self._verify(op, step, final=True)
        except HiloError as e:
            for inst in self.instruments:
                inst.run_after_pipeline_failed(step, op, e)
            raise

    def _verify(self, op: Any, step: Step | None, final: bool = False) -> None:
        from hilo_mlir.ir.binding import ir

        t1 = time.perf_counter()
        try:
            op.verify()
        except ir.MLIRError as e:
            err = from_mlir_error(e)
            if step is None or (final and not self.verify_each):
                where = "before printing" if step is not None else "at the end of the pipeline"
                err.message = (
                    f"verifier failed on the module {where}: {err.message} (rerun with --verify-each to find the pass that broke it)"
                )
            else:
                err.message = f"verifier failed after pass '{step.argument}': {err.message}"
                err.pass_name = step.argument
                if self._unrecorded:
                    err.notes = list(err.notes) + [
                        Diagnostic(
                            "note",
                            "passes that recorded no change are not verified after ("
                            + ", ".join(self._unrecorded[-3:])
                            + "); if one of them changed the IR without the rewriter, HILO_MLIR_CHECK_ANALYSES=1 names it",
                        )
                    ]
            raise err from None
        finally:
            label = step.display if step is not None else "(final)"
            self.verify_timings.append((label, time.perf_counter() - t1))

    # -- reports -----------------------------------------------------------------

    def timing_report(self, extra: tuple[tuple[str, float], ...] | list[tuple[str, float]] = ()) -> str:
        """MLIR's ``--mlir-timing`` report (wall time only)."""
        return timing_report(list(extra) + self.timings)

    def statistics_report(self) -> str:
        """MLIR's ``--mlir-pass-statistics`` report for our Python passes."""
        return statistics_report(self.stats)


def _locate_in_plugin(err: HiloError, exc: BaseException) -> None:
    """A plugin pass raised ``exc``: locate ``err`` at the innermost frame of the traceback outside
    hilo_mlir (the plugin's line, quoted under the error), with a ``note: called from`` for each
    outer one (innermost first, at most 8), as a Python traceback reads bottom-up."""
    import os
    import traceback

    from hilo_mlir.passmanager.plugin_errors import shown_file

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename and not os.path.abspath(f.filename).startswith(package)]
    frames = [f for f in frames if not f.filename.startswith("<")]
    if not frames:
        return
    inner, *outer = reversed(frames)

    def loc(f: traceback.FrameSummary) -> str:
        name = shown_file(f.filename)  # a plugin file as the user named it
        return 'loc("' + mlir_escape(name) + f'":{f.lineno or 1}:{(f.colno or 0) + 1})'

    err.loc = loc(inner)
    err.notes = [
        Diagnostic(
            "note", f"called from '{f.name}'", f"{shown_file(f.filename)}:{f.lineno or 1}:{(f.colno or 0) + 1}", f.lineno, raw=loc(f)
        )
        for f in outer[:8]
    ] + list(err.notes)
    sources: dict[str, str] = {}
    for f in frames:
        if shown_file(f.filename) not in sources:
            try:
                with open(f.filename, encoding="utf-8") as fh:
                    sources[shown_file(f.filename)] = fh.read()
            except (OSError, UnicodeDecodeError):
                pass
    err.sources = sources  # type: ignore[attr-defined]  # render_error quotes the plugin's lines
