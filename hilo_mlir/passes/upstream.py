"""Upstream C++ passes of the binding, listed so ``--help`` and the pipeline parser know them.

They run through the binding's ``PassManager`` (DESIGN.md "The stack"). Any
other pass the binding registers also works in a pipeline string; these are the
ones the spines use (steps 1, 13 and the bridge 1a of seed 004) plus the tools
tests use to check semantics.
"""

from ..registry import PassInfo, register

_UPSTREAM = [
    ("canonicalize", "Canonicalize operations (upstream; spine step 1)", "builtin.module", "Canonicalizer"),
    ("cse", "Eliminate common sub-expressions (upstream)", "builtin.module", "CSE"),
    ("inline", "Inline function calls (upstream)", "builtin.module", "Inliner"),
    ("symbol-dce", "Eliminate dead symbols (upstream)", "builtin.module", "SymbolDCE"),
    ("remove-dead-values", "Remove dead values (upstream; spine step 13)", "builtin.module", "RemoveDeadValues"),
    ("hlo-legalize-to-stablehlo", "mhlo -> stablehlo (upstream; StableHLO spine step 1a)", "builtin.module", "HloLegalizeToStablehloPass"),
    ("stablehlo-legalize-to-hlo", "stablehlo -> mhlo (upstream)", "builtin.module", "StablehloLegalizeToHloPass"),
    ("stablehlo-legalize-composite-to-call", "composite -> func.call of its decomposition (upstream)", "func.func", "StablehloLegalizeCompositeToCallPass"),
]

for _arg, _summary, _anchor, _cls in _UPSTREAM:
    register(PassInfo(_arg, _summary, None, anchor=_anchor, class_name=_cls, upstream=True, source="upstream MLIR / StableHLO / MHLO"))
