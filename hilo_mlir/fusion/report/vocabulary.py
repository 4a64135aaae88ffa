"""The one fixed vocabulary of fusion decisions: every reason a candidate can be refused for.

A refusal's ``reason`` is a code from :data:`REASONS`, optionally followed by
``:`` and a detail (the op that decided it, a use count):
``R4-user-outside:stablehlo.add@model.py:12:3``, ``logistic-multi-use:2 uses``.
``docs/fusion_report.md`` documents each code with the rule it comes from.

Also here: the *kind* each recording pass forms (the FusionKind for fused
ops; a name for the passes that replace a subgraph by one op) and the
statistic that counts those formations, so that a report can be checked
against ``--mlir-pass-statistics``.
"""

from __future__ import annotations

from typing import Any

from hilo_mlir.ir.dialects import FUSION_KINDS

#: kind of the subgraphs the non-fusing recording passes replace
LOGISTIC = "Logistic"  # raise-logistic: 1/(1+exp(-x)) -> logistic(x)
SOFTMAX = "Softmax"  # convert-fs-pattern-to-custom-calls: softmax -> custom_call @AwsFSPattern5
REASSOCIATED_RESHAPE = "ReassociatedReshape"  # fuseDotLogisticOp Pass B: reshape sunk below logistic*multiply

#: reason code -> what it means (one line, shown in the HTML page)
REASONS = {
    # --- every fusing rule
    "inside-fusion": "the anchor already sits inside a fused op (no rule seeds inside a fusion)",
    "not-one-block": "an op the rule needs sits in another block than the anchor",
    "no-live-out": "nothing outside the cluster uses its results: it would be dead",
    "not-convex": "a path leaves the cluster through the named op and comes back in",
    "side-effecting-dependent": "an op that would have to move after the fused op has side effects",
    "out-of-fuel": "the compile's --fusion-fuel budget of clusters was spent before this one",
    # --- fuseDotLogisticOp, Pass A (DotLogistic)
    "producer-not-dot": "the logistic's operand is not produced by a dot_general or dot",
    "logistic-multi-use": "the logistic's result does not have exactly one use",
    # --- fuseDotLogisticOp, Pass B (reshape reassociation)
    "reshape-users!=2": "the reshape feeding the logistic does not have exactly two users",
    "reshape-producer-not-dot": "the reshape's operand is not produced by a dot_general or dot",
    "reshape-users-not-logistic-and-multiply": "the reshape's two users are not the logistic and a multiply",
    "multiply-not-reshape-times-logistic": "the multiply's operands are not exactly the reshape and the logistic",
    # --- fuseMulRedSqrt (MulRedSqrt)
    "chain-multi-use": "an op between the root and the reduce has more than one use",
    "chain-op-not-allowed": "an op between the root and the reduce is not an epsilon add, a scale or a unit-dim reshape",
    "link-operand-not-constant": "an add/multiply/divide on the chain has no constant operand",
    "not-unit-dim-insertion": "a reshape/broadcast_in_dim on the chain does more than insert size-1 dimensions",
    "reduce-not-add": "the reduce is not a one-input add-reduce",
    "reduce-input-not-square": "the reduce's input is not a single-use multiply(x, x)",
    "chain-reaches-argument": "the chain from the root reaches a block argument before any reduce",
    "chain-too-long": "more than 64 ops between the root and the reduce",
    # --- fuseSubExp (Elementwise: the stable log-sum-exp tree)
    "log-operand-not-add": "the log's operand is not an add",
    "add-operands-not-exp": "the inner add's operands are not two exponentials",
    "exp-multi-use": "an exponential has more than one use",
    "exp-operand-not-subtract": "an exponential's operand is not a subtract",
    "subtrahend-not-max": "the subtracts do not both subtract the max",
    "minuends-not-max-operands": "the subtracts' first operands are not the max's two operands",
    # --- fuseExpm1Op / fuseLog1pOp (Expm1, Log1p)
    "op-multi-use": "the op's result does not have exactly one use",
    "dtype-not-float": "the element type is not a float type",
    "dynamic-shape": "the shape is not static",
    # --- fuseElementwiseOps (Elementwise, MulRedSqrt): the producer the grower stopped at
    "R1-other-block": "the producer sits in another block than the seed",
    "R2-boundary": "the producer is a structural boundary (transpose, fusion, concatenate, slice, reshape, broadcast_in_dim)",
    "R3-not-elementwise": "the producer is not an elementwise op",
    "R4-user-outside": "a user of the producer is outside the cluster",
    # --- schedule-fusion (ScheduleFusion)
    "dependent-pair": "the later collective depends on the earlier one",
    "no-adjacent-partner": "no complementary collective is next to it among the side-effecting ops of its block",
    # --- raise-logistic (Logistic)
    "add-multi-use": "the denominator's add has more than one use",
    "negate-multi-use": "the exponential's negate has more than one use",
    "exp-operand-not-negate": "the exponential's operand is not a negate",
    "numerator-not-one": "the numerator is not a splat 1.0",
    "addend-not-one": "the add's other operand is not a splat 1.0",
    "type-mismatch": "the input's type differs from the result's type",
    # --- convert-fs-pattern-to-custom-calls (Softmax)
    "max-not-against-neg-inf": "the shift is a maximum, but not against a splat -inf",
    "not-rank-reducing-broadcast": "the denominator or the shift is not a broadcast of a reduced value",
    "broadcast-dims-mismatch": "the broadcasts do not re-insert one common reduced dimension",
    "not-softmax-reduces": "not sum(exp(x - max(x))) and max(x) over that dimension",
    "intermediate-used-outside": "a value inside the subgraph is used outside it",
}

#: (pass argument without the ``stablehlo-`` prefix, kind) -> the statistic counting what it formed
#: (``{kind}`` stands for the kind).
STATISTIC_OF = {
    ("neuron-op-fusion", None): "clusters-{kind}",
    ("neuron-op-fusion", REASSOCIATED_RESHAPE): "reassociated-reshape",
    ("schedule-fusion", None): "fused-pairs",
    ("raise-logistic", None): "raised-logistic",
    ("convert-fs-pattern-to-custom-calls", None): "softmax-patterns",
    ("test-fusion-cluster", None): "clusters",
}

#: every kind a report may hold: the FusionKinds and the three replacement kinds above
KINDS = FUSION_KINDS + (REASSOCIATED_RESHAPE, LOGISTIC, SOFTMAX)


class RefusalReason(str):
    """A fusion rule's match failure as the match-failure channel carries it
    (:meth:`hilo_mlir.rewrite.pattern.PatternRewriter.notify_match_failure`).

    The text is the report's reason, ``code`` or ``code:detail`` (what ``--debug`` shows);
    like a diagnostic's note, it also names the op that decided the refusal. A
    :class:`~hilo_mlir.fusion.report.capture.Recorder` listening to the channel files it.

    Args:
        code: a code of :data:`REASONS`.
        detail: appended after ``:`` when not empty (an op name, a use count).
        kind: what the rule would have formed (a FusionKind or one of :data:`KINDS`).
        culprit: the op that decided the refusal (``ir.Operation``), or None.
    """

    kind: str
    culprit: Any

    def __new__(cls, code: str, detail: str | None = None, *, kind: str, culprit: Any = None) -> RefusalReason:
        self = super().__new__(cls, code + (f":{detail}" if detail else ""))
        self.kind = kind
        self.culprit = culprit
        return self


def code_of(reason: str) -> str:
    """The vocabulary code of a reason (the part before the first ``:``)."""
    return reason.split(":", 1)[0]


def statistic_for(pass_argument: str, kind: str) -> str:
    """The statistic of ``pass_argument`` that counts the ``kind`` subgraphs it formed."""
    base = pass_argument[len("stablehlo-") :] if pass_argument.startswith("stablehlo-") else pass_argument
    name = STATISTIC_OF.get((base, kind)) or STATISTIC_OF[(base, None)]
    return name.replace("{kind}", kind)
