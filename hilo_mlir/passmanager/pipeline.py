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

The instrumentation (``--mlir-print-ir-*``, ``--mlir-timing``,
``--mlir-pass-statistics``, crash reproducers) is ours and prints in MLIR's
formats (:mod:`hilo_mlir.passmanager.instrumentation`, :mod:`hilo_mlir.passmanager.reproducer`); the
executor calls it through hooks around each step.
"""

from __future__ import annotations

import contextlib
import gc
import time

from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.instrumentation import Instrumentation, IRPrinter, module_to_text, statistics_report, timing_report
from hilo_mlir.passmanager.pipeline_parser import Element, parse_options, parse_pipeline  # noqa: F401  (re-exported)
from hilo_mlir.passmanager.registry import PassContext
from hilo_mlir.passmanager.steps import Step, build_steps, step_for, steps_from_text  # noqa: F401  (re-exported)
from hilo_mlir.support.diagnostics import (
    NOT_UTF8_MESSAGE,
    Diagnostic,
    HiloError,
    from_mlir_error,
    location_line,
    location_to_str,
    not_utf8,
)

# --------------------------------------------------------------------------- executor


@contextlib.contextmanager
def gc_paused():
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


def _as_instrumentation(instr) -> Instrumentation:
    """``instr`` as an :class:`Instrumentation` (an object with some of its attributes is copied)."""
    if instr is None:
        return Instrumentation()
    if isinstance(instr, Instrumentation):
        return instr
    import dataclasses

    return Instrumentation(**{f.name: getattr(instr, f.name) for f in dataclasses.fields(Instrumentation) if hasattr(instr, f.name)})


class Pipeline:
    """An ordered list of steps and how to run them.

    Args:
        steps: the :class:`Step` list.
        instrumentation: the ``--mlir-*`` reporting.
        extras: the run's outputs (the printer puts its source and files here).
        verify_each: run the verifier after every step that changed the IR and
            name the step that broke it (mlir-opt's default, ``--verify-each``).
            When False (the main job's policy, as the real binary runs its
            pass manager), the module is verified once before a terminal
            (printer) step and at the end, and a failure says to rerun with
            ``--verify-each``.
        check_analyses: the checking mode (:mod:`hilo_mlir.analysis.check`);
            default from ``HILO_MLIR_CHECK_ANALYSES``. Forces ``verify_each``.

    Attributes:
        stats: ``{pass display name: Statistics}`` filled by Python passes.
        timings: ``[(display, seconds)]`` of the last run.
        verify_timings: ``[(display, seconds)]``: each verifier run.
        changes: ``[(display, Change)]``: what each Python step recorded
            (upstream steps: ``Change.UNKNOWN``).
        log: debug lines the passes recorded.
    """

    def __init__(
        self,
        steps: list[Step],
        instrumentation: Instrumentation | None = None,
        extras=None,
        verify_each: bool = True,
        check_analyses: bool | None = None,
    ):
        from hilo_mlir.analysis.check import enabled_by_env

        self.steps = list(steps)
        self.instr = _as_instrumentation(instrumentation)
        self.stats: dict[str, registry.Statistics] = {}
        self.timings: list[tuple[str, float]] = []
        self.verify_timings: list[tuple[str, float]] = []
        self._unrecorded: list[str] = []  # steps since the last change that recorded none (for the verifier's note)
        self.changes: list = []
        self.log: list[str] = []
        self.extras = extras if extras is not None else {}
        self.last_pass: str | None = None
        self.check_analyses = enabled_by_env() if check_analyses is None else bool(check_analyses)
        self.verify_each = verify_each or self.check_analyses
        #: where the crash reproducer was written (None: no failure, or not asked for)
        self.reproducer_path: str | None = None
        self._printer = IRPrinter(self.instr)
        self._after_dumps: list = []
        self._snapshot: str | None = None
        self._current = None
        self._warned: set = set()
        self._dialect_seen: set = set()  # dialects the module had ops of when last asked

    @classmethod
    def from_text(cls, text: str, **kw) -> "Pipeline":
        return cls(steps_from_text(text), **kw)

    def text(self) -> str:
        """The pipeline in MLIR syntax."""
        return "builtin.module(" + ",".join(s.text() for s in self.steps) + ")"

    def _dump(self, module, title: str) -> None:
        out = self.instr.stream
        out.write(f"// -----// IR Dump {title} //----- //\n")
        out.write(module_to_text(module, self.instr.print_generic, self.instr.print_debuginfo, self.instr.elide_elements_if_larger))
        out.write("\n")

    def run(self, module, census=None) -> None:
        """Run every step on ``module``; see :meth:`_run` (the cyclic GC is paused meanwhile)."""
        with gc_paused():
            self._run(module, census)

    def _run(self, module, census=None) -> None:
        """Run every step on ``module`` (an ``ir.Module``); raise HiloError on failure.

        ``census``: a :class:`~hilo_mlir.analysis.census.Census` of ``module``
        as it is now, to start from (the driver's input census); default: one
        is taken when a pass first asks.
        """
        from hilo_mlir.analysis.census import Census
        from hilo_mlir.analysis.manager import AnalysisManager
        from hilo_mlir.rewrite.rewriter import Change, Rewriter

        op = module.operation
        rewriter = Rewriter(op)
        am = AnalysisManager(op, rewriter)
        if census is not None:
            am.put(Census, op, census)
        unverified = False  # the IR changed since the verifier last ran
        step = None
        self.extras.setdefault("pipeline_steps", self.steps)  # what the import step reads (hilo-import)
        try:
            for step in self.steps:
                self._before_step(step, op)
                if not self.verify_each and unverified and step.info is not None and step.info.terminal:
                    self._verify(op, step, final=True)
                    unverified = False
                changed = self._run_step(step, module, op, rewriter, am)
                self.changes.append((step.display, changed))
                # a plugin's pass is verified after (with --verify-each) even when it recorded nothing
                plugin = step.info is not None and bool(step.info.origin)
                if changed == Change.NONE and not (self.verify_each and plugin):
                    self._unrecorded.append(step.argument)  # not verified after: it recorded no change
                else:
                    if not self.verify_each:
                        unverified = True
                    elif step.cpp_text is None:  # the binding's pass manager verifies its own passes
                        self._verify_step(op, step)
                    self._unrecorded = []
                self._printer.emit(self._after_dumps)
                self._after_dumps = []
            step = None
            if unverified:
                self._verify(op, None, final=True)
        except Exception as e:  # noqa: BLE001 - every failure gets its reproducer, then goes on
            self._on_failure(step, e)
            raise
        finally:
            self._snapshot = None
            am.close()

    # -- instrumentation hooks ---------------------------------------------------------

    def _before_step(self, step: Step, op) -> None:
        """Before a step: the crash reproducer's snapshot of the IR (``instr.reproducer``)."""
        if self.instr.reproducer:
            from hilo_mlir.passmanager.reproducer import snapshot

            self._snapshot = snapshot(op, self.extras.get("filename"))

    def _on_failure(self, step: Step | None, exc: Exception) -> None:
        """A step (or the final verification) failed: write the crash reproducer, once."""
        if not self.instr.reproducer or self.reproducer_path is not None or self._snapshot is None:
            return
        from hilo_mlir.passmanager.reproducer import write_reproducer

        steps = [step] if step is not None else self.steps
        text = "builtin.module(" + ",".join(s.text() for s in steps) + ")"
        note = write_reproducer(
            self.instr.reproducer,
            self._snapshot,
            text,
            verify_each=self.verify_each,
            failing=(step.pass_name if step is not None else None),
        )
        self.reproducer_path = self.instr.reproducer if note.severity == "note" else None
        if isinstance(exc, HiloError):
            exc.notes = list(exc.notes) + [note]
        else:
            self.instr.stream.write(note.format() + "\n")

    def _warn_dialect(self, step: Step, op, am) -> None:
        """Warn when a pass for one dialect runs on a module that only has ops of the other
        (it would do nothing), naming its twin. Printers (terminal) and passes that read
        either dialect (``PassInfo.any_dialect``) print both: no warning."""
        info = step.info
        if (
            info is None
            or info.dialect not in ("mhlo", "stablehlo")
            or info.terminal
            or info.any_dialect
            or step.argument in self._warned
            or info.dialect in self._dialect_seen
        ):
            return
        from hilo_mlir.analysis.census import Census

        names = am.get(Census, op).names
        own, other = ("mhlo.", "stablehlo.") if info.dialect == "mhlo" else ("stablehlo.", "mhlo.")
        if any(n.startswith(own) for n in names):
            # Python passes never change the dialect: no need to ask again until an upstream step ran
            self._dialect_seen.add(info.dialect)
            return
        if not any(n.startswith(other) for n in names):
            return
        self._warned.add(step.argument)
        twin = registry.twin_of(info)
        hint = f": use its twin '{twin}'" if twin else ""
        msg = f"pass '{step.argument}' works on {info.dialect} ops but the module has none (it has {other[:-1]} ops){hint}"
        self.warn(msg, op.location)

    def warn(self, message: str, loc=None) -> None:
        """Emit a warning diagnostic (to ``instr.on_diagnostic``, else printed to the dump stream)."""
        fname = self.extras.get("filename")
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

    def _run_step(self, step: Step, module, op, rewriter, am):
        """Run one step; return the :class:`~hilo_mlir.rewrite.rewriter.Change` it recorded."""
        from hilo_mlir.ir.binding import ir
        from hilo_mlir.rewrite.rewriter import Change

        self.last_pass = step.argument
        if self.instr.on_pass_start:
            self.instr.on_pass_start(step.argument)
        t0 = time.perf_counter()  # before the dialect check: a census rebuilt after an upstream step is charged to this step
        self._warn_dialect(step, op, am)
        self._current = op
        try:
            if step.cpp_text is not None:
                am.invalidate_all()  # an upstream pass may change anything
                self._dialect_seen.clear()
                rewriter.take_changes()
                self._run_upstream(step, op)
                changed = Change.UNKNOWN
            else:
                changed = self._run_python(step, op, rewriter, am)
        except HiloError as e:
            am.invalidate_all()
            rewriter.take_changes()
            self._printer.failed(step, self._current)
            e.pass_name = step.argument
            raise
        except ir.MLIRError as e:
            am.invalidate_all()
            self._printer.failed(step, self._current)
            err = from_mlir_error(e)
            err.message = f"{err.message} (in pass '{step.argument}')"
            err.pass_name = step.argument
            raise err from None
        except (RuntimeError, UnicodeDecodeError) as e:
            if not not_utf8(e):
                raise self._unexpected(step, e, am) from e
            am.invalidate_all()
            self._printer.failed(step, self._current)
            err = HiloError(f"{NOT_UTF8_MESSAGE} (in pass '{step.argument}')", filename=self.extras.get("filename"))
            err.pass_name = step.argument
            raise err from None
        except Exception as e:  # noqa: BLE001 - re-raised, named after the pass
            raise self._unexpected(step, e, am) from e
        self.timings.append((step.display, time.perf_counter() - t0))
        return changed

    def _unexpected(self, step: Step, e: Exception, am) -> Exception:
        """What to raise for an exception a pass raised that is not a diagnostic: a plugin's bug is a
        ``HiloError`` naming the pass and its plugin; any other keeps its type and carries the pass's
        argument as ``hilo_pass`` (the tools' "internal error" line names it)."""
        am.invalidate_all()
        self._printer.failed(step, self._current)
        origin = step.info.origin if step.info is not None else ""
        if origin:
            err = HiloError(
                f"pass '{step.argument}' (plugin {origin}) failed: {type(e).__name__}: {e}", filename=self.extras.get("filename")
            )
            err.pass_name = step.argument
            return err
        try:
            e.hilo_pass = step.argument  # type: ignore[attr-defined]
        except AttributeError:  # an exception type without a __dict__
            pass
        return e

    def _anchors(self, step: Step, op) -> list:
        """The ops a step runs on one by one while its IR is dumped: each top-level function
        for a function pass, else the module."""
        func_step = (
            step.cpp_text.startswith("func.func(")
            if step.cpp_text is not None
            else step.info is not None and step.info.anchor == "func.func"
        )
        if not (func_step and self._printer.active(step)):
            return [op]
        return [f.operation for f in op.regions[0].blocks[0].operations if f.operation.name == "func.func"]

    def _run_upstream(self, step: Step, op) -> None:
        """An upstream step: one binding ``PassManager`` on the module, or per function while dumping."""
        from hilo_mlir.ir.binding import passmanager

        assert step.cpp_text is not None, "an upstream step has its textual form"
        anchors = self._anchors(step, op)
        per_function = anchors != [op]
        pm = passmanager.PassManager.parse(step.cpp_text if per_function else f"builtin.module({step.cpp_text})")
        pm.enable_verifier(self.verify_each)
        for anchor in anchors:
            self._current = anchor
            self._printer.before(step, anchor)
            before = self._fingerprint(anchor) if self._printer.tracks_change else None
            pm.run(anchor)  # the binding's pass manager verified it
            changed = before is None or before != self._fingerprint(anchor)
            self._printer.emit([self._printer.capture_after(step, anchor, changed)])

    @staticmethod
    def _fingerprint(op) -> str:
        from hilo_mlir.passmanager.instrumentation import op_text

        return op_text(op, None, enable_debug_info=True, print_generic_op_form=True)

    def _run_python(self, step: Step, op, rewriter, am):
        from hilo_mlir.analysis.check import Snapshot, check_step
        from hilo_mlir.ir.binding import identity_key
        from hilo_mlir.rewrite.rewriter import Change

        info = step.info
        assert info is not None and info.run is not None, "a Python step has its PassInfo"
        before = Snapshot(op) if self.check_analyses else None
        key = info.display_name
        stats = self.stats.get(key)
        if stats is None:
            stats = self.stats[key] = registry.Statistics(info.statistics, info.argument)
        ctx = PassContext(info, step.options, rewriter=rewriter, analyses=am, module_op=op, stats=stats, log=self.log, extras=self.extras)
        rewriter.take_changes()
        anchors = self._anchors(step, op)
        if anchors == [op]:
            self._printer.before(step, op)
            info.run_on_module(op, ctx)
            changed, _tops = rewriter.take_changes()
            self._after_dumps.append(self._printer.capture_after(step, op, changed != Change.NONE))
        else:  # a function pass while its IR is dumped: function by function, as MLIR's pass manager
            changed = Change.NONE
            for f in anchors:
                self._current = f
                self._printer.before(step, f)
                info.run_on(f, ctx)
                c, tops = rewriter.take_changes()
                changed |= c
                mine = bool(tops.get(identity_key(f))) or bool(c & Change.UNKNOWN)
                # printed at once, function by function as MLIR's pass manager does (the
                # module is verified after the last function)
                self._printer.emit([self._printer.capture_after(step, f, mine)])
        if before is not None:
            check_step(step.argument, op, before, changed, am)
        return changed

    def _verify_step(self, op, step: Step) -> None:
        """The verifier after ``step`` (``--verify-each``); a failure dumps "After ... Failed"."""
        try:
            self._verify(op, step)
        except HiloError:
            self._after_dumps = []
            self._printer.failed(step, op)
            raise

    def _verify(self, op, step: Step | None, final: bool = False) -> None:
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

    def timing_report(self, extra: tuple | list = ()) -> str:
        """MLIR's ``--mlir-timing`` report (wall time only)."""
        return timing_report(list(extra) + self.timings)

    def statistics_report(self) -> str:
        """MLIR's ``--mlir-pass-statistics`` report for our Python passes."""
        return statistics_report(self.stats)
