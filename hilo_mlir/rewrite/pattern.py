"""Rewrite patterns and their drivers (MLIR's ``RewritePattern`` + ``notifyMatchFailure``; xDSL's
``PatternRewriteWalker`` / ``GreedyRewritePatternApplier``).

A pass whose shape is "find ops of some kinds, rewrite each that matches" is a
list of :class:`RewritePattern` and one driver call::

    class ConvertNoop(RewritePattern):
        name = "convert-noop"          # its statistic and debug label
        roots = ("convert",)           # short names, resolved through the pass's dialect table

        def match(self, op, rw):       # pure: no mutation
            return op.operands[0].type == op.results[0].type or rw.notify_match_failure(op, "changes the type")

        def rewrite(self, op, rw):
            rw.replace_op(op, [op.operands[0]])

    def run(func_op, ctx):
        apply_patterns_once(func_op, PATTERNS, ctx)

Drivers:

* :func:`apply_patterns_once`: one pre-order sweep over the op (a producer is
  visited before its users, so chains collapse in one sweep); the first
  pattern of an op's kind that matches rewrites it.
* :func:`apply_patterns_greedily`: sweeps until one changes nothing (or ``max_iterations``).

Both skip the root kinds the module's census says are absent, without a walk,
and return at once when no candidate the census lists matches as the IR is
now (a rewrite is what makes another op rewritable, so nothing would change;
not when someone listens for match failures: then the sweep states every
refusal). A sweep over one root name visits the census's list of it (no walk).

A pattern says why it does not apply with :meth:`PatternRewriter.notify_match_failure`:
the reason goes to the pass's ``--debug`` lines (only when ``--debug`` is on)
and to a :class:`MatchFailureListener` when one is given (the fusion report).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from hilo_mlir.ir.binding import ir

if TYPE_CHECKING:
    from collections import Counter

    from hilo_mlir.ir.dialects import DialectTable
    from hilo_mlir.rewrite.rewriter import Rewriter


class MatchFailureListener(Protocol):
    """Hears why a pattern did not apply to an op."""

    def notify_match_failure(self, pattern: str, op: ir.Operation, reason: str) -> None: ...


class PatternContext(Protocol):
    """What the drivers need of the running pass (a :class:`~hilo_mlir.passmanager.pass_context.PassContext`)."""

    @property
    def rewriter(self) -> Rewriter: ...

    @property
    def stats(self) -> Counter[str]: ...

    @property
    def d(self) -> DialectTable | None: ...

    def ops_named(self, top: Any, *op_names: str, any_order: bool = False) -> list[Any]: ...

    def module_may_contain(self, *op_names: str) -> bool: ...

    def debug(self, msg: str) -> None: ...

    @property
    def debugging(self) -> bool: ...


class PatternRewriter:
    """What a pattern mutates through: the pass's rewriter (every mutation is recorded), its
    statistics, its dialect table, and the match-failure channel.

    Attributes:
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter`.
        stats: the pass's statistics.
        d: the pass's dialect table (None for a dialect-neutral pass).
        ctx: the running pass's context.
    """

    def __init__(self, ctx: PatternContext, listener: MatchFailureListener | None = None):
        self.ctx = ctx
        self.rewriter = ctx.rewriter
        self.stats = ctx.stats
        self.d = ctx.d
        self.listener = listener
        self.pattern = ""
        self.quiet = False  # the drivers' look-ahead (no candidate matches?) says nothing

    def notify_match_failure(self, op: Any, reason: str | Callable[[], str]) -> bool:
        """Record why the current pattern does not apply to ``op``; returns False (``return rw.notify_match_failure(...)``).

        ``reason`` may be a function, called only when someone listens (``--debug`` or a listener).
        """
        if self.quiet:
            return False
        debugging = self.ctx.debugging
        if debugging or self.listener is not None:
            text = reason() if callable(reason) else reason
            op = op.operation
            if debugging:
                self.ctx.debug(f"{self.pattern}: {op.name} at {op.location}: {text}")
            if self.listener is not None:
                self.listener.notify_match_failure(self.pattern, op, text)
        return False

    # the rewriter's mutations, for brevity in patterns
    def replace_op(self, op: Any, values: Iterable[Any]) -> None:
        self.rewriter.replace_op(op, values)

    def erase_op(self, op: Any) -> None:
        self.rewriter.erase_op(op)

    def create(self, name: str, **kw: Any) -> ir.Operation:
        return self.rewriter.create(name, **kw)


class RewritePattern:
    """A rewrite of one op kind (or a few): ``roots``, a pure :meth:`match` and a :meth:`rewrite`.

    Attributes:
        name: the pattern's label in ``--debug`` lines (and its statistic unless ``statistic`` is set).
        roots: short op names (``"transpose"``), resolved through the pass's
            dialect table; full names (``"func.call"``) for a dialect-neutral pass.
        statistic: the statistic bumped once per rewrite (default: ``name``).
        counts: bump the statistic after each rewrite.
    """

    name: str = ""
    roots: tuple[str, ...] = ()
    statistic: str = ""
    counts: bool = True

    def match(self, op: Any, rw: PatternRewriter) -> bool:
        """True if :meth:`rewrite` applies to ``op`` as the IR is now. Must not mutate anything."""
        return True

    def rewrite(self, op: Any, rw: PatternRewriter) -> None:
        raise NotImplementedError

    def match_and_rewrite(self, op: Any, rw: PatternRewriter) -> bool:
        """Rewrite ``op`` if it matches; True if it did."""
        if not self.match(op, rw):
            return False
        self.rewrite(op, rw)
        if self.counts:
            rw.stats[self.statistic or self.name] += 1
        return True


def root_names(patterns: Sequence[RewritePattern], d: DialectTable | None) -> dict[str, list[RewritePattern]]:
    """Full op name -> the patterns rooted at it, in the order given."""
    out: dict[str, list[RewritePattern]] = {}
    for p in patterns:
        for r in p.roots:
            out.setdefault(d.name(r) if d is not None and "." not in r else r, []).append(p)
    return out


def _candidates(top: Any, by_name: dict[str, list[RewritePattern]], ctx: PatternContext) -> list[str]:
    """The root names the census says occur in the module."""
    return [n for n in by_name if ctx.module_may_contain(n)]


def _matches_now(top: Any, names: list[str], by_name: dict[str, list[RewritePattern]], rw: PatternRewriter) -> bool:
    """Some op of ``top`` the census lists matches a pattern as the IR is now (no mutation, nothing said)."""
    rw.quiet = True
    with top.context, top.location:
        try:
            for op in rw.ctx.ops_named(top, *names, any_order=True):  # a yes/no answer: no walk to restore order
                for p in by_name[op.name]:
                    rw.pattern = p.name
                    if p.match(op, rw):
                        return True
            return False
        finally:
            rw.quiet = False


def _ops_in_walk_order(top: Any, names: list[str], rw: PatternRewriter) -> list[Any]:
    """The ops of ``top`` called any of ``names``, producers before their users.

    One name: the census's list (post-order, no walk); it is the pre-order of
    those ops unless one of them is nested in another of the same name (then
    the inner one comes first). Several names: one pre-order walk (the census
    keeps one list per name, not their interleaving).
    """
    if len(names) == 1:
        return rw.ctx.ops_named(top, names[0])
    wanted = frozenset(names)
    ops: list[Any] = []

    def visit(op: Any) -> ir.WalkResult:
        if op.name in wanted:
            ops.append(op.operation)
        return ir.WalkResult.ADVANCE

    top.walk(visit, ir.WalkOrder.PRE_ORDER)
    return ops


def _sweep(top: Any, names: list[str], by_name: dict[str, list[RewritePattern]], rw: PatternRewriter) -> int:
    ops = _ops_in_walk_order(top, names, rw)
    done = 0
    with top.context, top.location:
        for op in ops:
            for p in by_name[op.name]:
                rw.pattern = p.name
                if p.match_and_rewrite(op, rw):
                    done += 1
                    break
    return done


def _nothing_to_do(top: Any, names: list[str], by_name: dict[str, list[RewritePattern]], rw: PatternRewriter) -> bool:
    """No candidate root, or (when nobody listens for match failures) none matches as the IR is now.

    With ``--debug`` or a listener the sweep runs anyway, so every refusal is heard.
    """
    if not names:
        return True
    if rw.listener is not None or rw.ctx.debugging:
        return False
    return not _matches_now(top, names, by_name, rw)


def apply_patterns_once(
    top: Any, patterns: Sequence[RewritePattern], ctx: PatternContext, listener: MatchFailureListener | None = None
) -> int:
    """One pre-order sweep of ``patterns`` over ``top`` (nested regions included); returns the number of rewrites.

    Ops erased by an earlier rewrite of the sweep must not be visited later: a
    pattern may erase only its root or ops visited before it (producers).
    """
    rw = PatternRewriter(ctx, listener)
    by_name = root_names(patterns, ctx.d)
    names = _candidates(top, by_name, ctx)
    if _nothing_to_do(top, names, by_name, rw):
        return 0
    return _sweep(top, names, by_name, rw)


def apply_patterns_greedily(
    top: Any,
    patterns: Sequence[RewritePattern],
    ctx: PatternContext,
    max_iterations: int = 10,
    listener: MatchFailureListener | None = None,
) -> int:
    """Sweeps of ``patterns`` over ``top`` until one rewrites nothing (at most ``max_iterations``); returns the rewrites."""
    rw = PatternRewriter(ctx, listener)
    by_name = root_names(patterns, ctx.d)
    total = 0
    for _ in range(max_iterations):
        names = _candidates(top, by_name, ctx)
        if _nothing_to_do(top, names, by_name, rw):
            break
        n = _sweep(top, names, by_name, rw)
        total += n
        if n == 0:
            break
    return total
