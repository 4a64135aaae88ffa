"""The call object an implementation receives: operand arrays, result specs, attributes, regions."""

from __future__ import annotations

import builtins

from hilo_mlir.penguin_ref.attrs import AttrError, ints, parse_attr
from hilo_mlir.penguin_ref.ops.dispatch import op_key

_REQUIRED = object()


class OpCall:
    """What an implementation sees: operand arrays, result specs, attributes, regions."""

    def __init__(self, interp, stmt, srcs, env):
        self.interp = interp
        self.stmt = stmt
        self.srcs = srcs
        self.env = env

    # results
    @property
    def out_specs(self):
        return self.stmt.dsts

    def out_dtype(self, i=0):
        return self.stmt.dsts[i].np_dtype

    def out_shape(self, i=0):
        return self.stmt.dsts[i].shape

    # attributes ---------------------------------------------------------------------------
    def has(self, *names) -> bool:
        return self.raw(*names) is not None

    def raw(self, *names):
        kw = self.stmt.kw
        for n in names:
            for key in (n, n + "_", n.replace(".", "_"), "mhlo_" + n, "stablehlo_" + n):
                if key in kw and kw[key] is not None:
                    return kw[key]
        return None

    def attr(self, *names, default=None):
        v = self.raw(*names)
        return default if v is None else parse_attr(v)

    def ints(self, *names, default=_REQUIRED):
        """A list-of-int attribute; without ``default`` it is required (AttrError naming it)."""
        v = self.raw(*names)
        if v is None:
            if default is _REQUIRED:
                raise AttrError(f"missing attribute {names[0]!r}")
            return list(default) if default is not None else None
        return ints(v)

    def int(self, *names, default=_REQUIRED):
        """An int attribute; without ``default`` it is required."""
        v = self.raw(*names)
        if v is None:
            if default is _REQUIRED:
                raise AttrError(f"missing attribute {names[0]!r}")
            return default
        lst = ints(v)
        if len(lst) != 1:
            raise AttrError(f"attribute {names[0]} should be one integer, got {v!r}")
        return lst[0]

    def word(self, *names, default=None):
        v = self.attr(*names)
        if v is None:
            return default
        return str(v).strip("'\"").upper() if not isinstance(v, str) else v.strip().strip("'\"")

    def struct(self, struct_names, fields, defaults=None) -> dict:
        """Read a structured attribute (dot/gather/scatter/conv dimension numbers).

        The fields may be printed flattened (``lhs_contracting_dimensions=[1]``),
        as a dict, or as the MLIR text of the struct.
        """
        out = {}
        base = {}
        for n in struct_names:
            v = self.attr(n)
            if isinstance(v, dict):
                base = v
                break
            if v is not None:
                raise AttrError(f"cannot read {n}={v!r}")
        for f in fields:
            if self.raw(f) is not None:
                out[f] = parse_attr(self.raw(f))
            elif f in base:
                out[f] = base[f]
            elif defaults and f in defaults:
                out[f] = defaults[f]
            else:
                out[f] = []
        return out

    # regions ------------------------------------------------------------------------------
    def functions(self):
        fns = self.stmt.kw.get("regions")
        if fns is None:
            return None
        return list(fns) if isinstance(fns, (list, tuple)) else [fns]

    def nregions(self) -> builtins.int:  # builtins: the class defines an int() method
        fns = self.functions()
        return len(fns) if fns is not None else len(self.stmt.regions)

    def region(self, i, vectorized=True):
        fns = self.functions()
        if fns is not None:
            if i >= len(fns):
                raise AttrError(f"expected at least {i + 1} region function(s) in regions=, got {len(fns)}")
            fn = fns[i]
            if not callable(fn):
                raise AttrError(f"regions[{i}] is not a function")

            def call_fn(*args):
                return self.interp.call_function(self.stmt, fn, list(args), self.env, vectorized=vectorized)

            return call_fn
        regs = self.stmt.regions
        if i >= len(regs):
            raise AttrError(f"expected at least {i + 1} region(s), the program prints {len(regs)}")
        reg = regs[i]

        def call(*args):
            return self.interp.call_region(self.stmt, reg, list(args), self.env, vectorized=vectorized)

        return call

    def region_binary(self, i=0, use_hint=True, nargs=2):
        """Name of the single binary op of (arg0, arg1) a region returns, else None (or the ``reducer=`` hint).

        A region printed as a function is traced (recorded with placeholder arguments, not run).
        """
        hint = self.raw("reducer") if use_hint else None
        if hint is not None:
            return str(hint).strip("'\"")
        reg = self.structure(i, nargs)
        if reg is None or len(reg.args) != 2 or len(reg.body) != 1 or reg.ret is None or len(reg.ret) != 1:
            return None
        st = reg.body[0]
        if reg.ret[0] is not st.results[0] or st.regions or st.kw.get("regions"):
            return None
        srcs = st.kw.get("srcs") or []
        if set(map(id, srcs)) != set(map(id, reg.args)) or len(srcs) != 2:
            return None
        return op_key(st)

    def structure(self, i, nargs):
        """Region ``i`` as a :class:`Region` (legacy form, or a region function traced), or None."""
        fns = self.functions()
        if fns is not None:
            if i >= len(fns) or not callable(fns[i]):
                return None
            return self.stmt.program.trace_function(fns[i], nargs)
        regs = self.stmt.regions
        return regs[i] if i < len(regs) else None

    def region_compare(self, i=0):
        """(direction, type, swapped) if the region is ``compare(arg0, arg1)`` (or args 1, 0)."""
        fns = self.functions()
        if fns is not None:
            if i >= len(fns) or not callable(fns[i]):
                return None
            reg = self.stmt.program.trace_function(fns[i], 2 * len(self.srcs))
            if reg is None:
                return None
        else:
            regs = self.stmt.regions
            if i >= len(regs):
                return None
            reg = regs[i]
        if len(reg.body) != 1 or reg.ret is None or len(reg.ret) != 1:
            return None
        st = reg.body[0]
        if op_key(st) != "compare" or reg.ret[0] is not st.results[0]:
            return None
        srcs = st.kw.get("srcs") or []
        if len(srcs) != 2 or len(reg.args) < 2:
            return None
        if srcs[0] is reg.args[0] and srcs[1] is reg.args[1]:
            swapped = False
        elif srcs[0] is reg.args[1] and srcs[1] is reg.args[0]:
            swapped = True
        else:
            return None
        sub = OpCall(self.interp, st, [], self.env)
        return direction(sub), compare_type(sub), swapped

    def error(self, msg):
        return self.stmt.error(msg)


def direction(c) -> str:
    """The comparison direction of a compare statement (``'LT'``, ...)."""
    d = c.word("comparison_direction", "direction", "compare_type")
    if d is None:
        raise AttrError("compare without comparison_direction")
    return d.upper()


def compare_type(c) -> str | None:
    """The comparison type (``'TOTALORDER'``, ``'FLOAT'``, ...) or None."""
    t = c.word("compare_type", "comparison_type", "type")
    if t is None or t.upper() in ("NOTYPE",):
        return None
    return t.upper()
