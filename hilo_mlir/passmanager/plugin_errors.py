"""Why a pass plugin cannot be loaded: :class:`PluginError`, located at the plugin's own line.

Below the registry (which loads the entry-point plugins, :func:`hilo_mlir.passmanager.registry.load_entry_points`)
and :mod:`.plugins` (which loads the named ones): both turn a failing plugin into one of these.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import traceback

from hilo_mlir.support.diagnostics import HiloError


class PluginError(HiloError):
    """A plugin that cannot be loaded; ``sources`` holds the plugin file's text, for the caret."""

    def __init__(self, message: str, loc: object = None, sources: dict[str, str] | None = None) -> None:
        super().__init__(message, loc=loc)
        self.sources = sources or {}


#: a plugin file's real path -> the path as the user spelt it (``--load-pass-plugin=plug.py``)
_SPELT: dict[str, str] = {}


def remember_spelling(real: str, spelt: str) -> None:
    """Show the plugin file ``real`` (a real path) as ``spelt`` in errors (:func:`shown_file`)."""
    _SPELT[real] = spelt


def shown_file(filename: str) -> str:
    """``filename`` (a traceback's, absolute) as errors show it: a plugin file as the user named it
    (``plug.py``, ``plugins/p.py``), any other file as it is."""
    return _SPELT.get(os.path.realpath(filename), filename) if _SPELT else filename


def _loc_in(exc: BaseException, files: set[str]) -> tuple[str, int, int] | None:
    """The innermost traceback frame of ``exc`` in one of ``files`` (file as :func:`shown_file` shows it, line, column)."""
    if isinstance(exc, SyntaxError) and exc.filename and os.path.realpath(exc.filename) in files:
        return shown_file(exc.filename), exc.lineno or 1, exc.offset or 1
    found = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fs.filename) in files:
            found = (shown_file(fs.filename), fs.lineno or 1, (fs.colno or 0) + 1)
    return found


def fail(what: str, exc: BaseException, files: set[str]) -> PluginError:
    if isinstance(exc, HiloError):
        message, loc = exc.message, exc.loc
    else:
        detail = exc.msg if isinstance(exc, SyntaxError) else str(exc)
        message, loc = f"{type(exc).__name__}: {detail}", None
        where = _loc_in(exc, files)
        if where is not None:
            loc = f'loc("{where[0]}":{where[1]}:{where[2]})'
    sources = {}
    for f in files:
        with contextlib.suppress(OSError, UnicodeDecodeError):
            with open(f, encoding="utf-8") as fh:
                sources[f] = fh.read()
    if loc is not None and '"' in str(loc):  # the file as the location names it (maybe not its real path)
        alias = str(loc).split('"')[1]
        if os.path.realpath(alias) in sources:
            sources[alias] = sources[os.path.realpath(alias)]
    return PluginError(f"cannot load pass plugin {what}: {message}", loc=loc, sources=sources)


def module_files(mod_name: str) -> set[str]:
    spec = importlib.util.find_spec(mod_name)
    files = set()
    if spec is not None and spec.origin and os.path.exists(spec.origin):
        files.add(os.path.realpath(spec.origin))
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            for dirpath, _dirs, names in os.walk(d):
                files.update(os.path.realpath(os.path.join(dirpath, n)) for n in names if n.endswith(".py"))
    return files
