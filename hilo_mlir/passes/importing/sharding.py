"""Sharding: a Penguin program is one device's program.

* :func:`shard_map_to_per_device` (the first import stage) turns a
  ``jax.export`` of a ``shard_map`` that is manual over every mesh axis into
  its per-device program: the body of its ``sdy.manual_computation`` (or,
  GSPMD form, the code between ``custom_call @SPMDFullToShardShape`` and
  ``@SPMDShardToFullShape``) becomes ``main``, whose arguments and results
  get the per-device shapes. A partially manual ``shard_map``, or ops of
  ``main`` outside it (auto-sharded code), is one error saying how to get a
  partitioned module.
* :func:`strip_sharding` (after validation) refuses a module that is still
  sharded -- an annotation that splits a dimension across devices means the
  module is the *global* program of a sharded computation, which XLA's SPMD
  partitioner has not turned into a per-device one -- then removes every
  :data:`SHARDING_ATTRS` attribute (on ops and in function argument/result
  attributes), then every top-level ``sdy.mesh``, in that order, so no
  ``@mesh`` reference is ever left dangling. Module attributes
  (``mhlo.num_partitions`` ...) and replicated ``custom_call @Sharding``
  markers stay (the printers emit the markers as copies).

Shardy ops that compute with a mesh (``sdy.sharding_constraint``,
``sdy.reshard`` ...) are refused by
:func:`hilo_mlir.passes.importing.validation.validate_input` before the strip.
"""

from __future__ import annotations

import re

from hilo_mlir.support.partitioning import PARTITION_RECIPE, sharding_splits  # noqa: F401 (re-exported)

#: Discardable attributes that carry sharding (Shardy and GSPMD); dropped by :func:`strip_sharding`.
SHARDING_ATTRS = ("sdy.sharding", "sdy.sharding_rule", "sdy.sharding_origins", "sdy.propagation_edges", "mhlo.sharding")


def _strip_dict(d, ir):
    items = [(d[i].name, d[i].attr) for i in range(len(d))]
    kept = {k: v for k, v in items if k not in SHARDING_ATTRS}
    return (ir.DictAttr.get(kept), True) if len(kept) != len(items) else (d, False)


def _strip_signature_attrs(op, ir, rw) -> int:
    """Drop sharding entries from a function's ``arg_attrs`` / ``res_attrs``; returns how many arrays changed."""
    removed = 0
    for key in ("arg_attrs", "res_attrs"):
        if key not in op.attributes:
            continue
        arr = ir.ArrayAttr(op.attributes[key])
        new, changed = [], False
        for a in arr:
            d, c = _strip_dict(ir.DictAttr(a), ir)
            new.append(d)
            changed |= c
        if changed:
            rw.set_attr(op, key, ir.ArrayAttr.get(new))
            removed += 1
    return removed


def _split_axes(text: str, sizes: dict) -> list[str]:
    """The mesh axes of size > 1 a printed ``#sdy.sharding<@m, [{"x"}, {}]...>`` splits a dimension over."""
    start = text.find("[")
    if start < 0:
        return []
    depth, end = 0, start
    for end in range(start, len(text)):
        depth += text[end] == "["
        depth -= text[end] == "]"
        if depth == 0:
            break
    return [a for a in re.findall(r'"([^"]+)"', text[start:end]) if sizes.get(a, 2) > 1]


def _mesh_sizes(module) -> dict:
    """``{axis: size}`` of every top-level ``sdy.mesh`` (axis names of all meshes together)."""
    sizes: dict = {}
    for op in module.body.operations:
        if op.operation.name == "sdy.mesh":
            for a, n in re.findall(r'"([^"]+)"=(\d+)', str(op.operation.attributes["mesh"])):
                sizes[a] = int(n)
    return sizes


def _splitting(name: str, attr, sizes: dict) -> str | None:
    """The printed sharding if attribute ``name`` = ``attr`` splits a dimension across devices, else None."""
    from hilo_mlir.ir.binding import ir

    if name == "mhlo.sharding":
        text = ir.StringAttr(attr).value if isinstance(attr, ir.StringAttr) else str(attr)
        return text if sharding_splits(text) else None
    if name == "sdy.sharding":
        text = str(attr)
        return text if _split_axes(text, sizes) else None
    return None


def check_partitioned(loaded, ops) -> None:
    """Refuse the global program of a sharded computation: one located error at the first function argument,
    result or op whose sharding annotation splits a dimension across devices.

    Args:
        loaded: the module.
        ops: the ops holding sharding attributes (functions first).

    Raises:
        HiloError: naming the sharding and how to get a per-device module.
    """
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.support.diagnostics import HiloError

    sizes = _mesh_sizes(loaded.module)
    for op in ops:
        found = None
        for i in range(len(op.attributes)):
            a = op.attributes[i]
            text = _splitting(a.name, a.attr, sizes)
            if text:
                found = (op.location, text)
                break
        if found is None and op.name == "func.func":
            args = op.regions[0].blocks[0].arguments if op.regions[0].blocks else []
            for key in ("arg_attrs", "res_attrs"):
                if key not in op.attributes:
                    continue
                for j, d in enumerate(ir.ArrayAttr(op.attributes[key])):
                    d = ir.DictAttr(d)
                    for k in range(len(d)):
                        text = _splitting(d[k].name, d[k].attr, sizes)
                        if text and found is None:
                            where = args[j].location if key == "arg_attrs" and j < len(args) else op.location
                            found = (where, f"{'argument' if key == 'arg_attrs' else 'result'} {j}: {text}")
        if found is not None:
            loc, text = found
            raise HiloError(
                f"this module is sharded ({text}) but was not partitioned: {PARTITION_RECIPE}", loc=loc, filename=loaded.filename
            )


def strip_sharding(loaded, census=None, rewriter=None) -> int:
    """Drop the sharding annotations of ``loaded.module`` in place (see the module doc).

    Args:
        loaded: the :class:`~hilo_mlir.driver.frontend.loading.LoadedModule`.
        census: a :class:`~hilo_mlir.analysis.census.Census` of the module as it is
            now, taken with ``attr_names`` holding :data:`SHARDING_ATTRS` (its
            ``attr_holders`` are the ops to visit; one holding only another name
            it looked for is visited and left alone); default: take one. When
            this returns non-zero, ops were erased and the census is stale.
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter` to make the changes with (the
            pass's; default: a fresh one on the module).

    Returns:
        The number of attributes and mesh ops removed.

    Raises:
        HiloError: the module is the unpartitioned global program of a sharded
            computation (:func:`check_partitioned`).
    """
    from hilo_mlir.ir.binding import identity_key, ir
    from hilo_mlir.rewrite.rewriter import Rewriter

    removed = 0
    with loaded.context:
        rw = rewriter if rewriter is not None else Rewriter(loaded.module.operation)
        if census is None:
            from hilo_mlir.analysis.census import Census

            census = Census(loaded.module.operation, attr_names=SHARDING_ATTRS)
        tops = [op.operation for op in loaded.module.body.operations]
        funcs = [f for t in tops for f in census.ops_named(t, "func.func")]  # nested modules' too
        done = {identity_key(f) for f in funcs}
        ops = funcs + [o for o in census.attr_holders if identity_key(o) not in done]
        check_partitioned(loaded, ops)
        for op in ops:
            names = [op.attributes[i].name for i in range(len(op.attributes))]
            for name in names:
                if name in SHARDING_ATTRS:
                    rw.remove_attr(op, name)
                    removed += 1
            if op.name == "func.func":
                removed += _strip_signature_attrs(op, ir, rw)
        meshes = [op.operation for op in loaded.module.body.operations if op.operation.name == "sdy.mesh"]
        for m in meshes:
            rw.erase_op(m)
            removed += 1
    return removed


# -- shard_map: the body is the per-device program ------------------------------------------------------------

#: The GSPMD custom calls that frame a shard_map body (global -> per-device, per-device -> global).
TO_LOCAL, TO_GLOBAL = "SPMDFullToShardShape", "SPMDShardToFullShape"


def _target(op) -> str:
    from hilo_mlir.ir.binding import ir

    a = op.attributes["call_target_name"] if "call_target_name" in op.attributes else None
    return ir.StringAttr(a).value if a is not None else ""


def _sharding_text(op) -> str:
    from hilo_mlir.ir.binding import ir

    a = op.attributes["mhlo.sharding"] if "mhlo.sharding" in op.attributes else None
    return ir.StringAttr(a).value if isinstance(a, ir.StringAttr) else ""


def _error(loaded, op, message: str):
    from hilo_mlir.support.diagnostics import HiloError

    return HiloError(f"{message}: {PARTITION_RECIPE}", loc=op.location, filename=loaded.filename)


def shard_map_to_per_device(loaded, census, rewriter=None) -> int:
    """Make ``main`` the per-device program of a ``jax.export``-ed ``shard_map`` (see the module doc).

    Args:
        loaded: the module (changed in place).
        census: its input census (op names; not updated: when this returns non-zero, ops were erased and
            moved and the census is stale).
        rewriter: the :class:`~hilo_mlir.rewrite.rewriter.Rewriter` to make the changes with (the
            pass's; default: a fresh one on the module).

    Returns:
        The number of ``shard_map`` regions (``sdy.manual_computation`` or GSPMD frames) made per-device.

    Raises:
        HiloError: a ``shard_map`` that is not manual over every mesh axis (of size > 1), one outside
            ``main``'s body or beside other ops of ``main`` (auto-sharded code), located at it.
    """
    names = census.names
    calls = sorted(n for n in names if n.endswith(".custom_call"))
    if "sdy.manual_computation" not in names and not calls:
        return 0
    from hilo_mlir.passes.importing.validation import entry_function

    tops = [op.operation for op in loaded.module.body.operations]
    manual = [m for t in tops for m in census.ops_named(t, "sdy.manual_computation")]
    frames = [c for t in tops for c in census.ops_named(t, *calls) if _target(c) in (TO_LOCAL, TO_GLOBAL)]
    if not manual and not frames:
        return 0
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.rewrite.rewriter import Rewriter

    with loaded.context:
        main = entry_function(loaded.module)
        main = main.operation if hasattr(main, "operation") else main
        rw = rewriter if rewriter is not None else Rewriter(loaded.module.operation)
        if manual:
            _inline_manual_computation(loaded, main, manual, rw)
        else:
            _strip_gspmd_frames(loaded, main, frames, rw)
        block = main.regions[0].blocks[0]
        ret = list(block.operations)[-1]
        ft = ir.FunctionType.get([a.type for a in block.arguments], [v.type for v in ret.operands])
        rw.set_attr(main, "function_type", ir.TypeAttr.get(ft))
        _drop_signature_shardings(main, rw, ir)
    return len(manual) or 1


def _inline_manual_computation(loaded, main, manual, rw) -> None:
    from hilo_mlir.ir.binding import identity_key

    if len(manual) != 1:
        raise _error(loaded, manual[1], f"the module has {len(manual)} shard_map regions; only one, making up all of main, is supported")
    mc = manual[0]
    block = main.regions[0].blocks[0]
    ops = list(block.operations)
    if mc.parent is None or identity_key(mc.parent) != identity_key(main) or len(ops) != 2:
        other = next((o for o in ops if o.operation.name not in ("sdy.manual_computation", "func.return")), mc)
        raise _error(loaded, other, "this shard_map is not all of main: main also computes on the global (auto-sharded) program")
    sizes = _mesh_sizes(loaded.module)
    manual_axes = set(re.findall(r'"([^"]+)"', str(mc.attributes["manual_axes"])))
    auto = sorted(a for a, n in sizes.items() if n > 1 and a not in manual_axes)
    if auto:
        raise _error(
            loaded, mc, f"this shard_map is manual over {sorted(manual_axes)} but not over the mesh axes {auto} (partially manual)"
        )
    args = list(block.arguments)
    if [hash(v) for v in mc.operands] != [hash(a) for a in args]:
        raise _error(loaded, mc, "this shard_map does not take main's arguments in order")
    ret = ops[-1]
    if [hash(v) for v in ret.operands] != [hash(r) for r in mc.results]:
        raise _error(loaded, ret, "main does not return the shard_map's results in order")
    body = mc.regions[0].blocks[0]
    _drop_trivial_constraints(loaded, mc, sizes, rw)
    for a, b in zip(args, body.arguments):
        if a.type != b.type:
            rw.set_type(a, b.type)
        rw.replace_all_uses_with(b, a)
    inner = list(body.operations)
    rw.move_all_before(inner[:-1], mc)
    rw.replace_op(mc, list(inner[-1].operands))  # sdy.return's operands: the per-device results


def _drop_trivial_constraints(loaded, mc, sizes: dict, rw) -> None:
    """``sdy.sharding_constraint`` ops in the body over mesh axes of size 1 only (JAX writes them for the
    auto axes of a mesh such as ``("data"=2, "model"=1)``) constrain nothing: forwarded. One over an axis
    of size > 1 cannot be in a body manual over every such axis; refused."""
    from hilo_mlir.ir.binding import ir

    found: list = []

    def visit(op):
        if op.name == "sdy.sharding_constraint":
            found.append(op)
        return ir.WalkResult.ADVANCE

    mc.walk(visit)
    for op in found:
        if _split_axes(str(op.attributes["sharding"]), sizes):
            raise _error(loaded, op, "this sharding constraint inside the shard_map splits a mesh axis (partially manual)")
        rw.replace_op(op, [op.operands[0]])


def _check_gspmd_main(loaded, main, frames) -> None:
    """main holds only the frames, their ``@Sharding`` markers and calls of the body; every frame is fully manual."""
    from hilo_mlir.ir.binding import identity_key

    for o in main.regions[0].blocks[0].operations:
        op = o.operation
        if op.name.endswith(".custom_call") and _target(op) in ("Sharding", TO_LOCAL, TO_GLOBAL):
            continue
        if op.name not in ("func.call", "func.return"):
            raise _error(loaded, op, "this shard_map is not all of main: main also computes on the global (auto-sharded) program")
    for f in frames:
        if f.parent is None or identity_key(f.parent) != identity_key(main):
            raise _error(loaded, f, "this shard_map is not in main's body")
        if _target(f) == TO_LOCAL and _sharding_text(f) != "{manual}":
            raise _error(loaded, f, f"this shard_map is partially manual ({_sharding_text(f)})")


def _strip_gspmd_frames(loaded, main, frames, rw) -> None:
    """``arg -> @Sharding -> @SPMDFullToShardShape -> body -> @Sharding -> @SPMDShardToFullShape -> return``: the
    arguments take the per-device types, the frames are forwarded."""
    from hilo_mlir.ir.binding import ir

    _check_gspmd_main(loaded, main, frames)
    block = main.regions[0].blocks[0]
    args = {hash(a): a for a in block.arguments}
    erase = []
    for f in frames:
        src = f.operands[0]
        owner = src.owner
        marker = owner.operation if isinstance(owner, ir.OpView) else owner if isinstance(owner, ir.Operation) else None
        if marker is not None and marker.name.endswith(".custom_call") and _target(marker) == "Sharding":
            src = marker.operands[0]
            erase.append(marker)
        if _target(f) == TO_LOCAL:
            if hash(src) not in args:
                raise _error(loaded, f, "this shard_map's input is not an argument of main")
            arg = args[hash(src)]
            rw.set_type(arg, f.results[0].type)
            rw.replace_all_uses_with(f.results[0], arg)
        else:
            rw.replace_all_uses_with(f.results[0], src)
        erase.insert(0, f)
    for op in erase:  # users first
        if not any(True for r in op.results for _ in r.uses):
            rw.erase_op(op)
    for a in block.arguments:  # an argument still feeding a global-shaped Sharding marker: auto-sharded use
        for u in a.uses:
            owner = u.owner.operation if isinstance(u.owner, ir.OpView) else u.owner
            if isinstance(owner, ir.Operation) and owner.name.endswith(".custom_call") and _target(owner) == "Sharding":
                raise _error(loaded, owner, "an argument of main is used outside the shard_map")


def _drop_signature_shardings(main, rw, ir) -> None:
    """The shardings of main's arguments and results described the global values: dropped with them."""
    for key in ("arg_attrs", "res_attrs"):
        if key not in main.attributes:
            continue
        new = []
        for d in ir.ArrayAttr(main.attributes[key]):
            d = ir.DictAttr(d)
            new.append(ir.DictAttr.get({d[i].name: d[i].attr for i in range(len(d)) if d[i].name not in SHARDING_ATTRS}))
        rw.set_attr(main, key, ir.ArrayAttr.get(new))
