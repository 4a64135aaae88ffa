"""Diagnostics in MLIR's layout: file:line:col, source line, caret, notes; call sites as MLIR reports them."""

from __future__ import annotations

import io
import os
import subprocess
import sys

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.pipeline import Pipeline, steps_from_text
from hilo_mlir.support.diagnostics import Diagnostic, FileLoc, HiloError, location_stack, printable, render, render_all, shown_source_line

SRC = {"in.mlir": "first line\n  second line\nthird"}


def test_source_line_and_caret():
    assert render("error", "boom", 'loc("in.mlir":2:3)', sources=SRC) == "in.mlir:2:3: error: boom\n  second line\n  ^"


def test_no_location_gets_the_tool_prefix():
    assert render("error", "boom", None, tool="hilo-opt") == "hilo-opt: error: boom"
    assert HiloError("boom").render(tool="hilo-opt") == "hilo-opt: error: boom"


def test_an_unknown_location_names_the_file_it_came_from():
    assert render("error", "boom", "loc(unknown)", filename="in.mlir") == "in.mlir: error: boom"
    assert render("error", "boom", "loc(unknown)", filename="<stdin>", tool="hilo-opt") == "<stdin>: error: boom"
    assert render("error", "boom", "loc(unknown)", tool="hilo-opt") == "hilo-opt: error: boom"  # no file known
    assert HiloError("boom", loc="loc(unknown)").render(filename="m.mlir", tool="hilo2penguin") == "m.mlir: error: boom"


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


# --------------------------------------------------------------------------- input text is escaped


def test_control_characters_of_the_source_line_are_escaped_and_the_caret_follows():
    src = {"in.mlir": 'x\n  %0 = "a\x1b[31mb"(%x) \x07 q\r\n'}
    col = len('  %0 = "a\x1b[31mb"(%x) \x07 ') + 1  # at q, a byte column
    assert render("error", "boom", f'loc("in.mlir":2:{col})', sources=src).splitlines() == [
        f"in.mlir:2:{col}: error: boom",
        '  %0 = "a\\x1b[31mb"(%x) \\x07 q',  # the line's own \r ending is dropped, as before
        " " * len('  %0 = "a\\x1b[31mb"(%x) \\x07 ') + "^",
    ]


def test_a_carriage_return_inside_a_line_and_bidi_overrides_are_escaped():
    shown, caret = shown_source_line("ab\rcd\u202eef", 9)  # byte column 9: e (\u202e is 3 bytes)
    assert shown == "ab\\rcd\\u202eef"
    assert caret == " " * len("ab\\rcd\\u202e") + "^"


def test_the_caret_counts_bytes_and_terminal_columns():
    line = '  x = "\u00e9\u00e9" $'  # two 2-byte characters before the $
    assert shown_source_line(line, len(line.encode())) == (line, " " * (len(line) - 1) + "^")
    wide = "\u4e2d\u6587 $"  # two 3-byte, 2-column characters
    assert shown_source_line(wide, 8) == (wide, " " * 5 + "^")
    assert shown_source_line("\tx = y", 2) == ("\tx = y", "\t^")  # a tab stays a tab, in both lines


def test_messages_and_file_names_from_the_input_are_escaped():
    out = render("error", "unregistered operation 'a\x1b]0;t\x07'\nsecond line", "f\x1b.mlir:1:1")
    assert out == "f\\x1b.mlir:1:1: error: unregistered operation 'a\\x1b]0;t\\x07'\nsecond line"
    assert printable("tab\tand\nnewline") == "tab\tand\nnewline"


# --------------------------------------------------------------------------- a note at the error's location


def test_a_note_at_the_location_just_shown_does_not_quote_it_again():
    e = HiloError(
        "boom",
        loc='loc("in.mlir":2:3)',
        notes=[
            Diagnostic("note", "see current operation: x", "in.mlir:2:3"),
            Diagnostic("note", "and here", "in.mlir:3:1"),
            Diagnostic("note", "here again", "in.mlir:3:1"),
            Diagnostic("error", "another", "in.mlir:3:1"),
        ],
    )
    assert e.render(sources=SRC).splitlines() == [
        "in.mlir:2:3: error: boom",
        "  second line",
        "  ^",
        "in.mlir:2:3: note: see current operation: x",
        "in.mlir:3:1: note: and here",
        "third",
        "^",
        "in.mlir:3:1: note: here again",
        "in.mlir:3:1: error: another",  # an error is quoted wherever it is
        "third",
        "^",
    ]


def test_render_all_quotes_a_flat_list_as_mlir_does():
    diags = [
        Diagnostic("error", "boom", "in.mlir:2:3"),
        Diagnostic("note", "see current operation: x", "in.mlir:2:3"),
        Diagnostic("error", "boom", "in.mlir:2:3"),
    ]
    assert "\n".join(render_all(diags, sources=SRC)).splitlines() == [
        "in.mlir:2:3: error: boom",
        "  second line",
        "  ^",
        "in.mlir:2:3: note: see current operation: x",
        "in.mlir:2:3: error: boom",
        "  second line",
        "  ^",
    ]


UNREGISTERED = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "mhlo.foo\x1b[2J"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def test_the_tools_quote_an_unregistered_op_once_and_escaped(tmp_path):
    path = tmp_path / "u.mlir"
    path.write_text(UNREGISTERED)
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))}
    for tool, args in (("hilo2penguin", ["-o", str(tmp_path / "o")]), ("opt", [])):
        r = subprocess.run([sys.executable, "-m", f"hilo_mlir.tools.{tool}", str(path), *args], capture_output=True, text=True, env=env)
        assert r.returncode == 1
        assert "\x1b" not in r.stderr
        lines = r.stderr.splitlines()
        assert lines[1:4] == [
            '  %0 = "mhlo.foo\\x1b[2J"(%a) : (tensor<2xf32>) -> tensor<2xf32>',
            "       ^",
            f'{path}:2:8: note: see current operation: %0 = "mhlo.foo\\1B[2J"(%arg0) : (tensor<2xf32>) -> tensor<2xf32>',
        ]
        assert lines[0].startswith(f"{path}:2:8: error: unregistered operation 'mhlo.foo\\x1b[2J' found in dialect ('mhlo')")
        assert len(lines) == 4
    assert not (tmp_path / "o" / "penguin.py").exists()
