"""Custom calls by target (format section 8): softmax, copies and markers, the scaled dot, the
interpreter test-suite checks, device print, and MX block quantisation (QuantizeMX)."""

from __future__ import annotations

import json

import numpy as np

from hilo_mlir.penguin_ref.attrs import AttrError, config_dict, ints, parse_attr
from hilo_mlir.penguin_ref.ops.dispatch import CUSTOM_CALLS, IMPLS, custom_call, impl
from hilo_mlir.penguin_ref.ops.dot_conv import dot_general
from hilo_mlir.penguin_ref.ops.numeric import NARROW_FLOATS, is_float, widen

#: Python op name -> handler (format section 8); used when the target is not in CUSTOM_CALLS
_BY_PY_OP: dict = {}


def _target(c):
    t = c.raw("call_target_name", "target_name", "target", "custom_call_target")
    if t is not None:
        return str(parse_attr(t)).strip("'\"")
    k = c.stmt.kind.split(".")[-1]
    return {"Softmax": "AwsFSPattern5", "SoftmaxOp": "AwsFSPattern5", "AliasingCopyOp": "AliasingCopy"}.get(k, k)


@impl("custom_call")
def _custom_call(c):
    target = _target(c)
    fn = CUSTOM_CALLS.get(target)
    if fn is None and target.startswith("mhlo."):
        fn = IMPLS.get(target[len("mhlo.") :])
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
    if x.dtype in NARROW_FLOATS:
        # the pattern it replaces rounds each op to the element type
        m = m.astype(x.dtype).astype(np.float32)
        e = np.exp((xw - m).astype(x.dtype).astype(np.float32)).astype(x.dtype).astype(np.float32)
        s = np.sum(e, axis=dim, keepdims=True).astype(x.dtype).astype(np.float32)
        return e / s
    return e / np.sum(e, axis=dim, keepdims=True)


@impl("device_print")
@custom_call(
    "AliasingCopy",
    "AwsNeuronControlDep",
    "Sharding",
    "SPMDFullToShardShape",
    "SPMDShardToFullShape",
    "AwsNeuronDevicePrint",
    "mhlo.device_print",
)
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
    if kind.startswith("expect_eq") or kind == "expect_serialized_eq" or not (is_float(actual.dtype) or actual.dtype.kind == "c"):
        if actual.dtype.kind == "c":
            bad = ~((actual == expected) | (np.isnan(actual) & np.isnan(expected)))
        elif is_float(actual.dtype):
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
            eps = float(_ml_dtypes().finfo(a.dtype).eps) if a.dtype in NARROW_FLOATS else float(np.finfo(a.dtype).eps)
            aw, ew = a.astype(np.float64), e.astype(np.float64)
            near = np.isclose(aw, ew, rtol=8 * eps if tol is None else tol, atol=8 * eps if tol is None else tol, equal_nan=True)
            bad |= ~(near | (_ulps(a, e) <= max_ulps))
    if np.any(bad):
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise c.error(
            f"check.{kind} failed at {int(bad.sum())} of {bad.size} elements; first at {list(idx)}: "
            f"got {actual[idx]!r}, expected {expected[idx]!r}"
        )
    return []


_BY_PY_OP.update(
    {
        "DotOp": _scaled_dot,  # a DotOp printed for a custom call is the scaled matmul (op='mhlo.scaled_dot')
        "CopyOp": _passthrough,
        "ControlDepOp": _control_dep,
        "CheckOp": _check,
        "DevicePrintOp": _passthrough,
        "SoftmaxOp": _softmax,
    }
)
CUSTOM_CALLS.update(
    {
        "AwsNeuronTransferWithStaticRing": _passthrough,
        "annotate_device_placement": _passthrough,
        "mhlo.sharding": _passthrough,
    }
)
for _t in (
    "check.expect_eq",
    "check.expect_almost_eq",
    "check.expect_close",
    "check.expect_eq_const",
    "check.expect_almost_eq_const",
    "check.expect_close_const",
    "check.expect_serialized_eq",
):
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
    fdt = np.dtype(getattr(_ml_dtypes(), mx))
    fmax = float(_ml_dtypes().finfo(fdt).max)
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


def _ml_dtypes():
    """``ml_dtypes``, imported on first need (~1 s with 0.7)."""
    import ml_dtypes

    return ml_dtypes
