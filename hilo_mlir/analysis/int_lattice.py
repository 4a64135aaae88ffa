"""The value of the integer range analysis: an interval plus known bits (no IR here).

An :class:`IntRange` describes every element of one integer tensor: each
element's value lies in ``[lo, hi]`` and each element's bit pattern has the
bits of ``zeros`` clear and the bits of ``ones`` set. Values are Python ints in
the element type's interpretation: signless (``i64``) and signed (``si64``)
types are two's complement, ``ui*`` types unsigned; ``i1`` is a boolean
(``0``/``1``, as ``convert`` reads it). Patterns are the ``width`` low bits.

The transfer functions here (arithmetic, ordering, conversions; the bit-level
ones are in :mod:`.int_bitwise`) follow the StableHLO semantics of each op on
``width``-bit integers: ``add``/``subtract``/``multiply``/``negate`` wrap
modulo ``2**width``. Every function is sound: if its operands' elements lie
in the given ranges, its result's elements lie in the returned range. A
function that cannot say more returns :meth:`IntRange.full`.

An empty range (``lo > hi``) describes a tensor without elements; element-wise
functions return empty for an empty operand.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias, cast

#: An analysis value: an :class:`IntRange` (an integer tensor), a tuple of values (a tuple type),
#: or None (not an integer).
RangeValue: TypeAlias = "IntRange | tuple[RangeValue, ...] | None"


def type_min(width: int, signed: bool) -> int:
    return -(1 << (width - 1)) if signed and width > 1 else 0


def type_max(width: int, signed: bool) -> int:
    return (1 << (width - 1)) - 1 if signed and width > 1 else (1 << width) - 1


def value_of(p: int, width: int, signed: bool) -> int:
    """Value of bit pattern ``p`` (``0 <= p < 2**width``)."""
    return p - (1 << width) if signed and width > 1 and p >> (width - 1) else p


class IntRange:
    """Every element of an integer tensor lies in ``[lo, hi]`` with bits ``zeros`` clear and ``ones`` set.

    Immutable, hashable, compared by value.

    Attributes:
        width: element bit width (1 for ``i1``).
        signed: True for two's-complement types (signless and ``si``), False
            for ``ui`` and ``i1``.
        lo, hi: inclusive bounds of the element values (``lo > hi``: no elements).
        zeros, ones: bit masks (within ``width`` bits) of the pattern bits known
            to be 0 / 1 in every element.
    """

    __slots__ = ("hi", "lo", "ones", "signed", "width", "zeros")

    def __init__(self, width: int, signed: bool, lo: int, hi: int, zeros: int = 0, ones: int = 0):
        self.width, self.signed, self.lo, self.hi, self.zeros, self.ones = width, signed, lo, hi, zeros, ones

    def _key(self) -> tuple[int, bool, int, int, int, int]:
        return (self.width, self.signed, self.lo, self.hi, self.zeros, self.ones)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, IntRange) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"IntRange(width={self.width}, signed={self.signed}, lo={self.lo}, hi={self.hi}, zeros={self.zeros:#x}, ones={self.ones:#x})"

    # -- constructors ---------------------------------------------------------------
    @staticmethod
    def full(width: int, signed: bool) -> IntRange:
        """Every value of the type (what the analysis says of an unknown value)."""
        return IntRange(width, signed, type_min(width, signed), type_max(width, signed))

    @staticmethod
    def empty(width: int, signed: bool) -> IntRange:
        """No elements (a zero-sized tensor)."""
        mask = (1 << width) - 1
        return IntRange(width, signed, 1, 0, mask, mask)

    @staticmethod
    def of(width: int, signed: bool, lo: int, hi: int, zeros: int = 0, ones: int = 0) -> IntRange:
        """``[lo, hi]`` (clamped to the type) and the known bits, each made as tight as the other allows."""
        mask = (1 << width) - 1
        tmin, tmax = type_min(width, signed), type_max(width, signed)
        lo, hi, zeros, ones = max(lo, tmin), min(hi, tmax), zeros & mask, ones & mask
        if lo > hi or zeros & ones:
            return IntRange.empty(width, signed)
        # Interval implied by the bits.
        top = mask & ~zeros  # largest pattern the bits allow
        if signed and width > 1:
            sign = 1 << (width - 1)
            if ones & sign:
                blo, bhi = value_of(ones, width, True), value_of(top, width, True)
            elif zeros & sign:
                blo, bhi = ones, top
            else:
                blo, bhi = value_of(ones | sign, width, True), top & ~sign
        else:
            blo, bhi = ones, top
        lo, hi = max(lo, blo), min(hi, bhi)
        if lo > hi:
            return IntRange.empty(width, signed)
        # Bits implied by the interval: the common prefix of the patterns (monotone when one sign).
        if not signed or lo >= 0 or hi < 0:
            pl, ph = lo & mask, hi & mask
            diff = (pl ^ ph).bit_length()
            prefix = mask & ~((1 << diff) - 1)
            ones |= pl & prefix
            zeros |= ~pl & prefix
        elif width > 1:
            pass  # both signs: only the bits already known
        return IntRange(width, signed, lo, hi, zeros & mask, ones & mask)

    @staticmethod
    def constant(width: int, signed: bool, lo: int, hi: int, and_all: int, and_not_all: int) -> IntRange:
        """A constant's range from its min, max, AND of all patterns and AND of all complemented patterns."""
        return IntRange.of(width, signed, lo, hi, and_not_all, and_all)

    # -- queries --------------------------------------------------------------------
    @property
    def is_empty(self) -> bool:
        return self.lo > self.hi

    @property
    def is_full(self) -> bool:
        return self.lo <= type_min(self.width, self.signed) and self.hi >= type_max(self.width, self.signed)

    @property
    def mask(self) -> int:
        return (1 << self.width) - 1

    def fits(self, width: int, signed: bool) -> bool:
        """True if every element is a value of the ``width``-bit (un)signed type."""
        return self.is_empty or (self.lo >= type_min(width, signed) and self.hi <= type_max(width, signed))

    def contains(self, v: int) -> bool:
        """True if an element equal to ``v`` is allowed (in the interval, bits agree)."""
        p = v & self.mask
        return self.lo <= v <= self.hi and not (p & self.zeros) and (p & self.ones) == self.ones

    def single(self) -> int | None:
        """The one value every element has, or None."""
        return self.lo if self.lo == self.hi else None

    def trailing_zeros(self) -> int:
        """Number of low bits known to be 0."""
        z = ~self.zeros & self.mask
        return self.width if z == 0 else (z & -z).bit_length() - 1

    def __str__(self) -> str:
        return "no elements" if self.is_empty else f"[{self.lo}, {self.hi}]"

    # -- lattice --------------------------------------------------------------------
    def join(self, other: IntRange) -> IntRange:
        """The smallest range holding the elements of both."""
        if self.is_empty:
            return other
        if other.is_empty:
            return self
        return IntRange.of(
            self.width, self.signed, min(self.lo, other.lo), max(self.hi, other.hi), self.zeros & other.zeros, self.ones & other.ones
        )

    def pattern_pieces(self) -> list[tuple[int, int]]:
        """The element patterns as at most two increasing intervals ``(pmin, pmax)``."""
        if self.is_empty:
            return []
        m = self.mask
        if not self.signed or self.lo >= 0 or self.hi < 0:
            return [(self.lo & m, self.hi & m)]
        return [(0, self.hi), (self.lo & m, m)]  # non-negative part, then the negative part


# ---------------------------------------------------------------------------------- helpers


def wrap(width: int, signed: bool, lo: int, hi: int, zeros: int = 0, ones: int = 0) -> IntRange:
    """The values ``v mod 2**width`` (read in the type) for the integers ``v`` in ``[lo, hi]``.

    ``zeros``/``ones``: pattern bits known of every ``v mod 2**width``.
    """
    if lo > hi:
        return IntRange.empty(width, signed)
    if hi - lo + 1 >= (1 << width):
        return IntRange.of(width, signed, type_min(width, signed), type_max(width, signed), zeros, ones)
    m = (1 << width) - 1
    a, b = value_of(lo & m, width, signed), value_of(hi & m, width, signed)
    if a <= b:
        return IntRange.of(width, signed, a, b, zeros, ones)
    return IntRange.of(width, signed, type_min(width, signed), type_max(width, signed), zeros, ones)


def from_patterns(width: int, signed: bool, pieces: Iterable[tuple[int, int]], zeros: int = 0, ones: int = 0) -> IntRange:
    """The values whose patterns lie in the increasing intervals ``pieces`` (read in the type)."""
    out = IntRange.empty(width, signed)
    for pl, ph in pieces:
        if signed and width > 1 and pl < (1 << (width - 1)) <= ph:
            r = IntRange.full(width, signed)
        else:
            r = IntRange.of(width, signed, value_of(pl, width, signed), value_of(ph, width, signed))
        out = out.join(r)
    if out.is_empty:
        return out
    return IntRange.of(width, signed, out.lo, out.hi, out.zeros | zeros, out.ones | ones)


def low_mask(n: int) -> int:
    """The ``n`` low bits set."""
    return (1 << n) - 1


def any_empty(*rs: IntRange) -> bool:
    return any(r.is_empty for r in rs)


# ---------------------------------------------------------------------------------- arithmetic


def add(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    tz = min(a.trailing_zeros(), b.trailing_zeros())
    return wrap(a.width, a.signed, a.lo + b.lo, a.hi + b.hi, low_mask(tz))


def subtract(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    tz = min(a.trailing_zeros(), b.trailing_zeros())
    return wrap(a.width, a.signed, a.lo - b.hi, a.hi - b.lo, low_mask(tz))


def multiply(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    c = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
    tz = min(a.width, a.trailing_zeros() + b.trailing_zeros())
    return wrap(a.width, a.signed, min(c), max(c), low_mask(tz))


def negate(a: IntRange) -> IntRange:
    if a.is_empty:
        return a
    return wrap(a.width, a.signed, -a.hi, -a.lo, low_mask(a.trailing_zeros()))


def abs_(a: IntRange) -> IntRange:
    if a.is_empty or not a.signed or a.lo >= 0:
        return a
    if a.hi <= 0:
        return wrap(a.width, True, -a.hi, -a.lo)
    return wrap(a.width, True, 0, max(-a.lo, a.hi))


def sign(a: IntRange) -> IntRange:
    if a.is_empty:
        return a
    lo = -1 if a.lo < 0 else (0 if a.lo == 0 else 1)
    hi = 1 if a.hi > 0 else (0 if a.hi == 0 else -1)
    return IntRange.of(a.width, a.signed, lo, hi)


def divide(a: IntRange, b: IntRange) -> IntRange:
    """Truncating division; unknown when the divisor may be 0 or the quotient may overflow."""
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    if b.lo <= 0 <= b.hi:
        return IntRange.full(a.width, a.signed)

    def q(x: int, y: int) -> int:
        r = abs(x) // abs(y)
        return r if (x >= 0) == (y > 0) else -r

    c = [q(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return wrap(a.width, a.signed, min(c), max(c))


def remainder(a: IntRange, b: IntRange) -> IntRange:
    """Remainder with the dividend's sign (``x % 0 == x``)."""
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    m = max(abs(b.lo), abs(b.hi)) - 1
    lo = 0 if a.lo >= 0 else -min(-a.lo, m)
    hi = 0 if a.hi <= 0 else min(a.hi, m)
    out = IntRange.of(a.width, a.signed, lo, hi)
    return out.join(a) if b.lo <= 0 <= b.hi else out


def maximum(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    return IntRange.of(a.width, a.signed, max(a.lo, b.lo), max(a.hi, b.hi), a.zeros & b.zeros, a.ones & b.ones)


def minimum(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    return IntRange.of(a.width, a.signed, min(a.lo, b.lo), min(a.hi, b.hi), a.zeros & b.zeros, a.ones & b.ones)


def clamp(lo: IntRange, x: IntRange, hi: IntRange) -> IntRange:
    """``min(max(x, lo), hi)``."""
    return minimum(maximum(x, lo), hi)


def select(pred: IntRange, a: IntRange, b: IntRange) -> IntRange:
    if pred.is_empty:
        return IntRange.empty(a.width, a.signed)
    if pred.lo == pred.hi:
        return a if pred.lo else b
    return a.join(b)


# ---------------------------------------------------------------------------------- conversions


def convert(x: IntRange, width: int, signed: bool) -> IntRange:
    """Integer-to-integer ``convert``: the value modulo ``2**width``, read in the result type."""
    if x.is_empty:
        return IntRange.empty(width, signed)
    keep = low_mask(min(x.width, width))
    if x.fits(width, signed):
        return IntRange.of(width, signed, x.lo, x.hi, x.zeros & keep, x.ones & keep)
    return wrap(width, signed, x.lo, x.hi, x.zeros & keep, x.ones & keep)


def bitcast(x: IntRange, signed: bool) -> IntRange:
    """``bitcast_convert`` between integer types of one width: same patterns, read as ``signed``."""
    if x.is_empty:
        return IntRange.empty(x.width, signed)
    return from_patterns(x.width, signed, x.pattern_pieces(), x.zeros, x.ones)


# ---------------------------------------------------------------------------------- tuples


def join(a: RangeValue, b: RangeValue) -> RangeValue:
    """Join of two analysis values: :class:`IntRange`, tuples of them (tuple types), or None (not an integer)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, tuple):
        return tuple(join(x, y) for x, y in zip(a, cast("tuple[RangeValue, ...]", b)))  # values of one type: same shape
    return a.join(cast(IntRange, b))


def widen(a: RangeValue) -> RangeValue:
    """``a`` widened to the full range of its type (tuples element-wise; empty stays empty)."""
    if a is None:
        return None
    if isinstance(a, tuple):
        return tuple(widen(x) for x in a)
    return a if a.is_empty else IntRange.full(a.width, a.signed)


def merge_into(store: dict[int, RangeValue], scope: dict[int, RangeValue]) -> None:
    """Join every value of ``scope`` into ``store`` (same keys: joined)."""
    for k, rng in scope.items():
        old = store.get(k)
        store[k] = rng if old is None else join(old, rng)
