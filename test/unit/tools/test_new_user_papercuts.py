"""What a new user tripped over (issue 26 item 3), one test each: hilo-opt -o writes the program's .npy files,
single-dash long options, --mlir-print-debuginfo names the file, --help defaults, hilo-penguin-run input checks,
the polymorphic hint per entry point, 'interrupted' on Ctrl-C, hilo2penguin: prefixes."""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.tools import hilo2penguin, opt, penguin_run

_VALS = ", ".join(f"{i * 0.5:.1f}" for i in range(300))
BIG = f"""func.func @main(%a: tensor<300xf32>) -> tensor<300xf32> {{
  %c = stablehlo.constant dense<[{_VALS}]> : tensor<300xf32>
  %0 = stablehlo.add %a, %c : tensor<300xf32>
  return %0 : tensor<300xf32>
}}
"""
SMALL = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
POLY = """func.func @main(%a: tensor<?x4xf32>) -> tensor<?x4xf32> {
  return %a : tensor<?x4xf32>
}
"""


def _files(d):
    return {n: open(os.path.join(d, n), "rb").read() for n in sorted(os.listdir(d))}


def test_hilo_opt_dash_o_writes_the_npy_files_like_hilo2penguin(tmp_path, capfd):
    src = tmp_path / "big.mlir"
    src.write_text(BIG)
    assert hilo2penguin.run(["--dump-pass-pipeline"]) == 0
    pipeline = capfd.readouterr().out.strip()
    assert hilo2penguin.run([str(src), "-o", str(tmp_path / "h2p")]) == 0
    (tmp_path / "opt").mkdir()
    assert opt.run([str(src), f"--pass-pipeline={pipeline}", "-o", str(tmp_path / "opt" / "penguin.py")]) == 0
    capfd.readouterr()
    # the README's claim: hilo-opt with the dumped pipeline prints the same penguin.py -- and its files
    assert _files(tmp_path / "opt") == _files(tmp_path / "h2p")
    assert [n for n in _files(tmp_path / "opt") if n.endswith(".npy")][0].startswith("const_0.")
    # stdout cannot carry the files: refused, nothing printed
    assert opt.run([str(src), f"--pass-pipeline={pipeline}"]) == 1
    out, err = capfd.readouterr()
    assert out == ""
    assert err == (
        "hilo-opt: error: the Penguin program references 1 file (const_0.npy: constants over the printer's "
        "inline-constant-max-elements) that stdout cannot carry: write it with -o FILE (the files go beside FILE, "
        "named by content, as hilo2penguin writes them)\n"
    )
    # another program name: the files beside it too
    assert opt.run([str(src), f"--pass-pipeline={pipeline}", "-o", str(tmp_path / "opt" / "model.py")]) == 0
    assert (tmp_path / "opt" / "model.py").read_bytes() == (tmp_path / "h2p" / "penguin.py").read_bytes()


def test_single_dash_long_options_as_mlir_opt(tmp_path, capfd):
    src = tmp_path / "s.mlir"
    src.write_text(SMALL)
    assert opt.run([str(src), "--canonicalize", "--cse"]) == 0
    double = capfd.readouterr().out
    assert opt.run([str(src), "-canonicalize", "-cse"]) == 0
    assert capfd.readouterr().out == double
    assert opt.run([str(src), "-pass-pipeline=builtin.module(canonicalize,cse)", "-o", "-"]) == 0
    assert capfd.readouterr().out == double
    assert opt.run([str(src), "-frobnicate"]) == 1
    assert "unrecognized arguments: --frobnicate" in capfd.readouterr().err
    from hilo_mlir.tools.flags import long_options

    assert long_options(["-o", "-", "-j", "-3", "-xy=1", "--", "-keep"]) == ["-o", "-", "-j", "-3", "--xy=1", "--", "-keep"]


def test_print_debuginfo_names_the_file(tmp_path, capfd):
    src = tmp_path / "s.mlir"
    src.write_text(SMALL)
    assert opt.run([str(src), "--mlir-print-debuginfo"]) == 0
    out = capfd.readouterr().out
    assert f'loc("{src}":1:17)' in out and 'loc("-"' not in out


def test_help_defaults_as_pipelines_spell_them(capfd):
    assert opt.run(["--help"]) == 0
    out = capfd.readouterr().out
    assert "(default False)" not in out and "(default True)" not in out
    assert "fuse-dot-logistic=bool   (default false)" in out
    from hilo_mlir.tools.hilo2penguin import build_parser

    text = build_parser().format_help()
    assert "gates (defaults as the binary: lower-complex, sixty-four-hack and call-inliner on, the rest off)" in text


@pytest.fixture
def program(tmp_path):
    src = tmp_path / "s.mlir"
    src.write_text(SMALL)
    assert hilo2penguin.run([str(src), "-o", str(tmp_path / "p")]) == 0
    return str(tmp_path / "p" / "penguin.py")


@pytest.mark.parametrize(
    "array, message",
    [
        (np.zeros(4), "input 0 ('{p}') is float64 (4,), the program's input_0 is float32 (4,)"),
        (np.zeros(4, np.int32), "input 0 ('{p}') is int32 (4,), the program's input_0 is float32 (4,)"),
        (np.zeros((2, 2), np.float32), "input 0 ('{p}') is float32 (2, 2), the program's input_0 is float32 (4,)"),
    ],
)
def test_penguin_run_refuses_a_wrong_dtype_or_shape(program, tmp_path, capfd, array, message):
    from hilo_mlir.support.diagnostics import HiloError

    x = tmp_path / "x.npy"
    np.save(x, array)
    capfd.readouterr()
    with pytest.raises(HiloError) as e:
        penguin_run.run([program, "--inputs", str(x), "--out", str(tmp_path / "o")])
    assert e.value.message == message.format(p=x)
    assert not (tmp_path / "o").exists()


def test_penguin_run_empty_npy_and_out_a_file(program, tmp_path):
    from hilo_mlir.support.diagnostics import HiloError

    empty = tmp_path / "e.npy"
    empty.write_bytes(b"")
    with pytest.raises(HiloError, match=r"cannot read input '.*e\.npy': the file is empty \(not a \.npy array\)$"):
        penguin_run.run([program, "--inputs", str(empty), "--out", str(tmp_path / "o")])
    x = tmp_path / "x.npy"
    np.save(x, np.ones(4, np.float32))
    (tmp_path / "f").write_text("mine")
    with pytest.raises(HiloError, match=r"cannot write the outputs to '.*f': it is a file, not a folder$"):
        penguin_run.run([program, "--inputs", str(x), "--out", str(tmp_path / "f")])
    assert (tmp_path / "f").read_text() == "mine"
    assert penguin_run.run([program, "--inputs", str(x), "--out", str(tmp_path / "o")]) == 0
    assert np.load(tmp_path / "o" / "out0.npy").tolist() == [2.0] * 4


def test_polymorphic_hint_speaks_each_entry_points_language(tmp_path, capfd):
    from hilo_mlir.driver.compiler import compile_module
    from hilo_mlir.support.diagnostics import HiloError

    p = tmp_path / "poly.mlir"
    p.write_text(POLY)
    assert hilo2penguin.run([str(p), "-o", str(tmp_path / "o")]) == 1
    assert "--input-types='tensor<?x4xf32>' with every ? replaced by its size" in capfd.readouterr().err
    with pytest.raises(HiloError) as e:
        compile_module(POLY, filename="poly.mlir")
    assert e.value.message.endswith("give the static input types, input_types='tensor<?x4xf32>' with every ? replaced by its size")
    assert opt.run([str(p), "--hilo-import"]) == 1
    assert "run --stablehlo-refine-arguments='types={tensor<?x4xf32>}' --stablehlo-refine-shapes first," in capfd.readouterr().err


def test_polymorphic_artifact_hint_in_the_jax_flow():
    import jax
    import jax.numpy as jnp

    from hilo_mlir import jax as hj
    from hilo_mlir.support.diagnostics import HiloError

    (b,) = jax.export.symbolic_shape("b")
    exp = jax.export.export(jax.jit(lambda x: jnp.tanh(x)))(jax.ShapeDtypeStruct((b, 4), jnp.float32))
    with pytest.raises(HiloError) as e:
        hj.compile(exp.mlir_module_serialized, cache=False)
    msg = e.value.message
    assert "pass concrete example arguments, hj.compile(exported_or_artifact, *arrays)" in msg and "input_types" not in msg
    prog = hj.compile(exp.mlir_module_serialized, jnp.ones((2, 4), jnp.float32), cache=False)
    assert np.allclose(prog.run(np.ones((2, 4), np.float32))[0], np.tanh(np.ones((2, 4))))


# A pass that announces it is running, then waits: the signal lands inside the compile, for sure
# (no sleep racing the process). It runs in the forked worker; the parent gets the SIGINT.
STALL_PLUGIN = """\
import time

from hilo_mlir import PassInfo, register


def run(func_op, ctx):
    with open({ready!r}, "w") as f:
        f.write("running")
    time.sleep(600)


register(PassInfo("test-stall", "Announce, then wait (a test's fixed point inside a compile)", run))
"""


def test_sigint_during_a_single_compile_prints_one_line(tmp_path):
    ready = tmp_path / "ready"
    plugin = tmp_path / "stall.py"
    plugin.write_text(STALL_PLUGIN.format(ready=str(ready)))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hilo_mlir.tools.hilo2penguin",
            str(EXAMPLES / "decoder_layer.hlo.pb"),
            "-o",
            str(tmp_path / "o"),
            f"--load-pass-plugin={plugin}",
            "--insert-pass-after",
            "3=test-stall",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 300
        while not ready.exists():  # polls a file the compile writes; bounded, not a race
            if p.poll() is not None or time.monotonic() > deadline:
                out, err = p.communicate(timeout=60)
                pytest.fail(f"the compile never reached the stalling pass: rc={p.returncode} {out!r} {err!r}")
            time.sleep(0.05)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
    assert (p.returncode, out, err) == (130, "", "hilo2penguin: interrupted\n")
    assert not (tmp_path / "o" / "penguin.py").exists()


LU = """module @jit_f {
  func.func public @main(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0:3 = stablehlo.custom_call @lapack_sgetrf_ffi(%arg0) : (tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xi32>, tensor<i32>) loc(#loc3)
    return %0#0 : tensor<4x4xf32>
  }
}
#loc3 = loc("lu")
"""


def test_name_only_location_names_the_file(tmp_path, capfd):
    from hilo_mlir.driver.compiler import compile_module
    from hilo_mlir.support.diagnostics import HiloError

    p = tmp_path / "lu.mlir"
    p.write_text(LU)
    want = f"{p}: error: unsupported custom_call target 'lapack_sgetrf_ffi' (at 'lu')"
    assert hilo2penguin.run([str(p), "-o", str(tmp_path / "o")]) == 1
    assert capfd.readouterr().err == want + "\n"
    assert opt.run([str(p), "--hilo-import"]) == 1
    assert capfd.readouterr().err == want + "\n"
    with pytest.raises(HiloError) as e:
        compile_module(LU, filename="x.mlir")
    assert e.value.format() == "x.mlir: error: unsupported custom_call target 'lapack_sgetrf_ffi' (at 'lu')"
    assert capfd.readouterr().err == ""  # no spurious twin warning when the API rejects a module
    assert HiloError("m", loc='loc("lu")').render(tool="hilo-opt") == "hilo-opt: error: m (at 'lu')"


def test_no_twin_warning_with_mlir_timing_on_the_stablehlo_spine(tmp_path, capfd):
    p = tmp_path / "s.mlir"
    p.write_text(SMALL)
    assert hilo2penguin.run([str(p), "-o", str(tmp_path / "o"), "--spine", "stablehlo", "--mlir-timing", "--preset", "all"]) == 0
    err = capfd.readouterr().err
    assert "Execution time report" in err and "warning" not in err


PLUGIN = """from hilo_mlir import PassInfo, register


def _helper(op):
    raise ValueError("boom in the plugin")


def _run(op, ctx):
    _helper(op)


register(PassInfo("raise-in-plugin", "raises", _run, anchor="func.func", dialect=None))
"""


def test_plugin_failure_shows_the_plugins_frames(tmp_path, capfd):
    plug = tmp_path / "plug.py"
    plug.write_text(PLUGIN)
    p = tmp_path / "s.mlir"
    p.write_text(SMALL)
    repro = tmp_path / "r.mlir"
    code = opt.run([str(p), f"--load-pass-plugin={plug}", "--raise-in-plugin", f"--mlir-pass-pipeline-crash-reproducer={repro}"])
    assert code == 1
    err = capfd.readouterr().err
    assert err.splitlines() == [
        f"{plug}:5:5: error: pass 'raise-in-plugin' (plugin {plug}) failed: ValueError: boom in the plugin",
        '    raise ValueError("boom in the plugin")',
        "    ^",
        f"{plug}:9:5: note: called from '_run'",
        "    _helper(op)",
        "    ^",
        f"hilo-opt: note: Pipeline failed while executing [`RaiseInPlugin` on 'func.func' operation]: reproducer generated at `{repro}`",
    ]
    code = hilo2penguin.run(
        [str(p), "-o", str(tmp_path / "o"), f"--load-pass-plugin={plug}", "--insert-pass-after=call-inliner=raise-in-plugin"]
    )
    assert code == 1
    err = capfd.readouterr().err
    assert err.startswith(f"{plug}:5:5: error: pass 'raise-in-plugin' (plugin {plug}) failed: ValueError: boom in the plugin\n")
    assert f"{plug}:9:5: note: called from '_run'" in err


TWO_OUTPUTS = """
func.func @main(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  %1 = stablehlo.multiply %a, %a : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}
"""


def test_penguin_run_writes_all_outputs_or_none(tmp_path):
    """An output that cannot be written (out1.npy is a folder) is one error naming it, and out0.npy is not left behind."""
    from hilo_mlir.support.diagnostics import HiloError

    src = tmp_path / "two.mlir"
    src.write_text(TWO_OUTPUTS)
    assert hilo2penguin.run([str(src), "-o", str(tmp_path / "p")]) == 0
    x = tmp_path / "x.npy"
    np.save(x, np.full(4, 3.0, np.float32))
    out = tmp_path / "o"
    (out / "out1.npy").mkdir(parents=True)
    with pytest.raises(HiloError, match=r"cannot write output file '.*out1\.npy': Is a directory$"):
        penguin_run.run([str(tmp_path / "p" / "penguin.py"), "--inputs", str(x), "--out", str(out)])
    assert sorted(p.name for p in out.iterdir()) == ["out1.npy"]
    (out / "out1.npy").rmdir()
    assert penguin_run.run([str(tmp_path / "p" / "penguin.py"), "--inputs", str(x), "--out", str(out)]) == 0
    assert np.load(out / "out0.npy").tolist() == [6.0] * 4 and np.load(out / "out1.npy").tolist() == [9.0] * 4
    assert sorted(p.name for p in out.iterdir()) == ["out0.npy", "out1.npy"]
