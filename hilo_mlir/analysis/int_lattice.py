"""The value of the integer range analysis: an interval plus known bits (no IR here).

An :class:`IntRange` describes every element of one integer tensor: each
element's value lies in ``[lo, hi]`` and each element's bit pattern has the
bits of ``zeros`` clear and the bits of ``ones`` set. Values are Python ints in
the element type's interpretation: signless (``i64``) and signed (``si64``)
types are two's complement, ``ui*`` types unsigned; ``i1`` is a boolean
(``0``/``1``, as ``convert`` reads it). Patterns are the ``width`` low bits.

The transfer functions below follow the StableHLO semantics of each op on
``width``-bit integers: ``add``/``subtract``/``multiply``/``negate`` wrap
modulo ``2**width``; a shift amount is read as unsigned and an amount of at
least ``width`` gives 0 (``shift_left``, ``shift_right_logical``) or the sign
fill (``shift_right_arithmetic``). Every function is sound: if its operands'
elements lie in the given ranges, its result's elements lie in the returned
range. A function that cannot say more returns :meth:`IntRange.full`.

An empty range (``lo > hi``) describes a tensor without elements; element-wise
functions return empty for an empty operand.
"""

from __future__ import annotations


def type_min(width: int, signed: bool) -> int:
    return -(1 << (width - 1)) if signed and width > 1 else 0


def type_max(width: int, signed: bool) -> int:
    return (1 << (width - 1)) - 1 if signed and width > 1 else (1 << width) - 1


def _val(p: int, width: int, signed: bool) -> int:
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

    __slots__ = ("width", "signed", "lo", "hi", "zeros", "ones")

    def __init__(self, width: int, signed: bool, lo: int, hi: int, zeros: int = 0, ones: int = 0):
        self.width, self.signed, self.lo, self.hi, self.zeros, self.ones = width, signed, lo, hi, zeros, ones

    def _key(self):
        return (self.width, self.signed, self.lo, self.hi, self.zeros, self.ones)

    def __eq__(self, other):
        return isinstance(other, IntRange) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"IntRange(width={self.width}, signed={self.signed}, lo={self.lo}, hi={self.hi}, zeros={self.zeros:#x}, ones={self.ones:#x})"

    # -- constructors ---------------------------------------------------------------
    @staticmethod
    def full(width: int, signed: bool) -> "IntRange":
        """Every value of the type (what the analysis says of an unknown value)."""
        return IntRange(width, signed, type_min(width, signed), type_max(width, signed))

    @staticmethod
    def empty(width: int, signed: bool) -> "IntRange":
        """No elements (a zero-sized tensor)."""
        mask = (1 << width) - 1
        return IntRange(width, signed, 1, 0, mask, mask)

    @staticmethod
    def of(width: int, signed: bool, lo: int, hi: int, zeros: int = 0, ones: int = 0) -> "IntRange":
        """``[lo, hi]`` (clamped to the type) and the known bits, each made as tight as the other allows."""
        mask = (1 << width) - 1
        tmin, tmax = type_min(width, signed), type_max(width, signed)
        lo, hi, zeros, ones = max(lo, tmin), min(hi, tmax), zeros & mask, ones & mask
        if lo > hi or zeros & ones:
            return IntRange.empty(width, signed)
        # Interval implied by the bits.
        top = (mask & ~zeros)  # largest pattern the bits allow
        if signed and width > 1:
            sign = 1 << (width - 1)
            if ones & sign:
                blo, bhi = _val(ones, width, True), _val(top, width, True)
            elif zeros & sign:
                blo, bhi = ones, top
            else:
                blo, bhi = _val(ones | sign, width, True), top & ~sign
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
    def constant(width: int, signed: bool, lo: int, hi: int, and_all: int, and_not_all: int) -> "IntRange":
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
    def join(self, other: "IntRange") -> "IntRange":
        """The smallest range holding the elements of both."""
        if self.is_empty:
            return other
        if other.is_empty:
            return self
        return IntRange.of(self.width, self.signed, min(self.lo, other.lo), max(self.hi, other.hi),
                           self.zeros & other.zeros, self.ones & other.ones)

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
    a, b = _val(lo & m, width, signed), _val(hi & m, width, signed)
    if a <= b:
        return IntRange.of(width, signed, a, b, zeros, ones)
    return IntRange.of(width, signed, type_min(width, signed), type_max(width, signed), zeros, ones)


def from_patterns(width: int, signed: bool, pieces, zeros: int = 0, ones: int = 0) -> IntRange:
    """The values whose patterns lie in the increasing intervals ``pieces`` (read in the type)."""
    out = IntRange.empty(width, signed)
    for pl, ph in pieces:
        if signed and width > 1 and pl < (1 << (width - 1)) <= ph:
            r = IntRange.full(width, signed)
        else:
            r = IntRange.of(width, signed, _val(pl, width, signed), _val(ph, width, signed))
        out = out.join(r)
    if out.is_empty:
        return out
    return IntRange.of(width, signed, out.lo, out.hi, out.zeros | zeros, out.ones | ones)


def _low_mask(n: int) -> int:
    return (1 << n) - 1


def _any_empty(*rs) -> bool:
    return any(r.is_empty for r in rs)


# ---------------------------------------------------------------------------------- arithmetic


def add(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    tz = min(a.trailing_zeros(), b.trailing_zeros())
    return wrap(a.width, a.signed, a.lo + b.lo, a.hi + b.hi, _low_mask(tz))


def subtract(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    tz = min(a.trailing_zeros(), b.trailing_zeros())
    return wrap(a.width, a.signed, a.lo - b.hi, a.hi - b.lo, _low_mask(tz))


def multiply(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    c = (a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi)
    tz = min(a.width, a.trailing_zeros() + b.trailing_zeros())
    return wrap(a.width, a.signed, min(c), max(c), _low_mask(tz))


def negate(a: IntRange) -> IntRange:
    if a.is_empty:
        return a
    return wrap(a.width, a.signed, -a.hi, -a.lo, _low_mask(a.trailing_zeros()))


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
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    if b.lo <= 0 <= b.hi:
        return IntRange.full(a.width, a.signed)

    def q(x, y):
        r = abs(x) // abs(y)
        return r if (x >= 0) == (y > 0) else -r

    c = [q(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
    return wrap(a.width, a.signed, min(c), max(c))


def remainder(a: IntRange, b: IntRange) -> IntRange:
    """Remainder with the dividend's sign (``x % 0 == x``)."""
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    m = max(abs(b.lo), abs(b.hi)) - 1
    lo = 0 if a.lo >= 0 else -min(-a.lo, m)
    hi = 0 if a.hi <= 0 else min(a.hi, m)
    out = IntRange.of(a.width, a.signed, lo, hi)
    return out.join(a) if b.lo <= 0 <= b.hi else out


def maximum(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    return IntRange.of(a.width, a.signed, max(a.lo, b.lo), max(a.hi, b.hi), a.zeros & b.zeros, a.ones & b.ones)


def minimum(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
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


# ---------------------------------------------------------------------------------- bitwise


def and_(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    lo, hi = type_min(a.width, a.signed), type_max(a.width, a.signed)
    if a.lo >= 0 and b.lo >= 0:
        lo, hi = 0, min(a.hi, b.hi)
    elif a.lo >= 0 or b.lo >= 0:
        lo, hi = 0, a.hi if a.lo >= 0 else b.hi
    return IntRange.of(a.width, a.signed, lo, hi, a.zeros | b.zeros, a.ones & b.ones)


def or_(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    lo = type_min(a.width, a.signed)
    if (a.lo >= 0 and b.lo >= 0) or (a.hi < 0 and b.hi < 0):
        lo = max(a.lo, b.lo)  # x | y >= max(x, y) when both patterns are in one sign half
    return IntRange.of(a.width, a.signed, lo, type_max(a.width, a.signed), a.zeros & b.zeros, a.ones | b.ones)


def xor(a: IntRange, b: IntRange) -> IntRange:
    if _any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    ones = (a.ones & b.zeros) | (a.zeros & b.ones)
    zeros = (a.zeros & b.zeros) | (a.ones & b.ones)
    return IntRange.of(a.width, a.signed, type_min(a.width, a.signed), type_max(a.width, a.signed), zeros, ones)


def not_(a: IntRange) -> IntRange:
    if a.is_empty:
        return a
    if a.signed:
        lo, hi = -a.hi - 1, -a.lo - 1
    else:
        lo, hi = a.mask - a.hi, a.mask - a.lo
    return IntRange.of(a.width, a.signed, lo, hi, a.ones, a.zeros)


def popcnt(a: IntRange) -> IntRange:
    if a.is_empty:
        return a
    return wrap(a.width, a.signed, bin(a.ones).count("1"), a.width - bin(a.zeros).count("1"))


def count_leading_zeros(a: IntRange) -> IntRange:
    if a.is_empty:
        return a
    w = a.width
    lo, hi = w, 0
    for pl, ph in a.pattern_pieces():
        lo, hi = min(lo, w - ph.bit_length()), max(hi, w - pl.bit_length())
    return wrap(w, a.signed, lo, hi)


def shift_amounts(s: IntRange, width: int):
    """Shift amounts read as unsigned: ``(kmin, kmax)`` of those below ``width`` (None if none), and whether one is ``>= width``."""
    kmin, kmax, big = None, None, False
    for pl, ph in s.pattern_pieces():
        if ph >= width:
            big = True
        if pl < width:
            kmin = pl if kmin is None else min(kmin, pl)
            kmax = min(ph, width - 1) if kmax is None else max(kmax, min(ph, width - 1))
    return kmin, kmax, big


def shift_left(x: IntRange, s: IntRange) -> IntRange:
    w, sg = x.width, x.signed
    if _any_empty(x, s):
        return IntRange.empty(w, sg)
    kmin, kmax, big = shift_amounts(s, w)
    out = IntRange.empty(w, sg)
    if kmin is not None:
        if x.lo >= 0:
            lo, hi = x.lo << kmin, x.hi << kmax
        elif x.hi < 0:
            lo, hi = x.lo << kmax, x.hi << kmin
        else:
            lo, hi = x.lo << kmax, x.hi << kmax
        if kmin == kmax:
            zeros, ones = (x.zeros << kmin) | _low_mask(kmin), x.ones << kmin
        else:
            zeros, ones = _low_mask(min(w, x.trailing_zeros() + kmin)), 0
        out = wrap(w, sg, lo, hi, zeros, ones)
    if big:
        out = out.join(IntRange.of(w, sg, 0, 0))
    return out


def shift_right_logical(x: IntRange, s: IntRange) -> IntRange:
    w, sg = x.width, x.signed
    if _any_empty(x, s):
        return IntRange.empty(w, sg)
    kmin, kmax, big = shift_amounts(s, w)
    out = IntRange.empty(w, sg)
    if kmin is not None:
        pieces = [(pl >> kmax, ph >> kmin) for pl, ph in x.pattern_pieces()]
        top = x.mask & ~(x.mask >> kmin)  # the top kmin bits are 0
        if kmin == kmax:
            zeros, ones = (x.zeros >> kmin) | top, x.ones >> kmin
        else:
            zeros, ones = top, 0
        out = from_patterns(w, sg, pieces, zeros, ones)
    if big:
        out = out.join(IntRange.of(w, sg, 0, 0))
    return out


def shift_right_arithmetic(x: IntRange, s: IntRange) -> IntRange:
    w, sg = x.width, x.signed
    if _any_empty(x, s):
        return IntRange.empty(w, sg)
    kmin, kmax, big = shift_amounts(s, w)
    # Work on the signed view of the patterns: one piece per sign, each maps back contiguously.
    pieces = []
    for pl, ph in x.pattern_pieces():
        a, b = _val(pl, w, True), _val(ph, w, True)
        if a <= b:
            pieces.append((a, b))
        else:  # an unsigned piece crossing 2**(w-1): split
            pieces += [(a, (1 << (w - 1)) - 1), (-(1 << (w - 1)), b)]
    out = IntRange.empty(w, sg)
    m = x.mask
    for a, b in pieces:
        vals = []
        if kmin is not None:
            vals += [a >> kmin, a >> kmax, b >> kmin, b >> kmax]
        if big:
            vals += [a >> (w - 1), b >> (w - 1)]
        lo, hi = min(vals), max(vals)
        out = out.join(from_patterns(w, sg, [(lo & m, hi & m)]))
    if kmin is not None and kmin == kmax and not big:
        sign = 1 << (w - 1)
        top = m & ~(m >> kmin)
        zeros = ((x.zeros >> kmin) | (top if x.zeros & sign else 0)) & m
        ones = ((x.ones >> kmin) | (top if x.ones & sign else 0)) & m
        out = IntRange.of(w, sg, out.lo, out.hi, out.zeros | zeros, out.ones | ones)
    return out


# ---------------------------------------------------------------------------------- conversions


def convert(x: IntRange, width: int, signed: bool) -> IntRange:
    """Integer-to-integer ``convert``: the value modulo ``2**width``, read in the result type."""
    if x.is_empty:
        return IntRange.empty(width, signed)
    keep = _low_mask(min(x.width, width))
    if x.fits(width, signed):
        return IntRange.of(width, signed, x.lo, x.hi, x.zeros & keep, x.ones & keep)
    return wrap(width, signed, x.lo, x.hi, x.zeros & keep, x.ones & keep)


def bitcast(x: IntRange, signed: bool) -> IntRange:
    """``bitcast_convert`` between integer types of one width: same patterns, read as ``signed``."""
    if x.is_empty:
        return IntRange.empty(x.width, signed)
    return from_patterns(x.width, signed, x.pattern_pieces(), x.zeros, x.ones)
