"""The census kept current by the rewriter equals a fresh walk: keyed lists after erasures, reused addresses,
moves within and across functions, the pointer-keyed type set, and the analysis manager's census handle."""

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.passmanager.pass_context import Statistics
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.rewriter import Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xi32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %a : tensor<2xf32>
  %2 = stablehlo.add %1, %0 : tensor<2xf32>
  %3 = stablehlo.add %b, %b : tensor<2xi32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %4 = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<2xf32>
  return %4 : tensor<2xf32>
}
func.func private @g(%x: tensor<3xf16>) -> tensor<3xf16> {
  %0 = stablehlo.negate %x : tensor<3xf16>
  return %0 : tensor<3xf16>
}
"""


def _setup(m):
    op = m.operation
    rw = Rewriter(op)
    am = AnalysisManager(op, rw)
    census = am.census()
    census.types()  # taken when asked: from now on the rewriter keeps them too
    return op, rw, am, census


def _block(func):
    return func.regions[0].blocks[0]


def _ops(func):
    return [o.operation for o in _block(func).operations]


def _names(ops):
    return [o.name for o in ops]


def test_erase_makes_a_keyed_list_and_later_erasures_and_inserts_stay_exact():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am, c = _setup(m)
        main, _g = [o.operation for o in m.body.operations]
        assert c.has_types and c.counts["stablehlo.add"] == 4
        a0, _mul, a2, a3 = _ops(main)[:4]
        rw.erase_op(a3)  # the add list of main becomes keyed
        assert c.counts["stablehlo.add"] == 3
        assert c.element_type_strings() == {"f32", "i32", "f16"}  # %b, an argument, is still i32
        new = rw.create("stablehlo.add", results=[a0.results[0].type], operands=[a2.results[0], a2.results[0]], after=a2)
        assert c.counts["stablehlo.add"] == 4
        assert [identity_key(o) for o in c.ops_named(main, "stablehlo.add", any_order=True)][-1] == identity_key(new)
        # in walk order: the new add sits after %2, before the reduce's body add
        ordered = c.ops_named(main, "stablehlo.add")
        assert [identity_key(o) for o in ordered][:3] == [identity_key(a0), identity_key(a2), identity_key(new)]
        assert c.differences(Census(mop)) == []


def test_type_counts_follow_erasures_down_to_zero():
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, am, c = _setup(m)
        _main, g = [o.operation for o in m.body.operations]
        assert "f16" in c.element_type_strings()
        neg = _ops(g)[0]
        rw.replace_all_uses_with(neg.results[0], _block(g).arguments[0])
        rw.erase_op(neg)
        assert "f16" in c.element_type_strings()  # the argument %x is still f16
        assert c.counts.get("stablehlo.negate") is None and "stablehlo.negate" not in c.names
        rw.erase_op(g)  # the whole function: its argument type leaves with it
        assert c.element_type_strings() == {"f32", "i32"}
        assert sorted(str(t) for t in c.types()) == ["tensor<2xf32>", "tensor<2xi32>", "tensor<f32>"]
        assert c.differences(Census(mop)) == []


def test_reused_addresses_after_erase_keep_the_keyed_lists_exact():
    lines = ["func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {"]
    lines += [f"  %m{i} = stablehlo.multiply %a, %a : tensor<2xf32>" for i in range(30)]
    lines += ["  return %a : tensor<2xf32>", "}"]
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse("\n".join(lines))
        mop, rw, am, c = _setup(m)
        (main,) = [o.operation for o in m.body.operations]
        ret = _ops(main)[-1]
        for i, o in enumerate(c.ops_named(main, "stablehlo.multiply")):
            t, args = o.results[0].type, list(o.operands)
            rw.erase_op(o)  # the allocator tends to hand this address to the next op created
            rw.create("stablehlo.multiply" if i % 3 else "stablehlo.subtract", results=[t], operands=args, before=ret)
        assert c.counts == {"func.func": 1, "func.return": 1, "stablehlo.multiply": 20, "stablehlo.subtract": 10}
        assert c.differences(Census(mop)) == []
        assert len(c.ops_named(main, "stablehlo.multiply")) == 20


def test_moves_within_a_function_then_across_functions():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am, c = _setup(m)
        main, g = [o.operation for o in m.body.operations]
        ops = _ops(main)
        rw.move_all_before([ops[3], ops[1]], ops[0])  # the i32 add and the multiply to the top of main
        assert c.differences(Census(mop)) == []
        assert _names(c.ops_named(main, "stablehlo.add"))[:1] == ["stablehlo.add"]
        everything = [o for o in _ops(main)[:-1]]
        rw.move_all_before(everything[::-1], _ops(main)[-1])  # every list of main out of order: no name is read
        assert c.differences(Census(mop)) == []
        # across functions: the broadcast moves into @g (unused there), main loses it
        bcast = [o for o in _ops(main) if o.name == "stablehlo.broadcast_in_dim"][0]
        rw.replace_all_uses_with(bcast.results[0], _block(main).arguments[0])
        rw.move_before(bcast, _ops(g)[-1])
        assert c.ops_named(main, "stablehlo.broadcast_in_dim") == []
        assert _names(c.ops_named(g, "stablehlo.broadcast_in_dim")) == ["stablehlo.broadcast_in_dim"]
        assert c.counts["stablehlo.broadcast_in_dim"] == 1
        assert c.differences(Census(mop)) == []


def test_an_op_with_regions_cloned_and_erased_counts_its_body():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am, c = _setup(m)
        main, _g = [o.operation for o in m.body.operations]
        red = [o for o in _ops(main) if o.name == "stablehlo.reduce"][0]
        clone = rw.clone(red, before=red)
        assert c.counts["stablehlo.reduce"] == 2 and c.counts["stablehlo.return"] == 2 and c.counts["stablehlo.add"] == 5
        assert c.differences(Census(mop)) == []
        rw.erase_op(clone)
        assert c.counts["stablehlo.reduce"] == 1 and c.counts["stablehlo.return"] == 1 and c.counts["stablehlo.add"] == 4
        assert c.differences(Census(mop)) == []


def test_the_checking_mode_catches_a_type_count_out_of_step():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        mop, rw, am, c = _setup(m)
        main, _g = [o.operation for o in m.body.operations]
        _block(main).arguments[1].set_type(ir.RankedTensorType.get([2], ir.IntegerType.get_signless(64)))  # behind the rewriter
        assert c.differences(Census(mop)) == ["value types differ"]


def test_manager_census_handle_follows_put_and_invalidation():
    with make_context():
        m = ir.Module.parse(MODULE)
        mop, rw, am, c = _setup(m)
        assert am.census() is c and am.get(Census, mop) is c and c in rw.listeners
        handed = Census(mop)
        am.put(Census, mop, handed)
        assert am.census() is handed and c not in rw.listeners and handed in rw.listeners
        am.invalidate_all()
        assert am.cached(Census, mop) is None and handed not in rw.listeners and rw.listeners == [am]
        again = am.census()
        assert again is not handed and not again.has_types and am.census() is again  # types: when asked
        rw.notify_unknown_change()
        assert am.cached(Census, mop) is None and am.census() is not again


def test_census_after_upstream_passes_in_the_checking_mode_equals_a_fresh_walk():
    seen: list = []

    def churn(func_op, ctx):
        rw = ctx.rewriter
        for o in ctx.ops_named(func_op, "mhlo.multiply"):
            rw.replace_op(o, [o.operands[0]])
        seen.append(dict(ctx.census.counts))

    info = PassInfo("test-census-churn", "erases the multiplies", churn)
    text = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %z = mhlo.constant dense<0.0> : tensor<2xf32>
  %0 = mhlo.add %a, %z : tensor<2xf32>
  %1 = mhlo.multiply %0, %a : tensor<2xf32>
  %2 = mhlo.multiply %1, %1 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""
    with make_context():
        m = ir.Module.parse(text)
        steps = [Step(info, info.argument), step_for("canonicalize"), Step(info, info.argument), step_for("remove-dead-values")]
        Pipeline(steps, check_analyses=True).run(m)  # the checking mode compares the kept census after each pass
        assert seen == [{"func.func": 1, "func.return": 1, "mhlo.add": 1, "mhlo.constant": 1}, {"func.func": 1, "func.return": 1}]
        assert Census(m.operation).counts == {"func.func": 1, "func.return": 1}


def test_statistics_placeholder_names_match_once_and_undeclared_names_still_fail():
    stats = Statistics(["converted-{kind}", "total"], "test-pass")
    stats["converted-add"] += 1
    stats["converted-add"] += 2
    stats["total"] += 1
    assert dict(stats) == {"converted-add": 3, "total": 1}
    with pytest.raises(KeyError, match="undeclared statistic 'converted-a b'"):
        stats["converted-a b"] += 1
    with pytest.raises(KeyError, match="undeclared statistic 'other'"):
        stats["other"] = 1
