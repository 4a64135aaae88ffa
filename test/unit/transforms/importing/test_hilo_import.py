"""hilo-import, the import step (the first pass of every hilo2penguin pipeline): validation before any
rewrite, sharding annotations dropped, the printability check, the bridge to mhlo (chlo decomposed first)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from pass_semantics_util import check_same, run

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.testing import evaluate

SHARDED = """module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%a: tensor<4xf32> {mhlo.sharding = "{replicated}"}, %b: tensor<4xf32>) -> (tensor<4xf32> {mhlo.sharding = "{replicated}"}) {
    %0 = stablehlo.add %a, %b {mhlo.sharding = "{replicated}"} : tensor<4xf32>
    %1 = stablehlo.multiply %0, %b : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
"""

BRIDGED = """module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> tensor<4xf32> {
    %0 = mhlo.add %arg0, %arg1 : tensor<4xf32>
    %1 = mhlo.multiply %0, %arg1 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
}
"""

CHLO = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = chlo.erf %a : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

DYNAMIC = """func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def test_sharding_is_dropped_and_the_module_bridged_to_mhlo():
    out, stats = run(SHARDED, "hilo-import", stats=True)
    assert out == BRIDGED and dict(stats["HiloImport"]) == {}


def test_the_import_keeps_the_values():
    check_same(SHARDED, BRIDGED)  # bit-identical


def test_chlo_is_decomposed_before_the_bridge():
    out = run(CHLO, "hilo-import")
    assert "chlo." not in out and "stablehlo." not in out and out.count("mhlo.constant") > 5
    assert out.splitlines()[1] == "  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {"
    x = np.array([-2.0, -0.5, 0.25, 1.5], np.float32)
    (got,) = evaluate(out, [x])
    np.testing.assert_allclose(got, [math.erf(v) for v in x], rtol=1e-6, atol=1e-7)  # erf's polynomial, in f32


def test_an_mhlo_module_is_left_as_it_is():
    assert run(BRIDGED, "hilo-import") == BRIDGED


def test_a_dynamic_argument_is_one_located_error_before_any_rewrite():
    with pytest.raises(HiloError) as e:
        run(DYNAMIC, "hilo-import")
    assert e.value.message == (
        "'func.func' op @main argument #0 has dynamic shape tensor<?xf32>: dynamic shapes are not supported (every "
        "dimension must be static); for a shape-polymorphic module give the static input types, "
        "--input-types='tensor<?xf32>' with every ? replaced by its size"
    )
    assert e.value.pass_name == "hilo-import" and str(e.value.loc) == 'loc("-":1:1)'
