#!/usr/bin/env python3
"""Regenerate the generated tables of ``docs/provenance.md`` from the code.

Usage::

    python3 scripts/gen_provenance.py [--check]

Two tables are generated between ``<!-- BEGIN GENERATED: name -->`` and
``<!-- END GENERATED: name -->`` markers; the rest of the page is written by
hand and kept as it is:

* ``passes``: every registered pass, its class name in the real binary, and
  where its behaviour comes from (``PassInfo.source``);
* ``gates``: every gate of :class:`hilo_mlir.driver.config.CompileConfig`, the spine
  step it guards and where the binary keeps it (``CompileConfig.PROVENANCE``).

``--check`` exits 1 (and says so) when the page is not what the code says; a
unit test runs it.
"""

from __future__ import annotations

import os
import sys

import gendoc  # beside this script

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
PAGE = os.path.join(ROOT, "docs", "provenance.md")


def passes_table() -> str:
    from hilo_mlir import registry  # the public lookups (the built-in passes installed)

    rows = ["| pass | class in the binary | dialect | source |", "|---|---|---|---|"]
    for p in registry.all_passes():
        cls, source = gendoc.cell(p.class_name or p.display_name), gendoc.cell(p.source or "-")
        rows.append(f"| `{p.argument}` | {cls} | {p.dialect or 'both'} | {source} |")
    return "\n".join(rows)


def gates_table() -> str:
    from hilo_mlir.driver.config import CompileConfig

    rows = ["| gate (`--enable-<gate>`) | default | where the binary keeps it |", "|---|---|---|"]
    defaults = CompileConfig()
    for name in CompileConfig.gate_names():
        rows.append(
            f"| `{name.replace('_', '-')}` | {'on' if getattr(defaults, name) else 'off'} | "
            f"{gendoc.cell(CompileConfig.PROVENANCE.get(name, '-'))} |"
        )
    return "\n".join(rows)


TABLES = {"passes": passes_table, "gates": gates_table}


def main(argv: list[str] | None = None) -> int:
    return gendoc.main(__doc__ or "", "scripts/gen_provenance.py", [(PAGE, lambda page: gendoc.replace_blocks(PAGE, page, TABLES))], argv)


if __name__ == "__main__":
    sys.exit(main())
