"""Run the fits on a cluster: one context manager for the four tested joblib backends.

``loky`` (the default: processes on this machine), ``dask`` (a Dask cluster, or a local
one), ``ray`` (a Ray cluster, or a local one) and ``spark`` (a Spark cluster through
joblibspark, or Spark in local mode).  Each optional engine comes with its extra
(``bayescomp[dask]``, ``bayescomp[ray]``, ``bayescomp[spark]``), named in the error where
it is missing.  The command line's ``--backend``/``--scheduler`` use :func:`use_backend`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from bayescomp.core.optional import require

BACKENDS = ("loky", "dask", "ray", "spark")


@contextmanager
def use_backend(
    backend: str = "loky", scheduler: str | None = None, n_workers: int | None = None
) -> Iterator[str]:
    """Fits run inside on ``backend`` (a joblib backend), connected or started here.

    Parameters
    ----------
    backend : {"loky", "dask", "ray", "spark"}
        The engine running the fits.
    scheduler : str, optional
        Address of an existing cluster: a Dask scheduler (``tcp://host:8786``), a Ray
        cluster (``ray://host:10001`` or ``host:6379``) or a Spark master
        (``spark://host:7077``, ``local[4]``).  Without it a local cluster is started
        (Dask ``LocalCluster``, ``ray.init()``, Spark ``local[*]``) and stopped on exit.
    n_workers : int, optional
        Workers (CPUs) of a local cluster started here; default: every core.

    Yields
    ------
    str
        A description of where the fits run.

    Examples
    --------
    >>> from joblib import Parallel, delayed
    >>> with use_backend("loky") as where:
    ...     Parallel(n_jobs=2)(delayed(abs)(i) for i in (-1, -2)), where
    ([1, 2], 'loky (processes on this machine)')
    """
    from joblib import parallel_config

    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if n_workers is not None:
        from bayescomp.core.checks import check_number  # numpy: not for --help

        check_number(n_workers, "n_workers", integer=True, min_val=1)
    with ExitStack() as stack:
        if backend == "loky":
            if scheduler is not None:
                raise ValueError(
                    "--scheduler/scheduler= names a cluster; loky runs on this "
                    "machine: use backend 'dask', 'ray' or 'spark' with it"
                )
            where = "loky (processes on this machine)"
        elif backend == "dask":
            where = _dask(stack, scheduler, n_workers)
        elif backend == "ray":
            where = _ray(stack, scheduler, n_workers)
        else:
            where = _spark(stack, scheduler, n_workers)
        stack.enter_context(parallel_config(backend=backend))
        yield where


def _dask(stack: ExitStack, scheduler: str | None, n_workers: int | None) -> str:
    distributed = require("distributed", "dask", "the Dask backend")
    if scheduler is None:
        cluster = stack.enter_context(
            distributed.LocalCluster(
                n_workers=n_workers, threads_per_worker=1, dashboard_address=None
            )
        )
        client = stack.enter_context(distributed.Client(cluster))
    else:
        client = stack.enter_context(distributed.Client(scheduler, timeout=30))
    return (
        f"dask ({len(client.scheduler_info(n_workers=-1)['workers'])} workers at "
        f"{client.scheduler.address})"
    )


def _ray(stack: ExitStack, scheduler: str | None, n_workers: int | None) -> str:
    ray = require("ray", "ray", "the Ray backend")
    from ray.util.joblib import register_ray

    if not ray.is_initialized():
        if scheduler is None:
            start_local_ray(n_workers)
        else:
            ray.init(address=scheduler, log_to_driver=False)
        stack.callback(ray.shutdown)
    register_ray()
    return f"ray ({int(ray.cluster_resources().get('CPU', 0))} CPUs)"


def _ping() -> int:
    return 1


def start_local_ray(n_workers: int | None = None, attempts: int = 3) -> None:
    """``ray.init()`` of a local node that is known to run tasks, or a clear error.

    On a loaded machine Ray's node can die while it starts: its raylet waits a fixed 15 s
    for the dashboard agent's port file and aborts after that (ray-project/ray#65983),
    leaving a driver whose tasks never run.  So the node must run one task within a minute,
    else it is shut down and started again, ``attempts`` times in all.
    """
    ray = require("ray", "ray", "the Ray backend")
    last: BaseException | None = None
    for _ in range(attempts):
        try:
            ray.init(num_cpus=n_workers, include_dashboard=False, log_to_driver=False)
            if ray.get(ray.remote(_ping).remote(), timeout=60) == 1:
                return
        except Exception as exc:  # a node that died while starting, or a task that never ran
            last = exc
        ray.shutdown()
    raise RuntimeError(
        f"a local Ray node did not start in {attempts} attempts (last: {last!r}); on a "
        "loaded machine start one by hand (`ray start --head`) and pass its address as "
        "scheduler (--scheduler), or use another backend"
    ) from last


def _spark(stack: ExitStack, scheduler: str | None, n_workers: int | None) -> str:
    require("pyspark", "spark", "the Spark backend")
    joblibspark = require("joblibspark", "spark", "the Spark backend")
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is None:
        import os
        import sys

        # Spark's Python workers: this interpreter (where scikit-learn and the models are)
        # unless the user chose one
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        master = scheduler or (f"local[{n_workers}]" if n_workers else "local[*]")
        active = (
            SparkSession.builder.master(master)
            .appName("bayescomp")
            .config("spark.ui.enabled", "false")
            .getOrCreate()
        )
        stack.callback(active.stop)
    joblibspark.register_spark()
    return f"spark ({active.conf.get('spark.master')})"
