"""Fusion fuel: a budget of clusters a compile may form (``--fusion-fuel N``, as XLA's ``--xla_fuel``).

Every pass that forms fusion clusters through the shared codegen
(``neuron-op-fusion``, ``schedule-fusion``, both twins) takes one unit per
cluster it is about to form; with the tank empty the cluster is refused
(``out-of-fuel``) and the IR is left as it was. ``0`` gives a fusion-free
program; no fuel (``None``, the default) forms every cluster, byte-identical
to a compile without the flag. The pipeline run shares one :class:`FusionFuel`
through ``ctx.outputs.fusion_fuel`` (:class:`~hilo_mlir.passmanager.pass_context.CompileOutputs`); it also logs each cluster it paid for, so
that ``hilo-check``'s bisection can name the N-th cluster (pass, kind, location).
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: the refusal reason of a cluster the tank could not pay for (fusion report vocabulary)
OUT_OF_FUEL = "out-of-fuel"


@dataclass
class FusedCluster:
    """One cluster paid for: the pass that formed it, its kind and where (``file:line:col`` of its last op)."""

    index: int
    pass_argument: str
    kind: str
    location: str
    ops: int


@dataclass
class FusionFuel:
    """What is left of the budget and what it paid for.

    Attributes:
        remaining: clusters that may still be formed (None: unlimited).
        spent: the clusters formed, in order (``spent[i].index == i + 1``).
        refused: clusters refused for want of fuel.
    """

    remaining: int | None = None
    spent: list = field(default_factory=list)
    refused: int = 0

    def take(self, pass_argument: str, kind: str, location: str, ops: int) -> bool:
        """Pay for one cluster; False (and nothing recorded but the refusal) when the tank is empty."""
        if self.remaining is not None:
            if self.remaining <= 0:
                self.refused += 1
                return False
            self.remaining -= 1
        self.spent.append(FusedCluster(len(self.spent) + 1, pass_argument, kind, location, ops))
        return True


def fuel_of(ctx) -> FusionFuel | None:
    """The run's :class:`FusionFuel` (None: no budget was asked for; every cluster is formed)."""
    outputs = getattr(ctx, "outputs", None)
    return getattr(outputs, "fusion_fuel", None)
