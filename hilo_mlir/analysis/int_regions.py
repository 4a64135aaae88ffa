"""How the integer range analysis walks ops with regions, and calls (a mixin of the walker in :mod:`.int_ranges`).

* ``while``: the loop-carried values are a fixed point of the body (the
  condition region walked with them too); ``reduce``, ``reduce_window``,
  ``scatter``, ``select_and_scatter``, ``all_reduce``/``reduce_scatter`` of
  one operand: every accumulator is a fixed point of the body, seeded with the
  inputs and init values (both body arguments get it).
* A fixed point walks the region in a scratch scope per round; a value still
  growing after ``max_rounds`` rounds is widened to the full range of its
  type, then one narrowing step keeps bounds the body re-establishes.
* ``sort``: each result has its operand's range; ``map``, ``mhlo.fusion``:
  the region's returned ranges; ``if``/``case``: the join over the branches.
* ``func.call`` and ``stablehlo.composite``: the callee is walked with the
  call's operand ranges in a store of its own (memoised per argument ranges;
  a recursive call is unknown), then joined into the analysis, so a callee's
  value ranges cover all its calls.

The walker provides ``get``, ``put_results``, ``region``, ``unknown``,
``callee``, ``scopes``, ``funcs``, ``memo``, ``stack``, ``fix_depth`` and
``out`` (the :class:`~.int_ranges.IntRanges` being filled).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from hilo_mlir.analysis.int_lattice import RangeValue, merge_into
from hilo_mlir.analysis.int_lattice import join as _join
from hilo_mlir.analysis.int_lattice import widen as _widen

if TYPE_CHECKING:
    from hilo_mlir.analysis.int_ranges import IntRanges
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.handles import Value

#: the values of one scope: ``hash(value)`` -> its range
Scope = dict[int, RangeValue]

#: Nesting depth of fixed points beyond which loop-carried values are unknown (one walk).
DEEP = 3

#: Ops whose one region combines accumulators with elements: result i is the fixed point.
ACCUMULATE = frozenset("reduce reduce_window scatter select_and_scatter all_reduce reduce_scatter".split())


class RegionRules:
    """The region and call handlers of the range analysis walker."""

    # What the walker (:class:`~.int_ranges._Walk`) provides (see the module doc).
    out: IntRanges
    scopes: list[Scope]
    funcs: dict[str, ir.Operation]
    #: (callee, argument ranges) -> the ranges it returns
    memo: dict[tuple[str, tuple[RangeValue, ...]], list[RangeValue]]
    stack: list[str]
    fix_depth: int

    def get(self, v: Value) -> RangeValue:
        raise NotImplementedError

    def put_results(self, op: ir.Operation, rngs: Iterable[RangeValue]) -> None:
        raise NotImplementedError

    def region(self, region: ir.Region, args: Iterable[RangeValue]) -> list[RangeValue]:
        raise NotImplementedError

    def unknown(self, op: ir.Operation) -> None:
        raise NotImplementedError

    def callee(self, op: ir.Operation) -> str | None:
        raise NotImplementedError

    def op_sort(self, op: ir.Operation) -> None:
        rngs = [self.get(v) for v in op.operands]
        self.region(op.regions[0], [r for r in rngs for _ in (0, 1)])
        self.put_results(op, rngs)

    def op_map(self, op: ir.Operation) -> None:
        self.put_results(op, self.region(op.regions[0], [self.get(v) for v in op.operands]))

    def op_fusion(self, op: ir.Operation) -> None:
        self.put_results(op, self.region(op.regions[0], [self.get(v) for v in op.operands]))

    def op_if(self, op: ir.Operation) -> None:
        self.branches(op)

    def op_case(self, op: ir.Operation) -> None:
        self.branches(op)

    def branches(self, op: ir.Operation) -> None:
        acc: list[RangeValue] | None = None
        for reg in op.regions:
            rets = self.region(reg, [])
            acc = rets if acc is None else [_join(a, b) for a, b in zip(acc, rets)]
        self.put_results(op, acc or [])

    def op_composite(self, op: ir.Operation) -> None:
        self.call(op, self.callee(op))

    def call(self, op: ir.Operation, name: str | None) -> None:
        f = self.funcs.get(name) if name else None
        if f is None or name is None or not f.regions[0].blocks or name in self.stack:
            return self.unknown(op)
        args = [self.get(v) for v in op.operands]
        key = (name, tuple(args))
        rets = self.memo.get(key)
        if rets is None:
            # The callee's values are walked in a store of their own (precise for these
            # arguments), then joined into the result: a callee's range covers all its calls.
            saved, self.scopes = self.scopes, [{}]  # a function sees nothing from above
            self.stack.append(name)
            rets = self.memo[key] = self.region(f.regions[0], args)
            self.stack.pop()
            local, self.scopes = self.scopes[0], saved
            merge_into(self.out._ranges, local)
        self.put_results(op, rets)

    # -- fixed points ----------------------------------------------------------------
    def fixpoint(
        self, region: ir.Region, init: list[RangeValue], body_args: Callable[[list[RangeValue]], list[RangeValue]]
    ) -> list[RangeValue]:
        """Least ``A`` with ``A ⊇ init`` and ``A ⊇ body(body_args(A))``, as far as ``max_rounds`` allow.

        Each round walks the region in a scratch scope. A value still growing
        after ``max_rounds`` rounds is widened to the full range of its type;
        then one narrowing step (``init union body(A)``, kept only if it is again a
        post-fixpoint) recovers bounds the body re-establishes (``x = (x + 7) & 255``).
        The region's values are those of the final walk, joined into the enclosing scope.
        Below :data:`DEEP` nested fixed points (the walks of nested loops
        multiply) the values are taken as unknown at once: one walk.
        """
        self.fix_depth += 1
        try:
            return self._fixpoint(region, init, body_args)
        finally:
            self.fix_depth -= 1

    def _fixpoint(
        self, region: ir.Region, init: list[RangeValue], body_args: Callable[[list[RangeValue]], list[RangeValue]]
    ) -> list[RangeValue]:
        def walk(args: list[RangeValue]) -> tuple[list[RangeValue], Scope]:
            self.scopes.append({})
            rets = self.region(region, body_args(args))
            self.out.rounds += 1
            return rets, self.scopes.pop()

        if self.fix_depth > DEEP:
            cur = [_widen(i) for i in init]
            merge_into(self.scopes[-1], walk(cur)[1])
            return cur
        cur, rounds, widened = list(init), 0, False
        while True:
            rets, scratch = walk(cur)
            new = [_join(c, r) for c, r in zip(cur, rets)]
            if new == cur:
                break
            rounds += 1
            if rounds >= self.out.max_rounds:
                widened = True
                new = [n if n == c else _widen(n) for n, c in zip(new, cur)]
            cur = new
        if widened:
            down = [_join(i, r) for i, r in zip(init, rets)]
            if down != cur:
                rets2, scratch2 = walk(down)
                if all(_join(d, _join(i, r)) == d for d, i, r in zip(down, init, rets2)):
                    cur, scratch = down, scratch2
        merge_into(self.scopes[-1], scratch)
        return cur

    def op_while(self, op: ir.Operation) -> None:
        init = [self.get(v) for v in op.operands]
        cond, body = op.regions[0], op.regions[1]

        def args(cur: list[RangeValue]) -> list[RangeValue]:
            self.region(cond, cur)
            return cur

        self.put_results(op, self.fixpoint(body, init, args))

    def accumulate(self, op: ir.Operation, short: str) -> None:
        ops = [self.get(v) for v in op.operands]
        n = len(op.results)
        if short in ("reduce", "reduce_window"):
            init = [_join(ops[i], ops[n + i]) for i in range(n)]
        elif short == "scatter":
            k = (len(ops) - 1) // 2
            init = [_join(ops[i], ops[k + 1 + i]) for i in range(n)]
        elif short == "select_and_scatter":
            self.region(op.regions[0], [ops[0], ops[0]])
            init = [_join(ops[1], ops[2])]
        elif n == 1:  # all_reduce, reduce_scatter of one operand
            init = ops[:1]
        else:  # several operands share one two-argument computation
            return self.unknown(op)
        region = op.regions[-1]
        self.put_results(op, self.fixpoint(region, init, lambda cur: cur + cur))
