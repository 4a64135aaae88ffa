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

import importlib
import importlib.util
import os
import sys
from typing import TYPE_CHECKING

from hilo_mlir.passmanager import entry_points
from hilo_mlir.passmanager.entry_points import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP  # the registry loads those
from hilo_mlir.passmanager.plugin_errors import PluginError as PluginError
from hilo_mlir.passmanager.plugin_errors import module_files, remember_spelling

if TYPE_CHECKING:
    from hilo_mlir.passmanager import registry
    from hilo_mlir.passmanager.registry import PassInfo

_loaded: dict[str, list[PassInfo]] = {}  # plugin key (real path or module name) -> the PassInfos it registered


def load_entry_points() -> list[PassInfo]:
    """Load every installed ``hilo_mlir.passes`` entry point (once per process); returns their passes.

    :func:`hilo_mlir.passmanager.registry.load_entry_points`, here too, where it was first. As
    there, no ``importlib.metadata`` scan when no package declares one; and then not the registry either.
    """
    if os.environ.get("HILO_MLIR_NO_ENTRY_POINT_PLUGINS") == "1" or not entry_points.maybe_installed():
        return []
    from hilo_mlir.passmanager import registry

    return registry.load_entry_points()


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
        for real in files:  # errors name the plugin's files as the user spelt the plugin
            remember_spelling(real, path if real == os.path.realpath(path) else os.path.join(os.path.dirname(path), os.path.basename(real)))
        stem = os.path.splitext(os.path.basename(os.path.dirname(path) if path.endswith("__init__.py") else path))[0]
        import hashlib  # here: ~10 ms of start-up, and only a plugin file needs it

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
        files = module_files(target)
        origin = target

        def do_import() -> None:
            importlib.import_module(target)

    infos = registry.run_registering(origin, do_import, what, files)
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
