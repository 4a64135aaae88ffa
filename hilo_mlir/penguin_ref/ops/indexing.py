"""``gather``, ``scatter`` and ``sort`` (indices clamped as the StableHLO specification says)."""

from __future__ import annotations

import numpy as np

from hilo_mlir.penguin_ref.attrs import ints
from hilo_mlir.penguin_ref.ops.dispatch import impl
from hilo_mlir.penguin_ref.ops.elementwise import total_order_key
from hilo_mlir.penguin_ref.ops.numeric import cast, is_float, widen
from hilo_mlir.penguin_ref.ops.reductions import ufunc_for

_GATHER_FIELDS = (
    "offset_dims",
    "collapsed_slice_dims",
    "operand_batching_dims",
    "start_indices_batching_dims",
    "start_index_map",
    "index_vector_dim",
)


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


_SCATTER_FIELDS = (
    "update_window_dims",
    "inserted_window_dims",
    "input_batching_dims",
    "scatter_indices_batching_dims",
    "scatter_dims_to_operand_dims",
    "index_vector_dim",
)


@impl("scatter")
def _scatter(c):
    n = (len(c.srcs) - 1) // 2
    operands = [np.array(x, copy=True) for x in c.srcs[:n]]
    idx = np.asarray(c.srcs[n])
    updates = c.srcs[n + 1 :]
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
    uf = ufunc_for(name, operands[0].dtype) if name else None
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
            at, uat = tuple(full), tuple(uidx)
            if replace:
                operands[0][at] = updates[0][uat]
            elif uf is not None:
                operands[0][at] = cast(uf(widen(operands[0][at]), widen(updates[0][uat])), operands[0].dtype)
            elif body is not None:  # always true here: without a ufunc or a replace, body is the region
                res = body(*[o[at] for o in operands], *[u[uat] for u in updates])
                for o, r in zip(operands, res):
                    o[at] = np.asarray(r).astype(o.dtype)
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
        if ctype == "TOTALORDER" or is_float(key.dtype):
            k = total_order_key(key) if is_float(key.dtype) else key
            if ctype != "TOTALORDER" and is_float(key.dtype):
                # partial order: -0.0 == 0.0; NaNs compare false (kept stable at the end)
                k = total_order_key(np.where(key == 0, np.zeros((), key.dtype), key))
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
