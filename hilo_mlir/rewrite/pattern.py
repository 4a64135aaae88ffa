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

What they cost (the candidates come from the module's census; no walk unless a
rewrite needs the pre-order of several root kinds):

* root kinds the census says are absent from the module, or from the function
  the driver runs on (``Census.names_in``: a lookup for a top-level op, no
  walk), are never asked about; none present: nothing is read at all (most
  of the StableHLO spine's decomposition functions cost that lookup alone);
* the candidates of a kind are the census's list of it in the op (for a
  module-anchored pass, each top-level op's list: no walk of the module);
* unless someone listens for match failures (``--debug``, a listener), every
  candidate is first matched once, quietly, in the census's order (a list
  that insertions left out of walk order is not re-sorted for it): none
  matches, nothing would change, and the driver returns; else the sweep
  skips the candidates already refused while nothing has changed since (a
  rewrite is what makes another op rewritable), so an op is matched once
  until the first rewrite;
* one op-name read per candidate at most (the census's lists are per name).

In the checking mode (``HILO_MLIR_CHECK_ANALYSES=1``) every candidate list is
compared with a walk of the op, and every skipped candidate is matched again
and must still be refused (:class:`PatternCheckError` otherwise).

A pattern says why it does not apply with :meth:`PatternRewriter.notify_match_failure`:
the reason goes to the pass's ``--debug`` lines (only when ``--debug`` is on)
and to a :class:`MatchFailureListener` when one is given (the fusion report);
otherwise the call returns False and formats nothing.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Protocol

from hilo_mlir.ir.binding import checking_mode_enabled, identity_key, ir
from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from collections import Counter

    from hilo_mlir.ir.dialects import DialectTable
    from hilo_mlir.rewrite.rewriter import Rewriter


class MatchFailureListener(Protocol):
    """Hears why a pattern did not apply to an op."""

    def notify_match_failure(self, pattern: str, op: ir.Operation, reason: str) -> None: ...


class CandidateCensus(Protocol):
    """What the drivers need of the module's census (:class:`~hilo_mlir.analysis.census.Census`)."""

    @property
    def names(self) -> set[str]: ...

    def ops_named(self, top: Any, *names: str, any_order: bool = False) -> list[Any]: ...

    def names_in(self, top: Any) -> AbstractSet[str]: ...


class PatternContext(Protocol):
    """What the drivers need of the running pass (a :class:`~hilo_mlir.passmanager.pass_context.PassContext`)."""

    @property
    def rewriter(self) -> Rewriter: ...

    @property
    def stats(self) -> Counter[str]: ...

    @property
    def d(self) -> DialectTable | None: ...

    @property
    def census(self) -> CandidateCensus: ...

    def ops_named(self, top: Any, *op_names: str) -> list[Any]: ...

    def module_may_contain(self, *op_names: str) -> bool: ...

    def debug(self, msg: str) -> None: ...

    @property
    def debugging(self) -> bool: ...


class PatternCheckError(HiloError):
    """The checking mode found a driver's candidates (or a skipped refusal) different from the truth."""


class PatternRewriter:
    """What a pattern mutates through: the pass's rewriter (every mutation is recorded), its
    statistics, its dialect table, and the match-failure channel.

    Attributes:
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter`.
        stats: the pass's statistics.
        d: the pass's dialect table (None for a dialect-neutral pass).
        ctx: the running pass's context.
        listening: someone hears match failures (``--debug`` or a listener); when False,
            :meth:`notify_match_failure` returns at once.
    """

    def __init__(self, ctx: PatternContext, listener: MatchFailureListener | None = None):
        self.ctx = ctx
        self.rewriter = ctx.rewriter
        self.stats = ctx.stats
        self.d = ctx.d
        self.listener = listener
        self.pattern = ""
        self.listening = listener is not None or bool(ctx.debugging)
        self.quiet = False  # the drivers' look-ahead (no candidate matches?) says nothing

    def notify_match_failure(self, op: Any, reason: str | Callable[[], str]) -> bool:
        """Record why the current pattern does not apply to ``op``; returns False (``return rw.notify_match_failure(...)``).

        ``reason`` may be a function, called only when someone listens (``--debug`` or a listener).
        """
        if self.quiet or not self.listening:
            return False
        text = reason() if callable(reason) else reason
        op = op.operation
        if self.ctx.debugging:
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


#: (dialect prefix, each pattern's roots) -> full root name -> indices of the patterns rooted there
_ROOT_INDEX: dict[tuple[str | None, tuple[tuple[str, ...], ...]], dict[str, tuple[int, ...]]] = {}


def root_names(patterns: Sequence[RewritePattern], d: DialectTable | None) -> dict[str, list[RewritePattern]]:
    """Full op name -> the patterns rooted at it, in the order given (the resolution is kept per dialect and roots)."""
    key = (d.prefix if d is not None else None, tuple(p.roots for p in patterns))
    index = _ROOT_INDEX.get(key)
    if index is None:
        found: dict[str, list[int]] = {}
        for i, p in enumerate(patterns):
            for r in p.roots:
                found.setdefault(d.name(r) if d is not None and "." not in r else r, []).append(i)
        if len(_ROOT_INDEX) > 512:  # roots built from a module's op names (token-type): keep it bounded
            _ROOT_INDEX.clear()
        index = _ROOT_INDEX[key] = {n: tuple(ix) for n, ix in found.items()}
    return {n: [patterns[i] for i in ix] for n, ix in index.items()}


class _PassRun:
    """What the drivers keep for one run of a pass (one ``ctx``): the checking mode, read once, and the
    root index of each pattern sequence the pass hands over."""

    __slots__ = ("checking", "roots")

    def __init__(self) -> None:
        self.checking = checking_mode_enabled()
        self.roots: dict[int, tuple[Sequence[RewritePattern], dict[str, list[RewritePattern]]]] = {}

    def root_names(self, patterns: Sequence[RewritePattern], d: DialectTable | None) -> dict[str, list[RewritePattern]]:
        hit = self.roots.get(id(patterns))
        if hit is not None and hit[0] is patterns:  # the sequence is held here: its id is not reused meanwhile
            return hit[1]
        by_name = root_names(patterns, d)
        self.roots[id(patterns)] = (patterns, by_name)
        return by_name


#: the pass run the drivers last served: (a weak reference to its ctx, what they keep for it)
_LAST: list[Any] = [None, None]


def _pass_run(ctx: PatternContext) -> _PassRun:
    ref = _LAST[0]
    if ref is not None and ref() is ctx:
        run: _PassRun = _LAST[1]
        return run
    run = _PassRun()
    try:
        _LAST[0], _LAST[1] = weakref.ref(ctx), run
    except TypeError:  # a context that cannot be weakly referenced: nothing kept
        _LAST[0] = _LAST[1] = None
    return run


class _Run:
    """One driver call: the candidates of ``top`` from the census, the look-ahead, the sweep."""

    def __init__(
        self,
        top: Any,
        by_name: dict[str, list[RewritePattern]],
        ctx: PatternContext,
        listener: MatchFailureListener | None,
        census: CandidateCensus,
        checking: bool,
    ):
        self.top = top
        self.ctx = ctx
        self.rw = PatternRewriter(ctx, listener)
        self.by_name = by_name
        self.census = census
        self.checking = checking
        self._tops: list[Any] | None = None
        self._module: bool | None = None

    # -- candidates ----------------------------------------------------------------------

    def _is_module(self) -> bool:
        if self._module is None:
            self._module = _is_module(self.top, self.ctx)
        return self._module

    def candidates(self, names: Sequence[str], any_order: bool) -> list[Any]:
        """The ops of ``top`` called any of ``names`` (one name after the other; each in walk
        order unless ``any_order``), from the census. For the module the census's lists of
        its top-level ops, in order (what a walk of the module would find, no walk)."""
        census = self.census
        if not self._is_module():
            ops = census.ops_named(self.top, *names, any_order=any_order)
        else:
            if self._tops is None:
                self._tops = [t.operation for t in self.top.regions[0].blocks[0].operations]
            ops = []
            for n in names:  # one name after the other, as for a function
                for t in self._tops:
                    ops.extend(census.ops_named(t, n, any_order=any_order))
        if self.checking:
            self._check_candidates(names, ops, any_order)
        return ops

    def in_sweep_order(self, names: list[str]) -> list[tuple[Any, str]]:
        """``(op, name)`` of every candidate in pre-order: the census's list for one name; one
        pre-order walk for several (the census keeps one list per name, not their interleaving)."""
        if len(names) == 1:
            n = names[0]
            return [(o, n) for o in self.candidates(names, False)]
        wanted = frozenset(names)
        found: list[tuple[Any, str]] = []
        append = found.append
        advance = ir.WalkResult.ADVANCE

        def visit(op: Any) -> ir.WalkResult:
            name = op.name
            if name in wanted:
                append((op, name))
            return advance

        self.top.walk(visit, ir.WalkOrder.PRE_ORDER)
        return found

    # -- matching ------------------------------------------------------------------------

    def look_ahead(self, names: list[str]) -> list[Any] | None:
        """Match every candidate once, quietly, in the census's order (no walk, no mutation):
        None when none matches, else the candidates refused before the first that matched."""
        rw = self.rw
        by_name = self.by_name
        refused: list[Any] = []
        rw.quiet = True
        try:
            for n in names:
                pats = by_name[n]
                for op in self.candidates((n,), True):
                    for p in pats:
                        rw.pattern = p.name
                        if p.match(op, rw):
                            return refused
                    refused.append(op)
            return None
        finally:
            rw.quiet = False

    def sweep(self, names: list[str], refused: list[Any] | None) -> int:
        """One pre-order sweep; a candidate in ``refused`` is skipped while nothing has changed since."""
        rw = self.rw
        by_name = self.by_name
        rewriter = rw.rewriter
        actions = rewriter.actions
        skip = {identity_key(o) for o in refused} if refused else None
        done = 0
        for op, n in self.in_sweep_order(names):
            if skip is not None:
                if rewriter.actions != actions:
                    skip = None  # something changed: every later candidate is asked again
                elif identity_key(op) in skip:
                    if self.checking:
                        self._check_refused(op, n)
                    continue
            for p in by_name[n]:
                rw.pattern = p.name
                if p.match_and_rewrite(op, rw):
                    done += 1
                    break
        return done

    def once(self, names: list[str]) -> int:
        top = self.top
        with top.context, top.location:
            if self.rw.listening:  # every refusal is to be heard: the sweep asks every candidate
                return self.sweep(names, None)
            refused = self.look_ahead(names)
            if refused is None:
                return 0
            return self.sweep(names, refused)

    # -- the checking mode ---------------------------------------------------------------

    def _walk(self) -> dict[str, list[Any]]:
        """Every op of ``top`` with a root name, by name, in walk (post-) order: the truth."""
        wanted = self.by_name
        found: dict[str, list[Any]] = {}
        advance = ir.WalkResult.ADVANCE

        def visit(op: Any) -> ir.WalkResult:
            if op.name in wanted:
                found.setdefault(op.name, []).append(op)
            return advance

        self.top.walk(visit)
        return found

    def _fail(self, what: str) -> None:
        label = ",".join(sorted({p.name for ps in self.by_name.values() for p in ps}))
        raise PatternCheckError(f"pattern driver check failed ({label}): {what}")

    def check_absent(self, present: list[str]) -> None:
        truth = self._walk()
        missing = sorted(n for n in truth if n not in present)
        if missing:
            self._fail(f"the census says {missing} are absent but the op holds {sum(len(truth[n]) for n in missing)} of them")

    def _check_candidates(self, names: Sequence[str], ops: list[Any], any_order: bool) -> None:
        truth = self._walk()
        want = [identity_key(o) for n in names for o in truth.get(n, ())]
        got = [identity_key(o) for o in ops]
        if any_order:
            want, got = sorted(want), sorted(got)
        if want != got:
            self._fail(f"candidates of {list(names)} differ from a walk's ({len(got)} listed, {len(want)} walked)")

    def _check_refused(self, op: Any, name: str) -> None:
        rw = self.rw
        rw.quiet = True
        try:
            for p in self.by_name[name]:
                if p.match(op, rw):
                    self._fail(f"{op.name} was skipped as refused, but {p.name} matches it now")
        finally:
            rw.quiet = False


def _is_module(top: Any, ctx: PatternContext) -> bool:
    """``top`` is the module the pass runs on (not one of its functions)."""
    mod = getattr(ctx, "module_op", None)
    return mod is not None and (top is mod or (top.name == "builtin.module" and identity_key(top) == identity_key(mod)))


def _apply_once(top: Any, patterns: Sequence[RewritePattern], ctx: PatternContext, listener: MatchFailureListener | None) -> int:
    run = _pass_run(ctx)
    by_name = run.root_names(patterns, ctx.d)
    census = ctx.census
    names = census.names
    present = [n for n in by_name if n in names]  # the root kinds the census says occur in the module (no walk)
    module = False
    if present:
        module = _is_module(top, ctx)
        if not module:
            # ... and in ``top`` itself (no walk for a top-level op): a function holding none of them, such
            # as most of the StableHLO spine's decomposition functions, costs this lookup and nothing else
            inside = census.names_in(top)
            present = [n for n in present if n in inside]
    if not present and not run.checking:
        return 0
    driver = _Run(top, by_name, ctx, listener, census, run.checking)
    driver._module = module if present else None
    if run.checking:
        driver.check_absent(present)
        if not present:
            return 0
    return driver.once(present)


def apply_patterns_once(
    top: Any, patterns: Sequence[RewritePattern], ctx: PatternContext, listener: MatchFailureListener | None = None
) -> int:
    """One pre-order sweep of ``patterns`` over ``top`` (nested regions included); returns the number of rewrites.

    Ops erased by an earlier rewrite of the sweep must not be visited later: a
    pattern may erase only its root or ops visited before it (producers).
    Hand the same ``patterns`` sequence to every call of a pass run (e.g. a
    module-level tuple): its root index is then resolved once per run.
    """
    return _apply_once(top, patterns, ctx, listener)


def apply_patterns_greedily(
    top: Any,
    patterns: Sequence[RewritePattern],
    ctx: PatternContext,
    max_iterations: int = 10,
    listener: MatchFailureListener | None = None,
) -> int:
    """Sweeps of ``patterns`` over ``top`` until one rewrites nothing (at most ``max_iterations``); returns the rewrites.

    Each sweep is :func:`apply_patterns_once`'s: a candidate already refused is
    not asked again while nothing has changed, so the sweep after the last
    rewrite is the only one that matches everything, and none is made when the
    census's candidates all refuse from the start.
    """
    total = 0
    for _ in range(max_iterations):
        n = _apply_once(top, patterns, ctx, listener)
        total += n
        if n == 0:
            break
    return total
