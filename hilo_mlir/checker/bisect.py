"""Bisection of a less-accurate output: first the spine pass, then the fusion cluster.

1. **Spine.** The module after the import step and the spine up to its k-th pass
   (``--max-pass-index``, counted as ``--dump-pass-pipeline`` lists the steps: the
   import step is 0, or 1 after ``refine-shapes`` with input types) runs through the mhlo/stablehlo -> XLA
   path (fusions and composites inlined) and is judged against the f64 truth
   with the same rule as the full check, for the outputs that failed. A prefix
   XLA cannot run (a neuron custom call the spine introduced) is run instead
   as ``penguin.py`` compiled with ``--max-pass-index k`` on the reference
   backend. Binary search over k finds the first failing prefix: its last pass
   is the culprit. The ops it created or changed (by name, attributes, types and
   location) are listed with ``file:line:col``.
2. **Clusters.** If the culprit prefix formed fusion clusters and passes with
   ``--fusion-fuel 0``, a binary search over the fuel finds the first cluster
   whose forming makes it fail: its pass, kind and location are named.
3. **Reproducer.** The IR right before the culprit pass, with locations, and
   that pass as the ``mlir_reproducer`` pipeline (``--mlir-pass-pipeline-crash-reproducer``
   format; ``hilo-opt FILE --run-reproducer`` replays it).

Deterministic: the inputs are fixed by the seed and every run is a fresh compile.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass, field

from hilo_mlir.checker import evaluate as ev
from hilo_mlir.checker.errors import CheckError
from hilo_mlir.checker.verdict import judge
from hilo_mlir.ir.dialects import TERMINATORS
from hilo_mlir.support.diagnostics import HiloError


@dataclass
class Bisection:
    """What the bisection found (JSON-ready through :meth:`as_dict`).

    Attributes:
        outputs: the less-accurate outputs it followed.
        pass_index: the culprit's ``--max-pass-index`` (the import step's index -- 0, or 1 after
            ``refine-shapes`` -- when the import step is the culprit; None: the printer or backend).
        pass_name: the culprit pass with its options.
        path: how the failing prefix was run: ``xla`` or ``penguin``.
        ops: ops the culprit pass created or changed: ``{"op", "loc"}``.
        cluster: the culprit cluster ``{"index", "pass", "kind", "loc", "ops"}`` or None.
        trace: every probe ``{"max_pass_index", "fusion_fuel", "path", "fails"}`` in order.
        reproducer: the reproducer's path (None when not written).
    """

    outputs: list
    pass_index: int | None = None
    pass_name: str | None = None
    path: str = ""
    ops: list = field(default_factory=list)
    cluster: dict | None = None
    trace: list = field(default_factory=list)
    reproducer: str | None = None
    note: str = ""

    def as_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)

    def text_lines(self) -> list[str]:
        if self.pass_index is None:
            head = "bisection: every spine prefix is as accurate as XLA; the culprit is the printer or the reference backend."
            return [f"{head} {self.note}".rstrip()]
        lines = [f"bisection: first less-accurate prefix ends at pass ({self.pass_index}) '{self.pass_name}' (run through {self.path})"]
        for o in self.ops[:5]:
            lines.append(f"  {o['loc']}: '{o['op']}' created or changed by '{self.pass_name}'")
        if len(self.ops) > 5:
            lines.append(f"  ... and {len(self.ops) - 5} more op(s)")
        if self.cluster is not None:
            c = self.cluster
            lines.append(
                f"  cluster #{c['index']} ({c['kind']}, {c['ops']} ops) formed by '{c['pass']}' at {c['loc']} "
                f"(--fusion-fuel {c['index']} fails, {c['index'] - 1} passes)"
            )
        if self.note:
            lines.append(f"  {self.note}")
        return lines


class _Prober:
    def __init__(self, subject, cfg, inputs, out_x, out_t, outputs):
        from hilo_mlir.driver.spine import pipeline_steps

        self.subject, self.cfg, self.inputs = subject, cfg.with_input_types(subject.input_types), inputs
        self.out_x, self.out_t, self.outputs = out_x, out_t, outputs
        steps = pipeline_steps(self.cfg)
        head = next(i for i, s in enumerate(steps) if s.argument == "hilo-import") + 1
        self.head = steps[:head]  # refine-shapes (with input types), hilo-import
        self.base = head - 1  # the pipeline index of hilo-import: spine prefix k is --max-pass-index base + k
        self.steps = [s for s in steps[head:] if not (s.info is not None and s.info.terminal)]
        self.trace: list = []

    def prefix(self, k: int, fuel: int | None = None):
        """(module text with locations, the clusters paid for) after the import step and spine indices <= k."""
        from hilo_mlir.driver.compiler import _gates, load_module
        from hilo_mlir.fusion.fuel import FusionFuel
        from hilo_mlir.passmanager.pass_context import CompileOutputs, PipelineEnv
        from hilo_mlir.passmanager.pipeline import Pipeline
        from hilo_mlir.passmanager.reproducer import snapshot

        s = self.subject
        loaded = load_module(s.data, s.filename, allow_unregistered=s.allow_unregistered)
        tank = FusionFuel(fuel)
        env = PipelineEnv(filename=s.filename, gates=_gates(self.cfg))
        # indices as in the driver's pipeline and --dump-pass-pipeline
        pipe = Pipeline(
            [*self.head, *self.steps],
            env=env,
            outputs=CompileOutputs(fusion_fuel=tank),
            verify_each=False,
            max_pass_index=self.base + k,
        )
        with loaded.context:
            pipe.run(loaded.module)
            return snapshot(loaded.module.operation, s.filename), list(tank.spent)

    def fails(self, k: int, fuel: int | None = None) -> bool:
        """Whether the prefix ``k`` (with ``fuel``) is less accurate than XLA on the followed outputs."""
        path = "xla"
        try:
            text, _ = self.prefix(k, fuel)
            outs = ev.run_xla(ev.evaluable(text), self.inputs, what=f"the prefix ending at pass ({k})")
        except CheckError:
            path = "penguin"
            try:
                src = _compile(self.subject, self.cfg.replace(max_pass_index=self.base + k, fusion_fuel=fuel))
                outs = ev.run_penguin(src, self.inputs)
            except CheckError as e:
                raise CheckError(f"bisection: cannot run the prefix ending at pass ({k}): {e.message}") from None
        except HiloError as e:
            raise CheckError(f"bisection: the prefix ending at pass ({k}) does not compile: {e.message}") from None
        verdicts = judge(outs, self.out_x, self.out_t, only=self.outputs)
        bad = any(not v.ok for v in verdicts)
        self.trace.append({"max_pass_index": k, "fusion_fuel": fuel, "path": path, "fails": bad})
        self.last_path = path
        return bad


def _compile(subject, cfg):
    return ev.compile_subject(subject, cfg)


def _first_failing(lo: int, hi: int, fails) -> int:
    """Smallest k in (lo, hi] with fails(k), given not fails(lo) and fails(hi)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _op_signatures(text: str, filename: str) -> list[tuple[str, str, str]]:
    """(op name, location, signature) of every op of ``text`` in walk order; the signature ignores SSA names."""
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.support.diagnostics import location_to_str

    out = []
    with make_context():
        m = ir.Module.parse(text)

        def visit(op):
            if op.name == "builtin.module" or op.name in TERMINATORS:
                return ir.WalkResult.ADVANCE
            attrs = sorted(str(op.attributes[i]) for i in range(len(op.attributes)))
            types = [str(r.type) for r in op.results] + [str(v.type) for v in op.operands]
            loc = location_to_str(op.location, filename) or str(op.location)
            out.append((op.name, loc, f"{op.name}|{attrs}|{types}|{op.location}"))
            return ir.WalkResult.ADVANCE

        m.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return out


def changed_ops(before: str, after: str, filename: str) -> list[dict]:
    """Ops of ``after`` that ``before`` does not have (same name, attributes, types and location), in order."""
    left = Counter(sig for _, _, sig in _op_signatures(before, filename))
    out = []
    for name, loc, sig in _op_signatures(after, filename):
        if left[sig] > 0:
            left[sig] -= 1
        else:
            out.append({"op": name, "loc": loc})
    return out


def bisect_failure(subject, cfg, inputs, out_x, out_t, outputs: list[int], out_dir: str | None) -> Bisection:
    """Find the pass (then the cluster) that makes ``outputs`` less accurate; see the module doc.

    Raises:
        CheckError: a prefix cannot be compiled or run.
    """
    p = _Prober(subject, cfg, inputs, out_x, out_t, outputs)
    b = Bisection(outputs=list(outputs))
    n = len(p.steps)
    if p.fails(0):
        b.pass_index, b.pass_name, b.path = p.base, "hilo-import", p.last_path
        b.note = "the module is already less accurate after the import step (validation, sharding strip, bridge to mhlo)"
        b.trace = p.trace
        return b
    if not p.fails(n):
        b.trace = p.trace
        b.note = "(the full spine through XLA is as accurate as XLA; penguin.py is not)"
        return b
    k = _first_failing(0, n, p.fails)
    p.fails(k)  # the path of the culprit prefix
    step = p.steps[k - 1]
    b.pass_index, b.pass_name, b.path = p.base + k, step.text(), p.last_path
    before, _ = p.prefix(k - 1)
    after, spent = p.prefix(k)
    b.ops = changed_ops(before, after, subject.filename)
    if spent and not p.fails(k, 0):
        f = _first_failing(0, len(spent), lambda fuel: p.fails(k, fuel))
        c = spent[f - 1]
        loc = c.location
        if loc.startswith("-:"):  # the parser's buffer name: the input file
            loc = subject.filename + loc[1:]
        b.cluster = {"index": c.index, "pass": c.pass_argument, "kind": c.kind, "loc": loc, "ops": c.ops}
    elif spent:
        b.note = f"the prefix fails with --fusion-fuel 0 too: the pass's own rewriting, not one of its {len(spent)} cluster(s)"
    if out_dir is not None:
        from hilo_mlir.passmanager.reproducer import write_reproducer

        path = os.path.join(out_dir, "reproducer.mlir")
        note = write_reproducer(path, before, "builtin.module(" + step.text() + ")", verify_each=True, failing=step.argument)
        if note.severity == "note":
            b.reproducer = path
    b.trace = p.trace
    return b
