"""``hilo-cache``: look at and trim the compile cache (:mod:`hilo_mlir.driver.cache`).

Usage::

    hilo-cache [--cache-dir DIR] ls              one line per entry: size, last use, folder
    hilo-cache [--cache-dir DIR] stat            entries, total size, per hilo_mlir version
    hilo-cache [--cache-dir DIR] prune --max-size SIZE   drop the least recently used entries until SIZE
    hilo-cache [--cache-dir DIR] clear           drop every entry

``DIR`` defaults to ``HILO_MLIR_CACHE_DIR``, else ``~/.cache/hilo_mlir``;
``--shared`` works on the shared tier (``HILO_MLIR_CACHE_URL``) instead.
``SIZE`` is bytes or ``K``/``M``/``G`` (powers of 1024). ``--version``
prints the versions. Exit 0, or 1 with one ``hilo-cache: error: ...`` line.
"""

from __future__ import annotations

import os
import sys
import time

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.tools.flags import ArgumentParser, UsageError

TOOL = "hilo-cache"
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def _entries(n: int) -> str:
    """``"1 entry"``, ``"3 entries"``."""
    return f"{n} entry" if n == 1 else f"{n} entries"


def parse_size(text: str) -> int:
    """``"500M"`` -> 524288000 bytes (``K``/``M``/``G``/``T``, optional ``B``/``iB``; case-insensitive).

    Raises:
        argparse.ArgumentTypeError: not a non-negative size.
    """
    import argparse

    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1:] if t[-1:] in _UNITS and t[-1:] else ""
    num = t[: len(t) - len(unit)]
    try:
        value = float(num)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid size '{text}' (bytes, or a number with K, M, G or T)") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"invalid size '{text}': negative")
    return int(value * _UNITS[unit])


def human(n: float) -> str:
    """``1536`` -> ``1.5K``."""
    for unit in ("", "K", "M", "G"):
        if abs(n) < 1024:
            return f"{n:.0f}{unit}" if not unit else f"{n:.1f}{unit}"
        n /= 1024
    return f"{n:.1f}T"


def build_parser() -> ArgumentParser:
    ap = ArgumentParser(prog=TOOL, description="List, measure and trim the hilo_mlir compile cache.")
    ap.add_argument(
        "--cache-dir", metavar="DIR", default=None, help="the cache folder (default: HILO_MLIR_CACHE_DIR, else ~/.cache/hilo_mlir)"
    )
    ap.add_bool_flag("--shared", help="work on the shared tier (HILO_MLIR_CACHE_URL) instead of the local folder")
    ap.add_argument("--version", action="store_true", help="print the versions of hilo_mlir, jaxlib and StableHLO and exit")
    sub = ap.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("ls", help="one line per entry: size, last use, folder")
    sub.add_parser("stat", help="number of entries and total size")
    p = sub.add_parser("prune", help="remove the least recently used entries until the cache is at most --max-size")
    p.add_argument("--max-size", required=True, type=parse_size, metavar="SIZE", help="bytes, or with K, M, G")
    sub.add_parser("clear", help="remove every entry")
    return ap


def _root(args) -> str:
    from hilo_mlir.driver import cache

    if args.shared:
        shared = cache.shared_from_env()
        if shared is None:
            raise UsageError("--shared needs HILO_MLIR_CACHE_URL")
        return shared
    root = args.cache_dir or cache.default_dir()
    if os.path.exists(root) and not os.path.isdir(root):
        raise HiloError(f"cannot use cache folder '{root}': it is a file, not a folder")
    return root


def run(argv: list[str], stdout=None) -> int:
    from hilo_mlir.driver import cache

    out = stdout or sys.stdout
    try:
        args = build_parser().parse_args(argv)
        if args.version:
            from hilo_mlir.tools.flags import version_text

            out.write(version_text(TOOL))
            return 0
        if not args.command:
            raise UsageError("no command: ls, stat, prune or clear")
        root = _root(args)
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e} (see 'hilo-cache --help')\n")
        return 1
    except HiloError as e:
        sys.stderr.write(f"{TOOL}: error: {e.message}\n")
        return 1
    if args.command == "ls":
        for entry in cache.entries(root):
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.mtime))
            state = "" if entry.complete else "  (incomplete)"
            out.write(f"{human(entry.size):>8}  {when}  {entry.path}{state}\n")
    elif args.command == "stat":
        es = cache.entries(root)
        out.write(f"cache: {root}\n")
        out.write(f"entries: {len(es)}\nsize: {human(sum(e.size for e in es))} ({sum(e.size for e in es)} bytes)\n")
        for v in sorted({e.version for e in es}):
            mine = [e for e in es if e.version == v]
            out.write(f"  hilo_mlir-{v}: {_entries(len(mine))}, {human(sum(e.size for e in mine))}\n")
    elif args.command == "prune":
        removed = cache.prune(root, args.max_size)
        out.write(f"removed {_entries(len(removed))} ({human(sum(e.size for e in removed))})\n")
    else:
        n = cache.clear(root)
        out.write(f"removed {_entries(n)}\n")
    return 0


def main() -> None:
    """Console-script entry point."""
    from hilo_mlir.tools.common import run_main

    run_main(TOOL, run)


if __name__ == "__main__":
    main()
