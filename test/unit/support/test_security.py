"""Hostile input never becomes code (issue 23): one quoting path, the AST allow-list, reproducers that cannot write.

* A hypothesis property: quotes, newlines, backslashes, ``__import__``,
  format braces and unicode look-alikes in every slot the printer reads from
  the input (attribute names and values, dictionary keys, type text that
  becomes a dtype, location names and file names, entry names, result infos,
  the module name, custom-call configs) give a program the allow-list accepts,
  whose every string literal is the input's string exactly.
* :func:`check_program` refuses every shape outside the allow-list (one
  error naming the line); ``penguin_ref`` and ``hilo-penguin-run`` apply it
  before running anything.
* Printer options are validated; ``--run-reproducer`` writes no file the
  user did not name with ``-o``.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hilo_mlir import penguin_ref
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import print_program
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.pysource import ProgramCheckError, _fast_check, check_program, dotted_name, py_literal, safe_keyword

ROOTS = ("neuronxcc.starfish.penguin", "neuronxcc.starfish.support")

#: pieces an attacker would put into a string: quotes, escapes, line breaks, code, braces, look-alikes
HOSTILE = [
    "'",
    '"',
    "\\",
    "\n",
    "\r",
    "\x0c",
    "\u2028",
    "\x85",
    "'''",
    ')); __import__("os").system("touch /tmp/pwned"); ((',
    "{x}",
    "{{}}",
    "%s",
    "ｄｌ",
    "dl",
    "__debug__",
    "a²",
    "ﬁ",
    "\u0430",
    "#",
    "\\x27",
    "\t",
    "\x00",
    "import os",
]

hostile_text = (
    st.lists(st.sampled_from(HOSTILE) | st.text(min_size=0, max_size=4), min_size=1, max_size=4)
    .map("".join)
    .filter(lambda s: s and s not in ("attr", "ty", "dl", "srcs"))
)


def mlir_string(s: str) -> str:
    """``s`` as an MLIR string literal (printable ASCII kept, everything else as ``\\XX`` UTF-8 bytes)."""
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        out.append(c if 32 <= b < 127 and c not in '"\\' else f"\\{b:02X}")
    return '"' + "".join(out) + '"'


def hostile_module(s: str) -> str:
    """A module with ``s`` in every slot the printer reads."""
    q = mlir_string(s)
    return f"""
#loc1 = loc({q}:3:4)
#loc2 = loc({q}(#loc1))
module @{q} attributes {{neuron.input_names = [{q}]}} {{
  func.func @main(%arg0: tensor<2xf32> loc({q})) -> (tensor<2xf32> {{jax.result_info = {q}}}, tensor<2xf32>)
      attributes {{output_names = [{q}, {q}]}} {{
    %0 = stablehlo.add %arg0, %arg0 {{{q} = {q}, attr = {{{q} = [{q}, {{{q} = {q}}}]}},
        ty = tuple<memref<2xf32, {q}>>, dl = {q}, srcs = 1 : i32}} : tensor<2xf32> loc(#loc2)
    %1 = stablehlo.custom_call @AwsNeuronDevicePrint(%0) {{backend_config = {q}}} : (tensor<2xf32>) -> tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }}
}}
"""


def printed(text: str) -> str:
    with make_context(False):
        m = ir.Module.parse(text)
        return print_program(m, "stablehlo", filename="in.mlir")[0]


def strings_of(src: str) -> set:
    return {n.value for n in ast.walk(ast.parse(src)) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck), database=None)
@given(s=hostile_text)
def test_hostile_strings_stay_data(s):
    src = printed(hostile_module(s))
    check_program(src, roots=ROOTS)  # the printer ran it too; here the test asserts it
    assert _fast_check(src, "p.py", ROOTS)  # and its fast path decided it (no fallback to the whole AST)
    tree = ast.parse(src)
    lits = strings_of(src)
    assert s in lits  # every slot printed the string exactly: as a literal, never as code
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword):
            assert node.arg is not None and safe_keyword(node.arg) and node.arg.isascii()
        if isinstance(node, ast.Call):  # no keyword twice (Python would refuse it; NFKC could merge two)
            args = [k.arg for k in node.keywords]
            assert len(args) == len(set(args))
        assert not isinstance(node, (ast.Subscript, ast.BinOp, ast.JoinedStr, ast.ImportFrom))
    # the attribute whose name is not an ASCII identifier sits in attrs={...} with its name intact
    if not s.isascii() or not s.isidentifier():
        assert "attrs={" in src or safe_keyword("".join(c if c.isalnum() else "_" for c in s))


def test_hostile_module_runs_on_both_spines_and_reference(tmp_path):
    """The type-attribute case of the issue: tuple<memref<..., "STRING">> reached dtype='{...}' raw."""
    s = "x'); __import__('os').system('touch " + str(tmp_path / "pwned") + "'); ('"
    f = tmp_path / "in.mlir"
    f.write_text(
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        f"  %0 = stablehlo.add %a, %a {{t = tuple<memref<2xf32, {mlir_string(s)}>>}} : tensor<2xf32>\n"
        "  return %0 : tensor<2xf32>\n}\n"
    )
    from hilo_mlir.driver.compiler import compile_file

    for spine in ("mhlo", "stablehlo"):
        src = compile_file(str(f), spine=spine)
        assert any(s in x for x in strings_of(src))  # the dtype string holds the input's text, as data
        (out,) = penguin_ref.run(src, [np.ones(2, np.float32)])
        assert out.tolist() == [2.0, 2.0]
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "value,text",
    [
        ("a'b", '"a\'b"'),
        ("x\ny", "'x\\ny'"),
        ([1, (2,), {"k": float("nan")}], "[1, (2,), {'k': float('nan')}]"),
        ((), "()"),
        ((64,), "(64,)"),
        (-0.0, "-0.0"),
        (float("-inf"), "float('-inf')"),
        (None, "None"),
        (True, "True"),
    ],
)
def test_py_literal(value, text):
    assert py_literal(value) == text


def test_py_literal_deep_and_refuses_objects():
    v: list = []
    for _ in range(5000):  # deeper than the recursion limit: rendered without recursion
        v = [v]
    assert py_literal(v) == "[" * 5001 + "]" * 5001
    with pytest.raises(TypeError):
        py_literal(object())


@pytest.mark.parametrize("name", ["a.b", "neuronxcc.starfish.penguin", "_x9"])
def test_dotted_name_accepts(name):
    assert dotted_name(name) == name


@pytest.mark.parametrize("name", ["", "a..b", "os;import sys", "a b", "1a", "import", "ｄｌ", "a.__debug__", "a\n"])
def test_dotted_name_refuses(name):
    with pytest.raises(HiloError, match="dotted Python identifier"):
        dotted_name(name)


HEAD = """import r as m0
import r.ir as m1
import r.support as m2
v0 = m0.Function(id_=0, batch_ids=[], attrs=())
input_0 = m1.Tensor(name='x', spec=m1.TensorSpec(shape=(2,), dtype='float32')).markInput(v0, index=0, is_parameter_tensor=False)
"""
TAIL = "v0.markOutput(input_0, index=0, name='y', is_slow_changing=False)\n"


@pytest.mark.parametrize(
    "line,what",
    [
        ("import os as m5\n", "an import of 'os'"),
        ("import numpy as m5\n", "an import of 'numpy'"),
        ("from r import ir as m5\n", "'from ... import'"),
        ("import r.x\n", "without an 'as m<N>' alias"),
        ("v1 = __import__('os')\n", "a call of '__import__'"),
        ("v1 = open('/tmp/x', 'w')\n", "a call of 'open'"),
        ("v1 = m1.AddOp.__globals__\n", "the attribute '.__globals__'"),
        ("v1 = m1.os\n", "the attribute '.os'"),
        ("v1 = m1.os.system('x')\n", "the attribute"),
        ("v1 = input_0.__class__\n", "the attribute '.__class__'"),
        ("v1 = [1][0]\n", "Subscript"),
        ("v1 = f'{input_0}'\n", "JoinedStr"),
        ("v1 = 1 + 1\n", "BinOp"),
        ("v1 = m1.AddOp(**{'a': 1})\n", "'\\*\\*'"),
        ("v1 = m1.AddOp(*[1])\n", "'\\*' unpacking"),
        ("v1 = (lambda x=__import__: x)()\n", "a call of an expression"),
        ("def v1(x=1):\n    return [x]\n", "defaults"),
        ("@m1.AddOp\ndef v1(x):\n    return [x]\n", "decorators"),
        ("def v1(x):\n    def v2(y):\n        return [y]\n    return [x]\n", "FunctionDef"),
        ("float = m1.AddOp\n", "'float' may not be bound"),
        ("m1 = 3\n", "'m1' may not be bound"),
        ("v1.attr = 3\n", "other than a name"),
        ("if 1:\n    pass\n", "If"),
        ("while 0:\n    pass\n", "While"),
        ("v1 = b'x'\n", "bytes"),
        ("v1 = 1j\n", "complex"),
        ("v1 = (yield)\n", "Yield"),
        ("v1 = {**{}}\n", "dict key"),
        ("global v2\n", "Global"),
        ("v1 = m1.AddOp(srcs=[input_0], dsts=[m2.dtype.__class__])\n", "the attribute '.__class__'"),
    ],
)
def test_allow_list_refuses(line, what):
    src = HEAD + line + TAIL
    assert not _fast_check(src, "p.py", None)  # the per-shape path never accepts it; the whole-AST check names it
    with pytest.raises(ProgramCheckError, match=what) as ei:
        check_program(src, "p.py")
    assert re.match(r"p\.py:[67]:\d+: error: ", ei.value.format()) or "not valid Python" in ei.value.message


def test_allow_list_accepts_every_printed_form():
    src = (
        HEAD
        + "a0 = {'k': [1, -2.5, float('nan'), complex(1.0, 0.0), None, True]}\n"
        + "def v1(v2, v3):\n    v4 = m1.AddOp(srcs=[v2, v3], dsts=[m1.TupleSpec(elements=[])], x=a0, dl=m2.DebugLocation())\n    return [v4]\n"
        + "v5, v6 = m1.SortOp(srcs=[input_0, input_0], dsts=[], regions=[v1, lambda v7, v8: v1(v7, v8)], d=dict(a=1))\n"
        + "v9 = m1.ConstantOp(srcs=[], dsts=[m1.TensorSpec(shape=(), dtype=m2.dtype.float8_e4m3fn_x4)], value=m1.NpyFile('c.npy'))\n"
        + "v5.setResults([v6])\n"
        + TAIL
    )
    check_program(src, "p.py")
    check_program(src, "p.py", roots=("r",))
    with pytest.raises(ProgramCheckError, match="imports only q"):
        check_program(src, "p.py", roots=("q",))


def test_reference_backend_refuses_before_running(tmp_path):
    marker = tmp_path / "ran"
    src = HEAD + f"v1 = m1.AddOp(srcs=[input_0], dsts=[], x=open({str(marker)!r}, 'w'))\n" + TAIL
    with pytest.raises(penguin_ref.PenguinRefError, match="a call of 'open'"):
        penguin_ref.run(src, [np.ones(2, np.float32)])
    prog = tmp_path / "penguin.py"
    prog.write_text(src)
    np.save(tmp_path / "x.npy", np.ones(2, np.float32))
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.penguin_run", str(prog), "--inputs", str(tmp_path / "x.npy"), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=ROOT,
    )
    assert r.returncode == 1 and "Traceback" not in r.stderr
    assert r.stderr.count("\n") == 1 and re.match(
        re.escape(str(prog)) + r":6:\d+: error: penguin_ref: the program is not a Penguin program", r.stderr
    )
    assert not marker.exists() and not (tmp_path / "o").exists()


def opt(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.opt", *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=cwd,
    )


REPRO = """func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {{
  %0 = stablehlo.add %arg0, %arg0 : tensor<2xf32>
  return %0 : tensor<2xf32>
}}

{{-#
  external_resources: {{
    mlir_reproducer: {{
      pipeline: "builtin.module(stablehlo-legalize-to-hlo,{step})",
      disable_threading: true,
      verify_each: true
    }}
  }}
#-}}
"""


def test_reproducer_cannot_write_files(tmp_path):
    target = tmp_path / "evil.pth"
    for step in (
        f"mhlo-to-py-penguin{{output={target}}}",
        f"mlir-instruction-histogram{{output={target}}}",
        f"snapshot-op-locations{{filename={target}}}",
    ):
        f = tmp_path / "r.mlir"
        f.write_text(REPRO.format(step=step))
        r = opt(str(f), "--run-reproducer")
        assert r.returncode == 1, r.stderr
        assert f"--run-reproducer: the reproducer's pipeline would write '{target}'" in r.stderr, r.stderr
        assert r.stderr.count("\n") == 1 and not target.exists()
    # named on the command line: the program goes to -o
    f.write_text(REPRO.format(step=f"mhlo-to-py-penguin{{output={target}}}"))
    r = opt(str(f), "--run-reproducer", "-o", str(target))
    assert r.returncode == 0, r.stderr
    check_program(target.read_text(), roots=ROOTS)
    assert sorted(os.listdir(tmp_path)) == ["evil.pth", "r.mlir"]


@pytest.mark.parametrize(
    "options,msg",
    [
        ('root="os;import sys"', "option 'root' of pass 'mhlo-to-py-penguin': must be a dotted Python identifier"),
        ("root=a..b", "must be a dotted Python identifier"),
        ("model-type=evil", "option 'model-type' of pass 'mhlo-to-py-penguin': expected one of: generic, transformer, unet-inference"),
    ],
)
def test_printer_options_validated(tmp_path, options, msg):
    f = tmp_path / "in.mlir"
    f.write_text(REPRO.format(step="canonicalize").split("\n\n{-#")[0] + "\n")
    r = opt(str(f), f"--pass-pipeline=builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{{{options}}})")
    assert r.returncode == 1 and msg in r.stderr and r.stderr.count("\n") == 1, r.stderr


@pytest.mark.parametrize(
    "line",
    [
        "import os as m9\n",  # an import after the header
        "v1 = m1.AddOp(x='a' 'b')\n",  # implicit concatenation: the regex and Python could disagree
        "v1 = m1.AddOp(x=b'a')\n",
        "v1 = m1.AddOp(x=" + "'" * 3 + "a" + "'" * 3 + ")\n",
        "v1 = m1.AddOp(x='a')  # c\n",
        "v1 = m1.AddOp(x='a', \\\n y=1)\n",
        "        v1 = m1.AddOp()\n",
        "function = m1.AddOp()\n",
    ],
)
def test_fast_path_leaves_other_layouts_to_the_whole_check(line):
    assert not _fast_check(HEAD + line + TAIL, "p.py", None)
