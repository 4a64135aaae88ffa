"""Publishing a compiled program into its output folder: one whole program at every instant.

The guarantee (README "Reliability"): at every instant -- under concurrent
writers into one folder, a rename that fails midway, SIGKILL at any point --
``OUTDIR/penguin.py`` and every file it references belong to the same
successful compile. After a successful write no file of an earlier program
remains, and files the tool did not write are kept.

How:

* **Names that never change meaning.** Every extra file (the ``.npy`` large
  constants) is published under a name carrying its content's hash,
  ``const_0.npy`` -> ``const_0.<16 hex digits of its SHA-256>.npy``, and
  ``penguin.py`` refers to that name. A published name therefore always has
  the same bytes: replacing it, or two writers writing it, changes nothing
  a reader could see.
* **Staging, then one rename for the program.** All files are written into
  ``OUTDIR/.hilo-staging-<random>/`` (same file system), then the extra files
  are renamed into ``OUTDIR`` and ``penguin.py`` last, by one
  ``rename(2)`` that replaces the old one atomically. Until that rename the
  old ``penguin.py`` is in place and its files are untouched.
* **Collection under a lock.** Publishing and removing the previous
  program's files happen while holding ``flock`` on ``OUTDIR`` itself, so
  two writers never interleave: the last one to publish wins whole. The
  files removed are exactly those whose name has the content-hash form and
  whose bytes hash to it (so nothing the tool did not write), and that the
  new ``penguin.py`` does not reference.
* **Staging of a dead writer.** A writer holds ``flock`` on its staging
  folder for as long as it lives; the next writer into ``OUTDIR`` removes
  every staging folder whose lock it can take (its owner is gone, e.g.
  killed). Files renamed in by a writer that died before publishing its
  ``penguin.py`` are referenced by nothing and go at the next successful
  write.
"""

from __future__ import annotations

import errno
import fcntl
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hashlib import _Hash

STAGING_PREFIX = ".hilo-staging-"
_HASH_LEN = 16
#: a published extra file: ``<stem>.<16 hex>.<ext>``
_CONTENT_NAME = re.compile(r"^(?P<stem>[^./][^/]*?)\.(?P<hash>[0-9a-f]{16})(?P<ext>\.[A-Za-z0-9]+)$")


def _sha256(data: bytes = b"") -> _Hash:
    """``hashlib.sha256(data)``; hashlib is imported on first use (~10 ms of start-up a program with no extra file
    never needs)."""
    import hashlib

    return hashlib.sha256(data)


def content_name(name: str, data: bytes) -> str:
    """``const_0.npy`` -> ``const_0.<first 16 hex digits of sha256(data)>.npy``."""
    stem, ext = os.path.splitext(name)
    return f"{stem}.{_sha256(data).hexdigest()[:_HASH_LEN]}{ext}"


def _file_hash(path: str) -> str | None:
    h = _sha256()
    try:
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()[:_HASH_LEN]


def is_tool_file(folder: str, name: str) -> bool:
    """True if ``folder/name`` is an extra file a write published: content-hash name and matching bytes."""
    m = _CONTENT_NAME.match(name)
    if not m or not os.path.isfile(os.path.join(folder, name)) or os.path.islink(os.path.join(folder, name)):
        return False
    return _file_hash(os.path.join(folder, name)) == m.group("hash")


def _checked_files(files: dict[str, Any]) -> dict[str, bytes]:
    out = {}
    for name in sorted(files):
        if name == "penguin.py" or os.path.basename(name) != name or name.startswith(".") or not name:
            raise ValueError(f"invalid output file name '{name}'")
        data = files[name]
        out[name] = bytes(data)
    return out


def publishable(source: str, files: dict[str, Any]) -> tuple[bytes, dict[str, bytes]]:
    """The bytes of ``penguin.py`` and ``{published name: bytes}``: every file renamed by content, references rewritten.

    A reference is the file's name as a Python string literal (``'const_0.npy'``,
    as the printers write ``m1.NpyFile('const_0.npy')``).

    Raises:
        ValueError: a file name that is not a plain name (or is ``penguin.py``).
    """
    files = _checked_files(files)
    text = str(source)
    out = {}
    for name, data in files.items():
        new = content_name(name, data)
        text = text.replace(repr(name), repr(new))
        out[new] = data
    return text.encode("utf-8"), out


class _Lock:
    """``flock(LOCK_EX)`` on a folder, held in a ``with`` block (a no-op where the file system has no locks)."""

    def __init__(self, path: str, blocking: bool = True):
        self.fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        self.held = True
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | (0 if blocking else fcntl.LOCK_NB))
        except OSError as e:
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                self.held = False
            elif e.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.EINVAL):
                os.close(self.fd)
                raise

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)  # releases the lock
            self.fd = -1

    def __enter__(self) -> _Lock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def remove_dead_staging(outdir: str) -> int:
    """Remove every ``.hilo-staging-*`` folder of ``outdir`` whose owner is gone; returns how many."""
    removed = 0
    try:
        names = os.listdir(outdir)
    except OSError:
        return 0
    for name in names:
        if not name.startswith(STAGING_PREFIX):
            continue
        path = os.path.join(outdir, name)
        if os.path.islink(path) or not os.path.isdir(path):
            continue
        try:
            lock = _Lock(path, blocking=False)
        except OSError:
            continue
        try:
            if lock.held:
                shutil.rmtree(path, ignore_errors=True)
                removed += 1
        finally:
            lock.close()
    return removed


def _make_outdir(outdir: str) -> None:
    if os.path.exists(outdir) and not os.path.isdir(outdir):
        raise NotADirectoryError(errno.ENOTDIR, "it is a file, not a folder", outdir)
    dangling = dangling_link(outdir)
    if dangling is not None:
        raise NotADirectoryError(errno.ENOTDIR, dangling, outdir)
    os.makedirs(outdir, exist_ok=True)


def publish_error(outdir: str, exc: BaseException, program_name: str = "penguin.py") -> str:
    """The one-line reason :func:`write_program` failed, about the folder the user named (``outdir``).

    ``cannot write to output folder 'D': it is a file, not a folder`` (or another reason it is no folder),
    ``cannot create output folder 'D': REASON`` when it does not exist (REASON from
    :func:`hilo_mlir.support.io.folder_problem` when that finds one, else the OS error), else
    ``cannot write 'penguin.py' in output folder 'D': REASON``.
    """
    from hilo_mlir.support.diagnostics import shown_path
    from hilo_mlir.support.io import folder_problem

    reason = getattr(exc, "strerror", None) or str(exc)
    if isinstance(exc, NotADirectoryError) and getattr(exc, "filename", None) == outdir:
        return f"cannot write to output folder '{shown_path(outdir)}': {reason}"
    if isinstance(exc, OSError) and not os.path.isdir(outdir):
        problem = folder_problem(outdir, create=True)
        return f"cannot create output folder '{shown_path(outdir)}': {problem or reason[:1].lower() + reason[1:]}"
    return f"cannot write '{shown_path(program_name)}' in output folder '{shown_path(outdir)}': {reason[:1].lower() + reason[1:]}"


def dangling_link(path: str) -> str | None:
    """Why ``path`` (or a folder above it) cannot be created: a symbolic link to nothing; None if it is not one."""
    from hilo_mlir.support.diagnostics import shown_path

    p = os.path.abspath(path)
    while True:
        if os.path.islink(p) and not os.path.exists(p):
            what = "it is" if p == os.path.abspath(path) else f"'{shown_path(p)}' is"
            return f"{what} a symbolic link to '{shown_path(os.readlink(p))}', which does not exist"
        parent = os.path.dirname(p)
        if parent == p or os.path.exists(p):
            return None
        p = parent


def _publish(
    outdir: str,
    staging: str,
    program: bytes,
    files: dict[str, bytes],
    on_published: Callable[[], object] | None = None,
    program_name: str = "penguin.py",
) -> None:
    """Under the folder lock: rename the extra files in, then the program, then collect the earlier program's files
    (only for ``penguin.py``: a folder holding programs of other names may hold their files too)."""
    created = []
    try:
        for name in files:
            dst = os.path.join(outdir, name)
            existed = os.path.lexists(dst)
            os.replace(os.path.join(staging, name), dst)
            if not existed:
                created.append(dst)
        os.replace(os.path.join(staging, program_name), os.path.join(outdir, program_name))
    except BaseException:
        for dst in created:  # referenced by no penguin.py
            try:
                os.unlink(dst)
            except OSError:
                pass
        raise
    if on_published is not None:
        on_published()
    if program_name != "penguin.py":
        return
    for name in os.listdir(outdir):
        if name not in files and _CONTENT_NAME.match(name) and is_tool_file(outdir, name):
            try:
                os.unlink(os.path.join(outdir, name))
            except OSError:
                pass


def write_program(
    outdir: str,
    source: str,
    files: dict[str, Any] | None = None,
    on_published: Callable[[], object] | None = None,
    program_name: str = "penguin.py",
) -> str:
    """Publish ``penguin.py`` (and ``files``: ``{name: bytes}``, e.g. ``.npy`` constants) into ``outdir`` (see the module doc).

    ``files`` defaults to ``source.files`` (a :class:`~hilo_mlir.driver.compiler.PenguinSource`).
    ``on_published()`` is called once the new ``penguin.py`` is in place, before the
    earlier program's files are removed (a worker announces it: killed after it,
    OUTDIR already holds the new program). Returns the path of ``penguin.py``.
    ``program_name``: another name for the program (``hilo-opt -o d/prog.py``);
    the earlier files of the folder are then not collected (other programs may
    reference them).

    Raises:
        OSError: ``outdir`` cannot be created or written, or is a file
            (``NotADirectoryError``); ``outdir`` then keeps what it had and
            no staging files remain.
        ValueError: a file name in ``files`` that is not a plain name.
    """
    files = dict(files if files is not None else getattr(source, "files", {}) or {})
    program, published = publishable(source, files)
    return write_published(outdir, program, published, program_name, on_published)


def write_published(
    outdir: str,
    program: bytes,
    published: dict[str, bytes],
    program_name: str = "penguin.py",
    on_published: Callable[[], object] | None = None,
) -> str:
    """Publish a program whose files already carry their content names (what :func:`publishable` returned,
    e.g. shipped back by a Dask worker) into ``outdir``, as :func:`write_program` does.

    Raises:
        ValueError: a file whose name is not its content name (``<stem>.<16 hex of its SHA-256>.<ext>``).
        OSError: as :func:`write_program`.
    """
    published = {n: bytes(d) for n, d in published.items()}
    for name, data in published.items():
        m = _CONTENT_NAME.match(name)
        if os.path.basename(name) != name or not m or _sha256(data).hexdigest()[:_HASH_LEN] != m.group("hash"):
            raise ValueError(f"'{name}' is not named by its content")
    _make_outdir(outdir)
    with _Lock(outdir):  # no dead-owner sweep can see the new staging folder before it is locked
        remove_dead_staging(outdir)
        staging = tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=outdir)
        own = _Lock(staging)
    try:
        for name, data in list(published.items()) + [(program_name, program)]:
            with open(os.path.join(staging, name), "wb") as f:
                f.write(data)
        with _Lock(outdir):
            _publish(outdir, staging, program, published, on_published, program_name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        own.close()
    return os.path.join(outdir, program_name)
