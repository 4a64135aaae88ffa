"""Identity and order of ops in a block: what the fusion core asks before it rewrites.

The bindings have no dominance API and no "next op" accessor, and
``hash(ir.Operation)`` follows the op's operands (it changes under a
rewrite). This module gives the fusion core what it needs instead:

* :class:`OpSet` -- an insertion-ordered set of ops keyed by
  :func:`~hilo_mlir.ir.utils.op_key` (the C++ address, stable while the op lives);
* :func:`ancestor_in_block` / :func:`value_def_ancestor` -- which op of a block
  a nested use or definition belongs to (a use inside a ``case``/``while``/
  ``reduce`` body counts as its enclosing op);
* :func:`sorted_in_block` -- block order from MLIR's own per-block order
  (``Operation.is_before_in_block``: C++, cached, no Python index);
* :class:`OrderIndex` -- a float position and a prev/next mirror per block,
  built on demand and kept current in O(moved ops) by whoever moves ops
  (the codegen), and told by the rewriter about every erasure and move, so an
  op moved without a placement note is re-read from the block when next asked.

Nothing here mutates IR.
"""

from __future__ import annotations

import functools

from hilo_mlir.ir.binding import ir
from hilo_mlir.ir.utils import as_op, block_key, op_key
from hilo_mlir.rewrite.rewriter import Listener

__all__ = ["OpSet", "OrderIndex", "ancestor_in_block", "operand_def_ops", "read_values", "sorted_in_block", "value_def_ancestor"]


class OpSet:
    """Insertion-ordered set of ops with O(1) membership by :func:`~hilo_mlir.ir.utils.op_key`.

    Iterates over ``ir.Operation`` objects in insertion order. A set made by
    :meth:`of_distinct` computes the keys (a C-pointer read per op) only when
    first asked about membership.
    """

    __slots__ = ("_d", "_ops")

    def __init__(self, ops=()):
        self._d: dict = {}
        self._ops = None  # the members, in order, while the keys are not computed yet
        for o in ops:
            self.add(o)

    @classmethod
    def of_distinct(cls, ops) -> OpSet:
        """An OpSet of ``ops`` (``ir.Operation``, already free of duplicates), keys computed lazily."""
        s = cls()
        s._ops = list(ops)
        return s

    def _keys(self) -> dict:
        if self._ops is not None:
            self._d = {op_key(o): o for o in self._ops}
            self._ops = None
        return self._d

    def add(self, op) -> bool:
        """Insert ``op``; False if it was already there."""
        op = as_op(op)
        d = self._keys()
        k = op_key(op)
        if k in d:
            return False
        d[k] = op
        return True

    def discard(self, op) -> None:
        self._keys().pop(op_key(op), None)

    def __contains__(self, op) -> bool:
        return op is not None and op_key(op) in self._keys()

    def _values(self):
        return self._ops if self._ops is not None else self._d.values()

    def __iter__(self):
        return iter(list(self._values()))

    def __reversed__(self):
        return reversed(list(self._values()))

    def __len__(self) -> int:
        return len(self._ops) if self._ops is not None else len(self._d)

    def first(self):
        return next(iter(self._values()))

    def last(self):
        if self._ops is not None:
            return self._ops[-1]
        return next(reversed(self._d.values()))

    def __repr__(self) -> str:  # pragma: no cover
        return f"OpSet({[o.name for o in self._values()]})"


def ancestor_in_block(op, block) -> ir.Operation | None:
    """The ancestor of ``op`` (itself included) that sits directly in ``block``, or None.

    A use inside a nested region (``case``/``while``/``reduce`` body) belongs to
    its enclosing op in ``block``.
    """
    op = as_op(op)
    while True:
        parent = op.parent
        if parent is None:  # a top-level op (or detached): not in any block we fuse in
            return None
        if op.block == block:  # ir.Block compares by its C++ pointer (cheaper than block_key)
            return op
        op = as_op(parent)


def value_def_ancestor(v, block) -> ir.Operation | None:
    """The op in ``block`` that (or inside which) ``v`` is defined; None for args of ``block`` / values from above."""
    owner = v.owner
    if isinstance(owner, ir.Block):
        if owner == block:
            return None
        parent = owner.owner  # the op owning the region of that block
        return ancestor_in_block(parent, block) if parent is not None else None
    return ancestor_in_block(owner, block)


def read_values(op) -> list:
    """The values ``op`` reads: its operands, then those of every op nested in its regions (walk
    post-order); repeats kept. What an op of a block depends on in that block is among them
    (its operands and its regions' captures): :func:`operand_def_ops` and schedule-postorder's
    ``block_inputs`` both filter this list."""
    op = as_op(op)
    out = list(op.operands)
    if len(op.regions):
        extend = out.extend

        def visit(x):
            if x != op:
                extend(x.operands)
            return ir.WalkResult.ADVANCE

        op.walk(visit)
    return out


def operand_def_ops(op, block) -> list:
    """The ops of ``block`` (other than ``op``, which sits in ``block``) that define an operand of ``op`` or of
    an op nested in its regions, or contain that definition; each once, in no particular order."""
    op = as_op(op)
    out: dict = {}
    me = op_key(op)
    for v in read_values(op):
        a = value_def_ancestor(v, block)
        if a is not None:
            k = op_key(a)
            if k != me and k not in out:
                out[k] = a
    return list(out.values())


def _before_cmp(a, b) -> int:
    return -1 if a.is_before_in_block(b) else 1


def sorted_in_block(items: list, key=None) -> list:
    """``items`` (distinct ops of one block, or things ``key`` maps to them) in block order.

    Uses MLIR's own per-block order (``Operation.is_before_in_block``, cached
    in C++ and kept current on insertion), so no Python index of the block is
    built; an already sorted list costs ``len - 1`` comparisons.
    """
    items = list(items)
    if len(items) < 2:
        return items
    ops = items if key is None else [key(x) for x in items]
    prev = ops[0]
    for o in ops[1:]:
        if not prev.is_before_in_block(o):
            break
        prev = o
    else:
        return items  # already in block order (the usual case: matchers list def before use)
    if key is None:
        return sorted(items, key=functools.cmp_to_key(_before_cmp))
    return sorted(items, key=functools.cmp_to_key(lambda x, y: _before_cmp(key(x), key(y))))


class _BlockOrder:
    """Positions and a prev/next mirror of one block's op list (keys: :func:`op_key`)."""

    __slots__ = ("block", "nxt", "ops", "pos", "prv")

    def __init__(self, block):
        self.block = block
        self.renumber()

    def renumber(self) -> None:
        self.pos: dict[int, float] = {}
        self.nxt: dict[int, int | None] = {}
        self.prv: dict[int, int | None] = {}
        self.ops: dict[int, object] = {}
        prev = None
        for i, o in enumerate(self.block.operations):
            o = o.operation
            k = op_key(o)
            self.ops[k] = o
            self.pos[k] = float(i) * 1024.0
            self.prv[k] = prev
            if prev is not None:
                self.nxt[prev] = k
            prev = k
        if prev is not None:
            self.nxt[prev] = None

    def remove(self, k: int) -> None:
        p, n = self.prv.pop(k, None), self.nxt.pop(k, None)
        self.pos.pop(k, None)
        self.ops.pop(k, None)
        if p is not None:
            self.nxt[p] = n
        if n is not None:
            self.prv[n] = p

    def insert_after(self, op, k: int, anchor: int) -> bool:
        """Record ``op`` (key ``k``) right after ``anchor``; True if the block had to be renumbered."""
        n = self.nxt.get(anchor)
        lo = self.pos[anchor]
        hi = self.pos[n] if n is not None else lo + 2048.0
        return self._link(op, k, anchor, n, lo, hi)

    def insert_before(self, op, k: int, anchor: int) -> bool:
        """Record ``op`` (key ``k``) right before ``anchor``; True if the block had to be renumbered."""
        p = self.prv.get(anchor)
        hi = self.pos[anchor]
        lo = self.pos[p] if p is not None else hi - 2048.0
        return self._link(op, k, p, anchor, lo, hi)

    def _link(self, op, k, p, n, lo, hi) -> bool:
        mid = (lo + hi) / 2.0
        self.ops[k] = op
        self.prv[k], self.nxt[k] = p, n
        if p is not None:
            self.nxt[p] = k
        if n is not None:
            self.prv[n] = k
        self.pos[k] = mid
        if not (lo < mid < hi):  # float gap exhausted: renumber from the real block
            self.renumber()
            return True
        return False


class OrderIndex(Listener):
    """Position of each op in its block, built once per block on demand, kept current as ops move.

    ``pos(op)`` is a float, increasing along the block. A block is indexed
    the first time :meth:`pos` / :meth:`is_before` / :meth:`next_op` /
    :meth:`prev_op` asks about one of its ops. Whoever moves or creates ops
    in an indexed block places them with :meth:`note_inserted_before` /
    :meth:`note_moved_after` (O(1)); blocks never asked about cost nothing
    (the fusion core orders ops with MLIR's own ``is_before_in_block``, so a
    fusion pass on a 30k-op block never builds the Python mirror).

    Correct by construction: given a :class:`~hilo_mlir.rewrite.rewriter.Rewriter`
    (``OrderIndex(rewriter)``), the index listens to it and forgets every op
    the rewriter erases or moves before any note places it again; an op the
    index does not know (created or moved without a note) makes its block be
    re-read from the IR when next asked -- O(block), never wrong. Stop
    listening with :meth:`close` (or use the index as a context manager).
    """

    def __init__(self, rewriter=None):
        self._blocks: dict = {}  # block_key -> _BlockOrder
        self._of: dict = {}  # op_key -> _BlockOrder
        self._numberings = 0  # bumped whenever positions are (re)assigned from a real block
        self._rewriter = None
        if rewriter is not None:
            rewriter.add_listener(self)
            self._rewriter = rewriter

    # -- lifetime --------------------------------------------------------------------

    def close(self) -> None:
        """Stop listening to the rewriter (the index may still be read)."""
        if self._rewriter is not None:
            self._rewriter.remove_listener(self)
            self._rewriter = None

    def listens_to(self, rewriter) -> bool:
        """True if the index hears ``rewriter``'s moves and erasures (it forgets those ops itself)."""
        return rewriter is not None and self._rewriter is rewriter

    def __enter__(self) -> OrderIndex:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def invalidate(self) -> None:
        """Forget every position."""
        self._blocks.clear()
        self._of.clear()

    # -- the rewriter's listener -----------------------------------------------------

    def notify_erasing(self, op, top) -> None:
        if not self._of:
            return  # nothing indexed
        if len(op.regions):
            self.invalidate()  # nested blocks may be indexed; their addresses may be reused
        else:
            self.note_erased(op)

    def notify_moved(self, op, old_top, new_top) -> None:
        self.note_erased(op)  # unknown until a note places it again

    def notify_moved_all(self, ops, old_tops, new_top) -> None:
        if not self._of:
            return  # nothing indexed
        for op in ops:
            self.note_erased(op)

    # -- queries ---------------------------------------------------------------------

    def _order_of_key(self, op, k: int) -> _BlockOrder:
        bo = self._of.get(k)
        if bo is not None and k in bo.pos:
            return bo
        block = op.block
        bk = block_key(block)
        old = self._blocks.get(bk)
        if old is not None:
            for ok in old.pos:
                self._of.pop(ok, None)
        bo = _BlockOrder(block)
        self._numberings += 1
        self._blocks[bk] = bo
        self._adopt(bo)
        return bo

    def _adopt(self, bo) -> None:
        for ok in bo.pos:
            self._of[ok] = bo

    def pos(self, op) -> float:
        """Position of ``op`` in its block.

        Comparable only within one block and with positions read after the
        last re-numbering (asking about an op the index does not know
        re-reads its block): compare with :meth:`is_before`.
        """
        op = as_op(op)
        k = op_key(op)
        return self._order_of_key(op, k).pos[k]

    def is_before(self, a, b) -> bool:
        """``a`` sits before ``b`` in their (common) block."""
        while True:
            n = self._numberings
            pa = self.pos(a)
            pb = self.pos(b)
            if n == self._numberings:  # no re-numbering between the two reads
                return pa < pb

    def next_op(self, op):
        """The op after ``op`` in its block (None at the end)."""
        op = as_op(op)
        k = op_key(op)
        bo = self._order_of_key(op, k)
        n = bo.nxt.get(k)
        return bo.ops[n] if n is not None else None

    def prev_op(self, op):
        """The op before ``op`` in its block (None at the start)."""
        op = as_op(op)
        k = op_key(op)
        bo = self._order_of_key(op, k)
        p = bo.prv.get(k)
        return bo.ops[p] if p is not None else None

    # -- placement notes -------------------------------------------------------------

    def _indexed_order(self, anchor, ak: int):
        """The :class:`_BlockOrder` of ``anchor``'s block if that block is indexed, else None."""
        bo = self._of.get(ak)
        if bo is not None and ak in bo.pos:
            return bo
        if block_key(anchor.block) not in self._blocks:
            return None  # never asked about: it is read from the real block when first asked
        return self._order_of_key(anchor, ak)

    @property
    def tracking(self) -> bool:
        """True once some block is indexed (before that, placement notes cost nothing)."""
        return bool(self._blocks)

    def note_inserted_before(self, new_op, anchor) -> None:
        """Tell the index that ``new_op`` was created (or moved) right before ``anchor``."""
        self._note_placed(new_op, anchor, before=True)

    def note_moved_after(self, op, anchor) -> None:
        """Tell the index that ``op`` was moved (or created) right after ``anchor``."""
        self._note_placed(op, anchor, before=False)

    def _note_placed(self, op, anchor, before: bool) -> None:
        if not self._blocks:
            return  # nothing indexed yet
        op, anchor = as_op(op), as_op(anchor)
        ak, k = op_key(anchor), op_key(op)
        self.note_erased(op)
        bo = self._indexed_order(anchor, ak)
        if bo is None:
            return
        self._of[k] = bo
        renumbered = bo.insert_before(op, k, ak) if before else bo.insert_after(op, k, ak)
        if renumbered:
            self._numberings += 1
            self._adopt(bo)

    def note_erased(self, op) -> None:
        """Tell the index that ``op`` is about to be erased (or moved out of its block)."""
        if not self._of:
            return  # nothing indexed yet
        k = op_key(as_op(op))
        bo = self._of.pop(k, None)
        if bo is not None:
            bo.remove(k)
