"""StableHLO spine step 14a fusion-to-composite: every ``mhlo.fusion`` becomes a ``neuron.<Kind>``
composite and a private decomposition function holding its body; values are unchanged."""

from __future__ import annotations

from pass_semantics_util import check_same, run

FUSION = """func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
  %0 = "mhlo.fusion"(%x, %y) ({
  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):
    %m = stablehlo.multiply %a, %b : tensor<4xf32>
    %s = stablehlo.add %m, %c : tensor<4xf32>
    %l = stablehlo.logistic %s : tensor<4xf32>
    stablehlo.return %l : tensor<4xf32>
  }) {FusionKind = "DotLogistic"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

COMPOSITE = """module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<4xf32>
    %0 = stablehlo.composite "neuron.DotLogistic" %arg0, %arg1, %cst {CompositeKind = "DotLogistic", decomposition = @neuron.DotLogistic.impl, version = 1 : i32} : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @neuron.DotLogistic.impl(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<4xf32>
    %1 = stablehlo.add %0, %arg2 : tensor<4xf32>
    %2 = stablehlo.logistic %1 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
"""

NO_FUSION = """module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.composite "my.op" %arg0 {decomposition = @my_impl} : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @my_impl(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def test_a_fusion_becomes_a_composite_and_its_captured_constant_an_operand():
    out, stats = run(FUSION, "fusion-to-composite", stats=True)
    assert out == COMPOSITE
    assert dict(stats["FusionToComposite"]) == {"converted-DotLogistic": 1}


def test_the_composite_computes_what_the_fusion_did():
    check_same(FUSION, COMPOSITE)  # bit-identical (fusions and composites inlined by the interpreter's preparation)


def test_a_module_without_fusions_is_untouched():
    """A composite already in the input (another producer's) is left as it is."""
    out, stats = run(NO_FUSION, "fusion-to-composite", stats=True)
    assert out == NO_FUSION and dict(stats["FusionToComposite"]) == {}


def test_without_a_fusion_kind_the_mhlo_enum_names_it():
    text = FUSION.replace('{FusionKind = "DotLogistic"}', "{fusion_kind = #mhlo<fusion_kind kLoop>}")
    out, stats = run(text, "fusion-to-composite", stats=True)
    assert 'stablehlo.composite "neuron.kLoop" %arg0, %arg1, %cst {CompositeKind = "kLoop", decomposition = @neuron.kLoop.impl' in out
    assert dict(stats["FusionToComposite"]) == {"converted-kLoop": 1}
