"""The op census: one walk of the module, reused by every pass until the IR changes.

Every Python-binding call costs 0.1–2 µs, so a pass that walks a 33k-op
module just to find the three ops it rewrites costs more than the C++
canonicalizer. The census is the analysis that removes those walks: one
walk per top-level op (``func.func``) records

* ``names``: the set of op names anywhere in the module;
* ``counts``: ``{op name: number of ops}``;
* per top-level op, ``{op name: [ir.Operation, ...]}`` in walk order
  (post-order: an op's nested ops come before it; ops of one block in
  block order).

Result and block-argument *types* are a second, lazy walk
(:meth:`Census.types`), taken only if a pass asks.

Lifetime (MLIR's analysis manager): the pipeline keeps a census while steps
preserve all analyses (:meth:`registry.PassContext.mark_all_preserved`) and
drops it after any step that changed the IR, so an ``ir.Operation`` from
:meth:`Census.ops_named` is never one a previous pass erased. A pass that
rewrites while iterating such a list must itself not erase ops later in it.

Source: issue 7 (performance: "every matcher visits each op a bounded
number of times"); DESIGN.md "Rules of the IR" (the verifier and analysis
preservation follow MLIR's pass manager).
"""

from __future__ import annotations

from .ir import identity_key, ir


_TUPLE = ir.TupleType.static_typeid
_SHAPED = frozenset((ir.RankedTensorType.static_typeid, ir.UnrankedTensorType.static_typeid,
                     ir.VectorType.static_typeid, ir.MemRefType.static_typeid, ir.UnrankedMemRefType.static_typeid))


def _walk_named(top, names) -> list:
    """``ops_named`` by one walk of ``top`` (``top`` included)."""
    found: dict[str, list] = {n: [] for n in names}
    advance = ir.WalkResult.ADVANCE

    def visit(o):
        lst = found.get(o.name)
        if lst is not None:
            lst.append(o)
        return advance

    top.walk(visit)
    return [o for n in names for o in found[n]]


class Census:
    """Op names, counts and a per-function index of one module (see module doc).

    Args:
        module_op: the ``builtin.module`` ``ir.Operation``.
        with_types: also take :meth:`types` now (the driver's input census,
            which validates every type).
        attr_names: also list, in :attr:`attr_holders`, the ops holding any
            of these discardable attributes (the driver's sharding strip).
    """

    def __init__(self, module_op, with_types: bool = False, attr_names=()):
        self._module_op = module_op
        self._types = None
        #: ops holding any discardable attribute named in ``attr_names`` (grouped by op name)
        self.attr_holders: list = []
        self._index: dict[int, dict[str, list]] = self._walk()
        counts: dict[str, int] = {}
        for index in self._index.values():
            for name, lst in index.items():
                counts[name] = counts.get(name, 0) + len(lst)
        self.counts = counts
        self.names = frozenset(counts)
        # Types and attribute holders are read from the op lists, not in the
        # walk: a walk callback doing more per op measured slower (issue 7).
        if with_types:
            self.types()
        if attr_names:
            wanted = frozenset(attr_names)
            holders = self.attr_holders
            for index in self._index.values():
                for ops in index.values():
                    for o in ops:
                        attrs = o.attributes
                        if len(attrs) and not wanted.isdisjoint(attrs):
                            holders.append(o)

    def _walk(self) -> dict:
        """``{identity_key(top-level op): {op name: [ops in walk order]}}``: one walk."""
        out: dict[int, dict[str, list]] = {}
        advance = ir.WalkResult.ADVANCE
        for top in self._module_op.regions[0].blocks[0].operations:
            top = top.operation
            index: dict[str, list] = {}
            get = index.get

            def visit(o, index=index, get=get):  # o: ir.Operation (never an OpView)
                name = o.name
                lst = get(name)
                if lst is None:
                    index[name] = [o]
                else:
                    lst.append(o)
                return advance

            top.walk(visit)
            out[identity_key(top)] = index
        return out

    def ops_moved(self) -> None:
        """Ops were moved (none created, erased or retyped): keep names, counts and types; re-walk for order.

        The op lists are taken again by the next :meth:`ops_named` (their walk
        order may have changed); :attr:`names`, :attr:`counts` and
        :meth:`types` stay as they are.
        """
        self._index = None
        self.attr_holders = []

    def ops_named(self, top, *names: str) -> list:
        """The ops called any of ``names`` inside the top-level op ``top`` (including ``top``).

        Args:
            top: a top-level op of the module (usually the ``func.func`` a pass runs on).
            names: full op names (``"mhlo.divide"``).

        Returns:
            A new list of ``ir.Operation``, one name after the other in the
            order given, each in walk order. For an op that is not a
            top-level op of the module (the module itself, a nested op) the
            same answer from one walk of it.
        """
        if self._index is None:
            self._index = self._walk()
        index = self._index.get(identity_key(top))
        if index is None:  # not a top-level op (the module, a nested op): walk it
            return _walk_named(top, names)
        if len(names) == 1:
            return list(index.get(names[0], ()))
        out = []
        for n in names:
            out.extend(index.get(n, ()))
        return out

    def types(self) -> frozenset:
        """Every type of an op result or block argument in the module (``ir.Type``; lazy, taken once).

        Read from the census's own op lists (every op nested in the module;
        the module op has no results and its body block no arguments), not
        a second walk: no walk callback, and one binding call per op for its
        result types (``results.types``), ~40% cheaper on a 34k-op module.
        """
        if self._types is None:
            seen = set()
            up = seen.update
            if self._index is None:
                self._index = self._walk()
            for index in self._index.values():
                for ops in index.values():
                    for o in ops:
                        up(o.results.types)
                        regions = o.regions
                        if len(regions):
                            for region in regions:
                                for block in region.blocks:
                                    up(block.arguments.types)
            self._types = frozenset(seen)
        return self._types

    def element_type_strings(self) -> frozenset:
        """``str`` of every element type in :meth:`types`, looking through shaped and tuple types.

        E.g. ``{"f32", "i64", "!mhlo.token"}``; a non-shaped, non-tuple type is itself.
        """
        out = set()
        stack = list(self.types())
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
