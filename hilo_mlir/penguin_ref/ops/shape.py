"""Data movement and shape ops: constants, iota, broadcasts, reshapes, slices, padding, tuples, top-k,
and the collectives on the one replica the backend runs."""

from __future__ import annotations

import numpy as np

from hilo_mlir.penguin_ref.attrs import parse_attr
from hilo_mlir.penguin_ref.ops.dispatch import impl
from hilo_mlir.penguin_ref.ops.elementwise import total_order_key
from hilo_mlir.penguin_ref.ops.numeric import NARROW_FLOATS, is_float


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
    if type(v).__name__ == "Bits":
        return v.array(c.out_dtype(), c.out_shape())
    v = parse_attr(v)
    dt = c.out_dtype()
    if isinstance(v, np.ndarray):
        arr = v
        same_size = arr.dtype != dt and arr.dtype.kind in "uV" and arr.dtype.itemsize == dt.itemsize
        if same_size and (dt in NARROW_FLOATS or dt.kind == "V" or dt.name.startswith("float8")):
            arr = arr.view(dt)  # bf16 / f8 stored as their bit patterns
    else:
        try:  # convert the literal straight to the result dtype (exact for 64-bit ints, rounds floats once)
            arr = np.asarray(v, dtype=np.float64 if dt in NARROW_FLOATS else dt)
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
    return a[tuple(slice(s, e, st) for s, e, st in zip(start, limit, strides))].copy()


def _clamped_starts(idx_arrays, shape, sizes):
    out = []
    for _i, (s, n, k) in enumerate(zip(idx_arrays, shape, sizes)):
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
    idx = tuple(
        slice(max(lo, 0), max(lo, 0) + (n - 1) * (i + 1) + 1 if n else max(lo, 0), i + 1) for n, lo, i in zip(a.shape, low, interior)
    )
    out[idx] = a
    # negative padding crops
    crop = tuple(slice(-lo if lo < 0 else 0, (s + hi) if hi < 0 else s) for lo, hi, s in zip(low, high, out.shape))
    return out[crop].copy()


@impl("pad")
def _pad(c):
    a, v = c.srcs
    n = a.ndim
    return pad(
        a,
        v,
        c.ints("edge_padding_low", default=[0] * n),
        c.ints("edge_padding_high", default=[0] * n),
        c.ints("interior_padding", default=[0] * n),
    )


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
    key = total_order_key(a) if is_float(a.dtype) else a
    if largest in (True, "true", 1):
        key = ~key if key.dtype.kind in "iu" else -key
    order = np.argsort(key, axis=-1, kind="stable")[..., :k]
    return [np.take_along_axis(a, order, axis=-1), order.astype(c.out_dtype(1))]
