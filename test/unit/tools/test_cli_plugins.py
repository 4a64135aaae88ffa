"""Pass plugins: loading (file, module, entry point), placing in a spine, and every error case.

The example plugin is ``examples/plugins/dissolve_small_fusions.py``. CLI runs
are subprocesses, so that no plugin stays registered in the test process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from conftest import EXAMPLES, ROOT

PLUGIN = ROOT / "examples" / "plugins" / "dissolve_small_fusions.py"
MODEL = EXAMPLES / "decoder_layer.stablehlo.mlir"  # a real JAX export
SMALL = """func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %a : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def run(*args, pythonpath=(), cwd=ROOT):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([*map(str, pythonpath), str(ROOT)]))
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd)


def opt(*args, **kw):
    return run("-m", "hilo_mlir.tools.opt", *args, **kw)


def h2p(*args, **kw):
    return run("-m", "hilo_mlir.tools.hilo2penguin", *args, **kw)


@pytest.fixture
def small(tmp_path):
    p = tmp_path / "small.mlir"
    p.write_text(SMALL)
    return p


def _plugin(tmp_path, body: str, name="plug.py"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return p


MINIMAL = """\
from hilo_mlir import Option, PassInfo, register

def run(func_op, ctx):
    ctx.stats["functions"] += 1
    if ctx.options.tag:
        ctx.rewriter.set_attr(func_op, "test.tag", ir().StringAttr.get(ctx.options.tag))

def ir():
    from hilo_mlir.ir import ir
    return ir

register(PassInfo("tag-functions", "Tag every function", run,
                  options=(Option("tag", str, "", "the tag"),), statistics=("functions",)))
"""


# --------------------------------------------------------------------------- the done-when


def test_plugin_file_runs_by_name_in_hilo_opt(tmp_path, small):
    plug = _plugin(tmp_path, MINIMAL)
    r = opt(str(small), f"--load-pass-plugin={plug}", "--pass-pipeline=builtin.module(tag-functions{tag=mine})", "--mlir-pass-statistics")
    assert r.returncode == 0, r.stderr
    assert 'test.tag = "mine"' in r.stdout
    assert "TagFunctions\n  (functions) 1" in r.stderr
    r = opt(str(small), "--load-pass-plugin", str(plug), "--tag-functions=tag=x")  # the pass is a flag too
    assert r.returncode == 0 and 'test.tag = "x"' in r.stdout, r.stderr


def test_plugin_in_the_spine_of_a_real_model(tmp_path):
    edit = "neuron-op-fusion=dissolve-small-fusions{max-ops=3}"
    flags = ["--preset", "all", f"--load-pass-plugin={PLUGIN}", "--insert-pass-after", edit]
    dump = h2p("--dump-pass-pipeline", *flags)
    assert dump.returncode == 0, dump.stderr
    assert (
        ",neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true report=},dissolve-small-fusions{max-ops=3},"
        in dump.stdout
    )
    listed = h2p("--list-spine", *flags).stdout
    assert "+     dissolve-small-fusions{max-ops=3}" in listed and "inserted after 15 'neuron-op-fusion'" in listed
    r = h2p(str(MODEL), "-o", str(tmp_path / "out"), "--mlir-pass-statistics", *flags)
    assert r.returncode == 0, r.stderr
    assert ("DissolveSmallFusions\n  (fusions-dissolved) 1\n  (fusions-seen) 3\n  (ops-unfused) 3\n") in r.stderr
    plain = h2p(str(MODEL), "-o", str(tmp_path / "plain"), "--preset", "all")
    assert plain.returncode == 0, plain.stderr
    with_plugin = (tmp_path / "out" / "penguin.py").read_text()
    without = (tmp_path / "plain" / "penguin.py").read_text()
    assert with_plugin.count("op='DotFusion'") == 0 and without.count("op='DotFusion'") == 1
    # the same numbers: the dissolved cluster computes what the fused one did
    from hilo_mlir import penguin_ref, testing
    from hilo_mlir.ir.binding import ir, make_context

    with make_context():
        inputs = testing.random_inputs(ir.Module.parse(MODEL.read_text()), 0)
    a = penguin_ref.run(with_plugin, inputs)
    b = penguin_ref.run(without, inputs)
    for x, y in zip(a, b):
        np.testing.assert_allclose(x, y, rtol=1e-6, atol=1e-6)
    # and the dumped pipeline, with the plugin, reproduces the main job in hilo-opt
    r = opt(str(MODEL), f"--load-pass-plugin={PLUGIN}", f"--pass-pipeline={dump.stdout.strip()}", "-o", str(tmp_path / "opt.py"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "opt.py").read_text() == with_plugin


def test_the_twin_on_the_stablehlo_spine(tmp_path):
    r = h2p(
        str(MODEL),
        "-o",
        str(tmp_path / "out"),
        "--spine",
        "stablehlo",
        "--preset",
        "all",
        "--mlir-pass-statistics",
        f"--load-pass-plugin={PLUGIN}",
        "--insert-pass-after",
        "15=stablehlo-dissolve-small-fusions{max-ops=3}",
    )
    assert r.returncode == 0, r.stderr
    assert "StableHLODissolveSmallFusions\n  (fusions-dissolved) 1\n" in r.stderr
    r = h2p(
        str(MODEL),
        "-o",
        str(tmp_path / "out2"),
        "--spine",
        "stablehlo",
        "--preset",
        "all",
        f"--load-pass-plugin={PLUGIN}",
        "--insert-pass-after",
        "neuron-op-fusion=dissolve-small-fusions",
    )
    assert r.returncode == 0, r.stderr
    assert (  # the module's location is loc(unknown): the file it came from
        f"{MODEL}: warning: pass 'dissolve-small-fusions' works on mhlo ops but the module has none "
        "(it has stablehlo ops): use its twin 'stablehlo-dissolve-small-fusions'"
    ) in r.stderr


def _install(target, name: str, version: str, module: str, body: str) -> None:
    """What ``pip install --target`` leaves for a package with a ``hilo_mlir.passes`` entry point:
    the module and its ``.dist-info`` (METADATA, entry_points.txt) that importlib.metadata reads."""
    (target / module).mkdir(parents=True)
    (target / module / "__init__.py").write_text(body)
    info = target / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[hilo_mlir.passes]\ntiny = {module}\n")
    (info / "top_level.txt").write_text(module + "\n")


def test_installed_package_entry_point(tmp_path, small):
    target = tmp_path / "site"
    _install(target, "tiny-hilo-plugin", "0.3", "tiny_hilo_plugin", MINIMAL.replace("tag-functions", "tiny-tag"))
    h = opt("--help", pythonpath=[target])
    assert "--tiny-tag " in h.stdout and "(plugin: tiny-hilo-plugin 0.3)" in h.stdout, h.stderr
    r = opt(str(small), "--pass-pipeline=builtin.module(tiny-tag{tag=ep})", pythonpath=[target])
    assert r.returncode == 0 and 'test.tag = "ep"' in r.stdout, r.stderr
    assert (
        run("-c", "from hilo_mlir import registry; print(registry.get('tiny-tag').origin)", pythonpath=[target]).stdout.strip()
        == "tiny-hilo-plugin 0.3"
    )
    # entry points are discovered lazily: a run naming only built-in passes never imports the plugin ...
    (target / "tiny_hilo_plugin" / "__init__.py").write_text("import hilo_mlir\n\n1 / 0\n")
    r = opt(str(small), "--cse", pythonpath=[target])
    assert r.returncode == 0, r.stderr
    # ... a name that is not built in loads it: a broken installed plugin is one error naming the package and the line
    r = opt(str(small), "--tiny-tag", pythonpath=[target])
    assert r.returncode == 1
    first = r.stderr.splitlines()[0]
    assert first.endswith(
        "__init__.py:3:1: error: cannot load pass plugin 'tiny = tiny_hilo_plugin' "
        "(entry point of tiny-hilo-plugin 0.3): ZeroDivisionError: division by zero"
    ), r.stderr
    assert r.stderr.splitlines()[1] == "1 / 0"
    env_off = dict(os.environ, PYTHONPATH=os.pathsep.join([str(target), str(ROOT)]), HILO_MLIR_NO_ENTRY_POINT_PLUGINS="1")
    off = subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.opt", str(small), "--pass-pipeline=builtin.module(tiny-tag)"],
        capture_output=True,
        text=True,
        env=env_off,
        cwd=ROOT,
    )
    assert off.returncode == 1 and "unknown pass 'tiny-tag'" in off.stderr and "ZeroDivisionError" not in off.stderr, off.stderr


def test_load_plugin_api_and_compile_config_edits(tmp_path):
    code = textwrap.dedent(f"""
        import hilo_mlir
        from hilo_mlir import CompileConfig
        infos = hilo_mlir.load_plugin({str(PLUGIN)!r})
        assert [i.argument for i in infos] == ["dissolve-small-fusions", "stablehlo-dissolve-small-fusions"]
        assert hilo_mlir.load_plugin({str(PLUGIN)!r}) == infos  # once
        cfg = CompileConfig.preset("all").insert_pass_after("neuron-op-fusion", "dissolve-small-fusions{{max-ops=3}}")
        src = hilo_mlir.compile_file({str(MODEL)!r}, config=cfg)
        print(sorted(src.statistics["DissolveSmallFusions"].items()))
    """)
    r = run("-c", code)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[('fusions-dissolved', 1), ('fusions-seen', 3), ('ops-unfused', 3)]"


def test_public_api_is_exported():
    import hilo_mlir
    from hilo_mlir.passmanager import registry

    assert hilo_mlir.register is registry.register and hilo_mlir.register_twins is registry.register_twins
    assert hilo_mlir.PassInfo is registry.PassInfo and hilo_mlir.Option is registry.Option
    assert hilo_mlir.Statistic is registry.Statistic and hilo_mlir.PassContext is registry.PassContext
    for n in ("register", "register_twins", "PassInfo", "Option", "Statistic", "load_plugin", "PassEdit"):
        assert n in dir(hilo_mlir)


# --------------------------------------------------------------------------- plugin errors


def _load_error(tmp_path, small, body, name="plug.py"):
    plug = _plugin(tmp_path, body, name)
    r = opt(str(small), f"--load-pass-plugin={plug}", "--cse")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    return plug, r.stderr.splitlines()


def test_plugin_syntax_error(tmp_path, small):
    plug, lines = _load_error(tmp_path, small, "from hilo_mlir import register\ndef run(op, ctx)\n    pass\n")
    assert lines[0] == f"{plug}:2:17: error: cannot load pass plugin '{plug}': SyntaxError: expected ':'"
    assert lines[1:] == ["def run(op, ctx)", " " * 16 + "^"]


def test_plugin_that_raises_on_import(tmp_path, small):
    plug, lines = _load_error(tmp_path, small, "import hilo_mlir\nx = {}\ny = x['missing']\n")
    assert lines[0] == f"{plug}:3:5: error: cannot load pass plugin '{plug}': KeyError: 'missing'"


def test_plugin_registering_an_existing_argument(tmp_path, small):
    plug, lines = _load_error(
        tmp_path,
        small,
        """\
        from hilo_mlir import PassInfo, register
        register(PassInfo("cse", "mine", lambda op, ctx: None))
        """,
    )
    assert lines[0] == (
        f"{plug}:2:1: error: cannot load pass plugin '{plug}': pass 'cse' is already registered (built in); choose another argument"
    )
    assert lines[1] == 'register(PassInfo("cse", "mine", lambda op, ctx: None))' and lines[2] == "^"
    first = _plugin(tmp_path, MINIMAL, "first.py")
    second = _plugin(tmp_path, MINIMAL, "second.py")
    r = opt(str(small), f"--load-pass-plugin={first}", f"--load-pass-plugin={second}", "--cse")
    assert r.returncode == 1
    assert f"pass 'tag-functions' is already registered (by plugin {first})" in r.stderr.splitlines()[0]
    assert r.stderr.splitlines()[0].startswith(f"{second}:12:1: error:")


def test_plugin_error_located_in_a_file_whose_name_needs_escaping(tmp_path, small):
    """A plugin file named with a quote and a backslash keeps its file:line:col (the location is an MLIR string)."""
    plug, lines = _load_error(
        tmp_path,
        small,
        """\
        from hilo_mlir import PassInfo, register
        register(PassInfo("cse", "mine", lambda op, ctx: None))
        """,
        name='q"p\\x.py',
    )
    assert lines[0].startswith(f"{plug}:2:1: error: cannot load pass plugin"), lines[0]
    assert lines[1] == 'register(PassInfo("cse", "mine", lambda op, ctx: None))' and lines[2] == "^"


@pytest.mark.parametrize(
    "option,message",
    [
        ('Option("max", int, "3", "")', "option 'max' is int but its default '3' is str"),
        ('Option("max", list, [], "")', "option 'max' has type 'list' (use bool, int, float or str)"),
        ('Option("Max_ops", int, 1, "")', "invalid option name 'Max_ops': use kebab-case"),
        ('Option("on", bool, 1, "")', "option 'on' is bool but its default 1 is int"),
    ],
    ids=["default-type", "bad-type", "bad-name", "bool-default"],
)
def test_plugin_declaring_a_bad_option(tmp_path, small, option, message):
    plug, lines = _load_error(
        tmp_path,
        small,
        f"""\
        from hilo_mlir import Option, PassInfo, register
        register(PassInfo("my-pass", "mine", lambda op, ctx: None,
                          options=({option},)))
        """,
    )
    assert lines[0] == f"{plug}:2:1: error: cannot load pass plugin '{plug}': pass 'my-pass': {message}"


def test_plugin_bad_pass_declarations(tmp_path, small):
    _plug, lines = _load_error(
        tmp_path,
        small,
        """\
        from hilo_mlir import register_twins
        register_twins("my-pass", "mine", lambda op, ctx: None, anchr="builtin.module")
        """,
    )
    assert lines[0].endswith("register_twins() got an unexpected keyword 'anchr'")
    _plug, lines = _load_error(
        tmp_path,
        small,
        """\
        from hilo_mlir import PassInfo, register
        register(PassInfo("MyPass", "mine", lambda op, ctx: None))
        """,
    )
    assert lines[0].endswith("invalid pass argument 'MyPass': use kebab-case (lowercase words joined by '-')")
    _plug, lines = _load_error(
        tmp_path,
        small,
        """\
        from hilo_mlir import PassInfo, register
        register(PassInfo("my-pass", "mine", lambda op, ctx: None, anchor="func"))
        """,
    )
    assert lines[0].endswith("pass 'my-pass': anchor must be 'func.func' or 'builtin.module', got 'func'")


def test_plugin_that_registers_nothing_or_does_not_exist(tmp_path, small):
    plug, lines = _load_error(tmp_path, small, "x = 1\n")
    assert lines[0] == (
        f"hilo-opt: error: cannot load pass plugin '{plug}': it registered no pass "
        "(call hilo_mlir.register(PassInfo(...)) when it is imported)"
    )
    r = opt(str(small), f"--load-pass-plugin={tmp_path / 'nope.py'}")
    assert r.stderr.strip() == f"hilo-opt: error: cannot load pass plugin '{tmp_path / 'nope.py'}': no such file"
    r = h2p(str(small), "-o", str(tmp_path / "o"), "--load-pass-plugin=no_such_plugin_module")
    assert r.returncode == 1
    assert r.stderr.strip() == (
        "hilo2penguin: error: cannot load pass plugin 'no_such_plugin_module': no file or module named 'no_such_plugin_module'"
    )


def test_plugin_by_module_name(tmp_path, small):
    (tmp_path / "modplug.py").write_text(MINIMAL)
    r = opt(str(small), "--load-pass-plugin=modplug", "--pass-pipeline=builtin.module(tag-functions{tag=m})", pythonpath=[tmp_path])
    assert r.returncode == 0 and 'test.tag = "m"' in r.stdout, r.stderr


# --------------------------------------------------------------------------- spine edits


def test_edits_in_the_spine(tmp_path):
    r = h2p(
        "--dump-pass-pipeline",
        "--preset",
        "all",
        "--insert-pass-before",
        "14=cse",
        "--replace-pass",
        "fold-iota=canonicalize",
        "--disable-pass",
        "22",
        "--insert-pass-after",
        "14=func.func(cse),symbol-dce",
    )
    assert r.returncode == 0, r.stderr
    seq = r.stdout
    assert ",remove-dead-values{canonicalize=true},cse,neuron-inst-combine,func.func(cse),symbol-dce,neuron-op-fusion{" in seq
    assert ",neuron-op-fusion{fuse-dot-logistic=true general-elementwise-fusion=true report=},canonicalize{" in seq
    assert "fold-iota" not in seq and "hoist-compute" not in seq
    r = h2p("--dump-pass-pipeline", "--spine", "stablehlo", "--insert-pass-after", "14a=cse")
    assert ",fusion-to-composite,cse," in r.stdout, r.stderr


@pytest.mark.parametrize(
    "flags,message",
    [
        (
            ["--insert-pass-after", "neuron-op-fuson=cse"],
            "unknown spine step 'neuron-op-fuson' (did you mean 'neuron-op-fusion'?); steps are pass arguments or numbers, see --list-spine",
        ),
        (["--insert-pass-after", "14a=cse"], "unknown spine step '14a' (did you mean '14'"),
        (
            ["--insert-pass-after", "neuron-op-fusion=cse"],
            "step 15 'neuron-op-fusion' does not run: its gate op-fusion is off (turn it on with --enable-op-fusion or --preset all)",
        ),
        (["--insert-pass-after", "14"], "--insert-pass-after: expected STEP=PASS[{options}], got '14'"),
        (["--insert-pass-after", "14=cse{nope=1}"], "--insert-pass-after 14=cse{nope=1}: pass 'cse' has no option 'nope' (options: none)"),
        (["--replace-pass", "14=no-such-pass"], "--replace-pass 14=no-such-pass: unknown pass 'no-such-pass'"),
        (
            ["--replace-pass", "14=cse", "--disable-pass", "14"],
            "--disable-pass 14: step 14 'neuron-inst-combine' is already replaced or disabled by an earlier edit",
        ),
    ],
)
def test_edit_errors(flags, message):
    r = h2p("--dump-pass-pipeline", *flags)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("hilo2penguin: error: ") and message in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_compile_config_edit_errors():
    from hilo_mlir import CompileConfig, HiloError
    from hilo_mlir.driver.spine import build_spine

    with pytest.raises(HiloError, match="unknown spine step 'nope'"):
        build_spine(CompileConfig().disable_pass("nope"))
    with pytest.raises(HiloError, match="expected STEP=PASS"):
        CompileConfig().insert_pass_after("14", "")
    steps = build_spine(CompileConfig().replace_pass("neuron-inst-combine", "cse"))
    assert "cse" in [s.argument for s in steps] and "neuron-inst-combine" not in [s.argument for s in steps]


RAISES = """\
from hilo_mlir import PassInfo, register


def _helper(op):
    raise ValueError("boom")


def _run(op, ctx):
    _helper(op)


register(PassInfo("raise-in-plugin", "raises", _run, anchor="func.func"))
"""


def test_errors_name_the_plugin_file_as_the_user_spelt_it(tmp_path, small):
    """The README's examples: a plugin given as ``plug.py`` is ``plug.py:2:1`` in its errors (load and run), not
    the absolute path Python's traceback has; given absolute, it stays absolute."""
    sub = tmp_path / "plugins"
    sub.mkdir()
    _plugin(sub, 'from hilo_mlir import PassInfo, register\nregister(PassInfo("cse", "mine", lambda op, ctx: None))\n')
    r = opt(str(small), "--load-pass-plugin=plugins/plug.py", "--cse", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr.splitlines()[0] == (
        "plugins/plug.py:2:1: error: cannot load pass plugin 'plugins/plug.py': pass 'cse' is already registered (built in); "
        "choose another argument"
    )
    assert r.stderr.splitlines()[1:] == ['register(PassInfo("cse", "mine", lambda op, ctx: None))', "^"]
    raises = _plugin(sub, RAISES, "raises.py")
    r = opt(str(small), "--load-pass-plugin=plugins/raises.py", "--raise-in-plugin", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr.splitlines() == [
        "plugins/raises.py:5:5: error: pass 'raise-in-plugin' (plugin plugins/raises.py) failed: ValueError: boom",
        '    raise ValueError("boom")',
        "    ^",
        "plugins/raises.py:9:5: note: called from '_run'",
        "    _helper(op)",
        "    ^",
    ]
    r = opt(str(small), f"--load-pass-plugin={raises}", "--raise-in-plugin", cwd=tmp_path)
    assert r.stderr.splitlines()[0].startswith(f"{raises}:5:5: error: pass 'raise-in-plugin' (plugin {raises}) failed")
