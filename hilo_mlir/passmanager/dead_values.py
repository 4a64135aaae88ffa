"""``remove-dead-values`` without the C++ pass, where it provably does no more (spine step 13).

Upstream ``RemoveDeadValuesPass`` runs a liveness analysis of the whole module
and then (A, B) drops unused arguments and results of *private* functions,
(C) trims region-branch ops (``while``, ``if``, ``case``) and (D) erases every
"simple" op that has no memory effect and no live result. In a module where

* every op is an ``mhlo``/``stablehlo``/``chlo`` op other than the
  region-branch ones, or ``func.func``/``func.return`` (no call, no branch, no
  other dialect: :func:`in_subset`),
* every function is public with one block (A, B and C have nothing to do),

the pass does (D) alone, and a value is live exactly when an op that is not
erased uses it: what it erases is the closure of "an op of a kind without
memory effects (:data:`ERASABLE`) whose results have no use other than by ops
erased". :func:`unused_ops_listed` reads every op from the census's op lists
(:func:`unused_ops`: the same from one walk; several times cheaper than the C++
pass's analysis); :func:`dead_closure` finds the dead ones among
them and what they alone used; :func:`erase_dead` erases them through the
rewriter. A dead candidate of a kind not judged here (not in :data:`ERASABLE`: its effects are not known
from its name) makes it answer None: the caller then runs the C++ pass.

The checking mode (:func:`checked_erase_dead`) runs the C++ pass on a
clone first and fails the pass if the two modules differ.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from hilo_mlir.analysis.census import SINGLE_RESULT
from hilo_mlir.analysis.check import AnalysisCheckError, fingerprint
from hilo_mlir.ir.binding import identity_key, ir, passmanager
from hilo_mlir.ir.dialects import TABLES

if TYPE_CHECKING:
    from hilo_mlir.analysis.census import Census
    from hilo_mlir.ir.handles import Op
    from hilo_mlir.rewrite.rewriter import Rewriter

#: the upstream pass this module replaces (the textual form of the step that may take the fast path)
FAST_PATH_PASS = "remove-dead-values"

#: op kinds (without the dialect) that have no memory effect and no region, in ``mhlo`` and ``stablehlo``
#: alike: upstream ``remove-dead-values`` erases a dead one (test/unit/passmanager/test_dead_values.py
#: builds a dead op of each kind and checks that the C++ pass erases it)
_PURE_KINDS = (
    "abs add and atan2 bitcast_convert broadcast_in_dim cbrt ceil clamp compare concatenate constant convert "
    "cosine count_leading_zeros divide dot_general exponential exponential_minus_one floor iota is_finite log "
    "log_plus_one logistic maximum minimum multiply negate not or popcnt power remainder reshape reverse "
    "round_nearest_afz round_nearest_even rsqrt select shift_left shift_right_arithmetic shift_right_logical "
    "sign sine slice sqrt subtract tanh transpose tuple xor"
).split()

#: full op names the fast path erases when dead
ERASABLE = frozenset(f"{d}.{k}" for d in ("mhlo", "stablehlo") for k in _PURE_KINDS)

#: region-branch ops: the C++ pass trims their operands and results even when they live
_REGION_BRANCH = frozenset(f"{d}.{k}" for d in ("mhlo", "stablehlo") for k in ("while", "if", "case"))

#: ops that are never dead in the sense of (D): the module, functions and return-likes (terminators)
_NEVER_DEAD = frozenset({"builtin.module", "func.func", "func.return", *(t.name("return") for t in TABLES.values())})

_DIALECTS = ("mhlo.", "stablehlo.", "chlo.")


def in_subset(census: Census) -> str | None:
    """Why the C++ pass may do more than (D) on the module ``census`` describes, or None when it does (D) alone.

    Returns:
        a short reason (an op name, a private function, a function of several blocks), or None.
    """
    for name in census.names:
        if name in ("func.func", "func.return"):
            continue
        if not name.startswith(_DIALECTS) or name in _REGION_BRANCH:
            return f"'{name}' op"
    for f in census.top_level_ops():
        if f.name != "func.func":
            return f"top-level '{f.name}' op"
        attrs = f.attributes
        if "sym_visibility" in attrs and ir.StringAttr(attrs["sym_visibility"]).value != "public":
            return "a private function"
        if len(f.regions[0].blocks) > 1:
            return "a function of several blocks"
    return None


def unused_ops(module_op: Op) -> dict[int, ir.Operation]:
    """``{identity_key(op): op}`` of every op nested in ``module_op`` whose results have no use (functions
    and terminators left out): every dead op is one of them or used only by dead ops (one walk of the
    module)."""
    out: dict[int, ir.Operation] = {}
    advance = ir.WalkResult.ADVANCE
    never = _NEVER_DEAD

    def visit(op: ir.Operation) -> ir.WalkResult:  # never an OpView; nothing here may raise (a walk would abort)
        for r in op.results:
            for _use in r.uses:
                return advance
        if op.name not in never:
            out[identity_key(op)] = op
        return advance

    module_op.operation.walk(visit)
    return out


def unused_ops_listed(census: Census) -> dict[int, ir.Operation]:
    """:func:`unused_ops` of the module ``census`` describes, from the census's per-function op lists
    instead of a walk: no walk callback per op and no name read (a list's name says it), ~half of
    :func:`unused_ops`'s instructions on L64. The same ops (``{identity_key(op): op}``), in another order:
    per top-level op, name after name (:meth:`~hilo_mlir.analysis.census.Census.ops_named`, any order); an op of a
    :data:`~hilo_mlir.analysis.census.SINGLE_RESULT` kind is asked for its one result's uses.
    The checking mode compares it with :func:`unused_ops` (:func:`check_unused_ops`)."""
    out: dict[int, ir.Operation] = {}
    never = _NEVER_DEAD
    for top in census.top_level_ops():
        for name in [n for n in census.names_in(top) if n not in never]:
            ops = census.ops_named(top, name, any_order=True)
            if name in SINGLE_RESULT and _add_unused_single(ops, out):
                continue
            for op in ops:
                used = False
                for r in op.results:
                    for _use in r.uses:
                        used = True
                        break
                    if used:
                        break
                if not used:
                    out[identity_key(op)] = op
    return out


def _add_unused_single(ops: list[ir.Operation], out: dict[int, ir.Operation]) -> bool:
    """Add to ``out`` those of ``ops`` (of one :data:`~hilo_mlir.analysis.census.SINGLE_RESULT` kind) whose one result
    has no use: ``op.result``, no result list to make and iterate. False, ``out`` unchanged, when an op has another
    number of results (``op.result`` raises): the caller reads them the general way."""
    found: list[ir.Operation] = []
    try:
        for op in ops:
            for _use in op.result.uses:
                break
            else:
                found.append(op)
    except ValueError:
        return False
    for op in found:
        out[identity_key(op)] = op
    return True


def check_unused_ops(module_op: Op, listed: dict[int, ir.Operation]) -> None:
    """The checking mode of :func:`unused_ops_listed`: its answer ``listed`` must hold the ops of :func:`unused_ops`
    (one walk of ``module_op``), no more, no fewer.

    Raises:
        AnalysisCheckError: the two differ (how many ops each has that the other lacks).
    """
    walked = unused_ops(module_op)
    if listed.keys() != walked.keys():
        extra, missing = len(listed.keys() - walked.keys()), len(walked.keys() - listed.keys())
        raise AnalysisCheckError(
            "analysis check failed in pass 'remove-dead-values': the unused ops listed from the census differ from "
            f"a walk's ({extra} not unused, {missing} missing)"
        )


def dead_closure(roots: dict[int, ir.Operation]) -> list[ir.Operation] | ir.Operation:
    """The ops (D) erases, given ``roots`` (``{identity_key(op): op}``) that hold every op that may be dead
    or used only by dead ops: the dead ones and what only dead ops use, users first (a list); or the first
    dead op found whose kind is not in :data:`ERASABLE` (an ``ir.Operation``: nothing is erased then).

    An op is dead when it is not a function or terminator and every use of its results is by a dead op
    (an op without results and of an erasable kind is dead). Nothing is changed.
    """
    dead: dict[int, ir.Operation] = {}  # identity_key -> op, in the order found (users first)
    work = list(roots.items())
    while work:
        key, op = work.pop()
        if key in dead:
            continue
        live = False
        for r in op.results:  # most candidates live: their first use says so (no name read)
            for use in r.uses:
                if not dead or identity_key(use.owner) not in dead:
                    live = True
                    break
            if live:
                break
        if live:
            continue
        name = op.name
        if name in _NEVER_DEAD:
            continue
        if name not in ERASABLE:
            return op
        dead[key] = op
        for v in op.operands:
            owner = v.owner
            if not isinstance(owner, ir.Block):
                o = owner.operation
                work.append((identity_key(o), o))
    return list(dead.values())


def erase_dead(dead: list[ir.Operation], rewriter: Rewriter) -> None:
    """Erase ``dead`` (:func:`dead_closure`'s answer, users first) through ``rewriter``; the module then has
    no dead op."""
    rewriter.erase_ops(dead)


def upstream_remove_dead_values(op: Op) -> None:
    """Run the C++ ``remove-dead-values`` on ``op`` (a ``builtin.module``)."""
    passmanager.PassManager.parse("builtin.module(remove-dead-values)").run(op)


def checked_erase_dead(module_op: Op, dead: list[ir.Operation], rewriter: Rewriter) -> None:
    """:func:`erase_dead`, compared with the C++ pass run on a clone of the module as it was (the checking mode).

    Raises:
        AnalysisCheckError: the fast path left the module other than the C++ pass left the clone
            (the first differing line of their generic text with locations is quoted).
    """
    clone = module_op.operation.clone()
    try:
        upstream_remove_dead_values(clone)
        erase_dead(dead, rewriter)
        ours, truth = fingerprint(module_op), fingerprint(clone)
    finally:
        clone.erase()
    if ours != truth:
        # the ops, not the location aliases (``#loc5 = ...``) the text opens with, name the difference
        a = [x for x in ours.splitlines() if not x.startswith("#")]
        b = [x for x in truth.splitlines() if not x.startswith("#")]
        i = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        got = a[i].strip() if i < len(a) else "(end of module)"
        want = b[i].strip() if i < len(b) else "(end of module)"
        raise AnalysisCheckError(
            "analysis check failed after pass 'remove-dead-values': the fast path's module differs from the "
            f"C++ pass's ({len(a)} lines, C++ {len(b)}; {len(dead)} ops erased); first difference at line {i + 1}: "
            f"fast path '{got}', C++ '{want}'"
        )
