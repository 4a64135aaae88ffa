"""Textual pass pipelines: our parser and our executor.

MLIR's pipeline syntax (``builtin.module(func.func(cse,neuron-op-fusion{fuse-dot-logistic=true}),canonicalize)``)
is parsed here, not by the binding, so that Python passes and upstream C++
passes mix in one pipeline, with nesting and options.

Execution model (DESIGN.md "Rules of the IR"): each step runs on the module,
then the verifier runs and a failure names the pass that broke the IR.

* A Python pass runs its function directly on its anchor ops (a func-anchored
  pass once per top-level ``func.func``). The binding's ``PassManager`` cannot
  nest a Python pass under ``func.func`` (it aborts the process), so we do not
  ask it to.
* An upstream C++ pass runs in a one-pass binding ``PassManager`` built from
  its textual form (nesting kept: ``func.func(cse)``).

The instrumentation (``--mlir-print-ir-before/after-all``, ``--mlir-timing``,
``--mlir-pass-statistics``) is ours and prints in MLIR's formats.
"""

from __future__ import annotations

import contextlib
import gc
import io
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from . import registry
from .diagnostics import HiloError, from_mlir_error
from .registry import PassContext, PassInfo

# --------------------------------------------------------------------------- parser


@dataclass
class Element:
    """One element of a textual pipeline: a pass (``children is None``) or an op anchor."""

    name: str
    options: str = ""  # raw text between { }
    children: list | None = None
    col: int = 0


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def error(self, msg: str) -> HiloError:
        return HiloError(f"invalid pass pipeline '{self.text}': {msg} at column {self.i + 1}")

    def ws(self):
        while self.i < len(self.text) and self.text[self.i].isspace():
            self.i += 1

    def parse(self) -> list[Element]:
        self.ws()
        if self.i >= len(self.text):
            return []
        els = self.parse_list()
        self.ws()
        if self.i != len(self.text):
            raise self.error(f"unexpected '{self.text[self.i]}'")
        return els

    def parse_list(self) -> list[Element]:
        els = [self.parse_element()]
        while True:
            self.ws()
            if self.i < len(self.text) and self.text[self.i] == ",":
                self.i += 1
                els.append(self.parse_element())
            else:
                return els

    def parse_element(self) -> Element:
        self.ws()
        start = self.i
        while self.i < len(self.text) and (self.text[self.i].isalnum() or self.text[self.i] in "-_.$"):
            self.i += 1
        name = self.text[start:self.i]
        if not name:
            raise self.error("expected a pass or op name")
        el = Element(name, col=start + 1)
        self.ws()
        if self.i < len(self.text) and self.text[self.i] == "{":
            el.options = self.parse_braced()
            self.ws()
        if self.i < len(self.text) and self.text[self.i] == "(":
            self.i += 1
            self.ws()
            if self.i < len(self.text) and self.text[self.i] == ")":
                el.children = []
            else:
                el.children = self.parse_list()
            self.ws()
            if self.i >= len(self.text) or self.text[self.i] != ")":
                raise self.error("expected ')'")
            self.i += 1
        return el

    def parse_braced(self) -> str:
        assert self.text[self.i] == "{"
        depth, start = 0, self.i + 1
        quote = None
        while self.i < len(self.text):
            c = self.text[self.i]
            if quote:
                if c == quote:
                    quote = None
            elif c in "'\"":
                quote = c
            elif c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return self.text[start:self.i - 1]
            self.i += 1
        raise self.error("unterminated '{'")


def parse_pipeline(text: str) -> list[Element]:
    """Parse MLIR textual pipeline syntax into a tree of :class:`Element`.

    Raises:
        HiloError: on a syntax error (message names the column).
    """
    return _Parser(text).parse()


def parse_options(text: str, pass_arg: str) -> dict[str, str]:
    """Split ``a=1 b=true c={x y}`` (MLIR option syntax, space-separated) into a dict."""
    out: dict[str, str] = {}
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start = i
        while i < n and not text[i].isspace() and text[i] != "=":
            i += 1
        key = text[start:i]
        if not key:
            raise HiloError(f"malformed options '{text}' for pass '{pass_arg}'")
        if i < n and text[i] == "=":
            i += 1
            vstart, depth, quote = i, 0, None
            while i < n:
                c = text[i]
                if quote:
                    if c == quote:
                        quote = None
                elif c in "'\"":
                    quote = c
                elif c in "{[(":
                    depth += 1
                elif c in "}])":
                    depth -= 1
                elif c.isspace() and depth == 0:
                    break
                i += 1
            out[key] = text[vstart:i]
        else:
            out[key] = "true"
    return out


# --------------------------------------------------------------------------- steps


@dataclass
class Step:
    """One executable step: a Python pass or an upstream pass in textual form."""

    info: PassInfo | None
    argument: str
    options: dict = field(default_factory=dict)
    cpp_text: str | None = None  # the textual pipeline for the binding (C++ passes)
    anchor: str = "builtin.module"

    @property
    def display(self) -> str:
        name = self.info.display_name if self.info else self.argument
        return f"{name} ({self.argument})"

    def text(self) -> str:
        """This step in pipeline syntax (for ``--dump-pass-pipeline``)."""
        if self.cpp_text is not None:
            return self.cpp_text
        if not self.options:
            return self.argument
        defaults = {o.name: o.default for o in self.info.options} if self.info is not None else {}
        diff = {k: v for k, v in self.options.items() if defaults.get(k) != v}
        if not diff:
            return self.argument
        opts = " ".join(f"{k}={_fmt(v)}" for k, v in diff.items())
        return f"{self.argument}{{{opts}}}"


def _fmt(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


def _upstream_ok(text: str) -> str | None:
    """Return None if the binding parses ``builtin.module(text)``, else its error."""
    from .ir import passmanager, make_context

    with make_context():
        try:
            passmanager.PassManager.parse(f"builtin.module({text})")
            return None
        except Exception as e:  # binding raises ValueError / MLIRError
            return str(e).strip().splitlines()[-1] if str(e).strip() else "cannot parse"


def _element_text(el: Element) -> str:
    s = el.name
    if el.options:
        s += "{" + el.options + "}"
    if el.children is not None:
        s += "(" + ",".join(_element_text(c) for c in el.children) + ")"
    return s


def build_steps(elements: list[Element], anchor: str = "builtin.module") -> list[Step]:
    """Resolve a parsed pipeline into steps; unknown passes or options raise HiloError."""
    steps: list[Step] = []
    for el in elements:
        if el.children is not None:
            if el.name not in ("builtin.module", "func.func"):
                # Other op anchors: upstream only.
                text = _element_text(el)
                err = _upstream_ok(text)
                if err:
                    raise HiloError(f"invalid pass pipeline element '{text}': {err}")
                steps.append(Step(None, el.name, cpp_text=_wrap(anchor, text)))
                continue
            if anchor == "func.func" and el.name == "builtin.module":
                raise HiloError("'builtin.module' cannot be nested under 'func.func' in a pass pipeline")
            steps.extend(build_steps(el.children, el.name))
            continue
        try:
            steps.append(_resolve_pass(el, anchor))
        except HiloError as e:
            if el.col and " at column " not in e.message:
                e.message = f"{e.message} (pass pipeline column {el.col})"
            raise
    return steps


def _wrap(anchor: str, text: str) -> str:
    return f"func.func({text})" if anchor == "func.func" else text


def _resolve_pass(el: Element, anchor: str) -> Step:
    registry._load()
    info = registry._REGISTRY.get(el.name)
    if info is None or info.upstream:
        text = el.name + ("{" + el.options + "}" if el.options else "")
        if info is not None and info.anchor == "func.func" and anchor == "builtin.module":
            text_w = f"func.func({text})"
        else:
            text_w = _wrap(anchor, text)
        err = _upstream_ok(text_w)
        if err:
            if info is None:
                registry.get(el.name)  # raises "unknown pass" with suggestions
            raise HiloError(f"invalid options for pass '{el.name}': {err}")
        return Step(info, el.name, cpp_text=text_w, anchor=anchor)
    if anchor == "func.func" and info.anchor == "builtin.module":
        raise HiloError(f"pass '{info.argument}' anchors on 'builtin.module' and cannot be nested under 'func.func'")
    opts = info.resolve_options(parse_options(el.options, info.argument))
    return Step(info, info.argument, opts, anchor=info.anchor)


def steps_from_text(text: str) -> list[Step]:
    """Parse and resolve a textual pipeline (``builtin.module(...)`` or a bare list)."""
    return build_steps(parse_pipeline(text))


def step_for(argument: str, **options) -> Step:
    """A step for a registered pass with typed options (``step_for('neuron-op-fusion', fuse_dot_logistic=True)``)."""
    info = registry.get(argument)
    if info.upstream:
        opt = " ".join(f"{k.replace('_', '-')}={_fmt(v)}" for k, v in options.items())
        text = argument + (f"{{{opt}}}" if opt else "")
        if info.anchor == "func.func":
            text = f"func.func({text})"
        return Step(info, argument, cpp_text=text)
    return Step(info, argument, info.resolve_options(options), anchor=info.anchor)


# --------------------------------------------------------------------------- executor


@dataclass
class Instrumentation:
    """What to report while running (the ``--mlir-*`` flags)."""

    print_before_all: bool = False
    print_after_all: bool = False
    timing: bool = False
    statistics: bool = False
    print_generic: bool = False
    print_debuginfo: bool = False
    out: Any = None  # stream for dumps and reports; default stderr
    on_pass_start: Callable[[str], None] | None = None  # hears each pass argument before it runs (crash attribution)
    debug: bool = False  # --debug: the driver sets extras["debug"]; passes may then do debug-only work


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

    def __init__(self, steps: list[Step], instrumentation: Instrumentation | None = None, extras=None,
                 verify_each: bool = True, check_analyses: bool | None = None):
        from .analysis.check import enabled_by_env

        self.steps = list(steps)
        self.instr = instrumentation or Instrumentation()
        self.stats: dict[str, registry.Statistics] = {}
        self.timings: list[tuple[str, float]] = []
        self.verify_timings: list[tuple[str, float]] = []
        self.changes: list = []
        self.log: list[str] = []
        self.extras = extras if extras is not None else {}
        self.last_pass: str | None = None
        self.check_analyses = enabled_by_env() if check_analyses is None else bool(check_analyses)
        self.verify_each = verify_each or self.check_analyses

    @classmethod
    def from_text(cls, text: str, **kw) -> "Pipeline":
        return cls(steps_from_text(text), **kw)

    def text(self) -> str:
        """The pipeline in MLIR syntax."""
        return "builtin.module(" + ",".join(s.text() for s in self.steps) + ")"

    def _dump(self, module, title: str) -> None:
        out = self.instr.out or sys.stderr
        out.write(f"// -----// IR Dump {title} //----- //\n")
        out.write(module_to_text(module, self.instr.print_generic, self.instr.print_debuginfo))
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
        from .analysis.census import Census
        from .analysis.manager import AnalysisManager
        from .rewriter import Change, Rewriter

        op = module.operation
        rewriter = Rewriter(op)
        am = AnalysisManager(op, rewriter)
        if census is not None:
            am.put(Census, op, census)
        unverified = False  # the IR changed since the verifier last ran
        try:
            for step in self.steps:
                if not self.verify_each and unverified and step.info is not None and step.info.terminal:
                    self._verify(op, step, final=True)
                    unverified = False
                changed = self._run_step(step, module, op, rewriter, am)
                self.changes.append((step.display, changed))
                if changed != Change.NONE:
                    if not self.verify_each:
                        unverified = True
                    elif step.cpp_text is None:  # the binding's pass manager verifies its own passes
                        self._verify(op, step)
                if self.instr.print_after_all:
                    self._dump(module, f"After {step.display}")
            if unverified:
                self._verify(op, None, final=True)
        finally:
            am.close()

    def _run_step(self, step: Step, module, op, rewriter, am):
        """Run one step; return the :class:`~hilo_mlir.rewriter.Change` it recorded."""
        from .ir import ir, passmanager
        from .rewriter import Change

        self.last_pass = step.argument
        if self.instr.on_pass_start:
            self.instr.on_pass_start(step.argument)
        if self.instr.print_before_all:
            self._dump(module, f"Before {step.display}")
        t0 = time.perf_counter()
        try:
            if step.cpp_text is not None:
                pm = passmanager.PassManager.parse(f"builtin.module({step.cpp_text})")
                pm.enable_verifier(self.verify_each)
                am.invalidate_all()  # an upstream pass may change anything
                rewriter.take_changes()
                pm.run(op)
                changed = Change.UNKNOWN
            else:
                changed = self._run_python(step, op, rewriter, am)
        except HiloError as e:
            am.invalidate_all()
            rewriter.take_changes()
            if self.instr.print_after_all:
                self._dump(module, f"After {step.display} Failed")
            e.pass_name = step.argument
            raise
        except ir.MLIRError as e:
            am.invalidate_all()
            err = from_mlir_error(e)
            err.message = f"{err.message} (in pass '{step.argument}')"
            err.pass_name = step.argument
            raise err from None
        self.timings.append((step.display, time.perf_counter() - t0))
        return changed

    def _run_python(self, step: Step, op, rewriter, am):
        from .analysis.check import Snapshot, check_step

        info = step.info
        assert info is not None and info.run is not None, "a Python step has its PassInfo"
        before = Snapshot(op) if self.check_analyses else None
        key = info.display_name
        stats = self.stats.get(key)
        if stats is None:
            stats = self.stats[key] = registry.Statistics(info.statistics, info.argument)
        ctx = PassContext(info, step.options, rewriter=rewriter, analyses=am, module_op=op,
                          stats=stats, log=self.log, extras=self.extras)
        rewriter.take_changes()
        info.run_on_module(op, ctx)
        changed, _tops = rewriter.take_changes()
        if before is not None:
            check_step(step.argument, op, before, changed, am)
        return changed

    def _verify(self, op, step: Step | None, final: bool = False) -> None:
        from .ir import ir

        t1 = time.perf_counter()
        try:
            op.verify()
        except ir.MLIRError as e:
            err = from_mlir_error(e)
            if step is None or (final and not self.verify_each):
                where = "before printing" if step is not None else "at the end of the pipeline"
                err.message = (f"verifier failed on the module {where}: {err.message} "
                               "(rerun with --verify-each to find the pass that broke it)")
            else:
                err.message = f"verifier failed after pass '{step.argument}': {err.message}"
                err.pass_name = step.argument
            raise err from None
        finally:
            label = step.display if step is not None else "(final)"
            self.verify_timings.append((label, time.perf_counter() - t1))

    # -- reports -----------------------------------------------------------------

    def timing_report(self, extra: tuple | list = ()) -> str:
        """MLIR's ``--mlir-timing`` report (wall time only)."""
        rows = list(extra) + self.timings
        total = sum(t for _, t in rows) or 1e-12
        buf = io.StringIO()
        bar = "===" + "-" * 73 + "==="
        buf.write(bar + "\n" + " " * 25 + "... Execution time report ...\n" + bar + "\n")
        buf.write(f"  Total Execution Time: {total:.4f} seconds\n\n")
        buf.write("  ----Wall Time----  ----Name----\n")
        for name, t in rows:
            buf.write(f"    {t:.4f} ({100 * t / total:5.1f}%)  {name}\n")
        buf.write(f"    {total:.4f} (100.0%)  Total\n")
        return buf.getvalue()

    def statistics_report(self) -> str:
        """MLIR's ``--mlir-pass-statistics`` report for our Python passes."""
        buf = io.StringIO()
        bar = "===" + "-" * 73 + "==="
        buf.write(bar + "\n" + " " * 25 + "... Pass statistics report ...\n" + bar + "\n")
        for name, counter in self.stats.items():
            buf.write(f"{name}\n")
            for k in sorted(counter):
                buf.write(f"  ({k}) {counter[k]}\n")
        return buf.getvalue()


def module_to_text(module, generic: bool = False, debuginfo: bool = False) -> str:
    """Print a module (or op) as MLIR text, optionally generic form / with locations."""
    op = module.operation if hasattr(module, "operation") else module
    buf = io.StringIO()
    op.print(file=buf, print_generic_op_form=generic, enable_debug_info=debuginfo, assume_verified=True)
    text = buf.getvalue()
    return text if text.endswith("\n") else text + "\n"
