"""Analyses of the IR that passes ask instead of walking it themselves (none of them changes the IR).

* :mod:`.int_lattice`: :class:`~.int_lattice.IntRange`, an interval plus known
  bits for the elements of an integer tensor, with the arithmetic transfer
  functions; :mod:`.int_bitwise`: the bit-level ones.
* :mod:`.int_ranges`: :class:`~.int_ranges.IntRanges`, the integer range
  analysis of a function or module; :mod:`.int_regions`: its rules for ops
  with regions (loops' fixed points, accumulators, branches) and calls.
* :mod:`.narrowing`: which ops keep their numbers when 64-bit integers are
  narrowed to 32 bits, from the ranges (used by ``sixty-four-hack``).
"""
