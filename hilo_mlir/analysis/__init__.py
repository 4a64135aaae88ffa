"""Analyses of the IR and the manager that keeps them (MLIR's ``AnalysisManager``).

* :mod:`.manager` -- :class:`~.manager.AnalysisManager`: one cache per pipeline
  run, keyed by (analysis class, op), invalidated by what the rewriter records.
* :mod:`.census` -- :class:`~.census.Census`: op names, counts, per-function op
  lists and value types, kept current in place by the rewriter.
* :mod:`.check` -- the checking mode (``HILO_MLIR_CHECK_ANALYSES=1``): compares
  what the log claims with a fingerprint of the module and fresh analyses.
"""
