"""Batch mode under SIGINT / SIGTERM / the parent's death: report, summary, exit 130, no orphaned workers."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT

GOOD = """func.func @main(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  %1 = stablehlo.tanh %0 : tensor<64x64xf32>
  %2 = stablehlo.add %1, %a : tensor<64x64xf32>
  return %2 : tensor<64x64xf32>
}
"""


def _tree(tmp_path, n):
    src = tmp_path / "in"
    src.mkdir()
    for i in range(n):
        (src / f"m{i:03d}.mlir").write_text(GOOD.replace("tanh", ["tanh", "exponential", "negate"][i % 3]))
    return src


def _procs_with(marker: str, exclude=()) -> list[int]:
    """PIDs of live processes whose command line mentions ``marker`` (the batch's workers are forks of it)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) in exclude or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{d}/stat") as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmd and state != "Z":
            out.append(int(d))
    return out


def _start(tmp_path, n=40, jobs=2):
    src = _tree(tmp_path, n)
    out, report = tmp_path / "out", tmp_path / "report.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "hilo_mlir.tools.hilo2penguin",
            "--batch",
            str(src),
            "-o",
            str(out),
            "--jobs",
            str(jobs),
            "--report",
            str(report),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
        preexec_fn=_terminal_signals,
    )
    return p, out, report


def _terminal_signals() -> None:
    """SIGINT/SIGTERM as at a terminal: a test run started in the background inherits SIGINT
    ignored, and the tool keeps an ignored signal ignored (as a shell's background job expects)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _wait_for_progress(p, report_dir, lines=2, limit=60.0):
    """Wait until the batch reported ``lines`` finished modules on stderr (reads them)."""
    got = []
    t0 = time.monotonic()
    while len(got) < lines and time.monotonic() - t0 < limit:
        line = p.stderr.readline()
        if not line:
            break
        got.append(line)
    return got


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_signal_stops_the_batch_with_report_summary_and_exit_130(tmp_path, sig):
    p, out, report = _start(tmp_path)
    early = _wait_for_progress(p, out)
    p.send_signal(sig)
    stdout, stderr = p.communicate(timeout=60)
    stderr = "".join(early) + stderr
    assert p.returncode == 130, stderr
    assert "Traceback" not in stderr and "Exception ignored" not in stderr and "KeyboardInterrupt" not in stderr
    doc = json.loads(report.read_text())
    assert doc["interrupted"] is True and doc["total"] == 40
    done = len(doc["modules"])
    assert 2 <= done < 40
    assert all(m["status"] == "ok" for m in doc["modules"])
    assert sum(doc["summary"].values()) == done
    assert f"interrupted: {done} of 40 modules finished" in stdout
    assert "ok" in stdout and "total" in stdout
    # the modules that finished are whole; the others left nothing behind
    for m in doc["modules"]:
        stem = os.path.splitext(os.path.basename(m["path"]))[0]
        assert (out / stem / "penguin.py").is_file()
    assert not [q for q in out.rglob(".hilo-staging-*")]
    assert _procs_with(str(out)) == []


def test_sigint_right_at_the_start_is_not_lost(tmp_path):
    """A signal during start-up or the first fork(): exit 130 with a report, never 'Exception ignored' or a crash.

    Only Python's own start-up (``site``, before any line of hilo_mlir runs)
    reports a Ctrl-C its own way (a KeyboardInterrupt from a standard-library
    frame): accepted, since no code of ours can run earlier.
    """
    for delay in (0.0, 0.15, 0.3, 0.45, 0.6, 0.9, 1.2):
        sub = tmp_path / f"d{delay}"
        sub.mkdir()
        p, out, report = _start(sub, n=6, jobs=2)
        time.sleep(delay)
        ended_before_the_signal = p.poll() is not None  # a fast machine finishes six small modules in ~1 s
        p.send_signal(signal.SIGINT)
        stdout, stderr = p.communicate(timeout=60)
        startup = python_startup_report(stderr)
        assert "Exception ignored" not in stderr or startup, stderr
        finished = report.exists() and json.loads(report.read_text()).get("interrupted") is False
        if ended_before_the_signal:
            assert p.returncode == 0 and stderr.count("] ok ") == 6, (p.returncode, stderr)
            assert finished
        elif p.returncode == 130:
            assert "Traceback" not in stderr
            doc = json.loads(report.read_text())
            assert doc["interrupted"] is True and doc["total"] == 6
            assert "interrupted: " in stdout and "of 6 modules finished" in stdout
        elif p.returncode == -signal.SIGINT:
            # before Python installed its handler, or after the batch ended while the interpreter shuts
            # down (finalization restores the default action): then every module was finished and reported
            assert stderr == "" or startup or (finished and stderr.count("] ok ") == 6), stderr
        elif p.returncode == 0:  # Python's start-up ignored it ("Exception ignored in ... importlib"): the batch ran whole
            assert startup and finished, stderr
        else:
            assert p.returncode == 1 and startup, (p.returncode, stderr)
        assert _procs_with(str(out)) == []


def python_startup_report(stderr: str) -> bool:
    """True if ``stderr`` is Python's own report of a Ctrl-C during its start-up: a KeyboardInterrupt
    whose every frame is the interpreter's (frozen modules, ``site``, the standard library) or pip's
    editable-install finder (``__editable___<dist>_finder.py``, imported by ``site`` from its ``.pth``),
    never a frame of hilo_mlir's own code."""
    import re
    import sysconfig

    if "KeyboardInterrupt" not in stderr:
        return False
    frames = re.findall(r'File "([^"]+)", line \d+, in (\S+)', stderr)
    files = [f for f, _ in frames]
    ours = str(ROOT / "hilo_mlir") + os.sep
    # the import chain that installs the deferral (hilo_mlir.tools imports support.signals, which imports the
    # standard library's signal) runs before any handler of ours exists: a Ctrl-C there is Python's to report
    before_deferral = {
        str(ROOT / "hilo_mlir" / p) for p in ("__init__.py", "tools/__init__.py", "support/__init__.py", "support/signals.py")
    }
    if any(os.path.abspath(f).startswith(ours) and (os.path.abspath(f) not in before_deferral or fn != "<module>") for f, fn in frames):
        return False
    if "<frozen site>" in files:  # site's start-up: whatever its .pth files import (setuptools' hack, pip's finder)
        return True
    stdlib = sysconfig.get_paths()["stdlib"]
    for f in files:
        if f.startswith("<frozen ") or f == "<string>" or (f.startswith(stdlib + os.sep) and "site-packages" not in f):
            continue
        if os.path.abspath(f) in before_deferral:  # checked above: module-level import lines only
            continue
        if re.search(r"__editable___[A-Za-z0-9_]+_finder\.py$", f):
            continue
        return False
    return True


def test_python_startup_report_recognizes_the_editable_finder():
    finder = "/venv/lib/python3.11/site-packages/__editable___hilo_mlir_0_1_0_finder.py"
    tb = f'''Traceback (most recent call last):
  File "<frozen site>", line 186, in addpackage
  File "<string>", line 1, in <module>
  File "{finder}", line 12, in install
KeyboardInterrupt
'''
    assert python_startup_report(tb)
    assert not python_startup_report(tb.replace(finder, str(ROOT / "hilo_mlir" / "tools" / "__init__.py")))
    assert not python_startup_report("Traceback (most recent call last):\nValueError\n")
    hack = tb.replace(finder, "/venv/lib/python3.11/site-packages/_distutils_hack/__init__.py")
    assert python_startup_report(hack)  # another .pth import during site's start-up
    assert not python_startup_report(hack.replace('File "<frozen site>", line 186, in addpackage', 'File "<frozen runpy>", line 1, in x'))


def test_parent_death_ends_the_workers(tmp_path):
    p, out, report = _start(tmp_path, n=40, jobs=2)
    _wait_for_progress(p, out, lines=1)
    workers: list[int] = []
    t0 = time.monotonic()
    while not workers and time.monotonic() - t0 < 10:  # a worker lives ~50 ms: look until one is caught alive
        workers = _procs_with(str(out), exclude=(p.pid,))
    assert workers, "no worker seen"
    p.kill()
    p.wait()
    t0 = time.monotonic()
    while _procs_with(str(out)) and time.monotonic() - t0 < 10:
        time.sleep(0.1)
    assert _procs_with(str(out)) == []


def test_python_startup_report_accepts_the_import_chain_before_the_deferral():
    """A Ctrl-C while ``hilo_mlir.tools`` imports the module that installs the deferral (seen on a loaded
    machine: inside the standard library's ``signal``) is before any handler of ours: Python's report."""
    import sysconfig

    tools, signals = ROOT / "hilo_mlir" / "tools" / "__init__.py", ROOT / "hilo_mlir" / "support" / "signals.py"
    stdlib_signal = os.path.join(sysconfig.get_paths()["stdlib"], "signal.py")
    tb = f'''Traceback (most recent call last):
  File "<frozen runpy>", line 189, in _run_module_as_main
  File "<frozen runpy>", line 112, in _get_module_details
  File "{tools}", line 23, in <module>
    from hilo_mlir.support import signals as _signals
  File "{signals}", line 24, in <module>
    import signal
  File "{stdlib_signal}", line 14, in <module>
KeyboardInterrupt
'''
    assert python_startup_report(tb)
    assert not python_startup_report(tb.replace(str(signals), str(ROOT / "hilo_mlir" / "tools" / "hilo2penguin.py")))
    assert not python_startup_report(tb.replace(f'{signals}", line 24, in <module>', f'{signals}", line 60, in defer'))
