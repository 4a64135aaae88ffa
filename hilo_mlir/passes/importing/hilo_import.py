"""``hilo-import``: the driver's import step as a pass, so that a dumped pipeline is complete.

``hilo2penguin`` does, between reading the input and running the spine
(:func:`hilo_mlir.driver.compiler.compile_loaded`): make a ``shard_map`` export
its per-device program (:func:`~hilo_mlir.driver.frontend.sharding.shard_map_to_per_device`),
refuse inputs the spine cannot compile (:func:`~hilo_mlir.driver.compiler.validate_input`), keep the parameter
markers alive, drop sharding annotations, check that the printer can emit
every op that will reach it, and bring the module to mhlo
(``chlo-legalize-to-stablehlo`` when chlo is present, then
``stablehlo-legalize-to-hlo``). This pass does the same, in the same order,
on the module of a ``hilo-opt`` run; ``hilo2penguin --dump-pass-pipeline``
starts with it, so that ``hilo-opt IN --pass-pipeline="$(hilo2penguin
--dump-pass-pipeline)"`` prints the ``penguin.py`` that ``hilo2penguin IN``
writes.

What the spine allows (token values need ``replace-token-type-with-u8``,
complex types ``lower-complex``) is read from the pipeline the pass runs in,
as the driver reads it from the spine.
"""

from __future__ import annotations

from hilo_mlir.passmanager.registry import PassInfo, register


def _run(module_op, ctx) -> None:
    from hilo_mlir.driver import compiler
    from hilo_mlir.driver.config import CompileConfig

    steps = list(ctx.extras.get("pipeline_steps", ()))
    args = {s.argument for s in steps}
    allow_complex = "lower-complex" in args or "stablehlo-lower-complex" in args
    module = module_op.opview if hasattr(module_op, "opview") else module_op
    loaded = compiler.LoadedModule(module_op.context, module, ctx.extras.get("filename") or "<stdin>")
    compiler.run_import_stages(loaded, CompileConfig(lower_complex=allow_complex), steps, None)
    ctx.rewriter.notify_unknown_change()  # validation reads; the bridge is upstream passes


register(
    PassInfo(
        "hilo-import",
        "The driver's import: validate the input, keep parameter markers, drop sharding, bring it to mhlo",
        _run,
        anchor="builtin.module",
        class_name="HiloImport",
        source="ours: hilo2penguin's import step (compiler.compile_loaded) as a pass",
    )
)
