"""The allow-list check's distinct-line path (``support/pysource.py``: ``_fast_check_distinct``) decides as the line loop.

On a text without a backslash the fast path removes the digits first and
finds the literals of each distinct digit-free line once; the layout rules are
two regex searches. Whenever it decides (not None), its verdict is the one of
:func:`~hilo_mlir.support.pysource._fast_check_lines` (the loop over every
line, itself checked against the original in ``test_fast_check_equivalence.py``).
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hilo_mlir.support.pysource import _fast_check, _fast_check_distinct, _fast_check_lines, check_program

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
SETTINGS = settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)


@SETTINGS
@given(body=st.lists(st.sampled_from(LINES), max_size=12), roots=st.sampled_from([None, ("r",), ("q",)]), head=st.booleans())
def test_distinct_lines_decide_as_the_line_loop(body, roots, head):
    text = (HEAD if head else "") + "\n".join(body) + "\n"
    lines = text.split("\n")
    want = _fast_check_lines(text, lines, "p.py", roots)
    got = _fast_check_distinct(text, lines, "p.py", roots)
    assert got is None or got == want
    assert _fast_check("# header\n" + text, "p.py", roots) == want
    if want:  # accepting is the whole check's verdict too
        check_program(text, "p.py", roots=roots)


def test_the_cases_left_to_the_line_loop():
    def distinct(body):
        text = HEAD + body
        return _fast_check_distinct(text, text.split("\n"), "p.py", None)

    assert distinct("12\n") is None  # digits alone: its digit-free line is an empty line's
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
    assert _fast_check_distinct(body, body.split("\n"), "penguin.py", ("r", "support")) is True
    assert _fast_check_lines(body, body.split("\n"), "penguin.py", ("r", "support")) is True
