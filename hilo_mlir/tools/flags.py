"""The command-line flags both tools share, with mlir-opt's spellings and meanings.

* :class:`ArgumentParser`: no abbreviations (``--mlir-tim`` is an error, as
  in LLVM's ``cl``), unknown flags get a did-you-mean, errors are one
  ``<tool>: error: ...`` line (:class:`UsageError`), never ``SystemExit``.
* Boolean flags are LLVM ``cl::opt<bool>``: ``--flag``, ``--flag=true``,
  ``--flag=false``; a bare ``--flag`` never takes the next argument.
* :func:`add_ir_printing_flags` / :func:`instrumentation_from_args`: the
  ``--mlir-print-ir-*``, ``--mlir-elide-elementsattrs-if-larger``,
  ``--mlir-timing``, ``--mlir-pass-statistics``, crash reproducer and
  threading flags, turned into an :class:`~hilo_mlir.passmanager.instrumentation.Instrumentation`.
* :func:`version_text`: ``--version``.
* :func:`add_plugin_flag` / :func:`load_plugins`: ``--load-pass-plugin``,
  loaded before anything else is parsed (a plugin's passes are flags and
  pipeline names too).

Importing this module does not import the bindings.
"""

from __future__ import annotations

import argparse
import re

from hilo_mlir.tools.common import bool_flag


class UsageError(Exception):
    """A command-line mistake: the message of one ``<tool>: error: ...`` line.

    Its text quotes what the user typed (an unknown argument, a bad value): every non-printable character of it,
    a line break too, is shown escaped (:func:`hilo_mlir.support.diagnostics.shown_path`), never sent raw.
    """

    def __str__(self) -> str:
        from hilo_mlir.support.diagnostics import shown_path

        return shown_path(super().__str__())


class ArgumentParser(argparse.ArgumentParser):
    """argparse with LLVM's rules: no abbreviations, ``cl::opt<bool>`` flags, did-you-mean."""

    def __init__(self, *args, extra_flags=(), **kw):
        kw.setdefault("allow_abbrev", False)
        super().__init__(*args, **kw)
        self.bool_flags: dict[str, str] = {}  # "--flag" -> dest
        self.extra_flags = list(extra_flags)  # flags handled outside argparse (pass flags), for suggestions

    def add_bool_flag(self, flag: str, default: bool = False, help: str | None = None, dest: str | None = None, group=None):
        """An LLVM boolean flag (``--flag[=true|false]``), in ``group`` (an argument group) if given."""
        dest = dest or flag.lstrip("-").replace("-", "_")
        self.bool_flags[flag] = dest
        if help and default:
            help += f" (default on; {flag}=false turns it off)"
        (group or self).add_argument(flag, dest=dest, action="store_const", const=True, default=default, help=help)

    def error(self, message):  # argparse calls this for every usage mistake
        raise UsageError(message)

    def parse_args(self, args=None, namespace=None):
        args = list(args or [])
        overrides, rest = {}, []
        for a in args:
            name, eq, value = a.partition("=")
            if eq and name in self.bool_flags:
                try:
                    v = bool_flag(value)
                except argparse.ArgumentTypeError as e:
                    raise UsageError(f"invalid value for {name}: {e}") from None
                overrides[self.bool_flags[name]] = v
                if v:
                    rest.append(name)
                continue
            rest.append(a)
        ns, unknown = self.parse_known_args(rest, namespace)
        if unknown:
            raise UsageError(self.unknown_message(unknown))
        for dest, v in overrides.items():
            setattr(ns, dest, v)
        return ns

    def known_flags(self) -> list[str]:
        flags = [s for a in self._actions for s in a.option_strings if s.startswith("--")]
        return flags + list(self.extra_flags)

    def unknown_message(self, unknown: list[str]) -> str:
        first = unknown[0]
        msg = "unrecognized arguments: " + " ".join(unknown)
        if first.startswith("-"):
            hint = suggest(first.partition("=")[0], self.known_flags())
            if hint:
                msg += f" (did you mean '{hint}'?)"
        return msg


def reclaim_positional(values: list[str], is_value) -> str | None:
    """The positional argument a list flag swallowed, popped from the flag's ``values``; None if it swallowed none.

    A flag taking one or more values (``--weights 1=w.npy``, ``hilo-penguin-run --inputs x.npy``) takes
    every argument up to the next flag, the positional after it too (``--inputs x.npy prog.py --out d``).
    Call this when the positional is missing: the flag's last value is the positional when it cannot be a
    value of the flag (``is_value(text)`` is false), and stays the flag's (its own error) otherwise.
    """
    if values and not is_value(values[-1]):
        return values.pop()
    return None


_SINGLE_DASH_LONG = re.compile(r"^-[A-Za-z][A-Za-z0-9_.-]+(=.*)?$", re.DOTALL)


def long_options(argv: list[str], short: tuple[str, ...] = ("-o", "-h", "-j")) -> list[str]:
    """LLVM's ``cl`` accepts a long option with one dash (``-canonicalize``, ``-pass-pipeline=...``,
    as upstream lit RUN lines spell them): rewrite those to ``--``. Short options (``-o``), ``-``
    (stdin), negative numbers and everything after ``--`` stay as they are."""
    out = []
    rest = False
    for a in argv:
        if rest or a == "--":
            rest = True
        elif _SINGLE_DASH_LONG.match(a) and a.partition("=")[0] not in short:
            a = "-" + a
        out.append(a)
    return out


def suggest(flag: str, known: list[str]) -> str | None:
    """The known flag closest to ``flag``: one it abbreviates, else the nearest spelling."""
    prefixed = sorted(k for k in known if k.startswith(flag))
    if prefixed:
        return prefixed[0]
    import difflib  # only for a misspelt flag

    close = difflib.get_close_matches(flag, known, n=1, cutoff=0.6)
    return close[0] if close else None


def _pass_list(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def add_ir_printing_flags(ap: ArgumentParser, verify_each_default: bool) -> None:
    """The ``--mlir-*`` instrumentation flags (and ``--verify-each``) of both tools."""
    g = ap.add_argument_group("pass manager and instrumentation (mlir-opt's flags; a boolean flag also takes =true/=false)")
    ap.add_bool_flag(
        "--verify-each", default=verify_each_default, group=g, help="run the verifier after each pass and name the pass that broke the IR"
    )
    for flag, text in (
        ("--mlir-print-ir-before-all", "print the IR before every pass"),
        ("--mlir-print-ir-after-all", "print the IR after every pass"),
        ("--mlir-print-ir-after-change", "with an 'after' flag: print only when the pass changed the IR"),
        ("--mlir-print-ir-after-failure", "print the IR after a pass that failed (only then)"),
        ("--mlir-print-ir-module-scope", "print the whole module, not only the function a pass ran on"),
        ("--mlir-print-op-generic", "print operations in generic form"),
        ("--mlir-print-debuginfo", "print locations"),
        ("--mlir-timing", "per-pass wall time report (stderr)"),
        ("--mlir-pass-statistics", "pass statistics report (stderr)"),
        ("--mlir-disable-threading", "accepted (passes run on one thread)"),
        ("--mlir-pass-pipeline-local-reproducer", "accepted (reproducers are always local: the failing pass alone)"),
    ):
        ap.add_bool_flag(flag, help=text, group=g)
    g.add_argument(
        "--mlir-print-ir-before",
        metavar="PASS[,PASS...]",
        action="append",
        type=_pass_list,
        default=[],
        help="print the IR before the named passes",
    )
    g.add_argument(
        "--mlir-print-ir-after",
        metavar="PASS[,PASS...]",
        action="append",
        type=_pass_list,
        default=[],
        help="print the IR after the named passes",
    )
    g.add_argument(
        "--mlir-elide-elementsattrs-if-larger",
        metavar="N",
        type=_non_negative,
        default=None,
        help="print dense attributes with more than N elements as dense_resource<__elided__>",
    )
    g.add_argument(
        "--mlir-pass-pipeline-crash-reproducer",
        metavar="FILE",
        default=None,
        help="when a pass fails, write the IR before it and the pipeline to replay (hilo-opt --run-reproducer)",
    )


def _non_negative(text: str) -> int:
    try:
        n = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if n < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is negative")
    return n


def add_bisect_flags(ap: ArgumentParser) -> None:
    """``--max-pass-index N`` (LLVM's ``-opt-bisect-limit``) and ``--fusion-fuel N`` (XLA's ``--xla_fuel``)."""
    g = ap.add_argument_group("bisection (hilo-check uses these to find the pass or cluster that changed the numbers)")
    g.add_argument(
        "--max-pass-index",
        type=_non_negative,
        default=None,
        metavar="N",
        help="skip every pass whose index is above N (0: the first pass of the pipeline; a printer always runs); "
        "--debug lists 'BISECT: running pass (i) <pass>' lines",
    )
    g.add_argument(
        "--fusion-fuel",
        type=_non_negative,
        default=None,
        metavar="N",
        help="form at most N fusion clusters in all (0: a fusion-free program; default unlimited)",
    )


def printed_pass_filters(args) -> tuple[tuple[str, ...], tuple[str, ...]]:
    before = tuple(p for group in args.mlir_print_ir_before for p in group)
    after = tuple(p for group in args.mlir_print_ir_after for p in group)
    return before, after


def check_pass_filters(args) -> None:
    """Every pass named by ``--mlir-print-ir-before/after`` must exist (LLVM's pass-name parser).

    Raises:
        UsageError: naming the flag and the closest pass.
    """
    before, after = printed_pass_filters(args)
    if not before and not after:
        return
    from hilo_mlir import passes  # the registry's lookups, with the built-in passes installed

    known = {n for p in passes.descriptions() for n in [p["argument"], *p.get("aliases", ())]}
    known |= {n for p in passes.plugin_passes() for n in (p.argument, *p.aliases)}
    if any(n not in known for n in before + after):  # maybe an installed plugin's pass
        passes.load_entry_points()
        known |= {n for p in passes.plugin_passes() for n in (p.argument, *p.aliases)}
    for flag, names in (("--mlir-print-ir-before", before), ("--mlir-print-ir-after", after)):
        for n in names:
            if n not in known:
                import difflib  # only for a misspelt name

                close = difflib.get_close_matches(n, sorted(known), n=1)
                hint = f" (did you mean '{close[0]}'?)" if close else ""
                raise UsageError(f"{flag}: unknown pass '{n}'{hint}")


def instrumentation_from_args(args, out=None):
    """The :class:`~hilo_mlir.passmanager.instrumentation.Instrumentation` these flags ask for."""
    from hilo_mlir.passmanager.instrumentation import Instrumentation

    before, after = printed_pass_filters(args)
    return Instrumentation(
        print_before_all=args.mlir_print_ir_before_all,
        print_after_all=args.mlir_print_ir_after_all,
        print_before=before,
        print_after=after,
        print_after_change=args.mlir_print_ir_after_change,
        print_after_failure=args.mlir_print_ir_after_failure,
        print_module_scope=args.mlir_print_ir_module_scope,
        elide_elements_if_larger=args.mlir_elide_elementsattrs_if_larger,
        timing=args.mlir_timing,
        statistics=args.mlir_pass_statistics,
        print_generic=args.mlir_print_op_generic,
        print_debuginfo=args.mlir_print_debuginfo,
        reproducer=args.mlir_pass_pipeline_crash_reproducer,
        out=out,
    )


def version_text(tool: str) -> str:
    """``--version``: this package's, jaxlib's and the binding's StableHLO versions."""
    import importlib.metadata as md

    def dist_version(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "unknown"

    lines = [f"{tool} (hilo_mlir {dist_version('hilo-mlir')})", f"  jaxlib {dist_version('jaxlib')}"]
    try:
        from hilo_mlir.ir.binding import stablehlo_ext

        lines.append(
            f"  StableHLO {stablehlo_ext.get_current_version()} (minimum {stablehlo_ext.get_minimum_version()}, "
            f"API {stablehlo_ext.get_api_version()})"
        )
    except Exception as e:  # noqa: BLE001 - --version must not fail
        lines.append(f"  StableHLO unknown ({type(e).__name__})")
    return "\n".join(lines) + "\n"


PLUGIN_FLAG = "--load-pass-plugin"


def add_plugin_flag(ap: argparse._ActionsContainer) -> None:
    """Add ``--load-pass-plugin`` to ``ap`` (a parser or one of its argument groups)."""
    ap.add_argument(
        PLUGIN_FLAG,
        action="append",
        default=[],
        metavar="PATH_OR_MODULE",
        help="load passes from a Python file or an importable module (repeatable); installed packages "
        "with a 'hilo_mlir.passes' entry point are loaded automatically",
    )


def plugin_args(argv: list[str]) -> list[str]:
    """The values of every ``--load-pass-plugin`` in ``argv`` (``=VALUE`` or the next argument)."""
    out = []
    for i, a in enumerate(argv):
        if a == PLUGIN_FLAG:
            if i + 1 >= len(argv):
                raise UsageError(f"argument {PLUGIN_FLAG}: expected one argument")
            out.append(argv[i + 1])
        elif a.startswith(PLUGIN_FLAG + "="):
            out.append(a[len(PLUGIN_FLAG) + 1 :])
    return out


def wants_help(argv: list[str]) -> bool:
    """True if ``argv`` asks for ``--help`` (then the installed plugins' passes are listed too)."""
    return any(a in ("-h", "--help", "-help") for a in argv)


def load_plugins(argv: list[str], entry_points: bool = True) -> None:
    """Load the plugins ``argv`` names (and, with ``entry_points`` or when one is named, the installed ones).

    Raises:
        UsageError: ``--load-pass-plugin`` without a value.
        HiloError: a plugin that cannot be loaded (:mod:`hilo_mlir.passmanager.plugins`).
    """
    paths = plugin_args(argv)
    if not paths:
        from hilo_mlir.passmanager import entry_points as installed

        if not entry_points or not installed.maybe_installed():
            return  # nothing to load: the registry (and the bindings) stay unimported
    from hilo_mlir import passes  # plugins load after the built-in passes (a name they take is refused)

    passes.load_entry_points()
    for p in paths:
        passes.load_plugin(p)


def render_error(e, tool: str, filename=None, sources=None) -> str:
    """A HiloError as the tools print it; a plugin's error quotes the plugin's line."""
    merged = dict(sources or {})
    merged.update(getattr(e, "sources", None) or {})
    return e.render(filename, sources=merged, tool=tool)
