"""SIGKILL of the parent of a ``--n-jobs 2`` run leaves no worker process behind (loky's
workers and resource tracker used to stay alive for a minute or more)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import alive, descendants

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="parent-death signals are a Linux feature"
)

SCRIPT = """
import time
import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
import bayescomp as bc


class Slow(BaseEstimator, ClassifierMixin):
    def fit(self, X, y):
        import os
        open(f"fitting-{os.getpid()}", "w").close()  # the test waits for two of these
        time.sleep(2.0)
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.zeros(len(X), dtype=int)


rng = np.random.default_rng(0)
X, y = rng.normal(size=(60, 3)), np.tile([0, 1], 30)
print("started", flush=True)
bc.cross_validate_paired({"a": Slow(), "b": Slow()}, X, y, cv=5, scoring="accuracy",
                         n_jobs=2, progress=False)
"""


def test_workers_exit_when_the_parent_is_killed(tmp_path):
    proc = subprocess.Popen(
        [sys.executable, "-c", SCRIPT],
        cwd=tmp_path,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout.readline().strip() == "started"
        deadline = time.monotonic() + 240  # worker start-up is slow on a loaded machine
        while time.monotonic() < deadline and len(list(tmp_path.glob("fitting-*"))) < 2:
            time.sleep(0.2)
        assert len(list(tmp_path.glob("fitting-*"))) >= 2, "the workers never started a fit"
        workers = descendants(proc.pid)  # loky's workers and resource trackers
        assert len(workers) >= 2
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and any(alive(w) for w in workers):
            time.sleep(0.2)
        left = sorted(w for w in workers if alive(w))
        assert not left, f"processes still alive 30 s after the parent's SIGKILL: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
        for w in descendants(proc.pid):
            with __import__("contextlib").suppress(OSError):
                os.kill(w, signal.SIGKILL)
