"""Pipeline instrumentation: the ``--mlir-*`` reporting flags, in mlir-opt's formats.

:class:`Instrumentation` is what a driver asks for; :class:`IRPrinter` is
the IR printing of one pipeline run, following MLIR's ``IRPrinterInstrumentation``
(the version in the binding):

* a header ``// -----// IR Dump Before <PassName>: <pass{all options}> //----- //``
  (``After``, ``After <PassName> Failed``); with
  ``--mlir-print-ir-module-scope`` it ends in ``('<op>' operation: @<sym>)``
  and the whole module is printed, otherwise only the op the pass ran on
  (each function, for a pass that runs on functions);
* ``--mlir-print-ir-before=<pass>[,...]`` / ``--mlir-print-ir-after=<pass>[,...]``
  select passes by argument; ``--mlir-print-ir-after-change`` drops an
  "After" dump when the pass did not change that op: for Python passes as
  their rewriter recorded it, for upstream passes when the op's text
  (with locations) is unchanged; ``--mlir-print-ir-after-failure`` prints
  only after a pass that failed (or whose output failed to verify).

Timing and statistics reports are :func:`timing_report` and
:func:`statistics_report`. Nothing here imports the bindings at import time.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.handles import Op
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.support.diagnostics import Diagnostic


@dataclass
class Instrumentation:
    """What to report while a pipeline runs (the ``--mlir-*`` flags of both tools).

    Attributes:
        print_before_all / print_after_all: dump the IR around every pass.
        print_before / print_after: pass arguments to dump around (``--mlir-print-ir-before=a,b``).
        print_after_change: only "After" dumps of ops the pass changed.
        print_after_failure: only an "After ... Failed" dump of the pass that failed.
        print_module_scope: dump the whole module, not only the op the pass ran on.
        elide_elements_if_larger: print dense attributes with more elements as ``dense_resource<__elided__>``.
        timing / statistics: the drivers print the reports after the run.
        print_generic / print_debuginfo: generic op form / locations, in dumps and outputs.
        out: stream for dumps (default: ``sys.stderr``).
        on_pass_start: hears each pass argument before it runs (crash attribution).
        debug: ``--debug``: a run's default ``PipelineEnv`` has ``debug`` set; passes may then do debug-only work.
        on_diagnostic: hears each warning the pipeline emits
            (a :class:`~hilo_mlir.support.diagnostics.Diagnostic`); default: printed to ``out``.
        reproducer: path of the crash reproducer to write when a pass fails
            (``--mlir-pass-pipeline-crash-reproducer``).
    """

    print_before_all: bool = False
    print_after_all: bool = False
    timing: bool = False
    statistics: bool = False
    print_generic: bool = False
    print_debuginfo: bool = False
    out: TextIO | None = None
    on_pass_start: Callable[[str], None] | None = None
    debug: bool = False
    print_before: tuple[str, ...] = ()
    print_after: tuple[str, ...] = ()
    print_after_change: bool = False
    print_after_failure: bool = False
    print_module_scope: bool = False
    elide_elements_if_larger: int | None = None
    on_diagnostic: Callable[[Diagnostic], None] | None = None
    reproducer: str | None = None

    @property
    def stream(self) -> TextIO:
        return self.out or sys.stderr

    def print_flags(self) -> dict[str, Any]:
        """Keyword arguments of the binding's ``Operation.print`` for these flags (values of several types: ``Any``)."""
        return {
            "print_generic_op_form": self.print_generic,
            "enable_debug_info": self.print_debuginfo,
            "large_elements_limit": self.elide_elements_if_larger,
        }


def op_text(op: Op, instr: Instrumentation | None = None, local_scope: bool = False, **overrides: Any) -> str:
    """``op`` printed with ``instr``'s flags (no trailing newline added)."""
    o = op.operation if hasattr(op, "operation") else op
    kw = instr.print_flags() if instr is not None else {}
    kw.update(overrides)
    buf = io.StringIO()
    o.print(file=buf, use_local_scope=local_scope, **kw)
    return buf.getvalue()


def module_to_text(
    module: Op | ir.Module, generic: bool = False, debuginfo: bool = False, elide: int | None = None, filename: str | None = None
) -> str:
    """Print a module (or op) as MLIR text, optionally generic form / with locations; ends in a newline.

    ``filename``: the input's name, printed in locations instead of the
    parser's buffer name ``-`` (as mlir-opt names the file it read).
    """
    op = module.operation  # Operation, OpView and Module all have it (an Operation's is itself)
    buf = io.StringIO()
    op.print(file=buf, print_generic_op_form=generic, enable_debug_info=debuginfo, assume_verified=True, large_elements_limit=elide)
    text = buf.getvalue()
    if debuginfo and filename and filename not in ("-", "<stdin>"):
        from hilo_mlir.passmanager.reproducer import name_stdin_locations

        text = name_stdin_locations(text, filename)
    return text if text.endswith("\n") else text + "\n"


def _top_level(op: Op) -> Op:
    while True:
        parent = op.parent
        if parent is None:
            return op
        op = parent.operation if hasattr(parent, "operation") else parent


def _pass_text(step: Step) -> str:
    if step.cpp_text is not None:
        from hilo_mlir.ir.binding import passmanager

        try:
            printed = str(passmanager.PassManager.parse(f"builtin.module({step.cpp_text})"))
        except Exception:  # noqa: BLE001 - printing must not fail a run
            return step.cpp_text
        inner = printed[len("builtin.module(") : -1]
        if step.cpp_text.startswith("func.func(") and inner.startswith("func.func("):
            inner = inner[len("func.func(") : -1]
        return inner
    opts = step.options or {}
    if not opts:
        return step.argument
    return step.argument + "{" + " ".join(f"{k}={_fmt(opts[k])}" for k in sorted(opts)) + "}"


def _fmt(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


# --------------------------------------------------------------------------- reports

_BAR = "===" + "-" * 73 + "==="


def timing_report(rows: Iterable[tuple[str, float]]) -> str:
    """MLIR's ``--mlir-timing`` report (wall time only) of ``[(name, seconds)]``."""
    rows = list(rows)
    total = sum(t for _, t in rows) or 1e-12
    buf = io.StringIO()
    buf.write(_BAR + "\n" + " " * 25 + "... Execution time report ...\n" + _BAR + "\n")
    buf.write(f"  Total Execution Time: {total:.4f} seconds\n\n")
    buf.write("  ----Wall Time----  ----Name----\n")
    for name, t in rows:
        buf.write(f"    {t:.4f} ({100 * t / total:5.1f}%)  {name}\n")
    buf.write(f"    {total:.4f} (100.0%)  Total\n")
    return buf.getvalue()


def statistics_report(stats: Mapping[str, Mapping[str, int]]) -> str:
    """MLIR's ``--mlir-pass-statistics`` report of ``{pass name: {statistic: count}}``."""
    buf = io.StringIO()
    buf.write(_BAR + "\n" + " " * 25 + "... Pass statistics report ...\n" + _BAR + "\n")
    for name, counter in stats.items():
        buf.write(f"{name}\n")
        for k in sorted(counter):
            buf.write(f"  ({k}) {counter[k]}\n")
    return buf.getvalue()
