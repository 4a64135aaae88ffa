#!/usr/bin/env python3
"""Op census of a corpus against the printers' table: every op kind is printable or rejected with a reason.

``python3 scripts/printer_census.py [--json OUT] [--markdown] PATH...`` parses
every ``.mlir`` file under the given paths (unregistered dialects allowed),
walks every op, and records per op kind (the op name; ``custom_call @target``
for custom calls) how often it occurs and
:func:`hilo_mlir.printers.supported.unsupported_reason`'s verdict (``None`` = printable). It
then prints each module's ``main`` with the printer of its dialect and checks
that the printer agrees with the table: a module whose ops are all printable
must print; a module with an unsupported op must fail with a
:class:`~hilo_mlir.support.diagnostics.HiloError` (never another exception).

Files are processed in this process; run shards in subprocesses when a
binding abort must not take the caller down (the tests do).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _kind(op) -> str:
    from hilo_mlir.printers.supported import custom_call_target, hlo_short

    if hlo_short(op.name) == "custom_call":
        return f"{op.name} @{custom_call_target(op)}"
    return op.name


def census_file(path: str) -> dict:
    """Census of one file.

    Returns ``{"kinds": {kind: [count, op_reason, n_type_rejected, type_reason]},
    "unsupported": bool, "print": "ok" | "error: ..." | "crash: ..." | "parse: ..."}``:
    ``op_reason`` is :func:`~.supported.op_reason` (the op kind itself is
    rejected), ``n_type_rejected`` counts instances of a printable kind
    rejected for a type (dynamic shape, element type), with one such reason.
    """
    from hilo_mlir.ir.binding import ir, make_context
    from hilo_mlir.printers import print_program
    from hilo_mlir.printers.supported import op_reason, unsupported_reason
    from hilo_mlir.support.diagnostics import HiloError

    result = {"kinds": {}, "print": None, "first_reason": None}
    ctx = make_context(allow_unregistered_dialects=True)
    with ctx:
        try:
            with open(path, "rb") as f:
                data = f.read()
            module = ir.Module.parse(data.decode("utf-8"))
        except Exception as e:  # noqa: BLE001 - reported, not raised
            result["print"] = f"parse: {str(e).splitlines()[0][:200] if str(e) else type(e).__name__}"
            return result
        kinds: dict = {}  # kind -> [count, op-level reason, instances rejected for their types, a type reason]
        cache: dict = {}
        dialects = collections.Counter()

        def visit(op):
            name = op.name
            if name in ("builtin.module", "func.func"):
                return ir.WalkResult.ADVANCE
            if name.startswith("mhlo."):
                dialects["mhlo"] += 1
            elif name.startswith("stablehlo."):
                dialects["stablehlo"] += 1
            k = _kind(op)
            e = kinds.get(k)
            if e is None:
                e = kinds[k] = [0, op_reason(op), 0, None]
            e[0] += 1
            if e[1] is None:
                r = unsupported_reason(op, cache)
                if r is not None:
                    e[2] += 1
                    e[3] = e[3] or r
            return ir.WalkResult.ADVANCE

        module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
        result["kinds"] = kinds
        result["unsupported"] = any(e[1] is not None or e[2] for e in kinds.values())
        dialect = "stablehlo" if dialects["stablehlo"] >= dialects["mhlo"] else "mhlo"
        try:
            print_program(module, dialect=dialect, filename=os.path.basename(path))
            result["print"] = "ok"
        except HiloError as e:
            result["print"] = "error: " + e.format(os.path.basename(path))
        except Exception as e:  # noqa: BLE001 - a printer bug: reported
            result["print"] = f"crash: {type(e).__name__}: {e}"
    return result


def iter_files(paths) -> list[str]:
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, _, files in os.walk(p):
                out.extend(os.path.join(root, f) for f in files if f.endswith(".mlir"))
        elif p.endswith(".mlir"):
            out.append(p)
    return sorted(out)


def summarize(per_file: dict) -> dict:
    """Merge file censuses: ``{kind: {"count", "files", "reason", "type_rejected", "type_reason"}}`` plus violations.

    A violation is a module where the printer disagrees with the table
    (printed although an op is rejected, or failed although every op is
    printable), or any exception other than ``HiloError``.
    """
    kinds: dict = {}
    violations = []
    for path, r in per_file.items():
        for k, (n, reason, nbad, treason) in r["kinds"].items():
            e = kinds.setdefault(k, {"count": 0, "files": 0, "reason": reason, "type_rejected": 0, "type_reason": None})
            e["count"] += n
            e["files"] += 1
            e["type_rejected"] += nbad
            e["type_reason"] = e["type_reason"] or treason
        pr = r["print"] or ""
        if pr.startswith("parse:"):
            continue
        if pr.startswith("crash:"):
            violations.append((path, pr))
        elif not r.get("unsupported") and pr != "ok" and "has no 'main'" not in pr and "no function to compile" not in pr:
            violations.append((path, pr))
        elif r.get("unsupported") and pr == "ok":
            violations.append((path, "printed although an op is unsupported"))
    return {"kinds": kinds, "violations": violations}


def markdown(summary: dict) -> str:
    rows = ["| op kind | occurrences | files | printed? |", "|---|---|---|---|"]
    for k in sorted(summary["kinds"]):
        e = summary["kinds"][k]
        if e["reason"] is not None:
            verdict = "no: " + e["reason"]
        elif e["type_rejected"]:
            verdict = f"yes, except {e['type_rejected']} with unsupported types (e.g. {e['type_reason']})"
        else:
            verdict = "yes"
        rows.append(f"| `{k}` | {e['count']} | {e['files']} | {verdict.replace('|', '/')} |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--json", help="write the per-file census here")
    ap.add_argument("--markdown", action="store_true", help="print the op-kind table as markdown")
    args = ap.parse_args(argv)
    per_file = {}
    for f in iter_files(args.paths):
        per_file[f] = census_file(f)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(per_file, fh, indent=0, sort_keys=True)
    summary = summarize(per_file)
    if args.markdown:
        sys.stdout.write(markdown(summary))
    for path, why in summary["violations"]:
        sys.stderr.write(f"{path}: {why}\n")
    return 1 if summary["violations"] else 0


if __name__ == "__main__":
    sys.exit(main())
