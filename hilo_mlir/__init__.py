"""hilo_mlir: the MLIR half of AWS Neuron's hlo2penguin, in Python on the MLIR Python bindings.

Public API (imported lazily so that ``hilo-opt --help`` stays fast and never imports ``jax``):

* :func:`compile_file` / :func:`compile_module` -- the main job (``hilo2penguin``).
* :class:`CompileConfig` -- one boolean per pipeline gate (or a preset name, ``"default"`` / ``"all"``).
* :class:`PenguinSource` -- what the compile returns (a ``str`` with ``.statistics``, ``.files``, ``.timings``).
* :class:`HiloError` -- every user-facing failure.
* :func:`check` -- ``hilo-check``: compile, run penguin.py, XLA and an f64 truth, judge every output
  (:mod:`hilo_mlir.checker`; imports ``jax``).
* :mod:`hilo_mlir.jax` -- the JAX export flow (``hj.compile(f, *args)``; the only module that imports ``jax``).

The pass plugin API (README "Writing a pass plugin"; stable):

* :func:`register` / :func:`register_twins` -- add a pass (or an MHLO/StableHLO pair);
* :class:`PassInfo`, :class:`Option`, :class:`Statistic` -- what a pass declares;
* :class:`PassContext` -- what ``run(op, ctx)`` gets (``ctx.rewriter``, ``ctx.options``, ``ctx.stats``, ...);
* :func:`load_plugin` -- load a plugin file or module (``--load-pass-plugin``);
* :class:`PassEdit` -- an edit of the spine (``CompileConfig.insert_pass_after(...)`` and friends).
"""

_EXPORTS = {
    "compile_file": ("driver.compiler", "compile_file"),
    "compile_module": ("driver.compiler", "compile_module"),
    "check": ("checker.core", "check"),
    "PenguinSource": ("driver.compiler", "PenguinSource"),
    "CompileConfig": ("driver.config", "CompileConfig"),
    "HiloError": ("support.diagnostics", "HiloError"),
    "register": ("passmanager.registry", "register"),
    "register_twins": ("passmanager.registry", "register_twins"),
    "PassInfo": ("passmanager.registry", "PassInfo"),
    "Option": ("passmanager.registry", "Option"),
    "Statistic": ("passmanager.registry", "Statistic"),
    "PassContext": ("passmanager.registry", "PassContext"),
    "load_plugin": ("passes", "load_plugin"),  # with the built-in passes installed first
    "PassEdit": ("driver.spine_edits", "PassEdit"),
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
