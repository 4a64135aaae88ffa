"""Partitioned or not: what an HLO sharding says, and how to get a per-device module (one wording for every route)."""

from __future__ import annotations

import re

#: How to get a per-device module of a sharded JAX program (the README's "Multi-device programs" recipe).
PARTITION_RECIPE = (
    "compile the per-device program instead: the module after SPMD partitioning "
    "(XLA_FLAGS='--xla_dump_to=DIR --xla_dump_hlo_as_text --xla_dump_hlo_pass_re=spmd-partitioning', file "
    "*.after_spmd-partitioning*.txt, or jax.jit(f).lower(...).compile().as_text()), or a jax.export of a shard_map "
    "that is manual over every mesh axis; hilo_mlir.jax.compile(f, ..., mesh=mesh) does either for you"
)

_TILE = re.compile(r"devices=\[([\d,]+)\]")


def sharding_splits(sharding: str) -> bool:
    """True if an HLO sharding string (``{devices=[2,1]<=[2]}``, ``{replicated}``, ``{manual}``, tuples of them)
    splits some dimension of its value across devices, or is manual (a shard_map body before partitioning)."""
    if "manual" in sharding:
        return True
    for m in _TILE.finditer(sharding):
        dims = [int(x) for x in m.group(1).split(",") if x]
        tail = sharding[m.end() : m.end() + 200]
        if "last_tile_dim_replicate" in tail.split("}")[0]:
            dims = dims[:-1]
        else:
            lt = re.search(r"last_tile_dims=\{([^}]*)\}", tail)
            if lt:
                dims = dims[: len(dims) - len([x for x in lt.group(1).split(",") if x.strip()])]
        prod = 1
        for d in dims:
            prod *= d
        if prod > 1:
            return True
    return False
