"""The edited spine's own check: the printer is its last step, once, whatever the edits."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from hilo_mlir.driver.spine_edits import edited_rows
from hilo_mlir.support.diagnostics import HiloError


def _entry(label: str, argument: str):
    return SimpleNamespace(label=label, argument=argument, enabled=True)


def _steps_of(entry):
    return SimpleNamespace(argument=entry.argument, info=SimpleNamespace(terminal=entry.argument == "printer"))


def test_a_spine_with_its_printer_last_is_kept():
    entries = [_entry("1", "cse"), _entry("2", "printer")]
    assert [s.argument for _e, s, _n in edited_rows(entries, _steps_of, ())] == ["cse", "printer"]


@pytest.mark.parametrize("order", [["printer", "cse"], ["printer", "cse", "printer"]])
def test_a_printer_before_other_passes_is_refused(order):
    entries = [_entry(str(i + 1), a) for i, a in enumerate(order)]
    with pytest.raises(HiloError) as info:
        edited_rows(entries, _steps_of, ())
    assert info.value.message == "the edited spine: 'printer' is a printer pass: nothing can run after it; put 'cse' before it"
