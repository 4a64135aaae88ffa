"""The printer has no depth limit: region functions are module-level ``def``s, and the walk is iterative.

* A region nested in another region's body is printed as its own
  module-level function; a value it reads from the enclosing region
  function is passed explicitly (``lambda <params>: f(<params>, <captures>)``),
  so no line of the program is indented more than one level.
* ``while`` nested 250 deep (default suite) and 1,000 deep (``slow``)
  compiles, the program compiles as Python, and the reference backend runs
  it to the exact result.
* The printer itself needs no Python recursion: it prints the 1,000-deep
  module under a recursion limit of 150.
"""

from __future__ import annotations

import re
import sys

import numpy as np
import pytest

from hilo_mlir import penguin_ref, testing
from hilo_mlir.driver.compiler import compile_module
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import print_program


def nested_while(depth: int) -> str:
    """``while`` nested ``depth`` deep; each level runs its body once and adds 1.0: ``main(x) = x + depth``."""
    head, tail = [], []
    for d in range(depth):
        pad = "  " * (d + 1)
        x = "%x" if d == 0 else f"%a{d - 1}"
        head += [
            f"{pad}%c0_{d} = stablehlo.constant dense<0> : tensor<i32>",
            f"{pad}%w{d}:2 = stablehlo.while(%i{d} = %c0_{d}, %a{d} = {x}) : tensor<i32>, tensor<f32>",
            f"{pad}cond {{",
            f"{pad}  %one_c{d} = stablehlo.constant dense<1> : tensor<i32>",
            f"{pad}  %p{d} = stablehlo.compare LT, %i{d}, %one_c{d} : (tensor<i32>, tensor<i32>) -> tensor<i1>",
            f"{pad}  stablehlo.return %p{d} : tensor<i1>",
            f"{pad}}} do {{",
            f"{pad}  %one{d} = stablehlo.constant dense<1> : tensor<i32>",
            f"{pad}  %n{d} = stablehlo.add %i{d}, %one{d} : tensor<i32>",
        ]
        inner = f"%w{d + 1}#1" if d + 1 < depth else f"%a{d}"
        tail.append(
            [
                f"{pad}  %f{d} = stablehlo.constant dense<1.0> : tensor<f32>",
                f"{pad}  %s{d} = stablehlo.add {inner}, %f{d} : tensor<f32>",
                f"{pad}  stablehlo.return %n{d}, %s{d} : tensor<i32>, tensor<f32>",
                f"{pad}}}",
            ]
        )
    lines = ["func.func @main(%x: tensor<f32>) -> tensor<f32> {"] + head
    for t in reversed(tail):
        lines += t
    return "\n".join(lines + ["  return %w0#1 : tensor<f32>", "}"]) + "\n"


CAPTURES = """
func.func @main(%x: tensor<f32>) -> tensor<f32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<f32>
  cond {
    %two = stablehlo.constant dense<2> : tensor<i32>
    %p = stablehlo.compare LT, %i, %two : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %k = stablehlo.constant dense<10.0> : tensor<f32>
    %k2 = stablehlo.multiply %a, %k : tensor<f32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %w2:2 = stablehlo.while(%j = %z, %b = %a) : tensor<i32>, tensor<f32>
    cond {
      %three = stablehlo.constant dense<3> : tensor<i32>
      %q = stablehlo.compare LT, %j, %three : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %q : tensor<i1>
    } do {
      %o2 = stablehlo.constant dense<1> : tensor<i32>
      %m = stablehlo.add %j, %o2 : tensor<i32>
      %s = stablehlo.add %b, %k2 : tensor<f32>
      %r = stablehlo.reduce(%s init: %k) applies stablehlo.add across dimensions = [] : (tensor<f32>, tensor<f32>) -> tensor<f32>
      stablehlo.return %m, %r : tensor<i32>, tensor<f32>
    }
    stablehlo.return %n, %w2#1 : tensor<i32>, tensor<f32>
  }
  return %w#1 : tensor<f32>
}
"""


def _print(text: str, dialect: str = "stablehlo") -> str:
    with make_context():
        return print_program(ir.Module.parse(text), dialect)[0]


def _max_indent(src: str) -> int:
    return max(len(line) - len(line.lstrip(" ")) for line in src.splitlines() if line.strip())


def test_nested_region_reads_enclosing_values_through_captures():
    src = _print(CAPTURES)
    assert _max_indent(src) == 4
    # the inner while's body is its own module-level function taking its two block arguments, then the
    # outer body's k2 and k it reads; the outer body passes them with a lambda
    m = re.search(r"regions=\[(v\d+), lambda (v\d+), (v\d+): (v\d+)\(\2, \3, (v\d+), (v\d+)\)\]", src)
    assert m, src
    body, k2, k = m.group(4), m.group(5), m.group(6)
    assert re.search(rf"^def {body}\({m.group(2)}, {m.group(3)}, {k2}, {k}\):$", src, re.M)
    assert re.search(rf"^    {k2} = m1\.MultiplyOp\(", src, re.M) and re.search(rf"^    {k} = m1\.ConstantOp\(", src, re.M)
    # the nested functions come before the outer body that uses them, all before the top-level while
    defs = [int(n) for n in re.findall(r"^def v(\d+)\(", src, re.M)]
    top = re.search(r"^v\d+, v\d+ = m1\.WhileOp\(srcs=\[v\d+, input_0\]", src, re.M).start()
    assert all(src.index(f"def v{n}(") < top for n in defs)
    x = np.float32(1.0)
    (expected,) = testing.evaluate(CAPTURES, [x])
    (got,) = penguin_ref.run(src, [x])
    assert got == expected == np.float32(1921.0)


def test_depth_one_regions_print_in_place():
    """An op with regions at the top level keeps its functions right before it (no captures needed)."""
    src = _print(nested_while(1))
    lines = src.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("def "))
    assert re.match(r"def v\d+\(v\d+, v\d+\):$", lines[i])
    assert "lambda" not in src


def test_printer_walk_needs_no_recursion():
    text = nested_while(1000)
    old = sys.getrecursionlimit()
    with make_context():
        m = ir.Module.parse(text)
        sys.setrecursionlimit(150)
        try:
            src, _ = print_program(m, "stablehlo")
        finally:
            sys.setrecursionlimit(old)
    assert src.count("m1.WhileOp(") == 1000
    assert _max_indent(src) == 4
    compile(src, "penguin.py", "exec")


def _compile_and_run(depth: int, spine: str, preset: str):
    src = compile_module(nested_while(depth), CompileConfig.preset(preset), spine=spine, filename="deep.mlir")
    assert _max_indent(str(src)) == 4
    compile(str(src), "penguin.py", "exec")  # Python loads it (no "too many levels of indentation")
    (y,) = penguin_ref.run(src, [np.float32(0.5)])
    assert y == np.float32(0.5 + depth)


def test_while_nested_250_deep_compiles_and_runs():
    _compile_and_run(250, "mhlo", "default")


@pytest.mark.slow
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_while_nested_1000_deep_compiles_and_runs(spine):
    _compile_and_run(1000, spine, "default")


@pytest.mark.slow
def test_while_nested_250_deep_all_gates():
    _compile_and_run(250, "stablehlo", "all")
