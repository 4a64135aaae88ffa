"""The numpy reference backend for Penguin Python programs.

Nothing outside this project can run the ``penguin.py`` the printers emit, so
this package executes it with numpy: it is how we (and users) check that the
program means what the MLIR meant.

    >>> from hilo_mlir import penguin_ref
    >>> outs = penguin_ref.run("out/penguin.py", [x, w])   # list[np.ndarray], main's result order

The program's imports of the Penguin API (any module root: the printer's
``root`` option) are served by fake modules that record each op statement;
the statements are then interpreted in order with numpy (see
:mod:`.program` for the mechanics and :mod:`.ops` for the semantics of each
op). ``.npy`` constants and parameter files are read from the program's
folder, or from the ``files`` dict (``PenguinSource.files``) when the program
is given as text. ``Expm1`` / ``Log1p`` fusions run as the precise primitive
their kind selects (:mod:`.kernels`) unless ``literal_fusions=True``.

Errors: :class:`PenguinRefError` (a :class:`hilo_mlir.HiloError`) naming the
op (``xla_op`` and Python op name) and its ``DebugLocation`` for a statement
that cannot be executed; wrong input count/shape; a program that is not
valid Python.
"""

from __future__ import annotations

import os

from hilo_mlir.penguin_ref.interpreter import run_program
from hilo_mlir.penguin_ref.program import Program
from hilo_mlir.penguin_ref.records import PenguinRefError

__all__ = ["PenguinRefError", "Program", "load", "run"]


def _looks_like_path(s: str) -> bool:
    return "\n" not in s and (s.endswith(".py") or os.path.exists(s))


def load(source_or_path, files: dict | None = None) -> Program:
    """Record a program without running it (statements, inputs, outputs, regions).

    Args:
        source_or_path: Penguin Python source text, a path to ``penguin.py``,
            or a directory containing ``penguin.py``.
        files: ``{name: bytes | np.ndarray}`` of ``.npy`` constants for a
            program given as text (default: the ``.files`` of a
            ``PenguinSource``, if it is one).

    Raises:
        PenguinRefError: unreadable file, invalid Python, a statement that
            fails while the program is recorded.
    """
    folder = None
    filename = "penguin.py"
    if isinstance(source_or_path, os.PathLike) or (isinstance(source_or_path, str) and _looks_like_path(source_or_path)):
        path = os.fspath(source_or_path)
        if os.path.isdir(path):
            path = os.path.join(path, "penguin.py")
        try:
            with open(path, encoding="utf-8") as f:
                source = f.read()
        except OSError as e:
            raise PenguinRefError(f"penguin_ref: cannot read {path}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise PenguinRefError(
                f"penguin_ref: {path} is not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start}): "
                "not a program hilo2penguin wrote"
            ) from None
        folder = os.path.dirname(os.path.abspath(path))
        filename = path
    elif isinstance(source_or_path, str):
        source = str(source_or_path)
        if files is None:
            files = getattr(source_or_path, "files", None)
    else:
        raise PenguinRefError(f"penguin_ref: expected source text or a path, got {type(source_or_path).__name__}")
    prog = Program(source, folder=folder, files=files, filename=filename)
    prog.execute_source()
    return prog


def run(source_or_path, inputs, files: dict | None = None, literal_fusions: bool = False, devices: int | None = None) -> list:
    """Run a Penguin program on ``inputs`` with numpy (on one device, or on ``devices`` devices in lock step).

    Args:
        source_or_path: program text (``str`` / ``PenguinSource``), a path to
            ``penguin.py`` or its directory.
        inputs: one array per ``markInput`` tensor, in ``input_<i>`` order
            (shapes must match the program's ``TensorSpec``; dtypes are
            converted to it). A parameter (``is_parameter_tensor=True``) given
            as ``None`` or left out at the end is read from its ``np_file``.
        files: in-memory ``.npy`` constants (see :func:`load`).
        literal_fusions: run ``Expm1`` / ``Log1p`` fusions op by op instead of
            as the precise primitive their kind selects (:mod:`.kernels`).
        devices: ``N`` to run the per-device program on ``N`` simulated
            devices (:mod:`.devices`: mesh, groups, rendezvous;
            :mod:`.ops.collectives`: the collectives' semantics). ``inputs``
            is then one input list per device (``inputs[d]``, as above), and
            the result one output list per device. ``None``: one device,
            ``inputs`` is the input list itself.

    Returns:
        ``list[np.ndarray]``: the outputs in ``markOutput`` index order
        (= ``main``'s results); bf16 results are ``ml_dtypes.bfloat16`` arrays.
        With ``devices=N``: ``list`` of ``N`` such lists, by device.

    Raises:
        PenguinRefError: see :func:`load`; plus wrong input count/shape and
            any statement the backend cannot execute (naming the op and its
            ``DebugLocation``); with ``devices``: a device count the program's
            ``num-replicas`` x ``num-partitions`` does not allow, collective
            groups that do not fit the devices, devices that deadlock (each a
            single error, prefixed with the device that failed first).
    """
    if devices is None:
        prog = load(source_or_path, files=files)
        return run_program(prog, inputs, literal_fusions=literal_fusions)
    return _run_devices(source_or_path, inputs, files, literal_fusions, devices)


def _run_devices(source_or_path, inputs, files, literal_fusions: bool, devices) -> list:
    from hilo_mlir.penguin_ref.devices import mesh_for, run_devices

    if isinstance(devices, bool) or not isinstance(devices, int):
        raise PenguinRefError(f"penguin_ref: devices must be an integer, got {devices!r}")
    first = load(source_or_path, files=files)
    mesh = mesh_for(first, devices)
    per_device = list(inputs) if not isinstance(inputs, (str, bytes)) else []
    if len(per_device) != devices:
        raise PenguinRefError(f"penguin_ref: {devices} devices need {devices} input lists (one per device), {len(per_device)} given")
    programs = [first] + [load(source_or_path, files=files) for _ in range(devices - 1)]  # one recorded program per thread

    def run_one(prog, ins, device, fabric):
        return run_program(prog, ins, literal_fusions=literal_fusions, fabric=fabric, device=device, deep=False)

    return run_devices(programs, per_device, mesh, run_one)
