"""Bad input (issue 6): correct output or one clear error with a location, exit 1, no traceback.

The inputs live in test/lit/reliability/Inputs/ (the lit test bad-input.mlir
runs the same files through the ``hilo2penguin`` binary).
"""

import ast
import os
import re
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.driver import compiler
from hilo_mlir.driver import spine as spine_mod
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.passes.importing import sharding, stages
from hilo_mlir.passes.importing.sharding import PARTITION_RECIPE
from hilo_mlir.passmanager import registry
from hilo_mlir.support.diagnostics import HiloError

INPUTS = ROOT / "test" / "lit" / "reliability" / "Inputs"
SPINES = ("mhlo", "stablehlo")


def _path(name):
    return str(INPUTS / name)


def _error(name, config=None, spine="mhlo"):
    with pytest.raises(HiloError) as e:
        compiler.compile_file(_path(name), config, spine=spine)
    text = e.value.format(_path(name))
    assert "\n" not in text
    return text


# (file, expected error line after the path; {p} is the input path)
REJECTED = [
    ("syntax-error.mlir", "{p}:2:24: error: expected ','"),
    (
        "unknown-dialect.mlir",
        "{p}:2:17: error: operation being parsed with an unregistered dialect (use --allow-unregistered-dialect to accept unknown dialects)",
    ),
    ("no-main.mlir", "{p}:1:1: error: no 'main' function: the entry function must be named 'main' (found public function @forward)"),
    (
        "two-entries.mlir",
        "{p}:1:1: error: no 'main' and 2 candidate entry functions: @forward ({p}:1:1), @backward ({p}:4:1); name the entry function 'main'",
    ),
    (
        "dynamic-arg.mlir",
        "{p}:1:1: error: 'func.func' op @main argument #0 has dynamic shape tensor<?x4xf32>: dynamic shapes are not supported (every dimension must be static)"
        "; for a shape-polymorphic module give the static input types, {types}='tensor<?x4xf32>' with every ? replaced by its size",
    ),
    (
        "dynamic-shape.mlir",
        "{p}:3:8: error: 'stablehlo.convert' op result #0 has dynamic shape tensor<?xf32>: dynamic shapes are not supported (every dimension must be static)",
    ),
    (
        "tuple-arg.mlir",
        "{p}:1:1: error: 'func.func' op entry function @main argument #0 has tuple type tuple<tensor<4xf32>, tensor<2xi32>>: tuple-typed arguments are not supported (pass the elements as separate arguments)",
    ),
    ("bad-terminator.mlir", "{p}:3:3: error: 'mhlo.return' op cannot terminate function @main (expected 'func.return')"),
    (
        "memref-arg.mlir",
        "{p}:1:1: error: 'func.func' op @main argument #1 has buffer type memref<2xf32>: memref types are not supported (tensors only)",
    ),
    ("quantized.mlir", "{p}:2:75: error: quantized types are not supported (found !quant.uniform<i8:f32, 0.5>)"),
    (
        "sdy-constraint.mlir",
        "{p}:4:10: error: 'sdy.sharding_constraint' op: Shardy ops are not supported: this is the global program of a sharded "
        "computation, not partitioned into a per-device one; " + PARTITION_RECIPE,
    ),
    ("custom-call-unknown.mlir", "{p}:2:8: error: unsupported custom_call target 'my_runtime_hook'"),
    ("composite-missing.mlir", "{p}:2:8: error: 'neuron.Elementwise.impl' does not reference a valid function"),
    ("not-utf8.mlir", "{p}:2:9: error: input is not valid UTF-8: byte 0xe9 at offset 28"),
    ("empty.mlir", "{p}: error: input file '{p}' is empty"),
    (
        "not-a-proto.pb",
        "{p}: error: NCC_DRV001: the input is not a serialized XLA HloModuleProto (a '.pb' file is read as one): its bytes do not "
        "parse as that message",
    ),
    # hostile sizes: refused before anything allocates by them
    (
        "conv-dim-numbers-huge.mlir",
        "{p}:2:65: error: dimension 2147483648 in a convolution's dim_numbers is out of range: the layout [b, 0, 2147483648, f] has 4 dimensions",
    ),
    (
        "shape-overflow.mlir",
        "{p}:1:1: error: 'func.func' op @main argument #0 has shape tensor<4294967296x4294967296x4xf32>, whose element count or size in bytes overflows a 64-bit integer",
    ),
]


@pytest.mark.parametrize("name, expected", REJECTED, ids=[r[0] for r in REJECTED])
@pytest.mark.parametrize("spine", SPINES)
def test_rejected_with_one_located_line(name, expected, spine):
    assert _error(name, spine=spine) == expected.format(p=_path(name), types="input_types")  # the API's argument


def test_dynamic_shapes_refused_before_any_rewrite():
    """validate_input runs before stablehlo-legalize-to-hlo and every spine pass."""
    from hilo_mlir.passmanager.instrumentation import Instrumentation

    seen: list[str] = []
    loaded = compiler.load_module(open(_path("dynamic-shape.mlir"), "rb").read(), _path("dynamic-shape.mlir"))
    with pytest.raises(HiloError, match="dynamic shape"):
        compiler.compile_loaded(loaded, CompileConfig.preset("all"), instrumentation=Instrumentation(on_pass_start=seen.append))
    assert seen == ["hilo-import", "validate-input"]
    # the module is untouched (still stablehlo: no rewrite happened)
    assert "stablehlo.convert" in str(loaded.module)


def test_bounded_dynamic_and_unranked_are_refused():
    bounded = (
        "func.func @main(%a: tensor<?xf32, #stablehlo.bounds<8>>) -> tensor<?xf32, #stablehlo.bounds<8>> {\n"
        "  return %a : tensor<?xf32, #stablehlo.bounds<8>>\n}\n"
    )
    with pytest.raises(HiloError) as e:
        compiler.compile_module(bounded, filename="b.mlir")
    assert e.value.format() == (
        "b.mlir:1:1: error: 'func.func' op @main argument #0 has dynamic shape tensor<?xf32, #stablehlo.bounds<8>>: "
        "dynamic shapes are not supported (every dimension must be static); for a shape-polymorphic module give the "
        "static input types, input_types='tensor<?xf32, #stablehlo.bounds<8>>' with every ? replaced by its size"
    )
    unranked = "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = tensor.cast %a : tensor<4xf32> to tensor<*xf32>\n  return %a : tensor<4xf32>\n}\n"
    with pytest.raises(HiloError) as e:
        compiler.compile_module(unranked, filename="u.mlir")
    assert "unranked type tensor<*xf32>" in e.value.format() or "tensor" in e.value.format()


def test_complex_refused_with_lower_complex_off():
    cfg = CompileConfig(lower_complex=False)
    for spine in SPINES:
        assert _error("complex.mlir", cfg, spine) == (
            f"{_path('complex.mlir')}:2:8: error: 'stablehlo.complex' op result #0 has complex element type "
            "tensor<4xcomplex<f32>>: complex types need the lower-complex pass (LowerComplex is off; remove --disable-lower-complex)"
        )


def _ok(name, config=None, spine="mhlo"):
    src = compiler.compile_file(_path(name), config, spine=spine)
    ast.parse(src)
    return src


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", SPINES)
def test_complex_compiles_with_lower_complex_on(spine, preset):
    if "lower-complex" not in {p.argument for p in registry.all_passes()}:
        pytest.skip("lower-complex not registered yet")
    src = _ok("complex.mlir", CompileConfig.preset(preset), spine)
    assert "complex64" not in src


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", SPINES)
def test_token_values_become_u8(spine, preset):
    assert "replace-token-type-with-u8" in {p.argument for p in registry.all_passes()}
    src = _ok("token.mlir", CompileConfig.preset(preset), spine)
    assert "token" not in src.replace("token.mlir", "")
    assert "'uint8'" in src


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", SPINES)
def test_replicated_export_compiles_with_sharding_dropped(spine, preset):
    """Sharding annotations and the mesh are dropped together (never a dangling @mesh); other attributes stay."""
    data = open(_path("sharded-replicated.mlir"), "rb").read()
    loaded = compiler.load_module(data, _path("sharded-replicated.mlir"))
    src = compiler.compile_loaded(loaded, CompileConfig.preset(preset).replace(stablehlo=spine == "stablehlo"))
    ast.parse(src)
    text = str(loaded.module)
    assert "sdy." not in text and "@mesh" not in text and "mhlo.sharding" not in text
    assert "mhlo.num_partitions = 2" in text
    loaded.module.operation.verify()


def test_sharded_export_is_refused_unpartitioned():
    """Issue 22: a sharded jit export is the global program; compiling it as one device's program would be wrong."""
    p = _path("sharded.mlir")
    loaded = compiler.load_module(open(p, "rb").read(), p)
    with pytest.raises(HiloError) as ei:
        compiler.compile_loaded(loaded, CompileConfig())
    assert ei.value.format() == (
        f"{p}:3:26: error: this module is sharded (argument 0: {{devices=[2,1]<=[2]}}) but was not partitioned: " + PARTITION_RECIPE
    )


def test_strip_sharding_exact():
    loaded = compiler.load_module(open(_path("sharded-replicated.mlir"), "rb").read(), "s.mlir")
    assert sharding.strip_sharding(loaded) == 3  # arg_attrs, res_attrs, the mesh
    main = loaded.module.body.operations[0]
    assert str(main.attributes["res_attrs"]) == '[{jax.result_info = ""}]'
    assert str(main.attributes["arg_attrs"]) == "[{}]"
    assert sharding.strip_sharding(loaded) == 0


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", SPINES)
def test_side_effecting_custom_calls_kept_in_order(spine, preset):
    src = _ok("side-effects.mlir", CompileConfig.preset(preset), spine)
    pos = [src.find(t) for t in ("first_effect", "second_effect", "third_effect")]
    assert -1 not in pos, src
    assert pos == sorted(pos)
    for t in ("first_effect", "second_effect", "third_effect"):
        assert len(re.findall(rf"\b{t}\b", src)) == 1


@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", SPINES)
def test_optimization_barrier_with_mixed_operand_types(spine, preset):
    src = _ok("barrier-mixed.mlir", CompileConfig.preset(preset), spine)
    assert "'int32'" in src and "'float32'" in src


def test_cli_bad_inputs_exit_1_one_line_no_traceback(tmp_path):
    """The binary, not just the API: each rejected input is one stderr line, exit 1, nothing written."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    code = (
        "import sys\n"
        "from hilo_mlir.tools import hilo2penguin as h\n"
        "for p in sys.argv[2:]:\n"
        "    try:\n"
        "        rc = h.run([p, '-o', sys.argv[1]])\n"
        "    except BaseException as e:\n"
        "        rc = 'EXC ' + type(e).__name__\n"
        "    print('RC', rc, flush=True)\n"
    )
    names = [n for n, _ in REJECTED]
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-c", code, str(out), *map(_path, names)], capture_output=True, text=True, env=env)
    assert r.stdout.split("\n")[:-1] == ["RC 1"] * len(names)
    # one diagnostic each: its first line (then the source line and a caret when it is located in the input)
    lines = [ln for ln in r.stderr.strip().split("\n") if ": error: " in ln]
    assert len(lines) == len(names)
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    for line, (name, expected) in zip(lines, REJECTED):
        assert line == expected.format(p=_path(name), types="--input-types")  # hilo2penguin's flag
    assert not out.exists() or list(out.iterdir()) == []


def test_input_file_is_opened_read_only(tmp_path, monkeypatch):
    import builtins

    modes = []
    real_open = builtins.open

    def spy(file, mode="r", *a, **k):
        if str(file) == _path("dynamic-arg.mlir"):
            modes.append(mode)
        return real_open(file, mode, *a, **k)

    monkeypatch.setattr(builtins, "open", spy)
    with pytest.raises(HiloError):
        compiler.compile_file(_path("dynamic-arg.mlir"))
    assert modes == ["rb"]


@pytest.mark.parametrize("spine", SPINES)
def test_chlo_ops_are_decomposed_by_the_driver(spine):
    """chlo ops (JAX emits them) go through upstream chlo-legalize-to-stablehlo in the bridge; numbers match XLA.

    Regression (corpus run): 83 stablehlo_testdata modules per configuration
    were rejected by the printers ("'chlo.lgamma' must be legalized ...").
    """
    import numpy as np

    from hilo_mlir import penguin_ref, testing
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.passmanager.instrumentation import Instrumentation

    text = open(_path("chlo.mlir")).read()
    seen: list[str] = []
    loaded = compiler.load_module(text, _path("chlo.mlir"))
    src = compiler.compile_loaded(
        loaded, CompileConfig.preset("all").replace(stablehlo=spine == "stablehlo"), Instrumentation(on_pass_start=seen.append)
    )
    assert seen[:4] == ["hilo-import", "validate-input", "chlo-legalize-to-stablehlo", "stablehlo-legalize-to-hlo"]
    assert "xla_op='chlo." not in src
    with make_context():
        inputs = testing.random_inputs(ir.Module.parse(text), 0)
    expected = testing.evaluate_xla(text, inputs)  # the StableHLO interpreter has no chlo.erf
    got = penguin_ref.run(src, inputs, files=src.files)
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-6)


BIG_CONSTANT = """func.func @main(%a: tensor<4096xf32>) -> tensor<4096xf32> {
  %c = stablehlo.iota dim = 0 : tensor<4096xf32>
  %k = stablehlo.constant dense<"0xHEX"> : tensor<4096xf32>
  %0 = stablehlo.add %a, %k : tensor<4096xf32>
  return %0 : tensor<4096xf32>
}
""".replace("HEX", "0000803F" * 4095 + "00000040")


def test_a_constant_that_does_not_fit_in_memory_is_refused_before_the_spine(monkeypatch):
    from hilo_mlir.ir import limits

    monkeypatch.setattr(limits, "memory_headroom", lambda: 20000)  # bytes left: less than two copies of 16 KB
    with pytest.raises(HiloError) as e:
        compiler.compile_module(BIG_CONSTANT, filename="c.mlir")
    assert e.value.format() == (
        "c.mlir:3:8: error: 'stablehlo.constant' op: this 16,384 bytes constant does not fit in the "
        "memory left (writing it out needs about 32,768 bytes; 20,000 bytes available)"
    )
    monkeypatch.setattr(limits, "memory_headroom", lambda: 40000)
    assert "NpyFile" in compiler.compile_module(BIG_CONSTANT, filename="c.mlir")


@pytest.mark.parametrize(
    "where, phase",
    [
        ("validate", "validating the input"),
        ("pass", "running pass 'test-oom'"),
    ],
)
def test_memory_error_anywhere_is_out_of_memory_while_phase(monkeypatch, where, phase):
    from hilo_mlir.passmanager.pipeline import Step
    from hilo_mlir.passmanager.registry import PassInfo

    def boom(*a, **k):
        raise MemoryError()

    if where == "validate":
        monkeypatch.setattr(stages, "validate_input", boom)
    else:
        real = spine_mod.build_spine  # pipeline_steps builds the spine through it

        def build(config, skip_missing=False):
            info = PassInfo("test-oom", "test-only", boom, anchor="builtin.module")
            return real(config, skip_missing)[:2] + [Step(info, "test-oom", {}, anchor="builtin.module")]

        monkeypatch.setattr(spine_mod, "build_spine", build)
    with pytest.raises(HiloError) as e:
        compiler.compile_module(BIG_CONSTANT, filename="c.mlir")
    assert e.value.format() == f"error: out of memory while {phase}"


def test_binary_reader_crash_and_hang_are_one_line(monkeypatch):
    """The child that reads a binary input dies or loops: one error naming what happened (real mutants: lit binary-inputs)."""
    from hilo_mlir.driver.frontend import binary

    data = open(EXAMPLES / "decoder_layer.hlo.pb", "rb").read()

    def segv(*a):
        os.kill(os.getpid(), 11)

    monkeypatch.setattr(binary, "_read_in_child", segv)
    with pytest.raises(HiloError) as e:
        compiler.load_module(data, "m.pb", isolate=True)
    assert e.value.format() == (
        "m.pb: error: the HLO proto importer crashed (SIGSEGV) on this input; the file is corrupt or not a serialized HloModuleProto"
    )

    def hang(*a):
        import time

        time.sleep(60)

    monkeypatch.setattr(binary, "_read_in_child", hang)
    with pytest.raises(HiloError) as e:
        compiler.load_module(b"ML\xefR" + data, "m.mlirbc", isolate=True, timeout=1)
    assert e.value.format() == (
        "m.mlirbc: error: the MLIR bytecode reader did not finish in 1 s on this input; the file is corrupt or not MLIR bytecode"
    )


def test_proto_import_logging_is_not_shown(tmp_path):
    """XLA's and protobuf's own log lines stay in the reading child: the tool prints one line."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bad = tmp_path / "bad.pb"
    bad.write_bytes(open(EXAMPLES / "decoder_layer.hlo.pb", "rb").read()[:-40])
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", str(bad), "-o", str(tmp_path / "o")], capture_output=True, text=True, env=env
    )
    assert r.returncode == 1
    assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(f"{bad}: error: "), r.stderr
    assert not (tmp_path / "o").exists()


def test_every_blocking_op_is_its_own_located_error_up_to_the_limit():
    from hilo_mlir.passes.importing.printability import LIMIT, UnprintableOps

    n = LIMIT + 5
    body = "".join(
        f'  %e{i} = stablehlo.einsum %x, %x, config = "i,i->i" : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n'
        f"  %s{i} = stablehlo.add %{'x' if i == 0 else f's{i - 1}'}, %e{i} : tensor<4xf32>\n"
        for i in range(n)
    )
    text = f"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {{\n{body}  return %s{n - 1} : tensor<4xf32>\n}}\n"
    with pytest.raises(UnprintableOps) as e:
        compiler.compile_module(text, filename="many.mlir")
    lines = e.value.lines()
    assert len(e.value.errors) == LIMIT and len(lines) == LIMIT + 1
    assert lines[0] == "many.mlir:2:9: error: 'stablehlo.einsum': einsum must be lowered to dot_general before printing"
    assert [ln.split(":")[1] for ln in lines[:LIMIT]] == [str(2 + 2 * i) for i in range(LIMIT)]  # one per op, in order
    assert lines[-1] == f"many.mlir: error: 5 more ops cannot be emitted by the Penguin printer (the first {LIMIT} are listed)"
    assert e.value.format() == lines[0]  # the API's one-line form is the first blocker


def test_string_literals_that_are_not_utf8_are_found_by_their_escapes():
    from hilo_mlir.ir.limits import first_non_utf8_string

    assert first_non_utf8_string('func.func @f() attributes {a = "plain"}') is None  # no backslash: fast path
    assert first_non_utf8_string(r'x = "caf\C3\A9" y = "\22quoted\22" z = "tab\09 \\ \n"') is None  # valid UTF-8
    text = r'a = "ok" b = "\FF" c = "\C3"'
    assert first_non_utf8_string(text) == text.index(r'"\FF"')  # the first bad one
    assert first_non_utf8_string(r'a = "\"\FF"') == 4  # an escaped quote does not end the string
    assert first_non_utf8_string(r'a = "\C3"') == 4  # a truncated sequence
