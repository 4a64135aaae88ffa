"""Issue 24 ("fusion codegen in batch"), second round: the cheaper paths of the codegen and fs-pattern.

* the last member's result with exactly one outside use is rewired with the other operand
  updates (``FusionCluster._after_uses``), not by a replace-all-uses of its own;
* ``new_decomposition`` makes the ``function_type`` attribute once per signature;
* the :class:`OrderIndex` forgets a batch of moved ops (``notify_moved_all``);
* fs-pattern's "no user outside the subgraph" test counts uses and reads owners only when a
  count is over (the slow scan is the truth; the checking mode compares them).

Source: seed 000 "The FusionCluster Data Structure and Shared codeGen"; seed 004 step 12.
"""

import pytest

from hilo_mlir.fusion import FusionCluster, OrderIndex, SymbolNamer, codegen, new_decomposition
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import MHLO, STABLEHLO
from hilo_mlir.passes.legalization import fs_pattern
from hilo_mlir.rewrite.rewriter import Rewriter

SRC = """func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x4xf32>) -> tensor<4x4xf32>
  %l = stablehlo.logistic %a : tensor<4x4xf32>
  %m = stablehlo.multiply %l, %a : tensor<4x4xf32>
  %n = stablehlo.negate %m : tensor<4x4xf32>
  %b = stablehlo.add %c, %c : tensor<4x4xf32>
  return %n, %b : tensor<4x4xf32>, tensor<4x4xf32>
}"""


def _ops(m):
    f = list(m.body.operations)[0]
    return [o.operation for o in f.regions[0].blocks[0].operations]


def test_a_single_use_of_the_last_member_is_listed_after_the_cluster():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        c = FusionCluster(ops[:3], "DotLogistic")
        assert c.live_outs == [ops[2].results[0]]
        assert c._rewired_whole == [] and c._outside_uses == []
        assert [(o.name, n, k) for o, n, k in c._after_uses] == [("stablehlo.negate", 0, 0)]
        assert [[u.name for u in us] for us in c.live_out_users()] == [["stablehlo.negate"]]
        assert c.dependent_ops() == ([], True)  # a use after the last member is no dependent op


@pytest.mark.parametrize("d", [MHLO, STABLEHLO], ids=["mhlo", "stablehlo"])
def test_codegen_rewires_the_single_use_of_the_last_member(d):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        neg, add, ret = ops[3], ops[4], ops[5]
        fused = codegen(FusionCluster(ops[:3], "DotLogistic"), d, Rewriter(m.operation))
        assert fused is not None
        assert m.operation.verify()
        assert neg.operands[0] == fused.results[0]
        assert ret.operands[1] == add.results[0]
        names = [o.name for o in _ops(m)]
        assert names == [
            "stablehlo.composite" if d.fusion_is_composite else "mhlo.fusion",
            "stablehlo.negate",
            "stablehlo.add",
            "func.return",
        ]


def test_decomposition_function_type_is_made_once_per_signature():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        namer = SymbolNamer(m.operation)
        t4 = ir.RankedTensorType.get([4, 4], ir.F32Type.get())
        t8 = ir.RankedTensorType.get([4, 8], ir.F32Type.get())
        rw = Rewriter(m.operation)
        loc = ir.Location.unknown()
        made = [
            new_decomposition(rw, namer.module_body(), name, ins, [t4], loc, [loc] * len(ins), namer.attributes)
            for name, ins in (("d0", [t4, t4]), ("d1", [t4, t4]), ("d2", [t8]))
        ]
        fns = [f for f, _ in made]
        assert all(b.owner.operation == f for f, b in made)  # the function and its entry block
        types = [str(f.attributes["function_type"]) for f in fns]
        assert types == [
            "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>",
            "(tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>",
            "(tensor<4x8xf32>) -> tensor<4x4xf32>",
        ]
        sigs = [k for k in namer.attributes if isinstance(k, tuple)]
        assert len(sigs) == 2  # one memo entry per distinct signature


def test_order_index_forgets_a_batch_of_moved_ops():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        ops = _ops(m)
        rw = Rewriter(m.operation)
        with OrderIndex(rw) as order:
            assert order.is_before(ops[0], ops[4])
            rw.move_all_before([ops[4]], ops[0])  # %b (no operand from the block) goes first
            assert order.is_before(ops[4], ops[0])  # re-read from the block, not the stale mirror
            assert order.next_op(ops[4]) == ops[0]


def test_order_index_listens_only_to_its_own_rewriter():
    """``listens_to``: True only for the rewriter the index was given, and no longer after ``close``
    (the fusion codegen then notes each moved member itself)."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        rw, other = Rewriter(m.operation), Rewriter(m.operation)
        assert not OrderIndex().listens_to(rw) and not OrderIndex().listens_to(None)
        order = OrderIndex(rw)
        assert order.listens_to(rw) and not order.listens_to(other) and not order.listens_to(None)
        order.close()
        assert not order.listens_to(rw)


SOFTMAX = """func.func @main(%x: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %s = stablehlo.subtract %x, %mb : tensor<5x3xf32>
  %e = stablehlo.exponential %s : tensor<5x3xf32>
  %t = stablehlo.reduce(%e init: %z) applies stablehlo.add across dimensions = [0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<3xf32>
  %tb = stablehlo.broadcast_in_dim %t, dims = [1] : (tensor<3xf32>) -> tensor<5x3xf32>
  %r = stablehlo.divide %e, %tb : tensor<5x3xf32>
  return %r, %OUT : tensor<5x3xf32>, tensor<5x3xf32>
}"""


@pytest.fixture(autouse=True)
def _fresh_attribute_memo():
    """fs-pattern memoises attribute reads by pointer for one run: clear it around each test (as ``_run`` does)."""
    fs_pattern._INTS.clear()
    fs_pattern._IDENTITY.clear()
    yield
    fs_pattern._INTS.clear()
    fs_pattern._IDENTITY.clear()


def _matched(text):
    m = ir.Module.parse(text)
    div = [o for o in _ops(m) if o.name == "stablehlo.divide"][0]
    found, refusal = fs_pattern._match(div, STABLEHLO, None)
    assert refusal is None
    return m, div, found[2]


@pytest.mark.parametrize("check", [False, True], ids=["fast", "checking-mode"])
def test_fs_subgraph_without_outside_users_is_found_by_counting(check):
    with make_context(), ir.Location.unknown():
        _m, div, ops = _matched(SOFTMAX.replace("%OUT", "%x"))
        assert [o.name.split(".")[1] for o in ops] == [
            "divide",
            "exponential",
            "broadcast_in_dim",
            "reduce",
            "subtract",
            "broadcast_in_dim",
            "reduce",
        ]
        assert fs_pattern._user_outside(ops, div, ops[1], check) is None


@pytest.mark.parametrize("used", ["%e", "%mb", "%t"])
@pytest.mark.parametrize("check", [False, True], ids=["fast", "checking-mode"])
def test_fs_intermediate_used_outside_is_named_by_the_slow_scan(used, check):
    with make_context(), ir.Location.unknown():
        _m, div, ops = _matched(SOFTMAX.replace("%OUT", used).replace("tensor<5x3xf32>, tensor<5x3xf32>", _ret_types(used), 2))
        culprit = fs_pattern._user_outside(ops, div, ops[1], check)
        assert culprit is not None and culprit.name == "func.return"
        assert culprit == fs_pattern._user_outside(ops, div)  # the same answer as the slow scan alone


def _ret_types(used):
    return "tensor<5x3xf32>, tensor<3xf32>" if used == "%t" else "tensor<5x3xf32>, tensor<5x3xf32>"


def test_fs_reduction_identity_memo_keeps_constants_only():
    with make_context(), ir.Location.unknown():
        m, _div, ops = _matched(SOFTMAX.replace("%OUT", "%x"))
        fs_pattern._IDENTITY.clear()
        rsum, rmax = ops[3], ops[6]
        assert fs_pattern._is_identity(rsum.operands[1], STABLEHLO, "add", True) is True
        assert fs_pattern._is_identity(rmax.operands[1], STABLEHLO, "maximum", True) is True
        assert fs_pattern._is_identity(rmax.operands[1], STABLEHLO, "add", True) is False  # -inf is no sum's identity
        assert len(fs_pattern._IDENTITY) == 3
        assert fs_pattern._is_identity(rsum.operands[1], STABLEHLO, "add", True) is True  # from the memo, checked
        x = list(m.body.operations)[0].regions[0].blocks[0].arguments[0]
        assert fs_pattern._is_identity(x, STABLEHLO, "add", True) is False
        assert len(fs_pattern._IDENTITY) == 3  # a block argument is not memoised
        fs_pattern._IDENTITY[(hash(rsum.operands[1]), "add")] = False  # a stale entry: the checking mode finds it
        with pytest.raises(AssertionError, match="stale reduction-identity memo"):
            fs_pattern._is_identity(rsum.operands[1], STABLEHLO, "add", True)
        fs_pattern._IDENTITY.clear()
