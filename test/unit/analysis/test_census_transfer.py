"""A batch of ops moving from one top-level op into another (the StableHLO fusion codegen's members going
into a new decomposition function): the census moves them list to list in one pass (``Census._transfer``),
counts untouched; the kept census equals a fresh walk, and a deliberately wrong transfer is caught by the
checking mode's comparison (``Census.differences``)."""

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.rewrite.rewriter import Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.negate %0 : tensor<2xf32>
  %2 = stablehlo.add %1, %a : tensor<2xf32>
  %3 = stablehlo.add %2, %a : tensor<2xf32>
  return %3 : tensor<2xf32>
}
"""


def _setup(m):
    mop = m.operation
    rw = Rewriter(mop)
    am = AnalysisManager(mop, rw)
    main = [o.operation for o in m.body.operations][0]
    return mop, rw, am.census(), main


def _ops(func):
    return [o.operation for o in func.regions[0].blocks[0].operations]


def _new_function(rw, mop):
    """A private ``func.func @f(tensor<2xf32>) -> tensor<2xf32>`` appended through ``rw``, ending in a return
    of its argument; returns ``(func, its return)``."""
    t = ir.RankedTensorType.get([2], ir.F32Type.get())
    body = mop.regions[0].blocks[0]
    fn = rw.create(
        "func.func",
        attributes={
            "sym_name": ir.StringAttr.get("f"),
            "function_type": ir.TypeAttr.get(ir.FunctionType.get([t], [t])),
            "sym_visibility": ir.StringAttr.get("private"),
        },
        regions=1,
        at_end=body,
    )
    block = rw.create_block(fn.regions[0], [t], owner=fn)
    ret = rw.create("func.return", operands=[block.arguments[0]], at_end=block)
    return fn, ret


def _keys(ops):
    return [identity_key(o) for o in ops]


def test_moving_into_a_new_function_transfers_lists_and_keeps_counts():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, c, main = _setup(m)
        a0, neg, a2, a3, ret = _ops(main)
        fn, fret = _new_function(rw, mop)
        counts = dict(c.counts)
        assert counts == {"func.func": 2, "func.return": 2, "stablehlo.add": 3, "stablehlo.negate": 1}
        rw.move_all_before([a0, neg, a2], fret, within=main)
        assert c.counts == counts  # every op left one list of its name and joined another
        km, kf = identity_key(main), identity_key(fn)
        assert c._pending == {km: {"stablehlo.add": {identity_key(a0), identity_key(a2)}}}  # noted, not keyed
        assert "stablehlo.negate" not in c.names_in(main)  # its only op left: the list is dropped
        assert sorted(c.names_in(fn)) == ["func.func", "func.return", "stablehlo.add", "stablehlo.negate"]
        assert _keys(c.ops_named(fn, "stablehlo.add")) == _keys([a0, a2])
        assert _keys(c.ops_named(fn, "stablehlo.negate")) == _keys([neg])
        assert _keys(c.ops_named(main, "stablehlo.add")) == _keys([a3])
        assert km not in c._pending and kf not in c._unordered  # read: keyed; the new lists are in walk order
        assert c.differences(Census(mop)) == []


def test_a_second_batch_joins_kept_lists_out_of_order():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, c, main = _setup(m)
        a0, neg, a2, a3, ret = _ops(main)
        fn, fret = _new_function(rw, mop)
        rw.move_all_before([a2], fret, within=main)
        rw.move_all_before([a0, neg], a2, within=main)  # before a2: walk order a0, neg, a2
        kf = identity_key(fn)
        assert c._unordered[kf] == {"stablehlo.add"}  # a0 appended after a2 in the kept list
        assert c.counts["stablehlo.add"] == 3 and c.counts["stablehlo.negate"] == 1
        assert _keys(c.ops_named(fn, "stablehlo.add")) == _keys([a0, a2])  # walked again: walk order
        assert c.differences(Census(mop)) == []


def test_a_wrong_transfer_is_caught_by_the_checking_mode(monkeypatch):
    # the ops deliberately left out of the new function's lists: the comparison with a fresh walk finds it
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, c, main = _setup(m)
        a0, neg, a2, a3, ret = _ops(main)
        fn, fret = _new_function(rw, mop)

        def lossy(self, idx, old_top, new_top):
            self._remove_ops(old_top, idx)  # leaves main, joins nothing (and the counts drop)

        monkeypatch.setattr(Census, "_transfer", lossy)
        rw.move_all_before([a0, neg], fret, within=main)
        diffs = c.differences(Census(mop))
        assert any(d.startswith("op counts differ") for d in diffs)
        assert any("'stablehlo.negate' ops of a top-level op differs (kept 0, actual 1)" in d for d in diffs)


UNLISTED = """
func.func private @g(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  %1 = stablehlo.negate %0 : tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


def test_ops_from_an_unlisted_function_are_counted_as_they_join():
    """A function inserted outside the rewriter is not listed; ops moved out of it into ``main`` join
    main's list and are counted (what removing from an unlisted op and adding to a listed one does)."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, census, main = _setup(m)
        g = ir.Operation.parse(UNLISTED)
        ir.InsertionPoint(m.body).insert(g)  # behind the rewriter's back: @g is not in the census
        negs = _ops(g)[:2]
        rw.move_all_before(negs, _ops(main)[-1])
        assert census.counts["stablehlo.negate"] == 3
        assert [identity_key(o) for o in census.ops_named(main, "stablehlo.negate")] == [
            identity_key(o) for o in _ops(main) if o.name == "stablehlo.negate"
        ]
