#!/usr/bin/env python3
"""The reliability suite: mutants of real inputs, concurrent writers, kills, Ctrl-C, deep nesting.

Usage::

    python3 scripts/reliability.py [--text N] [--binary N] [--writers N] [--kills N] [--sigints N]
                                   [--depths 100,250,1000] [--hostile N] [--attr-depths D,...] [--collisions N]
                                   [--jobs J] [--timeout S] [--seed K]
                                   [--quick] [--json FILE]

Each case runs the real tools (``python -m hilo_mlir.tools.hilo2penguin`` /
``hilo_mlir.tools.opt``) as a user would and sorts every attempt into one
column of the table:

* **clean** -- exit 0 with one whole program in OUTDIR (``penguin.py``
  parses, every file it references is there with the bytes its name says,
  nothing of another program), or exit 1 with one diagnostic line and
  nothing written;
* **traceback** -- a Python exception escaped (``Traceback``, ``internal error``);
* **signal** -- the tool (or a batch worker, i.e. the tool in single-file
  mode) died of a signal;
* **hang** -- no answer within the bound (``--timeout`` for a module, or the
  harness's own limit);
* **inconsistent** -- any other broken promise: an output folder that mixes
  programs or holds a half-written one, an error that is not one line, a
  report or summary missing after Ctrl-C, a worker left running.

Rows: ``text`` / ``bytecode`` / ``proto`` mutants (:mod:`mutate`; seeds: the
examples, the lit inputs, the JAX corpus, the first StableHLO test-data
modules) compiled in batch mode, where a worker's signal is what single-file
mode would die of; a sample of the same mutants through single-file
``hilo2penguin`` and through ``hilo-opt``; two writers into one OUTDIR (half
of the rounds with one writer slowed right before it publishes), while a
reader checks the folder; SIGKILL at random moments of a 10 MB compile (then
a clean run must sweep the staging); SIGINT at random moments of a batch;
SIGKILL of a batch's parent (no worker may survive it); ``while`` nested
100 / 250 / 1000 deep; modules with hostile strings (quotes, newlines,
``__import__``, format braces, look-alikes) in every slot the printer reads,
on both spines and through ``hilo-opt``'s printer: the program must pass the
allow-list and run on the reference backend without touching a file; dictionary,
array and tuple attributes nested 150 to 20,000 deep, a location used as an
attribute, a rank-65 constant (a program that runs, or one located error);
inputs whose output folders collide (each must get its own folder holding its
own program). ``--quick`` is the sample the default test suite runs.

Exit status 0 only when every attempt is clean.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from mutate import binary_mutant, text_mutant

CORPUS = os.path.join(os.path.dirname(ROOT), "shared", "corpus")
INPUTS = os.path.join(ROOT, "test", "lit", "reliability", "Inputs")
WRITER = os.path.join(INPUTS, "patched_writer.py")
COLUMNS = ("tried", "clean", "traceback", "signal", "hang", "inconsistent")
ENV = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
TOOL = [sys.executable, "-m", "hilo_mlir.tools.hilo2penguin"]
OPT = [sys.executable, "-m", "hilo_mlir.tools.opt"]


class Row:
    """One line of the table, plus a few examples of each failure."""

    def __init__(self, name: str):
        self.name = name
        self.counts = {c: 0 for c in COLUMNS}
        self.examples: dict[str, list] = {}

    seconds = 0.0

    def add(self, verdict: str, what: str = "") -> None:
        self.counts["tried"] += 1
        self.counts[verdict] += 1
        if verdict != "clean" and len(self.examples.setdefault(verdict, [])) < 5:
            self.examples[verdict].append(what[:300])


# --------------------------------------------------------------------------- checks


def program_problem(outdir: str) -> str | None:
    """None if ``outdir`` holds exactly one whole program; else what is wrong."""
    from hilo_mlir.support.packaging import is_tool_file

    try:
        names = set(os.listdir(outdir))
    except OSError as e:
        return f"cannot list {outdir}: {e}"
    if "penguin.py" not in names:
        return "no penguin.py"
    with open(os.path.join(outdir, "penguin.py"), encoding="utf-8") as f:
        text = f.read()
    try:
        ast.parse(text)
    except (SyntaxError, RecursionError, MemoryError, ValueError) as e:
        return f"penguin.py is not a Python program: {type(e).__name__}: {str(e)[:100]}"
    refs = set(re.findall(r"NpyFile\('([^']+)'\)", text))
    for r in sorted(refs):
        if r not in names or not is_tool_file(outdir, r):
            return f"penguin.py references {r}, which is missing or holds other bytes"
    stale = {n for n in names if is_tool_file(outdir, n)} - refs
    if stale:
        return f"files of another program remain: {sorted(stale)[:3]}"
    if any(n.startswith(".hilo-staging-") for n in names):
        return "a staging folder remains"
    return None


def _error_lines_ok(stderr: str, tool: str) -> str | None:
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    if not lines:
        return "exit 1 without a diagnostic"
    # Diagnostics as mlir-opt prints them: each line ``file:line:col: <severity>: ...``, optionally followed
    # by the source line and a caret under the column. hilo2penguin: errors (one, or one per blocking op)
    # and their notes; hilo-opt, as mlir-opt, every diagnostic (warnings and remarks too).
    severities = "error|note|warning|remark" if tool == "opt" else "error|note"
    diag = re.compile(rf"(^|: )({severities}): ")
    caret = re.compile(r"^\s*\^~*\s*$")
    i, errors = 0, 0
    while i < len(lines):
        if diag.search(lines[i]):
            errors += " error: " in lines[i] or lines[i].startswith(f"{tool}: error")
            i += 1
        elif i + 1 < len(lines) and caret.match(lines[i + 1]):
            i += 2  # a source line and its caret
        else:
            return f"not a diagnostic line: {lines[i]}"
    return None if errors else f"no error line: {lines[:3]}"


def verdict_of_process(rc, stderr: str, outdir: str | None, tool: str = "hilo2penguin") -> tuple[str, str]:
    """Sort one tool run into a column (``rc`` None: it did not finish)."""
    if rc is None:
        return "hang", "no answer"
    if "Traceback" in stderr or "internal error" in stderr:
        return "traceback", stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if rc < 0:
        return "signal", f"{signal.Signals(-rc).name}: {stderr.strip()[-200:]}"
    if rc == 0:
        p = program_problem(outdir) if outdir else None
        return ("inconsistent", p) if p else ("clean", "")
    if rc == 1:
        p = _error_lines_ok(stderr, tool)
        if p:
            return "inconsistent", p
        if outdir and os.path.exists(outdir) and os.listdir(outdir):
            return "inconsistent", f"exit 1 but {outdir} was written"
        if "crashed" in stderr and "reader" not in stderr and "importer" not in stderr:
            return "signal", stderr.strip()  # single-file mode: a worker that died of a signal
        return "clean", ""
    return "inconsistent", f"exit status {rc}"


def run(cmd, timeout: float, **kw):
    """``(returncode or None, stdout, stderr)``; the whole process group is killed on timeout."""
    p = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace", env=ENV, start_new_session=True, **kw
    )
    try:
        out, err = p.communicate(timeout=timeout)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err


# --------------------------------------------------------------------------- seeds


def _small_files(folder, exts, limit_bytes, count=None):
    if not os.path.isdir(folder):
        return []
    out = []
    for dirpath, _, files in os.walk(folder):
        for fn in sorted(files):
            p = os.path.join(dirpath, fn)
            if fn.endswith(exts) and os.path.getsize(p) <= limit_bytes:
                out.append(p)
    out.sort()
    return out[:count] if count else out


def text_seeds() -> list[str]:
    paths = _small_files(os.path.join(ROOT, "examples"), (".mlir",), 300_000)
    paths += [p for p in _small_files(INPUTS, (".mlir",), 50_000) if "empty" not in p]
    paths += _small_files(os.path.join(CORPUS, "jax"), (".mlir",), 300_000)
    paths += _small_files(os.path.join(CORPUS, "third_party", "stablehlo_testdata"), (".mlir",), 20_000, 40)
    seeds = []
    for p in paths:
        with open(p, "rb") as f:
            data = f.read()
        try:
            seeds.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return seeds


def bytecode_seeds(texts: list[str]) -> list[bytes]:
    """MLIR bytecode of the text seeds that parse (what the bytecode writer produces)."""
    import io

    from hilo_mlir.ir.binding import ir, make_context

    out = []
    from hilo_mlir.ir.limits import check_dim_numbers

    with make_context():
        for t in texts:
            try:
                check_dim_numbers(t, "seed")  # a hostile seed would make the parser allocate by it
                m = ir.Module.parse(t)
            except Exception:  # noqa: BLE001 - seeds that do not parse are skipped
                continue
            b = io.BytesIO()
            m.operation.write_bytecode(b)
            out.append(b.getvalue())
    return out


def proto_seeds() -> list[bytes]:
    paths = _small_files(os.path.join(ROOT, "examples"), (".pb",), 5_000_000)
    paths += _small_files(os.path.join(CORPUS, "jax"), (".pb",), 5_000_000)
    out = []
    for p in paths:
        with open(p, "rb") as f:
            out.append(f.read())
    return out


# --------------------------------------------------------------------------- mutants


def mutants_in_batch(row: Row, blobs: list[bytes], ext: str, work: str, jobs: int, timeout: float) -> list[str]:
    """Compile every blob as one batch; one verdict per module. Returns the input paths."""
    src = os.path.join(work, "in")
    out = os.path.join(work, "out")
    os.makedirs(src)
    paths = []
    for i, b in enumerate(blobs):
        p = os.path.join(src, f"m{i:05d}{ext}")
        with open(p, "wb") as f:
            f.write(b)
        paths.append(p)
    report = os.path.join(work, "report.json")
    rc, _, stderr = run(
        TOOL + ["--batch", src, "-o", out, "--jobs", str(jobs), "--timeout", str(timeout), "--report", report],
        timeout=timeout * len(blobs) / jobs + 600,
    )
    if rc is None or not os.path.exists(report):
        for _ in blobs:
            row.add("hang" if rc is None else "inconsistent", f"batch exit {rc}: {stderr[-300:]}")
        return paths
    with open(report) as f:
        doc = json.load(f)
    for m in doc["modules"]:
        stem = m.get("output") or os.path.splitext(os.path.basename(m["path"]))[0]
        where = os.path.join(out, stem)
        st, diag = m["status"], m["diagnostic"] or ""
        if st == "ok":
            p = program_problem(where)
            row.add("inconsistent" if p else "clean", f"{m['path']}: {p}")
        elif st == "rejected":
            bad = "\n" in diag or not diag or (os.path.exists(where) and os.listdir(where))
            row.add("inconsistent" if bad else "clean", f"{m['path']}: {diag}")
        elif st == "timeout":
            row.add("hang", f"{m['path']}: in {m['last_pass']}")
        elif st == "crashed":
            row.add("signal" if m["signal"] else "traceback", f"{m['path']}: {m['signal']} in {m['last_pass']}: {diag}")
        else:
            row.add("inconsistent", f"{m['path']}: {st}: {diag}")
    return paths


def mutants_one_by_one(row: Row, paths: list[str], work: str, tool: str, timeout: float) -> None:
    for i, p in enumerate(paths):
        out = os.path.join(work, f"o{i}")
        if tool == "opt":
            rc, _, err = run(OPT + [p, "--timeout", str(timeout)], timeout=timeout + 120)
            v, what = verdict_of_process(rc, err, None, "opt")
        else:
            rc, _, err = run(TOOL + [p, "-o", out, "--timeout", str(timeout)], timeout=timeout + 120)
            v, what = verdict_of_process(rc, err, out)
        row.add(v, f"{p}: {what}")


# --------------------------------------------------------------------------- writers, kills, signals


def model(tag: int, n_constants: int, size: int) -> str:
    """A module whose program has ``n_constants`` distinct ``.npy`` files of ``size`` floats."""
    rng = random.Random(tag)
    lines = [f"func.func @main(%a: tensor<{size}xf32>) -> tensor<{size}xf32> {{"]
    prev = "%a"
    for i in range(n_constants):
        hexdata = rng.randbytes(4 * size).hex().upper()
        lines.append(f'  %k{i} = stablehlo.constant dense<"0x{hexdata}"> : tensor<{size}xf32>')
        lines.append(f"  %s{i} = stablehlo.add {prev}, %k{i} : tensor<{size}xf32>")
        prev = f"%s{i}"
    lines += [f"  return {prev} : tensor<{size}xf32>", "}", ""]
    return "\n".join(lines)


def _reader(outdir: str, stop: threading.Event, problems: list) -> None:
    """Check the folder over and over while writers run: a penguin.py whose files are not all there is a failure."""
    from hilo_mlir.support.packaging import is_tool_file

    while not stop.is_set():
        try:
            with open(os.path.join(outdir, "penguin.py"), encoding="utf-8") as f:
                text = f.read()
        except OSError:
            time.sleep(0.005)
            continue
        refs = re.findall(r"NpyFile\('([^']+)'\)", text)
        missing = [r for r in refs if not is_tool_file(outdir, r)]
        try:
            with open(os.path.join(outdir, "penguin.py"), encoding="utf-8") as f:
                same = f.read() == text
        except OSError:
            same = False
        if missing and same:  # penguin.py did not change meanwhile: the folder was inconsistent
            problems.append(f"penguin.py references {missing[0]}, which is not there")
        time.sleep(0.002)


def concurrent_writers(row: Row, rounds: int, work: str, size: int = 4096) -> None:
    """Two writers (different models, 12 constants each) into one OUTDIR, round after round, a reader watching."""
    a, b = os.path.join(work, "a.mlir"), os.path.join(work, "b.mlir")
    with open(a, "w") as f:
        f.write(model(1, 12, size))
    with open(b, "w") as f:
        f.write(model(2, 12, size))
    out = os.path.join(work, "out")
    for r in range(rounds):
        slow = r % 2 == 1
        stop, problems = threading.Event(), []
        t = threading.Thread(target=_reader, args=(out, stop, problems), daemon=True)
        t.start()
        procs = [
            subprocess.Popen(
                [sys.executable, WRITER, "sleep", "0.5" if slow else "0", a, "-o", out],
                env=ENV,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            ),
            subprocess.Popen(TOOL + [b, "-o", out], env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True),
        ]
        errs = [p.communicate(timeout=300)[1] for p in procs]
        stop.set()
        t.join()
        p = program_problem(out)
        if any(pr.returncode != 0 for pr in procs):
            row.add("inconsistent", f"round {r}: a writer failed: {errs}")
        elif p or problems:
            row.add("inconsistent", f"round {r}: {p or problems[0]}")
        else:
            row.add("clean")


def kills(row: Row, rounds: int, work: str, rng: random.Random, size: int = 262144) -> None:
    """SIGKILL the tool at a random moment of a compile writing 10 constants of ``size`` floats (10 MB by default).

    The folder must hold one whole program after every kill; the next run must sweep the staging.
    """
    big, small = os.path.join(work, "big.mlir"), os.path.join(work, "small.mlir")
    with open(big, "w") as f:
        f.write(model(3, 10, size))
    with open(small, "w") as f:
        f.write(model(4, 3, 4096))
    out = os.path.join(work, "out")
    rc, _, err = run(TOOL + [small, "-o", out], timeout=300)
    t0 = time.monotonic()
    rc, _, err = run(TOOL + [big, "-o", os.path.join(work, "timing")], timeout=600)
    whole = time.monotonic() - t0
    for r in range(rounds):
        p = subprocess.Popen(
            TOOL + [big if r % 2 == 0 else small, "-o", out],
            env=ENV,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(rng.uniform(0, whole * 1.1))
        os.kill(p.pid, signal.SIGKILL)  # the tool only: its worker must die with it
        p.wait()
        time.sleep(0.2)
        problem = program_problem(out)
        # after a kill (no successful write) a dead writer may leave its staging folder and the extra files
        # it renamed in before its penguin.py: nothing references them; the next successful write removes
        # them (checked after the loop)
        if problem and problem != "a staging folder remains" and not problem.startswith("files of another program remain"):
            row.add("inconsistent", f"round {r}: {problem}")
            continue
        row.add("clean")
    rc, _, err = run(TOOL + [small, "-o", out], timeout=300)  # the next run sweeps the dead writers' staging
    problem = program_problem(out) if rc == 0 else f"exit {rc}: {err}"
    row.add("inconsistent" if problem else "clean", f"after the kills: {problem}")


def _procs_with(marker: str) -> list[int]:
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
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


def sigints(row: Row, rounds: int, work: str, rng: random.Random, parent_kills: int, max_delay: float = 4.0) -> None:
    src = os.path.join(work, "in")
    os.makedirs(src)
    for i in range(10):
        with open(os.path.join(src, f"m{i}.mlir"), "w") as f:
            f.write(model(10 + i, 2, 2048))
    for r in range(rounds + parent_kills):
        out, report = os.path.join(work, f"out{r}"), os.path.join(work, f"r{r}.json")
        p = subprocess.Popen(
            TOOL + ["--batch", src, "-o", out, "--jobs", "2", "--report", report],
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        time.sleep(rng.uniform(0.3, max_delay))
        if r >= rounds:  # the parent dies: no worker may keep running
            os.kill(p.pid, signal.SIGKILL)
            p.communicate()
            deadline = time.monotonic() + 10
            while _procs_with(out) and time.monotonic() < deadline:
                time.sleep(0.1)
            left = _procs_with(out)
            row.add("inconsistent" if left else "clean", f"parent kill {r}: workers left {left}")
            continue
        p.send_signal(signal.SIGINT)
        try:
            stdout, stderr = p.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            row.add("hang", f"round {r}: no exit after SIGINT")
            continue
        if "Traceback" in stderr or "Exception ignored" in stderr:
            row.add("traceback", f"round {r}: {stderr[-300:]}")
        elif p.returncode < 0:
            row.add("signal", f"round {r}: {p.returncode}")
        elif _procs_with(out):
            row.add("inconsistent", f"round {r}: workers left")
        elif p.returncode == 0:
            row.add("clean")  # the batch finished before the signal
        elif p.returncode != 130 or "status        modules" not in stdout:
            row.add("inconsistent", f"round {r}: exit {p.returncode}, summary printed: {'status' in stdout}")
        else:
            try:
                with open(report) as f:
                    doc = json.load(f)
                ok = doc["interrupted"] is True and all(
                    program_problem(os.path.join(out, os.path.splitext(os.path.basename(m["path"]))[0])) is None
                    for m in doc["modules"]
                    if m["status"] == "ok"
                )
            except (OSError, ValueError, KeyError):
                ok = False
            row.add("clean" if ok else "inconsistent", f"round {r}: report {report}")


def nested_while(depth: int) -> str:
    """``main`` with ``while`` loops nested ``depth`` deep (each loop runs zero times)."""
    t = "tensor<f32>"
    body = ["func.func @main(%x0: tensor<f32>) -> tensor<f32> {"]
    close = []
    for d in range(depth):
        ind = "  " * (d + 1)
        body.append(f"{ind}%r{d} = stablehlo.while(%x{d + 1} = %x{d}) : {t}")
        body.append(f"{ind} cond {{")
        body.append(f"{ind}  %c{d} = stablehlo.compare LT, %x{d + 1}, %x{d + 1} : ({t}, {t}) -> tensor<i1>")
        body.append(f"{ind}  stablehlo.return %c{d} : tensor<i1>")
        body.append(f"{ind} }} do {{")
        close.append((ind, d))
    inner = depth
    body.append("  " * (depth + 1) + f"%y{depth} = stablehlo.negate %x{inner} : {t}")
    for ind, d in reversed(close):
        body.append(f"{ind}  stablehlo.return %y{d + 1} : {t}")
        body.append(f"{ind} }}")
        body.append(f"{ind}%y{d} = stablehlo.add %r{d}, %x{d} : {t}")
    body.append(f"  return %y0 : {t}")
    body.append("}")
    return "\n".join(body) + "\n"


def deep_nesting(row: Row, depths, work: str, timeout: float) -> None:
    for d in depths:
        p = os.path.join(work, f"while{d}.mlir")
        with open(p, "w") as f:
            f.write(nested_while(d))
        out = os.path.join(work, f"o{d}")
        rc, _, err = run(TOOL + [p, "-o", out, "--timeout", str(timeout)], timeout=timeout + 120)
        v, what = verdict_of_process(rc, err, out)
        if v == "clean" and rc == 0:
            with open(os.path.join(out, "penguin.py"), encoding="utf-8") as f:
                src = f.read()
            try:
                compile(src, "penguin.py", "exec")
            except (SyntaxError, RecursionError, MemoryError) as e:
                v, what = "inconsistent", f"Python refuses the program: {type(e).__name__}: {e}"
        elif v == "clean":
            v, what = "inconsistent", f"refused: {err.strip()}"  # a nesting depth is no reason to refuse
        row.add(v, f"depth {d}: {what}")


# --------------------------------------------------------------------------- hostile strings, deep attributes, collisions

#: what an attacker puts into strings: quotes, escapes, line breaks, code, format braces, look-alikes
HOSTILE = [
    "'",
    '"',
    "\\",
    "\n",
    "\r",
    "\u2028",
    "\x85",
    "'" * 3,
    "{x}",
    "%s",
    "\uff44\uff4c",
    "dl",
    "__debug__",
    "a\u00b2",
    "\u0430",
    "#",
    "\x00",
]


def _mlir_string(s: str) -> str:
    out = []
    for b in s.encode("utf-8"):
        c = chr(b)
        out.append(c if 32 <= b < 127 and c not in '"\\' else f"\\{b:02X}")
    return '"' + "".join(out) + '"'


def hostile_module(rng: random.Random, marker: str) -> str:
    """A module with a hostile string (one that would touch ``marker`` if it ran as code) in every slot the printer reads."""

    def s():
        code = rng.choice([f"__import__('os').system('touch {marker}')", f"open('{marker}', 'w')", "import os"])
        parts = [rng.choice(HOSTILE) for _ in range(rng.randint(1, 3))] + [code]
        rng.shuffle(parts)
        return _mlir_string("".join(parts))

    return f"""#loc1 = loc({s()}:3:4)
#loc2 = loc({s()}(#loc1))
module @{s()} attributes {{neuron.input_names = [{s()}]}} {{
  func.func @main(%arg0: tensor<2xf32> loc({s()})) -> (tensor<2xf32> {{jax.result_info = {s()}}}, tensor<2xf32>)
      attributes {{output_names = [{s()}, {s()}]}} {{
    %0 = stablehlo.add %arg0, %arg0 {{{s()} = {s()}, attr = {{{s()} = [{s()}, {{{s()} = {s()}}}]}},
        ty = tuple<memref<2xf32, {s()}>>}} : tensor<2xf32> loc(#loc2)
    %1 = stablehlo.custom_call @AwsNeuronDevicePrint(%0) {{backend_config = {s()}}} : (tensor<2xf32>) -> tensor<2xf32>
    return %0, %1 : tensor<2xf32>, tensor<2xf32>
  }}
}}
"""


def _program_is_data(row: Row, where: str, marker: str, what: str) -> None:
    """``where/penguin.py`` passes the allow-list, runs on the reference backend, and touched nothing."""
    import numpy as np

    from hilo_mlir import penguin_ref
    from hilo_mlir.support.pysource import ProgramCheckError, check_program

    p = program_problem(where)
    if p:
        row.add("inconsistent", f"{what}: {p}")
        return
    with open(os.path.join(where, "penguin.py"), encoding="utf-8") as f:
        src = f.read()
    try:
        check_program(src, roots=("neuronxcc.starfish.penguin", "neuronxcc.starfish.support"))
        penguin_ref.run(src, [np.ones(2, np.float32)])
    except ProgramCheckError as e:
        row.add("inconsistent", f"{what}: the program fails the allow-list: {e.message}")
        return
    except Exception as e:  # noqa: BLE001 - counted
        row.add("traceback", f"{what}: the reference backend: {type(e).__name__}: {e}")
        return
    row.add("inconsistent" if os.path.exists(marker) else "clean", f"{what}: the program ran input text")


def hostile_strings(row: Row, n: int, work: str, rng: random.Random, jobs: int, timeout: float) -> None:
    """``n`` modules with hostile strings in every slot: a batch on each spine, then ``hilo-opt``'s printer on a tenth."""
    marker = os.path.join(work, "PWNED")
    src = os.path.join(work, "in")
    os.makedirs(src)
    paths = []
    for i in range(n):
        p = os.path.join(src, f"h{i:04d}.mlir")
        with open(p, "w", encoding="utf-8") as f:
            f.write(hostile_module(rng, marker))
        paths.append(p)
    for spine in ("mhlo", "stablehlo"):
        out, report = os.path.join(work, f"out-{spine}"), os.path.join(work, f"report-{spine}.json")
        rc, _, err = run(
            TOOL + ["--batch", src, "-o", out, "--spine", spine, "--jobs", str(jobs), "--timeout", str(timeout), "--report", report],
            timeout=timeout * n / jobs + 600,
        )
        if rc is None or not os.path.exists(report):
            for _ in paths:
                row.add("hang" if rc is None else "inconsistent", f"batch exit {rc}: {err[-300:]}")
            continue
        with open(report) as f:
            doc = json.load(f)
        for m in doc["modules"]:
            if m["status"] != "ok":
                row.add("signal" if m["signal"] else "inconsistent", f"{m['path']} ({spine}): {m['status']}: {m['diagnostic']}")
                continue
            _program_is_data(row, os.path.join(out, m["output"]), marker, f"{m['path']} ({spine})")
    for i, p in enumerate(paths[: max(1, n // 10)]):
        out = os.path.join(work, f"opt{i}")
        os.makedirs(out)
        pipeline = f"--pass-pipeline=builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin{{output={out}/penguin.py}})"
        rc, _, err = run(OPT + [p, pipeline, "-o", os.devnull], timeout=timeout + 120)
        v, what = verdict_of_process(rc, err, None, "opt")
        if v != "clean" or rc != 0:
            row.add(v if v != "clean" else "inconsistent", f"{p} (hilo-opt): {what or err.strip()[-300:]}")
            continue
        _program_is_data(row, out, marker, f"{p} (hilo-opt)")


def _deep_attr(kind: str, n: int) -> str:
    if kind == "dict":
        return "{a = " * n + "1 : i32" + "}" * n
    if kind == "array":
        return "[" * n + '"x"' + "]" * n
    return "tuple<" * n + "f32" + ">" * n


def deep_attributes(row: Row, depths, work: str, timeout: float) -> None:
    """Dictionary, array and tuple-type attributes nested ``depths`` deep, a location used as an attribute and a
    rank-65 constant, through single-file ``hilo2penguin`` and ``hilo-opt``'s printer: a program that runs, or one
    located error (deeper than the parser's stack: refused before parsing), never a signal."""
    shape = "x".join(["1"] * 65)
    cases = [(f"{k} {d}", _deep_attr(k, d)) for d in depths for k in ("dict", "array", "tuple")]
    cases.append(("location attribute", "#loc1"))
    for name, attr in cases:
        head = '#loc1 = loc("x")\n' if name == "location attribute" else ""
        text = (
            head
            + "func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {\n"
            + f"  %0 = stablehlo.add %arg0, %arg0 {{foo = {attr}}} : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}}\n"
        )
        _deep_case(row, name, text, work, timeout)
    text = (
        f"func.func @main(%arg0: tensor<2xf32>) -> tensor<2xf32> {{\n  %c = stablehlo.constant dense<{'[' * 64}[1.0, 2.0]{']' * 64}>"
        f" : tensor<{shape[:-1]}2xf32>\n  return %arg0 : tensor<2xf32>\n}}\n"
    )
    _deep_case(row, "rank-65 constant", text, work, timeout)


def _deep_case(row: Row, name: str, text: str, work: str, timeout: float) -> None:
    slug = name.replace(" ", "_")
    p = os.path.join(work, slug + ".mlir")
    with open(p, "w") as f:
        f.write(text)
    out = os.path.join(work, "o-" + slug)
    rc, _, err = run(TOOL + [p, "-o", out, "--timeout", str(timeout)], timeout=timeout + 120)
    v, what = verdict_of_process(rc, err, out)
    if v == "clean" and rc == 0:
        _program_is_data(row, out, os.path.join(work, "PWNED"), f"{name} (hilo2penguin)")
    else:
        row.add(v, f"{name} (hilo2penguin): {what}")
    pipeline = "--pass-pipeline=builtin.module(stablehlo-legalize-to-hlo,mhlo-to-py-penguin)"
    rc, _, err = run(OPT + [p, pipeline, "-o", os.devnull], timeout=timeout + 120)
    v, what = verdict_of_process(rc, err, None, "opt")
    row.add(v, f"{name} (hilo-opt): {what}")


def _tagged(tag: int) -> str:
    """A module whose program prints ``value=<tag>.0``: which input a program came from."""
    return (
        "func.func @main(%a: tensor<f32>) -> tensor<f32> {\n"
        f"  %c = stablehlo.constant dense<{tag}.0> : tensor<f32>\n"
        "  %0 = stablehlo.add %a, %c : tensor<f32>\n  return %0 : tensor<f32>\n}\n"
    )


def collisions(row: Row, rounds: int, work: str, timeout: float) -> None:
    """Inputs whose stems collide (a/x.mlir + b/x.mlir given as files; x.mlir, x.pb, x_mlir.mlir): every module gets
    its own folder, holding its own program."""
    pb = os.path.join(ROOT, "examples", "decoder_layer.hlo.pb")
    for r in range(rounds):
        d = os.path.join(work, f"r{r}")
        names = ["a/x.mlir", "b/x.mlir", "x.mlir", "x_mlir.mlir", f"c/x_mlir_{r + 2}.mlir"]
        files = []
        for i, rel in enumerate(names):
            p = os.path.join(d, "in", rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "w") as f:
                f.write(_tagged(100 * r + i))
            files.append(p)
        shutil.copy(pb, os.path.join(d, "in", "x.pb"))
        files.append(os.path.join(d, "in", "x.pb"))
        out, report = os.path.join(d, "out"), os.path.join(d, "report.json")
        rc, _, err = run(TOOL + ["--batch", *files, "-o", out, "--timeout", str(timeout), "--report", report], timeout=timeout * 6 + 600)
        if rc != 0 or not os.path.exists(report):
            row.add("hang" if rc is None else "inconsistent", f"round {r}: batch exit {rc}: {err[-300:]}")
            continue
        with open(report) as f:
            mods = json.load(f)["modules"]
        folders = [m.get("output") for m in mods]
        if len(set(folders)) != len(files) or None in folders:
            row.add("inconsistent", f"round {r}: output folders {folders}")
            continue
        for m in mods:
            where = os.path.join(out, m["output"])
            p = program_problem(where)
            if not p and not m["path"].endswith(".pb"):
                with open(os.path.join(where, "penguin.py"), encoding="utf-8") as f:
                    text = f.read()
                tag = 100 * r + names.index(os.path.relpath(m["path"], os.path.join(d, "in")))
                if f"value={float(tag)!r}" not in text:
                    p = f"{where} does not hold the program of {m['path']}"
            row.add("inconsistent" if p else "clean", f"round {r}: {m['path']}: {p}")


# --------------------------------------------------------------------------- driver


def table(rows: list[Row]) -> str:
    w = max(len(r.name) for r in rows)
    head = f"| {'case':<{w}} | " + " | ".join(f"{c:>12}" for c in COLUMNS) + " |"
    lines = [head, "|" + "-" * (w + 2) + "|" + "|".join("-" * 14 for _ in COLUMNS) + "|"]
    for r in rows:
        lines.append(f"| {r.name:<{w}} | " + " | ".join(f"{r.counts[c]:>12,}" for c in COLUMNS) + " |")
    tot = {c: sum(r.counts[c] for r in rows) for c in COLUMNS}
    lines.append(f"| {'total':<{w}} | " + " | ".join(f"{tot[c]:>12,}" for c in COLUMNS) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:  # noqa: C901 - one branch per row
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("--text", type=int, default=3000, help="text mutants (default 3000)")
    ap.add_argument("--binary", type=int, default=1200, help="bytecode + .pb mutants (default 1200, one third .pb)")
    ap.add_argument("--single", type=int, default=60, help="mutants also run through single-file hilo2penguin and hilo-opt")
    ap.add_argument("--writers", type=int, default=20, help="rounds of two concurrent writers")
    ap.add_argument("--kills", type=int, default=20, help="SIGKILLs during a compile")
    ap.add_argument("--sigints", type=int, default=20, help="SIGINTs during a batch")
    ap.add_argument("--parent-kills", type=int, default=5, help="SIGKILLs of a batch's parent")
    ap.add_argument("--depths", default="100,250,1000", help="nesting depths of while (empty: none)")
    ap.add_argument("--hostile", type=int, default=100, help="modules with hostile strings in every printed slot (each spine)")
    ap.add_argument("--attr-depths", default="150,300,1500,2500,20000", help="nesting depths of attributes (empty: none)")
    ap.add_argument("--collisions", type=int, default=3, help="batches of inputs whose output folders collide")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per module")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="the default test suite's sample")
    ap.add_argument("--json", help="write the counts and examples here")
    args = ap.parse_args(argv)
    if args.quick:
        args.text, args.binary, args.single, args.writers, args.kills, args.sigints, args.parent_kills = 40, 24, 4, 2, 2, 2, 1
        args.depths, args.hostile, args.attr_depths, args.collisions = "", 4, "", 1
    rng = random.Random(args.seed)
    texts = text_seeds()
    bcs = bytecode_seeds(texts) if args.binary else []
    pbs = proto_seeds()
    rows = []
    work = tempfile.mkdtemp(prefix="hilo-reliability-")
    clock = [time.monotonic()]

    class _Rows(list):
        def append(self, r):
            now = time.monotonic()
            r.seconds, clock[0] = now - clock[0], now
            sys.stderr.write(f"{r.name}: {r.counts['clean']}/{r.counts['tried']} clean ({r.seconds:.0f} s)\n")
            super().append(r)

    rows = _Rows()
    try:

        def sub(name):
            d = os.path.join(work, name)
            os.makedirs(d)
            return d

        text_paths, bc_paths, pb_paths = [], [], []
        if args.text:
            r = Row("text mutants (batch)")
            text_paths = mutants_in_batch(
                r,
                [text_mutant(rng.choice(texts), rng).encode("utf-8", "surrogateescape") for _ in range(args.text)],
                ".mlir",
                sub("text"),
                args.jobs,
                args.timeout,
            )
            rows.append(r)
        n_pb = args.binary // 3
        if args.binary:
            r = Row("bytecode mutants (batch)")
            bc_paths = mutants_in_batch(
                r,
                [binary_mutant(rng.choice(bcs), rng) for _ in range(args.binary - n_pb)],
                ".mlir",
                sub("bytecode"),
                args.jobs,
                args.timeout,
            )
            rows.append(r)
            r = Row(".pb mutants (batch)")
            pb_paths = mutants_in_batch(
                r, [binary_mutant(rng.choice(pbs), rng) for _ in range(n_pb)], ".pb", sub("proto"), args.jobs, args.timeout
            )
            rows.append(r)
        sample = (
            rng.sample(text_paths, min(args.single, len(text_paths)))
            + rng.sample(bc_paths, min(args.single, len(bc_paths)))
            + rng.sample(pb_paths, min(args.single // 2, len(pb_paths)))
        )
        if sample:
            r = Row("mutants, single-file hilo2penguin")
            mutants_one_by_one(r, sample, sub("single"), "hilo2penguin", args.timeout)
            rows.append(r)
            r = Row("mutants, hilo-opt")
            mutants_one_by_one(r, [p for p in sample if not p.endswith(".pb")], sub("opt"), "opt", args.timeout)
            rows.append(r)
        if args.writers:
            r = Row("two writers, one OUTDIR")
            concurrent_writers(r, args.writers, sub("writers"), 1024 if args.quick else 4096)
            rows.append(r)
        if args.kills:
            r = Row("SIGKILL during a write")
            kills(r, args.kills, sub("kills"), rng, 16384 if args.quick else 262144)
            rows.append(r)
        if args.sigints or args.parent_kills:
            r = Row("SIGINT / parent SIGKILL, batch")
            sigints(r, args.sigints, sub("sigint"), rng, args.parent_kills, 2.0 if args.quick else 4.0)
            rows.append(r)
        if args.hostile:
            r = Row("hostile strings (both spines, hilo-opt)")
            hostile_strings(r, args.hostile, sub("hostile"), rng, args.jobs, args.timeout)
            rows.append(r)
        attr_depths = [int(d) for d in args.attr_depths.split(",") if d]
        if attr_depths:
            r = Row("deep attributes, location attribute, rank 65")
            deep_attributes(r, attr_depths, sub("deepattr"), args.timeout)
            rows.append(r)
        if args.collisions:
            r = Row("colliding output folders (batch)")
            collisions(r, args.collisions, sub("collisions"), args.timeout)
            rows.append(r)
        depths = [int(d) for d in args.depths.split(",") if d]
        if depths:
            r = Row("while nested " + "/".join(map(str, depths)) + " deep")
            deep_nesting(r, depths, sub("nesting"), args.timeout)
            rows.append(r)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.stdout.write(table(rows))
    for r in rows:
        for k, ex in r.examples.items():
            for e in ex:
                sys.stdout.write(f"  {r.name} / {k}: {e}\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"case": r.name, **r.counts, "examples": r.examples} for r in rows], f, indent=1)
    return 0 if rows and all(r.counts["clean"] == r.counts["tried"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
