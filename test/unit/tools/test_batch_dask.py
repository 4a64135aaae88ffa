"""hilo2penguin --batch --scheduler: one task per module on a Dask cluster (a LocalCluster of real worker processes).

One LocalCluster for the whole module (two single-threaded worker processes): the same batch gives the
same report and outputs as the local pool; a worker killed mid-batch loses no module."""

import io
import json
import os
import signal
import threading
import time

import pytest
from conftest import EXAMPLES

distributed = pytest.importorskip("distributed")

from hilo_mlir.driver.config import CompileConfig  # noqa: E402
from hilo_mlir.tools import batch, hilo2penguin  # noqa: E402
from hilo_mlir.tools.batch import cluster  # noqa: E402

GOOD = """func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.add %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
BAD = GOOD.replace("stablehlo.add %a, %b", "stablehlo.add %a")
_VALS = ", ".join(f"{i * 0.25:.2f}" for i in range(300))
BIG = f"""func.func @main(%a: tensor<300xf32>) -> tensor<300xf32> {{
  %c = stablehlo.constant dense<[{_VALS}]> : tensor<300xf32>
  %0 = stablehlo.multiply %a, %c : tensor<300xf32>
  return %0 : tensor<300xf32>
}}
"""


@pytest.fixture(scope="module")
def dask_cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc:
        with distributed.Client(lc) as client:
            yield lc, client


def _tree(root):
    src = root / "in"
    (src / "sub").mkdir(parents=True)
    (src / "a_good.mlir").write_text(GOOD)
    (src / "b_bad.mlir").write_text(BAD)
    (src / "sub" / "c_big.mlir").write_text(BIG)
    (src / "d_empty.mlir").write_text("")
    return src


def _outputs(d):
    return {str(p.relative_to(d)): p.read_bytes() for p in sorted(d.rglob("*")) if p.is_file()}


def _rows(report):
    doc = json.loads(report.read_text())
    return [{k: v for k, v in m.items() if k != "seconds"} for m in doc["modules"]], doc["summary"]


def test_same_report_and_outputs_as_the_local_pool(dask_cluster, tmp_path):
    lc, client = dask_cluster
    src = _tree(tmp_path)
    inputs = [str(src), str(EXAMPLES / "decoder_layer.hlo.pb")]
    cfg = CompileConfig()
    out_local, out_dask = tmp_path / "local", tmp_path / "dask"
    rl, rd = tmp_path / "local.json", tmp_path / "dask.json"
    so_l, se_l, so_d, se_d = io.StringIO(), io.StringIO(), io.StringIO(), io.StringIO()
    assert batch.run_batch(inputs, str(out_local), cfg, jobs=2, report=str(rl), stdout=so_l, stderr=se_l, tty=False) == 0
    code = batch.run_batch(inputs, str(out_dask), cfg, report=str(rd), stdout=so_d, stderr=se_d, tty=False, scheduler=lc.scheduler_address)
    assert code == 0, se_d.getvalue()
    rows_l, sum_l = _rows(rl)
    rows_d, sum_d = _rows(rd)
    assert rows_d == rows_l
    assert [r["path"] for r in rows_d] == [it.path for it in batch.discover(inputs)]
    statuses = {os.path.basename(r["path"]): r["status"] for r in rows_d}
    assert statuses == {
        "a_good.mlir": "ok",
        "b_bad.mlir": "rejected",
        "d_empty.mlir": "rejected",
        "c_big.mlir": "ok",
        "decoder_layer.hlo.pb": "ok",
    }
    assert sum_d == sum_l == {"ok": 3, "rejected": 2, "write-failed": 0, "crashed": 0, "timeout": 0}
    assert _outputs(out_dask) == _outputs(out_local)
    assert any(name.startswith("sub/c_big/const_0.") for name in _outputs(out_dask))
    assert so_d.getvalue() == so_l.getvalue()


def test_a_killed_worker_loses_no_module(dask_cluster, tmp_path):
    """A worker killed while it holds a module: the scheduler reruns that module elsewhere, nothing is lost.

    The first task to start (on either worker) records its worker's pid in a marker file and then
    holds the module until it is killed; the test kills that pid as soon as the marker exists. So the
    kill always lands on a worker that is busy with a module, however loaded the machine is."""
    lc, client = dask_cluster
    src = tmp_path / "in"
    src.mkdir()
    pb = (EXAMPLES / "decoder_layer.hlo.pb").read_bytes()
    for i in range(3):
        (src / f"m{i}.pb").write_bytes(pb)
    marker = tmp_path / "busy"  # "<pid> <module path>", written by the first task to start

    def hold_first_module(marker_path):  # runs in each Dask worker process (client.run)
        import os
        import time

        from hilo_mlir.tools.batch import pool

        original = pool.WorkerPool.run

        def run(self, jobs):
            try:
                fd = os.open(marker_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            except FileExistsError:
                return original(self, jobs)  # not the first task (or the rerun): compile as usual
            os.write(fd, f"{os.getpid()} {jobs[0][0]}".encode())
            os.close(fd)
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:  # held until the test kills this process
                time.sleep(0.05)
            return original(self, jobs)  # never killed: the test fails on `killed`

        run.original = original
        pool.WorkerPool.run = run

    def release():
        from hilo_mlir.tools.batch import pool

        pool.WorkerPool.run = getattr(pool.WorkerPool.run, "original", pool.WorkerPool.run)

    killed = []

    def killer():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                pid, path = marker.read_text().split(" ", 1)
            except (FileNotFoundError, ValueError):  # not written yet, or half-written
                time.sleep(0.01)
                continue
            os.kill(int(pid), signal.SIGKILL)
            killed.append((int(pid), path))
            return

    client.run(hold_first_module, str(marker))
    t = threading.Thread(target=killer)
    t.start()
    report = tmp_path / "r.json"
    try:
        code = batch.run_batch(
            [str(src)],
            str(tmp_path / "out"),
            CompileConfig(),
            report=str(report),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
            tty=False,
            scheduler=lc.scheduler_address,
        )
    finally:
        t.join()
        client.wait_for_workers(2, timeout=60)  # the nanny restarted the killed worker
        client.run(release)
    assert len(killed) == 1, "no task held a module"
    pid, held = killed[0]
    assert pid not in client.run(os.getpid).values()  # that worker process is gone
    rows, summary = _rows(report)
    assert [os.path.basename(r["path"]) for r in rows] == [f"m{i}.pb" for i in range(3)]  # nothing lost, order kept
    assert held in [r["path"] for r in rows] and summary["ok"] == 3 and code == 0  # the held module was rerun
    outs = _outputs(tmp_path / "out")
    assert sorted(k for k in outs if k.endswith("penguin.py")) == [f"m{i}/penguin.py" for i in range(3)]
    assert len(set(outs.values())) == 1  # the same module three times (a proto's locations do not name the file)


def test_worker_that_dies_every_time_is_reported_crashed():
    class KilledWorker(Exception):
        pass

    item = batch.BatchItem("m.mlir", "m")
    r = cluster._lost(item, KilledWorker("task x"), 1.5)
    assert (r.path, r.status, r.diagnostic) == (
        "m.mlir",
        "crashed",
        "the Dask worker running it died on every try (killed, or out of memory)",
    )


def test_cli_scheduler_errors(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("HILO_MLIR_DASK_CONNECT_TIMEOUT", "1")
    (tmp_path / "a.mlir").write_text(GOOD)
    assert hilo2penguin.run([str(tmp_path / "a.mlir"), "-o", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1"]) == 1
    assert capfd.readouterr().err == "hilo2penguin: error: --scheduler needs --batch\n"
    code = hilo2penguin.run(["--batch", str(tmp_path / "a.mlir"), "-o", str(tmp_path / "o"), "--scheduler", "tcp://127.0.0.1:1"])
    assert code == 1
    err = capfd.readouterr().err
    assert err.startswith("hilo2penguin: error: cannot reach the Dask scheduler 'tcp://127.0.0.1:1'") and err.count("\n") == 1
    assert not (tmp_path / "o").exists()  # no empty output folder left behind
    (tmp_path / "f").write_text("")
    code = hilo2penguin.run(["--batch", str(tmp_path / "a.mlir"), "-o", str(tmp_path / "f"), "--scheduler", "tcp://127.0.0.1:1"])
    assert code == 1  # an output folder that cannot be used is said before the cluster is asked
    assert capfd.readouterr().err == f"hilo2penguin: error: cannot use output folder '{tmp_path / 'f'}': it is a file, not a folder\n"


def test_dask_workers_use_the_shared_cache_tier(dask_cluster, tmp_path):
    from hilo_mlir.driver.cache import CompileCache, entries

    lc, client = dask_cluster
    src = tmp_path / "in"
    src.mkdir()
    (src / "a.mlir").write_text(GOOD)
    (src / "b.mlir").write_text(BIG)
    shared = str(tmp_path / "shared")
    runs = []
    for node in ("node1", "node2"):  # two machines' local folders, one shared tier
        report = tmp_path / f"{node}.json"
        cache = CompileCache(str(tmp_path / node), shared=shared)
        code = batch.run_batch(
            [str(src)],
            str(tmp_path / f"out-{node}"),
            CompileConfig(),
            report=str(report),
            stdout=io.StringIO(),
            stderr=io.StringIO(),
            tty=False,
            scheduler=lc.scheduler_address,
            cache=cache,
        )
        assert code == 0
        runs.append([m["cache"] for m in json.loads(report.read_text())["modules"]])
    assert runs == [["miss", "miss"], ["hit-shared", "hit-shared"]]
    assert len(entries(shared)) == 2 and len(entries(str(tmp_path / "node2"))) == 2
    assert _outputs(tmp_path / "out-node1") == _outputs(tmp_path / "out-node2")
