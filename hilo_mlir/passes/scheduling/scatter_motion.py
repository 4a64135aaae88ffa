"""``scatter-motion`` (spine step 20, ``ScatterMotion``; twin ``stablehlo-scatter-motion``).

Sinks each ``scatter`` to just before its first user in its block (a user
inside a nested region counts at its ancestor in that block), so the
scattered tensor is live for the shortest time. The last scatter of a block
moves first: a scatter whose first user is a later scatter sees that one at
its final place. Returns at once on a module without a scatter (op census).
Linear in the block size: one order index per block, kept current with
fractional keys as scatters move.
"""

from __future__ import annotations

from hilo_mlir.passmanager.registry import register_twins


def ancestor_in(op, pos: dict):
    """The op of the block indexed by ``pos`` (``{op: position}``) that is ``op`` or contains it; None if none."""
    op = op.operation
    while op is not None:
        if op in pos:
            return op
        parent = op.parent
        op = parent.operation if parent is not None else None
    return None


class _BlockOrder:
    """The order of one block's ops as a doubly linked list with fractional keys (moves in O(1))."""

    def __init__(self, ops: list):
        from fractions import Fraction  # here, not at import: ~6 ms of start-up for a pass that rarely moves anything

        self.pos = {o: i for i, o in enumerate(ops)}
        self.key = {o: Fraction(i) for i, o in enumerate(ops)}
        self.prev = {o: (ops[i - 1] if i else None) for i, o in enumerate(ops)}
        self.next = {o: (ops[i + 1] if i + 1 < len(ops) else None) for i, o in enumerate(ops)}

    def move_before(self, s, first) -> None:
        """Unlink ``s``, link it before ``first``, give it a key between its new neighbours."""
        prev, nxt, key = self.prev, self.next, self.key
        p, q = prev[s], nxt[s]
        if p is not None:
            nxt[p] = q
        if q is not None:
            prev[q] = p
        before = prev[first]
        prev[s], nxt[s] = before, first
        prev[first] = s
        if before is not None:
            nxt[before] = s
            key[s] = (key[before] + key[first]) / 2
        else:
            key[s] = key[first] - 1


def _sink_in_block(block, scatters: list, ctx) -> None:
    order = _BlockOrder([o.operation for o in block.operations])
    for s in reversed(scatters):
        users = set()
        for r in s.results:
            for u in r.uses:
                a = ancestor_in(u.owner, order.pos)
                if a is not None and a != s:
                    users.add(a)
        if not users:
            ctx.stats["no-user"] += 1
            continue
        first = min(users, key=lambda o: order.key[o])
        if order.prev[first] == s:
            ctx.stats["already-placed"] += 1
            continue
        order.move_before(s, first)
        ctx.rewriter.move_before(s, first)
        ctx.stats["scatters-sunk"] += 1


def _run_scatter_motion(func_op, ctx):
    d = ctx.d
    if not ctx.module_may_contain(d.name("scatter")):  # no scatter in the module: nothing to do
        return
    by_block: dict = {}
    for op in ctx.ops_named(func_op, d.name("scatter")):  # walk order, from the census
        by_block.setdefault(op.block, []).append(op)
    for block, scatters in by_block.items():
        _sink_in_block(block, scatters, ctx)


register_twins(
    "scatter-motion",
    "Sink each scatter to just before its first user (same block)",
    _run_scatter_motion,
    class_name="ScatterMotion",
    statistics=("scatters-sunk", "already-placed", "no-user"),
    source="seed 004 step 20 (unconditional); DESIGN.md catalogue step 20 (our interpretation)",
)
