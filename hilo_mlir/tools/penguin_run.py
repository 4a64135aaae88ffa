"""``hilo-penguin-run``: execute a ``penguin.py`` with the numpy reference backend.

    hilo-penguin-run out/penguin.py --inputs x.npy w.npy --out results/ [--literal-fusions]
    -> results/out0.npy, results/out1.npy, ... (main's result order)

A parameter input given as ``-`` (or left out at the end) is read from its
``np_file`` beside the program.

``--devices N`` runs the per-device program on ``N`` simulated devices in
lock step (:mod:`hilo_mlir.penguin_ref.devices`). Each ``--inputs`` file is
then either the per-device arrays stacked on a new leading axis (shape
``(N,) + shape``: device ``d`` gets ``a[d]``) or one array of the input's own
shape, given to every device; ``-`` reads a parameter's ``np_file`` for every
device. Each ``out<i>.npy`` holds output ``i`` of every device, stacked the
same way (shape ``(N,) + shape``). ``Expm1`` / ``Log1p`` fusions run as the
precise ``expm1`` / ``log1p`` (computed wide, rounded once) unless
``--literal-fusions``.

bf16/f8 results are written as float32 (exact: .npy cannot name ml_dtypes
types); .npy inputs saved from ml_dtypes arrays (raw ``|V2``) are read as the
program's input dtype.

Each input must have exactly the dtype and shape of its ``markInput`` (a
float64 array for a float32 input is an error naming the input, not a silent
conversion). ``--out`` must be a folder (created if missing).

Exit codes: 0 success, 1 a program/input error (one line on stderr, no
traceback), 2 bad command line.
"""

from __future__ import annotations

import argparse
import os
import sys

from hilo_mlir.support.diagnostics import HiloError, shown_path

TOOL = "hilo-penguin-run"


def _parser() -> argparse.ArgumentParser:
    from hilo_mlir.tools.flags import ArgumentParser

    ap = ArgumentParser(
        prog=TOOL,
        description="Run a Penguin Python program (penguin.py) with the numpy reference backend.",
    )
    ap.add_argument("program", help="penguin.py (or the directory that holds it); .npy constants are read beside it")
    ap.add_argument(
        "--inputs",
        nargs="*",
        default=[],
        metavar="NPY",
        help="one .npy per program input, in input_<i> order; '-' (or leaving out trailing ones) "
        "reads a parameter from its np_file beside the program",
    )
    ap.add_argument("--out", required=True, metavar="DIR", help="directory for out0.npy, out1.npy, ...")
    ap.add_argument(
        "--literal-fusions",
        action="store_true",
        help="run Expm1/Log1p fusions op by op (exp(x) - 1, log(x + 1)) instead of as the precise expm1/log1p their kind selects",
    )
    ap.add_argument(
        "--devices",
        type=int,
        default=None,
        metavar="N",
        help="run the per-device program on N simulated devices in lock step; each input file is either stacked "
        "per device (shape (N, ...)) or one array for every device; each output file is stacked per device (N, ...)",
    )
    ap.add_argument(
        "--print",
        dest="show",
        action="store_true",
        help="also print each output: 'out<i>: <dtype> <shape> <values>' (values for up to 64 elements)",
    )
    return ap


def check_inputs(program, paths: list[str], arrays: list) -> None:
    """Every given array has exactly the dtype and shape of its ``markInput`` (the API converts; the tool does not guess).

    An array saved from an ml_dtypes type (raw ``|V<n>``) counts as the input's
    dtype when the item sizes agree.

    Raises:
        HiloError: one line naming the input's position, its file, and both types.
    """
    import numpy as np

    from hilo_mlir.penguin_ref.records import TensorSpec

    decls = sorted(program.inputs, key=lambda s: s.input_index)  # a count mismatch: run_program says it
    for d, path, a in zip(decls, paths, arrays):
        if a is None or not isinstance(d.spec, TensorSpec):
            continue
        want, shape = d.spec.np_dtype, d.spec.shape
        dtype_ok = a.dtype == want or (a.dtype.kind == "V" and a.dtype.itemsize == np.dtype(want).itemsize)
        if not dtype_ok or tuple(a.shape) != tuple(shape):
            raise HiloError(
                f"input {d.input_index} ('{shown_path(path)}') is {a.dtype.name} {tuple(a.shape)}, the program's input_{d.input_index} "
                f"is {np.dtype(want).name} {tuple(shape)}"
            )


def run(argv=None) -> int:
    from hilo_mlir.tools.flags import UsageError

    try:
        args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e} (see '{TOOL} --help')\n")
        return 2
    import numpy as np

    from hilo_mlir import penguin_ref
    from hilo_mlir.support.arrays import read_npy
    from hilo_mlir.support.io import folder_problem, input_file_error, path_problem

    # before running: a long run must not end in these
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise HiloError(f"cannot write the outputs to '{shown_path(args.out)}': it is a file, not a folder")
    problem = folder_problem(args.out, create=True)
    if problem is not None:
        raise HiloError(f"cannot write the outputs to '{shown_path(args.out)}': {problem}")
    if not os.path.isdir(args.program):  # the command takes a path (a program or its folder), never program text
        problem = path_problem(args.program)
        if problem is not None:
            raise input_file_error(args.program, problem)
    inputs: list[np.ndarray | None] = []  # None: read the parameter from its np_file
    for p in args.inputs:
        if p == "-":
            inputs.append(None)
            continue
        inputs.append(read_npy(p, "input"))
    if args.devices is not None:
        outs = _run_devices(args, inputs)
    else:
        program = penguin_ref.load(args.program)
        check_inputs(program, args.inputs, inputs)
        from hilo_mlir.penguin_ref.interpreter import run_program

        outs = run_program(program, inputs, literal_fusions=args.literal_fusions)
    try:
        os.makedirs(args.out, exist_ok=True)
    except OSError as e:
        raise HiloError(f"cannot write the outputs to '{shown_path(args.out)}': {e.strerror or e}") from None
    for i, o in enumerate(outs):
        path = os.path.join(args.out, f"out{i}.npy")
        dtype = o.dtype.name
        if o.dtype.kind == "V" or dtype.startswith(("bfloat16", "float8", "int4", "uint4")):
            # .npy cannot name ml_dtypes types (they load back as raw |V2); widening to f32 is exact
            o = o.astype(np.float32)
        np.save(path, o, allow_pickle=False)
        if args.show:
            vals = repr(o.tolist()) if o.size <= 64 else "..."
            sys.stdout.write(f"out{i}: {dtype} {tuple(o.shape)} {vals}\n")
    return 0


def _run_devices(args, inputs: list) -> list:
    """Split each input into per-device arrays (stacked or shared), run on N devices, stack each output."""
    import numpy as np

    from hilo_mlir import penguin_ref

    n = args.devices
    if n < 1:
        raise HiloError(f"--devices must be at least 1, got {n}")
    from hilo_mlir.penguin_ref.devices import mesh_for

    prog = penguin_ref.load(args.program)
    mesh_for(prog, n)  # a device count the program does not allow is the first error
    decls = sorted(prog.inputs, key=lambda s: s.input_index)
    if len(inputs) > len(decls):
        raise HiloError(f"penguin_ref: the program has {len(decls)} inputs, {len(inputs)} given")
    per_device: list = [[] for _ in range(n)]
    for i, a in enumerate(inputs):
        shape = getattr(decls[i].spec, "shape", None)
        if a is None or shape is None or tuple(a.shape) == tuple(shape):
            parts = [a] * n
        elif tuple(a.shape) == (n,) + tuple(shape):
            parts = [a[d] for d in range(n)]
        else:
            raise HiloError(
                f"input {i} ('{shown_path(args.inputs[i])}') has shape {tuple(a.shape)}; with --devices {n} it must be "
                f"{(n,) + tuple(shape)} (one array per device, stacked) or {tuple(shape)} (the same array for every device)"
            )
        for d in range(n):
            per_device[d].append(parts[d])
    res = penguin_ref.run(args.program, per_device, literal_fusions=args.literal_fusions, devices=n)
    return [np.stack([res[d][i] for d in range(n)]) for i in range(len(res[0]))] if res and res[0] else []


def main() -> None:
    """Console-script entry point."""
    from hilo_mlir.tools.common import run_main

    run_main(TOOL, run)


if __name__ == "__main__":
    main()
