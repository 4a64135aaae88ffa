"""Type-rewriting shared by the passes that change element types everywhere
(``sixty-four-hack`` step 25, ``replace-token-type-with-u8`` step 19)."""

from __future__ import annotations

from .ir import ir


def retype_op(op, convert, stats, value_stat: str, signature_stat: str) -> bool:
    """Give ``op``'s results, region arguments and (for ``func.func``) signature their converted types.

    Args:
        op: an ``ir.Operation``.
        convert: ``type -> new type or None`` (None: keep).
        stats: the pass's statistics counter.
        value_stat / signature_stat: statistic names to count retyped values / signatures.

    Returns:
        True if anything changed.
    """
    changed = False
    for r in op.results:
        n = convert(r.type)
        if n is not None:
            r.set_type(n)
            changed = True
            stats[value_stat] += 1
    for reg in op.regions:
        for b in reg.blocks:
            for a in b.arguments:
                n = convert(a.type)
                if n is not None:
                    a.set_type(n)
                    changed = True
                    stats[value_stat] += 1
    if op.name == "func.func":
        ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        ins = [convert(t) or t for t in ft.inputs]
        outs = [convert(t) or t for t in ft.results]
        if ins != list(ft.inputs) or outs != list(ft.results):
            op.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(ins, outs))
            changed = True
            stats[signature_stat] += 1
    return changed
