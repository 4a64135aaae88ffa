"""The main job: compile one loaded module to a Penguin program (``hilo2penguin``'s core).

``compile_file`` / ``compile_module`` / ``compile_loaded``: an mhlo or
stablehlo module (text or bytecode) or a serialized ``HloModuleProto`` goes
in; one :class:`~hilo_mlir.passmanager.pipeline.Pipeline` runs the steps of
:func:`hilo_mlir.driver.spine.pipeline_steps` -- ``refine-shapes`` when input types are given, the import step
``hilo-import`` (:mod:`hilo_mlir.passes.importing.stages`: validation, the
sharding strip, the printability check, the bridge to mhlo), then the spine
chosen by ``config.stablehlo`` -- and the terminal printer's Penguin Python
source comes back. What runs is what ``hilo2penguin --dump-pass-pipeline``
prints, by construction.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.driver.frontend.loading import LoadedModule, detect_dialect, load_module  # noqa: F401 (public API)
from hilo_mlir.passmanager.pipeline import CompileOutputs, Instrumentation, Pipeline, PipelineEnv, Step, gc_paused
from hilo_mlir.support.diagnostics import NOT_UTF8_MESSAGE, HiloError, capture_diagnostics, not_utf8

if TYPE_CHECKING:
    from hilo_mlir.analysis.census import Census
    from hilo_mlir.fusion.report import FusionReport

__all__ = [
    "LoadedModule",
    "PenguinSource",
    "build_spine",
    "compile_file",
    "compile_loaded",
    "compile_module",
    "detect_dialect",
    "input_census",
    "load_module",
    "to_mhlo",
]


class PenguinSource(str):
    """The Penguin Python source (a ``str``) plus what the compile measured.

    Attributes:
        statistics: ``{pass name: {statistic: count}}`` from our passes
            (e.g. NeuronOpFusion's ``clusters-DotLogistic``).
        files: extra files that belong beside ``penguin.py`` (``{name: bytes}``,
            e.g. large constants as ``.npy``).
        timings: ``[(pass, seconds)]``.
        verify_seconds: wall seconds of the verifier runs of the spine.
        fusion_report: the :class:`~hilo_mlir.fusion.report.FusionReport` when one was asked for, else None.
        log: the passes' debug lines (``hilo2penguin --debug``).
        cache: what ``hilo_mlir.jax.compile``'s compile cache did: ``"local"`` / ``"shared"``
            (a hit), ``"miss"``, ``"checked"`` (a hit compared with a compile); absent without a cache.
    """

    statistics: dict
    files: dict
    timings: list
    verify_seconds: float = 0.0
    fusion_report: FusionReport | None = None
    log: list
    cache: str


def input_census(loaded: LoadedModule) -> Census:
    """:func:`hilo_mlir.passes.importing.stages.input_census`."""
    from hilo_mlir.passes.importing import stages

    return stages.input_census(loaded)


def to_mhlo(loaded: LoadedModule, instrumentation: Instrumentation | None = None, census: Census | None = None) -> Census:
    """The import step's bridge alone (:func:`hilo_mlir.passes.importing.stages.to_mhlo`): bring ``loaded`` to mhlo in place."""
    from hilo_mlir.passes.importing import stages

    return stages.to_mhlo(loaded, instrumentation.on_pass_start if instrumentation is not None else None, census)


def build_spine(config: CompileConfig, skip_missing: bool = False) -> list[Step]:
    """The steps ``hilo2penguin`` runs for ``config`` after its import step (pre-passes, then the spine).

    Every spine step is a registered pass, so a missing one is an error
    (``skip_missing=True`` only for experiments with a partial registry).
    """
    from hilo_mlir.driver import spine

    return spine.build_spine(config, skip_missing=skip_missing)


def resolve_config(config: CompileConfig | str | None, spine: str) -> CompileConfig:
    """``config`` (a :class:`CompileConfig`, a preset name or None) for ``spine``.

    Raises:
        HiloError: an unknown preset or spine, or a ``config`` of another type.
    """
    if isinstance(config, str):
        try:
            config = CompileConfig.preset(config)
        except ValueError as e:
            raise HiloError(str(e)) from None
    elif config is not None and not isinstance(config, CompileConfig):
        raise HiloError(f"config must be a CompileConfig or a preset name ('default', 'all'), not {type(config).__name__}")
    config = config or CompileConfig()
    if spine not in ("mhlo", "stablehlo"):
        raise HiloError(f"unknown spine '{spine}' (expected 'mhlo' or 'stablehlo')")
    return config.replace(stablehlo=(spine == "stablehlo") or config.stablehlo)


def compile_loaded(
    loaded: LoadedModule,
    config: CompileConfig,
    instrumentation: Instrumentation | None = None,
    input_types: str | Sequence[str] | None = None,
    fusion_report: str | None = None,
) -> PenguinSource:
    """Run the driver's stages and the spine on an already-loaded module; returns the Penguin source.

    ``input_types`` (a comma-separated string or a list, one static tensor
    type per argument of ``main``; else ``config.input_types``): specialize a
    shape-polymorphic module first: the pipeline starts with
    ``refine-shapes{input-types=...}`` (:mod:`hilo_mlir.passes.importing.refine_shapes`).

    ``fusion_report``: a folder to write ``fusion_report.json`` and
    ``fusion_report.html`` to (every cluster the fusion passes formed and every
    candidate they refused; ``docs/fusion_report.md``), after a successful
    compile; the report is also ``PenguinSource.fusion_report``.

    Order: one pipeline (:func:`hilo_mlir.driver.spine.pipeline_steps`, what
    ``--dump-pass-pipeline`` prints): ``refine-shapes`` when input types are
    given, ``hilo-import`` (validation before any rewrite, the sharding strip,
    the printability check, the stablehlo -> mhlo bridge), then the spine.
    ``instrumentation.on_pass_start`` (if set) hears ``refine-shapes``,
    ``hilo-import``, ``validate-input``, the bridge's passes and every spine
    pass before it starts (the batch engine uses it to name the pass a crash
    happened in).

    Raises:
        HiloError: a refused input, a failing pass or verifier, no printer.
    """
    try:
        return _compile_loaded(loaded, config, instrumentation, input_types, fusion_report)
    except (RuntimeError, UnicodeDecodeError) as e:  # before the spine (the pipeline names its own passes)
        if not not_utf8(e):
            raise
        raise HiloError(NOT_UTF8_MESSAGE, filename=loaded.filename) from None


def _compile_loaded(
    loaded: LoadedModule,
    config: CompileConfig,
    instrumentation: Instrumentation | None,
    input_types: str | Sequence[str] | None,
    fusion_report: str | None,
) -> PenguinSource:
    from hilo_mlir.driver import spine

    with gc_paused():
        config = config.with_input_types(input_types)
        return _run_pipeline(loaded, config, spine.pipeline_steps(config), instrumentation, fusion_report)


def _gates(config: CompileConfig) -> dict[str, bool]:
    return {g: bool(getattr(config, g)) for g in CompileConfig.gate_names()}


def _run_pipeline(
    loaded: LoadedModule,
    config: CompileConfig,
    steps: list[Step],
    instrumentation: Instrumentation | None,
    fusion_report: str | None = None,
) -> PenguinSource:
    instr = instrumentation if instrumentation is not None else Instrumentation()
    env = PipelineEnv(filename=loaded.filename, debug=instr.debug, gates=_gates(config), on_pass_start=instr.on_pass_start)
    outputs = CompileOutputs()
    report: FusionReport | None = None
    if fusion_report is not None:
        from hilo_mlir.fusion import report as _fr

        report = outputs.fusion_report = _fr.FusionReport(loaded.filename)
    if config.fusion_fuel is not None:
        from hilo_mlir.fusion.fuel import FusionFuel

        outputs.fusion_fuel = FusionFuel(config.fusion_fuel)
    pipe = Pipeline(
        steps,
        instrumentation=instr,
        env=env,
        outputs=outputs,
        verify_each=config.verify_each,
        max_pass_index=config.max_pass_index,
    )
    # Diagnostics that passes emit (e.g. one per unsupported op) are kept as
    # notes of the HiloError instead of being printed raw by MLIR.
    with loaded.context, capture_diagnostics(loaded.context, loaded.filename) as diags:
        try:
            pipe.run(loaded.module)
        except HiloError as e:
            e.notes = [d for d in diags if d.message not in e.message] + list(e.notes)
            e.log = list(loaded.import_log) + list(pipe.log)  # the import's and the passes' debug lines up to the failure
            raise
        except MemoryError:
            raise HiloError(f"out of memory while running pass '{pipe.last_pass}'") from None
    if outputs.dialect:
        loaded.dialect = outputs.dialect
    src = outputs.source
    if src is None:
        raise HiloError("the pipeline did not end in a printer pass")
    out = PenguinSource(src)
    out.statistics = {k: dict(v) for k, v in pipe.stats.items()}
    out.files = dict(outputs.files)
    out.timings = list(pipe.timings)
    out.verify_seconds = sum(t for _, t in pipe.verify_timings)
    out.fusion_report = report
    if report is not None and fusion_report is not None:
        from hilo_mlir.fusion import report as _fr

        _fr.write_report(report, fusion_report)
    out.log = list(loaded.import_log) + list(pipe.log)
    return out


def compile_module(
    text: str | bytes,
    config: CompileConfig | None = None,
    spine: str = "mhlo",
    filename: str = "<string>",
    input_types: str | Sequence[str] | None = None,
    fusion_report: str | None = None,
) -> PenguinSource:
    """Compile a module (mhlo or stablehlo) to Penguin Python.

    Args:
        text: the module: MLIR text, MLIR bytecode, or a StableHLO portable
            artifact (``jax.export``'s ``mlir_module_serialized``; detected by content).
        config: the gates; default :class:`CompileConfig` (the binary's defaults).
        spine: ``"mhlo"`` or ``"stablehlo"``.
        filename: used in diagnostics and ``DebugLocation``.
        input_types: static types for ``main``'s arguments (``"tensor<4x32xf32>,..."``
            or a list) to specialize a shape-polymorphic module.
        fusion_report: a folder for the fusion report (see :func:`compile_loaded`).

    Returns:
        :class:`PenguinSource` (a ``str``), with ``.statistics`` and ``.files``.

    Raises:
        HiloError: parse errors, pass failures, verifier failures.
    """
    from hilo_mlir.support.entry_point import ENTRY_POINT, entry_point

    cfg = resolve_config(config, spine)
    with entry_point("api" if ENTRY_POINT.get() == "hilo2penguin" else ENTRY_POINT.get()):  # hj.compile keeps "jax"
        return compile_loaded(load_module(text, filename), cfg, input_types=input_types, fusion_report=fusion_report)


def compile_file(
    path: str | os.PathLike,
    config: CompileConfig | None = None,
    spine: str = "mhlo",
    input_types: str | Sequence[str] | None = None,
    fusion_report: str | None = None,
) -> PenguinSource:
    """Compile a ``.mlir`` file (text, bytecode, a portable artifact), a serialized ``HloModuleProto`` (``.pb``)
    or HLO text (``HloModule ...``, e.g. an XLA dump; detected by content).

    ``input_types``, ``fusion_report``: as for :func:`compile_module`.

    ``fusion_report``: a folder for the fusion report (see :func:`compile_loaded`).

    Raises:
        HiloError: missing/empty/unreadable file, ``NCC_DRV001`` for a bad proto,
            and every error of :func:`compile_module`.
    """
    from hilo_mlir.support.io import read_input

    path = os.fspath(path)
    cfg = resolve_config(config, spine)
    data = read_input(path)
    from hilo_mlir.support.entry_point import entry_point

    with entry_point("api"):
        return compile_loaded(load_module(data, path), cfg, input_types=input_types, fusion_report=fusion_report)
