"""hilo-check (issue 25; the f64 widening itself: transforms/legalization/test_widen_float.py): --fusion-fuel / --max-pass-index, the verdict, the
bisection of a deliberately broken plugin, a structurally zero gradient, and bad input (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from conftest import ROOT

from hilo_mlir import CompileConfig, compile_module

SMALL = """
func.func @main(%x: tensor<4x8xf32>, %w: tensor<8x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %d = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x8xf32>) -> tensor<4x8xf32>
  %l = stablehlo.logistic %d : tensor<4x8xf32>
  %m = stablehlo.multiply %d, %l : tensor<4x8xf32>
  %a = stablehlo.abs %m : tensor<4x8xf32>
  %s = stablehlo.sqrt %a : tensor<4x8xf32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  return %s, %e : tensor<4x8xf32>, tensor<4x8xf32>
}
"""

PLUGIN = ROOT / "test" / "lit" / "plugins" / "Inputs" / "perturb_sqrt.py"
BAD_FUSION = ROOT / "test" / "lit" / "plugins" / "Inputs" / "bad_sqrt_fusion.py"

THREE = """func.func @main(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %a = stablehlo.abs %x : tensor<4x8xf32>
  %s0 = stablehlo.sqrt %a : tensor<4x8xf32>
  %e = stablehlo.exponential %x : tensor<4x8xf32>
  %s1 = stablehlo.sqrt %e : tensor<4x8xf32>
  %m = stablehlo.multiply %a, %e : tensor<4x8xf32>
  %s2 = stablehlo.sqrt %m : tensor<4x8xf32>
  return %s0, %s1, %s2 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
"""


def _check(*argv, cwd=None):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TF_CPP_MIN_LOG_LEVEL="3")
    return subprocess.run(
        [sys.executable, "-m", "hilo_mlir.tools.check", *map(str, argv)], capture_output=True, text=True, env=env, cwd=cwd
    )


def test_fusion_fuel_zero_is_fusion_free_and_unlimited_is_byte_identical():
    cfg = CompileConfig.preset("all")
    today = compile_module(SMALL, cfg, spine="stablehlo")
    assert "hilo_fusion_op='DotLogistic'" in today
    assert compile_module(SMALL, cfg.replace(fusion_fuel=10**9), spine="stablehlo") == today
    free = compile_module(SMALL, cfg.replace(fusion_fuel=0), spine="stablehlo")
    assert "hilo_fusion_op" not in free and "mhlo.fusion" not in free and free != today
    assert compile_module(SMALL, cfg.replace(max_pass_index=10**6), spine="stablehlo") == today


def test_out_of_fuel_is_a_recorded_refusal_and_max_pass_index_logs_like_opt_bisect():
    from hilo_mlir.fusion.fuel import FusionFuel
    from hilo_mlir.fusion.report import FusionReport
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.passmanager.pass_context import CompileOutputs, PipelineEnv
    from hilo_mlir.passmanager.pipeline import Pipeline

    rep, tank = FusionReport("in.mlir"), FusionFuel(0)
    with make_context():
        m = ir.Module.parse(SMALL)
        p = Pipeline.from_text(
            "builtin.module(stablehlo-legalize-to-hlo,canonicalize,neuron-op-fusion{fuse-dot-logistic=true})",
            env=PipelineEnv(filename="in.mlir"),
            outputs=CompileOutputs(fusion_report=rep, fusion_fuel=tank),
            max_pass_index=1,
        )
        p.run(m)
        assert "mhlo.fusion" not in str(m)
    assert p.log == ["BISECT: running pass (0) stablehlo-legalize-to-hlo", "BISECT: running pass (1) canonicalize",
                     "BISECT: NOT running pass (2) neuron-op-fusion"]  # fmt: skip
    with make_context():
        m = ir.Module.parse(SMALL)
        Pipeline.from_text(
            "builtin.module(stablehlo-legalize-to-hlo,neuron-op-fusion{fuse-dot-logistic=true})",
            outputs=CompileOutputs(fusion_report=rep, fusion_fuel=tank),
        ).run(m)
    assert tank.refused == 1 and tank.spent == []
    assert [r.code for r in rep.refusals() if r.code == "out-of-fuel"] == ["out-of-fuel"]


def test_decoder_layer_preset_all_prints_a_table_and_exits_0(tmp_path):
    r = _check(ROOT / "examples" / "decoder_layer.stablehlo.mlir", "--preset", "all", "-o", tmp_path)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[2].split() == ["out", "dtype", "shape", "err", "penguin", "err", "XLA", "bound", "verdict"]
    assert lines[3].split()[:3] == ["0", "float32", "2x16x64"] and lines[3].split()[-1] == "as-accurate-as-XLA"
    assert lines[-1] == "every output is as accurate as XLA"
    rep = json.loads((tmp_path / "check_report.json").read_text())
    assert rep["ok"] is True and rep["outputs"][0]["err_penguin"] <= rep["outputs"][0]["bound"]
    # Model Explorer: a graph collection (its JSON adapter's format) and node data for its nodes
    g = json.loads((tmp_path / "model_explorer_graph.json").read_text())
    nodes = g["graphs"][0]["nodes"]
    ids = {n["id"] for n in nodes}
    assert set(g) == {"label", "graphs"} and g["graphs"][0]["id"] == "main"
    for n in nodes:
        assert set(n) == {"id", "label", "namespace", "attrs", "incomingEdges"}
        assert all(e["sourceNodeId"] in ids for e in n["incomingEdges"])
    assert '<a href="model_explorer_graph.json">' in (tmp_path / "fusion_report.html").read_text()
    spaces = sorted({n["namespace"] for n in nodes if n["namespace"]})
    assert spaces == ["DotLogistic_2", "MulRedSqrt_0", "MulRedSqrt_1"]  # the compile's three clusters
    data = json.loads((tmp_path / "model_explorer_node_data.json").read_text())["main"]
    assert data["results"] and set(data["results"]) <= ids
    assert all(isinstance(v["value"], float) and 0 <= v["value"] < float("inf") for v in data["results"].values())


def test_bisection_names_the_broken_plugin_pass_and_op(tmp_path):
    src = tmp_path / "small.mlir"
    src.write_text(SMALL.lstrip("\n"))
    r = _check(
        src, "--preset", "all", f"--load-pass-plugin={PLUGIN}", "--insert-pass-after", "neuron-inst-combine=perturb-sqrt", "-o", tmp_path
    )
    assert r.returncode == 1, r.stderr
    assert "0    float32  4x8    " in r.stdout and "less-accurate" in r.stdout
    assert "bisection: first less-accurate prefix ends at pass (17) 'perturb-sqrt' (run through xla)" in r.stdout
    assert f"{src}:6:8: 'mhlo.rsqrt' created or changed by 'perturb-sqrt'" in r.stdout
    repro = (tmp_path / "reproducer.mlir").read_text()
    assert 'pipeline: "builtin.module(perturb-sqrt)"' in repro and "mhlo.sqrt" in repro
    b = json.loads((tmp_path / "check_report.json").read_text())["bisection"]
    assert b["pass_index"] == 17 and b["outputs"] == [0] and b["cluster"] is None
    g = json.loads((tmp_path / "model_explorer_graph.json").read_text())["graphs"][0]["nodes"]
    assert [(n["label"], n["namespace"]) for n in g if n["namespace"]] == [
        ("dot_general", "DotLogistic_0"),
        ("logistic", "DotLogistic_0"),
        ("multiply", "DotLogistic_0"),
    ]


def test_cluster_bisection_names_the_bad_cluster(tmp_path):
    src = tmp_path / "three.mlir"
    src.write_text(THREE)
    r = _check(src, f"--load-pass-plugin={BAD_FUSION}", "--insert-pass-after", "neuron-inst-combine=bad-sqrt-fusion")
    assert r.returncode == 1, r.stderr
    assert "bisection: first less-accurate prefix ends at pass (" in r.stdout and ") 'bad-sqrt-fusion' (run through xla)" in r.stdout
    assert f"  cluster #2 (Elementwise, 1 ops) formed by 'bad-sqrt-fusion' at {src}:5:9 (--fusion-fuel 2 fails, 1 passes)" in r.stdout
    rows = [ln.split() for ln in r.stdout.splitlines()[3:6]]
    assert [(row[0], row[-1]) for row in rows] == [("0", "as-accurate-as-XLA"), ("1", "less-accurate"), ("2", "as-accurate-as-XLA")]


def test_inputs_npz_list_and_random_inputs_through_the_python_api(tmp_path):
    import hilo_mlir
    from hilo_mlir.checker.inputs import random_inputs

    src = tmp_path / "small.mlir"
    src.write_text(SMALL)
    r = np.random.default_rng(7)
    x, w = r.standard_normal((4, 8)).astype(np.float32), (r.standard_normal((8, 8)) / 3).astype(np.float32)
    np.savez(tmp_path / "in.npz", input_0=x, input_1=w)
    res = hilo_mlir.check(str(src), inputs=str(tmp_path / "in.npz"), config="all", bisect=False)
    assert res.ok and res.seed is None and "given inputs" in res.text().splitlines()[0]
    assert [(a.name, a.role, a.fan_in) for a in res.arguments] == [("input_0", "activation", 1), ("input_1", "weight", 8)]
    res2 = hilo_mlir.check(str(src), inputs=[x, w], config="all", bisect=False)
    assert [o.err_penguin for o in res2.outputs] == [o.err_penguin for o in res.outputs]
    a, b = random_inputs(res.arguments, 3), random_inputs(res.arguments, 3)
    assert all(np.array_equal(p, q) for p, q in zip(a, b))  # deterministic given the seed
    assert 0.2 < float(np.std(a[1])) < 0.5 and 0.7 < float(np.std(a[0])) < 1.3  # the weight scaled by 1/sqrt(8)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["/nonexistent/m.mlir"], "hilo-check: error: cannot open input file '/nonexistent/m.mlir': no such file"),
        (["{small}", "--inputs", "/nonexistent/x.npz"], "hilo-check: error: cannot read inputs '/nonexistent/x.npz': no such file"),
        (
            ["{small}", "--inputs", "{badnpz}"],
            "hilo-check: error: inputs '{badnpz}': 'input_1' has shape (8, 4), argument #1 of main is tensor<8x8xf32>",
        ),
        (["{custom}"], "hilo-check: error: XLA cannot run the input module: "),
        (["{small}", "-o", "{small}"], "hilo-check: error: cannot write to output folder '{small}': it is a file, not a folder"),
        (["{small}", "--no-such-flag"], "hilo-check: error: unrecognized arguments: --no-such-flag"),
        (
            ["{dynamic}"],
            "hilo-check: error: argument #0 of main has the dynamic type tensor<?x4xf32>: give static types with --input-types",
        ),
    ],
)
def test_bad_input_is_one_error_and_exit_2(tmp_path, argv, message):
    small = tmp_path / "small.mlir"
    small.write_text(SMALL)
    badnpz = tmp_path / "bad.npz"
    np.savez(badnpz, input_0=np.zeros((4, 8), np.float32), input_1=np.zeros((8, 4), np.float32))
    custom = tmp_path / "custom.mlir"
    custom.write_text(
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %0 = stablehlo.custom_call @no_such_target(%x) : (tensor<4xf32>) -> tensor<4xf32>\n"
        "  return %0 : tensor<4xf32>\n}\n"
    )
    dynamic = tmp_path / "dyn.mlir"
    dynamic.write_text("func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {\n  return %x : tensor<?x4xf32>\n}\n")
    subs = {"{small}": str(small), "{badnpz}": str(badnpz), "{custom}": str(custom), "{dynamic}": str(dynamic)}
    argv = [subs.get(a, a) for a in argv]
    for k, v in subs.items():
        message = message.replace(k, v)
    r = _check(*argv)
    assert r.returncode == 2, (r.stdout, r.stderr)
    errors = [ln for ln in r.stderr.splitlines() if "error" in ln]
    assert len(errors) == 1 and errors[0].startswith(message), r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_training_step_with_a_structurally_zero_gradient_is_as_accurate_as_xla():
    """A bias before train-mode BatchNorm has a zero gradient; Adam blows its f32 rounding noise up to
    +-lr. A fixed tolerance against JAX fails on the updated bias; against the f64 truth penguin.py is
    as accurate as XLA, and the gradient itself is judged as structurally zero."""
    import jax
    import jax.numpy as jnp

    from hilo_mlir import jax as hj

    def step(p, m, v, x, y):
        def loss(p):
            h = x @ p["w"] + p["b"]
            mu = h.mean(0, keepdims=True)
            var = ((h - mu) ** 2).mean(0, keepdims=True)
            out = jnp.tanh((h - mu) / jnp.sqrt(var + 1e-5)) @ p["w2"]
            return jnp.mean((out - y) ** 2)

        g = jax.grad(loss)(p)
        lr, b1, b2, eps = 1e-2, 0.9, 0.999, 1e-8
        m = jax.tree_util.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = jax.tree_util.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
        upd = jax.tree_util.tree_map(lambda m, v: lr * (m / (1 - b1)) / (jnp.sqrt(v / (1 - b2)) + eps), m, v)
        return jax.tree_util.tree_map(lambda p, u: p - u, p, upd), g["b"]

    r = np.random.default_rng(0)
    p = {
        "w": jnp.asarray(r.standard_normal((16, 32)) / 4, jnp.float32),
        "b": jnp.asarray(r.standard_normal(32) * 0.1, jnp.float32),
        "w2": jnp.asarray(r.standard_normal((32, 8)) / 6, jnp.float32),
    }
    z = jax.tree_util.tree_map(jnp.zeros_like, p)
    x, y = jnp.asarray(r.standard_normal((8, 16)), jnp.float32), jnp.asarray(r.standard_normal((8, 8)), jnp.float32)
    prog = hj.compile(step, p, z, z, x, y, config="all")
    res = prog.check(p, z, z, x, y)
    assert res.ok, res.text()
    new_b, grad_b = res.outputs[0], res.outputs[3]  # pytree order: params b, w, w2, then the gradient
    assert new_b.shape == [32] and not new_b.fixed_tolerance_passes and new_b.diff_penguin_xla > 1e-3
    assert new_b.err_penguin <= new_b.bound and not new_b.structurally_zero
    assert grad_b.structurally_zero and grad_b.scale < 1e-12 and "(structurally zero)" in res.text()


def test_corpus_hlo_proto_checks():
    from conftest import corpus_path

    r = _check(corpus_path("jax", "rmsnorm.hlo.pb"), "--preset", "all", "--spine", "stablehlo")
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines()[-1] == "every output is as accurate as XLA"


CORPUS_MODELS = [
    "attention",
    "concat_heads",
    "logsumexp_rows",
    "rmsnorm",
    "swiglu_mlp_bf16",
    "swiglu_mlp_nn_silu",
    "transcendental",
    "decoder_layer",
    "decoder_stack_L4",
]


@pytest.mark.slow
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("name", CORPUS_MODELS)
def test_corpus_models_are_as_accurate_as_xla(name, preset, spine):
    from conftest import corpus_path

    for seed in (0, 1, 2):
        r = _check(corpus_path("jax", f"{name}.stablehlo.mlir"), "--preset", preset, "--spine", spine, "--seed", seed, "--no-bisect")
        assert r.returncode == 0, r.stdout + r.stderr


def test_an_error_line_ending_in_a_colon_keeps_its_reason():
    from hilo_mlir.checker.evaluate import _one_line

    e = RuntimeError('Unable to parse module assembly:\n\nerror: "-":3:19: unregistered op\nmore detail\n')
    assert _one_line(e) == 'Unable to parse module assembly: error: "-":3:19: unregistered op'
    assert _one_line(RuntimeError("plain message\nsecond line")) == "plain message"
    assert _one_line(RuntimeError("ends in a colon:")) == "ends in a colon:"
    assert _one_line(RuntimeError("")) == "RuntimeError"
