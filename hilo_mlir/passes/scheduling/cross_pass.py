"""Spine steps 9 and 10: ``identify-cross-pass-tensors`` and ``rematerialize`` (+ ``stablehlo-`` twins).

Source: seed 004 steps 9/10 (``createIdentifyCrossPassTensorsPass`` "tag
neuron.CrossPassTensor", ``createRematerializePass`` "recompute-to-save-memory",
both under gate cfg[0x116]) and the census of ``neuron.*`` attributes
(``CrossPassTensor``, ``remat.value``). Behaviour: DESIGN.md catalogue rows 9
and 10 (our definition).

**identify-cross-pass-tensors.** A value *crosses a pass boundary* when it
is an operand of an ``mhlo.fusion`` / ``stablehlo.composite`` / ``func.call``
(a live-in of a fused cluster or an argument of a call) or a result of one of
them that has a user (a live-out). The pass stamps

* on the op that defines such values: ``neuron.CrossPassTensor =
  array<i64: i, ...>`` (the crossing result numbers, ascending);
* on a function argument that crosses: the argument attribute
  ``neuron.CrossPassTensor`` (unit).

Values that are block arguments of nested regions are not stamped (their
region owner's operand is). Existing stamps are recomputed, so the pass is
idempotent; IR without fusions/composites/calls is left alone.

**rematerialize.** Cheap producers — ``constant``, ``iota``, and
``broadcast_in_dim`` of a ``constant`` (cloned together) — whose users sit
more than ``distance`` ops after them in their block (a user in a nested
region counts at its ancestor in that block) get a clone right before the
first far user; later users within ``distance`` of that clone share it.
Every clone is stamped ``neuron.remat.value = <n> : i64``, ``n`` numbering
the original producer in the function. The original is erased if nothing
uses it any more. Values are unchanged bit for bit (pure ops, same
attributes). Linear in the function size: positions are computed once.

**Cost**: identify-cross-pass-tensors takes the boundary ops from
the pipeline's op census, and the ops to look at for stale stamps from its
op lists (an attribute read per op, no walk), or none when the run knows
that no op holds a stamp (:mod:`hilo_mlir.analysis.absent_attributes`: an
input without stamps, before the first stamp); rematerialize
returns at once on a module without candidates and indexes only the blocks
that hold one (from the census: usually the entry block alone).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from hilo_mlir.analysis.absent_attributes import CROSS_PASS_TENSOR
from hilo_mlir.ir.binding import identity_key, ir
from hilo_mlir.ir.dialects import FUSION_OPS
from hilo_mlir.ir.utils import attr_is, block_ops, defining_op, only_block_ops
from hilo_mlir.passmanager.options import option
from hilo_mlir.passmanager.registry import register_twins

if TYPE_CHECKING:
    from hilo_mlir.passmanager.pass_context import PassContext

ATTR = CROSS_PASS_TENSOR
REMAT = "neuron.remat.value"


# --------------------------------------------------------------------------- step 9


def _boundary_names(d) -> tuple:
    """Names of the ops whose operands and used results cross a pass boundary."""
    return tuple(dict.fromkeys((d.fusion, *FUSION_OPS, "func.call")))


def _identify(func_op, ctx):
    d = ctx.d
    producers: list = []  # (defining op, result number)
    args: set[int] = set()
    entry = func_op.regions[0].blocks[0] if len(func_op.regions) and len(func_op.regions[0].blocks) else None

    def note(v):
        owner = v.owner
        if isinstance(owner, ir.Block):
            if entry is not None and owner == entry:
                args.add(v.arg_number)
            return
        producers.append((owner.operation, v.result_number))

    # The boundary ops from the pipeline's census (no walk), one name after the
    # other: the stamps do not depend on the order they are found in.
    boundaries = ctx.ops_named(func_op, *_boundary_names(d))
    for b in boundaries:
        for v in b.operands:
            note(v)
        for r in b.results:
            if any(True for _ in r.uses):
                note(r)
    # Group result numbers per producer, and find stale stamps, before any
    # attribute is written (Operation hashes follow attributes).
    groups: dict = {}
    for op, idx in producers:
        groups.setdefault(op, set()).add(idx)
    order = list(groups.items())
    stale = _stale_stamps(func_op, groups, ctx)
    rw = ctx.rewriter
    with func_op.context:
        for op in stale:
            rw.remove_attr(op, ATTR)
        for op, idxs in order:
            new = ir.DenseI64ArrayAttr.get(sorted(idxs))
            if attr_is(op, ATTR, new):
                continue
            rw.set_attr(op, ATTR, new)
            ctx.stats["values-stamped"] += len(idxs)
        if args or "arg_attrs" in func_op.attributes:
            _stamp_args(func_op, args, ctx)


@dataclass
class _IdentifyState:
    """One run of identify-cross-pass-tensors over a module (shared by its functions)."""

    #: no op held a stamp when the run began (None until its first function asks)
    absent: bool | None = None


def _stale_stamps(func_op, groups: dict, ctx) -> list:
    """The ops inside ``func_op`` (itself included) holding :data:`ATTR` that are not keys of ``groups``
    (the producers stamped now), in no particular order (the pass only removes their stamps).

    Empty when no op of the module held :data:`ATTR` when this run of the pass began
    (``ctx.analyses.take_attribute_absent``, taken once per run into ``ctx.state``: known since the import,
    e.g. on an input without stamps; the run stamps ops of the function it is on only, after reading its
    stale stamps; nothing is read); else read from the census's
    op lists of ``func_op`` (every op nested in it, no walk). The checking mode (``ctx.analyses.checking``)
    compares the answer with :func:`_stale_stamps_walked`.

    Raises:
        AssertionError: (checking mode) the answer differs from a walk's.
    """
    state = ctx.state
    if state.absent is None:  # the first function of this run: one answer for every function of it
        state.absent = ctx.analyses.take_attribute_absent(ATTR)
    if state.absent:  # no op held a stamp before this run; it stamps only inside the function it is on
        stale = []
    else:
        census = ctx.census
        ops = census.ops_named(func_op, *census.names_in(func_op), any_order=True)
        stale = [op for op in ops if ATTR in op.attributes and op not in groups]
    if ctx.analyses.checking:
        walked = _stale_stamps_walked(func_op, groups)
        if sorted(map(identity_key, stale)) != sorted(map(identity_key, walked)):
            raise AssertionError(
                f"identify-cross-pass-tensors: the census's ops hold {len(stale)} stale stamps, a walk finds {len(walked)}"
            )
    return stale


def _stale_stamps_walked(func_op, groups: dict) -> list:
    """:func:`_stale_stamps` by a walk of ``func_op`` (the checking mode's truth), in walk order."""
    stale = []
    advance = ir.WalkResult.ADVANCE

    def find_stale(op):
        if ATTR in op.attributes and op not in groups:
            stale.append(op)
        return advance

    func_op.walk(find_stale)
    return stale


def _stamp_args(func_op, args: set[int], ctx) -> bool:
    n = len(func_op.regions[0].blocks[0].arguments)
    old = ir.ArrayAttr(func_op.attributes["arg_attrs"]) if "arg_attrs" in func_op.attributes else None
    dicts = []
    changed = False
    for i in range(n):
        entries = {}
        if old is not None:
            da = ir.DictAttr(old[i])
            for j in range(len(da)):
                entries[da[j].name] = da[j].attr
        if i in args and ATTR not in entries:
            entries[ATTR] = ir.UnitAttr.get()
            ctx.stats["values-stamped"] += 1
            changed = True
        elif i not in args and ATTR in entries:
            del entries[ATTR]
            changed = True
        dicts.append(ir.DictAttr.get(entries))
    if changed:
        ctx.rewriter.set_attr(func_op, "arg_attrs", ir.ArrayAttr.get(dicts))
    return changed


# --------------------------------------------------------------------------- step 10


def _cheap(op, d):
    """The ops to clone for ``op`` (producer first), or None if it is not cheap."""
    if len(op.regions) or len(op.results) != 1:
        return None
    if d.is_op(op, "constant", "iota"):
        return [op]
    if d.is_op(op, "broadcast_in_dim"):
        src = op.operands[0]
        if not isinstance(src.owner, ir.Block) and d.is_op(src.owner.operation, "constant"):
            return [src.owner.operation, op]
    return None


def _blocks_with_ops(func_op):
    """``[(block, [ir.Operation, ...])]`` for every block of ``func_op``, in :func:`all_blocks` order.

    One listing per block: the ops listed are also where the nested blocks
    are found (no separate walk). Order: an op's blocks are listed together,
    before the blocks nested in them (pre-order of their owner ops).
    """
    out = []

    def owner(op):
        blocks = [b for r in op.regions for b in r.blocks]
        listed = [(b, [o.operation for o in b.operations]) for b in blocks]
        out.extend(listed)
        for _, ops in listed:
            for o in ops:
                if len(o.regions):
                    owner(o)

    owner(func_op)
    return out


def _rematerialize(func_op, ctx: PassContext[RematerializeOptions]):
    d = ctx.d
    assert d is not None, "registered for one dialect"
    cheap_names = (d.name("constant"), d.name("iota"), d.name("broadcast_in_dim"))
    if not ctx.module_may_contain(*cheap_names):
        ctx.stats["clones"] += 0  # the statistic is reported (as 0) whenever the pass ran
        return  # nothing to clone anywhere
    # Only blocks holding a candidate need an order index. Usually that is the
    # entry block alone (census: no walk); otherwise list every block, in the
    # order that numbers the producers.
    constants, iotas, broadcasts = (ctx.ops_named(func_op, n) for n in cheap_names)
    candidates = constants + iotas + broadcasts
    if not candidates:
        ctx.stats["clones"] += 0
        return
    entry = func_op.regions[0].blocks[0]
    if all(c.block == entry for c in candidates):
        blocks = [(entry, _entry_ops(func_op, entry, ctx.analyses.checking))]
        chains = _chains(constants, iotas, broadcasts)
        plans = _far_uses(blocks, frozenset(cheap_names), d, ctx.options.distance, candidates, chains)
    else:
        plans = _far_uses(_blocks_with_ops(func_op), frozenset(cheap_names), d, ctx.options.distance)
    n_clones = 0
    with func_op.context:
        for plan in plans:
            n_clones += _clone_for_far_users(plan, ctx.options.distance, ctx.rewriter)
    ctx.stats["clones"] += n_clones


def _entry_ops(func_op, entry, checking: bool) -> list:
    """The ops of ``entry`` (``func_op``'s entry block) in order: :func:`only_block_ops` when it is the
    function's one block, else :func:`block_ops`. ``checking`` (the checking mode): compared with
    :func:`block_ops`; AssertionError if they differ."""
    ops = only_block_ops(func_op)
    if ops is None:
        return block_ops(entry)
    if checking and [identity_key(o) for o in ops] != [identity_key(o) for o in block_ops(entry)]:
        raise AssertionError("rematerialize: the walk's ops are not the entry block's")
    return ops


def _chains(constants: list, iotas: list, broadcasts: list) -> dict:
    """:func:`_cheap` of every op of the census's lists of a function's constants, iotas and
    broadcast_in_dims (``{op: chain or None}``), with their names known and a broadcast's source
    found among the constants by its result id (no view of the source op is made).

    A broadcast's operand produced by a constant is produced by one of ``constants`` (a function
    sees no value from outside it), so this is :func:`_cheap` of each op.
    """

    def alone(op):
        return None if len(op.regions) or len(op.results) != 1 else [op]

    out = {op: alone(op) for op in constants + iotas}
    by_result = {hash(c.result): c for c in constants if out[c] is not None}
    for op in broadcasts:
        src = by_result.get(hash(op.operands[0]))  # usually None: nothing else is read then
        out[op] = None if src is None or alone(op) is None else [src, op]
    return out


def _far_uses(blocks, cheap_names: frozenset, d, dist: int, candidates: list | None = None, chains: dict | None = None) -> list:
    """Phase 1 (read only): ``[(producer number, producer, with its constant, far uses)]``.

    Producers are numbered from 1 in block order over ``blocks``; a far use is
    ``(position, ancestor in the block, user, operand number)``, sorted by
    position, for each user more than ``dist`` ops after the producer.
    ``candidates``: with one block, its ops named in ``cheap_names`` (the
    census's list, any order), visited in block order instead of reading the
    name of every op of the block; ``chains``: their :func:`_cheap` answers
    if known (:func:`_chains`).
    """
    plans = []
    serial = 0
    for block, ops in blocks:
        pos = None
        if candidates is not None:
            pos = {o: k for k, o in enumerate(ops)}
            visit = sorted(((pos[c], c) for c in candidates), key=lambda t: t[0])
        else:
            visit = [(i, op) for i, op in enumerate(ops) if op.name in cheap_names]
        for i, op in visit:
            chain = _cheap(op, d) if chains is None else chains[op]
            if chain is None:
                continue
            serial += 1
            if pos is None:
                pos = {o: k for k, o in enumerate(ops)}
            uses = []
            for use in op.result.uses:
                user = use.owner.operation
                p = pos.get(user)  # a user in the block is its own ancestor there
                if p is not None:
                    anc = user
                else:
                    anc = _ancestor_in(user, block)
                    if anc is None:
                        continue
                    p = pos.get(anc)
                if p is not None and p - i > dist:
                    uses.append((p, anc, user, use.operand_number))
            if uses:
                uses.sort(key=lambda t: t[0])
                plans.append((serial, op, len(chain) == 2, uses))
    return plans


def _clone_for_far_users(plan, dist: int, rw) -> int:
    """Phase 2 for one producer: clone it before its first far user, share the clone with the
    later users within ``dist`` of it, erase the producer if left unused; returns the clones made.

    The first clone (of each op of the chain) is stamped; the later ones are clones of it, which
    carry the stamp already (same name, attributes, type and location as a stamped clone of the
    producer). The users are rewired in one batch, in the order of ``uses``.
    """
    sid, producer, with_const, uses = plan
    # Re-derive the constant of a broadcast now: an earlier plan may have
    # rematerialized (and erased) the one it read in phase 1.
    chain = [defining_op(producer.operands[0]), producer] if with_const else [producer]
    stamp = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), sid)
    clone_pos, clone_val = None, None
    stamped: list | None = None  # the first clone of each op of the chain, stamped
    rewire = []
    n_clones = 0
    for p, anc, user, k in uses:
        if clone_val is None or p - clone_pos > dist:
            if stamped is None:
                last = rw.clone(chain[0], before=anc)
                rw.set_attr(last, REMAT, stamp)
                stamped = [last]
                if with_const:  # the broadcast's one operand is the constant: use its clone
                    c = rw.clone(chain[1], before=anc)
                    rw.set_operand(c, 0, last.result)
                    rw.set_attr(c, REMAT, stamp)
                    stamped.append(c)
                    last = c
            else:
                last = rw.clone(stamped[0], before=anc)
                if with_const:
                    c = rw.clone(stamped[1], before=anc)
                    rw.set_operand(c, 0, last.result)
                    last = c
            clone_pos, clone_val = p, last.result  # cheap ops have one result (one binding read)
            n_clones += 1
        rewire.append((user, k, clone_val))
    rw.set_operands(rewire, within=producer)  # its users: all in its function
    if not any(True for _ in producer.result.uses):
        rw.erase_op(producer)
        if len(chain) == 2 and not any(True for _ in chain[0].result.uses):
            rw.erase_op(chain[0])
    return n_clones


def _ancestor_in(op, block):
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        if parent is None:
            return None
        op = parent.operation
        if op.name == "func.func":
            return None
    return None


register_twins(
    "identify-cross-pass-tensors",
    "Stamp neuron.CrossPassTensor on values crossing a fusion/composite boundary or a call",
    _identify,
    class_name="IdentifyCrossPassTensors",
    statistics=("values-stamped",),
    state=_IdentifyState,
    source="seed 004 step 9 (gate cfg[0x116]) and the neuron.* attribute census; DESIGN.md row 9 (our definition)",
)


@dataclass(frozen=True)
class RematerializeOptions:
    """The options of ``rematerialize`` and ``stablehlo-rematerialize``."""

    distance: int = option(16, "a user more than this many ops after the producer gets a clone")


register_twins(
    "rematerialize",
    "Clone cheap producers (constant, iota, broadcast of a constant) next to far users; stamp neuron.remat.value",
    _rematerialize,
    class_name="Rematerialize",
    statistics=("clones",),
    options_type=RematerializeOptions,
    source="seed 004 step 10 (same gate as step 9) and the neuron.* attribute census; DESIGN.md row 10 (our definition)",
)
