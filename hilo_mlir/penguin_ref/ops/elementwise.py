"""Elementwise ops: arithmetic, bitwise, transcendental, compare/select, conversions.

Integer arithmetic wraps; integer ``divide``/``remainder`` truncate toward
zero with the StableHLO specification's division-by-zero results (x/0 = -1
(all ones), x%0 = x; INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0); shifts by >= the
bit width give 0 (or the sign fill for arithmetic right shifts).
``compare`` honours the direction and ``TOTALORDER``.
"""

from __future__ import annotations

import math

import numpy as np

from hilo_mlir.penguin_ref.attrs import AttrError
from hilo_mlir.penguin_ref.ops.call import OpCall, compare_type, direction
from hilo_mlir.penguin_ref.ops.dispatch import IMPLS, impl
from hilo_mlir.penguin_ref.ops.numeric import NARROW_FLOATS, cast, is_int, widen


def _ew(fn, float_only=False):
    def run(c: OpCall):
        args = [widen(a) for a in c.srcs]
        return fn(*args)

    return run


def _int_div(a, b):
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = a.dtype
    zero = b == 0
    bs = np.where(zero, 1, b).astype(dt)
    if dt.kind == "i":
        info = np.iinfo(dt)
        ovf = (a == info.min) & (bs == -1)
        bs = np.where(ovf, 1, bs).astype(dt)
        q = a // bs
        r = a - q * bs
        q = (q + ((r != 0) & ((a < 0) != (bs < 0)))).astype(dt)
        q = np.where(ovf, a, q)
        return np.where(zero, np.array(-1, dtype=dt), q).astype(dt)
    q = a // bs
    return np.where(zero, np.iinfo(dt).max, q).astype(dt)


def _int_rem(a, b):
    a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b))
    dt = a.dtype
    zero = b == 0
    bs = np.where(zero, 1, b).astype(dt)
    if dt.kind == "i":
        info = np.iinfo(dt)
        ovf = (a == info.min) & (bs == -1)
        bs = np.where(ovf, 1, bs).astype(dt)
        r = np.fmod(a, bs)
        r = np.where(ovf, 0, r)
    else:
        r = a % bs
    return np.where(zero, a, r).astype(dt)


@impl("add")
def _add(c):
    a, b = (widen(x) for x in c.srcs)
    if a.dtype == np.bool_:
        return a | b
    return a + b


@impl("subtract")
def _sub(c):
    a, b = (widen(x) for x in c.srcs)
    return a - b


@impl("multiply")
def _mul(c):
    a, b = (widen(x) for x in c.srcs)
    if a.dtype == np.bool_:
        return a & b
    return a * b


@impl("divide")
def _div(c):
    a, b = (widen(x) for x in c.srcs)
    if is_int(a.dtype):
        return _int_div(a, b)
    return a / b


@impl("remainder")
def _rem(c):
    a, b = (widen(x) for x in c.srcs)
    if is_int(a.dtype):
        return _int_rem(a, b)
    return np.fmod(a, b)


@impl("power")
def _pow(c):
    a, b = (widen(x) for x in c.srcs)
    if is_int(a.dtype):
        a, b = np.broadcast_arrays(a, b)
        dt = a.dtype
        res = np.ones(a.shape, dtype=dt)
        base = a.copy()
        e = b.astype(np.int64).copy()
        neg = e < 0
        e = np.where(neg, 0, e)
        while np.any(e > 0):
            odd = (e & 1) == 1
            res = np.where(odd, res * base, res).astype(dt)
            base = (base * base).astype(dt)
            e >>= 1
        if dt.kind == "i":
            negres = np.where(a == 1, 1, np.where(a == -1, np.where(b % 2 == 0, 1, -1), 0)).astype(dt)
        else:
            negres = np.where(a == 1, 1, 0).astype(dt)
        return np.where(neg, negres, res).astype(dt)
    return np.power(a, b)


def _binary(np_fn, widen_operands: bool):
    def run(c):
        a, b = (widen(x) for x in c.srcs) if widen_operands else c.srcs
        return np_fn(a, b)

    return run


# Binary ops that are one numpy call: floats widened first (rounded once per op), bitwise ops as they are.
for _name, _fn, _widen in (
    ("maximum", np.maximum, True),
    ("minimum", np.minimum, True),
    ("atan2", np.arctan2, True),
    ("and", np.bitwise_and, False),
    ("or", np.bitwise_or, False),
    ("xor", np.bitwise_xor, False),
):
    IMPLS[_name] = _binary(_fn, _widen)


@impl("not")
def _not(c):
    (a,) = c.srcs
    return np.logical_not(a) if a.dtype == np.bool_ else np.invert(a)


def _shift(kind):
    def run(c):
        a, b = c.srcs
        a, b = np.broadcast_arrays(np.asarray(a), np.asarray(b).astype(a.dtype))
        dt = a.dtype
        bits = dt.itemsize * 8
        udt = np.dtype(f"u{dt.itemsize}")
        sdt = np.dtype(f"i{dt.itemsize}")
        amt = b.view(udt) if b.dtype != udt else b
        big = amt >= bits
        safe = np.where(big, 0, amt).astype(udt)
        if kind == "left":
            r = (a.view(udt) << safe).view(dt)
            return np.where(big, 0, r).astype(dt)
        if kind == "logical":
            r = (a.view(udt) >> safe).view(dt)
            return np.where(big, 0, r).astype(dt)
        s = a.view(sdt)
        r = (s >> safe.astype(sdt)).view(dt)
        fill = np.where(s < 0, -1, 0).astype(sdt).view(dt)
        return np.where(big, fill, r).astype(dt)

    return run


impl("shift_left")(_shift("left"))
impl("shift_right_logical")(_shift("logical"))
impl("shift_right_arithmetic")(_shift("arith"))


@impl("negate")
def _neg(c):
    (a,) = c.srcs
    a = widen(a)
    if a.dtype.kind == "u":
        return (0 - a).astype(a.dtype)
    return -a


@impl("abs")
def _abs(c):
    (a,) = c.srcs
    a = widen(a)
    return np.abs(a)


@impl("sign")
def _sign(c):
    (a,) = c.srcs
    a = widen(a)
    if a.dtype.kind == "c":
        mag = np.abs(a)
        return np.where(mag == 0, 0, a / np.where(mag == 0, 1, mag))
    if a.dtype.kind == "f":
        return np.where(np.isnan(a), a, np.sign(a))
    return np.sign(a)


def _round_afz(x):
    xd = x.astype(np.float64) if x.dtype == np.float32 else x
    r = np.sign(xd) * np.floor(np.abs(xd) + 0.5)
    return np.where(np.isfinite(xd), r, xd).astype(x.dtype)


for _n, _f in {
    "exponential": np.exp,
    "exponential_minus_one": np.expm1,
    "log": np.log,
    "log_plus_one": np.log1p,
    "sqrt": np.sqrt,
    "cbrt": np.cbrt,
    "tanh": np.tanh,
    "tan": np.tan,
    "sine": np.sin,
    "cosine": np.cos,
    "floor": np.floor,
    "ceil": np.ceil,
    "round_nearest_even": np.rint,
    "round_nearest_afz": _round_afz,
    "is_finite": np.isfinite,
    "acos": np.arccos,
    "acosh": np.arccosh,
    "asin": np.arcsin,
    "asinh": np.arcsinh,
    "atanh": np.arctanh,
    "cosh": np.cosh,
    "sinh": np.sinh,
    "real": np.real,
    "imag": np.imag,
}.items():
    impl(_n)(_ew(_f))


_ERF = np.frompyfunc(math.erf, 1, 1)


@impl("erf")
def _erf(c):
    (a,) = c.srcs
    w = widen(a)
    # a frompyfunc ufunc returns an object array, but a bare Python float for a rank-0 operand
    return np.asarray(_ERF(w.astype(np.float64))).astype(w.dtype)


@impl("rsqrt")
def _rsqrt(c):
    (a,) = c.srcs
    a = widen(a)
    one = np.ones((), dtype=a.dtype)
    return one / np.sqrt(a)


@impl("logistic")
def _logistic(c):
    (a,) = c.srcs
    a = widen(a)
    one = np.ones((), dtype=a.dtype)
    return one / (one + np.exp(-a))


@impl("complex")
def _complex(c):
    a, b = c.srcs
    return a + 1j * b


@impl("popcnt")
def _popcnt(c):
    (a,) = c.srcs
    u = a.view(np.dtype(f"u{a.dtype.itemsize}"))
    return np.bitwise_count(u).astype(a.dtype)


@impl("count_leading_zeros")
def _clz(c):
    (a,) = c.srcs
    bits = a.dtype.itemsize * 8
    u = a.view(np.dtype(f"u{a.dtype.itemsize}")).astype(np.uint64)
    n = np.zeros(a.shape, dtype=np.int64)
    seen = np.zeros(a.shape, dtype=bool)
    for i in range(bits - 1, -1, -1):
        bit = ((u >> np.uint64(i)) & np.uint64(1)).astype(bool)
        seen |= bit
        n += ~seen
    return n.astype(a.dtype)


def total_order_key(a):
    a = np.asarray(a)
    if a.dtype.kind != "f" and a.dtype not in NARROW_FLOATS:
        return a
    sdt = np.dtype(f"i{a.dtype.itemsize}")
    i = a.view(sdt)
    mask = np.array(np.iinfo(sdt).max, dtype=sdt)
    return np.where(i < 0, i ^ mask, i)


def compare(a, b, direction, ctype=None):
    a, b = np.asarray(a), np.asarray(b)
    if ctype == "TOTALORDER":
        a, b = total_order_key(a), total_order_key(b)
    else:
        a, b = widen(a), widen(b)
    return {
        "EQ": np.equal,
        "NE": np.not_equal,
        "GE": np.greater_equal,
        "GT": np.greater,
        "LE": np.less_equal,
        "LT": np.less,
    }[direction](a, b)


@impl("compare")
def _compare(c):
    a, b = c.srcs
    return compare(a, b, direction(c), compare_type(c))


@impl("select")
def _select(c):
    p, a, b = c.srcs
    return np.where(p, a, b)


@impl("clamp")
def _clamp(c):
    lo, x, hi = (widen(v) for v in c.srcs)
    return np.minimum(np.maximum(x, lo), hi)


@impl("convert")
def _convert(c):
    (a,) = c.srcs
    return cast(a, c.out_dtype())


@impl("bitcast_convert")
def _bitcast_convert(c):
    (a,) = c.srcs
    dt = c.out_dtype()
    shape = a.shape
    a = np.ascontiguousarray(a).reshape(shape)
    if a.dtype == dt:
        return a.copy()
    if a.dtype == np.bool_ or dt == np.bool_:
        raise AttrError("bitcast_convert to or from i1 changes the bit width; not defined")
    # sizes differ: the wider side has one more (trailing) dimension of the width ratio
    return a.reshape(-1).view(dt).reshape(c.out_shape())


_FLOAT_BITS = {"float64": (11, 52), "float32": (8, 23), "float16": (5, 10), "bfloat16": (8, 7)}


@impl("reduce_precision")
def _reduce_precision(c):
    """Round to ``mantissa_bits`` (nearest even), then flush exponents outside ``exponent_bits`` to 0 / inf."""
    (a,) = c.srcs
    eb = c.int("exponent_bits")
    mb = c.int("mantissa_bits")
    if a.dtype.name not in _FLOAT_BITS:
        raise AttrError(f"reduce_precision of {a.dtype.name}")
    src_eb, src_mb = _FLOAT_BITS[a.dtype.name]
    nbits = a.dtype.itemsize * 8
    udt = np.dtype(f"u{a.dtype.itemsize}")
    x = np.ascontiguousarray(a).reshape(a.shape).view(udt).copy()
    one = udt.type(1)
    if mb < src_mb:
        shift = udt.type(src_mb - mb)
        last = one << shift
        bias = (last >> one) - one
        lastbit = (x & last) >> shift
        x = (x + lastbit + bias) & ~(last - one)
    if eb < src_eb:
        exp_mask = udt.type(((1 << src_eb) - 1) << src_mb)
        sign_mask = udt.type(1 << (nbits - 1))
        exp_bias = (1 << (src_eb - 1)) - 1
        red_bias = (1 << (eb - 1)) - 1
        x_exp = x & exp_mask
        overflow = x_exp > udt.type((exp_bias + red_bias) << src_mb)
        underflow = x_exp <= udt.type((exp_bias - red_bias) << src_mb)
        signed_zero = x & sign_mask
        x = np.where(overflow, signed_zero | exp_mask, np.where(underflow, signed_zero, x)).astype(udt)
    y = x.view(a.dtype).reshape(a.shape)
    return np.where(np.isnan(a), a, y)
