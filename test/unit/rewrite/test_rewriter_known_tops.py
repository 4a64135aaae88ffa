"""The rewriter told what it would ask: ``Rewriter.create_with_block`` (an op, its one block and its
terminator in one call, one change recorded) and the ``top=`` / ``tops=`` answers a caller gives for the
top-level op of a change (``create``, ``set_operands``, ``move_all_before``, ``replace_all_uses_with``).
The checking mode compares every given answer with the one it finds, and a wrong one raises."""

import pytest
from test_rewriter_move_all_within import MODULE, _ops  # @main (add, multiply, add) and @g (sqrt)

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.rewrite.rewriter import Change, Listener, Rewriter


class _Heard(Listener):
    def __init__(self):
        self.heard = []

    def notify_created(self, op, top):
        self.heard.append(("created", op.name, top))

    def notify_block_arguments(self, types, added):
        self.heard.append(("arguments", [str(t) for t in types], added))

    def notify_change(self, kind, top):
        self.heard.append(("change", kind, top))


def _fn_attrs(name):
    t = ir.RankedTensorType.get([2], ir.F32Type.get())
    return {
        "sym_name": ir.StringAttr.get(name),
        "function_type": ir.TypeAttr.get(ir.FunctionType.get([t, t], [t])),
        "sym_visibility": ir.StringAttr.get("private"),
    }


@pytest.mark.parametrize("checking", [False, True])
def test_create_with_block_is_one_change_with_each_ops_notifications(checking):
    with make_context(), ir.Location.unknown() as loc:
        m = ir.Module.parse(MODULE)
        main, _g = [o.operation for o in m.body.operations]
        add0 = _ops(main)[0]
        rw = Rewriter(m.operation)
        rw.check_erasures = rw.check_block_tops = checking
        am = AnalysisManager(m.operation, rw)
        census = am.census()
        heard = _Heard()
        rw.add_listener(heard)
        t = ir.RankedTensorType.get([2], ir.F32Type.get())
        fn, block, term = rw.create_with_block(
            "func.func",
            arg_types=[t, t],
            arg_locs=[loc, loc],
            terminator="func.return",
            terminator_operands=[add0.result],
            attributes=_fn_attrs("h"),
            loc=loc,
            at_end=m.body,
        )
        kf = identity_key(fn)
        assert heard.heard == [
            ("created", "func.func", kf),
            ("arguments", ["tensor<2xf32>", "tensor<2xf32>"], True),
            ("created", "func.return", kf),
            ("change", Change.CREATE | Change.BLOCK, kf),
        ]
        assert rw.actions == 3  # three mutations, one record
        assert rw.take_changes() == (Change.CREATE | Change.BLOCK, {kf: Change.CREATE | Change.BLOCK})
        assert [o.name for o in _ops(fn)] == ["func.return"] and _ops(fn)[0] == term
        assert len(block.arguments) == 2 and rw.top_of_block(block) == kf
        assert census.names_in(fn) == {"func.func", "func.return"}
        assert census.counts["func.func"] == 3 and census.counts["func.return"] == 3
        assert census.differences(Census(m.operation)) == []


def _checked_setup():
    """MODULE parsed, its functions, their ops, their keys and a Rewriter in the checking mode."""
    m = ir.Module.parse(MODULE)
    main, g = [o.operation for o in m.body.operations]
    rw = Rewriter(m.operation)
    rw.check_erasures = rw.check_block_tops = True
    return m, (main, g), _ops(main), _ops(g), (identity_key(main), identity_key(g)), rw


def test_known_tops_skip_nothing_and_record_where_told():
    with make_context(), ir.Location.unknown() as loc:
        m, (main, g), (add0, mul, add2, _ret), (_sqrt, gret), (km, kg), rw = _checked_setup()  # right answers pass the comparison
        am = AnalysisManager(m.operation, rw)
        census = am.census()
        t = ir.RankedTensorType.get([2], ir.F32Type.get())
        neg = rw.create("stablehlo.negate", results=[t], operands=[add0.result], loc=loc, before=mul, top=km)
        rw.replace_all_uses_with(add0.result, neg.result, km)  # neg's own operand too: fixed below
        rw.set_operands([(neg, 0, main.regions[0].blocks[0].arguments[0])], within=add2, top=km)
        rw.move_all_before([mul], gret, within=add2, tops=(km, kg))
        assert [o.name for o in _ops(g)] == ["stablehlo.sqrt", "stablehlo.multiply", "func.return"]
        changes, tops = rw.take_changes()
        assert changes == Change.CREATE | Change.OPERAND | Change.MOVE
        assert tops == {km: Change.CREATE | Change.OPERAND | Change.MOVE, kg: Change.MOVE}
        assert census.differences(Census(m.operation)) == []


def test_the_checking_mode_catches_a_wrong_known_top():
    with make_context(), ir.Location.unknown() as loc:
        m, (main, g), (add0, mul, add2, _ret), (_sqrt, gret), (km, kg), rw = _checked_setup()
        t = ir.RankedTensorType.get([2], ir.F32Type.get())
        with pytest.raises(AssertionError, match=r"top-level op given for 'stablehlo\.negate'"):
            rw.create("stablehlo.negate", results=[t], operands=[add0.result], loc=loc, before=mul, top=kg)  # wrong: in @main
        with pytest.raises(AssertionError, match="top-level op given"):
            rw.set_operands([(mul, 0, add0.result)], within=add2, top=kg)  # wrong: add2 is in @main
        with pytest.raises(AssertionError, match="top-level op given"):
            rw.move_all_before([add0], gret, within=add2, tops=(km, km))  # wrong: gret is in @g
        with pytest.raises(AssertionError, match="replace_all_uses_with: the top-level op given"):
            rw.replace_all_uses_with(add0.result, mul.result, kg)  # wrong: mul is in @main
        assert [o.name for o in _ops(g)] == ["stablehlo.sqrt", "func.return"]  # the move did not happen


def test_without_the_checking_mode_a_given_top_is_trusted():
    """The fast path asks nothing: a wrong answer is recorded as given (what the checking mode is for)."""
    with make_context(), ir.Location.unknown() as loc:
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        add0, mul, _add2, _ret = _ops(main)
        kg = identity_key(g)
        rw = Rewriter(m.operation)
        rw.check_erasures = rw.check_block_tops = False
        t = ir.RankedTensorType.get([2], ir.F32Type.get())
        rw.create("stablehlo.negate", results=[t], operands=[add0.result], loc=loc, before=mul, top=kg)
        assert rw.take_changes() == (Change.CREATE, {kg: Change.CREATE})


class _Info:
    """A stand-in analysis (kept by nothing: any change drops it)."""

    preserved_by = Change.NONE


@pytest.mark.parametrize("checking", [False, True])
def test_analysis_put_with_a_known_top_level_op(checking):
    with make_context():
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        kg = identity_key(g)
        rw = Rewriter(m.operation)
        am = AnalysisManager(m.operation, rw)
        am.checking = checking
        info = _Info()
        am.put(_Info, g, info, kg)
        assert am.cached(_Info, g) is info and am.cached(_Info, main) is None
        sqrt = _ops(g)[0]
        rw.set_operands([(sqrt, 0, g.regions[0].blocks[0].arguments[0])], within=sqrt)  # a change in @g drops it
        assert am.cached(_Info, g) is None


def test_the_checking_mode_catches_a_wrong_top_given_to_analysis_put():
    with make_context():
        m = ir.Module.parse(MODULE)
        main, g = [o.operation for o in m.body.operations]
        rw = Rewriter(m.operation)
        am = AnalysisManager(m.operation, rw)
        am.checking = True
        with pytest.raises(AssertionError, match=r"the top-level op given is not 'func\.func'"):
            am.put(_Info, g, _Info(), identity_key(main))  # deliberately wrong: g's key is not main's
        assert am.cached(_Info, g) is None and am.cached(_Info, main) is None


@pytest.mark.parametrize("checking", [False, True])
def test_a_pipeline_in_the_checking_mode_checks_the_given_top(checking, monkeypatch):
    """``Pipeline(check_analyses=True)`` turns the rewriter's checks on (not only the variable):
    a pass giving the wrong top-level op for a replacement is stopped; without the checking mode
    the answer is trusted and recorded where the pass said."""
    from hilo_mlir.passmanager.pipeline import Pipeline, Step
    from hilo_mlir.passmanager.registry import PassInfo

    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    recorded = {}

    def wrong(module_op, ctx):
        main, g = [o.operation for o in module_op.regions[0].blocks[0].operations]
        add0, mul = _ops(main)[:2]
        ctx.rewriter.replace_all_uses_with(add0.result, mul.result, identity_key(g))  # mul is in @main
        recorded["where"] = (identity_key(g), ctx.rewriter.take_changes()[1])

    info = PassInfo("test-wrong-top", "gives a wrong top-level op", wrong, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        p = Pipeline([Step(info, info.argument)], check_analyses=checking)
        if checking:
            with pytest.raises(AssertionError, match="replace_all_uses_with: the top-level op given"):
                p.run(m)
            assert recorded == {}
        else:
            p.run(m)
            g_key, by_top = recorded["where"]
            assert by_top == {g_key: Change.OPERAND}
