"""The terminal printer passes (spine step 32): ``mhlo-to-py-penguin`` / ``stablehlo-to-py-penguin``.

Seed 004 (terminal pass) and seed 002 section 1. The pass does not change the
IR: it prints ``main`` as Penguin Python and leaves the text in the pipeline's
``extras["penguin_source"]`` (the driver writes it to ``OUTDIR/penguin.py``),
or writes it to the file named by the ``output`` option.
"""

from ..printers import DEFAULT_ROOT, print_penguin
from ..registry import Option, PassInfo, register

_OPTIONS = (
    Option("root", str, DEFAULT_ROOT, "Penguin module root the program imports"),
    Option("output", str, "", "write penguin.py here ('-' = stdout); default: keep it for the driver"),
)


def _run_printer(module_op, ctx):
    src = print_penguin(module_op, dialect=ctx.info.dialect, root=ctx.options.root, filename=ctx.extras.get("filename"))
    ctx.extras["penguin_source"] = src
    out = ctx.options.output
    if out == "-":
        import sys

        sys.stdout.write(src)
    elif out:
        from ..io_utils import atomic_write_text

        atomic_write_text(out, src)


for _arg, _dialect, _cls in (
    ("mhlo-to-py-penguin", "mhlo", "MhloToPyPenguin"),
    ("stablehlo-to-py-penguin", "stablehlo", "StableHLOToPyPenguin"),
):
    register(
        PassInfo(
            _arg,
            f"Print the {_dialect} module as a Penguin Python program (terminal pass)",
            _run_printer,
            anchor="builtin.module",
            dialect=_dialect,
            options=_OPTIONS,
            class_name=_cls,
            source="seed 004 step 32; seed 002 section 1",
        )
    )
