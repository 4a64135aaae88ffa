"""The printed forms the Neuron compiler's printer is known to produce, one test each.

Every test quotes, in its docstring, the line of the reverse-engineering
notes on the binary's StableHLO printer (``shared/seeds/002_*``) that fixes
the form it checks; docs/penguin_format.md marks these forms "(binary)".
Where the quoted form is one of several printers' (the summary, the
prologue), both printers are checked.
"""

from __future__ import annotations

import re

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import print_program
from hilo_mlir.support.diagnostics import HiloError

SPINES = ["mhlo", "stablehlo"]


def _print(text: str, dialect: str = "stablehlo", **kw) -> str:
    with make_context():
        return print_program(ir.Module.parse(text), dialect, **kw)[0]


def _line(src: str, needle: str) -> str:
    lines = [line for line in src.splitlines() if needle in line]
    assert len(lines) == 1, (needle, src)
    return lines[0]


def _keywords(line: str) -> list[str]:
    """The keyword names of a statement's call, in order (the call is the first ``(`` after ``=``)."""
    start = line.index("(", line.index(" = ") if " = " in line else 0) + 1
    parts, depth, quote, cur = [], 0, None, ""
    for c in line[start:]:
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        cur += c
    parts.append(cur)
    return [m.group(1) for p in parts if (m := re.match(r"\s*(\w+)=", p))]


MX = """
module @mx {
func.func @main(%x: tensor<4x64xf32>, %w: tensor<8x64xf32>, %sx: tensor<4x2xf8E8M0FNU>, %sw: tensor<8x2xf8E8M0FNU>) -> (tensor<4x16xui32>, tensor<4x8xf32>, tensor<4x64xf32>) {
  %q:2 = stablehlo.custom_call @QuantizeMX(%x) {backend_config = "{\\"dtype\\": \\"float8_e5m2\\", \\"dim\\": -1}"} : (tensor<4x64xf32>) -> (tensor<4x16xui32>, tensor<4x2xf8E8M0FNU>)
  %d = stablehlo.custom_call @__op$block_scaled_dot(%x, %w, %sx, %sw) {backend_config = ""} : (tensor<4x64xf32>, tensor<8x64xf32>, tensor<4x2xf8E8M0FNU>, tensor<8x2xf8E8M0FNU>) -> tensor<4x8xf32>
  %p = stablehlo.custom_call @AwsNeuronDevicePrint(%x) {backend_config = "x = ", has_side_effect = true} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %q#0, %d, %p : tensor<4x16xui32>, tensor<4x8xf32>, tensor<4x64xf32>
}
}
"""


#: MX's function type and mac-count (a 4x8 dot over K=64) without the MX path, which the MHLO printer refuses
NO_MX = """
module @mx {
func.func @main(%x: tensor<4x64xf32>, %w: tensor<8x64xf32>) -> (tensor<4x8xf32>, tensor<4x64xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [1] : (tensor<4x64xf32>, tensor<8x64xf32>) -> tensor<4x8xf32>
  %p = stablehlo.custom_call @AwsNeuronDevicePrint(%x) {backend_config = "x = ", has_side_effect = true} : (tensor<4x64xf32>) -> tensor<4x64xf32>
  return %d, %p : tensor<4x8xf32>, tensor<4x64xf32>
}
}
"""


def _mx_or_not(dialect: str) -> str:
    """MX on the StableHLO printer; on the MHLO one (which has no MX path) the same module without it."""
    return MX if dialect == "stablehlo" else NO_MX


def _composite(kind: str, body: str = "%e = stablehlo.exponential %a : tensor<4x8xf32>\n    return %e : tensor<4x8xf32>") -> str:
    return f"""
module @c {{
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {{
  %0 = stablehlo.composite "neuron.{kind}" %x {{CompositeKind = "{kind}", decomposition = @neuron.{kind}.impl}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}}
func.func private @neuron.{kind}.impl(%a: tensor<4x8xf32>) -> tensor<4x8xf32> {{
    {body}
}}
}}
"""


def _fusion(kind: str) -> str:
    return f"""
module @f {{
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {{
  %0 = "mhlo.fusion"(%x) ({{
  ^bb0(%a: tensor<4x8xf32>):
    %e = mhlo.exponential %a : tensor<4x8xf32>
    mhlo.return %e : tensor<4x8xf32>
  }}) {{FusionKind = "{kind}"}} : (tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}}
}}
"""


def test_imports():
    """Seed: "Intrinsics resolves to neuronxcc.starfish.penguin.ir.Intrinsics; <support> to neuronxcc.starfish.support."

    The support module provides DebugLocation and the dtype namespace.
    """
    src = _print(MX)
    imports = [line for line in src.splitlines() if line.startswith("import ")]
    assert "import neuronxcc.starfish.penguin.ir.Intrinsics as m3" in imports
    assert "import neuronxcc.starfish.support as m2" in imports
    assert not any(".penguin.support" in line for line in imports)
    assert "dl=m2.DebugLocation(" in src and "dtype=m2.dtype." in src


@pytest.mark.parametrize("dialect", SPINES)
def test_function_prologue(dialect):
    """Seed: 'v = m.Function(id_=0, batch_ids=[], attrs=("model-type=…", "mac-count=…", …))'

    The handle is a v<N> name; model-type then the exact mac-count come first
    (here the scaled matmul: 4*8 results x K=64; on the MHLO printer an ordinary dot of that size).
    """
    src = _print(_mx_or_not(dialect), dialect)
    line = src.split("\n\n", 1)[1].splitlines()[0]
    assert line == ("v0 = m0.Function(id_=0, batch_ids=[], attrs=('model-type=generic', 'mac-count=2048', 'module=mx'))")
    assert _print(_mx_or_not(dialect), dialect, model_type="transformer").count("attrs=('model-type=transformer', 'mac-count=2048'") == 1


@pytest.mark.parametrize("dialect", SPINES)
def test_mark_input_flags(dialect):
    """Seed: "input_0 = m.Tensor(...).markInput(..., is_parameter_tensor=True)   # + weight_files / np_file  — weight"
    and "input_1 = m.Tensor(...).markInput(..., is_parameter_tensor=False)  #                            — activation".

    is_parameter_tensor=True exactly for slowChangingIns; a weight names its file as the comment does, weight_files
    (the list of its files: one) then np_file (that file), in that order.
    """
    text = """func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> attributes {slowChangingIns = dense<[1]> : tensor<1xi32>} {
      %0 = mhlo.add %x, %w : tensor<4xf32>
      return %0 : tensor<4xf32>
    }"""
    src = _print(text, dialect)
    assert re.search(r"^input_0 = m1\.Tensor\(.*\)\.markInput\(v0, index=0, is_parameter_tensor=False\)$", src, re.M)
    assert re.search(
        r"^input_1 = m1\.Tensor\(.*\)\.markInput\(v0, index=1, is_parameter_tensor=True, "
        r"weight_files=\['input_1\.npy'\], np_file='input_1\.npy'\)$",
        src,
        re.M,
    )


@pytest.mark.parametrize(
    "kind,py_name", [("Expm1", "Elementwise"), ("Log1p", "Elementwise"), ("Elementwise", "Elementwise"), ("DotSoftmax", "DotSoftmax")]
)
def test_summary_keywords(kind, py_name):
    """Seed: 'emit("%s = m<XlaFE>.NeuronTensorOp(srcs=[…], dsts=%s,",  v, getOutputTensors(op));'
    'emit("    xla_op=\\'mhlo.fusion\\', op=\\'%s\\', hilo_fusion_op=\\'%s\\'", pyName, kind);   // single-quoted'
    'emit(", dl=m<S>.DebugLocation(…))\\n");'

    Expm1/Log1p share the Python op name and keep their kind in hilo_fusion_op.
    """
    line = _line(_print(_composite(kind)), "NeuronTensorOp(")
    assert _keywords(line) == ["srcs", "dsts", "xla_op", "op", "hilo_fusion_op", "dl"]
    assert f"xla_op='mhlo.fusion', op='{py_name}', hilo_fusion_op='{kind}', dl=m2.DebugLocation(" in line


def test_dot_fusion_name():
    """Seed: "QUIRK — DotLogistic's Python op name is 'DotFusion' (@0x25a294), not 'DotLogistic'. The CompositeKind
    DotLogistic rides only in hilo_fusion_op." """
    line = _line(_print(_composite("DotLogistic")), "NeuronTensorOp(")
    assert "xla_op='mhlo.fusion', op='DotFusion', hilo_fusion_op='DotLogistic', dl=" in line


def test_hilo_fusion_op_is_stablehlo_only():
    """Seed: "The genuinely StableHLO-exclusive output is the MX path (§3) and the hilo_fusion_op provenance
    attribute that keeps Expm1/Log1p distinct under a shared Python op name." """
    line = _line(_print(_fusion("Expm1"), "mhlo"), "NeuronTensorOp(")
    assert "hilo_fusion_op" not in line
    assert _keywords(line) == ["srcs", "dsts", "xla_op", "op", "dl"]


def test_reduce_dims():
    """Seed: 'if (kind == "MulRedSqrt")'
    'emit(", reduce_dims=%s", formatList(reduceOp.getDimensions()));   // key @0x22a652'"""
    body = """%z = stablehlo.constant dense<0.0> : tensor<f32>
    %m = stablehlo.multiply %a, %a : tensor<4x8xf32>
    %r = stablehlo.reduce(%m init: %z) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
    %b = stablehlo.broadcast_in_dim %r, dims = [0] : (tensor<4xf32>) -> tensor<4x8xf32>
    %s = stablehlo.rsqrt %b : tensor<4x8xf32>
    return %s : tensor<4x8xf32>"""
    line = _line(_print(_composite("MulRedSqrt", body)), "NeuronTensorOp(")
    assert _keywords(line) == ["srcs", "dsts", "xla_op", "op", "hilo_fusion_op", "reduce_dims", "dl"]
    assert "xla_op='mhlo.fusion', op='MulRedSqrt', hilo_fusion_op='MulRedSqrt', reduce_dims=[1], dl=" in line


def test_xla_op_is_mhlo_fusion_on_stablehlo():
    """Seed: "The xla_op='mhlo.fusion' tag is stamped even by the StableHLO emitter — it carries the MHLO-era tag
    string regardless of which dialect produced the composite." """
    assert "xla_op='mhlo.fusion'" in _line(_print(_composite("Elementwise")), "NeuronTensorOp(")


def test_body_ops_name_the_composite_as_parent():
    """Seed: "Each decomposed inner op's dl=…DebugLocation(parent=…) therefore points at the enclosing composite,
    not at the private func.func." """
    src = _print(_composite("Expm1"))
    handle = re.search(r"^(v\d+) = m\d+\.NeuronTensorOp\(", src, re.M).group(1)
    assert f"parent='{handle}'))" in _line(src, "ExponentialOp(")


def test_composite_operands_alias_the_block_arguments():
    """Seed: "aliases the composite's operands onto that func's block-arguments (so inner ops reference the
    composite's real SSA names)" """
    assert "m1.ExponentialOp(srcs=[input_0]" in _print(_composite("Log1p"))


def test_schedule_fusion_is_transparent():
    """Seed: "NOTE — printScheduleCompositeOp emits no NeuronTensorOp summary at all — it is purely transparent." """
    src = _print(_composite("ScheduleFusion"))
    assert "NeuronTensorOp" not in src and "setResults" not in src
    assert "parent=" not in _line(src, "ExponentialOp(")


def test_quantize_mx_keywords_and_x4_container():
    """Seed: 'emit("    mx_dtype=\\'%s\\', dim=%d, block_size=%d, scale_method=\\'%s\\',", dtype, dim, block_size, scale_meth);'
    'emit("    target_name=%s, %s)\\n", quote(op.getCallTargetName()), printMeta(op));'
    'if (dtype == "float8_e5m2")   dstDtype = "<support>.dtype.float8_e5m2_x4";'
    'int    block_size = j.value("block_size", 32);   // preset 32 (0x20)  key @0x222293'
    'dim = normalizeAxis(dim, op->getOperand(0));     // negative-index fold'
    """
    line = _line(_print(MX), "QuantizeMXTensorOp(")
    assert line.startswith(
        "v1, v2 = m3.QuantizeMXTensorOp(srcs=[input_0], dsts=[m1.TensorSpec(shape=(4, 16), dtype=m2.dtype.float8_e5m2_x4), "
    )
    assert "mx_dtype='float8_e5m2', dim=1, block_size=32, scale_method='EMAX', target_name='QuantizeMX', " in line
    keys = _keywords(line)
    assert keys[:7] == ["srcs", "dsts", "mx_dtype", "dim", "block_size", "scale_method", "target_name"]
    assert keys[-1] == "dl"


def test_mx_path_is_stablehlo_only():
    """Seed: "The genuinely StableHLO-exclusive output is the MX path (§3)" and "There is no MHLO twin for this
    path": the MHLO printer refuses QuantizeMX and the scaled matmul, naming the StableHLO spine."""
    for target in ("QuantizeMX", "__op$block_scaled_dot"):
        only = "\n".join(line for line in MX.splitlines() if "@" + target in line or "stablehlo.custom_call" not in line)
        only = re.sub(r"return .*", "return %x : tensor<4x64xf32>", only).replace(
            "-> (tensor<4x16xui32>, tensor<4x8xf32>, tensor<4x64xf32>) {", "-> tensor<4x64xf32> {"
        )
        with pytest.raises(HiloError, match=re.escape(f"custom_call @{target} is printed on the StableHLO spine only")):
            _print(only, "mhlo")
        _print(only, "stablehlo")


@pytest.mark.parametrize("dialect", ["stablehlo"])
def test_scaled_dot_is_an_ordinary_dot_op(dialect):
    """Seed: "So an MX scaled-matmul appears in the emitted Python as an ordinary DotOp: srcs=[lhs, rhs, lhs_scale,
    rhs_scale] (operands 2/3 are the E8M0 scales, riding as extra positional srcs), op="'mhlo.scaled_dot'", with the
    contracting/batch dims and element_dtype carried as printDotOp's attrs." """
    line = _line(_print(MX, dialect), "DotOp(")
    assert line.startswith("v3 = m1.DotOp(srcs=[input_0, input_1, input_2, input_3], dsts=[")
    assert (
        "lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], "
        "rhs_contracting_dimensions=[1], op='mhlo.scaled_dot', element_dtype='float32'"
    ) in line
    assert "target_name" not in line


@pytest.mark.parametrize("dialect", SPINES)
def test_every_dot_goes_through_print_dot_op(dialect):
    """Seed: 'printDotOp(op, lhs_batch_dims, rhs_batch_dims,'
    '               lhs_contracting_dims, rhs_contracting_dims,'
    """
    text = """func.func @main(%a: tensor<2x3x4xf32>, %b: tensor<2x4x5xf32>, %c: tensor<4x6xf32>, %d: tensor<6xf32>) -> (tensor<2x3x5xf32>, tensor<4xf32>) {
      %0 = stablehlo.dot_general %a, %b, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, HIGHEST] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
      %1 = stablehlo.dot %c, %d : (tensor<4x6xf32>, tensor<6xf32>) -> tensor<4xf32>
      return %0, %1 : tensor<2x3x5xf32>, tensor<4xf32>
    }"""
    if dialect == "mhlo":
        from hilo_mlir import testing

        text, _ = testing.run_passes(text, "builtin.module(stablehlo-legalize-to-hlo)")
    src = _print(text, dialect)
    assert "DotGeneralOp" not in src
    general, dot = [line for line in src.splitlines() if "m1.DotOp(" in line]
    assert (
        f"lhs_batch_dimensions=[0], rhs_batch_dimensions=[0], lhs_contracting_dimensions=[2], "
        f"rhs_contracting_dimensions=[1], op='{dialect}.dot_general', precision_config=['DEFAULT', 'HIGHEST'], "
        f"xla_op='{dialect}.dot_general', dl="
    ) in general
    assert (
        f"lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], "
        f"rhs_contracting_dimensions=[0], op='{dialect}.dot', xla_op='{dialect}.dot', dl="
    ) in dot
    assert "'mac-count=144'" in src  # 2*3*5*4 + 4*6


@pytest.mark.parametrize("dialect", SPINES)
def test_device_print(dialect):
    """Seed: "// emits:  <v> = m<N>.<OpName>(srcs=[…], dsts=[…], xla_op='mhlo.device_print', prefix='<text>', dl=…)" """
    line = _line(_print(_mx_or_not(dialect), dialect), "DevicePrintOp(")
    assert _keywords(line) == ["srcs", "dsts", "xla_op", "prefix", "dl"]
    assert "xla_op='mhlo.device_print', prefix='x = ', dl=m2.DebugLocation(" in line


def test_slow_changing_outputs():
    """Seed: "slowChangingOuts is read symmetrically by print<func::ReturnOp> to classify slow- vs fast-changing
    outputs." """
    text = """func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) attributes {slowChangingOuts = dense<[1]> : tensor<1xi32>} {
      return %x, %x : tensor<4xf32>, tensor<4xf32>
    }"""
    src = _print(text)
    assert "v0.markOutput(input_0, index=0, name='output_0', is_slow_changing=False)" in src
    assert "v0.markOutput(input_0, index=1, name='output_1', is_slow_changing=True)" in src


def test_unknown_composite_kind_is_ncc_ispp054():
    """Seed: 'NEURON_LOG(ERROR, "StableHLOToPythonPrinter.cc", 4049)              // NCC_ISPP054 @0x256145'
    '<< "unknown CompositeKind";       // fatal-style diagnostic; no emitter runs'"""
    with pytest.raises(HiloError) as e:
        _print(_composite("FusedComposite"))
    assert e.value.code == "NCC_ISPP054" and "unknown CompositeKind 'FusedComposite'" in e.value.message


@pytest.mark.parametrize(
    "config,message",
    [
        (None, "backend_config is missing"),
        ('"{not json"', "malformed JSON backend_config"),
    ],
)
def test_quantize_mx_config_errors_are_ncc_evrf036(config, message):
    """Seed: 'NEURON_LOG(ERROR, "StableHLOToPythonPrinter.cc", 3276) // NCC_EVRF036: "backend_config is missing"'
    and 'NEURON_LOG(ERROR, "StableHLOToPythonPrinter.cc", 3286);// NCC_EVRF036: "malformed JSON"'"""
    attrs = "" if config is None else f" {{backend_config = {config}}}"
    text = f"""func.func @main(%x: tensor<4x64xf32>) -> tensor<4x64xf8E5M2> {{
      %q:2 = stablehlo.custom_call @QuantizeMX(%x){attrs} : (tensor<4x64xf32>) -> (tensor<4x64xf8E5M2>, tensor<4x2xf8E8M0FNU>)
      return %q#0 : tensor<4x64xf8E5M2>
    }}"""
    with pytest.raises(HiloError) as e:
        _print(text)
    assert e.value.code == "NCC_EVRF036" and message in e.value.message
