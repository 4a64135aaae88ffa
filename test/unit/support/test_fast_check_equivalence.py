"""The allow-list check's fast path (``support/pysource.py``: ``_fast_check``) decides exactly as it did before it was sped up.

The literal regex was rewritten unrolled (``'[^'\\\\\\n]*(?:\\\\.[^'\\\\\\n]*)*'``), a
single-quote-only variant is used on text without ``"``, and the ambiguity
test became a character scan plus a placeholder-anchored regex. The
original patterns live here as the reference: on generated texts made of
the characters that matter (quotes, backslashes, newlines, ``#``, word
characters, spaces, digits, the placeholder) the rewritten forms give the
same substituted text and the same verdict, and ``_fast_check`` gives the
verdict of the original line loop. The reference's shape of a line keeps a
number a number (every run of digits one ``0``, by a regex here; the fast path
zeroes the digits with ``str.translate`` and shortens the runs of distinct lines):
removing the digits made ``x=1e5`` and ``x=e`` one shape.
"""

from __future__ import annotations

import ast
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hilo_mlir.support import pysource
from hilo_mlir.support.pysource import ProgramCheckError, _fast_check, check_program

# the patterns as they were before the rewrite (the reference)
OLD_STR_LIT = re.compile(r"'(?:[^'\\\n]|\\.)*'" r'|"(?:[^"\\\n]|\\.)*"')
OLD_AMBIGUOUS = re.compile(r"['\"#\\]|\w\x01|\x01\s*\x01")
DIGIT_RUN = re.compile(r"[0-9]+")

ALPHABET = ["'", '"', "\\", "\n", "#", "a", "_", "1", " ", "\t", "\x01", "é", "(", "="]
texts = st.lists(st.sampled_from(ALPHABET), max_size=40).map("".join)
SETTINGS = settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)


@SETTINGS
@given(text=texts)
def test_literal_substitution_matches_the_original(text):
    want = OLD_STR_LIT.sub("\x01", text)
    assert pysource._STR_LIT.sub("\x01", text) == want
    if '"' not in text:
        assert pysource._SQ_LIT.sub("\x01", text) == want


@SETTINGS
@given(text=st.lists(st.sampled_from(["0", "1", "9", "00", "a", "e", "x", ".", "\n", " ", "_"]), max_size=30).map("".join))
def test_number_shape_is_one_zero_per_digit_run(text):
    assert pysource._number_shape(text.translate(pysource._ZEROS)) == DIGIT_RUN.sub("0", text)


@SETTINGS
@given(text=texts)
def test_ambiguity_matches_the_original(text):
    assert pysource._ambiguous(text) == (OLD_AMBIGUOUS.search(text) is not None)


def test_ambiguity_cases():
    assert pysource._ambiguous("x = m1.A(a=\x01)") is False
    assert pysource._ambiguous("x = b\x01") is True  # a prefix glued to a literal
    assert pysource._ambiguous("x = \x01 \x01") is True  # implicit concatenation
    assert pysource._ambiguous("x = \x01\n\x01") is True  # \s spans the line break, as before
    assert pysource._ambiguous("x = 1  # c") is True
    assert pysource._ambiguous("é\x01") is True  # \w is Unicode, as before


def every_line_passes(body, roots):
    """Whether each line of ``body`` after its imports passes the fast path's check of one line: what accepting
    a program from one line per shape stands for (``test_fast_check_distinct.py`` has the same helper)."""
    lines = body.split("\n")
    c = pysource._Checker("p.py", roots)
    start = pysource._header_end(lines, c)
    return start is not None and pysource._check_shapes(c, lines, [i for i in range(start, len(lines)) if lines[i]], "p.py")


def _old_fast_check(source: str, filename: str, roots) -> bool:
    """The fast path as it was (reference): one loop over every line, the original regexes."""
    if "\x01" in source:
        return False
    skip = 0
    while source.startswith("#", skip):
        skip = source.find("\n", skip) + 1
        if skip == 0:
            return False
    body = source[skip:]
    keys = DIGIT_RUN.sub("0", OLD_STR_LIT.sub("\x01", body))
    if OLD_AMBIGUOUS.search(keys):
        return False
    lines = body.split("\n")
    klines = keys.split("\n")
    if len(lines) != len(klines):
        return False
    c = pysource._Checker(filename, roots)
    shapes: dict[str, int] = {}
    in_def = False
    header = True
    for i, (line, key) in enumerate(zip(lines, klines)):
        if not line:
            continue
        m = pysource._IMPORT.match(line)
        if m and header:
            try:
                c.check_import(None, pysource._Alias(m.group(1), m.group(2)))
            except ProgramCheckError:
                return False
            continue
        header = False
        if line.startswith("    "):
            if not in_def or line[4:5] == " ":  # the original read line[4]: IndexError on a line of four spaces
                return False
        else:
            in_def = line.startswith("def ")
        shapes.setdefault(key, i)
    c.shape_only = True
    for i in shapes.values():
        line = lines[i]
        text = (
            "def v0():\n" + line + "\n"
            if line.startswith("    ")
            else line + "\n    return []\n"
            if line.startswith("def ")
            else line + "\n"
        )
        try:
            for st_ in ast.parse(text, filename).body:
                c.statement(st_, False)
        except (SyntaxError, ValueError, ProgramCheckError, RecursionError):
            return False
    return True


HEAD = "# header\nimport r as m0\nimport r.ir as m1\n\nimport r.support as m2\n"
LINES = [
    "v0 = m0.Function(id_=0, batch_ids=[], attrs=('a=1',))",
    "input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(2,), dtype='float32')).markInput(v0, index=0, is_parameter_tensor=False)",
    "v1 = m1.AddOp(srcs=[input_0, input_0], dsts=[], x='a\\'b', dl=m2.DebugLocation(file=\"f'\", line=1))",
    "def v2(v3, v4):",
    "    v5 = m1.AddOp(srcs=[v3, v4], dsts=[], dl=m2.DebugLocation())",
    "    return [v5]",
    "        v6 = m1.AddOp()",
    "    v6 = m1.AddOp()",
    "",
    "import os as m9",
    "import r.x as m3",
    "v7 = open('x')",
    "v8 = m1.AddOp(x='a' 'b')",
    "v9 = m1.AddOp(x=b'a')",
    "v11 = m1.AddOp(x=1e5, y='\\n')",
    "v11 = m1.AddOp(x=e, y='\\n')",
    "12",
    "    ",
    "def v10():",
    "v0.markOutput(input_0, index=0, name='y', is_slow_changing=False)",
]


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(body=st.lists(st.sampled_from(LINES), max_size=12), roots=st.sampled_from([None, ("r",), ("q",)]))
def test_fast_check_decides_as_before(body, roots):
    src = HEAD + "\n".join(body) + "\n"
    got = _fast_check(src, "p.py", roots)
    assert got == _old_fast_check(src, "p.py", roots)
    if got:  # accepting: every line, not only the first of its shape, passes the check of a line
        assert every_line_passes(src.split("\n", 1)[1], roots)


def test_a_line_of_four_spaces_is_a_program_error():
    src = HEAD + "def v2(v3, v4):\n    \n"
    assert not _fast_check(src, "p.py", None)  # used to raise IndexError
    try:
        check_program(src, "p.py")
    except ProgramCheckError as e:
        assert "not valid Python" in e.message
    else:
        raise AssertionError("accepted a function without a body")


LAYOUT = ["\n", "\n", " ", "    ", "def ", "d", "x", "\r"]


@SETTINGS
@given(text=st.lists(st.sampled_from(LAYOUT), max_size=30).map("".join), pos=st.integers(0, 12))
def test_the_indent_rule_by_find_matches_its_regex(text, pos):
    assert pysource._indented_outside_def(text, pos) == (pysource._INDENT_OUTSIDE_DEF.search(text, pos) is not None)


def test_the_indent_rule_cases():
    rule = pysource._indented_outside_def
    assert rule("h\nv1 = x\n    y\n", 1) is True  # indented under a statement
    assert rule("h\ndef v1():\n\n    y\n    z\n", 1) is False  # under a def, empty lines between
    assert rule("h\n  x\n    y\n", 1) is True  # two spaces are not an indentation
    assert rule("v1 = x\n    y\n", 6) is False  # the line above starts before pos: not searched
    assert rule("\n\n    y", 0) is False  # no non-empty line above


def test_the_digits_are_zeroed_the_same_way_in_ascii_and_other_text():
    text = "v12 = m3.A(x=405, s='é9')\n"
    ascii_text = text.replace("é", "e")
    assert ascii_text.encode("ascii").translate(pysource._ZEROS_ASCII).decode("ascii") == ascii_text.translate(pysource._ZEROS)
    assert text.translate(pysource._ZEROS) == "v00 = m0.A(x=000, s='é0')\n"


def test_a_wrong_indent_rule_is_caught_by_the_checking_mode(monkeypatch):
    # an indented statement outside any def: the fast rule (made to answer "fine") lets the line checker
    # read it inside a def and accept it; the checking mode decides the layout by the regex and refuses it
    src = "import r as m0\nimport r.ir as m1\nv1 = m1.AddOp(x=1)\n    v2 = m1.AddOp(x=2)\n"
    with pytest.raises(ProgramCheckError):
        check_program(src, "p.py", roots=("r",))
    monkeypatch.setattr(pysource, "_indented_outside_def", lambda text, pos: False)
    check_program(src, "p.py", roots=("r",))  # the wrong answer goes through
    with pytest.raises(ProgramCheckError):
        check_program(src, "p.py", roots=("r",), checking=True)
