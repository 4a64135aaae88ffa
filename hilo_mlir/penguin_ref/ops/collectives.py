"""Collectives and device ids on N simulated devices (:mod:`hilo_mlir.penguin_ref.devices`).

Semantics are the StableHLO specification's ("Collective ops"):

* process groups: ``all_reduce`` / ``all_gather`` / ``reduce_scatter``:
  no channel (``channel_handle`` absent or ``handle <= 0``) ->
  ``cross_replica(replica_groups)``; a channel without
  ``use_global_device_ids`` -> ``cross_replica_and_partition``; with it ->
  ``flattened_ids``. ``all_to_all`` / ``collective_permute`` /
  ``collective_broadcast``: no channel -> cross-replica, a channel ->
  cross-partition. Empty ``replica_groups`` = one group of every id;
  negative entries (XLA's padding of uneven groups) are dropped. Groups must
  name ids that exist, once each, and cover them all (else one error naming
  the groups and the mesh).
* ``all_reduce`` / ``reduce_scatter`` reduction order (fixed): a left fold in
  the group's listed order, ``((x[g0] + x[g1]) + x[g2]) + ...``, with the
  reducer applied elementwise to whole arrays (a single binary op of
  ``add``/``multiply``/``maximum``/``minimum``/``and``/``or``/``xor`` through
  numpy, any other reducer by calling its region function); floats narrower
  than f32 are reduced in f32 and rounded once at the end, f32 in f64 (as the
  backend's ``reduce`` does).
* ``all_gather``: the group's operands concatenated along ``all_gather_dim``
  in group order. ``reduce_scatter``: the reduced value split into
  ``len(group)`` parts along ``scatter_dimension``; the ``i``-th member of
  the group receives part ``i``. ``all_to_all``: each operand split into
  ``split_count`` parts along ``split_dimension``; part ``j`` goes to the
  group's ``j``-th member, which concatenates what it receives along
  ``concat_dimension`` in group order. ``collective_permute``: the value of
  each pair's source arrives at its target; a device no pair targets gets
  zeros. ``collective_broadcast``: every member of a group gets the group's
  first member's operand; a device in no group gets zeros.
* ``replica_id`` / ``partition_id``: device ``d``'s ``d // P`` / ``d % P``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hilo_mlir.penguin_ref.attrs import AttrError, int_pairs
from hilo_mlir.penguin_ref.devices import Fabric
from hilo_mlir.penguin_ref.ops.dispatch import impl
from hilo_mlir.penguin_ref.ops.numeric import widen
from hilo_mlir.support.process_groups import Mesh, check_pairs, groups_of

_UFUNCS = {
    "add": np.add,
    "multiply": np.multiply,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
}


def _fabric(c) -> tuple[Fabric, int]:
    """The fabric and device id of the interpreter running ``c`` (a 1-device fabric when run without ``devices``)."""
    interp = c.interp
    fab = getattr(interp, "fabric", None)
    if fab is None:
        fab = interp.fabric = Fabric(Mesh(1, 1))
        interp.device = 0
    return fab, interp.device


def _channel(c) -> bool:
    """True if the op names a channel (``channel_handle`` with ``handle > 0``)."""
    h = c.attr("channel_handle")
    if h is None:
        return False
    if isinstance(h, dict):
        return int(h.get("handle", 0)) > 0
    raise AttrError(f"cannot read channel_handle={c.raw('channel_handle')!r}")


def _groups_attr(c, name: str) -> list:
    g = c.attr(name)
    if g is None:
        return []
    a = np.asarray(g, dtype=np.int64)
    if a.size == 0:
        return []
    if a.ndim != 2:
        raise AttrError(f"{name} should be a 2-D list of ids, got {g!r}")
    return [[int(i) for i in row if i >= 0] for row in a.tolist() if any(i >= 0 for i in row)]


def _global_ids(c) -> bool:
    return c.attr("use_global_device_ids") in (True, "true", 1)


def _groups_replicas_kind(c, mesh: Mesh) -> list:
    """Process groups (device ids) of all_reduce / all_gather / reduce_scatter."""
    return groups_of(mesh, "all_reduce", _groups_attr(c, "replica_groups"), _channel(c), _global_ids(c))


def _groups_partition_kind(c, mesh: Mesh, name: str = "replica_groups") -> list:
    """Process groups of all_to_all: cross-replica without a channel, else cross-partition."""
    return groups_of(mesh, "all_to_all", _groups_attr(c, name), _channel(c), False)


def _reducer(c):
    """``fn(acc, x) -> array`` for the op's reducer region (a numpy ufunc when it is one binary op).

    The region takes two scalars; a variadic op applies it to each operand
    separately (the StableHLO spec: one region for every operand).
    """
    name = c.region_binary(0)
    dt = c.srcs[0].dtype if c.srcs else None
    if name is not None and dt is not None:
        if dt == np.bool_ and name in ("add", "or", "maximum"):
            return np.logical_or
        if dt == np.bool_ and name in ("multiply", "and", "minimum"):
            return np.logical_and
        if name in _UFUNCS:
            return _UFUNCS[name]
    body = c.region(0, vectorized=True)
    return lambda acc, x: np.asarray(body(acc, x)[0])


def _fold(values: list, fn, variadic: bool):
    """Left fold of ``values`` (in group order) with ``fn``, each operand on its own; wide accumulation
    (:func:`widen`)."""
    if variadic:
        return [_fold([v[k] for v in values], fn, False) for k in range(len(values[0]))]
    acc = widen(values[0])
    for v in values[1:]:
        acc = np.asarray(fn(acc, widen(v)))
    return acc


@impl("replica_id")
def _replica_id(c):
    fab, d = _fabric(c)
    return np.asarray(fab.mesh.replica_of(d), dtype=c.out_dtype())


@impl("partition_id")
def _partition_id(c):
    fab, d = _fabric(c)
    return np.asarray(fab.mesh.partition_of(d), dtype=c.out_dtype())


def _exchange(c, payload, compute):
    fab, d = _fabric(c)
    st = c.stmt
    loc = st.dl.mlir_loc() if st.dl is not None and st.dl.file else None
    return fab.exchange(d, st.lineno, f"{st.describe()} (penguin.py line {st.lineno})", payload, compute, loc=loc)


@impl("all_reduce", "cross_replica_sum")
def _all_reduce(c):
    fab, _ = _fabric(c)
    if c.stmt.kind == "CrossReplicaSumOp" or (c.stmt.xla_op or "").endswith("cross_replica_sum"):
        groups, fn = fab.mesh.cross_replica(_groups_attr(c, "replica_groups")), np.add
    else:
        groups, fn = _groups_replicas_kind(c, fab.mesh), _reducer(c)
    variadic = len(c.srcs) > 1
    operands = list(c.srcs) if variadic else c.srcs[0]

    def compute(payloads):
        out: list[Any] = [None] * len(payloads)
        for g in groups:
            r = _fold([payloads[d] for d in g], fn, variadic)
            for d in g:
                out[d] = [np.array(x) for x in r] if variadic else np.array(r)  # one copy per device
        return out

    r = _exchange(c, operands, compute)
    return list(r) if variadic else r


@impl("all_gather")
def _all_gather(c):
    fab, _ = _fabric(c)
    groups = _groups_replicas_kind(c, fab.mesh)
    dim = c.int("all_gather_dim")

    def compute(payloads):
        out: list[Any] = [None] * len(payloads)
        for g in groups:
            r = [np.concatenate([payloads[d][k] for d in g], axis=dim) for k in range(len(payloads[g[0]]))]
            for d in g:
                out[d] = [np.array(x) for x in r]  # one copy per device
        return out

    return _exchange(c, list(c.srcs), compute)


@impl("reduce_scatter")
def _reduce_scatter(c):
    fab, _ = _fabric(c)
    groups = _groups_replicas_kind(c, fab.mesh)
    dim = c.int("scatter_dimension")
    fn = _reducer(c)
    variadic = len(c.srcs) > 1
    operands = list(c.srcs) if variadic else c.srcs[0]

    def compute(payloads):
        out: list[Any] = [None] * len(payloads)
        for g in groups:
            r = _fold([payloads[d] for d in g], fn, variadic)
            parts = [np.split(x, len(g), axis=dim) for x in (r if variadic else [r])]
            for i, d in enumerate(g):
                out[d] = [np.array(p[i]) for p in parts] if variadic else np.array(parts[0][i])
        return out

    r = _exchange(c, operands, compute)
    return list(r) if variadic else r


@impl("all_to_all")
def _all_to_all(c):
    fab, _ = _fabric(c)
    groups = _groups_partition_kind(c, fab.mesh)
    split_dim = c.int("split_dimension")
    concat_dim = c.int("concat_dimension")
    count = c.int("split_count")

    def compute(payloads):
        out: list[Any] = [None] * len(payloads)
        for g in groups:
            if len(g) != count:
                raise ValueError(f"split_count is {count} but a group has {len(g)} members: {g}")
            parts = {d: [np.split(x, count, axis=split_dim) for x in payloads[d]] for d in g}
            for j, d in enumerate(g):
                out[d] = [np.concatenate([parts[s][k][j] for s in g], axis=concat_dim) for k in range(len(payloads[d]))]
        return out

    return _exchange(c, list(c.srcs), compute)


@impl("collective_permute")
def _collective_permute(c):
    fab, _ = _fabric(c)
    mesh = fab.mesh
    pairs = [tuple(p) for p in int_pairs(c.raw("source_target_pairs"))] if c.has("source_target_pairs") else []
    channel = _channel(c)
    check_pairs(mesh, pairs, channel)

    def compute(payloads):
        out = [np.zeros_like(p) for p in payloads]
        for other in range(mesh.replicas if channel else mesh.partitions):
            for s, t in pairs:
                src = mesh.device(other, s) if channel else mesh.device(s, other)
                dst = mesh.device(other, t) if channel else mesh.device(t, other)
                out[dst] = np.array(payloads[src])
        return out

    return _exchange(c, c.srcs[0], compute)


@impl("collective_broadcast")
def _collective_broadcast(c):
    fab, _ = _fabric(c)
    mesh = fab.mesh
    raw = _groups_attr(c, "replica_groups")
    channel = _channel(c)
    n_ids = mesh.partitions if channel else mesh.replicas
    flat = [i for g in raw for i in g]
    if any(not 0 <= i < n_ids for i in flat) or len(set(flat)) != len(flat):
        bad = next((i for i in flat if not 0 <= i < n_ids), None)
        what = f"name {'partition' if channel else 'replica'} {bad}, but the run has {n_ids}" if bad is not None else "repeat an id"
        raise ValueError(f"its groups {raw} {what}")
    groups = (
        [[mesh.device(r, p) for p in g] for g in raw for r in range(mesh.replicas)]
        if channel
        else [[mesh.device(r, p) for r in g] for g in raw for p in range(mesh.partitions)]
    )

    def compute(payloads):
        out = [np.zeros_like(p) for p in payloads]
        for g in groups:
            for d in g:
                out[d] = np.array(payloads[g[0]])
        return out

    return _exchange(c, c.srcs[0], compute)
