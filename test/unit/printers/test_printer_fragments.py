"""The printer's statement-level memos (issue 24): each distinct fragment is rendered once, and every hit is exact.

* :meth:`~hilo_mlir.printers.emit.Emitter.location_close`: ``", parent=<quoted handle>)"``
  once per parent handle (``")"`` outside any group or region);
* :meth:`~hilo_mlir.printers.emit.Emitter.emit`: the keywords text between ``dsts`` and
  ``dl`` memoised on (keyword pairs, ``xla_op``, ``xla_first``, ``with_xla``);
* a ``MulRedSqrt`` fusion's body read once: by the walk as it prints it, its reduce found by name
  first (the checking printer: in the snapshot it prints from).

The checking printer (``fast_paths = False``) reads none of these memos; a module
exercising all of them prints the same bytes with both.
"""

from __future__ import annotations

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import MhloPrinter, driver

MODULE = """
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %z: tensor<f32>, %n: tensor<2x1xf32>) -> (tensor<2x1xf32>, tensor<2x3xf32>) {
  %0 = "mhlo.fusion"(%a, %z, %n) ({
  ^bb0(%x: tensor<2x4xf32>, %i: tensor<f32>, %d: tensor<2x1xf32>):
    %1 = mhlo.multiply %x, %x : tensor<2x4xf32> loc("sq")
    %2 = mhlo.reduce(%1 init: %i) applies mhlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32> loc("red")
    %3 = mhlo.reshape %2 : (tensor<2xf32>) -> tensor<2x1xf32> loc("rs")
    %4 = mhlo.divide %3, %d : tensor<2x1xf32> loc("div")
    %5 = mhlo.rsqrt %4 : tensor<2x1xf32> loc("rsqrt")
    mhlo.return %5 : tensor<2x1xf32>
  }) {FusionKind = "MulRedSqrt"} : (tensor<2x4xf32>, tensor<f32>, tensor<2x1xf32>) -> tensor<2x1xf32> loc("fusion")
  %6 = "mhlo.dot_general"(%a, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("dot0")
  %7 = "mhlo.dot_general"(%a, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("dot1")
  %8 = mhlo.add %6, %7 : tensor<2x3xf32>
  return %0, %8 : tensor<2x1xf32>, tensor<2x3xf32>
}
"""


class _Checking(MhloPrinter):
    fast_paths = False
    value_key = staticmethod(lambda v: v)


def _print(cls):
    with make_context():
        p = cls(filename="f.mlir")
        return p, p.print_module(ir.Module.parse(MODULE).operation)


def test_location_close_renders_each_parent_once_and_distinctly():
    p = MhloPrinter()
    assert p.location_close(None) == ")"
    one = p.location_close("v1")
    assert one == ", parent='v1')"
    assert p.location_close("v1") is one  # the memo's string, not a new rendering
    assert p.location_close("v12") == ", parent='v12')"
    assert p.location_close("it's") == ', parent="it\'s")'  # quoted by py_literal
    assert p._closes == {"v1": one, "v12": ", parent='v12')", "it's": ', parent="it\'s")'}
    assert p.with_parent("X(a=1") == "X(a=1)"  # no enclosing handle
    p.parent_stack.append("v1")
    assert p.with_parent("X(a=1") == "X(a=1, parent='v1')"


def test_the_checking_printer_reads_no_close_memo():
    p = _Checking()
    p._closes["v1"] = "WRONG"
    assert p.location_close("v1") == ", parent='v1')"


def test_equal_keywords_share_one_rendering_and_distinct_ones_do_not():
    p, src = _print(MhloPrinter)
    dots = [k for k in p._keywords if k[1] == "mhlo.dot_general"]
    assert len(dots) == 1  # dot0 and dot1: the same keyword pairs, one memo entry
    text = p._keywords[dots[0]]
    assert text == p.keywords_text(list(dots[0][0]), "mhlo.dot_general")
    assert text == (
        ", lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], "
        "rhs_contracting_dimensions=[0], op='mhlo.dot_general', xla_op='mhlo.dot_general'"
    )
    assert src.count(text + ", dl=") == 2
    # the group header and the region op have keyword pairs of their own: distinct entries, distinct texts
    assert len(set(p._keywords.values())) == len(p._keywords)


def _spy_reads(monkeypatch):
    """Record ``read_block`` (ops per block read) and whether ``print_block`` got a snapshot."""
    reads, given = [], []
    orig_read, orig_print = driver.PenguinPrinter.read_block, driver.PenguinPrinter.print_block

    def read_spy(self, block):
        reads.append(len(block.operations))
        return orig_read(self, block)

    def print_spy(self, block, snapshot=None):
        given.append(snapshot is not None)
        return orig_print(self, block, snapshot)

    monkeypatch.setattr(driver.PenguinPrinter, "read_block", read_spy)
    monkeypatch.setattr(driver.PenguinPrinter, "print_block", print_spy)
    return reads, given


def test_mul_red_sqrt_body_is_read_once_as_it_is_printed(monkeypatch):
    reads, given = _spy_reads(monkeypatch)
    _, src = _print(MhloPrinter)
    # only the reducer body is read ahead (for its reducer= hint); main and the fusion body are read by the walk as
    # it prints them: the fusion's reduce is found by name first, the walk over the body stopping there
    assert reads == [2]
    assert given == [False, False, True]
    assert "op='MulRedSqrt'" in src and "reduce_dims=[1]" in src


def test_the_checking_printer_reads_the_mul_red_sqrt_body_into_a_snapshot(monkeypatch):
    reads, given = _spy_reads(monkeypatch)
    _, src = _print(_Checking)
    # the checking printer reads every block ahead: main (4 ops + return), the fusion body (5 ops + return) once,
    # the reducer body
    assert reads == [5, 6, 2]
    assert given == [False, True, True]  # main: read_block inside print_block; the fusion body: the snapshot of its reduce
    assert "op='MulRedSqrt'" in src and "reduce_dims=[1]" in src


def test_fast_and_checking_printers_print_the_same_bytes():
    fast, src = _print(MhloPrinter)
    _, ref = _print(_Checking)
    assert src == ref
    assert fast._closes  # the body ops had a parent: the memo was used
    assert src.count("parent='v1')") == 5 and src.count("parent='v3')") == 1  # the fusion's handle, the reduce's
