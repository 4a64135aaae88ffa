"""CLI behaviour of hilo-opt and hilo2penguin: exit codes, errors, start-up imports."""

import ast
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLES, ROOT


def run(*args, input=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, input=input, cwd=ROOT)


def test_hilo_opt_help_does_not_import_jax():
    code = (
        "import sys, io, contextlib\n"
        "from hilo_mlir.tools import opt\n"
        "buf = io.StringIO()\n"
        "with contextlib.redirect_stdout(buf):\n"
        "    rc = opt.run(['--help'])\n"
        "assert rc == 0\n"
        "assert 'neuron' in buf.getvalue() or 'canonicalize' in buf.getvalue()\n"
        "bad = sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.'))\n"
        "print('JAXMODS', bad)\n"
    )
    r = run("-c", code)
    assert r.returncode == 0, r.stderr
    assert "JAXMODS []" in r.stdout


def test_neither_an_f32_nor_a_bf16_compile_imports_ml_dtypes(tmp_path):
    # ml_dtypes takes ~1 s to import (0.7): the printers decode bf16/fp8/int4 bit patterns with numpy alone
    code = (
        "import sys\n"
        "from hilo_mlir import compile_module\n"
        "src = compile_module(sys.argv[1])\n"
        "print('ML_DTYPES', 'ml_dtypes' in sys.modules, 'bfloat16' in str(src))\n"
    )
    f32 = (
        "func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {\n"
        "  %c = stablehlo.constant dense<[1.5, 2.0]> : tensor<2xf32>\n"
        "  %0 = stablehlo.add %a, %c : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n"
    )
    r = run("-c", code, f32)
    assert r.returncode == 0, r.stderr
    assert "ML_DTYPES False False" in r.stdout
    bf16 = f32.replace("f32", "bf16")
    r = run("-c", code, bf16)
    assert r.returncode == 0, r.stderr
    assert "ML_DTYPES False True" in r.stdout


def test_hilo2penguin_help_does_not_import_jax():
    code = (
        "import sys, io, contextlib\n"
        "from hilo_mlir.tools import hilo2penguin\n"
        "buf = io.StringIO()\n"
        "try:\n"
        "    with contextlib.redirect_stdout(buf):\n"
        "        hilo2penguin.run(['--help'])\n"
        "except SystemExit as e:\n"
        "    assert e.code == 0\n"
        "assert '--enable-lower-complex' in buf.getvalue()\n"
        "print('JAXMODS', sorted(m for m in sys.modules if m == 'jax' or m.startswith('jax.')))\n"
    )
    r = run("-c", code)
    assert r.returncode == 0, r.stderr
    assert "JAXMODS []" in r.stdout


def test_hilo_opt_lists_every_pass_with_options():
    r = run("-m", "hilo_mlir.tools.opt", "--help")
    assert r.returncode == 0
    assert "--canonicalize" in r.stdout
    assert "--mhlo-to-py-penguin" in r.stdout
    assert "root=str" in r.stdout


@pytest.mark.parametrize("name", ["decoder_layer.stablehlo.mlir", "decoder_layer.hlo.pb"])
def test_hilo2penguin_examples(tmp_path, name):
    out = tmp_path / "out"
    r = run("-m", "hilo_mlir.tools.hilo2penguin", str(EXAMPLES / name), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == f"wrote {out / 'penguin.py'}"
    src = (out / "penguin.py").read_text()
    ast.parse(src)
    # nothing else left behind (no staging folder, no temporary names)
    assert sorted(p.name for p in out.iterdir()) == ["penguin.py"]


def test_hilo2penguin_bad_inputs_leave_nothing(tmp_path):
    out = tmp_path / "out"
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a : tensor<4xf32>\n}\n")
    r = run("-m", "hilo_mlir.tools.hilo2penguin", str(bad), "-o", str(out))
    assert r.returncode == 1
    # one diagnostic: file:line:col, the source line, a caret under the column
    lines = r.stderr.rstrip("\n").splitlines()
    assert lines[0].startswith(f"{bad}:2:") and "error:" in lines[0]
    assert lines[1] == "  %0 = stablehlo.add %a : tensor<4xf32>"
    assert lines[2] == " " * (int(lines[0].split(":")[2]) - 1) + "^"
    assert len(lines) == 3 and "Traceback" not in r.stderr
    assert not (out / "penguin.py").exists()

    pb = tmp_path / "bad.pb"
    pb.write_bytes(b"\x00\x01not a proto")
    r = run("-m", "hilo_mlir.tools.hilo2penguin", str(pb), "-o", str(out))
    assert r.returncode == 1
    assert "NCC_DRV001: the input is not a serialized XLA HloModuleProto" in r.stderr
    assert "Traceback" not in r.stderr

    empty = tmp_path / "empty.mlir"
    empty.write_text("")
    r = run("-m", "hilo_mlir.tools.hilo2penguin", str(empty), "-o", str(out))
    assert r.returncode == 1 and "is empty" in r.stderr

    r = run("-m", "hilo_mlir.tools.hilo2penguin", str(tmp_path / "missing.mlir"), "-o", str(out))
    assert r.returncode == 1 and "no such file" in r.stderr


def test_existing_output_folder_files_are_left_alone(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = run("-m", "hilo_mlir.tools.hilo2penguin", str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert (out / "keep.txt").read_text() == "mine"


def test_dump_pass_pipeline_is_one_pipeline_ending_in_the_printer():
    r = run("-m", "hilo_mlir.tools.hilo2penguin", "--dump-pass-pipeline")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 1 and r.stdout.startswith("builtin.module(hilo-import,")
    assert r.stdout.rstrip().endswith(
        "mhlo-to-py-penguin{inline-constant-max-elements=256 model-type=generic output= root=neuronxcc.starfish.penguin})"
    )
    r2 = run("-m", "hilo_mlir.tools.hilo2penguin", "--dump-pass-pipeline", "--spine", "stablehlo")
    assert ",stablehlo-to-py-penguin{" in r2.stdout
