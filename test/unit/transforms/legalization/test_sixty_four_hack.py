"""sixty-four-hack with range proofs: the narrowed module computes the 64-bit numbers (StableHLO interpreter).

* Every narrowed width-dependent case and out-of-range constant of the lit
  file, evaluated before and after on inputs covering the extremes: equal.
* Random programs over 64-bit values built from 32-bit arguments: when the
  pass accepts a program and ``--debug`` lists nothing narrowed without a
  proof, every result equals the 64-bit one; a refusal names a range.
* Both dialects (the MHLO twin on the legalized module) narrow the same ops.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_sixty_four_hack_programs import programs

from hilo_mlir import testing
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager.pipeline import Pipeline, PipelineEnv
from hilo_mlir.support.diagnostics import HiloError

LIT = pathlib.Path(__file__).resolve().parents[3] / "lit" / "legalization" / "sixty-four-hack.mlir"


def narrow(text: str, pipeline: str = "stablehlo-sixty-four-hack"):
    """(narrowed text, debug lines, statistics) after ``pipeline``."""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        p = Pipeline.from_text(f"builtin.module({pipeline})", env=PipelineEnv(debug=True))
        p.run(m)
        stats = {k: v for c in p.stats.values() for k, v in c.items()}
        return str(m), list(p.log), stats


def chunk(name: str) -> str:
    """The ``// -----`` chunk of the lit file that defines ``@name``."""
    for part in LIT.read_text().split("// -----"):
        if f"func.func @{name}(" in part:
            return part
    raise KeyError(name)


def as_ints(arrays):
    return [a.astype(object) for a in arrays]


EXTREMES_I32 = np.array([-(1 << 31), -1, 0, 1, 65535, 65536, (1 << 31) - 1, 12345], dtype=np.int32)
EXTREMES_U32 = np.array([0, 1, 255, (1 << 31) - 1, 1 << 31, (1 << 32) - 1, 1 << 20, 777], dtype=np.uint32)


def _inputs(text):
    ins = []
    for t in testing.main_signature(ir.Module.parse(text, make_context()))[0]:
        rt = ir.RankedTensorType(t)
        base = EXTREMES_U32 if str(rt.element_type).startswith("ui") else EXTREMES_I32
        if str(rt.element_type) == "i32" and rt.shape == []:
            ins.append(np.array(5, dtype=np.int32))
            continue
        n = int(np.prod(rt.shape))
        ins.append(np.resize(base, n).reshape(rt.shape))
    return ins


@pytest.mark.parametrize("name", ["threefry_counter", "proven", "loop_bounded", "constants_proven", "constants_modular"])
@pytest.mark.parametrize("dialect", ["stablehlo", "mhlo"])
def test_narrowed_cases_compute_the_64_bit_numbers(name, dialect):
    text = chunk(name)
    pipeline = "stablehlo-sixty-four-hack" if dialect == "stablehlo" else "stablehlo-legalize-to-hlo,sixty-four-hack"
    out, log, _ = narrow(text, pipeline)
    assert "i64>" not in out.replace("tensor<0xi64>", "").replace(": i64", "") or dialect == "mhlo"
    assert "xui64" not in out and not [line for line in log if "without a proof" in line]
    for shift in range(3):
        ins = [np.roll(a, shift) if a.ndim else a for a in _inputs(text)]
        before, after = testing.evaluate(text, ins), testing.evaluate(out, ins)
        assert [b.shape for b in before] == [a.shape for a in after]
        for b, a in zip(as_ints(before), as_ints(after)):
            assert np.array_equal(b, a), (name, b, a)


def test_width_dependent_ops_proven_are_counted():
    _, _, stats = narrow(chunk("proven"))
    assert stats["width-dependent-ops-proven"] == 8


REFUSED = """
func.func @main(%x: tensor<4xi32>) -> tensor<4xi64> {
  %xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>
  %s = stablehlo.constant dense<40> : tensor<4xi64>
  %0 = stablehlo.shift_right_logical %xw, %s : tensor<4xi64>
  return %0 : tensor<4xi64>
}"""


def test_refusal_is_one_error_and_the_module_is_untouched():
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(REFUSED)
        before = str(m)
        with pytest.raises(HiloError) as e:
            Pipeline.from_text("builtin.module(stablehlo-sixty-four-hack)").run(m)
        assert str(m) == before
    assert e.value.line == 5
    assert "may be negative (it lies in [-2147483648, 2147483647])" in e.value.message
    # Refused for a reason: srl(-8, 40) is 16777215 at 64 bits and 0 at 32.
    x = np.array([-8, 8, -1, 0], dtype=np.int32)
    assert testing.evaluate(REFUSED, [x])[0].tolist() == [16777215, 0, 16777215, 0]


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(programs(main_types=("i64", "ui64", "i64", "ui64", "i32"), arg_types=("i32", "ui32", "i16", "ui8"), fit32_constants=True))
def test_accepted_and_proven_programs_compute_the_64_bit_numbers(prog):
    text, inputs = prog
    try:
        out, log, _ = narrow(text)
    except HiloError as e:
        assert "lie in" in e.message or "lies in" in e.message, e.message  # a refusal names the range proven
        return
    if [line for line in log if "without a proof" in line]:
        return  # may wrap: nothing to claim
    before, after = testing.evaluate(text, inputs), testing.evaluate(out, inputs)
    for i, (b, a) in enumerate(zip(as_ints(before), as_ints(after))):
        assert np.array_equal(b, a), f"result #{i}: {b} vs {a}\n{text}\n{out}\ninputs {inputs}"


@pytest.mark.slow
@settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    programs(main_types=("i64", "ui64", "i64", "ui64", "i32"), arg_types=("i32", "ui32", "i16", "ui8"), fit32_constants=True, n_ops=(4, 20))
)
def test_accepted_and_proven_programs_compute_the_64_bit_numbers_long(prog):
    test_accepted_and_proven_programs_compute_the_64_bit_numbers.hypothesis.inner_test(prog)


def test_debug_lines_only_when_asked():
    text = (
        chunk("proven")
        .replace("%x: tensor<4xi32>", "%x0: tensor<4xi64>")
        .replace("%xw = stablehlo.convert %x : (tensor<4xi32>) -> tensor<4xi64>", "%xw = stablehlo.add %x0, %x0 : tensor<4xi64>")
    )
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        quiet = Pipeline.from_text("builtin.module(stablehlo-sixty-four-hack)")
        with pytest.raises(HiloError):  # %xw is unbounded now: the shifts are refused
            quiet.run(m)
    assert quiet.log == []
    out, log, _ = narrow(chunk("threefry_counter").replace("() ->", "(%q: tensor<2xi64>) ->"))
    assert log == [
        "[stablehlo-sixty-four-hack] narrowed without a proof: argument #0 of @threefry_counter "
        "(tensor<2xi64>) may hold [-9223372036854775808, 9223372036854775807]; i32 holds [-2147483648, 2147483647]"
    ]


#: stablehlo_testdata modules sixty-four-hack refused before the range proofs (a 64-bit shift, popcnt).
NOW_NARROWED = [
    "iota_2x32_shape_",
    "population_count_uint64_3",
    "random_categorical_bfloat16_5_4",
    "random_categorical_float16_5_4",
    "random_categorical_float16_8",
    "random_categorical_float32_5_4",
    "random_randint_",
    "random_split_",
    "shift_right_logical_uint64_20_20_uint64_20_20",
]


@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("name", NOW_NARROWED)
def test_newly_narrowed_testdata_passes_its_own_checks(name, spine):
    """Each module checks its result against JAX's expected values (``check.expect_eq`` -> CheckOp): running is the test."""
    from conftest import corpus_path

    from hilo_mlir import CompileConfig, compile_file, penguin_ref

    path = corpus_path("third_party", "stablehlo_testdata", f"{name}.mlir")
    src = compile_file(path, CompileConfig(), spine=spine)
    assert "Check" in src and sum(s.get("width-dependent-ops-proven", 0) for s in src.statistics.values()) >= 1
    penguin_ref.run(src, [], files=src.files)  # raises if a check fails


def test_hilo2penguin_debug_takes_one_input(tmp_path, capsys):
    from hilo_mlir.tools.hilo2penguin import run

    assert run(["--batch", str(tmp_path), "-o", str(tmp_path / "o"), "--debug"]) == 1
    assert "--debug needs a single input, not --batch" in capsys.readouterr().err
