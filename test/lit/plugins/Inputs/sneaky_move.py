"""A broken pass plugin for the tests: it moves an op without the rewriter (so it records no change)
and leaves a use before its definition."""

from hilo_mlir import register_twins


def _run(func_op, ctx):
    ops = [o.operation for o in func_op.regions[0].blocks[0].operations]
    ops[1].move_before(ops[0])


register_twins("sneaky-move", "moves the second op of the entry block first, behind the rewriter's back", _run,
               class_name="SneakyMove")
