"""The recording rewriter and the census it keeps current (hilo_mlir/rewrite/rewriter.py, analysis/census.py).

Every mutation must be recorded with its kind and its function, and after any
sequence of mutations the kept census must equal a fresh walk of the module:
names, counts, per-function lists in walk order (or the same ops where the
census marks a list unordered), and value types.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.utils import block_ops, op_key, top_funcs
from hilo_mlir.rewrite.rewriter import Change, Rewriter

TWO_FUNCS = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %a : tensor<4xf32>
  %2 = stablehlo.add %1, %b : tensor<4xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  %3 = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %4 = stablehlo.subtract %2, %3 : tensor<4xf32>
  return %4 : tensor<4xf32>
}
func.func private @helper(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = stablehlo.add %x, %x : tensor<4xi32>
  return %0 : tensor<4xi32>
}
"""


@pytest.fixture
def module():
    ctx = make_context()
    with ctx, ir.Location.unknown():
        m = ir.Module.parse(TWO_FUNCS)
        yield m


def _setup(m):
    op = m.operation
    rw = Rewriter(op)
    am = AnalysisManager(op, rw)
    census = am.get(Census, op)
    census.types()
    return op, rw, am, census


def _assert_current(census, op):
    assert census.differences(Census(op)) == []


def _main_ops(op):
    return block_ops(top_funcs(op)[0].regions[0].blocks[0])


def test_create_erase_move_keep_the_census_equal_to_a_fresh_walk(module):
    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    ops = _main_ops(op)
    t = ops[0].results[0].type
    new = rw.create("stablehlo.add", results=[t], operands=[ops[0].results[0], ops[0].results[0]], after=ops[0])
    assert census.counts["stablehlo.add"] == 5  # 3 in main (one in the reduce body), 1 in helper, 1 new
    _assert_current(census, op)
    assert [op_key(o) for o in census.ops_named(main, "stablehlo.add")] == [op_key(o) for o in Census(op).ops_named(main, "stablehlo.add")]
    rw.move_before(new, ops[0])
    _assert_current(census, op)
    rw.erase_op(new)
    assert census.counts["stablehlo.add"] == 4
    _assert_current(census, op)
    rw.replace_all_uses_with(ops[3].results[0], ops[0].results[0])  # broadcast's users see the add: RAUW then erase
    changes, tops = rw.take_changes()
    assert changes == Change.CREATE | Change.MOVE | Change.ERASE | Change.OPERAND
    assert set(tops) == {op_key(main)}


def test_erasing_an_op_with_regions_removes_its_body_from_counts_and_types(module):
    op, rw, am, census = _setup(module)
    ops = _main_ops(op)
    reduce_op = ops[4]
    bcast = ops[5]
    rw.replace_all_uses_with(bcast.results[0], ops[2].results[0])
    rw.erase_op(bcast)
    rw.erase_op(reduce_op)
    assert "stablehlo.reduce" not in census.names
    assert census.counts["stablehlo.return"] if "stablehlo.return" in census.counts else True
    _assert_current(census, op)
    # the reduce's block arguments (tensor<f32>) are gone unless another value has that type
    fresh = Census(op)
    assert census.types() == fresh.types()


def test_a_new_function_and_moves_across_functions(module):
    op, rw, am, census = _setup(module)
    body = op.regions[0].blocks[0]
    helper = top_funcs(op)[1]
    ft = ir.FunctionType.get([], [])
    f = rw.create(
        "func.func",
        attributes={
            "sym_name": ir.StringAttr.get("extra"),
            "function_type": ir.TypeAttr.get(ft),
            "sym_visibility": ir.StringAttr.get("private"),
        },
        regions=1,
        at_end=body,
    )
    blk = rw.create_block(f.regions[0], [ir.RankedTensorType.get([4], ir.IntegerType.get_signless(32))])
    ret = rw.create("func.return", operands=[], at_end=blk)
    assert census.counts["func.func"] == 3
    _assert_current(census, op)
    # move helper's add into the new function (before its return): the lists of both functions change
    hops = block_ops(helper.regions[0].blocks[0])
    rw.set_operand(hops[1], 0, helper.regions[0].blocks[0].arguments[0])
    rw.replace_uses_of_with(hops[0], helper.regions[0].blocks[0].arguments[0], blk.arguments[0])
    rw.move_before(hops[0], ret)
    _assert_current(census, op)
    assert [o.name for o in census.ops_named(f, "stablehlo.add")] == ["stablehlo.add"]
    assert census.ops_named(helper, "stablehlo.add") == []
    rw.erase_op(hops[0])
    rw.erase_op(f)
    assert census.counts["func.func"] == 2
    _assert_current(census, op)


def test_types_follow_set_type_and_block_arguments(module):
    op, rw, am, census = _setup(module)
    helper = top_funcs(op)[1]
    blk = helper.regions[0].blocks[0]
    i64 = ir.RankedTensorType.get([4], ir.IntegerType.get_signless(64))
    rw.set_type(blk.arguments[0], i64)
    for o in block_ops(blk)[:1]:
        rw.set_type(o.results[0], i64)
    _assert_current(census, op)
    a = rw.add_argument(blk, i64, ir.Location.unknown())
    _assert_current(census, op)
    rw.erase_argument(blk, a.arg_number)
    _assert_current(census, op)


def test_address_reuse_after_erase_is_resolved(module):
    """An erased op's address is often reused at once by the next op created."""
    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    ops = _main_ops(op)
    t = ops[0].results[0].type
    for _ in range(20):
        x = rw.create("stablehlo.negate", results=[t], operands=[ops[0].results[0]], before=ops[1])
        rw.erase_op(x)
        y = rw.create("stablehlo.abs", results=[t], operands=[ops[0].results[0]], before=ops[1])
        assert [o.name for o in census.ops_named(main, "stablehlo.abs")] == ["stablehlo.abs"]
        assert census.ops_named(main, "stablehlo.negate") == []
        rw.erase_op(y)
    _assert_current(census, op)


def test_analyses_are_dropped_by_kind_and_by_function(module):
    op, rw, am, census = _setup(module)
    main, helper = top_funcs(op)

    class OrderOnly:
        preserved_by = Change.ATTRIBUTE

        def __init__(self, f, am=None):
            self.n = len(block_ops(f.regions[0].blocks[0]))

    a_main = am.get(OrderOnly, main)
    a_helper = am.get(OrderOnly, helper)
    assert am.get(OrderOnly, main) is a_main  # cached
    rw.set_attr(main, "neuron.mark", ir.UnitAttr.get())
    assert am.cached(OrderOnly, main) is a_main  # attribute changes keep it
    ops = _main_ops(op)
    rw.move_after(ops[0], ops[1])
    assert am.cached(OrderOnly, main) is None  # a move in main drops main's
    assert am.cached(OrderOnly, helper) is a_helper  # ... not helper's
    assert am.cached(Census, op) is census  # the census keeps itself
    rw.notify_unknown_change()
    assert am.cached(OrderOnly, helper) is None and am.cached(Census, op) is None


def test_nothing_recorded_for_reads_and_unchanged_attributes(module):
    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    census.ops_named(main, "stablehlo.add")
    assert not rw.remove_attr(main, "no.such.attr")
    rw.set_type(main.regions[0].blocks[0].arguments[0], main.regions[0].blocks[0].arguments[0].type)
    assert rw.take_changes() == (Change.NONE, {})


# --------------------------------------------------------------------------- property: random edit sequences

_EDITS = st.lists(
    st.tuples(
        st.sampled_from(["create", "erase", "move", "move_all", "clone", "retype", "attr"]), st.integers(0, 10_000), st.integers(0, 10_000)
    ),
    min_size=1,
    max_size=25,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_EDITS)
def test_any_edit_sequence_keeps_the_census_current(edits):
    ctx = make_context()
    with ctx, ir.Location.unknown():
        m = ir.Module.parse(TWO_FUNCS)
        op, rw, am, census = _setup(m)
        f32 = ir.RankedTensorType.get([4], ir.F32Type.get())
        f16 = ir.RankedTensorType.get([4], ir.F16Type.get())
        for kind, i, j in edits:
            funcs = top_funcs(op)
            f = funcs[i % len(funcs)]
            blk = f.regions[0].blocks[0]
            ops = block_ops(blk)
            body = ops[:-1]
            if kind == "create":
                anchor = ops[j % len(ops)]
                rw.create(
                    "stablehlo.constant",
                    results=[f32],
                    attributes={"value": ir.DenseElementsAttr.get_splat(f32, ir.FloatAttr.get(ir.F32Type.get(), 1.0))},
                    before=anchor,
                )
            elif kind == "clone" and body:
                src = body[j % len(body)]
                if all(not isinstance(v.owner, ir.Block) for v in src.operands) or len(src.operands) == 0:
                    rw.clone(src, before=ops[-1])
            elif kind == "erase" and body:
                victim = body[j % len(body)]
                if all(len(list(r.uses)) == 0 for r in victim.results):
                    rw.erase_op(victim)
            elif kind == "move" and len(body) >= 2:
                # move an op with no operands from this block (constants) to the block start: always legal
                movable = [o for o in body if len(o.operands) == 0]
                if movable:
                    rw.move_before(movable[j % len(movable)], ops[0])
            elif kind == "move_all" and body:
                # every operand-free op of this block, at once, before the other function's terminator
                movable = [o for o in body if len(o.operands) == 0 and not len(o.regions)]
                other = block_ops(funcs[(i + 1) % len(funcs)].regions[0].blocks[0])
                if movable and j % 2:
                    rw.move_all_before(movable, other[-1])
                elif movable:
                    rw.move_all_before(movable, ops[0])  # the same block
            elif kind == "retype" and body:
                victim = body[j % len(body)]
                if victim.name == "stablehlo.constant" and all(len(list(r.uses)) == 0 for r in victim.results):
                    rw.set_type(victim.results[0], f16 if victim.results[0].type == f32 else f32)
            elif kind == "attr":
                rw.set_attr(f, "neuron.tag", ir.IntegerAttr.get(ir.IntegerType.get_signless(64), j))
            assert census.differences(Census(op)) == []
        for f in top_funcs(op):
            for name in ("stablehlo.constant", "stablehlo.add", "func.return"):
                assert [op_key(o) for o in census.ops_named(f, name)] == [op_key(o) for o in Census(op).ops_named(f, name)]


class _PerFunction:
    """A test analysis of one function, kept by attribute changes only."""

    preserved_by = Change.ATTRIBUTE

    def __init__(self, op, am):
        self.op = op


class _OfModule:
    """A test analysis of the module, kept by nothing."""

    preserved_by = Change.NONE

    def __init__(self, op, am):
        self.op = op


def test_a_change_drops_the_analyses_of_its_function_and_of_the_module_only(module):
    op, rw, am, _census = _setup(module)
    main, helper = top_funcs(op)[:2]
    am.get(_PerFunction, main)
    am.get(_PerFunction, helper)
    am.get(_OfModule, op)
    ops = _main_ops(op)
    rw.set_attr(ops[0], "test.mark", ir.UnitAttr.get())  # kept by attribute changes
    assert am.cached(_PerFunction, main) is not None and am.cached(_PerFunction, helper) is not None
    assert am.cached(_OfModule, op) is None  # the module's analyses see every change
    am.get(_OfModule, op)
    rw.move_before(ops[1], ops[0])  # a move inside main
    assert am.cached(_PerFunction, main) is None
    assert am.cached(_PerFunction, helper) is not None  # another function: kept
    assert am.cached(_OfModule, op) is None
    am.get(_PerFunction, main)
    rw.notify_unknown_change()
    assert am.entries() == []  # an unknown change drops everything, the census included


def test_move_all_before_into_a_new_function_keeps_its_lists_in_walk_order(module):
    # A batch moved into a function that has none of its op kinds: those lists are new and the
    # census claims walk order for them; the op with a region (reduce) brings its body along.
    op, rw, am, census = _setup(module)
    main, helper = top_funcs(op)
    ops = _main_ops(op)
    batch = [ops[3], ops[4]]  # the constant and the reduce that reads it (%2 stays outside)
    dst = block_ops(helper.regions[0].blocks[0])
    rw.take_changes()
    rw.move_all_before(batch, dst[-1])
    _assert_current(census, op)
    assert [o.name for o in census.ops_named(helper, "stablehlo.constant", "stablehlo.reduce")] == [
        "stablehlo.constant",
        "stablehlo.reduce",
    ]
    assert census.ops_named(main, "stablehlo.reduce") == []
    assert [op_key(o) for o in census.ops_named(helper, "stablehlo.add")] == [
        op_key(o) for o in Census(op).ops_named(helper, "stablehlo.add")
    ]
    changes, tops = rw.take_changes()
    assert changes == Change.MOVE and set(tops) == {op_key(main), op_key(helper)}


def test_move_all_before_tells_a_listener_without_the_batch_method_op_by_op(module):
    op, rw, am, census = _setup(module)
    ops = _main_ops(op)
    heard = []

    from hilo_mlir.rewrite.rewriter import Listener

    class PerOp(Listener):
        def notify_moved(self, o, old_top, new_top):
            heard.append((op_key(o), old_top == new_top))

    rw.add_listener(PerOp())
    rw.move_all_before([ops[2], ops[3]], ops[0])
    assert heard == [(op_key(ops[2]), True), (op_key(ops[3]), True)]
    _assert_current(census, op)


def test_set_operands_records_one_operand_change_per_function(module):
    op, rw, am, census = _setup(module)
    main, helper = top_funcs(op)
    ops = _main_ops(op)
    hops = block_ops(helper.regions[0].blocks[0])
    a, b = main.regions[0].blocks[0].arguments
    x = helper.regions[0].blocks[0].arguments[0]
    rw.take_changes()
    rw.set_operands([(ops[0], 0, b), (ops[1], 1, b), (hops[0], 1, x)])
    assert ops[0].operands[0] == b and ops[1].operands[1] == b and hops[0].operands[1] == x
    changes, tops = rw.take_changes()
    assert changes == Change.OPERAND and tops == {op_key(main): Change.OPERAND, op_key(helper): Change.OPERAND}
    rw.set_operands([])
    assert rw.take_changes() == (Change.NONE, {})


def test_a_dropped_analysis_leaves_its_scope_fragile_only_for_the_analyses_still_cached(module):
    # The manager returns at once for a change no cached analysis of the scope is dropped by; after
    # a drop the scope's mask must follow what is left, and a re-built analysis must count again.
    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    ops = _main_ops(op)

    class KeptByAll:
        preserved_by = Change.ATTRIBUTE | Change.MOVE | Change.CREATE

        def __init__(self, f, am=None):
            pass

    keep = am.get(KeptByAll, main)
    frail = am.get(_PerFunction, main)
    rw.move_before(ops[1], ops[0])
    assert am.cached(_PerFunction, main) is None and am.cached(KeptByAll, main) is keep
    rw.move_before(ops[0], ops[1])  # nothing fragile left for a move in main
    assert am.cached(KeptByAll, main) is keep
    assert am.get(_PerFunction, main) is not frail  # built again, and fragile again
    rw.move_before(ops[1], ops[0])
    assert am.cached(_PerFunction, main) is None
    rw.replace_all_uses_with(ops[5].results[0], ops[2].results[0])  # an OPERAND change drops KeptByAll
    assert am.cached(KeptByAll, main) is None and am.cached(Census, op) is census


def test_move_all_before_a_top_level_op_makes_each_op_its_own_top(module):
    # Found in review: before a top-level anchor the batch must not count the moved ops into the anchor's function.
    op, rw, am, census = _setup(module)
    main, helper = top_funcs(op)
    rw.take_changes()
    rw.move_all_before([helper], main)
    _assert_current(census, op)
    assert rw.take_changes() == (Change.MOVE, {op_key(helper): Change.MOVE})
    assert [f.operation.name for f in op.regions[0].blocks[0].operations] == ["func.func", "func.func"]
    assert str(top_funcs(op)[0].attributes["sym_name"]) == '"helper"'


def test_move_all_before_refuses_an_op_given_twice_and_a_listener_protocol_default_hears_each_op(module):
    from hilo_mlir.rewrite.rewriter import Listener

    op, rw, am, census = _setup(module)
    ops = _main_ops(op)
    with pytest.raises(ValueError, match="given twice"):
        rw.move_all_before([ops[2], ops[2]], ops[0])
    heard = []

    class OnlyPerOp(Listener):  # inherits the protocol's empty notify_moved_all
        def notify_moved(self, o, old_top, new_top):
            heard.append(op_key(o))

    rw.add_listener(OnlyPerOp())
    rw.move_all_before([ops[2], ops[3]], ops[0])
    assert heard == [op_key(ops[2]), op_key(ops[3])]
    _assert_current(census, op)


def test_an_op_with_regions_moved_to_another_function_takes_its_nested_ops_along(module):
    # Its nested blocks' cached function must be forgotten: a later change inside them belongs to the new function.
    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    ops = _main_ops(op)
    const, reduce_op, bcast = ops[3], ops[4], ops[5]
    inner = block_ops(reduce_op.regions[0].blocks[0])[0]
    rw.set_attr(inner, "test.before", ir.UnitAttr.get())  # caches the reduce body's block -> main
    f32x4 = ops[2].results[0].type
    ft = ir.FunctionType.get([f32x4], [])
    f = rw.create(
        "func.func",
        attributes={
            "sym_name": ir.StringAttr.get("extra"),
            "function_type": ir.TypeAttr.get(ft),
            "sym_visibility": ir.StringAttr.get("private"),
        },
        regions=1,
        at_end=op.regions[0].blocks[0],
    )
    blk = rw.create_block(f.regions[0], [f32x4])
    ret = rw.create("func.return", operands=[], at_end=blk)
    rw.replace_all_uses_with(bcast.results[0], ops[2].results[0])
    rw.erase_op(bcast)
    for batch in (True, False):  # the batch form, then back and again op by op
        if batch:
            rw.move_all_before([const, reduce_op], ret)
        else:
            rw.move_before(reduce_op, ops[6])
            rw.move_before(const, reduce_op)
            rw.set_operand(reduce_op, 0, ops[2].results[0])
            rw.take_changes()
            rw.set_attr(inner, "test.back", ir.UnitAttr.get())
            assert rw.take_changes() == (Change.ATTRIBUTE, {op_key(main): Change.ATTRIBUTE})
            rw.move_before(const, ret)
            rw.move_before(reduce_op, ret)
        rw.set_operand(reduce_op, 0, blk.arguments[0])
        assert op.verify()
        _assert_current(census, op)
        rw.take_changes()
        rw.set_attr(inner, "test.after", ir.UnitAttr.get())
        assert rw.take_changes() == (Change.ATTRIBUTE, {op_key(f): Change.ATTRIBUTE})


def _new_fusion_block(rw, main_ops):
    """A ``mhlo.fusion``-like op (``stablehlo.composite`` needs a callee: a generic op with one region) before
    the second op of ``main``, and a new block in its region."""
    anchor = main_ops[1]
    holder = rw.create("test.holder", regions=1, before=anchor)
    block = rw.create_block(holder.regions[0], [anchor.operands[0].type], [anchor.location])
    return holder, block


def test_create_block_records_the_new_blocks_function_without_a_walk(module):
    # The ops a fusion codegen then creates in or moves into the new body find their function with one lookup.
    module.context.allow_unregistered_dialects = True
    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    rw.check_block_tops = True  # the checking mode's walk agrees with the recorded answer
    holder, block = _new_fusion_block(rw, _main_ops(op))
    assert rw._block_top[hash(block)] == op_key(main)
    rw.take_changes()
    term = rw.create("test.end", at_end=block)
    assert rw.take_changes() == (Change.CREATE, {op_key(main): Change.CREATE})
    assert rw.top_of(term) == op_key(main)
    _assert_current(census, op)
    # a new block of a top-level op (a decomposition function's entry block) belongs to that op
    with module.context:
        fn = rw.create("test.holder", regions=1, at_end=op.regions[0].blocks[0])
    top_block = rw.create_block(fn.regions[0])
    assert rw._block_top[hash(top_block)] == op_key(fn)


def test_create_block_checking_mode_catches_a_wrong_recorded_function(module, monkeypatch):
    module.context.allow_unregistered_dialects = True
    op, rw, am, census = _setup(module)
    main, helper = top_funcs(op)
    rw.check_block_tops = True
    true_top_of = rw.top_of

    def wrong_top_of(x):  # the owner's function misread as the other function
        return op_key(helper) if x.operation.name == "test.holder" else true_top_of(x)

    monkeypatch.setattr(rw, "top_of", wrong_top_of)
    with pytest.raises(AssertionError, match="create_block: the new block's top-level op is not its owner's"):
        _new_fusion_block(rw, _main_ops(op))


def test_move_each_before_reorders_a_function_in_one_batch(module):
    from hilo_mlir.rewrite.rewriter import Listener

    class Batches(Listener):
        def __init__(self):
            self.calls = []

        def notify_moved_all(self, ops, old_tops, new_top):
            self.calls.append(([o.name for o in ops], old_tops, new_top))

    op, rw, am, census = _setup(module)
    main = top_funcs(op)[0]
    heard = Batches()
    rw.add_listener(heard)
    ops = _main_ops(op)  # add, multiply, add, constant, reduce, broadcast_in_dim, subtract, return
    rw.take_changes()
    # the constant to the front; the broadcast before the subtract (where it is: a move that changes no order)
    rw.move_each_before([(ops[3], ops[0]), (ops[5], ops[6])])
    assert [o.name for o in _main_ops(op)] == [
        "stablehlo.constant",
        "stablehlo.add",
        "stablehlo.multiply",
        "stablehlo.add",
        "stablehlo.reduce",
        "stablehlo.broadcast_in_dim",
        "stablehlo.subtract",
        "func.return",
    ]
    assert heard.calls == [(["stablehlo.constant", "stablehlo.broadcast_in_dim"], [op_key(main)] * 2, op_key(main))]
    assert rw.actions == 1
    assert rw.take_changes() == (Change.MOVE, {op_key(main): Change.MOVE})
    _assert_current(census, op)
    rw.move_each_before([])  # nothing to move: nothing recorded
    assert rw.take_changes() == (Change(0), {})


def test_move_each_before_across_functions_is_move_before_on_each(module):
    op, rw, am, census = _setup(module)
    main, helper = top_funcs(op)
    ops = _main_ops(op)
    hops = block_ops(helper.regions[0].blocks[0])
    rw.take_changes()
    rw.move_each_before([(ops[3], ops[0]), (hops[0], ops[1])])  # the second op leaves @helper
    assert [o.name for o in _main_ops(op)][:4] == ["stablehlo.constant", "stablehlo.add", "stablehlo.add", "stablehlo.multiply"]
    assert rw.actions == 3  # as move_before on each: the second is recorded in both functions
    assert rw.take_changes() == (Change.MOVE, {op_key(main): Change.MOVE, op_key(helper): Change.MOVE})
    _assert_current(census, op)
