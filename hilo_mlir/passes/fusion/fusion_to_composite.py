"""``fusion-to-composite`` (StableHLO spine step 14a): every ``mhlo.fusion`` becomes a ``neuron.<Kind>`` composite.

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

from hilo_mlir.fusion import SymbolNamer, ancestor_in_block, composite_attributes, decomposition_base, new_decomposition, value_def_ancestor
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import FUSION_KIND_ATTR, MHLO, MHLO_FUSION_KIND_ENUM_ATTR
from hilo_mlir.ir.utils import as_op, op_key, value_key
from hilo_mlir.passmanager.registry import PassInfo, Statistic, register
from hilo_mlir.support.diagnostics import op_error


def _kind(fusion) -> str:
    attrs = fusion.attributes
    if FUSION_KIND_ATTR in attrs:
        try:
            return ir.StringAttr(attrs[FUSION_KIND_ATTR]).value
        except (ValueError, TypeError):
            pass
    if MHLO_FUSION_KIND_ENUM_ATTR in attrs:
        m = re.search(r"\bk[A-Z][A-Za-z]*", str(attrs[MHLO_FUSION_KIND_ENUM_ATTR]))
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


def _move_body(rw, body, term, fblock, extra) -> None:
    """Move ``body``'s ops (all but its terminator ``term``) before ``fblock``'s terminator; the body's
    arguments become ``fblock``'s first arguments, the captured values ``extra`` its remaining ones."""
    ret = fblock.operations[len(fblock.operations) - 1]
    for o in [o.operation for o in body.operations][:-1]:
        rw.move_before(o, ret)
    for arg, new in zip(body.arguments, list(fblock.arguments)[: len(body.arguments)]):
        rw.replace_all_uses_with(arg, new)
    fargs = list(fblock.arguments)[len(body.arguments) :]
    for v, new in zip(extra, fargs):
        for use in list(v.uses):
            owner = as_op(use.owner)
            if ancestor_in_block(owner, fblock) is not None:
                rw.set_operand(owner, use.operand_number, new)


def convert_fusion(fusion, namer: SymbolNamer, module_body, rw, d) -> ir.Operation:
    """Replace one ``mhlo.fusion`` by a ``neuron.<Kind>`` composite + decomposition; returns the composite.

    Raises:
        HiloError: the fusion's region is not one block ending in a return.
    """
    if len(fusion.regions) != 1 or len(list(fusion.regions[0].blocks)) != 1:
        raise op_error(fusion, "fusion-to-composite: expected one region with one block")
    body = fusion.regions[0].blocks[0]
    kind = _kind(fusion)
    extra = _captured(fusion, body)
    operands = list(fusion.operands) + extra
    in_types = [v.type for v in operands]
    out_types = [r.type for r in fusion.results]
    loc = fusion.location
    term = body.operations[len(body.operations) - 1].operation
    if not term.name.endswith(".return"):
        raise op_error(fusion, f"fusion-to-composite: body ends in '{term.name}', not a return")
    sym = namer.fresh(decomposition_base(kind))
    with fusion.context, loc:
        _fn, fblock = new_decomposition(rw, module_body, sym, in_types, out_types, loc, [loc] * len(in_types))
        rw.create(d.fusion_body_terminator, operands=list(term.operands), loc=term.location, at_end=fblock)
        _move_body(rw, body, term, fblock, extra)
        comp = rw.create(d.fusion, results=out_types, operands=operands, attributes=composite_attributes(kind, sym), loc=loc, before=fusion)
    for old, new in zip(fusion.results, comp.results):
        rw.replace_all_uses_with(old, new)
    rw.erase_op(term)
    rw.erase_op(fusion)
    return comp


def _run(module_op, ctx) -> None:
    if not ctx.module_may_contain(MHLO.fusion):
        return
    # the census lists, top-level op after top-level op: the module's walk (post-)order, innermost first
    fusions = [f for top in module_op.regions[0].blocks[0].operations for f in ctx.ops_named(top.operation, MHLO.fusion)]
    namer = SymbolNamer(module_op)
    body = module_op.regions[0].blocks[0]
    for f in fusions:
        kind = _kind(f)
        convert_fusion(f, namer, body, ctx.rewriter, ctx.d)
        ctx.stats[f"converted-{kind}"] += 1


register(
    PassInfo(
        "fusion-to-composite",
        'Convert every mhlo.fusion into a stablehlo.composite "neuron.<Kind>" with a private decomposition',
        _run,
        anchor="builtin.module",
        dialect="stablehlo",
        class_name="FusionToComposite",
        statistics=(Statistic("converted-{kind}", "fusions converted to composites (per FusionKind)"),),
        source="DESIGN.md 'StableHLO fusions are composites', decision 6; StableHLO spine step 14a",
    )
)
