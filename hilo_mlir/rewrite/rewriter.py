"""The recording rewriter: every IR mutation a Python pass makes goes through it.

MLIR's ``RewriterBase`` (and xDSL's ``Rewriter``) let a pass driver know what
a pattern did; here one :class:`Rewriter` per pipeline run does the same for
whole passes. Each method performs one mutation through the binding and

* records its kind (:class:`Change`) in :attr:`Rewriter.changes`, overall and
  per top-level op of the module (the ``func.func`` it happened in), so that
  the pipeline *derives* what a pass preserved: nothing recorded means the IR
  is untouched (no verifier run, every analysis kept); attribute changes
  only keep the op census; and so on (:mod:`hilo_mlir.analysis.manager`);
* tells its listeners (the op census, the analysis manager) before or after
  the fact, as MLIR's ``RewriterBase::Listener`` hears
  ``notifyOperationInserted`` / ``notifyOperationErased``, so that the op
  census is kept current in place instead of rebuilt.

A mutation made without the rewriter is invisible to the pipeline; the
checking mode (``HILO_MLIR_CHECK_ANALYSES=1``, :mod:`hilo_mlir.analysis.check`)
finds it by comparing a fingerprint of the module and a fresh census with
what the log claims. A pass that must mutate by other means (an upstream C++
pass run on a sub-op, a dialect builder) calls :meth:`Rewriter.notify_inserted`
for the ops it built, or :meth:`Rewriter.notify_unknown_change`, which
counts as "everything changed".

Handles: the binding hands out a new Python wrapper per access and an erased
op leaves other wrappers dangling; listeners therefore key ops by
:func:`hilo_mlir.ir.binding.identity_key` (the C++ pointer), which is safe to read
from a dangling wrapper.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from hilo_mlir.ir.binding import checking_mode_enabled, identity_key, ir

if TYPE_CHECKING:
    from hilo_mlir.ir.handles import Op, Value

#: a listener's bound notification (its signature is the :class:`Listener` method's)
_Notify = Callable[..., None]


class Change(enum.IntFlag):
    """Kinds of IR change a :class:`Rewriter` records (bit flags; ``NONE`` is nothing)."""

    NONE = 0
    #: an attribute set or removed (inherent or discardable)
    ATTRIBUTE = enum.auto()
    #: an op moved to another place (same op)
    MOVE = enum.auto()
    #: an operand of an op changed (uses replaced)
    OPERAND = enum.auto()
    #: an op created, cloned or inserted
    CREATE = enum.auto()
    #: an op erased
    ERASE = enum.auto()
    #: the type of a result or block argument changed
    TYPE = enum.auto()
    #: a block created, a block argument added or erased
    BLOCK = enum.auto()
    #: a mutation the rewriter did not see (an upstream pass, a C++ helper): everything
    UNKNOWN = enum.auto()


#: every kind: what "anything may have changed" means
ALL_CHANGES = Change.ATTRIBUTE | Change.MOVE | Change.OPERAND | Change.CREATE | Change.ERASE | Change.TYPE | Change.BLOCK | Change.UNKNOWN


class Listener:
    """What a rewriter tells its listeners (MLIR's ``RewriterBase::Listener``), declared: a listener
    subclasses it and overrides the notifications it wants; the others cost nothing (the rewriter
    calls only overridden methods). ``top`` is the :func:`~hilo_mlir.ir.binding.identity_key` of the
    top-level op of the module (usually a ``func.func``) the change happened in, or None when not known."""

    def notify_change(self, kind: Change, top: int | None) -> None:
        """Any recorded change (after the specific notification below)."""

    def notify_unknown_change(self) -> None:
        """The IR changed by means the rewriter did not see."""

    def notify_inserted(self, op: ir.Operation, top: int | None) -> None:
        """``op`` was created or inserted."""

    def notify_created(self, op: ir.Operation, top: int | None) -> None:
        """``op`` was created by :meth:`Rewriter.create`: its regions (if any) are empty, nothing is
        nested in it. When not overridden, ``notify_inserted``."""

    def notify_erasing(self, op: ir.Operation, top: int | None) -> None:
        """``op`` is about to be erased."""

    def notify_erasing_all(self, ops: list[ir.Operation], tops: list[int | None]) -> None:
        """Several ops are about to be erased (:meth:`Rewriter.erase_ops`; ``tops[i]`` is where ``ops[i]`` is),
        all of them still in place; when not overridden, ``notify_erasing`` per op."""

    def notify_moved(self, op: ir.Operation, old_top: int | None, new_top: int | None) -> None:
        """``op`` moved."""

    def notify_moved_all(self, ops: list[ir.Operation], old_tops: list[int | None], new_top: int | None) -> None:
        """Several ops moved at once (:meth:`Rewriter.move_all_before`); when not overridden, ``notify_moved`` per op."""

    def notify_type_changed(self, old: ir.Type, new: ir.Type) -> None:
        """A value's type changed from ``old`` to ``new``."""

    def notify_attribute_set(self, op: ir.Operation, name: str) -> None:
        """Attribute ``name`` of ``op`` was set (:meth:`Rewriter.set_attr`), after the fact."""

    def notify_block_arguments(self, types: list[ir.Type], added: bool) -> None:
        """Block arguments of ``types`` were added (or erased)."""

    def notify_operands_changed(self, ops: list[ir.Operation], top: int | None) -> None:
        """Operands of each op of ``ops`` were set in place (after the fact; ``top``: where the first one is)."""

    def notify_uses_replaced(self, old: Value, new: Value, top: int | None) -> None:
        """Uses of ``old`` now use ``new`` (all of them, or all but some: the users tell); after the fact."""


def _overrides(listener: Listener, method: str) -> bool:
    return getattr(type(listener), method) is not getattr(Listener, method)


def _refuse_used(op: ir.Operation) -> None:
    """Raise :class:`ValueError` if a result of ``op`` still has a use (the checking mode's guard before an
    erasure: the binding erases such an op without complaint and leaves the users' operands dangling)."""
    for i, r in enumerate(op.results):
        for use in r.uses:
            raise ValueError(f"erasing '{op.name}' at {op.location}: its result #{i} is still used by '{use.owner.name}'")


def _as_op(x: Op) -> ir.Operation:
    """The ``ir.Operation`` of an op or op view (an ``ir.Operation``'s ``.operation`` is itself)."""
    return x.operation


def _erasing_op_by_op(
    notify_erasing: Callable[[ir.Operation, int | None], None],
) -> Callable[[list[ir.Operation], list[int | None]], None]:
    """A ``notify_erasing_all`` made of a listener's ``notify_erasing``."""

    def each(ops: list[ir.Operation], tops: list[int | None]) -> None:
        for o, top in zip(ops, tops):
            notify_erasing(o, top)

    return each


def _op_by_op(
    notify_moved: Callable[[ir.Operation, int | None, int | None], None],
) -> Callable[[list[ir.Operation], list[int | None], int | None], None]:
    """A ``notify_moved_all`` made of a listener's ``notify_moved``."""

    def each(ops: list[ir.Operation], olds: list[int | None], new: int | None) -> None:
        for o, old in zip(ops, olds):
            notify_moved(o, old, new)

    return each


def _ip(
    before: Op | None = None,
    after: Op | None = None,
    at_end: ir.Block | None = None,
    at_start: ir.Block | None = None,
    ip: ir.InsertionPoint | None = None,
) -> ir.InsertionPoint:
    """One insertion point from exactly one of the placement keywords."""
    given = (before is not None) + (after is not None) + (at_end is not None) + (at_start is not None) + (ip is not None)
    if given != 1:
        raise TypeError("give exactly one of before=, after=, at_end=, at_start=, ip=")
    if before is not None:
        return ir.InsertionPoint(before.operation)
    if ip is not None:
        return ip
    if at_end is not None:
        return ir.InsertionPoint(at_end)
    if at_start is not None:
        return ir.InsertionPoint.at_block_begin(at_start)
    assert after is not None  # exactly one was given
    return ir.InsertionPoint.after(after.operation)


class Rewriter:
    """Performs and records every IR mutation of a Python pass (see the module doc).

    One rewriter serves a whole pipeline run; :meth:`take_changes` hands the
    pipeline what the last step did and starts a new log.

    Args:
        module_op: the ``builtin.module`` being rewritten (scopes changes to its
            top-level ops); None outside a pipeline (changes are then recorded
            without a scope).

    Attributes:
        changes: the :class:`Change` kinds recorded since the last :meth:`take_changes`.
        changed_tops: ``{identity_key(top-level op): Change}`` for the same period.
        actions: number of mutations recorded in the same period.
    """

    def __init__(self, module_op: Op | None = None) -> None:
        self._module_key = identity_key(module_op) if module_op is not None else None
        self._module_op = _as_op(module_op) if module_op is not None else None
        # the module's body block, by hash (blocks hash by their pointer): its ops are the top-level ones
        self._body_hash = hash(module_op.regions[0].blocks[0]) if module_op is not None else None
        self.listeners: list[Listener] = []
        self._hooks: dict[str, tuple[_Notify, ...]] = {}  # listener method name -> the listeners' bound methods
        self._block_top: dict[int, int] = {}  # hash(block) -> identity_key of its top-level op
        # The kinds as plain ints while recording (IntFlag arithmetic costs ~10 us an operation,
        # several times the mutation it records); Change objects only when asked for.
        self._bits = 0
        self._top_bits: dict[int, int] = {}
        self.actions = 0
        # The checking mode (HILO_MLIR_CHECK_ANALYSES=1) refuses to erase an op whose results still have
        # uses: the binding would free it and leave its users' operands pointing at freed memory.
        self.check_erasures = checking_mode_enabled()
        # ... and compares the top-level op :meth:`create_block` records for a new block with a walk.
        self.check_block_tops = self.check_erasures

    # ------------------------------------------------------------------ bookkeeping

    @property
    def changes(self) -> Change:
        """The :class:`Change` kinds recorded since the last :meth:`take_changes`."""
        return Change(self._bits)

    @property
    def changed_tops(self) -> dict[int, Change]:
        """``{identity_key(top-level op): Change}`` recorded since the last :meth:`take_changes`."""
        return {k: Change(v) for k, v in self._top_bits.items()}

    def take_changes(self) -> tuple[Change, dict[int, Change]]:
        """Return ``(changes, changed_tops)`` recorded so far and reset both."""
        out = (self.changes, self.changed_tops)
        self._bits = 0
        self._top_bits = {}
        self.actions = 0
        return out

    def add_listener(self, listener: Listener) -> None:
        if listener not in self.listeners:
            self.listeners.append(listener)
            self._hooks.clear()

    def remove_listener(self, listener: Listener) -> None:
        if listener in self.listeners:
            self.listeners.remove(listener)
            self._hooks.clear()

    def _hook(self, method: str) -> tuple[_Notify, ...]:
        """The listeners' ``method`` (those that have it), in listener order; kept until the listeners change."""
        fs = self._hooks.get(method)
        if fs is None:
            fs = self._hooks[method] = tuple(getattr(lst, method) for lst in self.listeners if _overrides(lst, method))
        return fs

    def _hook_or(self, key: str, method: str, fallback: str, adapt: Callable[[_Notify], _Notify] | None = None) -> tuple[_Notify, ...]:
        """Per listener: its ``method``, else its ``fallback`` (wrapped by ``adapt`` when given), listeners
        with neither left out; kept under ``key`` like :meth:`_hook`."""
        fs = self._hooks.get(key)
        if fs is None:
            out: list[_Notify] = []
            for lst in self.listeners:
                if _overrides(lst, method):
                    out.append(getattr(lst, method))
                elif _overrides(lst, fallback):
                    f = getattr(lst, fallback)
                    out.append(adapt(f) if adapt is not None else f)
            fs = self._hooks[key] = tuple(out)
        return fs

    def _record(self, kind: Change, top: int | None) -> None:
        bit = kind._value_
        self._bits |= bit
        self.actions += 1
        if top is not None:
            tops = self._top_bits
            tops[top] = tops.get(top, 0) | bit
        on_change = self._hooks.get("notify_change")
        if on_change is None:
            on_change = self._hook("notify_change")
        for f in on_change:
            f(kind, top)

    def top_of_block(self, block: ir.Block) -> int | None:
        """``identity_key`` of the top-level op of the module that holds ``block``
        (None for the module's own body, or without a module)."""
        if self._module_key is None:
            return None
        hb = hash(block)
        top = self._block_top.get(hb)
        if top is not None:
            return top
        if hb == self._body_hash:
            return None
        top = self._walk_to_top(block)
        if top is not None:
            self._block_top[hb] = top
        return top

    def _walk_to_top(self, block: ir.Block) -> int | None:
        """:meth:`top_of_block` read from the IR: the parents of ``block``'s owner up to the module (no cache)."""
        op: ir.Operation = block.owner.operation
        if identity_key(op) == self._module_key:
            return None
        while True:
            parent = op.parent
            if parent is None:
                return None
            if identity_key(parent) == self._module_key:
                break
            op = parent
        return identity_key(op)

    def top_of(self, op: Op) -> int | None:
        """``identity_key`` of the top-level op that holds (or is) ``op``; None without a module."""
        if self._module_key is None:
            return None
        op = op.operation
        if op == self._module_op:  # the module op itself (its .block is not safe to read)
            return None
        block = op.block
        if block is None:
            return None
        hb = hash(block)
        top = self._block_top.get(hb)
        if top is not None:
            return top
        if hb == self._body_hash:
            return identity_key(op)
        return self.top_of_block(block)

    def _known_top(self, top: int | None, op: Op) -> int | None:
        """``top``, a caller's answer for :meth:`top_of` of ``op`` (a pass that knows which top-level op
        it works in: the fusion codegen asks once per cluster, not once per change). The checking mode
        compares it with :meth:`top_of` and raises :class:`AssertionError` if they differ."""
        if self.check_block_tops and self.top_of(op) != top:
            raise AssertionError(f"rewriter: the top-level op given for '{_as_op(op).name}' is not the one it is in")
        return top

    def _forget_blocks(self) -> None:
        # An erased op frees its blocks; a new block may reuse an address.
        self._block_top.clear()

    # ------------------------------------------------------------------ creation

    def create(
        self,
        name: str,
        *,
        results: Iterable[ir.Type] = (),
        operands: Iterable[Value] = (),
        attributes: dict[str, ir.Attribute] | None = None,
        successors: Sequence[ir.Block] | None = None,
        regions: int = 0,
        loc: ir.Location | None = None,
        before: Op | None = None,
        after: Op | None = None,
        at_end: ir.Block | None = None,
        at_start: ir.Block | None = None,
        ip: ir.InsertionPoint | None = None,
        top: int | None = None,
    ) -> ir.Operation:
        """Create op ``name`` and insert it (``ir.Operation.create`` plus the record).

        Placement: exactly one of ``before=op``, ``after=op``, ``at_end=block``,
        ``at_start=block`` or ``ip=InsertionPoint``. ``loc`` defaults to the
        location of ``before``/``after`` or to the current location.
        ``top``: the :meth:`top_of` the new op will have, if the caller knows it (not asked
        then; see :meth:`_known_top`); None: asked.

        Returns the new ``ir.Operation``.
        """
        point = _ip(before, after, at_end, at_start, ip)
        if loc is None:
            ref = before if before is not None else after
            loc = _as_op(ref).location if ref is not None else None
        op = ir.Operation.create(
            name,
            results=list(results),
            operands=list(operands),
            attributes=attributes,
            successors=successors,
            regions=regions,
            loc=loc,
            ip=point,
        )
        top = self.top_of(op) if top is None else self._known_top(top, op)
        for f in self._created_hooks():
            f(op, top)
        self._record(Change.CREATE, top)
        return op

    def create_with_block(
        self,
        name: str,
        *,
        arg_types: Sequence[ir.Type],
        arg_locs: Sequence[ir.Location],
        terminator: str,
        terminator_operands: Iterable[Value] = (),
        attributes: dict[str, ir.Attribute] | None = None,
        loc: ir.Location,
        at_end: ir.Block,
    ) -> tuple[ir.Operation, ir.Block, ir.Operation]:
        """Create op ``name`` (no operands or results) with one region holding one block (arguments of
        ``arg_types`` at ``arg_locs``) that ends in a new ``terminator`` of ``terminator_operands``; the op
        is appended to ``at_end``. Returns ``(op, its block, the terminator)``.

        The same IR as :meth:`create` of ``name`` (``regions=1``), :meth:`create_block` and :meth:`create` of
        the terminator ``at_end=`` the block, and the listeners hear the same per-op notifications in that
        order (created, block arguments, created); but the top-level op is found once and one change
        (``CREATE | BLOCK``) is recorded, not three, so ``notify_change`` is heard once, with both bits:
        nothing outside the new op can tell the parts apart (the fusion codegen's decomposition function,
        a new top-level op). The checking mode compares the block's top-level op with a walk.

        Raises:
            AssertionError: in the checking mode, the block's top-level op found by a walk is not the
                op's. If creating the block or the terminator raises, the listeners have heard the op
                created but no change is recorded.
        """
        op = ir.Operation.create(name, attributes=attributes, regions=1, loc=loc, ip=ir.InsertionPoint(at_end))
        top = self.top_of(op)
        for f in self._created_hooks():
            f(op, top)
        types = list(arg_types)
        block = op.regions[0].blocks.append(*types, arg_locs=list(arg_locs))
        for f in self._hook("notify_block_arguments") if types else ():
            f(types, True)
        if top is not None:
            if self.check_block_tops and self._walk_to_top(block) != top:
                raise AssertionError(f"create_with_block: the new block's top-level op is not its owner's ({name})")
            self._block_top[hash(block)] = top
        term = ir.Operation.create(terminator, operands=list(terminator_operands), loc=loc, ip=ir.InsertionPoint(block))
        for f in self._created_hooks():
            f(term, top)
        self._record(Change.CREATE | Change.BLOCK, top)
        self.actions += 2  # three mutations, one record
        return op, block, term

    def _created_hooks(self) -> tuple[_Notify, ...]:
        """Per listener: its ``notify_created``, or its ``notify_inserted`` (kept like :meth:`_hook`)."""
        return self._hook_or("<created>", "notify_created", "notify_inserted")

    def clone(
        self,
        op: Op,
        *,
        before: Op | None = None,
        after: Op | None = None,
        at_end: ir.Block | None = None,
        at_start: ir.Block | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> ir.Operation:
        """Clone ``op`` (its regions included) at the given place; returns the clone."""
        point = _ip(before, after, at_end, at_start, ip)
        new = op.operation.clone(ip=point).operation
        self._inserted(new)
        return new

    def insert(
        self,
        op: Op,
        *,
        before: Op | None = None,
        after: Op | None = None,
        at_end: ir.Block | None = None,
        at_start: ir.Block | None = None,
        ip: ir.InsertionPoint | None = None,
    ) -> ir.Operation:
        """Insert a detached op (``ir.Operation.parse``'d, or built elsewhere) at the given place."""
        point = _ip(before, after, at_end, at_start, ip)
        op = _as_op(op)
        point.insert(op)
        self._inserted(op)
        return op

    def notify_inserted(self, op: Op) -> None:
        """Record an op the pass built by other means (a dialect builder under an
        ``ir.InsertionPoint``): as if :meth:`create` had made it, nested ops included."""
        self._inserted(_as_op(op))

    def _inserted(self, op: ir.Operation) -> None:
        top = self.top_of(op)
        for f in self._hook("notify_inserted"):
            f(op, top)
        self._record(Change.CREATE, top)

    def create_block(
        self,
        region: ir.Region,
        arg_types: Iterable[ir.Type] = (),
        arg_locs: Iterable[ir.Location] | None = None,
        owner: Op | None = None,
    ) -> ir.Block:
        """Append a new block with arguments of ``arg_types`` to ``region`` (locations ``arg_locs``,
        default unknown); returns the block. ``owner``: the op ``region`` belongs to, if the caller
        has it (else read from ``region``)."""
        types = list(arg_types)
        locs = list(arg_locs) if arg_locs is not None else [ir.Location.unknown()] * len(types)
        block = region.blocks.append(*types, arg_locs=locs)
        if owner is None:
            owner = region.owner
        top = self._block_args(types, True, owner)
        if top is not None:
            # The block's top-level op is its owner's, known now: the ops then created in it or moved
            # into it (a fused body, a decomposition) find it with one lookup, not a walk up the parents.
            if self.check_block_tops and self._walk_to_top(block) != top:
                raise AssertionError(f"create_block: the new block's top-level op is not its owner's ({owner.operation.name})")
            self._block_top[hash(block)] = top
        return block

    def add_argument(self, block: ir.Block, type_: ir.Type, loc: ir.Location) -> Value:
        """Append a block argument of ``type_``; returns it."""
        v = block.add_argument(type_, loc)
        self._block_args([type_], True, block.owner)
        return v

    def erase_argument(self, block: ir.Block, index: int) -> None:
        """Erase argument ``index`` of ``block`` (it must have no uses)."""
        t = block.arguments[index].type
        block.erase_argument(index)
        self._block_args([t], False, block.owner)

    def _block_args(self, types: list[ir.Type], added: bool, owner: Op) -> int | None:
        """Tell and record a change of block arguments in a block of ``owner``; returns ``owner``'s top-level op."""
        top = self.top_of(owner)
        for f in self._hook("notify_block_arguments") if types else ():
            f(types, added)
        self._record(Change.BLOCK, top)
        return top

    # ------------------------------------------------------------------ erasure

    def erase_op(self, op: Op) -> None:
        """Erase ``op`` (and everything nested in it). Its results must have no uses (the checking mode
        raises :class:`ValueError` if one has: erasing it would leave its users reading freed memory)."""
        op = _as_op(op)
        if self.check_erasures:
            _refuse_used(op)
        top = self.top_of(op)
        for f in self._hook("notify_erasing"):
            f(op, top)
        if len(op.regions):
            self._forget_blocks()
        op.erase()
        self._record(Change.ERASE, top)

    def erase_ops(self, ops: Iterable[Op]) -> None:
        """Erase ``ops`` (distinct), in the order given: the same as :meth:`erase_op` on each in turn, so each
        op's results must have no uses when its turn comes (users first).

        A batch of ops without regions costs less than one call per op: the listeners hear it at once
        (``notify_erasing_all``, before the first erasure, every op still in place;
        a listener without it hears ``notify_erasing`` per op), and one change is
        recorded per top-level op. If an erasure fails, the rest of the batch is
        not erased and the change counts as unknown (the listeners were told of all). A batch in which
        an op is nested in another op of the batch is erased one op at a time.
        """
        batch = [o.operation for o in ops]
        if not batch:
            return
        holders = {identity_key(o) for o in batch if len(o.regions)}
        if holders and any(_nested_in(o, holders) for o in batch):  # one at a time, exactly as erase_op
            for o in batch:
                self.erase_op(o)
            return
        top_of = self.top_of
        tops = [top_of(o) for o in batch]
        for f in self._erase_hooks():
            f(batch, tops)
        self._forget_blocks()  # an op of the batch may hold blocks (cheaper than asking each)
        done = False
        check = self.check_erasures
        try:
            for o in batch:
                if check:
                    _refuse_used(o)
                o.erase()
            done = True
        finally:
            if done:
                for top in dict.fromkeys(tops):
                    self._record(Change.ERASE, top)
            else:
                self.notify_unknown_change()

    def _erase_hooks(self) -> tuple[_Notify, ...]:
        """Per listener: its ``notify_erasing_all``, or its ``notify_erasing`` called op by op (kept like :meth:`_hook`)."""
        return self._hook_or("<erasures>", "notify_erasing_all", "notify_erasing", _erasing_op_by_op)

    def replace_op(self, op: Op, new_values: Iterable[Value]) -> None:
        """Replace every use of ``op``'s results by ``new_values`` (one per result), then erase ``op``."""
        op = _as_op(op)
        vals = list(new_values)
        results = list(op.results)
        if len(vals) != len(results):
            raise ValueError(f"replace_op: {len(results)} results, {len(vals)} replacements")
        for r, v in zip(results, vals):
            self.replace_all_uses_with(r, v)
        self.erase_op(op)

    # ------------------------------------------------------------------ uses

    def replace_all_uses_with(self, old: Value, new: Value, top: int | None = None) -> None:
        """Every use of value ``old`` now uses ``new``. ``top``: the top-level op ``new`` is defined
        in, if the caller knows it (as for :meth:`create`); None: asked."""
        old.replace_all_uses_with(new)
        self._uses_replaced(old, new, top)

    def _uses_replaced(self, old: Value, new: Value, top: int | None = None) -> None:
        if top is None:
            top = self._value_top(new)
        elif self.check_block_tops and self._value_top(new) != top:
            raise AssertionError("replace_all_uses_with: the top-level op given is not the one the new value is in")
        for f in self._hook("notify_uses_replaced"):
            f(old, new, top)
        self._record(Change.OPERAND, top)

    def replace_all_uses_except(self, old: Value, new: Value, exceptions: Op | list[Op] | tuple[Op, ...]) -> None:
        """Every use of ``old`` except those by the op(s) ``exceptions`` now uses ``new``."""
        exc: ir.Operation | list[ir.Operation] = (
            [_as_op(e) for e in exceptions] if isinstance(exceptions, (list, tuple)) else _as_op(exceptions)
        )
        old.replace_all_uses_except(new, exc)
        self._uses_replaced(old, new)

    def replace_uses_of_with(self, op: Op, old: Value, new: Value) -> None:
        """In ``op`` only, every operand ``old`` becomes ``new``."""
        op = _as_op(op)
        op.replace_uses_of_with(old, new)
        self._operands_changed([op])

    def set_operand(self, op: Op, index: int, value: Value) -> None:
        """Operand ``index`` of ``op`` becomes ``value``."""
        op = _as_op(op)
        op.operands[index] = value
        self._operands_changed([op])

    def _operands_changed(self, ops: list[ir.Operation]) -> None:
        top = self.top_of(ops[0])
        for f in self._hook("notify_operands_changed"):
            f(ops, top)
        self._record(Change.OPERAND, top)

    def set_operands(self, updates: Iterable[tuple[Op, int, Value]], within: Op | None = None, top: int | None = None) -> None:
        """Each ``(op, index, value)`` of ``updates``: operand ``index`` of ``op`` becomes ``value``
        (as :meth:`set_operand` each; one record per top-level op touched).

        ``within``: an op whose top-level op holds every op of ``updates`` (a fusion op whose body and
        block they are in): the top-level op is then found once, not per op. The checking mode finds it
        per op and raises :class:`ValueError` (before any operand is set) if one is elsewhere.
        ``top``: with ``within``, its top-level op if the caller knows it (as for :meth:`create`).
        """
        by_top: dict[int | None, list[ir.Operation]] = {}  # top -> the ops changed in it, in order
        if within is not None:
            top = self.top_of(within) if top is None else self._known_top(top, within)
            changed = by_top[top] = []
            if self.check_erasures:  # the checking mode: every op where the caller said
                updates = list(updates)
                for op, _index, _value in updates:
                    if self.top_of(op) != top:
                        o = _as_op(op)
                        raise ValueError(f"set_operands: '{o.name}' at {o.location} is not in the top-level op of 'within'")
            try:
                for op, index, value in updates:
                    o = op.operation
                    o.operands[index] = value
                    changed.append(o)
            finally:
                if not changed:
                    del by_top[top]
                self._operands_set(by_top)
            return
        try:
            for op, index, value in updates:
                o = _as_op(op)
                o.operands[index] = value
                by_top.setdefault(self.top_of(o), []).append(o)
        finally:
            self._operands_set(by_top)

    def _operands_set(self, by_top: dict[int | None, list[ir.Operation]]) -> None:
        """Tell the listeners and record the operands :meth:`set_operands` set, per top-level op."""
        hooks = self._hook("notify_operands_changed") if by_top else ()
        for top, ops in by_top.items():
            for f in hooks:
                f(ops, top)
        for top in by_top:
            self._record(Change.OPERAND, top)

    def _value_top(self, v: Value) -> int | None:
        if self._module_key is None:
            return None
        owner = v.owner
        if isinstance(owner, ir.Block):
            return self.top_of_block(owner)
        return self.top_of(owner)

    # ------------------------------------------------------------------ moves

    def move_before(self, op: Op, anchor: Op) -> None:
        """Move ``op`` right before ``anchor`` (any block)."""
        op = _as_op(op)
        old = self.top_of(op)
        op.move_before(_as_op(anchor))
        self._moved(op, old)

    def move_all_before(
        self, ops: Iterable[Op], anchor: Op, within: Op | None = None, tops: tuple[int | None, int | None] | None = None
    ) -> None:
        """Move ``ops`` (distinct ops, none of them ``anchor``), in their order, right before ``anchor``.

        The same as :meth:`move_before` on each in turn; listeners with
        ``notify_moved_all`` hear the batch at once, the others each op.
        Before a top-level op (each moved op then becomes its own top-level
        op) it is :meth:`move_before` on each.

        ``within``: an op whose top-level op holds every op of ``ops`` (the fusion codegen's members,
        all in one block): that top-level op is found once, not per op, and the ops are taken to be
        distinct as promised. The checking mode finds it per op and checks the promise, raising
        :class:`ValueError` (before anything moves) if one is elsewhere or given twice.

        ``tops``: with ``within``, ``(its top-level op, anchor's)`` if the caller knows them (as for
        :meth:`create`; the checking mode compares both). Given, both are taken as the answers, None
        included (an op in no top-level op); None for ``tops`` itself: both are asked.

        Raises:
            ValueError: an op given twice (without ``within``: always checked).
            AssertionError: in the checking mode, a top-level op in ``tops`` is not the one found.
        """
        moving = [o.operation for o in ops]
        if not moving:
            return
        at = anchor.operation
        if (within is None or self.check_erasures) and len(set(map(identity_key, moving))) != len(moving):
            raise ValueError("move_all_before: an op is given twice")
        new = self.top_of(at) if tops is None else self._known_top(tops[1], at)
        if new is not None and new == identity_key(at):
            for o in moving:
                self.move_before(o, at)
            return
        top_of = self.top_of
        if within is None:
            olds = [top_of(o) for o in moving]
        else:
            olds = [top_of(within) if tops is None else self._known_top(tops[0], within)] * len(moving)
            if self.check_erasures:  # the checking mode: every op where the caller said
                for o in moving:
                    if top_of(o) != olds[0]:
                        raise ValueError(f"move_all_before: '{o.name}' at {o.location} is not in the top-level op of 'within'")
        moved = 0
        try:
            for o in moving:
                o.move_before(at)
                moved += 1
        finally:
            self._moved_all(moving[:moved], olds[:moved], new)

    def move_each_before(self, moves: Iterable[tuple[Op, Op]]) -> None:
        """Each ``(op, anchor)`` of ``moves`` in turn: move ``op`` right before ``anchor``.

        The same as :meth:`move_before` on each pair in order. When every op stays in its
        top-level op (a reordering, as schedule-postorder's), the listeners hear the batch at
        once (``notify_moved_all``) and one change is recorded; otherwise (an op changes
        function, or an anchor is a top-level op) it is :meth:`move_before` on each.
        """
        pairs = [(o.operation, a.operation) for o, a in moves]
        if not pairs:
            return
        top_of = self.top_of
        olds = [top_of(o) for o, _ in pairs]
        new = olds[0]
        # an op leaving its function, or an anchor that is a top-level op (the op becomes one): one at a time
        leaves = any(old != new for old in olds) or any(top_of(a) != new for _, a in pairs)
        if leaves or (new is not None and any(identity_key(a) == new for _, a in pairs)):
            for o, a in pairs:
                self.move_before(o, a)
            return
        moved: list[ir.Operation] = []
        try:
            for o, a in pairs:
                o.move_before(a)
                moved.append(o)
        finally:
            self._moved_all(moved, olds[: len(moved)], new)

    def _moved_all(self, ops: list[ir.Operation], olds: list[int | None], new: int | None) -> None:
        """Tell the listeners and record that ``ops`` (from ``olds``) now sit in top-level op ``new``."""
        if not ops:
            return
        if any(old != new for old in olds) and any(len(o.regions) for o in ops):
            self._forget_blocks()  # nested blocks now belong to another top-level op
        for f in self._move_hooks():
            f(ops, olds, new)
        self._record(Change.MOVE, new)
        for old in set(olds):
            if old is not None and old != new:
                self._record(Change.MOVE, old)

    def _move_hooks(self) -> tuple[_Notify, ...]:
        """Per listener: its ``notify_moved_all``, or its ``notify_moved`` called op by op (kept like :meth:`_hook`)."""
        return self._hook_or("<moves>", "notify_moved_all", "notify_moved", _op_by_op)

    def move_after(self, op: Op, anchor: Op) -> None:
        """Move ``op`` right after ``anchor`` (any block)."""
        op = _as_op(op)
        old = self.top_of(op)
        op.move_after(_as_op(anchor))
        self._moved(op, old)

    def move_to_end(self, op: Op, block: ir.Block) -> None:
        """Move ``op`` to the end of ``block`` (after its terminator if it has one: mind the order)."""
        op = _as_op(op)
        old = self.top_of(op)
        op.detach_from_parent()
        ir.InsertionPoint(block).insert(op)
        self._moved(op, old)

    def _moved(self, op: ir.Operation, old_top: int | None) -> None:
        self._moved_all([op], [old_top], self.top_of(op))

    # ------------------------------------------------------------------ attributes and types

    def set_attr(self, op: Op, name: str, attr: ir.Attribute) -> None:
        """Set attribute ``name`` of ``op`` to ``attr`` (recorded even if equal: compare first to avoid it)."""
        op = _as_op(op)
        op.attributes[name] = attr
        for f in self._hook("notify_attribute_set"):
            f(op, name)
        self._record(Change.ATTRIBUTE, self.top_of(op))

    def remove_attr(self, op: Op, name: str) -> bool:
        """Remove attribute ``name`` of ``op``; False (nothing recorded) if it had none."""
        op = _as_op(op)
        if name not in op.attributes:
            return False
        del op.attributes[name]
        self._record(Change.ATTRIBUTE, self.top_of(op))
        return True

    def set_type(self, value: Value, type_: ir.Type) -> None:
        """Give a result or block argument the type ``type_``."""
        old = value.type
        if old == type_:
            return
        value.set_type(type_)
        for f in self._hook("notify_type_changed"):
            f(old, type_)
        self._record(Change.TYPE, self._value_top(value))

    # ------------------------------------------------------------------ the rest

    def notify_unknown_change(self, op: Op | None = None) -> None:
        """Say the IR changed by means the rewriter did not see (everything is invalid)."""
        for f in self._hook("notify_unknown_change"):
            f()
        self._record(Change.UNKNOWN, None)


def _nested_in(op: ir.Operation, holders: set[int]) -> bool:
    """True if an ancestor op of ``op`` has its :func:`identity_key` in ``holders``."""
    parent = op.parent
    while parent is not None:
        if identity_key(parent) in holders:
            return True
        parent = parent.parent
    return False
