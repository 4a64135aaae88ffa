"""The reference backend runs Expm1/Log1p fusions as the precise primitive their kind selects (docs/penguin_format.md
section 12): bf16 softplus / mish / log-sigmoid compiled with ``--preset all`` (where ``log1p`` becomes a Log1p
fusion of ``log(x + 1)``) are, element for element, exactly as accurate as without fusion; run op by op
(``literal_fusions``) they lose every element near 0."""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from hilo_mlir import CompileConfig, penguin_ref  # noqa: E402
from hilo_mlir import jax as hj  # noqa: E402

ACTIVATIONS = {
    "softplus": jax.nn.softplus,
    "mish": lambda x: x * jnp.tanh(jax.nn.softplus(x)),
    "log_sigmoid": jax.nn.log_sigmoid,
}
X = np.concatenate([np.linspace(-12, 6, 2049), [-5.84]]).astype(ml_dtypes.bfloat16)


def _rel_err(y, truth):
    return np.abs(y.astype(np.float64) - truth) / np.maximum(np.abs(truth), 1e-30)


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_bf16_activation_through_log1p_fusion_is_as_accurate_as_unfused(name, spine):
    f = ACTIVATIONS[name]
    truth = np.asarray(f(X.astype(np.float64)))
    fused = hj.compile(f, X, config=CompileConfig.preset("all"), spine=spine)
    plain = hj.compile(f, X, config=CompileConfig.preset("default"), spine=spine)
    kinds = re.findall(r"(?:hilo_fusion_op|op)='(Log1p|Expm1)'", str(fused.source))
    assert "Log1p" in kinds, "the activation no longer goes through a Log1p fusion: the test proves nothing"
    assert not re.search(r"'(Log1p|Expm1)'", str(plain.source))
    y_fused = fused.run(X)
    y_plain = plain.run(X)
    assert np.all(_rel_err(y_fused, truth) <= _rel_err(y_plain, truth))
    y_literal = fused.run(X, literal_fusions=True)
    assert _rel_err(y_literal, truth).max() == pytest.approx(1.0)  # exp(x) + 1 rounds to 1 in bf16: log gives 0
    if name == "softplus":
        k = int(np.nonzero(X == ml_dtypes.bfloat16(-5.84))[0][0])
        assert float(y_literal[k]) == 0.0 and abs(float(y_fused[k]) - 0.0029) < 1e-4


def _kind_program(kind: str) -> str:
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.printers import print_program

    body = (
        "%e = stablehlo.exponential %a : tensor<8xbf16>\n    %r = stablehlo.subtract %e, %c : tensor<8xbf16>"
        if kind == "Expm1"
        else "%s = stablehlo.add %a, %c : tensor<8xbf16>\n    %r = stablehlo.log %s : tensor<8xbf16>"
    )
    text = f"""func.func @main(%x: tensor<8xbf16>) -> tensor<8xbf16> {{
  %0 = stablehlo.composite "neuron.{kind}" %x {{CompositeKind = "{kind}", decomposition = @impl}} : (tensor<8xbf16>) -> tensor<8xbf16>
  return %0 : tensor<8xbf16>
}}
func.func private @impl(%a: tensor<8xbf16>) -> tensor<8xbf16> {{
    %c = stablehlo.constant dense<1.0> : tensor<8xbf16>
    {body}
    return %r : tensor<8xbf16>
}}"""
    with make_context():
        return print_program(ir.Module.parse(text), "stablehlo")[0]


@pytest.mark.parametrize("kind,fn", [("Expm1", np.expm1), ("Log1p", np.log1p)])
def test_kernel_is_the_primitive_rounded_once(kind, fn):
    x = np.array([-1e-3, -3e-4, 1e-5, 2e-3, 0.0, 0.5, -0.25, 3.0], dtype=ml_dtypes.bfloat16)
    src = _kind_program(kind)
    (y,) = penguin_ref.run(src, [x])
    expected = fn(x.astype(np.float32)).astype(ml_dtypes.bfloat16)
    assert np.array_equal(y.view(np.uint16), expected.view(np.uint16))
    (lit,) = penguin_ref.run(src, [x], literal_fusions=True)
    assert not np.array_equal(lit.view(np.uint16), expected.view(np.uint16))


def test_kernel_inside_a_region_function():
    """A Log1p group inside a while body (run eagerly) gets the kernel result too."""
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.printers import print_program

    text = """func.func @main(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %c0, %a = %x) : tensor<i32>, tensor<4xbf16>
  cond {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %p = stablehlo.compare LT, %i, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %one : tensor<i32>
    %l = stablehlo.composite "neuron.Log1p" %a {CompositeKind = "Log1p", decomposition = @impl} : (tensor<4xbf16>) -> tensor<4xbf16>
    stablehlo.return %n, %l : tensor<i32>, tensor<4xbf16>
  }
  return %w#1 : tensor<4xbf16>
}
func.func private @impl(%a: tensor<4xbf16>) -> tensor<4xbf16> {
  %c = stablehlo.constant dense<1.0> : tensor<4xbf16>
  %s = stablehlo.add %a, %c : tensor<4xbf16>
  %r = stablehlo.log %s : tensor<4xbf16>
  return %r : tensor<4xbf16>
}"""
    with make_context():
        src = print_program(ir.Module.parse(text), "stablehlo")[0]
    x = np.array([1e-3, -2e-3, 5e-4, 0.75], dtype=ml_dtypes.bfloat16)
    (y,) = penguin_ref.run(src, [x])
    expected = np.log1p(x.astype(np.float32)).astype(ml_dtypes.bfloat16)
    assert np.array_equal(y.view(np.uint16), expected.view(np.uint16))
    (lit,) = penguin_ref.run(src, [x], literal_fusions=True)
    assert float(lit[0]) == 0.0  # 1 + 1e-3 rounds to 1 in bf16
