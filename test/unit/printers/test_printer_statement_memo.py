"""The printer's whole-statement memos (issue 24): one rendering per distinct fragment key, every hit exact.

* :meth:`~hilo_mlir.printers.driver.PenguinPrinter.print_block`: an ordinary op's statement after its
  operand names, keyed on (op name, result types, location, attributes), in ``_stmt_tails``;
* :meth:`~hilo_mlir.printers.emit.Emitter.statement_from_memo`: a contraction's statement and MACs,
  keyed on the same plus the lhs type, in ``_stmt_memo``; a softmax custom call's (``AwsFSPattern5``)
  too, keyed on the same plus the operand count and the operand's type;
* :func:`~hilo_mlir.printers.regions.print_region_op`: a region op's statement around its operand names and
  its ``regions=[...]`` list, keyed on (op name, result types, location, attributes, ``reducer=`` hint);
* :func:`~hilo_mlir.printers.records.statement_parts`: the cut of :func:`~.records.format_statement`
  both memos are assembled from;
* :meth:`~hilo_mlir.printers.driver.PenguinPrinter.read_block`: attributes read only when there are some,
  region counts from the op class's ODS declaration;
* :meth:`~hilo_mlir.printers.driver.PenguinPrinter.print_block` without a snapshot: the fast printer reads
  each op as it prints it (no list of records), the checking printer prints from ``read_block``'s records.

The checking printer (``fast_paths = False``) keeps no memo; the module prints the same bytes with both.
"""

from __future__ import annotations

import pytest

from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.printers import MhloPrinter
from hilo_mlir.printers.records import format_statement, statement_parts
from hilo_mlir.support.diagnostics import HiloError

MODULE = """
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x3xf32>, %c: tensor<3x4xf32>, %z: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x3xf32>, tensor<2xf32>) {
  %0 = mhlo.add %a, %a : tensor<2x4xf32> loc("f.py":1:2)
  %1 = mhlo.add %0, %a : tensor<2x4xf32> loc("f.py":1:2)
  %2 = mhlo.add %1, %0 : tensor<2x4xf32> loc("f.py":7:8)
  %3 = "mhlo.dot_general"(%a, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("d":1:1)
  %4 = "mhlo.dot_general"(%2, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<2x4xf32>, tensor<4x3xf32>) -> tensor<2x3xf32> loc("d":1:1)
  %5 = "mhlo.dot_general"(%c, %b) <{dot_dimension_numbers = #mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>}> : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32> loc("d":1:1)
  %6 = mhlo.add %3, %4 : tensor<2x3xf32> loc("f.py":1:2)
  %7 = "mhlo.broadcast_in_dim"(%z) <{broadcast_dimensions = dense<> : tensor<0xi64>}> : (tensor<f32>) -> tensor<2xf32> loc("f.py":1:2)
  %8 = "mhlo.broadcast_in_dim"(%z) <{broadcast_dimensions = dense<> : tensor<0xi64>}> {x = 1 : i32} : (tensor<f32>) -> tensor<2xf32> loc("f.py":1:2)
  %9 = "mhlo.broadcast_in_dim"(%z) <{broadcast_dimensions = dense<> : tensor<0xi64>}> : (tensor<f32>) -> tensor<2xf32> loc("f.py":1:2)
  %10 = mhlo.add %8, %9 : tensor<2xf32> loc("f.py":1:2)
  %11 = mhlo.add %2, %2 : tensor<2x4xf32> loc("f.py":1:2)
  return %6, %2, %5, %10 : tensor<2x3xf32>, tensor<2x4xf32>, tensor<3x3xf32>, tensor<2xf32>
}
"""


class _Checking(MhloPrinter):
    fast_paths = False
    value_key = staticmethod(lambda v: v)


def _print(cls):
    with make_context():
        p = cls(filename="in.mlir")
        return p, p.print_module(ir.Module.parse(MODULE).operation)


def _statements(src: str) -> list[str]:
    return [line for line in src.split("\n") if line.startswith("v") and "Op(" in line]


def test_statement_parts_reassemble_format_statement():
    head, tail = statement_parts("m1.AddOp", "[S]", ", k=1", "m2.DL(x=1")
    assert (head, tail) == ("m1.AddOp(srcs=[", "], dsts=[S], k=1, dl=m2.DL(x=1")
    for results, srcs, close in (((), ("a",), ")"), (("v1",), ("a", "b"), ", parent='v0')"), (("v1", "v2"), (), ")")):
        lhs = f"{', '.join(results)} = " if results else ""
        want = format_statement("  ", results, "m1.AddOp", srcs, "[S]", ", k=1", "m2.DL(x=1" + close)
        assert "  " + lhs + head + ", ".join(srcs) + tail + close + ")" == want


def test_ops_sharing_a_key_share_one_tail_and_distinct_ones_do_not():
    p, src = _print(MhloPrinter)
    lines = _statements(src)
    adds = [line for line in lines if "AddOp" in line]
    assert adds == [
        "v1 = m1.AddOp(srcs=[input_0, input_0], dsts=[m1.TensorSpec(shape=(2, 4), dtype='float32')], xla_op='mhlo.add', "
        "dl=m2.DebugLocation(file='f.py', line=1, col=2, name=''))",
        "v2 = m1.AddOp(srcs=[v1, input_0], dsts=[m1.TensorSpec(shape=(2, 4), dtype='float32')], xla_op='mhlo.add', "
        "dl=m2.DebugLocation(file='f.py', line=1, col=2, name=''))",
        "v3 = m1.AddOp(srcs=[v2, v1], dsts=[m1.TensorSpec(shape=(2, 4), dtype='float32')], xla_op='mhlo.add', "
        "dl=m2.DebugLocation(file='f.py', line=7, col=8, name=''))",
        "v7 = m1.AddOp(srcs=[v4, v5], dsts=[m1.TensorSpec(shape=(2, 3), dtype='float32')], xla_op='mhlo.add', "
        "dl=m2.DebugLocation(file='f.py', line=1, col=2, name=''))",
        "v11 = m1.AddOp(srcs=[v9, v10], dsts=[m1.TensorSpec(shape=(2,), dtype='float32')], xla_op='mhlo.add', "
        "dl=m2.DebugLocation(file='f.py', line=1, col=2, name=''))",
        "v12 = m1.AddOp(srcs=[v3, v3], dsts=[m1.TensorSpec(shape=(2, 4), dtype='float32')], xla_op='mhlo.add', "
        "dl=m2.DebugLocation(file='f.py', line=1, col=2, name=''))",
    ]
    # v1 went through the full path (its result type was new); v2 entered the memo and v12 read it;
    # v3 (another location), v7 and v11 (other result types) have entries of their own
    tails = {k[1:3]: v for k, v in p._stmt_tails.items() if k[0] == "mhlo.add"}
    assert len(tails) == 4 and len(set(tails.values())) == 4
    shared = (
        "], dsts=[m1.TensorSpec(shape=(2, 4), dtype='float32')], xla_op='mhlo.add', dl=m2.DebugLocation(file='f.py', line=1, col=2, name=''"
    )
    assert shared in tails.values()
    assert sum(1 for line in adds if (shared + "))") in line) == 3  # v1 (full path), v2 and v12 (the memo entry)
    bcast = [line for line in lines if "BroadcastInDimOp" in line]
    assert [line.split(", xla_op=")[0].split("dsts=")[1] for line in bcast] == [
        "[m1.TensorSpec(shape=(2,), dtype='float32')], broadcast_dimensions=[]",
        "[m1.TensorSpec(shape=(2,), dtype='float32')], broadcast_dimensions=[], x=1",  # another attribute: its own text
        "[m1.TensorSpec(shape=(2,), dtype='float32')], broadcast_dimensions=[]",
    ]
    bkeys = [k for k in p._stmt_tails if k[0] == "mhlo.broadcast_in_dim"]
    assert len(bkeys) == 2 and p._stmt_tails[bkeys[0]] != p._stmt_tails[bkeys[1]]


def test_contractions_share_a_statement_per_key_and_count_every_mac():
    p, src = _print(MhloPrinter)
    dots = [line for line in _statements(src) if "DotOp" in line]
    keywords = (
        "lhs_batch_dimensions=[], rhs_batch_dimensions=[], lhs_contracting_dimensions=[1], rhs_contracting_dimensions=[0], "
        "op='mhlo.dot_general', xla_op='mhlo.dot_general', dl=m2.DebugLocation(file='d', line=1, col=1, name=''))"
    )
    assert dots == [
        f"v4 = m1.DotOp(srcs=[input_0, input_1], dsts=[m1.TensorSpec(shape=(2, 3), dtype='float32')], {keywords}",
        f"v5 = m1.DotOp(srcs=[v3, input_1], dsts=[m1.TensorSpec(shape=(2, 3), dtype='float32')], {keywords}",
        f"v6 = m1.DotOp(srcs=[input_2, input_1], dsts=[m1.TensorSpec(shape=(3, 3), dtype='float32')], {keywords}",
    ]
    assert len([k for k in p._stmt_memo if k[0] == "dot"]) == 2  # v5 hit v4's entry; v6: another lhs and result type
    assert p.mac_count == 2 * (2 * 3 * 4) + 3 * 3 * 4
    assert "'mac-count=84'" in src


def test_the_checking_printer_keeps_no_memo_and_prints_the_same_bytes():
    fast, src = _print(MhloPrinter)
    full, ref = _print(_Checking)
    assert src == ref
    assert full._stmt_tails == {} and full._stmt_memo == {} and full._no_regions == {}
    assert fast.mac_count == full.mac_count and fast.per_op_counter == full.per_op_counter


def test_read_block_reads_attributes_as_one_list_and_regions_from_ods():
    text = """
    func.func @main(%a: tensor<2xf32>, %z: tensor<f32>) -> tensor<f32> {
      %0 = mhlo.add %a, %a : tensor<2xf32>
      %1 = mhlo.reduce(%0 init: %z) applies mhlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
      return %1 : tensor<f32>
    }
    """
    with make_context():
        m = ir.Module.parse(text)
        body = m.body.operations[0].regions[0].blocks[0]
        p = MhloPrinter()
        recs, term = p.read_block(body)
        assert [r.name for r in recs] == ["mhlo.add", "mhlo.reduce"] and term.name == "func.return"
        assert recs[0].items == [] and recs[0].nregions == 0  # items() without a len() first
        assert [k for k, _ in recs[1].items] == ["dimensions"] and recs[1].nregions == 1
        assert sorted(c.__name__ for c in p._no_regions) == ["AddOp", "ReturnOp"]  # the reduce declares a region: read
        assert p._class_regions(ir.OpView) is None  # a dialect without classes: its ops' counts are read
        assert p.value_types[recs[0].results[0]] == recs[0].types[0]
        full = _Checking()
        frecs, _ = full.read_block(body)
        assert [(r.name, r.nregions, r.items == []) for r in frecs] == [("mhlo.add", 0, True), ("mhlo.reduce", 1, False)]
        assert full._no_regions == {}


GROUPS = """
func.func @main(%a: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = "mhlo.fusion"(%a) ({
  ^bb0(%x: tensor<2xf32>):
    %1 = mhlo.exponential %x : tensor<2xf32> loc("e")
    mhlo.return %1 : tensor<2xf32>
  }) {FusionKind = "Elementwise"} : (tensor<2xf32>) -> tensor<2xf32> loc("g")
  %2 = "mhlo.fusion"(%0) ({
  ^bb0(%x: tensor<2xf32>):
    %3 = mhlo.exponential %x : tensor<2xf32> loc("e")
    mhlo.return %3 : tensor<2xf32>
  }) {FusionKind = "Elementwise"} : (tensor<2xf32>) -> tensor<2xf32> loc("g")
  %4 = "mhlo.fusion"(%2) ({
  ^bb0(%x: tensor<2xf32>):
    %5 = mhlo.exponential %x : tensor<2xf32> loc("e")
    mhlo.return %5 : tensor<2xf32>
  }) {FusionKind = "Elementwise"} : (tensor<2xf32>) -> tensor<2xf32> loc("h")
  return %0, %2, %4 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""


def test_group_headers_share_one_rendering_per_key():
    with make_context():
        p = MhloPrinter(filename="in.mlir")
        src = p.print_module(ir.Module.parse(GROUPS).operation)
        ref = _Checking(filename="in.mlir").print_module(ir.Module.parse(GROUPS).operation)
    assert src == ref
    spec = "dsts=[m1.TensorSpec(shape=(2,), dtype='float32')]"
    headers = [line for line in src.split("\n") if "NeuronTensorOp" in line]
    assert headers == [
        f"v1 = m3.NeuronTensorOp(srcs=[input_0], {spec}, xla_op='mhlo.fusion', op='Elementwise', "
        "dl=m2.DebugLocation(file='', line=0, col=0, name='g'))",
        f"v3 = m3.NeuronTensorOp(srcs=[v2], {spec}, xla_op='mhlo.fusion', op='Elementwise', "
        "dl=m2.DebugLocation(file='', line=0, col=0, name='g'))",
        f"v5 = m3.NeuronTensorOp(srcs=[v4], {spec}, xla_op='mhlo.fusion', op='Elementwise', "
        "dl=m2.DebugLocation(file='', line=0, col=0, name='h'))",
    ]
    assert len(p.header_parts) == 2  # v3 read v1's entry; v5 (another location) has its own
    assert p.strings and list(p.strings.values()) == ["Elementwise"]  # one FusionKind attribute, read once
    # the body ops close with their own group's handle, whatever entry their text came from
    assert [line.rsplit("parent=", 1)[1] for line in src.split("\n") if "ExponentialOp" in line] == ["'v1'))", "'v3'))", "'v5'))"]


def test_the_fast_walk_reads_ops_as_it_prints_them_and_hands_handlers_read_blocks_records(monkeypatch):
    from hilo_mlir.printers import driver

    reads, handed = [], {}
    orig_read, orig_op = driver.PenguinPrinter.read_block, driver.PenguinPrinter._print_op

    def read_spy(self, block):
        reads.append((self.fast_paths, len(block.operations)))
        return orig_read(self, block)

    def op_spy(self, rec):
        assert type(rec) is driver.OpRecord
        handed.setdefault(self.fast_paths, []).append(rec)
        return orig_op(self, rec)

    monkeypatch.setattr(driver.PenguinPrinter, "read_block", read_spy)
    monkeypatch.setattr(driver.PenguinPrinter, "_print_op", op_spy)
    with make_context():
        module = ir.Module.parse(MODULE).operation  # one module: the two printers read the same ops, types and locations
        src = MhloPrinter(filename="in.mlir").print_module(module)
        assert reads == []  # main was read by the walk itself
        ref = _Checking(filename="in.mlir").print_module(module)
        assert src == ref and reads == [(False, 13)]  # the checking printer: read_block's records (12 ops + return)
        # the records the fast walk made for the ops it handed on hold read_block's fields (values: ids, not objects)
        want = {tuple(map(hash, r.results)): r for r in handed[False]}  # every op: the checking printer has no inline path
        assert len(want) == 12 and [r.name for r in handed[True]] == [
            "mhlo.add",  # the first of each name / result types: the full path, then the memo
            "mhlo.dot_general",  # %3; %4 (the same key) is written from its memo by the walk itself
            "mhlo.dot_general",  # %5: another lhs type
            "mhlo.broadcast_in_dim",
        ]
        for r in handed[True]:
            w = want[r.results]
            assert (r.name, r.types, r.tkeys, r.lkey, r.nregions, r.items, str(r.loc)) == (
                w.name,
                w.types,
                w.tkeys,
                w.lkey,
                w.nregions,
                w.items,
                str(w.loc),
            )
            assert r.op == w.op and r.srcs == tuple(map(hash, w.srcs))


SOFTMAX = """
func.func @main(%a: tensor<2x4xf32>, %b: tensor<4x2xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<2x4xf32>) {
  %0 = mhlo.custom_call @AwsFSPattern5(%a) {backend_config = "{\\"dim\\": -1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":1:1)
  %1 = mhlo.custom_call @AwsFSPattern5(%0) {backend_config = "{\\"dim\\": -1}"} : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":1:1)
  %2 = mhlo.custom_call @AwsFSPattern5(%b) {backend_config = "{\\"dim\\": -1}"} : (tensor<4x2xf32>) -> tensor<4x2xf32> loc("s":1:1)
  %3 = mhlo.custom_call @AwsFSPattern5(%1) {backend_config = "{\\"dim\\": 0}"} : (tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":1:1)
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<4x2xf32>, tensor<2x4xf32>
}
"""


def test_a_softmax_statement_is_rendered_once_per_key(monkeypatch):
    from hilo_mlir.printers import custom_calls

    rendered = []
    orig = custom_calls.json_config

    def spy(op, required):
        rendered.append(op.location)
        return orig(op, required)

    monkeypatch.setattr(custom_calls, "json_config", spy)
    with make_context():
        module = ir.Module.parse(SOFTMAX).operation
        p = MhloPrinter(filename="in.mlir")
        src = p.print_module(module)
        assert len(rendered) == 3  # %1 is %0's key (same attributes, types, location, operand type); %2 and %3 differ
        rendered.clear()
        assert src == _Checking(filename="in.mlir").print_module(module) and len(rendered) == 4  # the checking printer: no memo
    assert [k[0] for k in p._stmt_memo] == ["softmax"] * 3
    dims = [line.split("dim=")[1].split(",")[0] for line in src.split("\n") if "SoftmaxOp" in line]
    assert dims == ["1", "1", "1", "0"]  # -1 normalised by each operand's rank; the memo hit keeps %0's text
    assert "v2 = m1.SoftmaxOp(srcs=[v1]," in src


def test_a_softmax_memo_hit_needs_the_same_operand_count():
    text = SOFTMAX.replace(
        '%3 = mhlo.custom_call @AwsFSPattern5(%1) {backend_config = "{\\"dim\\": 0}"}',
        '%3 = mhlo.custom_call @AwsFSPattern5(%1, %1) {backend_config = "{\\"dim\\": -1}"}',
    ).replace(
        '(tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":1:1)\n  return',
        '(tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("s":1:1)\n  return',
    )
    with make_context():
        with pytest.raises(HiloError, match="needs one operand and one result"):
            MhloPrinter(filename="in.mlir").print_module(ir.Module.parse(text).operation)


def test_an_attribute_dependent_verdict_is_asked_once_per_name_and_target(monkeypatch):
    from hilo_mlir.printers import driver

    asked = []
    orig = driver._sup.op_reason

    def spy(op, printer=None, items=None):
        asked.append(str(op.location))
        return orig(op, printer, items)

    monkeypatch.setattr(driver._sup, "op_reason", spy)
    with make_context():
        module = ir.Module.parse(SOFTMAX).operation
        p = MhloPrinter(filename="in.mlir")
        src = p.print_module(module)
        assert len(asked) == 1  # one target: the verdict reads no other attribute (%3's config differs)
        assert list(p._op_reasons.values()) == [None]
        asked.clear()
        assert src == _Checking(filename="in.mlir").print_module(module) and len(asked) == 8  # checking: twice an op (+ the full check)


REDUCES = """
func.func @main(%a: tensor<2x4xf32>, %z: tensor<f32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %0 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32> loc("r":1:1)
  %1 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32> loc("r":1:1)
  %2 = mhlo.reduce(%a init: %z) applies mhlo.maximum across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32> loc("r":1:1)
  %3 = mhlo.reduce(%a init: %z) applies mhlo.add across dimensions = [1] : (tensor<2x4xf32>, tensor<f32>) -> tensor<2xf32> loc("r":2:1)
  return %0, %1, %2, %3 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""


def test_a_region_op_statement_is_cut_once_per_key_and_filled_with_its_names():
    with make_context():
        module = ir.Module.parse(REDUCES).operation
        p = MhloPrinter(filename="in.mlir")
        src = p.print_module(module)
        assert src == _Checking(filename="in.mlir").print_module(module)
    # %1 is %0's key; %2 has another reducer= hint, %3 another location
    assert [(k[0], k[-1]) for k in p.region_stmts] == [("mhlo.reduce", "add"), ("mhlo.reduce", "maximum"), ("mhlo.reduce", "add")]
    head, mid, tail = p.region_stmts[next(iter(p.region_stmts))]
    assert head == "m1.ReduceOp(srcs=["
    assert mid == "], dsts=[m1.TensorSpec(shape=(2,), dtype='float32')], dimensions=[1], regions="
    assert tail == ", reducer='add', xla_op='mhlo.reduce', dl=m2.DebugLocation(file='r', line=1, col=1, name=''"
    reduces = [line for line in src.split("\n") if "ReduceOp(" in line]
    assert reduces[1] == f"v6 = {head}input_0, input_1{mid}[v7]{tail}))"  # the memo hit: its own names and region function
