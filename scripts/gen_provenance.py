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

import argparse
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
PAGE = os.path.join(ROOT, "docs", "provenance.md")


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def passes_table() -> str:
    from hilo_mlir.passmanager import registry

    rows = ["| pass | class in the binary | dialect | source |", "|---|---|---|---|"]
    for p in registry.all_passes():
        rows.append(f"| `{p.argument}` | {_cell(p.class_name or p.display_name)} | {p.dialect or 'both'} | {_cell(p.source or '-')} |")
    return "\n".join(rows)


def gates_table() -> str:
    from hilo_mlir.driver.config import CompileConfig

    rows = ["| gate (`--enable-<gate>`) | default | where the binary keeps it |", "|---|---|---|"]
    defaults = CompileConfig()
    for name in CompileConfig.gate_names():
        rows.append(
            f"| `{name.replace('_', '-')}` | {'on' if getattr(defaults, name) else 'off'} | "
            f"{_cell(CompileConfig.PROVENANCE.get(name, '-'))} |"
        )
    return "\n".join(rows)


TABLES = {"passes": passes_table, "gates": gates_table}


def render(page: str) -> str:
    for name, fn in TABLES.items():
        pat = re.compile(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", re.S)
        if not pat.search(page):
            raise SystemExit(f"{PAGE}: no '<!-- BEGIN GENERATED: {name} -->' ... '<!-- END GENERATED: {name} -->' block")
        page = pat.sub(lambda m: m.group(1) + fn() + "\n" + m.group(2), page)
    return page


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--check", action="store_true", help="only check that the page is up to date")
    args = ap.parse_args(argv)
    with open(PAGE, encoding="utf-8") as f:
        page = f.read()
    new = render(page)
    if args.check:
        if new != page:
            print(f"{PAGE} is stale: run 'python3 scripts/gen_provenance.py'", file=sys.stderr)
            return 1
        return 0
    with open(PAGE, "w", encoding="utf-8") as f:
        f.write(new)
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
