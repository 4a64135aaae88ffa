"""Issue 22 items 1, 2, 3, 5: HLO as XLA writes it (protos with layouts, HLO text, optimized dumps, sharded
and shard_map programs) compiles on both spines and equals JAX.

One module imports jax once (~1-2 s); the whole corpus sweep is ``@pytest.mark.slow``.

* JAX's functions are the corpus generator's own (``../shared/corpus/jax/generate.py``, ``cases()``),
  lowered with ``jax.jit(f).lower(*args).compiler_ir('hlo')`` and written as the serialized proto
  (``.pb``) and as HLO text (``.txt``, named as XLA names its dumps).
* Inputs: N(0, 1) floats (seed 0), rank-2 ones scaled by 1/sqrt(fan-in) (as test_end_to_end_corpus.py).
* Expected: ``jax.jit(f)(*inputs)`` on XLA CPU. Tolerances: f32 ``|d| <= 1e-6 + 1e-5 |ref|``
  (decoder_stack_L4: atol 1e-5); bf16 ``|d| <= 2^-6 max|ref|`` (as the corpus end-to-end test).
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest
from conftest import CORPUS

jax = pytest.importorskip("jax")
jnp = jax.numpy

from hilo_mlir import HiloError, compile_file, penguin_ref  # noqa: E402

F32_TOL = (1e-5, 1e-6)
BF16_REL_MAX = 2.0**-6


#: ../shared/corpus, or HILO_SHARED_CORPUS (a worktree whose ../shared is elsewhere)
CORPUS_DIR = pathlib.Path(os.environ.get("HILO_SHARED_CORPUS", str(CORPUS)))


def _corpus_cases() -> dict:
    path = CORPUS_DIR / "jax" / "generate.py"
    if not path.exists():
        return {}
    spec = importlib.util.spec_from_file_location("hilo_corpus_generate", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("hilo_corpus_generate", mod)
    spec.loader.exec_module(mod)
    return {name: (fn, args) for name, fn, args in mod.cases() if name not in ("decoder_stack_L64", "decoder_stack_L512")}


CASES = _corpus_cases()


def _inputs(args, seed: int = 0) -> list:
    rng = np.random.default_rng(seed)
    out = []
    for a in args:
        x = rng.standard_normal(a.shape).astype(np.float32)
        if x.ndim == 2:
            x = x / np.sqrt(x.shape[0])
        out.append(np.asarray(jnp.asarray(x, dtype=a.dtype)))
    return out


def _compare(got, want, what: str, atol: float = F32_TOL[1]) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, f"{what}: {got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    g, w = got.astype(np.float64), want.astype(np.float64)
    if want.dtype.name == "bfloat16":
        bound = BF16_REL_MAX * float(np.max(np.abs(w)))
        assert float(np.max(np.abs(g - w))) <= bound, f"{what}: max |d| {np.max(np.abs(g - w))} > {bound}"
    else:
        assert np.allclose(g, w, rtol=F32_TOL[0], atol=atol), f"{what}: max |d| {np.max(np.abs(g - w))}"


def _write_hlo(tmp_path, name: str, fn, args, form: str) -> str:
    """``fn`` lowered by jax.jit as XLA writes it: ``form`` ``"pb"`` (serialized proto) or ``"txt"`` (HLO text)."""
    hlo = jax.jit(fn).lower(*args).compiler_ir("hlo")
    if form == "pb":
        path = tmp_path / f"{name}.hlo.pb"
        path.write_bytes(hlo.as_serialized_hlo_module_proto())
    else:
        path = tmp_path / f"module_0001.jit_{name}.before_optimizations.txt"
        path.write_text(hlo.as_hlo_text())
    return str(path)


def _check_program(path: str, fn, args, spine: str, preset: str = "default", atol: float = F32_TOL[1]) -> None:
    xs = _inputs(args)
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*xs))
    src = compile_file(path, config=preset, spine=spine)
    got = penguin_ref.run(src, xs, files=src.files)
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        _compare(g, np.asarray(w), f"{os.path.basename(path)} {spine} {preset} result {i}", atol)


# -- item 1: the transpose of the issue, and a few corpus programs (default suite) ---------------------------


def _transpose(x):
    return x.T * 2


@pytest.mark.parametrize("form", ["pb", "txt"])
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_transpose_with_layouts_equals_jax(tmp_path, form, spine):
    """`jax.jit(lambda x: x.T*2)`: XLA gives the transpose a {0,1} result layout; it is dropped at import."""
    args = [jax.ShapeDtypeStruct((4, 8), jnp.float32)]
    path = _write_hlo(tmp_path, "transpose", _transpose, args, form)
    src = compile_file(path, spine=spine)
    body = src.replace(str(tmp_path), "").replace(os.path.abspath(__file__), "")  # the paths may hold "layout"
    assert "result_layout" not in body and "xla_shape" not in body and "layout" not in body
    assert any("dropped" in line and "layout" in line for line in src.log)
    _check_program(path, _transpose, args, spine)


SMALL = ["rmsnorm", "concat_heads", "swiglu_mlp_bf16"]


@pytest.mark.parametrize("form", ["pb", "txt"])
@pytest.mark.parametrize("name", SMALL)
def test_corpus_small_programs_equal_jax(tmp_path, name, form):
    if name not in CASES:
        pytest.skip("../shared/corpus not available")
    fn, args = CASES[name]
    path = _write_hlo(tmp_path, name, fn, args, form)
    for spine in ("mhlo", "stablehlo"):
        _check_program(path, fn, args, spine)


@pytest.mark.slow
@pytest.mark.parametrize("preset", ["default", "all"])
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
@pytest.mark.parametrize("form", ["pb", "txt"])
@pytest.mark.parametrize("name", sorted(CASES) or ["<corpus missing>"])
def test_corpus_all_programs_equal_jax(tmp_path, name, form, spine, preset):
    if name not in CASES:
        pytest.skip("../shared/corpus not available")
    fn, args = CASES[name]
    path = _write_hlo(tmp_path, name, fn, args, form)
    _check_program(path, fn, args, spine, preset, atol=1e-5 if name == "decoder_stack_L4" else F32_TOL[1])


# -- item 2: HLO text errors ---------------------------------------------------------------------------------


def test_hlo_text_parse_error_is_located(tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] frobnicate(p)\n}\n")
    with pytest.raises(HiloError) as ei:
        compile_file(str(path))
    assert (
        ei.value.format() == f"{path}:5:19: error: invalid HLO text: expects opcode but sees: frobnicate, error: Unknown opcode: frobnicate"
    )


def test_hlo_text_error_that_introduces_the_next_one_is_joined_to_it(tmp_path):
    # XLA's "cannot parse as an instruction name or as a nested instruction:" ends in a colon: the reason is the
    # parser's next error; the fallbacks it tried after that are left out
    path = tmp_path / "bad.hlo"
    path.write_text("HloModule m\n\nENTRY e {\n  p = f32[4] parameter(0)\n  ROOT r = f32[4] sine(q)\n}\n")
    with pytest.raises(HiloError) as ei:
        compile_file(str(path))
    assert ei.value.format() == (
        f"{path}:5:24: error: invalid HLO text: cannot parse as an instruction name or as a nested instruction: "
        "instruction does not exist: q"
    )


def test_parse_error_message_joins_only_what_a_colon_introduces():
    from hilo_mlir.driver.frontend.hlo import _parse_error_message

    assert _parse_error_message(["expects name"]) == "expects name"
    assert _parse_error_message(["a:", "b:", "c", "d"]) == "a: b: c"
    assert _parse_error_message(["a:"]) == "a"
    assert _parse_error_message(["a", "b"]) == "a"


# -- item 5b: a jax.export of a shard_map manual over every mesh axis -> the per-device program ----------------


def _shard_map_export(body, mesh_shape, axes, in_specs, out_specs, shapes, manual=None):
    """``jax.export`` of ``jax.jit(shard_map(body))`` over an abstract mesh (no devices needed); its MLIR text."""
    from jax.sharding import AbstractMesh, NamedSharding

    mesh = AbstractMesh(mesh_shape, axes)
    kw = {"axis_names": set(manual)} if manual is not None else {}
    f = jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs, **kw)
    args = [jax.ShapeDtypeStruct(s, jnp.float32, sharding=NamedSharding(mesh, spec)) for s, spec in zip(shapes, in_specs)]
    return jax.export.export(jax.jit(f))(*args).mlir_module()


def _local_body(x, w):
    return jnp.tanh(x @ w) * 2.0


def _psum_body(x, w):
    return jax.lax.psum(jnp.tanh(x @ w), "x")


@pytest.mark.parametrize("form", ["shardy", "gspmd"])
@pytest.mark.parametrize("spine", ["mhlo", "stablehlo"])
def test_shard_map_export_is_the_per_device_program(tmp_path, form, spine):
    """main takes one device's shard (4x16 of the global 8x16) and equals the body run by JAX on that shard."""
    from jax.sharding import PartitionSpec as P

    old = jax.config.jax_use_shardy_partitioner
    jax.config.update("jax_use_shardy_partitioner", form == "shardy")
    try:
        text = _shard_map_export(_local_body, (2,), ("x",), (P("x", None), P()), P("x", None), [(8, 16), (16, 4)])
    finally:
        jax.config.update("jax_use_shardy_partitioner", old)
    assert ("sdy.manual_computation" in text) == (form == "shardy") and ("SPMDFullToShardShape" in text) == (form == "gspmd")
    path = tmp_path / "shmap.stablehlo.mlir"
    path.write_text(text)
    src = compile_file(str(path), spine=spine)
    assert "shape=(4, 16)" in src and "shape=(8, 16)" not in src and "SPMD" not in src
    xs = _inputs([jax.ShapeDtypeStruct((4, 16), jnp.float32), jax.ShapeDtypeStruct((16, 4), jnp.float32)])
    (got,) = penguin_ref.run(src, xs, files=src.files)
    _compare(got, np.asarray(_local_body(*xs)), f"shard_map {form} {spine}")


def test_shard_map_with_psum_keeps_the_all_reduce(tmp_path):
    from jax.sharding import PartitionSpec as P

    text = _shard_map_export(_psum_body, (2,), ("x",), (P("x", None), P()), P(), [(8, 16), (16, 4)])
    path = tmp_path / "psum.stablehlo.mlir"
    path.write_text(text)
    src = compile_file(str(path))
    assert src.count("m1.AllReduceOp(") == 1 and "shape=(4, 16)" in src


def test_partially_manual_shard_map_is_refused(tmp_path):
    from jax.sharding import PartitionSpec as P

    text = _shard_map_export(_local_body, (2, 2), ("x", "y"), (P("x", None), P()), P("x", None), [(8, 16), (16, 4)], manual={"x"})
    path = tmp_path / "partial.stablehlo.mlir"
    path.write_text(text)
    with pytest.raises(HiloError) as ei:
        compile_file(str(path))
    msg = ei.value.format()
    assert "error: this shard_map is manual over ['x'] but not over the mesh axes ['y'] (partially manual): compile the per-device" in msg
    assert "--xla_dump_hlo_pass_re=spmd-partitioning" in msg


def test_sharded_jit_export_is_refused(tmp_path):
    """A jax.export of a sharded jit is the global program: refused with the recipe, never compiled as one device's."""
    from jax.sharding import AbstractMesh, NamedSharding
    from jax.sharding import PartitionSpec as P

    mesh = AbstractMesh((2,), ("x",))
    args = [jax.ShapeDtypeStruct((8, 16), jnp.float32, sharding=NamedSharding(mesh, P("x", None)))]
    text = jax.export.export(jax.jit(lambda x: jnp.tanh(x) * 2))(*args).mlir_module()
    path = tmp_path / "sharded.stablehlo.mlir"
    path.write_text(text)
    with pytest.raises(HiloError) as ei:
        compile_file(str(path))
    assert "but was not partitioned: compile the per-device program instead" in ei.value.format()


# -- item 5: hilo_mlir.jax.compile with a mesh -------------------------------------------------------------------


def test_jax_compile_with_mesh_and_specs_is_the_shard_map_route():
    from jax.sharding import AbstractMesh
    from jax.sharding import PartitionSpec as P

    from hilo_mlir import jax as hj

    x, w = jax.ShapeDtypeStruct((8, 16), jnp.float32), jax.ShapeDtypeStruct((16, 4), jnp.float32)
    prog = hj.compile(_psum_body, x, w, mesh=AbstractMesh((2,), ("x",)), in_specs=(P("x", None), P()), out_specs=P())
    assert prog.devices == 2
    assert "shape=(4, 16)" in prog.source and prog.source.count("m1.AllReduceOp(") == 1
    with pytest.raises(HiloError, match="run it on 2 simulated devices"):
        prog.run(np.ones((4, 16), np.float32), np.ones((16, 4), np.float32))
    xs = _inputs([x, w])
    shards = [[xs[0][:4], xs[1]], [xs[0][4:], xs[1]]]
    outs = prog.run_devices(shards)
    want = np.asarray(_local_body(xs[0][:4], xs[1]) / 2.0 + _local_body(xs[0][4:], xs[1]) / 2.0)  # psum of tanh(x_d @ w)
    for d in range(2):
        _compare(outs[d][0], want, f"device {d}")


def test_jax_compile_with_mesh_needs_devices_for_the_partitioned_route():
    from jax.sharding import AbstractMesh

    from hilo_mlir import jax as hj

    if jax.device_count() >= 2:
        pytest.skip("this jax has 2 devices")
    with pytest.raises(HiloError, match="set XLA_FLAGS=--xla_force_host_platform_device_count=2 before importing jax"):
        hj.compile(_local_body, jnp.ones((8, 16)), jnp.ones((16, 4)), mesh=AbstractMesh((2,), ("x",)))


PARTITIONED_SCRIPT = """
import os
os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=2"
import jax, jax.numpy as jnp
from jax.sharding import NamedSharding, PartitionSpec as P
from hilo_mlir import jax as hj
mesh = jax.make_mesh((2,), ("x",))
xs, ws = NamedSharding(mesh, P("x", None)), NamedSharding(mesh, P())
f = jax.jit(lambda x, w: jnp.tanh(x @ w).sum(axis=0), in_shardings=(xs, ws))
args = (jax.ShapeDtypeStruct((8, 16), jnp.float32, sharding=xs), jax.ShapeDtypeStruct((16, 4), jnp.float32, sharding=ws))
for spine in ("mhlo", "stablehlo"):
    prog = hj.compile(f, *args, mesh=mesh, spine=spine)
    assert prog.devices == 2
    assert "shape=(4, 16)" in prog.source and "shape=(8, 16)" not in prog.source
    assert prog.source.count("m1.AllReduceOp(") == 1 and "replica_groups=[[0, 1]]" in prog.source, prog.source
print("ok")
"""


def test_jax_compile_with_mesh_partitions_a_sharded_jit():
    """Route (a) in a child with 2 CPU devices (XLA_FLAGS must be set before jax is imported)."""
    import subprocess

    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).resolve().parents[3]))
    out = subprocess.run([sys.executable, "-c", PARTITIONED_SCRIPT], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stderr[-3000:]


def test_shard_map_manual_over_every_axis_of_size_above_one(tmp_path):
    """Mesh ("x"=2, "y"=1), manual over x: JAX's constraints over y (size 1) constrain nothing and are dropped."""
    from jax.sharding import PartitionSpec as P

    text = _shard_map_export(_local_body, (2, 1), ("x", "y"), (P("x", None), P()), P("x", None), [(8, 16), (16, 4)], manual={"x"})
    assert "sdy.sharding_constraint" in text
    path = tmp_path / "xy.stablehlo.mlir"
    path.write_text(text)
    src = compile_file(str(path))
    xs = _inputs([jax.ShapeDtypeStruct((4, 16), jnp.float32), jax.ShapeDtypeStruct((16, 4), jnp.float32)])
    (got,) = penguin_ref.run(src, xs, files=src.files)
    _compare(got, np.asarray(_local_body(*xs)), "shard_map x=2,y=1")


# -- item 3: XLA's optimized dumps of the corpus programs (slow: a child jax process with --xla_dump_to) -------

OPTIMIZED_SCRIPT = """
import glob, os, sys
dump = sys.argv[1]
os.environ["XLA_FLAGS"] = f"--xla_dump_to={dump} --xla_dump_hlo_as_text"
sys.path.insert(0, sys.argv[2])
import numpy as np
import jax, jax.numpy as jnp
import generate
from hilo_mlir import compile_file, penguin_ref
rng = np.random.default_rng(0)
skip = ("decoder_stack_L64", "decoder_stack_L512")
for name, fn, args in generate.cases():
    if name in skip:
        continue
    xs = []
    for a in args:
        x = rng.standard_normal(a.shape).astype(np.float32)
        xs.append(np.asarray(jnp.asarray(x / np.sqrt(x.shape[0]) if x.ndim == 2 else x, dtype=a.dtype)))
    want = np.asarray(jax.jit(fn)(*xs))
    (path,) = glob.glob(os.path.join(dump, f"*jit_{fn.__name__}.cpu_after_optimizations.txt"))[-1:]
    for spine in ("mhlo", "stablehlo"):
        src = compile_file(path, spine=spine)
        assert any("inlined" in line and "XLA fusion" in line for line in src.log), (name, src.log)
        got = np.asarray(penguin_ref.run(src, xs, files=src.files)[0])
        g, w = got.astype(np.float64), want.astype(np.float64)
        if want.dtype.name == "bfloat16":
            assert np.max(np.abs(g - w)) <= 2.0**-6 * np.max(np.abs(w)), name
        else:
            assert np.allclose(g, w, rtol=1e-5, atol=1e-5), (name, spine, np.max(np.abs(g - w)))
    print(name)
print("ok")
"""


@pytest.mark.slow
def test_optimized_dumps_of_the_corpus_equal_jax(tmp_path):
    """Every corpus program's ``*.cpu_after_optimizations.txt`` (XLA fusions, bitcasts) compiles on both spines and equals JAX."""
    import subprocess

    if not CASES:
        pytest.skip("../shared/corpus not available")
    env = dict(os.environ, PYTHONPATH=str(pathlib.Path(__file__).resolve().parents[3]))
    args = [sys.executable, "-c", OPTIMIZED_SCRIPT, str(tmp_path / "dump"), str(CORPUS_DIR / "jax")]
    out = subprocess.run(args, capture_output=True, text=True, env=env, timeout=1800)
    assert out.returncode == 0 and out.stdout.strip().endswith("ok"), out.stdout[-2000:] + out.stderr[-3000:]
