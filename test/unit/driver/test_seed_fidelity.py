"""Seed fidelity (issue 27): hoist-compute sees parameters in the spine, end to end.

hoist-compute (step 22) runs before penguinize-io (step 26) writes
``slowChangingIns``; it reads the parameters the way penguinize-io will
(markers) or as ``--weights`` / ``params=`` stamped them before the spine.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from hilo_mlir import CompileConfig, compile_module, penguin_ref

SPINES = ["mhlo", "stablehlo"]

#: %arg1 is a weight (marked by the HLO side's slow-changing-input marker); the weight-only
#: compute (transpose, scale, tanh) comes after the activation compute in the input.
MARKED = """func.func @main(%x: tensor<3x3xf32>, %w: tensor<3x3xf32>) -> tensor<3x3xf32> {
  %a = stablehlo.exponential %x : tensor<3x3xf32>
  stablehlo.custom_call @AwsNeuronTransferWithStaticRing(%w) : (tensor<3x3xf32>) -> ()
  %t = stablehlo.transpose %w, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %c = stablehlo.constant dense<2.0> : tensor<3x3xf32>
  %b = stablehlo.multiply %t, %c : tensor<3x3xf32>
  %h = stablehlo.tanh %b : tensor<3x3xf32>
  %r = stablehlo.add %a, %h : tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}
"""


def _op_order(src: str) -> list[str]:
    """The Penguin op names of the body statements, in order."""
    return [n for n in re.findall(r"^v\d+ = m\d+\.(\w+)\(", src, re.M) if n != "Function"]


def _inputs():
    rng = np.random.default_rng(0)
    return [rng.standard_normal((3, 3)).astype(np.float32) for _ in range(2)]


@pytest.mark.parametrize("spine", SPINES)
def test_hoist_compute_sees_marked_weights(spine):
    """Markers alone (no --weights): the weight-only compute is hoisted above the activation's; numbers unchanged."""
    off = compile_module(MARKED, spine=spine)
    on = compile_module(MARKED, CompileConfig(hoist_compute=True), spine=spine)
    hoisted = sum(s.get("ops-hoisted", 0) for s in on.statistics.values())
    assert hoisted == 5  # the marker, transpose, constant, multiply, tanh (the marker is stripped at step 26)
    assert _op_order(off)[:2] == ["ExponentialOp", "TransposeOp"]
    assert _op_order(on) == ["TransposeOp", "ConstantOp", "MultiplyOp", "TanhOp", "ExponentialOp", "AddOp"]
    assert "index=1, is_parameter_tensor=True" in on
    x, w = _inputs()
    want = np.exp(x) + np.tanh(w.T * 2)
    got_off = penguin_ref.run(off, [x, w], files=off.files)[0]
    got_on = penguin_ref.run(on, [x, w], files=on.files)[0]
    assert np.array_equal(got_on, got_off)  # moving ops changes no bit
    np.testing.assert_allclose(got_on, want, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("spine", SPINES)
def test_hoist_compute_sees_jax_params(spine):
    """``params=`` (the API of ``--weights``): hoisted, and the program matches JAX with the weight read from its file."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from hilo_mlir import jax as hj

    def f(x, w):
        return jnp.exp(x) + jnp.tanh(w.T * 2.0)

    x, w = _inputs()
    prog = hj.compile(f, x, w, params=[1], config=CompileConfig(hoist_compute=True), spine=spine)
    assert sum(s.get("ops-hoisted", 0) for s in prog.statistics.values()) >= 3
    order = _op_order(prog.source)
    assert order.index("TanhOp") < order.index("ExponentialOp")
    got = penguin_ref.run(prog.source, [x], files=prog.files)[0]  # the weight comes from its np_file
    np.testing.assert_allclose(got, np.asarray(prog.reference(x, w)), rtol=2e-6, atol=2e-6)


# --------------------------------------------------------------------------- the parameter prologue


def test_weight_files_then_np_file_and_the_backend_reads_either():
    """A parameter prints ``weight_files=[...]`` then ``np_file=`` (seed 002's order); the backend loads from either."""
    text = """func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> attributes {slowChangingIns = dense<[1]> : tensor<1xi32>} {
      %0 = stablehlo.multiply %x, %w : tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    src = str(compile_module(text))
    line = next(ln for ln in src.splitlines() if ln.startswith("input_1 = "))
    assert line.endswith(".markInput(v0, index=1, is_parameter_tensor=True, weight_files=['input_1.npy'], np_file='input_1.npy')")
    from hilo_mlir.printers.literals import npy_bytes

    x, w = np.arange(4, dtype=np.float32), np.array([2, 3, 5, 7], np.float32)
    files = {"input_1.npy": npy_bytes(w)}
    want = x * w
    assert np.array_equal(penguin_ref.run(src, [x], files=files)[0], want)
    only_list = src.replace(", np_file='input_1.npy'", "")
    assert "np_file" not in only_list
    assert np.array_equal(penguin_ref.run(only_list, [x], files=files)[0], want)


# --------------------------------------------------------------------------- the seed's pass arguments


def test_seed_arguments_and_their_aliases():
    """Seed 004 spells step 27's StableHLO twin 'canonicalize-for-penguin' and step 8 '--remove-opt-barriers'."""
    from hilo_mlir.driver.spine import MHLO_SPINE, STABLEHLO_SPINE
    from hilo_mlir.passmanager import registry

    twin = registry.get("canonicalize-for-penguin")
    assert twin.dialect == "stablehlo" and twin.class_name == "StableHLOCanonicalizeForTensorizer"
    assert registry.get("stablehlo-canonicalize-for-tensorizer") is twin
    assert registry.twin_of(registry.get("canonicalize-for-tensorizer")) == "canonicalize-for-penguin"
    assert registry.twin_of(twin) == "canonicalize-for-tensorizer"
    barriers = registry.get("remove-opt-barriers")
    assert registry.get("remove-optimization-barriers") is barriers and barriers.aliases == ("remove-optimization-barriers",)
    assert registry.aliases()["remove-optimization-barriers"] == "remove-opt-barriers"
    assert [s.argument for s in STABLEHLO_SPINE if s.ordinal in ("8", "27")] == ["remove-opt-barriers", "canonicalize-for-penguin"]
    assert [s.argument for s in MHLO_SPINE if s.ordinal in ("8", "27")] == ["remove-opt-barriers", "canonicalize-for-tensorizer"]
    with pytest.raises(Exception, match="did you mean 'remove-opt-barriers'"):
        registry.get("remove-opt-barrier")


def test_help_lists_the_aliases():
    from hilo_mlir.passmanager import registry
    from hilo_mlir.tools.opt_help import _pass_line

    line = _pass_line(registry.describe(registry.get("canonicalize-for-penguin")))
    assert line.splitlines()[1].split() == ["--stablehlo-canonicalize-for-tensorizer", "alias", "of", "--canonicalize-for-penguin"]


def test_an_alias_names_its_spine_step():
    """``--disable-pass remove-optimization-barriers`` names step 8 as the seed's argument does."""
    from hilo_mlir.driver import spine, spine_edits

    cfg = CompileConfig(remove_optimization_barriers=True, stablehlo=True)
    entries = spine.spine_entries(cfg)
    i = spine_edits.resolve_step("remove-optimization-barriers", entries, {})
    assert entries[i].argument == "remove-opt-barriers" and entries[i].label == "8"
    assert spine_edits.resolve_step("stablehlo-canonicalize-for-tensorizer", entries, {}) == spine_edits.resolve_step("27", entries, {})


def test_a_plugin_cannot_take_an_alias():
    from hilo_mlir.passmanager import registry

    registry.load()
    with registry.registering_for("test-plugin"):
        with pytest.raises(Exception, match="already registered"):
            registry.register(registry.PassInfo("remove-optimization-barriers", "x", lambda op, ctx: None))
    assert registry.get("remove-optimization-barriers").argument == "remove-opt-barriers"


# --------------------------------------------------------------------------- the MX path is StableHLO-only

MX = """func.func @main(%x: tensor<4x64xf32>, %w: tensor<8x64xf32>, %sx: tensor<4x2xf8E8M0FNU>, %sw: tensor<8x2xf8E8M0FNU>) -> (tensor<4x16xui32>, tensor<4x8xf32>) {
  %e = stablehlo.exponential %x : tensor<4x64xf32>
  %q:2 = stablehlo.custom_call @QuantizeMX(%e) {backend_config = "{\\"dtype\\": \\"float8_e5m2\\", \\"dim\\": -1}"} : (tensor<4x64xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>)
  %d = stablehlo.custom_call @__op$block_scaled_dot(%x, %w, %sx, %sw) {backend_config = ""} : (tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xf32>
  return %q#0, %d : tensor<4x16xui32>, tensor<4x8xf32>
}
"""


def test_mx_on_the_mhlo_spine_is_refused_before_any_pass():
    """Seed 002: the MX path has no MHLO twin. One located error per MX op, before any spine pass runs."""
    from hilo_mlir.driver.compiler import compile_loaded, load_module, resolve_config
    from hilo_mlir.passes.importing.printability import UnprintableOps
    from hilo_mlir.passmanager.instrumentation import Instrumentation

    started: list[str] = []
    with pytest.raises(UnprintableOps) as info:
        compile_loaded(
            load_module(MX, "mx.mlir"), resolve_config(None, "mhlo"), instrumentation=Instrumentation(on_pass_start=started.append)
        )
    lines = info.value.lines("mx.mlir")
    assert lines == [
        "mx.mlir:3:10: error: custom_call @QuantizeMX is printed on the StableHLO spine only (the MX path has no MHLO "
        "printer); compile with --spine stablehlo (printer stablehlo-to-py-penguin)",
        "mx.mlir:4:8: error: custom_call @__op$block_scaled_dot is printed on the StableHLO spine only (the MX path has "
        "no MHLO printer); compile with --spine stablehlo (printer stablehlo-to-py-penguin)",
    ]
    from hilo_mlir.driver.spine import MHLO_SPINE, PRE_PASSES

    spine = {s.argument for s in MHLO_SPINE} | {a for a, _ in PRE_PASSES}
    assert started and not spine & set(started), started  # only the import step ran: no pass of the spine
    src = compile_module(MX, spine="stablehlo")
    assert "m3.QuantizeMXTensorOp(" in src and "op='mhlo.scaled_dot'" in src


# --------------------------------------------------------------------------- step 6: upstream's lower-complex set

STEP6 = """func.func @main(%a: tensor<64xcomplex<f32>>, %b: tensor<64xcomplex<f32>>) -> (tensor<64xf32>, tensor<64xcomplex<f32>>,
    tensor<64xcomplex<f32>>, tensor<64xcomplex<f32>>, tensor<64xi1>, tensor<64xi1>) {
  %0 = stablehlo.abs %a : (tensor<64xcomplex<f32>>) -> tensor<64xf32>
  %1 = stablehlo.exponential %a : tensor<64xcomplex<f32>>
  %2 = stablehlo.sine %a : tensor<64xcomplex<f32>>
  %3 = stablehlo.cosine %a : tensor<64xcomplex<f32>>
  %4 = stablehlo.compare EQ, %a, %b : (tensor<64xcomplex<f32>>, tensor<64xcomplex<f32>>) -> tensor<64xi1>
  %5 = stablehlo.compare NE, %a, %b : (tensor<64xcomplex<f32>>, tensor<64xcomplex<f32>>) -> tensor<64xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<64xf32>, tensor<64xcomplex<f32>>, tensor<64xcomplex<f32>>, tensor<64xcomplex<f32>>, tensor<64xi1>, tensor<64xi1>
}
"""


def _step6_inputs():
    rng = np.random.default_rng(3)
    a = (rng.standard_normal(64) * 2 + 1j * rng.standard_normal(64) * 2).astype(np.complex64)
    a[:4] = [1 + 1e-6j, 0.5 - 3e-7j, 0j, 3e-20 + 4e-20j]  # small |im| (sinh cancels upstream), tiny |z| (squares underflow)
    b = a.copy()
    b[::3] += 1j
    b[1::5] += 1
    return [a, b]


@pytest.mark.parametrize("spine", SPINES)
def test_step6_lowers_abs_exp_compare_sin_cos_like_xla(spine):
    """Upstream MLIR-HLO's lower-complex set at step 6 on both spines; numbers against XLA CPU on the complex ops."""
    from hilo_mlir.testing import evaluate_xla, run_passes

    pipeline = "stablehlo-legalize-to-hlo,lower-complex,hlo-legalize-to-stablehlo" if spine == "mhlo" else "stablehlo-lower-complex"
    after, stats = run_passes(STEP6, pipeline)
    assert stats["ops-lowered"] == 6
    assert not re.search(r"= stablehlo\.(abs|exponential|sine|cosine|compare) .*complex<f32>>", after)
    ins = _step6_inputs()
    want, got = evaluate_xla(STEP6, ins), evaluate_xla(after, ins)
    eps = np.finfo(np.float32).eps
    # abs: the scaled hypot, within 2 ulps of XLA's (3e-20 + 4e-20j: 5e-20, the squares would underflow)
    np.testing.assert_allclose(got[0], want[0], rtol=2 * eps, atol=0)
    assert got[0][3] == np.float32(5e-20)
    z = ins[0].astype(np.complex128)
    # XLA CPU forms sinh as e^im - e^-im, as upstream does: where |im| is small it cancels
    # (sin(1 + 1e-6 i): XLA's imaginary part 5.15e-7, the exact one cos(1) sinh(1e-6) = 5.40e-7).
    # Against XLA where it does not cancel; against complex128 numpy everywhere.
    ok = np.abs(z.imag) > 1e-2
    for k, exact in ((1, np.exp(z)), (2, np.sin(z)), (3, np.cos(z))):  # each part within a few ulps of |value|
        scale = np.maximum(np.abs(want[k].real), np.abs(want[k].imag))
        assert np.all((np.abs(got[k] - want[k]) <= 8 * eps * scale)[ok]), k
        assert np.all(np.abs(got[k] - exact) <= 8 * eps * np.abs(exact)), k
    assert abs(got[2][0].imag / (np.cos(1.0) * np.sinh(1e-6)) - 1) < 4 * eps
    assert abs(want[2][0].imag / (np.cos(1.0) * np.sinh(1e-6)) - 1) > 0.04  # XLA's (and upstream's) cancellation
    assert np.array_equal(got[4], want[4]) and np.array_equal(got[5], want[5])
    assert got[4].any() and got[5].any()


EXP_EDGES = """func.func @main(%a: tensor<5xcomplex<f32>>) -> tensor<5xcomplex<f32>> {
  %0 = stablehlo.exponential %a : tensor<5xcomplex<f32>>
  return %0 : tensor<5xcomplex<f32>>
}
"""


@pytest.mark.parametrize("spine", SPINES)
def test_step6_exp_where_the_plain_product_fails(spine):
    """exp(100 + 0i) and exp(inf + 0i) are (inf, 0) as XLA gives (e^re * sin 0 would be inf * 0 = NaN); exp(89 + 1i)
    has XLA's finite real part 2.4257480e38 although e^89 overflows f32 (e^re applied in halves); -0 stays -0."""
    from hilo_mlir.testing import evaluate_xla, run_passes

    pipeline = "stablehlo-legalize-to-hlo,lower-complex,hlo-legalize-to-stablehlo" if spine == "mhlo" else "stablehlo-lower-complex"
    after, _ = run_passes(EXP_EDGES, pipeline)
    assert "complex<f32>>" in after and not re.search(r"= stablehlo\.exponential .*complex<f32>>", after)
    a = np.array([100 + 0j, complex(np.inf, 0), 89 + 1j, complex(-3, -0.0), 0.5 + 2j], np.complex64)
    want, got = evaluate_xla(EXP_EDGES, [a])[0], evaluate_xla(after, [a])[0]
    assert got[0] == complex(np.inf, 0) and got[1] == complex(np.inf, 0) and want[0] == got[0] and want[1] == got[1]
    assert np.isfinite(got[2].real) and abs(got[2].real / want[2].real - 1) < 4 * np.finfo(np.float32).eps
    assert np.signbit(got[3].imag) and got[3].imag == 0
    assert abs(got[4] - np.exp(np.complex128(0.5 + 2j))) <= 4 * np.finfo(np.float32).eps * abs(np.exp(0.5 + 2j))


@pytest.mark.parametrize("spine", SPINES)
def test_default_gates_lower_complex_abs_and_exp_end_to_end(spine):
    """hilo2penguin's default gates: abs and exp of complex values are lowered at step 6, and the program matches JAX."""
    jax = pytest.importorskip("jax")
    jnp = jax.numpy
    from hilo_mlir import jax as hj

    def f(z, w):
        return jnp.abs(z), jnp.exp(z), z == w

    a, b = _step6_inputs()
    prog = hj.compile(f, a, b, spine=spine)
    lowered = sum(s.get("ops-lowered", 0) for k, s in prog.statistics.items() if k.endswith("LowerComplex"))
    complex_ops = re.findall(r"= stablehlo\.(abs|exponential|compare) .*complex<f32>>", prog.mlir)
    assert "abs" in complex_ops and lowered == len(complex_ops) >= 2  # (JAX may expand exp itself)
    for line in str(prog.source).splitlines():  # only real/imag read the complex inputs: nothing complex reaches the printer
        if re.search(r"srcs=\[[^\]]*input_[01]", line):
            assert re.match(r"v\d+ = m1\.(RealOp|ImagOp)\(", line), line
    got, want = prog.run(a, b), prog.reference(a, b)
    eps = np.finfo(np.float32).eps
    np.testing.assert_allclose(got[0], want[0], rtol=2 * eps)
    assert np.all(np.abs(got[1] - want[1]) <= 8 * eps * np.abs(want[1]))
    assert np.array_equal(got[2], want[2])


# --------------------------------------------------------------------------- decision 3 against the seed's count


def test_elementwise_set_against_the_seeds_count():
    """Seed 000: isElementwiseOp = five fast-path ops plus "~55 typeIDs" across mhlo and stablehlo. The 30 kinds we
    count as the binary's give exactly 5 + 55 TypeIDs; the other 19 are ours, each elementwise, without side effects
    and printable by both printers (docs/provenance.md lists them)."""
    from hilo_mlir.ir.dialects import ELEMENTWISE_OPS, EXTENDED_ELEMENTWISE_OPS, SEED_ELEMENTWISE_OPS, SIDE_EFFECTING_OPS
    from hilo_mlir.printers.supported import name_reason

    fast_path = {"and", "or", "not", "negate", "xor"}
    named_by_the_seed = {"reshape", "bitcast", "bitcast_convert", "convert", "compare"}
    assert fast_path | named_by_the_seed <= SEED_ELEMENTWISE_OPS <= ELEMENTWISE_OPS
    assert 2 * len(SEED_ELEMENTWISE_OPS) - len(fast_path) == 55
    assert len(ELEMENTWISE_OPS) == 49 and len(EXTENDED_ELEMENTWISE_OPS) == 19
    for short in sorted(EXTENDED_ELEMENTWISE_OPS):
        assert short not in SIDE_EFFECTING_OPS
        for dialect in ("mhlo", "stablehlo"):
            assert name_reason(f"{dialect}.{short}") is None, short
    import pathlib

    doc = (pathlib.Path(__file__).resolve().parents[3] / "docs" / "provenance.md").read_text()
    section = doc.split("### Elementwise set", 1)[1].split("###", 1)[0]
    listed = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert listed == set(EXTENDED_ELEMENTWISE_OPS)
