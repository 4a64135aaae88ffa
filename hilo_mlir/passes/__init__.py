"""Pass families, one subpackage per family (the lit test families under ``test/lit``).

Every module below this package is imported when the registry is first used;
each registers its passes with :func:`hilo_mlir.registry.register` /
:func:`hilo_mlir.registry.register_twins` at import time. Modules are imported
in sorted order of their dotted names, so registration is deterministic.
The installed plugins' entry points (group ``hilo_mlir.passes``) are loaded
lazily by the registry: when a pass name is not built in, when every pass is
listed, or when a plugin is named.
"""

import importlib
import pkgutil

for _m in sorted(pkgutil.walk_packages(__path__, prefix=f"{__name__}."), key=lambda m: m.name):
    importlib.import_module(_m.name)
