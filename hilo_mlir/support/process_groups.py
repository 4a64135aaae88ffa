"""Devices, replicas, partitions and the process groups of collectives (StableHLO spec, "Collective ops").

Pure Python (no MLIR): used by the reference backend's N-device runs
(:mod:`hilo_mlir.penguin_ref.devices`) and by the input validation, which
checks a module's collectives against its ``mhlo.num_replicas`` /
``mhlo.num_partitions`` (:func:`hilo_mlir.driver.frontend.validation.validate_input`).

Device ``d`` is the process ``(replica_id, partition_id) = (d // P, d % P)``.
:func:`groups_of` gives an op's process groups (device ids, in the spec's
order) from its kind, groups, channel id and ``use_global_device_ids``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Mesh:
    """``replicas * partitions`` devices; device ``d`` = (replica ``d // partitions``, partition ``d % partitions``)."""

    replicas: int
    partitions: int

    @property
    def devices(self) -> int:
        return self.replicas * self.partitions

    def device(self, replica: int, partition: int) -> int:
        return replica * self.partitions + partition

    def replica_of(self, d: int) -> int:
        return d // self.partitions

    def partition_of(self, d: int) -> int:
        return d % self.partitions

    # process groups (StableHLO spec, "Collective ops"), each a list of device ids in the spec's order ----------
    def _check_cover(self, groups: list[list[int]], n: int, noun: str) -> None:
        """Each id of ``groups`` (ids of ``noun``: replica, partition or device) in ``[0, n)``, unique, all covered."""
        flat = [i for g in groups for i in g]
        bad = [i for i in flat if not 0 <= i < n]
        if bad:
            raise ValueError(f"its groups {groups} name {noun} {bad[0]}, but there are {n} {noun}s ({self.describe()})")
        if len(set(flat)) != len(flat):
            raise ValueError(f"its groups {groups} name a {noun} twice")
        if len(flat) != n:
            missing = sorted(set(range(n)) - set(flat))
            raise ValueError(f"its groups {groups} leave out {noun} {missing[0]} of {n} ({self.describe()})")

    def describe(self) -> str:
        return f"{self.devices} device(s): {self.replicas} replica(s) x {self.partitions} partition(s)"

    def cross_replica(self, groups: list[list[int]]) -> list[list[int]]:
        groups = groups or [list(range(self.replicas))]
        self._check_cover(groups, self.replicas, "replica")
        return [[self.device(r, p) for r in g] for g in groups for p in range(self.partitions)]

    def cross_partition(self, groups: list[list[int]]) -> list[list[int]]:
        groups = groups or [list(range(self.partitions))]
        self._check_cover(groups, self.partitions, "partition")
        return [[self.device(r, p) for p in g] for g in groups for r in range(self.replicas)]

    def cross_replica_and_partition(self, groups: list[list[int]]) -> list[list[int]]:
        groups = groups or [list(range(self.replicas))]
        self._check_cover(groups, self.replicas, "replica")
        return [[self.device(r, p) for p in range(self.partitions) for r in g] for g in groups]

    def flattened_ids(self, groups: list[list[int]]) -> list[list[int]]:
        groups = groups or [list(range(self.devices))]
        self._check_cover(groups, self.devices, "device")
        return [list(g) for g in groups]


#: collectives whose groups follow the replica-kind rule (cross_replica / cross_replica_and_partition / flattened_ids)
REPLICA_KIND = frozenset({"all_reduce", "all_gather", "reduce_scatter"})
#: collectives whose groups are cross-replica without a channel and cross-partition with one
PARTITION_KIND = frozenset({"all_to_all", "collective_broadcast"})


def groups_of(mesh: Mesh, kind: str, groups: list[list[int]], channel: bool, global_ids: bool) -> list[list[int]]:
    """The process groups (lists of device ids, in the spec's order) of a ``kind`` collective.

    Args:
        groups: the op's ``replica_groups`` rows (negative padding removed; ``[]``: every id).
        channel: the op has a channel (``channel_handle`` with ``handle > 0``).
        global_ids: ``use_global_device_ids``.

    Raises:
        ValueError: ``use_global_device_ids`` without a channel, or groups that
            name an id that does not exist, name one twice or leave one out.
    """
    if kind in REPLICA_KIND:
        if not channel:
            if global_ids:
                raise ValueError("use_global_device_ids without a channel_handle")
            return mesh.cross_replica(groups)
        return mesh.flattened_ids(groups) if global_ids else mesh.cross_replica_and_partition(groups)
    return mesh.cross_partition(groups) if channel else mesh.cross_replica(groups)


def check_pairs(mesh: Mesh, pairs: Sequence[Sequence[int]], channel: bool) -> None:
    """``collective_permute``'s ``source_target_pairs``: ids that exist, each source and target once.

    Raises:
        ValueError: naming the pairs and the id.
    """
    n_ids = mesh.partitions if channel else mesh.replicas
    noun = "partition" if channel else "replica"
    shown = [[int(s), int(t)] for s, t in pairs]
    for s, t in pairs:
        for i in (s, t):
            if not 0 <= i < n_ids:
                raise ValueError(f"source_target_pairs {shown} name {noun} {i}, but there are {n_ids} {noun}s ({mesh.describe()})")
    if len({s for s, _ in pairs}) != len(pairs) or len({t for _, t in pairs}) != len(pairs):
        raise ValueError(f"source_target_pairs {shown} repeat a source or a target")
