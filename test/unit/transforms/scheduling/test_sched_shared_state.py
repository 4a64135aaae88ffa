"""State the scheduling passes share across the functions of one run, and rematerialize's clone batch.

* ``analyze-schedule`` keeps the bytes per distinct type and its i64 stamps for
  the whole run; ``schedule-postorder`` one effect answer per op name (and per
  decomposition); ``hoist-compute`` one effect oracle. A module of many
  functions must get, function by function, what a module holding that
  function alone gets, with exact values, also in the checking mode.
* ``rematerialize`` clones a producer once, stamps that clone, and makes the
  later clones from it; every clone must carry the producer's number and the
  users must read the nearest clone, as when each clone was stamped on its own.
"""

from __future__ import annotations

import re

from pass_semantics_util import check_same

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline

F1 = """
func.func @f1(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
F2 = """
func.func @f2(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
F3 = """
func.func @f3(%a: tensor<8xi32>) -> tensor<8xi32> {
  %c = stablehlo.constant dense<3> : tensor<8xi32>
  %0 = stablehlo.add %a, %c : tensor<8xi32>
  return %0 : tensor<8xi32>
}
"""
MAIN = """
func.func @main(%x: tensor<4xf32>, %y: tensor<8xi32>) -> (tensor<4xf32>, tensor<8xi32>) {
  %0 = stablehlo.composite "t.f1" %x {decomposition = @f1} : (tensor<4xf32>) -> tensor<4xf32>
  %1 = stablehlo.composite "t.f2" %0, %x {decomposition = @f2} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.composite "t.f3" %y {decomposition = @f3} : (tensor<8xi32>) -> tensor<8xi32>
  return %1, %2 : tensor<4xf32>, tensor<8xi32>
}
"""
PASSES = ["stablehlo-schedule-postorder", "stablehlo-analyze-schedule", "stablehlo-hoist-compute"]


def _run(text: str, passes: list[str]) -> tuple[str, dict]:
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        pipe = Pipeline.from_text("builtin.module(" + ",".join(passes) + ")", check_analyses=True)
        pipe.run(m)
        stats: dict = {}
        for c in pipe.stats.values():
            stats.update(c)
        return str(m), stats


def _peaks(text: str) -> dict[str, int]:
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"func\.func (?:private )?@(\w+)\(.*?neuron\.peak_live_bytes = (\d+)", text)}


def test_peaks_of_many_functions_equal_one_function_modules():
    whole, stats = _run("module {" + MAIN + F1 + F2 + F3 + "}", PASSES)
    peaks = _peaks(whole)
    # f1: %a (16 B, points 0) + %0 (16 B) = 32; f2: %a (live to 1), %b (to 0), %0 at 0 = 48, at 1:
    # %a + %0 + %1 = 48; f3: %a (32 B) + %c (32 B) + %0 (32 B) at op 1 = 96; main: %x (16, to 1),
    # %y (32, to 2), %0 (16, to 1) at 1: + %1 (16) = 80.
    assert peaks == {"main": 80, "f1": 32, "f2": 48, "f3": 96}
    assert stats["functions"] == 4 and stats["peak-live-bytes"] == 96
    for f in (F1, F2, F3):
        alone, _ = _run("module {" + f + "}", PASSES)
        assert _peaks(alone).items() <= peaks.items()
    # f3's constant reads nothing: hoisted above nothing (it is first); nothing else is hoistable
    assert stats["ops-hoisted"] == 0 and stats["hoistable"] == 1


SIDE = """
func.func @noisy(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @fx(%a) {has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @quiet(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
    attributes {slowChangingIns = array<i64: 1>} {
  %0 = stablehlo.add %x, %x : tensor<4xf32>
  %1 = stablehlo.composite "t.noisy" %w {decomposition = @noisy} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = stablehlo.composite "t.quiet" %w {decomposition = @quiet} : (tensor<4xf32>) -> tensor<4xf32>
  %3 = stablehlo.composite "t.quiet2" %w {decomposition = @quiet} : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %3 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
"""


def test_shared_effect_answers_per_decomposition():
    # The composites read only the parameter %w: the two of @quiet are hoisted above the add, the
    # one of @noisy (a side effect) stays; the answer for @quiet is asked once and serves both.
    out, stats = _run("module {" + SIDE + "}", ["stablehlo-hoist-compute"])
    body = out.split("@main", 1)[1]
    order = [m.group(1) for m in re.finditer(r'stablehlo\.(add|composite "t\.\w+")', body)]
    assert order == ['composite "t.quiet"', 'composite "t.quiet2"', "add", 'composite "t.noisy"']
    assert stats["hoistable"] == 2 and stats["ops-hoisted"] == 2


REMAT = """
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %k = stablehlo.constant dense<0.25> : tensor<8xf32>
  %0 = stablehlo.add %a, %k : tensor<8xf32>
  %1 = stablehlo.sine %0 : tensor<8xf32>
  %2 = stablehlo.cosine %1 : tensor<8xf32>
  %3 = stablehlo.multiply %2, %k : tensor<8xf32>
  %4 = stablehlo.sine %3 : tensor<8xf32>
  %5 = stablehlo.cosine %4 : tensor<8xf32>
  %6 = stablehlo.add %5, %k : tensor<8xf32>
  %7 = stablehlo.sine %6 : tensor<8xf32>
  %8 = stablehlo.cosine %7 : tensor<8xf32>
  %9 = stablehlo.subtract %8, %k : tensor<8xf32>
  return %9 : tensor<8xf32>
}
"""


def test_rematerialize_later_clones_carry_the_stamp():
    out, stats = _run("module {" + REMAT + "}", ["stablehlo-rematerialize{distance=2}"])
    # %k at 0; users at 1 (near), 4, 7, 10 (each more than 2 after the previous clone): 3 clones
    assert stats["clones"] == 3
    consts = [line.strip() for line in out.splitlines() if "stablehlo.constant" in line]
    assert len(consts) == 4
    assert consts[0].endswith("dense<2.500000e-01> : tensor<8xf32>")  # the original keeps its near user
    assert all(c.endswith("dense<2.500000e-01> : tensor<8xf32>") and "neuron.remat.value = 1 : i64" in c for c in consts[1:])
    lines = [line.strip() for line in out.splitlines()]
    after_clones = [lines[i + 1].split(" = ")[1] for i, line in enumerate(lines) if "neuron.remat.value" in line]
    # each clone sits right before the one far user it serves
    assert after_clones == [
        "stablehlo.multiply %2, %cst_0 : tensor<8xf32>",
        "stablehlo.add %5, %cst_1 : tensor<8xf32>",
        "stablehlo.subtract %8, %cst_2 : tensor<8xf32>",
    ]
    check_same("module {" + REMAT + "}", out)
