"""Spine step 3 collective-broadcast-to-all-gather: a ``collective_broadcast`` becomes an ``all_gather``
of the same groups and the slice of its source replica's part (one pass for both dialects)."""

from __future__ import annotations

from pass_semantics_util import run

BROADCAST = """func.func @main(%x: tensor<3x4xf32>) -> tensor<3x4xf32> {
  %0 = "mhlo.collective_broadcast"(%x) {replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, channel_handle = #mhlo.channel_handle<handle = 1, type = 1>} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
"""

GATHERED = """module {
  func.func @main(%arg0: tensor<3x4xf32>) -> tensor<3x4xf32> {
    %0 = "mhlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #mhlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>, use_global_device_ids}> : (tensor<3x4xf32>) -> tensor<6x4xf32>
    %1 = "mhlo.slice"(%0) <{limit_indices = dense<[3, 4]> : tensor<2xi64>, start_indices = dense<0> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}> : (tensor<6x4xf32>) -> tensor<3x4xf32>
    return %1 : tensor<3x4xf32>
  }
}
"""

EMPTY_GROUPS = """module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "mhlo.collective_broadcast"(%arg0) <{replica_groups = dense<> : tensor<0x0xi64>}> : (tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def test_broadcast_becomes_all_gather_and_the_source_slice():
    out, stats = run(BROADCAST, "collective-broadcast-to-all-gather", stats=True)
    assert out == GATHERED
    assert dict(stats["CollectiveBroadcastToAllGather"]) == {"broadcasts-rewritten": 1}


def test_stablehlo_broadcast_is_rewritten_by_the_same_pass():
    text = BROADCAST.replace("mhlo.collective_broadcast", "stablehlo.collective_broadcast").replace("#mhlo.", "#stablehlo.")
    out = run(text, "collective-broadcast-to-all-gather")
    assert (
        '"stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>' in out
    )
    assert "stablehlo.slice %0 [0:3, 0:4] : (tensor<6x4xf32>) -> tensor<3x4xf32>" in out and "collective_broadcast" not in out


def test_empty_groups_are_left_alone():
    """Processes outside every group get zeros: an all_gather cannot say that."""
    out, stats = run(EMPTY_GROUPS, "collective-broadcast-to-all-gather", stats=True)
    assert out == EMPTY_GROUPS and dict(stats["CollectiveBroadcastToAllGather"]) == {}


NO_BROADCAST = """module {
  func.func @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = mhlo.negate %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"""


def test_a_module_without_broadcasts_is_untouched():
    out, stats = run(NO_BROADCAST, "collective-broadcast-to-all-gather", stats=True)
    assert out == NO_BROADCAST and dict(stats["CollectiveBroadcastToAllGather"]) == {}
