"""Upstream C++ passes of the binding, listed so ``--help`` and the pipeline parser know them.

They run through the binding's ``PassManager`` (DESIGN.md "The stack").
Which passes the binding registers, their anchors, class names and scalar
options with defaults come from the binding itself
(:mod:`hilo_mlir.passmanager.upstream_catalog` writes ``upstream_passes.json``; a test
keeps the file equal to the binding). What is ours: the one-line summaries
below, the list-valued options (the binding prints them empty), and the
dialect of the passes that have a twin over the other dialect (for the
"use its twin" warning).
"""

from __future__ import annotations

import json
import os

from hilo_mlir.passmanager.registry import Option, PassInfo, register

#: one line per upstream pass, for ``--help``
SUMMARIES = {
    "bubble-down-memory-space-casts": "Move memory-space casts towards their uses",
    "canonicalize": "Canonicalize operations: folding and canonicalization patterns (spine step 1)",
    "chlo-legalize-to-high-level-mhlo": "chlo -> mhlo, keeping ops mhlo has (e.g. erf, topk) instead of expanding them",
    "chlo-legalize-to-hlo": "chlo -> mhlo, expanding every chlo op",
    "chlo-legalize-to-stablehlo": "chlo -> stablehlo (decomposes erf, lgamma, top_k, ... as the driver's bridge does)",
    "composite-fixed-point-pass": "Run a pipeline until the IR stops changing",
    "control-flow-sink": "Sink ops into the regions of region control flow that use them",
    "cse": "Eliminate common sub-expressions",
    "expand-hlo-tuples": "Flatten tuple arguments and results of the entry function",
    "generate-runtime-verification": "Insert runtime checks of op invariants",
    "hlo-legalize-to-stablehlo": "mhlo -> stablehlo (StableHLO spine step 1a)",
    "inline": "Inline function calls (needs an inliner interface; jaxlib's func dialect has none: use call-inliner)",
    "loop-invariant-code-motion": "Hoist loop-invariant ops out of loops",
    "loop-invariant-subset-hoisting": "Hoist loop-invariant subset extract/insert pairs out of loops",
    "mem2reg": "Promote memory slots to SSA values",
    "mhlo-collapse-elementwise-map": "Collapse mhlo.map of an elementwise body into the elementwise ops",
    "mhlo-flatten-tuple": "Flatten tuple values in mhlo ops",
    "mhlo-legalize-dot-to-dot-general": "mhlo.dot -> mhlo.dot_general",
    "mhlo-legalize-einsum-to-dot-general": "mhlo.einsum -> mhlo.dot_general",
    "mhlo-legalize-torch-index-select-to-gather": "mhlo.torch_index_select -> mhlo.gather",
    "mhlo-legalize-trigonometric-to-approximation": "Approximate tanh, sin and cos in f32 by polynomials",
    "mhlo-sink-constants-to-control-flow": "Move constants into the regions of mhlo control flow that use them",
    "mhlo-test-infer-shaped-type-methods": "Test pass: exercise mhlo's shape inference",
    "mhlo-test-materialize-broadcasts": "Test pass: make implicit mhlo broadcasts explicit",
    "mhlo-test-unfuse-batch-norm": "Test pass: expand mhlo batch-norm ops",
    "print-ir": "Print the IR to stderr (debugging)",
    "print-op-stats": "Print op counts (debugging)",
    "remove-dead-values": "Remove dead values, arguments and results (spine step 13)",
    "sccp": "Sparse conditional constant propagation",
    "sdy-add-data-flow-edges": "Shardy: add data-flow edge ops on region results",
    "sdy-add-func-data-flow-edges": "Shardy: add data-flow edge ops on function arguments",
    "sdy-aggressive-propagate": "Shardy: sharding propagation, aggressive strategy",
    "sdy-apply-sharding-constraints": "Shardy: apply sharding constraints to their inputs",
    "sdy-basic-propagate": "Shardy: basic sharding propagation",
    "sdy-close-shardings": "Shardy: close open sharding dimensions",
    "sdy-constant-or-scalar-merger": "Shardy: merge duplicated constants and scalar expressions",
    "sdy-constant-or-scalar-splitter": "Shardy: duplicate constants and scalar expressions per use",
    "sdy-convert-global-to-local": "Shardy: convert global shapes to per-device shapes",
    "sdy-drop-sharding-and-mesh": "Shardy: drop every sharding and mesh",
    "sdy-drop-sharding-rules": "Shardy: drop sharding rules",
    "sdy-explicit-gather-scatter-batching": "Shardy: make gather/scatter batching dimensions explicit",
    "sdy-export-named-computations": "Shardy: export named computations as functions",
    "sdy-export-pipeline": "Shardy: the export pipeline (pass pipeline)",
    "sdy-flatten-call-graph": "Shardy: flatten the call graph",
    "sdy-import-func-calls": "Shardy: import function calls as named computations",
    "sdy-import-pipeline": "Shardy: the import pipeline (pass pipeline)",
    "sdy-inline-meshes": "Shardy: inline mesh references",
    "sdy-insert-explicit-reshards": "Shardy: insert explicit reshards",
    "sdy-insert-func-call-reshards": "Shardy: insert reshards around function calls",
    "sdy-lift-inlined-meshes": "Shardy: lift inlined meshes to symbols",
    "sdy-manual-axes-cleanup": "Shardy: clean up manual axes",
    "sdy-op-priority-propagate": "Shardy: sharding propagation by op priority",
    "sdy-pad-for-divisibility": "Shardy: pad dimensions so shardings divide them",
    "sdy-populate-op-sharding-rules": "Shardy: attach sharding rules to ops",
    "sdy-pre-order-funcs": "Shardy: order functions callers first",
    "sdy-propagate-sharding-from-func-to-call": "Shardy: copy function shardings to call sites",
    "sdy-propagate-to-func-results": "Shardy: propagate shardings to function results",
    "sdy-propagation-pipeline": "Shardy: the propagation pipeline (pass pipeline)",
    "sdy-remove-all-gather-reduce-scatter-for-cmv1": "Shardy: remove all-gather/reduce-scatter pairs (CMV1)",
    "sdy-remove-propagation-debug-info": "Shardy: remove propagation debug attributes",
    "sdy-remove-sharding-groups": "Shardy: remove sharding groups",
    "sdy-remove-size-one-axes": "Shardy: remove mesh axes of size one",
    "sdy-remove-sub-axes-in-input-output-shardings": "Shardy: remove sub-axes from argument and result shardings",
    "sdy-reshard-to-collectives": "Shardy: lower reshards to collectives",
    "sdy-resolve-permutation-factors": "Shardy: resolve permutation factors",
    "sdy-sharding-constraint-to-reshard": "Shardy: sharding constraints -> reshards",
    "sdy-sharding-group-import": "Shardy: import sharding groups",
    "sdy-sink-data-flow-edges": "Shardy: sink data-flow edge ops",
    "sdy-sink-func-data-flow-edges": "Shardy: sink function data-flow edge ops",
    "sdy-unflatten-call-graph": "Shardy: rebuild the call graph",
    "sdy-update-non-divisible-input-output-shardings": "Shardy: fix argument and result shardings that do not divide",
    "sdy-user-priority-propagate": "Shardy: sharding propagation by user priority",
    "shape-legalize-to-stablehlo": "shape-dialect ops -> stablehlo",
    "snapshot-op-locations": "Print the IR to a file and point each op's location at its line there",
    "sroa": "Scalar replacement of aggregates",
    "stablehlo-canonicalize-dynamism": "Replace dynamic stablehlo ops with static ones where the shapes are constant",
    "stablehlo-check-shape-assertions": "Check JAX shape_assertion custom calls",
    "stablehlo-compatibility-expander": "Rewrite newer stablehlo ops for an older target version",
    "stablehlo-complex-math-expander": "Expand complex math ops",
    "stablehlo-convert-to-signless": "Convert unsigned and signed integer types to signless",
    "stablehlo-legalize-composite-to-call": "stablehlo.composite -> func.call of its decomposition",
    "stablehlo-legalize-deprecated-ops": "Rewrite deprecated stablehlo ops",
    "stablehlo-legalize-qdq-to-quantized-op": "Fuse dequantize-op-quantize patterns into quantized ops",
    "stablehlo-legalize-quant-to-math": "Lower quantized ops to integer math",
    "stablehlo-legalize-quantized-op-to-qdq": "Expand quantized ops into dequantize-op-quantize",
    "stablehlo-legalize-to-hlo": "stablehlo -> mhlo (the driver's bridge before the spine)",
    "stablehlo-legalize-to-linalg": "stablehlo -> linalg",
    "stablehlo-legalize-to-vhlo": "stablehlo -> vhlo (the portable, versioned form)",
    "stablehlo-refine-arguments": "Give main's arguments the types of the 'types' option (shape refinement)",
    "stablehlo-refine-shapes": "Propagate static shapes through the program (shape refinement)",
    "stablehlo-wrap-in-composite": "Wrap ops in stablehlo.composite",
    "strip-debuginfo": "Replace every location with an unknown location",
    "symbol-dce": "Eliminate dead symbols",
    "symbol-privatize": "Make symbols private",
    "topological-sort": "Sort the ops of graph regions topologically",
    "trivial-dce": "Erase ops whose results are unused and that have no side effects",
    "vhlo-legalize-to-stablehlo": "vhlo -> stablehlo (reads portable artifacts)",
    "vhlo-to-version": "Convert vhlo to a target version",
    "view-op-graph": "Print the op graph in Graphviz format",
    "xla-prepare-for-export": "Prepare mhlo for export to HLO",
    "xla-sdy-round-trip-import-shardy-attrs": "Shardy: import Shardy attributes round-tripped through HLO",
}

#: list-valued options: the binding prints them empty, so they are declared here
LIST_OPTIONS = {
    "canonicalize": (("disable-patterns", "patterns (by label) not to apply"), ("enable-patterns", "only apply these patterns (by label)")),
    "inline": (("op-pipelines", "pipelines to run on callables of some op kinds, e.g. {func.func(cse)}"),),
    "stablehlo-refine-arguments": (("types", "the new argument types of main, e.g. {tensor<4xf32>,tensor<i32>}"),),
    "symbol-privatize": (("exclude", "symbols to keep public"),),
    "stablehlo-legalize-composite-to-call": (("except", "composite names to keep"),),
    "stablehlo-wrap-in-composite": (("op-names", "op names to wrap"),),
}

#: help of a few scalar options (the rest show their default only)
OPTION_HELP = {
    ("canonicalize", "max-iterations"): "rewrite iterations before giving up (-1: no limit)",
    ("canonicalize", "region-simplify"): "region simplification: disabled, normal or aggressive",
    ("canonicalize", "top-down"): "visit ops top-down",
    ("hlo-legalize-to-stablehlo", "allow-xla-features"): "keep XLA-only ops (mhlo.fusion ...) instead of failing",
    ("stablehlo-legalize-to-hlo", "convert-xla-supported-stablehlo"): "convert ops XLA supports in stablehlo form too",
    ("vhlo-to-version", "target"): "target version, e.g. 1.0.0, 'current' or 'minimum'",
    ("remove-dead-values", "canonicalize"): "canonicalize after removing",
}

#: dialect of upstream passes that have a twin over the other dialect
DIALECTS = {"hlo-legalize-to-stablehlo": "mhlo", "stablehlo-legalize-to-hlo": "stablehlo"}

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "upstream_passes.json")


def option_type(default: str) -> type:
    """The type of a scalar option, from the default the binding prints."""
    if default in ("true", "false"):
        return bool
    try:
        int(default, 0)
        return int
    except ValueError:
        return str


def _default(text: str, t: type):
    if t is bool:
        return text == "true"
    if t is int:
        return int(text, 0)
    return text


def load_entries() -> list[dict]:
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)["passes"]


def options_of(entry: dict) -> tuple:
    arg = entry["argument"]
    opts = []
    for name, text in entry["options"].items():
        t = option_type(text)
        opts.append(Option(name, t, _default(text, t), OPTION_HELP.get((arg, name), "")))
    for name, text in LIST_OPTIONS.get(arg, ()):
        opts.append(Option(name, str, "", text + " (a list: {a,b})"))
    return tuple(sorted(opts, key=lambda o: o.name))


for _e in load_entries():
    _arg = _e["argument"]
    register(
        PassInfo(
            _arg,
            SUMMARIES.get(_arg, "Upstream pass of the binding"),
            None,
            anchor=_e["anchor"],
            dialect=DIALECTS.get(_arg),
            options=options_of(_e),
            class_name=_e["class_name"] or _arg,
            upstream=True,
            source="upstream MLIR / StableHLO / MHLO / Shardy (the binding's pass registry)",
        )
    )
