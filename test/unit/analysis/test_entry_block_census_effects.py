"""The scheduling passes' shortcuts: composite effects from the census, result ids, effect asked last.

* :class:`~hilo_mlir.analysis.entry_block.CensusEffectOracle` decides a
  composite by the census's op names of its decomposition, with no walk of it;
  its answers must equal :class:`~hilo_mlir.ir.effects.EffectOracle`'s, and
  the checking mode must catch a census that no longer matches the IR.
* schedule-postorder hands over an :class:`EntryBlock` whose ``result_ids``
  (read with ``o.result`` for one-result ops) equal a fresh read, for ops of
  zero, one and two results.
* hoist-compute asks an op's effect only when its inputs allow hoisting.
"""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.entry_block import CensusEffectOracle, EntryBlock
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.passes.scheduling.hoist_compute import hoistable_ops
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo

T = "tensor<4xf32>"

COMPOSITES = f"""
module {{
  func.func private @pure(%a: {T}) -> {T} {{
    %0 = stablehlo.negate %a : {T}
    %1 = stablehlo.add %0, %a : {T}
    return %1 : {T}
  }}
  func.func private @noisy(%a: {T}) -> {T} {{
    %0 = stablehlo.custom_call @fx(%a) {{has_side_effect = true}} : ({T}) -> {T}
    return %0 : {T}
  }}
  func.func private @wraps_noisy(%a: {T}) -> {T} {{
    %0 = stablehlo.composite "t.n" %a {{decomposition = @noisy}} : ({T}) -> {T}
    return %0 : {T}
  }}
  func.func private @wraps_pure(%a: {T}) -> {T} {{
    %0 = stablehlo.composite "t.p" %a {{decomposition = @pure}} : ({T}) -> {T}
    %1 = stablehlo.abs %0 : {T}
    return %1 : {T}
  }}
  func.func private @cycle_a(%a: {T}) -> {T} {{
    %0 = stablehlo.composite "t.b" %a {{decomposition = @cycle_b}} : ({T}) -> {T}
    return %0 : {T}
  }}
  func.func private @cycle_b(%a: {T}) -> {T} {{
    %0 = stablehlo.composite "t.a" %a {{decomposition = @cycle_a}} : ({T}) -> {T}
    return %0 : {T}
  }}
  func.func @main(%x: {T}) -> {T} {{
    %0 = stablehlo.composite "t.pure" %x {{decomposition = @pure}} : ({T}) -> {T}
    %1 = stablehlo.composite "t.noisy" %0 {{decomposition = @noisy}} : ({T}) -> {T}
    %2 = stablehlo.composite "t.wn" %1 {{decomposition = @wraps_noisy}} : ({T}) -> {T}
    %3 = stablehlo.composite "t.wp" %2 {{decomposition = @wraps_pure}} : ({T}) -> {T}
    %4 = stablehlo.composite "t.cy" %3 {{decomposition = @cycle_a}} : ({T}) -> {T}
    return %4 : {T}
  }}
}}
"""

#: the effect of each composite of @main, in order
EXPECTED = [False, True, True, False, True]


def _main_ops(m: ir.Module) -> tuple[ir.Operation, list[ir.Operation]]:
    main = [o.operation for o in m.body.operations][-1]
    return main, [o.operation for o in main.regions[0].blocks[0].operations][:-1]


def test_census_oracle_answers_as_the_walking_oracle(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(COMPOSITES)
        main, ops = _main_ops(m)
        walking = [EffectOracle(main)(o) for o in ops]
        census = [CensusEffectOracle(main, Census(m.operation))(o) for o in ops]
        assert walking == EXPECTED
        assert census == EXPECTED


def test_census_oracle_walks_no_function_body(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)

    def no_walk(self, f):
        raise AssertionError("a function body was walked")

    monkeypatch.setattr(EffectOracle, "_body_effect", no_walk)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(COMPOSITES)
        main, ops = _main_ops(m)
        oracle = CensusEffectOracle(main, Census(m.operation))
        assert [oracle(o) for o in ops] == EXPECTED
        with pytest.raises(AssertionError, match="walked"):
            EffectOracle(main)(ops[0])


def _make_pure_noisy(m: ir.Module) -> None:
    """Put a side-effecting custom_call into @pure behind the census's back (no rewriter)."""
    pure = [o.operation for o in m.body.operations][0]
    block = pure.regions[0].blocks[0]
    first = block.operations[0].operation
    ir.Operation.create(
        "stablehlo.custom_call",
        results=[],
        operands=[block.arguments[0]],
        attributes={"call_target_name": ir.StringAttr.get("fx"), "has_side_effect": ir.BoolAttr.get(True)},
        ip=ir.InsertionPoint(first),
    )


def test_checking_mode_catches_a_stale_census(monkeypatch):
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(COMPOSITES)
        main, ops = _main_ops(m)
        census = Census(m.operation)
        _make_pure_noisy(m)
        assert EffectOracle(main)(ops[0]) is True  # the truth now
        monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
        assert CensusEffectOracle(main, census)(ops[0]) is False  # the stale census's answer
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
        with pytest.raises(AssertionError, match="the census says False for a function body, a walk says True"):
            CensusEffectOracle(main, census)(ops[0])


RESULTS = f"""
module {{
  func.func @main(%x: {T}, %y: {T}) -> ({T}, {T}) {{
    %0:2 = stablehlo.custom_call @two(%x, %y) : ({T}, {T}) -> ({T}, {T})
    stablehlo.custom_call @none(%0#1) {{has_side_effect = true}} : ({T}) -> ()
    %1 = stablehlo.add %0#0, %y : {T}
    %2 = stablehlo.multiply %1, %0#1 : {T}
    return %2, %1 : {T}, {T}
  }}
}}
"""


def test_postorder_hands_over_result_ids_of_a_fresh_read():
    seen: list = []

    def probe(f, ctx):
        kept = ctx.analyses.cached(EntryBlock, f)
        fresh = EntryBlock(f)
        seen.append((kept.result_ids, fresh.result_ids, [[hash(r) for r in o.results] for o in fresh.ops], kept.differences(fresh)))

    info = PassInfo("test-probe-result-ids", "t", probe)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(RESULTS)
        Pipeline([step_for("stablehlo-schedule-postorder"), Step(info, info.argument, anchor="func.func")], check_analyses=True).run(m)
    [(kept, fresh, truth, differences)] = seen
    # reordered (the ids permuted with the ops): @two, add, multiply, then @none (an effect after @two), return
    assert [len(ids) for ids in kept] == [2, 1, 1, 0, 0]
    assert kept == fresh == truth
    assert differences == []


HOIST = f"""
module {{
  func.func private @pure(%a: {T}) -> {T} {{
    %0 = stablehlo.negate %a : {T}
    return %0 : {T}
  }}
  func.func @main(%x: {T}, %w: {T}) -> ({T}, {T}) attributes {{slowChangingIns = array<i64: 1>}} {{
    %0 = stablehlo.composite "t.late" %x {{decomposition = @pure}} : ({T}) -> {T}
    %1 = stablehlo.composite "t.param" %w {{decomposition = @pure}} : ({T}) -> {T}
    %2 = stablehlo.add %0, %1 : {T}
    return %2, %1 : {T}, {T}
  }}
}}
"""


class _Counting(EffectOracle):
    def __init__(self, anchor):
        super().__init__(anchor)
        self.asked: list[str] = []

    def __call__(self, op):
        self.asked.append(str(ir.StringAttr(op.attributes["name"]).value))
        return super().__call__(op)


def test_hoist_asks_the_effect_only_of_ops_its_inputs_allow():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(HOIST)
        main = [o.operation for o in m.body.operations][1]
        oracle = _Counting(main)
        hoistable = hoistable_ops(main, EntryBlock(main), (), oracle)
        # %0 reads %x (not a parameter): its composite's effect is not asked; %1 reads %w only
        assert hoistable == [False, True, False, False]
        assert oracle.asked == ["t.param"]
