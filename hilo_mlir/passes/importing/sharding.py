"""Dropping sharding annotations: the Penguin program is single-device.

:func:`strip_sharding` removes every :data:`SHARDING_ATTRS` attribute (on ops
and in function argument/result attributes), then every top-level
``sdy.mesh``, in that order, so no ``@mesh`` reference is ever left dangling.
Module attributes (``mhlo.num_partitions`` ...) and ``custom_call @Sharding``
markers stay (the printers emit the markers as copies). Shardy ops that
compute with a mesh (``sdy.sharding_constraint``, ``sdy.manual_computation``
...) are refused by :func:`hilo_mlir.passes.importing.validation.validate_input`
before this runs.
"""

from __future__ import annotations

#: Discardable attributes that carry sharding (Shardy and GSPMD); dropped by :func:`strip_sharding`.
SHARDING_ATTRS = ("sdy.sharding", "sdy.sharding_rule", "sdy.sharding_origins", "sdy.propagation_edges", "mhlo.sharding")


def _strip_dict(d, ir):
    items = [(d[i].name, d[i].attr) for i in range(len(d))]
    kept = {k: v for k, v in items if k not in SHARDING_ATTRS}
    return (ir.DictAttr.get(kept), True) if len(kept) != len(items) else (d, False)


def _strip_signature_attrs(op, ir) -> int:
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
            op.attributes[key] = ir.ArrayAttr.get(new)
            removed += 1
    return removed


def strip_sharding(loaded, census=None) -> int:
    """Drop the sharding annotations of ``loaded.module`` in place (see the module doc).

    Args:
        loaded: the :class:`~hilo_mlir.driver.frontend.loading.LoadedModule`.
        census: a :class:`~hilo_mlir.analysis.census.Census` of the module as it is
            now, taken with ``attr_names=SHARDING_ATTRS`` (its
            ``attr_holders`` are the ops to visit); default: take one. When
            this returns non-zero, ops were erased and the census is stale.

    Returns:
        The number of attributes and mesh ops removed.
    """
    from hilo_mlir.ir.binding import identity_key, ir

    removed = 0
    with loaded.context:
        if census is None:
            from hilo_mlir.analysis.census import Census

            census = Census(loaded.module.operation, attr_names=SHARDING_ATTRS)
        tops = [op.operation for op in loaded.module.body.operations]
        funcs = [f for t in tops for f in census.ops_named(t, "func.func")]  # nested modules' too
        done = {identity_key(f) for f in funcs}
        ops = funcs + [o for o in census.attr_holders if identity_key(o) not in done]
        for op in ops:
            names = [op.attributes[i].name for i in range(len(op.attributes))]
            for name in names:
                if name in SHARDING_ATTRS:
                    del op.attributes[name]
                    removed += 1
            if op.name == "func.func":
                removed += _strip_signature_attrs(op, ir)
        meshes = [op.operation for op in loaded.module.body.operations if op.operation.name == "sdy.mesh"]
        for m in meshes:
            m.erase()
            removed += 1
    return removed
