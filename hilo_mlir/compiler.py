"""The main job, mirroring ``HiloCompileInternal`` (seed 004, "Entry Flow").

``compile_file`` / ``compile_module``: an mhlo or stablehlo module (text or
bytecode) or a serialized ``HloModuleProto`` goes in; it is brought to mhlo
(the binary's importer always produces mhlo; the StableHLO spine bridges back
at step 1a), the spine chosen by ``config.stablehlo`` runs with the verifier
after every pass, and the terminal printer's Penguin Python source comes back.
"""

from __future__ import annotations

import collections
import os
from dataclasses import dataclass, field

from .config import CompileConfig
from .diagnostics import HiloError, from_mlir_error
from .pipeline import Instrumentation, Pipeline, step_for
from .spine import register_mlir_compile_passes


class PenguinSource(str):
    """The Penguin Python source (a ``str``) plus what the compile measured.

    Attributes:
        statistics: ``{pass name: {statistic: count}}`` from our passes
            (e.g. NeuronOpFusion's ``clusters-DotLogistic``).
        files: extra files that belong beside ``penguin.py`` (``{name: bytes}``,
            e.g. large constants as ``.npy``).
        timings: ``[(pass, seconds)]``.
    """

    statistics: dict
    files: dict
    timings: list


@dataclass
class LoadedModule:
    """A parsed module and the context that owns it (keep both alive together)."""

    context: object
    module: object
    filename: str
    dialect: str  # "mhlo", "stablehlo" or "mixed"/"none"
    extras: dict = field(default_factory=dict)


def detect_dialect(module) -> str:
    """``"mhlo"`` / ``"stablehlo"`` by counting ops of each dialect (``"none"`` if neither)."""
    counts = collections.Counter()

    def visit(op):
        n = op.name
        if n.startswith("mhlo."):
            counts["mhlo"] += 1
        elif n.startswith("stablehlo."):
            counts["stablehlo"] += 1
        from .ir import ir

        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    if not counts:
        return "none"
    if counts["mhlo"] and counts["stablehlo"]:
        return "mixed"
    return counts.most_common(1)[0][0]


def _is_proto(path: str, data: bytes) -> bool:
    if path.endswith(".pb") or path.endswith(".hlo.pb"):
        return True
    return False


def load_module(data: bytes | str, filename: str = "<string>", allow_unregistered: bool = False, context=None) -> LoadedModule:
    """Parse MLIR text/bytecode or an ``HloModuleProto`` into a module.

    Raises:
        HiloError: syntax errors (``file:line:col``), an unreadable proto
            (``NCC_DRV001``), a file that is not UTF-8.
    """
    from .io_utils import decode_text
    from .ir import ir, make_context

    ctx = context or make_context(allow_unregistered)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with ctx:
        if _is_proto(filename, data):
            from jaxlib import xla_client  # imported only for proto input

            try:
                bytecode = xla_client._xla.mlir.hlo_to_stablehlo(data)
            except Exception as e:  # noqa: BLE001 - the binding raises JaxRuntimeError
                raise HiloError(
                    f"The conversion from HLO to MHLO failed, status: {str(e).strip()}",
                    code="NCC_DRV001",
                    filename=filename,
                ) from None
            try:
                module = ir.Module.parse(bytecode)
            except ir.MLIRError as e:
                raise from_mlir_error(e, filename) from None
        else:
            if data.startswith(b"ML\xefR"):
                payload = data
            else:
                payload = decode_text(data, filename)
            try:
                module = ir.Module.parse(payload)
            except ir.MLIRError as e:
                err = from_mlir_error(e, filename)
                if "not found for custom op" in err.message or "Dialect" in err.message and "not found" in err.message:
                    err.message += " (use --allow-unregistered-dialect to accept unknown dialects)"
                raise err from None
    return LoadedModule(ctx, module, filename, detect_dialect(module))


def to_mhlo(loaded: LoadedModule) -> None:
    """Legalize a stablehlo module to mhlo in place (``stablehlo-legalize-to-hlo``)."""
    if loaded.dialect in ("stablehlo", "mixed"):
        with loaded.context:
            Pipeline([step_for("stablehlo-legalize-to-hlo")]).run(loaded.module)
        loaded.dialect = detect_dialect(loaded.module)


def build_spine(config: CompileConfig, skip_missing: bool = True):
    """The steps ``hilo2penguin`` runs for ``config`` (pre-passes, then the spine)."""
    steps = []
    if config.raise_logistic:
        from . import registry

        if "raise-logistic" in {p.argument for p in registry.all_passes()}:
            steps.append(step_for("raise-logistic"))
    return register_mlir_compile_passes(steps, config, skip_missing=skip_missing)


def _resolve_config(config: CompileConfig | None, spine: str) -> CompileConfig:
    config = config or CompileConfig()
    if spine not in ("mhlo", "stablehlo"):
        raise HiloError(f"unknown spine '{spine}' (expected 'mhlo' or 'stablehlo')")
    return config.replace(stablehlo=(spine == "stablehlo") or config.stablehlo)


def compile_loaded(loaded: LoadedModule, config: CompileConfig, instrumentation: Instrumentation | None = None) -> PenguinSource:
    """Run the spine on an already-loaded module; returns the Penguin source."""
    to_mhlo(loaded)
    extras = {"filename": loaded.filename}
    pipe = Pipeline(build_spine(config), instrumentation=instrumentation, extras=extras)
    with loaded.context:
        pipe.run(loaded.module)
    src = extras.get("penguin_source")
    if src is None:
        raise HiloError("the pipeline did not end in a printer pass")
    out = PenguinSource(src)
    out.statistics = {k: dict(v) for k, v in pipe.stats.items()}
    out.files = dict(extras.get("penguin_files", {}))
    out.timings = list(pipe.timings)
    return out


def compile_module(text: str | bytes, config: CompileConfig | None = None, spine: str = "mhlo", filename: str = "<string>") -> PenguinSource:
    """Compile MLIR text (mhlo or stablehlo) to Penguin Python.

    Args:
        text: the module (MLIR text or bytecode).
        config: the gates; default :class:`CompileConfig` (the binary's defaults).
        spine: ``"mhlo"`` or ``"stablehlo"``.
        filename: used in diagnostics and ``DebugLocation``.

    Returns:
        :class:`PenguinSource` (a ``str``), with ``.statistics`` and ``.files``.

    Raises:
        HiloError: parse errors, pass failures, verifier failures.
    """
    cfg = _resolve_config(config, spine)
    return compile_loaded(load_module(text, filename), cfg)


def compile_file(path: str | os.PathLike, config: CompileConfig | None = None, spine: str = "mhlo") -> PenguinSource:
    """Compile a ``.mlir`` file or a serialized ``HloModuleProto`` (``.pb``) to Penguin Python.

    Raises:
        HiloError: missing/empty/unreadable file, ``NCC_DRV001`` for a bad proto,
            and every error of :func:`compile_module`.
    """
    from .io_utils import read_input

    path = os.fspath(path)
    cfg = _resolve_config(config, spine)
    data = read_input(path)
    return compile_loaded(load_module(data, path), cfg)
