"""Regenerate the screenshots of docs/mlflow.md: the MLflow UI and the notebook display.

Starts a real ``mlflow server`` (SQLite backend store, local artifacts, a free port on
127.0.0.1), registers a GaussianNB as the production champion, runs a small gated
selection against it with :class:`bayescomp.integrations.mlflow.MlflowTracker`, and
screenshots with headless Chromium:

* ``docs/img/mlflow_parent_run.png`` — the selection's parent run (tags: decision, alias move);
* ``docs/img/mlflow_step_run.png`` — the nested run of step 1 (metrics, params, tags);
* ``docs/img/mlflow_model.png`` — the registered model with the ``champion`` alias;
* ``docs/img/notebook_selection.png`` — ``Selection._repr_html_`` as a notebook shows it.

Run from the repository root: ``python docs/scripts/mlflow_screenshots.py`` (needs
``pip install -e ".[test]"`` and a ``chromium`` binary).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
IMG = ROOT / "docs" / "img"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(uri: str, proc: subprocess.Popen) -> None:
    for _ in range(180):
        if proc.poll() is not None:
            raise RuntimeError("mlflow server exited")
        try:
            with urllib.request.urlopen(f"{uri}/health", timeout=2):
                return
        except OSError:
            time.sleep(1)
    raise RuntimeError("mlflow server did not answer /health")


def _shot(url: str, out: Path, profile: Path, size: str = "1400,1000") -> None:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    subprocess.run([binary, "--headless", "--no-sandbox", "--disable-gpu",
                    "--hide-scrollbars", "--virtual-time-budget=20000",
                    f"--user-data-dir={profile}", f"--window-size={size}",
                    f"--screenshot={out}", url], check=True, capture_output=True, timeout=180)
    print("wrote", out.relative_to(ROOT))


def _selection(uri: str) -> tuple[object, object]:
    import mlflow
    from mlflow import MlflowClient
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    import bayescomp as bc
    from bayescomp.integrations.mlflow import MlflowTracker, registry_models

    X, y = load_breast_cancer(return_X_y=True)
    mlflow.set_tracking_uri(uri)
    with mlflow.start_run(run_name="train production model"):
        info = mlflow.sklearn.log_model(GaussianNB().fit(X, y), name="model",
                                        serialization_format="cloudpickle")
    mv = mlflow.register_model(info.model_uri, "fraud")
    MlflowClient(uri).set_registered_model_alias("fraud", "champion", mv.version)
    models = {**registry_models(["models:/fraud@champion"], tracking_uri=uri),
              "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))}
    tracker = MlflowTracker("fraud", tracking_uri=uri)
    sel = bc.select(models, X, y, baseline="fraud@champion", scoring="accuracy", rope=0.005,
                    n_splits=5, n_repeats=2, progress=False, tracker=tracker)
    print(sel)
    return sel, tracker


def main() -> None:
    sys.path.insert(0, str(ROOT))
    import matplotlib

    matplotlib.use("Agg")
    tmp = Path(tempfile.mkdtemp(prefix="bc_mlflow_docs_"))
    port = _free_port()
    uri = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mlflow", "server", "--host", "127.0.0.1", "--port", str(port),
         "--backend-store-uri", f"sqlite:///{tmp / 'mlflow.db'}", "--artifacts-destination",
         str(tmp / "artifacts"), "--workers", "1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait(uri, proc)
        sel, tracker = _selection(uri)
        exp = tracker._exp_id
        step = tracker._children[1].info.run_id
        IMG.mkdir(parents=True, exist_ok=True)
        _shot(f"{uri}/#/experiments/{exp}/runs/{tracker.parent_id}",
              IMG / "mlflow_parent_run.png", tmp / "p1")
        _shot(f"{uri}/#/experiments/{exp}/runs/{step}", IMG / "mlflow_step_run.png", tmp / "p2")
        _shot(f"{uri}/#/models/fraud", IMG / "mlflow_model.png", tmp / "p3", "1400,700")
        page = tmp / "notebook.html"
        page.write_text("<!DOCTYPE html><meta charset='utf-8'><body style='margin:16px'>"
                        + sel._repr_html_() + "</body>", encoding="utf-8")
        _shot(page.as_uri(), IMG / "notebook_selection.png", tmp / "p4", "1000,900")
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
