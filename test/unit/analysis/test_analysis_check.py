"""The checking mode (hilo_mlir/analysis/check.py): every pass, every lit input, and three planted lies.

1. Every registered Python pass runs over every input of the lit suite
   (``// -----`` chunks that parse and verify, in their own dialect and, for
   StableHLO chunks, also legalized to MHLO) with the checking mode on: what
   its rewriter recorded must match what it did, and the census and every
   cached analysis must equal fresh ones. A pass that rejects an input
   (HiloError) is fine; an :class:`AnalysisCheckError` is a bug.
2. Mutations made behind the rewriter's back fail: a scheduler that moves ops
   without recording, a motion pass that records its moves as attribute
   changes, a folder whose new constants the census never hears of.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.ir.binding import ir, make_context, passmanager
from hilo_mlir.passmanager import registry
from hilo_mlir.passmanager.pipeline import Pipeline, Step
from hilo_mlir.rewrite.rewriter import Change, Rewriter
from hilo_mlir.support.diagnostics import HiloError

LIT = pathlib.Path(__file__).resolve().parents[2] / "lit"
_SPLIT = re.compile(r"^// -----\s*$", re.M)


def _chunks() -> list[tuple[str, str]]:
    """(id, text) of every lit chunk that parses and verifies; StableHLO ones also as MHLO."""
    out = []
    ctx = make_context()
    for path in sorted(LIT.rglob("*.mlir")):
        if "Output" in path.parts or "Inputs" in path.parts:
            continue
        text = path.read_text()
        for i, chunk in enumerate(_SPLIT.split(text)):
            if "func.func" not in chunk:
                continue
            with ctx, ir.Location.unknown():
                try:
                    m = ir.Module.parse(chunk)
                    m.operation.verify()
                except Exception:  # noqa: BLE001 - inputs that are meant not to parse
                    continue
                name = f"{path.relative_to(LIT)}#{i}"
                out.append((name, chunk))
                if "stablehlo." in chunk and "mhlo." not in chunk:
                    try:
                        pm = passmanager.PassManager.parse("builtin.module(stablehlo-legalize-to-hlo)")
                        pm.run(m.operation)
                        m.operation.verify()
                        out.append((name + "@mhlo", str(m)))
                    except Exception:  # noqa: BLE001 - not every StableHLO module legalizes
                        pass
    return out


def _python_passes() -> list:
    return [p for p in registry.all_passes() if not p.upstream]


def _option_sets(info) -> list[dict]:
    sets = [{}]
    bools = {o.name: True for o in info.options if o.type is bool and o.default is False}
    if bools:
        sets.append(bools)
    return sets


def _dialect_of(text: str) -> str | None:
    has_m, has_s = "mhlo." in text, "stablehlo." in text
    if has_m and not has_s:
        return "mhlo"
    if has_s and not has_m:
        return "stablehlo"
    return None


CHUNKS = _chunks()


def test_the_lit_inputs_were_found():
    assert len(CHUNKS) > 150  # the suite has ~270 chunks; most parse


@pytest.mark.parametrize("info", _python_passes(), ids=lambda p: p.argument)
def test_every_pass_on_every_lit_input_in_checking_mode(info, tmp_path):
    ran = 0
    ctx = make_context()
    for name, text in CHUNKS:
        dialect = _dialect_of(text)
        if info.dialect is not None and dialect is not None and info.dialect != dialect:
            continue
        for opts in _option_sets(info):
            if any(o.name == "output" for o in info.options):
                opts = dict(opts, output=str(tmp_path / "out"))
            with ctx, ir.Location.unknown():
                m = ir.Module.parse(text)
                step = Step(info, info.argument, info.resolve_options(opts), anchor=info.anchor)
                pipe = Pipeline([step], check_analyses=True)
                try:
                    pipe.run(m)
                except AnalysisCheckError as e:
                    pytest.fail(f"{name} {opts}: {e.message}")
                except HiloError:
                    pass  # the pass refused this input: a located error, not our concern here
                ran += 1
    assert ran > 0


# --------------------------------------------------------------------------- planted lies

SCHEDULE = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.exponential %a : tensor<4xf32>
  %1 = stablehlo.negate %a : tensor<4xf32>
  %2 = stablehlo.add %1, %0 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
"""

SCATTER = """
func.func @main(%a: tensor<4xf32>, %i: tensor<1x1xi32>, %u: tensor<1xf32>) -> tensor<4xf32> {
  %s = "stablehlo.scatter"(%a, %i, %u) ({
  ^bb0(%x: tensor<f32>, %y: tensor<f32>):
    %r = stablehlo.add %x, %y : tensor<f32>
    stablehlo.return %r : tensor<f32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xf32>, tensor<1x1xi32>, tensor<1xf32>) -> tensor<4xf32>
  %e = stablehlo.exponential %a : tensor<4xf32>
  %n = stablehlo.negate %e : tensor<4xf32>
  %t = stablehlo.add %s, %n : tensor<4xf32>
  return %t : tensor<4xf32>
}
"""

ROPE = """
func.func @main() -> tensor<4xf32> {
  %base = stablehlo.constant dense<10000.0> : tensor<f32>
  %b = stablehlo.broadcast_in_dim %base, dims = [] : (tensor<f32>) -> tensor<4xf32>
  %i = stablehlo.iota dim = 0 : tensor<4xf32>
  %s = stablehlo.constant dense<-0.25> : tensor<4xf32>
  %m = stablehlo.multiply %i, %s : tensor<4xf32>
  %p = stablehlo.power %b, %m : tensor<4xf32>
  return %p : tensor<4xf32>
}
"""


def _run(text: str, pipeline: str, check: bool = True) -> str:
    ctx = make_context()
    with ctx, ir.Location.unknown():
        m = ir.Module.parse(text)
        Pipeline.from_text(f"builtin.module({pipeline})", check_analyses=check).run(m)
        return str(m)


def test_honest_passes_pass_the_check():
    assert "stablehlo.negate" in _run(SCHEDULE, "stablehlo-schedule-postorder")
    _run(SCATTER, "stablehlo-schedule-postorder,stablehlo-analyze-schedule,stablehlo-scatter-motion")
    assert "stablehlo.power" not in _run(ROPE, "stablehlo-fold-iota")


def test_moves_not_recorded_fail_the_check(monkeypatch):
    """schedule-postorder moving ops without the rewriter recording it: the pipeline would skip the verifier."""

    def silent_move_before(self, op, anchor):
        op = op.operation if hasattr(op, "operation") else op
        op.move_before(anchor.operation if hasattr(anchor, "operation") else anchor)

    def silent_move_after(self, op, anchor):
        op = op.operation if hasattr(op, "operation") else op
        op.move_after(anchor.operation if hasattr(anchor, "operation") else anchor)

    def silent_move_each_before(self, moves):  # schedule-postorder's batch
        for op, anchor in moves:
            silent_move_before(self, op, anchor)

    monkeypatch.setattr(Rewriter, "move_before", silent_move_before)
    monkeypatch.setattr(Rewriter, "move_after", silent_move_after)
    monkeypatch.setattr(Rewriter, "move_each_before", silent_move_each_before)
    with pytest.raises(AnalysisCheckError, match="recorded no change but the module changed"):
        _run(SCHEDULE, "stablehlo-schedule-postorder")


def test_moves_recorded_as_attribute_changes_fail_the_check(monkeypatch):
    """scatter-motion claiming an attribute-only change after moving a scatter."""

    def move_before_as_attr(self, op, anchor):
        op = op.operation if hasattr(op, "operation") else op
        op.move_before(anchor.operation if hasattr(anchor, "operation") else anchor)
        self._record(Change.ATTRIBUTE, self.top_of(op))

    def move_after_as_attr(self, op, anchor):
        op = op.operation if hasattr(op, "operation") else op
        op.move_after(anchor.operation if hasattr(anchor, "operation") else anchor)
        self._record(Change.ATTRIBUTE, self.top_of(op))

    monkeypatch.setattr(Rewriter, "move_before", move_before_as_attr)
    monkeypatch.setattr(Rewriter, "move_after", move_after_as_attr)
    with pytest.raises(AnalysisCheckError, match="only attribute changes"):
        _run(SCATTER, "stablehlo-scatter-motion")


def test_created_ops_the_census_never_hears_of_fail_the_check(monkeypatch):
    """fold-iota's new constants recorded as attribute-level changes: the kept census goes stale."""

    def create_unannounced(
        self,
        name,
        *,
        results=(),
        operands=(),
        attributes=None,
        successors=None,
        regions=0,
        loc=None,
        before=None,
        after=None,
        at_end=None,
        at_start=None,
        ip=None,
    ):
        point = ip or ir.InsertionPoint(before.operation if hasattr(before, "operation") else before)
        op = ir.Operation.create(
            name,
            results=list(results),
            operands=list(operands),
            attributes=attributes,
            regions=regions,
            loc=loc or (before.location if before is not None else None),
            ip=point,
        )
        self._record(Change.OPERAND, None)
        return op

    monkeypatch.setattr(Rewriter, "create", create_unannounced)
    with pytest.raises(AnalysisCheckError, match="Census"):
        _run(ROPE, "stablehlo-fold-iota")


def test_a_pass_creating_a_power_through_the_rewriter_feeds_fold_iota():
    """The census hears of ops an earlier pass created: fold-iota finds the power a test pass built."""

    def make_power(func_op, ctx):
        rw = ctx.rewriter
        blk = func_op.regions[0].blocks[0]
        ret = list(blk.operations)[-1].operation
        t = ir.RankedTensorType.get([4], ir.F32Type.get())
        f = ir.F32Type.get()
        c = rw.create(
            "stablehlo.constant",
            results=[ir.RankedTensorType.get([], f)],
            attributes={"value": ir.DenseElementsAttr.get_splat(ir.RankedTensorType.get([], f), ir.FloatAttr.get(f, 2.0))},
            before=ret,
        )
        b = rw.create(
            "stablehlo.broadcast_in_dim",
            results=[t],
            operands=[c.results[0]],
            attributes={"broadcast_dimensions": ir.DenseI64ArrayAttr.get([])},
            before=ret,
        )
        i = rw.create(
            "stablehlo.iota", results=[t], attributes={"iota_dimension": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 0)}, before=ret
        )
        s = rw.create(
            "stablehlo.constant", results=[t], attributes={"value": ir.DenseElementsAttr.get_splat(t, ir.FloatAttr.get(f, 1.0))}, before=ret
        )
        mul = rw.create("stablehlo.multiply", results=[t], operands=[i.results[0], s.results[0]], before=ret)
        p = rw.create("stablehlo.power", results=[t], operands=[b.results[0], mul.results[0]], before=ret)
        rw.set_operand(ret, 0, p.results[0])

    info = registry.PassInfo("test-make-power", "test", make_power)
    fold = registry.get("stablehlo-fold-iota")
    src = """
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      return %a : tensor<4xf32>
    }
    """
    ctx = make_context()
    with ctx, ir.Location.unknown():
        m = ir.Module.parse(src)
        steps = [
            Step(fold, fold.argument, fold.resolve_options({}), anchor=fold.anchor),  # takes the census: no power
            Step(info, info.argument, {}, anchor="func.func"),
            Step(fold, fold.argument, fold.resolve_options({}), anchor=fold.anchor),
        ]
        pipe = Pipeline(steps, check_analyses=True)
        pipe.run(m)
        text = str(m)
    assert "stablehlo.power" not in text
    assert "dense<[1.000000e+00, 2.000000e+00, 4.000000e+00, 8.000000e+00]>" in text
    assert [c for _, c in pipe.changes][0] == Change.NONE
