"""Pass families, one subpackage per family (the lit test families under ``test/lit``), and the
registry's loading front end.

The registry (:mod:`hilo_mlir.passmanager.registry`) is the store, below this
layer: each family registers its passes into it at import time
(:func:`hilo_mlir.registry.register` / :func:`hilo_mlir.registry.register_twins`),
and it imports no pass. Importing this package installs :func:`load_builtins`
as the registry's built-in loader (:func:`~hilo_mlir.passmanager.registry.install_builtins`),
as ``mlir-opt`` calls ``registerAllPasses()``: from then on the registry's
lookups import every built-in family on first use. The tools and the driver
ask for passes through the names re-exported here (:func:`get`, :func:`lookup`,
:func:`all_passes`, :func:`load`, ...: the registry's own functions, which then
see the built-in passes), and load plugins through :func:`load_plugin`.

Importing this package imports no family (no binding): :func:`load_builtins`
does, in sorted order of the modules' dotted names, so registration is
deterministic. The installed plugins' entry points (group ``hilo_mlir.passes``)
are loaded lazily by the registry: when a pass name is not built in, when every
pass is listed, or when a plugin is named. ``python3 -m hilo_mlir.passes``
rewrites ``manifest.json`` (the ``--help`` facts of the built-in passes).
"""

import importlib
import pkgutil

from hilo_mlir.passmanager import registry as _registry
from hilo_mlir.passmanager.plugins import load_entry_points as load_entry_points
from hilo_mlir.passmanager.plugins import load_plugin as load_plugin
from hilo_mlir.passmanager.registry import aliases as aliases
from hilo_mlir.passmanager.registry import all_passes as all_passes
from hilo_mlir.passmanager.registry import describe as describe
from hilo_mlir.passmanager.registry import descriptions as descriptions
from hilo_mlir.passmanager.registry import get as get
from hilo_mlir.passmanager.registry import load as load
from hilo_mlir.passmanager.registry import lookup as lookup
from hilo_mlir.passmanager.registry import plugin_passes as plugin_passes
from hilo_mlir.passmanager.registry import twin_of as twin_of
from hilo_mlir.passmanager.registry import write_manifest as write_manifest


def load_builtins() -> None:
    """Import every module of every family (each registers its passes); the registry calls it once, on first use."""
    for m in sorted(pkgutil.walk_packages(__path__, prefix=f"{__name__}."), key=lambda m: m.name):
        if m.name != f"{__name__}.__main__":
            importlib.import_module(m.name)


_registry.install_builtins(load_builtins)
