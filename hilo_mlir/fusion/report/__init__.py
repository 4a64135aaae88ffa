"""The fusion report: every cluster formed and every candidate refused, with the rule that refused it.

The recording passes -- ``neuron-op-fusion`` (every sub-pass, both twins),
``schedule-fusion``, ``raise-logistic`` and
``convert-fs-pattern-to-custom-calls`` -- ask :func:`recorder` for a
:class:`~.capture.Recorder` at the start of each function and record each
decision where they make it. Nothing is recorded (and nothing costs) unless
a report was asked for:

* ``hilo2penguin --fusion-report DIR`` / ``compile_file(..., fusion_report=DIR)``:
  the compiler puts a :class:`FusionReport` into the pipeline's outputs
  (``CompileOutputs.fusion_report``) and writes it when the compile succeeded;
* ``hilo-opt --pass-pipeline='builtin.module(neuron-op-fusion{report=DIR})'``:
  the pass option; the pass writes the report after its last function
  (every pass naming a folder writes everything recorded so far in the
  pipeline).

:func:`write_report` writes ``DIR/fusion_report.json`` (the document
``docs/fusion_report.md`` specifies) and ``DIR/fusion_report.html``
(:mod:`.html`; drawings by Graphviz, :mod:`.graph`).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

from hilo_mlir.fusion.report.capture import Recorder
from hilo_mlir.fusion.report.record import Cluster, FusionReport, Refusal
from hilo_mlir.fusion.report.vocabulary import REASONS, RefusalReason, code_of, statistic_for
from hilo_mlir.ir.utils import enclosing_module, func_name, op_key, top_funcs
from hilo_mlir.passmanager.options import declared_options, option
from hilo_mlir.passmanager.registry import Option
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.io import atomic_write_text

__all__ = [
    "REASONS",
    "REPORT_HELP",
    "REPORT_OPTION",
    "Cluster",
    "FusionReport",
    "Recorder",
    "Refusal",
    "RefusalReason",
    "ReportOptions",
    "ReportRun",
    "code_of",
    "function_done",
    "recorder",
    "statistic_for",
    "write_report",
]

#: the ``--help`` line of the ``report`` option every recording pass declares
REPORT_HELP = "write fusion_report.json and fusion_report.html (every cluster formed, every candidate refused and why) to this folder"


@dataclass(frozen=True)
class ReportOptions:
    """The options of a recording pass that has no other: ``{report=DIR}``."""

    report: str = option("", REPORT_HELP)


#: the ``report`` option every recording pass declares
REPORT_OPTION: Option = declared_options(ReportOptions)[0]

JSON_NAME = "fusion_report.json"
HTML_NAME = "fusion_report.html"


class ReportRun:
    """Per-run state of a recording pass (base of its ``PassInfo.state``): the functions of the
    module still to run, so that a ``{report=DIR}`` is written after the last one."""

    def __init__(self):
        self.report_remaining: set | None = None


def recorder(ctx, func_op) -> Recorder | None:
    """The recorder for ``ctx``'s pass on ``func_op``, or None when no report was asked for.

    Call it at the start of each function the pass runs on (also one it then
    skips), and :func:`function_done` at the end.
    """
    out_dir = getattr(ctx.options, "report", "")
    report = ctx.outputs.fusion_report
    if report is None:
        if not out_dir:
            return None
        report = ctx.outputs.fusion_report = FusionReport(ctx.env.filename)
    if out_dir and isinstance(ctx.state, ReportRun) and ctx.state.report_remaining is None:
        module = enclosing_module(func_op)
        ctx.state.report_remaining = {op_key(f) for f in top_funcs(module)} if module is not None else set()
    return Recorder(report, ctx.info.argument, func_name(func_op))


def function_done(ctx, func_op) -> None:
    """The pass finished ``func_op``: after the module's last function, write a ``{report=DIR}``."""
    out_dir = getattr(ctx.options, "report", "")
    if not out_dir or not isinstance(ctx.state, ReportRun) or ctx.state.report_remaining is None:
        return
    ctx.state.report_remaining.discard(op_key(func_op))
    if not ctx.state.report_remaining:
        write_report(ctx.outputs.fusion_report, out_dir)


def write_report(report: FusionReport, out_dir: str) -> tuple[str, str]:
    """Write ``out_dir/fusion_report.json`` and ``out_dir/fusion_report.html`` (folder made if needed).

    Returns:
        The two paths.

    Raises:
        HiloError: the folder cannot be made or a file cannot be written.
    """
    from hilo_mlir.fusion.report.html import render_html

    try:
        os.makedirs(out_dir, exist_ok=True)
    except OSError as e:
        raise HiloError(f"cannot write the fusion report to '{out_dir}': {e.strerror or e}") from None
    jpath, hpath = os.path.join(out_dir, JSON_NAME), os.path.join(out_dir, HTML_NAME)
    atomic_write_text(jpath, json.dumps(report.to_json(), indent=1) + "\n")
    atomic_write_text(hpath, render_html(report))
    return jpath, hpath
