"""The fusion cluster: a set of ops of one block that becomes one fused op.

Every producer of fused ops -- the NeuronOpFusion sub-passes (both twins)
and ``schedule-fusion`` -- builds a :class:`FusionCluster` and hands it to
:func:`hilo_mlir.fusion.codegen`. A cluster computes, once, what the codegen
needs and what a fusion report shows:

* ``members`` in block order (def before use: the order the fused body needs);
* ``live_ins`` -- values the members use that are defined outside the cluster;
* ``live_outs`` -- member results used outside the cluster;
* :meth:`FusionCluster.dependent_ops` -- the non-members between the first
  and the last member that (transitively) use a live-out, which the codegen
  moves after the fused op, and whether the cluster is *convex* (no path
  leaves it and comes back in).

Nothing here mutates IR.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from hilo_mlir.fusion.order import OpSet, OrderIndex, ancestor_in_block, sorted_in_block
from hilo_mlir.ir.binding import checking_mode_enabled, ir
from hilo_mlir.ir.utils import as_op, has_more_uses, op_key

if TYPE_CHECKING:
    from hilo_mlir.fusion.codegen import Refusal

__all__ = ["FusionCluster"]

_first = operator.itemgetter(0)


def _results(op) -> list:
    """``list(op.results)``; one binding object for the usual single-result op."""
    try:
        return [op.result]
    except ValueError:  # zero or several results
        return list(op.results)


def _nested_post_order(op, out: list, defined: set) -> None:
    """Append the ops nested in ``op`` to ``out`` in walk post-order; add every value they define to ``defined``.

    Post-order as ``Operation.walk``: an op after the ops nested in it; regions,
    blocks and ops in order. ``defined`` gets :func:`value_key` of block
    arguments and nested results.
    """
    for region in op.regions:
        for b in region.blocks:
            for a in b.arguments:
                defined.add(hash(a))
            for o in b.operations:
                o = o.operation
                if len(o.regions):
                    _nested_post_order(o, out, defined)
                out.append(o)
                for r in o.results:
                    defined.add(hash(r))


def _scan_operands(
    o, defined, member_vals, internal: dict, live_ins: dict, inside_uses: list, keys: list | None = None, values=None
) -> None:
    """Sort the operands of ``o`` (a member, or an op nested in one whose values are ``defined``)
    into internal uses (counted in ``internal``) and live-in uses; ``keys`` (if a list) gets
    the ``hash`` of each operand, in order. ``values``: ``o``'s operands as the caller already
    read them (all of them, in order), else they are read now."""
    i = 0
    for v in o.operands if values is None else values:
        vk = hash(v)  # == value_key(v)
        if keys is not None:
            keys.append(vk)
        if vk in member_vals:
            internal[vk] = internal.get(vk, 0) + 1
        elif defined is None or vk not in defined:
            if vk not in live_ins:
                live_ins[vk] = v
            inside_uses.append((o, i, vk))
        i += 1


def _fingerprint(c) -> dict:
    """What a cluster computed, by keys (for comparing two clusters of the same ops)."""
    return {
        "members": [op_key(m) for m in c.members],
        "live-ins": list(c._live_in_keys),
        "live-outs": [hash(v) for v in c.live_outs],
        "live-in uses": [(op_key(o), n, k) for o, n, k in c._inside_uses],
        "live-out uses": [(op_key(o), n, k) for o, n, k in c._outside_uses],
        "last-member uses": [(op_key(o), n, k) for o, n, k in c._after_uses],
        "rewired whole": list(c._rewired_whole),
        "operand keys": [list(ks) for ks in c.operand_keys],
        "member results": [[hash(r) for r in rs] for rs in c.member_results],
        "member result keys": [list(ks) for ks in c.member_result_keys],
        "block": hash(c.block),
    }


def _check_sealed(fast, slow) -> None:
    """The checking mode of ``sealed=True``: ``fast`` (the sealed path) must equal ``slow`` (the general one)."""
    a, b = _fingerprint(fast), _fingerprint(slow)
    for what in a:
        if a[what] != b[what]:
            names = [m.name for m in slow.members]
            raise AssertionError(f"FusionCluster '{fast.kind}' {names}: the sealed-chain path's {what} differ from the general scan's")


class FusionCluster:
    """A set of ops of one block that becomes one fused op.

    Args:
        ops: the member ops (``ir.Operation`` or OpView), all in one block, any
            order; duplicates are ignored. Members are kept in block order
            (def-before-use), which is the topological order the region needs.
        kind: the FusionKind / CompositeKind string (one of
            :data:`~hilo_mlir.ir.dialects.FUSION_KINDS`, e.g. ``"DotLogistic"``).
        order: an :class:`~hilo_mlir.fusion.order.OrderIndex` shared by the pass
            (a private one if None).
        one_block: the caller has already checked that all ``ops`` sit directly
            in one block (every NeuronOpFusion matcher does): the per-op check
            is skipped.
        sealed: the caller has checked that ``ops`` form a *sealed chain*: distinct, directly
            in one block, listed in block order, every op but the last has exactly one result
            whose every use is an operand of a later op of ``ops`` (not of an op
            nested in one), and the ops nested in members use only values defined
            inside their member (MulRedSqrt's matcher checks all of it). Then the
            only live-outs are the last op's results, and neither the uses of the
            other results nor the nested ops are read. ``check``: also compute the
            cluster the general way and raise ``AssertionError`` if the two differ
            (default: the checking mode, ``HILO_MLIR_CHECK_ANALYSES=1``).
        block, operands, results: with ``sealed``, what the matcher already read, so that the
            cluster does not read it again: the ``ir.Block`` holding ``ops``; per op of ``ops``
            (same order) the list of all its operand values, or None (read here); per op its
            result values (all of them), or None (read here). The checking mode compares the
            cluster made from them with the general scan, which reads the IR.

    Attributes:
        kind: as given.
        members: :class:`OpSet` (insertion-ordered, O(1) ``in``) in block order.
        block: the ``ir.Block`` holding the members.
        live_ins: operand values (of members or of ops nested in members) defined
            outside the cluster, or block arguments; first-use order, no duplicates.
        live_outs: member results with at least one user outside the cluster
            (a user in a nested region counts as its ancestor in ``block``), in
            member order then result number.
        fused: the fused op once :func:`~hilo_mlir.fusion.codegen` made it, else None.
        moved: the dependent ops the codegen moved after the fused op (block order).
        refusal: after a refused codegen, why: a
            :class:`~hilo_mlir.fusion.codegen.Refusal` (else None).
        operand_keys: per member (block order), the ``hash`` of each of its own operands
            (not those of ops nested in it), as read when the cluster was built.
        member_results: per member (block order), its result values.
        member_result_keys: their ``hash`` es (the same shape).
        reentry: after :meth:`dependent_ops` found the cluster not convex, the
            non-member on the path out of the cluster and the member it feeds
            (``(op, member)``), else None.

    Raises:
        ValueError: no ops, or ops in different blocks.
        AssertionError: ``sealed`` with ``check`` and ``ops`` are not a sealed chain
            (the fast answer differs from the general one).
    """

    def __init__(
        self,
        ops,
        kind: str,
        order: OrderIndex | None = None,
        *,
        one_block: bool = False,
        sealed: bool = False,
        check: bool | None = None,
        block: ir.Block | None = None,
        operands: list | None = None,
        results: list | None = None,
    ):
        ops = [o if isinstance(o, ir.Operation) else o.operation for o in ops]
        if not ops:
            raise ValueError("FusionCluster needs at least one op")
        self.kind = kind
        self.order = order if order is not None else OrderIndex()
        self.fused: ir.Operation | None = None
        self.moved: list = []  # after codegen: the dependent ops it moved after the fused op
        self.refusal: Refusal | None = None
        self.reentry: tuple[ir.Operation, ir.Operation] | None = None
        if sealed:
            self._sealed_chain(ops, block, operands, results)
            if check if check is not None else checking_mode_enabled():
                _check_sealed(self, FusionCluster(ops, kind, self.order, one_block=one_block))
            return
        self.block = block = ops[0].block
        if not one_block:  # else the caller has checked that every op sits directly in one block
            for o in ops:
                b = o.block
                if b is None or b != block:
                    raise ValueError(f"FusionCluster '{kind}': ops {ops[0].name} and {o.name} are not in one block")
        # distinct members with their results (read once; results are needed for the live sets)
        seen: dict = {}
        for o in ops:
            res = _results(o)
            # identity: the address of result 0 (a value hash) or, for an op without results, of the op
            k = hash(res[0]) if res else op_key(o)
            if k not in seen:
                seen[k] = (o, res)
        pairs = sorted_in_block(list(seen.values()), key=_first)
        self.members = OpSet.of_distinct([o for o, _ in pairs])
        self._compute_live([res for _, res in pairs])

    def _sealed_chain(self, ops: list, block=None, operands: list | None = None, given: list | None = None) -> None:
        """Members, live-ins and live-outs of a sealed chain (see the class doc): the operands of the
        members are read (a member result is internal, anything else a live-in), the nested ops and
        the uses of every result but the last op's are not. ``block``, ``operands``, ``given`` (the
        results): what the caller read (see the class doc), None where it read nothing."""
        self.block = block if block is not None else ops[0].block
        self.members = OpSet.of_distinct(ops)
        last = len(ops) - 1
        if given is None:
            results = [_results(o) for o in ops]
        else:
            results = [rs if rs is not None else _results(o) for o, rs in zip(ops, given)]
        result_keys = [[hash(r) for r in rs] for rs in results]
        member_vals = {k for ks in result_keys[:last] for k in ks}  # one result each (the contract)
        internal: dict = {}
        live_ins: dict = {}
        inside_uses: list = []
        operand_keys: list = []
        for i, m in enumerate(ops):
            ks: list = []
            _scan_operands(m, None, member_vals, internal, live_ins, inside_uses, ks, operands[i] if operands is not None else None)
            operand_keys.append(ks)
        self.operand_keys = operand_keys
        self.live_ins = list(live_ins.values())
        self._live_in_keys = list(live_ins)
        self._inside_uses = inside_uses
        self.member_results, self.member_result_keys = results, result_keys
        # the last op: none of its results is used by a member (they all sit before it)
        self.live_outs, self._outside_uses = self._scan_results(results[last:], result_keys[last:], {})

    # -- live-ins / live-outs ------------------------------------------------------

    def _compute_live(self, results=None) -> None:
        """Live-ins, live-outs and the uses codegen rewires; each member and nested op visited once.

        Values are told apart by :func:`value_key`. An operand is internal if a
        member defines it, or (for an op nested in member ``m``) if it is
        defined inside ``m``'s regions; every other operand is a live-in. A
        member result is a live-out if it has more uses than internal ones;
        only results with both kinds of use look at each use's owner.
        """
        mlist = list(self.members)
        if results is None:
            results = [_results(m) for m in mlist]
        result_keys = [[hash(r) for r in rs] for rs in results]  # value_key of each member result
        member_vals = {k for ks in result_keys for k in ks}
        internal: dict = {}  # value_key of a member result -> its uses by members / ops nested in them
        live_ins: dict = {}  # value_key -> value
        inside_uses: list = []  # (owner op, operand number, live-in value key)
        operand_keys: list = []
        for m in mlist:
            ks: list = []
            _scan_operands(m, None, member_vals, internal, live_ins, inside_uses, ks)
            operand_keys.append(ks)
            if len(m.regions):
                nested: list = []
                defined: set = set()  # value_key of values defined inside m's regions
                _nested_post_order(m, nested, defined)
                for o in nested:
                    _scan_operands(o, defined, member_vals, internal, live_ins, inside_uses)
        self.operand_keys = operand_keys
        self.member_results, self.member_result_keys = results, result_keys
        self.live_ins = list(live_ins.values())
        self._live_in_keys = list(live_ins)
        self._inside_uses = inside_uses
        self.live_outs, self._outside_uses = self._scan_results(results, result_keys, internal)

    def _scan_results(self, results, result_keys, internal: dict):
        """``(live-outs, [(owner op, operand number, live-out index)])`` from the member results.

        A result of the last member that no member uses is a live-out whose every use is
        outside and after the cluster (no dependent op can come from it): with one use, that
        use goes to :attr:`_after_uses` (``(owner, operand number, live-out index)``, rewired
        with the others); with more, its uses are not listed (:attr:`_rewired_whole` gets its
        live-out index; the codegen replaces all its uses at once).
        """
        block, members = self.block, self.members
        live_outs: list = []
        outside_uses: list = []
        whole: list = []
        after: list = []
        last = len(results) - 1
        for i, (rs, ks) in enumerate(zip(results, result_keys)):
            for r, rk in zip(rs, ks):
                n_in = internal.get(rk, 0)
                if n_in == 0:
                    if i == last:
                        uses = iter(r.uses)
                        first = next(uses, None)
                        if first is None:
                            continue
                        if next(uses, None) is None:
                            after.append((as_op(first.owner), first.operand_number, len(live_outs)))
                        else:
                            whole.append(len(live_outs))
                        live_outs.append(r)
                        continue
                    outside = [(as_op(use.owner), use.operand_number) for use in r.uses]
                elif has_more_uses(r, n_in):
                    outside = []
                    for use in r.uses:
                        owner = as_op(use.owner)
                        anc = ancestor_in_block(owner, block)
                        if anc is None or anc not in members:
                            outside.append((owner, use.operand_number))
                else:
                    continue
                if outside:
                    k = len(live_outs)
                    live_outs.append(r)
                    for o, n in outside:
                        outside_uses.append((o, n, k))
        self._rewired_whole = whole
        self._after_uses = after
        return live_outs, outside_uses

    # -- legality ------------------------------------------------------------------

    @property
    def first(self) -> ir.Operation:
        """The first member in block order."""
        return self.members.first()

    @property
    def last(self) -> ir.Operation:
        """The last member in block order (where the fused op goes)."""
        return self.members.last()

    def dependent_ops(self):
        """Non-members before the last member that (transitively) use a live-out.

        Returns:
            ``(ops, convex)``: the ops in block order (what
            ``recursivelyMoveDependentOps`` moves after the fused op) and False if
            one of them feeds a member (a path leaves the cluster and comes back;
            :attr:`reentry` then names the two ops). Cost: the ops visited, each once.
        """
        block, members, last = self.block, self.members, self.last
        seen, stack = self._first_dependents()
        if seen is None:
            return [], True
        while stack:
            u = stack.pop()
            for r in u.results:
                for use in r.uses:
                    w = ancestor_in_block(as_op(use.owner), block)
                    if w is None or w in seen:
                        continue
                    if w in members:
                        self.reentry = (u, w)
                        return [], False
                    if w.is_before_in_block(last):
                        seen.add(w)
                        stack.append(w)
        return sorted_in_block(list(seen)), True

    def _first_dependents(self):
        """``(OpSet, worklist)`` of the outside users of live-outs that sit before the last member
        (``(None, [])`` when there is none: the usual case, no set is made)."""
        block, last = self.block, self.last
        seen = None
        stack = []
        for owner, _n, _k in self._outside_uses:
            anc = ancestor_in_block(owner, block)
            if anc is not None and anc.is_before_in_block(last):
                if seen is None:
                    seen = OpSet()
                if anc not in seen:
                    seen.add(anc)
                    stack.append(anc)
        return seen, stack

    def live_out_users(self) -> list[list]:
        """For each live-out (same order), the ops outside the cluster using it (one entry per use)."""
        users: list = [[] for _ in self.live_outs]
        for owner, _n, k in self._outside_uses:
            users[k].append(owner)
        for owner, _n, k in self._after_uses:
            users[k].append(owner)
        for k in self._rewired_whole:  # every use is outside (read now: only a fusion report asks)
            users[k] = [as_op(use.owner) for use in self.live_outs[k].uses]
        return users

    def is_convex(self) -> bool:
        """True if no path goes from a member through a non-member back into a member."""
        return self.dependent_ops()[1]

    def __len__(self) -> int:
        return len(self.members)

    def __contains__(self, op) -> bool:
        return as_op(op) in self.members

    def __repr__(self) -> str:  # pragma: no cover
        return f"FusionCluster({self.kind}, {[m.name for m in self.members]})"
