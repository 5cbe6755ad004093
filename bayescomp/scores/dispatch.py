"""How the fit engine sends fits to a joblib backend and gets them back, lost workers included.

One dispatcher for every joblib backend (loky, threading, Dask, Ray, Spark):

* **stream** where the backend can return results as they finish (joblib's
  ``return_as="generator_unordered"``: loky, threading, Dask): each fit reaches the
  caller (and so the store) as soon as it is done;
* **batches** where it cannot (joblib refuses generators on Ray's and joblibspark's
  backends): list returns of one fit per worker at a time, each batch handed back when
  it ends, so a kill loses at most one batch;
* **futures** on Dask: one ``client.submit`` per fit on the client of joblib's Dask
  backend, gathered with ``distributed.as_completed``.  joblib's own Dask backend never
  reports a task that Dask gave up on (``KilledWorker``, after a task's workers died
  ``distributed.scheduler.allowed-failures`` times, 3 by default): it sets the error on a
  future nobody reads and ``Parallel`` waits forever, with live workers (joblib 1.6).
  Here such a fit is sent again on a fresh task (it counts against ``retries``) and the
  other fits go on.

The joblib call runs in a helper thread; results are handed to the calling thread through
a queue, so ``on_result`` (e.g. a SQLite write) always runs where the caller is.  A call
that fails because a worker died (loky's ``TerminatedWorkerError``, Dask's
``KilledWorker``/cancelled futures, Ray's actor errors, a Spark task whose Python worker
crashed) keeps every fit already returned and sends the fits that were in flight again,
each on a fresh task, at most ``retries`` times.  While no result arrives the dispatcher
asks the cluster (Dask, Ray) how many workers are alive; none for ``worker_timeout``
seconds stops the call with one :class:`~bayescomp.core.exceptions.WorkersLostError`
that says how many fits finished and how to resume.

Why not joblib's backends alone (issue 39; ``bench/joblib_worker_loss.py``: plain
``joblib.Parallel`` on a local cluster of 2 worker processes, joblib 1.6): a task Dask gave
up on leaves joblib's streaming Dask call waiting with 6-7 of 8 results and 2 live workers
(60 s on, no error); with every worker gone it waits with no error; ``ray.util.joblib``
refuses ``return_as="generator_unordered"`` (as joblibspark does) and a pool worker killed
once fails its list call at once with ``ActorDiedError``, returning none of its 8 results.
The futures path, the worker watch and batches with resubmission answer exactly these
(each tested in ``tests/test_worker_loss.py``); the rest is joblib's.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from typing import Any

from bayescomp.core.checks import check_number
from bayescomp.core.exceptions import WorkersLostError

#: exception class names that mean "a worker died", not "the fit failed"
_LOST = frozenset(
    {
        "TerminatedWorkerError",
        "BrokenProcessPool",
        "BrokenExecutor",  # loky / concurrent
        "KilledWorker",
        "CancelledError",
        "FutureCancelledError",
        "CommClosedError",  # Dask
        "RayActorError",
        "ActorDiedError",
        "ActorUnavailableError",
        "WorkerCrashedError",
        "NodeDiedError",
        "LocalRayletDiedError",
        "OwnerDiedError",  # Ray
    }
)
#: fragments of a Spark job failure caused by a lost Python worker or executor
_SPARK_LOST = (
    "worker exited unexpectedly",
    "Python worker exited",
    "ExecutorLostFailure",
    "crashed",
    "was shut down",  # the context (Spark's own message)
    "EOFError",
)
#: seconds between two liveness checks while no result arrives
POLL = 0.5


@dataclass
class DispatchReport:
    """What a dispatch did: fits finished, fits sent again after a lost worker, and the
    number of times a call was lost (``losses``)."""

    finished: int = 0
    retried: int = 0
    losses: int = 0
    mode: str = "stream"


def worker_lost(exc: BaseException) -> bool:
    """True when ``exc`` says a worker (process, actor, executor) died under a task."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        if any(c.__name__ in _LOST for c in type(exc).__mro__):
            return True
        if (
            "Spark" in type(exc).__name__
            or "Py4J" in type(exc).__name__
            or (type(exc).__module__.startswith(("pyspark", "py4j")))
        ):
            text = str(exc)
            if any(f in text for f in _SPARK_LOST):
                return True
        exc = exc.__cause__ or exc.__context__
    return False


def live_workers(backend: Any) -> int | None:
    """Number of live workers of a Dask or Ray cluster (None: not a cluster, or unknown).

    Dask: the workers the scheduler knows; Ray: the nodes alive.  Local backends (loky,
    threading) replace a dead worker themselves, and Spark fails the job, so they need no
    watch."""
    name = type(backend).__name__
    try:
        if "Dask" in name:
            client = backend.client
            if client.status not in ("running", "connecting"):
                return 0
            return len(client.scheduler_info(n_workers=-1).get("workers", {}))
        if "Ray" in name:
            import ray

            if not ray.is_initialized():
                return 0
            return sum(1 for n in ray.nodes() if n.get("Alive"))
    except Exception:  # the scheduler itself is gone or unreachable
        return 0
    return None


def active_backend() -> tuple[Any, int | None]:
    """The joblib backend in effect here (``joblib.parallel_config``) and its ``n_jobs``."""
    from joblib.parallel import get_active_backend

    return get_active_backend()


def can_stream(backend: Any) -> bool:
    return bool(getattr(backend, "supports_return_generator", False))


class _Feed:
    """The tasks of one joblib call, recording which ones joblib has taken (in flight)."""

    def __init__(self, tasks: list[Any]):
        self.tasks = tasks
        self.taken: list[Hashable] = []
        self.stop = threading.Event()  # the caller gave up: dispatch nothing more
        self.cleanup: list[Callable[[], None]] = []  # run when the caller stops the call

    def __iter__(self) -> Iterator[Any]:
        for t in self.tasks:
            if self.stop.is_set():
                return
            self.taken.append(t.key)
            yield t


def _produce(
    call: Callable[[list[Any]], Iterator[tuple[Hashable, Any]]],
    feed: _Feed,
    out: queue.Queue,
    backend: Any,
    n_jobs: int | None,
) -> None:
    """Thread body: run the joblib call inside the caller's backend, put each result."""
    from joblib import parallel_config

    try:
        with parallel_config(backend=backend, n_jobs=n_jobs):
            for item in call(feed):
                if feed.stop.is_set():  # closing the generator makes joblib abort the rest
                    break
                out.put(("result", item))
        out.put(("done", None))
    except BaseException as exc:  # handed to the calling thread, which decides
        out.put(("error", exc))


def _stream(run: Callable, n_jobs: int | None, single_thread: bool):
    def call(feed: _Feed) -> Iterator[tuple[Hashable, Any]]:
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered", batch_size=1)
        yield from parallel(delayed(run)(t, single_thread) for t in feed)

    return call


def _batches(run: Callable, n_jobs: int | None, single_thread: bool):
    def call(feed: _Feed) -> Iterator[tuple[Hashable, Any]]:
        from joblib import Parallel, delayed, effective_n_jobs

        size = max(1, effective_n_jobs(n_jobs))
        it = iter(feed)
        with Parallel(n_jobs=n_jobs, batch_size=1) as parallel:
            while True:
                chunk = [t for _, t in zip(range(size), it, strict=False)]
                if not chunk:
                    return
                yield from parallel(delayed(run)(t, single_thread) for t in chunk)

    return call


class _Lost:
    """What the Dask call yields for a fit whose task died with its workers."""

    def __init__(self, exc: BaseException):
        self.exc = exc


def is_dask(backend: Any) -> bool:
    """True for joblib's Dask backend (whose ``client`` the fits are submitted to)."""
    return "Dask" in type(backend).__name__ and hasattr(backend, "client")


def _futures(backend: Any):
    """The Dask call: every fit submitted to the backend's client at once (Dask queues
    them), results in completion order; a fit Dask gave up on comes back as ``_Lost``
    and is submitted again under a new key."""

    def make(run: Callable, n_jobs: int | None, single_thread: bool):
        def call(feed: _Feed) -> Iterator[tuple[Hashable, Any]]:
            from uuid import uuid4

            from distributed import as_completed

            client = backend.client
            sent: dict[str, tuple[Any, Any]] = {}  # future key -> (task, future)

            def submit(t: Any) -> Any:
                fut = client.submit(run, t, single_thread, key=f"bayescomp-fit-{uuid4().hex}")
                sent[fut.key] = (t, fut)
                return fut

            # a call given up (an error, a lost cluster) leaves no task behind
            feed.cleanup.append(lambda: client.cancel([f for _, f in list(sent.values())]))
            futures = as_completed(
                [submit(t) for t in feed], client.loop, with_results=True, raise_errors=False
            )
            for fut, res in futures:
                t, _ = sent.pop(fut.key)
                if fut.status == "finished":
                    yield res
                    continue
                exc = res[1] if fut.status == "error" else res  # cancelled: its error
                if not worker_lost(exc):
                    raise exc  # the model's own error, as it is
                yield t.key, _Lost(exc)
                if not feed.stop.is_set():
                    futures.add(submit(t))

        return call

    return make


def dispatch(
    tasks: list[Any],
    run: Callable,
    on_result: Callable[[Hashable, Any], None],
    *,
    n_jobs: int | None,
    single_thread: bool,
    retries: int,
    worker_timeout: float,
) -> DispatchReport:
    """Run ``run(task, single_thread)`` for every task on the active joblib backend.

    ``on_result(key, result)`` is called in this thread for each result.  See the
    module docstring for streaming, batches, retries and the worker watch."""
    check_number(retries, "retries", integer=True, min_val=0)
    check_number(worker_timeout, "worker_timeout", min_val=0, include_boundaries="neither")
    backend, cfg_jobs = active_backend()
    stream = can_stream(backend)
    report = DispatchReport(mode="stream" if stream else "batches")
    make = _stream if stream else _batches
    if is_dask(backend):
        report.mode, make = "futures", _futures(backend)
    pending = {t.key: t for t in tasks}
    lost: dict[Hashable, int] = {}
    total = len(pending)

    def charge(keys: list[Hashable], exc: BaseException) -> None:
        _charge(keys, lost, retries, report, total, exc)

    while pending:
        feed = _Feed(list(pending.values()))
        out: queue.Queue = queue.Queue()
        thread = threading.Thread(
            target=_produce,
            daemon=True,
            name="bayescomp-fits",
            args=(make(run, n_jobs, single_thread), feed, out, backend, cfg_jobs),
        )
        thread.start()
        try:
            exc = _consume(out, pending, on_result, report, backend, worker_timeout, total, charge)
        finally:
            feed.stop.set()  # an error here (or Ctrl-C): start no further fit
            for clean in feed.cleanup:  # e.g. cancel its leftover tasks; a lost cluster
                with contextlib.suppress(Exception):  # has nothing left to cancel
                    clean()
        thread.join(timeout=None if exc is None else 5.0)
        if exc is None:
            break
        if not worker_lost(exc):
            raise exc
        report.losses += 1
        charge([k for k in feed.taken if k in pending], exc)
    return report


def _consume(
    out: queue.Queue,
    pending: dict,
    on_result: Callable,
    report: DispatchReport,
    backend: Any,
    worker_timeout: float,
    total: int,
    charge: Callable[[list[Hashable], BaseException], None],
) -> BaseException | None:
    """Hand results to ``on_result`` until the call ends; its error (None: done).  A fit
    the call sends again itself (``_Lost``, Dask) is charged against ``retries``."""
    dead_since: float | None = None
    while True:
        try:
            kind, item = out.get(timeout=POLL)
        except queue.Empty:
            n = live_workers(backend)
            if n is None or n > 0:
                dead_since = None
                continue
            dead_since = dead_since or time.monotonic()
            if time.monotonic() - dead_since >= worker_timeout:
                raise WorkersLostError(
                    f"no live worker for {worker_timeout:g} s: the cluster lost every worker. "
                    f"{report.finished} of {total} fits finished and were kept (handed to the "
                    f"store or the result as each finished); {total - report.finished} did "
                    "not run. Restart the workers (or use another backend) and run the same "
                    "call again with the same store to resume: finished fits are not repeated "
                    "(raise worker_timeout= to wait longer for workers)",
                    finished=report.finished,
                    total=total,
                ) from None
            continue
        dead_since = None
        if kind == "done":
            return None
        if kind == "error":
            return item
        key, res = item
        if isinstance(res, _Lost):
            if key in pending:
                report.losses += 1
                charge([key], res.exc)
            continue
        if key in pending:  # a retried fit may come back twice: keep the first
            del pending[key]
            report.finished += 1
            on_result(key, res)


def _charge(
    keys: list[Hashable],
    lost: dict[Hashable, int],
    retries: int,
    report: DispatchReport,
    total: int,
    exc: BaseException,
) -> None:
    """The fits in flight when a worker died: count the loss, stop past ``retries``."""
    for k in keys:
        lost[k] = lost.get(k, 0) + 1
        if lost[k] == 1:
            report.retried += 1
    over = [k for k in keys if lost[k] > retries]
    if over:
        raise WorkersLostError(
            f"fit {over[0]!r} was lost with its worker {lost[over[0]]} times (retries="
            f"{retries}); last error: {type(exc).__name__}: {exc}. {report.finished} of {total} "
            "fits finished and were kept. Check the workers' memory and logs, then run the "
            "same call again with the same store to resume (or raise retries=)",
            finished=report.finished,
            total=total,
        ) from exc
