"""``check_printer_last``: the one rule of every pipeline (hilo-opt's, the edited spine): a printer pass runs last, once."""

from __future__ import annotations

import pytest

from hilo_mlir import passes  # noqa: F401 - installs the built-in passes the pipelines name
from hilo_mlir.passmanager.steps import check_printer_last, is_printer, steps_from_text
from hilo_mlir.support.diagnostics import HiloError


@pytest.mark.parametrize(
    "text",
    ["cse,mhlo-to-py-penguin", "mhlo-to-py-penguin", "cse,canonicalize", "func.func(cse),stablehlo-to-py-penguin", ""],
)
def test_a_pipeline_ending_in_its_one_printer_passes(text):
    check_printer_last(steps_from_text(text) if text else [], "P")


@pytest.mark.parametrize(
    "text, message",
    [
        ("mhlo-to-py-penguin,cse", "P: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; put 'cse' before it"),
        (
            "stablehlo-to-py-penguin,func.func(canonicalize),cse",
            "P: 'stablehlo-to-py-penguin' is a printer pass: nothing can run after it; put 'canonicalize' before it",
        ),
        (
            "cse,mhlo-to-py-penguin,mhlo-to-py-penguin",
            "P: 'mhlo-to-py-penguin' is a printer pass: nothing can run after it; a pipeline runs one printer pass, last",
        ),
    ],
)
def test_a_pass_after_a_printer_is_refused(text, message):
    with pytest.raises(HiloError) as info:
        check_printer_last(steps_from_text(text), "P")
    assert info.value.message == message


def test_is_printer():
    printer, cse = steps_from_text("mhlo-to-py-penguin,cse")
    assert (is_printer(printer), is_printer(cse), is_printer(None)) == (True, False, False)
