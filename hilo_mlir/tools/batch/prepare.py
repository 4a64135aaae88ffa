"""Before a batch forks its workers: import what they need once, and make OUTDIR."""

from __future__ import annotations

import os


def preload(items) -> None:
    """Import everything the children need once, before forking."""
    from hilo_mlir import passes
    from hilo_mlir.driver import compiler  # noqa: F401
    from hilo_mlir.driver.frontend import binary  # noqa: F401
    from hilo_mlir.ir import binding as ir

    passes.load(plugins=False)  # installed plugins: only when a pass name is not built in
    ir._register_passes_once()
    if any(it.path.endswith(".pb") for it in items):
        from jaxlib import xla_client  # noqa: F401 - else every worker imports it
    if len(items) > 1:
        # the printers import ml_dtypes on the first bf16/fp8/int4 constant (~1 s): once here, not per worker
        import ml_dtypes  # noqa: F401


def prepare_outdir(outdir: str, create: bool = True) -> None:
    """Create OUTDIR (and its parents) if needed (``create=False``: only check that it could be used).

    Raises:
        HiloError: OUTDIR is a file, or cannot be created (one line with the OS error).
    """
    from hilo_mlir.support.diagnostics import HiloError, shown_path
    from hilo_mlir.support.packaging import dangling_link

    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise HiloError(f"cannot use output folder '{shown_path(outdir)}': it is a file, not a folder")
    dangling = dangling_link(outdir)
    if dangling is not None:
        raise HiloError(f"cannot use output folder '{shown_path(outdir)}': {dangling}")
    if not create:
        return
    try:
        os.makedirs(outdir, exist_ok=True)
    except OSError as e:
        raise HiloError(f"cannot create output folder '{shown_path(outdir)}': {e.strerror or e}") from None
