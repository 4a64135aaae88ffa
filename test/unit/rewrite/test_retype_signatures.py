"""``may_need_retype`` reads the signatures of the census's signature-only functions (declarations) alone:
a function with a body has its signature's types as value types. The checking mode compares the answer
with reading every signature."""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.legalization.sixty_four_hack import _LIMITS, _Narrower
from hilo_mlir.passmanager.pipeline import Pipeline, Step
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.retype import RetypeCheckError, may_need_retype

BODIES = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = call @f(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""
DECLARATION = BODIES + "func.func private @decl(tensor<2xi64>) -> tensor<2xf32>\n"


def _answer(src: str, monkeypatch, check: bool) -> tuple[bool, int]:
    """(may_need_retype's answer for sixty-four-hack's narrowing, signature types converted) on ``src``."""
    if check:
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    else:
        monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    answers: list[bool] = []
    asked: list[ir.Type] = []
    narrow = _Narrower()

    def convert(t):  # called for each type of each signature read
        asked.append(t)
        return narrow(t)

    def run(module_op, ctx):
        with module_op.context, module_op.location:
            answers.append(may_need_retype(ctx, module_op, convert, _LIMITS.keys()))

    info = PassInfo("test-may-retype", "test", run, dialect="stablehlo", anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(src)
        Pipeline([Step(info, info.argument, {}, anchor="builtin.module")], check_analyses=False).run(m)
    return answers[0], len(asked)


@pytest.mark.no_check_analyses
def test_functions_with_bodies_are_not_read():
    with pytest.MonkeyPatch.context() as mp:
        assert _answer(BODIES, mp, check=False) == (False, 0)


@pytest.mark.no_check_analyses
def test_a_declaration_is_read():
    with pytest.MonkeyPatch.context() as mp:
        assert _answer(DECLARATION, mp, check=False) == (True, 1)  # its first input is i64


def test_checking_mode_reads_every_signature_when_the_answer_is_no():
    with pytest.MonkeyPatch.context() as mp:
        assert _answer(BODIES, mp, check=True) == (False, 4)  # main's and f's input and result


@pytest.mark.parametrize("check", [False, True])
def test_a_census_missing_a_declaration_is_caught_by_the_checking_mode_only(check):
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Census, "signature_only_functions", lambda self: [])
        if not check:  # the fast path trusts the census
            assert _answer(DECLARATION, mp, check=False) == (False, 0)
            return
        with pytest.raises(RetypeCheckError, match="a signature changes that the census's signature-only functions do not show"):
            _answer(DECLARATION, mp, check=True)


COMPLEX = """
func.func @main(%a: tensor<2xcomplex<f32>>, %b: tensor<2xcomplex<f32>>) -> tensor<2xcomplex<f32>> {
  %0 = mhlo.add %a, %b : tensor<2xcomplex<f32>>
  return %0 : tensor<2xcomplex<f32>>
}
"""


@pytest.mark.parametrize("check", [False, True])
def test_widen_float_widens_complex_of_a_narrow_float(monkeypatch, check):
    # complex<f32>'s element string is "complex<f32>": the census question must name it, or the pass is skipped
    from hilo_mlir.passmanager.pipeline import step_for

    if check:
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
    else:
        monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    with make_context():
        m = ir.Module.parse(COMPLEX)
        Pipeline([step_for("widen-float-to-f64")]).run(m)
        text = str(m)
    assert "complex<f32>" not in text
    assert text.count("tensor<2xcomplex<f64>>") == 5  # the signature (2 arguments, 1 result), the add, the return
