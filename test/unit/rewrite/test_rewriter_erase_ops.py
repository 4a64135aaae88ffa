"""``Rewriter.erase_ops``: a batch of erasures, users first, heard at once by the census and the analysis
manager and op by op by a listener without the batch hook; one record per top-level op; the census stays
equal to a fresh walk; a failing erasure counts as an unknown change."""

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.rewrite.rewriter import Change, Listener, Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mhlo.add %a, %a : tensor<2xf32>
  %1 = mhlo.multiply %0, %a : tensor<2xf32>
  %2 = "mhlo.broadcast_in_dim"(%1) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<2xf32>) -> tensor<2x3xf32>
  %c = mhlo.constant dense<0.0> : tensor<f32>
  %r = mhlo.reduce(%2 init: %c) applies mhlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
  return %a : tensor<2xf32>
}
func.func private @g(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = mhlo.negate %x : tensor<3xf16>
  %1 = mhlo.negate %0 : tensor<3xf16>
  return %x : tensor<3xf16>
}
"""


class _Heard(Listener):
    """A listener with only the per-op hook."""

    def __init__(self) -> None:
        self.erasing: list[tuple[str, int | None]] = []

    def notify_erasing(self, op, top) -> None:
        self.erasing.append((op.name, top))


def _setup(m):
    mop = m.operation
    rw = Rewriter(mop)
    am = AnalysisManager(mop, rw)
    census = am.census()
    census.types()
    heard = _Heard()
    rw.add_listener(heard)
    main, g = [o.operation for o in m.body.operations]
    return mop, rw, census, heard, main, g


def _ops(func):
    return [o.operation for o in func.regions[0].blocks[0].operations]


def test_erase_ops_users_first_across_two_functions():
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, census, heard, main, g = _setup(m)
        add, mul, bcast, cst, red, _ret = _ops(main)
        neg0, neg1, _gret = _ops(g)
        rw.erase_ops([red, cst, bcast, mul, add, neg1, neg0])  # users before the ops they use
        assert [n for n, _ in heard.erasing] == [
            "mhlo.reduce",
            "mhlo.constant",
            "mhlo.broadcast_in_dim",
            "mhlo.multiply",
            "mhlo.add",
            "mhlo.negate",
            "mhlo.negate",
        ]
        assert {t for _, t in heard.erasing} == {identity_key(main), identity_key(g)}
        assert rw.changes == Change.ERASE and rw.actions == 2  # one record per function
        assert set(rw.changed_tops) == {identity_key(main), identity_key(g)}
        assert census.counts == {"func.func": 2, "func.return": 2}
        assert census.types_stale and census.differences(Census(mop)) == []
        assert census.has_element_type("f16") and not census.types_stale  # a stale "yes": read again, still so
        assert census.element_type_strings() == {"f32", "f16"}  # %x of @g is f16
        assert census.differences(Census(mop)) == []


def test_erase_ops_keeps_keyed_lists_exact_after_single_erasures():
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, census, heard, main, g = _setup(m)
        neg0, neg1, _gret = _ops(g)
        rw.erase_op(neg1)  # the negate list becomes keyed
        rw.erase_ops([neg0])
        add, mul, bcast, cst, red, _ret = _ops(main)
        rw.erase_ops([red])  # an op with a region: its body ops leave the lists too
        assert "mhlo.reduce" not in census.counts and census.counts["mhlo.add"] == 1  # the body's add is gone
        assert census.differences(Census(mop)) == []
        rw.erase_ops([])
        assert census.differences(Census(mop)) == []


def test_a_failing_erase_ops_is_an_unknown_change():
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, census, heard, main, g = _setup(m)
        neg0, neg1, _gret = _ops(g)
        with pytest.raises(RuntimeError):
            rw.erase_ops([neg1, neg1])  # the second erasure of one op: the binding refuses it
        assert len(heard.erasing) == 2  # every listener heard the whole batch before the first erasure
        assert rw.changes & Change.UNKNOWN
        assert rw.listeners[0].cached(Census, mop) is None  # the analysis manager dropped the census
        assert [o.name for o in _ops(g)] == ["mhlo.negate", "func.return"]


def test_a_batch_holding_an_op_and_its_parent_is_erased_one_op_at_a_time():
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, census, heard, main, g = _setup(m)
        add, mul, bcast, cst, red, _ret = _ops(main)
        body = [o.operation for o in red.regions[0].blocks[0].operations]  # the reducer's add and return
        rw.erase_ops([*reversed(body), red, cst])  # ops of the reduce's body (users first) before the reduce
        assert [n for n, _ in heard.erasing] == ["mhlo.return", "mhlo.add", "mhlo.reduce", "mhlo.constant"]
        assert rw.actions == 4  # as erase_op on each: one record per op
        assert census.counts["mhlo.add"] == 1 and "mhlo.reduce" not in census.counts and "mhlo.return" not in census.counts
        assert census.differences(Census(mop)) == []


def test_the_checking_mode_refuses_to_erase_an_op_with_uses():
    """The binding erases an op whose results are still used and leaves its users' operands in freed
    memory; the checking mode refuses first, erases nothing and counts the change as unknown."""
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, census, heard, main, g = _setup(m)
        rw.check_erasures = True
        neg0, neg1, _gret = _ops(g)
        with pytest.raises(ValueError, match=r"erasing 'mhlo.negate' at .*: its result #0 is still used by 'mhlo.negate'"):
            rw.erase_ops([neg0, neg1])  # producer first
        assert [o.name for o in _ops(g)] == ["mhlo.negate", "mhlo.negate", "func.return"]  # nothing erased
        assert rw.changes & Change.UNKNOWN
        with pytest.raises(ValueError, match=r"its result #0 is still used by 'mhlo.negate'"):
            rw.erase_op(neg0)
        rw.erase_ops([neg1, neg0])  # users first
        assert [o.name for o in _ops(g)] == ["func.return"]
        assert m.operation.verify()


def test_the_checking_mode_is_read_from_the_environment(monkeypatch):
    with make_context():
        m = ir.Module.parse(MODULE)
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
        assert Rewriter(m.operation).check_erasures
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
        assert not Rewriter(m.operation).check_erasures
