"""Spine step 18 analyze-schedule: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from conftest import corpus_path
from pass_semantics_util import run

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.utils import type_bytes
from hilo_mlir.passes.scheduling.analyze_schedule import peak_live_bytes
from hilo_mlir.testing import find_main

# --------------------------------------------------------------------------- 18 analyze-schedule


def _peak_brute_force(text: str) -> int:
    """O(n^2) reference: at each point, sum the bytes of values defined at or before it and used at or after it."""
    with make_context():
        m = ir.Module.parse(text)
        f = find_main(m)
        block = f.regions[0].blocks[0]
        ops = [o.operation for o in block.operations]
        pos = {o: i for i, o in enumerate(ops)}

        def top(o):
            while o not in pos:
                o = o.parent.operation
            return o

        vals = [(a, 0) for a in block.arguments] + [(r, i) for i, o in enumerate(ops) for r in o.results]
        ranges = []
        for v, d in vals:
            last = max([d] + [pos[top(u.owner.operation)] for u in v.uses])
            ranges.append((d, last, type_bytes(v.type) or 0))
        return max(sum(b for d, last, b in ranges if d <= i <= last) for i in range(len(ops)))


@pytest.mark.parametrize("name", ["decoder_layer", "attention", "logsumexp_rows"])
def test_analyze_schedule_matches_brute_force(name):
    src = corpus_path("jax", f"{name}.stablehlo.mlir").read_text()
    out = run(src, "stablehlo-analyze-schedule")
    expected = _peak_brute_force(src)
    assert f"neuron.peak_live_bytes = {expected} : i64" in out
    with make_context():
        m = ir.Module.parse(src)  # keep the module alive while its ops are used
        assert peak_live_bytes(find_main(m))[0] == expected
