"""Bit-level transfer functions of the integer range analysis (no IR here).

``and``/``or``/``xor``/``not`` combine known bits (and bound the interval
where the operands' signs allow); ``popcnt`` and ``count_leading_zeros``
count from the known bits and the patterns' range; the three shifts read the
shift amount as unsigned, an amount of at least ``width`` giving 0
(``shift_left``, ``shift_right_logical``) or the sign fill
(``shift_right_arithmetic``), as StableHLO defines them. Every function is
sound (see :mod:`.int_lattice`).
"""

from __future__ import annotations

from hilo_mlir.analysis.int_lattice import IntRange, any_empty, from_patterns, low_mask, type_max, type_min, value_of, wrap


def and_(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    lo, hi = type_min(a.width, a.signed), type_max(a.width, a.signed)
    if a.lo >= 0 and b.lo >= 0:
        lo, hi = 0, min(a.hi, b.hi)
    elif a.lo >= 0 or b.lo >= 0:
        lo, hi = 0, a.hi if a.lo >= 0 else b.hi
    return IntRange.of(a.width, a.signed, lo, hi, a.zeros | b.zeros, a.ones & b.ones)


def or_(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
        return IntRange.empty(a.width, a.signed)
    lo = type_min(a.width, a.signed)
    if (a.lo >= 0 and b.lo >= 0) or (a.hi < 0 and b.hi < 0):
        lo = max(a.lo, b.lo)  # x | y >= max(x, y) when both patterns are in one sign half
    return IntRange.of(a.width, a.signed, lo, type_max(a.width, a.signed), a.zeros & b.zeros, a.ones | b.ones)


def xor(a: IntRange, b: IntRange) -> IntRange:
    if any_empty(a, b):
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


def shift_amounts(s: IntRange, width: int) -> tuple[int | None, int | None, bool]:
    """Shift amounts read as unsigned: ``(kmin, kmax)`` of those below ``width`` (None if none), and whether one is ``>= width``."""
    kmin: int | None = None
    kmax: int | None = None
    big = False
    for pl, ph in s.pattern_pieces():
        if ph >= width:
            big = True
        if pl < width:
            kmin = pl if kmin is None else min(kmin, pl)
            kmax = min(ph, width - 1) if kmax is None else max(kmax, min(ph, width - 1))
    return kmin, kmax, big


def shift_left(x: IntRange, s: IntRange) -> IntRange:
    w, sg = x.width, x.signed
    if any_empty(x, s):
        return IntRange.empty(w, sg)
    kmin, kmax, big = shift_amounts(s, w)
    out = IntRange.empty(w, sg)
    if kmin is not None and kmax is not None:  # None together
        if x.lo >= 0:
            lo, hi = x.lo << kmin, x.hi << kmax
        elif x.hi < 0:
            lo, hi = x.lo << kmax, x.hi << kmin
        else:
            lo, hi = x.lo << kmax, x.hi << kmax
        if kmin == kmax:
            zeros, ones = (x.zeros << kmin) | low_mask(kmin), x.ones << kmin
        else:
            zeros, ones = low_mask(min(w, x.trailing_zeros() + kmin)), 0
        out = wrap(w, sg, lo, hi, zeros, ones)
    if big:
        out = out.join(IntRange.of(w, sg, 0, 0))
    return out


def shift_right_logical(x: IntRange, s: IntRange) -> IntRange:
    w, sg = x.width, x.signed
    if any_empty(x, s):
        return IntRange.empty(w, sg)
    kmin, kmax, big = shift_amounts(s, w)
    out = IntRange.empty(w, sg)
    if kmin is not None and kmax is not None:  # None together
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
    if any_empty(x, s):
        return IntRange.empty(w, sg)
    kmin, kmax, big = shift_amounts(s, w)
    # Work on the signed view of the patterns: one piece per sign, each maps back contiguously.
    pieces = []
    for pl, ph in x.pattern_pieces():
        a, b = value_of(pl, w, True), value_of(ph, w, True)
        if a <= b:
            pieces.append((a, b))
        else:  # an unsigned piece crossing 2**(w-1): split
            pieces += [(a, (1 << (w - 1)) - 1), (-(1 << (w - 1)), b)]
    out = IntRange.empty(w, sg)
    m = x.mask
    for a, b in pieces:
        vals = []
        if kmin is not None and kmax is not None:  # None together
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
