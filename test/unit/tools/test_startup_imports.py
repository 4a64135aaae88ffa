"""Start-up budget of each tool, as the set of heavy modules it may not import (never a time).

Each case runs the tool in a fresh interpreter under ``python -X importtime``
(whose report also covers the forked compile worker of ``hilo2penguin``) and
checks that no forbidden module, nor a submodule of one, was imported:

* ``ml_dtypes`` (~1 s of CPU with 0.7): the printers decode bf16 / f8 / int4
  bit patterns with numpy alone, so no compile imports it;
* ``importlib.metadata`` (~0.2 s with its scan of every installed package):
  entry-point plugins are discovered only when a pass name is not built in,
  ``--help`` is asked or a plugin is named;
* ``jax`` (the package; only ``jaxlib.mlir`` is needed);
* for ``--help``: the bindings, numpy and every pass module too.

The numpy decoding itself is checked against ``ml_dtypes`` bit for bit here
(the test may import it; the tools may not).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import numpy as np
import pytest
from conftest import EXAMPLES, ROOT

from hilo_mlir.printers import literals

_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)\s*$", re.M)

ALWAYS = ("ml_dtypes", "importlib.metadata", "jax")
HELP = (*ALWAYS, "jaxlib", "numpy", "hilo_mlir.passmanager.registry", "hilo_mlir.passes", "hilo_mlir.printers")


def _imported(*args, cwd=ROOT) -> tuple[subprocess.CompletedProcess, set]:
    env = {k: v for k, v in os.environ.items() if k != "HILO_MLIR_NO_ENTRY_POINT_PLUGINS"}
    env["PYTHONPATH"] = str(ROOT)
    r = subprocess.run([sys.executable, "-X", "importtime", *args], capture_output=True, text=True, env=env, cwd=cwd)
    return r, set(_LINE.findall(r.stderr))


def _bad(mods: set, forbidden) -> list:
    return sorted(m for m in mods if any(m == f or m.startswith(f + ".") for f in forbidden))


_NARROW_MODULE = """func.func @main(%a: tensor<4xbf16>, %i: tensor<4xi4>) -> (tensor<4xbf16>, tensor<300xbf16>, tensor<3xf8E4M3FN>,
                                                         tensor<3xf8E5M2FNUZ>, tensor<4xi4>) {
  %c = stablehlo.constant dense<[1.5, -2.25, 0x7FC1, 3.0]> : tensor<4xbf16>
  %b = stablehlo.constant dense<BIG> : tensor<300xbf16>
  %f = stablehlo.constant dense<[448.0, -0.5, 0x7F]> : tensor<3xf8E4M3FN>
  %g = stablehlo.constant dense<[1.0, 0.25, -3.0]> : tensor<3xf8E5M2FNUZ>
  %k = stablehlo.constant dense<[1, -2, 7, -8]> : tensor<4xi4>
  %s = stablehlo.add %a, %c : tensor<4xbf16>
  %j = stablehlo.add %i, %k : tensor<4xi4>
  return %s, %b, %f, %g, %j : tensor<4xbf16>, tensor<300xbf16>, tensor<3xf8E4M3FN>, tensor<3xf8E5M2FNUZ>, tensor<4xi4>
}
"""


@pytest.mark.parametrize("tool", ["hilo_mlir.tools.hilo2penguin", "hilo_mlir.tools.opt"])
def test_help_imports_no_binding_no_pass_no_metadata(tool):
    r, mods = _imported("-m", tool, "--help")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "hilo_mlir.tools.flags" in mods  # the report is read
    assert _bad(mods, HELP) == []


#: what a compile that writes no extra file and names no plugin or unknown flag never needs: the generated Python op
#: classes of chlo and sdy (their dialects come from the extension modules), hashlib (content names of extra files,
#: plugin module names), fractions (scatter-motion's keys, only when it moves a scatter), difflib ("did you mean")
EXAMPLE_NEVER = ("jaxlib.mlir.dialects.chlo", "jaxlib.mlir.dialects.sdy", "hashlib", "fractions", "difflib")


def test_hilo2penguin_compiles_without_ml_dtypes_or_metadata(tmp_path):
    r, mods = _imported("-m", "hilo_mlir.tools.hilo2penguin", str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "-o", str(tmp_path))
    assert r.returncode == 0, r.stderr[-2000:]
    assert "hilo_mlir.printers.literals" in mods  # the worker's imports are in the report too
    assert _bad(mods, ALWAYS) == []
    assert _bad(mods, EXAMPLE_NEVER) == []
    assert "jaxlib.mlir._mlir_libs._chlo" in mods and "jaxlib.mlir._mlir_libs._sdy" in mods  # the dialects are there


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_narrow_constants_compile_without_ml_dtypes(tmp_path, spine):
    # 300 bf16 values (f32 values with the low 16 bits cleared): past the inline limit, so a .npy file
    vals = (np.arange(300, dtype=np.float32).view(np.uint32) >> 16 << 16).view(np.float32) + np.float32(1.0)
    vals = (vals.view(np.uint32) >> 16 << 16).view(np.float32)
    big = "[" + ", ".join(repr(float(v)) for v in vals) + "]"
    src = tmp_path / "narrow.mlir"
    src.write_text(_NARROW_MODULE.replace("BIG", big))
    out = tmp_path / "out"
    r, mods = _imported("-m", "hilo_mlir.tools.hilo2penguin", str(src), "-o", str(out), "--spine", spine, "--preset", "all")
    assert r.returncode == 0, r.stderr[-2000:]
    assert _bad(mods, ALWAYS) == []
    text = (out / "penguin.py").read_text()
    assert "Bits([0x3fc0, 0xc010, 0x7fc1, 0x4040])" in text  # the NaN payload keeps its bit pattern
    assert "value=[448.0, -0.5, float('nan')]" in text
    assert "value=[1.0, 0.25, -3.0]" in text
    assert "value=[1, -2, 7, -8]" in text
    npys = sorted(p for p in out.iterdir() if p.suffix == ".npy")
    assert len(npys) == 1
    raw = np.load(npys[0])
    assert raw.dtype == np.uint16 and raw.tolist() == (vals.view(np.uint32) >> 16).tolist()


def test_hilo_opt_runs_built_in_passes_without_ml_dtypes_or_metadata():
    r, mods = _imported("-m", "hilo_mlir.tools.opt", str(EXAMPLES / "decoder_layer.stablehlo.mlir"), "--cse")
    assert r.returncode == 0, r.stderr[-2000:]
    assert "hilo_mlir.passmanager.registry" in mods
    assert _bad(mods, ALWAYS) == []


_ML = {
    "bf16": "bfloat16",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E8M0FNU": "float8_e8m0fnu",
}


@pytest.mark.parametrize("es", sorted(_ML))
def test_numpy_decoding_and_rounding_equal_ml_dtypes(es):
    ml_dtypes = pytest.importorskip("ml_dtypes")
    dt = np.dtype(getattr(ml_dtypes, _ML[es]))
    store = np.dtype(f"u{dt.itemsize}")
    every = np.arange(1 << (8 * dt.itemsize)).astype(store)
    with np.errstate(invalid="ignore"):
        want = every.view(dt).astype(np.float64)
    got = literals.NarrowBits(every, es).decoded()
    assert np.array_equal(got.view(np.uint64), want.view(np.uint64))  # NaNs included, with their sign
    finite = np.unique(want[np.isfinite(want)])
    rng = np.random.default_rng(0)
    xs = np.concatenate(
        [
            finite,
            (finite[:-1] + finite[1:]) / 2,  # every tie
            np.nextafter((finite[:-1] + finite[1:]) / 2, np.inf),
            rng.standard_normal(4000) * np.exp(rng.uniform(-60, 60, 4000)),
            [np.inf, -np.inf, np.nan, -np.nan, 0.0, -0.0, 1e300, -1e300, 5e-324, -5e-324],
        ]
    )
    with np.errstate(all="ignore"):
        want_bits = xs.astype(dt).view(store)
    assert np.array_equal(literals._round_to_bits(xs, es), want_bits)


def test_int4_storage_wraps_like_ml_dtypes():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    raw = np.arange(256, dtype=np.uint8)
    from hilo_mlir.ir.binding import ir, make_context

    with make_context():
        for es, dt in (("i4", ml_dtypes.int4), ("ui4", ml_dtypes.uint4)):
            attr = ir.Attribute.parse(f'dense<"0x{raw.tobytes().hex().upper()}"> : tensor<256x{es}>')
            got = literals.dense_to_numpy(attr)
            assert isinstance(got, literals.NarrowBits) and got.element_type == es
            want = raw.astype(np.int8 if es == "i4" else np.uint8).astype(dt).astype(np.int64)
            assert got.tolist() == want.tolist()


def test_reference_backend_runs_an_f32_program_without_ml_dtypes(tmp_path):
    src = tmp_path / "f32.mlir"
    src.write_text(
        "func.func @main() -> tensor<4xf32> {\n"
        "  %c = stablehlo.constant dense<[1.5, -2.0, 0.25, 3.0]> : tensor<4xf32>\n"
        "  %0 = stablehlo.multiply %c, %c : tensor<4xf32>\n  return %0 : tensor<4xf32>\n}\n"
    )
    out = tmp_path / "out"
    r, _ = _imported("-m", "hilo_mlir.tools.hilo2penguin", str(src), "-o", str(out))
    assert r.returncode == 0, r.stderr[-2000:]
    r, mods = _imported("-m", "hilo_mlir.tools.penguin_run", str(out / "penguin.py"), "--out", str(tmp_path / "run"))
    assert r.returncode == 0, r.stderr[-2000:]
    assert "hilo_mlir.penguin_ref.ops.numeric" in mods
    assert _bad(mods, (*ALWAYS, "jaxlib")) == []
    assert np.load(tmp_path / "run" / "out0.npy").tolist() == [2.25, 4.0, 0.0625, 9.0]
