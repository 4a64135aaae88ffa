"""convert-fs-pattern-to-custom-calls: its fast paths agree with the slow truth.

* the use-count test of the matched subgraph (``_user_outside``) names the same
  user outside as comparing every owner (``_first_user_outside``), and finds none
  exactly when there is none;
* the memo of constant facts (reduction identities, the -inf guard) shared by the
  softmaxes of a module is checked against fresh reads in the checking mode
  (``HILO_MLIR_CHECK_ANALYSES=1``), where the pass still rewrites both softmaxes.
"""

import pytest

from hilo_mlir.fusion.report import FusionReport
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.dialects import STABLEHLO
from hilo_mlir.passes.legalization import fs_pattern
from hilo_mlir.passmanager.pipeline import CompileOutputs, Pipeline, PipelineEnv

T3 = "tensor<2x16x16xf32>"
T2 = "tensor<2x16xf32>"


def _softmax(n: int, x: str, extra_use: bool = False) -> str:
    """One jax.nn.softmax over dim 2 of ``x``; its results are ``%d{n}`` (and ``%e{n}``, the exponential)."""
    return f"""
  %r{n} = stablehlo.reduce({x} init: %ninf) applies stablehlo.maximum across dimensions = [2] : ({T3}, tensor<f32>) -> {T2}
  %g{n} = stablehlo.broadcast_in_dim %ninf, dims = [] : (tensor<f32>) -> {T2}
  %m{n} = stablehlo.maximum %g{n}, %r{n} : {T2}
  %b{n} = stablehlo.broadcast_in_dim %m{n}, dims = [0, 1] : ({T2}) -> {T3}
  %s{n} = stablehlo.subtract {x}, %b{n} : {T3}
  %e{n} = stablehlo.exponential %s{n} : {T3}
  %u{n} = stablehlo.reduce(%e{n} init: %zero) applies stablehlo.add across dimensions = [2] : ({T3}, tensor<f32>) -> {T2}
  %c{n} = stablehlo.broadcast_in_dim %u{n}, dims = [0, 1] : ({T2}) -> {T3}
  %d{n} = stablehlo.divide %e{n}, %c{n} : {T3}""" + (f"\n  %t{n} = stablehlo.tanh %s{n} : {T3}" if extra_use else "")


def _module(extra_use: bool = False) -> str:
    results = f"{T3}, {T3}" + (f", {T3}" if extra_use else "")
    ret = "%d1, %d2" + (", %t2" if extra_use else "")
    return f"""func.func @main(%x: {T3}, %y: {T3}) -> ({results}) {{
  %zero = stablehlo.constant dense<0.000000e+00> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>{_softmax(1, "%x")}{_softmax(2, "%y", extra_use)}
  return {ret} : {results}
}}
"""


def _run(text: str):
    rep = FusionReport("in.mlir")
    with make_context():
        m = ir.Module.parse(text)
        p = Pipeline.from_text(
            "builtin.module(stablehlo-convert-fs-pattern-to-custom-calls)",
            env=PipelineEnv(filename="in.mlir"),
            outputs=CompileOutputs(fusion_report=rep),
        )
        p.run(m)
        return rep, str(m)


@pytest.mark.parametrize("check", ["0", "1"])
def test_two_softmaxes_sharing_constants_are_both_rewritten(monkeypatch, check):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", check)
    rep, text = _run(_module())
    assert text.count("stablehlo.custom_call @AwsFSPattern5") == 2
    assert "stablehlo.exponential" not in text and "stablehlo.divide" not in text
    assert [(c.kind, len(c.ops)) for c in rep.clusters()] == [("Softmax", 8), ("Softmax", 8)]
    assert rep.refusals() == []


@pytest.mark.parametrize("check", ["0", "1"])
def test_an_intermediate_used_outside_is_named(monkeypatch, check):
    monkeypatch.setenv("HILO_MLIR_CHECK_ANALYSES", check)
    rep, text = _run(_module(extra_use=True))
    assert text.count("stablehlo.custom_call @AwsFSPattern5") == 1
    [r] = rep.refusals()
    assert (r.anchor["name"], r.anchor["loc"]) == ("stablehlo.divide", "in.mlir:21:9")
    assert r.reason == "intermediate-used-outside:stablehlo.tanh@in.mlir:22:9"
    assert r.culprit == {"name": "stablehlo.tanh", "loc": "in.mlir:22:9"}


def test_use_count_test_equals_comparing_every_owner():
    with make_context():
        m = ir.Module.parse(_module(extra_use=True))
        func = m.body.operations[0]
        divs = [o.operation for o in func.regions[0].blocks[0].operations if o.operation.name == "stablehlo.divide"]
        found = []
        for div in divs:
            match, refusal = fs_pattern._match(div, STABLEHLO, _NoCtx())
            assert refusal is None
            _x, _dim, ops = match
            fast = fs_pattern._user_outside(ops[0], ops[1:])
            slow = fs_pattern._first_user_outside(ops[0], ops[1:])
            assert (fast is None) == (slow is None) and (fast is None or fast == slow)
            found.append(None if fast is None else fast.name)
        assert found == [None, "stablehlo.tanh"]


class _NoCtx:
    def debug(self, msg: str) -> None:
        raise AssertionError(msg)
