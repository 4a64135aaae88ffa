"""MLIR's escaped strings (``jos\\C3\\A9``) read back as the strings they stand for: in the printer's
DebugLocation and in a diagnostic's ``file:line:col``."""

import pytest

from hilo_mlir.driver.compiler import compile_module
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.support.diagnostics import HiloError, location_to_str
from hilo_mlir.support.mlir_strings import mlir_unescape


@pytest.mark.parametrize(
    ("printed", "meant"),
    [
        (r"jos\C3\A9/\E6\A8\A1.py", "josé/模.py"),
        (r"a \22q\22 tab\09x", 'a "q" tab\tx'),
        ("back\\\\slash", "back\\slash"),
        (r"ansi\1B[31m", "ansi\x1b[31m"),
        (r"bad\FFbyte", "bad\\xffbyte"),  # not UTF-8: kept as an escape, nothing lost
        ("plain.py", "plain.py"),
        (r"odd\Zq", r"odd\Zq"),  # not an escape MLIR prints: left as it is
    ],
)
def test_unescape(printed, meant):
    assert mlir_unescape(printed) == meant


MODULE = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.sine %a : tensor<2xf32> loc("/home/jos\\C3\\A9/\\E6\\A8\\A1.py":3:4)
  %1 = stablehlo.cosine %0 : tensor<2xf32> loc("na\\C3\\AFve \\22q\\22\\09x")
  return %1 : tensor<2xf32>
}
"""


def test_locations_print_the_names_they_stand_for():
    src = str(compile_module(MODULE))
    assert "DebugLocation(file='/home/josé/模.py', line=3, col=4" in src
    assert "name='naïve \"q\"\\tx'" in src
    assert "\\\\C3" not in src and "\\\\22" not in src


def test_a_diagnostic_names_the_real_file():
    with make_context():
        loc = ir.Location.file("/home/josé/m.py", 3, 4)
        assert "\\C3" in str(loc)  # the binding prints it escaped
        assert location_to_str(loc) == "/home/josé/m.py:3:4"
    bad = MODULE.replace("stablehlo.sine", "stablehlo.cholesky")
    with pytest.raises(HiloError) as e:
        compile_module(bad)
    assert e.value.render().startswith("/home/josé/模.py:3:4: error:")
