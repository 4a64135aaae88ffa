"""Which ops keep their numbers when 64-bit integers are narrowed to 32 bits, from the value ranges.

``sixty-four-hack`` narrows every 64-bit integer tensor (``i64`` -> ``i32``,
``ui64`` -> ``ui32``). This module decides, from
:class:`~hilo_mlir.analysis.int_ranges.IntRanges` of the 64-bit program,
where that is proven exact. No IR is changed here.

* A value is *bounded* when its range fits the 32-bit type (``i32``:
  ``[-2^31, 2^31-1]``, ``ui32``: ``[0, 2^32-1]``). An op whose 64-bit operands
  and results are all bounded computes the same numbers at 32 bits — except
  the *width-dependent* ops (:data:`WIDTH_DEPENDENT`), whose definition
  involves the bit width; :func:`width_dependent_reason` checks their own
  conditions too.
* An out-of-range constant can still be narrowed when every use gets the same
  result from a 32-bit value (:func:`constant_use_mode`): a modular use
  (:data:`MODULAR_USES`) from the value modulo 2^32 when its result is bounded,
  an ordering use (:data:`ORDER_USES`) from the value saturated to the 32-bit
  range. The constant may reach its uses through data movement (:data:`CARRY`).

The guarantee is per op: given operands whose 32-bit values are their 64-bit
values, the narrowed op's results are too. Values that are not bounded (64-bit
entry arguments and what is computed from them, products that may overflow,
loop values widened by the fixed point) are where the narrowed program may
wrap; :func:`bounded_or_constant` tells them apart.

Ops are named through the dialect table ``d`` (one implementation for MHLO
and StableHLO).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from hilo_mlir.analysis.int_bitwise import shift_amounts
from hilo_mlir.analysis.int_lattice import IntRange, type_max, type_min
from hilo_mlir.analysis.int_ranges import IntRanges
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import DialectTable

if TYPE_CHECKING:
    from typing_extensions import TypeIs

    from hilo_mlir.analysis.int_lattice import RangeValue
    from hilo_mlir.ir.handles import Op, Value

#: Width-dependent ops: the bit width appears in their definition (shift amounts
#: saturate at it, bits are counted or complemented up to it), so their 32-bit
#: result can differ even on bounded values (clz(1) is 63 vs 31; popcnt(-1) is
#: 64 vs 32; srl(-1, 40) is 2^24-1 vs 0; 1 << 40 does not fit).
WIDTH_DEPENDENT = frozenset(
    {
        "shift_left",
        "shift_right_logical",
        "shift_right_arithmetic",
        "popcnt",
        "count_leading_zeros",
        "not",
    }
)

#: Ops through which a constant's elements flow unchanged: short name -> operand positions (None: all).
CARRY: dict[str, tuple[int, ...] | None] = {
    "broadcast_in_dim": (0,),
    "broadcast": (0,),
    "reshape": (0,),
    "transpose": (0,),
    "slice": (0,),
    "reverse": (0,),
    "copy": (0,),
    "concatenate": None,
    "pad": (0, 1),
    "select": (1, 2),
    "dynamic_update_slice": (0, 1),
    "dynamic_slice": (0,),
    "gather": (0,),
}
#: Uses that commute with reduction modulo 2^32: the constant's value modulo 2^32 serves
#: (``convert``/``bitcast_convert`` only to an integer type wider than i1).
MODULAR_USES = frozenset({"add", "subtract", "multiply", "and", "or", "xor", "negate", "not", "convert", "bitcast_convert"})
#: Uses that only order values: the constant saturated to the 32-bit range serves.
ORDER_USES = frozenset({"minimum", "maximum", "clamp", "compare"})


class NotNarrowable(Exception):
    """A use of an out-of-range constant needs its 64-bit value; ``str(e)`` says which and why."""


def is64(r: RangeValue) -> TypeIs[IntRange]:
    """True if ``r`` is the range of a 64-bit integer tensor."""
    return isinstance(r, IntRange) and r.width == 64


def holds32(r: IntRange) -> str:
    """``"i32 holds [-2147483648, 2147483647]"`` (or ``ui32``) for the narrowing of ``r``'s type."""
    return f"{'i' if r.signed else 'ui'}32 holds [{type_min(32, r.signed)}, {type_max(32, r.signed)}]"


def fits32(r: IntRange) -> bool:
    """True if the 64-bit range ``r`` fits its 32-bit narrowing."""
    return r.fits(32, r.signed)


def unbounded_reason(rngs: Iterable[RangeValue], what: str) -> str | None:
    """Why a 64-bit range of ``rngs`` (``what`` #i) does not fit in 32 bits, or None."""
    for i, r in enumerate(rngs):
        if is64(r) and not fits32(r):
            return f"{what} #{i} is only known to lie in {r}; {holds32(r)}"
    return None


def bounded_or_constant(v: Value, ranges: IntRanges, d: DialectTable, depth: int = 0) -> bool:
    """True if each element of ``v`` is bounded or comes (by data movement) from a constant.

    Such a value's 32-bit form is its 64-bit value, or a constant's value
    modulo 2^32 / saturated as that constant's own check
    (:func:`constant_use_mode`) demands.
    """
    r = ranges.range_of(v)
    if not is64(r) or fits32(r):
        return True
    owner = v.owner
    if depth > 16 or isinstance(owner, ir.Block):
        return False
    op = owner.operation
    short = d.short(op.name)
    if short == "constant" or op.name == "arith.constant":
        return True
    if short not in CARRY:
        return False
    opnds = op.operands
    carried = CARRY[short]
    pos = range(len(opnds)) if carried is None else [i for i in carried if i < len(opnds)]
    return all(bounded_or_constant(opnds[i], ranges, d, depth + 1) for i in pos)


def _width_condition(short: str, x: IntRange, s: IntRange | None) -> str | None:
    """Why ``short`` on a bounded 64-bit ``x`` (shift amount ``s``) still differs at 32 bits, or None."""
    if x.is_empty:
        return None
    if short == "shift_right_logical" and x.signed and x.lo < 0:
        assert s is not None  # a shift has its amount
        kmin, kmax, _ = shift_amounts(s, 64)
        if kmin is not None and kmax is not None and kmax > 0:
            return f"operand #0 may be negative (it lies in {x}) and the shift amount in {s} may be 1..63"
    if short == "shift_right_arithmetic" and not x.signed and x.hi >= 1 << 31 and cast(IntRange, s).hi != 0:  # a shift has its amount
        return f"operand #0 may reach 2^31 (it lies in {x}): its top bit would become the sign bit"
    if short == "popcnt" and x.signed and x.lo < 0:
        return f"operand #0 may be negative (it lies in {x}): 32 more one bits at 64 bits"
    if short == "count_leading_zeros" and not (x.signed and x.hi < 0):
        return f"operand #0 lies in {x}: a non-negative value has 32 more leading zeros at 64 bits"
    return None


def width_dependent_reason(short: str, op: Op, ranges: IntRanges) -> str | None:
    """None if the width-dependent ``op`` (short name ``short``) provably computes the 64-bit numbers at 32 bits, else why not.

    Proven when every 64-bit operand and result is bounded and: a
    ``shift_right_logical`` of a possibly negative ``i64`` shifts by 0 or by at
    least 64 only; a ``shift_right_arithmetic`` of ``ui64`` sees values below
    2^31 (or shifts by 0); a ``popcnt`` of ``i64`` sees no negative value; a
    ``count_leading_zeros`` sees only negative ``i64`` values.
    """
    opnds = [ranges.range_of(v) for v in op.operands]
    res = [ranges.range_of(v) for v in op.results]
    why = unbounded_reason(opnds, "operand") or unbounded_reason(res, "result")
    x = opnds[0]
    if why is None and is64(x):
        why = _width_condition(short, x, cast("IntRange | None", opnds[1]) if len(opnds) > 1 else None)
    return why


def _integer_result(op: Op) -> bool:
    """True if ``op``'s one result is an integer tensor wider than ``i1`` (a conversion to it is modular)."""
    t = op.results[0].type if len(op.results) == 1 else None
    e = t.element_type if isinstance(t, ir.RankedTensorType) else None
    return isinstance(e, ir.IntegerType) and e.width > 1


def _compare_reason(user: Op, pos: int, ranges: IntRanges) -> str | None:
    """None if comparing with the saturated constant gives the same outcome (the other side never reaches the 32-bit bounds)."""
    other = ranges.range_of(user.operands[1 - pos])
    if not is64(other) or other.is_empty:
        return None
    if "compare_type" in user.attributes and ("UNSIGNED" in str(user.attributes["compare_type"])) == other.signed:
        return "the comparison's signedness differs from the type's"
    lo, hi = type_min(32, other.signed), type_max(32, other.signed)
    if other.lo <= lo or other.hi >= hi:
        return f"the other operand lies in {other}, up to the 32-bit bounds"
    return None


def constant_use_mode(op: Op, ranges: IntRanges, d: DialectTable) -> str:
    """How the out-of-range 64-bit constant ``op`` must be narrowed so that every use keeps its numbers.

    Returns:
        ``"wrap"`` (each element modulo 2^32) or ``"saturate"`` (each element
        clamped to the 32-bit range).

    Raises:
        NotNarrowable: a use needs the 64-bit value (its message names the use and why).
    """
    modes: set[str] = set()
    work: list[Value] = [op.results[0]]
    seen: set[int] = set()
    while work:
        v = work.pop()
        for use in list(v.uses):
            user, pos = use.owner.operation, use.operand_number  # an OpView may shadow .name (composite: its "name" attribute)
            short = d.short(user.name)
            if short in CARRY and ((carried := CARRY[short]) is None or pos in carried):
                out = user.results[0]
                if hash(out) not in seen:
                    seen.add(hash(out))
                    work.append(out)
                continue
            why = next(
                (
                    f"operand #{i} is only known to lie in {ranges.range_of(x)}"
                    for i, x in enumerate(user.operands)
                    if i != pos and not bounded_or_constant(x, ranges, d)
                ),
                None,
            )
            r = ranges.range_of(user.results[0]) if len(user.results) == 1 else None
            if short in ("convert", "bitcast_convert") and not _integer_result(user):
                why = "it converts it to a non-integer type"
            elif short in MODULAR_USES:
                if why is None and is64(r) and not fits32(r):
                    why = f"the result lies in {r}"
                modes.add("wrap")
            elif short in ORDER_USES:
                if why is None and short == "compare":
                    why = _compare_reason(user, pos, ranges)
                elif why is None and is64(r) and not fits32(r):
                    why = f"the result lies in {r}"
                modes.add("saturate")
            else:
                why = "that op is not known to give the same low 32 bits from a narrowed operand"
            if why is not None:
                raise NotNarrowable(f"its use by '{user.name}' needs the 64-bit value: {why}")
    if len(modes) > 1:
        raise NotNarrowable("its uses need both its value modulo 2^32 and its value saturated to 32 bits")
    return modes.pop() if modes else "wrap"
