"""A batch over an XLA dump folder finds its HLO text (``*.hlo``, ``*.txt`` that is HLO) and names outputs by stem."""

from __future__ import annotations

from hilo_mlir.tools import batch

HLO = "HloModule jit_f, entry_computation_layout={(f32[4]{0})->f32[4]{0}}\n\nENTRY e {\n  p = f32[4]{0} parameter(0)\n  ROOT a = f32[4]{0} add(p, p)\n}\n"


def test_dump_folder_contributes_hlo_text_only(tmp_path):
    d = tmp_path / "dump"
    d.mkdir()
    (d / "module_0001.jit_f.before_optimizations.txt").write_text(HLO)
    (d / "module_0001.jit_f.cpu_after_optimizations-buffer-assignment.txt").write_text("BufferAssignment:\nallocation 0: size 16\n")
    (d / "g.hlo").write_text(HLO)
    (d / "notes.txt").write_text("not a module\n")
    (d / "h.mlir").write_text("func.func @main() {\n  return\n}\n")
    items = batch.discover([str(d)])
    assert [(it.rel_stem, it.path.rsplit("/", 1)[-1]) for it in items] == [
        ("g", "g.hlo"),
        ("h", "h.mlir"),
        ("module_0001.jit_f.before_optimizations", "module_0001.jit_f.before_optimizations.txt"),
    ]


def test_hlo_text_compiles_in_a_batch(tmp_path):
    from hilo_mlir.driver.config import CompileConfig

    d = tmp_path / "dump"
    d.mkdir()
    (d / "f.hlo").write_text(HLO)
    items = batch.discover([str(d)])
    (r,) = batch.compile_batch(items, str(tmp_path / "out"), CompileConfig(), 1, 120.0, False, None)
    assert r.status == "ok", r.diagnostic
    assert (tmp_path / "out" / "f" / "penguin.py").read_text().count("m1.AddOp(") == 1
