"""Dense constants -> numpy arrays and their Penguin rendering (docs/penguin_format.md section 5a).

``dense_to_numpy(attr)`` turns any static dense elements attribute into a
numpy array of the element type; for the types numpy cannot name (bfloat16,
float8, int4) a :class:`NarrowBits` array of their bit patterns, decoded with
numpy alone (``ml_dtypes`` costs ~1 s to import and is not needed to print).
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
_NUMPY_DTYPES: dict[str, np.dtype] = {
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


class NarrowBits(np.ndarray):
    """The elements of a type numpy cannot name, as their bit patterns: ``bf16`` as uint16, ``f8*`` as
    uint8, ``i4`` as int8 (sign-extended), ``ui4`` as uint8; ``element_type`` is the MLIR element type.

    Shape operations (``reshape``, indexing, ``copy``) keep the element type; :meth:`decoded` is the
    exact value array (float64 for floats, int64 for int4); ``tolist()`` gives Python floats / ints,
    as an ``ml_dtypes`` array would.
    """

    element_type: str

    def __new__(cls, bits: np.ndarray, element_type: str) -> NarrowBits:
        obj = np.asarray(bits).view(cls)
        obj.element_type = element_type
        return obj

    def __array_finalize__(self, obj) -> None:
        self.element_type = getattr(obj, "element_type", "")

    @property
    def bits(self) -> np.ndarray:
        """The bit patterns (uint16 / uint8; int4 as int8) as a plain array."""
        return self.view(np.ndarray)

    def decoded(self) -> np.ndarray:
        """The exact values: float64 (a NaN keeps its sign, not its payload) or int64 (int4)."""
        b = self.bits
        if self.element_type in ("i4", "ui4"):
            return b.astype(np.int64)
        if self.element_type == "bf16":
            with np.errstate(invalid="ignore"):  # a signalling NaN widens to a quiet one (its sign kept)
                return (b.astype(np.uint32) << np.uint32(16)).view(np.float32).astype(np.float64)
        return _f8_table(self.element_type)[b]

    def tolist(self):
        return self.decoded().tolist()


#: float8 formats: (exponent bits, mantissa bits, bias, how NaN / inf are encoded)
_F8_FORMATS = {
    "f8E4M3FN": (4, 3, 7, "fn"),  # no inf; S.1111.111 is NaN
    "f8E5M2": (5, 2, 15, "ieee"),  # IEEE: all-ones exponent is inf (mantissa 0) or NaN
    "f8E4M3FNUZ": (4, 3, 8, "fnuz"),  # no inf, no -0: 0x80 is the one NaN
    "f8E5M2FNUZ": (5, 2, 16, "fnuz"),
    "f8E8M0FNU": (8, 0, 127, "e8m0"),  # unsigned powers of two; 0xFF is NaN
}
_F8_TABLES: dict[str, np.ndarray] = {}


def _f8_table(element_type: str) -> np.ndarray:
    """The 256 values of a float8 type (float64, indexed by bit pattern); NaNs carry the sign ``ml_dtypes`` gives."""
    table = _F8_TABLES.get(element_type)
    if table is not None:
        return table
    ebits, mbits, bias, kind = _F8_FORMATS[element_type]
    vals = []
    for b in range(256):
        if kind == "e8m0":
            vals.append(math.nan if b == 0xFF else math.ldexp(1.0, b - bias))
            continue
        sign = -1.0 if b & 0x80 else 1.0
        e = (b >> mbits) & ((1 << ebits) - 1)
        m = b & ((1 << mbits) - 1)
        if kind == "fnuz" and b == 0x80:
            vals.append(-math.nan)
            continue
        if kind == "fn" and e == (1 << ebits) - 1 and m == (1 << mbits) - 1:
            vals.append(math.copysign(math.nan, sign))
            continue
        if kind == "ieee" and e == (1 << ebits) - 1:
            vals.append(sign * math.inf if m == 0 else math.copysign(math.nan, sign))
            continue
        if e == 0:
            vals.append(sign * math.ldexp(m, 1 - bias - mbits))
        else:
            vals.append(sign * math.ldexp(m + (1 << mbits), e - bias - mbits))
    table = _F8_TABLES[element_type] = np.array(vals, dtype=np.float64)
    return table


_ROUNDING: dict[str, tuple] = {}


def _rounding_tables(es: str) -> tuple:
    """(positive finite values ascending, their bit patterns, the storage dtype) of a narrow float type."""
    t = _ROUNDING.get(es)
    if t is None:
        if es == "bf16":
            bits = np.arange(0x8000, dtype=np.uint32)
            with np.errstate(invalid="ignore"):
                vals = (bits << np.uint32(16)).view(np.float32).astype(np.float64)
        else:
            bits = np.arange(0x80, dtype=np.uint32)
            vals = _f8_table(es)[:0x80]
        keep = np.isfinite(vals)
        t = _ROUNDING[es] = (vals[keep], bits[keep], _BITS[es])
    return t


def _round_to_bits(x: np.ndarray, es: str) -> np.ndarray:
    """float64 values rounded once to the narrow float type ``es`` (nearest, ties to even), as bit patterns.

    What ``ml_dtypes``' conversion gives: past the largest finite value
    (rounding up), ``bf16``/``f8E5M2`` give inf, ``f8E4M3FN`` NaN and the
    ``FNUZ`` types their one NaN; NaN gives the canonical NaN of its sign; the
    ``FNUZ`` types have no -0.
    """
    if es == "f8E8M0FNU":  # rare enough (a decimal f8E8M0FNU constant) to leave to ml_dtypes
        import ml_dtypes

        with np.errstate(all="ignore"):
            return x.astype(ml_dtypes.float8_e8m0fnu).view(np.uint8)
    vals, bits, store = _rounding_tables(es)
    fnuz = es.endswith("FNUZ")
    mag = np.abs(x)
    neg = np.signbit(x)
    finite = np.isfinite(mag)
    m = np.where(finite, mag, 0.0)
    hi = np.clip(np.searchsorted(vals, m, side="left"), 0, len(vals) - 1)  # first value >= m
    lo = np.maximum(hi - 1, 0)
    d_hi, d_lo = vals[hi] - m, m - vals[lo]
    take_lo = (hi > 0) & ((d_lo < d_hi) | ((d_lo == d_hi) & (bits[lo] % 2 == 0)))
    out = np.where(take_lo, bits[lo], bits[hi]).astype(np.uint32)
    # past the largest finite value: the pattern above it (bits[-1] + 1) is inf / NaN; a tie goes to the even one
    top_next = int(bits[-1]) + 1
    half = vals[-1] + (vals[-1] - vals[-2]) / 2
    over = (m > half) | ((m == half) & (top_next % 2 == 0)) | ~finite
    if not fnuz:
        out = np.where(over, np.uint32(top_next if es in ("bf16", "f8E5M2") else 0x7F), out)  # inf, or E4M3FN's NaN
    out = np.where(neg, out | np.uint32(0x8000 if es == "bf16" else 0x80), out)
    if fnuz:  # no -0, one NaN (0x80) for overflow, inf and NaN
        out = np.where(out == 0x80, np.uint32(0), out)
        out = np.where(over, np.uint32(0x80), out)
    else:
        pos_nan, neg_nan = _CANONICAL_NAN_BITS[es]
        out = np.where(np.isnan(x), np.where(neg, np.uint32(neg_nan), np.uint32(pos_nan)), out)
    return out.astype(store)


#: the bit patterns ``float('nan')`` and ``float('-nan')`` convert to, per narrow float type
_CANONICAL_NAN_BITS = {
    "bf16": (0x7FC0, 0xFFC0),
    "f8E4M3FN": (0x7F, 0xFF),
    "f8E5M2": (0x7E, 0xFE),
    "f8E4M3FNUZ": (0x80, 0x80),
    "f8E5M2FNUZ": (0x80, 0x80),
    "f8E8M0FNU": (0xFF, 0xFF),
}


def np_dtype(element_type: str) -> np.dtype | None:
    """The numpy dtype of an MLIR element type (``"bf16"`` -> ``ml_dtypes.bfloat16``), or None if there is none."""
    dt = _NUMPY_DTYPES.get(element_type) or _ML_NUMPY_DTYPES.get(element_type)
    if dt is None and element_type in _ML_DTYPES:
        import ml_dtypes

        # kept apart from _NUMPY_DTYPES: the constant decoder reads narrow types as bit patterns
        # (_NARROW_STORE) and must not see ml_dtypes' types once they are imported
        dt = _ML_NUMPY_DTYPES[element_type] = np.dtype(getattr(ml_dtypes, _ML_DTYPES[element_type]))
    return dt


#: the ml_dtypes types :func:`np_dtype` has looked up (filled on first need)
_ML_NUMPY_DTYPES: dict[str, np.dtype] = {}


# element types the binding's buffer protocol converts directly
_NATIVE = {"f32", "f64", "f16", "i1", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64"}

# storage dtype of the hex blob / of the .npy file for types numpy cannot name
_BITS: dict[str, np.dtype] = {
    "bf16": np.dtype(np.uint16),
    "f8E4M3FN": np.dtype(np.uint8),
    "f8E5M2": np.dtype(np.uint8),
    "f8E4M3FNUZ": np.dtype(np.uint8),
    "f8E5M2FNUZ": np.dtype(np.uint8),
    "f8E8M0FNU": np.dtype(np.uint8),
}

# storage dtype of the elements of every type numpy cannot name (what NarrowBits holds)
_NARROW_STORE = dict(_BITS, i4=np.dtype(np.int8), ui4=np.dtype(np.uint8))

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
    dt = _NUMPY_DTYPES.get(es) or _NARROW_STORE.get(es)
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
    dt = _NUMPY_DTYPES.get(es) or _NARROW_STORE.get(es)
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
    arr = _from_text_plain(text, es, shape, dt, loc)
    return NarrowBits(arr, es) if es in _NARROW_STORE else arr


def _from_text_plain(text: str, es: str, shape, dt, loc) -> np.ndarray:
    """The elements (narrow types: their storage per :data:`_NARROW_STORE`, ``dt`` being that storage dtype)."""
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
        if es in ("i4", "ui4"):  # one element per byte; its low 4 bits are the value (wrapped as ml_dtypes does)
            arr = arr.astype(np.int64) & 0xF
            arr = ((arr ^ 8) - 8 if es == "i4" else arr).astype(dt)
        else:
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
    if es in _BITS:  # a narrow float: its bit patterns (NarrowBits storage)
        return np.where(is_hex, hex_bits, _round_to_bits(decimals, es)).astype(store)
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
    if isinstance(value, NarrowBits):
        return _lit(value.decoded().tolist())
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
    if isinstance(arr, NarrowBits):
        if arr.element_type not in _CANONICAL_NAN_BITS or arr.size == 0:
            return False
        nan = np.isnan(arr.decoded())
        if not nan.any():
            return False
        bits = arr.bits[nan]
        pos, neg = _CANONICAL_NAN_BITS[arr.element_type]
        return bool(np.any((bits != pos) & (bits != neg)))
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
    if isinstance(arr, NarrowBits):  # already the bit patterns (int4 / uint4: int8 / uint8)
        arr = arr.bits
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
