"""The public pass-registry API (``hilo_mlir.registry``), for pass plugins and tools.

The store lives in the pass manager layer (:mod:`hilo_mlir.passmanager.registry`);
the lookups come through :mod:`hilo_mlir.passes`, which installs the built-in passes
(so ``registry.get("neuron-op-fusion")`` finds them). This module keeps the documented
import path working.
"""

from hilo_mlir.passes import (
    all_passes,
    describe,
    descriptions,
    get,
    load,
    lookup,
    plugin_passes,
    twin_of,
)
from hilo_mlir.passmanager.registry import (
    Option,
    PassContext,
    PassInfo,
    Statistic,
    Statistics,
    arguments,
    register,
    register_twins,
    registering_for,
    unregister,
)

__all__ = [
    "Option",
    "PassContext",
    "PassInfo",
    "Statistic",
    "Statistics",
    "all_passes",
    "arguments",
    "describe",
    "descriptions",
    "get",
    "load",
    "lookup",
    "plugin_passes",
    "register",
    "register_twins",
    "registering_for",
    "twin_of",
    "unregister",
]
