"""Spine step 2 neuron-control-dep-tuple-simplifier (twin stablehlo-neuron-control-dep-tuple-simplifier):
an ``AwsNeuronControlDep`` custom call on a tuple takes the tuple's elements and returns them as results;
its ``get_tuple_element`` users read the results directly."""

from __future__ import annotations

from pass_semantics_util import run

CONTROL_DEP = """func.func @main(%a: tensor<8xf32>, %b: tensor<f32>) -> (tensor<8xf32>, tensor<f32>) {
  %t = mhlo.tuple %a, %b : tuple<tensor<8xf32>, tensor<f32>>
  %c = mhlo.custom_call @AwsNeuronControlDep(%t) {backend_config = "x"} : (tuple<tensor<8xf32>, tensor<f32>>) -> tuple<tensor<8xf32>, tensor<f32>>
  %0 = mhlo.get_tuple_element %c[0] : (tuple<tensor<8xf32>, tensor<f32>>) -> tensor<8xf32>
  %1 = mhlo.get_tuple_element %c[1] : (tuple<tensor<8xf32>, tensor<f32>>) -> tensor<f32>
  %2 = mhlo.add %0, %0 : tensor<8xf32>
  return %2, %1 : tensor<8xf32>, tensor<f32>
}
"""

FLATTENED = """module {
  func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<f32>) -> (tensor<8xf32>, tensor<f32>) {
    %0:2 = mhlo.custom_call @AwsNeuronControlDep(%arg0, %arg1) {backend_config = "x"} : (tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)
    %1 = mhlo.add %0#0, %0#0 : tensor<8xf32>
    return %1, %0#1 : tensor<8xf32>, tensor<f32>
  }
}
"""

OTHER_TARGET = """module {
  func.func @main(%arg0: tensor<8xf32>, %arg1: tensor<f32>) -> tensor<8xf32> {
    %0 = mhlo.tuple %arg0, %arg1 : tuple<tensor<8xf32>, tensor<f32>>
    %1 = mhlo.custom_call @SomethingElse(%0) : (tuple<tensor<8xf32>, tensor<f32>>) -> tuple<tensor<8xf32>, tensor<f32>>
    %2 = mhlo.get_tuple_element %1[0] : (tuple<tensor<8xf32>, tensor<f32>>) -> tensor<8xf32>
    return %2 : tensor<8xf32>
  }
}
"""


def test_the_tuple_is_flattened_and_the_tuple_ops_die():
    out, stats = run(CONTROL_DEP, "neuron-control-dep-tuple-simplifier", stats=True)
    assert out == FLATTENED
    assert dict(stats["NeuronControlDepTupleSimplifier"]) == {"control-deps-flattened": 1}


def test_the_stablehlo_twin_flattens_the_same_call():
    out, stats = run(CONTROL_DEP, "hlo-legalize-to-stablehlo,stablehlo-neuron-control-dep-tuple-simplifier", stats=True)
    assert (
        '%0:2 = stablehlo.custom_call @AwsNeuronControlDep(%arg0, %arg1) {backend_config = "x"} : '
        "(tensor<8xf32>, tensor<f32>) -> (tensor<8xf32>, tensor<f32>)"
    ) in out
    assert "tuple" not in out and "return %1, %0#1 : tensor<8xf32>, tensor<f32>" in out
    assert dict(stats["StableHLONeuronControlDepTupleSimplifier"]) == {"control-deps-flattened": 1}


def test_another_custom_call_is_left_alone():
    out, stats = run(OTHER_TARGET, "neuron-control-dep-tuple-simplifier", stats=True)
    assert out == OTHER_TARGET and dict(stats["NeuronControlDepTupleSimplifier"]) == {}
