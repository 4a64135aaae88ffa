"""The dialect table: one implementation serves the MHLO and StableHLO twins.

Matchers never spell ``"mhlo.add"`` or ``"stablehlo.add"``; they ask the table
(``d.is_op(op, "add")``, ``d.name("add")``). A twin pass is one function bound
to :data:`MHLO` or :data:`STABLEHLO` (DESIGN.md "Passes are data plus one
function"; seed 004 "Each pass in the MHLO path has a StableHLO twin").
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from hilo_mlir.ir.handles import Named

#: an op (``ir.Operation`` / ``ir.OpView``) kept as what it was by a predicate that also rules out None
_N = TypeVar("_N", bound=Named)

if TYPE_CHECKING:
    from types import ModuleType

    from typing_extensions import TypeIs

    from hilo_mlir.ir.binding import ir

#: Decision 3 (DESIGN.md): every op that maps element to element, both dialects.
ELEMENTWISE_OPS = frozenset(
    """abs add and atan2 bitcast bitcast_convert cbrt ceil clamp compare complex
    convert cosine count_leading_zeros divide exponential exponential_minus_one
    floor imag is_finite log log_plus_one logistic maximum minimum multiply
    negate not or popcnt power real reduce_precision remainder reshape
    round_nearest_afz round_nearest_even rsqrt select shift_left
    shift_right_arithmetic shift_right_logical sign sine sqrt subtract tan tanh
    xor""".split()
)

#: Decision 3 against seed 000's count ("five fast-path ops plus ~55 typeIDs" across mhlo and
#: stablehlo; the list itself did not survive): the 30 kinds we count as the binary's set -- the
#: five fast-path ops (mhlo and, or, not, negate, xor), the five the seed names as members (reshape,
#: bitcast, bitcast_convert, convert, compare) and the twenty arithmetic and transcendental ops of
#: model code -- 30 kinds x 2 dialects = 5 fast-path + 55 TypeIDs.
SEED_ELEMENTWISE_OPS = frozenset(
    """and or not negate xor reshape bitcast bitcast_convert convert compare
    add subtract multiply divide maximum minimum abs exponential log sqrt rsqrt
    tanh logistic power select clamp sine cosine floor ceil""".split()
)

#: The 19 elementwise kinds that are ours beyond the seed's count (docs/provenance.md lists why each
#: is safe to absorb); the grower says so with --debug when it absorbs one.
EXTENDED_ELEMENTWISE_OPS = ELEMENTWISE_OPS - SEED_ELEMENTWISE_OPS

#: Ops with side effects: never fused, moved across each other, or deleted
#: (DESIGN.md "Rules of the IR"). Short names, both dialects.
SIDE_EFFECTING_OPS = frozenset(
    """custom_call all_reduce all_gather all_to_all reduce_scatter
    collective_permute collective_broadcast optimization_barrier send recv
    infeed outfeed after_all create_token rng rng_bit_generator
    partition_id replica_id async_start async_update async_done add_dependency
    xla.rng_get_and_update_state""".split()
)
# Short names may contain a dot (``mhlo.xla.rng_get_and_update_state`` ->
# ``xla.rng_get_and_update_state``): hlo_short_name strips only the dialect prefix.
# Consumers: hilo_mlir.ir.effects (the one side-effect model), is_side_effecting.


#: Region and function terminators of the dialects we rewrite.
TERMINATORS = frozenset({"func.return", "mhlo.return", "stablehlo.return"})


@dataclass(frozen=True)
class DialectTable:
    """Op-name table for one HLO dialect.

    Attributes:
        prefix: ``"mhlo"`` or ``"stablehlo"``.
        fusion: the op that holds a fused cluster (``mhlo.fusion`` or
            ``stablehlo.composite``).
        ret: the region terminator of this dialect (``mhlo.return`` /
            ``stablehlo.return``).
    """

    prefix: str

    def name(self, short: str) -> str:
        """Full op name for ``short`` in this dialect (``"add"`` -> ``"mhlo.add"``)."""
        return f"{self.prefix}.{short}"

    def short(self, op_or_name: Named | str) -> str | None:
        """Short name if the op belongs to this dialect, else None."""
        name = op_or_name if isinstance(op_or_name, str) else op_or_name.name
        try:
            return _SHORT_CACHE[self.prefix][name]
        except KeyError:
            p = self.prefix + "."
            short = _SHORT_CACHE.setdefault(self.prefix, {})[name] = name[len(p) :] if name.startswith(p) else None
            return short

    def is_op(self, op: _N | None, *shorts: str) -> TypeIs[_N]:
        """True if ``op`` (Operation/OpView or None) is one of ``shorts`` in this dialect (so not None)."""
        if op is None:
            return False
        name = op.name
        try:
            return _SHORT_CACHE[self.prefix][name] in shorts
        except KeyError:
            return self.short(name) in shorts

    @property
    def ret(self) -> str:
        return self.name("return")

    @property
    def fusion(self) -> str:
        return "mhlo.fusion" if self.prefix == "mhlo" else "stablehlo.composite"

    @property
    def fusion_is_composite(self) -> bool:
        """True when this dialect's fused op is a ``composite`` whose cluster lives in
        an out-of-line decomposition function (StableHLO); False when the fused op
        holds its cluster in its own region (``mhlo.fusion``)."""
        return self.prefix == "stablehlo"

    @property
    def fusion_body_terminator(self) -> str:
        """The terminator of a fused cluster's body: ``mhlo.return`` inside an
        ``mhlo.fusion``, ``func.return`` in a composite's decomposition."""
        return "func.return" if self.fusion_is_composite else self.ret

    def i64_array(self, values: Iterable[int]) -> ir.Attribute:
        """An i64 list attribute as this dialect spells it (pad edges, reduce/slice dims,
        conv strides/dilations): ``dense<[..]> : tensor<Nxi64>`` on MHLO,
        ``array<i64: ..>`` on StableHLO. Needs an active context."""
        from hilo_mlir.ir.binding import ir

        vals = [int(v) for v in values]
        if self.prefix == "mhlo":
            import numpy as np

            # jaxlib's stub wants a ``Buffer``; numpy's stubs declare ``ndarray.__buffer__`` only for Python >= 3.12
            dense: ir.Attribute = ir.DenseIntElementsAttr.get(np.array(vals, dtype=np.int64))  # type: ignore[call-overload]
            return dense
        return ir.DenseI64ArrayAttr.get(vals)

    @property
    def has_copy_op(self) -> bool:
        """True if the dialect has a ``copy`` op (MHLO); StableHLO has none (a copy is spelled
        ``custom_call @AliasingCopy`` with one operand)."""
        return self.prefix == "mhlo"

    @property
    def bindings(self) -> ModuleType:
        """The binding's Python module of this dialect (``jaxlib.mlir.dialects.mhlo`` /
        ``.stablehlo``): its typed attribute classes (``ConvDimensionNumbers``, ...)."""
        from hilo_mlir.ir import binding as _ir

        module: ModuleType = getattr(_ir, self.prefix)
        return module

    @property
    def token_type(self) -> str:
        """The dialect's token type as printed (``!mhlo.token`` / ``!stablehlo.token``)."""
        return f"!{self.prefix}.token"


#: prefix -> {op name: short name or None}; op names are few, so this stays small.
_SHORT_CACHE: dict[str, dict[str, str | None]] = {"mhlo": {}, "stablehlo": {}}

MHLO = DialectTable("mhlo")
STABLEHLO = DialectTable("stablehlo")
TABLES = {"mhlo": MHLO, "stablehlo": STABLEHLO}


def hlo_short_name(op_or_name: Named | str) -> str | None:
    """Short name of an mhlo or stablehlo op (``"stablehlo.add"`` -> ``"add"``), else None."""
    name = op_or_name if isinstance(op_or_name, str) else op_or_name.name
    try:
        return _HLO_SHORT[name]
    except KeyError:
        pass
    short = None
    for p in ("mhlo.", "stablehlo."):
        if name.startswith(p):
            short = name[len(p) :]
            break
    _HLO_SHORT[name] = short
    return short


_HLO_SHORT: dict[str, str | None] = {}


def is_elementwise_op(op: Named | str) -> bool:
    """Seed 000 ``isElementwiseOp``: one predicate for both dialects (decision 3)."""
    return hlo_short_name(op) in ELEMENTWISE_OPS


def is_side_effecting(op: Named | str) -> bool:
    """True for ops that must never be fused, reordered or deleted (DESIGN.md rules)."""
    return hlo_short_name(op) in SIDE_EFFECTING_OPS


def is_fusion_like(op: _N | None) -> TypeIs[_N]:
    """``mhlo.fusion`` or ``stablehlo.composite``: never re-seeded inside."""
    return op is not None and op.name in ("mhlo.fusion", "stablehlo.composite")


def table_for(op: Named | str) -> DialectTable | None:
    """The table of the dialect ``op`` belongs to (mhlo or stablehlo), else None."""
    name = op if isinstance(op, str) else op.name
    return TABLES.get(name.split(".", 1)[0])


def i64_list(attr: ir.Attribute) -> list[int]:
    """Read an i64 list attribute in either spelling (``array<i64: ..>`` or a dense
    integer tensor, splats expanded, N-d flattened row-major)."""
    from hilo_mlir.ir.binding import ir

    if isinstance(attr, ir.DenseI64ArrayAttr) or (not isinstance(attr, ir.DenseElementsAttr) and str(attr).startswith("array<")):
        return [int(v) for v in ir.DenseI64ArrayAttr(attr)]
    import numpy as np

    return [int(v) for v in np.array(ir.DenseIntElementsAttr(attr)).flatten()]


#: The ops that hold a fused cluster, MHLO then StableHLO (``DialectTable.fusion`` of each).
FUSION_OPS = (MHLO.fusion, STABLEHLO.fusion)

#: Module attribute holding XLA's input/output alias config (spelled so in both dialects).
INPUT_OUTPUT_ALIAS_ATTR = "mhlo.input_output_alias"

#: Module attributes declaring the devices of an SPMD program (replicas x partitions).
NUM_REPLICAS_ATTR = "mhlo.num_replicas"
NUM_PARTITIONS_ATTR = "mhlo.num_partitions"

#: ``custom_call`` target the MHLO -> StableHLO legalization emits for an ``all_reduce`` it
#: cannot express, and the attribute dictionary holding that all_reduce's attributes.
ALL_REDUCE_CALL_TARGET = "mhlo.all_reduce"
MHLO_ATTRIBUTES_ATTR = "mhlo.attributes"
# --------------------------------------------------------------------------- fusion vocabulary
# (appended for the fusion core: hilo_mlir/fusion, the op-fusion passes and the printers)


class FusionKind:
    """The FusionKind / CompositeKind vocabulary: the kind a fused op carries (one list).

    ``mhlo.fusion`` carries it as ``FusionKind = "<kind>"``, our
    ``stablehlo.composite`` ops as ``CompositeKind = "<kind>"`` and in their
    name ``neuron.<kind>``. :data:`FUSION_KINDS` lists every value.
    """

    DOT_LOGISTIC = "DotLogistic"
    MUL_RED_SQRT = "MulRedSqrt"
    ELEMENTWISE = "Elementwise"
    EXPM1 = "Expm1"
    LOG1P = "Log1p"
    DOT_SOFTMAX = "DotSoftmax"
    SCHEDULE_FUSION = "ScheduleFusion"


#: Every FusionKind / CompositeKind, in the order the printers' tables list them.
FUSION_KINDS = (
    FusionKind.DOT_LOGISTIC,
    FusionKind.MUL_RED_SQRT,
    FusionKind.ELEMENTWISE,
    FusionKind.EXPM1,
    FusionKind.LOG1P,
    FusionKind.DOT_SOFTMAX,
    FusionKind.SCHEDULE_FUSION,
)

#: The discardable string attribute naming the kind of an ``mhlo.fusion``.
FUSION_KIND_ATTR = "FusionKind"
#: The discardable string attribute naming the kind of one of our ``stablehlo.composite`` ops.
COMPOSITE_KIND_ATTR = "CompositeKind"
#: mhlo.fusion's own (inherent, enum) kind attribute (``#mhlo<fusion_kind kLoop>``).
MHLO_FUSION_KIND_ENUM_ATTR = "fusion_kind"
#: ``stablehlo.composite``'s symbol reference to its decomposition function.
DECOMPOSITION_ATTR = "decomposition"
#: ``version`` of the ``neuron.<Kind>`` composites we emit (schema 1).
COMPOSITE_VERSION = 1
#: Prefix of our composites' names (``neuron.<Kind>``) and decompositions (``@neuron.<Kind>.impl[.N]``).
COMPOSITE_NAMESPACE = "neuron"

#: The ops that hold a fused cluster, both dialects.
FUSION_OP_NAMES = frozenset({"mhlo.fusion", "stablehlo.composite"})
