"""Dense constants -> numpy arrays and their Penguin rendering (docs/penguin_format.md section 5a).

``dense_to_numpy(attr)`` turns any static dense elements attribute into a
numpy array of the element type (``ml_dtypes`` for bfloat16 / float8 / int4).
The binding converts the numpy-native types directly; the others
(``bf16``, ``f8*``, ``complex``, ``i4``) are read from the attribute's
text, which MLIR prints either as a ``"0x..."`` little-endian raw-data blob
(large attributes) or as round-trip-exact decimal / per-element hex values.

``python_literal(arr)`` renders an array (or a scalar) as a Python literal
whose conversion to the element type gives the elements back exactly
(except NaN payloads). ``npy_bytes(arr)`` is the ``.npy`` file content
(bfloat16 and float8 as their unsigned bit patterns, int4 as int8).
"""

from __future__ import annotations

import io
import math
import re

import ml_dtypes
import numpy as np

from ..diagnostics import HiloError

#: MLIR element type -> numpy dtype.
NP_DTYPES = {
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64), "f16": np.dtype(np.float16),
    "bf16": np.dtype(ml_dtypes.bfloat16),
    "f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn), "f8E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "f8E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz), "f8E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "f8E8M0FNU": np.dtype(ml_dtypes.float8_e8m0fnu),
    "i1": np.dtype(np.bool_), "i4": np.dtype(ml_dtypes.int4), "ui4": np.dtype(ml_dtypes.uint4),
    "i8": np.dtype(np.int8), "i16": np.dtype(np.int16), "i32": np.dtype(np.int32), "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8), "ui16": np.dtype(np.uint16), "ui32": np.dtype(np.uint32), "ui64": np.dtype(np.uint64),
    "complex<f32>": np.dtype(np.complex64), "complex<f64>": np.dtype(np.complex128),
}

# element types the binding's buffer protocol converts directly
_NATIVE = {"f32", "f64", "f16", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"}

# storage dtype of the hex blob / of the .npy file for types numpy cannot name
_BITS = {
    "bf16": np.dtype(np.uint16),
    "f8E4M3FN": np.dtype(np.uint8), "f8E5M2": np.dtype(np.uint8), "f8E4M3FNUZ": np.dtype(np.uint8),
    "f8E5M2FNUZ": np.dtype(np.uint8), "f8E8M0FNU": np.dtype(np.uint8),
}

_TOKEN = re.compile(
    r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)"  # complex (re,im)
    r"|(true|false)"
    r"|(0x[0-9A-Fa-f]+)"
    r"|([-+]?(?:inf|nan|\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?))"
)


def dense_to_numpy(attr, where=None) -> np.ndarray:
    """The elements of a dense elements attribute as a numpy array of its shape.

    Raises:
        HiloError: an element type without a numpy dtype, a dynamic shape, or
            an attribute that is not dense (e.g. ``dense_resource``), located at
            ``where`` (an op or location).
    """
    from ..ir import ir

    t = attr.type
    loc = getattr(where, "location", where)
    try:
        rt = ir.RankedTensorType(t)
    except (ValueError, TypeError):
        raise HiloError(f"constant of type {t} is not a ranked tensor", loc=loc) from None
    if not rt.has_static_shape:
        raise HiloError(f"constant of dynamic type {t} is not supported", loc=loc)
    es = str(rt.element_type)
    shape = tuple(rt.shape)
    dt = NP_DTYPES.get(es)
    if dt is None:
        raise HiloError(f"constant element type {es} is not supported", loc=loc)
    down = attr.maybe_downcast() if hasattr(attr, "maybe_downcast") else attr
    if es in _NATIVE and isinstance(down, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)):
        dense = ir.DenseElementsAttr(attr)
        if dense.is_splat:
            return np.full(shape, _scalar_attr(dense.get_splat_value()), dtype=dt)
        arr = np.array(dense)
        return arr.astype(dt, copy=False).reshape(shape)
    return _from_text(str(attr), es, shape, dt, loc)


def dense_text_to_numpy(text: str, t, where=None) -> np.ndarray:
    """Like :func:`dense_to_numpy` from the attribute's text (``dense<...> : tensor<...>``) and type ``t``.

    Used for attributes the binding cannot hand to Python (dense complex
    attributes raise ``TypeError`` on access).
    """
    from ..ir import ir

    loc = getattr(where, "location", where)
    rt = ir.RankedTensorType(t)
    es = str(rt.element_type)
    dt = NP_DTYPES.get(es)
    if dt is None or not rt.has_static_shape:
        raise HiloError(f"constant of type {t} is not supported", loc=loc)
    i = text.find("dense<")
    if i < 0:
        raise HiloError("constant value is not a dense elements attribute", loc=loc)
    return _from_text(text[i:], es, tuple(rt.shape), dt, loc)


def _scalar_attr(a):
    from ..ir import ir

    a = a.maybe_downcast() if hasattr(a, "maybe_downcast") else a
    if isinstance(a, ir.BoolAttr):
        return bool(a.value)
    if isinstance(a, ir.IntegerAttr):
        return int(a.value)
    if isinstance(a, ir.FloatAttr):
        return float(a.value)
    raise ValueError(str(a))


def _from_text(text: str, es: str, shape, dt, loc) -> np.ndarray:
    if not text.startswith("dense<"):
        raise HiloError(f"constant attribute '{text[:60]}' is not a dense elements attribute", loc=loc)
    end = text.rfind("> :")
    payload = text[len("dense<"):end].strip()
    n = int(np.prod(shape, dtype=np.int64))
    if payload.startswith('"0x'):
        raw = bytes.fromhex(payload[3:-1])
        store = _BITS.get(es, dt)
        if es in ("i4", "ui4"):
            store = np.dtype(np.int8 if es == "i4" else np.uint8)
        arr = np.frombuffer(raw, dtype=store)
        if arr.size == 1 and n != 1:
            arr = np.full(n, arr[0], dtype=store)
        if arr.size != n:
            raise HiloError(f"constant data has {arr.size} elements, type needs {n}", loc=loc)
        arr = arr.view(dt) if es in _BITS else arr.astype(dt)
        return arr.reshape(shape).copy()
    vals = []
    for m in _TOKEN.finditer(payload):
        if m.group(1) is not None:
            vals.append(complex(_num(m.group(1), es, dt), _num(m.group(2), es, dt)))
        elif m.group(3) is not None:
            vals.append(m.group(3) == "true")
        elif m.group(4) is not None:
            vals.append(_hex_elem(m.group(4), es, dt))
        else:
            vals.append(_num(m.group(5), es, dt))
    if len(vals) == 1 and n != 1:
        return np.full(shape, vals[0], dtype=dt)
    if len(vals) != n:
        raise HiloError(f"constant has {len(vals)} elements, type needs {n}", loc=loc)
    if es in _BITS:
        return np.array(vals, dtype=np.float64).astype(dt).reshape(shape)
    return np.array(vals, dtype=dt).reshape(shape)


def _num(tok: str, es: str, dt):
    tok = tok.strip()
    if tok.startswith("0x"):
        return _hex_elem(tok, es, dt)
    if dt.kind in "iub":
        return int(tok)
    return float(tok)


def _hex_elem(tok: str, es: str, dt):
    bits = int(tok, 16)
    comp = dt
    if dt.kind == "c":
        comp = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
    store = _BITS.get(es)
    if store is None:
        store = np.dtype(f"u{comp.itemsize}")
    val = np.array([bits], dtype=store).view(comp if es not in _BITS else dt)[0]
    return float(val) if dt.kind in "fc" or es in _BITS else int(val)


def python_literal(value) -> str:
    """A scalar or array as Python source (nested lists; ``float('nan')`` etc. for non-finite)."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "c":
            obj = value.astype(np.complex128).tolist()
        elif value.dtype.kind == "b":
            obj = value.tolist()
        elif value.dtype.kind in "iu" and value.dtype.itemsize <= 8 and value.dtype.name not in ("int4", "uint4"):
            obj = value.tolist()
        elif value.dtype.name in ("int4", "uint4"):
            obj = value.astype(np.int64).tolist()
        else:
            obj = value.astype(np.float64).tolist()
        return _lit(obj)
    if isinstance(value, np.generic):
        return python_literal(np.asarray(value))
    return _lit(value)


def _lit(x) -> str:
    if isinstance(x, list):
        return "[" + ", ".join(_lit(e) for e in x) + "]"
    if isinstance(x, bool):
        return "True" if x else "False"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            # keep the sign bit: total-order sorts and compares see it
            return "float('-nan')" if math.copysign(1.0, x) < 0 else "float('nan')"
        if math.isinf(x):
            return "float('inf')" if x > 0 else "float('-inf')"
        return repr(x)
    if isinstance(x, complex):
        return f"complex({_lit(x.real)}, {_lit(x.imag)})"
    return repr(x)


def npy_bytes(arr: np.ndarray) -> bytes:
    """The ``.npy`` file for ``arr`` (bfloat16/float8 as unsigned bit patterns, int4/uint4 as int8/uint8)."""
    name = arr.dtype.name
    if name == "bfloat16":
        arr = arr.view(np.uint16)
    elif name.startswith("float8"):
        arr = arr.view(np.uint8)
    elif name == "int4":
        arr = arr.astype(np.int8)
    elif name == "uint4":
        arr = arr.astype(np.uint8)
    buf = io.BytesIO()
    np.save(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()
