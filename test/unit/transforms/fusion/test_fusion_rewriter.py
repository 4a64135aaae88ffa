"""The fusion passes mutate only through the rewriter, and what they changed is derived from it.

For every case of the fusion passes' lit files, each pass runs in the
checking mode (``HILO_MLIR_CHECK_ANALYSES``: the module's fingerprint and a
fresh census are compared with what the rewriter recorded, the verifier runs
after every pass) and

* a case the pass leaves unchanged records no change at all (so the pipeline
  skips the verifier and keeps every analysis);
* a case it rewrites records the kinds of change it made.

Also: the :class:`~hilo_mlir.fusion.OrderIndex` stays exact when the rewriter
moves ops it was not told about, and the FusionKind vocabulary exists once
(the printers' tables cover exactly :data:`hilo_mlir.ir.dialects.FUSION_KINDS`).
"""

import itertools
import pathlib
import re

import pytest

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.fusion import OrderIndex
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import FUSION_KINDS
from hilo_mlir.ir.utils import op_key
from hilo_mlir.passmanager.pipeline import Pipeline, steps_from_text
from hilo_mlir.rewrite.rewriter import Change, Rewriter

LIT = pathlib.Path(__file__).resolve().parents[3] / "lit"

#: lit file -> [(preparation pipeline or "", the fusion pass under test)]
CASES = {
    "fusion/dot_logistic.mlir": [("", "neuron-op-fusion{fuse-dot-logistic=true}"), ("", "neuron-op-fusion")],
    "fusion/transcendental.mlir": [("", "neuron-op-fusion{general-elementwise-fusion=true}")],
    "fusion/elementwise.mlir": [("", "neuron-op-fusion{general-elementwise-fusion=true}")],
    "fusion/mul_red_sqrt.mlir": [("", "neuron-op-fusion{fuse-dot-logistic=true}")],
    "fusion/stablehlo.mlir": [("", "stablehlo-neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true}")],
    "fusion/cluster.mlir": [("", "test-fusion-cluster"), ("", "stablehlo-test-fusion-cluster")],
    "fusion/fusion_to_composite.mlir": [("", "fusion-to-composite")],
    "fusion/raise_logistic.mlir": [("", "raise-logistic"), ("raise-logistic", "stablehlo-neuron-op-fusion{fuse-dot-logistic=true}")],
    "legalization/convert-fs-pattern-to-custom-calls.mlir": [
        ("", "stablehlo-convert-fs-pattern-to-custom-calls"),
        ("stablehlo-legalize-to-hlo", "convert-fs-pattern-to-custom-calls"),
    ],
    "scheduling/schedule-fusion.mlir": [("", "stablehlo-schedule-fusion"), ("stablehlo-legalize-to-hlo", "schedule-fusion")],
}


def _cases():
    for name, pipes in CASES.items():
        text = (LIT / name).read_text()
        for chunk in text.split("// -----"):
            m = re.search(r"func\.func @([\w.]+)", chunk)
            if not m or "expected-error" in chunk:
                continue
            for pre, p in pipes:
                yield pytest.param(chunk, pre, p, id=f"{name}:{m.group(1)}:{p.split('{')[0]}")


@pytest.mark.parametrize("text,pre,pipeline", list(_cases()))
def test_changes_are_recorded_and_nothing_to_do_records_nothing(text, pre, pipeline):
    with make_context():
        m = ir.Module.parse(text)
        if pre:
            Pipeline.from_text(f"builtin.module({pre})").run(m)
        before = str(m)
        pipe = Pipeline(steps_from_text(f"builtin.module({pipeline})"), check_analyses=True)
        try:
            pipe.run(m)
        except AnalysisCheckError as e:  # pragma: no cover - the failure this test exists for
            pytest.fail(str(e))
        after = str(m)
    [(_, changed)] = pipe.changes
    if after == before:
        assert changed == Change.NONE, f"{pipeline} left the IR unchanged but recorded {changed!r}"
    else:
        assert changed != Change.NONE and not (changed & Change.UNKNOWN)


CHAIN = """func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.abs %x : tensor<4xf32>
  %1 = stablehlo.negate %0 : tensor<4xf32>
  %2 = stablehlo.sine %1 : tensor<4xf32>
  %3 = stablehlo.cosine %2 : tensor<4xf32>
  return %3 : tensor<4xf32>
}"""


def test_order_index_listening_to_the_rewriter_survives_unnoted_moves_and_erasures():
    with make_context():
        m = ir.Module.parse(CHAIN)
        block = m.body.operations[0].regions[0].blocks[0]
        ops = [o.operation for o in block.operations]
        rw = Rewriter(m.operation)
        with OrderIndex(rw) as order:
            assert order.is_before(ops[0], ops[3])
            rw.move_before(ops[3], ops[0])  # no placement note: the index must not trust its old position
            assert order.is_before(ops[3], ops[0]) and order.is_before(ops[0], ops[1])
            real = [o.operation for o in block.operations]
            assert [op_key(order.next_op(a)) for a in real[:-1]] == [op_key(b) for b in real[1:]]
            rw.move_after(ops[3], ops[2])  # back after its operand
            dead = rw.create("stablehlo.negate", results=[ops[0].results[0].type], operands=[ops[0].results[0]], after=ops[0])
            rw.erase_op(dead)  # erased: its address may be reused, the index must have dropped it
            real = [o.operation for o in block.operations]
            assert all(order.is_before(a, b) and not order.is_before(b, a) for a, b in itertools.pairwise(real))
            assert [op_key(order.prev_op(b)) for b in real[1:]] == [op_key(a) for a in real[:-1]]
        assert order not in rw.listeners
        m.operation.verify()


def test_the_fusion_kind_list_exists_once():
    from hilo_mlir.printers import supported

    assert set(supported.FUSION_KINDS) == set(FUSION_KINDS)
    assert set(supported.COMPOSITE_KINDS) == set(FUSION_KINDS)
