"""The Penguin printers (docs/penguin_format.md).

* Determinism: byte-identical text and .npy files across two compilations in
  one process and across two processes.
* Executability of the format: every printed program runs top to bottom
  against a stub Penguin API that checks names are bound before use, results
  match ``dsts``, region functions take/return what the format says, group
  headers are closed by ``setResults``, and every output index is marked once.
* Constants: exact literals and .npy round trips for every dtype family.
* The custom-call / kind tables and ``unsupported_reason`` agree with the printer.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
import types

import ml_dtypes
import numpy as np
import pytest
from conftest import corpus_path

from hilo_mlir.driver.compiler import compile_module
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import print_program, supported
from hilo_mlir.printers.literals import dense_to_numpy, npy_bytes, python_literal
from hilo_mlir.support.diagnostics import HiloError

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))  # printer_census
LIT = os.path.join(ROOT, "test", "lit", "printer")
SMALL_JAX = [
    "attention",
    "concat_heads",
    "decoder_layer",
    "logsumexp_rows",
    "rmsnorm",
    "swiglu_mlp_bf16",
    "swiglu_mlp_nn_silu",
    "transcendental",
]


def _print(text: str, dialect: str = "stablehlo", **kw):
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        return print_program(m, dialect, **kw)


# ---------------------------------------------------------------------------------------------
# A stub Penguin API: executes a program and checks the format's contract.
# ---------------------------------------------------------------------------------------------


class _Val:
    __slots__ = ("spec",)

    def __init__(self, spec):
        self.spec = spec


class _Handle:
    def __init__(self, stub, kw):
        self.stub, self.kw, self.closed = stub, kw, False
        stub.open_groups.append(self)

    def setResults(self, results):  # noqa: N802 - Penguin API
        assert not self.closed, "setResults called twice"
        assert len(results) == len(self.kw["dsts"]), "setResults arity differs from the header's dsts"
        for r in results:
            assert isinstance(r, _Val), f"setResults got {r!r}"
        self.closed = True
        self.stub.open_groups.remove(self)


class _Stub:
    """Records calls; every op call validates srcs/dsts/regions and returns _Val results."""

    def __init__(self):
        self.calls = 0
        self.outputs = {}
        self.open_groups = []
        self.inputs = []

    def module(self, name):
        stub = self
        m = types.ModuleType(name)

        def getattr_(attr):
            if attr == "Function":
                return stub.function
            if attr == "Tensor":
                return stub.tensor
            if attr in ("TensorSpec", "TupleSpec", "DebugLocation", "NpyFile", "Bits"):
                return lambda *a, **kw: (attr, a, kw)
            if attr in ("NeuronTensorOp", "CompositeOp", "CallOp"):
                return lambda **kw: stub.header(attr, kw)
            if attr.endswith("Op"):
                return lambda **kw: stub.op(attr, kw)
            if attr.startswith("__"):
                raise AttributeError(attr)
            return stub.module(f"{name}.{attr}")

        m.__getattr__ = getattr_
        m.__path__ = []
        return m

    def function(self, id_, batch_ids, attrs):
        assert id_ == 0 and batch_ids == [] and isinstance(attrs, tuple)
        assert attrs[0].startswith("model-type=") and attrs[1].startswith("mac-count="), attrs
        assert int(attrs[1].split("=", 1)[1]) >= 0
        stub = self

        class F:
            def markOutput(self, v, index, name, is_slow_changing):  # noqa: N802
                assert isinstance(v, _Val) and isinstance(name, str) and isinstance(is_slow_changing, bool)
                assert index not in stub.outputs, f"output {index} marked twice"
                stub.outputs[index] = v

        return F()

    def tensor(self, name, spec):
        stub = self

        class T:
            def markInput(self, function, index, is_parameter_tensor, weight_files=None, np_file=None):  # noqa: N802
                assert index == len(stub.inputs), "inputs out of order"
                assert (np_file == f"input_{index}.npy") == is_parameter_tensor
                assert (weight_files == [f"input_{index}.npy"]) == is_parameter_tensor
                v = _Val(spec)
                stub.inputs.append(v)
                return v

        return T()

    def _check_common(self, kind, kw):
        # QuantizeMX is printed as the binary prints it: target_name, then the debug location (no xla_op)
        required = {"srcs", "dsts", "dl"} if kind == "QuantizeMXTensorOp" else {"srcs", "dsts", "xla_op", "dl"}
        assert set(kw) >= required, f"{kind}: missing keys {kw.keys()}"
        keys = list(kw)
        assert keys[:2] == ["srcs", "dsts"] and keys[-1] == "dl", f"{kind}: srcs, dsts first, dl last: {keys}"
        if kind == "QuantizeMXTensorOp":
            assert "xla_op" not in kw and keys[-2] == "target_name", f"{kind}: target_name right before dl: {keys}"
        elif kind in ("NeuronTensorOp", "CompositeOp", "CallOp", "DevicePrintOp"):
            assert keys[2] == "xla_op", f"{kind}: xla_op right after dsts"
        else:
            assert keys[-2] == "xla_op", f"{kind}: xla_op must come right before dl"
        for s in kw["srcs"]:
            assert isinstance(s, _Val), f"{kind}: src {s!r} is not a value"
        assert kw["dl"][0] == "DebugLocation"

    def header(self, kind, kw):
        self._check_common(kind, kw)
        self.calls += 1
        return _Handle(self, kw)

    def op(self, kind, kw):
        self._check_common(kind, kw)
        self.calls += 1
        for fn in kw.get("regions", ()):
            assert callable(fn), f"{kind}: region {fn!r} is not a function"
            nargs = fn.__code__.co_argcount
            rets = fn(*[_Val(None) for _ in range(nargs)])
            assert isinstance(rets, list) and all(isinstance(r, _Val) for r in rets), f"{kind}: bad region return"
        n = len(kw["dsts"])
        if n == 0:
            return None
        if n == 1:
            return _Val(kw["dsts"][0])
        return tuple(_Val(d) for d in kw["dsts"])


def run_stub(src: str, root: str = "neuronxcc.starfish.penguin") -> _Stub:
    """Execute ``src`` against the stub API; returns the stub (outputs, call count)."""
    stub = _Stub()
    saved = {k: v for k, v in sys.modules.items() if k == root or k.startswith(root + ".")}
    parts = root.split(".")
    try:
        for i in range(1, len(parts) + 1):
            sys.modules[".".join(parts[:i])] = stub.module(".".join(parts[:i]))
        for line in src.splitlines():
            if line.startswith("import "):
                path = line.split()[1]
                sys.modules[path] = stub.module(path)
        exec(compile(src, "penguin.py", "exec"), {"__name__": "penguin"})  # noqa: S102 - test of our own output
    finally:
        for k in [k for k in sys.modules if k == parts[0] or k.startswith(parts[0] + ".")]:
            del sys.modules[k]
        sys.modules.update(saved)
    assert not stub.open_groups, "a group header was never closed by setResults"
    assert sorted(stub.outputs) == list(range(len(stub.outputs)))
    return stub


# ---------------------------------------------------------------------------------------------
# determinism
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("preset", ["default", "all"])
def test_two_compilations_in_one_process_are_identical(spine, preset):
    path = corpus_path("jax", "decoder_layer.stablehlo.mlir")
    text = open(path).read()
    cfg = CompileConfig.preset(preset) if hasattr(CompileConfig, "preset") else CompileConfig()
    a = compile_module(text, cfg, spine=spine, filename="decoder_layer.stablehlo.mlir")
    b = compile_module(text, cfg, spine=spine, filename="decoder_layer.stablehlo.mlir")
    assert str(a) == str(b)
    assert a.files == b.files


def test_printer_state_is_per_instance():
    text = open(os.path.join(LIT, "stablehlo-composites.mlir")).read().split("// -----")[0]
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        first = print_program(m, "stablehlo", inline_limit=4)
        second = print_program(m, "stablehlo", inline_limit=4)
    assert first == second
    assert first[0].count("v0 = ") == 1


def test_two_processes_give_identical_bytes(tmp_path):
    src = os.path.join(LIT, "constants.mlir")
    outs = []
    for i in range(2):
        d = tmp_path / f"o{i}"
        d.mkdir()  # output= needs an existing folder, as -o does
        subprocess.run(
            [
                sys.executable,
                "-m",
                "hilo_mlir.tools.opt",
                src,
                "--stablehlo-to-py-penguin=output=" + str(d / "penguin.py") + " inline-constant-max-elements=4",
                "-o",
                os.devnull,
            ],
            check=True,
            cwd=ROOT,
        )
        outs.append({p.name: p.read_bytes() for p in sorted(d.iterdir())})
    assert outs[0] == outs[1]
    # published under content names (hilo_mlir.support.packaging): const_<K>.<16 hex digits of the bytes' SHA-256>.npy
    assert [re.sub(r"\.[0-9a-f]{16}\.", ".", n) for n in sorted(outs[0])] == ["const_0.npy", "const_1.npy", "penguin.py"]


def test_large_module_prints_every_op():
    """33k ops in one block print one statement each (speed is measured by bench/run.py, not here)."""
    n = 33000
    lines = ["func.func @main(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>) -> tensor<4x8xf32> {"]
    prev = "%a"
    for i in range(n):
        lines.append(f'  %v{i} = stablehlo.{("add", "multiply", "subtract")[i % 3]} {prev}, %b : tensor<4x8xf32> loc("f.py":{i}:3)')
        prev = f"%v{i}"
    lines.append(f"  return {prev} : tensor<4x8xf32>\n}}")
    ctx = make_context()
    with ctx:
        m = ir.Module.parse("\n".join(lines))
        src, _ = print_program(m, "stablehlo")
    assert src.count("\n") == n + 9
    assert f"v{n} = m1.SubtractOp(srcs=[v{n - 1}, input_1]" in src  # v0 is the Function handle
    assert f"v0.markOutput(v{n}, index=0" in src


# ---------------------------------------------------------------------------------------------
# the format executes (stub API)
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("name", SMALL_JAX)
def test_corpus_programs_execute_against_the_stub(name, spine, preset):
    path = corpus_path("jax", f"{name}.stablehlo.mlir")
    cfg = CompileConfig.preset(preset) if hasattr(CompileConfig, "preset") else CompileConfig()
    src = compile_module(open(path).read(), cfg, spine=spine, filename=os.path.basename(path))
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(open(path).read())
        main = [
            o
            for o in m.body.operations
            if o.operation.name == "func.func" and ir.StringAttr(o.operation.attributes["sym_name"]).value == "main"
        ][0]
        n_out = len(ir.FunctionType(ir.TypeAttr(main.operation.attributes["function_type"]).value).results)
    stub = run_stub(str(src))
    assert len(stub.outputs) == n_out
    assert stub.calls >= 1


@pytest.mark.parametrize(
    "lit_file",
    [
        "mhlo-fusions.mlir",
        "stablehlo-composites.mlir",
        "regions.mlir",
        "custom-calls.mlir",
        "custom-calls-mhlo-targets.mlir",
        "constants.mlir",
        "prologue-epilogue.mlir",
    ],
)
def test_lit_inputs_execute_against_the_stub(lit_file):
    text = open(os.path.join(LIT, lit_file)).read()
    dialect = "mhlo" if "mhlo-fusions" in lit_file else "stablehlo"
    for chunk in text.split("// -----"):
        src, _ = _print(chunk, dialect, inline_limit=4)
        run_stub(src)


def test_custom_root_relocates_the_whole_family():
    """Every module path derives from the root; the support module is the root's sibling."""
    text = open(os.path.join(LIT, "custom-calls.mlir")).read().split("// -----")[0]
    src, _ = _print(text, "stablehlo", root="my.backend")
    imports = [line for line in src.splitlines() if line.startswith("import ")]
    assert imports == [
        "import my.backend as m0",
        "import my.backend.ir as m1",
        "import my.support as m2",
        "import my.backend.ir.Intrinsics as m3",
    ]
    assert "neuronxcc" not in src
    assert "dtype=m2.dtype.float8_e4m3fn_x4" in src
    run_stub(src, root="my.backend")
    src, _ = _print(text, "stablehlo", root="penguin")  # a root without a parent package
    assert "import support as m2" in src.splitlines()


# ---------------------------------------------------------------------------------------------
# constants
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mlir,dtype,expect",
    [
        (
            "dense<[1.0, -0.0, 0x7FC0, 0x7F80, 3.140630e+00]> : tensor<5xbf16>",
            ml_dtypes.bfloat16,
            [1.0, -0.0, float("nan"), float("inf"), 3.140625],
        ),
        ("dense<[0.1, 3.0e38]> : tensor<2xf32>", np.float32, [0.1, 3.0e38]),
        ("dense<[448.0, -2.0]> : tensor<2xf8E4M3FN>", ml_dtypes.float8_e4m3fn, [448.0, -2.0]),
        ("dense<[(1.0, 2.0), (-3.5, 0.0)]> : tensor<2xcomplex<f32>>", np.complex64, [1 + 2j, -3.5]),
        ("dense<[-8, 7]> : tensor<2xi4>", ml_dtypes.int4, [-8, 7]),
        ("dense<[4294967295, 0]> : tensor<2xui32>", np.uint32, [4294967295, 0]),
    ],
)
def test_dense_to_numpy_and_literals_are_exact(mlir, dtype, expect):
    ctx = make_context()
    with ctx:
        if "complex" in mlir:
            from hilo_mlir.printers.literals import dense_text_to_numpy

            arr = dense_text_to_numpy(mlir, ir.Type.parse(mlir.split(" : ")[1]))
        else:
            arr = dense_to_numpy(ir.Attribute.parse(mlir))
    if np.dtype(dtype).name in ("bfloat16", "float8_e4m3fn", "int4"):
        # types numpy cannot name come back as their bit patterns, decoded with numpy alone (no ml_dtypes import)
        _check_narrow(arr, mlir.rsplit("x", 1)[1].rstrip(">"), dtype, expect)
        return
    assert arr.dtype == np.dtype(dtype)
    want = np.array(expect, dtype=np.float64 if np.dtype(dtype).kind not in "iuc" else np.dtype(dtype)).astype(dtype)
    assert arr.tobytes() == want.tobytes() or (
        np.isnan(arr.astype(np.float64)).any() and np.array_equal(arr.astype(np.float64), want.astype(np.float64), equal_nan=True)
    )
    lit = python_literal(arr)
    back = np.asarray(
        eval(lit, {"complex": complex, "float": float}),
        dtype=np.float64 if np.dtype(dtype).kind == "f" or np.dtype(dtype).name.startswith(("bfloat", "float8")) else None,
    ).astype(dtype)  # noqa: S307
    assert np.array_equal(back.view(np.uint8), arr.view(np.uint8)) or np.array_equal(
        back.astype(np.complex128), arr.astype(np.complex128), equal_nan=True
    )
    raw = np.load(io.BytesIO(npy_bytes(arr)))
    if arr.dtype.name == "bfloat16":
        assert raw.dtype == np.uint16 and raw.tobytes() == arr.tobytes()
    elif arr.dtype.name.startswith("float8"):
        assert raw.dtype == np.uint8 and raw.tobytes() == arr.tobytes()
    elif arr.dtype.name == "int4":
        assert raw.dtype == np.int8 and raw.tolist() == [-8, 7]
    else:
        assert raw.dtype == arr.dtype and raw.tobytes() == arr.tobytes()


def _check_narrow(arr, es, dtype, expect):
    from hilo_mlir.printers.literals import NarrowBits

    assert isinstance(arr, NarrowBits) and arr.element_type == es
    want = np.array(expect, dtype=np.int64 if np.dtype(dtype).kind in "iu" else np.float64).astype(dtype)
    if es == "i4":
        assert arr.bits.dtype == np.int8 and arr.bits.tolist() == want.astype(np.int64).tolist()
    else:
        assert arr.bits.tobytes() == want.tobytes()
    back = np.asarray(eval(python_literal(arr), {"float": float}), dtype=np.float64).astype(dtype)  # noqa: S307
    assert back.tobytes() == want.tobytes() or es == "bf16"  # bf16: the NaN below compares by bits
    if es == "bf16":
        assert np.array_equal(back.astype(np.float64), want.astype(np.float64), equal_nan=True)
    raw = np.load(io.BytesIO(npy_bytes(arr)))
    assert raw.dtype == {"bf16": np.uint16, "f8E4M3FN": np.uint8, "i4": np.int8}[es]
    assert raw.tolist() == arr.bits.tolist()


def test_large_bf16_constant_goes_to_npy_bit_exact():
    vals = (np.arange(300, dtype=np.float32) / 7).astype(ml_dtypes.bfloat16)
    body = ", ".join(repr(float(v)) for v in vals.astype(np.float32))
    text = f"""func.func @main() -> tensor<300xbf16> {{
      %0 = stablehlo.constant dense<[{body}]> : tensor<300xbf16>
      return %0 : tensor<300xbf16>
    }}"""
    src, files = _print(text)
    assert "value=m1.NpyFile('const_0.npy')" in src
    raw = np.load(io.BytesIO(files["const_0.npy"]))
    assert raw.dtype == np.uint16 and raw.view(ml_dtypes.bfloat16).tobytes() == vals.tobytes()


# ---------------------------------------------------------------------------------------------
# tables and unsupported_reason
# ---------------------------------------------------------------------------------------------


def test_composite_table_is_the_seven_way_table():
    assert supported.COMPOSITE_KINDS == {
        "ScheduleFusion": (None, None),
        "MulRedSqrt": ("MulRedSqrt", "MulRedSqrt"),
        "DotLogistic": ("DotFusion", "DotLogistic"),
        "Expm1": ("Elementwise", "Expm1"),
        "Log1p": ("Elementwise", "Log1p"),
        "Elementwise": ("Elementwise", "Elementwise"),
        "DotSoftmax": ("DotSoftmax", "DotSoftmax"),
    }
    assert supported.FUSION_KINDS["DotLogistic"][0] == "DotFusion"
    assert supported.FUSION_KINDS["Expm1"][0] == "Expm1"


def test_custom_call_emitters_cover_the_table():
    from hilo_mlir.printers.custom_calls import EMITTERS

    assert set(EMITTERS) == set(supported.CUSTOM_CALL_TARGETS)
    assert supported.custom_call_py_op("mhlo.erf") == "ErfOp"
    assert supported.custom_call_py_op("mhlo.dynamic_reshape") is None
    assert supported.custom_call_py_op("my_kernel") is None


def test_unsupported_reason_and_printer_agree_on_each_op():
    text = """func.func @main(%a: tensor<4xf32>, %b: tensor<?xf32>, %c: tensor<4xcomplex<f32>>) -> tensor<4xf32> {
      %0 = stablehlo.add %a, %a : tensor<4xf32>
      %1 = stablehlo.custom_call @foo(%0) : (tensor<4xf32>) -> tensor<4xf32>
      %2 = stablehlo.abs %b : tensor<?xf32>
      %3 = chlo.erf %0 : tensor<4xf32> -> tensor<4xf32>
      %4 = stablehlo.custom_call @mhlo.erf(%0) : (tensor<4xf32>) -> tensor<4xf32>
      %5 = stablehlo.fft %c, type = FFT, length = [4] : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
      return %0 : tensor<4xf32>
    }"""
    ctx = make_context()
    with ctx:
        m = ir.Module.parse(text)
        ops = [o.operation for o in m.body.operations[0].regions[0].blocks[0].operations]
        reasons = [supported.unsupported_reason(o) for o in ops]
    assert reasons == [
        None,
        "unsupported custom_call target 'foo'",
        "'stablehlo.abs' operand: dynamic shape tensor<?xf32> is not supported",
        "'chlo.erf' must be legalized to stablehlo/mhlo before printing (chlo-legalize-to-stablehlo)",
        None,
        "'stablehlo.fft': FFT has no Penguin equivalent",
        None,
    ]
    # The printer stops at the first rejected op with the same reason, located at it.
    with pytest.raises(HiloError) as ei:
        _print(text.replace("%b: tensor<?xf32>", "%b: tensor<4xf32>").replace("tensor<?xf32>", "tensor<4xf32>"))
    assert ei.value.message == "unsupported custom_call target 'foo'"
    assert ei.value.line == 3


def _census_shard(files):
    code = (
        "import json,sys; sys.path.insert(0, 'scripts'); from printer_census import census_file; "
        "print(json.dumps({f: census_file(f) for f in sys.argv[1:]}))"
    )
    r = subprocess.run([sys.executable, "-c", code, *files], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert r.returncode == 0, f"census subprocess died (a binding abort?): {r.stderr[-2000:]}"
    import json

    return json.loads(r.stdout)


def _check_census(per_file):
    from printer_census import summarize

    s = summarize(per_file)
    assert not s["violations"], s["violations"][:10]
    for kind, e in s["kinds"].items():
        assert e["reason"] is None or (isinstance(e["reason"], str) and e["reason"]), kind
    return s


def test_jax_corpus_ops_are_all_printable():
    files = [corpus_path("jax", f"{n}.stablehlo.mlir") for n in SMALL_JAX]
    s = _check_census(_census_shard(files))
    bad = {k: e for k, e in s["kinds"].items() if e["reason"] or e["type_rejected"]}
    assert not bad, bad


def test_third_party_corpus_sample_printer_agrees_with_table():
    """Every 25th third-party file: each op kind is printable or has a reason, and the printer agrees."""
    from printer_census import iter_files

    files = iter_files([corpus_path("third_party")])[::25]
    _check_census(_census_shard(files))


@pytest.mark.slow
def test_whole_corpus_printer_agrees_with_table():
    from printer_census import iter_files

    files = iter_files([corpus_path("third_party"), corpus_path("jax")])
    per = {}
    for i in range(0, len(files), 400):
        per.update(_census_shard(files[i : i + 400]))
    _check_census(per)


def test_bf16_constant_decodes_the_same_after_np_dtype_imported_ml_dtypes():
    """A bf16 hex constant prints its values whether or not ``np_dtype`` has already looked up
    ml_dtypes' bfloat16 (that lookup once leaked into the constant decoder, which then read the
    values as bit patterns: 0.7734375 printed as 0.0, found by the full suite's order)."""
    from hilo_mlir.printers.literals import np_dtype

    blob = "463F3A40" * 62 + "0000"  # 125 elements: 0.7734375, 2.90625, ..., 0.0
    text = f"""func.func @main() -> tensor<125xbf16> {{
  %0 = stablehlo.constant dense<"0x{blob}"> : tensor<125xbf16>
  return %0 : tensor<125xbf16>
}}"""
    want = "value=[0.7734375, 2.90625, 0.7734375"
    assert want in compile_module(text)
    assert np_dtype("bf16") == np.dtype(ml_dtypes.bfloat16)
    assert want in compile_module(text)
