"""Pass families, one module (or package) per family (DESIGN.md "Layout").

Every module in this package is imported when the registry is first used; each
registers its passes with :func:`hilo_mlir.registry.register` /
:func:`hilo_mlir.registry.register_twins` at import time.
"""

import importlib
import pkgutil

for _m in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
    importlib.import_module(f"{__name__}.{_m.name}")
