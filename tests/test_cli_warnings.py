"""The command line collects warnings and shows each once, with its count (issue 13).

Every run here is a subprocess with a timeout: the failure these guard against was a
command that never ended and grew without bound (warnings re-emitted into the list
being read), so the test must be able to stop it and to measure its peak memory.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from bayescomp.cli.main import format_warnings
from bayescomp.scores.engine import counted_warnings

# runs the CLI in a fresh interpreter, then reports its own peak resident memory (MiB)
RUNNER = textwrap.dedent("""
    import resource, sys
    from bayescomp.cli.main import main
    code = main(sys.argv[1:])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"PEAK_MIB {peak:.0f}", file=sys.stderr)
    sys.exit(code)
""")
PEAK_LIMIT_MIB = 1500  # the bug reached 2 GB in 21 s and 20.8 GB before the OOM killer


def run_cli(args, timeout=240, cwd=None):
    proc = subprocess.run(
        [sys.executable, "-c", RUNNER, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
    )
    lines = proc.stderr.splitlines()
    peaks = [float(ln.split()[1]) for ln in lines if ln.startswith("PEAK_MIB")]
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    return proc, peaks[0] if peaks else None, [ln for ln in lines if not ln.startswith("PEAK_MIB")]


@pytest.fixture(scope="module")
def warning_models(tmp_path_factory):
    """A baseline that converges and a challenger whose solver warns on every fit."""
    folder = tmp_path_factory.mktemp("models")
    (folder / "a_scaled.py").write_text(
        "from sklearn.linear_model import LogisticRegression\n"
        "from sklearn.pipeline import make_pipeline\n"
        "from sklearn.preprocessing import StandardScaler\n"
        "model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))\n"
    )
    (folder / "b_three_iterations.py").write_text(
        "from sklearn.linear_model import LogisticRegression\n"
        "model = LogisticRegression(max_iter=3)\n"
    )
    return folder


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_select_with_a_warning_on_every_fit_ends_and_counts_it(warning_models, n_jobs):
    proc, peak, err = run_cli(
        [
            "select",
            warning_models,
            "--dataset",
            "breast_cancer",
            "--baseline",
            "a_scaled",
            "--metric",
            "roc_auc",
            "--rope",
            "0.005",
            "--n-splits",
            "3",
            "--n-repeats",
            "2",
            "--n-jobs",
            n_jobs,
            "--quiet",
        ],
        timeout=180,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "b_three_iterations" in proc.stdout and "recommendation:" in proc.stdout
    # shown once, under scikit-learn's own category name, counted over the 6 fits
    conv = [ln for ln in err if "ConvergenceWarning" in ln]
    assert len(conv) == 1, err
    assert conv[0].startswith(
        "bayescomp select: ConvergenceWarning (6 times): model 'b_three_iterations': lbfgs failed"
    )
    assert peak is not None and peak < PEAK_LIMIT_MIB


def _constant_scores(path, value=0.9, noise=0.0):
    n = 20
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "model": np.repeat(["a", "b", "c"], n),
            "split": np.tile(np.arange(n), 3),
            "accuracy": value * (1 + noise * rng.standard_normal(3 * n)),
            "n_train": 90,
            "n_test": 10,
        }
    )
    frame.to_csv(path, index=False)
    return path


# constant and equal, tiny (1e-300), overflowing (1e300, the largest double) scores; the
# same with noise, and the ROPE on the scores' scale too (issue 12)
@pytest.mark.parametrize(
    "value,noise,rope",
    [
        (0.9, 0, 0.01),
        (1e-300, 0, 0.01),
        (1e300, 0, 0.01),
        (1e-300, 0.01, 1e-302),
        (1e300, 0.01, 1e298),
        (1.7e308, 0, 1e306),
        (1.7e308, 0.01, 1e306),
    ],
)
def test_select_on_constant_equal_scores_ends(tmp_path, value, noise, rope):
    csv = _constant_scores(tmp_path / "scores.csv", value, noise)
    proc, peak, err = run_cli(
        [
            "select",
            csv,
            "--baseline",
            "a",
            "--metric",
            "accuracy",
            "--rope",
            str(rope),
            "--report",
            tmp_path / "report",
        ],
        timeout=120,
    )
    # either a table with each warning once, or one clear error line: never a hang
    if proc.returncode == 0:
        assert "recommendation:" in proc.stdout
        assert len(err) == len(set(err)), err
    else:
        assert proc.returncode == 2 and len(err) == 1 and "error:" in err[0], err
    assert peak is not None and peak < PEAK_LIMIT_MIB


def test_select_across_datasets_with_a_warning_hierarchical_fit(tmp_path):
    """Too few draws: the hierarchical model's ConvergenceWarning, shown once per message."""
    rng = np.random.default_rng(3)
    rows = []
    for d in range(4):
        base = rng.normal(0.85, 0.02, 10)
        for model, shift in (("a", 0.0), ("b", 0.002)):
            for s in range(10):
                rows.append(
                    {
                        "dataset": f"d{d}",
                        "model": model,
                        "split": s,
                        "accuracy": base[s] + shift + rng.normal(0, 0.01),
                        "n_train": 90,
                        "n_test": 10,
                    }
                )
    csv = tmp_path / "many.csv"
    pd.DataFrame(rows).to_csv(csv, index=False)
    proc, peak, err = run_cli(
        [
            "select",
            csv,
            "--baseline",
            "a",
            "--metric",
            "accuracy",
            "--rope",
            "0.01",
            "--draws",
            "60",
            "--chains",
            "2",
            "--quiet",
            "--rule",
            "champion_challenger",
        ],
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "recommendation:" in proc.stdout
    conv = [ln for ln in err if "ConvergenceWarning" in ln]
    assert conv, err
    assert len(conv) == len(set(conv))  # each distinct message once
    # --quiet: the sampler's own log lines ("Sampling 2 chains ...") are silent
    assert not [ln for ln in err if "ConvergenceWarning" not in ln], err
    assert peak is not None and peak < PEAK_LIMIT_MIB


def test_json_into_a_closed_pipe_ends_without_a_traceback(tmp_path):
    csv = _constant_scores(tmp_path / "scores.csv")
    frame = pd.read_csv(csv)
    frame["accuracy"] += np.where(frame["model"] == "b", 0.01, 0.0) + np.tile(
        np.linspace(0, 0.01, 20), 3
    )
    frame.to_csv(csv, index=False)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "bayescomp",
            "select",
            str(csv),
            "--baseline",
            "a",
            "--metric",
            "accuracy",
            "--rope",
            "0.001",
            "--json",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.close()  # the reader is gone before anything is written (as `| head -0`)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipe" not in err, err


def test_json_output_is_still_complete(tmp_path):
    csv = _constant_scores(tmp_path / "scores.csv")
    frame = pd.read_csv(csv)
    frame["accuracy"] += np.tile(np.linspace(0, 0.01, 20), 3)
    frame.to_csv(csv, index=False)
    proc, _, _ = run_cli(
        ["select", csv, "--baseline", "a", "--metric", "accuracy", "--rope", "0.01", "--json"]
    )
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["champion"] == "a"


def test_counted_warnings_count_without_growing():
    import warnings

    with counted_warnings() as counts:
        for i in range(10_000):
            warnings.warn("same", RuntimeWarning, stacklevel=1)
            if i < 3:
                warnings.warn(f"distinct {i}", UserWarning, stacklevel=1)
    assert counts[(RuntimeWarning, "same")] == 10_000
    assert len(counts) == 4
    lines = format_warnings(counts, "compare")
    assert lines[0] == "bayescomp compare: RuntimeWarning (10000 times): same"
    assert "bayescomp compare: UserWarning: distinct 0" in lines
    # outside the block warnings go back to the caller's handler
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        warnings.warn("after", UserWarning, stacklevel=1)
    assert [str(w.message) for w in seen] == ["after"]


def test_a_fit_records_only_the_warnings_its_own_thread_raises():
    """The fits run in a thread of their own while the main thread replays the warnings
    of finished fits; a replay during a fit was counted as that fit's warning too."""
    import threading
    import warnings

    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.metrics import get_scorer

    from bayescomp.scores.engine import fit_and_score

    started, replayed = threading.Event(), threading.Event()

    class WarnsAfterTheReplay(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            started.set()
            assert replayed.wait(30)
            warnings.warn("the fit's own", ConvergenceWarning, stacklevel=1)
            self.classes_ = np.unique(y)
            return self

        def predict(self, X):
            return np.full(len(X), self.classes_[0])

    X, y = np.arange(40.0).reshape(20, 2), np.arange(20) % 2
    out: dict = {}
    rows = np.arange(20)
    fit = threading.Thread(
        target=lambda: out.update(
            fit=fit_and_score(
                WarnsAfterTheReplay(),
                X,
                y,
                rows[:15],
                rows[15:],
                {"accuracy": get_scorer("accuracy")},
            )
        )
    )
    with warnings.catch_warnings(record=True) as main_thread:
        fit.start()
        assert started.wait(30)
        warnings.warn("model 'x': a replay in the main thread", UserWarning, stacklevel=1)
        replayed.set()
        fit.join(30)
    assert out["fit"].warnings == ((ConvergenceWarning, "the fit's own", 1),)
    assert [str(w.message) for w in main_thread] == ["model 'x': a replay in the main thread"]
