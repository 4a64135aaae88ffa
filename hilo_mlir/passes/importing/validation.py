"""Refuse, before any rewrite, inputs the spine cannot compile.

:func:`validate_input` checks, each failure one :class:`HiloError` located at
the op (or function) and naming it:

* an entry function exists and is unambiguous (:func:`entry_function`) and
  has a body;
* every function body ends in ``func.return`` (not, e.g., ``mhlo.return``);
* no entry-function argument has a tuple type;
* no dense constant too large for the memory left
  (:func:`hilo_mlir.ir.limits.check_constants`);
* in a module that declares ``mhlo.num_replicas`` / ``mhlo.num_partitions``,
  every collective's groups fit those devices (:func:`_check_collective_groups`);
* in program order (a pre-order walk of the module):

  - no Shardy op other than ``sdy.mesh`` (``sdy.sharding_constraint``,
    ``sdy.manual_computation``, ``sdy.reshard`` ...);
  - no shape-computing op (``dynamic_conv``, ``dynamic_reshape``, ... even
    with static types; ``dynamic_slice`` is an ordinary op);
  - no value (op result, block argument, function signature) whose type
    :func:`hilo_mlir.ir.type_legality.type_problem` refuses: dynamic (``?``) or
    unranked shapes, shapes whose size overflows 64 bits, ``memref``,
    quantized (``!quant.*``) element types;
    ``!stablehlo.token`` / ``!mhlo.token`` only if the spine contains
    ``replace-token-type-with-u8``; complex element types only if it
    contains ``lower-complex`` (gate LowerComplex).

Sharding annotations (``sdy.mesh``, ``sdy.sharding``, ``mhlo.sharding``) are
accepted; :func:`hilo_mlir.passes.importing.sharding.strip_sharding` drops them right
after this check.

Cost: the input census (op names and every value type) says whether any
walk-order check can fail; only then is the module walked to find the first
failure and its location.
"""

from __future__ import annotations

from hilo_mlir.ir.dialects import NUM_PARTITIONS_ATTR, NUM_REPLICAS_ATTR, hlo_short_name
from hilo_mlir.ir.type_legality import type_problem
from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.support.entry_point import ENTRY_POINT, entry_point  # noqa: F401 (re-exported)

#: Shape-computing ops: their result shapes are data, which the Penguin program
#: cannot express (and upstream legalizations abort on some of them, e.g.
#: ``mhlo.dynamic_conv`` in ``hlo-legalize-to-stablehlo``), so they are refused
#: before any rewrite even when their types happen to be static.
DYNAMIC_SHAPE_OPS = frozenset(
    [
        "dynamic_broadcast_in_dim",
        "dynamic_conv",
        "dynamic_gather",
        "dynamic_iota",
        "dynamic_pad",
        "dynamic_reshape",
        "real_dynamic_slice",
        "set_dimension_size",
        "get_dimension_size",
        "compute_reshape_shape",
        "cstr_reshapable",
    ]
)
_TOKEN_PASS = "replace-token-type-with-u8"
_COMPLEX_PASS = "lower-complex"


def _func_name(f) -> str:
    return f.attributes["sym_name"].value


def _is_public(f) -> bool:
    return "sym_visibility" not in f.attributes or f.attributes["sym_visibility"].value == "public"


def _function_type(f):
    from hilo_mlir.ir.binding import ir

    return ir.FunctionType(ir.TypeAttr(f.attributes["function_type"]).value)


def entry_function(module, filename: str | None = None):
    """The entry ``func.func`` of ``module`` (an ``ir.Module``): the function named ``main``.

    ``main`` is what the HLO importer names the entry computation and what
    penguinize-io builds the program from; a module without it is refused
    here, before any rewrite, rather than by a pass.

    Raises:
        HiloError: no ``main``: "no entry function" when the module has no
            public function, naming the function when it has one, and naming
            every candidate with its location when it has several.
    """
    from hilo_mlir.support.diagnostics import location_to_str

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


class TypeVerdicts:
    """:func:`~hilo_mlir.ir.type_legality.type_problem` under the spine's lowerings, phrased for the user, cached per type.

    Args:
        steps: the spine steps (which lowering passes it contains).
        lower_complex_gate: the ``lower-complex`` gate (to say why complex types are not lowered).
    """

    def __init__(self, steps, lower_complex_gate: bool):
        args = {s.argument for s in steps}
        self.allow_token = _TOKEN_PASS in args or ("stablehlo-" + _TOKEN_PASS) in args
        self.allow_complex = _COMPLEX_PASS in args or ("stablehlo-" + _COMPLEX_PASS) in args
        self.complex_why = "the pass is not available"  # read only when complex types are refused
        if not self.allow_complex:
            self.complex_why = (
                "LowerComplex is off; remove --disable-lower-complex" if not lower_complex_gate else "the pass is not available"
            )
        self._cache: dict = {}  # type -> message or None (types are uniqued; most values share a few types)

    def __call__(self, t) -> str | None:
        """Why type ``t`` cannot be compiled ("has dynamic shape ..."), or None."""
        p = self._cache.get(t, False)
        if p is False:
            prob = type_problem(t, allow_complex=self.allow_complex, allow_token=self.allow_token)
            p = self._cache[t] = None if prob is None else prob.explain(self.complex_why)
        return p


def _check_entry(module, fname):
    entry = entry_function(module, fname)
    if not len(entry.regions[0].blocks):
        raise HiloError(f"entry function @{_func_name(entry)} is only a declaration (it has no body)", loc=entry.location, filename=fname)
    return entry


def _bad_terminator(f, skip=frozenset()):
    """The terminator of the first body block of the top-level function ``f`` (not in ``skip``, a set
    of ``ir.Block``) that is neither ``func.return`` nor a branch; None if there is none.

    Reads each block's last op (``block.operations[n - 1]``: the binding walks the block's list to it).
    """
    for block in f.regions[0].blocks:
        if block in skip:
            continue
        ops = block.operations
        n = len(ops)
        term = ops[n - 1].operation if n else None
        if term is not None and term.name != "func.return" and len(term.successors) == 0:
            return term
    return None


def _ends_in_return(f, census):
    """The body blocks of the top-level function ``f`` that end in ``func.return``, from the census (no
    walk): the blocks of its ``func.return`` ops (a terminator is its block's last op, as the verifier
    holds). A set of ``ir.Block`` (they hash and compare by their C++ pointer)."""
    return {r.block for r in census.ops_named(f, "func.return", any_order=True)}


def _check_terminators(module, fname, census=None, check: bool = False) -> None:
    """Every block of every top-level function ends in ``func.return`` (or a branch).

    With ``census`` (of the module as it is), a block the census shows ending in ``func.return`` is not
    read; ``check`` (the checking mode): every block is read as well and the answers must agree.

    Raises:
        HiloError: at the first terminator that is neither, naming its function.
        AssertionError: (``check``) the census's answer differs from reading every block.
    """
    from hilo_mlir.ir.binding import identity_key

    for op in module.body.operations:
        f = op.operation
        if f.name != "func.func" or not len(f.regions[0].blocks):
            continue
        term = _bad_terminator(f, _ends_in_return(f, census)) if census is not None else _bad_terminator(f)
        if check and census is not None:
            slow = _bad_terminator(f)
            if (term is None) != (slow is None) or (term is not None and identity_key(term) != identity_key(slow)):
                raise AssertionError(f"validate-input: the census's terminator check of @{_func_name(f)} differs from reading every block")
        if term is not None:
            raise HiloError(
                f"'{term.name}' op cannot terminate function @{_func_name(f)} (expected 'func.return')",
                loc=term.location,
                filename=fname,
            )


def _is_tuple(t) -> bool:
    from hilo_mlir.ir.binding import ir

    return t.typeid == ir.TupleType.static_typeid


def _check_entry_arguments(entry, fname, census=None, check: bool = False) -> None:
    """No argument of the entry function (which has a body) has a tuple type.

    With ``census`` (of the module as it is, types taken): when no value of the module has a tuple
    type, nor has an argument (the entry block's arguments are the function's inputs, as the verifier
    holds), and the signature is not read. ``check`` (the checking mode): it is read as well and the
    answers must agree.

    Raises:
        HiloError: at the entry function, naming the first tuple-typed argument.
        AssertionError: (``check``) the census said no tuple but an argument has one.
    """
    if census is not None and census.has_types and not census.any_type(_is_tuple):
        if check and any(_is_tuple(t) for t in _function_type(entry).inputs):
            raise AssertionError(f"validate-input: the census has no tuple type but an argument of @{_func_name(entry)} has one")
        return
    for i, t in enumerate(_function_type(entry).inputs):
        if _is_tuple(t):
            raise HiloError(
                f"'func.func' op entry function @{_func_name(entry)} argument #{i} has tuple type {t}: "
                "tuple-typed arguments are not supported (pass the elements as separate arguments)",
                loc=entry.location,
                filename=fname,
            )


def _check_interface(module, entry, fname) -> None:
    """The interface attributes the spine reads (``slowChangingIns``, ``input_names``, ...): one located error."""
    from hilo_mlir.ir.interface_attrs import check_interface

    try:
        check_interface(module.operation, entry)
    except HiloError as e:
        e.filename = e.filename or fname
        raise


def _check_constant_sizes(module, census, fname) -> None:
    from hilo_mlir.ir.limits import check_constants

    names = sorted(n for n in census.names if hlo_short_name(n) == "constant")
    if names:
        check_constants([c for top in module.body.operations for c in census.ops_named(top.operation, *names)], fname)


#: collectives whose groups are checked against the module's replicas x partitions
_GROUPED = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "collective_broadcast", "collective_permute")


def _module_count(module, name: str) -> int | None:
    from hilo_mlir.ir.binding import ir

    attrs = module.operation.attributes
    a = attrs[name] if name in attrs else None
    return a.value if isinstance(a, ir.IntegerAttr) else None


def _check_collective_groups(module, census, fname) -> None:
    """Each collective's groups fit the devices the module declares (``mhlo.num_replicas`` x ``mhlo.num_partitions``).

    Only when the module declares at least one of them (the other is then
    1): groups must name existing ids once each and cover them all, with the
    StableHLO spec's reading of ``replica_groups`` / ``channel_handle`` /
    ``use_global_device_ids`` (:func:`hilo_mlir.support.process_groups.groups_of`);
    ``collective_permute`` pairs must name existing ids, each source and target once.

    Raises:
        HiloError: at the first collective that does not fit, naming its groups and the devices.
    """
    r, p = _module_count(module, NUM_REPLICAS_ATTR), _module_count(module, NUM_PARTITIONS_ATTR)
    if r is None and p is None:
        return
    names = sorted(n for n in census.names if hlo_short_name(n) in _GROUPED)
    if not names:
        return
    import re

    import numpy as np

    from hilo_mlir.ir.binding import ir
    from hilo_mlir.support.process_groups import Mesh, check_pairs, groups_of

    mesh = Mesh(max(r or 1, 1), max(p or 1, 1))

    def dense(op, name) -> list:
        if name not in op.attributes:
            return []
        a = np.array(ir.DenseIntElementsAttr(op.attributes[name])).astype(np.int64)
        return [[int(i) for i in row if i >= 0] for row in a.reshape(a.shape[0] if a.ndim else 0, -1).tolist()] if a.size else []

    for top in module.body.operations:
        for op in census.ops_named(top.operation, *names):
            kind = hlo_short_name(op.name)
            assert kind is not None, "names were chosen by their short name"
            m = re.search(r"handle\s*=\s*(-?\d+)", str(op.attributes["channel_handle"])) if "channel_handle" in op.attributes else None
            channel = m is not None and int(m.group(1)) > 0
            try:
                if kind == "collective_permute":
                    check_pairs(mesh, [tuple(x) for x in dense(op, "source_target_pairs")], channel)
                else:
                    groups = [g for g in dense(op, "replica_groups") if g]
                    groups_of(mesh, kind, groups, channel, "use_global_device_ids" in op.attributes)
            except ValueError as e:
                raise HiloError(f"'{op.name}' op: {e}", loc=op.location, filename=fname) from None


def _is_refused_shardy(name: str) -> bool:
    return name.startswith("sdy.") and name != "sdy.mesh"


def _signature_types(funcs) -> set:
    """The input and result types of the ``func.func`` ops ``funcs`` (``ir.Type``)."""
    types: set = set()
    for f in funcs:
        ft = _function_type(f)
        types.update(ft.inputs)
        types.update(ft.results)
    return types


def _census_finds_nothing(module, census, verdict: TypeVerdicts, check: bool = False) -> bool:
    """True if the census proves that no walk-order check can fail (then the module is not walked).

    Looks at the op names (Shardy ops, shape-computing ops), every result and
    block-argument type, and the signatures of the functions whose signature
    types need not be value types (:meth:`~hilo_mlir.analysis.census.Census.signature_only_functions`:
    declarations, nested modules' functions; a function with a body has its inputs
    as entry-block arguments and its results as its return's operands).
    ``check`` (the checking mode): every function's signature is read as well and
    must give the same verdict.

    Raises:
        AssertionError: (``check``) reading every signature gives another verdict.
    """
    names = census.names
    if any(_is_refused_shardy(n) for n in names) or any(hlo_short_name(n) in DYNAMIC_SHAPE_OPS for n in names):
        return False
    values = census.types()
    found = any(verdict(t) for t in values) or any(verdict(t) for t in _signature_types(census.signature_only_functions()))
    if check:
        every = [f for top in module.body.operations for f in census.ops_named(top.operation, "func.func")]
        if found != any(verdict(t) for t in _signature_types(every) | set(values)):
            raise AssertionError("validate-input: the census's signature types give another verdict than every function's")
    return not found


def _refine_hint(arg_types) -> str:
    """How to compile a shape-polymorphic ``main`` in the entry point that is compiling, with its arguments' types as the template."""
    template = ",".join(str(t) for t in arg_types)
    where = ENTRY_POINT.get()
    if where == "jax":
        return (
            "; for a shape-polymorphic module pass concrete example arguments, hj.compile(exported_or_artifact, *arrays), "
            f"of the types {template} with every ? replaced by its size"
        )
    if where == "api":
        how = f"input_types='{template}'"
    elif where == "hilo-opt":
        how = f"run --stablehlo-refine-arguments='types={{{template}}}' --stablehlo-refine-shapes first,"
    else:
        how = f"--input-types='{template}'"
    return f"; for a shape-polymorphic module give the static input types, {how} with every ? replaced by its size"


def _op_problem(op, verdict: TypeVerdicts, fname) -> HiloError | None:
    """The first problem of one op (not its nested ops), or None."""

    def check_types(what, types):
        for i, t in enumerate(types):
            p = verdict(t)
            if p:
                if what == "@main argument" and p.startswith(("has dynamic shape", "has unranked type")):
                    p += _refine_hint(types)
                return HiloError(f"'{op.name}' op {what} #{i} {p}", loc=op.location, filename=fname)
        return None

    name = op.name
    if _is_refused_shardy(name):
        from hilo_mlir.support.partitioning import PARTITION_RECIPE

        return HiloError(
            f"'{name}' op: Shardy ops are not supported: this is the global program of a sharded computation, "
            f"not partitioned into a per-device one; {PARTITION_RECIPE}",
            loc=op.location,
            filename=fname,
        )
    if name == "func.func":
        ft = _function_type(op)
        sym = op.attributes["sym_name"].value
        return check_types(f"@{sym} argument", ft.inputs) or check_types(f"@{sym} result", ft.results)
    if hlo_short_name(name) in DYNAMIC_SHAPE_OPS:
        return HiloError(
            f"'{name}' op computes a dynamic shape: dynamic-shape ops are not supported (export the model with static shapes)",
            loc=op.location,
            filename=fname,
        )
    err = check_types("result", [r.type for r in op.results])
    if err:
        return err
    for region in op.regions:
        for block in region.blocks:
            err = check_types("region argument", [a.type for a in block.arguments])
            if err:
                return err
    return None


def _first_problem(module, verdict: TypeVerdicts, fname) -> HiloError | None:
    """The first op problem in a pre-order walk of ``module``."""
    from hilo_mlir.ir.binding import ir

    found: list = []

    def visit(op):
        err = _op_problem(op, verdict, fname)
        if err is not None:
            found.append(err)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found[0] if found else None


def validate_input(loaded, steps, census=None, lower_complex_gate: bool = True, check: bool | None = None) -> None:
    """Refuse, before any rewrite, inputs the spine cannot compile (see the module doc).

    Args:
        loaded: the :class:`~hilo_mlir.support.loaded.LoadedModule`.
        steps: the pipeline's steps (which lowering passes it contains).
        census: a :class:`~hilo_mlir.analysis.census.Census` of ``loaded.module`` as it
            is now, taken with types (default: take one).
        lower_complex_gate: the ``lower-complex`` gate (to say why complex types are not lowered).
        check: the checking mode (default: ``HILO_MLIR_CHECK_ANALYSES``): the census's answers
            (terminators, tuple arguments, signature types) are compared with reading the module.

    Raises:
        HiloError: the first problem found.
        AssertionError: (``check``) a census answer differs from reading the module.
    """
    verdict = TypeVerdicts(steps, lower_complex_gate)
    fname = loaded.filename
    module = loaded.module
    if check is None:
        from hilo_mlir.ir.binding import checking_mode_enabled

        check = checking_mode_enabled()
    with loaded.context:
        if census is None:
            from hilo_mlir.analysis.census import Census

            census = Census(module.operation, with_types=True)
        entry = _check_entry(module, fname)
        _check_terminators(module, fname, census, check)
        _check_entry_arguments(entry, fname, census, check)
        _check_interface(module, entry, fname)
        _check_constant_sizes(module, census, fname)
        _check_collective_groups(module, census, fname)
        if _census_finds_nothing(module, census, verdict, check):
            return
        err = _first_problem(module, verdict, fname)
        if err is not None:
            raise err
