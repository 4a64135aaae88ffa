"""The Python API and the registry/pipeline machinery."""

import ast
import collections

import pytest
from conftest import EXAMPLES

import hilo_mlir
from hilo_mlir.driver import compiler
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.pipeline import Pipeline, parse_options, parse_pipeline, steps_from_text
from hilo_mlir.support.diagnostics import HiloError


def _count_printed_ops(module):
    """Non-terminator ops inside main (nested regions included)."""
    n = 0
    main = [
        op for op in module.body.operations if op.operation.name == "func.func" and op.operation.attributes["sym_name"].value == "main"
    ][0]

    def visit(op):
        nonlocal n
        if op.name not in ("func.func", "func.return", "mhlo.return", "stablehlo.return"):
            n += 1
        from hilo_mlir.ir.binding import ir

        return ir.WalkResult.ADVANCE

    main.operation.walk(visit)
    return n


@pytest.mark.parametrize("name", ["decoder_layer.stablehlo.mlir", "decoder_layer.hlo.pb"])
def test_one_statement_per_op(name):
    data = (EXAMPLES / name).read_bytes()
    loaded = compiler.load_module(data, str(EXAMPLES / name))
    src = compiler.compile_loaded(loaded, CompileConfig())
    ast.parse(src)
    with loaded.context:
        n_ops = _count_printed_ops(loaded.module)
    assert n_ops > 50
    assert src.count("xla_op=") == n_ops


def test_compile_twice_in_one_process_is_identical():
    a = hilo_mlir.compile_file(EXAMPLES / "decoder_layer.stablehlo.mlir")
    b = hilo_mlir.compile_file(EXAMPLES / "decoder_layer.stablehlo.mlir")
    assert str(a) == str(b)


def test_compile_module_reports_parse_errors_with_location():
    with pytest.raises(HiloError) as e:
        hilo_mlir.compile_module("func.func @main() {\n  %0 = stablehlo.bogus\n}", filename="x.mlir")
    assert e.value.format().startswith("x.mlir:2:")


def test_pipeline_parser_nesting_and_options():
    els = parse_pipeline("builtin.module(func.func(cse, canonicalize{max-iterations=3 test-convergence=true}),symbol-dce)")
    assert [e.name for e in els] == ["builtin.module"]
    inner = els[0].children
    assert [e.name for e in inner] == ["func.func", "symbol-dce"]
    assert inner[0].children[1].options == "max-iterations=3 test-convergence=true"
    assert parse_options("a=1 b={x y} c='q r' d", "p") == {"a": "1", "b": "{x y}", "c": "'q r'", "d": "true"}


def test_pipeline_errors():
    for bad, msg in [
        ("builtin.module(cse", "expected ')'"),
        ("builtin.module(cse{a=1)", "unterminated '{'"),
        ("builtin.module(nope)", "unknown pass 'nope'"),
    ]:
        with pytest.raises(HiloError, match=msg.replace("(", r"\(").replace(")", r"\)")):
            steps_from_text(bad)


def test_option_typing():
    info = registry.get("mhlo-to-py-penguin")
    assert info.resolve_options({"root": "my.root"})["root"] == "my.root"
    with pytest.raises(HiloError, match="has no option 'nope'"):
        info.resolve_options({"nope": "1"})


def test_python_pass_runs_inside_binding_pass_manager():
    """A registered Python pass added to a binding PassManager next to a C++ pass."""
    from hilo_mlir.ir.binding import ir, make_context, passmanager

    calls = []

    def run(op, ctx):
        calls.append(op.name)
        ctx.stats["visited"] += 1

    info = registry.PassInfo("test-visit", "test", run, anchor="func.func")
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(
            "func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> { %0 = stablehlo.add %x, %x : tensor<2xf32>\n %1 = stablehlo.add %x, %x : tensor<2xf32>\n return %1 : tensor<2xf32> }\n"
            "func.func @b() { return }"
        )
        pm = passmanager.PassManager("builtin.module")
        stats = collections.Counter()
        info.add_to_pass_manager(pm, stats=stats)
        pm.add("canonicalize")
        pm.run(m.operation)
        assert calls == ["func.func", "func.func"]
        assert stats["visited"] == 2
        assert "stablehlo.add" in str(m) and str(m).count("stablehlo.add") == 1


def test_verifier_failure_names_the_pass():
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.passmanager.pipeline import Step

    def breaker(f, ctx):
        ops = list(f.regions[0].blocks[0].operations)
        ctx.rewriter.move_before(ops[-1].operation, ops[0].operation)  # return first: invalid

    info = registry.PassInfo("test-breaker", "breaks IR", breaker)
    with make_context():
        m = ir.Module.parse(
            "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> { %0 = stablehlo.add %x, %x : tensor<2xf32>\n return %0 : tensor<2xf32> }"
        )
        with pytest.raises(HiloError, match="verifier failed after pass 'test-breaker'"):
            Pipeline([Step(info, "test-breaker")]).run(m)


def test_compile_config_presets():
    d = CompileConfig()
    assert d.lower_complex and d.sixty_four_hack and not d.op_fusion
    a = CompileConfig.preset("all")
    assert all(getattr(a, g) for g in CompileConfig.gate_names())
    assert not a.stablehlo
