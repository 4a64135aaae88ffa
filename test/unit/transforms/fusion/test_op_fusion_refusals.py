"""neuron-op-fusion reports each refusal once, where the rule decides it, through the match-failure channel.

The channel (``PatternRewriter.notify_match_failure``) feeds ``--debug`` and
the fusion report's recorder (a ``MatchFailureListener``). The Elementwise
grower's verdicts are provisional until the cluster stops growing: a producer
turned away (R4) and admitted later is not reported, and one turned away twice
is reported once, with the user outside the final cluster.
"""

from hilo_mlir.fusion.report import FusionReport, RefusalReason
from hilo_mlir.fusion.report.capture import Recorder
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import CompileOutputs, Pipeline, PipelineEnv

FUSE = "stablehlo-neuron-op-fusion{general-elementwise-fusion=true}"
T = "tensor<4x8xf32>"

# line numbers matter: the expected strings name them (in.mlir:LINE:COL)
GROWER = f"""func.func @main(%x: {T}, %y: {T}) -> (tensor<4xf32>, {T}) {{
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %p = stablehlo.exponential %x : {T}
  %u = stablehlo.add %x, %p : {T}
  %m = stablehlo.multiply %p, %u : {T}
  %q = stablehlo.tanh %y : {T}
  %out = stablehlo.negate %q : {T}
  %w = stablehlo.sine %q : {T}
  %v = stablehlo.add %m, %q : {T}
  %k = stablehlo.cosine %w : {T}
  %r = stablehlo.reshape %y : ({T}) -> {T}
  %d = stablehlo.reverse %y, dims = [1] : {T}
  %a = stablehlo.add %k, %v : {T}
  %b = stablehlo.add %a, %r : {T}
  %s = stablehlo.add %b, %d : {T}
  %red = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [1] : ({T}, tensor<f32>) -> tensor<4xf32>
  return %red, %out : tensor<4xf32>, {T}
}}
"""

#: (rule, kind, anchor op, anchor loc, reason, culprit) of each refusal, in report order
GROWER_REFUSALS = [
    ("fuseElementwiseOps", "Elementwise", "stablehlo.reverse", "in.mlir:12:8", "R3-not-elementwise:stablehlo.reverse", None),
    ("fuseElementwiseOps", "Elementwise", "stablehlo.reshape", "in.mlir:11:8", "R2-boundary:stablehlo.reshape", None),
    (
        "fuseElementwiseOps",
        "Elementwise",
        "stablehlo.tanh",
        "in.mlir:6:8",
        "R4-user-outside:stablehlo.negate@in.mlir:7:10",
        ("stablehlo.negate", "in.mlir:7:10"),
    ),
]


def _run(text: str, pipeline: str = FUSE, debug: bool = False, report: bool = True):
    rep = FusionReport("in.mlir") if report else None
    with make_context():
        m = ir.Module.parse(text)
        p = Pipeline.from_text(
            f"builtin.module({pipeline})", env=PipelineEnv(filename="in.mlir", debug=debug), outputs=CompileOutputs(fusion_report=rep)
        )
        p.run(m)
        return rep, p, str(m)


def _refusals(rep: FusionReport) -> list:
    return [
        (r.rule, r.kind, r.anchor["name"], r.anchor["loc"], r.reason, (r.culprit["name"], r.culprit["loc"]) if r.culprit else None)
        for r in rep.refusals()
    ]


def test_grower_reports_each_producer_it_left_out_once_with_the_final_verdict():
    rep, _p, text = _run(GROWER)
    # %p was turned away (R4: its user %u was outside) and admitted later: not reported;
    # %q was turned away with %w outside, then (%w joined through %k) with %out outside: reported once, naming %out;
    # the constant %z (R3) is never listed.
    assert _refusals(rep) == GROWER_REFUSALS
    assert [(c.kind, [o["name"] for o in c.ops]) for c in rep.clusters()] == [
        (
            "Elementwise",
            [
                "stablehlo.exponential",
                "stablehlo.add",
                "stablehlo.multiply",
                "stablehlo.sine",
                "stablehlo.add",
                "stablehlo.cosine",
                "stablehlo.add",
                "stablehlo.add",
                "stablehlo.add",
                "stablehlo.reduce",
            ],
        )
    ]
    assert text.count("stablehlo.composite") == 1


def test_debug_says_each_refusal_once_through_the_channel():
    _rep, p, _ = _run(GROWER, debug=True, report=False)
    lines = [line for line in p.log if "fuseElementwiseOps" in line]
    assert len(lines) == 3
    for (rule, _kind, name, _loc, reason, _culprit), line in zip(GROWER_REFUSALS, lines):
        assert line.startswith(f"[stablehlo-neuron-op-fusion] {rule}: {name} at loc(")
        assert line.endswith(f": {reason}")


def test_refusals_cost_nothing_when_nobody_listens():
    rep, p, text = _run(GROWER, report=False)
    assert rep is None and p.log == []
    assert text == _run(GROWER)[2]  # the same IR with a report


def test_dot_logistic_multi_use_is_reported_once_with_its_use_count():
    src = """func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %l = stablehlo.logistic %d : tensor<4x4xf32>
  %n = stablehlo.negate %l : tensor<4x4xf32>
  %e = stablehlo.exponential %l : tensor<4x4xf32>
  return %n, %e : tensor<4x4xf32>, tensor<4x4xf32>
}
"""
    pipeline = "stablehlo-neuron-op-fusion{fuse-dot-logistic=true}"
    rep, _p, _ = _run(src, pipeline)
    assert _refusals(rep) == [
        (
            "fuseDotLogisticOp",
            "DotLogistic",
            "stablehlo.logistic",
            "in.mlir:3:8",
            "logistic-multi-use:2 uses",
            ("stablehlo.negate", "in.mlir:4:8"),
        )
    ]
    _rep, p, _ = _run(src, pipeline, debug=True, report=False)
    assert len(p.log) == 1
    assert p.log[0].startswith("[stablehlo-neuron-op-fusion] fuseDotLogisticOp: stablehlo.logistic at loc(")
    assert p.log[0].endswith(": logistic-multi-use:2 uses")


def test_the_recorder_files_refusal_reasons_not_plain_text():
    rep = FusionReport("in.mlir")
    rec = Recorder(rep, "stablehlo-neuron-op-fusion", "main")
    with make_context():
        m = ir.Module.parse(GROWER)
        ops = list(m.body.operations[0].regions[0].blocks[0].operations)
        tanh, neg = ops[4].operation, ops[5].operation
        reason = RefusalReason("R4-user-outside", "x", kind="Elementwise", culprit=neg)
        assert reason == "R4-user-outside:x" and RefusalReason("inside-fusion", kind="Elementwise") == "inside-fusion"
        rec.notify_match_failure("fuseElementwiseOps", tanh, reason)
        rec.notify_match_failure("fuseElementwiseOps", neg, "no candidate")  # plain text: --debug only
    assert _refusals(rep) == [
        ("fuseElementwiseOps", "Elementwise", "stablehlo.tanh", "in.mlir:6:8", "R4-user-outside:x", ("stablehlo.negate", "in.mlir:7:10"))
    ]
