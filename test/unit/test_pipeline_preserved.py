"""Analysis preservation in the pipeline (issue 7): the verifier is skipped only after
passes that changed nothing, and the op-name census is reused only while nothing changed."""

from __future__ import annotations

import pytest

from hilo_mlir.ir import ir, make_context
from hilo_mlir.pipeline import Pipeline, Step, step_for
from hilo_mlir.registry import PassInfo

TWO_FUNCS = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @other(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.multiply %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

POW = """
func.func @main() -> tensor<4xf32> {
  %c = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.multiply %i, %s : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}
"""


def _func_name(f) -> str:
    return ir.StringAttr(f.attributes["sym_name"]).value


def _run(text: str, steps):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        pipe = Pipeline(steps)
        pipe.run(m)
        return pipe, str(m)


def test_func_anchored_pass_preserved_only_if_every_function_preserved():
    seen = []

    def run(f, ctx):
        seen.append(_func_name(f))
        if _func_name(f) == "main":
            ctx.mark_all_preserved()  # main untouched; @other "changed"

    info = PassInfo("test-half-preserved", "t", run, anchor="func.func", class_name="HalfPreserved")
    pipe, _ = _run(TWO_FUNCS, [Step(info, info.argument, anchor="func.func")])
    assert seen == ["main", "other"]
    assert [name for name, _ in pipe.verify_timings] == ["HalfPreserved (test-half-preserved)"]


def test_func_anchored_pass_preserved_everywhere_skips_verifier():
    info = PassInfo("test-all-preserved", "t", lambda f, ctx: ctx.mark_all_preserved(), anchor="func.func")
    pipe, _ = _run(TWO_FUNCS, [Step(info, info.argument, anchor="func.func")])
    assert pipe.verify_timings == []


def test_census_is_reused_while_preserved_and_retaken_after_a_change():
    answers = []

    def probe(m, ctx):
        answers.append((ctx.module_may_contain("mhlo.multiply"), ctx.module_may_contain("mhlo.power")))
        ctx.mark_all_preserved()

    def rewrite_mul_to_add(m, ctx):
        ops = []
        m.walk(lambda o: (ops.append(o.operation), ir.WalkResult.ADVANCE)[1])
        for o in ops:
            if o.name == "mhlo.multiply":
                with o.context:
                    new = ir.Operation.create("mhlo.add", results=[o.results[0].type], operands=list(o.operands),
                                              loc=o.location, ip=ir.InsertionPoint(o))
                o.results[0].replace_all_uses_with(new.results[0])
                o.erase()

    probe_info = PassInfo("test-probe", "t", probe, anchor="builtin.module")
    rw_info = PassInfo("test-rewrite", "t", rewrite_mul_to_add, anchor="builtin.module")
    steps = [Step(probe_info, "test-probe"), Step(probe_info, "test-probe"), Step(rw_info, "test-rewrite"),
             Step(probe_info, "test-probe")]
    pipe, text = _run(TWO_FUNCS, steps)
    assert "mhlo.multiply" not in text
    assert answers == [(True, False), (True, False), (False, False)]
    assert [name for name, _ in pipe.verify_timings] == ["TestRewrite (test-rewrite)"]


def test_census_invalidated_by_upstream_pass():
    answers = []

    def probe(m, ctx):
        answers.append(ctx.module_may_contain("mhlo.multiply"))
        ctx.mark_all_preserved()

    probe_info = PassInfo("test-probe2", "t", probe, anchor="builtin.module")
    # symbol-dce erases the private function holding the only multiply.
    text = TWO_FUNCS.replace("func.func @other", "func.func private @other")
    steps = [Step(probe_info, "test-probe2"), step_for("symbol-dce"), Step(probe_info, "test-probe2")]
    _run(text, steps)
    assert answers == [True, False]


def test_no_census_outside_a_pipeline_means_may_contain():
    from hilo_mlir.registry import PassContext

    info = PassInfo("test-x", "t", lambda *a: None)
    assert PassContext(info, {}).module_may_contain("mhlo.power") is True


@pytest.mark.parametrize("text,expect_verify", [(TWO_FUNCS.replace("mhlo.", "stablehlo."), False), (POW, True)])
def test_fold_iota_verifies_only_when_it_folded(text, expect_verify):
    pipe, out = _run(text, [step_for("stablehlo-fold-iota")])
    assert [name for name, _ in pipe.verify_timings] == (["StableHLOFoldIota (stablehlo-fold-iota)"] if expect_verify else [])
    assert "stablehlo.power" not in out
    assert ("dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]>" in out) is expect_verify


@pytest.mark.parametrize("argument", [
    "neuron-control-dep-tuple-simplifier", "collective-broadcast-to-all-gather", "canonicalize-conv",
    "remove-optimization-barriers", "coalesce-collective-ops", "neuron-inst-combine", "fold-iota",
    "scatter-motion", "schedule-fusion", "memcast-motion", "prune-functions", "sixty-four-hack",
    "replace-token-type-with-u8", "canonicalize-for-tensorizer", "legalize-alias", "verify-aliasing",
    "mlir-instruction-histogram", "raise-logistic", "schedule-postorder", "hoist-compute",
])
def test_pass_with_nothing_to_do_leaves_ir_and_skips_verifier(argument):
    text = """
    func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
      %0 = mhlo.add %a, %b : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    """
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        before = str(m)
        pipe = Pipeline([step_for(argument)])
        pipe.run(m)
        assert str(m) == before
        assert pipe.verify_timings == []

