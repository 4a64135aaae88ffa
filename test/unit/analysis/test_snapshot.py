"""FunctionSnapshot (hilo_mlir/analysis/snapshot.py): exact contents, and kept current by the rewriter.

After every rewrite the kept snapshot must equal a fresh read of the IR
(``differences`` is empty) and state the exact ops, order, operands and users.
"""

import pytest

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.analysis.snapshot import FunctionSnapshot
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.rewriter import Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<f32> {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = stablehlo.multiply %0, %0 : tensor<2xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%1 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %r : tensor<f32>
}
func.func private @g(%x: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %x : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def _setup():
    m = ir.Module.parse(MODULE)
    main, g = (o.operation for o in m.body.operations)
    rw = Rewriter(m.operation)
    am = AnalysisManager(m.operation, rw)
    return m, main, g, rw, am


def _ops(block):
    return [o.operation for o in block.operations]


def _names(snap, bs):
    return [e.name for e in snap.ops_in(bs)]


def _same_as_fresh(snap, func):
    assert snap.differences(FunctionSnapshot(func)) == []


def test_fresh_snapshot_exact_contents():
    with make_context():
        m, main, g, rw, am = _setup()
        s = FunctionSnapshot(main)
        entry = main.regions[0].blocks[0]
        a, b = (hash(v) for v in entry.arguments)
        ops = _ops(entry)
        assert s.entry.args == (a, b) and s.entry.parent == identity_key(main)
        assert _names(s, s.entry) == ["stablehlo.add", "stablehlo.multiply", "stablehlo.constant", "stablehlo.reduce", "func.return"]
        add, mul, cst, red, ret = s.ops_in(s.entry)
        assert add.operands == (a, b) and add.results == (hash(ops[0].results[0]),)
        assert mul.operands == (add.results[0], add.results[0])
        assert red.operands == (mul.results[0], cst.results[0]) and ret.operands == red.results
        # the reduce body: one block with two arguments, add + return, parented by the reduce
        (body_key,) = red.regions
        body = s.blocks[body_key]
        assert body.parent == red.key and len(body.args) == 2
        assert _names(s, body) == ["stablehlo.add", "stablehlo.return"]
        inner_add = s.ops_in(body)[0]
        assert inner_add.operands == body.args and inner_add.block == body_key
        assert s.nested_operands(red) == [*body.args, inner_add.results[0]]
        # users and producers, with multiplicity
        assert s.users_of(add.results[0]) == {mul.key: 2}
        assert s.users_of(a) == {add.key: 1} and s.users_of(red.results[0]) == {ret.key: 1}
        assert s.users_of(ret.key) == {}  # not a value id: no users
        assert s.producer[mul.results[0]] == mul.key and a not in s.producer
        assert s.ancestor_in(inner_add.key, s.entry.key) is red
        assert s.ancestor_in(red.key, body_key) is None
        assert s.positions(s.entry) == {e.key: i for i, e in enumerate([add, mul, cst, red, ret])}
        assert len(s.ops) == 7 and len(s.blocks) == 2
        assert len(FunctionSnapshot(g).ops) == 2


def test_kept_current_through_insert_erase_replace_and_operands():
    with make_context(), ir.Location.unknown():
        m, main, g, rw, am = _setup()
        s = am.get(FunctionSnapshot, main)
        assert s in rw.listeners  # a self-updating analysis listens while cached
        entry = main.regions[0].blocks[0]
        add, mul, cst, red, ret = _ops(entry)
        a, b = entry.arguments
        # insert: a subtract before the multiply
        sub = rw.create("stablehlo.subtract", results=[a.type], operands=[a, b], before=mul)
        _same_as_fresh(s, main)
        assert _names(s, s.entry)[:3] == ["stablehlo.add", "stablehlo.subtract", "stablehlo.multiply"]
        assert s.users_of(hash(a)) == {identity_key(add): 1, identity_key(sub): 1}
        # set one operand, then replace every use of the add by the subtract
        rw.set_operand(mul, 1, sub.results[0])
        _same_as_fresh(s, main)
        assert s.ops[identity_key(mul)].operands == (hash(add.results[0]), hash(sub.results[0]))
        rw.replace_all_uses_with(add.results[0], sub.results[0])
        _same_as_fresh(s, main)
        assert s.users_of(hash(sub.results[0])) == {identity_key(mul): 2}
        # erase the now unused add; replace the multiply by its operand (RAUW + erase)
        rw.erase_op(add)
        _same_as_fresh(s, main)
        rw.replace_op(mul, [sub.results[0]])
        _same_as_fresh(s, main)
        assert _names(s, s.entry) == ["stablehlo.subtract", "stablehlo.constant", "stablehlo.reduce", "func.return"]
        assert s.users_of(hash(sub.results[0])) == {identity_key(red): 1}
        # replace_uses_of_with and set_operands (two functions in one batch)
        rw.replace_uses_of_with(red, sub.results[0], a)
        negate = _ops(g.regions[0].blocks[0])[0]
        x = g.regions[0].blocks[0].arguments[0]
        rw.set_operands([(red, 0, b), (negate, 0, x)])
        _same_as_fresh(s, main)
        assert s.ops[identity_key(red)].operands == (hash(b), hash(cst.results[0]))
        assert hash(sub.results[0]) not in s.users
        # the analysis manager kept it all along (no rebuild)
        assert am.get(FunctionSnapshot, main) is s


def test_kept_current_through_moves_and_nested_regions():
    with make_context(), ir.Location.unknown():
        m, main, g, rw, am = _setup()
        s = am.get(FunctionSnapshot, main)
        entry = main.regions[0].blocks[0]
        add, mul, cst, red, ret = _ops(entry)
        body = red.regions[0].blocks[0]
        inner_add, inner_ret = _ops(body)
        # move within the block; a batch move
        rw.move_before(cst, add)
        _same_as_fresh(s, main)
        assert _names(s, s.entry)[:2] == ["stablehlo.constant", "stablehlo.add"]
        rw.move_all_before([add, mul], cst)
        _same_as_fresh(s, main)
        assert _names(s, s.entry) == ["stablehlo.add", "stablehlo.multiply", "stablehlo.constant", "stablehlo.reduce", "func.return"]
        # create inside the nested block, then move it out to the entry block and back
        p, q = body.arguments
        neg = rw.create("stablehlo.maximum", results=[p.type], operands=[p, q], before=inner_add)
        _same_as_fresh(s, main)
        assert _names(s, s.block_of(body)) == ["stablehlo.maximum", "stablehlo.add", "stablehlo.return"]
        assert s.ops[identity_key(neg)].block == hash(body)
        rw.set_operand(inner_ret, 0, neg.results[0])
        rw.erase_op(inner_add)
        _same_as_fresh(s, main)
        # clone the reduce (its region comes along) and erase the original
        clone = rw.clone(red, before=ret)
        _same_as_fresh(s, main)
        clone_max = _ops(clone.regions[0].blocks[0])[0]
        assert len(s.blocks) == 3 and s.ancestor_in(identity_key(clone_max), s.entry.key).key == identity_key(clone)
        rw.replace_op(red, list(clone.results))
        _same_as_fresh(s, main)
        assert len(s.blocks) == 2 and len(s.ops) == 7
        # a move to another function (an op whose operands and users go with it): gone from main's snapshot
        gs = am.get(FunctionSnapshot, g)
        lone = rw.create("stablehlo.constant", results=[cst.results[0].type], attributes={"value": cst.attributes["value"]}, before=ret)
        _same_as_fresh(s, main)
        rw.move_before(lone, _ops(g.regions[0].blocks[0])[0])
        _same_as_fresh(s, main)
        _same_as_fresh(gs, g)
        assert _names(gs, gs.entry) == ["stablehlo.constant", "stablehlo.negate", "func.return"]


def test_block_changes_and_erasing_the_function_drop_it():
    with make_context(), ir.Location.unknown():
        m, main, g, rw, am = _setup()
        s = am.get(FunctionSnapshot, g)
        blk = g.regions[0].blocks[0]
        rw.add_argument(blk, blk.arguments[0].type, ir.Location.unknown())
        assert am.cached(FunctionSnapshot, g) is None and s not in rw.listeners
        s2 = am.get(FunctionSnapshot, g)
        assert s2 is not s and len(s2.entry.args) == 2
        rw.erase_op(g)
        assert am.cached(FunctionSnapshot, main) is None and not am.entries()
        assert s2.erased and s2 not in rw.listeners


def test_a_mutation_behind_the_rewriter_is_a_difference():
    with make_context(), ir.Location.unknown():
        m, main, g, rw, am = _setup()
        s = am.get(FunctionSnapshot, main)
        add, mul = _ops(main.regions[0].blocks[0])[:2]
        mul.operands[1] = main.regions[0].blocks[0].arguments[0]  # not through the rewriter
        diff = s.differences(FunctionSnapshot(main))
        assert [d.split(",")[0] for d in diff] == ["ops differ at 1 key(s)", "users differ at 2 key(s)"]
        mul.move_before(add)  # neither is this: the order is stale too
        s.blocks[s.entry.key]._stale = False
        assert any(d.startswith("blocks differ") for d in FunctionSnapshot(main).differences(s))


def _pipeline(run):
    info = PassInfo("test-snapshot-user", "uses and rewrites through the snapshot", run)
    return Pipeline([Step(info, info.argument)], check_analyses=True)


def test_checking_mode_compares_the_kept_snapshot():
    def good(func_op, ctx):
        s = ctx.get_analysis(FunctionSnapshot, func_op)
        ops = s.ops_in(s.entry)
        if len(ops) > 2:
            ctx.rewriter.move_before(ops[2].op, ops[0].op)

    def bad(func_op, ctx):
        s = ctx.get_analysis(FunctionSnapshot, func_op)
        ops = s.ops_in(s.entry)
        if len(ops) > 2:
            ctx.rewriter.move_before(ops[2].op, ops[0].op)
            ops[0].op.operands[0] = ops[0].op.operands[1]  # behind the rewriter's back: add %b, %b

    with make_context():
        _pipeline(good).run(ir.Module.parse(MODULE))
        with pytest.raises(AnalysisCheckError, match="FunctionSnapshot: ops differ"):
            _pipeline(bad).run(ir.Module.parse(MODULE))


def test_replaced_uses_without_a_users_index():
    # The users index is built on first use; before that, replaced uses are found from the new value's users.
    with make_context(), ir.Location.unknown():
        m, main, g, rw, am = _setup()
        s = am.get(FunctionSnapshot, main)
        add, mul, cst, red, ret = _ops(main.regions[0].blocks[0])
        a, b = main.regions[0].blocks[0].arguments
        sub = rw.create("stablehlo.subtract", results=[a.type], operands=[a, b], before=mul)
        assert s._users is None
        rw.replace_all_uses_except(add.results[0], sub.results[0], [])
        assert s._users is None
        assert s.ops[identity_key(mul)].operands == (hash(sub.results[0]), hash(sub.results[0]))
        _same_as_fresh(s, main)
