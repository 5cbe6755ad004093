"""Evidence: what joblib's own Dask and Ray backends do when workers die (no bayescomp code).

Run by hand from the repository root (needs ``bayescomp[dask,ray]``)::

    python bench/joblib_worker_loss.py [--wait 60]

Three cases, each in its own process, each a plain ``joblib.Parallel`` of eight 0.2 s tasks
(nothing of bayescomp's dispatcher), on a local cluster of 2 worker processes:

* ``dask-killed-worker``: ``parallel_backend("dask")``, streaming
  (``return_as="generator_unordered"``); task 3 SIGKILLs whichever worker runs it, so Dask
  gives it up after ``allowed-failures`` (``KilledWorker``);
* ``dask-no-worker``: the same backend; 3 s in, both workers (and their nannies) close;
* ``ray-kill``: ``ray.util.joblib``'s backend: whether it streams, then a list call whose
  task 3 SIGKILLs its pool worker once.

Each line says, ``--wait`` seconds after the event, whether the call is still waiting,
which results it returned and its error.  bayescomp's dispatcher
(``bayescomp/scores/dispatch.py``) exists for exactly these: it resubmits what Dask gave up
on, stops with ``WorkersLostError`` when no worker is left, and on Ray sends one fit per
worker at a time and resends the lost one, keeping the rest.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

N = 8


def _task(i: int, marker: str, always: bool) -> int:
    if i == 3 and (always or not os.path.exists(marker)):
        Path(marker).touch()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.2)
    return i


def _run(call, wait: float, n: int, event=None) -> str:
    got: list[int] = []
    err: list[BaseException] = []

    def body() -> None:
        try:
            for r in call():  # kept one by one: what a store would hold
                got.append(r)
        except BaseException as exc:  # reported, not raised
            err.append(exc)

    th = threading.Thread(target=body, daemon=True)
    th.start()
    if event is not None:
        event()
    t0 = time.monotonic()
    th.join(wait)
    e = f"{type(err[0]).__name__}: {str(err[0])[:120]}" if err else None
    waited = time.monotonic() - t0
    state = f"still waiting after {wait:g} s" if th.is_alive() else f"ended after {waited:.0f} s"
    return f"{state}; {len(got)} of {n} results; error {e}"


def case(name: str, wait: float) -> str:
    import joblib

    marker = tempfile.mktemp()
    if name.startswith("dask"):
        from distributed import Client, LocalCluster

        cluster = LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
        always = name == "dask-killed-worker"

        def call():
            with joblib.parallel_backend("dask"):
                par = joblib.Parallel(n_jobs=2, return_as="generator_unordered", batch_size=1)
                tasks = range(N) if always else range(N * 5)
                yield from par(joblib.delayed(_task)(i, marker, always) for i in tasks)

        def close_all() -> None:
            time.sleep(3)
            for w in list(cluster.workers.values()):
                client.sync(w.close)

        out = _run(call, wait, N if always else N * 5, None if always else close_all)
        live = len(client.scheduler_info(n_workers=-1)["workers"])
        return f"{out}; live workers {live}"
    import ray
    from ray.util.joblib import register_ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_ray()
    with joblib.parallel_backend("ray", n_jobs=2):
        try:
            list(
                joblib.Parallel(return_as="generator_unordered")(
                    joblib.delayed(abs)(1) for _ in "ab"
                )
            )
            stream = "streams"
        except ValueError as exc:
            stream = f"does not stream ({exc.__class__.__name__}: ...{str(exc)[-45:]})"

    def ray_call():
        with joblib.parallel_backend("ray", n_jobs=2):
            return joblib.Parallel(batch_size=1)(
                joblib.delayed(_task)(i, marker, False) for i in range(N)
            )

    return f"{stream}; killed once: {_run(ray_call, wait, N)}"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--wait", type=float, default=60.0)
    ap.add_argument("--case", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.case:  # one case, in this process; os._exit: a hung call's threads stay behind
        print("RESULT", case(args.case, args.wait), flush=True)
        os._exit(0)
    import joblib

    print(f"joblib {joblib.__version__}, Python {sys.version.split()[0]}")
    for name in ("dask-killed-worker", "dask-no-worker", "ray-kill"):
        proc = subprocess.run(
            [sys.executable, __file__, "--case", name, "--wait", str(args.wait)],
            capture_output=True,
            text=True,
            timeout=args.wait + 240,
        )
        lines = [x[7:] for x in proc.stdout.splitlines() if x.startswith("RESULT ")]
        print(f"{name:20s} {lines[-1] if lines else 'no output: ' + proc.stderr[-300:]}")


if __name__ == "__main__":
    main()
