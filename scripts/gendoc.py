"""What the documentation generators share (``gen_passes.py``, ``gen_provenance.py``): generated
blocks inside hand-written pages, and the write-or ``--check`` main.

A generated block sits between ``<!-- BEGIN GENERATED: name -->`` and
``<!-- END GENERATED: name -->`` lines; everything else on the page is written
by hand and kept as it is.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cell(text: str) -> str:
    """``text`` as one markdown table cell: ``|`` escaped, newlines folded."""
    return text.replace("|", "\\|").replace("\n", " ")


def replace_blocks(path: str, page: str, blocks: dict[str, Callable[[], str]]) -> str:
    """``page`` with the body of each named block replaced by what its function returns (plus a newline).

    Raises:
        SystemExit: a block's markers are missing from ``page`` (the message names ``path`` and the block).
    """
    for name, fn in blocks.items():
        pat = re.compile(rf"(<!-- BEGIN GENERATED: {name} -->\n).*?(<!-- END GENERATED: {name} -->)", re.S)
        if not pat.search(page):
            raise SystemExit(f"{path}: no '<!-- BEGIN GENERATED: {name} -->' ... '<!-- END GENERATED: {name} -->' block")
        page = pat.sub(lambda m: m.group(1) + fn() + "\n" + m.group(2), page)
    return page


def main(doc: str, script: str, pages: list[tuple[str, Callable[[str], str]]], argv: list[str] | None = None) -> int:
    """Write each page as ``render(old text)`` returns it; with ``--check``, write nothing and return 1
    (naming every stale page on stderr) when a page differs from what the code says. ``doc``: the
    script's docstring (its first paragraph is the description); ``script``: its path from the root."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--check", action="store_true", help="only check that the pages are up to date")
    args = ap.parse_args(argv)
    stale = 0
    for path, render in pages:
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
        new = render(old)
        if args.check:
            if new != old:
                print(f"{path} is stale: run 'python3 {script}'", file=sys.stderr)
                stale = 1
            continue
        if new != old:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print(f"wrote {path}")
    return stale
