"""The two pipeline spines, as data (seed 004, "The Ordered MHLO Pipeline").

``MHLO_SPINE`` lists the 32 steps of ``registerMHLOPasses`` in the seed's
order with their gate (a :class:`~hilo_mlir.driver.config.CompileConfig` field, or
None for a step with no ``if`` of its own). ``STABLEHLO_SPINE`` is the same
skeleton with the StableHLO twins and the five insertions 1a, 1b, 14a, 26a,
26b. SixtyFourHack (25) sits right before PenguinizeIO (26): the seed
prepends it there.

:func:`spine_entries` is the whole spine of a config as data (every step,
with its label, gate and whether it runs), :func:`build_spine` the steps
``hilo2penguin`` runs (the one translation of a config into steps; it logs
``MHLO Lowering Enabled`` / ``StableHLO Lowering Enabled`` at info level, as the
binary's ``registerMLIRCompilePasses`` does when it picks the spine), :func:`pipeline_text` the one textual pipeline
``--dump-pass-pipeline`` prints (``refine-shapes`` with ``--input-types``, the import step, every
option), and
:func:`list_spine` the ``--list-spine`` table.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from hilo_mlir import passes
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.driver.spine_edits import apply_edits, edited_rows
from hilo_mlir.passmanager.steps import Step, step_for
from hilo_mlir.support.diagnostics import HiloError

log = logging.getLogger("hilo_mlir")


@dataclass(frozen=True)
class SpineStep:
    """One step of a spine: seed ordinal, pass argument, gate field (None = unconditional)."""

    ordinal: str
    argument: str
    gate: str | None = None


MHLO_SPINE: tuple[SpineStep, ...] = (
    SpineStep("1", "canonicalize", "canonicalize"),
    SpineStep("2", "neuron-control-dep-tuple-simplifier", "control_dep_tuple_simplifier"),
    SpineStep("3", "collective-broadcast-to-all-gather"),
    SpineStep("4", "verify-supported-ops", "verify_supported_ops"),
    SpineStep("5", "canonicalize-conv", "canonicalize_conv"),
    SpineStep("6", "lower-complex", "lower_complex"),
    SpineStep("7", "lower-complex-extra", "lower_complex_extra"),
    SpineStep("8", "remove-opt-barriers", "remove_optimization_barriers"),
    SpineStep("9", "identify-cross-pass-tensors", "cross_pass_tensors"),
    SpineStep("10", "rematerialize", "cross_pass_tensors"),
    SpineStep("11", "coalesce-collective-ops", "coalesce_collectives"),
    SpineStep("12", "convert-fs-pattern-to-custom-calls", "fs_pattern"),
    SpineStep("13", "remove-dead-values"),
    SpineStep("14", "neuron-inst-combine"),
    SpineStep("15", "neuron-op-fusion", "op_fusion"),
    SpineStep("16", "fold-iota", "fold_iota"),
    SpineStep("17", "schedule-postorder", "schedule_postorder"),
    SpineStep("18", "analyze-schedule", "analyze_schedule"),
    SpineStep("19", "replace-token-type-with-u8"),
    SpineStep("20", "scatter-motion"),
    SpineStep("21", "schedule-fusion", "schedule_fusion"),
    SpineStep("22", "hoist-compute", "hoist_compute"),
    SpineStep("23", "memcast-motion", "memcast_motion"),
    SpineStep("24", "prune-functions"),
    SpineStep("25", "sixty-four-hack", "sixty_four_hack"),
    SpineStep("26", "penguinize-io"),
    SpineStep("27", "canonicalize-for-tensorizer"),
    SpineStep("28", "tensorizer-legalization"),
    SpineStep("29", "legalize-alias"),
    SpineStep("30", "verify-aliasing", "verify_aliasing"),
    SpineStep("31", "mlir-instruction-histogram"),
    SpineStep("32", "mhlo-to-py-penguin"),
)

#: Passes that are one symbol for both dialects and keep one name (DESIGN.md "The pipeline").
SHARED_ARGUMENTS = frozenset(
    {
        "canonicalize",
        "remove-opt-barriers",
        "neuron-inst-combine",
        "mlir-instruction-histogram",
        "collective-broadcast-to-all-gather",
        "remove-dead-values",
    }
)

_INSERTIONS = {
    # insert after ordinal -> steps
    "1": (SpineStep("1a", "hlo-legalize-to-stablehlo"), SpineStep("1b", "convert-custom-call-to-all-reduce")),
    "14": (SpineStep("14a", "fusion-to-composite"),),
    "26": (SpineStep("26a", "legalize-sra"), SpineStep("26b", "legalize-scatter")),
}


#: StableHLO twins the binary does not spell ``stablehlo-<MHLO argument>`` (seed 004's StableHLO listing).
_TWIN_ARGUMENTS = {"mhlo-to-py-penguin": "stablehlo-to-py-penguin", "canonicalize-for-tensorizer": "canonicalize-for-penguin"}


def _twin(arg: str) -> str:
    if arg in SHARED_ARGUMENTS:
        return arg
    if arg in _TWIN_ARGUMENTS:
        return _TWIN_ARGUMENTS[arg]
    return "stablehlo-" + arg


def _build_stablehlo_spine() -> tuple[SpineStep, ...]:
    out = []
    for s in MHLO_SPINE:
        out.append(SpineStep(s.ordinal, _twin(s.argument), s.gate))
        out.extend(_INSERTIONS.get(s.ordinal, ()))
    return tuple(out)


STABLEHLO_SPINE: tuple[SpineStep, ...] = _build_stablehlo_spine()


#: Fixed options of spine steps. Step 1a keeps ``mhlo.fusion`` ops (converting
#: their bodies) instead of refusing them, so that step 14a
#: ``fusion-to-composite`` can turn fusions already in the input into
#: composites (DESIGN.md decision 6); without it the upstream bridge rejects
#: every ``mhlo.fusion`` before 14a runs.
_STEP_OPTIONS = {"hlo-legalize-to-stablehlo": {"allow_xla_features": True}}


def _op_fusion_options(config: CompileConfig) -> dict[str, object]:
    return {
        "fuse_dot_logistic": config.fuse_dot_logistic,
        "general_elementwise_fusion": config.general_elementwise_fusion,
    }


def step_options(argument: str, config: CompileConfig) -> dict[str, object]:
    """The options spine step ``argument`` runs with under ``config`` (the one place a config becomes options)."""
    if argument.endswith("neuron-op-fusion"):
        return _op_fusion_options(config)
    if argument.endswith("to-py-penguin") and config.model_type != "generic":
        return {"model_type": config.model_type}
    return dict(_STEP_OPTIONS.get(argument, {}))


# --------------------------------------------------------------------------- the spine as data


@dataclass(frozen=True)
class SpineEntry:
    """One step of a config's spine: its label (seed ordinal, or ``pre`` for the pre-passes),
    pass argument, gate field (None = unconditional), and whether it runs."""

    label: str
    argument: str
    gate: str | None
    enabled: bool


#: passes the driver runs before the spine, with their CompileConfig gate
PRE_PASSES = (("call-inliner", "call_inliner"), ("raise-logistic", "raise_logistic"))


def spine_entries(config: CompileConfig) -> list[SpineEntry]:
    """Every step of ``config``'s spine in order, the pre-passes first, gated-off ones included."""
    out = [SpineEntry("pre", arg, gate, bool(getattr(config, gate))) for arg, gate in PRE_PASSES]
    for s in STABLEHLO_SPINE if config.stablehlo else MHLO_SPINE:
        out.append(SpineEntry(s.ordinal, s.argument, s.gate, s.gate is None or bool(getattr(config, s.gate))))
    return out


def _step(entry: SpineEntry, config: CompileConfig) -> Step:
    return step_for(entry.argument, **step_options(entry.argument, config))


def _checked(entries: list[SpineEntry], skip_missing: bool) -> list[SpineEntry]:
    """``entries`` whose pass is registered; an enabled spine step that is not is an error (or left out, ``skip_missing``)."""
    known = {p.argument for p in passes.all_passes(plugins=False)}  # a plugin's pass is never a spine step
    out = []
    for e in entries:
        if e.label != "pre" and e.enabled and e.argument not in known:
            if skip_missing:
                continue
            raise HiloError(f"spine step {e.label} '{e.argument}' is not registered")
        out.append(e)
    return out


def _mhlo_names(config: CompileConfig) -> dict:
    """Entry index -> the MHLO argument of that StableHLO step (so ``neuron-op-fusion`` names its twin)."""
    if not config.stablehlo:
        return {}
    by_ordinal = {s.ordinal: s.argument for s in MHLO_SPINE}
    return {i: by_ordinal[e.label] for i, e in enumerate(spine_entries(config)) if e.label in by_ordinal}


def build_spine(config: CompileConfig, skip_missing: bool = False) -> list[Step]:
    """The steps ``hilo2penguin`` runs for ``config`` after its import step: the enabled pre-passes,
    then the spine, with ``config.pass_edits`` applied (:mod:`hilo_mlir.driver.spine_edits`).

    The one translation of a :class:`CompileConfig` into steps: the compile, the
    dumped pipeline and ``--list-spine`` all read it.

    Raises:
        HiloError: an edit names an unknown step or pass, or a step whose gate is off;
            an enabled spine step is not registered (unless ``skip_missing``).
    """
    log.info("StableHLO Lowering Enabled" if config.stablehlo else "MHLO Lowering Enabled")
    entries = _checked(spine_entries(config), skip_missing)
    return apply_edits(entries, lambda e: _step(e, config), tuple(config.pass_edits), _mhlo_names(config))


def pipeline_steps(config: CompileConfig) -> list[Step]:
    """Everything ``hilo2penguin`` runs for ``config``, in order: ``refine-shapes{input-types=...}`` when
    ``config.input_types`` is given, the import step, then :func:`build_spine`."""
    refine = [step_for("refine-shapes", input_types=config.input_types)] if config.input_types else []
    return [*refine, import_step(), *build_spine(config)]


def import_step() -> Step:
    """The driver's import step as a pass (``hilo-import``: validation, sharding, the bridge to mhlo)."""
    return step_for("hilo-import")


def pipeline_text(config: CompileConfig) -> str:
    """``builtin.module(hilo-import,...)``: everything ``hilo2penguin`` runs for ``config``
    (:func:`pipeline_steps`), every option spelled out, as ``hilo-opt --pass-pipeline`` accepts it."""
    return "builtin.module(" + ",".join(s.text(full=True) for s in pipeline_steps(config)) + ")"


def _gate_text(e: SpineEntry) -> str:
    if e.gate is None:
        return "-"
    return f"{e.gate.replace('_', '-')}={'on' if e.enabled else 'off'}"


def list_spine(config: CompileConfig) -> str:
    """The ``--list-spine`` table: step label, pass (with its options when it runs), gate.

    A step whose gate is off is shown in parentheses; with ``config.pass_edits``,
    an inserted pass has the label ``+`` and the gate column says where it
    was placed, a replaced or disabled step says so.
    """
    rows = [("step", "pass", "gate")]
    entries = spine_entries(config)
    edited: dict = {}
    for e, s, note in edited_rows(entries, lambda e: _step(e, config), tuple(config.pass_edits), _mhlo_names(config)):
        edited.setdefault(id(e), []).append((s, note))
    for e in entries:
        if not e.enabled:
            rows.append((e.label, f"({e.argument})", _gate_text(e)))
            continue
        for s, note in edited[id(e)]:
            if note == "":
                rows.append((e.label, s.text(), _gate_text(e)))
            elif note == "disabled":
                rows.append((e.label, f"({e.argument})", "disabled"))
            else:
                rows.append(("+" if not note.startswith("replaces") else e.label, s.text(), note))
    width = max(len(r[1]) for r in rows)
    return "".join(f"{r[0]:<5} {r[1]:<{width}}  {r[2]}\n" for r in rows)
