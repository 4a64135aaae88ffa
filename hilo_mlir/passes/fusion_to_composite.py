"""``fusion-to-composite`` (StableHLO spine step 14a; DESIGN.md decision 6).

Every ``mhlo.fusion`` in the module becomes

    %r = stablehlo.composite "neuron.<Kind>" %operands {
           composite_attributes = {}, decomposition = @neuron.<Kind>.impl[.N],
           version = 1 : i32, CompositeKind = "<Kind>"}

plus a private ``func.func @neuron.<Kind>.impl[.N]`` holding the fusion body
(block arguments = the fusion's operands, in order; the region terminator
``mhlo.return``/``stablehlo.return`` becomes ``func.return``). ``<Kind>`` is
the fusion's ``FusionKind`` string; a fusion without one uses mhlo's own
``fusion_kind`` enum name (``kLoop``...) or ``Fusion``. Names are unique and
deterministic (module order, innermost fusion first). Values the body uses
from outside the fusion (mhlo.fusion is not isolated from above; a function
is) are appended as extra operands/arguments, so the composite's signature
always equals its decomposition's. Composites already in the input are left
alone. ``stablehlo-legalize-composite-to-call`` + ``inline`` gives back the
original computation.

Statistics: ``converted-<Kind>``.
"""

from __future__ import annotations

import re

from ..cluster import (COMPOSITE_KIND_ATTR, COMPOSITE_VERSION, FUSION_KIND_ATTR, SymbolNamer, ancestor_in_block,
                       new_decomposition, op_key, value_def_ancestor, value_key)
from ..diagnostics import op_error
from ..ir import ir
from ..registry import PassInfo, register


def _kind(fusion) -> str:
    attrs = fusion.attributes
    if FUSION_KIND_ATTR in attrs:
        try:
            return ir.StringAttr(attrs[FUSION_KIND_ATTR]).value
        except (ValueError, TypeError):
            pass
    if "fusion_kind" in attrs:
        m = re.search(r"\bk[A-Z][A-Za-z]*", str(attrs["fusion_kind"]))
        if m:
            return m.group(0)
    return "Fusion"


def _captured(fusion, body) -> list:
    """Values used inside ``fusion``'s region that are defined outside it (first-use order)."""
    seen: dict = {}
    outer = fusion.block
    fk = op_key(fusion)

    def visit(op):
        for v in op.operands:
            anc = value_def_ancestor(v, outer)
            if anc is None or op_key(anc) != fk:
                seen.setdefault(value_key(v), v)
        return ir.WalkResult.ADVANCE

    for op in body.operations:
        op.operation.walk(visit)
    return list(seen.values())


def convert_fusion(fusion, namer: SymbolNamer, module_body) -> ir.Operation:
    """Replace one ``mhlo.fusion`` by a ``neuron.<Kind>`` composite + decomposition; returns the composite."""
    if len(fusion.regions) != 1 or len(list(fusion.regions[0].blocks)) != 1:
        raise op_error(fusion, "fusion-to-composite: expected one region with one block")
    body = fusion.regions[0].blocks[0]
    kind = _kind(fusion)
    extra = _captured(fusion, body)
    operands = list(fusion.operands) + extra
    in_types = [v.type for v in operands]
    out_types = [r.type for r in fusion.results]
    loc = fusion.location
    sym = namer.fresh(f"neuron.{kind}.impl")
    with fusion.context, loc:
        fblock = new_decomposition(module_body, sym, in_types, out_types, loc, [loc] * len(in_types))
        ops = [o.operation for o in body.operations]
        term = ops[-1]
        if not term.name.endswith(".return"):
            raise op_error(fusion, f"fusion-to-composite: body ends in '{term.name}', not a return")
        ret = ir.Operation.create("func.return", operands=list(term.operands), loc=term.location,
                                  ip=ir.InsertionPoint(fblock))
        for o in ops[:-1]:
            o.move_before(ret)
        for arg, new in zip(body.arguments, list(fblock.arguments)[: len(body.arguments)]):
            arg.replace_all_uses_with(new)
        fargs = list(fblock.arguments)[len(body.arguments):]
        for v, new in zip(extra, fargs):
            for use in list(v.uses):
                owner = use.owner.operation if not isinstance(use.owner, ir.Operation) else use.owner
                if ancestor_in_block(owner, fblock) is not None:
                    owner.operands[use.operand_number] = new
        comp = ir.Operation.create(
            "stablehlo.composite", results=out_types, operands=operands,
            attributes={
                "name": ir.StringAttr.get(f"neuron.{kind}"),
                "composite_attributes": ir.DictAttr.get({}),
                "decomposition": ir.FlatSymbolRefAttr.get(sym),
                "version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), COMPOSITE_VERSION),
                COMPOSITE_KIND_ATTR: ir.StringAttr.get(kind),
            },
            loc=loc, ip=ir.InsertionPoint(fusion))
    for old, new in zip(fusion.results, comp.results):
        old.replace_all_uses_with(new)
    term.erase()
    fusion.erase()
    return comp


def _run(module_op, ctx) -> None:
    fusions = []

    def visit(op):
        if op.name == "mhlo.fusion":
            fusions.append(op.operation)
        return ir.WalkResult.ADVANCE

    module_op.walk(visit, ir.WalkOrder.POST_ORDER)  # innermost first
    if not fusions:
        return
    namer = SymbolNamer(module_op)
    body = module_op.regions[0].blocks[0]
    for f in fusions:
        kind = _kind(f)
        convert_fusion(f, namer, body)
        ctx.stats[f"converted-{kind}"] += 1


register(
    PassInfo(
        "fusion-to-composite",
        "Convert every mhlo.fusion into a stablehlo.composite \"neuron.<Kind>\" with a private decomposition",
        _run,
        anchor="builtin.module",
        dialect="stablehlo",
        class_name="FusionToComposite",
        source="DESIGN.md 'StableHLO fusions are composites', decision 6; StableHLO spine step 14a",
    )
)
