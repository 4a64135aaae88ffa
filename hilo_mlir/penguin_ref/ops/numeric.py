"""The arithmetic conventions of the reference backend: how values are widened and converted.

* Floating types narrower than f32 (bf16, f16, f8) are computed in f32 and
  rounded once per op to the result type (round-to-nearest-even, ml_dtypes),
  which is what XLA CPU does for each op.
* f32 ops are computed in f64 and rounded once (``WIDE_F32``): + - * / sqrt
  are then exactly IEEE f32.
* :func:`cast` is ``convert``: float -> int truncates toward zero and
  saturates (NaN -> 0); -> bool is ``!= 0``; float -> narrower float rounds
  to nearest even.
"""

from __future__ import annotations

import numpy as np

WIDE_F32 = True  # compute f32 ops in f64, round once (see the module docstring)


class _DtypeNames(frozenset):
    """A set of dtypes by name: ``dt in NARROW_FLOATS`` without importing ``ml_dtypes`` (~1 s with 0.7),
    whose types are the only ones with these names (an array of one means it is imported already)."""

    def __contains__(self, dt) -> bool:
        try:
            return frozenset.__contains__(self, np.dtype(dt).name)
        except TypeError:
            return False


NARROW_FLOATS = _DtypeNames({"bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu"})


def is_float(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt in NARROW_FLOATS or dt.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def is_int(dt) -> bool:
    return np.dtype(dt).kind in "iu"


def widen(a: np.ndarray) -> np.ndarray:
    """bf16/f16/f8 -> f32 for computing; other dtypes unchanged."""
    a = np.asarray(a)
    if a.dtype in NARROW_FLOATS:
        return a.astype(np.float32)
    if WIDE_F32 and a.dtype == np.float32:
        return a.astype(np.float64)
    return a


def cast(a, dt) -> np.ndarray:
    """``convert`` semantics: float->int truncates and saturates (NaN -> 0); ->bool is != 0."""
    a = np.asarray(a)
    dt = np.dtype(dt)
    if a.dtype == dt:
        return a
    if dt == np.bool_:
        return a != 0
    if is_int(dt) and (is_float(a.dtype) or a.dtype.kind == "c"):
        x = widen(a.real if a.dtype.kind == "c" else a).astype(np.float64)
        info = np.iinfo(dt)
        x = np.where(np.isnan(x), 0, np.trunc(x))
        x = np.clip(x, float(info.min), float(info.max))
        out = np.empty(x.shape, dtype=dt)
        big = x >= 2.0**63
        out[...] = np.where(big, 0, x).astype(np.int64 if info.min < 0 else np.uint64).astype(dt) if x.size else x.astype(dt)
        if np.any(big):
            out[big] = info.max
        return out
    if a.dtype.kind == "c" and dt.kind != "c":
        a = a.real
    if dt in NARROW_FLOATS and a.dtype.kind in "iub":
        return a.astype(np.float64).astype(dt)
    if dt in NARROW_FLOATS and a.dtype == np.float64:
        # double rounding f64->f32->bf16 can differ from direct rounding; ml_dtypes rounds f64 directly
        return a.astype(dt)
    return a.astype(dt)
