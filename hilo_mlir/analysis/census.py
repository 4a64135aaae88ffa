"""The op census: one walk of the module, then kept current in place by the rewriter.

Every binding call costs 0.1-2 µs, so a pass that walks a 34k-op module just
to learn that the three ops it rewrites are absent costs more than the C++
canonicalizer. The census answers instead:

* :attr:`Census.counts` -- ``{op name: number of ops}`` over every op nested in
  the module (the module op itself excluded), and :attr:`Census.names`, the
  names with a non-zero count;
* :meth:`Census.ops_named` -- per top-level op (usually a ``func.func``), the
  ops of some names in walk order (post-order: nested ops before their parent;
  ops of one block in block order);
* :meth:`Census.types` -- every result and block-argument type (a multiset
  underneath, so that erasing the last value of a type removes it), taken in
  the same walk as the names when a pipeline run builds the census, else on
  first request; :meth:`Census.may_hold_type` ("is there a token?") answers
  from it.

Kept current: the census is a :class:`~hilo_mlir.rewrite.rewriter.Rewriter` listener
(MLIR's ``RewriterBase::Listener``). An op inserted, erased or moved updates
names, counts and types at once; the per-function lists take erasures as
tombstones (compacted when next read) and mark a list *unordered* when an op
of that name was inserted or moved in that function, so the next
:meth:`ops_named` of it walks that one function again. A mutation outside the
rewriter is not seen: the analysis manager drops the census on
:attr:`~hilo_mlir.rewrite.rewriter.Change.UNKNOWN` (after every upstream C++ pass),
and the checking mode compares it with a fresh one after every pass.

Ops are keyed by :func:`~hilo_mlir.ir.binding.identity_key` (the C++ pointer). A
tombstone is the *position* of the erased op's entry in its list (found
through a key -> position map built when the list first loses an op), so an
address freed by an erase and reused at once by a new op -- the allocator's
habit -- costs nothing: every insertion and erasure is O(1), and a list is
compacted once, when next read.
"""

from __future__ import annotations

import collections
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, cast

from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.rewrite.rewriter import ALL_CHANGES, Change, Listener

if TYPE_CHECKING:
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.ir.handles import Op

#: ``{op name: [ops in walk order]}``: the ops of one top-level op (or of one inserted or moved op)
_Index = dict[str, list[ir.Operation]]

_TUPLE = ir.TupleType.static_typeid
_SHAPED = frozenset(
    (
        ir.RankedTensorType.static_typeid,
        ir.UnrankedTensorType.static_typeid,
        ir.VectorType.static_typeid,
        ir.MemRefType.static_typeid,
        ir.UnrankedMemRefType.static_typeid,
    )
)


def walk_named(top: Op, names: Sequence[str]) -> list[ir.Operation]:
    """The ops called any of ``names`` inside ``top`` (``top`` included), one walk;
    one name after the other, each in walk order."""
    found: _Index = {n: [] for n in names}
    advance = ir.WalkResult.ADVANCE

    def visit(o: ir.Operation) -> ir.WalkResult:
        lst = found.get(o.name)
        if lst is not None:
            lst.append(o)
        return advance

    top.walk(visit)
    return [o for n in names for o in found[n]]


def _index_of(top: Op) -> _Index:
    """``{op name: [ops in walk order]}`` of ``top`` and everything nested in it: one walk."""
    index: _Index = {}
    get = index.get
    advance = ir.WalkResult.ADVANCE

    def visit(o: ir.Operation) -> ir.WalkResult:  # never an OpView
        name = o.name
        lst = get(name)
        if lst is None:
            index[name] = [o]
        else:
            lst.append(o)
        return advance

    top.walk(visit)
    return index


def _scan(top: Op, types: list[ir.Type] | None, wanted_attrs: frozenset[str] | None, holders: list[ir.Operation]) -> _Index:
    """:func:`_index_of` of ``top``, in the same walk also appending to ``types`` (when given) every
    result and block-argument type, and to ``holders`` (when ``wanted_attrs`` is given) every op
    holding one of those discardable attributes. One callback per op: the census's one walk."""
    if types is None and wanted_attrs is None:
        return _index_of(top)
    index: _Index = {}
    get = index.get
    advance = ir.WalkResult.ADVANCE
    extend = types.extend if types is not None else None
    hold = holders.append
    disjoint = wanted_attrs.isdisjoint if wanted_attrs is not None else None

    def visit(o: ir.Operation) -> ir.WalkResult:  # nothing here may raise (an exception in a walk callback aborts)
        name = o.name
        lst = get(name)
        if lst is None:
            index[name] = [o]
        else:
            lst.append(o)
        if extend is not None:
            extend(o.results.types)
            regions = o.regions
            if len(regions):
                for region in regions:
                    for block in region.blocks:
                        extend(block.arguments.types)
        if disjoint is not None:
            attrs = o.attributes
            if len(attrs) and not disjoint(attrs):
                hold(o)
        return advance

    top.walk(visit)
    return index


def _live_key(op: ir.Operation) -> int | None:
    """``identity_key(op)``, or None for a wrapper the binding invalidated (its op was erased through it)."""
    try:
        return identity_key(op)
    except RuntimeError:
        return None


def _value_types(ops: Iterable[ir.Operation], out: list[ir.Type]) -> None:
    """Append to ``out`` the result types of ``ops`` and the argument types of their regions' blocks."""
    extend = out.extend
    for o in ops:
        extend(o.results.types)
        regions = o.regions
        if len(regions):
            for region in regions:
                for block in region.blocks:
                    extend(block.arguments.types)


def _count_types(counts: dict[ir.Type, int], types: Iterable[ir.Type], delta: int) -> bool:
    """Add ``delta`` (+1 or -1) to the count of each of ``types``; a count that reaches 0 leaves ``counts``.

    Returns True if the set of distinct types changed (a type came or went)."""
    get = counts.get
    changed = False
    for t in types:
        c = get(t, 0) + delta
        if c > 0:
            counts[t] = c
            changed = changed or c == delta
        else:
            counts.pop(t, None)
            changed = True
    return changed


class Census(Listener):
    """Op names, counts, a per-function op index and value types of one module (see module doc).

    Args:
        module_op: the ``builtin.module`` ``ir.Operation``.
        am: the analysis manager building it (unused: the census needs no other analysis).
        with_types: also take :meth:`types` now, in the same walk as the names. Always
            so when built by a pipeline run's analysis manager (``am`` given: the census of
            a run, rebuilt after each upstream pass, answers type questions such as "is
            there a token?" without a second pass over the ops).
        attr_names: also list, in :attr:`attr_holders`, the ops holding any of
            these discardable attributes *at construction* (the driver's
            sharding strip; not kept current), in the same walk.

    An analysis of the module for :class:`~hilo_mlir.analysis.manager.AnalysisManager`:
    every change the rewriter records preserves it (it updates itself); a
    change the rewriter did not see does not.
    """

    preserved_by = ALL_CHANGES & ~Change.UNKNOWN

    def __init__(
        self, module_op: Op, am: AnalysisManager | None = None, *, with_types: bool = False, attr_names: Iterable[str] = ()
    ) -> None:
        self._module_op = module_op
        self._types: collections.Counter[ir.Type] | None = None
        self._elem_strings: frozenset[str] | None = None  # element_type_strings(), until the distinct types change
        #: ops holding any discardable attribute named in ``attr_names`` at construction
        self.attr_holders: list[ir.Operation] = []
        self._index: dict[int, _Index] = {}
        with_types = with_types or am is not None
        found: list[ir.Type] | None = [] if with_types else None
        wanted = frozenset(attr_names) if attr_names else None
        #: walks of the module this census made (its construction, and :meth:`types` when taken later)
        self.walks = 1
        self._top_names: dict[int, str] = {}  # top-level op key -> its op name
        for top in module_op.regions[0].blocks[0].operations:
            top = top.operation
            key = identity_key(top)
            self._index[key] = _scan(top, found, wanted, self.attr_holders)
            self._top_names[key] = top.name
        counts: dict[str, int] = {}
        for index in self._index.values():
            for name, lst in index.items():
                counts[name] = counts.get(name, 0) + len(lst)
        self.counts = counts
        self.names = set(counts)
        self._unordered: dict[int, set[str]] = {}  # top -> names whose list is not in walk order
        # top -> name -> positions (in that list) of erased ops still listed; a position, not
        # an address, because a new op may reuse an erased op's address in any list
        self._tombs: dict[int, dict[str, set[int]]] = {}
        # top -> name -> {op key: position of its (live) entry}: built when an op of that list is
        # first erased, dropped when the list is compacted or taken again (None: the key of an entry
        # whose wrapper the binding invalidated, see _live_key)
        self._pos: dict[int, dict[str, dict[int | None, int]]] = {}
        if found is not None:
            self._types = collections.Counter(found)

    # ------------------------------------------------------------------ queries

    def ops_named(self, top: Op, *names: str, any_order: bool = False) -> list[ir.Operation]:
        """The ops called any of ``names`` inside the top-level op ``top`` (``top`` included).

        Args:
            top: a top-level op of the module (usually the ``func.func`` a pass runs on).
            names: full op names (``"mhlo.divide"``).
            any_order: the caller needs the ops, not their order: a list that
                insertions or moves left out of walk order is returned as it is
                (no walk of ``top`` to restore it).

        Returns:
            A new list of ``ir.Operation``, one name after the other in the
            order given, each in walk order (unless ``any_order``). For an op that
            is not a top-level op of the module (the module itself, a nested op),
            the same answer from one walk of it.
        """
        key = identity_key(top)
        index = self._index.get(key)
        if index is None:  # not a top-level op (the module, a nested op): walk it
            return walk_named(top, names)
        unordered = self._unordered.get(key)
        if unordered and not any_order and not unordered.isdisjoint(names):
            index = self._reindex(top, key)
        else:
            tombs = self._tombs.get(key)
            if tombs:
                for n in names:
                    if n in tombs:
                        self._compact(key, n)
        if len(names) == 1:
            return list(index.get(names[0], ()))
        out: list[ir.Operation] = []
        for n in names:
            out.extend(index.get(n, ()))
        return out

    def types(self) -> frozenset[ir.Type]:
        """Every type of an op result or block argument in the module (``ir.Type``; taken once, then kept).

        Read from the census's own op lists (every op nested in the module;
        the module op has no results and its body block no arguments).
        """
        if self._types is None:
            for key in list(self._index):
                self._clean(key)
            found: list[ir.Type] = []
            for index in self._index.values():
                for ops in index.values():
                    _value_types(ops, found)
            self._types = collections.Counter(found)
            self.walks += 1
        return frozenset(self._types)

    @property
    def has_types(self) -> bool:
        """True once :meth:`types` was taken (a caller with a cheaper check may prefer it otherwise)."""
        return self._types is not None

    def element_type_strings(self) -> frozenset[str]:
        """``str`` of every element type in :meth:`types`, looking through shaped and tuple types.

        E.g. ``{"f32", "i64", "!mhlo.token"}``; a non-shaped, non-tuple type is itself.
        Kept until the set of distinct types changes (asking again costs nothing).
        """
        types = self.types()
        if self._elem_strings is not None:
            return self._elem_strings
        out: set[str] = set()
        stack = list(types)
        while stack:
            t = stack.pop()
            tid = t.typeid
            if tid == _TUPLE:
                tt = ir.TupleType(t)
                stack.extend(tt.get_type(i) for i in range(tt.num_types))
            elif tid in _SHAPED:
                out.add(str(ir.ShapedType(t).element_type))
            else:
                out.add(str(t))
        self._elem_strings = frozenset(out)
        return self._elem_strings

    def names_in(self, top: Op) -> frozenset[str]:
        """The op names that occur inside the top-level op ``top`` (``top``'s own name included), no walk.

        For a per-function pass to skip a function that holds none of the op
        kinds it could change (e.g. the many small decomposition functions of the
        StableHLO spine). For an op that is not a top-level op of the module, one walk of it.
        """
        key = identity_key(top)
        index = self._index.get(key)
        if index is None:
            return frozenset(_index_of(top))
        self._clean(key)
        return frozenset(n for n, lst in index.items() if lst)

    def signature_only_functions(self) -> list[ir.Operation]:
        """The ``func.func`` ops whose signature types need not be value types of the module (no walk).

        A function with a body has its inputs as entry-block arguments and its
        results as the operands of its return (the verifier holds both to the
        ``function_type``), so :meth:`types` covers its signature. Left are the
        declarations -- a top-level function the census lists alone -- and,
        conservatively, every function nested in a top-level op that is not a
        function (a nested module).
        """
        out: list[ir.Operation] = []
        top_names = self._top_names
        for key, index in self._index.items():
            if "func.func" not in index:
                continue
            if top_names.get(key) == "func.func":  # no function nests in a function (not a symbol table)
                if len(index) == 1:
                    self._clean(key)
                    out.extend(index.get("func.func", ()))  # a function with nothing inside it: a declaration
                continue
            self._clean(key)
            out.extend(index.get("func.func", ()))
        return out

    def may_hold_type(self, *type_strings: str) -> bool:
        """False only if no value in the module has any of ``type_strings`` as its type or element
        type (e.g. ``"!mhlo.token"``, also inside tuples); from :meth:`element_type_strings`, no walk
        once the types are taken."""
        return not self.element_type_strings().isdisjoint(type_strings)

    # ------------------------------------------------------------------ upkeep

    def _reindex(self, top: Op, key: int) -> _Index:
        index = self._index[key] = _index_of(top)
        self._unordered.pop(key, None)
        self._drop_tombs(key)
        return index

    def _drop_tombs(self, key: int) -> None:
        self._tombs.pop(key, None)
        self._pos.pop(key, None)

    def _compact(self, top_key: int, name: str) -> None:
        tombs = self._tombs[top_key]
        dead = tombs.pop(name)
        if not tombs:
            del self._tombs[top_key]
        pos = self._pos.get(top_key)
        if pos is not None:
            pos.pop(name, None)
        lst = self._index[top_key].get(name)
        if lst is not None:
            kept = [o for i, o in enumerate(lst) if i not in dead]
            if kept:
                self._index[top_key][name] = kept
            else:
                del self._index[top_key][name]

    def _positions(self, top_key: int, name: str) -> dict[int | None, int]:
        """``{op key: position}`` of the live entries of one list (built once, then kept current)."""
        by_name = self._pos.setdefault(top_key, {})
        pos = by_name.get(name)
        if pos is None:
            dead = self._tombs.get(top_key, {}).get(name, ())
            pos = by_name[name] = {}
            for i, o in enumerate(self._index[top_key].get(name, ())):
                if i not in dead:
                    pos[_live_key(o)] = i  # the last live entry of a key wins (an address reused)
        return pos

    def _clean(self, key: int) -> None:
        """Compact every tombstoned list of one top-level op (before reading all of them)."""
        tombs = self._tombs.get(key)
        if tombs:
            for n in list(tombs):
                self._compact(key, n)

    def _count(self, name: str, delta: int) -> None:
        c = self.counts.get(name, 0) + delta
        if c:
            self.counts[name] = c
            self.names.add(name)
        else:
            self.counts.pop(name, None)
            self.names.discard(name)

    def _add_ops(self, top_key: int, index_of_op: _Index) -> None:
        """Add every op of ``{name: [ops in walk order]}`` (one inserted op and its nested ops) to ``top_key``."""
        index = self._index.get(top_key)
        if index is None:  # a new top-level op
            self._index[top_key] = index = {}
        unordered = self._unordered.setdefault(top_key, set())
        by_name = self._pos.get(top_key)
        for name, ops in index_of_op.items():
            lst = index.get(name)
            if lst is None:
                lst = index[name] = []
            else:
                unordered.add(name)
            pos = by_name.get(name) if by_name is not None else None
            if pos is not None:
                for i, o in enumerate(ops, len(lst)):
                    pos[identity_key(o)] = i
            lst.extend(ops)
            self._count(name, len(ops))
        if not unordered:
            self._unordered.pop(top_key, None)

    def _remove_ops(self, top_key: int, index_of_op: _Index) -> None:
        """Tombstone every op of ``index_of_op`` (ops leaving ``top_key``) in ``top_key``'s lists."""
        if top_key not in self._index:
            return
        tombs = self._tombs.setdefault(top_key, {})
        for name, ops in index_of_op.items():
            dead = tombs.setdefault(name, set())
            pos = self._positions(top_key, name)
            for o in ops:
                i = pos.pop(identity_key(o), None)
                if i is not None:
                    dead.add(i)
            self._count(name, -len(ops))

    # ------------------------------------------------------------------ the rewriter's listener

    def notify_inserted(self, op: ir.Operation, top: int | None) -> None:
        if top is None:
            return
        if top not in self._index and top == identity_key(op):  # a new top-level op
            self._top_names[top] = op.name
        idx = _index_of(op) if len(op.regions) else {op.name: [op]}
        self._add_ops(top, idx)
        if self._types is not None:
            self._types_of(idx, 1)

    def notify_erasing(self, op: ir.Operation, top: int | None) -> None:
        if top is None:
            return
        if top == identity_key(op):  # a top-level op leaves the module
            if top not in self._index:
                return
            self._clean(top)  # its erased ops were counted out already: drop them first
            index = self._index.pop(top)
            self._top_names.pop(top, None)
            self._clean_removed_top(top)
            for name, ops in index.items():
                self._count(name, -len(ops))
            if self._types is not None:
                self._types_of(index, -1)
            return
        idx = _index_of(op) if len(op.regions) else {op.name: [op]}
        self._remove_ops(top, idx)
        if self._types is not None:
            self._types_of(idx, -1)

    def _types_of(self, index_of_ops: _Index, delta: int) -> None:
        """Count the value types of the ops of ``{name: [ops]}`` in (``delta`` 1) or out (-1)."""
        found: list[ir.Type] = []
        for ops in index_of_ops.values():
            _value_types(ops, found)
        # called only when self._types is not None (each caller checks first)
        if _count_types(cast("collections.Counter[ir.Type]", self._types), found, delta):
            self._elem_strings = None

    def _clean_removed_top(self, top: int) -> None:
        self._unordered.pop(top, None)
        self._drop_tombs(top)

    def notify_moved(self, op: ir.Operation, old_top: int | None, new_top: int | None) -> None:
        self._moved(_index_of(op) if len(op.regions) else {op.name: [op]}, old_top, new_top)

    def notify_moved_all(self, ops: list[ir.Operation], old_tops: list[int | None], new_top: int | None) -> None:
        """``notify_moved`` for a batch: each old top-level op's lists lose, and the new one's gain, the
        batch's ops at once (a list the batch creates is in walk order: the batch sits together, in order)."""
        groups: dict[int | None, list[ir.Operation]] = {}
        for o, old in zip(ops, old_tops):
            groups.setdefault(old, []).append(o)
        for old, moved in groups.items():
            idx: _Index = {}
            for o in moved:
                if len(o.regions):
                    for name, lst in _index_of(o).items():
                        idx.setdefault(name, []).extend(lst)
                else:
                    idx.setdefault(o.name, []).append(o)
            self._moved(idx, old, new_top)

    def _moved(self, idx: _Index, old_top: int | None, new_top: int | None) -> None:
        """The ops of ``idx`` (``{name: [ops]}``) moved from ``old_top`` to ``new_top``."""
        if old_top == new_top:
            if new_top is not None and new_top in self._index:
                self._unordered.setdefault(new_top, set()).update(idx)
            return
        if old_top is not None:
            self._remove_ops(old_top, idx)
        if new_top is not None:
            self._add_ops(new_top, idx)

    def notify_type_changed(self, old: ir.Type, new: ir.Type) -> None:
        if self._types is not None:
            if _count_types(self._types, (old,), -1) | _count_types(self._types, (new,), 1):
                self._elem_strings = None

    def notify_block_arguments(self, types: list[ir.Type], added: bool) -> None:
        if self._types is not None and _count_types(self._types, types, 1 if added else -1):
            self._elem_strings = None

    # ------------------------------------------------------------------ the checking mode

    def differences(self, fresh: Census) -> list[str]:
        """How this (kept) census differs from ``fresh`` (a new one of the same module): empty if equal.

        Names and counts must be equal; every per-function list must hold the
        same ops (in the same order where this census claims walk order);
        types must be equal as a multiset if this census took them.
        """
        out: list[str] = []
        if self.counts != fresh.counts:
            names = sorted(set(self.counts) | set(fresh.counts))
            diff = [
                f"{n}: kept {self.counts.get(n, 0)}, actual {fresh.counts.get(n, 0)}"
                for n in names
                if self.counts.get(n, 0) != fresh.counts.get(n, 0)
            ]
            out.append("op counts differ (" + "; ".join(diff[:8]) + ")")
        if set(self.names) != set(fresh.names):
            out.append("op names differ")
        if set(self._index) != set(fresh._index):
            out.append("top-level ops differ")
        elif self._top_names != fresh._top_names:
            out.append("names of top-level ops differ")
        for key, index in self._index.items():
            self._clean(key)
            f = fresh._index.get(key, {})
            unordered = self._unordered.get(key, set())
            for name in sorted(set(index) | set(f)):
                a = [identity_key(o) for o in index.get(name, ())]
                b = [identity_key(o) for o in f.get(name, ())]
                if name in unordered:
                    a, b = sorted(a), sorted(b)
                if a != b:
                    out.append(
                        f"the list of '{name}' ops of a top-level op differs"
                        f" (kept {len(a)}, actual {len(b)}{', order' if len(a) == len(b) else ''})"
                    )
        if self._types is not None:
            fresh.types()
            if fresh._types is None or +self._types != +fresh._types:
                out.append("value types differ")
            elif self._elem_strings is not None and self._elem_strings != fresh.element_type_strings():
                out.append("element type strings differ")
        return out


def detect_dialect(module: ir.Module, census: Census | None = None) -> str:
    """``"mhlo"`` / ``"stablehlo"`` by counting ops of each dialect (``"none"`` if neither, else ``"mixed"``).

    ``census``: a :class:`Census` of ``module`` to count from (no walk); default: take one.
    """
    counts = (census or Census(module.operation)).counts
    mhlo = sum(n for name, n in counts.items() if name.startswith("mhlo."))
    shlo = sum(n for name, n in counts.items() if name.startswith("stablehlo."))
    if not (mhlo or shlo):
        return "none"
    if mhlo and shlo:
        return "mixed"
    return "mhlo" if mhlo >= shlo else "stablehlo"
