"""fuseDotLogisticOp: a dot feeding a logistic (and the SiLU multiply) becomes one ``DotLogistic`` fusion.

Two machineries over one collected list of ``logistic`` ops:

* Pass A (cluster collector): ``logistic`` whose operand is produced by a
  ``dot_general`` (preferred) or ``dot`` (fallback) and whose result has exactly
  one use. If that user is a ``multiply`` whose two operands are both the dot's
  or the logistic's result (``n_dot`` counts both, so the
  SiLU form ``multiply(dot, logistic(dot))`` gives 2), the cluster is
  ``{dot, logistic, multiply}``; otherwise ``{dot, logistic}`` and the multiply
  stays outside. Kind ``DotLogistic``.
* Pass B (reshape reassociation, no cluster): ``dot -> reshape -> logistic ->
  multiply(reshape, logistic)`` where the reshape has exactly two uses (the
  logistic and the multiply) becomes ``dot -> logistic -> multiply -> reshape``
  so the elementwise ops run on the un-reshaped dot output; the old multiply,
  logistic and reshape are erased, the dot is kept. Bit-exact (reshape only
  moves data).
"""

from __future__ import annotations

from ...dialects import FusionKind
from ...ir_utils import as_op, defining_op, has_one_use, num_uses
from .common import inside_fusion, same_block
from .run import FusionRun

#: the op kinds this sub-pass seeds from
ANCHORS = ("logistic",)


def _dot_producer(run: FusionRun, v):
    p = defining_op(v)
    if p is None:
        return None
    if run.d.is_op(p, "dot_general"):  # preferred (TypeID 0x9d306f8)
        return p
    if run.d.is_op(p, "dot"):  # fallback (0x9d306f0)
        return p
    return None


def _pass_a(run: FusionRun, logistics) -> None:
    d = run.d
    for lg in logistics:
        lgb = lg.block
        if lgb is None or inside_fusion(lg):
            continue
        dot = _dot_producer(run, lg.operands[0])
        if dot is None:
            continue
        db = dot.block
        if db is None or db != lgb:
            continue
        # hasOneUse (a logistic has exactly one result), keeping the one use
        lres = lg.result
        it = iter(lres.uses)
        use = next(it, None)
        if use is None or next(it, None) is not None:
            run.ctx.debug(f"DotLogistic: logistic at {lg.location} has {num_uses(lres)} uses")
            continue
        user = as_op(use.owner)
        ops = [dot, lg]
        if d.is_op(user, "multiply"):
            ub = user.block
            if ub is not None and ub == lgb:
                dres = dot.results[0]
                n_dot = sum(1 for v in user.operands if v == dres or v == lres)
                if n_dot == 2:
                    ops.append(user)
        run.emit(ops, FusionKind.DOT_LOGISTIC)


def _pass_b(run: FusionRun, logistics) -> None:
    d = run.d
    for lg in logistics:
        if lg.block is None or inside_fusion(lg):
            continue
        r = defining_op(lg.operands[0])
        if not d.is_op(r, "reshape") or num_uses(r.results[0]) != 2:
            continue
        dot = _dot_producer(run, r.operands[0])
        if dot is None:
            continue
        mul, remaining = None, 2
        for use in r.results[0].uses:
            owner = as_op(use.owner)
            if owner == lg:
                remaining -= 1
            elif d.is_op(owner, "multiply"):
                mul = owner
                remaining -= 1
        if remaining != 0 or mul is None:
            continue
        # legality beyond the seed's counts: the multiply is exactly mul(reshape, logistic)
        # and the logistic feeds nothing else, else erasing them would drop a value.
        rres, lres = r.results[0], lg.results[0]
        ops_ = list(mul.operands)
        if not (len(ops_) == 2 and ((ops_[0] == rres and ops_[1] == lres) or (ops_[0] == lres and ops_[1] == rres))):
            continue
        if not has_one_use(lg) or not all(same_block(o, mul) for o in (r, lg, dot)):
            continue
        loc = mul.location
        dres = dot.results[0]
        with mul.context, loc:
            new_lg = run.create(d.name("logistic"), results=[dres.type], operands=[dres], loc=loc, before=mul)
            pair = [new_lg.result if v == lres else dres for v in ops_]
            new_mul = run.create(d.name("multiply"), results=[dres.type], operands=pair, loc=loc, before=mul)
            new_r = run.create(d.name("reshape"), results=[mul.results[0].type], operands=[new_mul.result],
                               loc=loc, before=mul)
        run.replace_all_uses_with(mul.results[0], new_r.result)
        run.erase(mul)
        run.erase(lg)
        run.erase(r)
        run.ctx.stats["reassociated-reshape"] += 1


def fuse_dot_logistic(run: FusionRun) -> None:
    """``fuseDotLogisticOp``: Pass A (clusters) then Pass B (reshape sinking)."""
    logistics = run.anchors(*ANCHORS)
    _pass_a(run, logistics)
    _pass_b(run, logistics)
