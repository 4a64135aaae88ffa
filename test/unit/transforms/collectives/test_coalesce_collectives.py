"""Spine step 11 coalesce-collective-ops (twin stablehlo-coalesce-collective-ops): a collective whose
operands are ready moves up next to an earlier one of its kind and groups, so they can be issued together."""

from __future__ import annotations

from pass_semantics_util import run

GATHERS = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) {
  %0 = "mhlo.all_gather"(%a) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  %1 = mhlo.add %a, %b : tensor<4xf32>
  %2 = mhlo.multiply %1, %b : tensor<4xf32>
  %3 = "mhlo.all_gather"(%b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4xf32>) -> tensor<8xf32>
  return %0, %2, %3 : tensor<8xf32>, tensor<4xf32>, tensor<8xf32>
}
"""

MOVED = """module {
  func.func @main(%arg0: tensor<4xf32>, %arg1: tensor<4xf32>) -> (tensor<8xf32>, tensor<4xf32>, tensor<8xf32>) {
    %0 = "mhlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    %1 = "mhlo.all_gather"(%arg1) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    %2 = mhlo.add %arg0, %arg1 : tensor<4xf32>
    %3 = mhlo.multiply %2, %arg1 : tensor<4xf32>
    return %0, %3, %1 : tensor<8xf32>, tensor<4xf32>, tensor<8xf32>
  }
}
"""

DEPENDENT = """module {
  func.func @main(%arg0: tensor<4xf32>) -> (tensor<8xf32>, tensor<16xf32>) {
    %0 = "mhlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<4xf32>) -> tensor<8xf32>
    %1 = mhlo.add %0, %0 : tensor<8xf32>
    %2 = "mhlo.all_gather"(%1) <{all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<8xf32>) -> tensor<16xf32>
    return %0, %2 : tensor<8xf32>, tensor<16xf32>
  }
}
"""


def test_a_ready_gather_moves_up_to_the_first():
    out, stats = run(GATHERS, "coalesce-collective-ops", stats=True)
    assert out == MOVED
    assert dict(stats["CoalesceCollectiveOps"]) == {"collectives-moved": 1}


def test_a_gather_of_a_gathered_value_stays():
    out, stats = run(DEPENDENT, "coalesce-collective-ops", stats=True)
    assert out == DEPENDENT and dict(stats["CoalesceCollectiveOps"]) == {"collectives-moved": 0}


def test_a_byte_cap_below_the_window_keeps_the_order():
    """Two 16-byte operands do not fit one 16-byte all_gather window: nothing moves."""
    out = run(GATHERS, "coalesce-collective-ops{all-gather-max-bytes=16}")
    assert out.index("mhlo.add") < out.index('"mhlo.all_gather"(%arg1)')


def test_the_stablehlo_twin_moves_the_same_gather():
    out = run(GATHERS, "hlo-legalize-to-stablehlo,stablehlo-coalesce-collective-ops")
    lines = [line.strip() for line in out.splitlines()]
    assert lines[2].startswith('%0 = "stablehlo.all_gather"(%arg0)') and lines[3].startswith('%1 = "stablehlo.all_gather"(%arg1)')
