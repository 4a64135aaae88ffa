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

from hilo_mlir.fusion.report.vocabulary import REASSOCIATED_RESHAPE
from hilo_mlir.ir.dialects import FusionKind
from hilo_mlir.ir.utils import as_op, defining_op, has_more_uses, has_one_use, num_uses
from hilo_mlir.passes.fusion.op_fusion.common import inside_fusion, same_block
from hilo_mlir.passes.fusion.op_fusion.run import FusionRun

#: the op kinds this sub-pass seeds from
ANCHORS = ("logistic",)
#: the rule names the fusion report gives Pass A and Pass B
RULE = "fuseDotLogisticOp"
RULE_B = "fuseDotLogisticOp (Pass B)"


def _dot_producer(run: FusionRun, v):
    p = defining_op(v)
    if p is None:
        return None
    if run.d.is_op(p, "dot_general"):  # preferred
        return p
    if run.d.is_op(p, "dot"):  # fallback
        return p
    return None


def _match_a(run: FusionRun, lg):
    """Pass A at one logistic: ``((cluster ops, reads), None)`` or ``(None, (reason code, culprit op or None, detail))``.

    ``reads``: what the match read of the ops, as :meth:`FusionRun.emit` takes it: ``(block, per op its
    operand values or None, per op its result values or None)`` (a dot and a logistic have one result).
    """
    v = lg.operands[0]
    dot = _dot_producer(run, v)
    if dot is None:
        p = defining_op(v)
        return None, ("producer-not-dot", p, None if p is not None else "block argument")
    lgb = lg.block
    db = dot.block
    if db is None or db != lgb:
        return None, ("not-one-block", dot, None)
    # hasOneUse (a logistic has exactly one result), keeping the one use
    lres = lg.result
    it = iter(lres.uses)
    use = next(it, None)
    second = next(it, None)
    if use is None or second is not None:
        culprit = as_op(second.owner) if second is not None else None
        return None, ("logistic-multi-use", culprit, f"{num_uses(lres)} uses" if run.listening else None)
    user = as_op(use.owner)
    ops = [dot, lg]
    operands: list = [None, [v]]  # a logistic has one operand
    results: list = [[v], [lres]]  # v is the dot's one result
    if run.d.is_op(user, "multiply"):
        ub = user.block
        if ub is not None and ub == lgb:
            mops = list(user.operands)
            n_dot = sum(1 for u in mops if u == v or u == lres)
            if n_dot == 2:
                ops.append(user)
                operands.append(mops)
                results.append(None)
    return (ops, (lgb, operands, results)), None


def _sealed(ops, dres) -> bool:
    """The cluster ``ops`` of :func:`_match_a` is a sealed chain (:class:`~hilo_mlir.fusion.FusionCluster`):
    the dot's result feeds only the cluster. ``[dot, logistic]``: the logistic is the dot's one user;
    ``[dot, logistic, multiply]``: the multiply is ``multiply(dot, logistic)`` (either order: the
    logistic has one use, and both operands are the dot's or the logistic's), so two uses of the dot
    are the logistic's and the multiply's. A dot (one result ``dres``, no region) comes before its users."""
    return not has_more_uses(dres, len(ops) - 1)  # it has a use (the logistic's)


def _pass_a(run: FusionRun, logistics) -> None:
    for lg in logistics:
        if lg.block is None:
            continue
        if inside_fusion(lg):
            run.refuse(RULE, FusionKind.DOT_LOGISTIC, lg, "inside-fusion")
            continue
        found, refusal = _match_a(run, lg)
        if found is None:
            code, culprit, detail = refusal
            run.refuse(RULE, FusionKind.DOT_LOGISTIC, lg, code, culprit, detail)
            continue
        ops, reads = found
        if _sealed(ops, reads[2][0][0]):
            run.emit(ops, FusionKind.DOT_LOGISTIC, RULE, anchor=lg, sealed=True, reads=reads)
        else:
            run.emit(ops, FusionKind.DOT_LOGISTIC, RULE, anchor=lg)


def _the_multiply(d, r, lg):
    """The multiply among the reshape ``r``'s two users when the other is ``lg`` (the exact-count gate), else None."""
    mul, remaining = None, 2
    for use in r.results[0].uses:
        owner = as_op(use.owner)
        if owner == lg:
            remaining -= 1
        elif d.is_op(owner, "multiply"):
            mul = owner
            remaining -= 1
    return mul if remaining == 0 else None


def _match_b(run: FusionRun, lg, r):
    """Pass B at a logistic fed by reshape ``r``: ``((dot, multiply), None)`` or ``(None, refusal)``."""
    d = run.d
    n = num_uses(r.results[0])
    if n != 2:
        return None, ("reshape-users!=2", None, f"{n} users")
    dot = _dot_producer(run, r.operands[0])
    if dot is None:
        p = defining_op(r.operands[0])
        return None, ("reshape-producer-not-dot", p, None if p is not None else "block argument")
    mul = _the_multiply(d, r, lg)
    if mul is None:
        return None, ("reshape-users-not-logistic-and-multiply", None, None)
    # legality beyond the seed's counts: the multiply is exactly mul(reshape, logistic)
    # and the logistic feeds nothing else, else erasing them would drop a value.
    rres, lres = r.results[0], lg.results[0]
    ops_ = list(mul.operands)
    if not (len(ops_) == 2 and ((ops_[0] == rres and ops_[1] == lres) or (ops_[0] == lres and ops_[1] == rres))):
        return None, ("multiply-not-reshape-times-logistic", mul, None)
    if not has_one_use(lg):
        return None, ("logistic-multi-use", None, None)
    for o in (r, lg, dot):
        if not same_block(o, mul):
            return None, ("not-one-block", o, None)
    return (dot, mul), None


def _pass_b(run: FusionRun, logistics) -> None:
    d = run.d
    for lg in logistics:
        if lg.block is None or inside_fusion(lg):
            continue  # Pass A recorded those
        r = defining_op(lg.operands[0])
        if not d.is_op(r, "reshape"):
            continue
        found, refusal = _match_b(run, lg, r)
        if found is None:
            if run.listening:
                code, culprit, detail = refusal
                if code == "logistic-multi-use":
                    detail = f"{num_uses(lg.result)} uses"
                run.refuse(RULE_B, REASSOCIATED_RESHAPE, lg, code, culprit, detail)
            continue
        dot, mul = found
        if run.rec is not None:
            run.rec.formed(RULE_B, REASSOCIATED_RESHAPE, [r, lg, mul])
        _reassociate(run, dot, r, lg, mul)


def _reassociate(run: FusionRun, dot, r, lg, mul) -> None:
    """``dot -> r -> lg -> mul(r, lg)`` becomes ``dot -> logistic -> multiply -> reshape``; the old three are erased."""
    d = run.d
    loc = mul.location
    dres, lres = dot.results[0], lg.results[0]
    ops_ = list(mul.operands)
    with mul.context, loc:
        new_lg = run.create(d.name("logistic"), results=[dres.type], operands=[dres], loc=loc, before=mul)
        pair = [new_lg.result if v == lres else dres for v in ops_]
        new_mul = run.create(d.name("multiply"), results=[dres.type], operands=pair, loc=loc, before=mul)
        new_r = run.create(d.name("reshape"), results=[mul.results[0].type], operands=[new_mul.result], loc=loc, before=mul)
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
