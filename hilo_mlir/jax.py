"""The JAX export flow (issue 5 item 9): a JAX function -> ``penguin.py`` -> numbers.

    >>> import jax.numpy as jnp
    >>> from hilo_mlir import jax as hj
    >>> def f(x, w):
    ...     return jnp.tanh(x @ w)
    >>> prog = hj.compile(f, jnp.ones((4, 8)), jnp.ones((8, 2)), spine="stablehlo")
    >>> prog.write("out")                       # out/penguin.py (+ .npy constants)
    >>> y = prog.run(x, w)                      # numpy reference backend: f's output structure
    >>> y_jax = prog.reference(x, w)            # the same function run by JAX

``jax.export`` produces the StableHLO module (``Exported.mlir_module()``),
:func:`hilo_mlir.compile_module` runs the spine and the printer, and
:mod:`hilo_mlir.penguin_ref` executes the result. This is the only module of
``hilo_mlir`` that imports ``jax`` (DESIGN.md "The stack": the compiler path
never does).
"""

from __future__ import annotations

import os

import jax
import numpy as np

from .compiler import PenguinSource, compile_module
from .config import CompileConfig
from .diagnostics import HiloError

__all__ = ["compile", "export", "PenguinProgram"]


class PenguinProgram:
    """A compiled program: the Penguin source plus what is needed to run and check it.

    Attributes:
        source: the Penguin Python text (:class:`hilo_mlir.PenguinSource`, a ``str``).
        files: ``{name: bytes}`` written beside ``penguin.py`` (large constants).
        exported: the ``jax.export.Exported`` it was compiled from.
        mlir: the StableHLO text that went into the compiler.
        spine: ``"mhlo"`` or ``"stablehlo"``.
    """

    def __init__(self, source: PenguinSource, exported, mlir: str, spine: str):
        self.source = source
        self.files = dict(getattr(source, "files", {}) or {})
        self.exported = exported
        self.mlir = mlir
        self.spine = spine

    @property
    def statistics(self) -> dict:
        return getattr(self.source, "statistics", {})

    def _flat(self, arrays) -> list:
        n = len(self.exported.in_avals)
        if len(arrays) == n and all(not isinstance(a, (list, tuple, dict)) for a in arrays):
            flat = list(arrays)
        else:
            flat = jax.tree_util.tree_leaves(list(arrays))
        if len(flat) != n:
            raise HiloError(f"the program takes {n} input arrays, {len(flat)} given")
        return [np.asarray(a) for a in flat]

    def run(self, *arrays):
        """Run ``penguin.py`` with the numpy reference backend.

        Args:
            *arrays: the function's arguments (arrays, or pytrees of arrays that
                flatten to ``main``'s inputs).

        Returns:
            The results in the function's output structure (its pytree: one
            ``np.ndarray`` for a function returning an array, a tuple, a dict
            ...), as :meth:`reference` returns them. ``penguin_ref.run`` gives
            the flat list in ``main``'s order.

        Raises:
            HiloError: wrong number/shape of inputs; a statement the backend
                cannot execute (``PenguinRefError``).
        """
        from . import penguin_ref

        flat = penguin_ref.run(self.source, self._flat(arrays), files=self.files)
        return jax.tree_util.tree_unflatten(self.exported.out_tree, list(flat))

    def reference(self, *arrays):
        """Run the exported function with JAX (XLA CPU): its results as numpy arrays, in its output structure."""
        out = self.exported.call(*self._unflat(arrays))
        return jax.tree_util.tree_map(np.asarray, out)

    def _unflat(self, arrays):
        flat = self._flat(arrays)
        args, kwargs = jax.tree_util.tree_unflatten(self.exported.in_tree, flat)
        if kwargs:
            raise HiloError("keyword arguments are not supported by PenguinProgram.reference")
        return args

    def write(self, directory: str | os.PathLike) -> str:
        """Write ``penguin.py`` and its ``.npy`` files into ``directory``; returns the path of ``penguin.py``."""
        d = os.fspath(directory)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "penguin.py")
        with open(path, "w", encoding="utf-8") as f:
            f.write(str(self.source))
        for name, data in self.files.items():
            with open(os.path.join(d, name), "wb") as f:
                if isinstance(data, np.ndarray):
                    np.save(f, data, allow_pickle=False)
                else:
                    f.write(data)
        return path

    def __str__(self) -> str:
        return str(self.source)

    def __repr__(self) -> str:
        return f"<PenguinProgram spine={self.spine} {len(self.exported.in_avals)} inputs, {len(self.exported.out_avals)} outputs>"


def export(fn, *example_args):
    """``jax.export.export(jax.jit(fn))(*example_args)``; ``fn`` may already be an ``Exported``.

    ``example_args`` may be arrays or ``jax.ShapeDtypeStruct`` (pytrees allowed).
    """
    if isinstance(fn, jax.export.Exported):
        if example_args:
            raise HiloError("example arguments are not used with a jax.export.Exported; pass it alone")
        return fn
    if not callable(fn):
        raise HiloError(f"compile() expects a function or a jax.export.Exported, got {type(fn).__name__}")
    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    try:
        return jax.export.export(jitted)(*example_args)
    except (TypeError, ValueError) as e:
        raise HiloError(f"jax.export failed: {e}") from None


def compile(fn, *example_args, config: CompileConfig | None = None, spine: str = "mhlo") -> PenguinProgram:  # noqa: A001 - the API name
    """Compile a JAX function (or a ``jax.export.Exported``) to a Penguin program.

    Args:
        fn: a Python function of arrays, a ``jax.jit`` function, or a
            ``jax.export.Exported``.
        *example_args: arrays or ``jax.ShapeDtypeStruct`` giving the input
            shapes/dtypes (not used when ``fn`` is an ``Exported``).
        config: :class:`hilo_mlir.CompileConfig` (default: the binary's
            defaults), or a preset name: ``"default"`` or ``"all"`` (every gate on).
        spine: ``"mhlo"`` or ``"stablehlo"``.

    Returns:
        :class:`PenguinProgram` with ``.source``, ``.write(dir)``, ``.run(*arrays)``.

    Raises:
        HiloError: export failures, symbolic (shape-polymorphic) shapes, and
            every error of :func:`hilo_mlir.compile_module`.
    """
    exp = export(fn, *example_args)
    for av in list(exp.in_avals) + list(exp.out_avals):
        if not all(isinstance(d, int) for d in av.shape):
            raise HiloError(f"shape-polymorphic exports are not supported (shape {av.shape})")
    text = exp.mlir_module()
    name = getattr(exp, "fun_name", None) or "jax_export"
    src = compile_module(text, config=config, spine=spine, filename=f"{name}.stablehlo.mlir")
    return PenguinProgram(src, exp, text, spine)
