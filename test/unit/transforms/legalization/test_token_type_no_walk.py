"""``replace-token-type-with-u8`` on the pattern layer: nothing walked when the module has no token,
the same rewrite as before when it has (the lit cases in test/lit/legalization/ hold the IR)."""

from hilo_mlir.analysis import census as census_mod
from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.legalization import token_type
from hilo_mlir.passmanager.pipeline import Pipeline, step_for
from hilo_mlir.rewrite.rewriter import Change

NO_TOKEN = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
func.func private @decl(tensor<2xf32>) -> tensor<2xf32>
"""

# the token only in a declaration's signature: no value has it
DECLARED_TOKEN = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  return %a : tensor<2xf32>
}
func.func private @decl(!stablehlo.token) -> tensor<2xf32>
"""

WITH_TOKEN = """
func.func @main(%a: tensor<2xf32>, %t: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {
  %0 = stablehlo.after_all %t : !stablehlo.token
  %1 = stablehlo.tuple %a, %0 : tuple<tensor<2xf32>, !stablehlo.token>
  %2 = stablehlo.get_tuple_element %1[1] : (tuple<tensor<2xf32>, !stablehlo.token>) -> !stablehlo.token
  return %a, %2 : tensor<2xf32>, !stablehlo.token
}
"""


def _counting(monkeypatch):
    """Count what would walk or scan the module for the token pass ("type-reads": the census taking its
    types from its op lists, once per census, when the pass asks)."""
    calls = {"type-reads": 0, "patterns": 0, "first-required": 0}
    value_types, patterns, first = census_mod._read_types, token_type.apply_patterns_once, token_type._first_required

    def count(name, f):
        def wrapped(*a, **k):
            calls[name] += 1
            return f(*a, **k)

        return wrapped

    monkeypatch.setattr(census_mod, "_read_types", count("type-reads", value_types))
    monkeypatch.setattr(token_type, "apply_patterns_once", count("patterns", patterns))
    monkeypatch.setattr(token_type, "_first_required", count("first-required", first))
    return calls


def _run(text, census=None, check=True):
    """canonicalize, then the pass; ``check``: the checking mode (its fresh census takes types itself)."""
    seen: list = []
    with make_context():
        m = ir.Module.parse(text)
        pipe = Pipeline([step_for("canonicalize"), step_for("stablehlo-replace-token-type-with-u8")], check_analyses=check)
        pipe.run(m, census=census(m) if census else None)
        seen.append(str(m))
    return pipe, seen[0]


def test_no_token_no_walk(monkeypatch):
    calls = _counting(monkeypatch)
    pipe, out = _run(NO_TOKEN, check=False)
    assert calls == {"type-reads": 1, "patterns": 0, "first-required": 0}
    assert pipe.changes[-1][1] == Change.NONE
    assert "tensor<ui8>" not in out


def test_no_token_no_walk_after_a_handed_over_census_without_types(monkeypatch):
    # the upstream step drops the handed-over census; the one rebuilt for the pass reads its types once
    calls = _counting(monkeypatch)
    _run(NO_TOKEN, census=lambda m: Census(m.operation), check=False)
    assert calls["type-reads"] == 1 and calls["patterns"] == 0


def test_token_in_a_declaration_only_is_still_rewritten(monkeypatch):
    calls = _counting(monkeypatch)
    pipe, out = _run(DECLARED_TOKEN, check=False)
    assert calls["patterns"] == 1
    assert calls["type-reads"] == 1
    assert "func.func private @decl(tensor<ui8>) -> tensor<2xf32>" in out
    assert pipe.stats["StableHLOReplaceTokenTypeWithU8"]["signatures-rewritten"] == 1


def test_tokens_are_replaced_by_patterns():
    pipe, out = _run(WITH_TOKEN)
    assert "!stablehlo.token" not in out
    assert "stablehlo.constant dense<0> : tensor<ui8>" in out
    assert "tuple<tensor<2xf32>, tensor<ui8>>" in out
    stats = pipe.stats["StableHLOReplaceTokenTypeWithU8"]
    # after_all replaced; retyped: the argument %t, the tuple, the get_tuple_element; main's signature
    assert (stats["token-producers-replaced"], stats["values-retyped"], stats["signatures-rewritten"]) == (1, 3, 1)


def test_checking_mode_holds_on_both():
    _run(NO_TOKEN)
    _run(DECLARED_TOKEN)
