"""The op census (hilo_mlir/census.py) and its lifetime in the pipeline (issue 7)."""

from hilo_mlir.analysis.census import Census
from hilo_mlir.ir.binding import ir, make_context
from hilo_mlir.passes.importing import sharding
from hilo_mlir.passmanager.pipeline import Pipeline, Step, step_for
from hilo_mlir.passmanager.registry import PassInfo

MODULE = """
func.func @main(%a: tensor<2xf32>, %t: tuple<tensor<2xi64>, !stablehlo.token>) -> tensor<2xf32> {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %0, %a : tensor<2xf32>
  %2 = stablehlo.add %1, %0 : tensor<2xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2xf32>, tensor<f32>) -> tensor<f32>
  %b = stablehlo.broadcast_in_dim %r, dims = [] : (tensor<f32>) -> tensor<2xf32>
  return %b : tensor<2xf32>
}
func.func private @g(%x: tensor<3xcomplex<f32>>) -> tensor<3xcomplex<f32>> {
  %0 = stablehlo.add %x, %x : tensor<3xcomplex<f32>>
  return %0 : tensor<3xcomplex<f32>>
}
"""


def _funcs(m):
    return [op.operation for op in m.body.operations]


def test_census_names_counts_index_and_types():
    with make_context():
        m = ir.Module.parse(MODULE)
        c = Census(m.operation)
        main, g = _funcs(m)
        # reduce's body holds one more stablehlo.add (and a stablehlo.return)
        assert c.counts["stablehlo.add"] == 4
        assert c.counts["func.func"] == 2 and c.counts["func.return"] == 2
        assert c.counts["stablehlo.return"] == 1
        assert "stablehlo.divide" not in c.names
        adds = c.ops_named(main, "stablehlo.add")
        # walk order: the reduce body's add comes after %0 and %2 (post-order: before the reduce)
        assert [len(a.operands) for a in adds] == [2, 2, 2]
        assert adds[0].operands[0] == main.regions[0].blocks[0].arguments[0]
        assert [o.name for o in c.ops_named(main, "stablehlo.multiply", "stablehlo.broadcast_in_dim")] == [
            "stablehlo.multiply",
            "stablehlo.broadcast_in_dim",
        ]
        assert len(c.ops_named(g, "stablehlo.add")) == 1
        assert c.element_type_strings() == {"f32", "i64", "!stablehlo.token", "complex<f32>"}


def _recording_pass(seen, erase_first=None):
    def run(func_op, ctx):
        found = ctx.ops_named(func_op, "stablehlo.multiply", "stablehlo.add")
        seen.append([o.name for o in found])
        if erase_first and found:
            victim = found[0]
            ctx.rewriter.replace_op(victim, [victim.operands[0]])

    return run


def test_pipeline_keeps_census_while_preserved_and_drops_it_after_a_change():
    seen = []
    observe = PassInfo("test-observe", "records ops_named", _recording_pass(seen))
    erase = PassInfo("test-erase", "erases the first multiply", _recording_pass(seen, erase_first=True))
    steps = [Step(observe, observe.argument), Step(erase, erase.argument), Step(observe, observe.argument)]
    with make_context():
        m = ir.Module.parse(MODULE)
        pipe = Pipeline(steps)
        pipe.run(m)
        # 2 functions per step; step 2 erased main's multiply and g's add: step 3 sees neither
        assert seen == [
            ["stablehlo.multiply", "stablehlo.add", "stablehlo.add", "stablehlo.add"],
            ["stablehlo.add"],
            ["stablehlo.multiply", "stablehlo.add", "stablehlo.add", "stablehlo.add"],
            ["stablehlo.add"],
            ["stablehlo.add", "stablehlo.add", "stablehlo.add"],
            [],
        ]
        # the verifier ran after the rewriting step only
        assert [n for n, _ in pipe.verify_timings] == ["TestErase (test-erase)"]


def test_upstream_step_drops_the_census():
    seen = []
    observe = PassInfo("test-observe", "records ops_named", _recording_pass(seen))
    steps = [Step(observe, observe.argument), step_for("canonicalize"), Step(observe, observe.argument)]
    text = """
func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = stablehlo.multiply %a, %a : tensor<2xf32>
  %1 = stablehlo.add %a, %a : tensor<2xf32>
  return %1 : tensor<2xf32>
}
"""
    with make_context():
        m = ir.Module.parse(text)
        Pipeline(steps).run(m)
    # canonicalize deleted the dead multiply; the second look must not see it
    assert seen == [["stablehlo.multiply", "stablehlo.add"], ["stablehlo.add"]]


def test_attribute_only_pass_keeps_the_census_but_is_verified():
    ids = []

    def observe(func_op, ctx):
        ids.append(id(ctx.census))

    def tag(func_op, ctx):
        ctx.rewriter.set_attr(func_op, "neuron.tagged", ir.UnitAttr.get())

    look = PassInfo("test-look", "records the census", observe, anchor="builtin.module")
    tagger = PassInfo("test-tag", "sets an attribute", tag)
    steps = [Step(look, look.argument), Step(tagger, tagger.argument), Step(look, look.argument)]
    with make_context():
        m = ir.Module.parse(MODULE)
        pipe = Pipeline(steps)
        pipe.run(m)
        assert len(ids) == 2 and ids[0] == ids[1]
        assert [n for n, _ in pipe.verify_timings] == ["TestTag (test-tag)"]
        assert all("neuron.tagged" in f.attributes for f in _funcs(m))


def test_move_only_pass_keeps_names_and_types_and_rewalks_order():
    seen = []

    def observe(func_op, ctx):
        c = ctx.census
        args = list(func_op.regions[0].blocks[0].arguments)
        adds = ctx.ops_named(func_op, "stablehlo.add")
        seen.append((id(c), c.types(), [args.index(o.operands[0]) for o in adds]))

    def move(func_op, ctx):
        ops = [o.operation for o in func_op.regions[0].blocks[0].operations]
        ctx.rewriter.move_before(ops[2], ops[0])  # add %b, %b to the top

    look = PassInfo("test-look", "records the census", observe)
    mover = PassInfo("test-move", "moves an op", move)
    text = """
func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %0 = stablehlo.add %a, %a : tensor<2xf32>
  %1 = stablehlo.multiply %b, %b : tensor<2xf32>
  %2 = stablehlo.add %b, %b : tensor<2xf32>
  return %0, %2 : tensor<2xf32>, tensor<2xf32>
}
"""
    with make_context():
        m = ir.Module.parse(text)
        pipe = Pipeline([Step(look, look.argument), Step(mover, mover.argument), Step(look, look.argument)])
        pipe.run(m)
        (c1, t1, order1), (c2, t2, order2) = seen
        assert c1 == c2 and t1 == t2  # the same census, the same types: names, counts, types kept
        assert order1 == [0, 1] and order2 == [1, 0]  # the op lists were taken again after the move
        assert [n for n, _ in pipe.verify_timings] == ["TestMove (test-move)"]


# --- the driver's input census (review findings, issue 7) -------------------------------------

SIGMOID = """
func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %one = mhlo.constant dense<1.0> : tensor<4xf32>
  %n = mhlo.negate %a : tensor<4xf32>
  %e = mhlo.exponential %n : tensor<4xf32>
  %s = mhlo.add %one, %e : tensor<4xf32>
  %d = mhlo.divide %one, %s : tensor<4xf32>
  return %d : tensor<4xf32>
}
"""


def test_compile_loaded_twice_gives_the_same_program():
    from hilo_mlir.driver import compiler
    from hilo_mlir.driver.config import CompileConfig

    loaded = compiler.load_module(SIGMOID, "x.mlir")
    a = compiler.compile_loaded(loaded, CompileConfig.preset("all"))
    b = compiler.compile_loaded(loaded, CompileConfig.preset("all"))
    assert str(a) == str(b) and not hasattr(loaded, "extras")  # the input census lives inside one compile only
    assert loaded.dialect == "mhlo"


def test_compile_after_the_caller_rewrote_the_loaded_module():
    """A census must never outlive a change made outside the compile (it holds op handles)."""
    from hilo_mlir.driver import compiler
    from hilo_mlir.driver.config import CompileConfig

    loaded = compiler.load_module(SIGMOID, "x.mlir")
    with loaded.context, ir.Location.unknown():
        f = loaded.module.body.operations[0]
        blk = f.regions[0].blocks[0]
        ops = [o.operation for o in blk.operations]
        ret = ops[-1]
        ret.operands[0] = blk.arguments[0]
        for o in reversed(ops[:-1]):
            o.erase()
        v = blk.arguments[0]
        for _ in range(20):  # reuse the freed memory
            v = ir.Operation.create("mhlo.abs", results=[v.type], operands=[v], ip=ir.InsertionPoint(ret)).result
        ret.operands[0] = v
    src = compiler.compile_loaded(loaded, CompileConfig.preset("all"))
    assert src.statistics["RaiseLogistic"] == {}  # no divide left to raise
    assert "abs" in str(src) and "logistic" not in str(src)


def test_validation_sees_declarations_in_nested_modules():
    from hilo_mlir.driver import compiler
    from hilo_mlir.support.diagnostics import HiloError

    text = """
module {
  module @inner {
    func.func private @decl(%arg0: tensor<?xf32>) -> tensor<?xf32>
  }
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    %0 = mhlo.add %a, %a : tensor<2xf32>
    return %0 : tensor<2xf32>
  }
}
"""
    try:
        compiler.compile_module(text, filename="n.mlir")
    except HiloError as e:
        assert "@decl argument #0 has dynamic shape tensor<?xf32>" in e.message and e.line == 4
    else:
        raise AssertionError("a dynamic-shaped declaration in a nested module was accepted")


def test_strip_sharding_reaches_nested_functions():
    from hilo_mlir.driver import compiler

    text = """
module {
  module @inner {
    func.func private @decl(%arg0: tensor<2xf32> {mhlo.sharding = "{replicated}"}) -> tensor<2xf32>
  }
  func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {
    return %a : tensor<2xf32>
  }
}
"""
    loaded = compiler.load_module(text, "s.mlir")
    assert sharding.strip_sharding(loaded) == 1
    assert "sharding" not in str(loaded.module)


def test_ops_named_on_a_non_top_level_op_walks_it():
    with make_context():
        m = ir.Module.parse(MODULE)
        c = Census(m.operation)
        main = _funcs(m)[0]
        reduce_op = c.ops_named(main, "stablehlo.reduce")[0]
        assert [o.name for o in c.ops_named(reduce_op, "stablehlo.add")] == ["stablehlo.add"]  # the body's add
        assert len(c.ops_named(m.operation, "stablehlo.add")) == 4  # the module: every function


def test_census_stays_exact_when_erased_addresses_are_reused():
    # Erase an op, then create one (the allocator usually hands the freed address to the
    # new op), in the same list and in another one, and erase some new ops again before
    # their list is read: the kept census must equal a fresh walk (the checking mode
    # compares them after the pass, before any read re-walks the function).
    lines = ["func.func @main(%a: tensor<2xf32>) -> tensor<2xf32> {"]
    lines += [f"  %m{i} = stablehlo.multiply %a, %a : tensor<2xf32>" for i in range(40)]
    lines += ["  return %a : tensor<2xf32>", "}"]
    kept = []

    def churn(func_op, ctx):
        rw = ctx.rewriter
        muls = ctx.ops_named(func_op, "stablehlo.multiply")
        for i, o in enumerate(muls):
            name = "stablehlo.multiply" if i % 2 else "stablehlo.add"
            t, args = o.results[0].type, list(o.operands)
            rw.erase_op(o)
            anchor = func_op.regions[0].blocks[0].operations[0]
            new = rw.create(name, results=[t], operands=args, before=anchor)
            if i % 5 == 0:  # a new op erased again before its list is read
                rw.erase_op(new)
                rw.create(name, results=[t], operands=args, before=anchor)
        kept.append(ctx.census)

    info = PassInfo("test-churn", "erases and creates ops", churn)
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse("\n".join(lines))
        Pipeline([Step(info, info.argument)], check_analyses=True).run(m)  # raises if the census drifted
        assert kept[0].differences(Census(m.operation)) == []
        assert kept[0].counts["stablehlo.multiply"] == 20 and kept[0].counts["stablehlo.add"] == 20
        assert str(m).count("stablehlo.multiply") == 20 and str(m).count("stablehlo.add") == 20


def test_census_counts_right_after_erasing_a_function_that_lost_ops():
    # An op erased inside @g is counted out at once; erasing @g afterwards must not count it out again.
    def run(module_op, ctx):
        g = [f.operation for f in module_op.regions[0].blocks[0].operations][1]
        add = ctx.ops_named(g, "stablehlo.add")[0]
        ctx.rewriter.replace_op(add, [add.operands[0]])
        ctx.rewriter.erase_op(g)

    info = PassInfo("test-erase-func", "erases an op of @g, then @g", run, anchor="builtin.module")
    with make_context():
        m = ir.Module.parse(MODULE)
        pipe = Pipeline([Step(info, info.argument)], check_analyses=True)
        pipe.run(m)  # the checking mode compares the kept census with a fresh one
        c = Census(m.operation)
    assert c.counts["stablehlo.add"] == 3 and c.counts["func.func"] == 1
