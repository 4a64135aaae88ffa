"""Kernel selection: the fusion kinds the reference backend runs as a primitive instead of by their body.

An ``Expm1`` / ``Log1p`` fusion is the expansion ``exp(x) - 1`` / ``log(x + 1)``
of a precise primitive the hardware lacks; its kind is kept so that the
backend can select a precision-aware kernel instead of running the naive
expansion (which loses everything near 0 in bf16: ``softplus(-5.84)`` would
be 0 instead of 0.0029). This backend models that kernel: the group's result
is ``expm1(x)`` / ``log1p(x)`` of its one operand, computed wide (f32 for bf16,
f16 and f8; f64 for f32) and rounded once to the result dtype. Every other
fusion runs its body op by op, and so does every fusion with
``literal_fusions`` (``hilo-penguin-run --literal-fusions``).

The kernel applies to a group header with one operand and one floating
result of the operand's shape; any other group of those kinds runs its body.
"""

from __future__ import annotations

import numpy as np

from hilo_mlir.penguin_ref import ops
from hilo_mlir.penguin_ref.records import TensorSpec

#: fusion kind (``hilo_fusion_op=`` on the StableHLO spine, ``op=`` on the MHLO spine) -> the primitive
PRECISE_KERNELS = {"Expm1": np.expm1, "Log1p": np.log1p}


def kernel_kind(header) -> str | None:
    """The fusion kind a group header names (``hilo_fusion_op``, else ``op``), or None."""
    kind = header.kw.get("hilo_fusion_op")
    if kind is None:
        kind = header.kw.get("op")
    return str(kind).strip("'\"") if isinstance(kind, str) else None


def precise_result(header, x, vectorized: bool) -> np.ndarray | None:
    """The kernel's result for group ``header`` on operand value ``x``, or None when no kernel applies."""
    kind = kernel_kind(header)
    fn = PRECISE_KERNELS.get(kind) if kind is not None else None
    if fn is None or len(header.dsts) != 1 or not isinstance(header.dsts[0], TensorSpec):
        return None
    spec = header.dsts[0]
    x = np.asarray(x)
    if not ops.numeric.is_float(x.dtype) or (not vectorized and tuple(x.shape) != spec.shape):
        return None
    with np.errstate(all="ignore"):
        return ops.cast(fn(ops.widen(x)), spec.np_dtype)
