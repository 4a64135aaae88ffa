"""``remove-dead-values`` without the C++ pass (:mod:`hilo_mlir.passmanager.dead_values`).

After ``canonicalize`` the pipeline lists the ops Python passes may leave dead; a later
``remove-dead-values`` erases the dead ones in Python when the module is in the subset where the
C++ pass does nothing more, and runs the C++ pass otherwise. Each test compares the result with
the C++ pass run on the same module, and the checking mode (on) compares every fast path with it.
"""

from __future__ import annotations

import pytest

from hilo_mlir.analysis.check import AnalysisCheckError, fingerprint
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passmanager import dead_values
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo

CHAIN = """
module @m {
  func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
    %c = mhlo.constant dense<2.0> : tensor<4xf32>
    %0 = mhlo.add %a, %c : tensor<4xf32>
    %1 = mhlo.multiply %0, %0 : tensor<4xf32>
    %2 = mhlo.subtract %1, %b : tensor<4xf32>
    return %2 : tensor<4xf32>
  }
}
"""


def _body(m) -> list:
    """The ops of the first function of module ``m`` (an ``ir.Module`` or its op)."""
    return list(m.operation.regions[0].blocks[0].operations[0].regions[0].blocks[0].operations)


def _ops(m, kind: str) -> list:
    """The ops of the first function named ``kind`` in any dialect (``subtract``: ``mhlo.`` or ``stablehlo.subtract``)."""
    return [o for o in _body(m) if o.operation.name.split(".", 1)[1] == kind]


def _detach_return(m, ctx) -> None:
    """The return reads %a: the whole chain is dead."""
    ret = _ops(m, "return")[0]
    ctx.rewriter.set_operand(ret, 0, m.regions[0].blocks[0].operations[0].regions[0].blocks[0].arguments[0])


def _replace_uses(m, ctx) -> None:
    """Uses of the subtract now use %b: subtract, multiply, add and the constant are dead."""
    sub = _ops(m, "subtract")[0]
    ctx.rewriter.replace_all_uses_with(sub.result, sub.operands[1])


def _new_dead_op(m, ctx) -> None:
    """A new negate nobody uses, of the subtract's result: only it is dead."""
    sub = _ops(m, "subtract")[0]
    neg = sub.operation.name.split(".")[0] + ".negate"
    ctx.rewriter.create(neg, results=[sub.result.type], operands=[sub.result], before=_ops(m, "return")[0])


def _replace_uses_of_with(m, ctx) -> None:
    """The subtract reads %a for the multiply: multiply, add and the constant are dead."""
    sub, mul = _ops(m, "subtract")[0], _ops(m, "multiply")[0]
    ctx.rewriter.replace_uses_of_with(sub, mul.result, sub.operands[1])


def _set_operands(m, ctx) -> None:
    """Both multiply operands become %b: add and the constant are dead."""
    mul, sub = _ops(m, "multiply")[0], _ops(m, "subtract")[0]
    ctx.rewriter.set_operands([(mul, 0, sub.operands[1]), (mul, 1, sub.operands[1])])


def _erase_user(m, ctx) -> None:
    """The subtract is replaced by %b and erased by the pass: the rest of the chain is dead."""
    sub = _ops(m, "subtract")[0]
    ctx.rewriter.replace_op(sub, [sub.operands[1]])


def _pass(name: str, run) -> Step:
    info = PassInfo(name, "t", run, anchor="builtin.module")
    return Step(info, info.argument, anchor="builtin.module")


def _pipeline(text: str, steps: list[Step], check: bool = True) -> tuple[Pipeline, str]:
    with make_context():
        m = ir.Module.parse(text)
        pipe = Pipeline(steps, check_analyses=check)
        pipe.run(m)
        return pipe, fingerprint(m.operation)


def _upstream(text: str, steps: list[Step]) -> str:
    """``steps`` then the C++ pass, run outside any fast path (the slow truth)."""
    with make_context():
        m = ir.Module.parse(text)
        Pipeline(steps, check_analyses=False).run(m)
        dead_values.upstream_remove_dead_values(m.operation)
        return fingerprint(m.operation)


@pytest.mark.parametrize(
    "mutate,left",
    [
        (_detach_return, []),
        (_replace_uses, []),
        (_new_dead_op, ["mhlo.constant", "mhlo.add", "mhlo.multiply", "mhlo.subtract"]),
        (_replace_uses_of_with, ["mhlo.subtract"]),
        (_set_operands, ["mhlo.multiply", "mhlo.subtract"]),
        (_erase_user, []),
    ],
)
@pytest.mark.parametrize("dialect", ["mhlo", "stablehlo"])
def test_fast_path_erases_what_the_cpp_pass_erases(mutate, left, dialect):
    text = CHAIN if dialect == "mhlo" else CHAIN.replace("mhlo.", "stablehlo.")

    name = f"test-rdv-{dialect}-" + mutate.__name__.strip("_").replace("_", "-")
    before = [step_for("canonicalize"), _pass(name, mutate)]
    pipe, ours = _pipeline(text, [*before, step_for("remove-dead-values")])
    assert pipe.fast_paths == [2]
    assert ours == _upstream(text, before)
    with make_context():
        names = [o.operation.name for o in _body(ir.Module.parse(ours))]
    assert names == [n.replace("mhlo.", dialect + ".") for n in left] + ["func.return"]


def test_nothing_dead_records_no_change():
    pipe, ours = _pipeline(CHAIN, [step_for("canonicalize"), step_for("remove-dead-values")])
    assert pipe.fast_paths == [1]
    assert pipe.changes[1][1] == 0  # Change.NONE: no verifier run after it
    assert ours == _upstream(CHAIN, [step_for("canonicalize")])


def test_private_function_runs_the_cpp_pass():
    text = CHAIN.replace("func.func @main", "func.func private @main")
    before = [step_for("canonicalize"), _pass("test-rdv-private", _detach_return)]
    pipe, ours = _pipeline(text, [*before, step_for("remove-dead-values")])
    assert pipe.fast_paths == []
    assert "remove-dead-values: the C++ pass runs (a private function)" in pipe.log
    assert ours == _upstream(text, before)
    assert "%arg1" not in ours  # the C++ pass dropped the private function's unused argument


def test_dead_op_of_a_kind_not_judged_runs_the_cpp_pass():
    def new_erf(m, ctx):
        sub = _ops(m, "subtract")[0]
        ctx.rewriter.create("chlo.erf", results=[sub.result.type], operands=[sub.result], before=_ops(m, "return")[0])

    before = [step_for("canonicalize"), _pass("test-rdv-erf", new_erf)]
    pipe, ours = _pipeline(CHAIN, [*before, step_for("remove-dead-values")])
    assert pipe.fast_paths == []
    assert "remove-dead-values: the C++ pass runs (a dead 'chlo.erf' op, a kind not judged, at -:8:5)" in pipe.log
    assert ours == _upstream(CHAIN, before)
    assert "chlo.erf" not in ours


def test_op_outside_the_subset_runs_the_cpp_pass():
    text = CHAIN.replace("    return %2", '    "test.keep"(%2) : (tensor<4xf32>) -> ()\n    return %2')
    before = [step_for("canonicalize"), _pass("test-rdv-unregistered", _detach_return)]
    with make_context() as ctx:
        ctx.allow_unregistered_dialects = True
        m = ir.Module.parse(text)
        pipe = Pipeline([*before, step_for("remove-dead-values")], check_analyses=True)
        pipe.run(m)
    assert pipe.fast_paths == []
    assert "remove-dead-values: the C++ pass runs ('test.keep' op)" in pipe.log


@pytest.mark.parametrize("other,erased", [("cse", 3), ("symbol-dce", 4)])  # cse erases the dead subtract itself
def test_after_another_upstream_pass_the_module_is_walked(other, erased):
    """After another upstream pass the module is still read whole (still no C++ pass)."""
    before = [step_for("canonicalize"), _pass("test-rdv-" + other, _detach_return), step_for(other)]
    pipe, ours = _pipeline(CHAIN, [*before, step_for("remove-dead-values")])
    assert pipe.fast_paths == [3]
    assert f"remove-dead-values: in Python, {erased} dead ops erased" in pipe.log
    assert ours == _upstream(CHAIN, before)


def test_walk_reads_nested_ops():
    """A dead op in a reduce body (kept: its reduce lives) is erased by the walk as by the C++ pass."""
    text = """
    func.func @main(%a: tensor<4xf32>) -> tensor<f32> {
      %z = mhlo.constant dense<0.0> : tensor<f32>
      %r = mhlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
       reducer(%x: tensor<f32>, %y: tensor<f32>) {
        %s = mhlo.add %x, %y : tensor<f32>
        mhlo.return %s : tensor<f32>
      }
      return %r : tensor<f32>
    }
    """

    def add_dead(m, ctx):
        red = _ops(m, "reduce")[0]
        inner = red.regions[0].blocks[0]
        ctx.rewriter.create(
            "mhlo.multiply",
            results=[inner.arguments[0].type],
            operands=[inner.arguments[0], inner.arguments[1]],
            before=list(inner.operations)[-1],
        )

    steps = [step_for("canonicalize"), step_for("cse"), _pass("test-rdv-nested", add_dead), step_for("remove-dead-values")]
    pipe, ours = _pipeline(text, steps)
    assert pipe.fast_paths == [3]
    assert "remove-dead-values: in Python, 1 dead ops erased" in pipe.log
    assert ours == _upstream(text, steps[:3])
    assert "mhlo.multiply" not in ours


def test_remove_dead_values_alone_runs_the_cpp_pass():
    pipe, _ = _pipeline(CHAIN, [step_for("remove-dead-values")])
    assert pipe.fast_paths == []


def test_a_change_the_rewriter_did_not_see_is_read_too():
    def unseen(m, ctx):
        _detach_return(m, ctx)
        ctx.rewriter.notify_unknown_change()

    before = [step_for("canonicalize"), _pass("test-rdv-unseen", unseen)]
    pipe, ours = _pipeline(CHAIN, [*before, step_for("remove-dead-values")])
    assert pipe.fast_paths == [2]
    assert "remove-dead-values: in Python, 4 dead ops erased" in pipe.log
    assert ours == _upstream(CHAIN, before)


def test_second_remove_dead_values_after_a_fast_one_is_fast_too():
    steps = [
        step_for("canonicalize"),
        _pass("test-rdv-new-dead", _new_dead_op),
        step_for("remove-dead-values"),
        _pass("test-rdv-detach", _detach_return),
        step_for("remove-dead-values"),
    ]
    pipe, ours = _pipeline(CHAIN, steps)
    assert pipe.fast_paths == [2, 4]
    assert ours == _upstream(CHAIN, steps[:4])


def test_checking_mode_catches_a_wrong_fast_path(monkeypatch):
    monkeypatch.setattr(dead_values, "dead_closure", lambda roots: [])  # deliberately wrong: erases nothing
    before = [step_for("canonicalize"), _pass("test-rdv-wrong", _detach_return)]
    with pytest.raises(AnalysisCheckError, match=r"the fast path's module differs from the C\+\+ pass's .*mhlo\.constant"):
        _pipeline(CHAIN, [*before, step_for("remove-dead-values")])


def test_without_the_checking_mode_a_wrong_fast_path_is_not_compared(monkeypatch):
    """The comparison is the checking mode's (the fast path alone reads no clone)."""
    monkeypatch.setattr(dead_values, "dead_closure", lambda roots: [])
    before = [step_for("canonicalize"), _pass("test-rdv-wrong2", _detach_return)]
    pipe, ours = _pipeline(CHAIN, [*before, step_for("remove-dead-values")], check=False)
    assert pipe.fast_paths == [2]
    assert "mhlo.constant" in ours


# --------------------------------------------------------------------------- the judged kinds

_F, _I, _P = "tensor<2x3xf32>", "tensor<2x3xi32>", "tensor<2x3xi1>"
_UNARY_F = (
    "abs cbrt ceil cosine exponential exponential_minus_one floor log log_plus_one logistic negate "
    "round_nearest_afz round_nearest_even rsqrt sign sine sqrt tanh"
).split()
_BINARY_F = "add atan2 divide maximum minimum multiply power remainder subtract".split()
_BINARY_I = "and or xor shift_left shift_right_arithmetic shift_right_logical".split()


def _dead_op_of_each_kind(d: str) -> dict[str, str]:
    """``{kind: a line making %r of that kind}`` in dialect ``d``, reading %a, %b (f32), %i (i32), %p (i1)."""
    out = {k: f'%r = "{d}.{k}"(%a) : ({_F}) -> {_F}' for k in _UNARY_F}
    out.update({k: f'%r = "{d}.{k}"(%a, %b) : ({_F}, {_F}) -> {_F}' for k in _BINARY_F})
    out.update({k: f'%r = "{d}.{k}"(%i, %i) : ({_I}, {_I}) -> {_I}' for k in _BINARY_I})
    out.update({k: f'%r = "{d}.{k}"(%i) : ({_I}) -> {_I}' for k in ("not", "popcnt", "count_leading_zeros")})
    dims = (
        (lambda *v: "array<i64: " + ", ".join(map(str, v)) + ">")
        if d == "stablehlo"
        else (lambda *v: "dense<[" + ", ".join(map(str, v)) + f"]> : tensor<{len(v)}xi64>")
    )
    dot = (
        "#stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>"
        if d == "stablehlo"
        else "#mhlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>"
    )
    cmp = f"#{d}<comparison_direction GT>"
    out.update(
        {
            "is_finite": f'%r = "{d}.is_finite"(%a) : ({_F}) -> {_P}',
            "constant": f'%r = "{d}.constant"() {{value = dense<1.0> : {_F}}} : () -> {_F}',
            "convert": f'%r = "{d}.convert"(%a) : ({_F}) -> {_I}',
            "bitcast_convert": f'%r = "{d}.bitcast_convert"(%a) : ({_F}) -> {_I}',
            "compare": f'%r = "{d}.compare"(%a, %b) {{comparison_direction = {cmp}}} : ({_F}, {_F}) -> {_P}',
            "select": f'%r = "{d}.select"(%p, %a, %b) : ({_P}, {_F}, {_F}) -> {_F}',
            "clamp": f'%r = "{d}.clamp"(%a, %b, %a) : ({_F}, {_F}, {_F}) -> {_F}',
            "reshape": f'%r = "{d}.reshape"(%a) : ({_F}) -> tensor<6xf32>',
            "transpose": f'%r = "{d}.transpose"(%a) {{permutation = {dims(1, 0)}}} : ({_F}) -> tensor<3x2xf32>',
            "broadcast_in_dim": f'%r = "{d}.broadcast_in_dim"(%a) {{broadcast_dimensions = {dims(0, 1)}}} : ({_F}) -> {_F}',
            "slice": f'%r = "{d}.slice"(%a) {{start_indices = {dims(0, 0)}, limit_indices = {dims(1, 3)}, strides = {dims(1, 1)}}}'
            f" : ({_F}) -> tensor<1x3xf32>",
            "reverse": f'%r = "{d}.reverse"(%a) {{dimensions = {dims(0)}}} : ({_F}) -> {_F}',
            "concatenate": f'%r = "{d}.concatenate"(%a, %b) {{dimension = 0 : i64}} : ({_F}, {_F}) -> tensor<4x3xf32>',
            "iota": f'%r = "{d}.iota"() {{iota_dimension = 0 : i64}} : () -> {_I}',
            "dot_general": f'%r = "{d}.dot_general"(%a, %b) {{dot_dimension_numbers = {dot}}} : ({_F}, {_F}) -> tensor<2x2xf32>',
            "tuple": f'%r = "{d}.tuple"(%a, %b) : ({_F}, {_F}) -> tuple<{_F}, {_F}>',
        }
    )
    return out


def test_every_judged_kind_is_built_below():
    for d in ("mhlo", "stablehlo"):
        assert {f"{d}.{k}" for k in _dead_op_of_each_kind(d)} == {n for n in dead_values.ERASABLE if n.startswith(d + ".")}


@pytest.mark.parametrize("dialect", ["mhlo", "stablehlo"])
def test_the_cpp_pass_erases_a_dead_op_of_every_judged_kind(dialect):
    """What :data:`~hilo_mlir.passmanager.dead_values.ERASABLE` claims: no memory effect (the C++ pass erases it)."""
    kept = []
    with make_context():
        for kind, line in sorted(_dead_op_of_each_kind(dialect).items()):
            m = ir.Module.parse(f"func.func @main(%a: {_F}, %b: {_F}, %i: {_I}, %p: {_P}) -> {_F} {{\n  {line}\n  return %a : {_F}\n}}\n")
            m.operation.verify()
            assert len(_body(m)) == 2, kind
            dead_values.upstream_remove_dead_values(m.operation)
            if len(_body(m)) != 1:
                kept.append(kind)
    assert kept == []


def test_region_op_dead_once_its_effect_is_erased_runs_the_cpp_pass():
    """A reduce kept alive only by a side-effecting op in its body: once a pass erases that op the reduce is
    dead, a kind the fast path does not judge (its effects come from its body), so the C++ pass runs and
    erases it."""
    text = """
    func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
      %z = stablehlo.constant dense<0.0> : tensor<f32>
      %r = stablehlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
       reducer(%x: tensor<f32>, %y: tensor<f32>) {
        %c = stablehlo.custom_call @log(%x) {has_side_effect = true} : (tensor<f32>) -> tensor<f32>
        %s = stablehlo.add %x, %y : tensor<f32>
        stablehlo.return %s : tensor<f32>
      }
      return %a : tensor<4xf32>
    }
    """

    def erase_effect(m, ctx):
        red = _ops(m, "reduce")[0]
        inner = red.regions[0].blocks[0]
        ctx.rewriter.erase_op(list(inner.operations)[0])

    steps = [step_for("canonicalize"), _pass("test-rdv-erase-effect", erase_effect), step_for("remove-dead-values")]
    pipe, ours = _pipeline(text, steps)
    assert pipe.fast_paths == []
    assert [line for line in pipe.log if "not judged" in line] == [
        "remove-dead-values: the C++ pass runs (a dead 'stablehlo.reduce' op, a kind not judged, at -:4:28)"
    ]
    assert ours == _upstream(text, steps[:2])
    assert "stablehlo.reduce" not in ours


def test_verify_each_verifies_after_the_fast_path(monkeypatch):
    """With --verify-each the verifier runs after a fast path that changed the IR, as the binding's pass
    manager verifies after the C++ pass."""
    verified = []
    real = Pipeline._verify_after

    def spy(self, op, step):
        verified.append(step.argument)
        return real(self, op, step)

    monkeypatch.setattr(Pipeline, "_verify_after", spy)
    steps = [step_for("canonicalize"), _pass("test-rdv-detach", _detach_return), step_for("remove-dead-values")]
    with make_context():
        m = ir.Module.parse(CHAIN)
        pipe = Pipeline(steps, check_analyses=False, verify_each=True)
        pipe.run(m)
    assert pipe.fast_paths == [2]
    assert verified == ["test-rdv-detach", "remove-dead-values"]


# --------------------------------------------------------------------------- the unused ops from the census's lists

NESTED = """
func.func @main(%a: tensor<4xf32>) -> tensor<f32> {
  %z = mhlo.constant dense<0.0> : tensor<f32>
  %u = mhlo.negate %a : tensor<4xf32>
  %r = mhlo.reduce(%a init: %z) across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
   reducer(%x: tensor<f32>, %y: tensor<f32>) {
    %s = mhlo.add %x, %y : tensor<f32>
    %d = mhlo.multiply %x, %y : tensor<f32>
    mhlo.return %s : tensor<f32>
  }
  return %r : tensor<f32>
}
func.func @other(%b: tensor<2xf32>) -> tensor<2xf32> {
  %v = mhlo.sqrt %b : tensor<2xf32>
  return %b : tensor<2xf32>
}
"""


def test_unused_ops_listed_are_the_walks_exactly():
    from hilo_mlir.analysis.census import Census

    with make_context():
        m = ir.Module.parse(NESTED)
        listed = dead_values.unused_ops_listed(Census(m.operation))
        walked = dead_values.unused_ops(m.operation)
        assert sorted(o.name for o in listed.values()) == ["mhlo.multiply", "mhlo.negate", "mhlo.sqrt"]
        assert listed.keys() == walked.keys()
        dead_values.check_unused_ops(m.operation, listed)  # equal: no error


def test_check_unused_ops_catches_a_wrong_listing():
    from hilo_mlir.analysis.census import Census

    with make_context():
        m = ir.Module.parse(NESTED)
        listed = dead_values.unused_ops_listed(Census(m.operation))
        fewer = dict(list(listed.items())[1:])  # one unused op missing
        with pytest.raises(AnalysisCheckError, match=r"differ from a walk's \(0 not unused, 1 missing\)"):
            dead_values.check_unused_ops(m.operation, fewer)


def test_checking_mode_catches_a_wrong_listing_in_the_pipeline(monkeypatch):
    monkeypatch.setattr(dead_values, "unused_ops_listed", lambda census: {})  # deliberately wrong: nothing unused
    before = [step_for("canonicalize"), _pass("test-rdv-listed", _detach_return)]
    with pytest.raises(AnalysisCheckError, match=r"unused ops listed from the census differ from a walk's \(0 not unused, 1 missing\)"):
        _pipeline(CHAIN, [*before, step_for("remove-dead-values")])


def test_a_kind_wrongly_taken_for_single_result_is_read_the_general_way(monkeypatch):
    from hilo_mlir.analysis.census import Census

    text = """
    func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
      %0:2 = mhlo.custom_call @two(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      %1:2 = mhlo.custom_call @two(%a) : (tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>)
      return %1#1 : tensor<2xf32>
    }
    """
    monkeypatch.setattr(dead_values, "SINGLE_RESULT", dead_values.SINGLE_RESULT | {"mhlo.custom_call"})
    with make_context():
        m = ir.Module.parse(text)
        listed = dead_values.unused_ops_listed(Census(m.operation))
        assert len(listed) == 1 and listed.keys() == dead_values.unused_ops(m.operation).keys()
