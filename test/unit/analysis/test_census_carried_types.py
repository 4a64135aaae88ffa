"""The value types taken before an upstream step that makes no value of a new type (remove-dead-values,
cse, symbol-dce, trivial-dce) start the next census as a stale superset: a "no" reads no type, a "yes"
reads them again, any other upstream step forgets them, and the checking mode catches a carried set that
misses a type of the module."""

import pytest

from hilo_mlir.analysis import census as census_mod
from hilo_mlir.analysis.census import ELEMENTS, FULL, Census
from hilo_mlir.analysis.check import AnalysisCheckError
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager import pipeline as pipeline_mod
from hilo_mlir.passmanager.pipeline import TYPE_SUBSET_PASSES, Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo

# a dead i64 chain (remove-dead-values erases it), a private function nobody calls (symbol-dce erases it)
# and a duplicate multiply (cse merges it)
MODULE = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xi64>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %a, %a : tensor<2xf32>
  %2 = stablehlo.add %0, %1 : tensor<2xf32>
  %3 = stablehlo.convert %b : (tensor<2xi64>) -> tensor<2xi16>
  %4 = stablehlo.negate %3 : tensor<2xi16>
  return %2 : tensor<2xf32>
}
func.func private @unused(%x: tensor<3xbf16>) -> tensor<3xbf16> {
  %0 = stablehlo.negate %x : tensor<3xbf16>
  return %0 : tensor<3xbf16>
}
"""

WITH_TOKEN = """
func.func @main(%a: tensor<2xf32>, %t: !stablehlo.token) -> (tensor<2xf32>, !stablehlo.token) {
  %0 = stablehlo.after_all %t : !stablehlo.token
  return %a, %0 : tensor<2xf32>, !stablehlo.token
}
"""


def _asking(answers: list, *type_strings: str) -> Step:
    """A module pass recording ``census.has_element_type(*type_strings)`` (nothing asked when empty)."""

    def run(module_op, ctx):
        census = ctx.census
        answers.append(census.has_element_type(*type_strings) if type_strings else None)

    info = PassInfo(f"test-ask-{len(type_strings)}-{'-'.join(type_strings) or 'names'}", "asks the census", run, anchor="builtin.module")
    return Step(info, info.argument)


def _counting_reads(monkeypatch) -> list:
    """Count the census's type reads (``_read_types``: taking the types from its op lists)."""
    calls: list = []
    read = census_mod._read_types

    def counted(*a, **k):
        calls.append(1)
        return read(*a, **k)

    monkeypatch.setattr(census_mod, "_read_types", counted)
    return calls


def _run(steps: list, check: bool = False) -> None:
    with make_context():
        Pipeline(steps, check_analyses=check).run(ir.Module.parse(MODULE))


@pytest.mark.parametrize("check", [False, True])
def test_a_no_after_remove_dead_values_reads_no_type(monkeypatch, check):
    reads = _counting_reads(monkeypatch)
    answers: list = []
    _run([_asking(answers, "i32"), step_for("remove-dead-values"), _asking(answers, "!stablehlo.token", "complex<f32>")], check)
    assert answers == [False, False]
    if not check:  # the checking mode reads the types of its fresh censuses itself
        assert len(reads) == 1  # before remove-dead-values only


def test_a_yes_from_the_carried_set_reads_again_and_is_exact(monkeypatch):
    # i16 was a value type before remove-dead-values erased the dead chain: the carried set says yes,
    # the types are read again, and it is gone; i64 (an argument of main) and f32 are still there
    reads = _counting_reads(monkeypatch)
    answers: list = []
    _run([_asking(answers, "i16"), step_for("remove-dead-values"), _asking(answers, "i16"), _asking(answers, "i64", "f32")])
    assert answers == [True, False, True]
    assert len(reads) == 2


def test_another_upstream_step_forgets_the_carried_types(monkeypatch):
    reads = _counting_reads(monkeypatch)
    answers: list = []
    steps = [_asking(answers, "i32"), step_for("remove-dead-values"), step_for("canonicalize"), _asking(answers, "i32")]
    _run(steps)
    assert answers == [False, False]
    assert len(reads) == 2  # canonicalize may make new types: the census after it reads them


def test_nothing_is_carried_when_the_types_were_not_taken(monkeypatch):
    reads = _counting_reads(monkeypatch)
    answers: list = []
    _run([_asking(answers), step_for("remove-dead-values"), _asking(answers, "i32")])
    assert answers == [None, False]
    assert len(reads) == 1  # after remove-dead-values, when asked


@pytest.mark.parametrize("check", [False, True])
def test_carried_across_two_steps_without_a_census_between(monkeypatch, check):
    reads = _counting_reads(monkeypatch)
    answers: list = []
    _run([_asking(answers, "i32"), step_for("remove-dead-values"), step_for("symbol-dce"), _asking(answers, "i32")], check)
    assert answers == [False, False]
    if not check:
        assert len(reads) == 1


@pytest.mark.parametrize("argument", sorted(TYPE_SUBSET_PASSES))
def test_each_declared_pass_leaves_a_subset_of_the_types(argument):
    # under the checking mode the census after the step (started from the carried set) is compared with a
    # full read: a type the step made and the set lacks fails the run
    answers: list = []
    _run([_asking(answers, "i32"), step_for(argument), _asking(answers, "!stablehlo.token")], check=True)
    assert answers == [False, False]


# region-branch ops whose canonicalisation remove-dead-values{canonicalize=true} runs: a while with a dead
# carried i64, an if on a constant predicate, a case with a dead result
REGIONS = """
func.func @main(%a: tensor<2xf32>, %n: tensor<i64>, %b: tensor<2xi16>) -> tensor<2xf32> {
  %t = stablehlo.constant dense<true> : tensor<i1>
  %k = stablehlo.constant dense<1> : tensor<i32>
  %w:3 = stablehlo.while(%x = %a, %i = %n, %d = %b) : tensor<2xf32>, tensor<i64>, tensor<2xi16>
    cond {
      %c = stablehlo.compare LT, %i, %i : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %y = stablehlo.add %x, %x : tensor<2xf32>
      %e = stablehlo.negate %d : tensor<2xi16>
      stablehlo.return %y, %i, %e : tensor<2xf32>, tensor<i64>, tensor<2xi16>
    }
  %r = "stablehlo.if"(%t) ({
      stablehlo.return %w#0 : tensor<2xf32>
    }, {
      %z = stablehlo.negate %w#0 : tensor<2xf32>
      stablehlo.return %z : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
  %q:2 = "stablehlo.case"(%k) ({
      stablehlo.return %r, %b : tensor<2xf32>, tensor<2xi16>
    }, {
      %v = stablehlo.abs %r : tensor<2xf32>
      stablehlo.return %v, %b : tensor<2xf32>, tensor<2xi16>
    }) : (tensor<i32>) -> (tensor<2xf32>, tensor<2xi16>)
  return %q#0 : tensor<2xf32>
}
"""


def test_remove_dead_values_on_region_branch_ops_leaves_a_subset_of_the_types():
    # its canonicalize step runs the region-branch ops' canonicalisation; the checking mode compares the
    # census started from the carried set with a full read
    answers: list = []
    steps = [_asking(answers, "i32"), step_for("remove-dead-values"), _asking(answers, "i64"), _asking(answers, "f64")]
    with make_context():
        m = ir.Module.parse(REGIONS)
        Pipeline(steps, check_analyses=True).run(m)
        after = str(m)
    assert answers[0] is True and answers[2] is False
    assert answers[1] == ("i64" in after)


def test_the_checking_mode_catches_a_carried_set_that_misses_a_type(monkeypatch):
    # deliberately wrong: the bridge turns !stablehlo.token into !mhlo.token, a type the carried set lacks
    monkeypatch.setattr(pipeline_mod, "TYPE_SUBSET_PASSES", TYPE_SUBSET_PASSES | {"stablehlo-legalize-to-hlo"})
    answers: list = []
    steps = [_asking(answers, "i32"), step_for("stablehlo-legalize-to-hlo"), _asking(answers)]
    with make_context():
        m = ir.Module.parse(WITH_TOKEN)
        with pytest.raises(AnalysisCheckError, match="Census: element type strings differ"):
            Pipeline(steps, check_analyses=True).run(m)
    assert answers == [False, None]


def test_adopt_types_refuses_a_census_with_types_and_a_bad_level():
    with make_context():
        m = ir.Module.parse(MODULE)
        taken = Census(m.operation, with_types=True)
        kept = taken.kept_types()
        assert kept is not None and kept[1] == FULL
        with pytest.raises(ValueError, match="taken its types already"):
            taken.adopt_types(*kept)
        fresh = Census(m.operation)
        assert fresh.kept_types() is None
        with pytest.raises(ValueError, match="neither ELEMENTS nor FULL"):
            fresh.adopt_types(kept[0], 7)
        fresh.adopt_types(*kept)
        assert fresh.types_stale and fresh.type_level == ELEMENTS
        assert fresh.has_element_type("i64") and not fresh.types_stale  # a yes read the types again


def _making_i64() -> Step:
    """A module pass that creates an i64 constant through the rewriter without asking the census first."""

    def run(module_op, ctx):
        block = module_op.regions[0].blocks[0].operations[0].regions[0].blocks[0]
        i64 = ir.IntegerType.get_signless(64)
        t = ir.RankedTensorType.get([2], i64)
        value = ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(i64, 1))
        ctx.rewriter.create(
            "stablehlo.constant", results=[t], attributes={"value": value}, before=block.operations[0], loc=ir.Location.unknown()
        )

    info = PassInfo("test-make-i64-unasked", "creates an i64 constant", run, anchor="builtin.module")
    return Step(info, info.argument)


F32_ONLY = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<2xf32>
  return %0 : tensor<2xf32>
}
"""


def test_a_change_before_the_next_census_forgets_the_carried_types():
    """remove-dead-values carries {f32}; a pass then makes an i64 value before any census exists: the next
    census must not answer from the carried set (it would say "no i64")."""
    answers: list = []
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(F32_ONLY)
        Pipeline(
            [_asking(answers, "i32"), step_for("remove-dead-values"), _making_i64(), _asking(answers, "i64")], check_analyses=False
        ).run(m)
        assert "i64" in str(m)
    assert answers == [False, True]
