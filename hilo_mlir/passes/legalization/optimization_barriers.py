"""Spine step 8: ``remove-opt-barriers`` (alias ``remove-optimization-barriers``; one pass for both dialects).

Source: seed 004 step 8 (``createRemoveOptimizationBarriersPass``, gate
cfg[0x11C]) and its NOTE: "a single pass body handles both
mhlo.optimization_barrier and stablehlo.optimization_barrier (two TypeID
compares), then runs an inline nested CSE", so the pass has no StableHLO twin
and always CSEs the touched ops. Behaviour: DESIGN.md catalogue row 8.

Rewrite, per function:

1. every ``mhlo.optimization_barrier`` / ``stablehlo.optimization_barrier``
   (any number of operands, any types, nested regions included) is erased
   after result ``i`` is replaced by operand ``i``;
2. local CSE of the touched ops: the users of the forwarded values (and,
   transitively, the users of every op CSE removes) are compared with the
   earlier pure ops of their block and of the enclosing blocks (dominance:
   an op in an enclosing block before the region's op dominates it). Two ops
   are equal when name, operands, attributes and result types are equal. Only
   pure mhlo/stablehlo/chlo ops without regions take part: custom calls,
   collectives, barriers, rng, infeed/outfeed ... are never merged or erased.
   One walk per function with a scoped hash table: linear time.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES, is_side_effecting, table_for
from hilo_mlir.passmanager.registry import PassInfo, register

#: op-name prefixes of the dialects whose ops take part in the CSE
_PURE_DIALECTS = tuple(t.prefix + "." for t in TABLES.values()) + ("chlo.",)
_BARRIERS = tuple(t.name("optimization_barrier") for t in TABLES.values())


def _is_barrier(op) -> bool:
    d = table_for(op)
    return d is not None and d.is_op(op, "optimization_barrier")


def _cse_candidate(op) -> bool:
    name = op.name
    if not name.startswith(_PURE_DIALECTS) or is_side_effecting(op):
        return False
    if len(op.regions) or len(op.results) == 0:
        return False
    short = name.split(".", 1)[1]
    return short not in ("return", "fusion", "composite", "while", "case", "if", "get_dimension_size")


def _key(op):
    attrs = tuple(sorted((op.attributes[i].name, str(op.attributes[i].attr)) for i in range(len(op.attributes))))
    return (op.name, tuple(op.operands), attrs, tuple(str(r.type) for r in op.results))


def _rewrite_operands(op, repl: dict, rw) -> bool:
    """Point every operand of ``op`` that ``repl`` maps at its replacement; True if one was rewritten."""
    touched = False
    for i, v in enumerate(list(op.operands)):
        nv = repl.get(v)
        if nv is not None:
            rw.set_operand(op, i, nv)
            touched = True
    return touched


def _lookup(table: list[dict], key):
    """The innermost scope's entry for ``key`` (None if no enclosing scope has one)."""
    for scope in reversed(table):
        prev = scope.get(key)
        if prev is not None:
            return prev
    return None


def _cse(op, touched: bool, table: list[dict], repl: dict) -> bool:
    """CSE ``op`` against the scopes ``table``: True (its results now map to its twin's in ``repl``) when an
    equal op dominates it and one of the two was touched by a barrier removal; else record it in the
    innermost scope (if no equal op is there yet) and return False."""
    k = _key(op)
    prev = _lookup(table, k)
    if prev is not None and (touched or prev[1]):
        for r_old, r_new in zip(op.results, prev[0].results):
            repl[r_old] = r_new
        return True
    if prev is None:
        table[-1][k] = (op, touched)
    return False


def _has_barrier(func_op) -> bool:
    """Whether ``func_op`` holds an optimization barrier (a walk that stops at the first)."""
    found = []

    def find(op):
        if _is_barrier(op):
            found.append(True)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    func_op.walk(find)
    return bool(found)


def _run(func_op, ctx):
    """One walk in dominance order with a value map and a scoped hash table.

    ``repl`` maps a value to the value that replaces it (barrier result ->
    barrier operand; result of a CSE'd op -> result of its twin). Each op's
    operands are rewritten through ``repl`` when the op is reached; an op with
    a rewritten operand is *touched*. (Operation handles are not used as
    dict keys: their hash follows operands and attributes.)
    """
    if not ctx.module_may_contain(*_BARRIERS):
        return  # no barrier in the module: nothing to do
    repl: dict = {}
    dead: list = []
    stats = {"barriers-removed": 0, "ops-cse": 0}
    rw = ctx.rewriter

    def walk_block(block, table: list[dict]):
        table.append({})
        for view in list(block.operations):
            op = view.operation
            touched = _rewrite_operands(op, repl, rw)
            if _is_barrier(op):
                for res, val in zip(op.results, op.operands):
                    repl[res] = val
                dead.append(op)
                stats["barriers-removed"] += 1
                continue
            if _cse_candidate(op) and _cse(op, touched, table, repl):
                dead.append(op)
                stats["ops-cse"] += 1
                continue
            for region in op.regions:
                for b in region.blocks:
                    walk_block(b, table)
        table.pop()

    if not _has_barrier(func_op):
        return
    for region in func_op.regions:
        for b in region.blocks:
            walk_block(b, [])
    # Uses are all rewritten (every use follows its definition in the walk);
    # erase users first (reverse order), so nothing erased still has uses.
    for op in reversed(dead):
        for r in op.results:
            if r in repl and any(True for _ in r.uses):  # a use the walk did not reach (CFG regions)
                rw.replace_all_uses_with(r, repl[r])
        rw.erase_op(op)
    ctx.stats.update({k: v for k, v in stats.items() if v})


register(
    PassInfo(
        "remove-opt-barriers",
        "Drop optimization_barrier (mhlo and stablehlo), forward operands, CSE the touched ops",
        _run,
        anchor="func.func",
        dialect=None,
        class_name="RemoveOptimizationBarriers",
        aliases=("remove-optimization-barriers",),
        statistics=("barriers-removed", "ops-cse"),
        source=(
            "seed 004 step 8 and its NOTE (one pass for both dialects, inline nested CSE; "
            "argument '--remove-opt-barriers'); DESIGN.md row 8"
        ),
    )
)
