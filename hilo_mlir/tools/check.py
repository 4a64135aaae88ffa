"""``hilo-check``: prove a compile's numbers against XLA and an f64 truth (README "Checking a compile").

    hilo-check MODEL [--inputs x.npz] [--seed N] [-o DIR] [--no-bisect] [any hilo2penguin flag]

Exit codes: 0 every output is as accurate as XLA; 1 some output is less
accurate (the numbers differ; a bisection names the pass and cluster);
2 the check cannot be made (unreadable model or inputs, inputs that do not
match ``main``, a module XLA cannot run, a compile that fails, a bad flag):
one error line, no traceback.
"""

from __future__ import annotations

import argparse
import os
import sys

from hilo_mlir.support.diagnostics import HiloError
from hilo_mlir.tools.common import run_main

TOOL = "hilo-check"

#: hilo2penguin flags that make no sense for a check
_REFUSED = (("--batch", "batch"), ("--jobs", "jobs"), ("--report", "report"), ("--scheduler", "scheduler"))


def build_parser():
    from hilo_mlir.tools import hilo2penguin

    ap = hilo2penguin.build_parser()
    ap.prog = TOOL
    refused = {flag for flag, _ in _REFUSED}
    for action in ap._actions:  # refused below: not offered in --help either
        if refused.intersection(action.option_strings):
            action.help = argparse.SUPPRESS
    for group in ap._action_groups:
        if group.title == "batch mode":  # what is left of it: --timeout
            group.title = "time limit"
    ap.description = (
        "Compile a model, run penguin.py on the reference backend, the model on XLA CPU and an f64 truth (the model "
        "widened to f64), and judge every output: as accurate as XLA, or less accurate (then bisect to the pass and "
        "the fusion cluster that caused it). Every hilo2penguin flag except batch mode's is accepted; -o DIR receives check_report.json, "
        "the Model Explorer graph and the reproducer."
    )
    g = ap.add_argument_group("checking")
    g.add_argument(
        "--inputs",
        dest="inputs_file",
        default=None,
        metavar="FILE.npz",
        help="main's inputs (one entry per argument); default: seeded random inputs",
    )
    g.add_argument("--seed", type=int, default=0, metavar="N", help="seed of the random inputs (default 0)")
    ap.add_bool_flag("--no-bisect", help="on a less-accurate output, do not bisect", group=g)
    ap.add_bool_flag("--json", help="print the JSON report to stdout instead of the table", group=g)
    return ap


def run(argv: list[str]) -> int:
    from hilo_mlir.tools.flags import UsageError, load_plugins, render_error

    try:
        load_plugins(argv)
        args = build_parser().parse_args(argv)
    except UsageError as e:
        sys.stderr.write(f"{TOOL}: error: {e} (see 'hilo-check --help')\n")
        return 2
    except HiloError as e:
        sys.stderr.write(render_error(e, TOOL) + "\n")
        return 2
    if args.version:
        from hilo_mlir.tools.flags import version_text

        sys.stdout.write(version_text(TOOL))
        return 0
    for flag, dest in _REFUSED:
        if getattr(args, dest, None):
            sys.stderr.write(f"{TOOL}: error: {flag} is not supported by hilo-check\n")
            return 2
    if len(args.inputs) != 1:
        sys.stderr.write(f"{TOOL}: error: {'no model given' if not args.inputs else 'give one model'} (see 'hilo-check --help')\n")
        return 2
    path = args.inputs[0]
    from hilo_mlir.support.io import input_name

    name = input_name(path)  # `<stdin>` for `-`
    read: dict[str, str] = {}  # stdin's text, once read (it cannot be read again for the quoted lines)
    try:
        return _check(args, path, read)
    except HiloError as e:  # as hilo2penguin prints it: every error, each with its source line and caret
        from hilo_mlir.support.diagnostics import render_every

        sources = read if path == "-" else _source_of(path)

        def one(x: HiloError) -> str:  # stdin's parser locations ("-") are shown as <stdin>; a flag's error names no file
            return render_error(x, TOOL, name if path == "-" and x.loc is not None else None, sources=sources)

        sys.stderr.write(render_every(e, one, name) + "\n")
        return 2
    except Exception as e:  # noqa: BLE001 - a bug of ours: one line, and "cannot check" (never 1 = numbers differ)
        from hilo_mlir.support.diagnostics import internal_error

        internal_error(TOOL, e)
        return 2


def _source_of(path: str) -> dict[str, str]:
    """``{path: text}`` of a text input (the lines quoted under a located error); empty for a binary or unreadable one."""
    try:
        with open(path, "rb") as f:
            data = f.read()
        return {} if data.startswith(b"ML\xefR") else {path: data.decode("utf-8")}
    except (OSError, UnicodeDecodeError):
        return {}


def _check(args, path: str, read: dict[str, str]) -> int:
    """Check the model at ``path`` (``-``: stdin, whose text is put in ``read`` under ``<stdin>``); the exit status."""
    from hilo_mlir.checker.core import check_data
    from hilo_mlir.support.io import STDIN_NAME, read_input
    from hilo_mlir.tools.hilo2penguin import _read_weights, check_config, config_from_args

    cfg = config_from_args(args)
    check_config(cfg)
    data: bytes | str = read_input(path)  # the tools' one error for an input file that cannot be opened
    if isinstance(data, bytes) and not path.endswith(".pb") and not data.startswith(b"ML\xefR"):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            pass
    if path == "-" and isinstance(data, str):
        read[STDIN_NAME] = data
    weights = {int(i): w for i, w in _read_weights(args.weights).items()}
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    result = check_data(
        data,
        path,
        cfg,
        "stablehlo" if cfg.stablehlo else "mhlo",
        inputs=args.inputs_file,
        seed=args.seed,
        input_types=args.input_types,
        weights=weights,
        bisect=not args.no_bisect,
        out_dir=args.outdir,
        allow_unregistered=args.allow_unregistered_dialect,
        explorer=args.outdir is not None,
        fusion_report=args.fusion_report,
    )
    sys.stdout.write(result.json() if args.json else result.text())
    return 0 if result.ok else 1


def main() -> None:
    run_main(TOOL, run)


if __name__ == "__main__":
    main()
