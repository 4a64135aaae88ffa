"""Reading inputs and writing outputs without ever leaving a half-written file."""

from __future__ import annotations

import os
import tempfile

from hilo_mlir.support.diagnostics import HiloError, shown_path


def _parents(path: str) -> list[str]:
    """``path`` and the folders above it, as the user spelt them (``a/b/c`` -> ``a/b/c``, ``a/b``, ``a``), nearest first.

    The path is cut textually but never normalised: ``lnk/..`` stays as it is,
    so that checking it asks the OS, which resolves ``..`` after a symbolic
    link the way an open or a mkdir does (``lnk/..`` is the folder above the
    link's target, not the current folder).
    """
    out = []
    p = path.rstrip(os.sep) or (os.sep if path.startswith(os.sep) else path)
    while p and p not in out:
        out.append(p)
        up = os.path.dirname(p)
        up = up.rstrip(os.sep) or (os.sep if up.startswith(os.sep) else up)
        if up == p:
            break
        p = up
    return out


def _not_a_directory(p: str) -> str:
    """Why the existing ``p`` (which is no directory) cannot hold a file: a file, or a symbolic link to nothing."""
    if os.path.islink(p) and not os.path.exists(p):
        try:
            target = os.readlink(p)
        except OSError:
            target = ""
        if target:
            return f"'{shown_path(p)}' is a symbolic link to '{shown_path(target)}', which does not exist"
        return f"'{shown_path(p)}' is a symbolic link to a path that does not exist"
    return f"'{shown_path(p)}' is not a directory"


def _access(path: str, mode: int) -> bool:
    """``os.access`` with the effective ids (what an open or a mkdir is checked against) where the OS can."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def _read_only(path: str) -> bool:
    try:
        return hasattr(os, "statvfs") and bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def folder_problem(folder: str, create: bool = False) -> str | None:
    """Why no file can be created in ``folder`` (``""``: the current folder), or None if one can.

    ``create``: the folder (and those above it) will be made if missing
    (``os.makedirs``): then only the nearest folder that exists must be a
    writable directory.

    One of: ``no such directory 'FOLDER'`` (a folder on the way is missing),
    ``'P' is not a directory`` (``P``, ``folder`` or a folder above it, is a
    file), ``permission denied on 'P'`` (no write or search permission on
    ``P``, the folder or, with ``create``, the nearest one that exists),
    ``'P' is on a read-only file system``. Paths are shown as the user spelt
    them.
    """
    folder = folder or "."
    for p in _parents(folder):
        if not os.path.lexists(p):
            continue
        if not os.path.isdir(p):
            return _not_a_directory(p)
        if p != _parents(folder)[0] and not create:
            return f"no such directory '{shown_path(folder)}'"
        if _read_only(p):
            return f"'{shown_path(p)}' is on a read-only file system"
        if not _access(p, os.W_OK | os.X_OK):
            return f"permission denied on '{shown_path(p)}'"
        return None
    # a relative path whose first folder is missing: made in the current folder
    return folder_problem("", create) if create else f"no such directory '{shown_path(folder)}'"


def path_problem(path: str) -> str | None:
    """Why the file ``path`` cannot be opened for reading: ``no such file``, ``'P' is not a directory`` (a folder on
    the way is a file), ``is a directory`` or ``permission denied``; None if it can be."""
    if os.path.isdir(path):
        return "is a directory"
    if not os.path.exists(path):
        parent = os.path.dirname(path.rstrip(os.sep))
        for p in _parents(parent) if parent else ():
            if os.path.lexists(p):
                return _not_a_directory(p) if not os.path.isdir(p) else "no such file"
        return "no such file"
    if not _access(path, os.R_OK):
        return "permission denied"
    return None


#: what the tools call standard input (``-`` on the command line) in diagnostics, as mlir-opt does
STDIN_NAME = "<stdin>"


def input_name(path: str) -> str:
    """The input's name in diagnostics: :data:`STDIN_NAME` for ``-`` (stdin), else ``path``."""
    return STDIN_NAME if path == "-" else path


def input_file_error(path: str, reason: str) -> HiloError:
    """The one error every tool gives for an input file it cannot open: ``cannot open input file 'PATH': REASON``."""
    return HiloError(f"cannot open input file '{shown_path(path)}': {reason}")


def check_input_file(path: str) -> None:
    """Raise the tools' one error for an input file that cannot be opened (see :func:`path_problem`); ``-`` is stdin.

    Raises:
        HiloError: ``cannot open input file 'PATH': REASON`` (no location: the command line named it).
    """
    if path == "-":
        return
    reason = path_problem(path)
    if reason is not None:
        raise input_file_error(path, reason)


def read_input(path: str, allow_empty: bool = False) -> bytes:
    """Read ``path`` (or stdin for ``-``) as bytes; HiloError if it cannot be opened (:func:`check_input_file`) or (unless
    ``allow_empty``) is empty.

    ``allow_empty``: an empty (or blank) file or stdin is returned as it is
    (``hilo-opt``: as mlir-opt, both are the empty module).
    """
    import sys

    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        check_input_file(path)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise input_file_error(path, (e.strerror or str(e)).lower()) from None
    if not data.strip() and not allow_empty:
        raise empty_input_error(path)
    return data


def empty_input_error(path: str) -> HiloError:
    """The one error for an empty (or blank) input: ``NAME: error: input file 'NAME' is empty`` (``<stdin>`` for ``-``)."""
    name = input_name(path)
    return HiloError(f"input file '{shown_path(name)}' is empty", filename=name)


def decode_text(data: bytes, path: str) -> str:
    """UTF-8 decode; HiloError located at the first bad byte (``file:line:col``) otherwise."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise HiloError(
            f"input is not valid UTF-8: byte 0x{data[e.start]:02x} at offset {e.start}",
            loc=f'loc("{path}":{line}:{col})',
            filename=path,
        ) from None


def atomic_write_text(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, then rename."""
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_bytes(path: str, data: bytes) -> None:
    """Write through a temporary file in the same folder and rename; nothing half-written remains.

    The file gets the usual ``0666 & ~umask`` mode. Device files (``/dev/null``)
    are written directly. Errors (missing folder, a file in the way, no
    permission: :func:`folder_problem`) raise :class:`HiloError` naming the path.
    A symbolic link is written through (its target is replaced, the link stays), as mlir-opt does.
    """
    shown = path
    if os.path.islink(path):
        path = os.path.realpath(path)
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            if os.path.isdir(path):
                raise HiloError(f"cannot write output file '{shown_path(shown)}': is a directory")
            with open(path, "wb") as f:
                f.write(data)
            return
        d = os.path.dirname(os.path.abspath(path))
        problem = folder_problem(os.path.dirname(path))
        if problem is not None:
            raise HiloError(f"cannot write output file '{shown_path(shown)}': {problem}")
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    except OSError as e:
        raise HiloError(f"cannot write output file '{shown_path(shown)}': {e.strerror}") from None
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise HiloError(f"cannot write output file '{shown_path(shown)}': {e.strerror}") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
