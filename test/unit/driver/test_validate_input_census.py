"""validate-input's census answers (terminators, tuple arguments, signature types) and their checking mode."""

from __future__ import annotations

import pytest

from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.driver.spine import pipeline_steps
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.importing import stages, validation
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.loaded import LoadedModule

GOOD = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func private @helper(%a: tensor<2xi32>) -> tensor<2xi32> {
  return %a : tensor<2xi32>
}
"""

BAD_TERMINATOR = """
func.func @main(%arg0: tensor<2xi32>) -> () {
  %0 = "mhlo.abs"(%arg0) : (tensor<2xi32>) -> tensor<2xi32>
  "mhlo.return"(%0) : (tensor<2xi32>) -> ()
}
"""

TUPLE_ARG = """
func.func @main(%a: tuple<tensor<4xf32>, tensor<2xi32>>) -> tensor<4xf32> {
  %0 = mhlo.get_tuple_element %a[0] : (tuple<tensor<4xf32>, tensor<2xi32>>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""

# a declaration's signature is no value's type: only its signature shows the dynamic shape
DYNAMIC_DECLARATION = """
func.func private @decl(tensor<?xf32>) -> tensor<f32>
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
"""


def _loaded(text: str) -> LoadedModule:
    ctx = make_context()
    with ctx:
        module = ir.Module.parse(text)
    return LoadedModule.from_module(ctx, module, "in.mlir")


def _validate(loaded: LoadedModule, check: bool) -> None:
    with loaded.context:
        census = stages.input_census(loaded)
    validation.validate_input(loaded, pipeline_steps(CompileConfig.preset("all")), census, check=check)


@pytest.mark.parametrize("check", [False, True])
def test_a_valid_module_passes(check):
    _validate(_loaded(GOOD), check)


def test_blocks_ending_in_return_from_the_census():
    loaded = _loaded(GOOD)
    with loaded.context:
        census = stages.input_census(loaded)
        funcs = [op.operation for op in loaded.module.body.operations]
        for f in funcs:
            assert validation._ends_in_return(f, census) == {f.regions[0].blocks[0]}
            assert validation._bad_terminator(f, validation._ends_in_return(f, census)) is None


@pytest.mark.parametrize("check", [False, True])
def test_bad_terminator_is_refused_at_it(check):
    with pytest.raises(HiloError) as e:
        _validate(_loaded(BAD_TERMINATOR), check)
    assert e.value.message == "'mhlo.return' op cannot terminate function @main (expected 'func.return')"
    assert e.value.format("in.mlir") == "in.mlir:4:3: error: 'mhlo.return' op cannot terminate function @main (expected 'func.return')"


@pytest.mark.parametrize("check", [False, True])
def test_tuple_argument_is_refused(check):
    with pytest.raises(HiloError) as e:
        _validate(_loaded(TUPLE_ARG), check)
    assert e.value.message == (
        "'func.func' op entry function @main argument #0 has tuple type tuple<tensor<4xf32>, tensor<2xi32>>: "
        "tuple-typed arguments are not supported (pass the elements as separate arguments)"
    )


@pytest.mark.parametrize("check", [False, True])
def test_a_declarations_signature_is_still_read(check):
    loaded = _loaded(DYNAMIC_DECLARATION)
    with loaded.context:
        census = stages.input_census(loaded)
        assert [validation._func_name(f) for f in census.signature_only_functions()] == ["decl"]
    with pytest.raises(HiloError) as e:
        _validate(loaded, check)
    assert e.value.message.startswith("'func.func' op @decl argument #0 has dynamic shape tensor<?xf32>")


# ---------------------------------------------------------------- a wrong census answer is caught


def test_checking_mode_catches_a_wrong_terminator_answer(monkeypatch):
    # a census that claims every block ends in func.return
    monkeypatch.setattr(validation, "_ends_in_return", lambda f, census: set(f.regions[0].blocks))
    _validate(_loaded(BAD_TERMINATOR), check=False)  # unchecked, the wrong answer lets it through
    with pytest.raises(AssertionError, match="terminator check of @main differs"):
        _validate(_loaded(BAD_TERMINATOR), check=True)


def test_checking_mode_catches_a_wrong_tuple_answer(monkeypatch):
    from hilo_mlir.analysis.census import Census

    monkeypatch.setattr(Census, "any_type", lambda self, pred: False)  # "no value has a tuple type"
    with pytest.raises(AssertionError, match="no tuple type but an argument of @main has one"):
        _validate(_loaded(TUPLE_ARG), check=True)


def test_checking_mode_catches_a_missing_signature(monkeypatch):
    from hilo_mlir.analysis.census import Census

    monkeypatch.setattr(Census, "signature_only_functions", lambda self: [])  # the declaration forgotten
    _validate(_loaded(DYNAMIC_DECLARATION), check=False)  # unchecked, the wrong answer lets it through
    with pytest.raises(AssertionError, match="signature types give another verdict"):
        _validate(_loaded(DYNAMIC_DECLARATION), check=True)
