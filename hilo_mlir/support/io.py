"""Reading inputs and writing outputs without ever leaving a half-written file."""

from __future__ import annotations

import os
import tempfile

from hilo_mlir.support.diagnostics import HiloError


def read_input(path: str, allow_empty: bool = False) -> bytes:
    """Read ``path`` (or stdin for ``-``) as bytes; HiloError if missing, a folder, or (unless ``allow_empty``) empty.

    ``allow_empty``: an empty (or blank) file or stdin is returned as it is
    (``hilo-opt``: as mlir-opt, both are the empty module).
    """
    import sys

    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        if not os.path.exists(path):
            raise HiloError(f"cannot open input file '{path}': no such file")
        if os.path.isdir(path):
            raise HiloError(f"cannot open input file '{path}': is a directory")
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            raise HiloError(f"cannot open input file '{path}': {e.strerror}") from None
    if not data.strip() and not allow_empty:
        raise HiloError(f"input file '{path}' is empty", filename=None if path == "-" else path)
    return data


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
    are written directly. Errors (missing folder, a folder in the way, no
    permission) raise :class:`HiloError` naming the path.
    """
    try:
        if os.path.exists(path) and not os.path.isfile(path):
            if os.path.isdir(path):
                raise HiloError(f"cannot write output file '{path}': is a directory")
            with open(path, "wb") as f:
                f.write(data)
            return
        d = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(d):
            raise HiloError(f"cannot write output file '{path}': no such directory '{os.path.dirname(path) or d}'")
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    except OSError as e:
        raise HiloError(f"cannot write output file '{path}': {e.strerror}") from None
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
        raise HiloError(f"cannot write output file '{path}': {e.strerror}") from None
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
