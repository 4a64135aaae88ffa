"""The printer's and ``verify-supported-ops``' fast paths give exactly what the full checks give (issue 7).

The printer prints most ops inline (:meth:`PenguinPrinter.print_block`) and
skips the per-op operand type check when every operand is bound to a value
whose type was already checked; ``verify-supported-ops`` answers from the op
census (names, attribute-dependent ops, value types) without a walk. These
tests compare both against the full per-op path on the same modules:

* a reference printer that always takes the full path (``check_supported``
  on every op, no inline statements) must print the same bytes and ``.npy``
  files, or raise the same error (message, code, location);
* the pass answering from the census and the pass made to walk every op
  (its census shortcut patched out) must give the same diagnostics and
  statistics.

Source: issue 7 ("no output may change"); seed 004 step 4 and step 32.
"""

from __future__ import annotations

import contextlib
import os
from unittest import mock

import pytest
from conftest import corpus_path

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.verification import verify_supported_ops
from hilo_mlir.passmanager.pipeline import Pipeline
from hilo_mlir.printers import MhloPrinter, StableHloPrinter, driver, print_program
from hilo_mlir.support.diagnostics import HiloError, capture_diagnostics

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
SMALL_JAX = [
    "attention",
    "concat_heads",
    "decoder_layer",
    "logsumexp_rows",
    "rmsnorm",
    "swiglu_mlp_bf16",
    "swiglu_mlp_nn_silu",
    "transcendental",
    "decoder_stack_L4",
]


class _FullCheck:
    """Mixin: every op through ``_print_op`` with the full ``check_supported`` (no fast path), values keyed
    on the binding objects instead of their integer ids."""

    fast_paths = False
    value_key = staticmethod(lambda v: v)


class _FullMhlo(_FullCheck, MhloPrinter):
    pass


class _FullStableHlo(_FullCheck, StableHloPrinter):
    pass


def _outcome(printer_cls, module, filename=None):
    p = printer_cls(filename=filename)
    try:
        src = p.print_module(module.operation)
    except HiloError as e:
        return ("error", e.code, e.message, str(e.loc))
    return ("ok", src, dict(p.files), dict(p.per_op_counter))


def _both(text_or_module, filename=None):
    """(fast, reference) outcomes for both printers."""
    out = []
    for fast, full in ((MhloPrinter, _FullMhlo), (StableHloPrinter, _FullStableHlo)):
        out.append((_outcome(fast, text_or_module, filename), _outcome(full, text_or_module, filename)))
    return out


def _check_same(text: str, expect_error: str | None = None):
    with make_context():
        m = ir.Module.parse(text)
        for fast, full in _both(m):
            assert fast == full
            if expect_error is None:
                assert fast[0] == "ok", fast
            else:
                assert fast[0] == "error" and fast[2] == expect_error, fast


def test_reference_printer_takes_the_full_path():
    """The reference really disables the fast path (else the comparisons below prove nothing)."""
    calls = []
    orig = driver.PenguinPrinter.check_supported

    def spy(self, op):
        calls.append(op.name)
        return orig(self, op)

    text = """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = mhlo.add %a, %a : tensor<2xf32>
      %1 = mhlo.multiply %0, %a : tensor<2xf32>
      return %1 : tensor<2xf32>
    }"""
    driver.PenguinPrinter.check_supported = spy
    try:
        with make_context():
            m = ir.Module.parse(text)
            _outcome(MhloPrinter, m)
            fast_calls = list(calls)
            calls.clear()
            _outcome(_FullMhlo, m)
    finally:
        driver.PenguinPrinter.check_supported = orig
    assert fast_calls == []  # both ops printed inline, operand types implied by the entry arguments
    assert calls == ["mhlo.add", "mhlo.multiply"]


@pytest.mark.parametrize("name", SMALL_JAX)
def test_jax_corpus_same_as_full_check(name):
    path = corpus_path("jax", f"{name}.stablehlo.mlir")
    with make_context():
        m = ir.Module.parse(path.read_text())
        for fast, full in _both(m, filename=str(path)):
            assert fast == full
            assert fast[0] == "ok"


def test_lit_printer_inputs_same_as_full_check():
    """Every split of the printer's lit files: same text, files and errors as the full path."""
    folder = os.path.join(ROOT, "test", "lit", "printer")
    n = 0
    for fname in sorted(os.listdir(folder)):
        if not fname.endswith(".mlir"):
            continue
        with open(os.path.join(folder, fname)) as f:
            chunks = f.read().split("// -----")
        for chunk in chunks:
            with make_context(allow_unregistered_dialects=True):
                try:
                    m = ir.Module.parse(chunk)
                except Exception:  # noqa: BLE001 - a chunk meant to fail parsing
                    continue
                for fast, full in _both(m):
                    assert fast == full, (fname, chunk[:200])
                n += 1
    assert n >= 30


def test_block_argument_with_unsupported_type_is_reported_at_its_use():
    """A fusion body argument of a dynamic type: the full operand check runs and names the op using it."""
    _check_same(
        """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
          %0 = "mhlo.fusion"(%a) ({
          ^bb0(%x: tensor<?xf32>):
            %1 = mhlo.add %x, %x : tensor<?xf32>
            %2 = mhlo.convert %1 : (tensor<?xf32>) -> tensor<2xf32>
            mhlo.return %2 : tensor<2xf32>
          }) {FusionKind = "Elementwise"} : (tensor<2xf32>) -> tensor<2xf32>
          return %0 : tensor<2xf32>
        }""",
        expect_error="'mhlo.add' operand: dynamic shape tensor<?xf32> is not supported",
    )
    # The convert's result type was printed before (inline-ready): only its operand is wrong.
    _check_same(
        """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
          %c = mhlo.add %a, %a : tensor<2xf32>
          %0 = "mhlo.fusion"(%c) ({
          ^bb0(%x: tensor<?xf32>):
            %2 = mhlo.convert %x : (tensor<?xf32>) -> tensor<2xf32>
            mhlo.return %2 : tensor<2xf32>
          }) {FusionKind = "Elementwise"} : (tensor<2xf32>) -> tensor<2xf32>
          return %0 : tensor<2xf32>
        }""",
        expect_error="'mhlo.convert' operand: dynamic shape tensor<?xf32> is not supported",
    )


def test_unused_block_argument_with_unsupported_type_prints():
    _check_same(
        """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
          %0 = "mhlo.fusion"(%a, %b) ({
          ^bb0(%x: tensor<2xf32>, %y: tensor<?xf32>):
            %1 = mhlo.add %x, %x : tensor<2xf32>
            mhlo.return %1 : tensor<2xf32>
          }) {FusionKind = "Elementwise"} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
          %3 = mhlo.multiply %0, %a : tensor<2xf32>
          return %3 : tensor<2xf32>
        }"""
    )


def test_result_type_rejected_after_the_same_name_was_printed():
    """The first add prints inline-ready; a later add with an unsupported result type is still rejected."""
    _check_same(
        """func.func @main(%a: tensor<2xf32>, %b: tensor<2xf8E4M3B11FNUZ>) -> tensor<2xf8E4M3B11FNUZ> {
          %0 = mhlo.add %a, %a : tensor<2xf32>
          %1 = mhlo.add %0, %0 : tensor<2xf32>
          %2 = mhlo.convert %1 : (tensor<2xf32>) -> tensor<2xf8E4M3B11FNUZ>
          return %2 : tensor<2xf8E4M3B11FNUZ>
        }""",
        expect_error="entry argument 1: element type f8E4M3B11FNUZ is not supported",
    )
    _check_same(
        """func.func @main(%a: tensor<2xf32>) -> tensor<2xf8E4M3B11FNUZ> {
          %0 = mhlo.add %a, %a : tensor<2xf32>
          %1 = mhlo.add %0, %0 : tensor<2xf32>
          %2 = mhlo.convert %1 : (tensor<2xf32>) -> tensor<2xf8E4M3B11FNUZ>
          return %2 : tensor<2xf8E4M3B11FNUZ>
        }""",
        expect_error="'mhlo.convert' result: element type f8E4M3B11FNUZ is not supported",
    )


def test_repeated_constants_cached_inline_but_one_npy_file_each():
    """Equal constant attributes render once; each large one still gets its own .npy file, in order."""
    big = ", ".join(str(float(i)) for i in range(300))
    text = f"""func.func @main() -> (tensor<300xf32>, tensor<300xf32>, tensor<3xi32>, tensor<3xi32>) {{
      %0 = mhlo.constant dense<[{big}]> : tensor<300xf32>
      %1 = mhlo.constant dense<[{big}]> : tensor<300xf32>
      %2 = mhlo.constant dense<[1, 2, 3]> : tensor<3xi32>
      %3 = mhlo.constant {{note = "x"}} dense<[1, 2, 3]> : tensor<3xi32>
      return %0, %1, %2, %3 : tensor<300xf32>, tensor<300xf32>, tensor<3xi32>, tensor<3xi32>
    }}"""
    _check_same(text)
    with make_context():
        src, files = print_program(ir.Module.parse(text), "mhlo")
    assert sorted(files) == ["const_0.npy", "const_1.npy"]
    assert files["const_0.npy"] == files["const_1.npy"]
    lines = [ln for ln in src.splitlines() if "ConstantOp" in ln]
    assert "value=m1.NpyFile('const_0.npy')" in lines[0]
    assert "value=m1.NpyFile('const_1.npy')" in lines[1]
    assert "value=[1, 2, 3], xla_op=" in lines[2]
    assert "value=[1, 2, 3], note='x', xla_op=" in lines[3]


def test_complex_constant_with_other_attributes():
    """Dense complex attributes cannot be handed to Python: the constant and attribute fallbacks agree."""
    _check_same(
        """func.func @main() -> tensor<2xcomplex<f32>> {
          %0 = mhlo.constant {foo = 1 : i32} dense<[(1.0,2.0),(3.0,4.0)]> : tensor<2xcomplex<f32>>
          %1 = mhlo.constant {foo = 1 : i32} dense<[(1.0,2.0),(3.0,4.0)]> : tensor<2xcomplex<f32>>
          %2 = mhlo.add %0, %1 : tensor<2xcomplex<f32>>
          return %2 : tensor<2xcomplex<f32>>
        }"""
    )


def test_multi_and_zero_result_ops_inline():
    _check_same(
        """func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
          %0:2 = mhlo.optimization_barrier %a, %a : tensor<2xf32>, tensor<2xf32>
          %1:2 = mhlo.optimization_barrier %0#1, %0#0 : tensor<2xf32>, tensor<2xf32>
          %t = mhlo.create_token : !mhlo.token
          %u = mhlo.after_all %t, %t : !mhlo.token
          return %1#0, %1#1 : tensor<2xf32>, tensor<2xf32>
        }"""
    )


# ----------------------------------------------------------------------------- verify-supported-ops

_VERIFY_CASES = {
    "supported": """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = mhlo.add %a, %a : tensor<2xf32>
      %1 = mhlo.custom_call @Sharding(%0) : (tensor<2xf32>) -> tensor<2xf32>
      return %1 : tensor<2xf32>
    }""",
    "unknown-target": """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = mhlo.custom_call @my_kernel(%a) : (tensor<2xf32>) -> tensor<2xf32>
      %1 = mhlo.custom_call @other_kernel(%0) : (tensor<2xf32>) -> tensor<2xf32>
      return %1 : tensor<2xf32>
    }""",
    "dynamic-shape": """func.func @main(%a: tensor<?xf32>) -> tensor<?xf32> {
      %0 = mhlo.add %a, %a : tensor<?xf32>
      return %0 : tensor<?xf32>
    }""",
    "unused-dynamic-argument": """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      return %a : tensor<2xf32>
    }
    func.func private @helper(%a: tensor<?xf32>) -> tensor<2xf32> {
      %0 = mhlo.constant dense<1.0> : tensor<2xf32>
      return %0 : tensor<2xf32>
    }""",
    "unknown-fusion-kind": """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = "mhlo.fusion"(%a) ({
      ^bb0(%x: tensor<2xf32>):
        %1 = mhlo.add %x, %x : tensor<2xf32>
        mhlo.return %1 : tensor<2xf32>
      }) {FusionKind = "Nope"} : (tensor<2xf32>) -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }""",
    "chlo": """func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0 = chlo.erf %a : tensor<2xf32> -> tensor<2xf32>
      return %0 : tensor<2xf32>
    }""",
}


def _verify(text: str, with_census: bool):
    ctx = make_context()
    with ctx, capture_diagnostics(ctx, "in.mlir") as diags:
        m = ir.Module.parse(text)
        pipe = Pipeline.from_text("builtin.module(verify-supported-ops)")
        # Without the census shortcut the pass walks every op (the slow truth).
        with (
            contextlib.nullcontext()
            if with_census
            else mock.patch.object(verify_supported_ops, "_census_says_supported", lambda module_op, ctx: False)
        ):
            try:
                pipe.run(m)
                err = None
            except HiloError as e:
                err = (e.message, str(e.loc))
        stats = dict(pipe.stats["VerifySupportedOps"])
        return err, stats, [(d.severity, d.message, d.loc) for d in diags]


@pytest.mark.parametrize("case", sorted(_VERIFY_CASES))
def test_verify_supported_ops_census_path_matches_walk(case):
    with_census = _verify(_VERIFY_CASES[case], True)
    walked = _verify(_VERIFY_CASES[case], False)
    assert with_census == walked
    err, stats, diags = with_census
    assert stats == {"ops-rejected": len(diags)}
    if case in ("supported", "unused-dynamic-argument"):
        assert err is None and diags == []
    else:
        assert err is not None and len(diags) >= 1


def test_verify_supported_ops_reports_each_op():
    err, stats, diags = _verify(_VERIFY_CASES["unknown-target"], True)
    assert stats == {"ops-rejected": 2}
    assert [d[1] for d in diags] == [
        "'mhlo.custom_call' op cannot be emitted by the Penguin printer: unsupported custom_call target 'my_kernel'",
        "'mhlo.custom_call' op cannot be emitted by the Penguin printer: unsupported custom_call target 'other_kernel'",
    ]
    assert err[0].endswith("(and 1 more op, each reported as a diagnostic)")
