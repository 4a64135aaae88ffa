"""Which modules a batch compiles, and where each one's output goes."""

from __future__ import annotations

import os
from dataclasses import dataclass

#: The extensions of the modules a folder contributes (``.txt``: only HLO text, see :func:`_is_module`).
EXTENSIONS = (".mlir", ".pb", ".hlo", ".txt")
#: How HLO text begins (XLA's dumps: ``module_0001.jit_f.before_optimizations.txt``).
_HLO_TEXT_HEAD = b"HloModule "


@dataclass
class BatchItem:
    """One module of a batch: its input path and the output folder below OUTDIR."""

    path: str
    rel_stem: str


def _stem(rel: str) -> str:
    base, ext = os.path.splitext(rel)
    return base if ext in EXTENSIONS else rel


def _is_module(path: str, fn: str) -> bool:
    """A file a folder contributes: ``*.mlir``, ``*.pb``, ``*.hlo``, and ``*.txt`` that is HLO text
    (an XLA dump folder also holds other text files: ``*-buffer-assignment.txt``, notes, ...)."""
    if fn.startswith(".") or not fn.endswith(EXTENSIONS):
        return False
    if not fn.endswith(".txt"):
        return True
    try:
        with open(path, "rb") as f:
            return f.read(len(_HLO_TEXT_HEAD)) == _HLO_TEXT_HEAD
    except OSError:
        return True  # unreadable: the compile reports it, naming the file


def _found(inputs: list[str]) -> list[tuple[str, str]]:
    """``(path, path relative to its input)`` for every module of ``inputs``, each real file once."""
    from hilo_mlir.support.diagnostics import HiloError, shown_path

    found: list[tuple[str, str]] = []
    for inp in inputs:
        if os.path.isdir(inp):
            for dirpath, dirnames, filenames in os.walk(inp):
                dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
                for fn in sorted(filenames):
                    p = os.path.join(dirpath, fn)
                    if _is_module(p, fn):
                        found.append((p, os.path.relpath(p, inp)))
        elif os.path.exists(inp):
            found.append((inp, os.path.basename(inp)))
        else:
            raise HiloError(f"cannot open input '{shown_path(inp)}': no such file or folder")
    seen, uniq = set(), []
    for p, rel in found:
        key = os.path.realpath(p)
        if key not in seen:
            seen.add(key)
            uniq.append((p, rel))
    return uniq


def discover(inputs: list[str]) -> list[BatchItem]:
    """Expand files and folders into a sorted list of modules.

    A folder contributes every ``*.mlir`` / ``*.pb`` / ``*.hlo`` below it, and
    every ``*.txt`` that is HLO text (hidden folders and files skipped), named by its path relative to that folder; a file is
    named by its base name. Two modules with the same stem (``a.mlir`` and
    ``a.pb``) get their extension appended (``a_mlir``, ``a_pb``); modules that
    still share a folder (``a/x.mlir`` and ``b/x.mlir`` given as files, or
    ``x.mlir``, ``x.pb`` and ``x_mlir.mlir``) get ``_2``, ``_3``, ... in path
    order, so that no output overwrites another (the report names each
    module's folder). The list is sorted by output stem, so neither
    the file system nor ``--jobs`` changes the order.

    Raises:
        HiloError: an input that does not exist.
    """
    uniq = _found(inputs)
    stems: dict[str, int] = {}
    for _, rel in uniq:
        stems[_stem(rel)] = stems.get(_stem(rel), 0) + 1
    items = []
    for p, rel in uniq:
        st = _stem(rel)
        if stems[st] > 1:
            base, ext = os.path.splitext(rel)
            st = base + "_" + ext.lstrip(".")
        items.append(BatchItem(p, st))
    items.sort(key=lambda it: (it.rel_stem, it.path))
    # Still the same folder (a/x.mlir and b/x.mlir given as files; x.mlir, x.pb and x_mlir.mlir):
    # the later ones (in path order) get _2, _3, ... -- never a folder another module uses.
    taken = {it.rel_stem for it in items}
    used: set[str] = set()
    for it in items:
        if it.rel_stem in used:
            k = 2
            while f"{it.rel_stem}_{k}" in taken:
                k += 1
            it.rel_stem = f"{it.rel_stem}_{k}"
            taken.add(it.rel_stem)
        used.add(it.rel_stem)
    items.sort(key=lambda it: (it.rel_stem, it.path))
    return items
