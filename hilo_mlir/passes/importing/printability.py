"""The first error is the real blocker: refuse, before any rewrite, every op the Penguin printer cannot emit.

The printers' table (:mod:`hilo_mlir.printers.supported`, the one behind the
printers and ``verify-supported-ops``) is asked about the *input*, right
after the driver's own checks, so a module with ``rng_bit_generator`` says
so first -- not that some pass on the way (``sixty-four-hack``, say) cannot
handle an op next to it. Every blocking op is reported, each as its own
located error with the printer's own text (:class:`UnprintableOps`; at most
:data:`LIMIT`).

Only ops that would reach the printer count. What the spine legitimately
lowers or removes before printing is simulated on a clone of the module by
the same passes, never guessed:

* ``chlo`` ops are decomposed by the driver's bridge
  (``chlo-legalize-to-stablehlo``);
* dead ops go in ``remove-dead-values`` (spine step 13, unconditional);
* functions unreachable from ``main`` go in ``prune-functions`` (step 24);
* complex element types are lowered by ``lower-complex`` when the spine has
  it, and tokens are replaced by ``replace-token-type-with-u8``.

The verdict is the spine's printer's: on the MHLO spine a QuantizeMX or
scaled-matmul custom call is refused, naming the StableHLO spine (the MX
path is StableHLO-only, seed 002 §3).

Cost: the input census answers first (op names, the few attribute-dependent
ops, every value type); the clone and the passes run only when it finds an
op or type the table refuses.
"""

from __future__ import annotations

from hilo_mlir.support.diagnostics import HiloError

#: At most this many blocking ops are reported (each as its own line).
LIMIT = 20
_SKIPPED = ("builtin.module", "func.func")


class UnprintableOps(HiloError):
    """The ops of one module the printer cannot emit: the first is the error, :attr:`errors` all of them (located)."""

    errors: list
    more: int

    def lines(self, filename: str | None = None) -> list[str]:
        """One ``file:line:col: error: ...`` line per blocking op (then one line for those past :data:`LIMIT`)."""
        out = [e.format(filename) for e in self.errors]
        if self.more:
            out.append(
                f"{filename or self.filename}: error: {self.more} more ops cannot be emitted by the Penguin printer "
                f"(the first {len(self.errors)} are listed)"
            )
        return out

    def also(self, filename: str | None = None) -> tuple[list, list[str]]:
        """The blocking ops after the first (each its own located error), then the line for those past :data:`LIMIT`."""
        return list(self.errors[1:]), self.lines(filename)[len(self.errors) :]


class _Elements:
    """The element types the printer accepts: its dtype table, plus ``complex<...>`` when the spine lowers complex."""

    def __init__(self, complex_lowered: bool):
        from hilo_mlir.printers.supported import DTYPES

        self.dtypes = DTYPES
        self.complex_lowered = complex_lowered

    def __contains__(self, es: str) -> bool:
        return es in self.dtypes or (self.complex_lowered and es.startswith("complex<"))


class _Verdicts:
    """Why the printer cannot emit an op (None if it can), under the spine's lowerings; cached per name and type."""

    def __init__(self, steps):
        from hilo_mlir.ir.type_legality import type_problem

        args = {s.argument for s in steps}
        # the spine's printer: the MHLO one has no MX path (supported.STABLEHLO_ONLY_TARGETS)
        self.printer = "mhlo" if "mhlo-to-py-penguin" in args else "stablehlo"
        self._elements = _Elements(bool({"lower-complex", "stablehlo-lower-complex"} & args))
        self._type_problem = type_problem
        self._types: dict = {}

    def type_reason(self, t) -> str | None:
        r = self._types.get(t, False)
        if r is False:
            p = self._type_problem(t, element_types=self._elements)
            r = self._types[t] = None if p is None else p.reason()
        return r

    @staticmethod
    def name_reason(name: str) -> str | None:
        from hilo_mlir.printers.supported import name_reason

        if name in _SKIPPED or name.startswith("chlo."):  # chlo: decomposed by the bridge
            return None
        return name_reason(name)

    def op_reason(self, op) -> str | None:
        from hilo_mlir.printers.supported import attribute_dependent, op_reason

        name = op.name
        if name in _SKIPPED:
            return None
        r = op_reason(op, self.printer) if attribute_dependent(name) else self.name_reason(name)
        if r:
            return r
        for what, values in (("operand", op.operands), ("result", op.results)):
            for v in values:
                r = self.type_reason(v.type)
                if r:
                    return f"'{name}' {what}: {r}"
        return None


def _printer_error(op, reason: str, filename: str) -> HiloError:
    """The error the printer itself raises for ``op`` (same text; ``NCC_ISPP054`` for an unknown FusionKind/CompositeKind)."""
    from hilo_mlir.printers.supported import hlo_short

    code = "NCC_ISPP054" if hlo_short(op.name) in ("fusion", "composite") and "Kind" in reason else None
    return HiloError(reason, loc=op.location, code=code, filename=filename)


def _census_finds_nothing(module, census, verdicts: _Verdicts) -> bool:
    from hilo_mlir.printers.supported import attribute_dependent

    dependent = []
    for name in census.names:
        if verdicts.name_reason(name):
            return False
        if attribute_dependent(name):
            dependent.append(name)
    if dependent:
        for top in module.body.operations:
            for op in census.ops_named(top.operation, *dependent):
                if verdicts.op_reason(op):
                    return False
    return not any(verdicts.type_reason(t) for t in census.types())


def _as_printed(loaded, census):
    """A clone of the module after what the spine removes before printing (see the module doc)."""
    from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for

    clone = loaded.module.operation.clone()
    steps = []
    if any(n.startswith("chlo.") for n in census.names):
        steps.append(Step(None, "chlo-legalize-to-stablehlo", cpp_text="func.func(chlo-legalize-to-stablehlo)"))
    steps.append(Step(None, "remove-dead-values", cpp_text="remove-dead-values"))
    stablehlo = any(n.startswith("stablehlo.") for n in census.names) and not any(n.startswith("mhlo.") for n in census.names)
    steps.append(step_for("stablehlo-prune-functions" if stablehlo else "prune-functions"))  # the twin of the module's dialect

    class _Module:
        operation = clone

    Pipeline(steps).run(_Module())
    return clone


def check_printable(loaded, steps, census) -> None:
    """Refuse the module if an op that would reach the printer cannot be emitted (see the module doc).

    Args:
        loaded: the :class:`~hilo_mlir.driver.frontend.loading.LoadedModule` (validated).
        steps: the spine steps (which lowerings it has).
        census: a census of the module as it is now, with types.

    Raises:
        UnprintableOps: located at the first blocking op, listing each of them.
    """
    from hilo_mlir.ir.binding import ir

    verdicts = _Verdicts(steps)
    with loaded.context:
        if _census_finds_nothing(loaded.module, census, verdicts):
            return
        try:
            clone = _as_printed(loaded, census)
        except HiloError:
            return  # the spine will meet the same failure and say it; no blocker to name here
        bad: list = []

        def visit(op):
            r = verdicts.op_reason(op)
            if r:
                bad.append(_printer_error(op, r, loaded.filename))
            return ir.WalkResult.ADVANCE

        clone.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    if not bad:
        return
    first = bad[0]
    err = UnprintableOps(first.message, loc=first.loc, code=first.code, filename=loaded.filename)
    err.errors = bad[:LIMIT]
    err.more = len(bad) - len(err.errors)
    raise err
