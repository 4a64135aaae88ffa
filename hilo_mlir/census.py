"""Moved to :mod:`hilo_mlir.analysis.census` (kept until every importer is updated)."""

from .analysis.census import Census, walk_named  # noqa: F401

_walk_named = walk_named
