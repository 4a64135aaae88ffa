"""``Pipeline(instrumentation=...)`` takes a declared :class:`Instrumentation` (or None), nothing duck-typed."""

from __future__ import annotations

import types

import pytest

from hilo_mlir.passmanager.instrumentation import Instrumentation
from hilo_mlir.passmanager.pipeline import Pipeline


def test_none_is_the_default_instrumentation():
    assert Pipeline([]).instr == Instrumentation()


def test_the_given_instrumentation_is_used_as_is():
    seen: list[str] = []
    instr = Instrumentation(on_pass_start=seen.append, debug=True)
    p = Pipeline([], instrumentation=instr)
    assert p.instr is instr and p.env.debug is True


def test_an_object_with_some_of_its_fields_is_refused():
    look_alike = types.SimpleNamespace(debug=True, on_pass_start=print)
    with pytest.raises(TypeError) as info:
        Pipeline([], instrumentation=look_alike)  # type: ignore[arg-type]
    assert str(info.value) == "instrumentation must be an Instrumentation or None, not SimpleNamespace"
