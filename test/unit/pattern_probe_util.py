"""Run one registered pass on a module under a probe: its output, statistics and ``--debug`` lines, and what
its pattern cost (walks of the IR and calls of the pattern's ``match``) while the pass ran."""

from __future__ import annotations

import dataclasses

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.pipeline import Pipeline, PipelineEnv, Step

#: the ops whose walk is a walk of the IR a pass runs on
WHOLE = ("func.func", "builtin.module")


@dataclasses.dataclass
class Probe:
    """What one probed run of a pass did: ``walks`` (``Operation``/``OpView.walk`` calls on a function or
    the module while the pass ran, the census's own first walk excluded; the census walking the body of an
    op being erased is not counted), ``matches`` (calls of the pattern's ``match``), the
    printed module, the pass's statistics and its debug lines."""

    walks: int = 0
    matches: int = 0
    text: str = ""
    stats: dict | None = None
    log: list | None = None


def run_probed(monkeypatch, argument: str, src: str, pattern_cls, debug: bool = False) -> Probe:
    """Run pass ``argument`` (default options) on ``src`` with the walk and ``pattern_cls.match`` counted."""
    info = registry.get(argument)
    probe = Probe()
    active = [False]
    op_walk, view_walk, match = ir.Operation.walk, ir.OpView.walk, pattern_cls.match

    def counted_op_walk(self, *a, **k):
        probe.walks += active[0] and self.name in WHOLE
        return op_walk(self, *a, **k)

    def counted_view_walk(self, *a, **k):
        probe.walks += active[0] and self.operation.name in WHOLE
        return view_walk(self, *a, **k)

    def counted_match(self, op, rw):
        probe.matches += active[0]
        return match(self, op, rw)

    monkeypatch.setattr(ir.Operation, "walk", counted_op_walk)
    monkeypatch.setattr(ir.OpView, "walk", counted_view_walk)
    monkeypatch.setattr(pattern_cls, "match", counted_match)

    def run(op, ctx):
        ctx.op_counts()  # the census exists before the pass runs: its walk is not the pass's
        active[0] = True
        try:
            info.run(op, ctx)
        finally:
            active[0] = False

    probed = dataclasses.replace(info, run=run)
    with make_context():
        module = ir.Module.parse(src)
        pipe = Pipeline([Step(probed, info.argument, {}, anchor=info.anchor)], env=PipelineEnv(debug=debug))
        pipe.run(module)
        probe.text = str(module)
    probe.stats = dict(pipe.stats.get(info.display_name, {}))
    probe.log = list(pipe.log)
    return probe
