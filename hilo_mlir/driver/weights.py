"""Weights: which entry arguments are parameters, and the ``.npy`` files they are loaded from.

A parameter input (one of ``main``'s ``slowChangingIns``) prints as
``markInput(..., is_parameter_tensor=True, weight_files=['input_<i>.npy'], np_file='input_<i>.npy')``
(docs/penguin_format.md section 3). The weights themselves come from the
caller -- ``hilo2penguin --weights INDEX=FILE.npy``, or
``hilo_mlir.jax.compile(..., params=...)`` -- and are written beside
``penguin.py`` as part of the compile result's ``files``:

1. :func:`mark_parameters` adds the given argument indices to ``main``'s
   ``slowChangingIns`` before the pipeline runs (so every pass that treats
   parameters specially -- ``hoist-compute``, ``penguinize-io`` -- sees them);
2. after compiling, :func:`weight_files` converts each array to the dtype and
   checks it against the shape the program declares for that input, and
   returns ``{np_file: .npy bytes}`` in the format of the constant files
   (dtypes numpy cannot name -- bfloat16, float8 -- as their bit patterns).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, cast

import numpy as np

from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    # cast("Buffer", array): numpy's stubs give ndarray the buffer protocol only for Python >= 3.12
    from typing_extensions import Buffer

_MARK_INPUT = re.compile(
    r"^input_(\d+) = m\d+\.Tensor\(name=(.*), spec=m\d+\.TensorSpec\(shape=\(([\d, ]*)\), dtype='(\w+)'\)\)"
    r"\.markInput\(\w+, index=\d+, is_parameter_tensor=(True|False)(?:, weight_files=\['[^']*'\])?(?:, np_file='([^']*)')?\)$"
)


def parse_weight_args(specs) -> dict[int, str]:
    """``["1=w.npy", ...]`` (``--weights``) -> ``{1: "w.npy"}``.

    Raises:
        HiloError: a spec that is not ``INDEX=FILE`` with a non-negative
            integer index, or an index given twice.
    """
    out: dict[int, str] = {}
    for spec in specs:
        index, sep, path = spec.partition("=")
        if not sep or not index.strip().isdigit() or not path:
            raise HiloError(f"--weights: expected INDEX=FILE.npy (an input index and a .npy file), got '{spec}'")
        i = int(index)
        if i in out:
            raise HiloError(f"--weights: input {i} is given twice")
        out[i] = path
    return out


def load_weight(path: str, index: int) -> np.ndarray:
    """The array of a weight file.

    Raises:
        HiloError: the file cannot be read or is not a ``.npy`` array (naming the input).
    """
    from hilo_mlir.support.arrays import read_npy

    try:
        return read_npy(path, f"the weight of input {index} from")
    except HiloError as e:
        raise HiloError(f"--weights: {e.message}") from None


def mark_parameters(module, indices, filename: str | None = None) -> None:
    """Add ``indices`` to ``main``'s ``slowChangingIns`` (``dense<[...]> : tensor<Nxi32>``, sorted).

    Args:
        module: the ``ir.Module`` to compile (its context must be current).
        indices: entry-argument indices of ``main``.

    Raises:
        HiloError: no ``main``; an index that is not an argument of ``main``.
    """
    from hilo_mlir.ir.binding import ir
    from hilo_mlir.ir.parameters import attribute_parameters
    from hilo_mlir.passes.importing.validation import entry_function

    main = entry_function(module, filename)
    n = len(main.regions[0].blocks[0].arguments)
    bad = sorted(i for i in indices if not 0 <= i < n)
    if bad:
        raise HiloError(f"weights given for input {bad[0]}, but main has {n} input{'s' if n != 1 else ''}", filename=filename)
    attrs = main.attributes
    values = sorted(attribute_parameters(main) | set(indices))
    with ir.Location.unknown(module.context):
        t = ir.RankedTensorType.get([len(values)], ir.IntegerType.get_signless(32))
        attrs["slowChangingIns"] = ir.DenseElementsAttr.get(cast("Buffer", np.asarray(values, dtype=np.int32)), type=t)


def parameter_inputs(source: str) -> dict[int, tuple[str, tuple, str]]:
    """``{index: (np_file, shape, dtype)}`` of the parameter inputs a printed program declares."""
    out = {}
    seen = False
    for line in str(source).splitlines():  # the prologue: the inputs follow the Function line
        if line.startswith("input_"):
            seen = True
            m = _MARK_INPUT.match(line)
            if m and m.group(5) == "True" and m.group(6):
                shape = tuple(int(d) for d in m.group(3).replace(" ", "").split(",") if d)
                out[int(m.group(1))] = (m.group(6), shape, m.group(4))
        elif seen:
            break
    return out


def weight_files(source: str, arrays: dict) -> dict[str, bytes]:
    """``{np_file: .npy bytes}`` for ``arrays`` (``{input index: array}``) of a printed program.

    Each array is converted to the dtype the program declares for that input
    (an ``ml_dtypes`` array that went through ``.npy`` as raw bytes is
    reinterpreted, not converted).

    Raises:
        HiloError: an index that is not a parameter input of the program; a
            shape that differs from the declared one; values that do not
            convert to the declared dtype.
    """
    from hilo_mlir.penguin_ref.attrs import np_dtype
    from hilo_mlir.printers.literals import npy_bytes

    params = parameter_inputs(source)
    out = {}
    for i, a in sorted(arrays.items()):
        if i not in params:
            raise HiloError(f"weights given for input {i}, which is not a parameter input of the program")
        np_file, shape, dtype = params[i]
        a = np.asarray(a)
        if tuple(a.shape) != shape:
            raise HiloError(f"the weight of input {i} has shape {tuple(a.shape)}, the program expects {shape}")
        dt = np_dtype(dtype)
        try:
            if a.dtype.kind == "V" and a.dtype.itemsize == dt.itemsize:
                a = a.view(dt)
            elif a.dtype != dt:
                a = a.astype(dt)
        except (TypeError, ValueError) as e:
            raise HiloError(f"the weight of input {i} ({a.dtype}) does not convert to {dtype}: {e}") from None
        out[os.path.basename(np_file)] = npy_bytes(a)
    return out
