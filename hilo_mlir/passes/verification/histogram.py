"""Spine step 31: ``mlir-instruction-histogram`` (one name for both spines; class ``MLIRInstructionHistogram``).

Seed 004 step 31 ("op-count diagnostics"; ``createMLIRInstructionHistogram``
is one symbol on both spines). The report format is ours.
"""

from __future__ import annotations

import collections
from dataclasses import dataclass
from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import ir
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import PassInfo, register

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext


def instruction_histogram(module_op) -> list[tuple[str, int]]:
    """``[(op name, count)]`` over every op nested in ``module_op`` (the module itself excluded).

    Order: count descending, then op name ascending (deterministic).
    """
    counts: collections.Counter[str] = collections.Counter()

    def visit(op):
        counts[op.name] += 1
        return ir.WalkResult.ADVANCE

    module_op.walk(visit)
    counts[module_op.name] -= 1
    if counts[module_op.name] <= 0:
        del counts[module_op.name]
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def format_histogram(rows) -> str:
    """The report: a header, one ``<count> <op name>`` line per op (right-aligned counts), a total."""
    total = sum(n for _, n in rows)
    width = max([len(str(total))] + [len(str(n)) for _, n in rows])
    lines = ["===- MLIR instruction histogram -===", f"{total:>{width}} total ops, {len(rows)} distinct"]
    lines += [f"{n:>{width}} {name}" for name, n in rows]
    return "\n".join(lines) + "\n"


def run_histogram(module_op, ctx: PassContext[HistogramOptions]) -> None:
    """Count every op in the module by name and report it.

    The counts always go to the pass statistics (``--mlir-pass-statistics``,
    ``PenguinSource.statistics``) and to ``ctx.outputs.histogram``;
    the text report goes to stderr when ``output`` is ``-`` and to a file when
    ``output`` is a path (written atomically). The IR is not changed.
    """
    # The census counts every op nested in the module, as instruction_histogram does (no walk while kept).
    rows = sorted(ctx.op_counts().items(), key=lambda kv: (-kv[1], kv[0]))
    for name, n in rows:
        ctx.stats[name] = n
    ctx.outputs.histogram = rows
    out = ctx.options.output
    if not out:
        return
    text = format_histogram(rows)
    if out == "-":
        import sys

        sys.stderr.write(text)
    else:
        from hilo_mlir.support.io import atomic_write_text

        atomic_write_text(out, text)


@dataclass(frozen=True)
class HistogramOptions:
    """The options of ``mlir-instruction-histogram``."""

    output: str = option("", "'-' = stderr, a path = write the report there; '' = statistics only", writes_file=True)


register(
    PassInfo(
        "mlir-instruction-histogram",
        "Op-count histogram of the module (statistics; stderr with output=-, or a file)",
        run_histogram,
        anchor="builtin.module",
        options_type=HistogramOptions,
        class_name="MLIRInstructionHistogram",
        statistics=("{op-name}",),  # one statistic per op name counted
        source="seed 004 step 31 (createMLIRInstructionHistogram, shared by both spines)",
    )
)
