"""The census's type set: taken in its one walk or when asked after an upstream pass, kept
current by the rewriter, equal to a fresh walk in the checking mode; its rebuild is charged to a
``--mlir-timing`` row; the twin check takes no census of its own after a dialect-preserving upstream step."""

import pytest

from hilo_mlir.analysis.census import ELEMENTS, Census
from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.instrumentation.timing import PassTiming
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo

# canonicalize erases %c and %dead (an i64 chain nothing uses): the type set after it has no i64
MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %c = mhlo.constant dense<1> : tensor<2xi64>
  %dead = mhlo.add %c, %c : tensor<2xi64>
  %0 = mhlo.add %a, %a : tensor<2xf32>
  %1 = mhlo.convert %0 : (tensor<2xf32>) -> tensor<2xf16>
  %2 = mhlo.convert %1 : (tensor<2xf16>) -> tensor<2xf32>
  return %2 : tensor<2xf32>
}
func.func private @decl(tuple<tensor<2xf32>, !mhlo.token>) -> tensor<2xf32>
"""


def _reader(seen):
    """A module pass that records the run's census (and asks nothing that would take the types)."""

    def run(module_op, ctx):
        seen.append(ctx.census)

    return PassInfo("test-read-census", "records the census", run, anchor="builtin.module")


def test_census_takes_names_and_types_in_one_walk():
    with make_context():
        m = ir.Module.parse(MODULE)
        lazy = Census(m.operation)
        assert not lazy.has_types and lazy.walks == 1
        both = Census(m.operation, with_types=True)
        assert both.has_types and both.walks == 1  # the types came with the names
        assert both.element_type_strings() == {"f32", "f16", "i64"}  # a declaration's signature is no value type
        assert lazy.element_type_strings() == both.element_type_strings() and lazy.walks == 2
        assert both.may_hold_type("i64") and not both.may_hold_type("!mhlo.token", "!stablehlo.token")
        assert [str(f.attributes["sym_name"]) for f in both.signature_only_functions()] == ['"decl"']


def test_census_after_an_upstream_pass_takes_its_types_when_asked_and_equals_a_fresh_walk():
    seen: list = []
    info = _reader(seen)
    with make_context():
        m = ir.Module.parse(MODULE)
        pipe = Pipeline([Step(info, info.argument), step_for("canonicalize"), Step(info, info.argument)], check_analyses=True)
        pipe.run(m, census=Census(m.operation))  # handed over without types, as the import step does
        first, second = seen
        assert first is not second  # the upstream step dropped it; the next pass got a rebuilt one
        assert not first.has_types
        assert not second.has_types and second.walks == 1  # rebuilt by the run: the names; types when asked
        assert second.element_type_strings() == {"f32", "f16"}  # canonicalize removed the only i64 value
        assert second.type_level == ELEMENTS and second.walks == 2  # element types: the adds were not read
        assert second.differences(Census(m.operation)) == []


def test_kept_type_set_follows_the_rewriter_and_the_checking_mode_compares_it():
    def widen(module_op, ctx):
        census = ctx.census
        assert census.element_type_strings() == {"f32", "f16", "i64"}
        main = module_op.regions[0].blocks[0].operations[0].operation
        (cst,) = ctx.ops_named(main, "mhlo.constant")
        (dead,) = [o for o in ctx.ops_named(main, "mhlo.add") if o.operands[0] == cst.results[0]]
        ctx.rewriter.erase_op(dead)
        assert census.element_type_strings() == {"f32", "f16", "i64"}  # the constant is still i64
        ctx.rewriter.erase_op(cst)
        assert census.element_type_strings() == {"f32", "f16"}

    info = PassInfo("test-drop-i64", "drops the i64 values", widen, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        pipe = Pipeline([Step(info, info.argument)], check_analyses=True)
        pipe.run(m)  # the checking mode compares the kept type set with a fresh walk after the pass


def test_a_type_set_out_of_step_fails_the_checking_mode():
    def sneak(module_op, ctx):
        ctx.census.types()
        main = module_op.regions[0].blocks[0].operations[0].operation
        with module_op.context, ir.Location.unknown():
            main.regions[0].blocks[0].arguments[0].set_type(ir.RankedTensorType.get([2], ir.IntegerType.get_signless(32)))

    info = PassInfo("test-sneak", "retypes behind the rewriter", sneak, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        with pytest.raises(AnalysisCheckError, match="Census: value types differ"):
            Pipeline([Step(info, info.argument)], check_analyses=True).run(m)


def test_census_rebuild_after_an_upstream_pass_is_inside_a_timing_row(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)  # counts the default mode's census builds
    events: list = []
    built = Census.__init__

    def init(self, *a, **k):
        events.append("census")
        built(self, *a, **k)

    start, stop = PassTiming.run_before_pass, PassTiming.run_after_pass
    monkeypatch.setattr(Census, "__init__", init)
    monkeypatch.setattr(
        PassTiming, "run_before_pass", lambda self, step, op: (events.append("start " + step.argument), start(self, step, op))
    )
    monkeypatch.setattr(PassTiming, "run_after_pass", lambda self, step, op, c: (stop(self, step, op, c), events.append("stop")))
    seen: list = []
    info = _reader(seen)
    with make_context():
        m = ir.Module.parse(MODULE)
        Pipeline(
            [step_for("canonicalize"), Step(info, info.argument), step_for("remove-dead-values"), step_for("verify-supported-ops")]
        ).run(m)
    assert events == [
        "start canonicalize",
        "stop",
        "start test-read-census",
        "census",
        "stop",
        "start remove-dead-values",
        "stop",
        "start verify-supported-ops",
        "census",
        "stop",
    ]


def test_twin_check_takes_no_census_after_a_dialect_preserving_upstream_step(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)  # counts the default mode's census builds
    built: list = []
    init = Census.__init__
    monkeypatch.setattr(Census, "__init__", lambda self, *a, **k: (built.append(1), init(self, *a, **k))[1])
    warnings: list = []
    text = "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = mhlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}"
    with make_context():
        m = ir.Module.parse(text)
        instr = Instrumentation(on_diagnostic=lambda d: warnings.append(d.message))
        steps = [step_for("neuron-inst-combine"), step_for("canonicalize"), step_for("hlo-legalize-to-stablehlo")]
        Pipeline(steps, instrumentation=instr).run(m)
        assert "stablehlo.add" in str(m)
    assert len(built) == 1 and warnings == []  # the one census of the first pass; none before the bridge


def test_twin_check_still_warns_on_a_module_of_the_other_dialect():
    warnings: list = []
    text = (
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = stablehlo.add %a, %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}"
    )
    with make_context():
        m = ir.Module.parse(text)
        instr = Instrumentation(on_diagnostic=lambda d: warnings.append(d.message))
        Pipeline([step_for("canonicalize"), step_for("hlo-legalize-to-stablehlo")], instrumentation=instr).run(m)
    assert warnings == ["pass 'hlo-legalize-to-stablehlo' works on mhlo ops but the module has none (it has stablehlo ops)"]


def test_names_in_a_function_follow_the_rewriter():
    def run(module_op, ctx):
        census = ctx.census
        main, decl = [o.operation for o in module_op.regions[0].blocks[0].operations]
        assert census.names_in(main) == {"func.func", "func.return", "mhlo.constant", "mhlo.add", "mhlo.convert"}
        assert census.names_in(decl) == {"func.func"}
        (cst,) = ctx.ops_named(main, "mhlo.constant")
        (dead,) = [o for o in ctx.ops_named(main, "mhlo.add") if o.operands[0] == cst.results[0]]
        ctx.rewriter.erase_op(dead)
        ctx.rewriter.erase_op(cst)
        assert census.names_in(main) == {"func.func", "func.return", "mhlo.add", "mhlo.convert"}

    info = PassInfo("test-names-in", "reads names per function", run, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        Pipeline([Step(info, info.argument)], check_analyses=True).run(m)
