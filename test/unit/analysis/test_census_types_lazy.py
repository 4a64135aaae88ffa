"""The census's type set taken when asked: the ELEMENTS level skips the results of elementwise kinds (the
verifier holds their element type to their operands'), erasures read nothing and leave a stale superset
whose "yes" answers are read again, and the checking mode compares every level with a full read."""

import pytest

from hilo_mlir.analysis import census as census_mod
from hilo_mlir.analysis.census import ELEMENTS, ELEMENTWISE, FULL, NO_RESULTS, REGION_FREE, Census
from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.analysis.manager import AnalysisManager
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo
from hilo_mlir.rewrite.rewriter import Rewriter

MODULE = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
  %0 = mhlo.add %a, %a : tensor<2xf32>
  %1 = mhlo.multiply %b, %b : tensor<2xi64>
  %2 = mhlo.convert %1 : (tensor<2xi64>) -> tensor<2xf16>
  %3 = mhlo.convert %2 : (tensor<2xf16>) -> tensor<2xf32>
  %4 = mhlo.add %0, %3 : tensor<2xf32>
  return %4 : tensor<2xf32>
}
"""

_BITWISE = {"and", "or", "xor", "not", "shift_left", "shift_right_arithmetic", "shift_right_logical", "popcnt", "count_leading_zeros"}


def _verifies(text: str) -> bool:
    try:
        return bool(ir.Module.parse(text).operation.verify())
    except ir.MLIRError:
        return False


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_the_verifier_holds_an_elementwise_result_to_its_operands_element_type(name):
    # the ELEMENTS level rests on this: a result of another element type than its operand does not verify
    same, other = ("i32", "i16") if name.split(".", 1)[1] in _BITWISE else ("f32", "f16")
    with make_context():
        for arity in (1, 2):
            operands = ", ".join(["%a"] * arity)
            sig = ", ".join([f"tensor<4x{same}>"] * arity)

            def text(res: str) -> str:
                return f'func.func @f(%a: tensor<4x{same}>) -> {res} {{\n  %0 = "{name}"({operands}) : ({sig}) -> {res}\n  return %0 : {res}\n}}'

            if _verifies(text(f"tensor<4x{same}>")):
                assert not _verifies(text(f"tensor<4x{other}>"))
                assert not _verifies(text(f"tensor<4x{other}>".replace("4x", "?x")))
                break
        else:
            pytest.fail(f"{name}: no arity of 1 or 2 verifies")


def test_kind_tables():
    assert NO_RESULTS <= REGION_FREE and ELEMENTWISE <= REGION_FREE
    assert not {"mhlo.abs", "mhlo.select", "mhlo.convert", "mhlo.compare", "mhlo.real", "mhlo.imag"} & ELEMENTWISE
    assert not {"mhlo.reduce", "mhlo.while", "mhlo.if", "func.func", "stablehlo.reduce", "stablehlo.case"} & REGION_FREE


def _reads(monkeypatch):
    """Record the op names each type read of the census reads (``_read_types`` calls)."""
    calls: list[tuple[int, list[str]]] = []
    read = census_mod._read_types

    def spy(lists, level, out, only=None):
        lists = [(n, list(ops)) for n, ops in lists]
        skipped = census_mod._SKIPPED[level]
        calls.append((level, sorted(n for n, _ in lists if n not in skipped and (only is None or n in only))))
        return read(lists, level, out, only)

    monkeypatch.setattr(census_mod, "_read_types", spy)
    return calls


def test_element_question_reads_no_elementwise_result_then_full_adds_only_them(monkeypatch):
    calls = _reads(monkeypatch)
    with make_context():
        m = ir.Module.parse(MODULE)
        c = Census(m.operation)
        assert not c.has_types and c.type_level == 0
        assert c.element_type_strings() == {"f32", "i64", "f16"}
        assert c.type_level == ELEMENTS and c.walks == 2
        assert calls == [(ELEMENTS, ["func.func", "mhlo.convert"])]  # no add, multiply or return read
        assert sorted(str(t) for t in c._frozen_types()) == ["tensor<2xf16>", "tensor<2xf32>", "tensor<2xi64>"]
        assert c.has_element_type("i64") and not c.has_element_type("!mhlo.token", "complex<f32>")
        assert len(calls) == 1  # asked again: nothing read
        assert sorted(str(t) for t in c.types()) == ["tensor<2xf16>", "tensor<2xf32>", "tensor<2xi64>"]
        assert c.type_level == FULL and calls[1] == (FULL, ["mhlo.add", "mhlo.multiply"])
        assert c.differences(Census(m.operation)) == []


def test_erasures_read_nothing_and_a_stale_yes_is_read_again(monkeypatch):
    calls = _reads(monkeypatch)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        op = m.operation
        rw = Rewriter(op)
        am = AnalysisManager(op, rw)
        c = am.census()
        assert c.has_element_type("f16") and len(calls) == 1
        main = m.body.operations[0].operation
        ops = [o.operation for o in main.regions[0].blocks[0].operations]
        add0, mul, cvt1, cvt2, add4, ret = ops
        # %3 = convert(convert(mul)) -> use %0 instead; then the f16/i64 chain is dead
        rw.replace_all_uses_with(cvt2.results[0], add0.results[0])
        for dead in (cvt2, cvt1, mul):
            rw.erase_op(dead)
        assert len(calls) == 1 and c.types_stale  # three erasures, no read
        asked: list[str] = []
        assert not c.any_element_type(lambda e: asked.append(e) or e == "complex<f32>")  # a stale "no" is exact
        assert len(calls) == 1 and sorted(asked) == ["f16", "f32", "i64"]
        assert c.differences(Census(op)) == []  # stale: a superset
        assert not c.has_element_type("f16")  # the stale set said yes: read again, and no value is f16 now
        assert len(calls) == 2 and not c.types_stale
        assert c.element_type_strings() == {"f32", "i64"}  # %b, an argument, is still i64
        assert c.differences(Census(op)) == []
        rw.create("mhlo.convert", results=[ir.RankedTensorType.get([2], ir.BF16Type.get())], operands=[add4.results[0]], before=ret)
        assert c.element_type_strings() == {"f32", "i64", "bf16"} and len(calls) == 2  # the insertion added its type
        assert c.differences(Census(op)) == []
        assert c.any_type(lambda t: str(t) == "tensor<2xbf16>") and c.type_level == FULL


def test_type_changes_and_block_arguments_keep_the_set_a_superset():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(MODULE)
        op = m.operation
        rw = Rewriter(op)
        am = AnalysisManager(op, rw)
        c = am.census()
        c.types()
        main = m.body.operations[0].operation
        block = main.regions[0].blocks[0]
        i32 = ir.RankedTensorType.get([2], ir.IntegerType.get_signless(32))
        rw.add_argument(block, i32, ir.Location.unknown())
        assert "i32" in c.element_type_strings() and not c.types_stale
        rw.erase_argument(block, 2)
        assert c.types_stale and c.differences(Census(op)) == []
        assert not c.has_element_type("i32") and not c.types_stale


def test_checking_mode_catches_an_element_type_the_kept_set_misses():
    def sneak(module_op, ctx):
        assert not ctx.module_has_element_type("i32")  # ELEMENTS level
        main = module_op.regions[0].blocks[0].operations[0].operation
        with module_op.context, ir.Location.unknown():
            main.regions[0].blocks[0].arguments[0].set_type(ir.RankedTensorType.get([2], ir.IntegerType.get_signless(32)))

    info = PassInfo("test-sneak-elements", "retypes behind the rewriter", sneak, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        with pytest.raises(AnalysisCheckError, match="Census: element type strings differ"):
            Pipeline([Step(info, info.argument)], check_analyses=True).run(m)


def test_rewrites_after_an_upstream_pass_keep_the_census_equal_to_a_full_read():
    # under the checking mode every pass's kept census (names, lists, type set) is compared with a fresh one
    def rewrite(module_op, ctx):
        census = ctx.census
        assert not census.has_element_type("!mhlo.token")
        main = module_op.regions[0].blocks[0].operations[0].operation
        (cvt,) = [o for o in ctx.ops_named(main, "mhlo.convert") if str(o.results[0].type) == "tensor<2xf32>"]
        with module_op.context, ir.Location.unknown():
            bf = ir.RankedTensorType.get([2], ir.BF16Type.get())
            narrow = ctx.rewriter.create("mhlo.convert", results=[bf], operands=[cvt.operands[0]], before=cvt, loc=cvt.location)
            wide = ctx.rewriter.create("mhlo.convert", results=[cvt.results[0].type], operands=[narrow.results[0]], before=cvt)
        ctx.rewriter.replace_op(cvt, [wide.results[0]])
        assert census.element_type_strings() == {"f32", "i64", "f16", "bf16"}

    info = PassInfo("test-rewrite-types", "rewrites with the rewriter", rewrite, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        pipe = Pipeline([step_for("canonicalize"), Step(info, info.argument), step_for("canonicalize")], check_analyses=True)
        pipe.run(m)
        assert "bf16" in str(m)


MULTI = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0:2 = mhlo.custom_call @two(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<3xi8>)
  %1 = "mhlo.broadcast_in_dim"(%0#0) {broadcast_dimensions = dense<0> : tensor<1xi64>} : (tensor<2xf32>) -> tensor<2xf32>
  %2 = mhlo.add %1, %a : tensor<2xf32>
  return %2 : tensor<2xf32>
}
"""


def test_single_result_kinds_are_region_free():
    from hilo_mlir.analysis.census import SINGLE_RESULT

    assert ELEMENTWISE <= SINGLE_RESULT <= REGION_FREE
    assert not {"mhlo.custom_call", "stablehlo.custom_call", "func.call", "mhlo.return", "func.return"} & SINGLE_RESULT


def test_single_result_read_equals_the_general_read_and_falls_back_on_another_count(monkeypatch):
    with make_context():
        m = ir.Module.parse(MULTI)
        c = Census(m.operation)
        assert sorted(str(t) for t in c.types()) == ["tensor<2xf32>", "tensor<3xi8>"]
        assert c.differences(Census(m.operation)) == []
        # a kind wrongly listed as single-result: o.result raises, its list is read the general way
        monkeypatch.setattr(census_mod, "SINGLE_RESULT", census_mod.SINGLE_RESULT | {"mhlo.custom_call"})
        c2 = Census(m.operation, with_types=True)
        assert sorted(str(t) for t in c2.types()) == ["tensor<2xf32>", "tensor<3xi8>"]
        ops = c2.ops_named(m.body.operations[0].operation, "mhlo.custom_call")
        assert [str(t) for t in census_mod._single_result_types(ops)] == ["tensor<2xf32>", "tensor<3xi8>"]


def test_checking_mode_catches_a_wrong_single_result_read(monkeypatch):
    monkeypatch.setattr(census_mod, "_single_result_types", lambda ops: [])  # deliberately wrong: reads nothing
    with make_context():
        m = ir.Module.parse(MULTI)
        c = Census(m.operation, with_types=True)
        assert "tensor<2xf32>" in {str(t) for t in c.types()}  # the block argument and the custom call's result
        monkeypatch.undo()
        assert c.differences(Census(m.operation)) == []  # the module's types all held elsewhere: nothing missed
        monkeypatch.setattr(census_mod, "_single_result_types", lambda ops: [ir.IntegerType.get_signless(7) for _ in ops])
        wrong = Census(m.operation, with_types=True)
        monkeypatch.undo()
        assert wrong.differences(Census(m.operation)) == ["value types differ"]


def test_construction_index_equals_the_small_walks():
    with make_context():
        m = ir.Module.parse(MULTI)
        a, b = census_mod._index_all(m.operation), census_mod._index_of(m.operation)
        assert type(a) is dict and list(a) == list(b)
        assert all(len(a[n]) == len(b[n]) and all(x == y for x, y in zip(a[n], b[n])) for n in a)


def test_pipeline_checking_mode_catches_a_wrong_single_result_read(monkeypatch):
    def ask(module_op, ctx):
        assert ctx.value_types()  # the census takes its types: the wrong fast read

    monkeypatch.setattr(census_mod, "_single_result_types", lambda ops: [ir.IntegerType.get_signless(7) for _ in ops])
    info = PassInfo("test-ask-types", "asks for every value type", ask, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MULTI)
        with pytest.raises(AnalysisCheckError, match="Census: value types differ"):
            Pipeline([Step(info, info.argument)], check_analyses=True).run(m)
