"""Generate the multi-device test programs: per-device modules from both routes, inputs and JAX's outputs.

    python3 scripts/multidevice_programs.py --devices N --out DIR [--programs tp_mlp,dp_step,...] [--seed S]

Runs JAX on ``N`` host CPU devices (``XLA_FLAGS=--xla_force_host_platform_device_count=N`` is set
before jax is imported, so run one process per ``N``) and writes, for each program ``P`` of
:data:`PROGRAMS` (each a ``shard_map`` over a 1-D mesh ``('x',)`` of the ``N`` devices, inside ``jax.jit``):

* ``P.spmd.hlo.txt``: route (a), the HLO module XLA's SPMD partitioner produced (the
  ``--xla_dump_to`` dump after the ``spmd-partitioning`` pass): the per-device program, collectives
  explicit.
* ``P.shard_map.mlir``: route (b), ``jax.export`` of the same function (StableHLO text, manual over
  every mesh axis).
* ``P.npz``: ``in<i>``: the per-device inputs, ``ref<i>``: JAX's per-device outputs, each stacked on a
  leading device axis (shape ``(N,) + per-device shape``; device ``d`` = mesh position ``d`` =
  partition ``d``) -- the layout ``hilo-penguin-run --devices N`` reads and writes.

Inputs are N(0, 1) (weights scaled by 1/sqrt(fan-in)), from ``numpy.random.default_rng(seed)``; float32.
The programs:

* ``tp_mlp``: tensor-parallel MLP: column-parallel ``W1``, row-parallel ``W2``, one ``psum``.
* ``dp_step``: data-parallel SGD step of a 2-layer MLP: per-device gradients, one ``pmean`` per
  parameter (independent all-reduces), update, mean loss.
* ``fsdp_step``: FSDP SGD step of a 2-layer MLP: parameters sharded on dim 0, ``all_gather`` in each
  layer, whose transpose reduce-scatters the gradients back to shards; layer 1 is rematerialized, so
  the backward re-gathers its parameters while layer 2's gradients are reduce-scattered.
* ``ring``: ring exchange: ``N - 1`` steps of ``ppermute`` to the next device in a ``fori_loop``,
  accumulating what arrives, plus ``axis_index``.
* ``moe_a2a``: mixture-of-experts dispatch: top-1 routing, tokens sent to their expert's device with
  ``all_to_all``, one expert FFN per device, ``all_to_all`` back, combined.
"""

from __future__ import annotations

import argparse
import glob
import os
import sys
import tempfile


def _programs(jax, jnp, P, N: int) -> dict:
    """name -> (fn, in_specs, out_specs, [(global shape, kind)...]); kind 'x' data, 'w<fan_in>' weight, 'b' bias."""
    lax = jax.lax

    def tp_mlp(x, w1, b1, w2, b2):
        h = jax.nn.relu(x @ w1 + b1)
        return lax.psum(h @ w2, "x") + b2

    def mlp_loss(params, x, y):
        w1, b1, w2, b2 = params
        h = jnp.tanh(x @ w1 + b1)
        return jnp.mean((h @ w2 + b2 - y) ** 2)

    def dp_step(w1, b1, w2, b2, x, y):
        loss, grads = jax.value_and_grad(mlp_loss)((w1, b1, w2, b2), x, y)
        grads = [lax.pmean(g, "x") for g in grads]  # one all-reduce per parameter
        new = [p - 0.1 * g for p, g in zip((w1, b1, w2, b2), grads)]
        return (*new, lax.pmean(loss, "x"))

    def fsdp_layer(w, b, h, act):
        w = lax.all_gather(w, "x", tiled=True)
        return act(h @ w + b)

    def fsdp_loss(params, x, y):
        w1, b1, w2, b2 = params
        # layer 1 is rematerialized (its gathered weights are freed after the forward and re-gathered
        # for its backward, as FSDP does); the last layer keeps its gathered weights
        h = jax.checkpoint(lambda w, h: fsdp_layer(w, b1, h, jnp.tanh))(w1, x)
        out = fsdp_layer(w2, b2, h, lambda v: v)
        return jnp.mean((out - y) ** 2)

    def fsdp_step(w1, b1, w2, b2, x, y):
        # the transpose of all_gather is psum_scatter: g1, g2 arrive reduce-scattered (summed over devices)
        loss, (g1, gb1, g2, gb2) = jax.value_and_grad(fsdp_loss)((w1, b1, w2, b2), x, y)
        g1, g2 = g1 / N, g2 / N
        gb1, gb2 = lax.pmean(gb1, "x"), lax.pmean(gb2, "x")
        return w1 - 0.1 * g1, b1 - 0.1 * gb1, w2 - 0.1 * g2, b2 - 0.1 * gb2, lax.pmean(loss, "x")

    def ring(x):
        perm = [(i, (i + 1) % N) for i in range(N)]

        def body(_, carry):
            acc, cur = carry
            cur = lax.ppermute(cur, "x", perm)
            return acc + cur, cur

        acc, _ = lax.fori_loop(0, N - 1, body, (x, x))
        return acc * (lax.axis_index("x") + 1).astype(x.dtype)

    def moe_a2a(x, wr, we):
        # x: [T, D] tokens of this device; wr: [D, E] router (E = N experts); we: [1, D, D] this device's expert
        t = x.shape[0]
        expert = jnp.argmax(x @ wr, axis=-1)  # [T]
        onehot = jax.nn.one_hot(expert, N, dtype=x.dtype)  # [T, E]
        pos = (jnp.cumsum(onehot, axis=0) - 1.0) * onehot  # position of each token in its expert's buffer
        slot = jax.nn.one_hot(pos.sum(-1).astype(jnp.int32), t, dtype=x.dtype)  # [T, C=T]
        dispatch = onehot[:, :, None] * slot[:, None, :]  # [T, E, C]
        buf = jnp.einsum("tec,td->ecd", dispatch, x)  # [E, C, D]
        buf = lax.all_to_all(buf, "x", 0, 0, tiled=True)  # [E, C, D]: this expert's tokens from every device
        out = jnp.tanh(jnp.einsum("ecd,df->ecf", buf, we[0]))
        out = lax.all_to_all(out, "x", 0, 0, tiled=True)  # back to the tokens' devices
        return jnp.einsum("tec,ecd->td", dispatch, out)

    d, h, b = 8, 4 * N, 2 * N
    return {
        "tp_mlp": (
            tp_mlp,
            (P(), P(None, "x"), P("x"), P("x", None), P()),
            P(),
            [((b, d), "x"), ((d, h), f"w{d}"), ((h,), "b"), ((h, d), f"w{h}"), ((d,), "b")],
        ),
        "dp_step": (
            dp_step,
            (P(), P(), P(), P(), P("x"), P("x")),
            (P(), P(), P(), P(), P()),
            [((d, h), f"w{d}"), ((h,), "b"), ((h, d), f"w{h}"), ((d,), "b"), ((b, d), "x"), ((b, d), "x")],
        ),
        "fsdp_step": (
            fsdp_step,
            (P("x"), P(), P("x"), P(), P("x"), P("x")),
            (P("x"), P(), P("x"), P(), P()),
            [((d, h), f"w{d}"), ((h,), "b"), ((h, d), f"w{h}"), ((d,), "b"), ((b, d), "x"), ((b, d), "x")],
        ),
        "ring": (ring, (P("x"),), P("x"), [((2 * N, 3), "x")]),
        "moe_a2a": (moe_a2a, (P("x"), P(), P("x")), P("x"), [((4 * N, d), "x"), ((d, N), f"w{d}"), ((N, d, d), f"w{d}")]),
    }


def _spmd_dump(dump_dir: str, module: str) -> str:
    hits = sorted(glob.glob(os.path.join(dump_dir, f"module_*.{module}.*after_spmd-partitioning*.txt")))
    if not hits:
        raise SystemExit(f"no spmd-partitioning dump of {module} in {dump_dir}")
    with open(hits[-1], encoding="utf-8") as f:
        return f.read()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--devices", type=int, required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--programs", default="tp_mlp,dp_step,fsdp_step,ring,moe_a2a")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    n = args.devices
    dump = tempfile.mkdtemp(prefix="hilo_spmd_dump_")
    os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={n} --xla_dump_to={dump} --xla_dump_hlo_pass_re=spmd-partitioning"
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    if len(jax.devices()) != n:
        raise SystemExit(f"jax has {len(jax.devices())} devices, {n} wanted (was jax imported before XLA_FLAGS was set?)")
    mesh = Mesh(np.array(jax.devices()), ("x",))
    os.makedirs(args.out, exist_ok=True)
    progs = _programs(jax, jnp, P, n)
    for name in args.programs.split(","):
        fn, in_specs, out_specs, shapes = progs[name]
        rng = np.random.default_rng([args.seed, n, sorted(progs).index(name)])
        globals_ = []
        for shape, kind in shapes:
            a = rng.standard_normal(shape).astype(np.float32)
            if kind.startswith("w"):
                a /= np.sqrt(float(kind[1:]))
            globals_.append(a)
        fn.__name__ = fn.__qualname__ = name
        sm = jax.shard_map(fn, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)
        jitted = jax.jit(sm)
        args_dev = [jax.device_put(a, NamedSharding(mesh, s)) for a, s in zip(globals_, in_specs)]
        outs = jitted(*args_dev)
        outs = outs if isinstance(outs, (list, tuple)) else [outs]

        def per_device(arr):
            shards = sorted(arr.addressable_shards, key=lambda s: s.device.id)
            return np.stack([np.asarray(s.data) for s in shards])

        arrays = {f"in{i}": per_device(a) for i, a in enumerate(args_dev)}
        arrays.update({f"ref{i}": per_device(o) for i, o in enumerate(outs)})
        np.savez(os.path.join(args.out, f"{name}.npz"), **arrays)
        with open(os.path.join(args.out, f"{name}.spmd.hlo.txt"), "w", encoding="utf-8") as f:
            f.write(_spmd_dump(dump, f"jit_{name}"))
        exported = jax.export.export(jitted)(*[jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=a.sharding) for a in args_dev])
        with open(os.path.join(args.out, f"{name}.shard_map.mlir"), "w", encoding="utf-8") as f:
            f.write(exported.mlir_module())
    return 0


if __name__ == "__main__":
    sys.exit(main())
