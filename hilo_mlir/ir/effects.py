"""The one side-effect model of hilo_mlir: "may this op have side effects?".

Used by the fusion core (:func:`hilo_mlir.fusion.check_legal`: a cluster
whose dependent ops have effects is refused) and by the scheduling passes
(:class:`EffectOracle`: side-effecting ops keep their relative order). Both ask
this module, so a composite that prints, or a stateful RNG op, is handled the
same way everywhere (ops with side effects are never fused, reordered across
each other, or deleted).

An op is side-effecting when

* its mhlo/stablehlo short name is in
  :data:`~hilo_mlir.ir.dialects.SIDE_EFFECTING_OPS` (custom_call, collectives,
  send/recv, infeed/outfeed, rng, async_*, ``xla.rng_get_and_update_state``, ...);
* it is a ``func.call`` (the callee is not inspected: conservative);
* it belongs to a dialect not known to be pure (anything but mhlo, stablehlo,
  chlo and the few pure builtins in :data:`PURE_NON_HLO`);
* it is a ``stablehlo.composite`` whose decomposition (looked up in the
  module's symbol table) contains a side-effecting op, or whose decomposition
  cannot be found (conservative); recursive decompositions count as
  side-effecting;
* it holds a region containing a side-effecting op (``mhlo.fusion``, ``while``,
  ``case``, ``reduce`` bodies, ...).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.ir.dialects import SIDE_EFFECTING_OPS, hlo_short_name

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op

#: Op names outside mhlo/stablehlo/chlo known to be free of side effects.
PURE_NON_HLO = frozenset(
    {
        "func.return",
        "func.constant",
        "arith.constant",
        "builtin.unrealized_conversion_cast",
    }
)


_UNKNOWN = object()


def _op(op: Op) -> Op:
    return op.operation if hasattr(op, "operation") else op


class EffectOracle:
    """Answers "may this op have side effects?" for ops of one module, with a memo.

    Args:
        anchor_op: any op of the module (the function being transformed); the
            module's ``func.func`` symbols are read lazily, once, when the first
            composite is asked about.

    The memo is keyed by :func:`hilo_mlir.ir.binding.identity_key` and is valid while
    the ops it has seen are not rewritten: make one oracle per pass run.
    """

    def __init__(self, anchor_op: Op) -> None:
        self._anchor = _op(anchor_op)
        self._funcs: dict[str, Op] | None = None
        #: identity_key(op) or ("composite", callee) -> whether it has side effects
        self._memo: dict[int | tuple[str, str], bool] = {}
        # op name -> its own effect (True/False); None for composites, whose effect
        # depends on their decomposition, not only on the name
        self._by_name: dict[str, bool | None] = {}

    def _func_table(self) -> dict[str, Op]:
        if self._funcs is None:
            self._funcs = {}
            mod: Op | None = self._anchor
            while mod is not None and mod.name != "builtin.module":
                mod = mod.parent
                mod = _op(mod) if mod is not None else None
            if mod is not None:
                for o in mod.regions[0].blocks[0].operations:
                    o = o.operation
                    if o.name == "func.func":
                        self._funcs[o.attributes["sym_name"].value] = o
        return self._funcs

    def __call__(self, op: Op) -> bool:
        """True if ``op`` (Operation or OpView) or any op nested in it has side effects."""
        op = op.operation  # Operation and OpView both have .operation
        if self._leaf_effect(op):
            return True
        if len(op.regions) == 0:
            return False
        key = identity_key(op)
        if key in self._memo:
            return self._memo[key]
        found = [False]

        def visit(inner: ir.Operation) -> ir.WalkResult:
            if inner != op and self._leaf_effect(inner):
                found[0] = True
                return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        op.walk(visit)
        self._memo[key] = found[0]
        return found[0]

    def _leaf_effect(self, op: ir.Operation) -> bool:
        """The op's own effect, not counting its regions (a composite counts its decomposition).

        Decided once per op name (a composite, once per decomposition).
        """
        eff = self._by_name.get(op.name, _UNKNOWN)
        if eff is _UNKNOWN:
            eff = self._name_effect(op.name)
        if eff is None:
            return self._composite(op)
        return eff is True

    def _name_effect(self, name: str) -> bool | None:
        """The own effect of ops called ``name`` (None: a composite, decided by its decomposition); memoized."""
        short = hlo_short_name(name)
        if short is None:
            eff: bool | None = not (name.startswith("chlo.") or name in PURE_NON_HLO)
        elif short == "composite":
            eff = None
        else:
            eff = short in SIDE_EFFECTING_OPS
        self._by_name[name] = eff
        return eff

    def _composite(self, op: ir.Operation) -> bool:
        try:
            callee = ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value
        except (KeyError, ValueError):
            return True
        key = ("composite", str(callee))
        memo = self._memo
        if key in memo:
            return memo[key]
        memo[key] = True  # recursion guard: a cycle counts as side-effecting
        f = self._func_table().get(callee)
        res = True
        if f is not None:
            res = self._body_effect(f)
        memo[key] = res
        return res

    def _body_effect(self, f: Op) -> bool:
        """Some op inside the function ``f`` (not ``f`` itself) has side effects: one walk, one name read per op."""
        found = [False]
        by_name = self._by_name
        name_effect = self._name_effect
        advance, interrupt = ir.WalkResult.ADVANCE, ir.WalkResult.INTERRUPT

        def visit(inner: ir.Operation) -> ir.WalkResult:
            name = inner.name
            eff = by_name.get(name, _UNKNOWN)
            if eff is _UNKNOWN:
                eff = name_effect(name)
            if eff is None:
                eff = self._composite(inner)
            if eff and name != "func.func":
                found[0] = True
                return interrupt
            return advance

        f.walk(visit)
        return found[0]


def has_side_effects(op: Op) -> bool:
    """One-shot form of :class:`EffectOracle` (no memo across calls)."""
    return EffectOracle(op)(op)
