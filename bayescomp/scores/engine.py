"""The one fit engine: clone, fit on the training rows, score (or predict) on the test rows.

Every cross-validation of the package goes through here —
:func:`~bayescomp.scores.crossval.cross_validate_paired` (and so the learning curves),
the fits of :func:`bayescomp.select` and the out-of-fold predictions of
:func:`bayescomp.threshold_curves`:

* :func:`fit_and_score` is one task (one estimator on one split); it catches the
  warnings of the fit and hands them back with the result;
* :func:`run_fits` runs many :class:`FitTask` through joblib (loky, Dask, Ray or Spark, by
  :mod:`bayescomp.scores.dispatch`, which also retries fits lost with a worker) and calls
  ``on_result(key, result)`` in the calling process as results arrive (after raising
  the task's warnings again there, where the caller's filters apply);
* :class:`Progress` is the one progress bar (on a terminal or in a Jupyter kernel).
"""

from __future__ import annotations

import functools
import os
import sys
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from bayescomp.core.protocols import Fit
from bayescomp.scores.dispatch import DispatchReport, dispatch


def multimetric(scorers: Mapping[str, Callable], estimator: Any) -> Callable:
    """One callable ``(est, X, y) -> {name: score}`` that shares predictions between scorers.

    scikit-learn's multimetric scorer calls ``predict``/``predict_proba`` once for
    all scorers that need it (as ``cross_validate`` does); calling each scorer on
    its own would repeat the predictions once per metric.
    """
    from sklearn.metrics import check_scoring

    return check_scoring(estimator, scoring=dict(scorers))


def fit_and_score(
    estimator: Any,
    X: Any,
    y: Any,
    train: np.ndarray,
    test: np.ndarray,
    scorers: Mapping[str, Callable],
    error_score: Any = "raise",
    multimetric: Callable | None = None,
    inspect: Callable[[Any], Any] | None = None,
    predict: Callable[[Any, Any, Any], Any] | None = None,
) -> Fit:
    """Clone, fit on ``train``, score on ``test``; one task of paired cross-validation.

    Returns the :class:`~bayescomp.core.protocols.Fit`.  ``multimetric`` is ``scorers``
    combined into one callable that shares predictions between them (built here when not
    given; an empty ``scorers`` scores nothing).  ``inspect(fitted_estimator)`` runs after
    a successful fit and its value is the fit's ``best_params`` (the hyperparameters a
    search chose); ``predict(fitted_estimator, X_test, y_test)`` likewise, its
    ``predictions`` (an :class:`~bayescomp.core.protocols.OutOfFold` from
    :func:`~bayescomp.scores.crossval.fit_paired`).

    Warnings raised by the fit or the scoring are caught here and kept in the fit's
    ``warnings`` (distinct ones, counted), so that they reach the calling process
    whatever the joblib backend: :func:`replay_warnings` raises them there, where the
    caller's filters apply.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.metrics import get_scorer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = load_iris(return_X_y=True)
    >>> rows = np.arange(len(y))
    >>> res = fit_and_score(GaussianNB(), X, y, rows[rows % 5 > 0], rows[rows % 5 == 0],
    ...                     {"accuracy": get_scorer("accuracy")})
    >>> res.scores, res.error
    ({'accuracy': 0.9666666666666667}, None)
    """
    with counted_warnings(own_thread=True) as caught:
        res = _fit_and_score(
            estimator, X, y, train, test, scorers, error_score, multimetric, inspect, predict
        )
    return replace(res, warnings=tuple((cat, msg, n) for (cat, msg), n in caught.items()))


@contextmanager
def counted_warnings(*, own_thread: bool = False) -> Iterator[Counter]:
    """Count the warnings raised inside the block instead of showing them.

    Yields a ``Counter`` keyed by ``(category, message)``.  Every warning is counted
    (``simplefilter("always")``) but stored once, so memory is bounded by the number of
    *distinct* warnings whatever the number of fits.  With ``own_thread``, only this
    thread's: a warning another thread raises meanwhile goes on to the display in place
    before the block (``catch_warnings`` alone is process-wide: a fit runs in a thread of
    its own while the main thread replays the warnings of finished fits, which the fit
    would count as its own).
    """
    me = threading.get_ident()
    counts: Counter = Counter()
    with warnings.catch_warnings():
        warnings.simplefilter("always")
        shown = warnings.showwarning

        def count(message: Any, category: type, *where: Any, **kw: Any) -> None:
            if own_thread and threading.get_ident() != me:
                shown(message, category, *where, **kw)
            else:
                counts[(category, str(message))] += 1

        warnings.showwarning = count
        yield counts


def replay_warnings(result: Fit, source: str = "") -> None:
    """Raise again, in this process, the warnings a :func:`fit_and_score` task caught;
    ``source`` (e.g. ``"model 'lr'"``) is put before each message, so that it names the
    model that raised it."""
    for category, message, count in result.warnings:
        for _ in range(count):
            warnings.warn(f"{source}: {message}" if source else message, category, stacklevel=2)


def _failed(
    scorers: Mapping[str, Callable],
    error_score: Any,
    fit_time: float,
    score_time: float,
    error: str,
) -> Fit:
    return Fit(dict.fromkeys(scorers, float(error_score)), fit_time, score_time, error)


def _explained(exc: BaseException, X: Any) -> str:
    """``"Type: message"`` of a failed fit, naming the text feature column a numeric model
    could not take (also added to the exception as a note, for ``error_score="raise"``)."""
    from bayescomp.scores.features import name_text_column

    plain = f"{type(exc).__name__}: {exc}"
    error = name_text_column(plain, X)
    if error != plain:
        exc.add_note(error[len(plain) + 2 : -1])  # the hint without its parentheses
    return error


def _fit_and_score(
    estimator: Any,
    X: Any,
    y: Any,
    train: np.ndarray,
    test: np.ndarray,
    scorers: Mapping[str, Callable],
    error_score: Any,
    multimetric_: Callable | None,
    inspect: Callable[[Any], Any] | None,
    predict: Callable[[Any, Any, Any], Any] | None,
) -> Fit:
    from sklearn.base import clone
    from sklearn.utils import _safe_indexing

    raise_ = isinstance(error_score, str) and error_score == "raise"
    est = clone(estimator)
    X_tr, X_te = _safe_indexing(X, train), _safe_indexing(X, test)
    y_tr, y_te = (None, None) if y is None else (_safe_indexing(y, train), _safe_indexing(y, test))
    t0 = time.perf_counter()
    try:
        est.fit(X_tr, y_tr) if y is not None else est.fit(X_tr)
    except Exception as exc:
        error = _explained(exc, X)
        if raise_:
            raise
        return _failed(scorers, error_score, time.perf_counter() - t0, 0.0, error)
    fit_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    scores: dict[str, float] = {}
    if predict is not None:
        _share_predictions(est, X_te)
    try:
        if scorers:
            if multimetric_ is None:
                multimetric_ = multimetric(scorers, est)
            scores = {name: float(v) for name, v in multimetric_(est, X_te, y_te).items()}
        predictions = predict(est, X_te, y_te) if predict is not None else None
    except Exception as exc:  # scoring failures follow error_score too, as in scikit-learn
        if raise_:
            raise
        return _failed(
            scorers,
            error_score,
            fit_time,
            time.perf_counter() - t0,
            f"scoring failed: {type(exc).__name__}: {exc}",
        )
    return Fit(
        scores,
        fit_time,
        time.perf_counter() - t0,
        best_params=inspect(est) if inspect is not None else None,
        predictions=predictions,
    )


def _share_predictions(est: Any, X_test: Any) -> None:
    """The fitted estimator's ``predict``/``predict_proba`` on its test rows computed once,
    for its scorers and its kept predictions alike (the clone is this fit's alone)."""
    for name in ("predict", "predict_proba"):
        if hasattr(est, name):
            setattr(est, name, _once_on(getattr(est, name), X_test))


def _once_on(method: Callable, X_test: Any) -> Callable:
    memo: dict[str, Any] = {}

    @functools.wraps(method)  # scikit-learn reads the method's name
    def shared(X: Any) -> Any:
        if X is not X_test:
            return method(X)
        if "value" not in memo:
            memo["value"] = method(X)
        return memo["value"]

    return shared


# --------------------------------------------------------------------------- runner
@dataclass(frozen=True)
class FitTask:
    """One fit of :func:`run_fits`: the arguments of :func:`fit_and_score` and a ``key``
    naming it (handed back with its result)."""

    key: Hashable
    estimator: Any
    X: Any
    y: Any
    train: np.ndarray
    test: np.ndarray
    scorers: Mapping[str, Callable]
    error_score: Any = "raise"
    multimetric: Callable | None = None
    inspect: Callable[[Any], Any] | None = None
    predict: Callable[[Any, Any, Any], Any] | None = None


_ARMED: list[int] = []  # the pid whose parent-death signal is set (one per process)


def die_with_parent() -> None:
    """In a local worker process (loky, multiprocessing), ask Linux to kill this process
    when its parent dies (``prctl(PR_SET_PDEATHSIG)``): a run killed with SIGKILL leaves no
    worker behind (loky's idle workers, and its resource tracker holding their pipes,
    otherwise linger for minutes).  Does nothing in the main process, on other systems,
    or where the parent is not the process that started this one."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is None or not sys.platform.startswith("linux") or os.getpid() in _ARMED:
        return
    _ARMED.append(os.getpid())
    if os.getppid() != parent.pid:
        return
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGKILL)  # 1 = PR_SET_PDEATHSIG
    if os.getppid() != parent.pid:  # the parent died before the signal was set
        os.kill(os.getpid(), signal.SIGKILL)


def _run_task(task: FitTask, single_thread: bool) -> tuple[Hashable, Fit]:
    """A worker task.  With ``single_thread``, native thread pools (OpenMP, BLAS) are
    limited to one thread during the fit: parallelism comes from running several fits at
    once (``n_jobs``), and oversubscribed OpenMP pools make e.g. histogram gradient
    boosting ten times slower on a busy machine."""
    die_with_parent()
    args = (
        task.estimator,
        task.X,
        task.y,
        task.train,
        task.test,
        task.scorers,
        task.error_score,
        task.multimetric,
        task.inspect,
        task.predict,
    )
    try:
        if not single_thread:
            return task.key, fit_and_score(*args)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):
            return task.key, fit_and_score(*args)
    except Exception as exc:  # the model's own failure (error_score="raise")
        # re-raised as it is, like scikit-learn's cross_validate, but marked with the model
        # (the mark is pickled with the exception): the command line reports it as the
        # user's model failing, naming it, not as an internal error
        key = task.key if isinstance(task.key, tuple) else (task.key,)
        where = f" on split {key[-1]}" if len(key) > 1 else ""
        notes = "".join(f" ({n})" for n in getattr(exc, "__notes__", ()))
        exc.bayescomp_model_failure = (  # type: ignore[attr-defined]
            f"model {key[0]!r} failed{where}: {type(exc).__name__}: {exc}{notes}"
        )
        raise


#: default ``worker_timeout`` (seconds without any live worker before a call stops)
WORKER_TIMEOUT = 180.0
#: default ``retries`` (times a fit lost with its worker is sent again)
RETRIES = 2


@dataclass
class FitPolicy:
    """Worker-loss settings of the fits run under :func:`fit_policy`, and the number of
    fits that had to be sent again (``retried``, summed over those calls)."""

    retries: int = RETRIES
    worker_timeout: float = WORKER_TIMEOUT
    retried: int = 0


_POLICY: ContextVar[FitPolicy | None] = ContextVar("bayescomp_fit_policy", default=None)


@contextmanager
def fit_policy(
    retries: int = RETRIES, worker_timeout: float = WORKER_TIMEOUT
) -> Iterator[FitPolicy]:
    """Every :func:`run_fits` inside uses these ``retries``/``worker_timeout`` (unless
    given its own) and adds the fits it retried to the yielded :class:`FitPolicy`.

    Examples
    --------
    >>> with fit_policy(retries=1, worker_timeout=30) as policy:
    ...     policy.retries, policy.retried
    (1, 0)
    """
    policy = FitPolicy(retries, float(worker_timeout))
    token = _POLICY.set(policy)
    try:
        yield policy
    finally:
        _POLICY.reset(token)


def run_fits(
    tasks: Iterable[FitTask],
    on_result: Callable[[Hashable, Fit], None],
    *,
    n_jobs: int | None = None,
    progress: Progress | None = None,
    describe: Callable[[Hashable], str] = str,
    single_thread: bool = False,
    retries: int | None = None,
    worker_timeout: float | None = None,
    source: Callable[[Hashable], str] | None = None,
) -> DispatchReport:
    """Run ``tasks`` through joblib; ``on_result(key, result)`` in this process per result.

    Any joblib backend (``with joblib.parallel_config(backend=...)``: loky, threading,
    Dask, Ray, Spark).  Results are streamed in completion order where the backend can
    (loky, Dask), otherwise returned one batch (one fit per worker) at a time (Ray,
    Spark): each result reaches ``on_result`` as soon as its fit, or at the latest its
    batch, is done.  The warnings each task caught are raised again here first, each
    message after ``source(key)`` when given (the model that raised it).
    ``progress`` (a :class:`Progress`) grows by the number of tasks and ticks once per
    result, showing ``describe(key)``.

    Fits in flight when a worker dies are sent again on a fresh task, at most ``retries``
    times each; no live worker for ``worker_timeout`` seconds (Dask, Ray) raises
    :class:`~bayescomp.core.exceptions.WorkersLostError` (see
    :mod:`bayescomp.scores.dispatch`).  Both default to the enclosing :func:`fit_policy`
    (else :data:`RETRIES`, :data:`WORKER_TIMEOUT`).  Returns the :class:`DispatchReport`
    (fits finished and retried).
    """
    policy = _POLICY.get()
    if retries is None:
        retries = policy.retries if policy is not None else RETRIES
    if worker_timeout is None:
        worker_timeout = policy.worker_timeout if policy is not None else WORKER_TIMEOUT
    from bayescomp.core.checks import check_n_jobs

    n_jobs = check_n_jobs(n_jobs)
    tasks = list(tasks)
    if not tasks:
        return DispatchReport()
    if progress is not None:
        progress.grow(len(tasks))

    def arrived(key: Hashable, res: Fit) -> None:
        replay_warnings(res, source(key) if source is not None else "")
        on_result(key, res)
        if progress is not None:
            progress.tick(describe(key))

    report = dispatch(
        tasks,
        _run_task,
        arrived,
        n_jobs=n_jobs,
        single_thread=single_thread,
        retries=retries,
        worker_timeout=worker_timeout,
    )
    if policy is not None:
        policy.retried += report.retried
    return report


# --------------------------------------------------------------------------- progress
def in_notebook() -> bool:
    """True inside a Jupyter kernel (IPython's ZMQ shell, as tqdm detects it), with or
    without ipywidgets; False without IPython loaded (checked first: no import cost)."""
    if "IPython" not in sys.modules or "ipykernel.zmqshell" not in sys.modules:
        return False
    shell = sys.modules["IPython"].get_ipython()
    return shell is not None and "zmq" in type(shell).__name__.lower()


def _notebook_bar(kw: dict[str, Any]) -> Any:
    """tqdm's widget bar when ipywidgets is installed, else None (without the warning
    ``tqdm.auto`` gives there)."""
    from tqdm import notebook

    if notebook.IProgress is None:  # no ipywidgets: the caller draws the text bar
        return None
    try:
        return notebook.tqdm(**kw)
    except ImportError:  # ipywidgets too old for tqdm's widget
        return None


class Progress:
    """One progress bar over fits, silent unless enabled and the output is interactive:
    stderr a terminal (tqdm's text bar), or a Jupyter kernel (tqdm's widget bar, or the
    text bar on stderr when ipywidgets is not installed, without a warning).  Its total
    grows as work is planned (:meth:`grow`)."""

    def __init__(self, enabled: bool, desc: str):
        self.bar = None
        if enabled and (sys.stderr.isatty() or in_notebook()):
            from tqdm.std import tqdm as text_tqdm

            # redraw on every finished fit (a fit costs far more than a redraw), so the
            # current model/split is always what the bar shows.  smoothing=0: the rate is
            # fits done / time elapsed.  With n_jobs=-1 results arrive in bursts (a batch
            # of workers finishing together), and tqdm's default moving average of the
            # last intervals then reads thousands of fits/s and an ETA of 00:00
            kw = dict(
                total=0, desc=desc, unit="fit", leave=False, mininterval=0, miniters=1, smoothing=0
            )
            if in_notebook():
                self.bar = _notebook_bar(kw)
                kw["leave"] = True  # the text bar in a notebook output stays, as the widget
            if self.bar is None:
                self.bar = text_tqdm(file=sys.stderr, **kw)

    def grow(self, n: int) -> None:
        if self.bar is not None:
            self.bar.total += n
            self.bar.refresh()

    def tick(self, text: str, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=False)
            self.bar.update(n)
            self.bar.refresh()

    def skip(self, text: str, n: int = 1) -> None:
        """Advance over ``n`` items that cost no time (fits read from a store): they
        count towards the total but not towards the rate, so the ETA of the fits still
        to run is not made up by instant reads."""
        if self.bar is not None:
            self.bar.initial += n
            self.tick(text, n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
