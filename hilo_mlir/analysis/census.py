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
* the value types (results and block arguments), taken when first asked for
  (:meth:`Census.any_type`, :meth:`Census.has_element_type`, :meth:`Census.types`,
  :meth:`Census.element_type_strings`), as a *set* of distinct types, at one of two
  levels: every value (``FULL``) or, for element-type questions, every value but the
  results of the :data:`ELEMENTWISE` kinds (``ELEMENTS``: the verifier holds their
  element type to their operands', so the element types are the same; on L512 that
  skips half the ops). Op kinds without results (returns) are never read, op kinds
  without regions (:data:`REGION_FREE`) are not asked for their regions.

Kept current: the census is a :class:`~hilo_mlir.rewrite.rewriter.Rewriter` listener
(MLIR's ``RewriterBase::Listener``). An op inserted, erased or moved updates
names and counts at once; the per-function lists mark a list *unordered*
when an op of that name was inserted or moved in that function, so the next
:meth:`ops_named` of it walks that one function again. Types, once taken: an
inserted op adds its types; an erasure reads nothing and marks the set *stale*
(it may hold types no value has any more: a superset). A question answers from
the set as it is when the answer is "no" (a superset saying no is exact); a
"yes" from a stale set takes the types again first. So every answer is exact,
and erasures, the common mutation of a rewrite, cost no type read. A mutation
outside the rewriter is not seen: the analysis manager drops the census on
:attr:`~hilo_mlir.rewrite.rewriter.Change.UNKNOWN` (after every upstream C++ pass),
and the checking mode compares it with a fresh one after every pass (the type
set with every value type read without the shortcuts above). After an upstream
pass that makes no value of a new type, the next census starts from the types
taken before it, as a stale set (:meth:`Census.adopt_types`).

Ops are keyed by :func:`~hilo_mlir.ir.binding.identity_key` (the C++ pointer). A
list is a plain list as the walk built it; an op it loses is first only noted
(its key, *pending*), and the list becomes ``{op key: op}`` (same order, the
pending ops left out) for good when it is next read, gains an op or has lost
all of them. A list nobody reads again (the common case: the next upstream
step drops the census) is never keyed; after keying every erasure is one dict
deletion. An address freed
by an erase and reused at once by a new op -- the allocator's habit -- costs
nothing: the erased op's entry left before the new op's came in. Types are
keyed by the type's pointer (a uniqued type: equal pointers are equal types),
so that no lookup calls the binding's type equality.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, cast

from hilo_mlir.ir.binding import checking_mode_enabled, identity_key, ir
from hilo_mlir.ir.dialects import TABLES
from hilo_mlir.rewrite.rewriter import ALL_CHANGES, Change, Listener

if TYPE_CHECKING:
    from hilo_mlir.analysis.manager import AnalysisManager
    from hilo_mlir.ir.handles import Op

#: ``{op name: [ops in walk order]}``: the ops of one top-level op (or of one inserted or moved op)
_Index = dict[str, list[ir.Operation]]
#: the ops of one name in one top-level op: the walk's list, or ``{identity_key(op): op}`` (same order)
#: once the list lost an op
_Entries = list[ir.Operation] | dict[int, ir.Operation]
#: ``{op name: entries}`` of one top-level op: what the census keeps
_Lists = dict[str, _Entries]

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

#: Op kinds with no results and no regions (terminators): a type question never reads them.
NO_RESULTS = frozenset(("func.return", *(d.name("return") for d in TABLES.values())))

#: Elementwise op kinds whose verifier requires every result to have the element type of the
#: operands (mhlo: compatible types, stablehlo: the same element type; there is no quantized
#: type in a context of ours) and that have at least one operand and no region. The element
#: type of such a result is the element type of its first operand, a value defined earlier
#: (SSA dominance) by an op or a block argument: following first operands ends at a value that
#: is not such a result. So the element types of the module are those of every value but these
#: results (the ``ELEMENTS`` level of the type set). Not their whole types: ``add`` of two
#: ``tensor<4xf32>`` may verify with a ``tensor<?xf32>`` result. Not ``abs`` (complex -> real),
#: ``select`` (its first operand is ``i1``), ``convert``, ``compare``, ``real``, ``imag``.
ELEMENTWISE = frozenset(
    d.name(k)
    for d in TABLES.values()
    for k in (
        "add",
        "subtract",
        "multiply",
        "divide",
        "remainder",
        "maximum",
        "minimum",
        "power",
        "atan2",
        "and",
        "or",
        "xor",
        "shift_left",
        "shift_right_arithmetic",
        "shift_right_logical",
        "negate",
        "exponential",
        "exponential_minus_one",
        "log",
        "log_plus_one",
        "logistic",
        "sqrt",
        "rsqrt",
        "cbrt",
        "tanh",
        "sine",
        "cosine",
        "tan",
        "floor",
        "ceil",
        "round_nearest_afz",
        "round_nearest_even",
        "sign",
        "not",
        "popcnt",
        "count_leading_zeros",
    )
)

#: Op kinds of exactly one result and no region (their op definitions declare one result, not
#: variadic, and no region), besides the elementwise ones.
_ONE_RESULT_KINDS = (
    "abs",
    "broadcast_in_dim",
    "compare",
    "concatenate",
    "constant",
    "convert",
    "dot",
    "dot_general",
    "dynamic_slice",
    "dynamic_update_slice",
    "gather",
    "get_tuple_element",
    "iota",
    "pad",
    "reshape",
    "select",
    "slice",
    "transpose",
    "tuple",
)

#: Op kinds of exactly one result: a type read takes ``o.result.type`` (~5 % fewer instructions
#: than ``o.results.types`` on L64). A list holding an op of another result count (the binding
#: raises) is read the general way.
SINGLE_RESULT = ELEMENTWISE | frozenset(d.name(k) for d in TABLES.values() for k in _ONE_RESULT_KINDS)

#: Op kinds that have no region (their op definitions declare none): a type read does not ask
#: them for regions (a binding call per op). Any other kind is asked.
REGION_FREE = NO_RESULTS | SINGLE_RESULT | frozenset(d.name("custom_call") for d in TABLES.values()) | frozenset(("func.call",))

#: Levels of a census's type set: not taken, element types only (every value but the results of
#: :data:`ELEMENTWISE` kinds), every value.
_NONE, ELEMENTS, FULL = 0, 1, 2
#: per level: the op kinds whose results a type read skips
_SKIPPED = {ELEMENTS: NO_RESULTS | ELEMENTWISE, FULL: NO_RESULTS}


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


def _index_all(top: Op) -> _Index:
    """:func:`_index_of` of ``top`` for a census's construction: the same dict, from a leaner walk callback
    (a :class:`collections.defaultdict` lookup and an append: ~3 % fewer instructions per op than
    :func:`_index_of`'s, which stays for the small walks of inserted and erased ops, where making the
    defaultdict and copying it out costs more than it saves)."""
    index: defaultdict[str, list[ir.Operation]] = defaultdict(list)
    advance = ir.WalkResult.ADVANCE

    def visit(o: ir.Operation) -> ir.WalkResult:  # never an OpView; nothing here raises
        index[o.name].append(o)
        return advance

    top.walk(visit)
    return dict(index)


def _scan(top: Op, types: list[ir.Type] | None, wanted_attrs: frozenset[str] | None, holders: list[ir.Operation]) -> _Index:
    """:func:`_index_all` of ``top``, in the same walk also appending to ``holders`` (when ``wanted_attrs`` is
    given) every op holding one of those discardable attributes; then, when ``types`` is given, appending
    to it every result and block-argument type (the ``FULL`` level of :func:`_read_types`, from the walk's
    lists: fewer bytecodes per op than reading them in the walk's callback, ~2.5 % of the walk on L64).
    One walk of the module: the census's construction."""
    if wanted_attrs is None:
        index = _index_all(top)
    else:
        found: defaultdict[str, list[ir.Operation]] = defaultdict(list)
        advance = ir.WalkResult.ADVANCE
        hold = holders.append
        disjoint = wanted_attrs.isdisjoint

        def visit(o: ir.Operation) -> ir.WalkResult:  # nothing here may raise (an exception in a walk callback aborts)
            found[o.name].append(o)
            if not disjoint(o.attributes):  # no len() first: it costs more than it saves
                hold(o)
            return advance

        top.walk(visit)
        index = dict(found)
    if types is not None:
        _read_types(index.items(), FULL, types)
    return index


def _live_key(op: ir.Operation) -> int | None:
    """``identity_key(op)``, or None for a wrapper the binding invalidated (its op was erased through it)."""
    try:
        return identity_key(op)
    except RuntimeError:
        return None


def _keyed(ops: list[ir.Operation]) -> dict[int, ir.Operation]:
    """``{identity_key(op): op}`` of a list, in its order (an entry whose wrapper the binding invalidated is dropped;
    of two entries of one key, the last one's op is kept)."""
    try:
        return dict(zip(map(identity_key, ops), ops))
    except RuntimeError:  # an invalidated wrapper: the slow way
        out: dict[int, ir.Operation] = {}
        for o in ops:
            k = _live_key(o)
            if k is not None:
                out[k] = o
        return out


def _ops(entries: _Entries) -> Iterable[ir.Operation]:
    """The ops of one kept list (a list, or the values of a keyed one), in order."""
    return entries.values() if isinstance(entries, dict) else entries


def _value_types(ops: Iterable[ir.Operation], out: list[ir.Type]) -> None:
    """Append to ``out`` the result types of ``ops`` and the argument types of their regions' blocks
    (every op asked: the slow truth)."""
    extend = out.extend
    for o in ops:
        extend(o.results.types)
        regions = o.regions
        if len(regions):
            for region in regions:
                for block in region.blocks:
                    extend(block.arguments.types)


def _read_types(
    lists: Iterable[tuple[str, Iterable[ir.Operation]]], level: int, out: list[ir.Type], only: frozenset[str] | None = None
) -> None:
    """Append to ``out`` the value types of the ops of ``(name, ops)`` pairs at ``level`` (``ELEMENTS``
    or ``FULL``): the kinds :data:`_SKIPPED` at that level are not read, the :data:`REGION_FREE` ones
    not asked for regions. ``only``: read only the kinds in it (raising a set from ``ELEMENTS`` to ``FULL``)."""
    skipped = _SKIPPED[level]
    extend = out.extend
    for name, ops in lists:
        if name in skipped or (only is not None and name not in only):
            continue
        if name in SINGLE_RESULT:
            extend(_single_result_types(ops))
        elif name in REGION_FREE:
            for o in ops:
                extend(o.results.types)
        else:
            _value_types(ops, out)


def _single_result_types(ops: Iterable[ir.Operation]) -> list[ir.Type]:
    """The result types of ``ops`` (``ir.Type``, one per op when each has one result, as the
    :data:`SINGLE_RESULT` kinds do), in order; read the general way (``results.types``) when an op
    has another number of results (``o.result`` raises then)."""
    try:
        return [o.result.type for o in ops]
    except ValueError:
        out: list[ir.Type] = []
        for o in ops:
            out.extend(o.results.types)
        return out


#: True when ``hash(ir.Type)`` is the type's pointer (:func:`identity_key`), as checked on the first type
#: counted; None until then. Types are uniqued, so the pointer is the type's identity; counting by it never
#: calls the binding's type equality (a dict of ``ir.Type`` keys does, on every hit).
_HASH_IS_POINTER: bool | None = None


def _type_key(t: ir.Type) -> int:
    """The pointer of ``t`` (by ``hash`` when that is the pointer, else by :func:`identity_key`)."""
    global _HASH_IS_POINTER
    if _HASH_IS_POINTER is None:
        _HASH_IS_POINTER = hash(t) == identity_key(t)
    return hash(t) if _HASH_IS_POINTER else identity_key(t)


def _type_keys(types: list[ir.Type]) -> Iterable[int]:
    """:func:`_type_key` of each of ``types``."""
    if _HASH_IS_POINTER is None:
        if not types:
            return ()
        _type_key(types[0])
    return map(hash if _HASH_IS_POINTER else identity_key, types)


def _element_strings_of(types: Iterable[ir.Type]) -> frozenset[str]:
    """``str`` of the element type of each of ``types``, looking through shaped and tuple types (a
    type that is neither is itself): ``{"f32", "!mhlo.token"}``."""
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
    return frozenset(out)


class Census(Listener):
    """Op names, counts, a per-function op index and value types of one module (see module doc).

    Args:
        module_op: the ``builtin.module`` ``ir.Operation``.
        am: the analysis manager building it (unused: the census needs no other analysis).
        with_types: also take the types now, every value (``FULL``), from the lists of the one
            walk (the import's input census: validation asks for every type at once). Else
            they are taken when first asked for, at the level the question needs.
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
        #: type pointer -> the type (types live as long as the context): the distinct value types at
        #: :attr:`type_level`, a superset of them while :attr:`types_stale`; None until taken
        self._types: dict[int, ir.Type] | None = None
        #: ``ELEMENTS`` or ``FULL`` once the types are taken (0 before)
        self.type_level = _NONE
        #: a value may have left since the types were taken: the set may hold types no value has
        self.types_stale = False
        self._type_set: frozenset[ir.Type] | None = None  # frozenset of _types' values, until they change
        self._elem_strings: frozenset[str] | None = None  # element type strings of _types, until they change
        #: ops holding any discardable attribute named in ``attr_names`` at construction
        self.attr_holders: list[ir.Operation] = []
        self._index: dict[int, _Lists] = {}
        found: list[ir.Type] | None = [] if with_types else None
        wanted = frozenset(attr_names) if attr_names else None
        self._attr_names: frozenset[str] = wanted or frozenset()  # the names attr_holders were looked for by
        #: reads of the module this census made: its construction's walk, and every time it took the types
        self.walks = 1
        self._top_names: dict[int, str] = {}  # top-level op key -> its op name
        index, top_names, holders = self._index, self._top_names, self.attr_holders
        tops: list[ir.Operation] = []
        funcs: list[ir.Operation] = []
        for top in module_op.regions[0].blocks[0].operations:
            top = top.operation
            key = identity_key(top)
            index[key] = cast(_Lists, _scan(top, found, wanted, holders))
            name = top_names[key] = top.name
            tops.append(top)
            if name == "func.func":
                funcs.append(top)
        #: the top-level ops in module order, and the ``func.func`` ones, while no top-level op was inserted,
        #: erased or moved since they were listed (None: list them again when asked)
        self._tops: tuple[ir.Operation, ...] | None = tuple(tops)
        self._funcs: tuple[ir.Operation, ...] | None = tuple(funcs)
        counts: dict[str, int] = {}
        get = counts.get
        for lists in index.values():
            for name, lst in lists.items():
                counts[name] = get(name, 0) + len(lst)
        self.counts = counts
        self.names = set(counts)
        self._unordered: dict[int, set[str]] = {}  # top -> names whose list is not in walk order
        #: top -> name -> keys of the ops its (plain) list lost since built: left out when it is keyed
        self._pending: dict[int, dict[str, set[int]]] = {}
        if found is not None:
            self._set_types(found, FULL)

    def _set_types(self, found: list[ir.Type], level: int) -> None:
        """Start the type set from ``found`` (the value types of the module at ``level``): exact, not stale."""
        self._types = dict(zip(_type_keys(found), found))
        self.type_level = level
        self.types_stale = False
        self._type_set = self._elem_strings = None

    def absent_attributes(self, names: Iterable[str]) -> frozenset[str]:
        """Those of ``names`` (all of them among the ``attr_names`` given at construction) that no op
        of the module held at construction (a set of ``str``; the holders' attribute names are read).

        Raises:
            ValueError: a name the construction's walk did not look for.
        """
        wanted = frozenset(names)
        if not wanted <= self._attr_names:
            raise ValueError(f"absent_attributes: {sorted(wanted - self._attr_names)} not looked for by this census")
        held: set[str] = set()
        for o in self.attr_holders:
            attrs = o.attributes
            held.update(n for n in wanted if n in attrs)
        return wanted - held

    def kept_types(self) -> tuple[dict[int, ir.Type], int] | None:
        """A copy of the type set as kept (exact, or a superset when stale) and its level; None if not taken."""
        if self._types is None:
            return None
        return dict(self._types), self.type_level

    def adopt_types(self, types: dict[int, ir.Type], level: int) -> None:
        """Start the type set, before it is taken, from ``types``: a superset of the value types of the
        module (the set of a census of it before an upstream step that makes no value of a new type,
        as :meth:`kept_types` gave it), taken at ``level`` (``ELEMENTS`` or ``FULL``).

        The set is stale: a "no" answers from it, a "yes" takes the types again (at ``ELEMENTS``, where
        it is put: a set taken at ``FULL`` holds the element types too). The checking mode compares it
        with every value type read, as any stale set.

        Raises:
            ValueError: the types were taken already, or ``level`` is not a level.
        """
        if self._types is not None:
            raise ValueError("adopt_types: this census has taken its types already")
        if level not in (ELEMENTS, FULL):
            raise ValueError(f"adopt_types: level {level} is neither ELEMENTS nor FULL")
        self._types = dict(types)
        self.type_level = ELEMENTS
        self.types_stale = True
        self._type_set = self._elem_strings = None

    def _take_types(self, level: int) -> dict[int, ir.Type]:
        """The kept type set, at ``level`` or above: as it is if taken at such a level (stale or not),
        raised from ``ELEMENTS`` to ``FULL`` (reading only the kinds ``ELEMENTS`` skipped), else taken
        from the census's own op lists (no walk of the module)."""
        types = self._types
        if types is not None and self.type_level >= level:
            return types
        found: list[ir.Type] = []
        self._settle_all()
        pairs = ((name, _ops(entries)) for lists in self._index.values() for name, entries in lists.items())
        self.walks += 1
        if types is not None:  # ELEMENTS -> FULL: add the results the lower level skipped
            _read_types(pairs, FULL, found, only=ELEMENTWISE)
            self._add_types(found)
            self.type_level = FULL
            return types
        _read_types(pairs, level, found)
        self._set_types(found, level)
        return cast("dict[int, ir.Type]", self._types)

    def _retake_types(self) -> dict[int, ir.Type]:
        """The exact type set at the current level, read again (a stale set said "yes")."""
        level = self.type_level
        self._types = None
        return self._take_types(level)

    def _add_types(self, types: list[ir.Type]) -> None:
        """Add ``types`` (of values that came into the module) to the taken set."""
        known = cast("dict[int, ir.Type]", self._types)
        if len(types) == 1:  # the common case: one result
            t = types[0]
            k = _type_key(t)
            if k not in known:
                known[k] = t
                self._type_set = self._elem_strings = None
            return
        added = False
        for k, t in zip(_type_keys(types), types):
            if k not in known:
                known[k] = t
                added = True
        if added:
            self._type_set = self._elem_strings = None

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
        pending = self._pending.get(key)
        if pending:
            for n in names:
                if n in pending:
                    self._settle(key, n)
        if len(names) == 1:
            entries = index.get(names[0])
            return [] if entries is None else list(_ops(entries))
        out: list[ir.Operation] = []
        for n in names:
            entries = index.get(n)
            if entries is not None:
                out.extend(_ops(entries))
        return out

    def types(self) -> frozenset[ir.Type]:
        """Every type of an op result or block argument in the module (``ir.Type``), exact.

        Taken from the census's own op lists when first asked (every op nested in
        the module; the module op has no results and its body block no arguments),
        then kept; taken again when stale. A question with a predicate is cheaper:
        :meth:`any_type` reads again only when the answer is "yes".
        """
        self._take_types(FULL)
        if self.types_stale:
            self._retake_types()
        return self._frozen_types()

    def _frozen_types(self) -> frozenset[ir.Type]:
        if self._type_set is None:
            self._type_set = frozenset(cast("dict[int, ir.Type]", self._types).values())
        return self._type_set

    def any_type(self, pred: Callable[[ir.Type], object]) -> bool:
        """True if ``pred`` holds for the type of some op result or block argument in the module.

        ``pred`` is called once per distinct type (it may be called on a type no value
        has any more, when the kept set is stale; a "yes" is then checked on the types
        read again). E.g. ``census.any_type(lambda t: type_reason(t) is not None)``.
        """
        types = self._take_types(FULL)
        if not any(pred(t) for t in list(types.values())):
            return False
        if not self.types_stale:
            return True
        return any(pred(t) for t in list(self._retake_types().values()))

    @property
    def has_types(self) -> bool:
        """True once the types were taken at some level (a caller with a cheaper check may prefer it otherwise)."""
        return self._types is not None

    def element_type_strings(self) -> frozenset[str]:
        """``str`` of every element type of a value in the module, looking through shaped and tuple types, exact.

        E.g. ``{"f32", "i64", "!mhlo.token"}``; a non-shaped, non-tuple type is itself.
        From the ``ELEMENTS`` level (or ``FULL`` when taken); kept until the set of distinct
        types changes (asking again costs nothing); taken again when stale.
        """
        self._take_types(ELEMENTS)
        if self.types_stale:
            self._retake_types()
        return self._element_strings()

    def _element_strings(self) -> frozenset[str]:
        """``str`` of every element type in the kept set (stale or not)."""
        if self._elem_strings is None:
            self._elem_strings = _element_strings_of(cast("dict[int, ir.Type]", self._types).values())
        return self._elem_strings

    def any_element_type(self, pred: Callable[[str], object]) -> bool:
        """True if ``pred`` holds for some element type string of :meth:`element_type_strings`
        (read again only when a stale set says "yes"), e.g. ``lambda e: e.startswith("complex<")``."""
        self._take_types(ELEMENTS)
        if not any(pred(e) for e in self._element_strings()):
            return False
        if not self.types_stale:
            return True
        self._retake_types()
        return any(pred(e) for e in self._element_strings())

    def has_element_type(self, *type_strings: str) -> bool:
        """True if some value in the module has one of ``type_strings`` as its type or element type
        (e.g. ``"!mhlo.token"``, also inside tuples; ``"i64"``); see :meth:`any_element_type`."""
        wanted = frozenset(type_strings)
        return self.any_element_type(wanted.__contains__)

    def names_in(self, top: Op) -> AbstractSet[str]:
        """The op names that occur inside the top-level op ``top`` (``top``'s own name included), no walk.

        For a per-function pass to skip a function that holds none of the op
        kinds it could change (e.g. the many small decomposition functions of the
        StableHLO spine). For a top-level op, a live read-only view of the census's
        own names (nothing is copied; it follows the rewriter: copy it to keep it across
        a mutation); for an op that is not a top-level op of the module, one walk of it.
        """
        index = self._index.get(identity_key(top))
        if index is None:
            return frozenset(_index_of(top))
        return index.keys()  # a list is dropped when it loses its last op: every key names an op

    def top_level_ops(self) -> tuple[ir.Operation, ...]:
        """The ops of the module's body block (``ir.Operation``), in order.

        Listed by the census's construction (which reads them anyway) and kept
        while no top-level op is inserted, erased or moved through the rewriter;
        listed again (one pass over the module's body, no walk) when asked after
        such a change. A tuple: a snapshot that later mutations do not change.
        """
        if self._tops is None:
            self._list_tops()
        return cast("tuple[ir.Operation, ...]", self._tops)

    def top_functions(self) -> tuple[ir.Operation, ...]:
        """The top-level ``func.func`` ops, in module order (what a function pass runs on): as
        :meth:`top_level_ops`, no binding call while the list is kept."""
        if self._funcs is None:
            self._list_tops()
        return cast("tuple[ir.Operation, ...]", self._funcs)

    def _list_tops(self) -> None:
        tops = [o.operation for o in self._module_op.regions[0].blocks[0].operations]
        self._tops = tuple(tops)
        self._funcs = tuple(o for o in tops if o.name == "func.func")

    def _tops_changed(self) -> None:
        """A top-level op was inserted, erased or moved: list them again when next asked."""
        self._tops = self._funcs = None

    def signature_only_functions(self, check: bool | None = None) -> list[ir.Operation]:
        """The ``func.func`` ops whose signature types need not be value types of the module (no walk).

        A function with a body has its inputs as entry-block arguments and its
        results as the operands of its return (the verifier holds both to the
        ``function_type``), so :meth:`types` covers its signature. Left are the
        declarations -- a top-level function the census lists alone -- and,
        conservatively, every function nested in a top-level op that is not a
        function (a nested module).

        Only the lists it reads are settled (not every list with pending
        erasures: after the StableHLO fusion, ``main``'s lists of every fused
        kind have some, and keying them all cost most of
        replace-token-type-with-u8). A function's other lists need no reading:
        a kept list is never empty (an empty one is dropped, and a plain list
        is keyed as soon as its pending erasures may cover it), so a function
        holds other ops when it has another name with no pending erasure; only
        when every other name has some are those keyed, to know. The checking
        mode compares the answer with the one read after keying every list
        (``check``: on or off; None: as ``HILO_MLIR_CHECK_ANALYSES`` says) and
        raises AssertionError if they differ.
        """
        out: list[ir.Operation] = []
        top_names = self._top_names
        pending = self._pending
        for key, index in list(self._index.items()):
            if "func.func" not in index:
                continue
            waiting = pending.get(key)
            if waiting and "func.func" in waiting:
                self._settle(key, "func.func")
            funcs = index.get("func.func")
            if not funcs:
                continue
            if top_names.get(key) == "func.func":  # no function nests in a function (not a symbol table)
                if len(index) > 1 and waiting:
                    self._settle_unless_held(key, index)
                if len(index) == 1:
                    out.extend(_ops(funcs))  # a function with nothing inside it: a declaration
                continue
            out.extend(_ops(funcs))
        if check if check is not None else checking_mode_enabled():
            slow = self._signature_only_functions_slow()
            if [identity_key(o) for o in out] != [identity_key(o) for o in slow]:
                raise AssertionError(
                    f"Census.signature_only_functions: {len(out)} functions without settling every list, {len(slow)} after"
                )
        return out

    def _settle_unless_held(self, key: int, index: _Lists) -> None:
        """Key the pending lists of top-level op ``key`` (whose lists are ``index``) unless one of its
        names other than ``func.func`` has no pending erasure (then that name holds an op)."""
        waiting = self._pending.get(key)
        if not waiting:
            return
        if any(n != "func.func" and n not in waiting for n in index):
            return
        for n in list(waiting):
            self._settle(key, n)

    def _signature_only_functions_slow(self) -> list[ir.Operation]:
        """:meth:`signature_only_functions` after keying every list (the checking mode's truth)."""
        out: list[ir.Operation] = []
        top_names = self._top_names
        self._settle_all()
        for key, index in self._index.items():
            funcs = index.get("func.func")
            if not funcs:
                continue
            if top_names.get(key) == "func.func":
                if len(index) == 1:
                    out.extend(_ops(funcs))
                continue
            out.extend(_ops(funcs))
        return out

    def may_hold_type(self, *type_strings: str) -> bool:
        """:meth:`has_element_type` (kept for callers that ask "is there a token?")."""
        return self.has_element_type(*type_strings)

    # ------------------------------------------------------------------ upkeep

    def _reindex(self, top: Op, key: int) -> _Lists:
        index = self._index[key] = cast(_Lists, _index_of(top))
        self._unordered.pop(key, None)
        self._pending.pop(key, None)
        return index

    def _settle(self, top: int, name: str) -> None:
        """Key the list of ``name`` in ``top`` now, its pending ops left out (dropped when none is left)."""
        pending = self._pending[top]
        gone = pending.pop(name)
        if not pending:
            del self._pending[top]
        index = self._index[top]
        entries = index[name]
        keyed = entries if isinstance(entries, dict) else _keyed(entries)
        for k in gone:
            keyed.pop(k, None)
        if keyed:
            index[name] = keyed
        else:
            del index[name]

    def _settle_all(self) -> None:
        """:meth:`_settle` every list with pending ops (before reading every list)."""
        for top in list(self._pending):
            for name in list(self._pending.get(top, ())):
                self._settle(top, name)

    def _lose(self, top: int, index: _Lists, name: str, entries: _Entries, key: int) -> None:
        """The list ``entries`` of ``name`` in ``top`` loses the op of ``key``: a deletion when keyed, else noted."""
        self._lose_all(top, index, name, entries, (key,))

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
        pending = self._pending.get(top_key)
        for name, ops in index_of_op.items():
            if pending and name in pending:
                self._settle(top_key, name)
            entries = index.get(name)
            if entries is None:
                index[name] = list(ops)
            else:
                self._unordered.setdefault(top_key, set()).add(name)
                if isinstance(entries, dict):
                    for o in ops:
                        entries[identity_key(o)] = o
                else:
                    entries.extend(ops)
            self._count(name, len(ops))

    def _remove_ops(self, top_key: int, index_of_op: _Index) -> None:
        """Take every op of ``index_of_op`` (ops leaving ``top_key``) out of ``top_key``'s lists."""
        index = self._index.get(top_key)
        if index is None:
            return
        for name, ops in index_of_op.items():
            entries = index.get(name)
            if entries is not None:
                self._lose_all(top_key, index, name, entries, list(map(identity_key, ops)))
            self._count(name, -len(ops))

    def _lose_all(self, top: int, index: _Lists, name: str, entries: _Entries, keys: Sequence[int]) -> None:
        """The list ``entries`` of ``name`` in ``top`` loses the ops of ``keys``: deletions when keyed, else
        noted (pending until the list is next read)."""
        if isinstance(entries, dict):
            pop = entries.pop
            for k in keys:
                pop(k, None)
            if not entries:
                del index[name]
            return
        by_name = self._pending.get(top)
        if by_name is None:
            by_name = self._pending[top] = {}
        gone = by_name.get(name)
        if gone is None:
            gone = by_name[name] = set()
        gone.update(keys)
        if len(gone) >= len(entries):  # maybe every op of the list is gone: key it to know
            self._settle(top, name)

    # ------------------------------------------------------------------ the rewriter's listener

    def notify_created(self, op: ir.Operation, top: int | None) -> None:
        """An op :meth:`~hilo_mlir.rewrite.rewriter.Rewriter.create` made: its regions are empty, so it
        is one op even when it has regions (no walk of it; the checking mode compares with a fresh census)."""
        self.notify_inserted(op, top, fresh=True)

    def notify_inserted(self, op: ir.Operation, top: int | None, fresh: bool = False) -> None:
        """``op`` and what is nested in it came into ``top`` (one walk of ``op`` if it may hold ops;
        ``fresh``: nothing is nested in it, see :meth:`notify_created`)."""
        if top is None:
            return
        index = self._index.get(top)
        name = op.name
        if index is None and top == identity_key(op):  # a new top-level op
            self._top_names[top] = name
            self._tops = self._funcs = None
        if index is None or (not fresh and name not in REGION_FREE and len(op.regions)):
            idx = {name: [op]} if fresh else _index_of(op)
            self._add_ops(top, idx)
            if fresh:  # its regions hold no block: its results are its only values
                if self._types is not None and name not in _SKIPPED[self.type_level]:
                    self._add_types(op.results.types)
            elif self._types is not None:
                found: list[ir.Type] = []
                _read_types(idx.items(), self.type_level, found)
                self._add_types(found)
            return
        # the common case, one op without regions: what _add_ops and _count do for it
        pending = self._pending.get(top)
        if pending and name in pending:
            self._settle(top, name)  # keyed before it gains an op (a pending key may be the new op's address)
        entries = index.get(name)
        if entries is None:
            index[name] = [op]
        else:
            unordered = self._unordered.get(top)
            if unordered is None:
                unordered = self._unordered[top] = set()
            unordered.add(name)
            if isinstance(entries, dict):
                entries[identity_key(op)] = op
            else:
                entries.append(op)
        counts = self.counts
        c = counts.get(name)
        if c is None:
            counts[name] = 1
            self.names.add(name)
        else:
            counts[name] = c + 1
        if self._types is not None and name not in _SKIPPED[self.type_level]:
            self._add_types(op.results.types)

    def notify_erasing(self, op: ir.Operation, top: int | None) -> None:
        if top is None:
            return
        index = self._index.get(top)
        if index is None:  # not in an op the census lists
            return
        key = identity_key(op)
        if self._types is not None:
            self.types_stale = True  # nothing read: the set may now hold a type no value has
        if top == key:  # a top-level op leaves the module
            for name in list(self._pending.get(top, ())):
                self._settle(top, name)
            index = self._index.get(top, {})
            del self._index[top]
            self._top_names.pop(top, None)
            self._tops = self._funcs = None
            self._unordered.pop(top, None)
            for name, entries in index.items():
                self._count(name, -len(entries))
            return
        name = op.name
        if name not in REGION_FREE and len(op.regions):
            self._remove_ops(top, _index_of(op))
            return
        # the common case, one op without regions: what _remove_ops and _count do for it
        listed = index.get(name)
        if listed is not None:
            self._lose(top, index, name, listed, key)
        counts = self.counts
        c = counts.get(name, 0) - 1
        if c:
            counts[name] = c
        else:
            counts.pop(name, None)
            self.names.discard(name)

    def notify_erasing_all(self, ops: list[ir.Operation], tops: list[int | None]) -> None:
        """:meth:`notify_erasing` for a batch: the common case (an op without regions in a listed
        top-level op) is a name read, a key and two dict updates per op."""
        all_index, counts, names = self._index, self.counts, self.names
        if self._types is not None:
            self.types_stale = True
        for op, top in zip(ops, tops):
            if top is None:
                continue
            index = all_index.get(top)
            if index is None:
                continue
            name = op.name
            key = identity_key(op)
            if top == key or name not in REGION_FREE:
                self.notify_erasing(op, top)  # a top-level op, or maybe regions: the general path
                continue
            listed = index.get(name)
            if listed is not None:
                self._lose(top, index, name, listed, key)
            c = counts.get(name, 0) - 1
            if c:
                counts[name] = c
            else:
                counts.pop(name, None)
                names.discard(name)

    def notify_moved(self, op: ir.Operation, old_top: int | None, new_top: int | None) -> None:
        if old_top != new_top or (new_top is not None and identity_key(op) == new_top):
            self._tops_changed()  # between top-level ops, or a top-level op itself: their list changes
        name = op.name
        self._moved(_index_of(op) if name not in REGION_FREE and len(op.regions) else {name: [op]}, old_top, new_top)

    def notify_moved_all(self, ops: list[ir.Operation], old_tops: list[int | None], new_top: int | None) -> None:
        """``notify_moved`` for a batch: each old top-level op's lists lose, and the new one's gain, the
        batch's ops at once (a list the batch creates is in walk order: the batch sits together, in order)."""
        groups: dict[int | None, list[ir.Operation]] = {}
        if len(set(old_tops)) == 1:  # the common case, one source (no loop to group them)
            groups[old_tops[0]] = ops
        else:
            for o, old in zip(ops, old_tops):
                groups.setdefault(old, []).append(o)
        if len(ops) == 1 and new_top is not None and new_top == old_tops[0] and identity_key(ops[0]) == new_top:
            self._tops_changed()  # a top-level op moved among them (the rewriter moves those one at a time)
        for old, moved in groups.items():
            if old != new_top:
                self._tops_changed()  # an op left or joined a top-level op: maybe a top-level op itself
            if old == new_top:  # moved within one top-level op: only the order of its lists changes
                index = self._index.get(new_top) if new_top is not None else None
                if index is None:
                    continue
                unordered = self._unordered.setdefault(cast(int, new_top), set())
                if len(unordered) >= len(index) and unordered.issuperset(index):
                    continue  # every list of that op is out of order already: no need to read names
                region_free = REGION_FREE
                for o in moved:  # the name first: a kind without regions is not asked for them
                    name = o.name
                    if name not in region_free and len(o.regions):
                        unordered.update(_index_of(o))
                    else:
                        unordered.add(name)
                continue
            idx: _Index = {}
            for o in moved:
                name = o.name
                if name not in REGION_FREE and len(o.regions):
                    for n, lst in _index_of(o).items():
                        idx.setdefault(n, []).extend(lst)
                else:
                    idx.setdefault(name, []).append(o)
            self._moved(idx, old, new_top)

    def _moved(self, idx: _Index, old_top: int | None, new_top: int | None) -> None:
        """The ops of ``idx`` (``{name: [ops]}``) moved from ``old_top`` to ``new_top``."""
        if old_top == new_top:
            if new_top is not None and new_top in self._index:
                self._unordered.setdefault(new_top, set()).update(idx)
            return
        if old_top is not None and new_top is not None:
            self._transfer(idx, old_top, new_top)
            return
        if old_top is not None:
            self._remove_ops(old_top, idx)
        if new_top is not None:
            self._add_ops(new_top, idx)

    def _transfer(self, idx: _Index, old_top: int, new_top: int) -> None:
        """The ops of ``idx`` (``{name: [ops in walk order]}``) left top-level op ``old_top`` for ``new_top``:
        :meth:`_remove_ops` then :meth:`_add_ops` in one pass over the names, the counts untouched (every
        op leaves one list of its name and joins another: the fusion codegen's move of a cluster's members
        into a new decomposition function). What ``old_top``'s plain lists lose is noted (pending), as
        :meth:`_lose_all` does. An ``old_top`` the census does not list (only after a change the rewriter
        did not see) loses nothing, and the ops are counted as they join ``new_top``, as there."""
        all_index, all_pending = self._index, self._pending
        old_index = all_index.get(old_top)
        if old_index is None:  # not listed: nothing to lose, and the ops were not counted
            old_index = {}
            for name, ops in idx.items():
                self._count(name, len(ops))
        new_index = all_index.get(new_top)
        if new_index is None:  # a new top-level op
            all_index[new_top] = new_index = {}
        new_pending = all_pending.get(new_top)
        unordered: set[str] | None = None
        for name, ops in idx.items():
            entries = old_index.get(name)
            if entries is not None:
                self._lose_all(old_top, old_index, name, entries, list(map(identity_key, ops)))
            if new_pending and name in new_pending:
                self._settle(new_top, name)
            entries = new_index.get(name)
            if entries is None:
                new_index[name] = list(ops)
            else:
                if unordered is None:
                    unordered = self._unordered.setdefault(new_top, set())
                unordered.add(name)
                if isinstance(entries, dict):
                    for o in ops:
                        entries[identity_key(o)] = o
                else:
                    entries.extend(ops)

    def notify_type_changed(self, old: ir.Type, new: ir.Type) -> None:
        if self._types is not None:
            self._add_types([new])
            self.types_stale = True  # ``old`` may have been the last value of its type

    def notify_block_arguments(self, types: list[ir.Type], added: bool) -> None:
        if self._types is not None:
            if added:
                self._add_types(types)
            elif types:
                self.types_stale = True

    # ------------------------------------------------------------------ the checking mode

    def differences(self, fresh: Census) -> list[str]:
        """How this (kept) census differs from ``fresh`` (a new one of the same module): empty if equal.

        Names and counts must be equal; every per-function list must hold the
        same ops (in the same order where this census claims walk order);
        types must be equal as a multiset if this census took them.
        """
        out: list[str] = []
        self._settle_all()  # what a read would see
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
        if self._tops is not None and [_live_key(o) for o in self._tops] != [identity_key(o) for o in fresh.top_level_ops()]:
            out.append("the list of top-level ops differs")
        if self._funcs is not None and [_live_key(o) for o in self._funcs] != [identity_key(o) for o in fresh.top_functions()]:
            out.append("the list of top-level functions differs")
        if any(not entries for index in self._index.values() for entries in index.values()):
            out.append("an empty op list is kept (names_in would name an absent op)")
        if set(self._index) != set(fresh._index):
            out.append("top-level ops differ")
        elif self._top_names != fresh._top_names:
            out.append("names of top-level ops differ")
        for key, index in self._index.items():
            f = fresh._index.get(key, {})
            unordered = self._unordered.get(key, set())
            for name in sorted(set(index) | set(f)):
                a = [identity_key(o) for o in _ops(index.get(name) or [])]
                b = [identity_key(o) for o in _ops(f.get(name) or [])]
                if name in unordered:
                    a, b = sorted(a), sorted(b)
                if a != b:
                    out.append(
                        f"the list of '{name}' ops of a top-level op differs"
                        f" (kept {len(a)}, actual {len(b)}{', order' if len(a) == len(b) else ''})"
                    )
        if self._types is not None:
            out.extend(self._type_differences(fresh))
        return out

    def _type_differences(self, fresh: Census) -> list[str]:
        """How the kept type set differs from the slow truth: every value type of ``fresh``'s ops, each op
        read (no kind skipped), compared by the binding's type equality (which also checks that keying by
        pointer merges no two types). Exact when not stale, a superset when stale; at ``ELEMENTS`` the
        element type strings must be those of every value (the :data:`ELEMENTWISE` argument)."""
        found: list[ir.Type] = []
        for lists in fresh._index.values():
            for entries in lists.values():
                _value_types(_ops(entries), found)
        truth = frozenset(found)
        kept = frozenset(cast("dict[int, ir.Type]", self._types).values())
        if len(kept) != len(self._types or ()):
            return ["two kept types are equal"]
        elems = _element_strings_of(truth)
        kept_elems = self._element_strings()
        if self.types_stale:
            if self.type_level == FULL and not kept >= truth:
                return ["value types differ (a type of the module is missing)"]
            if not kept_elems >= elems:
                return ["element type strings differ (one of the module is missing)"]
            return []
        if self.type_level == FULL and kept != truth:
            return ["value types differ"]
        if self.type_level == ELEMENTS and not kept <= truth:
            return ["value types differ"]
        if kept_elems != elems:
            return ["element type strings differ"]
        if self._type_set is not None and self._type_set != kept:
            return ["the type set differs"]
        return []


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
