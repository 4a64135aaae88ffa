"""The main job, mirroring ``HiloCompileInternal`` (seed 004, "Entry Flow").

``compile_file`` / ``compile_module``: an mhlo or stablehlo module (text or
bytecode) or a serialized ``HloModuleProto`` goes in; it is brought to mhlo
(the binary's importer always produces mhlo; the StableHLO spine bridges back
at step 1a), the spine chosen by ``config.stablehlo`` runs with the verifier
after every pass, and the terminal printer's Penguin Python source comes back.
"""

from __future__ import annotations

import collections
import os
import re
from dataclasses import dataclass, field

from .config import CompileConfig
from .dialects import hlo_short_name
from .diagnostics import HiloError, capture_diagnostics, from_mlir_error
from .pipeline import Instrumentation, Pipeline, gc_paused, step_for


class PenguinSource(str):
    """The Penguin Python source (a ``str``) plus what the compile measured.

    Attributes:
        statistics: ``{pass name: {statistic: count}}`` from our passes
            (e.g. NeuronOpFusion's ``clusters-DotLogistic``).
        files: extra files that belong beside ``penguin.py`` (``{name: bytes}``,
            e.g. large constants as ``.npy``).
        timings: ``[(pass, seconds)]``.
    """

    statistics: dict
    files: dict
    timings: list


@dataclass
class LoadedModule:
    """A parsed module and the context that owns it (keep both alive together)."""

    context: object
    module: object
    filename: str
    #: "mhlo", "stablehlo", "mixed" or "none"; "" until :func:`compile_loaded`
    #: detects it from its input census (no walk at load time)
    dialect: str = ""
    extras: dict = field(default_factory=dict)

    @classmethod
    def from_module(cls, context, module, filename: str) -> "LoadedModule":
        """Wrap an already-parsed ``ir.Module`` (no walk; the dialect is detected when compiled)."""
        return cls(context, module, filename)


def detect_dialect(module, census=None) -> str:
    """``"mhlo"`` / ``"stablehlo"`` by counting ops of each dialect (``"none"`` if neither, else ``"mixed"``).

    ``census``: a :class:`~hilo_mlir.census.Census` of ``module`` to count from
    (no walk); default: take one.
    """
    from .census import Census

    counts = (census or Census(module.operation)).counts
    mhlo = sum(n for name, n in counts.items() if name.startswith("mhlo."))
    shlo = sum(n for name, n in counts.items() if name.startswith("stablehlo."))
    if not (mhlo or shlo):
        return "none"
    if mhlo and shlo:
        return "mixed"
    return "mhlo" if mhlo >= shlo else "stablehlo"


def input_census(loaded: "LoadedModule"):
    """The :class:`~hilo_mlir.census.Census` of the loaded module as it is now (one walk, kept in ``loaded.extras``).

    Shared by :func:`detect_dialect`, :func:`validate_input`, the sharding
    strip and the bridge so the input is walked once before the spine
    (issue 7); dropped by the steps that rewrite the module
    (:func:`strip_sharding`, :func:`to_mhlo`), and at the start and end of
    :func:`compile_loaded` (it holds op handles: it must never outlive a
    change made outside the compile).
    """
    from .census import Census

    c = loaded.extras.get("census")
    if c is None:
        c = loaded.extras["census"] = Census(loaded.module.operation, with_types=True, attr_names=SHARDING_ATTRS)
    return c


def _is_proto(path: str, data: bytes) -> bool:
    if path.endswith(".pb") or path.endswith(".hlo.pb"):
        return True
    return False


_QUANT_TYPE = re.compile(r'`!"quant"<"([^`]*)">`')


def _explain_parse_error(err: HiloError) -> HiloError:
    """Make the parser's messages about unknown dialects say what to do (keeps the location)."""
    msg = err.message
    m = _QUANT_TYPE.search(msg)
    if m:
        err.message = f"quantized types are not supported (found !quant.{m.group(1)})"
        return err
    if "unregistered dialect" in msg:
        msg = re.sub(r"\.? ?If this is intended, please .*$", "", msg)
        err.message = msg + " (use --allow-unregistered-dialect to accept unknown dialects)"
    elif "not found for custom op" in msg or ("Dialect" in msg and "not found" in msg):
        err.message = msg + " (use --allow-unregistered-dialect to accept unknown dialects)"
    return err


def load_module(data: bytes | str, filename: str = "<string>", allow_unregistered: bool = False, context=None) -> LoadedModule:
    """Parse MLIR text/bytecode or an ``HloModuleProto`` into a module.

    Raises:
        HiloError: syntax errors (``file:line:col``), an unreadable proto
            (``NCC_DRV001``), a file that is not UTF-8.
    """
    from .io_utils import decode_text
    from .ir import ir, make_context

    ctx = context or make_context(allow_unregistered)
    if isinstance(data, str):
        data = data.encode("utf-8")
    with ctx:
        if _is_proto(filename, data):
            from jaxlib import xla_client  # imported only for proto input

            try:
                bytecode = xla_client._xla.mlir.hlo_to_stablehlo(data)
            except Exception as e:  # noqa: BLE001 - the binding raises JaxRuntimeError
                raise HiloError(
                    f"The conversion from HLO to MHLO failed, status: {str(e).strip()}",
                    code="NCC_DRV001",
                    filename=filename,
                ) from None
            try:
                module = ir.Module.parse(bytecode)
            except ir.MLIRError as e:
                raise from_mlir_error(e, filename) from None
        else:
            if data.startswith(b"ML\xefR"):
                payload = data
            else:
                payload = decode_text(data, filename)
            try:
                module = ir.Module.parse(payload)
            except ir.MLIRError as e:
                raise _explain_parse_error(from_mlir_error(e, filename)) from None
    return LoadedModule.from_module(ctx, module, filename)


def _has_chlo(loaded: "LoadedModule") -> bool:
    return any(n.startswith("chlo.") for n in input_census(loaded).names)


#: The upstream decomposition of chlo ops into stablehlo ops (run by the bridge when chlo is present).
CHLO_LEGALIZE = "func.func(chlo-legalize-to-stablehlo)"


def to_mhlo(loaded: LoadedModule, instrumentation: Instrumentation | None = None) -> None:
    """Bring the module to mhlo in place: the driver's bridge before the spine.

    * ``chlo`` ops (JAX emits them for ``erf``, ``lgamma``, ``top_k`` ...) are
      first decomposed into stablehlo ops by the upstream
      ``chlo-legalize-to-stablehlo`` (semantics-preserving; the printers only
      know mhlo/stablehlo ops);
    * stablehlo (or mixed) modules then go through ``stablehlo-legalize-to-hlo``.
    """
    from .pipeline import Step

    instr = None
    if instrumentation is not None and getattr(instrumentation, "on_pass_start", None):
        instr = Instrumentation(on_pass_start=instrumentation.on_pass_start)
    steps = []
    with loaded.context:
        if _has_chlo(loaded):
            steps.append(Step(None, "chlo-legalize-to-stablehlo", cpp_text=CHLO_LEGALIZE))
    if steps or loaded.dialect in ("stablehlo", "mixed"):
        steps.append(step_for("stablehlo-legalize-to-hlo"))
    if steps:
        loaded.extras.pop("census", None)
        with loaded.context:
            Pipeline(steps, instrumentation=instr).run(loaded.module)
        from .census import Census

        # taken again (names only; types lazily if a pass asks): the spine starts from it
        census = loaded.extras["census"] = Census(loaded.module.operation)
        loaded.dialect = detect_dialect(loaded.module, census)


def build_spine(config: CompileConfig, skip_missing: bool = False):
    """The steps ``hilo2penguin`` runs for ``config`` (pre-passes, then the spine).

    Every spine step is a registered pass, so a missing one is an error
    (``skip_missing=True`` only for experiments with a partial registry).
    """
    from . import spine

    return spine.build_spine(config, skip_missing=skip_missing)


# --------------------------------------------------------------------------- input validation

#: Spine passes that make an otherwise refused input kind acceptable (either twin).
#: Shape-computing ops: their result shapes are data, which the Penguin program
#: cannot express (and upstream legalizations abort on some of them, e.g.
#: ``mhlo.dynamic_conv`` in ``hlo-legalize-to-stablehlo``), so they are refused
#: before any rewrite even when their types happen to be static.
_DYNAMIC_SHAPE_OPS = frozenset(
    """dynamic_broadcast_in_dim dynamic_conv dynamic_gather dynamic_iota dynamic_pad
    dynamic_reshape real_dynamic_slice set_dimension_size get_dimension_size
    compute_reshape_shape cstr_reshapable""".split()
)
_TOKEN_PASS = "replace-token-type-with-u8"  # step 19
_COMPLEX_PASS = "lower-complex"  # step 6 (gate LowerComplex)
_TOKEN_TYPES = ("!stablehlo.token", "!mhlo.token")


def _func_name(f) -> str:
    return f.attributes["sym_name"].value


def _is_public(f) -> bool:
    return "sym_visibility" not in f.attributes or f.attributes["sym_visibility"].value == "public"


def entry_function(module, filename: str | None = None):
    """The entry ``func.func`` of ``module`` (an ``ir.Module``): the function named ``main``.

    ``main`` is what the HLO importer names the entry computation and what
    PenguinizeIO (seed 002 section 4) builds the program from; a module
    without it is refused here, before any rewrite, rather than by a pass.

    Raises:
        HiloError: no ``main``: "no entry function" when the module has no
            public function, naming the function when it has one, and naming
            every candidate with its location when it has several.
    """
    from .diagnostics import location_to_str

    funcs = [op.operation for op in module.body.operations if op.operation.name == "func.func"]
    for f in funcs:
        if _func_name(f) == "main":
            return f
    public = [f for f in funcs if _is_public(f)]
    if len(public) == 1:
        f = public[0]
        raise HiloError(
            f"no 'main' function: the entry function must be named 'main' (found public function @{_func_name(f)})",
            loc=f.location,
            filename=filename,
        )
    if not public:
        what = "no function" if not funcs else "no public function"
        raise HiloError(
            f"no entry function: the module has {what} (expected 'func.func @main')",
            loc=module.operation.location,
            filename=filename,
        )
    names = ", ".join(f"@{_func_name(f)} ({location_to_str(f.location, filename) or 'unknown location'})" for f in public)
    raise HiloError(
        f"no 'main' and {len(public)} candidate entry functions: {names}; name the entry function 'main'",
        loc=public[0].location,
        filename=filename,
    )


def _type_problem(t, allow_token: bool, complex_why: str | None) -> str | None:
    """Why type ``t`` cannot be compiled (None if it can); ``complex_why`` is None when complex is supported."""
    from .ir import ir

    if isinstance(t, ir.RankedTensorType):
        if not t.has_static_shape:
            return f"has dynamic shape {t}: dynamic shapes are not supported (every dimension must be static)"
        et = t.element_type
        es = str(et)
        if es.startswith("!quant"):
            return f"has quantized element type {es}: quantized types are not supported"
        if isinstance(et, ir.ComplexType) and complex_why:
            return f"has complex element type {t}: complex types need the lower-complex pass ({complex_why})"
        return None
    if isinstance(t, (ir.MemRefType, ir.UnrankedMemRefType)):
        return f"has buffer type {t}: memref types are not supported (tensors only)"
    if isinstance(t, ir.UnrankedTensorType):
        return f"has unranked type {t}: dynamic shapes are not supported (every dimension must be static)"
    if isinstance(t, ir.TupleType):
        for i in range(t.num_types):
            p = _type_problem(t.get_type(i), allow_token, complex_why)
            if p:
                return p
        return None
    s = str(t)
    if s in _TOKEN_TYPES and not allow_token:
        return f"has token type {s}: token values need the replace-token-type-with-u8 pass, which is not available"
    if s.startswith("!quant"):
        return f"has quantized type {s}: quantized types are not supported"
    return None


def validate_input(loaded: LoadedModule, config: CompileConfig, steps=None) -> None:
    """Refuse, before any rewrite, inputs the spine cannot compile (issue 6 "Bad input").

    Checked, in program order, each failure one :class:`HiloError` located at
    the op (or function) and naming it:

    * an entry function exists and is unambiguous (:func:`entry_function`) and
      has a body;
    * no entry-function argument has a tuple type;
    * every function body ends in ``func.return`` (not, e.g., ``mhlo.return``);
    * no shape-computing op (``dynamic_conv``, ``dynamic_reshape``, ... even
      with static types; ``dynamic_slice`` is an ordinary op);
    * no value (op result, block argument, function signature) has a dynamic
      (``?``) or unranked shape, a ``memref`` type, or a quantized
      (``!quant.*``) element type;
    * ``!stablehlo.token`` / ``!mhlo.token`` values only if the spine contains
      ``replace-token-type-with-u8`` (step 19, either twin);
    * complex element types only if the spine contains ``lower-complex``
      (step 6, gate LowerComplex, either twin).

    * no Shardy op other than ``sdy.mesh`` (``sdy.sharding_constraint``,
      ``sdy.manual_computation``, ``sdy.reshard`` ...).

    Sharding annotations (``sdy.mesh``, ``sdy.sharding``, ``mhlo.sharding``)
    are accepted; :func:`strip_sharding` drops them right after this check
    (the Penguin program is single-device), attributes first, so no ``@mesh``
    reference is ever left dangling.

    Args:
        loaded: the parsed module.
        config: the gates (which passes the spine will contain).
        steps: the spine steps (default: ``build_spine(config)``).

    Raises:
        HiloError: the first problem found.
    """
    from .ir import ir

    if os.environ.get("HILO_MLIR_TEST_SKIP_VALIDATION") == "1":
        # Test hook only: lets the crash-isolation tests drive a module the
        # validator would refuse into an upstream pass that aborts the process.
        return
    if steps is None:
        steps = build_spine(config)
    args = {s.argument for s in steps}
    allow_token = _TOKEN_PASS in args or ("stablehlo-" + _TOKEN_PASS) in args
    allow_complex = _COMPLEX_PASS in args or ("stablehlo-" + _COMPLEX_PASS) in args
    complex_why = None
    if not allow_complex:
        complex_why = "LowerComplex is off; remove --disable-lower-complex" if not config.lower_complex else "the pass is not available"
    fname = loaded.filename
    module = loaded.module
    with loaded.context:
        entry = entry_function(module, fname)
        if not len(entry.regions[0].blocks):
            raise HiloError(f"entry function @{_func_name(entry)} is only a declaration (it has no body)", loc=entry.location, filename=fname)
        for op in module.body.operations:
            f = op.operation
            if f.name != "func.func" or not len(f.regions[0].blocks):
                continue
            for block in f.regions[0].blocks:
                ops = block.operations
                n = len(ops)
                term = ops[n - 1].operation if n else None
                if term is not None and term.name != "func.return" and len(term.successors) == 0:
                    raise HiloError(
                        f"'{term.name}' op cannot terminate function @{_func_name(f)} (expected 'func.return')",
                        loc=term.location,
                        filename=fname,
                    )
        ftype = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
        for i, t in enumerate(ftype.inputs):
            if isinstance(t, ir.TupleType):
                raise HiloError(
                    f"'func.func' op entry function @{_func_name(entry)} argument #{i} has tuple type {t}: "
                    "tuple-typed arguments are not supported (pass the elements as separate arguments)",
                    loc=entry.location,
                    filename=fname,
                )
        verdicts: dict = {}  # type -> _type_problem (types are uniqued; most values share a few types)

        def type_verdict(t):
            p = verdicts.get(t, False)
            if p is False:
                p = verdicts[t] = _type_problem(t, allow_token, complex_why)
            return p

        # Fast path: the census's op names and types say whether any check
        # below can fail; only then walk in program order to find the first
        # failure (its op and location).
        census = input_census(loaded)
        names = census.names
        suspicious = any(n.startswith("sdy.") and n != "sdy.mesh" for n in names) or any(
            hlo_short_name(n) in _DYNAMIC_SHAPE_OPS for n in names
        )
        if not suspicious:
            types = set(census.types())
            for top in module.body.operations:
                for f in census.ops_named(top.operation, "func.func"):  # nested modules' functions too
                    ft = ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)
                    types.update(ft.inputs)
                    types.update(ft.results)
            suspicious = any(type_verdict(t) for t in types)
        if not suspicious:
            return
        problem: list = []

        def check_types(op, what, types):
            for i, t in enumerate(types):
                p = type_verdict(t)
                if p:
                    problem.append(HiloError(f"'{op.name}' op {what} #{i} {p}", loc=op.location, filename=fname))
                    return True
            return False

        def visit(op):
            if op.name.startswith("sdy.") and op.name != "sdy.mesh":
                problem.append(HiloError(
                    f"'{op.name}' op: Shardy ops are not supported (the Penguin program is single-device; "
                    "export the module without sharding constraints)", loc=op.location, filename=fname))
                return ir.WalkResult.INTERRUPT
            if op.name == "func.func":
                ft = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
                sym = op.attributes["sym_name"].value
                if check_types(op, f"@{sym} argument", ft.inputs) or check_types(op, f"@{sym} result", ft.results):
                    return ir.WalkResult.INTERRUPT
                return ir.WalkResult.ADVANCE
            if hlo_short_name(op.name) in _DYNAMIC_SHAPE_OPS:
                problem.append(HiloError(
                    f"'{op.name}' op computes a dynamic shape: dynamic-shape ops are not supported "
                    "(export the model with static shapes)", loc=op.location, filename=fname))
                return ir.WalkResult.INTERRUPT
            if check_types(op, "result", [r.type for r in op.results]):
                return ir.WalkResult.INTERRUPT
            for region in op.regions:
                for block in region.blocks:
                    if check_types(op, "region argument", [a.type for a in block.arguments]):
                        return ir.WalkResult.INTERRUPT
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        if problem:
            raise problem[0]


#: Discardable attributes that carry sharding (Shardy and GSPMD); dropped by :func:`strip_sharding`.
SHARDING_ATTRS = ("sdy.sharding", "sdy.sharding_rule", "sdy.sharding_origins", "sdy.propagation_edges", "mhlo.sharding")


def _strip_dict(d, ir):
    items = [(d[i].name, d[i].attr) for i in range(len(d))]
    kept = {k: v for k, v in items if k not in SHARDING_ATTRS}
    return (ir.DictAttr.get(kept), True) if len(kept) != len(items) else (d, False)


def strip_sharding(loaded: LoadedModule) -> int:
    """Drop sharding annotations: the Penguin program is single-device (issue 6 "sharded exports").

    Removes every :data:`SHARDING_ATTRS` attribute (on ops and in function
    argument/result attributes) and then every top-level ``sdy.mesh``, in
    that order, so no ``@mesh`` reference is ever left dangling. Module
    attributes (``mhlo.num_partitions`` ...) and ``custom_call @Sharding``
    markers stay (the printers emit the markers as copies). Shardy ops that
    compute with a mesh (``sdy.sharding_constraint``, ``sdy.manual_computation``
    ...) are refused by :func:`validate_input` before this runs.

    Returns:
        The number of attributes and mesh ops removed.
    """
    from .ir import ir

    removed = 0
    with loaded.context:
        from .ir import identity_key

        census = input_census(loaded)  # its attr_holders: the ops holding a sharding attribute
        tops = [op.operation for op in loaded.module.body.operations]
        funcs = [f for t in tops for f in census.ops_named(t, "func.func")]  # nested modules' too
        done = {identity_key(f) for f in funcs}
        ops = funcs + [o for o in census.attr_holders if identity_key(o) not in done]
        for op in ops:
            names = [op.attributes[i].name for i in range(len(op.attributes))]
            for name in names:
                if name in SHARDING_ATTRS:
                    del op.attributes[name]
                    removed += 1
            if op.name == "func.func":
                for key in ("arg_attrs", "res_attrs"):
                    if key not in op.attributes:
                        continue
                    arr = ir.ArrayAttr(op.attributes[key])
                    new, changed = [], False
                    for a in arr:
                        d, c = _strip_dict(ir.DictAttr(a), ir)
                        new.append(d)
                        changed |= c
                    if changed:
                        op.attributes[key] = ir.ArrayAttr.get(new)
                        removed += 1
        meshes = [op.operation for op in loaded.module.body.operations if op.operation.name == "sdy.mesh"]
        for m in meshes:
            m.erase()
            removed += 1
    if removed:
        loaded.extras.pop("census", None)  # ops erased: the input census is stale
    return removed


def _resolve_config(config: CompileConfig | str | None, spine: str) -> CompileConfig:
    if isinstance(config, str):
        try:
            config = CompileConfig.preset(config)
        except ValueError as e:
            raise HiloError(str(e)) from None
    elif config is not None and not isinstance(config, CompileConfig):
        raise HiloError(f"config must be a CompileConfig or a preset name ('default', 'all'), not {type(config).__name__}")
    config = config or CompileConfig()
    if spine not in ("mhlo", "stablehlo"):
        raise HiloError(f"unknown spine '{spine}' (expected 'mhlo' or 'stablehlo')")
    return config.replace(stablehlo=(spine == "stablehlo") or config.stablehlo)


def compile_loaded(loaded: LoadedModule, config: CompileConfig, instrumentation: Instrumentation | None = None) -> PenguinSource:
    """Run the spine on an already-loaded module; returns the Penguin source.

    Order: :func:`validate_input` (no rewrite before it), :func:`strip_sharding`,
    the stablehlo -> mhlo bridge, then the spine. ``instrumentation.on_pass_start`` (if set) hears
    ``validate-input``, ``stablehlo-legalize-to-hlo`` and every spine pass
    before it starts (the batch engine uses it to name the pass a crash
    happened in).
    """
    loaded.extras.pop("census", None)  # never trust a census taken before this call
    try:
        with gc_paused():
            return _compile_loaded(loaded, config, instrumentation)
    finally:
        loaded.extras.pop("census", None)  # it holds op handles of the module as compiled


def _compile_loaded(loaded: LoadedModule, config: CompileConfig, instrumentation: Instrumentation | None) -> PenguinSource:
    steps = build_spine(config)
    notify = getattr(instrumentation, "on_pass_start", None)
    if notify:
        notify("validate-input")
    with loaded.context:
        loaded.dialect = detect_dialect(loaded.module, input_census(loaded))
    validate_input(loaded, config, steps)
    from .passes.penguinize_io import protect_markers  # keep step 26's markers alive through steps 1 and 13

    census = input_census(loaded)
    module_op = loaded.module.operation
    tops = [op.operation for op in loaded.module.body.operations]
    call_names = sorted(n for n in census.names if n.endswith(".custom_call"))
    calls = [c for t in tops for c in census.ops_named(t, *call_names)]
    protect_markers(module_op, calls)  # attributes only: the census stays valid
    strip_sharding(loaded)
    to_mhlo(loaded, instrumentation)
    extras = {"filename": loaded.filename}
    pipe = Pipeline(steps, instrumentation=instrumentation, extras=extras, verify_each=config.verify_each)
    # Diagnostics that passes emit (e.g. one per unsupported op) are kept as
    # notes of the HiloError instead of being printed raw by MLIR.
    with loaded.context, capture_diagnostics(loaded.context, loaded.filename) as diags:
        try:
            pipe.run(loaded.module, census=loaded.extras.get("census"))
        except HiloError as e:
            e.notes = [d for d in diags if d.message not in e.message] + list(e.notes)
            raise
    src = extras.get("penguin_source")
    if src is None:
        raise HiloError("the pipeline did not end in a printer pass")
    out = PenguinSource(src)
    out.statistics = {k: dict(v) for k, v in pipe.stats.items()}
    out.files = dict(extras.get("penguin_files", {}))
    out.timings = list(pipe.timings)
    return out


def compile_module(text: str | bytes, config: CompileConfig | None = None, spine: str = "mhlo", filename: str = "<string>") -> PenguinSource:
    """Compile MLIR text (mhlo or stablehlo) to Penguin Python.

    Args:
        text: the module (MLIR text or bytecode).
        config: the gates; default :class:`CompileConfig` (the binary's defaults).
        spine: ``"mhlo"`` or ``"stablehlo"``.
        filename: used in diagnostics and ``DebugLocation``.

    Returns:
        :class:`PenguinSource` (a ``str``), with ``.statistics`` and ``.files``.

    Raises:
        HiloError: parse errors, pass failures, verifier failures.
    """
    cfg = _resolve_config(config, spine)
    return compile_loaded(load_module(text, filename), cfg)


def compile_file(path: str | os.PathLike, config: CompileConfig | None = None, spine: str = "mhlo") -> PenguinSource:
    """Compile a ``.mlir`` file or a serialized ``HloModuleProto`` (``.pb``) to Penguin Python.

    Raises:
        HiloError: missing/empty/unreadable file, ``NCC_DRV001`` for a bad proto,
            and every error of :func:`compile_module`.
    """
    from .io_utils import read_input

    path = os.fspath(path)
    cfg = _resolve_config(config, spine)
    data = read_input(path)
    return compile_loaded(load_module(data, path), cfg)
