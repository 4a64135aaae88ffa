"""``raise-logistic``: ``1 / (1 + exp(-x))`` -> ``logistic(x)``.

Modern JAX lowers ``jax.nn.sigmoid`` / ``jax.nn.silu`` to
``divide(1, add(1, exponential(negate(x))))`` (see
``corpus/jax/swiglu_mlp_nn_silu.stablehlo.mlir``), so NeuronOpFusion's
DotLogistic matcher, which keys on ``logistic``, would never fire on real JAX
code. This pass raises the idiom back to one ``logistic`` op.

Match (both dialects, element type float, any static or dynamic shape):
``divide(c1, add(c1', exponential(negate(x))))`` where ``c1``/``c1'`` are splat
1.0 constants (possibly through ``broadcast_in_dim``/``reshape``) and the add's
operands are in either order; ``negate``, ``exponential`` and ``add`` must each
have exactly one use (else their values are needed anyway and nothing is
saved). The divide is replaced by ``logistic(x)`` at the divide's location; the
dead chain is erased, and so are the 1.0 producers if nothing else uses them.

Gate: ``CompileConfig.raise_logistic`` (``hilo2penguin --enable-raise-logistic``)
runs it before the spine (``compiler.build_spine``). Numerics: ``logistic``
is the same function; the reference interpreter evaluates it as
``1/(1+exp(-x))`` (measured bit-exact in ``test/unit/transforms/fusion/test_raise_logistic.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hilo_mlir.fusion import report as fusion_report
from hilo_mlir.fusion.report.vocabulary import LOGISTIC
from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.dialects import TABLES, hlo_short_name
from hilo_mlir.ir.utils import defining_op, has_one_use, op_key
from hilo_mlir.passmanager.registry import PassInfo, Statistic, register
from hilo_mlir.rewrite.pattern import PatternRewriter, RewritePattern, apply_patterns_once

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext

_CONST_CHAIN = ("constant", "broadcast_in_dim", "reshape", "broadcast", "convert")
RULE = "RaiseLogistic"


def _unused(v) -> bool:
    """``v`` has no use (reads at most one use-list entry: a shared 1.0 may have thousands)."""
    return next(iter(v.uses), None) is None


def _splat_one(v, memo: dict | None = None) -> bool:
    """``v`` is a splat 1.0 constant, possibly through ``broadcast_in_dim``/``reshape``/``broadcast``.

    ``memo`` (:func:`value_key` of a constant's result -> answer) saves
    re-reading a 1.0 that every sigmoid of the module shares; the caller
    drops it whenever it erases a constant (its address may be reused).
    """
    for _ in range(8):
        if memo is not None:
            k = hash(v)  # == value_key(v)
            hit = memo.get(k)
            if hit is not None:
                return hit
        op = defining_op(v)
        if op is None:
            return False
        s = hlo_short_name(op)
        if s == "constant":
            try:
                dense = ir.DenseElementsAttr(op.attributes["value"])
                res = dense.is_splat and ir.FloatAttr(dense.get_splat_value()).value == 1.0
            except (ValueError, TypeError):
                res = False
            if memo is not None:
                memo[k] = res
            return res
        if s in ("broadcast_in_dim", "reshape", "broadcast"):
            v = op.operands[0]
            continue
        return False
    return False


def _is_float(v) -> bool:
    try:
        return isinstance(ir.ShapedType(v.type).element_type, ir.FloatType)
    except (ValueError, TypeError):
        return False


def match_logistic(div, memo: dict | None = None):
    """Match ``1 / (1 + exp(-x))`` at ``div``.

    Returns:
        ``((x, [negate, exponential, add], [one producers]), None)`` on a match;
        ``(None, (reason code, culprit op))`` for a candidate (a divide whose
        denominator is an add of an exponential) that fails a check;
        ``(None, None)`` for any other op. ``memo``: see :func:`_splat_one`.
    """
    name = div.name  # read once
    d = TABLES.get(name.split(".", 1)[0])
    if d is None or d.short(name) != "divide":
        return None, None
    ops = div.operands
    add = defining_op(ops[1])  # the denominator first: most divides are not candidates
    if not d.is_op(add, "add"):
        return None, None
    num = ops[0]
    aops = add.operands
    a0, a1 = aops[0], aops[1]
    orders = [(e, cv) for ev, cv in ((a0, a1), (a1, a0)) for e in (defining_op(ev),) if d.is_op(e, "exponential")]
    if not orders:
        return None, None
    if not has_one_use(add):
        return None, ("add-multi-use", add)
    if not _is_float(div.result):
        return None, ("dtype-not-float", None)
    if not _splat_one(num, memo):
        return None, ("numerator-not-one", defining_op(num))
    first = None
    for e, cv in orders:
        found, refusal = _match_exp(d, div, e, cv, memo)
        if found is not None:
            x, n = found
            return (x, [n, e, add], [defining_op(num), defining_op(cv)]), None
        first = first or refusal
    return None, first


def _match_exp(d, div, e, cv, memo):
    """``exp(-x) + cv`` with ``cv`` a splat 1.0: ``((x, negate), None)`` or ``(None, refusal)``."""
    if not has_one_use(e):
        return None, ("exp-multi-use", e)
    if not _splat_one(cv, memo):
        return None, ("addend-not-one", defining_op(cv))
    n = defining_op(e.operands[0])
    if n is None or not d.is_op(n, "negate"):
        return None, ("exp-operand-not-negate", n)
    if not has_one_use(n):
        return None, ("negate-multi-use", n)
    x = n.operands[0]
    if x.type != div.result.type:
        return None, ("type-mismatch", None)
    return (x, n), None


def _erase_dead_consts(op, memo: dict, erased: set, rw) -> None:
    """Erase ``op`` and its constant-chain producers while each is unused; add their keys to ``erased``."""
    while op is not None:
        short = hlo_short_name(op)
        if short not in _CONST_CHAIN or not _unused(op.results[0]):
            return
        nxt = defining_op(op.operands[0]) if len(op.operands) else None
        if short == "constant":
            memo.clear()  # its address may be reused by an op created later
        erased.add(op_key(op))
        rw.erase_op(op)
        op = nxt


class LogisticRefusal(str):
    """Why a candidate divide was not raised: the text is the fusion report's reason
    (``code`` or ``code:detail``); ``culprit`` is the op that decided (or None)."""

    code: str
    detail: str | None
    culprit: Any

    def __new__(cls, code: str, detail: str | None, culprit: Any) -> LogisticRefusal:
        self = super().__new__(cls, code + (f":{detail}" if detail else ""))
        self.code, self.detail, self.culprit = code, detail, culprit
        return self


def _refusal(div: Any, code: str, culprit: Any) -> LogisticRefusal:
    detail = culprit.name if culprit is not None else (str(div.result.type) if code == "dtype-not-float" else None)
    return LogisticRefusal(code, detail, culprit)


class _ReportRefusals:
    """A :class:`~hilo_mlir.rewrite.pattern.MatchFailureListener` writing each refused candidate to the fusion report."""

    def __init__(self, rec: Any):
        self.rec = rec

    def notify_match_failure(self, pattern: str, op: ir.Operation, reason: str) -> None:
        if isinstance(reason, LogisticRefusal):  # a candidate (not just any divide)
            self.rec.refused(RULE, LOGISTIC, op, reason.code, reason.detail, reason.culprit)


class RaiseLogistic(RewritePattern):
    """``divide(1, add(1, exponential(negate(x))))`` -> ``logistic(x)`` (see the module docstring).

    Root: ``divide`` of either dialect. A candidate that fails a check is
    refused with a :class:`LogisticRefusal`; any other divide with "not
    1/(1+exp(..))". The match found is kept for the rewrite (the drivers ask
    about an op and then rewrite it with nothing mutated in between).
    """

    name, statistic = "raise-logistic", "raised-logistic"
    roots = tuple(d.name("divide") for d in TABLES.values())

    def __init__(self, rec: Any = None):
        self.rec = rec  # the fusion report's recorder, or None
        self.memo: dict[int, bool] = {}  # see _splat_one
        # (divide, the rewriter's action count then, match) of the last match: kept only while nothing changed
        self._found: tuple[Any, int, Any] | None = None

    def match(self, op: Any, rw: PatternRewriter) -> bool:
        found = self._found
        actions = rw.rewriter.actions
        if found is not None and found[1] == actions and found[0] == op:
            return True
        m, refusal = match_logistic(op, self.memo)
        if m is not None:
            self._found = (op, actions, m)
            return True
        if refusal is None:
            return rw.notify_match_failure(op, "not 1/(1+exp(..)): the denominator is not an add of an exponential")
        code, culprit = refusal
        return rw.notify_match_failure(op, lambda: _refusal(op, code, culprit))

    def rewrite(self, op: Any, rw: PatternRewriter) -> None:
        assert self._found is not None and self._found[0] == op, "matched"
        x, chain, ones = self._found[2]
        self._found = None
        div = op
        if self.rec is not None:
            self.rec.formed(RULE, LOGISTIC, [*chain, div])
        d = TABLES[div.name.split(".", 1)[0]]
        res = div.result
        rewriter = rw.rewriter
        # the location and the insertion point carry the context: no context manager to enter
        lg = rewriter.create(d.name("logistic"), results=[res.type], operands=[x], loc=div.location, before=div)
        rewriter.replace_all_uses_with(res, lg.result)
        rewriter.erase_ops([div, *reversed(chain)])  # users first: divide, add, exponential, negate
        # Keys first: erasing one producer chain may erase the other producer
        # (numerator broadcast(c) and the add's own c), which must then not be touched.
        keyed = [(op_key(o), o) for o in ones if o is not None]
        erased: set[int] = set()
        for k, o in keyed:
            if k not in erased:
                _erase_dead_consts(o, self.memo, erased, rewriter)


#: per dialect, the op kinds every candidate holds (a divide of an add of an exponential)
_CANDIDATE_KINDS = tuple(tuple(d.name(k) for k in ("divide", "add", "exponential")) for d in TABLES.values())


def _run(anchor: Any, ctx: PassContext) -> None:
    rec = fusion_report.recorder(ctx, anchor)
    try:
        # No dialect with all three kinds in the module (census, no walk): no candidate, nothing to ask.
        if any(all(ctx.module_may_contain(n) for n in kinds) for kinds in _CANDIDATE_KINDS):
            listener = _ReportRefusals(rec) if rec is not None else None
            apply_patterns_once(anchor, (RaiseLogistic(rec),), ctx, listener=listener)
    finally:
        fusion_report.function_done(ctx, anchor)


class _RaiseLogisticState(fusion_report.ReportRun):
    """Per-run state of raise-logistic (only the report's)."""


register(
    PassInfo(
        "raise-logistic",
        "Raise 1/(1+exp(-x)) (how JAX lowers jax.nn.sigmoid/silu) to logistic(x) so DotLogistic can match",
        _run,
        anchor="func.func",
        dialect=None,
        class_name="RaiseLogistic",
        options_type=fusion_report.ReportOptions,
        state=_RaiseLogisticState,
        statistics=(Statistic("raised-logistic", "1/(1+exp(-x)) chains raised to logistic(x)"),),
        source="ours (issue 3); runs before the spine when CompileConfig.raise_logistic is set",
    )
)
