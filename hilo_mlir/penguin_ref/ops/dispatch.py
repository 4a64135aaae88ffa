"""Which implementation runs a statement: the registries and the lookup.

Dispatch is on the statement's ``xla_op`` (``'mhlo.add'`` / ``'stablehlo.add'``
-> ``add``); statements without ``xla_op`` fall back to their Python op name
(``AddOp`` -> ``add``; ``Softmax`` -> the softmax custom call). Group headers
(fusion/composite summaries) compute nothing; custom calls go through the
``custom_call`` implementation, which dispatches on the target.
"""

from __future__ import annotations

from hilo_mlir.penguin_ref.records import op_key  # defined below ops/ so that devices.py can use it

IMPLS: dict = {}
CUSTOM_CALLS: dict = {}


def impl(*names):
    def deco(fn):
        for n in names:
            IMPLS[n] = fn
        return fn

    return deco


def custom_call(*targets):
    def deco(fn):
        for t in targets:
            CUSTOM_CALLS[t] = fn
        return fn

    return deco


SUMMARY_XLA_OPS = {"fusion", "composite"}
SUMMARY_PY_OPS = {"NeuronTensorOp", "DotFusion", "MulRedSqrt", "Elementwise", "Expm1", "Log1p", "DotSoftmax", "FusionOp", "CompositeOp"}


def is_summary(st) -> bool:
    """A fusion/composite summary statement (its body follows it or is its region)."""
    return op_key(st) in SUMMARY_XLA_OPS or st.kind.split(".")[-1] in SUMMARY_PY_OPS


#: Python op names that are custom calls when printed without ``xla_op``
PY_CUSTOM = {
    "Softmax",
    "SoftmaxOp",
    "AliasingCopy",
    "AliasingCopyOp",
    "QuantizeMXTensorOp",
    "CopyOp",
    "ControlDepOp",
    "CheckOp",
    "DevicePrintOp",
}


def is_header(st) -> bool:
    """A group header (fusion/composite summary or call): it computes nothing, its body does."""
    return is_summary(st) or op_key(st) == "call"


def lookup(st):
    """The implementation of statement ``st`` (``fn(OpCall) -> arrays``), or None."""
    key = op_key(st)
    if key in ("fusion", "composite") or (is_summary(st) and not st.xla_op):
        return IMPLS["fusion"] if st.regions else None
    kind = st.kind.split(".")[-1]
    if key == "custom_call" or (not st.xla_op and kind in PY_CUSTOM) or kind == "QuantizeMXTensorOp":
        return IMPLS["custom_call"]
    return IMPLS.get(key)
