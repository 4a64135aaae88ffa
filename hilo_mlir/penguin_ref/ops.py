"""numpy implementations of the Penguin statements (one function per MLIR op).

Dispatch is on the statement's ``xla_op`` (``'mhlo.add'`` / ``'stablehlo.add'``
-> ``add``); statements without ``xla_op`` fall back to their Python op name
(``AddOp`` -> ``add``; ``Softmax`` -> the softmax custom call). Semantics
follow the StableHLO specification (the same as
``hilo_mlir.testing.evaluate``):

* Floating types narrower than f32 (bf16, f16, f8) are computed in f32 and
  rounded once per op to the result type (round-to-nearest-even, ml_dtypes),
  which is what XLA CPU does for each op (bit-identical to XLA on 4096
  random bf16 inputs for exp/tanh/logistic/rsqrt).
* f32 ops are computed in f64 and rounded once (``_WIDE_F32``): + - * / sqrt
  are then exactly IEEE f32; dot/convolution/reduce accumulate in f64, so the
  only f32 rounding is the result's (XLA's own summation order is the
  remaining difference, ~1e-6 relative).
* Integer arithmetic wraps; integer ``divide``/``remainder`` truncate toward
  zero with the spec's division-by-zero results (x/0 = -1 (all ones),
  x%0 = x; INT_MIN/-1 = INT_MIN, INT_MIN%-1 = 0); shifts by >= the bit width
  give 0 (or the sign fill for arithmetic right shifts).
* ``convert`` float -> int truncates toward zero and saturates (NaN -> 0),
  as XLA does; -> bool is ``!= 0``; float -> narrower float rounds to nearest
  even.
* ``compare`` honours the direction and ``TOTALORDER``.
* ``reduce``/``reduce_window``/``scatter``/``sort``/``map`` run their body
  region; bodies that are a single ``add``/``multiply``/``maximum``/
  ``minimum``/``and``/``or`` of the two arguments use the numpy ufunc.
"""

from __future__ import annotations

import itertools
import json
import math
import re

import ml_dtypes
import numpy as np

from .attrs import AttrError, config_dict, int_pairs, ints, parse_attr

_WIDE_F32 = True  # compute f32 ops in f64, round once (see the module docstring)
_NARROW_FLOATS = {np.dtype(t) for t in (ml_dtypes.bfloat16, np.float16, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2,
                                          ml_dtypes.float8_e4m3fnuz, ml_dtypes.float8_e5m2fnuz, ml_dtypes.float8_e8m0fnu)}


def _is_float(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt in _NARROW_FLOATS or dt.name in ("bfloat16", "float8_e4m3fn", "float8_e5m2")


def _is_int(dt) -> bool:
    return np.dtype(dt).kind in "iu"


def widen(a: np.ndarray) -> np.ndarray:
    """bf16/f16/f8 -> f32 for computing; other dtypes unchanged."""
    a = np.asarray(a)
    if a.dtype in _NARROW_FLOATS:
        return a.astype(np.float32)
    if _WIDE_F32 and a.dtype == np.float32:
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
    if _is_int(dt) and (_is_float(a.dtype) or a.dtype.kind == "c"):
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
    if dt in _NARROW_FLOATS and a.dtype.kind in "iub":
        return a.astype(np.float64).astype(dt)
    if dt in _NARROW_FLOATS and a.dtype == np.float64:
        # double rounding f64->f32->bf16 can differ from direct rounding; ml_dtypes rounds f64 directly
        return a.astype(dt)
    return a.astype(dt)


# ---------------------------------------------------------------------------------------------
# the call object handed to each implementation
# ---------------------------------------------------------------------------------------------

_REQUIRED = object()


class OpCall:
    """What an implementation sees: operand arrays, result specs, attributes, regions."""

    def __init__(self, interp, stmt, srcs, env):
        self.interp = interp
        self.stmt = stmt
        self.srcs = srcs
        self.env = env

    # results
    @property
    def out_specs(self):
        return self.stmt.dsts

    def out_dtype(self, i=0):
        return self.stmt.dsts[i].np_dtype

    def out_shape(self, i=0):
        return self.stmt.dsts[i].shape

    # attributes ---------------------------------------------------------------------------
    def has(self, *names) -> bool:
        return self.raw(*names) is not None

    def raw(self, *names):
        kw = self.stmt.kw
        for n in names:
            for key in (n, n + "_", n.replace(".", "_"), "mhlo_" + n, "stablehlo_" + n):
                if key in kw and kw[key] is not None:
                    return kw[key]
        return None

    def attr(self, *names, default=None):
        v = self.raw(*names)
        return default if v is None else parse_attr(v)

    def ints(self, *names, default=_REQUIRED):
        """A list-of-int attribute; without ``default`` it is required (AttrError naming it)."""
        v = self.raw(*names)
        if v is None:
            if default is _REQUIRED:
                raise AttrError(f"missing attribute {names[0]!r}")
            return list(default) if default is not None else None
        return ints(v)

    def int(self, *names, default=_REQUIRED):
        """An int attribute; without ``default`` it is required."""
        v = self.raw(*names)
        if v is None:
            if default is _REQUIRED:
                raise AttrError(f"missing attribute {names[0]!r}")
            return default
        lst = ints(v)
        if len(lst) != 1:
            raise AttrError(f"attribute {names[0]} should be one integer, got {v!r}")
        return lst[0]

    def word(self, *names, default=None):
        v = self.attr(*names)
        if v is None:
            return default
        return str(v).strip("'\"").upper() if not isinstance(v, str) else v.strip().strip("'\"")

    def struct(self, struct_names, fields, defaults=None) -> dict:
        """Read a structured attribute (dot/gather/scatter/conv dimension numbers).

        The fields may be printed flattened (``lhs_contracting_dimensions=[1]``),
        as a dict, or as the MLIR text of the struct.
        """
        out = {}
        base = {}
        for n in struct_names:
            v = self.attr(n)
            if isinstance(v, dict):
                base = v
                break
            if v is not None:
                raise AttrError(f"cannot read {n}={v!r}")
        for f in fields:
            if self.raw(f) is not None:
                out[f] = parse_attr(self.raw(f))
            elif f in base:
                out[f] = base[f]
            elif defaults and f in defaults:
                out[f] = defaults[f]
            else:
                out[f] = []
        return out

    # regions ------------------------------------------------------------------------------
    def functions(self):
        fns = self.stmt.kw.get("regions")
        if fns is None:
            return None
        return list(fns) if isinstance(fns, (list, tuple)) else [fns]

    def nregions(self) -> int:
        fns = self.functions()
        return len(fns) if fns is not None else len(self.stmt.regions)

    def region(self, i, vectorized=True):
        fns = self.functions()
        if fns is not None:
            if i >= len(fns):
                raise AttrError(f"expected at least {i + 1} region function(s) in regions=, got {len(fns)}")
            fn = fns[i]
            if not callable(fn):
                raise AttrError(f"regions[{i}] is not a function")

            def call_fn(*args):
                return self.interp.call_function(self.stmt, fn, list(args), self.env, vectorized=vectorized)

            return call_fn
        regs = self.stmt.regions
        if i >= len(regs):
            raise AttrError(f"expected at least {i + 1} region(s), the program prints {len(regs)}")
        reg = regs[i]

        def call(*args):
            return self.interp.call_region(self.stmt, reg, list(args), self.env, vectorized=vectorized)

        return call

    def region_binary(self, i=0, use_hint=True, nargs=2):
        """Name of the single binary op of (arg0, arg1) a region returns, else None (or the ``reducer=`` hint).

        A region printed as a function is traced (recorded with placeholder arguments, not run).
        """
        hint = self.raw("reducer") if use_hint else None
        if hint is not None:
            return str(hint).strip("'\"")
        reg = self.structure(i, nargs)
        if reg is None or len(reg.args) != 2 or len(reg.body) != 1 or reg.ret is None or len(reg.ret) != 1:
            return None
        st = reg.body[0]
        if reg.ret[0] is not st.results[0] or st.regions or st.kw.get("regions"):
            return None
        srcs = st.kw.get("srcs") or []
        if set(map(id, srcs)) != set(map(id, reg.args)) or len(srcs) != 2:
            return None
        return op_key(st)

    def structure(self, i, nargs):
        """Region ``i`` as a :class:`Region` (legacy form, or a region function traced), or None."""
        fns = self.functions()
        if fns is not None:
            if i >= len(fns) or not callable(fns[i]):
                return None
            return self.stmt.program.trace_function(fns[i], nargs)
        regs = self.stmt.regions
        return regs[i] if i < len(regs) else None

    def region_compare(self, i=0):
        """(direction, type, swapped) if the region is ``compare(arg0, arg1)`` (or args 1, 0)."""
        fns = self.functions()
        if fns is not None:
            if i >= len(fns) or not callable(fns[i]):
                return None
            reg = self.stmt.program.trace_function(fns[i], 2 * len(self.srcs))
            if reg is None:
                return None
        else:
            regs = self.stmt.regions
            if i >= len(regs):
                return None
            reg = regs[i]
        if len(reg.body) != 1 or reg.ret is None or len(reg.ret) != 1:
            return None
        st = reg.body[0]
        if op_key(st) != "compare" or reg.ret[0] is not st.results[0]:
            return None
        srcs = st.kw.get("srcs") or []
        if len(srcs) != 2 or len(reg.args) < 2:
            return None
        if srcs[0] is reg.args[0] and srcs[1] is reg.args[1]:
            swapped = False
        elif srcs[0] is reg.args[1] and srcs[1] is reg.args[0]:
            swapped = True
        else:
            return None
        sub = OpCall(self.interp, st, [], self.env)
        return _direction(sub), _cmp_type(sub), swapped

    def error(self, msg):
        return self.stmt.error(msg)


# ---------------------------------------------------------------------------------------------
# dispatch
# ---------------------------------------------------------------------------------------------

IMPLS: dict = {}
CUSTOM_CALLS: dict = {}


def impl(*names):
    def deco(fn):
        for n in names:
            IMPLS[n] = fn
        return fn

    return deco


def custom_call(*targets):
    def deco(fn):
        for t in targets:
            CUSTOM_CALLS[t] = fn
        return fn

    return deco


def _snake(name: str) -> str:
    name = name.split(".")[-1]
    if name.endswith("Op") and len(name) > 2:
        name = name[:-2]
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


SUMMARY_XLA_OPS = {"fusion", "composite"}
SUMMARY_PY_OPS = {"NeuronTensorOp", "DotFusion", "MulRedSqrt", "Elementwise", "Expm1", "Log1p", "DotSoftmax", "FusionOp", "CompositeOp"}


def op_key(st) -> str | None:
    """The dispatch key of a statement: the short MLIR op name, or derived from the Python name."""
    if st.xla_op:
        x = st.xla_op.strip("'\"")
        if "." in x:
            return x.split(".", 1)[1]
        return x
    return _snake(st.kind)


def is_summary(st) -> bool:
    """A fusion/composite summary statement (its body follows it or is its region)."""
    return op_key(st) in SUMMARY_XLA_OPS or st.kind.split(".")[-1] in SUMMARY_PY_OPS


def lookup(st):
    key = op_key(st)
    if key in ("fusion", "composite") or (is_summary(st) and not st.xla_op):
        return _fusion if st.regions else None
    if key == "custom_call" or (not st.xla_op and st.kind.split(".")[-1] in _PY_CUSTOM):
        return _custom_call
    if st.kind.split(".")[-1] == "QuantizeMXTensorOp":
        return _custom_call
    return IMPLS.get(key)


# ---------------------------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------------------------


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
    if _is_int(a.dtype):
        return _int_div(a, b)
    return a / b


@impl("remainder")
def _rem(c):
    a, b = (widen(x) for x in c.srcs)
    if _is_int(a.dtype):
        return _int_rem(a, b)
    return np.fmod(a, b)


@impl("power")
def _pow(c):
    a, b = (widen(x) for x in c.srcs)
    if _is_int(a.dtype):
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
    return _ERF(w.astype(np.float64)).astype(w.dtype)


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


def _direction(c):
    d = c.word("comparison_direction", "direction", "compare_type")
    if d is None:
        raise AttrError("compare without comparison_direction")
    return d.upper()


def _cmp_type(c):
    t = c.word("compare_type", "comparison_type", "type")
    if t is None or t.upper() in ("NOTYPE",):
        return None
    return t.upper()


def _total_order_key(a):
    a = np.asarray(a)
    if a.dtype.kind != "f" and a.dtype not in _NARROW_FLOATS:
        return a
    sdt = np.dtype(f"i{a.dtype.itemsize}")
    i = a.view(sdt)
    mask = np.array(np.iinfo(sdt).max, dtype=sdt)
    return np.where(i < 0, i ^ mask, i)


def compare(a, b, direction, ctype=None):
    a, b = np.asarray(a), np.asarray(b)
    if ctype == "TOTALORDER":
        a, b = _total_order_key(a), _total_order_key(b)
    else:
        a, b = widen(a), widen(b)
    return {
        "EQ": np.equal, "NE": np.not_equal, "GE": np.greater_equal,
        "GT": np.greater, "LE": np.less_equal, "LT": np.less,
    }[direction](a, b)


@impl("compare")
def _compare(c):
    a, b = c.srcs
    return compare(a, b, _direction(c), _cmp_type(c))


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


# ---------------------------------------------------------------------------------------------
# shape ops
# ---------------------------------------------------------------------------------------------


@impl("constant")
def _constant(c):
    v = c.raw("value")
    if v is None:
        for k in ("file", "npy", "value_file", "np_file", "data"):
            v = c.raw(k)
            if v is not None:
                break
    if v is None and c.stmt.args:
        v = c.stmt.args[0]
    if isinstance(v, str) and v.strip().endswith(".npy"):
        v = c.stmt.program.load_npy(v.strip())
    if type(v).__name__ == "NpyFile":
        v = c.stmt.program.load_npy(v.name)
    v = parse_attr(v)
    dt = c.out_dtype()
    if isinstance(v, np.ndarray):
        arr = v
        if arr.dtype != dt and arr.dtype.kind in "uV" and arr.dtype.itemsize == dt.itemsize and (dt in _NARROW_FLOATS or dt.kind == "V" or dt.name.startswith("float8")):
            arr = arr.view(dt)  # bf16 / f8 stored as their bit patterns
    else:
        try:  # convert the literal straight to the result dtype (exact for 64-bit ints, rounds floats once)
            arr = np.asarray(v, dtype=np.float64 if dt in _NARROW_FLOATS else dt)
        except (OverflowError, ValueError, TypeError):
            arr = np.asarray(v)
    if arr.dtype != dt:
        arr = arr.astype(dt)
    shp = c.out_shape()
    if arr.shape != shp:
        if arr.size == 1:
            arr = np.full(shp, arr.reshape(()), dtype=dt)
        else:
            arr = arr.reshape(shp)
    return arr


@impl("iota")
def _iota(c):
    shp = c.out_shape()
    d = c.int("iota_dimension", default=0)
    r = np.arange(shp[d]) if shp else np.zeros(())
    view = [1] * len(shp)
    view[d] = shp[d]
    return np.broadcast_to(r.reshape(view), shp).astype(c.out_dtype())


@impl("broadcast_in_dim")
def _bid(c):
    (a,) = c.srcs
    dims = c.ints("broadcast_dimensions", default=[])
    shp = c.out_shape()
    view = [1] * len(shp)
    for i, d in enumerate(dims):
        view[d] = a.shape[i]
    return np.broadcast_to(a.reshape(view), shp).copy()


@impl("broadcast")
def _broadcast(c):
    (a,) = c.srcs
    return np.broadcast_to(a, c.out_shape()).copy()


@impl("reshape", "dynamic_reshape")
def _reshape(c):
    return c.srcs[0].reshape(c.out_shape())


@impl("transpose")
def _transpose(c):
    (a,) = c.srcs
    return np.transpose(a, c.ints("permutation")).copy()


@impl("reverse")
def _reverse(c):
    (a,) = c.srcs
    dims = c.ints("dimensions", default=[])
    return np.flip(a, axis=tuple(dims)).copy() if dims else a.copy()


@impl("slice")
def _slice(c):
    (a,) = c.srcs
    start = c.ints("start_indices")
    limit = c.ints("limit_indices")
    strides = c.ints("strides", default=[1] * a.ndim)
    return a[tuple(slice(s, l, st) for s, l, st in zip(start, limit, strides))].copy()


def _clamped_starts(idx_arrays, shape, sizes):
    out = []
    for i, (s, n, k) in enumerate(zip(idx_arrays, shape, sizes)):
        s = int(np.asarray(s).reshape(()))
        out.append(min(max(s, 0), n - k))
    return out


@impl("dynamic_slice")
def _dynamic_slice(c):
    a, *idx = c.srcs
    sizes = c.ints("slice_sizes")
    if len(idx) == 1 and np.asarray(idx[0]).ndim == 1 and a.ndim != 1:
        idx = list(np.asarray(idx[0]))
    st = _clamped_starts(idx, a.shape, sizes)
    return a[tuple(slice(s, s + k) for s, k in zip(st, sizes))].copy()


@impl("dynamic_update_slice")
def _dus(c):
    a, upd, *idx = c.srcs
    if len(idx) == 1 and np.asarray(idx[0]).ndim == 1 and a.ndim != 1:
        idx = list(np.asarray(idx[0]))
    st = _clamped_starts(idx, a.shape, upd.shape)
    out = a.copy()
    out[tuple(slice(s, s + k) for s, k in zip(st, upd.shape))] = upd
    return out


@impl("concatenate")
def _concat(c):
    d = c.int("dimension", default=0)
    return np.concatenate([np.asarray(x) for x in c.srcs], axis=d)


def pad(a, value, low, high, interior):
    a = np.asarray(a)
    value = np.asarray(value).reshape(())
    shape = [
        (n - 1) * (i + 1) + 1 + max(lo, 0) + max(hi, 0) if n > 0 else max(lo, 0) + max(hi, 0)
        for n, lo, hi, i in zip(a.shape, low, high, interior)
    ]
    out = np.full(shape, value, dtype=a.dtype)
    idx = tuple(slice(max(lo, 0), max(lo, 0) + (n - 1) * (i + 1) + 1 if n else max(lo, 0), i + 1) for n, lo, i in zip(a.shape, low, interior))
    out[idx] = a
    # negative padding crops
    crop = tuple(slice(-lo if lo < 0 else 0, (s + hi) if hi < 0 else s) for lo, hi, s in zip(low, high, out.shape))
    return out[crop].copy()


@impl("pad")
def _pad(c):
    a, v = c.srcs
    n = a.ndim
    return pad(a, v, c.ints("edge_padding_low", default=[0] * n), c.ints("edge_padding_high", default=[0] * n),
               c.ints("interior_padding", default=[0] * n))


@impl("tuple")
def _tuple(c):
    return [tuple(c.srcs)] if len(c.stmt.results) == 1 else list(c.srcs)


@impl("get_tuple_element")
def _gte(c):
    (t,) = c.srcs
    return t[c.int("index")]


@impl("optimization_barrier", "copy")
def _identity_all(c):
    return list(c.srcs)


@impl("device_print")
def _device_print(c):
    return _passthrough(c)


@impl("add_dependency")
def _add_dep(c):
    return c.srcs[0]


@impl("after_all", "create_token")
def _token(c):
    return [np.zeros(s.shape, dtype=np.uint8) if hasattr(s, "shape") else np.zeros((), np.uint8) for s in c.out_specs]


@impl("get_dimension_size")
def _get_dimension_size(c):
    (a,) = c.srcs
    return np.asarray(a.shape[c.int("dimension")], dtype=c.out_dtype())


@impl("torch_index_select")
def _torch_index_select(c):
    a, idx = c.srcs
    dim = c.int("dim", default=0)
    bd = c.int("batch_dims", default=0)
    # it is a gather: out-of-range indices are clamped
    idx = np.clip(idx.astype(np.int64), 0, a.shape[dim] - 1)
    if bd == 0:
        return np.take(a, idx, axis=dim)
    out_shape = c.out_shape()
    out = np.empty(out_shape, dtype=a.dtype)
    for b in np.ndindex(*a.shape[:bd]):
        out[b] = np.take(a[b], idx[b], axis=dim - bd)
    return out


@impl("topk")
def _topk(c):
    (a,) = c.srcs
    k = c.int("k")
    largest = c.attr("largest", default=True)
    key = _total_order_key(a) if _is_float(a.dtype) else a
    if largest in (True, "true", 1):
        key = ~key if key.dtype.kind in "iu" else -key
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(a, order, axis=-1), order.astype(c.out_dtype(1))]


@impl("replica_id", "partition_id")
def _ids(c):
    return np.zeros(c.out_shape(), dtype=c.out_dtype())


# single-device collectives (one replica, one partition): identity
@impl("collective_permute")
def _collective_permute(c):
    """On the one replica the backend runs (replica 0): its value if a pair sends 0 -> 0, else zeros."""
    (a,) = c.srcs
    pairs = [tuple(p) for p in int_pairs(c.raw("source_target_pairs"))] if c.has("source_target_pairs") else []
    into0 = [s for s, t in pairs if t == 0]
    if any(s != 0 for s in into0):
        raise AttrError(f"collective_permute receives replica 0 from replica {into0[0]}; the reference backend runs one replica")
    return a.copy() if into0 else np.zeros_like(a)


@impl("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_broadcast", "cross_replica_sum")
def _collective(c):
    groups = c.attr("replica_groups")
    if groups is not None:
        g = np.asarray(groups)
        if g.ndim == 2 and g.shape[1] > 1 and np.count_nonzero(g >= 0) > g.shape[0]:
            raise AttrError(f"replica groups {g.tolist()} span several replicas; the reference backend runs one")
    outs = []
    for a, spec in zip(c.srcs, c.out_specs):
        if tuple(a.shape) != spec.shape:
            raise AttrError(
                f"collective changes the shape {a.shape} -> {spec.shape}: only single-replica groups can run on the reference backend"
            )
        outs.append(a)
    return outs


# ---------------------------------------------------------------------------------------------
# reductions
# ---------------------------------------------------------------------------------------------

_UFUNCS = {"add": np.add, "multiply": np.multiply, "maximum": np.maximum, "minimum": np.minimum,
           "and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}


def _ufunc_for(name, dt):
    if dt == np.bool_ and name in ("add", "or", "maximum"):
        return np.logical_or
    if dt == np.bool_ and name in ("multiply", "and", "minimum"):
        return np.logical_and
    return _UFUNCS.get(name)


@impl("reduce")
def _reduce(c):
    k = len(c.srcs) // 2
    inputs, inits = c.srcs[:k], c.srcs[k:]
    dims = tuple(c.ints("dimensions", default=[]))
    name = c.region_binary(0) if k == 1 else None
    if name is not None and _ufunc_for(name, inputs[0].dtype) is not None:
        x = inputs[0]
        uf = _ufunc_for(name, x.dtype)
        xw = widen(x)
        r = uf.reduce(xw, axis=dims) if dims else xw
        return uf(widen(inits[0]), r)
    body = c.region(0)
    rest = [d for d in range(inputs[0].ndim) if d not in dims]
    moved = [np.moveaxis(x, list(dims), list(range(len(dims)))).reshape((-1,) + tuple(x.shape[d] for d in rest)) for x in inputs]
    shp = tuple(inputs[0].shape[d] for d in rest)
    acc = [np.broadcast_to(i, shp).copy() for i in inits]
    for j in range(moved[0].shape[0]):
        acc = body(*acc, *[m[j] for m in moved])
        acc = [np.broadcast_to(np.asarray(a), shp) for a in acc]
    return [np.asarray(a).copy() for a in acc]


@impl("reduce_window")
def _reduce_window(c):
    k = len(c.srcs) // 2
    inputs, inits = c.srcs[:k], c.srcs[k:]
    n = inputs[0].ndim
    win = c.ints("window_dimensions")
    strides = c.ints("window_strides", default=[1] * n)
    base = c.ints("base_dilations", default=[1] * n)
    wdil = c.ints("window_dilations", default=[1] * n)
    padding = int_pairs(c.raw("padding")) if c.has("padding") else [(0, 0)] * n
    padded = [pad(x, i, [p[0] for p in padding], [p[1] for p in padding], [b - 1 for b in base]) for x, i in zip(inputs, inits)]
    shp = padded[0].shape
    out_shape = tuple((s - ((w - 1) * d + 1)) // st + 1 if s >= (w - 1) * d + 1 else 0 for s, w, d, st in zip(shp, win, wdil, strides))
    name = c.region_binary(0) if k == 1 else None
    uf = _ufunc_for(name, inputs[0].dtype) if name else None
    body = None if uf is not None else c.region(0)
    acc = [np.broadcast_to(widen(i) if uf is not None else i, out_shape).copy() for i in inits]
    for off in itertools.product(*[range(w) for w in win]):
        sl = tuple(slice(o * d, o * d + (m - 1) * st + 1, st) if m > 0 else slice(0, 0) for o, d, m, st in zip(off, wdil, out_shape, strides))
        vals = [p[sl] for p in padded]
        if uf is not None:
            acc = [uf(acc[0], widen(vals[0]))]
        else:
            acc = [np.broadcast_to(np.asarray(a), out_shape) for a in body(*acc, *vals)]
    return [np.asarray(a).copy() for a in acc]


@impl("select_and_scatter")
def _select_and_scatter(c):
    """Per source element, the window position chosen by ``select`` (first valid position, replaced by a
    later one whenever ``select(best, cur)`` is false), then ``scatter`` of the source into it, in source
    order. ``select`` runs vectorised over all source elements per window offset."""
    operand, source, init = c.srcs
    n = operand.ndim
    win = c.ints("window_dimensions", default=[1] * n)
    strides = c.ints("window_strides", default=[1] * n)
    padding = int_pairs(c.raw("padding")) if c.has("padding") else [(0, 0)] * n
    select = c.region(0, vectorized=True)
    src_idx = np.indices(source.shape).reshape(n, -1)  # n x S
    best_pos = np.full(src_idx.shape, -1, dtype=np.int64)
    have = np.zeros(src_idx.shape[1], dtype=bool)
    best_val = np.zeros(src_idx.shape[1], dtype=operand.dtype)
    for off in np.ndindex(*win):
        pos = np.stack([src_idx[d] * strides[d] + off[d] - padding[d][0] for d in range(n)])
        valid = np.all((pos >= 0) & (pos < np.array(operand.shape)[:, None]), axis=0)
        cur = np.zeros(src_idx.shape[1], dtype=operand.dtype)
        cur[valid] = operand[tuple(pos[:, valid])]
        keep = np.asarray(select(best_val, cur)[0]).astype(bool) if have.any() else np.zeros_like(have)
        take = valid & (~have | ~np.broadcast_to(keep, have.shape))
        best_val = np.where(take, cur, best_val)
        best_pos[:, take] = pos[:, take]
        have |= valid
    result = np.full(operand.shape, np.asarray(init).reshape(()), dtype=operand.dtype)
    flat_src = source.reshape(-1)
    name = c.region_binary(1, use_hint=False)
    uf = _ufunc_for(name, operand.dtype) if name else None
    sel = np.nonzero(have)[0]
    if uf is not None:
        acc = widen(result).copy()
        uf.at(acc, tuple(best_pos[:, sel]), widen(flat_src[sel]))
        return acc
    scatter = c.region(1, vectorized=False)
    for k in sel:
        p = tuple(best_pos[:, k])
        result[p] = np.asarray(scatter(result[p], flat_src[k])[0]).astype(result.dtype)
    return result


# ---------------------------------------------------------------------------------------------
# dot / convolution
# ---------------------------------------------------------------------------------------------


def _acc_dtype(a, b, out):
    if _is_float(a.dtype) or _is_float(b.dtype) or _is_float(out):
        if _WIDE_F32 or np.dtype(out) == np.float64 or a.dtype == np.float64:
            return np.float64
        return np.float32
    if a.dtype.kind == "c" or np.dtype(out).kind == "c":
        return np.complex128 if np.dtype(out) == np.complex128 else np.complex64
    return np.int64 if np.dtype(out).kind == "i" else np.uint64


def dot_general(lhs, rhs, lb, rb, lc, rc, out_dtype):
    acc = _acc_dtype(lhs, rhs, out_dtype)
    lf = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rf = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    L = np.transpose(lhs, lb + lf + lc).astype(acc)
    R = np.transpose(rhs, rb + rc + rf).astype(acc)
    bshape = [lhs.shape[d] for d in lb]
    nb, nlf, nc, nrf = (int(np.prod([lhs.shape[d] for d in x])) if x else 1 for x in (lb, lf, lc, []))
    nrf = int(np.prod([rhs.shape[d] for d in rf])) if rf else 1
    L = L.reshape(nb, nlf, nc)
    R = R.reshape(nb, nc, nrf)
    out = np.matmul(L, R)
    out = out.reshape(bshape + [lhs.shape[d] for d in lf] + [rhs.shape[d] for d in rf])
    return out


@impl("dot_general")
def _dot_general(c):
    lhs, rhs = c.srcs[:2]
    if len(c.srcs) > 2:
        raise AttrError("dot_general with extra operands (scaled dot) is not supported by the reference backend")
    dn = c.struct(("dot_dimension_numbers", "dimension_numbers"),
                  ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"))
    lb, rb, lc, rc = (ints(dn[k]) for k in ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions"))
    return dot_general(lhs, rhs, lb, rb, lc, rc, c.out_dtype())


@impl("dot")
def _dot(c):
    if len(c.srcs) != 2 or c.has("lhs_contracting_dimensions", "dot_dimension_numbers"):
        return _dot_general(c)
    lhs, rhs = c.srcs
    lc = [lhs.ndim - 1]
    rc = [0]
    return dot_general(lhs, rhs, [], [], lc, rc, c.out_dtype())


@impl("convolution")
def _conv(c):
    lhs, rhs = c.srcs[:2]
    dn = c.struct(("dimension_numbers", "conv_dimension_numbers"), (
        "input_batch_dimension", "input_feature_dimension", "input_spatial_dimensions",
        "kernel_input_feature_dimension", "kernel_output_feature_dimension", "kernel_spatial_dimensions",
        "output_batch_dimension", "output_feature_dimension", "output_spatial_dimensions"))
    ib, ifd = int(dn["input_batch_dimension"]), int(dn["input_feature_dimension"])
    isp = ints(dn["input_spatial_dimensions"])
    ki, ko = int(dn["kernel_input_feature_dimension"]), int(dn["kernel_output_feature_dimension"])
    ksp = ints(dn["kernel_spatial_dimensions"])
    ob, of = int(dn["output_batch_dimension"]), int(dn["output_feature_dimension"])
    osp = ints(dn["output_spatial_dimensions"])
    ns = len(isp)
    strides = c.ints("window_strides", default=[1] * ns)
    padding = int_pairs(c.raw("padding")) if c.has("padding") else [(0, 0)] * ns
    ldil = c.ints("lhs_dilation", default=[1] * ns)
    rdil = c.ints("rhs_dilation", default=[1] * ns)
    rev = c.attr("window_reversal")
    fgc = c.int("feature_group_count", default=1)
    bgc = c.int("batch_group_count", default=1)
    acc = _acc_dtype(lhs, rhs, c.out_dtype())
    x = np.transpose(lhs, [ib, ifd] + isp).astype(acc)  # N C S...
    w = np.transpose(rhs, [ko, ki] + ksp).astype(acc)  # O I K...
    if rev is not None:
        flips = [i + 2 for i, r in enumerate(ints(rev)) if r]
        if flips:
            w = np.flip(w, axis=flips)
    x = pad(x, np.zeros((), acc), [0, 0] + [p[0] for p in padding], [0, 0] + [p[1] for p in padding], [0, 0] + [d - 1 for d in ldil])
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    ks = w.shape[2:]
    eff = [(k - 1) * d + 1 for k, d in zip(ks, rdil)]
    out_sp = [max((s - e) // st + 1, 0) if s >= e else 0 for s, e, st in zip(x.shape[2:], eff, strides)]
    if bgc > 1:
        # batch groups: split the batch into bgc groups, output features split accordingly
        nb = N // bgc
        xs = [x[g * nb:(g + 1) * nb] for g in range(bgc)]
        og = O // bgc
        outs = [_conv_core(xs[g], w[g * og:(g + 1) * og], fgc, ks, rdil, strides, out_sp, acc) for g in range(bgc)]
        y = np.concatenate(outs, axis=1)
    else:
        y = _conv_core(x, w, fgc, ks, rdil, strides, out_sp, acc)
    # y: N O S...
    perm_out = [0] * (ns + 2)
    order = [ob, of] + osp
    for src, dst in enumerate(order):
        perm_out[dst] = src
    return np.transpose(y, perm_out)


def _conv_core(x, w, fgc, ks, rdil, strides, out_sp, acc):
    N, C = x.shape[:2]
    O, I = w.shape[:2]
    og = O // fgc
    y = np.zeros((N, O) + tuple(out_sp), dtype=acc)
    for g in range(fgc):
        xg = x[:, g * I:(g + 1) * I]
        wg = w[g * og:(g + 1) * og]
        for k in np.ndindex(*ks):
            sl = tuple(slice(kk * d, kk * d + (m - 1) * st + 1, st) if m > 0 else slice(0, 0) for kk, d, m, st in zip(k, rdil, out_sp, strides))
            patch = xg[(slice(None), slice(None)) + sl]  # N I S...
            y[:, g * og:(g + 1) * og] += np.einsum("ni...,oi->no...", patch, wg[(slice(None), slice(None)) + k])
    return y


# ---------------------------------------------------------------------------------------------
# gather / scatter / sort
# ---------------------------------------------------------------------------------------------

_GATHER_FIELDS = ("offset_dims", "collapsed_slice_dims", "operand_batching_dims", "start_indices_batching_dims", "start_index_map", "index_vector_dim")


@impl("gather")
def _gather(c):
    operand, idx = c.srcs[:2]
    dn = c.struct(("dimension_numbers", "gather_dimension_numbers"), _GATHER_FIELDS)
    offset_dims = ints(dn["offset_dims"])
    collapsed = ints(dn["collapsed_slice_dims"])
    obatch = ints(dn["operand_batching_dims"])
    ibatch = ints(dn["start_indices_batching_dims"])
    smap = ints(dn["start_index_map"])
    ivd = ints(dn["index_vector_dim"])[0] if ints(dn["index_vector_dim"]) else idx.ndim
    sizes = c.ints("slice_sizes")
    if len(c.srcs) > 2:  # dynamic_gather: slice sizes as an operand
        sizes = [int(x) for x in np.asarray(c.srcs[2]).reshape(-1)]
    idx = np.asarray(idx)
    if ivd == idx.ndim:
        idx = idx[..., None]
    idx_m = np.moveaxis(idx, ivd, -1)
    bshape = idx_m.shape[:-1]
    other_idx_dims = [d for d in range(idx.ndim) if d != ivd]
    keep = [d for d in range(operand.ndim) if d not in collapsed and d not in obatch]
    out_shape = c.out_shape()
    batch_dims = [d for d in range(len(out_shape)) if d not in offset_dims]
    tmp = np.empty(tuple(bshape) + tuple(sizes[d] for d in keep), dtype=operand.dtype)
    for b in np.ndindex(*bshape):
        start = [0] * operand.ndim
        vec = idx_m[b]
        for k, od in enumerate(smap):
            start[od] = int(vec[k])
        for od, idim in zip(obatch, ibatch):
            start[od] = b[other_idx_dims.index(idim)]
        start = [min(max(s, 0), n - z) for s, n, z in zip(start, operand.shape, sizes)]
        sl = operand[tuple(slice(s, s + z) for s, z in zip(start, sizes))]
        tmp[b] = sl.reshape([sizes[d] for d in keep])
    nb = len(bshape)
    perm = [0] * len(out_shape)
    for r in range(len(out_shape)):
        perm[r] = batch_dims.index(r) if r in batch_dims else nb + offset_dims.index(r)
    return np.transpose(tmp, perm).reshape(out_shape)


_SCATTER_FIELDS = ("update_window_dims", "inserted_window_dims", "input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims", "index_vector_dim")


@impl("scatter")
def _scatter(c):
    n = (len(c.srcs) - 1) // 2
    operands = [np.array(x, copy=True) for x in c.srcs[:n]]
    idx = np.asarray(c.srcs[n])
    updates = c.srcs[n + 1:]
    dn = c.struct(("scatter_dimension_numbers", "dimension_numbers"), _SCATTER_FIELDS)
    uwd = ints(dn["update_window_dims"])
    iwd = ints(dn["inserted_window_dims"])
    ibd = ints(dn["input_batching_dims"])
    sibd = ints(dn["scatter_indices_batching_dims"])
    sd2od = ints(dn["scatter_dims_to_operand_dims"])
    ivd = ints(dn["index_vector_dim"])[0] if ints(dn["index_vector_dim"]) else idx.ndim
    if ivd == idx.ndim:
        idx = idx[..., None]
    idx_m = np.moveaxis(idx, ivd, -1)
    other_idx_dims = [d for d in range(idx.ndim) if d != ivd]
    upd0 = updates[0]
    usd = [d for d in range(upd0.ndim) if d not in uwd]
    win_operand_dims = [d for d in range(operands[0].ndim) if d not in iwd and d not in ibd]
    name = c.region_binary(0) if n == 1 else None
    uf = _ufunc_for(name, operands[0].dtype) if name else None
    replace = _region_returns_arg(c, 1) if n == 1 else False
    body = None if (uf is not None or replace) else c.region(0, vectorized=False)
    wshape = [upd0.shape[d] for d in uwd]
    for ui in np.ndindex(*[upd0.shape[d] for d in usd]):
        vec = idx_m[ui]
        start = [0] * operands[0].ndim
        for k, od in enumerate(sd2od):
            start[od] = int(vec[k])
        for od, sdim in zip(ibd, sibd):
            start[od] = ui[other_idx_dims.index(sdim)]
        for wi in np.ndindex(*wshape):
            full = list(start)
            for k, od in enumerate(win_operand_dims):
                full[od] += wi[k]
            if any(f < 0 or f >= s for f, s in zip(full, operands[0].shape)):
                continue
            uidx = [0] * upd0.ndim
            for k, d in enumerate(usd):
                uidx[d] = ui[k]
            for k, d in enumerate(uwd):
                uidx[d] = wi[k]
            full, uidx = tuple(full), tuple(uidx)
            if replace:
                operands[0][full] = updates[0][uidx]
            elif uf is not None:
                operands[0][full] = cast(uf(widen(operands[0][full]), widen(updates[0][uidx])), operands[0].dtype)
            else:
                res = body(*[o[full] for o in operands], *[u[uidx] for u in updates])
                for o, r in zip(operands, res):
                    o[full] = np.asarray(r).astype(o.dtype)
    return operands


def _region_returns_arg(c, k):
    regs = c.stmt.regions
    if not regs:
        return False
    reg = regs[0]
    return not reg.body and reg.ret is not None and len(reg.ret) == 1 and len(reg.args) > k and reg.ret[0] is reg.args[k]


@impl("sort")
def _sort(c):
    ops = list(c.srcs)
    dim = c.int("dimension", default=-1)
    if dim < 0:
        dim += ops[0].ndim
    cmpinfo = c.region_compare(0)
    if cmpinfo is not None:
        direction, ctype, swapped = cmpinfo
        if swapped:
            direction = {"LT": "GT", "GT": "LT", "LE": "GE", "GE": "LE"}.get(direction, direction)
    if cmpinfo is not None and direction in ("LT", "GT"):
        key = ops[0]
        if ctype == "TOTALORDER" or _is_float(key.dtype):
            k = _total_order_key(key) if _is_float(key.dtype) else key
            if ctype != "TOTALORDER" and _is_float(key.dtype):
                # partial order: -0.0 == 0.0; NaNs compare false (kept stable at the end)
                k = _total_order_key(np.where(key == 0, np.zeros((), key.dtype), key))
        else:
            k = key
        if direction == "GT":
            k = ~k if k.dtype.kind in "iub" else -k
        order = np.argsort(k, axis=dim, kind="stable")
        return [np.take_along_axis(o, order, axis=dim) for o in ops]
    body = c.region(0, vectorized=True)
    moved = [np.moveaxis(o, dim, -1) for o in ops]
    n = moved[0].shape[-1]
    outs = [np.empty_like(m) for m in moved]
    if n == 0:
        return ops
    # vectorised comparator calls: less[..., i, j] = comp(x[i], x[j]); the stable sorted position of i
    # is #{j: comp(x[j], x[i])} + #{j < i: neither is before the other}. Rows of i are done in chunks so
    # that one call sees at most ~2^24 pairs.
    rows = int(np.prod(moved[0].shape[:-1])) if moved[0].ndim > 1 else 1
    chunk = max(1, min(n, (1 << 24) // max(1, rows * n)))
    jidx = np.arange(n)
    pos = np.empty(moved[0].shape, dtype=np.int64)
    for s0 in range(0, n, chunk):
        s1 = min(n, s0 + chunk)
        xi = [m[..., s0:s1, None] for m in moved]
        xj = [m[..., None, :] for m in moved]

        def comp(first, second):
            args = []
            for a, b in zip(first, second):
                a, b = np.broadcast_arrays(a, b)
                args.extend([a, b])
            r = np.asarray(body(*args)[0]).astype(bool)
            return np.broadcast_to(r, moved[0].shape[:-1] + (s1 - s0, n))

        less = comp(xi, xj)  # comp(x[i], x[j])
        before = comp(xj, xi)  # comp(x[j], x[i])
        tie = ~less & ~before
        lower = jidx[None, :] < np.arange(s0, s1)[:, None]
        pos[..., s0:s1] = before.sum(-1) + (tie & lower).sum(-1)
    order = np.argsort(pos, axis=-1, kind="stable")
    outs = [np.take_along_axis(m, order, axis=-1) for m in moved]
    return [np.moveaxis(o, -1, dim) for o in outs]


# ---------------------------------------------------------------------------------------------
# control flow, calls, fusions
# ---------------------------------------------------------------------------------------------


@impl("while")
def _while(c):
    cond = c.region(0, vectorized=False)
    body = c.region(1, vectorized=False)
    vals = list(c.srcs)
    limit = 10_000_000
    while bool(np.asarray(cond(*vals)[0])):
        vals = [np.asarray(v) for v in body(*vals)]
        limit -= 1
        if limit == 0:
            raise AttrError("while loop did not terminate after 10^7 iterations")
    return vals


@impl("case")
def _case(c):
    idx = int(np.asarray(c.srcs[0]).reshape(()))
    n = c.nregions()
    if idx < 0 or idx >= n:
        idx = n - 1
    return c.region(idx, vectorized=False)()


@impl("if")
def _if(c):
    p = bool(np.asarray(c.srcs[0]).reshape(()))
    return c.region(0 if p else 1, vectorized=False)()


@impl("map")
def _map(c):
    shape = c.out_shape()
    return [np.broadcast_to(np.asarray(r), shape).copy() for r in c.region(0)(*c.srcs)]


def _fusion(c):
    """A fusion/composite printed with its region: run the body once in the enclosing scope."""
    reg = c.stmt.regions[0]
    args = c.srcs if reg.args else []
    return c.interp.call_region(c.stmt, reg, list(args), c.env, flat=True)


@impl("call")
def _call(c):
    callee = c.word("callee")
    raise AttrError(
        f"func.call to @{callee}: the program does not contain the callee's body (inline calls before printing)"
    )


# ---------------------------------------------------------------------------------------------
# custom calls
# ---------------------------------------------------------------------------------------------

_PY_CUSTOM = {"Softmax", "SoftmaxOp", "AliasingCopy", "AliasingCopyOp", "QuantizeMXTensorOp", "CopyOp",
              "ControlDepOp", "CheckOp", "DevicePrintOp"}

#: Python op name -> handler (format section 8); used when the target is not in CUSTOM_CALLS
_BY_PY_OP: dict = {}


def _target(c):
    t = c.raw("call_target_name", "target_name", "target", "custom_call_target")
    if t is not None:
        return str(parse_attr(t)).strip("'\"")
    k = c.stmt.kind.split(".")[-1]
    return {"Softmax": "AwsFSPattern5", "SoftmaxOp": "AwsFSPattern5", "AliasingCopyOp": "AliasingCopy"}.get(k, k)


def _custom_call(c):
    target = _target(c)
    fn = CUSTOM_CALLS.get(target)
    if fn is None and target.startswith("mhlo."):
        fn = IMPLS.get(target[len("mhlo."):])
    if fn is None:
        fn = _BY_PY_OP.get(c.stmt.kind.split(".")[-1])
    if fn is None:
        raise AttrError(f"custom call target '{target}' has no reference implementation")
    return fn(c)


def backend_config(c) -> dict:
    v = c.raw("backend_config")
    try:
        return config_dict(v)
    except (ValueError, json.JSONDecodeError):
        return {}


@custom_call("AwsFSPattern5", "Softmax", "AwsNeuronSoftmax")
def _softmax(c):
    (x,) = c.srcs[:1]
    cfg = backend_config(c)
    dim = None
    for k in ("dim", "dimension", "axis", "dimensions", "reduce_dim"):
        if c.raw(k) is not None:
            dim = c.ints(k)[0]
            break
        if k in cfg:
            dim = ints(cfg[k])[0]
            break
    if dim is None:
        dim = x.ndim - 1
    if dim < 0:
        dim += x.ndim
    xw = widen(x)
    m = np.max(xw, axis=dim, keepdims=True)
    e = np.exp(xw - m)
    if x.dtype in _NARROW_FLOATS:
        # the pattern it replaces rounds each op to the element type
        m = m.astype(x.dtype).astype(np.float32)
        e = np.exp((xw - m).astype(x.dtype).astype(np.float32)).astype(x.dtype).astype(np.float32)
        s = np.sum(e, axis=dim, keepdims=True).astype(x.dtype).astype(np.float32)
        return e / s
    return e / np.sum(e, axis=dim, keepdims=True)


@custom_call("AliasingCopy", "AwsNeuronControlDep", "Sharding", "SPMDFullToShardShape", "SPMDShardToFullShape",
             "AwsNeuronDevicePrint", "mhlo.device_print")
def _passthrough(c):
    outs = []
    for i, spec in enumerate(c.out_specs):
        if i < len(c.srcs) and tuple(np.shape(c.srcs[i])) == spec.shape:
            outs.append(c.srcs[i])
        else:
            outs.append(np.zeros(spec.shape, dtype=spec.np_dtype))
    return outs


@custom_call("__op$block_scaled_dot")
def _scaled_dot(c):
    """``DotOp(srcs=[lhs, rhs, lhs_scale, rhs_scale], op='mhlo.scaled_dot')``: scales repeated to the
    operand shapes (block = operand dim / scale dim), multiplied in, then dot_general (format section 8)."""
    lhs, rhs, ls, rs = c.srcs
    r = lhs.ndim
    batch = list(range(max(r - 2, 0)))
    lb = c.ints("lhs_batch_dimensions", "lhs_batching_dimensions", default=batch)
    rb = c.ints("rhs_batch_dimensions", "rhs_batching_dimensions", default=batch)
    lc = c.ints("lhs_contracting_dimensions", default=[r - 1])
    rc = c.ints("rhs_contracting_dimensions", default=[rhs.ndim - 1])

    def scaled(x, s):
        x = np.asarray(x).astype(np.float64)
        s = np.asarray(s).astype(np.float64)
        for d in range(x.ndim):
            if s.shape[d] != x.shape[d]:
                if s.shape[d] == 0 or x.shape[d] % s.shape[d]:
                    raise AttrError(f"scale dim {d} ({s.shape[d]}) does not divide operand dim {x.shape[d]}")
                s = np.repeat(s, x.shape[d] // s.shape[d], axis=d)
        return x * s

    return dot_general(scaled(lhs, ls), scaled(rhs, rs), lb, rb, lc, rc, c.out_dtype())


def _control_dep(c):
    return [c.srcs[i] for i in range(len(c.out_specs))]


def _ulps(a, b):
    """Units in the last place between two float arrays of one dtype (NaN == NaN)."""
    sdt = np.dtype(f"i{a.dtype.itemsize}")
    ia = np.ascontiguousarray(a).view(sdt).astype(np.int64).reshape(a.shape)
    ib = np.ascontiguousarray(b).view(sdt).astype(np.int64).reshape(b.shape)
    top = np.int64(1) << np.int64(a.dtype.itemsize * 8 - 1)
    ia = np.where(ia < 0, -(ia + top), ia)
    ib = np.where(ib < 0, -(ib + top), ib)
    nan = np.isnan(a.astype(np.float64)) & np.isnan(b.astype(np.float64))
    return np.where(nan, 0, np.abs(ia - ib))


def _check(c):
    """``CheckOp`` (the StableHLO test-suite checks): raise a clear error when the check fails.

    ``expect_eq``: bit-exact (NaN == NaN). ``expect_close`` / ``expect_almost_eq``: within
    ``max_ulp_difference`` (default 3) ulps, or relatively within 8 machine epsilons of the dtype.
    """
    kind = str(c.attr("check", default="expect_eq")).strip("'\"")
    actual = np.asarray(c.srcs[0])
    if len(c.srcs) > 1:
        expected = np.asarray(c.srcs[1])
    else:
        expected = np.asarray(parse_attr(c.raw("value", "expected")))
    if expected.dtype != actual.dtype:
        expected = expected.astype(actual.dtype)
    expected = np.broadcast_to(expected, actual.shape)
    if kind.startswith("expect_eq") or kind == "expect_serialized_eq" or not (_is_float(actual.dtype) or actual.dtype.kind == "c"):
        if actual.dtype.kind == "c":
            bad = ~((actual == expected) | (np.isnan(actual) & np.isnan(expected)))
        elif _is_float(actual.dtype):
            bad = _ulps(actual, expected) != 0
        else:
            bad = actual != expected
    else:
        max_ulps = c.int("max_ulp_difference", default=3)
        tol = float(c.attr("tolerance", default=1e-4)) if kind.startswith("expect_almost_eq") else None
        if actual.dtype.kind == "c":
            parts = [(actual.real, expected.real), (actual.imag, expected.imag)]
        else:
            parts = [(actual, expected)]
        bad = np.zeros(actual.shape, dtype=bool)
        for a, e in parts:
            eps = float(ml_dtypes.finfo(a.dtype).eps) if a.dtype in _NARROW_FLOATS else float(np.finfo(a.dtype).eps)
            aw, ew = a.astype(np.float64), e.astype(np.float64)
            near = np.isclose(aw, ew, rtol=8 * eps if tol is None else tol, atol=8 * eps if tol is None else tol, equal_nan=True)
            bad |= ~(near | (_ulps(a, e) <= max_ulps))
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise c.error(f"check.{kind} failed at {int(bad.sum())} of {bad.size} elements; first at {list(idx)}: "
                      f"got {actual[idx]!r}, expected {expected[idx]!r}")
    return []


_BY_PY_OP.update({
    "CopyOp": _passthrough,
    "ControlDepOp": _control_dep,
    "CheckOp": _check,
    "DevicePrintOp": _passthrough,
    "SoftmaxOp": _softmax,
})
CUSTOM_CALLS.update({
    "AwsNeuronTransferWithStaticRing": _passthrough,
    "annotate_device_placement": _passthrough,
    "mhlo.sharding": _passthrough,
})
for _t in ("check.expect_eq", "check.expect_almost_eq", "check.expect_close", "check.expect_eq_const",
           "check.expect_almost_eq_const", "check.expect_close_const", "check.expect_serialized_eq"):
    CUSTOM_CALLS[_t] = _check


_MX_EMAX = {"float8_e4m3fn": 8, "float8_e5m2": 15}


def _quantize_mx(c):
    """``QuantizeMXTensorOp``: OCP MX block quantisation (format section 8).

    Blocks of ``block_size`` consecutive elements along ``dim`` share one power-of-two scale:
    ``scale = 2^(floor(log2(max|x|)) - emax(mx_dtype))`` (``scale_method='EMAX'``; an all-zero block
    gets 2^-127), data = ``x / scale`` rounded to nearest even in ``mx_dtype`` and saturated to its
    largest finite value. Result 1 (the scale) is written in its spec dtype (``float8_e8m0fnu``; an
    integer dtype holds the biased exponent ``e + 127``). A ``*_x4`` (``uint32``) data result packs four
    codes per word along ``dim``, element ``k`` of a word at bits ``8k..8k+7``.
    """
    (x,) = c.srcs[:1]
    mx = str(c.attr("mx_dtype", "dtype", default="")).strip("'\"")
    if mx not in _MX_EMAX:
        raise AttrError(f"QuantizeMX mx_dtype {mx!r} is not supported (float8_e4m3fn, float8_e5m2)")
    method = str(c.attr("scale_method", default="EMAX")).strip("'\"").upper()
    if method != "EMAX":
        raise AttrError(f"QuantizeMX scale_method {method!r} is not supported (EMAX)")
    dim = c.int("dim", default=0)
    bs = c.int("block_size", default=32)
    if dim < 0:
        dim += x.ndim
    n = x.shape[dim]
    if bs <= 0 or n % bs:
        raise AttrError(f"QuantizeMX: block_size {bs} does not divide dimension {dim} of size {n}")
    xf = np.moveaxis(widen(x).astype(np.float64), dim, -1)
    blocks = xf.reshape(xf.shape[:-1] + (n // bs, bs))
    amax = np.max(np.abs(blocks), axis=-1)
    with np.errstate(divide="ignore"):
        e = np.where(amax > 0, np.floor(np.log2(np.where(amax > 0, amax, 1))), -127 - 0.0) - np.where(amax > 0, _MX_EMAX[mx], 0)
    e = np.clip(e, -127, 127)
    scale = np.exp2(e)
    q = blocks / scale[..., None]
    fdt = np.dtype(getattr(ml_dtypes, mx))
    fmax = float(ml_dtypes.finfo(fdt).max)
    codes = np.clip(q, -fmax, fmax).astype(fdt).reshape(xf.shape)
    codes = np.moveaxis(codes, -1, dim)
    dspec, sspec = c.out_specs[0], c.out_specs[1] if len(c.out_specs) > 1 else None
    if str(dspec.dtype).endswith("_x4") or dspec.np_dtype == np.uint32:
        b = np.moveaxis(codes.view(np.uint8), dim, -1).astype(np.uint32)
        if b.shape[-1] % 4:
            raise AttrError(f"QuantizeMX: x4 packing needs dimension {dim} divisible by 4, got {b.shape[-1]}")
        b = b.reshape(b.shape[:-1] + (b.shape[-1] // 4, 4))
        data = b[..., 0] | (b[..., 1] << 8) | (b[..., 2] << 16) | (b[..., 3] << 24)
        data = np.moveaxis(data, -1, dim)
    else:
        data = codes
    s = np.moveaxis(scale, -1, dim)
    outs = [data]
    if sspec is not None:
        sdt = sspec.np_dtype
        if sdt.kind in "iu":
            outs.append((np.moveaxis(e, -1, dim) + 127).astype(sdt))
        else:
            outs.append(s.astype(sdt))
    return outs


CUSTOM_CALLS["QuantizeMX"] = _quantize_mx
_BY_PY_OP["QuantizeMXTensorOp"] = _quantize_mx
