"""N simulated devices for the reference backend: the device mesh, the process groups and the rendezvous.

``penguin_ref.run(program, inputs, devices=N)`` runs one copy of the
per-device program on each of ``N`` devices, each in its own thread with its
own recorded :class:`~hilo_mlir.penguin_ref.program.Program`; the threads meet
only at collectives, through one :class:`Fabric`.

Devices, replicas and partitions (StableHLO spec, "Execution"): device ``d``
is the process ``(replica_id, partition_id) = (d // P, d % P)``, i.e. ``d``
is the spec's flattened id ``replica_id * P + partition_id``, with ``R * P = N``.
``R`` and ``P`` are the program's ``num-replicas=`` / ``num-partitions=``
Function attributes (printed from ``mhlo.num_replicas`` / ``mhlo.num_partitions``);
when only one is printed the other is ``N`` divided by it; when neither is,
``P = N, R = 1`` if the program uses a channel (``channel_handle`` with
``handle > 0``) or ``partition_id``, else ``R = N, P = 1`` (a replicated,
pmap-style program).

Matching: every device runs the same program, so device ``d``'s ``k``-th
execution of the collective printed at penguin.py line ``L`` meets every other
device's ``k``-th execution of line ``L`` (this holds inside loops and region
functions too). The rendezvous waits for all ``N`` devices; the last one to
arrive computes every device's result (:data:`Exchange.compute`) and wakes the
others. When every device that has not finished is waiting and no rendezvous
is complete -- devices waiting at different collectives, or a device that
finished while others wait for it -- the run is a deadlock: one
:class:`~hilo_mlir.penguin_ref.records.PenguinRefError` saying where each
device waits. A device that fails stops the others at their next collective;
the run raises that device's error. Nothing waits on a timeout: a mismatch is
found as soon as it happens, never as a hang.
"""

from __future__ import annotations

import sys
import threading
from dataclasses import dataclass

from hilo_mlir.penguin_ref.records import PenguinRefError, op_key
from hilo_mlir.support.process_groups import Mesh

__all__ = ["Fabric", "Mesh", "mesh_for", "run_devices"]


def mesh_for(program, devices: int) -> Mesh:
    """The :class:`Mesh` of ``devices`` devices for ``program`` (rules in the module docstring).

    Raises:
        PenguinRefError: ``devices < 1``, or the program's ``num-replicas`` x
            ``num-partitions`` is not ``devices``.
    """
    if devices < 1:
        raise PenguinRefError(f"penguin_ref: --devices must be at least 1, got {devices}")
    declared = {}
    fn = program.function
    for a in (fn.kw.get("attrs") or ()) if fn is not None else ():
        if isinstance(a, str) and "=" in a:
            k, _, v = a.partition("=")
            if k in ("num-replicas", "num-partitions") and v.strip().isdigit():
                declared[k] = int(v)
    r, p = declared.get("num-replicas"), declared.get("num-partitions")
    if r is None and p is None:
        named = group_device_counts(program)
        if named and named != {devices}:  # before any thread starts: a huge N is refused here, not at a collective
            raise PenguinRefError(
                f"penguin_ref: the program's collectives group {' or '.join(map(str, sorted(named)))} devices "
                f"(it declares no num-replicas/num-partitions), but {devices} device(s) were asked for"
            )
        if program_uses_partitions(program):
            r, p = 1, devices
        else:
            r, p = devices, 1
    elif r is None:
        r = devices // p if p and devices % p == 0 else 0
    elif p is None:
        p = devices // r if r and devices % r == 0 else 0
    if r is None or p is None or r * p != devices:
        raise PenguinRefError(
            f"penguin_ref: the program is compiled for num-replicas={declared.get('num-replicas', '?')} x "
            f"num-partitions={declared.get('num-partitions', '?')} devices, but {devices} device(s) were asked for"
        )
    return Mesh(r, p)


def group_device_counts(program) -> set[int]:
    """How many devices each collective's non-empty ``replica_groups`` cover together (a set of counts).

    Groups partition every id of their mode (replicas, partitions or, with global ids, devices),
    so on a one-axis mesh each collective's groups cover exactly the devices of the run.
    """
    from hilo_mlir.penguin_ref.attrs import parse_attr

    counts = set()
    for st in program.statements:
        g = st.kw.get("replica_groups")
        if g is None:
            continue
        rows = parse_attr(g) if isinstance(g, str) else g
        if not isinstance(rows, (list, tuple)):
            continue
        ids = {int(i) for row in rows if isinstance(row, (list, tuple)) for i in row if isinstance(i, int) and i >= 0}
        if ids:
            counts.add(len(ids))
    return counts


def program_uses_partitions(program) -> bool:
    """True if a statement of ``program`` is a ``partition_id`` or names a channel (``handle > 0``)."""
    from hilo_mlir.penguin_ref.attrs import parse_attr

    for st in program.statements:
        if op_key(st) == "partition_id":
            return True
        ch = st.kw.get("channel_handle")
        if ch is not None:
            h = parse_attr(ch) if not isinstance(ch, dict) else ch
            if isinstance(h, dict) and int(h.get("handle", 0)) > 0:
                return True
    return False


#: C stack of each device thread (virtual memory; a region nested n deep needs ~10 frames per level).
_DEVICE_STACK_BYTES = 128 << 20
_RECURSION_LIMIT = 200_000


class _Aborted(BaseException):
    """Raised in a device thread when another device failed or the devices deadlock (the run reports that).

    A ``BaseException``, so that no handler meant for a program's own errors
    (a region function that fails, an op's ``ValueError``) wraps it."""


@dataclass
class Exchange:
    """One pending rendezvous: the statement's description, each device's payload."""

    what: str
    compute: object  # callable(list of payloads by device) -> list of results by device
    payloads: dict
    results: list | None = None
    error: BaseException | None = None


class Fabric:
    """The rendezvous of ``mesh.devices`` device threads (see the module docstring)."""

    def __init__(self, mesh: Mesh):
        self.mesh = mesh
        self.n = mesh.devices
        self._cv = threading.Condition()
        self._pending: dict = {}  # key -> Exchange
        self._waiting: dict = {}  # device -> (key, description)
        self._finished: set = set()
        self._failed: BaseException | None = None
        self._counts: list[dict[int, int]] = [dict() for _ in range(self.n)]  # per device: line -> executions so far

    def exchange(self, device: int, line: int, what: str, payload, compute, loc=None):
        """Post ``payload`` for the collective at penguin.py line ``line``; block until every device has; its result.

        ``compute(payloads)`` (payloads indexed by device) returns the list of
        every device's result; it runs once, in the last device to arrive. An
        exception it raises (a ``ValueError`` for groups that do not fit the
        mesh) is raised in every device. ``loc`` (the statement's MLIR
        location text) locates a deadlock error.
        """
        counts = self._counts[device]
        k = counts.get(line, 0)
        counts[line] = k + 1
        key = (line, k)
        with self._cv:
            if self._failed is not None:
                raise _Aborted()
            ex = self._pending.get(key)
            if ex is None:
                ex = self._pending[key] = Exchange(what, compute, {})
            ex.payloads[device] = payload
            if len(ex.payloads) == self.n:
                try:
                    ex.results = list(compute([ex.payloads[d] for d in range(self.n)]))
                except BaseException as e:  # noqa: BLE001 - handed to every device of the rendezvous
                    ex.error = e
                del self._pending[key]
                for d in ex.payloads:  # released now, even before their threads wake up
                    self._waiting.pop(d, None)
                self._cv.notify_all()
            else:
                self._waiting[device] = (key, what, loc)
                self._check_deadlock()
                while ex.results is None and ex.error is None and self._failed is None:
                    self._cv.wait()
                if ex.results is None and ex.error is None:
                    raise _Aborted()
            if ex.error is not None:
                raise ex.error
            assert ex.results is not None  # no error: compute returned, so the results are set
            return ex.results[device]

    def finished(self, device: int) -> None:
        """Device ``device`` has run its whole program."""
        with self._cv:
            self._finished.add(device)
            self._check_deadlock()

    def failed(self, device: int, error: BaseException) -> None:
        """Device ``device`` failed with ``error``: every waiting device stops."""
        with self._cv:
            if self._failed is None:
                self._failed = error
            self._cv.notify_all()

    def _check_deadlock(self) -> None:
        if self._failed is not None or not self._waiting:
            return
        if len(self._waiting) + len(self._finished) < self.n:
            return
        lines, first_loc = [], None
        for d in range(self.n):
            if d in self._waiting:
                (line, k), what, loc = self._waiting[d]
                lines.append(f"device {d} waits at {what} (execution {k + 1})")
                first_loc = first_loc or loc
            else:
                lines.append(f"device {d} has finished")
        self._failed = PenguinRefError("penguin_ref: the devices deadlock: " + "; ".join(lines), loc=first_loc)
        self._cv.notify_all()


def run_devices(programs: list, per_device_inputs: list, mesh: Mesh, run_one) -> list:
    """Run ``run_one(program, inputs, device, fabric)`` for each device in its own thread; outputs by device.

    Raises:
        PenguinRefError: the first device's error (prefixed with its device
            id), or the deadlock.
    """
    fabric = Fabric(mesh)
    n = mesh.devices
    results: list = [None] * n
    errors: list = [None] * n

    def target(d):
        try:
            results[d] = run_one(programs[d], per_device_inputs[d], d, fabric)
            fabric.finished(d)
        except BaseException as e:  # noqa: BLE001 - collected and re-raised by the caller
            errors[d] = e
            fabric.failed(d, e)

    threads = []
    old_limit, old_size = sys.getrecursionlimit(), threading.stack_size()
    try:
        threading.stack_size(_DEVICE_STACK_BYTES)  # each device interprets nested regions as nested calls
        sys.setrecursionlimit(max(old_limit, _RECURSION_LIMIT))
        for d in range(n):
            t = threading.Thread(target=target, args=(d,), name=f"penguin_ref-device-{d}", daemon=True)
            t.start()
            threads.append(t)
    finally:
        threading.stack_size(old_size)
    try:
        for t in threads:
            t.join()
    finally:
        sys.setrecursionlimit(old_limit)
    first = next((d for d in range(n) if errors[d] is not None and not isinstance(errors[d], _Aborted)), None)
    if first is not None:
        e = errors[first]
        if isinstance(e, PenguinRefError):
            head, sep, rest = e.message.partition("penguin_ref: ")
            msg = f"{head}{sep}device {first}: {rest}" if sep and not head else f"device {first}: {e.message}"
            raise PenguinRefError(msg, loc=e.loc, code=e.code, notes=list(e.notes)) from None
        raise e
    if fabric._failed is not None:  # a deadlock: every device was stopped
        raise fabric._failed
    return results
