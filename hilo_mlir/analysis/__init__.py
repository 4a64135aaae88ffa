"""Analyses of the IR and the manager that keeps them (MLIR's ``AnalysisManager``).

* :mod:`.manager` -- :class:`~.manager.AnalysisManager`: one cache per pipeline
  run, keyed by (analysis class, op), invalidated by what the rewriter records.
* :mod:`.census` -- :class:`~.census.Census`: op names, counts, per-function op
  lists and value types, kept current in place by the rewriter.
* :mod:`.snapshot` -- :class:`~.snapshot.FunctionSnapshot`: every block of a
  function as Python ints (ops in order, operands, results, users), kept
  current in place by the rewriter.
* :mod:`.check` -- the checking mode (``HILO_MLIR_CHECK_ANALYSES=1``): compares
  what the log claims with a fingerprint of the module and fresh analyses.
* :mod:`.int_lattice`: :class:`~.int_lattice.IntRange`, an interval plus known
  bits for the elements of an integer tensor, with the arithmetic transfer
  functions; :mod:`.int_bitwise`: the bit-level ones.
* :mod:`.int_ranges`: :class:`~.int_ranges.IntRanges`, the integer range
  analysis of a function or module; :mod:`.int_regions`: its rules for ops
  with regions (loops' fixed points, accumulators, branches) and calls.
* :mod:`.narrowing`: which ops keep their numbers when 64-bit integers are
  narrowed to 32 bits, from the ranges (used by ``sixty-four-hack``).
"""
