"""``dot``, ``dot_general`` and ``convolution``: contractions accumulated in a wide type
(f64 for floats, 64-bit for integers), rounded once to the result dtype."""

from __future__ import annotations

import numpy as np

from hilo_mlir.penguin_ref.attrs import AttrError, int_pairs, ints
from hilo_mlir.penguin_ref.ops.dispatch import impl
from hilo_mlir.penguin_ref.ops.numeric import WIDE_F32, is_float
from hilo_mlir.penguin_ref.ops.shape import pad


def _acc_dtype(a, b, out):
    if is_float(a.dtype) or is_float(b.dtype) or is_float(out):
        if WIDE_F32 or np.dtype(out) == np.float64 or a.dtype == np.float64:
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
    """``DotOp`` with the four dimension lists (or a ``dot_dimension_numbers`` struct)."""
    lhs, rhs = c.srcs[:2]
    if len(c.srcs) > 2:
        raise AttrError("dot_general with extra operands (scaled dot) is not supported by the reference backend")
    if c.has("lhs_contracting_dimensions"):
        lb = c.ints("lhs_batch_dimensions", "lhs_batching_dimensions", default=[])
        rb = c.ints("rhs_batch_dimensions", "rhs_batching_dimensions", default=[])
        lc, rc = c.ints("lhs_contracting_dimensions"), c.ints("rhs_contracting_dimensions")
    else:
        fields = ("lhs_batching_dimensions", "rhs_batching_dimensions", "lhs_contracting_dimensions", "rhs_contracting_dimensions")
        dn = c.struct(("dot_dimension_numbers", "dimension_numbers"), fields)
        lb, rb, lc, rc = (ints(dn[k]) for k in fields)
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
    dn = c.struct(
        ("dimension_numbers", "conv_dimension_numbers"),
        (
            "input_batch_dimension",
            "input_feature_dimension",
            "input_spatial_dimensions",
            "kernel_input_feature_dimension",
            "kernel_output_feature_dimension",
            "kernel_spatial_dimensions",
            "output_batch_dimension",
            "output_feature_dimension",
            "output_spatial_dimensions",
        ),
    )
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
            w = np.flip(w, axis=tuple(flips))
    x = pad(x, np.zeros((), acc), [0, 0] + [p[0] for p in padding], [0, 0] + [p[1] for p in padding], [0, 0] + [d - 1 for d in ldil])
    N = x.shape[0]
    c_out = w.shape[0]
    ks = w.shape[2:]
    eff = [(k - 1) * d + 1 for k, d in zip(ks, rdil)]
    out_sp = [max((s - e) // st + 1, 0) if s >= e else 0 for s, e, st in zip(x.shape[2:], eff, strides)]
    if bgc > 1:
        # batch groups: split the batch into bgc groups, output features split accordingly
        nb = N // bgc
        xs = [x[g * nb : (g + 1) * nb] for g in range(bgc)]
        og = c_out // bgc
        outs = [_conv_core(xs[g], w[g * og : (g + 1) * og], fgc, ks, rdil, strides, out_sp, acc) for g in range(bgc)]
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
    N = x.shape[0]
    c_out, c_in = w.shape[:2]  # c_in: input features per feature group
    og = c_out // fgc
    y = np.zeros((N, c_out) + tuple(out_sp), dtype=acc)
    for g in range(fgc):
        xg = x[:, g * c_in : (g + 1) * c_in]
        wg = w[g * og : (g + 1) * og]
        for k in np.ndindex(*ks):
            sl = tuple(
                slice(kk * d, kk * d + (m - 1) * st + 1, st) if m > 0 else slice(0, 0) for kk, d, m, st in zip(k, rdil, out_sp, strides)
            )
            patch = xg[(slice(None), slice(None)) + sl]  # N I S...
            y[:, g * og : (g + 1) * og] += np.einsum("ni...,oi->no...", patch, wg[(slice(None), slice(None)) + k])
    return y
