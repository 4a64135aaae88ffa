"""Regenerates the XLA dumps in this folder (issue 22: HLO text as XLA writes it).

Run from anywhere with a Python that has jax:  python generate.py
It sets XLA_FLAGS itself (2 CPU devices, text dumps, the spmd-partitioning pass
dumped) before importing jax, runs each case once, and copies the dumps the lit
tests read here under stable names:

* transpose.before_optimizations.txt -- jax.jit(lambda x: x.T * 2): layouts {0,1}
* mlp.after_optimizations.txt         -- tanh(x @ w).sum(0) after XLA's CPU pipeline: kLoop/kCustom fusions
* sharded.before_optimizations.txt    -- a sharded jit (x split over 2 devices): the global program
* sharded.after_spmd-partitioning.txt -- the same after SPMD partitioning: the per-device program + all-reduce
* sharded.compiled.txt                -- jax.jit(f).lower(...).compile().as_text(): partitioned and optimized
* shard_map.stablehlo.mlir            -- jax.export of a shard_map (psum) manual over "x" (Shardy form)
* shard_map_gspmd.stablehlo.mlir      -- the same with jax_use_shardy_partitioner=False (GSPMD custom calls)
"""

import glob
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
DUMP = tempfile.mkdtemp(prefix="hilo_xla_dump_")
os.environ["XLA_FLAGS"] = (
    f"--xla_force_host_platform_device_count=2 --xla_dump_to={DUMP} --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=spmd-partitioning"
)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax.sharding import NamedSharding  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")


def transpose(x):
    return x.T * 2


def mlp(x, w):
    return jnp.tanh(x @ w).sum(axis=0)


def _copy(pattern: str, name: str) -> None:
    found = sorted(glob.glob(os.path.join(DUMP, pattern)))
    if not found:
        sys.exit(f"no dump matches {pattern} in {DUMP}")
    shutil.copy(found[-1], os.path.join(HERE, name))
    print(name)


def main() -> None:
    jax.jit(transpose)(jnp.ones((4, 8), jnp.float32))
    _copy("*jit_transpose.before_optimizations.txt", "transpose.before_optimizations.txt")
    jax.jit(mlp)(jnp.ones((4, 16), jnp.float32), jnp.ones((16, 4), jnp.float32))
    _copy("*jit_mlp.cpu_after_optimizations.txt", "mlp.after_optimizations.txt")

    mesh = jax.make_mesh((2,), ("x",))
    xs, ws = NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P(None, None))

    def sharded(x, w):
        return jnp.tanh(x @ w).sum(axis=0)

    f = jax.jit(sharded, in_shardings=(xs, ws))
    x = jax.device_put(jnp.ones((8, 16), jnp.float32), xs)
    w = jax.device_put(jnp.ones((16, 4), jnp.float32), ws)
    f(x, w)
    _copy("*jit_sharded.before_optimizations.txt", "sharded.before_optimizations.txt")
    _copy("*jit_sharded.*after_spmd-partitioning*.txt", "sharded.after_spmd-partitioning.txt")
    with open(os.path.join(HERE, "sharded.compiled.txt"), "w") as fh:
        fh.write(f.lower(x, w).compile().as_text())
    print("sharded.compiled.txt")

    def body(x, w):
        return jax.lax.psum(jnp.tanh(x @ w), "x")

    amesh = jax.sharding.AbstractMesh((2,), ("x",))
    args = [
        jax.ShapeDtypeStruct((8, 16), jnp.float32, sharding=NamedSharding(amesh, P("x", None))),
        jax.ShapeDtypeStruct((16, 4), jnp.float32, sharding=NamedSharding(amesh, P())),
    ]
    for name, shardy in (("shard_map.stablehlo.mlir", True), ("shard_map_gspmd.stablehlo.mlir", False)):
        jax.config.update("jax_use_shardy_partitioner", shardy)
        f = jax.shard_map(body, mesh=amesh, in_specs=(P("x", None), P()), out_specs=P())
        with open(os.path.join(HERE, name), "w") as fh:
            fh.write(jax.export.export(jax.jit(f))(*args).mlir_module())
        print(name)
    shutil.rmtree(DUMP, ignore_errors=True)


if __name__ == "__main__":
    main()
