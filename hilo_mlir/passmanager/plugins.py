"""Pass plugins: a user's own Python passes, loaded from a file, a module or an installed package.

A plugin is a Python file or an importable module that registers passes with
:func:`hilo_mlir.register` / :func:`hilo_mlir.register_twins` when it is
imported (``docs`` in the README, worked example in ``examples/plugins/``).
It is loaded

* by ``--load-pass-plugin=PATH_OR_MODULE`` (``hilo-opt``, ``hilo2penguin``) or
  :func:`load_plugin` (the API);
* automatically, for every installed package that declares an entry point in
  the group ``hilo_mlir.passes`` (:data:`ENTRY_POINT_GROUP`): the entry point
  names a module (imported) or a function (imported, then called with no
  argument). ``HILO_MLIR_NO_ENTRY_POINT_PLUGINS=1`` turns this off. They are
  discovered lazily: when a pass name is not built in, when every pass is
  listed (``--help``), or when a plugin is named.

Every pass a plugin registers carries its origin (``PassInfo.origin``: the
file, or ``<package> <version>``), shown by ``hilo-opt --help``. A plugin that
fails to import, registers an argument that exists, or declares a bad option
is one :class:`~hilo_mlir.support.diagnostics.HiloError` located at the plugin's
line (``plugin.py:12:1: error: cannot load pass plugin ...``).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import os
import sys
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

from hilo_mlir.support.diagnostics import HiloError

if TYPE_CHECKING:
    from hilo_mlir.passmanager import registry
    from hilo_mlir.passmanager.registry import PassInfo

#: the entry-point group installed packages declare their passes in
ENTRY_POINT_GROUP = "hilo_mlir.passes"

_loaded: dict[str, list[PassInfo]] = {}  # plugin key (real path or module name) -> the PassInfos it registered
_entry_points_loaded = False


class PluginError(HiloError):
    """A plugin that cannot be loaded; ``sources`` holds the plugin file's text, for the caret."""

    def __init__(self, message: str, loc: object = None, sources: dict[str, str] | None = None) -> None:
        super().__init__(message, loc=loc)
        self.sources = sources or {}


def _loc_in(exc: BaseException, files: set[str]) -> tuple[str, int, int] | None:
    """The innermost traceback frame of ``exc`` in one of ``files`` (file, line, column)."""
    if isinstance(exc, SyntaxError) and exc.filename and os.path.realpath(exc.filename) in files:
        return exc.filename, exc.lineno or 1, exc.offset or 1
    found = None
    for fs in traceback.extract_tb(exc.__traceback__):
        if os.path.realpath(fs.filename) in files:
            found = (fs.filename, fs.lineno or 1, (fs.colno or 0) + 1)
    return found


def _fail(what: str, exc: BaseException, files: set[str]) -> PluginError:
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


def _module_files(mod_name: str) -> set[str]:
    spec = importlib.util.find_spec(mod_name)
    files = set()
    if spec is not None and spec.origin and os.path.exists(spec.origin):
        files.add(os.path.realpath(spec.origin))
    if spec is not None and spec.submodule_search_locations:
        for d in spec.submodule_search_locations:
            for dirpath, _dirs, names in os.walk(d):
                files.update(os.path.realpath(os.path.join(dirpath, n)) for n in names if n.endswith(".py"))
    return files


def load_plugin(path_or_module: str) -> list[registry.PassInfo]:
    """Load one plugin: a ``.py`` file (or a package folder) by path, else a module by name.

    Loading the same plugin again does nothing. Returns the passes it registered.

    Raises:
        HiloError: the file or module does not exist, importing it fails, it
            registers an argument that exists or a bad pass (located at the
            plugin's line), or it registers no pass.
    """
    target = os.fspath(path_or_module)
    looks_like_path = target.endswith(".py") or os.sep in target or os.path.exists(target)
    key = os.path.realpath(target) if looks_like_path else target
    if key in _loaded:
        return _loaded[key]
    from hilo_mlir.passmanager import registry  # here: listing no plugin (``--help``) imports no binding

    registry.load()
    what = f"'{target}'"
    if looks_like_path:
        path = target
        if os.path.isdir(path):
            path = os.path.join(path, "__init__.py")
        if not os.path.isfile(path):
            raise PluginError(f"cannot load pass plugin {what}: no such file")
        files = (
            {os.path.realpath(path)}
            if not path.endswith("__init__.py")
            else {os.path.realpath(os.path.join(os.path.dirname(path), n)) for n in os.listdir(os.path.dirname(path)) if n.endswith(".py")}
        )
        stem = os.path.splitext(os.path.basename(os.path.dirname(path) if path.endswith("__init__.py") else path))[0]
        name = f"hilo_mlir_plugin_{stem}_{hashlib.sha1(key.encode()).hexdigest()[:8]}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise PluginError(f"cannot load pass plugin {what}: not a Python file")
        origin = target

        loader = spec.loader

        def do_import() -> None:
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                loader.exec_module(module)
            except BaseException:
                sys.modules.pop(name, None)
                raise
    else:
        if not _importable(target):
            raise PluginError(f"cannot load pass plugin {what}: no file or module named '{target}'")
        files = _module_files(target)
        origin = target

        def do_import() -> None:
            importlib.import_module(target)

    infos = _run_registering(origin, do_import, what, files)
    if not infos:
        raise PluginError(
            f"cannot load pass plugin {what}: it registered no pass (call hilo_mlir.register(PassInfo(...)) when it is imported)"
        )
    _loaded[key] = infos
    return infos


def _importable(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _run_registering(origin: str, action: Callable[[], object], what: str, files: set[str]) -> list[PassInfo]:
    """Run ``action`` with ``origin`` recorded on every pass it registers; errors become PluginError."""
    from hilo_mlir.passmanager import registry

    before = registry.arguments()
    try:
        with registry.registering_for(origin):
            action()
    except PluginError:
        raise
    except (Exception, SystemExit) as e:  # noqa: BLE001 - any failure of user code is one error
        for arg in registry.arguments() - before:  # nothing half-registered stays behind
            registry.unregister(arg)
        raise _fail(what, e, files) from None
    return [info for a in sorted(registry.arguments() - before) if (info := registry.lookup(a, load=False)) is not None]


def load_entry_points() -> list[PassInfo]:
    """Load every installed ``hilo_mlir.passes`` entry point (once per process); returns their passes."""
    global _entry_points_loaded
    if _entry_points_loaded or os.environ.get("HILO_MLIR_NO_ENTRY_POINT_PLUGINS") == "1":
        return []
    _entry_points_loaded = True
    from hilo_mlir.passmanager import entry_points

    if not entry_points.maybe_installed():  # no importlib.metadata scan (~0.2 s) when no package declares one
        return []
    from importlib import metadata

    out: list[PassInfo] = []
    for ep in sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: e.name):
        dist = getattr(ep, "dist", None)
        package = f"{dist.metadata['Name']} {dist.version}" if dist is not None else ep.value
        mod_name = ep.value.partition(":")[0].strip()
        try:
            files = _module_files(mod_name)
        except (ImportError, ValueError):
            files = set()

        def action(ep: metadata.EntryPoint = ep) -> None:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, type(sys)):
                obj()

        out += _run_registering(package, action, f"'{ep.name} = {ep.value}' (entry point of {package})", files)
    return out
