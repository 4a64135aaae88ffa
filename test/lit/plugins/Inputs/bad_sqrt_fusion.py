"""A broken fusing pass plugin for hilo-check's cluster bisection test.

It fuses every ``sqrt`` into its own ``Elementwise`` cluster through the shared
codegen (so ``--fusion-fuel`` meters it) and, in the second cluster it forms,
turns the ``sqrt`` into an ``rsqrt``: one bad cluster among good ones.
"""

from hilo_mlir import register_twins


def _run(func_op, ctx):
    from hilo_mlir.fusion import FusionCluster, codegen
    from hilo_mlir.fusion.fuel import fuel_of

    d, rw = ctx.d, ctx.rewriter
    formed = 0
    for op in list(ctx.ops_named(func_op, d.name("sqrt"))):
        fused = codegen(FusionCluster([op], "Elementwise"), d, rw, fuel=(fuel_of(ctx), ctx.info.argument))
        if fused is None:
            continue
        formed += 1
        if formed == 2:
            inner = [o.operation for o in fused.regions[0].blocks[0].operations][0]
            new = rw.create(d.name("rsqrt"), results=[inner.results[0].type], operands=[inner.operands[0]], loc=inner.location, before=inner)
            rw.replace_op(inner, [new.results[0]])


register_twins("bad-sqrt-fusion", "fuses each sqrt alone and breaks the second cluster (a deliberate miscompile)", _run,
               class_name="BadSqrtFusion")
