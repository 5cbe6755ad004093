"""Every server, browser or driver a test starts dies with the test process (issue 41, 9).

``spawn`` starts the child in a process group of its own, with ``PR_SET_PDEATHSIG``: the
kernel kills it with SIGKILL when the pytest process that started it dies, even by
SIGKILL.  That signal reaches the child only, not what the child starts itself
(``mlflow server``'s uvicorn workers and job runner, Chromium's zygote and renderers), so
a watchdog (a small Python loop in a session of its own) kills the whole group once the
pytest process is gone (the watchdog's parent changes; a dead pytest may stay a zombie).  ``stop`` (a fixture's finaliser) kills the group at once.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform.startswith("linux") else None
#: ``python -c WATCH pytest_pid pgid`` (or ``pytest_pid pid...`` with ``-``): wait while its
#: parent (pytest) and the group (the pids) live, then kill them
WATCH = """
import os, signal, sys, time
parent, ids = int(sys.argv[1]), [int(i) for i in sys.argv[2:]]
kill = os.killpg if ids[0] > 0 else os.kill
ids = ids if ids[0] > 0 else ids[1:]
while os.getppid() == parent and ids:
    for i in list(ids):
        try:
            kill(i, 0)
        except ProcessLookupError:
            ids.remove(i)
    time.sleep(0.2)
for i in ids:
    try:
        kill(i, signal.SIGKILL)
    except ProcessLookupError:
        pass
"""


def _arm(parent: int):
    """The child's ``preexec_fn``: die with ``parent`` (also if it died before this ran)."""

    def arm() -> None:
        if _LIBC is not None:
            _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os.kill(os.getpid(), signal.SIGKILL)

    return arm


def spawn(cmd: Sequence[str], **popen) -> subprocess.Popen:
    """``subprocess.Popen(cmd, **popen)`` in a new process group that dies with this process.

    The kernel's parent-death signal follows the *thread* that forked: call this from the
    thread that runs the tests (a fixture), not from a short-lived helper thread.
    """
    proc = subprocess.Popen(cmd, start_new_session=True, preexec_fn=_arm(os.getpid()), **popen)
    proc.watchdog = _watch([proc.pid])  # type: ignore[attr-defined]
    return proc


def _watch(ids: list[int]) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", WATCH, str(os.getpid()), *map(str, ids)],
        start_new_session=True,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def guard(pids: set[int]) -> subprocess.Popen:
    """Kill ``pids`` when this process dies: for processes a library started (Ray's node),
    which no ``preexec_fn`` of ours reaches.  Returns the watchdog (it ends with them)."""
    return _watch([-1, *sorted(pids)])


def stop(proc: subprocess.Popen, timeout: float = 30) -> None:
    """SIGTERM to ``proc``'s group, SIGKILL if it has not exited within ``timeout``, then
    SIGKILL to whatever of the group is left (a worker that ignored SIGTERM)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.watchdog.wait()  # type: ignore[attr-defined]


def run(cmd: Sequence[str], *, timeout: float, **popen) -> subprocess.CompletedProcess:
    """``subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)`` through
    :func:`spawn`: the program and everything it started are gone when this returns."""
    proc = spawn(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **popen)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        stop(proc, timeout=5)
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


def descendants(pid: int) -> set[int]:
    """The pids of every process started by ``pid`` or by one of its descendants."""
    out: set[int] = set()
    todo = [pid]
    while todo:
        p = todo.pop()
        for task in Path(f"/proc/{p}/task").glob("*"):
            try:
                kids = (task / "children").read_text().split()
            except OSError:
                continue
            for k in map(int, kids):
                if k not in out:
                    out.add(k)
                    todo.append(k)
    return out


def alive(pid: int) -> bool:
    """True while ``pid`` runs (a zombie has exited)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status
