"""The reference backend on N simulated devices (penguin_ref/devices.py, penguin_ref/ops/collectives.py).

Each collective is printed by both printer twins and run on N devices; the
expected values are written out from the StableHLO specification's
definitions (process groups, group order, zeros for a device no pair
targets). The errors (groups that do not fit the devices, a deadlock, a
device count the program does not allow) must each be one error, raised
without hanging.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from penguin_ref_util import programs

from hilo_mlir import penguin_ref
from hilo_mlir.penguin_ref import PenguinRefError

_SUM = """({
    ^bb0(%a: tensor<f32>, %b: tensor<f32>):
      %s = stablehlo.add %a, %b : tensor<f32>
      stablehlo.return %s : tensor<f32>
    })"""

ALL = f"""
module @m attributes {{mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32}} {{
  func.func @main(%x: tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<16x2xf32>, tensor<1x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>,
                                            tensor<4x2xf32>, tensor<ui32>, tensor<ui32>, tensor<4x2xf32>) {{
    %0 = "stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}}> {_SUM} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %1 = "stablehlo.all_gather"(%x) <{{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
        replica_groups = dense<[[3, 1, 2, 0]]> : tensor<1x4xi64>, use_global_device_ids}}> : (tensor<4x2xf32>) -> tensor<16x2xf32>
    %2 = "stablehlo.reduce_scatter"(%x) <{{scatter_dimension = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>,
        replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}}> {_SUM} : (tensor<4x2xf32>) -> tensor<1x2xf32>
    %3 = "stablehlo.collective_permute"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 4, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 2], [2, 3]]> : tensor<3x2xi64>}}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %4 = "stablehlo.all_to_all"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 5, type = 1>, split_dimension = 0 : i64,
        concat_dimension = 0 : i64, split_count = 4 : i64, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>}}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %5 = "stablehlo.collective_broadcast"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 6, type = 1>,
        replica_groups = dense<[[2, 0], [1, 3]]> : tensor<2x2xi64>}}> : (tensor<4x2xf32>) -> tensor<4x2xf32>
    %6 = stablehlo.partition_id : tensor<ui32>
    %7 = stablehlo.replica_id : tensor<ui32>
    %8 = "stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 7, type = 1>,
        replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>, use_global_device_ids}}> {_SUM} : (tensor<4x2xf32>) -> tensor<4x2xf32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8 : tensor<4x2xf32>, tensor<16x2xf32>, tensor<1x2xf32>, tensor<4x2xf32>, tensor<4x2xf32>,
                                               tensor<4x2xf32>, tensor<ui32>, tensor<ui32>, tensor<4x2xf32>
  }}
}}
"""


def _run(text: str, inputs, n: int, dialect: str):
    src, files = programs(text)[dialect]
    return penguin_ref.run(src, inputs, files=files, devices=n)


def _no_hang(fn, seconds: float = 60.0):
    """``fn()``'s result or exception, failing the test if it does not return within ``seconds``."""
    box: dict = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the multi-device run hung"
    if "error" in box:
        raise box["error"]
    return box["value"]


@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_every_collective_on_4_partitions(dialect):
    xs = [np.arange(8, dtype=np.float32).reshape(4, 2) + 100 * d for d in range(4)]
    outs = _run(ALL, [[x] for x in xs], 4, dialect)
    total = sum(xs)
    for d in range(4):
        ar, ag, rs, cp, a2a, cb, pid, rid, ar2 = outs[d]
        np.testing.assert_array_equal(ar, total)
        np.testing.assert_array_equal(ag, np.concatenate([xs[3], xs[1], xs[2], xs[0]]))  # group order, not device order
        np.testing.assert_array_equal(rs, total[d : d + 1])
        np.testing.assert_array_equal(cp, xs[d - 1] if d > 0 else np.zeros((4, 2), np.float32))  # 0 is no pair's target
        np.testing.assert_array_equal(a2a, np.stack([xs[s][d] for s in range(4)]))
        np.testing.assert_array_equal(cb, xs[2] if d in (0, 2) else xs[1])  # the first member of each group
        assert pid.dtype == np.uint32 and int(pid) == d and int(rid) == 0
        np.testing.assert_array_equal(ar2, xs[d % 2] + xs[d % 2 + 2])


# 2 replicas x 2 partitions: device d = (replica d // 2, partition d % 2)
MESH = """
module @m attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<1xf32>) -> (tensor<2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<ui32>, tensor<ui32>, tensor<4xf32>) {
    %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<1xf32>) -> tensor<2xf32>
    %1 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
        replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> : (tensor<1xf32>) -> tensor<4xf32>
    %2 = "stablehlo.collective_permute"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
        source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<1xf32>) -> tensor<1xf32>
    %3 = "stablehlo.collective_permute"(%x) <{source_target_pairs = dense<[[0, 1], [1, 0]]> : tensor<2x2xi64>}> : (tensor<1xf32>) -> tensor<1xf32>
    %4 = stablehlo.partition_id : tensor<ui32>
    %5 = stablehlo.replica_id : tensor<ui32>
    %6 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 3, type = 1>,
        replica_groups = dense<[[3, 0, 1, 2]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<1xf32>) -> tensor<4xf32>
    return %0, %1, %2, %3, %4, %5, %6 : tensor<2xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<ui32>, tensor<ui32>, tensor<4xf32>
  }
}
"""


@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_process_groups_on_2_replicas_by_2_partitions(dialect):
    xs = [np.array([10.0 * d], np.float32) for d in range(4)]
    outs = _run(MESH, [[x] for x in xs], 4, dialect)
    for d in range(4):
        r, p = d // 2, d % 2
        cross_replica, cr_and_p, cp_partitions, cp_replicas, pid, rid, flat = outs[d]
        np.testing.assert_array_equal(cross_replica, [10.0 * (2 + p), 10.0 * p])  # replicas [1, 0] of partition p
        np.testing.assert_array_equal(cr_and_p, [0.0, 20.0, 10.0, 30.0])  # (r0,p0) (r1,p0) (r0,p1) (r1,p1)
        np.testing.assert_array_equal(cp_partitions, [10.0 * (2 * r + 1 - p)])  # the other partition of replica r
        np.testing.assert_array_equal(cp_replicas, [10.0 * (2 * (1 - r) + p)])  # the other replica of partition p
        assert (int(pid), int(rid)) == (p, r)
        np.testing.assert_array_equal(flat, [30.0, 0.0, 10.0, 20.0])


def test_reduction_order_is_a_left_fold_in_group_order():
    """A non-commutative reducer (subtract) shows the order: ((x[g0] - x[g1]) - x[g2]) - x[g3]."""
    text = """
    module @m attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
      func.func @main(%x: tensor<i32>) -> tensor<i32> {
        %0 = "stablehlo.all_reduce"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
            replica_groups = dense<[[3, 1, 0, 2]]> : tensor<1x4xi64>, use_global_device_ids}> ({
        ^bb0(%a: tensor<i32>, %b: tensor<i32>):
          %s = stablehlo.subtract %a, %b : tensor<i32>
          stablehlo.return %s : tensor<i32>
        }) : (tensor<i32>) -> tensor<i32>
        return %0 : tensor<i32>
      }
    }
    """
    xs = [np.int32(v) for v in (1, 10, 100, 1000)]
    for dialect in ("stablehlo", "mhlo"):
        outs = _run(text, [[x] for x in xs], 4, dialect)
        assert [int(o[0]) for o in outs] == [1000 - 10 - 1 - 100] * 4


def test_groups_naming_a_device_beyond_the_run_are_one_error():
    bad = """
    module @m attributes {mhlo.num_partitions = 2 : i32} {
      func.func @main(%x: tensor<2xf32>) -> tensor<8xf32> {
        %0 = "stablehlo.all_gather"(%x) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
            replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> : (tensor<2xf32>) -> tensor<8xf32>
        return %0 : tensor<8xf32>
      }
    }
    """
    x = np.zeros(2, np.float32)
    with pytest.raises(PenguinRefError) as e:
        _no_hang(lambda: _run(bad, [[x], [x]], 2, "stablehlo"))
    msg = e.value.format()
    assert "test.mlir:4:14: error: penguin_ref: device 0: cannot execute 'stablehlo.all_gather' (AllGatherOp -> v1)" in msg, msg
    assert "its groups [[0, 1, 2, 3]] name device 2, but there are 2 devices (2 device(s): 1 replica(s) x 2 partition(s))" in msg


def test_devices_waiting_at_different_collectives_deadlock_as_one_error():
    """Partition 0 runs one all_reduce, the others another (a `case` on partition_id): each waits forever."""
    text = f"""
    module @m attributes {{mhlo.num_partitions = 3 : i32}} {{
      func.func @main(%x: tensor<f32>) -> tensor<f32> {{
        %p = stablehlo.partition_id : tensor<ui32>
        %i = stablehlo.convert %p : (tensor<ui32>) -> tensor<i32>
        %r = "stablehlo.case"(%i) ({{
          %a = "stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
              replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>, use_global_device_ids}}> {_SUM} : (tensor<f32>) -> tensor<f32>
          stablehlo.return %a : tensor<f32>
        }}, {{
          %b = "stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
              replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>, use_global_device_ids}}> {_SUM} : (tensor<f32>) -> tensor<f32>
          stablehlo.return %b : tensor<f32>
        }}) : (tensor<i32>) -> tensor<f32>
        return %r : tensor<f32>
      }}
    }}
    """
    x = np.float32(1.0)
    for dialect in ("stablehlo", "mhlo"):
        with pytest.raises(PenguinRefError) as e:
            _no_hang(lambda: _run(text, [[x]] * 3, 3, dialect))
        msg = e.value.format()
        assert msg.startswith("test.mlir:7:16: error: penguin_ref: the devices deadlock: device 0 waits at "), msg
        assert "device 1 waits at" in msg and "device 2 waits at" in msg
    # partition 0 alone runs a collective, the others finish: also a deadlock, naming who finished
    one_sided = text.replace(
        f"""%b = "stablehlo.all_reduce"(%x) <{{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>,
              replica_groups = dense<[[0, 1, 2]]> : tensor<1x3xi64>, use_global_device_ids}}> {_SUM} : (tensor<f32>) -> tensor<f32>
          stablehlo.return %b""",
        "stablehlo.return %x",
    )
    assert one_sided != text
    with pytest.raises(PenguinRefError) as e:
        _no_hang(lambda: _run(one_sided, [[x]] * 3, 3, "stablehlo"))
    msg = e.value.format()
    assert "device 0 waits at 'stablehlo.all_reduce'" in msg and "device 1 has finished; device 2 has finished" in msg, msg


def test_a_device_count_the_program_does_not_allow_is_one_error():
    x = np.zeros((4, 2), np.float32)
    with pytest.raises(PenguinRefError, match=r"compiled for num-replicas=1 x num-partitions=4 devices, but 2 device\(s\) were asked for"):
        _run(ALL, [[x], [x]], 2, "stablehlo")
    with pytest.raises(PenguinRefError, match=r"4 devices need 4 input lists \(one per device\), 1 given"):
        _run(ALL, [[x]], 4, "stablehlo")


def test_a_failing_device_stops_the_others():
    """Device 1's input has the wrong shape: that error is reported, the other devices do not wait forever."""
    x = np.zeros((4, 2), np.float32)
    with pytest.raises(PenguinRefError, match=r"device 1: .*input 0 has shape \(3,\), the program expects \(4, 2\)"):
        _no_hang(lambda: _run(ALL, [[x], [np.zeros(3, np.float32)], [x], [x]], 4, "stablehlo"))


def test_one_device_by_default_keeps_the_single_device_semantics():
    """Without ``devices`` a collective over one device is the identity; groups naming another device are an error."""
    text = f"""
    func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<ui32>) {{
      %0 = "stablehlo.all_reduce"(%x) <{{replica_groups = dense<[[0]]> : tensor<1x1xi64>}}> {_SUM} : (tensor<2xf32>) -> tensor<2xf32>
      %1 = stablehlo.replica_id : tensor<ui32>
      return %0, %1 : tensor<2xf32>, tensor<ui32>
    }}
    """
    src, files = programs(text)["stablehlo"]
    x = np.array([1.5, -2.0], np.float32)
    out = penguin_ref.run(src, [x], files=files)
    np.testing.assert_array_equal(out[0], x)
    assert int(out[1]) == 0
    src2, files2 = programs(text.replace("dense<[[0]]> : tensor<1x1xi64>", "dense<[[0, 1]]> : tensor<1x2xi64>"))["stablehlo"]
    with pytest.raises(PenguinRefError, match=r"its groups \[\[0, 1\]\] name replica 1, but there are 1 replicas"):
        penguin_ref.run(src2, [x], files=files2)


@pytest.mark.parametrize("spine", ["stablehlo", "mhlo"])
def test_collective_broadcast_rewrite_keeps_its_meaning_on_2_replicas_by_2_partitions(tmp_path, spine):
    """Spine step 3 (collective_broadcast -> all_gather + slice) run by the backend equals the broadcast itself."""
    from hilo_mlir import compile_file

    text = """
    module @b attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 2 : i32} {
      func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
        %0 = "stablehlo.collective_broadcast"(%x) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>,
            replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<3xf32>) -> tensor<3xf32>
        %1 = "stablehlo.collective_broadcast"(%x) <{replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>}> : (tensor<3xf32>) -> tensor<3xf32>
        return %0, %1 : tensor<3xf32>, tensor<3xf32>
      }
    }
    """
    path = tmp_path / "b.mlir"
    path.write_text(text)
    src = compile_file(str(path), spine=spine)
    assert "CollectiveBroadcastOp" not in src and "AllGatherOp" in src
    xs = [[np.full(3, 10.0 * d, np.float32)] for d in range(4)]
    got = penguin_ref.run(src, xs, files=getattr(src, "files", None), devices=4)
    want = _run(text, xs, 4, "stablehlo")  # printed without the spine: the backend's collective_broadcast
    for d in range(4):
        r, p = d // 2, d % 2
        np.testing.assert_array_equal(want[d][0], np.full(3, 10.0 * (2 * r + 1)))  # partition 1 of replica r
        np.testing.assert_array_equal(want[d][1], np.full(3, 10.0 * (2 + p)))  # replica 1 of partition p
        for i in range(2):
            np.testing.assert_array_equal(got[d][i], want[d][i])
