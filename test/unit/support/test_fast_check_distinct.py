"""The allow-list check's distinct-line path (``support/pysource.py``: ``_fast_check_distinct``) decides as the line loop.

On a text without a backslash the fast path makes every digit ``0`` first and
finds the literals of each distinct zeroed line once; the layout rules are
two regex searches. Whenever it decides (not None), its verdict is the one of
:func:`~hilo_mlir.support.pysource._fast_check_lines` (the loop over every
line, itself checked against the original in ``test_fast_check_equivalence.py``).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hilo_mlir.support.pysource import (
    _ZEROS,
    ProgramCheckError,
    _check_shapes,
    _Checker,
    _fast_check,
    _fast_check_distinct,
    _fast_check_lines,
    _header_end,
    _header_lines,
    _lines_at,
    check_program,
)

HEAD = "import r as m0\nimport r.ir as m1\n\nimport r.support as m2\n"
LINES = [
    "v0 = m0.Function(id_=0, batch_ids=[], attrs=('a=1',))",
    "input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(2,), dtype='float32')).markInput(v0, index=0, is_parameter_tensor=False)",
    "v1 = m1.AddOp(srcs=[input_0, input_0], dsts=[], x='a\"b', dl=m2.DebugLocation(file=\"f'\", line=1))",
    "v12 = m1.AddOp(srcs=[input_0], dsts=[], x='a1', dl=m2.DebugLocation(file='f', line=12))",
    "def v2(v3, v4):",
    "    v5 = m1.AddOp(srcs=[v3, v4], dsts=[], dl=m2.DebugLocation())",
    "    return [v5]",
    "        v6 = m1.AddOp()",
    "    v6 = m1.AddOp()",
    "    ",
    "   ",
    "",
    "",
    "import os as m9",
    "import r.x as m3",
    "v7 = open('x')",
    "v8 = m1.AddOp(x='a' 'b')",
    "v8 = m1.AddOp(x='a'\t'b')",
    "v9 = m1.AddOp(x=b'a')",
    "'a'",
    "  'a'",
    "v10 = m1.AddOp(x='a",
    "12",
    "1 2",
    "v13 = m1.AddOp(x=1e5)",
    "v13 = m1.AddOp(x=e)",
    "def v10():",
    "v1 = m1.AddOp(x='a')  # c",
    "v0.markOutput(input_0, index=0, name='y', is_slow_changing=False)",
]


def every_line_passes(body, roots):
    """Whether each line of ``body`` after its imports passes the fast path's check of one line (``_check_shapes``):
    what accepting a program from one line per shape stands for."""
    lines = body.split("\n")
    c = _Checker("p.py", roots)
    start = _header_end(lines, c)
    return start is not None and _check_shapes(c, lines, [i for i in range(start, len(lines)) if lines[i]], "p.py")


SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)


@SETTINGS
@given(body=st.lists(st.sampled_from(LINES), max_size=12), roots=st.sampled_from([None, ("r",), ("q",)]), head=st.booleans())
def test_distinct_lines_decide_as_the_line_loop(body, roots, head):
    text = (HEAD if head else "") + "\n".join(body) + "\n"
    lines = text.split("\n")
    want = _fast_check_lines(text, lines, "p.py", roots)
    got = _fast_check_distinct(text, "p.py", roots)
    assert got is None or got == want
    assert _fast_check_distinct(text, "p.py", roots, checking=True) == got  # lines cut by length == split lines
    assert _fast_check("# header\n" + text, "p.py", roots) == want
    if want:  # accepting: every line, not only the first of its shape, passes the check of a line
        assert every_line_passes(text, roots)


def test_the_cases_left_to_the_line_loop():
    def distinct(body):
        text = HEAD + body
        return _fast_check_distinct(text, "p.py", None)

    assert distinct("12\n") is False  # digits alone: a number, not an empty line
    assert distinct("v1 = m1.AddOp(x='a',\n'b')\n") is None  # a line starting with a literal
    assert distinct("v1 = m1.AddOp(x=1)\n\nv2 = m1.AddOp(x=2)\n") is True
    assert distinct("v1 = m1.AddOp(x=1)\n    v2 = m1.AddOp(x=2)\n") is False  # indented outside a def
    assert distinct("def v1():\n     return []\n") is False  # five spaces
    assert distinct("def v1():\n\n    return []\n") is True


def test_a_printed_program_is_decided_by_the_distinct_lines(examples):
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.printers import print_program

    with make_context():
        text = open(f"{examples}/decoder_layer.stablehlo.mlir").read()
        src, _ = print_program(ir.Module.parse(text).operation, dialect="stablehlo", root="r")
    body = src.split("\n", 1)[1]
    assert "\\" not in body
    assert _fast_check_distinct(body, "penguin.py", ("r", "support")) is True
    assert _fast_check_lines(body, body.split("\n"), "penguin.py", ("r", "support")) is True


@pytest.mark.parametrize(
    "number, name",
    [("1e5", "e"), ("0o17", "o"), ("0xbad", "xbad"), ("1_0", "_"), ("12", "v")],
)
@pytest.mark.parametrize("escape", ["", "\\n"])  # without a backslash: the distinct lines; with one: the line loop
def test_a_number_and_a_name_are_not_one_shape(number, name, escape):
    # removing the digits made `x=1e5` and `x=e` one shape: the first line's check then accepted the
    # second, a name the program never binds (a number's digits may be removed to any name they leave)
    text = HEAD + f"v1 = m1.AddOp(x={number}, y='{escape}')\nv2 = m1.AddOp(x={name}, y='{escape}')\n"
    lines = text.split("\n")
    assert _fast_check(text, "p.py", None) is False
    assert _fast_check_lines(text, lines, "p.py", None) is False
    assert _fast_check_distinct(text, "p.py", None) in (None, False)
    with pytest.raises(ProgramCheckError, match=f"the name '{name}'"):
        check_program(text, "p.py")
    check_program(HEAD + f"v1 = m1.AddOp(x={number}, y='{escape}')\nv2 = m1.AddOp(x={number}0, y='{escape}')\n", "p.py")


def test_lines_are_cut_from_the_text_by_the_zeroed_lengths():
    # the distinct path splits only the zeroed text; a shape's line is cut from the text by the lengths
    # before it (one character per character, also for non-ASCII digits and letters)
    body = "import a as m1\n\nv1 = m1.F(x=12, s='\u00e9\u0663')\n\nv22 = m1.F(x=3, s='\u0663')\n"
    head, offset = _header_lines(body)
    assert head == ["import a as m1", "", "v1 = m1.F(x=12, s='\u00e9\u0663')"]
    assert body[offset:].startswith("v1 = ")
    zlines = body.translate(_ZEROS).split("\n")
    assert _lines_at(body, zlines, [4, 2]) == {2: "v1 = m1.F(x=12, s='\u00e9\u0663')", 4: "v22 = m1.F(x=3, s='\u0663')"}
    assert _header_lines("import a as m1\n") == (["import a as m1", ""], 15)


def test_a_header_line_repeated_after_it_is_still_a_shape():
    # a zeroed line met first in the header and again after it: its first index after the header is checked
    text = HEAD + "v1 = m1.AddOp(x=1)\nimport r as m0\n"
    assert _fast_check_distinct(text, "p.py", None) is False  # an import after the header is checked, and refused
    assert _fast_check_lines(text, text.split("\n"), "p.py", None) is False
