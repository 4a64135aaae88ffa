"""Analyses of the IR that passes ask instead of walking it themselves (none of them changes the IR).

* :mod:`.int_lattice`: :class:`~.int_lattice.IntRange`, an interval plus known
  bits for the elements of an integer tensor, and its transfer functions.
* :mod:`.int_ranges`: :class:`~.int_ranges.IntRanges`, the integer range
  analysis of a function or module (used by ``sixty-four-hack``).
"""
