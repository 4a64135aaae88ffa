"""Reductions: ``reduce``, ``reduce_window``, ``select_and_scatter``.

Bodies that are a single ``add``/``multiply``/``maximum``/``minimum``/
``and``/``or``/``xor`` of the two arguments use the numpy ufunc (``reducer=``
hint or a traced region); other bodies run their region function.
"""

from __future__ import annotations

import itertools

import numpy as np

from hilo_mlir.penguin_ref.attrs import int_pairs
from hilo_mlir.penguin_ref.ops.dispatch import impl
from hilo_mlir.penguin_ref.ops.numeric import widen
from hilo_mlir.penguin_ref.ops.shape import pad

UFUNCS = {
    "add": np.add,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


def ufunc_for(name, dt):
    if dt == np.bool_ and name in ("add", "or", "maximum"):
        return np.logical_or
    if dt == np.bool_ and name in ("multiply", "and", "minimum"):
        return np.logical_and
    return UFUNCS.get(name)


@impl("reduce")
def _reduce(c):
    k = len(c.srcs) // 2
    inputs, inits = c.srcs[:k], c.srcs[k:]
    dims = tuple(c.ints("dimensions", default=[]))
    name = c.region_binary(0) if k == 1 else None
    if name is not None and ufunc_for(name, inputs[0].dtype) is not None:
        x = inputs[0]
        uf = ufunc_for(name, x.dtype)
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
    uf = ufunc_for(name, inputs[0].dtype) if name else None
    body = None if uf is not None else c.region(0)
    acc = [np.broadcast_to(widen(i) if uf is not None else i, out_shape).copy() for i in inits]
    for off in itertools.product(*[range(w) for w in win]):
        sl = tuple(
            slice(o * d, o * d + (m - 1) * st + 1, st) if m > 0 else slice(0, 0) for o, d, m, st in zip(off, wdil, out_shape, strides)
        )
        vals = [p[sl] for p in padded]
        if uf is not None:
            acc = [uf(acc[0], widen(vals[0]))]
        elif body is not None:  # always true here: without a ufunc, body is the region
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
    uf = ufunc_for(name, operand.dtype) if name else None
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
