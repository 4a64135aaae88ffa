"""Integer range analysis: an :class:`~hilo_mlir.analysis.int_lattice.IntRange` for every integer tensor value.

``IntRanges(op, d)`` walks ``op`` (a ``func.func`` or a ``builtin.module``)
forward once, regions included, and records for every value whose type is an
integer tensor (any width, signed, signless or unsigned; ``i1`` as a boolean)
an interval and known bits that hold for every element whenever the program
runs. The IR is never changed, and the object keeps no binding handle after
the constructor returns: values are keyed by ``hash(ir.Value)`` (the C++
pointer), so a result is valid only until the IR is next changed.

What is known (everything else gets the full range of its type):

* ``constant`` (``arith.constant`` too): min, max and the bits shared by all
  elements; ``iota``: ``[0, dimension size - 1]``.
* data movement — ``broadcast_in_dim``, ``broadcast``, ``reshape``,
  ``transpose``, ``slice``, ``reverse``, ``copy``, ``dynamic_slice``,
  ``gather`` (the operand's range), ``concatenate``, ``pad``,
  ``dynamic_update_slice`` (the join), ``sort`` (each operand's range),
  ``optimization_barrier``, ``tuple`` / ``get_tuple_element``.
* element-wise: ``convert`` between integer types (the value modulo the
  result width, so a narrower source keeps its range), same-width
  ``bitcast_convert``, ``add``/``subtract``/``multiply``/``negate``/``abs``
  (interval arithmetic; on possible wrap-around the wrapped interval, usually
  the full range), ``divide``, ``remainder``, ``sign``, ``and``/``or``/
  ``xor``/``not`` and the three shifts (known bits and intervals),
  ``popcnt``, ``count_leading_zeros``, ``select``, ``clamp``, ``maximum``,
  ``minimum``; ``compare`` gives ``[0, 1]``.
* regions: ``while`` loop-carried values are a fixed point of the body
  (a value still growing after ``max_rounds`` rounds is widened to the full
  range); ``reduce``, ``reduce_window``, ``scatter``, ``select_and_scatter``,
  ``all_reduce``, ``reduce_scatter``: every accumulator is a fixed point of
  the body seeded with the inputs and init values; ``map``, ``if``, ``case``,
  ``mhlo.fusion``: the region's returned values.
* calls: ``func.call`` and ``stablehlo.composite`` analyse the callee with
  the call's operand ranges; a callee's values are the join over its calls.

Arguments of the analysed entry functions (``func.func``: that function;
module: every function no ``func.call``/``composite`` in the module refers
to) get the full range of their type.

Both dialects are served by one implementation through the
:class:`~hilo_mlir.ir.dialects.DialectTable` (``d``); ``d=None`` accepts either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeAlias, cast

import numpy as np

from hilo_mlir.analysis import int_bitwise as B
from hilo_mlir.analysis import int_lattice as L
from hilo_mlir.analysis.int_lattice import IntRange, RangeValue
from hilo_mlir.analysis.int_lattice import join as _join
from hilo_mlir.analysis.int_regions import ACCUMULATE, RegionRules
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import DialectTable, hlo_short_name

if TYPE_CHECKING:
    from hilo_mlir.analysis.int_regions import Scope
    from hilo_mlir.ir.handles import Named, Op, Value

#: an integer tensor type: ``(width, signed, has no elements)``
ScalarInfo = tuple[int, bool, bool]
#: what :func:`_info` says of a type: a :data:`ScalarInfo`, ``("tuple", element infos)``, or None (no integers)
TypeInfo: TypeAlias = "ScalarInfo | tuple[str, tuple[TypeInfo, ...]] | None"
#: an element-wise rule: operand ranges -> the result's range, or None (unknown)
_Rule = Callable[[list[IntRange]], "IntRange | None"]

_ELEMENTWISE2 = {
    "add": L.add,
    "subtract": L.subtract,
    "multiply": L.multiply,
    "divide": L.divide,
    "remainder": L.remainder,
    "maximum": L.maximum,
    "minimum": L.minimum,
    "and": B.and_,
    "or": B.or_,
    "xor": B.xor,
    "shift_left": B.shift_left,
    "shift_right_logical": B.shift_right_logical,
    "shift_right_arithmetic": B.shift_right_arithmetic,
}
_ELEMENTWISE1 = {
    "negate": L.negate,
    "abs": L.abs_,
    "sign": L.sign,
    "not": B.not_,
    "popcnt": B.popcnt,
    "count_leading_zeros": B.count_leading_zeros,
}
#: Result i has the range of operand 0 (the data is moved, not changed).
_MOVE = frozenset(
    """broadcast_in_dim broadcast reshape transpose slice reverse copy dynamic_slice
    gather dynamic_reshape dynamic_broadcast_in_dim""".split()
)
#: Result 0 is the join of these operands.
_JOIN = {"concatenate": None, "pad": (0, 1), "dynamic_update_slice": (0, 1), "dynamic_pad": (0, 1)}


def _same(rngs: Sequence[IntRange]) -> bool:
    a = rngs[0]
    return all(r.width == a.width and r.signed == a.signed for r in rngs)


#: Element-wise ops: short name -> ``f(operand ranges) -> IntRange | None`` (None: unknown).
_SIMPLE: dict[str, _Rule] = {k: (lambda f: lambda r: f(r[0], r[1]) if _same(r) else None)(f) for k, f in _ELEMENTWISE2.items()}
_SIMPLE.update({k: (lambda f: lambda r: f(r[0]))(f) for k, f in _ELEMENTWISE1.items()})
_SIMPLE["select"] = lambda r: L.select(r[0], r[1], r[2]) if _same(r[1:]) else None
_SIMPLE["clamp"] = lambda r: L.clamp(r[0], r[1], r[2]) if _same(r) else None


class IntRanges:
    """Integer ranges of every integer tensor value of a function (with its callees) or of a module.

    Args:
        op: a ``func.func`` (its arguments are unknown) or a ``builtin.module``
            (every function no call in the module refers to is an entry).
        d: the dialect table of the ops to read (MHLO or STABLEHLO); None reads both.
        max_rounds: fixed-point rounds of a loop or accumulator before a
            value that still grows is widened to the full range of its type.

    Attributes:
        entry_functions: names of the functions whose arguments were taken as
            unknown (full range): ``op`` itself, or the module's uncalled functions.
        rounds: total number of region walks of the fixed points (a measure of the cost).
    """

    def __init__(self, op: Op, d: DialectTable | None = None, *, max_rounds: int = 4) -> None:
        self.max_rounds = max_rounds
        self.rounds = 0
        self.entry_functions: frozenset[str] = frozenset()
        self._ranges: dict[int, RangeValue] = {}
        _Walk(self, d).run(op.operation)  # an Operation's .operation is itself

    def range_of(self, value: Value) -> RangeValue:
        """The range of ``value`` (an ``ir.Value`` of the analysed IR).

        Returns:
            :class:`IntRange` for an integer tensor, a tuple of ranges (None
            for non-integer elements) for a tuple, None for other types. A
            value the walk did not reach gets the full range of its type.
        """
        r = self._ranges.get(hash(value))
        return r if r is not None else _full(_info(value.type))

    def __len__(self) -> int:
        return len(self._ranges)


# ------------------------------------------------------------------------------- types


def _info(t: ir.Type, cache: dict[int, TypeInfo] | None = None) -> TypeInfo:
    """``(width, signed, no_elements)`` for an integer tensor type, ``("tuple", infos)``, or None.

    ``cache``: a dict keyed by ``hash(t)`` (the uniqued type's pointer: valid
    for one context only, so one cache per analysis run).
    """
    if cache is not None:
        k = hash(t)
        try:
            return cache[k]
        except KeyError:
            pass
    res: TypeInfo = None
    if isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)):
        e = t.element_type
        if isinstance(e, ir.IntegerType):
            n = 1
            if isinstance(t, ir.RankedTensorType):
                for s in t.shape:
                    n *= max(s, 1) if s < 0 else s  # dynamic dims: not known to be 0
            signed = e.width > 1 and not e.is_unsigned
            res = (e.width, signed, n == 0)
    elif isinstance(t, ir.TupleType):
        res = ("tuple", tuple(_info(t.get_type(i)) for i in range(t.num_types)))
    if cache is not None:
        cache[k] = res
    return res


def _full(info: TypeInfo) -> RangeValue:
    if info is None:
        return None
    if info[0] == "tuple":
        return tuple(_full(i) for i in info[1])
    w, s, none = cast(ScalarInfo, info)
    return IntRange.empty(w, s) if none else IntRange.full(w, s)


def _fit(r: RangeValue, info: TypeInfo) -> RangeValue:
    """``r`` reinterpreted for a value of type ``info`` (same width: identity; else full)."""
    if info is None or r is None:
        return None
    if info[0] == "tuple" or isinstance(r, tuple):
        return r if isinstance(r, tuple) and info[0] == "tuple" and len(r) == len(info[1]) else _full(info)
    w, s, none = cast(ScalarInfo, info)
    if none:
        return IntRange.empty(w, s)
    return r if (r.width, r.signed) == (w, s) else IntRange.full(w, s)


# ------------------------------------------------------------------------------- the walk


class _Walk(RegionRules):
    """One run of the analysis; holds the binding handles and is dropped afterwards.

    Values, dispatch, leaves and element-wise ops here; ops with regions and
    calls in :class:`~.int_regions.RegionRules`.
    """

    def __init__(self, out: IntRanges, d: DialectTable | None) -> None:
        self.out = out
        self.scopes: list[Scope] = [out._ranges]  # innermost last; writes go to the innermost
        self.short: Callable[[Named | str], str | None] = d.short if d is not None else hlo_short_name
        self.funcs: dict[str, ir.Operation] = {}
        self.memo: dict[tuple[str, tuple[RangeValue, ...]], list[RangeValue]] = {}  # (callee, argument ranges) -> result ranges
        self.stack: list[str] = []
        self.types: dict[int, TypeInfo] = {}  # hash(type) -> _info, this run only
        self.fix_depth = 0  # nesting of fixed points (int_regions)

    def info(self, t: ir.Type) -> TypeInfo:
        return _info(t, self.types)

    # -- values --------------------------------------------------------------------
    def get(self, v: Value) -> RangeValue:
        k = hash(v)
        for scope in reversed(self.scopes):
            r = scope.get(k)
            if r is not None:
                return r
        return _full(self.info(v.type))

    def put(self, v: Value, rng: RangeValue) -> None:
        if rng is None:
            return
        k = hash(v)
        top = self.scopes[-1]
        old = top.get(k)
        top[k] = rng if old is None else _join(old, rng)

    def put_results(self, op: ir.Operation, rngs: Iterable[RangeValue]) -> None:
        for v, rng in zip(op.results, rngs):
            self.put(v, _fit(rng, self.info(v.type)))

    def full_results(self, op: ir.Operation) -> None:
        for v in op.results:
            self.put(v, _full(self.info(v.type)))

    # -- driver --------------------------------------------------------------------
    def run(self, op: ir.Operation) -> None:
        if op.name == "func.func":
            module: ir.Operation | None = op.parent
            while module is not None and module.name != "builtin.module":
                module = module.parent
            roots: list[ir.Operation] | None = [op]
        else:
            module, roots = op, None
        if module is not None:
            for top in module.regions[0].blocks[0].operations:
                if top.operation.name == "func.func":
                    self.funcs[top.operation.attributes["sym_name"].value] = top.operation
        if roots is None:
            called: set[str] = set()
            other: set[str] = set()

            def visit(o: ir.Operation) -> ir.WalkResult:
                ref = self.callee(o)
                if ref is not None:
                    called.add(ref)
                elif "called_computations" in o.attributes:  # custom_call: its callees see unknown arguments
                    other.update(ir.FlatSymbolRefAttr(a).value for a in ir.ArrayAttr(o.attributes["called_computations"]))
                return ir.WalkResult.ADVANCE

            op.walk(visit, ir.WalkOrder.PRE_ORDER)
            roots = [f for name, f in self.funcs.items() if name not in called or name in other]
        self.out.entry_functions = frozenset(cast(ir.StringAttr, f.attributes["sym_name"]).value for f in roots)
        for f in roots:
            if f.regions[0].blocks:
                block = f.regions[0].blocks[0]
                for a in block.arguments:
                    self.put(a, _full(self.info(a.type)))
                self.stack.append(cast(ir.StringAttr, f.attributes["sym_name"]).value)
                self.block(block)
                self.stack.pop()

    def callee(self, op: ir.Operation) -> str | None:
        name = op.name
        if name == "func.call":
            return ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        if self.short(name) == "composite" and "decomposition" in op.attributes:
            return ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value
        return None

    def block(self, block: ir.Block) -> list[RangeValue]:
        """Walk ``block``'s ops in order; returns the ranges of its terminator's operands."""
        last = None
        for o in block.operations:
            last = o.operation
            self.op(last)
        return [self.get(v) for v in last.operands] if last is not None else []

    def region(self, region: ir.Region, args: Iterable[RangeValue]) -> list[RangeValue]:
        """Give the entry block's arguments ``args`` (ranges) and walk it; its terminator's operand ranges."""
        if not region.blocks:
            return []
        block = region.blocks[0]
        for a, rng in zip(block.arguments, args):
            self.put(a, _fit(rng, self.info(a.type)))
        return self.block(block)

    # -- one op --------------------------------------------------------------------
    def op(self, op: ir.Operation) -> None:
        name = op.name
        short = self.short(name)
        if short is None:
            if name == "arith.constant":
                return self.constant(op)
            if name == "func.call":
                return self.call(op, self.callee(op))
            return self.unknown(op)
        fn = _SIMPLE.get(short)
        if fn is not None:  # one result, computed from the operand ranges
            res = op.results[0]
            info = self.info(res.type)
            if info is None:
                return  # not an integer: nothing to know
            rngs = [self.get(v) for v in op.operands]
            rng = fn(cast("list[IntRange]", rngs)) if all(isinstance(r, IntRange) for r in rngs) else None
            return self.put(res, _fit(rng, info) if rng is not None else _full(info))
        if short in _MOVE:
            return self.put_results(op, [self.get(op.operands[0])])
        if short in _JOIN:
            idx = _JOIN[short] or range(len(op.operands))
            acc: RangeValue = None
            for i in idx:
                acc = _join(acc, self.get(op.operands[i]))
            return self.put_results(op, [acc])
        handler = getattr(self, "op_" + short, None)
        if handler is not None:
            handler(op)
            return
        if short in ACCUMULATE:
            return self.accumulate(op, short)
        return self.unknown(op)

    def unknown(self, op: ir.Operation) -> None:
        """Full ranges for the results; regions walked with full-range arguments."""
        for reg in op.regions:
            if reg.blocks:
                self.region(reg, [_full(self.info(a.type)) for a in reg.blocks[0].arguments])
        self.full_results(op)

    # -- leaves --------------------------------------------------------------------
    def constant(self, op: ir.Operation) -> None:
        v = op.results[0]
        info = self.info(v.type)
        if info is None or info[0] == "tuple":
            return
        w, s, none = cast(ScalarInfo, info)
        attr = op.attributes["value"]
        if none or not isinstance(attr, ir.DenseIntElementsAttr):
            return self.put(v, _full(info))
        mask = (1 << w) - 1
        if attr.is_splat:
            sv = attr.get_splat_value()
            p = (1 if bool(sv) else 0) if isinstance(sv, ir.BoolAttr) else int(ir.IntegerAttr(sv).value) & mask
            val = p - (1 << w) if s and p >> (w - 1) else p
            return self.put(v, IntRange.constant(w, s, val, val, p, ~p & mask))
        a = np.asarray(np.array(attr)).reshape(-1)
        if a.dtype == np.bool_:
            a = a.astype(np.uint8)
        u = a.view(np.dtype(f"u{a.dtype.itemsize}"))
        ones = int(np.bitwise_and.reduce(u)) & mask
        zeros = int(np.bitwise_and.reduce(~u)) & mask
        self.put(v, IntRange.constant(w, s, int(a.min()), int(a.max()), ones, zeros))

    op_constant = constant

    def op_iota(self, op: ir.Operation) -> None:
        v = op.results[0]
        info = self.info(v.type)
        if info is None:
            return
        dim = ir.IntegerAttr(op.attributes["iota_dimension"]).value
        n = ir.RankedTensorType(v.type).shape[dim]
        w, s, none = cast(ScalarInfo, info)
        self.put(v, IntRange.empty(w, s) if none else L.wrap(w, s, 0, n - 1))

    # -- element-wise with types -----------------------------------------------------
    def op_convert(self, op: ir.Operation) -> None:
        a = self.get(op.operands[0])
        info = self.info(op.results[0].type)
        if isinstance(a, IntRange) and info is not None:
            w, s, _ = cast(ScalarInfo, info)
            return self.put_results(op, [L.convert(a, w, s)])
        self.full_results(op)

    def op_bitcast_convert(self, op: ir.Operation) -> None:
        a = self.get(op.operands[0])
        info = self.info(op.results[0].type)
        if isinstance(a, IntRange) and info is not None and info[0] == a.width:
            return self.put_results(op, [L.bitcast(a, info[1])])
        self.full_results(op)

    # -- structure -------------------------------------------------------------------
    def op_tuple(self, op: ir.Operation) -> None:
        self.put(op.results[0], tuple(self.get(v) for v in op.operands))

    def op_get_tuple_element(self, op: ir.Operation) -> None:
        t = self.get(op.operands[0])
        i = ir.IntegerAttr(op.attributes["index"]).value
        self.put_results(op, [t[i] if isinstance(t, tuple) and i < len(t) else None])

    def op_optimization_barrier(self, op: ir.Operation) -> None:
        self.put_results(op, [self.get(v) for v in op.operands])
