"""NeuronOpFusion driver behaviour (seed 000 "The Pass Driver"): order, gates, idempotence, no re-seeding."""

import time

import pytest
from conftest import corpus_path
from test_op_fusion_helpers import fuse, kinds, to_mhlo

from hilo_mlir.passmanager import registry


def test_registration_and_options():
    for arg, dialect, cls in (
        ("neuron-op-fusion", "mhlo", "NeuronOpFusion"),
        ("stablehlo-neuron-op-fusion", "stablehlo", "StableHLONeuronOpFusion"),
    ):
        info = registry.get(arg)
        assert info.dialect == dialect and info.display_name == cls and info.anchor == "func.func"
        assert {o.name: (o.type, o.default) for o in info.options} == {
            "fuse-dot-logistic": (bool, False),
            "general-elementwise-fusion": (bool, False),
            "report": (str, ""),
        }
    assert registry.get("neuron-op-fusion").run is registry.get("stablehlo-neuron-op-fusion").run  # one implementation
    assert registry.get("fusion-to-composite").anchor == "builtin.module"
    assert registry.get("raise-logistic").dialect is None


EXPM1_THEN_REDUCE = """func.func @main(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %z = P.constant dense<0.000000e+00> : tensor<f32>
  %0 = P.exponential_minus_one %x : tensor<4x8xf32>
  %1 = P.reduce(%0 init: %z) applies P.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}"""


@pytest.mark.parametrize("dialect", ["mhlo", "stablehlo"])
def test_grower_does_not_double_fuse_the_expm1_expansion(dialect):
    """Seed 000 GOTCHA: the exp/sub that fuseExpm1Op made sit in a fusion; the grower stops at it."""
    src = EXPM1_THEN_REDUCE.replace("P.", dialect + ".")
    out, st = fuse(src, dialect)
    assert kinds(out) == {"Expm1": 1, "Elementwise": 1}
    assert st["ops-absorbed-Expm1"] == 3 and st["ops-absorbed-Elementwise"] == 1


@pytest.mark.parametrize("dialect", ["mhlo", "stablehlo"])
def test_second_run_changes_nothing(dialect):
    src = corpus_path("jax", "decoder_layer.stablehlo.mlir").read_text()
    if dialect == "mhlo":
        src = to_mhlo(src)
    once, st1 = fuse(src, dialect, pre="raise-logistic")
    twice, st2 = fuse(once, dialect)
    assert sum(v for k, v in st1.items() if k.startswith("clusters-")) == 5
    assert not any(k.startswith(("clusters-", "expanded-", "reassociated")) for k in st2)
    assert twice == once


def test_sub_exp_runs_first_and_without_gates():
    """fuseSubExp is unconditional and runs before the elementwise grower (which would otherwise
    take the log-add-exp tree apart from a reduce seed that consumes it)."""
    src = """func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4xf32> {
      %m = stablehlo.maximum %a, %b : tensor<4x8xf32>
      %s1 = stablehlo.subtract %a, %m : tensor<4x8xf32>
      %e1 = stablehlo.exponential %s1 : tensor<4x8xf32>
      %s2 = stablehlo.subtract %b, %m : tensor<4x8xf32>
      %e2 = stablehlo.exponential %s2 : tensor<4x8xf32>
      %i = stablehlo.add %e1, %e2 : tensor<4x8xf32>
      %l = stablehlo.log %i : tensor<4x8xf32>
      %r = stablehlo.add %m, %l : tensor<4x8xf32>
      %z = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %s = stablehlo.reduce(%r init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
      return %s : tensor<4xf32>
    }"""
    out, st = fuse(src, "stablehlo", gates="")
    assert st["clusters-Elementwise"] == 1 and st["ops-absorbed-Elementwise"] == 8
    out, st = fuse(src, "stablehlo")
    assert st["clusters-Elementwise"] == 2 and st["ops-absorbed-Elementwise"] == 9  # 8 + the lone reduce


def test_pass_is_linear_enough_on_the_l64_stack():
    """64 layers (~4.4k ops) through raise-logistic + both gates well under the per-op budget."""
    src = corpus_path("jax", "decoder_stack_L64.stablehlo.mlir").read_text()
    t0 = time.perf_counter()
    out, st = fuse(src, "stablehlo", pre="raise-logistic")
    dt = time.perf_counter() - t0
    assert st["clusters-DotLogistic"] == 64 and st["clusters-MulRedSqrt"] == 128 and st["clusters-Elementwise"] == 128
    assert dt < 20, dt
