"""The batch classifier: a pure function from what the pool observed to one report row."""

import os
import signal

import pytest

from hilo_mlir.tools.batch.classify import ModuleResult, WorkerOutcome, classify, crash_text, one_line, signal_name


def _exited(code: int) -> int:
    return code << 8  # os.waitpid status of a normal exit


def test_statuses_of_a_normal_exit():
    ok = WorkerOutcome("a.mlir", _exited(0), 1.5, "write", {"status": "ok"})
    assert classify(ok) == ModuleResult("a.mlir", "ok", None, None, None, 1.5)
    rej = WorkerOutcome("b.mlir", _exited(0), 0.5, "parse", {"status": "rejected", "diagnostic": "b.mlir:1:1: error: x"})
    assert classify(rej) == ModuleResult("b.mlir", "rejected", "b.mlir:1:1: error: x", None, "parse", 0.5)
    bug = WorkerOutcome(
        "c.mlir", _exited(0), 0.1, "cse", {"status": "crashed", "diagnostic": "internal error: KeyError: 'k'", "traceback": "T"}
    )
    assert classify(bug) == ModuleResult("c.mlir", "crashed", "internal error: KeyError: 'k'", None, "cse", 0.1, "T")


def test_signal_names_the_explaining_line():
    st = signal.SIGABRT  # os.waitpid status of a death by signal N is N
    assert os.WIFSIGNALED(st)
    o = WorkerOutcome("d.mlir", st, 2.0, "hlo-legalize-to-stablehlo", None, b"noise\nLLVM ERROR: Invalid non-spatial dimension.\nmore\n")
    assert classify(o) == ModuleResult(
        "d.mlir", "crashed", "LLVM ERROR: Invalid non-spatial dimension.", "SIGABRT", "hlo-legalize-to-stablehlo", 2.0
    )
    quiet = WorkerOutcome("d.mlir", signal.SIGSEGV, 2.0, "cse")
    assert classify(quiet).diagnostic == "killed by SIGSEGV"


def test_timeout_wins_over_the_kill_signal():
    o = WorkerOutcome("e.mlir", signal.SIGKILL, 3.0, "neuron-op-fusion", None, b"", True, 2.5)
    assert classify(o) == ModuleResult("e.mlir", "timeout", "no result after 2.5 s (killed)", "SIGKILL", "neuron-op-fusion", 3.0)


def test_exit_without_a_result_is_crashed():
    o = WorkerOutcome("f.mlir", _exited(3), 0.2, "parse")
    assert classify(o) == ModuleResult("f.mlir", "crashed", "worker exited with status 3 without a result", None, "parse", 0.2)
    # a final message does not count when the exit status is not 0
    o = WorkerOutcome("f.mlir", _exited(1), 0.2, "parse", {"status": "ok"}, b"Fatal Python error: Aborted\n")
    assert classify(o).status == "crashed" and classify(o).diagnostic == "Fatal Python error: Aborted"


@pytest.mark.parametrize(
    "err, expected",
    [
        (b"", None),
        (b"a\n\n  b  \n", "b"),
        (b"x\nAssertion `n < size' failed.\ny\n", "Assertion `n < size' failed."),
    ],
)
def test_crash_text(err, expected):
    assert crash_text(err) == expected


def test_one_line_and_signal_name():
    assert one_line("a\n  b\tc") == "a b c"
    assert one_line("a\x1b[31m  b\u202e") == "a\\x1b[31m b\\u202e"  # escaped as the one-line error form shows it
    assert len(one_line("x" * 5000)) == 2000 and one_line("x" * 5000).endswith("...")
    assert signal_name(11) == "SIGSEGV" and signal_name(200) == "signal 200"
