"""Reading arrays a user hands us (``.npy`` / ``.npz``): untrusted files, one clear error each.

Every tool that reads arrays (``--weights``, ``hilo-penguin-run``'s inputs,
``hilo-check --inputs``) goes through :func:`read_npy` / :func:`read_npz`, so a
wrong file is one message naming the file and what is wrong with it — an empty
file, a file that is not in numpy's format at all, a truncated one, or one that
holds pickled Python objects (never loaded: ``allow_pickle`` stays off) — and
never numpy's own advice to load it unsafely.
"""

from __future__ import annotations

import zipfile

import numpy as np

from hilo_mlir.support.diagnostics import HiloError

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")


def _head(path: str, what: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(8)
    except OSError as e:
        raise HiloError(f"cannot read {what} '{path}': {e.strerror or e}") from None


def _npy_problem(e: BaseException) -> str:
    text = str(e)
    if "pickle" in text:
        return "it holds pickled Python objects (an object array), which are never loaded; save a plain numeric array"
    if isinstance(e, EOFError) or "Failed to read all data" in text or "cannot reshape" in text:
        return "the file is truncated (fewer bytes than its header declares)"
    return text


def read_npy(path: str, what: str) -> np.ndarray:
    """The array of the ``.npy`` file ``path`` (any shape and numeric/bool dtype numpy stores).

    Args:
        path: the file.
        what: how the message names the file, e.g. ``"input"`` or ``"the weight of input 3"``.

    Raises:
        HiloError: the file is missing, empty, not a ``.npy`` array, truncated, or holds
            pickled objects; the message names ``what`` and ``path``.
    """
    head = _head(path, what)
    if not head:
        raise HiloError(f"cannot read {what} '{path}': the file is empty (not a .npy array)")
    if not head.startswith(_NPY_MAGIC):
        raise HiloError(f"cannot read {what} '{path}': not a .npy array (the file does not start with numpy's format marker)")
    try:
        array: np.ndarray = np.load(path, allow_pickle=False)
        return array
    except (OSError, ValueError, EOFError) as e:
        raise HiloError(f"cannot read {what} '{path}': {_npy_problem(e)}") from None


def read_npz(path: str, what: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` archive ``path``, by entry name (``np.savez`` names positional arrays ``arr_<i>``).

    Raises:
        HiloError: the file is missing, empty, not a zip archive, truncated or corrupt, or an
            entry is not a plain array; the message names ``what`` and ``path``.
    """
    head = _head(path, what)
    if not head:
        raise HiloError(f"cannot read {what} '{path}': the file is empty (not a .npz archive)")
    if not head.startswith(_ZIP_MAGICS):
        raise HiloError(f"cannot read {what} '{path}': not a .npz archive (the file is not a zip archive)")
    try:
        with np.load(path, allow_pickle=False) as z:
            return {k: z[k] for k in z.files}
    except zipfile.BadZipFile:
        raise HiloError(f"cannot read {what} '{path}': the archive is truncated or corrupt") from None
    except (OSError, ValueError, EOFError, KeyError) as e:
        raise HiloError(f"cannot read {what} '{path}': {_npy_problem(e)}") from None
