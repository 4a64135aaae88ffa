"""hilo_mlir: the MLIR half of AWS Neuron's hlo2penguin, in Python on the MLIR Python bindings.

Public API (imported lazily so that ``hilo-opt --help`` stays fast and never imports ``jax``):

* :func:`compile_file` / :func:`compile_module` -- the main job (``hilo2penguin``).
* :class:`CompileConfig` -- one boolean per pipeline gate (or a preset name, ``"default"`` / ``"all"``).
* :class:`PenguinSource` -- what the compile returns (a ``str`` with ``.statistics``, ``.files``, ``.timings``).
* :class:`HiloError` -- every user-facing failure.
* :mod:`hilo_mlir.jax` -- the JAX export flow (``hj.compile(f, *args)``; the only module that imports ``jax``).
"""

_EXPORTS = {
    "compile_file": ("compiler", "compile_file"),
    "compile_module": ("compiler", "compile_module"),
    "PenguinSource": ("compiler", "PenguinSource"),
    "CompileConfig": ("config", "CompileConfig"),
    "HiloError": ("diagnostics", "HiloError"),
}

__all__ = sorted(_EXPORTS)


def __getattr__(name):
    target = _EXPORTS.get(name)
    if target is None:
        raise AttributeError(f"module 'hilo_mlir' has no attribute '{name}'")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{target[0]}"), target[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
