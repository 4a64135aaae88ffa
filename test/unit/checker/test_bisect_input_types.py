"""hilo-check's bisection with input types: its prefixes are the compile's pipeline, ``refine-shapes`` included,
and its ``--max-pass-index`` numbers are the ones ``--dump-pass-pipeline`` lists."""

from hilo_mlir.checker.bisect import _Prober
from hilo_mlir.checker.core import Subject
from hilo_mlir.driver.config import CompileConfig

DYNAMIC = """
func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = stablehlo.add %a, %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def _prober(input_types):
    return _Prober(Subject(DYNAMIC, "d.mlir", "", [], input_types), CompileConfig(), None, None, None, [0])


def test_the_prefixes_start_with_the_refinement():
    p = _prober(["tensor<4xf32>"])
    assert [s.text(full=True) for s in p.head] == ["refine-shapes{input-types=tensor<4xf32>}", "hilo-import"]
    assert p.base == 1 and p.cfg.input_types == "tensor<4xf32>"
    assert p.steps[0].argument == "call-inliner"  # spine prefix 1: --max-pass-index 2
    text, spent = p.prefix(0)  # refine-shapes and hilo-import only
    assert "func.func @main(%arg0: tensor<4xf32> loc(" in text and ") -> tensor<4xf32> {" in text
    assert "mhlo.add" in text and "?" not in text and spent == []


def test_without_input_types_the_import_step_is_index_0():
    p = _prober(None)
    assert [s.argument for s in p.head] == ["hilo-import"] and p.base == 0 and p.cfg == CompileConfig()
