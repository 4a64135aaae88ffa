"""The printer's fragment caches belong to one printer instance: nothing a print fills outlives it (issue 24).

The printer renders each distinct type, attribute, location, dot dimension
list and constant once and keys the text by the uniqued object's id. Those
ids are pointers into one MLIR context, so a cache that outlived the print
could hand a later module (another context, the same address) a wrong
fragment. These tests assert that

* two printers never share a cache object, and a new printer starts empty;
* printing a module leaves every module-level container of
  ``hilo_mlir.printers.*`` as it was, except the constant tables listed in
  :data:`CONSTANT_TABLES` (filled lazily from fixed element-type tables);
* the same module printed by a fresh printer in a new context gives the
  same bytes (no stale fragment).
"""

from __future__ import annotations

import importlib
import pkgutil

from hilo_mlir import printers
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import StableHloPrinter, print_program

MODULE = """
module @m {
  func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
    %c = stablehlo.constant dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
    %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("dot0")
    %1 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32> loc("dot1")
    %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
    %3 = stablehlo.add %2, %c : tensor<2x4xf32>
    return %3 : tensor<2x4xf32>
  }
}
"""

#: module-level tables of the printers that are filled lazily from fixed tables (keyed by element type name)
CONSTANT_TABLES = {("literals", "_ROUNDING"), ("literals", "_ML_NUMPY_DTYPES"), ("literals", "_F8_TABLES")}
#: the printer's caches keyed by uniqued-object ids (emit.py / driver.py)
CACHES = (
    "_spec_cache",
    "_attr_cache",
    "_loc_cache",
    "_dsts_cache",
    "loc_by_key",
    "const_cache",
    "ok_dsts",
    "result_reasons",
    "type_reasons",
    "shapes",
    "dot_dims",
    "dot_texts",
    "_op_info",
    "_generic",
    "_heads",
    "_stmt_tails",
    "_no_regions",
    "value_types",
    "_stmt_memo",
    "_memo_tags",
    "_op_reasons",
    "region_stmts",
    "header_parts",
    "strings",
    "_closes",
    "_keywords",
)


def _module_containers() -> dict:
    out = {}
    for info in pkgutil.iter_modules(printers.__path__):
        mod = importlib.import_module(f"hilo_mlir.printers.{info.name}")
        for name, value in vars(mod).items():
            if isinstance(value, (dict, list, set)) and (info.name, name) not in CONSTANT_TABLES:
                out[(info.name, name)] = (id(value), len(value))
    return out


def _print(printer) -> str:
    with make_context():
        return printer.print_module(ir.Module.parse(MODULE).operation)


def test_each_printer_has_its_own_caches():
    a, b = StableHloPrinter(), StableHloPrinter()
    first = _print(a)
    for name in CACHES:
        assert getattr(a, name) is not getattr(b, name), name
        assert getattr(b, name) == {}, name  # b printed nothing yet
    assert a.dot_texts and a.loc_by_key and a._spec_cache and a.type_reasons  # the print filled a's caches
    assert len(a.dot_texts) == 1  # both dot_generals share one rendered dimension list
    assert _print(b) == first
    assert first.count("lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0], op='stablehlo.dot_general'") == 2


def test_a_print_leaves_no_module_level_state():
    with make_context():  # import everything a print touches first
        print_program(ir.Module.parse(MODULE), "stablehlo")
    before = _module_containers()
    with make_context():
        text = MODULE.replace("dot0", "other").replace("stablehlo.add %2, %c", "stablehlo.atan2 %2, %c")  # a new location, a new op name
        src = print_program(ir.Module.parse(text), "stablehlo")[0]
    assert "name='other'" in src and "Atan2Op" in src
    assert _module_containers() == before
