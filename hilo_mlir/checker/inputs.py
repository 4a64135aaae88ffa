"""Inputs for ``hilo-check``: ``main``'s signature, seeded random inputs drawn by role, ``--inputs x.npz``.

Random inputs (deterministic given the seed; one ``numpy.random.default_rng(seed)``
stream over ``main``'s arguments in order):

* float arguments: N(0, 1), rounded once to the argument's dtype; an argument
  that reaches the right-hand side of a ``dot_general``/``dot`` or the kernel
  of a ``convolution`` (through converts, reshapes, transposes, broadcasts) is
  a *weight* and is scaled by 1/sqrt(fan-in) (fan-in: the contracted size, or
  the kernel's size over its output features), as a real model initializes it;
* integer arguments that reach an index operand (``gather``/``scatter``
  indices, ``dynamic_slice``/``dynamic_update_slice`` starts) are drawn in
  range, ``[0, n)`` with ``n`` the smallest dimension of the indexed operand;
  other integers in ``[-8, 8)`` (unsigned: ``[0, 8)``);
* booleans: masks, each element True with probability 3/4.
"""

from __future__ import annotations

import math
import os
import re

import numpy as np

from hilo_mlir.checker.errors import CheckError
from hilo_mlir.support.arrays import read_npy, read_npz
from hilo_mlir.support.diagnostics import HiloError

_PASS_THROUGH = frozenset({"convert", "reshape", "transpose", "broadcast_in_dim", "broadcast", "bitcast_convert", "copy"})


class Argument:
    """One argument of ``main``: ``name`` (``input_names`` entry or ``input_<i>``), ``shape``, numpy ``dtype``, ``mlir`` type text."""

    def __init__(self, name: str, shape: tuple, dtype: np.dtype, mlir: str):
        self.name, self.shape, self.dtype, self.mlir = name, shape, dtype, mlir
        self.role = "activation"
        self.fan_in = 1
        self.index_bound: int | None = None

    def describe(self) -> str:
        return f"{self.name}: {self.mlir}"


def _short(name: str) -> str:
    return name.split(".", 1)[1] if name.startswith(("stablehlo.", "mhlo.")) else name


def _dims(attr_text: str, key: str) -> list[int]:
    m = re.search(key + r"\s*=\s*\[([0-9,\s]*)\]", attr_text)
    return [int(x) for x in m.group(1).split(",") if x.strip()] if m else []


def signature(module) -> list[Argument]:
    """``main``'s arguments (an ``ir.Module`` of plain stablehlo, as :func:`~hilo_mlir.testing.to_evaluable` gives).

    Raises:
        CheckError: no ``main``, an argument that is not a statically shaped tensor
            (dynamic shapes need ``--input-types``), an element type without a numpy dtype.
    """
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.printers.literals import np_dtype
    from hilo_mlir.testing import find_main

    funcs = [op.operation for op in module.body.operations if op.operation.name == "func.func"]
    if not funcs:
        raise CheckError("the module has no function to run")
    f = find_main(module)
    names = None
    if "input_names" in f.attributes:
        try:
            names = [str(ir.StringAttr(a).value) for a in ir.ArrayAttr(f.attributes["input_names"])]
        except (ValueError, TypeError):
            names = None
    args = []
    for i, a in enumerate(f.regions[0].blocks[0].arguments):
        t = a.type
        if not isinstance(t, ir.RankedTensorType):
            raise CheckError(f"argument #{i} of main has type {t}: hilo-check runs tensors with static shapes only")
        if not t.has_static_shape:
            raise CheckError(f"argument #{i} of main has the dynamic type {t}: give static types with --input-types")
        dt = np_dtype(str(t.element_type))
        if dt is None:
            raise CheckError(f"argument #{i} of main has element type {t.element_type}, which hilo-check cannot feed")
        name = names[i] if names and i < len(names) and re.fullmatch(r"[A-Za-z_][\w.\[\]'/-]{0,200}", names[i]) else f"input_{i}"
        args.append(Argument(name, tuple(t.shape), np.dtype(dt), str(t)))
    _find_roles(f, args)
    return args


def _find_roles(func, args: list[Argument]) -> None:
    """Mark weights (with their fan-in) and index arguments (with their bound) by looking at their uses."""
    from hilo_mlir.ir.binding import ir

    block = func.regions[0].blocks[0]
    origin: dict = {}  # hash(value) -> argument index, through pass-through ops
    for i, a in enumerate(block.arguments):
        origin[hash(a)] = i
    for opv in block.operations:
        op = opv.operation
        short = _short(op.name)
        src = [origin.get(hash(v)) for v in op.operands]
        if short in _PASS_THROUGH and src and src[0] is not None:
            for r in op.results:
                origin[hash(r)] = src[0]
            continue
        text = None
        if short in ("dot_general", "dot") and len(src) >= 2 and src[1] is not None:
            arg = args[src[1]]
            if np.issubdtype(arg.dtype, np.floating) or arg.dtype.kind == "V":
                lhs = ir.RankedTensorType(op.operands[0].type)
                text = str(op.attributes["dot_dimension_numbers"]) if "dot_dimension_numbers" in op.attributes else ""
                contracting = _dims(text, "lhs_contracting_dimensions") if text else [lhs.rank - 1]
                arg.role, arg.fan_in = "weight", max(arg.fan_in, math.prod(lhs.shape[d] for d in contracting) or 1)
        elif short == "convolution" and len(src) >= 2 and src[1] is not None:
            arg = args[src[1]]
            k = ir.RankedTensorType(op.operands[1].type)
            out_features = 1
            dn = str(op.attributes["dimension_numbers"]) if "dimension_numbers" in op.attributes else ""
            m = re.search(r"x\[([^\]]*)\]", dn)
            if m:
                parts = [p.strip() for p in m.group(1).split(",")]
                if "o" in parts:
                    out_features = k.shape[parts.index("o")]
            arg.role, arg.fan_in = "weight", max(arg.fan_in, math.prod(k.shape) // max(out_features, 1) or 1)
        index_operands = {
            "gather": [1],
            "scatter": [1],
            "dynamic_slice": list(range(1, len(src))),
            "dynamic_update_slice": list(range(2, len(src))),
        }
        for k_i in index_operands.get(short, []):
            if k_i < len(src) and (j := src[k_i]) is not None:
                arg = args[j]
                if np.issubdtype(arg.dtype, np.integer):
                    operand = ir.RankedTensorType(op.operands[0].type)
                    bound = min(operand.shape) if operand.rank else 1
                    arg.role = "index"
                    arg.index_bound = bound if arg.index_bound is None else min(arg.index_bound, bound)


def random_inputs(args: list[Argument], seed: int) -> list[np.ndarray]:
    """Seeded inputs for ``args`` (see the module doc); deterministic given ``seed``."""
    rng = np.random.default_rng(seed)
    out = []
    for a in args:
        dt, shape = a.dtype, a.shape
        x: np.ndarray
        if dt == np.bool_:
            x = rng.random(shape) < 0.75
        elif np.issubdtype(dt, np.integer):
            if a.index_bound is not None:
                x = rng.integers(0, max(a.index_bound, 1), shape)
            else:
                lo = 0 if np.issubdtype(dt, np.unsignedinteger) else -8
                x = rng.integers(lo, 8, shape)
            x = x.astype(dt)
        elif np.issubdtype(dt, np.complexfloating):
            x = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dt)
        else:
            x = rng.standard_normal(shape)
            if a.role == "weight":
                x = x / math.sqrt(a.fan_in)
            x = x.astype(np.float32).astype(dt) if dt != np.float64 else x
        out.append(np.asarray(x))
    return out


def load_inputs(path: str, args: list[Argument]) -> list[np.ndarray]:
    """The arrays of ``path`` (``.npz``: one entry per argument, named as ``main``'s arguments
    — ``input_names`` or ``input_<i>`` — or ``arr_<i>`` as ``np.savez`` names positional arrays;
    ``.npy``: a module with one argument).

    Raises:
        CheckError: a missing or unreadable file, a missing or extra entry, a wrong shape or
            a dtype that does not convert exactly (a float for an integer argument, ...).
    """
    if not os.path.exists(path):
        raise CheckError(f"cannot read inputs '{path}': no such file")
    try:
        arrays = {"arr_0": read_npy(path, "inputs")} if path.endswith(".npy") else read_npz(path, "inputs")
    except HiloError as e:
        raise CheckError(e.message) from None
    if not isinstance(arrays, dict):
        raise CheckError(f"cannot read inputs '{path}': not an .npz archive")
    out = []
    used = set()
    for i, a in enumerate(args):
        key = next((k for k in (a.name, f"input_{i}", f"arr_{i}") if k in arrays), None)
        if key is None:
            raise CheckError(f"inputs '{path}' have no array for argument #{i} of main ({a.describe()}); entries: {sorted(arrays)[:10]}")
        used.add(key)
        x = arrays[key]
        if tuple(x.shape) != a.shape:
            raise CheckError(f"inputs '{path}': '{key}' has shape {tuple(x.shape)}, argument #{i} of main is {a.mlir}")
        out.append(_convert(x, a, f"inputs '{path}': '{key}'"))
    extra = sorted(set(arrays) - used)
    if extra:
        raise CheckError(
            f"inputs '{path}' have {len(extra)} entr{'y' if len(extra) == 1 else 'ies'} main has no argument for: {extra[:10]}"
        )
    return out


def _convert(x: np.ndarray, a: Argument, what: str) -> np.ndarray:
    """``x`` as ``a``'s dtype; a conversion that changes kind (float -> int, ...) is an error."""
    src, dst = x.dtype, a.dtype
    if src == dst:
        return x
    kind_ok = (
        (np.issubdtype(dst, np.floating) or dst.kind == "V" or str(dst) in ("bfloat16",) or "float8" in str(dst))
        and (np.issubdtype(src, np.floating) or src.kind == "V" or np.issubdtype(src, np.integer))
    ) or (np.issubdtype(dst, np.integer) and np.issubdtype(src, np.integer))
    kind_ok = kind_ok or (dst == np.bool_ and src == np.bool_)
    kind_ok = kind_ok or (np.issubdtype(dst, np.complexfloating) and (np.issubdtype(src, np.number)))
    if not kind_ok:
        raise CheckError(f"{what} has dtype {src}, argument is {a.mlir}")
    y = x.astype(dst)
    if np.issubdtype(dst, np.integer) and not np.array_equal(y.astype(src), x):
        raise CheckError(f"{what} has values that do not fit {dst}")
    return y
