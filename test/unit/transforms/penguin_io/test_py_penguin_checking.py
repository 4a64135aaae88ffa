"""The printer pass in the checking mode (``HILO_MLIR_CHECK_ANALYSES=1``): its fast paths and memos against the slow truth.

``mhlo-to-py-penguin`` / ``stablehlo-to-py-penguin`` print a second time with
the checking printer (``print_program(checking=True)``: every op through the
full path, no memo) and fail the pass with an ``AnalysisCheckError`` naming the
first differing line when the two programs differ.
"""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import driver, print_program
from hilo_mlir.testing import run_passes

MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mhlo.add %a, %a : tensor<2xf32>
  %1 = mhlo.add %0, %a : tensor<2xf32>
  %2 = mhlo.multiply %1, %1 : tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""


def _expected(dialect: str, checking: bool) -> str:
    with make_context():
        return print_program(ir.Module.parse(MODULE), dialect, checking=checking)[0]


def test_the_checking_printer_prints_the_same_bytes():
    for dialect in ("mhlo", "stablehlo"):
        assert _expected(dialect, True) == _expected(dialect, False)


@pytest.mark.parametrize("mode", ["1", "0"])
def test_the_pass_agrees_with_the_checking_printer(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", mode)
    out = tmp_path / "penguin.py"
    run_passes(MODULE, f"mhlo-to-py-penguin{{output={out}}}")
    assert out.read_text() == _expected("mhlo", False)


def test_a_wrong_memo_fails_the_pass_in_the_checking_mode(tmp_path, monkeypatch):
    original = driver.PenguinPrinter._statement_tail

    def wrong(self, rec, g):  # a memo bug: the fast path's text differs from the full path's
        tail = original(self, rec, g)
        return None if tail is None else tail.replace("xla_op=", "xla_op_=")

    monkeypatch.setattr(driver.PenguinPrinter, "_statement_tail", wrong)
    out = tmp_path / "penguin.py"
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
    run_passes(MODULE, f"mhlo-to-py-penguin{{output={out}}}")  # unchecked: the wrong text goes out
    assert out.read_text().count("xla_op_='mhlo.add'") == 1  # the second add: the first went through the full path
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(AnalysisCheckError) as e:
        run_passes(MODULE, f"mhlo-to-py-penguin{{output={tmp_path / 'checked.py'}}}")
    line = next(i for i, text in enumerate(out.read_text().split("\n")) if "xla_op_=" in text) + 1
    assert e.value.message == (
        "analysis check failed in pass 'mhlo-to-py-penguin': the printer's fast paths and the checking printer "
        f"differ in penguin.py line {line}"
    )
    assert not (tmp_path / "checked.py").exists()  # nothing half-written


REDUCE = """
func.func @main(%a: tensor<2xf32>, %z: tensor<f32>) -> tensor<f32> {
  %0 = mhlo.add %a, %a : tensor<2xf32>
  %1 = mhlo.reduce(%0 init: %z) applies mhlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  return %1 : tensor<f32>
}
"""


def test_a_wrong_reading_in_the_fast_walk_fails_the_pass_in_the_checking_mode(tmp_path, monkeypatch):
    # the fast walk reads each op as it prints it; a wrong region count there (every op class taken for one
    # that declares no region) prints the reduce without its body: the checking printer reads the block itself
    monkeypatch.setattr(driver.PenguinPrinter, "_class_regions", lambda self, cls: 0)
    out = tmp_path / "penguin.py"
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
    run_passes(REDUCE, f"mhlo-to-py-penguin{{output={out}}}")  # unchecked: the wrong text goes out
    text = out.read_text()
    assert "m1.ReduceOp(" in text and "regions=" not in text
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(AnalysisCheckError) as e:
        run_passes(REDUCE, f"mhlo-to-py-penguin{{output={tmp_path / 'checked.py'}}}")
    line = next(i for i, t in enumerate(text.split("\n")) if "m1.ReduceOp(" in t) + 1
    assert e.value.message == (
        "analysis check failed in pass 'mhlo-to-py-penguin': the printer's fast paths and the checking printer "
        f"differ in penguin.py line {line}"
    )
    assert not (tmp_path / "checked.py").exists()


SOFTMAXES = """
func.func @main(%a: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = mhlo.custom_call @AwsFSPattern5(%a) {backend_config = "{\\"dim\\": 1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":1:1)
  %1 = mhlo.custom_call @AwsFSPattern5(%0) {backend_config = "{\\"dim\\": 1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":2:1)
  return %1 : tensor<2x4xf32>
}
"""


def test_a_wrong_softmax_memo_key_fails_the_pass_in_the_checking_mode(tmp_path, monkeypatch):
    from hilo_mlir.printers import custom_calls

    original = custom_calls._softmax_memo_key

    def wrong(p, rec):  # a key without the location: the second softmax gets the first one's text
        key = original(p, rec)
        return None if key is None else key[:3] + key[4:]

    monkeypatch.setattr(custom_calls, "_softmax_memo_key", wrong)
    out = tmp_path / "penguin.py"
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
    run_passes(SOFTMAXES, f"mhlo-to-py-penguin{{output={out}}}")
    text = out.read_text()
    assert text.count("line=1, col=1") == 2 and "line=2" not in text  # unchecked: the wrong text goes out
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(AnalysisCheckError) as e:
        run_passes(SOFTMAXES, f"mhlo-to-py-penguin{{output={tmp_path / 'checked.py'}}}")
    line = [i for i, t in enumerate(text.split("\n")) if "SoftmaxOp" in t][1] + 1
    assert e.value.message == (
        "analysis check failed in pass 'mhlo-to-py-penguin': the printer's fast paths and the checking printer "
        f"differ in penguin.py line {line}"
    )


DOTS = """
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "mhlo.dot_general"(%a, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("d":1:1)
  %1 = "mhlo.dot_general"(%a, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("d":2:1)
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}
"""


def test_a_wrong_memo_key_in_the_walk_fails_the_pass_in_the_checking_mode(tmp_path, monkeypatch):
    from hilo_mlir.printers import emit

    original = emit.Emitter.operand_key

    def wrong(self, tag, name, srcs, tkeys, lkey, items):  # a key without the location: the second dot gets the first's text
        return original(self, tag, name, srcs, tkeys, 0, items)

    monkeypatch.setattr(emit.Emitter, "operand_key", wrong)
    out = tmp_path / "penguin.py"
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
    run_passes(DOTS, f"mhlo-to-py-penguin{{output={out}}}")
    text = out.read_text()
    assert text.count("line=1, col=1") == 2 and "line=2" not in text  # unchecked: the walk wrote the memo hit
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(AnalysisCheckError) as e:
        run_passes(DOTS, f"mhlo-to-py-penguin{{output={tmp_path / 'checked.py'}}}")
    line = [i for i, t in enumerate(text.split("\n")) if "DotOp" in t][1] + 1
    assert e.value.message == (
        "analysis check failed in pass 'mhlo-to-py-penguin': the printer's fast paths and the checking printer "
        f"differ in penguin.py line {line}"
    )
    assert not (tmp_path / "checked.py").exists()


MX_ON_MHLO = """
func.func @main(%x: tensor<4x64xf32>) -> (tensor<4x64xf32>, tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>) {
  %0 = mhlo.custom_call @AwsFSPattern5(%x) {backend_config = "{\\"dim\\": 1}"} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  %1:2 = mhlo.custom_call @QuantizeMX(%x) {backend_config = "{\\"dtype\\": \\"float8_e5m2\\", \\"dim\\": -1}"} : (tensor<4x64xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>)
  return %0, %1#0, %1#1 : tensor<4x64xf32>, tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>
}
"""


def test_a_wrong_verdict_cache_key_fails_the_pass_in_the_checking_mode(tmp_path, monkeypatch):
    # the verdict of a custom call is cached on its name and attributes; keyed on the name alone, the MHLO
    # printer would take the StableHLO-only QuantizeMX for the softmax before it and print it
    from hilo_mlir.support.diagnostics import HiloError

    monkeypatch.setattr(driver.PenguinPrinter, "_verdict_key", staticmethod(lambda rec: (rec.name,)))
    out = tmp_path / "penguin.py"
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
    run_passes(MX_ON_MHLO, f"mhlo-to-py-penguin{{output={out}}}")
    assert "QuantizeMXTensorOp(" in out.read_text()  # unchecked: the wrong verdict lets it through
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(HiloError, match="custom_call @QuantizeMX is printed on the StableHLO spine only"):
        run_passes(MX_ON_MHLO, f"mhlo-to-py-penguin{{output={tmp_path / 'checked.py'}}}")
    assert not (tmp_path / "checked.py").exists()
    monkeypatch.undo()
    with pytest.raises(HiloError, match="custom_call @QuantizeMX is printed on the StableHLO spine only"):
        run_passes(MX_ON_MHLO, f"mhlo-to-py-penguin{{output={tmp_path / 'right.py'}}}")  # the right key refuses it


TWO_REDUCES = """
func.func @main(%a: tensor<2xf32>, %z: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32> loc("r":1:1)
  %1 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32> loc("r":2:1)
  return %0, %1 : tensor<f32>, tensor<f32>
}
"""


def test_a_wrong_region_statement_key_fails_the_pass_in_the_checking_mode(tmp_path, monkeypatch):
    from hilo_mlir.printers import regions

    original = regions._memo_key

    def wrong(p, rec, hint):  # a key without the location: the second reduce gets the first one's
        key = original(p, rec, hint)
        return None if key is None else key[:2] + key[3:]

    monkeypatch.setattr(regions, "_memo_key", wrong)
    out = tmp_path / "penguin.py"
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "0")
    run_passes(TWO_REDUCES, f"mhlo-to-py-penguin{{output={out}}}")
    text = out.read_text()
    reduces = [t for t in text.split("\n") if "ReduceOp(" in t]
    assert all("line=1, col=1" in t for t in reduces) and len(reduces) == 2  # unchecked: the wrong text goes out
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    with pytest.raises(AnalysisCheckError) as e:
        run_passes(TWO_REDUCES, f"mhlo-to-py-penguin{{output={tmp_path / 'checked.py'}}}")
    line = [i for i, t in enumerate(text.split("\n")) if "ReduceOp(" in t][1] + 1
    assert e.value.message == (
        "analysis check failed in pass 'mhlo-to-py-penguin': the printer's fast paths and the checking printer "
        f"differ in penguin.py line {line}"
    )
    assert not (tmp_path / "checked.py").exists()
