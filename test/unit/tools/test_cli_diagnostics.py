"""Diagnostics in MLIR's layout: file:line:col, source line, caret, notes; call sites as MLIR reports them."""

from __future__ import annotations

import io

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.pipeline import Pipeline, steps_from_text
from hilo_mlir.support.diagnostics import Diagnostic, FileLoc, HiloError, location_stack, render

SRC = {"in.mlir": "first line\n  second line\nthird"}


def test_source_line_and_caret():
    assert render("error", "boom", 'loc("in.mlir":2:3)', sources=SRC) == "in.mlir:2:3: error: boom\n  second line\n  ^"


def test_no_location_gets_the_tool_prefix():
    assert render("error", "boom", None, tool="hilo-opt") == "hilo-opt: error: boom"
    assert HiloError("boom").render(tool="hilo-opt") == "hilo-opt: error: boom"


def test_callsite_reports_at_the_callee_and_notes_each_caller():
    loc = 'loc(callsite("model.py":3:5 at callsite("in.mlir":1:2 at "in.mlir":3:1)))'
    assert location_stack(loc) == [
        (FileLoc("model.py", 3, 5), ""),
        (FileLoc("in.mlir", 1, 2), "called from"),
        (FileLoc("in.mlir", 3, 1), "called from"),
    ]
    assert render("error", "boom", loc, sources=SRC).splitlines() == [
        "model.py:3:5: error: boom",  # not a file the tool read: no source line
        "in.mlir:1:2: note: called from",
        "first line",
        " ^",
        "in.mlir:3:1: note: called from",
        "third",
        "^",
    ]


def test_a_callee_with_only_a_name_reports_at_the_call():
    loc = 'loc(callsite("neg" at "in.mlir":2:3))'
    assert render("error", "boom", loc, sources=SRC).splitlines()[0] == "in.mlir:2:3: error: boom"


def test_fused_and_name_locations_and_the_stdin_buffer():
    assert location_stack('loc(fused["x", "-":2:3])', "in.mlir") == [(FileLoc("in.mlir", 2, 3), "")]
    assert location_stack('loc("n"("a.mlir":1:1))') == [(FileLoc("a.mlir", 1, 1), "")]
    assert location_stack("loc(unknown)") == []


def test_notes_are_rendered_after_the_error():
    e = HiloError("boom", loc='loc("in.mlir":2:3)', notes=[Diagnostic("note", "see here", "in.mlir:3:1")])
    assert e.render(sources=SRC).splitlines() == [
        "in.mlir:2:3: error: boom",
        "  second line",
        "  ^",
        "in.mlir:3:1: note: see here",
        "third",
        "^",
    ]


def test_twin_warning_both_directions():
    seen = []
    with make_context():
        m = ir.Module.parse(
            "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = stablehlo.add %a, %a : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}"
        )
        Pipeline(
            steps_from_text("builtin.module(fold-iota,stablehlo-legalize-to-hlo,stablehlo-fold-iota)"),
            instrumentation=Instrumentation(on_diagnostic=seen.append, out=io.StringIO()),
        ).run(m)
    assert [d.message for d in seen] == [
        "pass 'fold-iota' works on mhlo ops but the module has none (it has stablehlo ops): use its twin 'stablehlo-fold-iota'",
        "pass 'stablehlo-fold-iota' works on stablehlo ops but the module has none (it has mhlo ops): use its twin 'fold-iota'",
    ]
    assert all(d.severity == "warning" for d in seen)
