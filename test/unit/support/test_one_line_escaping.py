"""The one-line error forms escape text from the input as the diagnostics renderer does: ``HiloError.format()``
(``str(e)`` of the Python API, the batch report's ``diagnostic``), ``internal_error`` and ``Diagnostic.format``."""

from __future__ import annotations

from hilo_mlir.support.diagnostics import (
    Diagnostic,
    HiloError,
    escape_text,
    internal_error,
    printable,
    render,
    shown_path,
    shown_text,
)

HOSTILE = "a\x1b[31mb\nc\rd\u202ee\tf"


def test_one_escaping_rule():
    assert shown_text(HOSTILE) == shown_path(HOSTILE) == escape_text(HOSTILE) == "a\\x1b[31mb\\nc\\rd\\u202ee\\tf"
    assert printable(HOSTILE) == escape_text(HOSTILE, "\n\t") == "a\\x1b[31mb\nc\\rd\\u202ee\tf"
    assert shown_text("plain 'text'") == "plain 'text'"


def test_format_is_one_escaped_line():
    e = HiloError(f"'mhlo.custom_call' op unknown target '{HOSTILE}'", loc='loc("in\x1b.mlir":3:4)', code="NCC_X1")
    assert e.format() == str(e) == "in\\x1b.mlir:3:4: error: NCC_X1: 'mhlo.custom_call' op unknown target 'a\\x1b[31mb\\nc\\rd\\u202ee\\tf'"
    assert HiloError("x\ny", filename="f\r.mlir").format() == "f\\r.mlir: error: x\\ny"
    named = HiloError("bad", loc='loc("lu\x1b")')
    assert named.format("m.mlir") == "m.mlir: error: bad (at 'lu\\x1b')"
    # the same text the renderer shows for the message (which keeps line breaks as lines)
    assert render("error", e.message, None, tool="t") == "t: error: " + printable(e.message)


def test_text_is_the_raw_message_with_code_and_name():
    e = HiloError("x\ny", loc='loc("lu\x1b")', code="NCC_X1")
    assert e.text() == "NCC_X1: x\ny (at 'lu\x1b')"


def test_diagnostic_format_escapes_control_characters_but_keeps_lines():
    d = Diagnostic("warning", "w\x1b[2J\nnext", "f.mlir:1:2")
    assert d.format() == "f.mlir:1:2: warning: w\\x1b[2J\nnext"


def test_internal_error_is_one_escaped_line(capsys):
    try:
        raise ValueError("bad \x1b[31m\nvalue")
    except ValueError as exc:
        assert internal_error("hilo2penguin", exc) == 1
    assert capsys.readouterr().err == (
        "hilo2penguin: internal error: ValueError: bad \\x1b[31m\\nvalue (set HILO_MLIR_TRACEBACK=1 for details)\n"
    )
