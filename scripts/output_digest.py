#!/usr/bin/env python3
"""Digest every output of the corpora (both spines x presets) to prove a change keeps them byte-identical.

Usage::

    python3 scripts/output_digest.py --out digest.json [--jobs N] [--folders jax,stablehlo_testdata,...]
                                     [--configs mhlo:default,...] [--limit N] [--skip N]
    python3 scripts/output_digest.py --compare old.json new.json

The first form compiles every module of the JAX corpus (``jax``) and of the
third-party corpus folders (``../shared/corpus``) under every configuration in
batch mode, and writes ``{"<config>/<folder>/<module>": {"status", "files":
{name: sha256}} | {"status", "diagnostic"}}``. ``--compare`` lists every key
whose entry differs (status, diagnostic text or any file's bytes) and exits 1
if there is one.

Run it on the commit before a change and on the change itself; a refactoring
that claims "no behaviour change" must compare equal.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
FOLDERS = ("jax", "stablehlo_testdata", "mhlo_tests", "composite_chlo_tests", "stablehlo_testdata_unregistered")


def _folder_path(folder: str) -> str:
    return os.path.join(CORPUS, "jax") if folder == "jax" else os.path.join(CORPUS, "third_party", folder)


def _digest_dir(path: str) -> dict:
    out = {}
    for dirpath, _, files in os.walk(path):
        for fn in sorted(files):
            p = os.path.join(dirpath, fn)
            with open(p, "rb") as f:
                out[os.path.relpath(p, path)] = hashlib.sha256(f.read()).hexdigest()
    return out


def digest(configs, folders, jobs: int, timeout: float, limit: int | None, skip: int = 0) -> dict:
    from run_corpus import UNREGISTERED, parse_config

    from hilo_mlir.tools import batch

    result = {}
    for conf in configs:
        cfg = parse_config(conf)
        for folder in folders:
            path = _folder_path(folder)
            if not os.path.isdir(path):  # an empty digest would compare equal to another empty one
                raise SystemExit(f"output_digest: no corpus folder '{path}' (expected ../shared/corpus beside the checkout)")
            items = batch.discover([path])[skip:]
            if limit:
                items = items[:limit]
            sys.stderr.write(f"== {conf} {folder}: {len(items)} modules\n")
            with tempfile.TemporaryDirectory(prefix="hilo-digest-") as tmp:
                outdir = os.path.join(tmp, "out")
                res = batch.compile_batch(items, outdir, cfg, jobs, timeout, folder in UNREGISTERED, None)
                for it, r in zip(items, res):
                    key = f"{conf}/{folder}/{it.rel_stem}"
                    if r.status == "ok":
                        result[key] = {"status": "ok", "files": _digest_dir(os.path.join(outdir, it.rel_stem))}
                    else:
                        result[key] = {"status": r.status, "diagnostic": r.diagnostic}
    return result


def compare(old: dict, new: dict, out=sys.stdout) -> int:
    bad = 0
    for key in sorted(set(old) | set(new)):
        a, b = old.get(key), new.get(key)
        if a != b:
            bad += 1
            if bad <= 200:
                out.write(f"{key}:\n  before: {json.dumps(a)[:400]}\n  after:  {json.dumps(b)[:400]}\n")
    out.write(f"{bad} of {len(set(old) | set(new))} entries differ\n")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--out")
    ap.add_argument("--compare", nargs=2, metavar=("OLD", "NEW"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--folders", default=",".join(FOLDERS))
    ap.add_argument("--configs", default="mhlo:default,mhlo:all,stablehlo:default,stablehlo:all")
    ap.add_argument("--limit", type=int, help="at most N modules per folder")
    ap.add_argument("--skip", type=int, default=0, help="leave out the first N modules of each folder (digest a corpus in slices)")
    args = ap.parse_args(argv)
    if args.compare:
        with open(args.compare[0]) as f:
            old = json.load(f)
        with open(args.compare[1]) as f:
            new = json.load(f)
        return compare(old, new)
    if not args.out:
        ap.error("--out or --compare is required")
    res = digest(args.configs.split(","), args.folders.split(","), args.jobs, args.timeout, args.limit, args.skip)
    with open(args.out, "w") as f:
        json.dump(res, f, indent=0, sort_keys=True)
    sys.stderr.write(f"wrote {args.out}: {len(res)} entries\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
