"""The IR printing flags are held to the binding's own MLIR IR printer, byte for byte.

The binding's ``PassManager.enable_ir_printing`` is MLIR's
``IRPrinterInstrumentation`` (what ``mlir-opt --mlir-print-ir-*`` uses); for
upstream passes our dumps must be exactly its text. Python passes follow the
same format, with "changed" taken from what their rewriter recorded.
"""

from __future__ import annotations

import io

import pytest

from hilo_mlir.ir.binding import ir, make_context, passmanager
from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.pipeline import Pipeline, steps_from_text

MODULE = """
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.add %a, %a : tensor<4xf32>
  %2 = stablehlo.multiply %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %0 = stablehlo.add %a, %c : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

PIPELINE = "builtin.module(func.func(cse),canonicalize)"


def _binding_dump(capfd, **flags) -> str:
    with make_context() as ctx:
        ctx.enable_multithreading(False)
        m = ir.Module.parse(MODULE)
        pm = passmanager.PassManager.parse(PIPELINE)
        pm.enable_ir_printing(**flags)
        capfd.readouterr()
        pm.run(m.operation)
        return capfd.readouterr().err


def _our_dump(**flags) -> str:
    buf = io.StringIO()
    with make_context():
        m = ir.Module.parse(MODULE)
        Pipeline(steps_from_text(PIPELINE), instrumentation=Instrumentation(out=buf, **flags)).run(m)
    return buf.getvalue()


@pytest.mark.parametrize("scope", [False, True], ids=["op-scope", "module-scope"])
def test_before_and_after_all_equal_the_binding(capfd, scope):
    want = _binding_dump(capfd, print_before_all=True, print_after_all=True, print_module_scope=scope)
    got = _our_dump(print_before_all=True, print_after_all=True, print_module_scope=scope)
    assert "IR Dump Before CSEPass: cse" in want
    assert got == want


def test_after_change_equals_the_binding(capfd):
    want = _binding_dump(capfd, print_after_all=True, print_after_change=True)
    got = _our_dump(print_after_all=True, print_after_change=True)
    assert got.count("IR Dump After CSEPass") == 1  # @g had nothing to CSE
    assert got == want


def test_elided_elements_equal_the_binding(capfd):
    want = _binding_dump(capfd, print_after_all=True, large_elements_limit=2)
    got = _our_dump(print_after_all=True, elide_elements_if_larger=2)
    assert "dense_resource<__elided__>" in got
    assert got == want


def test_selected_passes_only():
    got = _our_dump(print_before=("canonicalize",), print_after=("cse",))
    headers = [ln for ln in got.splitlines() if ln.startswith("// -----//")]
    assert [h.split(":")[0] for h in headers] == ["// -----// IR Dump After CSEPass"] * 2 + ["// -----// IR Dump Before CanonicalizerPass"]


def _python_dump(pipeline: str, text: str, **flags) -> str:
    buf = io.StringIO()
    with make_context():
        m = ir.Module.parse(text)
        Pipeline(steps_from_text(pipeline), instrumentation=Instrumentation(out=buf, **flags)).run(m)
    return buf.getvalue()


def test_python_pass_after_change_comes_from_the_rewriter():
    # fold-iota records nothing on a module without its pattern: no "After" dump.
    got = _python_dump("builtin.module(stablehlo-legalize-to-hlo,fold-iota)", MODULE, print_after_all=True, print_after_change=True)
    assert "After StablehloLegalizeToHloPass" in got and "After FoldIota" not in got
    got = _python_dump("builtin.module(stablehlo-legalize-to-hlo,fold-iota)", MODULE, print_after_all=True)
    assert got.count("IR Dump After FoldIota: fold-iota{max-elements=1048576} //----- //\nfunc.func @") == 2


def test_after_failure_prints_only_the_failed_pass():
    text = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @loop(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = func.call @loop(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}"""
    buf = io.StringIO()
    from hilo_mlir.support.diagnostics import HiloError

    with make_context():
        m = ir.Module.parse(text)
        with pytest.raises(HiloError, match="recursive"):
            Pipeline(
                steps_from_text("builtin.module(func.func(cse),call-inliner)"),
                instrumentation=Instrumentation(out=buf, print_after_failure=True),
            ).run(m)
    headers = [ln for ln in buf.getvalue().splitlines() if ln.startswith("// -----//")]
    assert headers == ["// -----// IR Dump After CallInliner Failed: call-inliner //----- //"]
