"""StableHLO portable artifacts (jax.export's mlir_module_serialized) and shape refinement (--input-types)."""

import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import ROOT
from jax import export

from hilo_mlir import jax as hj
from hilo_mlir import penguin_ref
from hilo_mlir.driver import compiler
from hilo_mlir.support.diagnostics import HiloError

ENV = dict(os.environ, PYTHONPATH=str(ROOT))


def f(x, w):
    return jnp.tanh(x @ w).sum(axis=0) + x.shape[0]


def _static():
    return export.export(jax.jit(f))(jax.ShapeDtypeStruct((4, 32), jnp.float32), jax.ShapeDtypeStruct((32, 16), jnp.float32))


def _poly():
    b = export.symbolic_shape("b, 32")
    return export.export(jax.jit(f))(jax.ShapeDtypeStruct(b, jnp.float32), jax.ShapeDtypeStruct((32, 16), jnp.float32))


def _args(n=4):
    rng = np.random.default_rng(0)
    return rng.standard_normal((n, 32)).astype(np.float32) / 4, rng.standard_normal((32, 16)).astype(np.float32) / 4


def _tool(*args, **kw):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, env=ENV, cwd=ROOT, **kw)


def test_portable_artifact_compiles_in_both_tools_and_equals_jax(tmp_path):
    art = tmp_path / "f.mlirbc"  # the name does not matter: detected by content
    art.write_bytes(_static().mlir_module_serialized)
    assert compiler.load_module(art.read_bytes(), str(art)).module.body.operations[0].operation.name == "func.func"
    r = _tool("hilo_mlir.tools.hilo2penguin", str(art), "-o", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    x, w = _args()
    (got,) = penguin_ref.run(str(tmp_path / "out" / "penguin.py"), [x, w])
    np.testing.assert_allclose(got, np.asarray(jax.jit(f)(x, w)), rtol=1e-5, atol=1e-5)
    r = _tool("hilo_mlir.tools.opt", str(art))  # read as stablehlo (vhlo-legalize-to-stablehlo), printed as text
    assert r.returncode == 0, r.stderr
    assert "func.func public @main(%arg0: tensor<4x32xf32>" in r.stdout and "stablehlo.dot_general" in r.stdout
    assert "vhlo." not in r.stdout


def test_shape_polymorphic_export_with_input_types_equals_jax(tmp_path):
    exp = _poly()
    art = tmp_path / "poly.bin"
    art.write_bytes(exp.mlir_module_serialized)
    x, w = _args(6)
    r = _tool(
        "hilo_mlir.tools.hilo2penguin",
        str(art),
        "-o",
        str(tmp_path / "out"),
        "--input-types=tensor<6x32xf32>,tensor<32x16xf32>",
        "--spine",
        "stablehlo",
    )
    assert r.returncode == 0, r.stderr
    (got,) = penguin_ref.run(str(tmp_path / "out" / "penguin.py"), [x, w])
    (want,) = [np.asarray(o) for o in jax.tree_util.tree_leaves(exp.call(x, w))]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    # the text form and the API, too
    src = compiler.compile_module(exp.mlir_module(), filename="poly.mlir", input_types=["tensor<6x32xf32>", "tensor<32x16xf32>"])
    (got2,) = penguin_ref.run(src, [x, w], files=src.files)
    np.testing.assert_allclose(got2, want, rtol=1e-5, atol=1e-5)


def test_jax_flow_specializes_a_polymorphic_exported_and_reads_artifact_bytes():
    exp = _poly()
    x, w = _args(3)
    prog = hj.compile(exp, x, w, spine="stablehlo")
    np.testing.assert_allclose(prog.run(x, w), prog.reference(x, w), rtol=1e-5, atol=1e-5)  # one array each
    prog2 = hj.compile(exp.mlir_module_serialized, x, w)  # the artifact's bytes, with the arguments to specialize to
    (got,) = prog2.run(x, w)  # no output structure for an artifact: the flat list
    np.testing.assert_allclose(got, prog.reference(x, w), rtol=1e-5, atol=1e-5)
    with pytest.raises(HiloError, match="no JAX function to run"):
        prog2.reference(x, w)
    with pytest.raises(HiloError, match=r"shape-polymorphic \(input shapes \(b, 32\), \(32, 16\)\): pass concrete arguments"):
        hj.compile(exp)


def test_violated_shape_assertion_quotes_jax_message():
    text = _poly().mlir_module()
    with pytest.raises(HiloError) as e:
        compiler.compile_module(text, filename="poly.mlir", input_types="tensor<0x32xf32>,tensor<32x16xf32>")
    msg = e.value.format()
    assert msg.startswith(
        "poly.mlir: error: a shape assertion fails for these input types: Input shapes do not match "
        "the polymorphic shapes specification. Expected value >= 1 for dimension variable 'b'."
    )
    assert "'b' = 0" in msg and "\n" not in msg


@pytest.mark.parametrize(
    "types, message",
    [
        (
            None,
            "'func.func' op @main argument #0 has dynamic shape tensor<?x32xf32>: dynamic shapes are not supported (every "
            "dimension must be static); for a shape-polymorphic module give the static input types, "
            "input_types='tensor<?x32xf32>,tensor<32x16xf32>' with every ? replaced by its size",
        ),
        ("tensor<4x32xf32>", "--input-types gives 1 type but @main takes 2 arguments"),
        ("tensor<4x31xf32>,tensor<32x16xf32>", "input type #0 tensor<4x31xf32> does not fit @main argument #0 of type tensor<?x32xf32>"),
        (
            "tensor<?x32xf32>,tensor<32x16xf32>",
            "input type #0 tensor<?x32xf32> is not a static tensor type (every dimension must be given)",
        ),
        ("tensor<4x32xf32>,nonsense", "input type #1 'nonsense' is not an MLIR type (expected e.g. tensor<4x32xf32>)"),
    ],
)
def test_input_types_errors(types, message):
    with pytest.raises(HiloError) as e:
        compiler.compile_module(_poly().mlir_module(), filename="poly.mlir", input_types=types)
    assert e.value.format() == f"poly.mlir: error: {message}"


def test_corrupt_portable_artifact_is_one_line(tmp_path):
    # Cut inside the bytecode body (the magic and version stay, so it is still read as an artifact): a
    # section the reader needs is missing, whatever the bytes are -- overwriting bytes could land in a
    # location string (it holds the clone's path) and leave a valid artifact.
    data = bytes(_static().mlir_module_serialized)
    bad = tmp_path / "bad.mlirbc"
    bad.write_bytes(data[: len(data) // 2])
    for tool in (["hilo_mlir.tools.hilo2penguin", str(bad), "-o", str(tmp_path / "o")], ["hilo_mlir.tools.opt", str(bad)]):
        r = _tool(*tool)
        assert r.returncode == 1 and len(r.stderr.splitlines()) == 1, r.stderr
        assert r.stderr.startswith(f"{bad}: error: ") and "Traceback" not in r.stderr
    assert not (tmp_path / "o").exists()


def test_input_types_refused_in_batch_mode(tmp_path):
    r = _tool("hilo_mlir.tools.hilo2penguin", "--batch", str(tmp_path), "-o", str(tmp_path / "o"), "--input-types=tensor<4xf32>")
    assert r.returncode == 1 and r.stderr == "hilo2penguin: error: --input-types needs a single input, not --batch\n"


STAYS_DYNAMIC = """func.func @main(%x: tensor<?xf32>, %s: tensor<1xi32>) -> tensor<?xf32> {
  %c = stablehlo.constant dense<1.0> : tensor<f32>
  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>
  %a = stablehlo.add %r, %r : tensor<?xf32>
  return %a : tensor<?xf32>
}
"""


def test_a_shape_that_stays_dynamic_is_reported_at_its_op(tmp_path):
    # the refinement's own diagnostics name the op that stays dynamic; the error used to be at @main (1:1)
    with pytest.raises(HiloError) as e:
        compiler.compile_module(STAYS_DYNAMIC, filename="dyn.mlir", input_types="tensor<4xf32>,tensor<1xi32>")
    assert (
        e.value.format()
        == "dyn.mlir:3:8: error: shape refinement failed for these input types: 'stablehlo.dynamic_reshape' op has dynamic shapes"
    )
    path = tmp_path / "dyn.mlir"
    path.write_text(STAYS_DYNAMIC)
    r = _tool("hilo_mlir.tools.hilo2penguin", str(path), "-o", str(tmp_path / "o"), "--input-types=tensor<4xf32>,tensor<1xi32>")
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        f"{path}:3:8: error: shape refinement failed for these input types: 'stablehlo.dynamic_reshape' op has dynamic shapes",
        "  %r = stablehlo.dynamic_reshape %x, %s : (tensor<?xf32>, tensor<1xi32>) -> tensor<?xf32>",
        "       ^",
    ]


def test_an_op_the_stablehlo_step_cannot_convert_is_reported_at_the_op():
    text = """func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  %a = mhlo.add %x, %x : tensor<?xf32>
  %b = "mhlo.bitcast"(%a) : (tensor<?xf32>) -> tensor<?xf32>
  return %b : tensor<?xf32>
}
"""
    with pytest.raises(HiloError) as e:
        compiler.compile_module(text, filename="mh.mlir", input_types="tensor<4xf32>")
    assert e.value.format().startswith(
        "mh.mlir:3:8: error: cannot give @main the input types: failed to legalize operation 'mhlo.bitcast' that was explicitly marked illegal"
    )
    assert "see current operation" not in e.value.message and "pipeline" not in e.value.message


def test_the_location_of_the_refinement_error_text():
    from hilo_mlir.passes.importing.refine_shapes import _error_location

    text = (
        "INVALID_ARGUMENT: Module has dynamic shapes: UNKNOWN: /a b/m.py:3:8: error: 'stablehlo.add' op has dynamic shapes\n-:4:8: note: x"
    )
    assert _error_location(text) == 'loc("/a b/m.py":3:8)'
    assert _error_location('UNKNOWN: -:12:1: error: x "q":1:2: error: y') == 'loc("-":12:1)'
    assert _error_location('INVALID_ARGUMENT: error: loc("shape_assertion"): Input shapes do not match') is None
    assert _error_location('UNKNOWN: error: loc("shape_assertion"): at "f.py":1:2: error: no') is None  # the first error has no position


def test_the_location_of_the_refinement_error_keeps_a_file_name_with_a_colon(tmp_path):
    """A file name holding ``": "`` is kept whole: it is one of the module's location files, or all that follows the
    last status code (``UNKNOWN: ``)."""
    from hilo_mlir.passes.importing.refine_shapes import _error_location

    text = "INVALID_ARGUMENT: Module has dynamic shapes: UNKNOWN: /t/a: b.mlir:3:8: error: 'stablehlo.add' op has dynamic shapes"
    assert _error_location(text) == 'loc("/t/a: b.mlir":3:8)'
    assert _error_location(text, {"/t/a: b.mlir", "b.mlir"}) == 'loc("/t/a: b.mlir":3:8)'
    text = "UNKNOWN: x: UNKNOWN: y.mlir:3:8: error: op"
    assert _error_location(text, {"x: UNKNOWN: y.mlir"}) == 'loc("x: UNKNOWN: y.mlir":3:8)'
    with pytest.raises(HiloError) as e:
        compiler.compile_module(STAYS_DYNAMIC, filename="in: dyn.mlir", input_types="tensor<4xf32>,tensor<1xi32>")
    assert (
        e.value.format()
        == "in: dyn.mlir:3:8: error: shape refinement failed for these input types: 'stablehlo.dynamic_reshape' op has dynamic shapes"
    )
