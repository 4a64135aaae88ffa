"""A broken pass plugin for hilo-check's bisection test: it changes one op's math.

The first ``sqrt`` of each function becomes an ``rsqrt`` at the same location
(through the rewriter: the IR stays valid, only the numbers change).
"""

from hilo_mlir import register_twins


def _run(func_op, ctx):
    d, rw = ctx.d, ctx.rewriter
    for op in ctx.ops_named(func_op, d.name("sqrt")):
        new = rw.create(d.name("rsqrt"), results=[op.results[0].type], operands=[op.operands[0]], loc=op.location, before=op)
        rw.replace_op(op, [new.results[0]])
        return


register_twins("perturb-sqrt", "turns the first sqrt of each function into an rsqrt (a deliberate miscompile)", _run,
               class_name="PerturbSqrt")
