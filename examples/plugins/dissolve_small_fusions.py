"""A pass plugin: dissolve fusions too small to be worth a fused kernel (a cost-model experiment).

``neuron-op-fusion`` forms a cluster whenever an idiom matches, however small.
This pass, placed after it, turns every fusion whose body has at most
``max-ops`` operations back into plain ops, so you can measure whether small
clusters pay off. It runs on both spines: an ``mhlo.fusion`` is replaced by
its region's ops; a ``stablehlo.composite`` by its decomposition's ops (the
decomposition function is erased once no composite calls it).

Load and place it::

    hilo2penguin model.mlir -o out --preset all \\
        --load-pass-plugin=examples/plugins/dissolve_small_fusions.py \\
        --insert-pass-after neuron-op-fusion=dissolve-small-fusions{max-ops=3} \\
        --mlir-pass-statistics

(on ``--spine stablehlo`` the twin is ``stablehlo-dissolve-small-fusions``).
Every mutation goes through ``ctx.rewriter``, so the pipeline knows what
changed (and ``HILO_MLIR_CHECK_ANALYSES=1`` checks it).
"""

from hilo_mlir import Option, Statistic, register_twins


def _inline_body(rw, op, block) -> int:
    """Replace ``op`` by the ops of ``block`` (its arguments = ``op``'s operands); returns the op count."""
    from hilo_mlir.ir.binding import ir

    mapping = {hash(a): v for a, v in zip(block.arguments, op.operands)}
    body = [o.operation for o in block.operations]
    for old in body[:-1]:
        new = rw.clone(old, before=op)
        inner = []

        def collect(o):  # collect first: never rewrite inside a walk
            inner.append(o)
            return ir.WalkResult.ADVANCE

        new.walk(collect)
        for o in inner:
            for i, v in enumerate(o.operands):
                image = mapping.get(hash(v))
                if image is not None:
                    rw.set_operand(o, i, image)
        for r_old, r_new in zip(old.results, new.results):
            mapping[hash(r_old)] = r_new
    for result, returned in zip(op.results, body[-1].operands):
        rw.replace_all_uses_with(result, mapping.get(hash(returned), returned))
    rw.erase_op(op)
    return len(body) - 1


def run(module_op, ctx) -> None:
    """Dissolve the small fusions of every function of the module."""
    from hilo_mlir.ir.binding import ir  # the binding, imported when the pass runs (hilo-opt --help stays fast)

    d, rw, limit = ctx.d, ctx.rewriter, ctx.options.max_ops
    if not ctx.module_may_contain(d.fusion):
        return
    tops = [op.operation for op in module_op.regions[0].blocks[0].operations]
    funcs = {ir.StringAttr(f.attributes["sym_name"]).value: f for f in tops if f.name == "func.func"}
    fusions = [op for f in tops for op in ctx.ops_named(f, d.fusion)]
    calls: dict = {}  # decomposition -> composites calling it
    for op in fusions:
        if "decomposition" in op.attributes:
            calls.setdefault(ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value, []).append(op)
    dissolved: dict = {}
    for op in fusions:
        ctx.stats["fusions-seen"] += 1
        callee = None
        if "decomposition" in op.attributes:  # a composite: its body is a function
            callee = ir.FlatSymbolRefAttr(op.attributes["decomposition"]).value
            block = funcs[callee].regions[0].blocks[0]
        else:
            block = op.regions[0].blocks[0]
        if len(block.operations) - 1 > limit:
            continue
        ctx.stats["ops-unfused"] += _inline_body(rw, op, block)
        ctx.stats["fusions-dissolved"] += 1
        if callee is not None:
            dissolved[callee] = dissolved.get(callee, 0) + 1
    for callee, n in dissolved.items():
        if n == len(calls[callee]):  # nothing calls the decomposition any more
            rw.erase_op(funcs[callee])


register_twins(
    "dissolve-small-fusions",
    "Turn fusions of at most max-ops ops back into plain ops (plugin example)",
    run,
    anchor="builtin.module",
    class_name="DissolveSmallFusions",
    options=(Option("max-ops", int, 1, "dissolve fusions whose body has at most this many ops"),),
    statistics=(
        Statistic("fusions-seen", "fusions looked at"),
        Statistic("fusions-dissolved", "fusions turned back into plain ops"),
        Statistic("ops-unfused", "ops moved out of dissolved fusions"),
    ),
)
