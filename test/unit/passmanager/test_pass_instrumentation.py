"""The executor along MLIR's seams: instruments hear each pass (before / after / after-failed, per op
when they ask), and one ``run_pass`` core runs a Python pass in a Pipeline and in a binding PassManager."""

from __future__ import annotations

import collections

import pytest

from hilo_mlir.ir.binding import ir, make_context, passmanager
from hilo_mlir.passmanager.instrumentation.base import PassInstrumentation
from hilo_mlir.passmanager.pipeline import Pipeline, Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.support.diagnostics import HiloError

SRC = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


class Recorder(PassInstrumentation):
    def __init__(self, per_op: bool = False):
        self.events: list[tuple] = []
        self.per_op = per_op

    def _name(self, op) -> str:
        return op.name if op.name != "func.func" else "@" + op.attributes["sym_name"].value

    def runs_per_op(self, step):
        return self.per_op

    def run_before_pass(self, step, op):
        self.events.append(("before", step.argument))

    def run_before_op(self, step, op):
        self.events.append(("before-op", step.argument, self._name(op)))

    def run_after_op(self, step, op, changed):
        self.events.append(("after-op", step.argument, self._name(op), changed))

    def run_after_pass(self, step, op, changed):
        self.events.append(("after", step.argument, bool(changed)))

    def run_after_pass_failed(self, step, op, error):
        self.events.append(("failed", step.argument, type(error).__name__))

    def run_after_pipeline(self, op):
        self.events.append(("done",))


def _touch_f(f, ctx):
    if f.attributes["sym_name"].value == "f":
        ctx.rewriter.set_attr(f, "touched", ir.UnitAttr.get())


def _fail(f, ctx):
    raise HiloError("no", loc=f.location)


TOUCH = PassInfo("test-touch-f", "test", _touch_f, anchor="func.func")
NOOP = PassInfo("test-noop", "test", lambda op, ctx: None, anchor="builtin.module")
FAIL = PassInfo("test-fail", "test", _fail, anchor="func.func")


def _step(info):
    return Step(info, info.argument, {}, anchor=info.anchor)


def test_instruments_hear_every_pass_in_order():
    rec = Recorder()
    with make_context():
        m = ir.Module.parse(SRC)
        Pipeline([_step(TOUCH), _step(NOOP)], instruments=[rec]).run(m)
    assert rec.events == [
        ("before", "test-touch-f"),
        ("before-op", "test-touch-f", "builtin.module"),
        ("after-op", "test-touch-f", "builtin.module", True),
        ("after", "test-touch-f", True),
        ("before", "test-noop"),
        ("before-op", "test-noop", "builtin.module"),
        ("after-op", "test-noop", "builtin.module", False),
        ("after", "test-noop", False),
        ("done",),
    ]


def test_an_instrument_that_asks_runs_a_function_pass_function_by_function():
    rec = Recorder(per_op=True)
    with make_context():
        m = ir.Module.parse(SRC)
        Pipeline([_step(TOUCH)], instruments=[rec]).run(m)
    assert rec.events[1:5] == [
        ("before-op", "test-touch-f", "@f"),
        ("after-op", "test-touch-f", "@f", True),  # the change was inside @f
        ("before-op", "test-touch-f", "@g"),
        ("after-op", "test-touch-f", "@g", False),
    ]


def test_a_failing_pass_is_heard_once_with_its_error_and_no_after():
    rec = Recorder()
    with make_context():
        m = ir.Module.parse(SRC)
        pipe = Pipeline([_step(NOOP), _step(FAIL), _step(NOOP)], instruments=[rec])
        with pytest.raises(HiloError) as e:
            pipe.run(m)
    assert e.value.pass_name == "test-fail"
    assert rec.events[-2:] == [("before-op", "test-fail", "builtin.module"), ("failed", "test-fail", "HiloError")]
    assert ("done",) not in rec.events
    assert pipe.last_pass == "test-fail"


def test_timing_and_statistics_are_instruments_of_every_run():
    stat = PassInfo("test-stat", "test", lambda f, ctx: ctx.stats.update(visited=1), anchor="func.func", statistics=("visited",))
    with make_context():
        m = ir.Module.parse(SRC)
        pipe = Pipeline([_step(stat), _step(NOOP)])
        pipe.run(m)
    assert [name for name, _ in pipe.timings] == ["TestStat (test-stat)", "TestNoop (test-noop)"]
    assert dict(pipe.stats["TestStat"]) == {"visited": 2}


def test_add_to_pass_manager_runs_the_same_core():
    stat = PassInfo("test-stat2", "test", lambda f, ctx: (ctx.stats.update(visited=1), _touch_f(f, ctx)), statistics=("visited",))
    with make_context():
        m = ir.Module.parse(SRC)
        pm = passmanager.PassManager("builtin.module")
        stats = collections.Counter()
        stat.add_to_pass_manager(pm, stats=stats)
        pm.run(m.operation)
        assert stats["visited"] == 2
        assert str(m).count("touched") == 1


def test_a_pass_reads_typed_options():
    import dataclasses
    import typing

    from hilo_mlir.passmanager.pass_context import options_type
    from hilo_mlir.passmanager.registry import get
    from hilo_mlir.passmanager.steps import step_for

    info = get("neuron-op-fusion")
    cls = options_type(info)
    assert cls.__name__ == "NeuronOpFusionOptions" and dataclasses.is_dataclass(cls)
    assert cls is info.options_type  # declared beside the pass (hilo_mlir.passmanager.options)
    assert typing.get_type_hints(cls)["fuse_dot_logistic"] is bool
    assert {f.name: f.default for f in dataclasses.fields(cls)}["fuse_dot_logistic"] is False
    seen = {}

    def run(op, ctx):
        seen["options"] = ctx.options

    probe = PassInfo("test-options", "test", run, anchor="builtin.module", options=info.options)
    step = step_for("neuron-op-fusion", fuse_dot_logistic=True)
    with make_context():
        Pipeline([Step(probe, probe.argument, step.options, anchor="builtin.module")]).run(ir.Module.parse(SRC))
    opts = seen["options"]
    assert type(opts).__name__ == "TestOptionsOptions" and opts.fuse_dot_logistic is True and opts.general_elementwise_fusion is False
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.fuse_dot_logistic = False


def test_passes_without_options_share_one_empty_options_class():
    import dataclasses

    from hilo_mlir.passmanager.pass_context import NoOptions, options_of, options_type
    from hilo_mlir.passmanager.registry import get

    a, b = get("call-inliner"), get("neuron-control-dep-tuple-simplifier")
    assert a.options == () or not a.options
    assert options_type(a) is NoOptions and options_type(b) is NoOptions
    assert dataclasses.fields(NoOptions) == ()
    assert isinstance(options_of(a, {}), NoOptions)
    # a value the pass did not declare (hand-built steps) still reads as an attribute
    assert options_of(a, {"extra-flag": 3}).extra_flag == 3
