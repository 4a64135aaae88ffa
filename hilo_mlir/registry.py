"""The public pass-registry API (``hilo_mlir.registry``), for pass plugins and tools.

The implementation lives in the pass manager layer (:mod:`hilo_mlir.passmanager.registry`);
this module keeps the documented import path working.
"""

from hilo_mlir.passmanager.registry import (
    Option,
    PassContext,
    PassInfo,
    Statistic,
    Statistics,
    all_passes,
    arguments,
    describe,
    descriptions,
    get,
    load,
    lookup,
    plugin_passes,
    register,
    register_twins,
    registering_for,
    twin_of,
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
