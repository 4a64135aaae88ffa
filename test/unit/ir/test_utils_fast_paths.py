"""The O(1) answers of ``hilo_mlir.ir.utils``: ``terminator`` (the binding's insertion point), ``find_main``
(the symbol table), ``num_inputs`` (the entry block); each equal to the scan it replaces, which stays the
fallback (a block without a terminator, no ``@main``)."""

from __future__ import annotations

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.utils import find_main, func_name, func_type, num_inputs, terminator
from hilo_mlir.support.diagnostics import HiloError

SRC = """
func.func private @decl(tensor<2xf32>, tensor<3xi32>, tensor<i1>) -> tensor<2xf32>
func.func private @helper(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.negate %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %b : tensor<2xf32>
  %1 = call @helper(%0) : (tensor<2xf32>) -> tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""


def _funcs(m):
    return {func_name(op.operation): op.operation for op in m.body.operations}


def test_terminator_is_the_last_op():
    with make_context():
        m = ir.Module.parse(SRC)
        for f in (_funcs(m)["helper"], _funcs(m)["main"]):
            ops = [o.operation for o in f.regions[0].blocks[0].operations]
            t = terminator(f.regions[0].blocks[0])
            assert t == ops[-1] and t.name == "func.return"
            assert len(t.operands) == 1


def test_terminator_of_a_block_without_one_is_its_last_op():
    with make_context() as c:
        c.allow_unregistered_dialects = True
        m = ir.Module.parse('"x.first"() : () -> ()\n"x.last"() : () -> ()')
        assert terminator(m.body).name == "x.last"


def test_find_main_is_the_function_not_the_first():
    with make_context():
        m = ir.Module.parse(SRC)
        main = find_main(m.operation)
        assert main.name == "func.func" and func_name(main) == "main" and main == _funcs(m)["main"]


def test_find_main_absent_names_the_functions():
    with make_context():
        m = ir.Module.parse(SRC.replace("@main", "@entry"))
        assert find_main(m.operation, required=False) is None
        with pytest.raises(HiloError, match=r"module has no 'func.func @main' .*functions: @decl, @helper, @entry\)"):
            find_main(m.operation)


def test_find_main_ignores_a_non_function_symbol_named_main():
    with make_context():
        m = ir.Module.parse("module @main {}\nfunc.func @f() { return }")  # the nested module is the symbol @main
        assert find_main(m.operation, required=False) is None


@pytest.mark.parametrize(("name", "n"), [("decl", 3), ("helper", 1), ("main", 2)])
def test_num_inputs_equals_the_signature(name, n):
    with make_context():
        m = ir.Module.parse(SRC)
        f = _funcs(m)[name]
        assert num_inputs(f) == len(func_type(f).inputs) == n


def test_class_declares_no_regions_trusts_generated_classes_only():
    from jaxlib.mlir.dialects import func, stablehlo

    from hilo_mlir.ir.binding import ir as _ir
    from hilo_mlir.ir.utils import class_declares_no_regions

    assert class_declares_no_regions(stablehlo.AddOp) is True
    assert class_declares_no_regions(stablehlo.WhileOp) is False  # two regions
    assert class_declares_no_regions(func.FuncOp) is False  # an extension subclass: its generated base has one region
    assert class_declares_no_regions(func.ReturnOp) is True
    # the plain OpView declares (0, True) for every op of a dialect without classes (shape.assuming has a region)
    assert _ir.OpView._ODS_REGIONS == (0, True)
    assert class_declares_no_regions(_ir.OpView) is False

    class Derived(_ir.OpView):  # a subclass declaring nothing inherits no word
        pass

    assert class_declares_no_regions(Derived) is False
