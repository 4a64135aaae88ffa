""":class:`~hilo_mlir.analysis.entry_block.CensusEffectOracle` answers a composite from the kept
:class:`EntryBlock` of its decomposition (the fusion codegen's, with its promise of one block and
every effect known): no census names, no walk. Exact answers; the checking mode catches a wrong one;
without the promise, or with a composite inside, the census's names decide."""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.census import Census
from hilo_mlir.analysis.entry_block import CensusEffectOracle, EntryBlock
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.effects import EffectOracle
from hilo_mlir.ir.utils import func_name, top_funcs

T = "tensor<4xf32>"

TEXT = f"""
module {{
  func.func private @pure(%a: {T}) -> {T} {{
    %0 = stablehlo.negate %a : {T}
    return %0 : {T}
  }}
  func.func private @noisy(%a: {T}) -> {T} {{
    %0 = stablehlo.custom_call @fx(%a) {{has_side_effect = true}} : ({T}) -> {T}
    return %0 : {T}
  }}
  func.func @main(%x: {T}) -> {T} {{
    %0 = stablehlo.composite "t.pure" %x {{decomposition = @pure}} : ({T}) -> {T}
    %1 = stablehlo.composite "t.noisy" %0 {{decomposition = @noisy}} : ({T}) -> {T}
    return %1 : {T}
  }}
}}
"""


class _Kept:
    """The part of the analysis manager the oracle asks: the EntryBlock kept per function name."""

    def __init__(self, kept: dict, checking: bool = False) -> None:
        self.kept, self.checking = kept, checking
        self.asked: list[str] = []

    def cached(self, cls, f):
        assert cls is EntryBlock
        self.asked.append(func_name(f))
        return self.kept.get(func_name(f))


def _setup(m: ir.Module, promise: bool = True) -> tuple[ir.Operation, list, dict]:
    funcs = {func_name(f): f for f in top_funcs(m.operation)}
    kept = {}
    for name in ("pure", "noisy"):
        info = EntryBlock(funcs[name])
        info.nested_blocks = 0 if promise else None
        kept[name] = info
    main = funcs["main"]
    return main, [o.operation for o in main.regions[0].blocks[0].operations][:-1], kept


class _NoNames(Census):
    def names_in(self, f):
        raise AssertionError("the census's names were read")


def test_the_kept_effects_answer_without_names_or_walk(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    monkeypatch.setattr(EffectOracle, "_body_effect", lambda self, f: (_ for _ in ()).throw(AssertionError("walked")))
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        main, ops, kept = _setup(m)
        am = _Kept(kept)
        oracle = CensusEffectOracle(main, _NoNames(m.operation), am)
        assert [oracle(o) for o in ops] == [False, True]
        assert am.asked == ["pure", "noisy"]


def test_without_the_promise_or_with_a_composite_the_names_decide(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        main, ops, kept = _setup(m, promise=False)
        with pytest.raises(AssertionError, match="names were read"):
            CensusEffectOracle(main, _NoNames(m.operation), _Kept(kept))(ops[0])
        main, ops, kept = _setup(m)
        kept["pure"].effects[0] = None  # a composite takes part
        with pytest.raises(AssertionError, match="names were read"):
            CensusEffectOracle(main, _NoNames(m.operation), _Kept(kept))(ops[0])
        assert [CensusEffectOracle(main, Census(m.operation), _Kept(kept))(o) for o in ops] == [False, True]


def test_a_wrong_kept_effect_is_caught_by_the_checking_mode(monkeypatch):
    monkeypatch.delenv("HILO_MLIR_CHECK_ANALYSES", raising=False)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(TEXT)
        main, ops, kept = _setup(m)
        kept["pure"].effects[0] = True  # deliberately wrong: the negate has no effect
        assert CensusEffectOracle(main, Census(m.operation), _Kept(kept))(ops[0]) is True  # trusted unchecked
        with pytest.raises(AssertionError, match="says True for a function body, a walk says False"):
            CensusEffectOracle(main, Census(m.operation), _Kept(kept, checking=True))(ops[0])
        monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", "1")
        with pytest.raises(AssertionError, match="says True for a function body, a walk says False"):
            CensusEffectOracle(main, Census(m.operation), _Kept(kept))(ops[0])
