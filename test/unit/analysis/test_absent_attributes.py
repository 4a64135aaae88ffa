"""AbsentAttributes: which watched discardable attributes no op holds, from the input census, kept by the
rewriter; identify-cross-pass-tensors reads no attribute when the stamp is absent, and the checking mode
catches a wrong "absent"."""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.absent_attributes import CROSS_PASS_TENSOR, WATCHED, AbsentAttributes
from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.importing.sharding import SHARDING_ATTRS
from hilo_mlir.passmanager.pipeline import Pipeline, step_for
from hilo_mlir.rewrite.rewriter import Rewriter

PLAIN = """
func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  %1 = stablehlo.multiply %0, %b {mhlo.sharding = "{replicated}"} : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""
STAMPED = PLAIN.replace("stablehlo.add %a, %b :", "stablehlo.add %a, %b {neuron.CrossPassTensor = array<i64: 0>} :")


def _ops(m: ir.Module) -> list[ir.Operation]:
    return [o.operation for o in m.body.operations[0].regions[0].blocks[0].operations]


def test_the_census_says_which_watched_names_no_op_holds():
    with make_context():
        for text, absent in ((PLAIN, {CROSS_PASS_TENSOR}), (STAMPED, set())):
            m = ir.Module.parse(text)
            c = Census(m.operation, attr_names=SHARDING_ATTRS + WATCHED)
            assert c.absent_attributes(WATCHED) == absent
            assert c.absent_attributes(("mhlo.sharding", "sdy.sharding")) == {"sdy.sharding"}
            with pytest.raises(ValueError, match="not looked for"):
                c.absent_attributes(("neuron.other",))


def test_setting_creating_or_inserting_the_name_makes_it_present():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(PLAIN)
        add, mul, ret = _ops(m)
        rw = Rewriter(m.operation)
        watch = AbsentAttributes([CROSS_PASS_TENSOR, "neuron.other"])
        rw.add_listener(watch)
        unit = ir.UnitAttr.get()
        rw.set_attr(add, "neuron.unrelated", unit)
        rw.create(
            "stablehlo.constant",
            results=[ir.RankedTensorType.get([], ir.F32Type.get())],
            attributes={"value": ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], ir.F32Type.get()), ir.FloatAttr.get_f32(1.0))},
            before=ret,
        )
        assert watch.names == {CROSS_PASS_TENSOR, "neuron.other"}
        rw.set_attr(mul, CROSS_PASS_TENSOR, ir.DenseI64ArrayAttr.get([0]))
        assert not watch.absent(CROSS_PASS_TENSOR) and watch.absent("neuron.other")
        rw.create(
            "stablehlo.constant",
            results=[ir.RankedTensorType.get([], ir.F32Type.get())],
            attributes={
                "value": ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], ir.F32Type.get()), ir.FloatAttr.get_f32(1.0)),
                "neuron.other": unit,
            },
            before=ret,
        )
        assert watch.names == set()


def test_an_op_inserted_from_elsewhere_is_read_nested_ops_included():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(PLAIN)
        rw = Rewriter(m.operation)
        watch = AbsentAttributes([CROSS_PASS_TENSOR])
        rw.add_listener(watch)
        other = ir.Module.parse(STAMPED)
        rw.clone(_ops(other)[1], before=_ops(m)[2])  # the multiply: no stamp
        assert watch.absent(CROSS_PASS_TENSOR)
        func = other.body.operations[0].operation
        rw.clone(func, before=m.body.operations[0].operation)  # a function whose add holds the stamp
        assert not watch.absent(CROSS_PASS_TENSOR)


def test_an_unknown_change_forgets_every_name_and_invalidate_all_keeps_them():
    with make_context():
        m = ir.Module.parse(PLAIN)
        rw = Rewriter(m.operation)
        am = AnalysisManager(m.operation, rw)
        assert not am.take_attribute_absent(CROSS_PASS_TENSOR)  # nothing known
        am.track_absent_attributes([CROSS_PASS_TENSOR])
        am.invalidate_all()  # an upstream pass: it makes no such name
        rw.notify_unknown_change()  # a change the rewriter did not see: anything may hold it
        assert not am.take_attribute_absent(CROSS_PASS_TENSOR)


def test_taking_the_answer_ends_the_tracking():
    with make_context():
        m = ir.Module.parse(PLAIN)
        rw = Rewriter(m.operation)
        am = AnalysisManager(m.operation, rw)
        am.track_absent_attributes([])
        assert len(rw.listeners) == 1  # no name: no listener
        am.track_absent_attributes([CROSS_PASS_TENSOR, "neuron.other"])
        am.invalidate_all()
        assert am.take_attribute_absent(CROSS_PASS_TENSOR)
        assert not am.take_attribute_absent(CROSS_PASS_TENSOR)  # taken: no longer tracked
        assert len(rw.listeners) == 2
        assert am.take_attribute_absent("neuron.other")
        assert len(rw.listeners) == 1  # the last name taken: the listener left the rewriter


def _import_and_identify(text: str, check: bool) -> str:
    """The module after ``hilo-import`` and ``identify-cross-pass-tensors``, printed."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        Pipeline([step_for("hilo-import"), step_for("identify-cross-pass-tensors")], check_analyses=check).run(m)
        return str(m)


def test_after_the_import_the_stamp_is_known_absent_and_nothing_is_read(monkeypatch):
    def no_read(self, top):
        raise AssertionError("identify-cross-pass-tensors read the census's op lists")

    monkeypatch.setattr(Census, "names_in", no_read)
    text = _import_and_identify(PLAIN, check=False)
    assert CROSS_PASS_TENSOR not in text


def test_a_stamped_input_is_read_and_its_stale_stamp_removed():
    text = _import_and_identify(STAMPED, check=True)
    assert CROSS_PASS_TENSOR not in text  # no fusion, call or composite: nothing crosses, the old stamp goes


def test_a_wrong_absent_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.setattr(AnalysisManager, "take_attribute_absent", lambda self, name: True)
    with pytest.raises(Exception, match="stale stamps"):  # the pipeline names the pass around the AssertionError
        _import_and_identify(STAMPED, check=True)
    text = _import_and_identify(STAMPED, check=False)  # without it the wrong answer goes unnoticed
    assert CROSS_PASS_TENSOR in text


def test_a_name_is_tracked_only_when_a_later_step_reads_it(monkeypatch):
    tracked: list[set[str]] = []
    real = AnalysisManager.track_absent_attributes

    def spy(self, names):
        names = set(names)
        tracked.append(names)
        real(self, names)

    monkeypatch.setattr(AnalysisManager, "track_absent_attributes", spy)
    with make_context(), ir.Location.unknown():
        Pipeline([step_for("hilo-import")]).run(ir.Module.parse(PLAIN))
        Pipeline([step_for("hilo-import"), step_for("identify-cross-pass-tensors")]).run(ir.Module.parse(PLAIN))
    assert tracked == [set(), {CROSS_PASS_TENSOR}]


def _stamp_behind_the_rewriters_back(op, ctx):
    """A plugin pass that sets the stamp through the binding (not the rewriter), recording nothing."""
    first = op.regions[0].blocks[0].operations[0].operation
    first.attributes[CROSS_PASS_TENSOR] = ir.DenseI64ArrayAttr.get([0])


@pytest.mark.parametrize("origin, forgotten", [("plug.py", True), ("", False)])
def test_a_plugin_pass_ends_the_tracking(origin, forgotten):
    # a plugin may change the IR without the rewriter: after it, the stamp is no longer known absent and
    # identify-cross-pass-tensors reads the op lists (and removes the stamp as stale); a built-in pass is trusted
    from hilo_mlir.passmanager.registry import PassInfo
    from hilo_mlir.passmanager.steps import Step

    info = PassInfo("test-stamp", "test", _stamp_behind_the_rewriters_back, anchor="func.func", origin=origin)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(PLAIN)
        steps = [step_for("hilo-import"), Step(info, "test-stamp"), step_for("identify-cross-pass-tensors")]
        Pipeline(steps, check_analyses=False).run(m)  # the checking mode would refuse the unrecorded change itself
        text = str(m)
    assert (CROSS_PASS_TENSOR not in text) is forgotten
