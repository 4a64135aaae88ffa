"""The import stages: what runs between reading an input and the spine (the ``hilo-import`` pass).

In order, on one module:

0. :func:`~hilo_mlir.passes.importing.sharding.shard_map_to_per_device`: a
   ``shard_map`` export becomes its per-device program (nothing else is touched
   before validation),
1. :func:`~hilo_mlir.passes.importing.validation.validate_input` (no other rewrite before it),
2. the parameter markers of step 26 are protected (``protect_markers``: they
   must survive steps 1 and 13),
3. :func:`~hilo_mlir.passes.importing.sharding.strip_sharding`,
4. :func:`~hilo_mlir.passes.importing.printability.check_printable`: every op that
   would reach the printer and that it cannot emit, each a located error;
5. the bridge :func:`to_mhlo` (chlo decomposition, stablehlo -> mhlo: the
   binary's importer always produces mhlo; the StableHLO spine bridges back
   at its step 1a).

The input census (:func:`input_census`: one walk of the module, with every
value type and the ops holding sharding attributes) is taken once and shared
by the stages; a stage that changes ops drops it (the sharding strip when it
removed something, the bridge when it ran). What is left is handed back to
the pipeline, which owns it from then on.

This is the one implementation: ``hilo2penguin`` runs it as the first pass of
its pipeline, ``hilo-opt`` when ``hilo-import`` is in a pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from hilo_mlir.analysis.absent_attributes import WATCHED
from hilo_mlir.analysis.census import Census, detect_dialect
from hilo_mlir.passes.importing.printability import check_printable
from hilo_mlir.passes.importing.sharding import SHARDING_ATTRS, shard_map_to_per_device, strip_sharding
from hilo_mlir.passes.importing.validation import validate_input
from hilo_mlir.rewrite.rewriter import Rewriter
from hilo_mlir.support.diagnostics import out_of_memory

if TYPE_CHECKING:
    from hilo_mlir.passmanager.steps import Step
    from hilo_mlir.support.loaded import LoadedModule

#: The upstream decomposition of chlo ops into stablehlo ops (run by the bridge when chlo is present).
CHLO_LEGALIZE = "func.func(chlo-legalize-to-stablehlo)"


def input_census(loaded: LoadedModule) -> Census:
    """A fresh :class:`~hilo_mlir.analysis.census.Census` of ``loaded.module`` as it is now: one walk, with types
    and the holders of the sharding attributes and of the :data:`~hilo_mlir.analysis.absent_attributes.WATCHED` ones.

    What the stages take once (dialect detection, validation, the marker
    protection, the sharding strip, the bridge's chlo check, which watched
    attributes no op holds). It holds op
    handles: it is valid only until the module changes, and never kept beyond
    one compile.
    """
    return Census(loaded.module.operation, with_types=True, attr_names=SHARDING_ATTRS + WATCHED)


def _has_chlo(census: Census) -> bool:
    return any(n.startswith("chlo.") for n in census.names)


def to_mhlo(
    loaded: LoadedModule,
    on_pass_start: Callable[[str], None] | None = None,
    census: Census | None = None,
    verify: bool = True,
) -> Census:
    """Bring the module to mhlo in place: the bridge before the spine.

    * ``chlo`` ops (JAX emits them for ``erf``, ``lgamma``, ``top_k`` ...) are
      first decomposed into stablehlo ops by the upstream
      ``chlo-legalize-to-stablehlo`` (semantics-preserving; the printers only
      know mhlo/stablehlo ops);
    * stablehlo (or mixed) modules then go through ``stablehlo-legalize-to-hlo``.

    Args:
        loaded: the module; ``loaded.dialect`` is updated when it bridged.
        on_pass_start: hears the bridge's passes.
        census: the census of the module as it is now (default: take one).
        verify: verify the module after the bridge's passes (the policy of the
            pipeline the import step runs in); False: not at all -- the main job
            verifies once, before printing, as the binary's pass manager does.

    Returns:
        The census of the module after the bridge: ``census`` itself when
        nothing ran, else a fresh one (names only; types taken lazily).
    """
    from hilo_mlir.passmanager.instrumentation import Instrumentation
    from hilo_mlir.passmanager.pipeline import Pipeline
    from hilo_mlir.passmanager.steps import Step, step_for

    instr = Instrumentation(on_pass_start=on_pass_start) if on_pass_start is not None else None
    steps: list[Step] = []
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
        Pipeline(steps, instrumentation=instr, verify_each=verify, verify_at_end=verify).run(loaded.module, census=census)
    census = Census(loaded.module.operation)  # the spine starts from it
    loaded.dialect = detect_dialect(loaded.module, census)
    return census


def run_import_stages(
    loaded: LoadedModule,
    steps: Sequence[Step],
    gates: Mapping[str, bool] | None = None,
    on_pass_start: Callable[[str], None] | None = None,
    verify: bool = True,
    rewriter: Rewriter | None = None,
    check: bool | None = None,
) -> tuple[Census, frozenset[str]]:
    """Validation, marker protection, sharding strip, printability and bridge (see the module doc).

    Args:
        loaded: the module (changed in place; ``loaded.dialect`` is set).
        steps: the pipeline the module goes through (which lowerings it has:
            token types need ``replace-token-type-with-u8``, complex types
            ``lower-complex``).
        gates: the driver's gates (:class:`~hilo_mlir.driver.config.CompileConfig`),
            to say why a lowering is missing; None outside the driver (a
            missing ``lower-complex`` is then reported as its gate being off).
        on_pass_start: hears ``validate-input`` and the bridge's passes (crash attribution).
        verify: verify after the bridge (:func:`to_mhlo`).
        rewriter: the rewriter the marker protection and the sharding stages change the IR with
            (the ``hilo-import`` pass's); default: a fresh one on the module.
        check: the checking mode (the pipeline's; default: ``HILO_MLIR_CHECK_ANALYSES``): the
            validation's census answers are compared with reading the module.

    Returns:
        The census to start the spine from, and the names of
        :data:`~hilo_mlir.analysis.absent_attributes.WATCHED` that no op of the module holds
        (from the last input census; the stages after it set no such name, and the bridge's
        upstream passes make none).

    Raises:
        HiloError: the first refused construct, an unprintable op, a failing bridge.
    """
    from hilo_mlir.passes.importing.markers import protect_markers  # keep step 26's markers alive through steps 1 and 13

    if on_pass_start is not None:
        on_pass_start("validate-input")
    args = {s.argument for s in steps}
    allow_complex = "lower-complex" in args or "stablehlo-lower-complex" in args
    lower_complex_gate = gates.get("lower_complex", True) if gates is not None else allow_complex
    with out_of_memory("validating the input"):
        with loaded.context:
            census = input_census(loaded)  # the one walk of the input; lives until a stage below changes ops
        if rewriter is None:
            rewriter = Rewriter(loaded.module.operation)
        if shard_map_to_per_device(loaded, census, rewriter):  # a shard_map export: its body is the per-device program
            with loaded.context:
                census = input_census(loaded)
        with loaded.context:
            loaded.dialect = detect_dialect(loaded.module, census)
        validate_input(loaded, steps, census, lower_complex_gate=lower_complex_gate, check=check)
        tops = [op.operation for op in loaded.module.body.operations]
        call_names = sorted(n for n in census.names if n.endswith(".custom_call"))
        calls = [c for t in tops for c in census.ops_named(t, *call_names)]
        protect_markers(loaded.module.operation, calls, rewriter)  # attributes only: the census stays valid
        if strip_sharding(loaded, census, rewriter):
            with loaded.context:
                census = input_census(loaded)  # ops erased: the old one is stale
        check_printable(loaded, steps, census)
        absent = census.absent_attributes(WATCHED)  # the marker protection above sets another name
    with out_of_memory("bringing the module to mhlo"):
        return to_mhlo(loaded, on_pass_start, census, verify), absent
