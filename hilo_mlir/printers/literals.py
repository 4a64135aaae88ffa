"""Dense constants -> numpy arrays and their Penguin rendering (docs/penguin_format.md section 5a).

``dense_to_numpy(attr)`` turns any static dense elements attribute into a
numpy array of the element type (``ml_dtypes`` for bfloat16 / float8 / int4).
The binding converts the numpy-native types directly; the others
(``bf16``, ``f8*``, ``complex``, ``i4``) are read from the attribute's
text, which MLIR prints either as a ``"0x..."`` little-endian raw-data blob
(large attributes) or as round-trip-exact decimal / per-element hex values.

``python_literal(arr)`` renders an array (or a scalar) as a Python literal
whose conversion to the element type gives the elements back exactly,
except NaN payloads: :func:`has_nan_payload` tells when an array holds a
NaN other than the one ``float('nan')`` / ``float('-nan')`` converts to, and
:func:`bits_literal` renders the elements' bit patterns instead.
``npy_bytes(arr)`` is the ``.npy`` file content (bfloat16 and float8 as
their unsigned bit patterns, int4 as int8). Floating values are read and
converted bit for bit, so a signalling NaN neither loses its payload nor
raises a floating-point warning.
"""

from __future__ import annotations

import io
import math
import re

import numpy as np

from hilo_mlir.support.diagnostics import HiloError

#: numpy's largest array rank: a constant of higher rank is a located error
MAX_RANK = 64

#: MLIR element type -> numpy dtype, for the types numpy itself has.
_NUMPY_DTYPES = {
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "f16": np.dtype(np.float16),
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "ui8": np.dtype(np.uint8),
    "ui16": np.dtype(np.uint16),
    "ui32": np.dtype(np.uint32),
    "ui64": np.dtype(np.uint64),
    "complex<f32>": np.dtype(np.complex64),
    "complex<f64>": np.dtype(np.complex128),
}

#: MLIR element type -> the ``ml_dtypes`` type of its elements (imported on first need: ~1 s with ml_dtypes 0.7).
_ML_DTYPES = {
    "bf16": "bfloat16",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2": "float8_e5m2",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E8M0FNU": "float8_e8m0fnu",
    "i4": "int4",
    "ui4": "uint4",
}


def np_dtype(element_type: str) -> np.dtype | None:
    """The numpy dtype of an MLIR element type (``"bf16"`` -> ``ml_dtypes.bfloat16``), or None if there is none."""
    dt = _NUMPY_DTYPES.get(element_type)
    if dt is None and element_type in _ML_DTYPES:
        import ml_dtypes

        dt = _NUMPY_DTYPES[element_type] = np.dtype(getattr(ml_dtypes, _ML_DTYPES[element_type]))
    return dt


# element types the binding's buffer protocol converts directly
_NATIVE = {"f32", "f64", "f16", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"}

# storage dtype of the hex blob / of the .npy file for types numpy cannot name
_BITS = {
    "bf16": np.dtype(np.uint16),
    "f8E4M3FN": np.dtype(np.uint8),
    "f8E5M2": np.dtype(np.uint8),
    "f8E4M3FNUZ": np.dtype(np.uint8),
    "f8E5M2FNUZ": np.dtype(np.uint8),
    "f8E8M0FNU": np.dtype(np.uint8),
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
    from hilo_mlir.ir.binding import ir

    t = attr.type
    loc = getattr(where, "location", where)
    try:
        rt = ir.RankedTensorType(t)
    except (ValueError, TypeError):
        raise HiloError(f"constant of type {t} is not a ranked tensor", loc=loc) from None
    if not rt.has_static_shape:
        raise HiloError(f"constant of dynamic type {t} is not supported", loc=loc)
    if rt.rank > MAX_RANK:
        raise HiloError(f"a constant of rank {rt.rank} is not supported (at most {MAX_RANK} dimensions)", loc=loc)
    es = str(rt.element_type)
    shape = tuple(rt.shape)
    dt = np_dtype(es)
    if dt is None:
        raise HiloError(f"constant element type {es} is not supported", loc=loc)
    down = attr.maybe_downcast() if hasattr(attr, "maybe_downcast") else attr
    if es in _NATIVE and isinstance(down, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr)):
        dense = ir.DenseElementsAttr(attr)
        if dense.is_splat:
            value = _scalar_attr(dense.get_splat_value())
            if not (isinstance(value, float) and math.isnan(value)):  # a NaN's payload is in the text only
                return np.full(shape, value, dtype=dt)
            return _from_text(str(attr), es, shape, dt, loc)
        arr = np.array(dense)
        return arr.astype(dt, copy=False).reshape(shape)
    return _from_text(str(attr), es, shape, dt, loc)


def dense_text_to_numpy(text: str, t, where=None) -> np.ndarray:
    """Like :func:`dense_to_numpy` from the attribute's text (``dense<...> : tensor<...>``) and type ``t``.

    Used for attributes the binding cannot hand to Python (dense complex
    attributes raise ``TypeError`` on access).
    """
    from hilo_mlir.ir.binding import ir

    loc = getattr(where, "location", where)
    rt = ir.RankedTensorType(t)
    es = str(rt.element_type)
    dt = np_dtype(es)
    if dt is None or not rt.has_static_shape or rt.rank > MAX_RANK:
        raise HiloError(f"constant of type {t} is not supported", loc=loc)
    i = text.find("dense<")
    if i < 0:
        raise HiloError("constant value is not a dense elements attribute", loc=loc)
    return _from_text(text[i:], es, tuple(rt.shape), dt, loc)


def _scalar_attr(a):
    from hilo_mlir.ir.binding import ir

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
    payload = text[len("dense<") : end].strip()
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
    toks = list(_TOKEN.finditer(payload))
    if len(toks) != n and len(toks) != 1:
        raise HiloError(f"constant has {len(toks)} elements, type needs {n}", loc=loc)
    if dt.kind == "c" or es in _BITS or dt.kind == "f":
        arr = _float_elements(toks, es, dt)
        if arr.size == 1 and n != 1:
            arr = np.repeat(arr, n)
        return arr.reshape(shape)
    vals = []
    for m in toks:
        if m.group(3) is not None:
            vals.append(m.group(3) == "true")
        elif m.group(4) is not None:
            vals.append(_hex_elem(m.group(4), es, dt))
        else:
            vals.append(_num(m.group(5), es, dt))
    if len(vals) == 1 and n != 1:
        return np.full(shape, vals[0], dtype=dt)
    return np.array(vals, dtype=dt).reshape(shape)


def _float_elements(toks, es: str, dt) -> np.ndarray:
    """Floating (or complex) elements from their tokens, flat: a hex token is the element's bit pattern
    (taken bit for bit), a decimal one is rounded once to the element type."""
    comp, ces = dt, es
    if dt.kind == "c":
        comp = np.dtype(np.float32 if dt.itemsize == 8 else np.float64)
        ces = "f32" if dt.itemsize == 8 else "f64"
        parts = []
        for m in toks:
            if m.group(1) is None:  # a complex element printed as one real number
                parts += [m.group(0), "0.0"]
            else:
                parts += [m.group(1).strip(), m.group(2).strip()]
    else:
        parts = [m.group(0).strip() for m in toks]
    store = _BITS.get(ces) or np.dtype(f"u{comp.itemsize}")
    is_hex = np.array([t.startswith("0x") for t in parts], dtype=bool)
    hex_bits = np.array([int(t, 16) if h else 0 for t, h in zip(parts, is_hex)], dtype=store)
    decimals = np.array([0.0 if h else float(t) for t, h in zip(parts, is_hex)], dtype=np.float64)
    with np.errstate(all="ignore"):  # decimals out of range become inf, as the parser made them
        dec_bits = decimals.astype(comp).view(store)
    return np.where(is_hex, hex_bits, dec_bits).astype(store).view(comp).view(dt)


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
        with np.errstate(invalid="ignore"):  # a signalling NaN widens to a quiet one without a warning
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


def _bit_view(arr: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(arr).view(np.dtype(f"u{arr.dtype.itemsize}"))


def has_nan_payload(arr: np.ndarray) -> bool:
    """True if a real floating array holds a NaN that ``float('nan')`` / ``float('-nan')`` would not give back."""
    arr = np.asarray(arr)
    if arr.dtype.kind in "biuc" or arr.dtype.name in ("int4", "uint4") or arr.size == 0:
        return False
    with np.errstate(invalid="ignore"):
        nan = np.isnan(arr.astype(np.float64))
        if not nan.any():
            return False
        canonical = _bit_view(np.array([math.nan, -math.nan], dtype=np.float64).astype(arr.dtype))
    bits = _bit_view(arr)[nan]
    return bool(np.any((bits != canonical[0]) & (bits != canonical[1])))


def bits_literal(arr: np.ndarray) -> str:
    """The elements' bit patterns (unsigned, the element's width) as hex literals in the array's shape."""
    bits = _bit_view(np.asarray(arr)).reshape(np.shape(arr))
    width = 2 * bits.dtype.itemsize

    def lit(x):
        if isinstance(x, list):
            return "[" + ", ".join(lit(e) for e in x) + "]"
        return f"0x{x:0{width}x}"

    return lit(bits.tolist())


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
