"""The one type-legality checker and its two phrasings (the input check, the printers' table)."""

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.ir.type_legality import TypeProblem, type_problem
from hilo_mlir.printers.supported import DTYPES, type_reason

CASES = [
    # type, kind, printers' reason, input check's explanation (None: accepted by the input check)
    ("tensor<4xf32>", None, None, None),
    (
        "tensor<?x4xf32>",
        "dynamic",
        "dynamic shape tensor<?x4xf32> is not supported",
        "has dynamic shape tensor<?x4xf32>: dynamic shapes are not supported (every dimension must be static)",
    ),
    (
        "tensor<*xf32>",
        "unranked",
        "unranked type tensor<*xf32> is not supported",
        "has unranked type tensor<*xf32>: dynamic shapes are not supported (every dimension must be static)",
    ),
    (
        "memref<2xf32>",
        "buffer",
        "type memref<2xf32> is not supported",
        "has buffer type memref<2xf32>: memref types are not supported (tensors only)",
    ),
    ("tensor<2xi2>", "element", "element type i2 is not supported", None),
    ("index", "other", "type index is not supported", None),
    ("f32", None, None, None),
    ("!stablehlo.token", None, None, None),
    (
        "tuple<tensor<2xf32>, tensor<?xi32>>",
        "dynamic",
        "dynamic shape tensor<?xi32> is not supported",
        "has dynamic shape tensor<?xi32>: dynamic shapes are not supported (every dimension must be static)",
    ),
    # (the quant dialect is not loaded: an unregistered-dialect context keeps the type opaque)
    (
        "tensor<2x!quant.uniform<i8:f32, 0.5>>",
        "quantized",
        "element type !quant.uniform<i8:f32, 0.5> is not supported",
        "has quantized element type !quant.uniform<i8:f32, 0.5>: quantized types are not supported",
    ),
    (
        "!quant.uniform<i8:f32, 0.5>",
        "quantized",
        "type !quant.uniform<i8:f32, 0.5> is not supported",
        "has quantized type !quant.uniform<i8:f32, 0.5>: quantized types are not supported",
    ),
]


@pytest.mark.parametrize("text, kind, reason, explanation", CASES, ids=[c[0] for c in CASES])
def test_verdicts_and_phrasings(text, kind, reason, explanation):
    with make_context(allow_unregistered_dialects="quant" in text):
        t = ir.Type.parse(text)
        printer = type_problem(t, element_types=DTYPES)
        assert (printer.kind if printer else None) == kind
        assert type_reason(t) == reason
        assert (printer.reason() if printer else None) == reason
        check = type_problem(t)
        assert (check.explain() if check else None) == explanation


def test_lowered_kinds_depend_on_the_spine():
    with make_context():
        c = ir.Type.parse("tensor<4xcomplex<f32>>")
        tok = ir.Type.parse("!mhlo.token")
        assert type_problem(c) is None and type_problem(tok) is None
        p = type_problem(c, allow_complex=False)
        assert p == TypeProblem("complex", "tensor<4xcomplex<f32>>", "complex<f32>")
        assert p.explain("LowerComplex is off") == (
            "has complex element type tensor<4xcomplex<f32>>: complex types need the lower-complex pass (LowerComplex is off)"
        )
        assert type_problem(tok, allow_token=False).explain() == (
            "has token type !mhlo.token: token values need the replace-token-type-with-u8 pass, which is not available"
        )
