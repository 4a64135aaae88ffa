"""Per-block snapshot of a function: its ops, their operands, results and users as Python ints.

Binding crossings (reading an op's name, operands or results through the
Python bindings) are the dominant cost of a Python pass on a large module.
:class:`FunctionSnapshot` reads every block of a function (nested ones
included) in one visit and keeps, per op, an :class:`OpEntry`: the op handle,
its :func:`~hilo_mlir.ir.binding.identity_key`, name, operand and result
*value ids* (``hash(value)``: the C++ pointer, exact while the value lives),
and the blocks of its regions; per block, a :class:`BlockSnapshot`: its
argument ids and its ops in order; function-wide, the producer and the users
of every value. A pass then asks Python dicts and tuples instead of the IR::

    snap = ctx.get_analysis(FunctionSnapshot, func_op)
    for e in snap.ops_in(snap.entry):          # OpEntry s in block order
        for v in e.operands:
            p = snap.producer.get(v)           # op key of the producer, or None (a block argument)

**Kept current** (it is a :class:`~hilo_mlir.rewrite.rewriter.Listener`; the
analysis manager registers it with the rewriter while it is cached): an op
created, cloned, inserted, erased or moved, an operand set or uses replaced
update it in place, at the cost of reading the ops concerned (never the
whole function). A move or an insertion only marks the order of its block
stale; the order is re-read (op identities only: no operand is read) the
next time it is asked. Attribute and type changes do not touch it (it holds
neither). A block created or a block argument added or erased, and any
change the rewriter did not see, drop it (:attr:`FunctionSnapshot.preserved_by`).
The checking mode (``HILO_MLIR_CHECK_ANALYSES=1``) compares a kept snapshot
with a fresh one after every pass (:meth:`FunctionSnapshot.differences`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.rewrite.rewriter import Change, Listener

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op, Value

__all__ = ["BlockSnapshot", "FunctionSnapshot", "OpEntry"]


class OpEntry:
    """One op of a :class:`FunctionSnapshot`.

    Attributes:
        op: the ``ir.Operation``.
        key: its :func:`~hilo_mlir.ir.binding.identity_key` (stable while it lives).
        name: its name (``"stablehlo.add"``).
        operands: the ids (``hash(value)``) of its operands, in order.
        results: the ids of its results, in order.
        block: the id (``hash(block)``) of the block it sits in.
        regions: the ids of the blocks of its regions, region by region, in order.
    """

    __slots__ = ("block", "key", "name", "op", "operands", "regions", "results")

    def __init__(self, op: ir.Operation, key: int, name: str, operands: tuple[int, ...], results: tuple[int, ...], block: int):
        self.op = op
        self.key = key
        self.name = name
        self.operands = operands
        self.results = results
        self.block = block
        self.regions: tuple[int, ...] = ()

    def __repr__(self) -> str:  # pragma: no cover
        return f"OpEntry({self.name}, operands={self.operands}, results={self.results})"


class BlockSnapshot:
    """One block of a :class:`FunctionSnapshot` (its ops in order: :meth:`FunctionSnapshot.ops_in`).

    Attributes:
        block: the ``ir.Block``.
        key: its id (``hash(block)``).
        parent: the key of the op whose region holds it (the function's for its own blocks).
        args: the ids of its arguments, in order.
        members: the keys of its ops (unordered).
    """

    __slots__ = ("_order", "_stale", "args", "block", "key", "members", "parent")

    def __init__(self, block: ir.Block, key: int, parent: int, args: tuple[int, ...]):
        self.block = block
        self.key = key
        self.parent = parent
        self.args = args
        self.members: set[int] = set()
        self._order: list[int] = []  # op keys in block order (minus erased ones) unless _stale
        self._stale = False  # an op was inserted or moved in: the order is re-read when asked


class FunctionSnapshot(Listener):
    """Every block of a ``func.func`` as Python ints (module doc); ``FunctionSnapshot(func_op, am)``.

    Args:
        func_op: a ``func.func`` (with or without a body).
        am: the analysis manager (unused); None when built by the checking mode or directly.

    Attributes:
        func: the function's ``ir.Operation``; ``top``: its identity key.
        ops: ``{op key: OpEntry}`` for every op nested in the function.
        blocks: ``{block id: BlockSnapshot}`` for every block nested in the function.
        regions: the ids of the function's own blocks (``regions[0]``: the entry block).
        producer: ``{result id: op key}``.
        users: ``{value id: {user op key: number of its operands that are the value}}``
            (a user nested in a region is listed itself, not its ancestor); a value
            without users has no entry.
    """

    #: kept current under these (module doc); BLOCK and UNKNOWN drop it
    preserved_by = Change.ATTRIBUTE | Change.TYPE | Change.MOVE | Change.CREATE | Change.ERASE | Change.OPERAND

    def __init__(self, func_op: Op, am: object = None):
        self.func: ir.Operation = func_op.operation
        self.top = identity_key(self.func)
        self.ops: dict[int, OpEntry] = {}
        self.blocks: dict[int, BlockSnapshot] = {}
        self.producer: dict[int, int] = {}
        self._users: dict[int, dict[int, int]] | None = None  # built on first use (:attr:`users`)
        self.erased = False  # the function itself was erased
        self.regions = self._read_regions(self.func, self.top)

    # ------------------------------------------------------------------ reading the IR

    def _read_regions(self, op: ir.Operation, parent: int) -> tuple[int, ...]:
        return tuple(self._read_block(b, parent) for r in op.regions for b in r.blocks)

    def _read_block(self, block: ir.Block, parent: int) -> int:
        bk = hash(block)
        bs = self.blocks[bk] = BlockSnapshot(block, bk, parent, tuple(map(hash, block.arguments)))
        order = bs._order
        append = order.append
        ops, producer, key_of = self.ops, self.producer, identity_key
        users = self._users
        for view in block.operations:
            o = view.operation
            key = key_of(o)
            results = tuple(map(hash, o.results))
            e = OpEntry(o, key, o.name, tuple(map(hash, o.operands)), results, bk)
            ops[key] = e
            for r in results:
                producer[r] = key
            if users is not None:
                self._add_uses(key, e.operands)
            if len(o.regions):
                e.regions = self._read_regions(o, key)
            append(key)
        bs.members.update(order)
        return bk

    def _read_op(self, o: ir.Operation, bk: int) -> OpEntry:
        key = identity_key(o)
        results = tuple(map(hash, o.results))
        e = OpEntry(o, key, o.name, tuple(map(hash, o.operands)), results, bk)
        self.ops[key] = e
        producer = self.producer
        for r in results:
            producer[r] = key
        if self._users is not None:
            self._add_uses(key, e.operands)
        if len(o.regions):
            e.regions = self._read_regions(o, key)
        return e

    @property
    def users(self) -> dict[int, dict[int, int]]:
        """``{value id: {user op key: number of its operands that are the value}}`` (class doc);
        indexed on first use, then kept current."""
        users = self._users
        if users is None:
            users = self._users = {}
            for key, e in self.ops.items():
                for v in e.operands:
                    u = users.get(v)
                    if u is None:
                        users[v] = {key: 1}
                    else:
                        u[key] = u.get(key, 0) + 1
        return users

    def _add_uses(self, key: int, operands: Iterable[int]) -> None:
        users = self._users
        if users is None:
            return
        for v in operands:
            u = users.get(v)
            if u is None:
                users[v] = {key: 1}
            else:
                u[key] = u.get(key, 0) + 1

    def _drop_uses(self, key: int, operands: Iterable[int]) -> None:
        users = self._users
        if users is None:
            return
        for v in operands:
            u = users.get(v)
            if u is None:
                continue
            n = u.get(key, 0) - 1
            if n > 0:
                u[key] = n
            else:
                u.pop(key, None)
                if not u:
                    del users[v]

    # ------------------------------------------------------------------ queries

    @property
    def entry(self) -> BlockSnapshot:
        """The function's entry block (KeyError for a declaration)."""
        return self.blocks[self.regions[0]]

    def block_of(self, block: ir.Block) -> BlockSnapshot:
        """The :class:`BlockSnapshot` of ``block`` (KeyError if it is not in the function)."""
        return self.blocks[hash(block)]

    def order(self, bs: BlockSnapshot) -> list[int]:
        """The keys of the ops of ``bs`` in block order (the list is the snapshot's: do not mutate it)."""
        if bs._stale:
            ops = self.ops
            bs._order = [identity_key(o.operation) for o in bs.block.operations]
            bs._stale = False
            if len(bs._order) != len(bs.members) or any(k not in ops for k in bs._order):
                raise AssertionError("FunctionSnapshot: a block holds an op the rewriter did not announce")
        elif len(bs._order) != len(bs.members):  # ops erased or moved out since: drop them, order kept
            members = bs.members
            bs._order = [k for k in bs._order if k in members]
        return bs._order

    def ops_in(self, bs: BlockSnapshot) -> list[OpEntry]:
        """The :class:`OpEntry` s of ``bs`` in block order."""
        ops = self.ops
        return [ops[k] for k in self.order(bs)]

    def positions(self, bs: BlockSnapshot) -> dict[int, int]:
        """``{op key: position}`` of the ops of ``bs`` (0-based, block order)."""
        return {k: i for i, k in enumerate(self.order(bs))}

    def nested_operands(self, e: OpEntry) -> list[int]:
        """The operand ids of the ops nested in ``e``'s regions (not ``e``'s own), in pre-order."""
        out: list[int] = []

        def visit(x: OpEntry) -> None:
            for bk in x.regions:
                for y in self.ops_in(self.blocks[bk]):
                    out.extend(y.operands)
                    if y.regions:
                        visit(y)

        visit(e)
        return out

    def users_of(self, value_id: int) -> dict[int, int]:
        """``{user op key: uses}`` of the value ``value_id`` ({} if it has none)."""
        return self.users.get(value_id, {})

    def ancestor_in(self, key: int, bk: int) -> OpEntry | None:
        """The op of block ``bk`` that is (or holds) the op ``key``; None if ``key`` is not nested in ``bk``."""
        ops, blocks = self.ops, self.blocks
        e = ops.get(key)
        while e is not None:
            if e.block == bk:
                return e
            e = ops.get(blocks[e.block].parent)
        return None

    def reordered(self, bs: BlockSnapshot, keys: list[int]) -> None:
        """Say that the block ``bs`` now holds the ops ``keys`` in this order (a pass that reordered it
        through the rewriter knows it: the order need not be re-read). The checking mode compares it
        with the IR like the rest.

        Raises:
            ValueError: ``keys`` are not the block's ops.
        """
        if len(keys) != len(bs.members) or not bs.members.issuperset(keys):
            raise ValueError("FunctionSnapshot.reordered: not the ops of the block")
        bs._order = list(keys)
        bs._stale = False

    # ------------------------------------------------------------------ upkeep (the rewriter's listener)

    def _remove(self, e: OpEntry) -> None:
        """Forget ``e`` and everything nested in it (erased, or moved out of the function)."""
        self.blocks[e.block].members.discard(e.key)
        stack = [e]
        ops, producer = self.ops, self.producer
        users = self._users if self._users is not None else {}
        while stack:
            x = stack.pop()
            ops.pop(x.key, None)
            for r in x.results:
                producer.pop(r, None)
                users.pop(r, None)
            self._drop_uses(x.key, x.operands)
            for bk in x.regions:
                bs = self.blocks.pop(bk)
                for a in bs.args:
                    users.pop(a, None)
                stack.extend(ops[k] for k in bs.members if k in ops)

    def _add(self, op: ir.Operation, bk: int | None = None) -> None:
        """Read ``op`` (and what is nested in it), which now sits in a block of the function."""
        if bk is None:
            bk = hash(op.block)
        bs = self.blocks.get(bk)
        if bs is None:  # a block never seen: cannot happen through the rewriter (a new block drops us)
            raise AssertionError("FunctionSnapshot: an op was inserted into a block it does not know")
        e = self._read_op(op, bk)
        bs.members.add(e.key)
        bs._stale = True

    def notify_inserted(self, op: ir.Operation, top: int | None) -> None:
        if top != self.top:
            return
        old = self.ops.get(identity_key(op))
        if old is not None:  # announced again (built by other means, then notified): read it anew
            self._remove(old)
        self._add(op)

    def notify_erasing(self, op: ir.Operation, top: int | None) -> None:
        if top != self.top:
            return
        key = identity_key(op)
        if key == self.top:
            self.erased = True
            return
        e = self.ops.get(key)
        if e is not None:
            self._remove(e)

    def notify_moved_all(self, ops: list[ir.Operation], old_tops: list[int | None], new_top: int | None) -> None:
        mine = self.top
        if new_top != mine and mine not in old_tops:
            return
        new_bk = hash(ops[0].block) if new_top == mine else None  # a batch lands in one block
        for op, old in zip(ops, old_tops):
            e = self.ops.get(identity_key(op)) if old == mine else None
            if new_bk is None:
                if e is not None:
                    self._remove(e)  # moved to another function
            elif e is None:
                self._add(op, new_bk)  # moved in from another function
            else:
                self.blocks[e.block].members.discard(e.key)
                bs = self.blocks[new_bk]
                bs.members.add(e.key)
                bs._stale = True
                e.block = new_bk

    def notify_operands_changed(self, ops: list[ir.Operation], top: int | None) -> None:
        if top != self.top:
            return
        for op in ops:
            e = self.ops.get(identity_key(op))
            if e is not None:
                self._reread_operands(e)

    def notify_uses_replaced(self, old: Value, new: Value, top: int | None) -> None:
        if top != self.top:
            return
        ops = self.ops
        if self._users is None:  # no users index: the ops changed are among the users of ``new`` now
            keys = dict.fromkeys(identity_key(u.owner.operation) for u in new.uses)
        else:
            keys = dict.fromkeys(self._users.get(hash(old), ()))
        for k in keys:
            e = ops.get(k)
            if e is not None:
                self._reread_operands(e)

    def _reread_operands(self, e: OpEntry) -> None:
        self._drop_uses(e.key, e.operands)
        e.operands = tuple(map(hash, e.op.operands))
        self._add_uses(e.key, e.operands)

    # ------------------------------------------------------------------ the checking mode

    def canonical(self) -> dict[str, Any]:
        """Everything the snapshot states, as plain data (what :meth:`differences` compares)."""
        return {
            "regions": self.regions,
            "blocks": {bk: (bs.parent, bs.args, tuple(self.order(bs))) for bk, bs in self.blocks.items()},
            "ops": {k: (e.name, e.operands, e.results, e.block, e.regions) for k, e in self.ops.items()},
            "producer": self.producer,
            "users": self.users,
        }

    def differences(self, fresh: FunctionSnapshot) -> list[str]:
        """How this snapshot differs from ``fresh`` (one read of the IR as it is now); [] if equal."""
        if self.erased:
            return ["the function was erased but its snapshot is still cached"]
        mine, theirs = self.canonical(), fresh.canonical()
        out = []
        for part in ("regions", "blocks", "ops", "producer", "users"):
            a, b = mine[part], theirs[part]
            if a == b:
                continue
            if isinstance(a, dict):
                keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
                out.append(f"{part} differ at {len(keys)} key(s), e.g. kept {a.get(keys[0])!r}, now {b.get(keys[0])!r}")
            else:
                out.append(f"{part} differ")
        return out
