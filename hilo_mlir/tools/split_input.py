"""``--split-input-file``: one input, several independent modules (mlir-opt's ``splitAndProcessBuffer``).

The input is cut at every line that starts with ``// -----``; each chunk is
parsed and processed on its own, padded with empty lines so that line
numbers in diagnostics are those of the whole file. The outputs are joined
with ``// -----`` lines; a chunk that failed keeps its (empty) place, so the
other chunks still print (exit status 1).
"""

from __future__ import annotations

import re

_MARKER = re.compile(r"^\s*// -----")


def split_chunks(text: str) -> list[tuple[str, int]]:
    """``[(chunk, first line offset)]``; each chunk is padded to its original line numbers."""
    lines = text.split("\n")
    chunks: list[tuple[str, int]] = []
    cur: list[str] = []
    start = 0
    for i, line in enumerate(lines):
        if _MARKER.match(line):
            chunks.append(("\n" * start + "\n".join(cur), start))
            cur, start = [], i + 1
        else:
            cur.append(line)
    chunks.append(("\n" * start + "\n".join(cur), start))
    return chunks


def join_outputs(outputs: list[str]) -> str:
    """The chunks' outputs joined as mlir-opt joins them."""
    return "// -----\n".join(outputs)
