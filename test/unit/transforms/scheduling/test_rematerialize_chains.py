"""rematerialize's candidate chains from the census's per-name lists (:func:`cross_pass._chains`).

Each candidate's chain must be what :func:`cross_pass._cheap` (which reads the
op's name and makes a view of a broadcast's source) says: ``[op]`` for a
constant or iota, ``[constant, broadcast]`` for a broadcast of a constant,
None for a broadcast of anything else -- here with a constant in a nested
region and a broadcast of a block argument among them -- and the pass's
output on such a function must be the same as before (exact text).
"""

from __future__ import annotations

import re

from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.ir.dialects import TABLES
from hilo_mlir.passes.scheduling.cross_pass import _chains, _cheap
from hilo_mlir.testing import run_passes

MODULE = """
module {
  func.func @main(%a: tensor<4xf32>, %s: tensor<f32>) -> tensor<4xf32> {
    %k = stablehlo.constant dense<2.0> : tensor<f32>
    %i = stablehlo.iota dim = 0 : tensor<4xf32>
    %b1 = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %b2 = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %0 = stablehlo.add %b1, %b2 : tensor<4xf32>
    %r = stablehlo.reduce(%0 init: %s) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
     reducer(%p: tensor<f32>, %q: tensor<f32>) {
      %c = stablehlo.constant dense<1.0> : tensor<f32>
      %m = stablehlo.multiply %q, %c : tensor<f32>
      %n = stablehlo.add %p, %m : tensor<f32>
      stablehlo.return %n : tensor<f32>
    }
    %b3 = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.add %0, %i : tensor<4xf32>
    %2 = stablehlo.add %1, %b3 : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
"""


def _names(chain):
    return None if chain is None else [o.name for o in chain]


def test_chains_equal_cheap_per_candidate():
    d = TABLES["stablehlo"]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        main = m.body.operations[0].operation
        census = Census(m.operation)
        constants, iotas, broadcasts = (census.ops_named(main, d.name(n)) for n in ("constant", "iota", "broadcast_in_dim"))
        assert (len(constants), len(iotas), len(broadcasts)) == (2, 1, 3)
        chains = _chains(constants, iotas, broadcasts)
        got = [_names(chains[o]) for o in constants + iotas + broadcasts]
        want = [_names(_cheap(o, d)) for o in constants + iotas + broadcasts]
        assert (
            got
            == want
            == [
                ["stablehlo.constant"],
                ["stablehlo.constant"],
                ["stablehlo.iota"],
                ["stablehlo.constant", "stablehlo.broadcast_in_dim"],
                None,
                None,
            ]
        )
        # the broadcast of %k is chained to %k itself (not to the other constant)
        b1 = broadcasts[0]
        assert identity_key(chains[b1][0]) == identity_key(constants[0])
        assert identity_key(chains[b1][1]) == identity_key(b1)


FAR = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %k = stablehlo.constant dense<0.5> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %k, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.sine %0 : tensor<4xf32>
  %2 = stablehlo.cosine %1 : tensor<4xf32>
  %3 = stablehlo.sine %2 : tensor<4xf32>
  %4 = stablehlo.multiply %3, %b : tensor<4xf32>
  return %4 : tensor<4xf32>
}
"""


def test_far_broadcast_of_a_constant_is_cloned_with_its_constant():
    out, stats = run_passes(FAR, "stablehlo-rematerialize{distance=2}")
    body = out.split("@main", 1)[1]
    ops = re.findall(r"= stablehlo\.(\w+)", body)
    # the multiply (5 ops after the broadcast) gets a clone of the constant and of the broadcast
    assert ops == ["constant", "broadcast_in_dim", "add", "sine", "cosine", "sine", "constant", "broadcast_in_dim", "multiply"]
    assert stats["clones"] == 1
    # producers are numbered in block order: the constant is 1 (no far user), the broadcast 2
    assert body.count("neuron.remat.value = 2 : i64") == 2 and "remat.value = 1 " not in body
