"""--mlir-timing: the census rebuilt after an upstream step is charged to the step that asked for it."""

import time

from hilo_mlir.analysis import census as census_mod
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, step_for

TEXT = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mhlo.add %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def test_census_rebuild_after_an_upstream_step_is_in_the_next_steps_time(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)  # counts the default mode's census builds
    built = []
    real_init = census_mod.Census.__init__

    def slow_init(self, *a, **k):
        time.sleep(0.3)  # a census walk that is easy to see in the timings
        built.append(1)
        real_init(self, *a, **k)

    monkeypatch.setattr(census_mod.Census, "__init__", slow_init)
    with make_context():
        m = ir.Module.parse(TEXT)
        p = Pipeline([step_for("canonicalize"), step_for("fold-iota")], verify_each=False)
        p.run(m)
    assert built  # the census was rebuilt after canonicalize
    timings = dict(p.timings)
    fold = next(v for k, v in timings.items() if "FoldIota" in k or "fold-iota" in k)
    assert fold >= 0.3 * len(built) / 2, p.timings
    assert sum(timings.values()) >= 0.3 * len(built), p.timings
