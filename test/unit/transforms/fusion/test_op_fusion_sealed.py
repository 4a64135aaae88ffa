"""NeuronOpFusion hands its sealed chains to FusionCluster's fast path (``sealed=True``), and only those.

MulRedSqrt chains are always sealed; a DotLogistic cluster is when the dot feeds
nothing but the cluster. The checking mode (``check=True``) compares every such
cluster with the general scan, so a wrong claim fails here.
"""

import pytest
from test_op_fusion_helpers import fuse

from hilo_mlir.fusion import cluster as cluster_mod

SRC = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<0.125> : tensor<4xf32>
  %e = stablehlo.constant dense<1.0e-6> : tensor<4xf32>
  %sq = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.multiply %s, %n : tensor<4xf32>
  %a = stablehlo.add %m, %e : tensor<4xf32>
  %r = stablehlo.rsqrt %a : tensor<4xf32>
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l = stablehlo.logistic %d : tensor<4x8xf32>
  %y = stablehlo.multiply %d, %l : tensor<4x8xf32>
  %d2 = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l2 = stablehlo.logistic %d2 : tensor<4x8xf32>
  %y2 = stablehlo.multiply %d2, %l2 : tensor<4x8xf32>
  %t = stablehlo.add %y2, %d2 : tensor<4x8xf32>
  return %y, %r, %t : tensor<4x8xf32>, tensor<4xf32>, tensor<4x8xf32>
}"""


@pytest.mark.parametrize("dialect", ["mhlo", "stablehlo"])
def test_sealed_chains_take_the_fast_path_and_pass_the_check(dialect, monkeypatch):
    seen = []
    depth = [0]
    real = cluster_mod.FusionCluster.__init__

    def init(self, ops, kind, order=None, *, one_block=False, sealed=False, check=None, **reads):
        if depth[0] == 0:  # not the general cluster the check builds
            seen.append((kind, len(list(ops)), sealed))
        depth[0] += 1
        try:
            real(self, ops, kind, order, one_block=one_block, sealed=sealed, check=True if sealed else check, **reads)
        finally:
            depth[0] -= 1

    monkeypatch.setattr(cluster_mod.FusionCluster, "__init__", init)
    pre = "stablehlo-legalize-to-hlo" if dialect == "mhlo" else ""
    _out, st = fuse(SRC, dialect, pre=pre)
    assert st["clusters-MulRedSqrt"] == 1 and st["clusters-DotLogistic"] == 2
    # the second dot also feeds %t: a live-out, so that cluster goes the general way
    assert sorted(seen) == [("DotLogistic", 3, False), ("DotLogistic", 3, True), ("MulRedSqrt", 5, True)]
