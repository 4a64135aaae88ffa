"""Control flow (``while``, ``case``, ``if``, ``map``), fusions printed with a region, and calls."""

from __future__ import annotations

import numpy as np

from hilo_mlir.penguin_ref.attrs import AttrError
from hilo_mlir.penguin_ref.ops.dispatch import impl


@impl("while")
def _while(c):
    cond = c.region(0, vectorized=False)
    body = c.region(1, vectorized=False)
    vals = list(c.srcs)
    limit = 10_000_000
    while bool(np.asarray(cond(*vals)[0])):
        vals = [np.asarray(v) for v in body(*vals)]
        limit -= 1
        if limit == 0:
            raise AttrError("while loop did not terminate after 10^7 iterations")
    return vals


@impl("case")
def _case(c):
    idx = int(np.asarray(c.srcs[0]).reshape(()))
    n = c.nregions()
    if idx < 0 or idx >= n:
        idx = n - 1
    return c.region(idx, vectorized=False)()


@impl("if")
def _if(c):
    p = bool(np.asarray(c.srcs[0]).reshape(()))
    return c.region(0 if p else 1, vectorized=False)()


@impl("map")
def _map(c):
    shape = c.out_shape()
    return [np.broadcast_to(np.asarray(r), shape).copy() for r in c.region(0)(*c.srcs)]


@impl("fusion")
def _fusion(c):
    """A fusion/composite printed with its region: run the body once in the enclosing scope."""
    reg = c.stmt.regions[0]
    args = c.srcs if reg.args else []
    return c.interp.call_region(c.stmt, reg, list(args), c.env, flat=True)


@impl("call")
def _call(c):
    callee = c.word("callee")
    raise AttrError(f"func.call to @{callee}: the program does not contain the callee's body (inline calls before printing)")
