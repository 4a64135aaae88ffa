"""``hilo-penguin-run``: execute a ``penguin.py`` with the numpy reference backend.

    hilo-penguin-run out/penguin.py --inputs x.npy w.npy --out results/ [--print] [--literal-fusions]
    -> results/out0.npy, results/out1.npy, ... (main's result order)
    hilo-penguin-run out/penguin.py --inputs x.npy w.npy --print
    -> out0: float32 (4,) [...] on stdout, no files

``--out DIR`` writes the outputs, ``--print`` shows them; one of the two is
needed. ``--inputs`` takes every argument up to the next flag: a program
after it (``--inputs x.npy out/penguin.py``: a ``.py`` file or a folder,
never an array) is still the program.

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

Exit codes: 0 success, 1 any error: a bad command line, a program or input
error (one ``hilo-penguin-run: error: ...`` line on stderr, no traceback).
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
        usage=f"{TOOL} PROGRAM [--inputs NPY ...] (--out DIR | --print | both) [--devices N] [--literal-fusions]",
        description="Run a Penguin Python program (penguin.py) with the numpy reference backend.",
    )
    ap.add_argument(
        "program",
        nargs="?",
        metavar="PROGRAM",
        help="penguin.py (or the directory that holds it); .npy constants are read beside it. It may also follow "
        "--inputs (a .py file or a folder is never an input)",
    )
    ap.add_argument(
        "--inputs",
        nargs="*",
        default=[],
        metavar="NPY",
        help="one .npy per program input, in input_<i> order; '-' (or leaving out trailing ones) "
        "reads a parameter from its np_file beside the program",
    )
    ap.add_argument("--out", default=None, metavar="DIR", help="directory for out0.npy, out1.npy, ... (created if missing)")
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
        help="print each output: 'out<i>: <dtype> <shape> <values>' (values for up to 64 elements); without --out, nothing is written",
    )
    ap.add_argument("--version", action="store_true", help="print the versions of hilo_mlir, jaxlib and StableHLO and exit")
    return ap


def _is_input(text: str) -> bool:
    """Whether an ``--inputs`` value can be an input: ``-`` or an array file, not a program (``.py``, a folder)."""
    return text == "-" or not (text.endswith(".py") or os.path.isdir(text))


def parse_args(argv: list[str]) -> argparse.Namespace:
    """The command line, checked: a program, and ``--out`` or ``--print`` (``--version`` needs neither).

    Raises:
        UsageError: an unknown flag, a missing program, neither ``--out`` nor ``--print``.
    """
    from hilo_mlir.tools.flags import UsageError, reclaim_positional

    args = _parser().parse_args(argv)
    if args.version:
        return args
    if args.program is None:
        args.program = reclaim_positional(args.inputs, _is_input)  # `--inputs x.npy prog.py`: still the program
    if args.program is None:
        raise UsageError("no program given (penguin.py, or the folder that holds it)")
    if args.out is None and not args.show:
        raise UsageError("nothing to do: give --out DIR (writes out0.npy, ...), --print, or both")
    return args


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
        args = parse_args(sys.argv[1:] if argv is None else argv)
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e} (see '{TOOL} --help')\n")
        return 1
    if args.version:
        from hilo_mlir.tools.flags import version_text

        sys.stdout.write(version_text(TOOL))
        return 0
    import numpy as np

    from hilo_mlir import penguin_ref
    from hilo_mlir.support.arrays import read_npy
    from hilo_mlir.support.io import input_file_error, path_problem

    # before running: a long run must not end in these
    if args.out is not None:
        _check_out(args.out)
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
    _write_outputs(args.out, args.show, outs)
    return 0


def _check_out(out: str) -> None:
    """Before running (a long run must not end in this): ``out`` is a folder, or can be made one.

    Raises:
        HiloError: ``out`` is a file, or a folder that cannot be made or written.
    """
    from hilo_mlir.support.io import folder_problem

    if os.path.exists(out) and not os.path.isdir(out):
        raise HiloError(f"cannot write the outputs to '{shown_path(out)}': it is a file, not a folder")
    problem = folder_problem(out, create=True)
    if problem is not None:
        raise HiloError(f"cannot write the outputs to '{shown_path(out)}': {problem}")


def _write_outputs(out: str | None, show: bool, outs: list) -> None:
    """``out/out<i>.npy`` for each output (when ``out`` is given), ``out<i>: dtype shape values`` lines when ``show``.

    bf16/f8/int4 outputs are widened to float32 (exact; .npy cannot name ml_dtypes types). The files
    are written all or none: each to a temporary file in ``out`` first, then renamed into place.

    Raises:
        HiloError: the folder cannot be made, or an output file cannot be written (nothing is left behind).
    """
    import errno
    import tempfile

    import numpy as np

    arrays = []
    for o in outs:
        if o.dtype.kind == "V" or o.dtype.name.startswith(("bfloat16", "float8", "int4", "uint4")):
            # .npy cannot name ml_dtypes types (they load back as raw |V2); widening to f32 is exact
            arrays.append((o.dtype.name, o.astype(np.float32)))
        else:
            arrays.append((o.dtype.name, o))
    if out is not None:
        try:
            os.makedirs(out, exist_ok=True)
        except OSError as e:
            raise HiloError(f"cannot write the outputs to '{shown_path(out)}': {e.strerror or e}") from None
        staged: list[tuple[str, str]] = []
        target = ""
        try:
            for i, (_, o) in enumerate(arrays):
                target = os.path.join(out, f"out{i}.npy")
                if os.path.isdir(target):  # the rename below would fail after earlier ones succeeded
                    raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
                fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".npy", dir=out)
                staged.append((tmp, target))
                with os.fdopen(fd, "wb") as f:
                    np.save(f, o, allow_pickle=False)
            for tmp, target in staged:
                os.replace(tmp, target)
        except OSError as e:
            for tmp, _ in staged:
                if os.path.exists(tmp):
                    os.unlink(tmp)
            raise HiloError(f"cannot write output file '{shown_path(target)}': {e.strerror or e}") from None
    if show:
        for i, (dtype, o) in enumerate(arrays):
            vals = repr(o.tolist()) if o.size <= 64 else "..."
            sys.stdout.write(f"out{i}: {dtype} {tuple(o.shape)} {vals}\n")


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
