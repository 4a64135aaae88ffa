"""``hilo-import``: the import step, the first pass of every ``hilo2penguin`` pipeline.

Between reading the input and the spine, :func:`hilo_mlir.passes.importing.stages.run_import_stages`
makes a ``shard_map`` export its per-device program
(:func:`~hilo_mlir.passes.importing.sharding.shard_map_to_per_device`),
refuses inputs the spine cannot compile, keeps the parameter markers alive,
drops sharding annotations, checks that the printer can emit every op that
will reach it, and brings the module to mhlo (``chlo-legalize-to-stablehlo``
when chlo is present, then ``stablehlo-legalize-to-hlo``). ``hilo2penguin``
runs it as the first step of its one pipeline, so ``hilo2penguin
--dump-pass-pipeline`` is what runs, and ``hilo-opt IN --pass-pipeline="$(hilo2penguin
--dump-pass-pipeline)"`` prints the ``penguin.py`` that ``hilo2penguin IN`` writes.

What the spine allows (token values need ``replace-token-type-with-u8``,
complex types ``lower-complex``) is read from the pipeline the pass runs in.
"""

from __future__ import annotations

from hilo_mlir.passmanager.registry import PassContext, PassInfo, register
from hilo_mlir.support.diagnostics import NOT_UTF8_MESSAGE, HiloError, not_utf8
from hilo_mlir.support.loaded import LoadedModule


def _run(module_op, ctx: PassContext) -> None:
    from hilo_mlir.analysis.absent_attributes import READERS
    from hilo_mlir.analysis.census import Census
    from hilo_mlir.passes.importing import stages

    module = module_op.opview if hasattr(module_op, "opview") else module_op
    loaded = LoadedModule(module_op.context, module, ctx.env.filename or "<stdin>")
    try:
        census, absent = stages.run_import_stages(
            loaded,
            ctx.pipeline_steps,
            ctx.env.gates,
            ctx.env.on_pass_start,
            ctx.env.verify_each,
            rewriter=ctx.rewriter,
            check=ctx.analyses.checking,
        )
    except (RuntimeError, UnicodeDecodeError) as e:  # a string of the input that is not UTF-8
        if not not_utf8(e):
            raise
        raise HiloError(NOT_UTF8_MESSAGE, filename=loaded.filename) from None
    ctx.outputs.dialect = loaded.dialect
    ctx.rewriter.notify_unknown_change()  # the bridge (upstream C++ passes) changes what it changes
    ctx.analyses.put(Census, module_op, census)  # the census of the module as the spine gets it
    # after the unknown change above (it would forget them); only names a later step reads
    readers = {s.argument for s in ctx.pipeline_steps}
    ctx.analyses.track_absent_attributes(n for n in absent if readers.intersection(READERS[n]))


register(
    PassInfo(
        "hilo-import",
        "The driver's import: validate the input, keep parameter markers, drop sharding, bring it to mhlo",
        _run,
        anchor="builtin.module",
        class_name="HiloImport",
        source="ours: hilo2penguin's import step (passes/importing/stages.py), the first pass of its pipeline",
        reads_pipeline=True,
    )
)
