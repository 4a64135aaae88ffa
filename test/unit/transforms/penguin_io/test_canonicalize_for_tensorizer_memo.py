"""canonicalize-for-tensorizer's memo of refusals (keyed by the pointers of uniqued types and attributes)."""

from __future__ import annotations

import pytest

from hilo_mlir.ir.binding import identity_key, ir, make_context
from hilo_mlir.passes.penguin_io import canonicalize_for_tensorizer as cft


class _Rw:
    """What a memo uses of a PatternRewriter: the failure hook."""

    def __init__(self) -> None:
        self.failures: list[str] = []

    def notify_match_failure(self, op, reason) -> bool:
        self.failures.append(reason)
        return False


def _objs():
    t_in = ir.Type.parse("tensor<4xf32>")
    t_out = ir.Type.parse("tensor<1x4xf32>")
    dims = ir.Attribute.parse("array<i64: 1>")
    return t_in, t_out, dims


def test_memo_keys_by_pointers_and_asks_once():
    with make_context():
        calls = []

        def refusal_of(t_in, t_out, dims):
            calls.append((t_in, t_out, dims))
            return cft.BroadcastToReshape._refusal(t_in, t_out, dims)

        memo = cft._Memo(refusal_of)
        rw = _Rw()
        assert memo.match(_objs(), None, rw) is True  # inserts a unit dimension: a reshape
        assert memo.match(_objs(), None, rw) is True  # fresh wrappers of the same types: a hit
        assert len(calls) == 1
        t_in, t_out, dims = _objs()
        assert list(memo.answers) == [(identity_key(t_in), identity_key(t_out), identity_key(dims))]
        assert memo.answers[(identity_key(t_in), identity_key(t_out), identity_key(dims))] is None
        # an absent attribute has its own key, never a pointer
        assert memo.match((t_in, t_out, None), None, rw) is False  # no dimension kept: 4 is inserted
        assert memo.answers[(identity_key(t_in), identity_key(t_out), cft._ABSENT)] == "inserts a dimension larger than 1"
        assert memo.match((t_out, ir.Type.parse("tensor<2x4xf32>"), ir.Attribute.parse("array<i64: 0, 1>")), None, rw) is False
        assert rw.failures == ["inserts a dimension larger than 1", "expands a dimension"]
        assert len(calls) == 3


def test_checking_mode_catches_a_wrong_remembered_answer():
    with make_context():
        memo = cft._Memo(cft.BroadcastToReshape._refusal)
        memo.checking = True
        assert memo.match(_objs(), None, _Rw()) is True
        key = next(iter(memo.answers))
        memo.answers[key] = "inserts a dimension larger than 1"  # a deliberately wrong answer
        with pytest.raises(AssertionError, match="the memo answers"):
            memo.match(_objs(), None, _Rw())
        # without the checking mode the wrong answer is believed (what the check is for)
        quiet = cft._Memo(cft.BroadcastToReshape._refusal)
        quiet.answers[key] = "inserts a dimension larger than 1"
        assert quiet.match(_objs(), None, _Rw()) is False


@pytest.mark.parametrize("checking", [False, True])
def test_the_pass_run_hands_its_checking_mode_to_the_memos(monkeypatch, checking):
    import hilo_mlir.passes  # noqa: F401 - the built-in passes
    from hilo_mlir.passmanager.pipeline import Pipeline

    seen: list[bool] = []
    real = cft._Memo.match

    def spy(self, objs, op, rw):
        seen.append(self.checking)
        return real(self, objs, op, rw)

    monkeypatch.setattr(cft._Memo, "match", spy)
    text = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> (tensor<1x4xf32>, tensor<1x4xf32>) {
      %0 = mhlo.add %a, %b : tensor<4xf32>
      %1 = "mhlo.broadcast_in_dim"(%0) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<1x4xf32>
      %2 = "mhlo.broadcast_in_dim"(%a) {broadcast_dimensions = dense<1> : tensor<1xi64>} : (tensor<4xf32>) -> tensor<1x4xf32>
      return %1, %2 : tensor<1x4xf32>, tensor<1x4xf32>
    }"""
    with make_context(), ir.Location.unknown():
        m = ir.Module.parse(text)
        Pipeline.from_text("builtin.module(canonicalize-for-tensorizer)", check_analyses=checking).run(m)
        out = str(m)
    assert seen and set(seen) == {checking}
    assert out.count("mhlo.reshape") == 2 and "broadcast_in_dim" not in out
