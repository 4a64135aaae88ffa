"""One typed analysis manager per pipeline run (MLIR's ``AnalysisManager``).

An *analysis* is any class constructed as ``cls(op, am)`` (``am``: this
manager, to ask for the analyses it builds on; None when built outside a
run, as the checking mode does) that declares, as the class
attribute ``preserved_by``, the :class:`~hilo_mlir.rewrite.rewriter.Change` kinds
that leave it valid::

    class LiveRanges:
        preserved_by = Change.ATTRIBUTE          # attribute changes keep it
        def __init__(self, func_op, am): ...

    ranges = ctx.get_analysis(LiveRanges, func_op)

The manager caches one instance per (class, op) and listens to the rewriter:
a recorded change of a kind not in ``preserved_by`` drops the analyses of the
top-level op it happened in (and every analysis of the module op itself).
Nothing is claimed by hand; what a pass did decides. An analysis that keeps
itself current (the :class:`~hilo_mlir.analysis.census.Census`) subclasses
:class:`~hilo_mlir.rewrite.rewriter.Listener` and is registered with the
rewriter while cached.

A pass that computes an analysis as a by-product of its rewrite (the
scheduler reads the entry block it reorders) hands it over with
:meth:`AnalysisManager.put` *after* its last mutation; any later change
invalidates it like any other. The checking mode recomputes every cached
analysis that defines ``differences(fresh)`` and compares.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, TypeVar, cast

from hilo_mlir.analysis.absent_attributes import AbsentAttributes
from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import checking_mode_enabled, identity_key, ir
from hilo_mlir.rewrite.rewriter import Change, Listener, Rewriter

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op

T = TypeVar("T")

#: a cached analysis: (its class, identity_key of the op it describes)
_Key = tuple[type, int]

#: analysis class -> ``int(cls.preserved_by)`` (read once per class)
_KEPT: dict[type, int] = {}


def _kept(cls: type) -> int:
    """``int(cls.preserved_by)``, read once per class."""
    kept = _KEPT.get(cls)
    if kept is None:
        kept = _KEPT[cls] = int(cls.preserved_by)  # type: ignore[attr-defined]
    return kept


class AnalysisManager(Listener):
    """Cache of analyses for one module, invalidated by a :class:`Rewriter`'s records.

    Args:
        module_op: the ``builtin.module`` the analyses describe.
        rewriter: the rewriter every pass of the run mutates through.
    """

    def __init__(self, module_op: Op, rewriter: Rewriter) -> None:
        self.module_op = module_op
        self.rewriter = rewriter
        self._module_key = identity_key(module_op)
        #: the checking mode is on (``HILO_MLIR_CHECK_ANALYSES=1``, or the pipeline's ``check_analyses``):
        #: passes' fast paths compare themselves with the general way
        self.checking = checking_mode_enabled()
        self._cache: dict[_Key, Any] = {}  # the analyses: instances of any class
        self._scope: dict[_Key, int | None] = {}  # top-level op key, or None for the module
        self._ops: dict[_Key, Op] = {}  # the op each analysis describes
        # scope -> keys of the analyses in it: a change in one top-level op visits only its analyses and
        # the module's (one change per moved op: a scan of every cached analysis was quadratic)
        self._by_scope: dict[int | None, set[_Key]] = {}
        # scope -> the change bits that drop at least one of its analyses (a change of no such bit,
        # the common case once only self-updating analyses are cached, returns at once)
        self._fragile: dict[int | None, int] = {}
        self._census: Census | None = None  # the module's census while cached (asked per op by some passes)
        # value types (a superset) for the next census of the module to start from (carry_types_over)
        self._carried: tuple[dict[int, ir.Type], int] | None = None
        # discardable attribute names no op holds, for the whole run (track_absent_attributes); None: not known
        self._absent: AbsentAttributes | None = None
        rewriter.add_listener(self)

    # ------------------------------------------------------------------ queries

    def get(self, cls: type[T], op: Op) -> T:
        """The analysis ``cls`` of ``op``: cached, or built now as ``cls(op, self)``."""
        op = getattr(op, "operation", op)
        key = (cls, identity_key(op))
        inst = self._cache.get(key)
        if inst is None:
            inst = cls(op, self)  # type: ignore[call-arg]
            self._store(key, op, inst)
        return cast(T, inst)

    def census(self) -> Census:
        """The module's :class:`~hilo_mlir.analysis.census.Census`: ``get(Census, module_op)`` without a lookup
        while it is cached (passes ask for it per op and per function)."""
        c = self._census
        if c is None:
            c = self.get(Census, self.module_op)
        return c

    def cached_census(self, op: Op) -> Census | None:
        """The census of ``op`` if ``op`` is the manager's module and its census is cached, else None (nothing is built)."""
        c = self._census
        if c is None or identity_key(op) != self._module_key:
            return None
        return c

    def cached(self, cls: type[T], op: Op) -> T | None:
        """The analysis ``cls`` of ``op`` if cached and valid, else None (nothing is built)."""
        op = getattr(op, "operation", op)
        return cast("T | None", self._cache.get((cls, identity_key(op))))

    def put(self, cls: type, op: Op, inst: object, top: int | None = None) -> None:
        """Cache ``inst`` as the analysis ``cls`` of ``op`` as the IR is *now*.

        ``top``: when ``op`` is a top-level op of the module, its ``identity_key`` if the caller has it (the
        fusion codegen's new decomposition function): neither the key nor the scope is then read. The checking
        mode compares it with both and raises :class:`AssertionError` if it differs.
        """
        op = getattr(op, "operation", op)
        if top is None:
            key = (cls, identity_key(op))
            self._drop(key)
            self._store(key, op, inst)
            return
        if self.checking and not (identity_key(op) == top == self.rewriter.top_of(op)):
            raise AssertionError(f"AnalysisManager.put: the top-level op given is not '{op.name}'")
        key = (cls, top)
        self._drop(key)
        self._store(key, op, inst, top)

    def entries(self) -> list[tuple[type, Op, Any]]:
        """``[(class, op, instance)]`` of every cached analysis (for the checking mode)."""
        return [(key[0], self._ops[key], inst) for key, inst in self._cache.items()]

    def track_absent_attributes(self, names: Iterable[str]) -> None:
        """From now on, know that no op of the module holds a discardable attribute of ``names`` (e.g.
        ``{"neuron.CrossPassTensor"}``, as the import's input census found) until the rewriter sees one
        made (:class:`~hilo_mlir.analysis.absent_attributes.AbsentAttributes`, a listener of the run's
        rewriter) or :meth:`take_attribute_absent` takes it. Not an analysis: :meth:`invalidate_all` (an
        upstream pass) keeps it, since upstream passes make none of these names; an unknown change the
        rewriter is told of forgets them. No name: nothing is tracked (no listener)."""
        if self._absent is not None:
            self.rewriter.remove_listener(self._absent)
            self._absent = None
        watch = AbsentAttributes(names)
        if watch.names:
            self._absent = watch
            self.rewriter.add_listener(watch)

    def take_attribute_absent(self, name: str) -> bool:
        """True if no op of the module holds the discardable attribute ``name`` now (known since
        :meth:`track_absent_attributes`); False when it may (or nothing is known). The tracking of
        ``name`` ends (its one reader keeps the answer while it knows no op gained the name); with
        the last name, the listener leaves the rewriter."""
        watch = self._absent
        if watch is None:
            return False
        absent = watch.absent(name)
        watch.names.discard(name)
        if not watch.names:
            self.rewriter.remove_listener(watch)
            self._absent = None
        return absent

    def forget_absent_attributes(self) -> None:
        """Stop knowing which attribute names no op holds (after a pass that may change the IR without
        telling the rewriter: a plugin's); :meth:`take_attribute_absent` then answers False."""
        if self._absent is not None:
            self.rewriter.remove_listener(self._absent)
            self._absent = None

    # ------------------------------------------------------------------ invalidation

    def kept_types(self) -> tuple[dict[int, ir.Type], int] | None:
        """The module's value types as the cached census holds them (or as carried over to the next one,
        while none is built) and their level; None when neither has them (see :meth:`carry_types_over`)."""
        if self._census is not None:
            return self._census.kept_types()
        return self._carried

    def carry_types_over(self, kept: tuple[dict[int, ir.Type], int] | None) -> None:
        """Start the next census of the module from ``kept`` (:meth:`kept_types` before an upstream step
        that makes no value of a new type; it is a superset of the types after it), as a stale set
        (:meth:`~hilo_mlir.analysis.census.Census.adopt_types`): a type question answered "no" then reads
        nothing. :meth:`invalidate_all` forgets it (call this after the step's own invalidation)."""
        self._carried = kept

    def invalidate_all(self) -> None:
        """Drop every analysis (after a mutation the rewriter did not see) and any types carried over."""
        self._carried = None
        if not self._cache:
            return
        for inst in self._cache.values():
            if isinstance(inst, Listener):
                self.rewriter.remove_listener(inst)
        self._cache.clear()
        self._scope.clear()
        self._ops.clear()
        self._by_scope.clear()
        self._fragile.clear()
        self._census = None

    def notify_change(self, kind: Change, top: int | None) -> None:
        """The rewriter's listener: drop what a change of ``kind`` in ``top`` invalidates.

        Types carried over an upstream step (:meth:`carry_types_over`) are forgotten on any change: a
        change made before the next census is built may add a value of a new type."""
        self._carried = None
        if not self._cache:
            return
        bit = kind._value_  # plain ints: IntFlag arithmetic is slow
        fragile = self._fragile
        if top is None:  # a change of the module itself: every analysis is in its scope
            if not any(bit & m for m in fragile.values()):
                return
            keys = list(self._cache)
        else:
            if not bit & (fragile.get(top, 0) | fragile.get(None, 0)):
                return
            keys = [*self._by_scope.get(top, ()), *self._by_scope.get(None, ())]
        for key in keys:
            inst = self._cache.get(key)
            if inst is not None and bit & ~_kept(type(inst)):
                self._drop(key)

    def notify_unknown_change(self) -> None:
        self.invalidate_all()

    def notify_erasing(self, op: ir.Operation, top: int | None) -> None:
        """A top-level op being erased takes its analyses with it (even those its kinds of change keep)."""
        if top is not None and top in self._by_scope and identity_key(op) == top:
            for key in list(self._by_scope.get(top, ())):
                self._drop(key)

    def notify_erasing_all(self, ops: list[ir.Operation], tops: list[int | None]) -> None:
        """:meth:`notify_erasing` for a batch (the common case, no analysis scoped to a top-level op: nothing read)."""
        by_scope = self._by_scope
        for op, top in zip(ops, tops):
            if top is not None and top in by_scope:
                self.notify_erasing(op, top)

    # ------------------------------------------------------------------ internals

    def _store(self, key: _Key, op: Op, inst: object, top: int | None = None) -> None:
        """Cache ``inst`` under ``key``; ``top``: ``op``'s top-level op if known (else asked of the rewriter)."""
        self._cache[key] = inst
        self._ops[key] = op
        if key[1] == self._module_key:
            scope = None
        else:
            scope = top if top is not None else self.rewriter.top_of(op)
        self._scope[key] = scope
        self._by_scope.setdefault(scope, set()).add(key)
        self._fragile[scope] = self._fragile.get(scope, 0) | ~_kept(type(inst))
        if isinstance(inst, Listener):  # an analysis that keeps itself current
            self.rewriter.add_listener(inst)
        if key[0] is Census and key[1] == self._module_key:
            self._census = cast(Census, inst)
            carried, self._carried = self._carried, None
            if carried is not None and not self._census.has_types:
                self._census.adopt_types(*carried)

    def _drop(self, key: _Key) -> None:
        inst = self._cache.pop(key, None)
        if key in self._scope:
            scope = self._scope.pop(key)
            keys = self._by_scope.get(scope)
            if keys is not None:
                keys.discard(key)
                if not keys:
                    del self._by_scope[scope]
                    self._fragile.pop(scope, None)
                else:
                    fragile = 0
                    for k in keys:
                        fragile |= ~_kept(type(self._cache[k]))
                    self._fragile[scope] = fragile
        self._ops.pop(key, None)
        if isinstance(inst, Listener):
            self.rewriter.remove_listener(inst)
        if inst is not None and inst is self._census:
            self._census = None

    def close(self) -> None:
        """Drop everything and stop listening (the run is over; analyses hold op handles)."""
        self.invalidate_all()
        self.rewriter.remove_listener(self)
