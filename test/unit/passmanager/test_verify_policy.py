"""Verification policy: the main job verifies once before printing; --verify-each names the pass that broke the IR.

``hilo2penguin`` and ``compile_file``/``compile_module`` run the spine as the
real binary runs its pass manager (no verifier between passes) and verify the
module once before the printer; ``verify_each=True`` / ``--verify-each``
verifies after every pass that changed the IR. ``hilo-opt`` keeps mlir-opt's
default (``--verify-each=true``).
"""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from hilo_mlir.driver import compiler
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.utils import find_main
from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.pipeline import Pipeline, Step
from hilo_mlir.rewrite.rewriter import Change
from hilo_mlir.support.diagnostics import HiloError

pytestmark = pytest.mark.binary_verification


@pytest.fixture(autouse=True)
def _default_mode(monkeypatch):
    """These tests are about the default policy: the checking mode (which verifies after every pass) is off."""
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)


SRC = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.negate %a : tensor<4xf32>
  %1 = stablehlo.exponential %0 : tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def _break_dominance(func_op, ctx):
    """Make the first op use the result of the second: a use before its definition."""
    if func_op.name == "builtin.module":
        func_op = find_main(func_op)
    ops = [o.operation for o in func_op.regions[0].blocks[0].operations]
    if len(ops) >= 3 and len(ops[0].operands) and len(ops[1].results):
        ctx.rewriter.set_operand(ops[0], 0, ops[1].results[0])


BREAKER = registry.PassInfo("test-break-dominance", "test", _break_dominance)


def _noop(func_op, ctx):
    pass


NOOP = registry.PassInfo("test-noop", "test", _noop)


def _steps(*infos):
    return [Step(i, i.argument, {}, anchor=i.anchor) for i in infos]


def _printer_step():
    p = registry.get("stablehlo-to-py-penguin")
    return Step(p, p.argument, p.resolve_options({}), anchor=p.anchor)


def test_verify_each_names_the_pass_that_broke_the_ir():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        pipe = Pipeline(_steps(NOOP, BREAKER, NOOP), verify_each=True)
        with pytest.raises(HiloError) as e:
            pipe.run(m)
    assert "verifier failed after pass 'test-break-dominance'" in e.value.message
    assert e.value.pass_name == "test-break-dominance"


def test_without_verify_each_the_module_is_verified_once_before_printing():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        pipe = Pipeline(_steps(BREAKER, NOOP) + [_printer_step()], verify_each=False)
        with pytest.raises(HiloError) as e:
            pipe.run(m)
    assert "verifier failed on the module before printing" in e.value.message
    assert "rerun with --verify-each" in e.value.message
    assert "test-break-dominance" not in e.value.message  # it cannot know which pass
    assert [label for label, _ in pipe.verify_timings] == ["StableHLOToPyPenguin (stablehlo-to-py-penguin)"]
    assert pipe.outputs.source is None  # the printer never ran on broken IR


def test_without_verify_each_one_verifier_run_for_a_whole_pipeline():
    def touch(func_op, ctx):
        ctx.rewriter.set_attr(func_op, "neuron.touched", ir.UnitAttr.get())

    toucher = registry.PassInfo("test-touch", "test", touch)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        quiet = Pipeline(_steps(toucher, toucher, toucher), verify_each=False)
        quiet.run(m)
        m2 = ir.Module.parse(SRC)
        each = Pipeline(_steps(toucher, toucher, toucher), verify_each=True)
        each.run(m2)
    assert len(quiet.verify_timings) == 1 and quiet.verify_timings[0][0] == "(final)"
    assert len(each.verify_timings) == 3
    assert [c for _, c in each.changes] == [Change.ATTRIBUTE] * 3


def test_a_pass_that_changes_nothing_is_not_verified():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        pipe = Pipeline(_steps(NOOP, NOOP), verify_each=True)
        pipe.run(m)
    assert pipe.verify_timings == []
    assert [c for _, c in pipe.changes] == [Change.NONE, Change.NONE]


def _sneaky_break(func_op, ctx):
    """Break dominance without the rewriter (so nothing is recorded)."""
    ops = [o.operation for o in func_op.regions[0].blocks[0].operations]
    ops[1].move_before(ops[0])


def _touch(func_op, ctx):
    ctx.rewriter.set_attr(func_op, "neuron.touched", ir.UnitAttr.get())


def test_a_verifier_failure_after_silent_passes_says_they_were_not_verified():
    sneaky = registry.PassInfo("test-sneaky", "test", _sneaky_break)
    toucher = registry.PassInfo("test-touch", "test", _touch)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        pipe = Pipeline(_steps(sneaky, toucher), verify_each=True, check_analyses=False)
        with pytest.raises(HiloError) as e:
            pipe.run(m)
    assert "verifier failed after pass 'test-touch'" in e.value.message  # the first pass that recorded a change
    assert any("not verified after (test-sneaky)" in n.message and "HILO_MLIR_CHECK_ANALYSES=1" in n.message for n in e.value.notes)


def test_a_plugin_pass_is_verified_after_even_when_it_recorded_nothing():
    sneaky = dataclasses.replace(registry.PassInfo("test-sneaky", "test", _sneaky_break), origin="test_plugin.py")
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(SRC)
        pipe = Pipeline(_steps(sneaky, NOOP), verify_each=True, check_analyses=False)
        with pytest.raises(HiloError) as e:
            pipe.run(m)
    assert "verifier failed after pass 'test-sneaky'" in e.value.message
    assert not any("not verified after" in n.message for n in e.value.notes)


@pytest.fixture
def broken_spine(monkeypatch):
    """The spine's call-inliner (always on) breaks dominance instead."""
    info = registry.get("call-inliner")
    monkeypatch.setitem(registry._REGISTRY, "call-inliner", dataclasses.replace(info, run=_break_dominance))


def test_compile_default_policy_reports_the_module_and_how_to_find_the_pass(broken_spine):
    with pytest.raises(HiloError) as e:
        compiler.compile_module(SRC, CompileConfig(), spine="stablehlo", filename="m.mlir")
    assert "before printing" in e.value.message and "--verify-each" in e.value.message


def test_compile_verify_each_names_the_pass(broken_spine):
    with pytest.raises(HiloError) as e:
        compiler.compile_module(SRC, CompileConfig(verify_each=True), spine="stablehlo", filename="m.mlir")
    assert "verifier failed after pass 'call-inliner'" in e.value.message


def test_compile_outputs_are_the_same_under_both_policies():
    a = compiler.compile_module(SRC, CompileConfig.preset("all"), spine="mhlo")
    b = compiler.compile_module(SRC, CompileConfig.preset("all").replace(verify_each=True), spine="mhlo")
    assert str(a) == str(b)


def _cli(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True)


def test_cli_verify_each_flag_values(tmp_path):
    src = tmp_path / "m.mlir"
    src.write_text(SRC)
    ok = _cli("hilo_mlir.tools.opt", str(src), "--verify-each=false", "--canonicalize")
    assert ok.returncode == 0, ok.stderr
    ok = _cli("hilo_mlir.tools.opt", str(src), "--verify-each", "--canonicalize")
    assert ok.returncode == 0, ok.stderr
    bad = _cli("hilo_mlir.tools.opt", str(src), "--verify-each=maybe")
    assert bad.returncode == 1 and "not a boolean" in bad.stderr
    out = tmp_path / "out"
    r = _cli("hilo_mlir.tools.hilo2penguin", str(src), "-o", str(out), "--verify-each")
    assert r.returncode == 0, r.stderr
    assert (out / "penguin.py").exists()
