"""Spine step 17 schedule-postorder: semantics before and after the pass (StableHLO reference interpreter, bit for bit), exact analysis values."""

from __future__ import annotations

import pytest
from conftest import corpus_path
from pass_semantics_util import assert_same, run

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import module_to_text

# --------------------------------------------------------------------------- 17 schedule-postorder


@pytest.mark.parametrize("name", ["decoder_layer", "attention", "swiglu_mlp_bf16", "rmsnorm"])
def test_schedule_postorder_corpus_semantics(name):
    src = corpus_path("jax", f"{name}.stablehlo.mlir").read_text()
    out = run(src, "stablehlo-schedule-postorder")
    assert_same(src, out)
    # Idempotent: a second run moves nothing.
    _, stats = run(out, "stablehlo-schedule-postorder", stats=True)
    assert sum(c["ops-moved"] for c in stats.values()) == 0


def _tagged(text: str) -> str:
    """``text`` with a discardable ``test.tag = N`` on every op of main's body."""
    with make_context():
        m = ir.Module.parse(text)
        f = [o for o in m.body.operations][0]
        for i, o in enumerate(f.regions[0].blocks[0].operations):
            o.operation.attributes["test.tag"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(32), i)
        return module_to_text(m)


def _tags(text: str, reference: bool = False) -> list[int]:
    """Tags of main's body ops in block order, or (``reference``) in an independent
    recursive post-order from the terminator, unreached ops appended in order."""
    with make_context():
        m = ir.Module.parse(text)
        f = [o for o in m.body.operations][0]
        ops = [o.operation for o in f.regions[0].blocks[0].operations]
        tag = lambda o: ir.IntegerAttr(o.attributes["test.tag"]).value
        if not reference:
            return [tag(o) for o in ops[:-1]]
        idx = {o: i for i, o in enumerate(ops)}
        seen, out = set(), []

        def visit(o):
            if o in seen:
                return
            seen.add(o)
            for v in o.operands:
                if not isinstance(v.owner, ir.Block) and v.owner.operation in idx:
                    visit(v.owner.operation)
            out.append(tag(o))

        for v in ops[-1].operands:
            if not isinstance(v.owner, ir.Block):
                visit(v.owner.operation)
        for o in ops[:-1]:
            visit(o)
        return out


@pytest.mark.parametrize("name", ["attention", "decoder_layer"])
def test_schedule_postorder_matches_reference_dfs(name):
    src = _tagged(corpus_path("jax", f"{name}.stablehlo.mlir").read_text())
    out = run(src, "stablehlo-schedule-postorder")
    expected = _tags(src, reference=True)
    assert _tags(out) == expected
    assert expected != _tags(src)  # the pass really reordered something
