"""The census's list of top-level ops (what a function pass runs on), the ops ``Rewriter.create`` makes
(one op each, no walk) and ``names_in`` (a view of the census's names): each kept as the rewriter
changes the module, equal to a fresh census, and a wrong shortcut is reported by ``differences``."""

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.passmanager.execution import run_pass
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.rewriter import Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = func.call @g(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.sqrt %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _setup(m):
    mop = m.operation
    rw = Rewriter(mop)
    am = AnalysisManager(mop, rw)
    return mop, rw, am


def _keys(ops):
    return [identity_key(o) for o in ops]


def test_the_tops_are_listed_by_the_construction_and_relisted_after_a_top_level_change():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am = _setup(m)
        c = am.census()
        main, g = [o.operation for o in m.body.operations]
        tops = c.top_level_ops()
        assert _keys(tops) == _keys([main, g]) and c.top_functions() == tops
        assert c.top_level_ops() is tops  # kept: no binding call
        # a change inside a function keeps the list
        add = main.regions[0].blocks[0].operations[0].operation
        rw.create("stablehlo.negate", results=[add.results[0].type], operands=[add.results[0]], after=add)
        assert c.top_level_ops() is tops
        # a new top-level op: listed again, in module order
        h = rw.clone(g, before=main)
        assert _keys(c.top_level_ops()) == _keys([h, main, g])
        assert _keys(tops) == _keys([main, g])  # the earlier snapshot is unchanged
        # a top-level op moved among them
        rw.move_before(main, h)
        assert _keys(c.top_functions()) == _keys([main, h, g])
        # a top-level op erased
        rw.erase_op(h)
        assert _keys(c.top_level_ops()) == _keys([main, g])
        assert c.differences(Census(mop)) == []


def test_a_function_pass_runs_on_the_cached_censuss_functions_in_module_order():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am = _setup(m)
        main, g = [o.operation for o in m.body.operations]
        seen = []

        def run(f, ctx):
            seen.append(identity_key(f))
            if len(seen) == 1:  # a function the pass adds is not visited
                rw.clone(g, before=main)

        info = PassInfo(argument="test-visit", summary="visits functions", anchor="func.func", run=run)
        am.census()  # cached: the list is the census's
        run_pass(info, {}, mop, rewriter=rw, analyses=am)
        assert seen == _keys([main, g])
        seen.clear()
        am.invalidate_all()  # no census cached: the module's body is read
        before = _keys([o.operation for o in m.body.operations])
        run_pass(info, {}, mop, rewriter=rw, analyses=am)
        assert seen == before and len(before) == 3
        assert am.cached(Census, mop) is None  # the pass did not build one


def test_a_wrong_top_level_list_is_reported():
    with make_context():
        m = ir.Module.parse(MODULE)
        c = Census(m.operation)
        main, g = [o.operation for o in m.body.operations]
        c._tops = (g, main)  # deliberately wrong (the order)
        assert "the list of top-level ops differs" in c.differences(Census(m.operation))
        c = Census(m.operation)
        c._funcs = (main,)  # deliberately wrong (a function left out)
        assert "the list of top-level functions differs" in c.differences(Census(m.operation))


def test_a_created_op_with_a_region_is_one_op_and_its_body_comes_in_later():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am = _setup(m)
        c = am.census()
        main = m.body.operations[0].operation
        add = main.regions[0].blocks[0].operations[0].operation
        t = add.results[0].type
        fused = rw.create("mhlo.fusion", results=[t], operands=[add.results[0]], regions=1, after=add)
        assert c.counts["mhlo.fusion"] == 1 and "mhlo.fusion" in c.names_in(main)
        body = rw.create_block(fused.regions[0], [t])
        term = rw.create("mhlo.return", operands=[body.arguments[0]], at_end=body)
        rw.create("stablehlo.negate", results=[t], operands=[body.arguments[0]], before=term)
        assert c.differences(Census(mop)) == []
        assert c.counts["stablehlo.negate"] == 1 and c.counts["mhlo.return"] == 1


def test_a_wrong_created_shortcut_is_reported():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am = _setup(m)
        c = am.census()
        main, g = [o.operation for o in m.body.operations]
        # an op with something nested in it, told as created (deliberately wrong): its body is missed
        clone = g.clone(ip=ir.InsertionPoint(main.regions[0].blocks[0].operations[0].operation))
        c.notify_created(clone.operation, identity_key(main))
        diffs = c.differences(Census(mop))
        assert any(d.startswith("op counts differ") and "stablehlo.sqrt: kept 1, actual 2" in d for d in diffs)


def test_names_in_is_the_censuss_names_of_the_function():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am = _setup(m)
        c = am.census()
        main, g = [o.operation for o in m.body.operations]
        assert set(c.names_in(g)) == {"func.func", "func.return", "stablehlo.sqrt"}
        sqrt = g.regions[0].blocks[0].operations[0].operation
        ret = g.regions[0].blocks[0].operations[1].operation
        rw.set_operand(ret, 0, g.regions[0].blocks[0].arguments[0])
        rw.erase_op(sqrt)
        assert set(c.names_in(g)) == {"func.func", "func.return"}
        assert "stablehlo.sqrt" not in c.names_in(g)
        c._index[identity_key(g)]["stablehlo.sqrt"] = []  # deliberately wrong: an empty list would name an absent op
        assert "an empty op list is kept (names_in would name an absent op)" in c.differences(Census(mop))


class _NoRegions:
    """An op stand-in of a kind without regions whose regions must not be read."""

    name = "stablehlo.add"

    @property
    def regions(self):
        raise AssertionError("the regions of a region-free kind were read")


def test_a_move_of_a_region_free_kind_reads_its_name_only():
    with make_context():
        m = ir.Module.parse(MODULE)
        c = Census(m.operation)
        main = m.body.operations[0].operation
        key = identity_key(main)
        c.notify_moved_all([_NoRegions(), _NoRegions()], [key, key], key)  # within one function: out of order
        assert c._unordered[key] == {"stablehlo.add"}
