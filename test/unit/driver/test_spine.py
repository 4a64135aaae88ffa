"""The two spines (seed 004): the assembled pipelines against the seed's tables, and end-to-end runs.

The expected step lists below are transcribed from seed 004 ("The Ordered MHLO
Pipeline", the 32-step listing of ``registerMHLOPasses``, and "The five
StableHLO-only insertions"), NOT from ``hilo_mlir/driver/spine.py``; argument names
follow DESIGN.md ("Pass arguments of twins": the StableHLO twin is the MHLO
argument with a ``stablehlo-`` prefix, except where seed 004 spells it:
``canonicalize-for-penguin`` at step 27; canonicalize,
remove-opt-barriers (seed 004's ``--remove-opt-barriers``), neuron-inst-combine, mlir-instruction-histogram
and the collective-broadcast rewrite keep one name; remove-dead-values is
upstream). Each entry is (ordinal, argument, gate) with gate None for a step
without its own ``if`` in the seed's listing. The project's own pre-passes
(``PROJECT_PRE_PASSES``, not in the seed) come before step 1 when their gate
is on.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys

import pytest
from conftest import CORPUS, corpus_path

from hilo_mlir.passmanager import registry
from hilo_mlir.tools import hilo2penguin

#: The spine tests run with the analysis checking mode on (see conftest.py).
pytestmark = pytest.mark.check_analyses

# (ordinal, argument, CompileConfig gate or None) -- seed 004 registerMHLOPasses @0x1ee12f0
SEED_MHLO = [
    ("1", "canonicalize", "canonicalize"),  # if cfg[0x119]
    ("2", "neuron-control-dep-tuple-simplifier", "control_dep_tuple_simplifier"),  # if cfg[0x200]
    ("3", "collective-broadcast-to-all-gather", None),
    ("4", "verify-supported-ops", "verify_supported_ops"),  # cfg[0x136]
    ("5", "canonicalize-conv", "canonicalize_conv"),  # cfg[0x12F]
    ("6", "lower-complex", "lower_complex"),  # cfg[0x11A], default on
    ("7", "lower-complex-extra", "lower_complex_extra"),  # cfg[0x11B]
    ("8", "remove-opt-barriers", "remove_optimization_barriers"),  # cfg[0x11C]
    ("9", "identify-cross-pass-tensors", "cross_pass_tensors"),  # cfg[0x116]
    ("10", "rematerialize", "cross_pass_tensors"),  # "same gate as 9"
    ("11", "coalesce-collective-ops", "coalesce_collectives"),  # cfg[0x117]
    ("12", "convert-fs-pattern-to-custom-calls", "fs_pattern"),  # cfg[0x11F]
    ("13", "remove-dead-values", None),
    ("14", "neuron-inst-combine", None),
    ("15", "neuron-op-fusion", "op_fusion"),  # cfg[0x120]
    ("16", "fold-iota", "fold_iota"),  # cfg[0x118]
    ("17", "schedule-postorder", "schedule_postorder"),  # cfg[0x130]
    ("18", "analyze-schedule", "analyze_schedule"),  # cfg[0x134]
    ("19", "replace-token-type-with-u8", None),
    ("20", "scatter-motion", None),
    ("21", "schedule-fusion", "schedule_fusion"),  # cfg[0x135]
    ("22", "hoist-compute", "hoist_compute"),  # cfg[0xE9]
    ("23", "memcast-motion", "memcast_motion"),  # cfg[0xE5]
    ("24", "prune-functions", None),
    ("25", "sixty-four-hack", "sixty_four_hack"),  # prepended before 26 when qword_9C71338 == 0 (default)
    ("26", "penguinize-io", None),
    ("27", "canonicalize-for-tensorizer", None),
    ("28", "tensorizer-legalization", None),
    ("29", "legalize-alias", None),
    ("30", "verify-aliasing", "verify_aliasing"),  # cfg[0x13C]
    ("31", "mlir-instruction-histogram", None),
    ("32", "mhlo-to-py-penguin", None),
]

# seed 004 registerStableHLOPasses @0x1ee2120: twins at the same ordinals and gates + 1a, 1b, 14a, 26a, 26b.
SEED_STABLEHLO = [
    ("1", "canonicalize", "canonicalize"),
    ("1a", "hlo-legalize-to-stablehlo", None),
    ("1b", "convert-custom-call-to-all-reduce", None),
    ("2", "stablehlo-neuron-control-dep-tuple-simplifier", "control_dep_tuple_simplifier"),
    ("3", "collective-broadcast-to-all-gather", None),
    ("4", "stablehlo-verify-supported-ops", "verify_supported_ops"),
    ("5", "stablehlo-canonicalize-conv", "canonicalize_conv"),
    ("6", "stablehlo-lower-complex", "lower_complex"),
    ("7", "stablehlo-lower-complex-extra", "lower_complex_extra"),
    ("8", "remove-opt-barriers", "remove_optimization_barriers"),
    ("9", "stablehlo-identify-cross-pass-tensors", "cross_pass_tensors"),
    ("10", "stablehlo-rematerialize", "cross_pass_tensors"),
    ("11", "stablehlo-coalesce-collective-ops", "coalesce_collectives"),
    ("12", "stablehlo-convert-fs-pattern-to-custom-calls", "fs_pattern"),
    ("13", "remove-dead-values", None),
    ("14", "neuron-inst-combine", None),
    ("14a", "fusion-to-composite", None),
    ("15", "stablehlo-neuron-op-fusion", "op_fusion"),
    ("16", "stablehlo-fold-iota", "fold_iota"),
    ("17", "stablehlo-schedule-postorder", "schedule_postorder"),
    ("18", "stablehlo-analyze-schedule", "analyze_schedule"),
    ("19", "stablehlo-replace-token-type-with-u8", None),
    ("20", "stablehlo-scatter-motion", None),
    ("21", "stablehlo-schedule-fusion", "schedule_fusion"),
    ("22", "stablehlo-hoist-compute", "hoist_compute"),
    ("23", "stablehlo-memcast-motion", "memcast_motion"),
    ("24", "stablehlo-prune-functions", None),
    ("25", "stablehlo-sixty-four-hack", "sixty_four_hack"),
    ("26", "stablehlo-penguinize-io", None),
    ("26a", "legalize-sra", None),
    ("26b", "legalize-scatter", None),
    ("27", "canonicalize-for-penguin", None),
    ("28", "stablehlo-tensorizer-legalization", None),
    ("29", "stablehlo-legalize-alias", None),
    ("30", "stablehlo-verify-aliasing", "verify_aliasing"),
    ("31", "mlir-instruction-histogram", None),
    ("32", "stablehlo-to-py-penguin", None),
]

#: The binary's defaults (DESIGN.md "The pipeline"): only these gates are on.
DEFAULT_ON = {"lower_complex", "sixty_four_hack"}


#: The project's own passes that run before step 1 (not in the seed), in order, with their
#: CompileConfig gate: call-inliner (ours, default on), raise-logistic (issue 3, default off).
PROJECT_PRE_PASSES = [("call-inliner", "call_inliner"), ("raise-logistic", "raise_logistic")]


def expected(table, preset):
    """The project's pre-passes for the preset, then the seed table filtered by the preset's gates."""
    from hilo_mlir.driver.config import CompileConfig

    cfg = CompileConfig.preset(preset)
    pre = [arg for arg, gate in PROJECT_PRE_PASSES if getattr(cfg, gate)]
    return pre + [arg for _, arg, gate in table if gate is None or preset == "all" or gate in DEFAULT_ON]


def dump(capsys, *flags) -> list[str]:
    """The steps that run, as ``--list-spine`` shows them (pass with its non-default options)."""
    rc = hilo2penguin.run(["--list-spine", *flags])
    out = capsys.readouterr().out
    assert rc == 0
    rows = [re.match(r"\S+\s+(.*?)\s{2,}\S+$", ln).group(1) for ln in out.splitlines()[1:]]
    return [r for r in rows if not r.startswith("(")]  # parenthesized: gate off, not run


def _registered() -> set[str]:
    return {p.argument for p in registry.all_passes()}


def _missing() -> list[str]:
    reg = _registered()
    return sorted({a for _, a, _ in SEED_MHLO + SEED_STABLEHLO if a not in reg} | ({a for a, _ in PROJECT_PRE_PASSES} - reg))


def test_seed_tables_are_well_formed():
    # 32 MHLO steps in order; the StableHLO spine is the same skeleton + exactly the five insertions.
    assert [o for o, _, _ in SEED_MHLO] == [str(i) for i in range(1, 33)]
    inserted = [o for o, _, _ in SEED_STABLEHLO if not o.isdigit()]
    assert inserted == ["1a", "1b", "14a", "26a", "26b"]
    assert [o for o, _, _ in SEED_STABLEHLO if o.isdigit()] == [str(i) for i in range(1, 33)]
    # Same gate at every ordinal on both spines; SixtyFourHack right before PenguinizeIO.
    gates = {o: g for o, _, g in SEED_MHLO}
    assert all(gates[o] == g for o, _, g in SEED_STABLEHLO if o.isdigit())
    args = [a for _, a, _ in SEED_MHLO]
    assert args.index("penguinize-io") == args.index("sixty-four-hack") + 1


@pytest.mark.parametrize("spine,table", [("mhlo", SEED_MHLO), ("stablehlo", SEED_STABLEHLO)])
@pytest.mark.parametrize("preset", ["default", "all"])
def test_dump_pass_pipeline_matches_seed(capsys, spine, table, preset):
    lines = dump(capsys, "--spine", spine, "--preset", preset)
    args = [ln.split("{", 1)[0] for ln in lines]
    assert args == expected(table, preset)
    if preset == "all":
        fusion = [ln for ln in lines if ln.split("{", 1)[0].endswith("neuron-op-fusion")]
        assert fusion == [fusion[0].split("{")[0] + "{fuse-dot-logistic=true general-elementwise-fusion=true}"]
    else:
        # Only step 1a carries a fixed option (keeps input mhlo.fusion ops for step 14a).
        assert [ln for ln in lines if "{" in ln] == (["hlo-legalize-to-stablehlo{allow-xla-features=true}"] if spine == "stablehlo" else [])


def test_dump_pass_pipeline_single_gates(capsys):
    # One gate flipped on the default: exactly its step(s) appear, at the seed position.
    base = dump(capsys)
    with_9 = dump(capsys, "--enable-cross-pass-tensors")
    i = with_9.index("identify-cross-pass-tensors")
    assert with_9[i + 1] == "rematerialize" and with_9[:i] + with_9[i + 2 :] == base
    no64 = dump(capsys, "--disable-sixty-four-hack")
    assert "sixty-four-hack" in base and no64 == [a for a in base if a != "sixty-four-hack"]
    va = dump(capsys, "--spine", "stablehlo", "--enable-verify-aliasing")
    i = va.index("stablehlo-verify-aliasing")
    assert va[i - 1] == "stablehlo-legalize-alias" and va[i + 1] == "mlir-instruction-histogram"


def test_every_spine_pass_is_registered():
    assert _missing() == []
    from hilo_mlir.driver import compiler
    from hilo_mlir.driver.config import CompileConfig

    # Once all exist the spine must not skip anything: build it strictly.
    for stable in (False, True):
        cfg = CompileConfig.preset("all").replace(stablehlo=stable)
        strict = [s.argument for s in compiler.build_spine(cfg, skip_missing=False)]
        assert strict == expected(SEED_STABLEHLO if stable else SEED_MHLO, "all")


# --------------------------------------------------------------------------- end to end on the JAX corpus


def _jax_modules(include_large: bool):
    d = CORPUS / "jax"
    if not d.is_dir():
        return []
    names = sorted(p.name for p in d.iterdir() if p.name.endswith((".mlir", ".pb")))
    return [n for n in names if include_large == ("L512" in n)]


def _compile_all_ways(path):
    from hilo_mlir.driver import compiler
    from hilo_mlir.driver.config import CompileConfig

    for spine in ("mhlo", "stablehlo"):
        for preset in ("default", "all"):
            cfg = CompileConfig.preset(preset).replace(stablehlo=spine == "stablehlo")
            loaded = compiler.load_module(open(path, "rb").read(), str(path))
            src = compiler.compile_loaded(loaded, cfg)  # Pipeline.run verifies after every step
            tree = ast.parse(src)
            assert any(isinstance(n, ast.Call) and getattr(n.func, "attr", "") == "markInput" for n in ast.walk(tree))
            with loaded.context:
                from hilo_mlir.ir.utils import find_main

                main = find_main(loaded.module.operation)
                # Step 26 ran: the I/O contract the printer reads is on main.
                for key in ("input_names", "slowChangingIns", "slowChangingOuts", "output_names"):
                    assert key in main.attributes, (path.name, spine, preset, key)


@pytest.mark.parametrize("name", _jax_modules(False) or ["<corpus missing>"])
def test_both_spines_on_jax_corpus(name):
    path = corpus_path("jax", name)
    _compile_all_ways(path)


@pytest.mark.slow
@pytest.mark.parametrize("name", _jax_modules(True) or ["<corpus missing>"])
def test_both_spines_on_large_jax_corpus(name):
    path = corpus_path("jax", name)
    _compile_all_ways(path)


# --------------------------------------------------------------------------- the HLO-proto entry (NCC_DRV001)


def test_hilo2penguin_on_hlo_proto(tmp_path):
    pb = corpus_path("jax", "decoder_layer.hlo.pb")
    out = tmp_path / "out"
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", str(pb), "-o", str(out)],
        capture_output=True,
        text=True,
        cwd=str(tmp_path),
        env={**os.environ, "PYTHONPATH": os.getcwd()},
    )
    assert r.returncode == 0, r.stderr
    src = (out / "penguin.py").read_text()
    ast.parse(src)
    # decoder_layer's entry computation has 8 parameters and one result.
    assert src.count(".markInput(") == 8 and src.count(".markOutput(") == 1


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_hlo_proto_failure_is_ncc_drv001(tmp_path, spine):
    bad = tmp_path / "bad.hlo.pb"
    bad.write_bytes(b"\x0a\x05hello\xff\xff not a proto")
    r = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin", str(bad), "-o", str(tmp_path / "o"), "--spine", spine],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 1
    # what failed: the bytes are not an HloModuleProto (not a conversion to MHLO, which the stablehlo spine never runs)
    assert r.stderr == (
        f"{bad}: error: NCC_DRV001: the input is not a serialized XLA HloModuleProto (a '.pb' file is read as one): "
        "its bytes do not parse as that message\n"
    )
    assert "Traceback" not in r.stderr and not (tmp_path / "o" / "penguin.py").exists()
