"""The main job: compile one loaded module to a Penguin program (``hilo2penguin``'s core).

``compile_file`` / ``compile_module`` / ``compile_loaded``: an mhlo or
stablehlo module (text or bytecode) or a serialized ``HloModuleProto`` goes
in; the driver's stages run in order --

1. :func:`~hilo_mlir.driver.frontend.validation.validate_input` (no rewrite before it),
2. :func:`~hilo_mlir.driver.frontend.sharding.strip_sharding`,
3. :func:`~hilo_mlir.driver.frontend.printability.check_printable`: every op that
   would reach the printer and that it cannot emit, each a located error;
4. the bridge :func:`to_mhlo` (chlo decomposition, stablehlo -> mhlo: the
   binary's importer always produces mhlo; the StableHLO spine bridges back
   at its step 1a),

then the spine chosen by ``config.stablehlo`` runs with the verifier after
every pass, and the terminal printer's Penguin Python source comes back.

The input census (:func:`input_census`: one walk of the module, with every
value type and the ops holding sharding attributes) is taken once per
:func:`compile_loaded` call and lives in that call only: the stages before
the spine share it, a stage that changes ops drops it (the sharding strip
when it removed something, the bridge when it ran), and what is left is
handed to the spine's :class:`~hilo_mlir.passmanager.pipeline.Pipeline`, which owns it
from then on.
"""

from __future__ import annotations

import os

from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.driver.frontend.loading import LoadedModule, detect_dialect, load_module  # noqa: F401 (public API)
from hilo_mlir.driver.frontend.printability import UnprintableOps, check_printable  # noqa: F401 (public API)
from hilo_mlir.driver.frontend.sharding import SHARDING_ATTRS, shard_map_to_per_device, strip_sharding  # noqa: F401 (public API)
from hilo_mlir.driver.frontend.validation import entry_function, validate_input  # noqa: F401 (public API)
from hilo_mlir.passmanager.pipeline import Instrumentation, Pipeline, gc_paused, step_for
from hilo_mlir.support.diagnostics import NOT_UTF8_MESSAGE, HiloError, capture_diagnostics, not_utf8, out_of_memory

__all__ = [
    "PenguinSource",
    "LoadedModule",
    "load_module",
    "compile_loaded",
    "compile_module",
    "compile_file",
    "build_spine",
    "validate_input",
    "strip_sharding",
    "to_mhlo",
    "input_census",
    "detect_dialect",
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
    """

    statistics: dict
    files: dict
    timings: list
    verify_seconds: float = 0.0
    fusion_report = None
    log: list


def input_census(loaded: LoadedModule):
    """A fresh :class:`~hilo_mlir.analysis.census.Census` of ``loaded.module`` as it is now: one walk, with types and sharding holders.

    What :func:`compile_loaded` takes once for its stages before the spine
    (dialect detection, validation, the marker protection, the sharding
    strip, the bridge's chlo check). It holds op handles: it is valid only
    until the module changes, and never kept beyond one compile.
    """
    from hilo_mlir.analysis.census import Census

    return Census(loaded.module.operation, with_types=True, attr_names=SHARDING_ATTRS)


def _has_chlo(census) -> bool:
    return any(n.startswith("chlo.") for n in census.names)


#: The upstream decomposition of chlo ops into stablehlo ops (run by the bridge when chlo is present).
CHLO_LEGALIZE = "func.func(chlo-legalize-to-stablehlo)"


def to_mhlo(loaded: LoadedModule, instrumentation: Instrumentation | None = None, census=None):
    """Bring the module to mhlo in place: the driver's bridge before the spine.

    * ``chlo`` ops (JAX emits them for ``erf``, ``lgamma``, ``top_k`` ...) are
      first decomposed into stablehlo ops by the upstream
      ``chlo-legalize-to-stablehlo`` (semantics-preserving; the printers only
      know mhlo/stablehlo ops);
    * stablehlo (or mixed) modules then go through ``stablehlo-legalize-to-hlo``.

    Args:
        loaded: the module; ``loaded.dialect`` is updated when it bridged.
        instrumentation: its ``on_pass_start`` hears the bridge's passes.
        census: the census of the module as it is now (default: take one).

    Returns:
        The census of the module after the bridge: ``census`` itself when
        nothing ran, else a fresh one (names only; types taken lazily).
    """
    from hilo_mlir.passmanager.pipeline import Step

    instr = None
    if instrumentation is not None and getattr(instrumentation, "on_pass_start", None):
        instr = Instrumentation(on_pass_start=instrumentation.on_pass_start)
    steps = []
    with loaded.context:
        if census is None:
            census = input_census(loaded)
        if _has_chlo(census):
            steps.append(Step(None, "chlo-legalize-to-stablehlo", cpp_text=CHLO_LEGALIZE))
    if steps or loaded.dialect in ("stablehlo", "mixed"):
        steps.append(step_for("stablehlo-legalize-to-hlo"))
    if not steps:
        return census
    with loaded.context:
        # the input census serves the bridge's own checks before its first pass; the passes then change the module
        Pipeline(steps, instrumentation=instr).run(loaded.module, census=census)
    from hilo_mlir.analysis.census import Census

    census = Census(loaded.module.operation)  # the spine starts from it
    loaded.dialect = detect_dialect(loaded.module, census)
    return census


def build_spine(config: CompileConfig, skip_missing: bool = False):
    """The steps ``hilo2penguin`` runs for ``config`` (pre-passes, then the spine).

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
    input_types=None,
    fusion_report: str | None = None,
) -> PenguinSource:
    """Run the driver's stages and the spine on an already-loaded module; returns the Penguin source.

    ``input_types`` (a comma-separated string or a list, one static tensor
    type per argument of ``main``): specialize a shape-polymorphic module
    first (:func:`~hilo_mlir.driver.frontend.refine.refine_shapes`, stage
    ``refine-shapes``).

    ``fusion_report``: a folder to write ``fusion_report.json`` and
    ``fusion_report.html`` to (every cluster the fusion passes formed and every
    candidate they refused; ``docs/fusion_report.md``), after a successful
    compile; the report is also ``PenguinSource.fusion_report``.

    Order: :func:`validate_input` (no rewrite before it), :func:`strip_sharding`,
    :func:`check_printable`, the stablehlo -> mhlo bridge :func:`to_mhlo`, then the spine.
    ``instrumentation.on_pass_start`` (if set) hears ``validate-input``, the
    bridge's passes and every spine pass before it starts (the batch engine
    uses it to name the pass a crash happened in).

    Raises:
        HiloError: a refused input, a failing pass or verifier, no printer.
    """
    try:
        return _compile_loaded(loaded, config, instrumentation, input_types, fusion_report)
    except (RuntimeError, UnicodeDecodeError) as e:  # before the spine (the pipeline names its own passes)
        if not not_utf8(e):
            raise
        raise HiloError(NOT_UTF8_MESSAGE, filename=loaded.filename) from None


def _compile_loaded(loaded: LoadedModule, config: CompileConfig, instrumentation, input_types, fusion_report):
    with gc_paused():
        steps = build_spine(config)
        notify = getattr(instrumentation, "on_pass_start", None)
        if input_types:
            from hilo_mlir.driver.frontend.refine import refine_shapes

            if notify:
                notify("refine-shapes")
            with out_of_memory("refining the shapes"):
                refine_shapes(loaded, input_types)
        if notify:
            notify("validate-input")
        census = run_import_stages(loaded, config, steps, instrumentation)
        return _run_spine(loaded, config, steps, instrumentation, census, fusion_report)


def run_import_stages(loaded: LoadedModule, config: CompileConfig, steps, instrumentation):
    """Validation, marker protection, sharding strip, printability and bridge; returns the census to start the spine from."""
    from hilo_mlir.passes.penguin_io.penguinize_io import protect_markers  # keep step 26's markers alive through steps 1 and 13

    with out_of_memory("validating the input"):
        with loaded.context:
            census = input_census(loaded)  # the one walk of the input; lives until a stage below changes ops
        if shard_map_to_per_device(loaded, census):  # a shard_map export: its body is the per-device program
            with loaded.context:
                census = input_census(loaded)
        with loaded.context:
            loaded.dialect = detect_dialect(loaded.module, census)
        validate_input(loaded, config, steps, census)
        tops = [op.operation for op in loaded.module.body.operations]
        call_names = sorted(n for n in census.names if n.endswith(".custom_call"))
        calls = [c for t in tops for c in census.ops_named(t, *call_names)]
        protect_markers(loaded.module.operation, calls)  # attributes only: the census stays valid
        if strip_sharding(loaded, census):
            with loaded.context:
                census = input_census(loaded)  # ops erased: the old one is stale
        check_printable(loaded, steps, census)
    with out_of_memory("bringing the module to mhlo"):
        return to_mhlo(loaded, instrumentation, census)


def _run_spine(
    loaded: LoadedModule, config: CompileConfig, steps, instrumentation, census, fusion_report: str | None = None
) -> PenguinSource:
    extras = {"filename": loaded.filename, "debug": bool(getattr(instrumentation, "debug", False))}
    report = None
    if fusion_report is not None:
        from hilo_mlir.fusion import report as _fr

        report = extras[_fr.REPORT_KEY] = _fr.FusionReport(loaded.filename)
    pipe = Pipeline(steps, instrumentation=instrumentation, extras=extras, verify_each=config.verify_each)
    # Diagnostics that passes emit (e.g. one per unsupported op) are kept as
    # notes of the HiloError instead of being printed raw by MLIR.
    with loaded.context, capture_diagnostics(loaded.context, loaded.filename) as diags:
        try:
            pipe.run(loaded.module, census=census)  # the pipeline owns the census from here
        except HiloError as e:
            e.notes = [d for d in diags if d.message not in e.message] + list(e.notes)
            e.log = list(loaded.import_log) + list(pipe.log)  # the import's and the passes' debug lines up to the failure
            raise
        except MemoryError:
            raise HiloError(f"out of memory while running pass '{pipe.last_pass}'") from None
    src = extras.get("penguin_source")
    if src is None:
        raise HiloError("the pipeline did not end in a printer pass")
    out = PenguinSource(src)
    out.statistics = {k: dict(v) for k, v in pipe.stats.items()}
    out.files = dict(extras.get("penguin_files", {}))
    out.timings = list(pipe.timings)
    out.verify_seconds = sum(t for _, t in pipe.verify_timings)
    out.fusion_report = report
    if report is not None:
        _fr.write_report(report, fusion_report)
    out.log = list(loaded.import_log) + list(pipe.log)
    return out


def compile_module(
    text: str | bytes,
    config: CompileConfig | None = None,
    spine: str = "mhlo",
    filename: str = "<string>",
    input_types=None,
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
    cfg = resolve_config(config, spine)
    return compile_loaded(load_module(text, filename), cfg, input_types=input_types, fusion_report=fusion_report)


def compile_file(
    path: str | os.PathLike, config: CompileConfig | None = None, spine: str = "mhlo", input_types=None, fusion_report: str | None = None
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
    return compile_loaded(load_module(data, path), cfg, input_types=input_types, fusion_report=fusion_report)
