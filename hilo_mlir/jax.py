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

from hilo_mlir.driver.compiler import PenguinSource, compile_module
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.support.diagnostics import HiloError

__all__ = ["PenguinProgram", "compile", "export"]


class PenguinProgram:
    """A compiled program: the Penguin source plus what is needed to run and check it.

    Attributes:
        source: the Penguin Python text (:class:`hilo_mlir.PenguinSource`, a ``str``).
        files: ``{name: bytes}`` written beside ``penguin.py`` (large constants).
        exported: the ``jax.export.Exported`` it was compiled from (None for a portable artifact).
        mlir: the StableHLO text that went into the compiler (None for a portable artifact).
        spine: ``"mhlo"`` or ``"stablehlo"``.
        devices: how many devices the program is one device's part of (``mesh.size``; 1 when not sharded).
    """

    def __init__(self, source: PenguinSource, exported: jax.export.Exported | None, mlir: str | None, spine: str):
        self.source = source
        self.files = dict(getattr(source, "files", {}) or {})
        self.exported = exported
        self.mlir = mlir
        self.spine = spine
        self.devices = 1
        #: the CompileConfig it was compiled with (what :meth:`check` recompiles with)
        self.config: CompileConfig | None = None

    @property
    def statistics(self) -> dict:
        return getattr(self.source, "statistics", {})

    def _flat(self, arrays) -> list:
        if self.exported is None:  # compiled from a portable artifact: no JAX signature to check against
            return [np.asarray(a) for a in jax.tree_util.tree_leaves(list(arrays))]
        n = len(self.exported.in_avals)
        if len(arrays) == n and all(not isinstance(a, (list, tuple, dict)) for a in arrays):
            flat = list(arrays)
        else:
            flat = jax.tree_util.tree_leaves(list(arrays))
        if len(flat) != n:
            raise HiloError(f"the program takes {n} input arrays, {len(flat)} given")
        return [np.asarray(a) for a in flat]

    def run(self, *arrays, literal_fusions: bool = False):
        """Run ``penguin.py`` with the numpy reference backend.

        Args:
            *arrays: the function's arguments (arrays, or pytrees of arrays that
                flatten to ``main``'s inputs).
            literal_fusions: run Expm1/Log1p fusions op by op (see
                :func:`hilo_mlir.penguin_ref.run`).

        Returns:
            The results in the function's output structure (its pytree: one
            ``np.ndarray`` for a function returning an array, a tuple, a dict
            ...), as :meth:`reference` returns them; for a program compiled
            from a portable artifact, the flat list in ``main``'s order (as
            ``penguin_ref.run`` gives it).

        Raises:
            HiloError: wrong number/shape of inputs; a statement the backend
                cannot execute (``PenguinRefError``).
        """
        from hilo_mlir import penguin_ref

        if self.devices > 1:
            raise HiloError(
                f"this is one device's program of {self.devices}: run it on {self.devices} simulated devices "
                f"with run_devices([inputs of device 0, ...]) (hilo-penguin-run --devices {self.devices}), "
                "not as a single-device program"
            )
        flat = penguin_ref.run(self.source, self._flat(arrays), files=self.files, literal_fusions=literal_fusions)
        if self.exported is None:  # a portable artifact: no output structure is known
            return list(flat)
        return jax.tree_util.tree_unflatten(self.exported.out_tree, list(flat))

    def run_devices(self, per_device, literal_fusions: bool = False) -> list:
        """Run the per-device program on ``self.devices`` simulated devices in lock step (numpy reference backend).

        Args:
            per_device: one input list per device (``per_device[d]``: device ``d``'s shards, in ``main``'s
                input order).

        Returns:
            One output list per device (``main``'s results, flat).

        Raises:
            HiloError: not one input list per device; the backend's errors (collectives that do not fit the
                devices, a deadlock).
        """
        from hilo_mlir import penguin_ref

        if len(per_device) != self.devices:
            raise HiloError(f"the program runs on {self.devices} devices: give one input list per device, {len(per_device)} given")
        ins = [[np.asarray(a) for a in dev] for dev in per_device]
        out = penguin_ref.run(self.source, ins, files=self.files, literal_fusions=literal_fusions, devices=self.devices)
        return [list(o) for o in out]

    def reference(self, *arrays):
        """Run the exported function with JAX (XLA CPU): its results as numpy arrays, in its output structure.

        Raises:
            HiloError: the program was compiled from a portable artifact (there is no JAX function).
        """
        exported = self.exported
        if exported is None:
            raise HiloError("no JAX function to run: this program was compiled from a portable artifact")
        out = exported.call(*self._unflat(exported, arrays))
        return jax.tree_util.tree_map(np.asarray, out)

    def check(self, *arrays, seed: int = 0, bisect: bool = True, out_dir=None):
        """Check this compile against XLA and an f64 truth (``hilo-check``; README "Checking a compile").

        Args:
            *arrays: the function's arguments (as for :meth:`run`); none: seeded random inputs
                drawn by role (weights scaled 1/sqrt(fan-in), ...).
            seed: the random inputs' seed.
            bisect: on a less-accurate output, find the pass and cluster that caused it.
            out_dir: where to write ``check_report.json``, the Model Explorer graph and a reproducer.

        Returns:
            :class:`hilo_mlir.checker.CheckResult` (``.ok``, ``.outputs``, ``.text()``, ``.json()``).

        Raises:
            HiloError: a program compiled from a portable artifact (no module text kept);
                :class:`hilo_mlir.checker.CheckError` when the check cannot be made.
        """
        from hilo_mlir.checker.core import check_data

        if self.mlir is None:
            raise HiloError("cannot check a program compiled from a portable artifact: compile the function or the Exported")
        inputs = self._flat(arrays) if arrays else None
        return check_data(
            self.mlir,
            "jax_export.mlir",
            self.config,
            self.spine,
            inputs=inputs,
            seed=seed,
            bisect=bisect,
            out_dir=None if out_dir is None else os.fspath(out_dir),
            explorer=out_dir is not None,
        )

    def _unflat(self, exported: jax.export.Exported, arrays):
        flat = self._flat(arrays)
        args, kwargs = jax.tree_util.tree_unflatten(exported.in_tree, flat)
        if kwargs:
            raise HiloError("keyword arguments are not supported by PenguinProgram.reference")
        return args

    def write(self, directory: str | os.PathLike) -> str:
        """Publish ``penguin.py`` and its ``.npy`` files into ``directory`` (:func:`hilo_mlir.support.packaging.write_program`).

        Returns the path of ``penguin.py``.
        """
        import io

        from hilo_mlir.support.packaging import write_program

        files = {}
        for name, data in self.files.items():
            if isinstance(data, np.ndarray):
                buf = io.BytesIO()
                np.save(buf, data, allow_pickle=False)
                data = buf.getvalue()
            files[name] = data
        return write_program(os.fspath(directory), str(self.source), files)

    def __str__(self) -> str:
        return str(self.source)

    def __repr__(self) -> str:
        if self.exported is None:
            return f"<PenguinProgram spine={self.spine} (from a portable artifact)>"
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


def _mlir_type(arg) -> str:
    """``tensor<4x32xf32>`` for an array or ``jax.ShapeDtypeStruct`` (dtype through the printers' dtype table)."""
    from hilo_mlir.printers.supported import DTYPES

    names = {v: k for k, v in DTYPES.items()}
    dt = np.dtype(arg.dtype).name
    if dt not in names:
        raise HiloError(f"argument dtype {dt} has no MLIR element type here")
    return "tensor<" + "".join(f"{int(d)}x" for d in arg.shape) + names[dt] + ">"


def _is_polymorphic(exp) -> bool:
    return not all(isinstance(d, int) for av in list(exp.in_avals) + list(exp.out_avals) for d in av.shape)


def _cache_for(cache):
    """The :class:`~hilo_mlir.driver.cache.CompileCache` ``compile(cache=...)`` asks for, or None.

    ``None`` (the default): on, in ``HILO_MLIR_CACHE_DIR`` (else ``~/.cache/hilo_mlir``),
    unless ``HILO_MLIR_CACHE=0``; ``False``: off; ``True``: on; a path: that folder.
    ``HILO_MLIR_CACHE_URL`` adds the shared tier.
    """
    from hilo_mlir.driver.cache import CompileCache

    if cache is None:
        if os.environ.get("HILO_MLIR_CACHE", "1").strip().lower() in ("0", "false", "no", "off"):
            return None
        return CompileCache.from_env()
    if cache is False:
        return None
    if cache is True:
        return CompileCache.from_env()
    return CompileCache.from_env(os.fspath(cache))


def _cached_compile(cache, data: bytes, filename: str, config, input_types, weights: dict, fusion_report, compile_fn) -> PenguinSource:
    """``compile_fn()`` through the compile cache (key: ``data``, the resolved pipeline, ``filename``, the input types, the weights)."""
    import hashlib

    if cache is None or fusion_report is not None:
        return compile_fn()
    from hilo_mlir.driver import spine as spine_mod
    from hilo_mlir.driver.cache import check_hit, check_mode, make_key, touch

    extra = {"input-name": filename, "input-types": None if input_types is None else tuple(input_types)}
    if weights:
        extra["weights"] = tuple(
            (int(i), str(a.dtype), tuple(a.shape), hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest())
            for i, a in sorted(weights.items())
        )
    key = make_key(data, spine_mod.pipeline_text(config), filename, extra)
    entry = cache.lookup(key)
    lock = None
    if entry is None:
        lock = cache.lock(key)
        if lock.held:
            entry = cache.lookup(key)
    try:
        if entry is not None and not check_mode():
            touch(entry)
            src = PenguinSource(entry.source)
            src.files = dict(entry.files)
            src.statistics = entry.statistics
            src.timings, src.log = [], []
            src.cache = entry.tier
            return src
        src = compile_fn()
        if entry is not None:
            check_hit(entry, src, src.files)
        else:
            cache.store(key, data, src, src.files, src.statistics)
        src.cache = "miss" if entry is None else "checked"
        return src
    finally:
        if lock is not None:
            lock.release()


def _compile_artifact(data: bytes | bytearray | memoryview, example_args, config, spine, fusion_report=None, cache=None) -> PenguinProgram:
    """A StableHLO portable artifact (``Exported.mlir_module_serialized``): compiled as it is, no JAX function."""
    flat = jax.tree_util.tree_leaves(list(example_args))
    input_types = [_mlir_type(a) for a in flat] if flat else None
    blob = bytes(data)

    def fresh():
        return compile_module(
            blob, config=config, spine=spine, filename="artifact.mlirbc", input_types=input_types, fusion_report=fusion_report
        )

    src = _cached_compile(cache, blob, "artifact.mlirbc", config, input_types, {}, fusion_report, fresh)
    prog = PenguinProgram(src, None, None, spine)
    prog.config = config
    return prog


def compile(
    fn,
    *example_args,
    config: CompileConfig | None = None,
    spine: str = "mhlo",  # noqa: A001 - the API name
    fusion_report: str | None = None,
    params=None,
    model_type: str | None = None,
    mesh=None,
    in_specs=None,
    out_specs=None,
    cache=None,
) -> PenguinProgram:
    """Compile a JAX function, a ``jax.export.Exported`` or a portable artifact to a Penguin program.

    A sharded function gives the per-device program (the README's "Multi-device programs"):

    * ``mesh`` and ``in_specs`` (``PartitionSpec`` per argument; ``out_specs``, default
      replicated ``P()``): ``fn`` is the per-device body; it is wrapped in
      ``jax.shard_map(fn, mesh=mesh, in_specs=..., out_specs=...)`` (manual over every
      axis), exported with the example arguments' *global* shapes, and the export's
      body becomes ``main`` (per-device shapes). ``mesh`` may be a
      ``jax.sharding.AbstractMesh``: no devices are needed.
    * ``mesh`` alone: ``fn`` is a sharded ``jax.jit`` (``in_shardings=`` or example
      arguments with ``.sharding``); it is compiled by XLA for the mesh's devices and
      the partitioned module (``compiled.as_text()``) is imported as HLO text. Needs
      the mesh's devices: for N CPU devices set
      ``XLA_FLAGS=--xla_force_host_platform_device_count=N`` before importing jax.

    The program's ``.devices`` is the mesh size; its inputs and outputs are one device's.

    Args:
        fn: a Python function of arrays, a ``jax.jit`` function, a
            ``jax.export.Exported``, or the ``bytes`` of a StableHLO portable
            artifact (``Exported.mlir_module_serialized``).
        *example_args: arrays or ``jax.ShapeDtypeStruct`` giving the input
            shapes/dtypes; for a shape-polymorphic ``Exported`` (or artifact),
            the concrete arguments to specialize it to (``input_types``); not
            used with a static ``Exported``.
        config: :class:`hilo_mlir.CompileConfig` (default: the binary's
            defaults), or a preset name: ``"default"`` or ``"all"`` (every gate on).
        spine: ``"mhlo"`` or ``"stablehlo"``.
        fusion_report: a folder to write the fusion report to (``fusion_report.json``,
            ``fusion_report.html``); the report is also ``program.source.fusion_report``.
        params: which arguments are weights: each entry an ``int`` (a
            positional argument: every array leaf of it) or a ``str``, a pytree
            path in ``jax.tree_util.keystr`` form over the argument tuple
            (``"[0]['w1']"``: argument 0's entry ``'w1'`` and everything under
            it). Those inputs print as parameters
            (``is_parameter_tensor=True, weight_files=['input_<i>.npy'], np_file='input_<i>.npy'``) and their
            example values go to ``.files`` (written beside ``penguin.py``);
            the example arguments must then be concrete arrays. Not with a
            portable artifact.
        model_type: the prologue's ``model-type`` (``generic``,
            ``transformer``, ``unet-inference``; default: ``config.model_type``).
        mesh: a ``jax.sharding.Mesh`` or ``AbstractMesh`` (see above).
        in_specs, out_specs: the ``shard_map`` specs (see above).
        cache: the persistent compile cache (:mod:`hilo_mlir.driver.cache`):
            None (default) uses ``HILO_MLIR_CACHE_DIR`` (else
            ``~/.cache/hilo_mlir``) unless ``HILO_MLIR_CACHE=0``; ``False``
            turns it off; a path is the cache folder. A hit returns the
            program (and the compile's statistics) without compiling;
            ``program.source.cache`` says ``"local"``/``"shared"`` (a hit),
            ``"miss"``, or is absent (no cache; a fusion report bypasses it).

    Returns:
        :class:`PenguinProgram` with ``.source``, ``.write(dir)``, ``.run(*arrays)``.

    Raises:
        HiloError: export failures, a shape-polymorphic export without
            concrete arguments, a shape assertion the arguments violate, a
            ``params`` entry that selects no array (or an abstract one), and
            every error of :func:`hilo_mlir.compile_module`.
    """
    from hilo_mlir.support.entry_point import entry_point

    with entry_point("jax"):
        return _compile(fn, example_args, config, spine, fusion_report, params, model_type, cache, mesh, in_specs, out_specs)


def _compile(fn, example_args, config, spine, fusion_report, params, model_type, cache, mesh, in_specs, out_specs) -> PenguinProgram:
    from hilo_mlir.driver.compiler import compile_loaded, load_module, resolve_config

    config = resolve_config(config, spine)
    if model_type is not None:
        config = config.replace(model_type=model_type)
    if mesh is not None:
        if params is not None:
            raise HiloError("params= is not supported with mesh= (a per-device program's weights are shards)")
        if in_specs is not None:
            fn, example_args = _shard_map(fn, example_args, mesh, in_specs, out_specs)
        else:
            return _compile_partitioned(fn, example_args, mesh, config, spine, fusion_report)
    elif in_specs is not None or out_specs is not None:
        raise HiloError("in_specs=/out_specs= need mesh= (the mesh the shard_map runs on)")
    if isinstance(fn, (bytes, bytearray, memoryview)):
        if params is not None:
            raise HiloError("params= needs a JAX function or an Exported, not a portable artifact")
        return _compile_artifact(fn, example_args, config, spine, fusion_report, _cache_for(cache))
    input_types = None
    if isinstance(fn, jax.export.Exported) and _is_polymorphic(fn):
        if not example_args:
            shapes = ", ".join(str(av.shape) for av in fn.in_avals)
            raise HiloError(
                f"the export is shape-polymorphic (input shapes {shapes}): pass concrete arguments to "
                "specialize it, hj.compile(exported, *arrays)"
            )
        input_types = [_mlir_type(a) for a in jax.tree_util.tree_leaves(list(example_args))]
        exp = fn
    else:
        exp = export(fn, *example_args)
        if _is_polymorphic(exp):
            raise HiloError(
                "shape-polymorphic example arguments: export with concrete shapes, or compile the Exported with concrete arguments"
            )
    cfg = resolve_config(config, spine)
    weights = _weights(exp, example_args, params) if params is not None else {}
    text = exp.mlir_module()
    name = getattr(exp, "fun_name", None) or "jax_export"
    filename = f"{name}.stablehlo.mlir"

    def fresh() -> PenguinSource:
        loaded = load_module(text, filename)
        if weights:
            from hilo_mlir.driver.weights import mark_parameters

            with loaded.context:
                mark_parameters(loaded.module, weights, loaded.filename)
        src = compile_loaded(loaded, cfg, input_types=input_types, fusion_report=fusion_report)
        if weights:
            from hilo_mlir.driver.weights import weight_files

            src.files.update(weight_files(src, weights))
        return src

    src = _cached_compile(_cache_for(cache), text.encode("utf-8"), filename, cfg, input_types, weights, fusion_report, fresh)
    prog = PenguinProgram(src, exp, text, spine)
    prog.config = cfg
    prog.devices = int(mesh.size) if mesh is not None else 1
    return prog


def _abstract(mesh):
    return getattr(mesh, "abstract_mesh", mesh)


def _shard_map(fn, example_args, mesh, in_specs, out_specs):
    """Route (b): ``shard_map(fn)`` manual over every axis of ``mesh``, and global-shaped abstract arguments
    carrying the ``in_specs`` shardings (on the abstract mesh: no devices needed)."""
    from jax.sharding import NamedSharding
    from jax.sharding import PartitionSpec as P

    amesh = _abstract(mesh)
    flat, tree = jax.tree_util.tree_flatten(tuple(example_args))
    specs = tuple(in_specs) if isinstance(in_specs, (list, tuple)) else (in_specs,)
    if len(specs) != len(example_args):
        raise HiloError(f"in_specs has {len(specs)} entries for {len(example_args)} arguments")
    spec_leaves = jax.tree_util.tree_leaves(
        [jax.tree_util.tree_map(lambda _, s=s: s, a) for a, s in zip(example_args, specs)], is_leaf=lambda x: isinstance(x, P)
    )
    args = [jax.ShapeDtypeStruct(a.shape, a.dtype, sharding=NamedSharding(amesh, s)) for a, s in zip(flat, spec_leaves)]
    try:
        body = jax.shard_map(fn, mesh=amesh, in_specs=specs, out_specs=P() if out_specs is None else out_specs)
    except (TypeError, ValueError) as e:
        raise HiloError(f"jax.shard_map failed: {e}") from None
    return body, tuple(jax.tree_util.tree_unflatten(tree, args))


def _compile_partitioned(fn, example_args, mesh, config, spine, fusion_report) -> PenguinProgram:
    """Route (a): XLA compiles the sharded jit for the mesh's devices; its partitioned module is imported as HLO text."""
    from hilo_mlir.driver.compiler import compile_loaded, load_module

    need = int(mesh.size)
    if isinstance(mesh, jax.sharding.AbstractMesh) or jax.device_count() < need:
        raise HiloError(
            f"the mesh has {need} devices and jax sees {jax.device_count()}: XLA must partition the program for real "
            f"devices; set XLA_FLAGS=--xla_force_host_platform_device_count={need} before importing jax (CPU), "
            "or pass in_specs= to compile the function as a shard_map body (no devices needed)"
        )
    jitted = fn if hasattr(fn, "lower") else jax.jit(fn)
    try:
        text = jitted.lower(*example_args).compile().as_text()
    except (TypeError, ValueError, RuntimeError) as e:
        raise HiloError(f"XLA could not compile the sharded function: {e}") from None
    if text is None:
        raise HiloError("XLA compiled the sharded function but gave no HLO text for it")
    name = getattr(fn, "__name__", None) or "jit_f"
    loaded = load_module(text.encode("utf-8"), f"{name}.after_spmd-partitioning.txt")
    src = compile_loaded(loaded, config, fusion_report=fusion_report)
    prog = PenguinProgram(src, None, None, spine)
    prog.devices = need
    return prog


def _weights(exp, example_args, params) -> dict:
    """``{main input index: array}`` for the leaves ``params`` selects (see :func:`compile`)."""
    if isinstance(params, (int, str)):
        params = [params]
    leaves = jax.tree_util.tree_flatten_with_path(tuple(example_args))[0]
    if not leaves and params:
        raise HiloError("params= needs the example arguments (it names which of them are weights)")
    paths = [jax.tree_util.keystr(path) for path, _ in leaves]
    chosen: dict[int, object] = {}
    for p in params:
        prefix = f"[{p}]" if isinstance(p, int) else str(p)
        hits = [i for i, k in enumerate(paths) if k == prefix or k.startswith(prefix + "[") or k.startswith(prefix + ".")]
        if not hits:
            raise HiloError(f"params entry {p!r} selects no argument (the arguments' paths: {', '.join(paths)})")
        for i in hits:
            chosen[i] = leaves[i][1]
    kept = list(getattr(exp, "module_kept_var_idx", range(len(leaves))))
    out = {}
    for flat, value in chosen.items():
        if isinstance(value, jax.ShapeDtypeStruct):
            raise HiloError(f"params: argument {paths[flat]} is a ShapeDtypeStruct; weights need concrete values")
        if flat in kept:  # an argument the function does not use is not an input of the module
            out[kept.index(flat)] = np.asarray(value)
    return out
