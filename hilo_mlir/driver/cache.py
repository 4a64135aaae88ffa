"""The persistent compile cache: a compiled program kept by what went in, reused instead of recompiled.

Layout (as Neuron's ``neuronxcc-<version>/MODULE_<hash>+<flags hash>/``)::

    ROOT/hilo_mlir-<version>/MODULE_<input hash>+<flags hash>/
        penguin.py          the program as the printer wrote it (references 'const_0.npy' ...)
        const_0.npy ...     the files it references (uncompressed names: publication names them by content)
        compile_flags.txt   the resolved pipeline and every other flag the key covers, one per line
        input.<ext>         the input's bytes as they were read
        manifest.json       {"files": {name: sha256}, "statistics": ..., "warnings": [...]}; written last

* **Key.** ``<input hash>`` is the SHA-256 of the input's bytes as read
  (text, bytecode, artifact, proto, HLO text: whatever the reader got);
  ``<flags hash>`` the SHA-256 of ``compile_flags.txt``: the resolved pipeline
  text (what ``hilo2penguin --dump-pass-pipeline`` prints for the config,
  spine edits and plugin passes included), every loaded plugin's identity
  (its path or module and the SHA-256 of its source, or its distribution's
  version), the hilo_mlir and jaxlib versions, and the options outside the
  pipeline (``--input-types``, the weights' hashes, unregistered dialects).
  Both hashes are shown as their first 16 hex digits in the folder name; the
  full digests are in the manifest and compared on read.
* **Publication.** An entry is written in a temporary folder beside its
  final place and renamed into place whole (``rename(2)``); ``manifest.json``
  is the last file written. A hit is published into OUTDIR by
  :func:`hilo_mlir.support.packaging.write_program`, the same atomic,
  content-named publication as a compile, so a hit and a compile give the
  same bytes.
* **Verification.** Every read checks each file's SHA-256 against the
  manifest (and the manifest's key against the key asked for): a corrupt,
  partial or foreign entry is removed and reported as a miss, never used.
* **One compile per key.** :meth:`CompileCache.lock` takes ``flock`` on
  ``MODULE_....lock``: the first process compiles, the others wait (bounded:
  ``lock_wait`` seconds, default 600, ``HILO_MLIR_CACHE_LOCK_WAIT``) and then
  find the entry; after the bound they compile themselves. The lock dies with
  its holder (a crashed compile frees it at once).
* **Shared tier.** ``shared`` (``HILO_MLIR_CACHE_URL``: a folder on a shared
  file system, or a ``file://`` URL) is looked up after a local miss; an
  entry found there is verified, copied into the local tier and used; a new
  entry is promoted there (copied into a temporary folder of the shared
  tier, then renamed into place: a reader never sees half an entry).
* **Checking mode.** ``HILO_MLIR_CHECK_CACHE=1``: on a hit, the caller
  compiles anyway and :func:`check_hit` compares the bytes; a difference is
  an error (:class:`CacheCheckError`) naming the entry and the file.

Nothing here imports the bindings.
"""

from __future__ import annotations

import dataclasses
import errno
import fcntl
import hashlib
import json
import os
import shutil
import tempfile
import time

from hilo_mlir.support.diagnostics import HiloError

MANIFEST = "manifest.json"
FLAGS = "compile_flags.txt"
PROGRAM = "penguin.py"
_TMP_PREFIX = ".tmp-"
_TRASH_PREFIX = ".trash-"
_FORMAT = 1


class CacheCheckError(HiloError):
    """``HILO_MLIR_CHECK_CACHE=1``: a cache entry differs from a fresh compile of the same key."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def package_version() -> str:
    """The installed hilo-mlir version (``unknown`` outside an install)."""
    import importlib.metadata as md

    try:
        return md.version("hilo-mlir")
    except md.PackageNotFoundError:
        return "unknown"


def _jaxlib_version() -> str:
    import importlib.metadata as md

    try:
        return md.version("jaxlib")
    except md.PackageNotFoundError:
        return "unknown"


def plugin_identities() -> list[str]:
    """One line per loaded pass plugin: its key and the SHA-256 of its source (or its distribution version)."""
    from hilo_mlir.passmanager import plugins

    out = []
    for key in sorted(getattr(plugins, "_loaded", {})):
        ident = None
        path = key if os.path.isfile(key) else None
        if path is None:
            import importlib.util

            try:
                spec = importlib.util.find_spec(key)
            except (ImportError, ValueError):
                spec = None
            if spec is not None and spec.origin and os.path.isfile(spec.origin):
                path = spec.origin
        if path is not None:
            try:
                with open(path, "rb") as f:
                    ident = "sha256:" + _sha256(f.read())
            except OSError:
                ident = None
        out.append(f"plugin {key} {ident or 'unknown'}")
    return out


@dataclasses.dataclass(frozen=True)
class CacheKey:
    """What a compile depends on: the input's bytes and the flags (``compile_flags.txt``).

    Attributes:
        input_hash: SHA-256 (hex, 64 digits) of the input's bytes.
        flags: the text of ``compile_flags.txt``.
        input_ext: the extension the input is kept under (``.mlir``, ``.pb`` ...).
    """

    input_hash: str
    flags: str
    input_ext: str = ".mlir"

    @property
    def flags_hash(self) -> str:
        return _sha256(self.flags.encode("utf-8"))

    @property
    def name(self) -> str:
        """``MODULE_<16 hex of the input hash>+<16 hex of the flags hash>``."""
        return f"MODULE_{self.input_hash[:16]}+{self.flags_hash[:16]}"


def make_key(data: bytes, pipeline: str, path: str = "", extra: dict | None = None) -> CacheKey:
    """The key of compiling ``data`` (the input's bytes as read) with ``pipeline`` (the resolved pipeline text).

    ``extra``: options outside the pipeline (``{"input-types": ..., ...}``;
    values are printed with ``repr``, so give strings, numbers or tuples).
    """
    lines = [
        f"format {_FORMAT}",
        f"hilo_mlir {package_version()}",
        f"jaxlib {_jaxlib_version()}",
        f"pipeline {pipeline}",
        *plugin_identities(),
    ]
    for k in sorted(extra or {}):
        lines.append(f"{k} {extra[k]!r}")  # type: ignore[index]
    ext = os.path.splitext(path)[1].lower()
    if not ext or len(ext) > 10 or not ext[1:].isalnum():
        ext = ".mlir"
    return CacheKey(_sha256(bytes(data)), "\n".join(lines) + "\n", ext)


@dataclasses.dataclass
class CacheEntry:
    """A verified entry: the program, its files and what the compile measured.

    Attributes:
        source: the text of ``penguin.py`` as the printer wrote it.
        files: ``{name: bytes}`` it references.
        statistics: ``{pass: {statistic: count}}`` of the compile that made it.
        warnings: the warnings that compile emitted (:class:`~hilo_mlir.support.diagnostics.Diagnostic` fields).
        path: the entry's folder.
        tier: ``"local"`` or ``"shared"`` (where it was found).
    """

    source: str
    files: dict[str, bytes]
    statistics: dict[str, dict[str, int]]
    warnings: list[dict[str, object]]
    path: str
    tier: str = "local"


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no", "off")


def check_mode() -> bool:
    """``HILO_MLIR_CHECK_CACHE=1``: every hit is compared with a fresh compile."""
    return _env_flag("HILO_MLIR_CHECK_CACHE")


def default_dir() -> str:
    """``$HILO_MLIR_CACHE_DIR``, else ``$XDG_CACHE_HOME/hilo_mlir``, else ``~/.cache/hilo_mlir``."""
    d = os.environ.get("HILO_MLIR_CACHE_DIR")
    if d:
        return d
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hilo_mlir")


def shared_from_env() -> str | None:
    """``$HILO_MLIR_CACHE_URL`` as a folder (``file://`` stripped); None when unset.

    Raises:
        HiloError: a URL of another scheme (only shared file systems are supported).
    """
    url = os.environ.get("HILO_MLIR_CACHE_URL", "").strip()
    if not url:
        return None
    if url.startswith("file://"):
        return url[len("file://") :]
    if "://" in url:
        raise HiloError(f"HILO_MLIR_CACHE_URL '{url}': only a folder on a shared file system (a path or file:// URL) is supported")
    return url


class _KeyLock:
    """``flock`` on one key's lock file; ``held`` says whether it was taken within the wait."""

    def __init__(self, path: str, wait: float):
        self.fd = -1
        self.held = False
        try:
            self.fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError:
            return  # an unwritable cache: compile without the lock
        deadline = time.monotonic() + max(0.0, wait)
        while True:
            try:
                fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.held = True
                return
            except OSError as e:
                if e.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                    return  # no locks on this file system: compile without
            if time.monotonic() >= deadline:
                return
            time.sleep(0.05)

    def release(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1
            self.held = False

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.release()


def _discard(path: str) -> None:
    """Remove an entry folder: renamed out of the way first, so no reader sees it half-removed."""
    parent = os.path.dirname(path)
    trash = os.path.join(parent, f"{_TRASH_PREFIX}{os.path.basename(path)}-{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.rename(path, trash)
    except OSError:
        trash = path
    shutil.rmtree(trash, ignore_errors=True)


def _read_entry(path: str, key: CacheKey, tier: str) -> CacheEntry | None:
    """The verified entry at ``path`` for ``key``; None if absent; a corrupt or partial one is discarded (None)."""
    if not os.path.isdir(path):
        return None
    try:
        with open(os.path.join(path, MANIFEST), "rb") as f:
            manifest = json.loads(f.read())
        if manifest.get("format") != _FORMAT or manifest.get("input_hash") != key.input_hash:
            raise ValueError("key")
        if manifest.get("flags_hash") != key.flags_hash:
            raise ValueError("flags")
        hashes = manifest["files"]
        data = {}
        for name, digest in hashes.items():
            if os.path.basename(name) != name or name.startswith("."):
                raise ValueError("name")
            with open(os.path.join(path, name), "rb") as f:
                blob = f.read()
            if _sha256(blob) != digest:
                raise ValueError(f"hash of {name}")
            data[name] = blob
        source = data.pop(PROGRAM).decode("utf-8")
        data.pop(FLAGS, None)
        files = {n: b for n, b in data.items() if n in manifest.get("program_files", [])}
        stats = manifest.get("statistics") or {}
        warnings = manifest.get("warnings") or []
    except (OSError, ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        _discard(path)
        return None
    return CacheEntry(source, files, stats, warnings, path, tier)


def _write_entry(folder: str, key: CacheKey, input_data: bytes, source: str, files: dict, statistics: dict, warnings: list) -> None:
    """Write one entry's files into ``folder`` (manifest last)."""
    blobs = {PROGRAM: str(source).encode("utf-8"), FLAGS: key.flags.encode("utf-8"), "input" + key.input_ext: bytes(input_data)}
    for name, data in files.items():
        if os.path.basename(name) != name or name.startswith(".") or name in blobs or name == MANIFEST:
            raise ValueError(f"invalid program file name '{name}'")
        blobs[name] = bytes(data)
    for name, data in blobs.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)
    manifest = {
        "format": _FORMAT,
        "input_hash": key.input_hash,
        "flags_hash": key.flags_hash,
        "files": {n: _sha256(b) for n, b in blobs.items()},
        "program_files": sorted(files),
        "statistics": statistics or {},
        "warnings": warnings or [],
        "created": time.time(),
    }
    with open(os.path.join(folder, MANIFEST), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)  # insertion order: statistics stay in pass order on a hit


def _install(tmp: str, final: str) -> bool:
    """Rename the complete ``tmp`` folder to ``final``; False (and ``tmp`` removed) if another writer got there first."""
    try:
        os.rename(tmp, final)
        return True
    except OSError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if e.errno in (errno.EEXIST, errno.ENOTEMPTY):
            return False
        raise


class CompileCache:
    """A local cache folder, optionally backed by a shared tier (see the module doc).

    Args:
        root: the local cache folder (created on first store).
        shared: the shared tier's folder, or None.
        lock_wait: seconds a process waits for another one compiling the same key.
    """

    def __init__(self, root: str, shared: str | None = None, lock_wait: float | None = None):
        self.root = os.path.abspath(root)
        self.shared = os.path.abspath(shared) if shared else None
        if lock_wait is None:
            try:
                lock_wait = float(os.environ.get("HILO_MLIR_CACHE_LOCK_WAIT", "600"))
            except ValueError:
                lock_wait = 600.0
        self.lock_wait = lock_wait

    @classmethod
    def from_env(cls, cache_dir: str | None = None) -> CompileCache:
        """``cache_dir`` (else :func:`default_dir`) backed by ``HILO_MLIR_CACHE_URL``."""
        return cls(cache_dir or default_dir(), shared_from_env())

    @staticmethod
    def version_dir(root: str) -> str:
        return os.path.join(root, f"hilo_mlir-{package_version()}")

    def entry_path(self, key: CacheKey, root: str | None = None) -> str:
        return os.path.join(self.version_dir(root or self.root), key.name)

    def lookup(self, key: CacheKey) -> CacheEntry | None:
        """The verified entry for ``key``: local first, then the shared tier (copied into the local one); else None."""
        entry = _read_entry(self.entry_path(key), key, "local")
        if entry is not None or self.shared is None:
            return entry
        entry = _read_entry(self.entry_path(key, self.shared), key, "shared")
        if entry is not None:
            try:
                self._copy_into(entry.path, self.root, key)
            except OSError:
                pass  # the local tier is unwritable: use the shared entry as it is
        return entry

    def lock(self, key: CacheKey) -> _KeyLock:
        """Hold while compiling ``key``: ``with cache.lock(key) as lk: ... lk.held``."""
        d = self.version_dir(self.root)
        try:
            os.makedirs(d, exist_ok=True)
        except OSError:
            pass
        return _KeyLock(os.path.join(d, key.name + ".lock"), self.lock_wait)

    def store(
        self, key: CacheKey, input_data: bytes, source: str, files: dict, statistics: dict | None = None, warnings: list | None = None
    ) -> str | None:
        """Add the entry (local tier, then promoted to the shared one); returns its local path, None if it could not be written.

        An entry already in place is kept (same key, same bytes).
        """
        final = self.entry_path(key)
        try:
            os.makedirs(os.path.dirname(final), exist_ok=True)
            tmp = tempfile.mkdtemp(prefix=_TMP_PREFIX + key.name + "-", dir=os.path.dirname(final))
            try:
                _write_entry(tmp, key, input_data, source, files, statistics or {}, warnings or [])
            except BaseException:
                shutil.rmtree(tmp, ignore_errors=True)
                raise
            if os.path.isdir(final) and _read_entry(final, key, "local") is not None:
                shutil.rmtree(tmp, ignore_errors=True)
            else:
                _install(tmp, final)
        except OSError:
            return None
        if self.shared is not None:
            try:
                self._copy_into(final, self.shared, key)
            except OSError:
                pass  # the shared tier is best effort: the local entry stands
        return final

    def _copy_into(self, src: str, root: str, key: CacheKey) -> None:
        """Copy the entry folder ``src`` into ``root``'s tier: a temporary folder there, then one rename."""
        final = self.entry_path(key, root)
        if os.path.isdir(final) and _read_entry(final, key, "copy") is not None:
            return
        os.makedirs(os.path.dirname(final), exist_ok=True)
        tmp = tempfile.mkdtemp(prefix=_TMP_PREFIX + key.name + "-", dir=os.path.dirname(final))
        try:
            names = sorted(os.listdir(src))
            for name in [n for n in names if n != MANIFEST] + [MANIFEST]:  # the manifest last
                shutil.copyfile(os.path.join(src, name), os.path.join(tmp, name))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        _install(tmp, final)


def check_hit(entry: CacheEntry, source: str, files: dict) -> None:
    """``HILO_MLIR_CHECK_CACHE=1``: the entry must equal a fresh compile, byte for byte.

    Raises:
        CacheCheckError: naming the entry and the first file that differs.
    """
    fresh = {PROGRAM: str(source).encode("utf-8"), **{n: bytes(b) for n, b in files.items()}}
    kept = {PROGRAM: entry.source.encode("utf-8"), **{n: bytes(b) for n, b in entry.files.items()}}
    for name in sorted(set(fresh) | set(kept)):
        if fresh.get(name) != kept.get(name):
            what = "missing from the entry" if name not in kept else "not made by the compile" if name not in fresh else "differs"
            raise CacheCheckError(
                f"compile cache check failed: '{name}' of cache entry '{entry.path}' {what} (a fresh compile of the same key)"
            )


# -- hilo-cache: listing and pruning ------------------------------------------------------------


@dataclasses.dataclass
class EntryInfo:
    """One entry folder as ``hilo-cache ls`` shows it."""

    path: str
    version: str
    name: str
    size: int
    mtime: float
    complete: bool


def _folder_size(path: str) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for n in files:
            try:
                total += os.lstat(os.path.join(dirpath, n)).st_size
            except OSError:
                pass
    return total


def entries(root: str) -> list[EntryInfo]:
    """Every entry folder under ``root`` (all versions), oldest use first."""
    out = []
    try:
        versions = sorted(v for v in os.listdir(root) if v.startswith("hilo_mlir-"))
    except OSError:
        return []
    for v in versions:
        vdir = os.path.join(root, v)
        if not os.path.isdir(vdir):
            continue
        for name in sorted(os.listdir(vdir)):
            path = os.path.join(vdir, name)
            if not name.startswith("MODULE_") or not os.path.isdir(path):
                continue
            manifest = os.path.join(path, MANIFEST)
            complete = os.path.isfile(manifest)
            try:
                mtime = os.stat(manifest if complete else path).st_mtime
            except OSError:
                continue
            out.append(EntryInfo(path, v[len("hilo_mlir-") :], name, _folder_size(path), mtime, complete))
    out.sort(key=lambda e: (e.mtime, e.path))
    return out


def touch(entry: CacheEntry) -> None:
    """Record a use (the manifest's mtime orders ``prune``)."""
    try:
        os.utime(os.path.join(entry.path, MANIFEST))
    except OSError:
        pass


def prune(root: str, max_size: int) -> list[EntryInfo]:
    """Remove the least recently used entries until the cache holds at most ``max_size`` bytes; returns the removed ones."""
    all_entries = entries(root)
    total = sum(e.size for e in all_entries)
    removed = []
    for e in all_entries:
        if total <= max_size:
            break
        _discard(e.path)
        total -= e.size
        removed.append(e)
    return removed


def clear(root: str) -> int:
    """Remove every entry (and leftover temporary folders and locks); returns how many entries."""
    n = len(entries(root))
    try:
        versions = [v for v in os.listdir(root) if v.startswith("hilo_mlir-")]
    except OSError:
        return 0
    for v in versions:
        _discard(os.path.join(root, v))
    return n
