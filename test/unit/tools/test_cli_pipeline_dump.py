"""``--dump-pass-pipeline`` is one pipeline that reproduces the main job: dump -> hilo-opt -> the same penguin.py.

For each input, spine and preset: ``hilo2penguin --dump-pass-pipeline`` is
given unchanged to ``hilo-opt --pass-pipeline``, and the Penguin program
``hilo-opt`` prints must equal, byte for byte, the one ``hilo2penguin`` writes.
"""

from __future__ import annotations

import contextlib
import io

import pytest
from conftest import CORPUS, EXAMPLES

from hilo_mlir.driver import spine
from hilo_mlir.driver.config import CompileConfig
from hilo_mlir.passmanager.pipeline_parser import parse_pipeline
from hilo_mlir.tools import hilo2penguin, opt

pytestmark = pytest.mark.check_analyses


def _dump(*flags) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert hilo2penguin.run(["--dump-pass-pipeline", *flags]) == 0
    return buf.getvalue()


def _main_job(path, tmp_path, *flags) -> str:
    out = tmp_path / "out"
    with contextlib.redirect_stdout(io.StringIO()):
        assert hilo2penguin.run([str(path), "-o", str(out), *flags]) == 0
    return (out / "penguin.py").read_text()


def _hilo_opt(path, pipeline, tmp_path) -> str:
    out = tmp_path / "opt.py"
    assert opt.run([str(path), f"--pass-pipeline={pipeline}", "-o", str(out)]) == 0
    return out.read_text()


CASES = [(EXAMPLES / "decoder_layer.stablehlo.mlir", s, p) for s in ("mhlo", "stablehlo") for p in ("default", "all")]
CORPUS_CASES = [
    CORPUS / "jax" / n for n in ("swiglu_mlp_nn_silu.stablehlo.mlir", "transcendental.stablehlo.mlir", "attention.stablehlo.mlir")
]


@pytest.mark.parametrize("path,spine_name,preset", CASES, ids=[f"{c[0].name}-{c[1]}-{c[2]}" for c in CASES])
def test_dump_reproduces_the_main_job(tmp_path, path, spine_name, preset):
    flags = ["--spine", spine_name, "--preset", preset]
    text = _dump(*flags)
    assert text.count("\n") == 1 and text.startswith("builtin.module(hilo-import,")
    assert _hilo_opt(path, text.strip(), tmp_path) == _main_job(path, tmp_path, *flags)


@pytest.mark.parametrize("path", CORPUS_CASES, ids=[p.name for p in CORPUS_CASES])
@pytest.mark.parametrize("spine_name", ["mhlo", "stablehlo"])
def test_dump_reproduces_on_jax_exports(tmp_path, path, spine_name):
    if not path.exists():
        pytest.skip(f"../shared/corpus not available ({path} missing)")
    flags = ["--spine", spine_name, "--preset", "all"]
    assert _hilo_opt(path, _dump(*flags).strip(), tmp_path) == _main_job(path, tmp_path, *flags)


def test_dump_names_every_step_with_every_option():
    cfg = CompileConfig.preset("all").replace(stablehlo=True)
    elements = parse_pipeline(spine.pipeline_text(cfg))
    assert len(elements) == 1 and elements[0].name == "builtin.module"
    names = [e.name if e.name != "func.func" else e.children[0].name for e in elements[0].children]
    assert names == ["hilo-import"] + [s.argument for s in spine.build_spine(cfg)]
    fusion = next(e for e in elements[0].children if e.name == "stablehlo-neuron-op-fusion")
    assert fusion.options == "fuse-dot-logistic=true general-elementwise-fusion=true report="  # defaults spelled out too


def test_dump_follows_the_gates():
    text = _dump("--enable-op-fusion", "--disable-sixty-four-hack")
    assert "neuron-op-fusion{fuse-dot-logistic=false general-elementwise-fusion=false report=}" in text
    assert "sixty-four-hack" not in text


def test_list_spine_shows_every_step_number_and_gate():
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert hilo2penguin.run(["--list-spine", "--spine", "stablehlo"]) == 0
    lines = buf.getvalue().splitlines()
    labels = [ln.split()[0] for ln in lines[1:]]
    assert labels == ["pre", "pre"] + [s.ordinal for s in spine.STABLEHLO_SPINE]
    row = next(ln for ln in lines if ln.startswith("15 "))
    assert "(stablehlo-neuron-op-fusion)" in row and row.rstrip().endswith("op-fusion=off")
