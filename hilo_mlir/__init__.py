"""hilo_mlir: the MLIR half of AWS Neuron's hlo2penguin, in Python on the MLIR Python bindings.

Public API (imported lazily so that ``hilo-opt --help`` stays fast and never imports ``jax``):

* :func:`compile_file` / :func:`compile_module` -- the main job (``hilo2penguin``).
* :class:`CompileConfig` -- one boolean per pipeline gate.
* :class:`HiloError` -- every user-facing failure.
"""

__all__ = ["compile_file", "compile_module", "CompileConfig", "HiloError", "PenguinSource"]


def __getattr__(name):
    if name in ("compile_file", "compile_module", "PenguinSource"):
        from . import compiler

        return getattr(compiler, name)
    if name == "CompileConfig":
        from .config import CompileConfig

        return CompileConfig
    if name == "HiloError":
        from .diagnostics import HiloError

        return HiloError
    raise AttributeError(name)
