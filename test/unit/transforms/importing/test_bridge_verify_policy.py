"""The import step's bridge verifies as the pipeline it runs in does (the main job: once, before printing)."""

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager import pipeline as pipeline_mod
from hilo_mlir.passmanager.pipeline import Pipeline, step_for

TEXT = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


@pytest.mark.binary_verification
@pytest.mark.parametrize("verify_each", [True, False])
def test_bridge_follows_the_pipeline_policy(monkeypatch, verify_each):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)  # counts the default mode's census builds
    policies: list = []
    init = Pipeline.__init__

    def record(self, steps, *a, **k):
        init(self, steps, *a, **k)
        policies.append(([s.argument for s in self.steps], self.verify_each, self.env.verify_each, self.verify_at_end))

    monkeypatch.setattr(pipeline_mod.Pipeline, "__init__", record)
    with make_context():
        m = ir.Module.parse(TEXT)
        Pipeline([step_for("hilo-import")], verify_each=verify_each, check_analyses=False).run(m)
        assert "mhlo.add" in str(m)
    assert policies == [
        (["hilo-import"], verify_each, verify_each, True),
        (["stablehlo-legalize-to-hlo"], verify_each, verify_each, verify_each),
    ]
