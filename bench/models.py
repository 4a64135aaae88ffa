"""The benchmark's models, generated when the development checkout's ``../shared`` corpus is absent.

* ``L4`` / ``L64`` / ``L512``: ``decoder_stack_L<N>`` -- N decoder layers
  (RMSNorm, attention, SwiGLU MLP; d = 64, f32) exported with ``jax.export``,
  the same program as the corpus' ``decoder_stack_L<N>.stablehlo.mlir``.
  Taken from ``../shared/corpus/jax/`` when it exists, else generated once into
  ``bench/_generated/`` (needs ``jax``, a dependency of jaxlib's users; ~10 s for L512).
* :func:`call_chain`: ``main -> f1 -> ... -> f<depth>`` for the call-inliner.
* :func:`constants_module`: one module with non-splat constants of a given
  element type (bf16 against f32 measures the cost of narrow types).
"""

from __future__ import annotations

import os

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(os.path.dirname(HERE), "..", "shared", "corpus", "jax")
GENERATED = os.path.join(HERE, "_generated")


def _decoder_stack_text(layers: int) -> str:
    import jax
    import jax.numpy as jnp
    from jax import export

    jax.config.update("jax_hlo_source_file_canonicalization_regex", ".*/")
    S, f32, d = jax.ShapeDtypeStruct, jnp.float32, 64

    def rmsnorm(x, w, eps=1e-6):
        v = jnp.mean(x * x, axis=-1, keepdims=True)
        return x * jax.lax.rsqrt(v + eps) * w

    def swiglu_mlp(x, wg, wu, wd):
        g = x @ wg
        return ((g * jax.lax.logistic(g)) * (x @ wu)) @ wd

    def attention(q, k, v):
        s = jnp.einsum("bqd,bkd->bqk", q, k) / jnp.sqrt(q.shape[-1]).astype(q.dtype)
        return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), v)

    def decoder_layer(x, wn, wg, wu, wd, wq, wk, wv):
        h = rmsnorm(x, wn)
        x = x + attention(h @ wq, h @ wk, h @ wv)
        return x + swiglu_mlp(rmsnorm(x, wn), wg, wu, wd)

    def stacked_model(x, *ps):
        for i in range(0, len(ps), 7):
            x = decoder_layer(x, *ps[i : i + 7])
        return x

    params = [S((d,), f32), S((d, 4 * d), f32), S((d, 4 * d), f32), S((4 * d, d), f32), S((d, d), f32), S((d, d), f32), S((d, d), f32)]
    return export.export(jax.jit(stacked_model))(S((2, 16, d), f32), *(params * layers)).mlir_module()


def model_path(name: str) -> str:
    """The path of model ``name`` (``L4``, ``L64``, ``L512``): the corpus' file, else a generated one."""
    base = f"decoder_stack_{name}.stablehlo.mlir"
    corpus = os.path.join(CORPUS, base)
    if os.path.exists(corpus):
        return os.path.normpath(corpus)
    path = os.path.join(GENERATED, base)
    if not os.path.exists(path):
        if not name.startswith("L") or not name[1:].isdigit():
            raise SystemExit(f"unknown model '{name}' (L<layers>, or NAME=path.mlir)")
        os.makedirs(GENERATED, exist_ok=True)
        text = _decoder_stack_text(int(name[1:]))
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(path + ".tmp", path)
    return path


def call_chain(depth: int) -> str:
    """``main -> f1 -> ... -> f<depth>``: each level adds, calls the next, multiplies by its input."""
    lines = [
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {",
        "  %0 = func.call @f1(%x) : (tensor<4xf32>) -> tensor<4xf32>",
        "  return %0 : tensor<4xf32>",
        "}",
    ]
    for i in range(1, depth + 1):
        inner = f"func.call @f{i + 1}(%0) : (tensor<4xf32>) -> tensor<4xf32>" if i < depth else "stablehlo.negate %0 : tensor<4xf32>"
        lines += [
            f"func.func private @f{i}(%a: tensor<4xf32>) -> tensor<4xf32> {{",
            "  %0 = stablehlo.add %a, %a : tensor<4xf32>",
            f"  %1 = {inner}",
            "  %2 = stablehlo.multiply %1, %a : tensor<4xf32>",
            "  return %2 : tensor<4xf32>",
            "}",
        ]
    return "\n".join(lines) + "\n"


def constants_module(element_type: str, n: int = 8, size: int = 512) -> str:
    """``n`` non-splat constants of ``size`` elements (``element_type``: f32, bf16, ...), each added to the input."""
    vals = ", ".join(f"{(i % 97) / 8.0 - 6.0:.4f}" for i in range(size))
    t = f"tensor<{size}x{element_type}>"
    lines = [f"func.func @main(%x: {t}) -> {t} {{", "  %v0 = stablehlo.add %x, %x : " + t]
    for i in range(n):
        lines.append(f"  %c{i} = stablehlo.constant dense<[{vals}]> : {t}")
        lines.append(f"  %v{i + 1} = stablehlo.add %v{i}, %c{i} : {t}")
    lines += [f"  return %v{n} : {t}", "}"]
    return "\n".join(lines) + "\n"
