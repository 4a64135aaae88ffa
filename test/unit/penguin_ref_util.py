"""Shared helpers for the penguin_ref tests: print a module with both printers, run it, compare."""

from __future__ import annotations

import numpy as np

from hilo_mlir import penguin_ref
from hilo_mlir.driver.compiler import load_module, to_mhlo
from hilo_mlir.printers import print_program
from hilo_mlir.testing import evaluate


def programs(text: str) -> dict:
    """``{"stablehlo": (source, files), "mhlo": (source, files)}``: ``text`` printed by each printer twin."""
    out = {}
    for dialect in ("stablehlo", "mhlo"):
        lm = load_module(text, "test.mlir")
        if dialect == "mhlo":
            to_mhlo(lm)
        with lm.context:
            out[dialect] = print_program(lm.module, dialect, filename="test.mlir")
    return out


def _bits(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.dtype == np.bool_:
        return a.astype(np.uint8)
    return a.view(np.dtype(f"u{a.dtype.itemsize}")) if a.dtype.kind != "c" else a.view(np.uint8)


def ulp_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between two float arrays of one dtype (NaN vs NaN = 0)."""
    sdt = np.dtype(f"i{a.dtype.itemsize}")
    ia = np.ascontiguousarray(a).view(sdt).astype(np.int64)
    ib = np.ascontiguousarray(b).view(sdt).astype(np.int64)
    top = np.int64(1) << np.int64(a.dtype.itemsize * 8 - 1)
    ia = np.where(ia < 0, -(ia + top), ia)
    ib = np.where(ib < 0, -(ib + top), ib)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(both_nan, 0, d)


def assert_same(got: np.ndarray, want: np.ndarray, ulps: int = 0, what: str = "") -> None:
    """Same dtype and shape; bit-identical (NaNs equal), or floats within ``ulps`` units in the last place."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
    assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    is_float = want.dtype.kind == "f" or want.dtype.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")
    if is_float:
        d = ulp_distance(got, want)
        assert int(d.max(initial=0)) <= ulps, f"{what}: {int(d.max())} ulps apart\ngot  {got!r}\nwant {want!r}"
    else:
        assert np.array_equal(_bits(got), _bits(want)), f"{what}:\ngot  {got!r}\nwant {want!r}"


def assert_close(got, want, rtol, atol, what=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    assert np.allclose(g, w, rtol=rtol, atol=atol, equal_nan=True), f"{what}: max |d| {np.nanmax(np.abs(g - w))}"


def check(text: str, inputs: list, ulps: int = 0, expected: list | None = None, close=None) -> list:
    """Run ``text`` through both printers and the backend; compare with the StableHLO interpreter.

    ``close=(rtol, atol)`` compares with a tolerance instead of ulps (accumulations: dot,
    convolution, where the interpreter sums sequentially in f32). Returns the backend's
    outputs (stablehlo printer).
    """
    want = expected if expected is not None else evaluate(text, inputs)
    first = None
    for dialect, (src, files) in programs(text).items():
        got = penguin_ref.run(src, inputs, files=files)
        assert len(got) == len(want), f"{dialect}: {len(got)} results, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            if close is not None:
                assert_close(g, w, *close, what=f"{dialect} printer, result {i}")
            else:
                assert_same(g, w, ulps, what=f"{dialect} printer, result {i}")
        first = first or got
    return first
