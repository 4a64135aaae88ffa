"""FusionCluster(sealed=True): the fast path for chains a matcher has checked, and its checking mode.

A sealed chain reads neither the uses of the results inside the chain nor the
ops nested in its members; the checking mode (``check=True``, on by default
under ``HILO_MLIR_CHECK_ANALYSES=1``) recomputes the cluster the general way
and refuses a chain that is not sealed.
"""

import pytest

from hilo_mlir.fusion import FusionCluster
from hilo_mlir.ir.binding import ir, make_context

# rsqrt(mean(x*x) + eps): the MulRedSqrt chain (multiply, reduce, multiply by 1/N, add eps, rsqrt)
CHAIN = """func.func @main(%x: tensor<4x8xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %n = stablehlo.constant dense<0.125> : tensor<4xf32>
  %e = stablehlo.constant dense<1.0e-6> : tensor<4xf32>
  %sq = stablehlo.multiply %x, %x : tensor<4x8xf32>
  %s = stablehlo.reduce(%sq init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %m = stablehlo.multiply %s, %n : tensor<4xf32>
  %a = stablehlo.add %m, %e : tensor<4xf32>
  %r = stablehlo.rsqrt %a : tensor<4xf32>
  %u = stablehlo.negate %r : tensor<4xf32>
  return %u, %m : tensor<4xf32>, tensor<4xf32>
}"""


def _chain(m):
    f = list(m.body.operations)[0]
    ops = [o.operation for o in f.regions[0].blocks[0].operations]
    return ops, ops[3:8]  # multiply, reduce, multiply, add, rsqrt


def _fingerprint(c):
    return (
        [m.name for m in c.members],
        [hash(v) for v in c.live_ins],
        [hash(v) for v in c.live_outs],
        [(o.name, n, k) for o, n, k in c._inside_uses],
        [(o.name, n, k) for o, n, k in c._outside_uses + c._after_uses],
        list(c._rewired_whole),
    )


def test_sealed_chain_equals_the_general_scan():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN.replace("return %u, %m", "return %u, %u"))
        ops, chain = _chain(m)
        fast = FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=False)
        slow = FusionCluster(chain, "MulRedSqrt", one_block=True)
        assert _fingerprint(fast) == _fingerprint(slow)
        x = chain[0].operands[0]
        assert fast.live_ins == [x, ops[0].results[0], ops[1].results[0], ops[2].results[0]]
        assert fast.live_outs == [chain[-1].results[0]]
        assert [(o.name, n) for o, n, _ in fast._after_uses] == [("stablehlo.negate", 0)]
        # the checking mode accepts a sealed chain
        FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=True)


def test_checking_mode_refuses_a_chain_that_is_not_sealed():
    # %m (the third op of the chain) is also returned: a live-out the sealed path cannot see
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN)
        _ops, chain = _chain(m)
        fast = FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=False)
        assert fast.live_outs == [chain[-1].results[0]]  # the wrong fast answer, unchecked
        slow = FusionCluster(chain, "MulRedSqrt", one_block=True)
        assert slow.live_outs == [chain[2].results[0], chain[-1].results[0]]
        with pytest.raises(AssertionError, match=r"MulRedSqrt.*sealed-chain path's live-outs differ from the general scan's"):
            FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=True)


def test_checking_mode_is_the_default_check(monkeypatch):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN)
        _ops, chain = _chain(m)
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
        with pytest.raises(AssertionError, match="sealed-chain"):
            FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True)
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
        assert len(FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True).live_outs) == 1


def _reads(chain):
    """What a matcher would hand over: the block, every op's operands, every op's results."""
    return chain[0].block, [list(o.operands) for o in chain], [list(o.results) for o in chain]


def test_given_reads_make_the_same_cluster_without_reading_again():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN.replace("return %u, %m", "return %u, %u"))
        ops, chain = _chain(m)
        block, operands, results = _reads(chain)
        results[-1] = None  # the root's results not read by the matcher: the cluster reads them
        fast = FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=True, block=block, operands=operands, results=results)
        slow = FusionCluster(chain, "MulRedSqrt", one_block=True)
        assert _fingerprint(fast) == _fingerprint(slow)
        x = chain[0].operands[0]
        assert fast.live_ins == [x, ops[0].results[0], ops[1].results[0], ops[2].results[0]]
        assert fast.live_outs == [chain[-1].results[0]]
        assert fast.operand_keys == [[hash(v) for v in o.operands] for o in chain]
        assert fast.member_result_keys == [[hash(r) for r in o.results] for o in chain]


@pytest.mark.parametrize("wrong", ["operands", "results", "block"])
def test_checking_mode_refuses_wrong_reads(wrong):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(CHAIN.replace("return %u, %m", "return %u, %u"))
        ops, chain = _chain(m)
        block, operands, results = _reads(chain)
        if wrong == "operands":
            operands[2] = operands[2][::-1]  # multiply(%s, %n) read as multiply(%n, %s)
            what = "live-in uses"
        elif wrong == "results":
            results[1] = results[0]  # the reduce's result taken for the multiply's
            what = "live-ins"
        else:
            block = m.body  # the module's body, not the function's
            what = "block"
        kw = {"block": block, "operands": operands, "results": results}
        FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=False, **kw)  # unchecked: no error
        with pytest.raises(AssertionError, match=f"sealed-chain path's {what} differ"):
            FusionCluster(chain, "MulRedSqrt", one_block=True, sealed=True, check=True, **kw)
