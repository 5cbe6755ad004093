"""
MLflow UI and notebook screenshots
==================================

The screenshots of :doc:`/mlflow`.  The script starts a real ``mlflow server`` (SQLite
backend store, local artifacts, a free port on 127.0.0.1), registers a GaussianNB as the
production champion ``models:/fraud@champion``, runs a small gated selection against it
with :class:`bayescomp.integrations.mlflow.MlflowTracker`, and takes screenshots with
headless Chromium:

* ``mlflow_parent_run.png``: the selection's parent run (tags: decision, alias move);
* ``mlflow_step_run.png``: the nested run of step 1 (metrics, params, tags);
* ``mlflow_model.png``: the registered model with the ``champion`` alias;
* ``notebook_selection.png``: ``Selection._repr_html_`` as a notebook shows it.

The server is stopped at the end whatever happens (its whole process group, SIGKILL if it
does not stop within 10 s).  It needs the full ``mlflow`` package (in the ``test`` and
``docs`` extras).  **Without a Chromium binary** (``chromium``, ``chromium-browser``,
``google-chrome``) or when a screenshot fails, each image is instead drawn with matplotlib
from the same server's data (the run's tags, params and metrics read back with
``MlflowClient``; the selection's table for the notebook view), titled as such, so the
docs build still has every figure it shows.
"""

# %%
# A real tracking server, stopped whatever happens
# ------------------------------------------------
import contextlib
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

import matplotlib.pyplot as plt
from _docs import IMG, save

CHROMIUM = next(
    filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def mlflow_server(folder: Path):
    """Yield the URI of a fresh ``mlflow server``; stop it (and its workers) on exit."""
    port = _free_port()
    uri = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "mlflow",
            "server",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--backend-store-uri",
            f"sqlite:///{folder / 'mlflow.db'}",
            "--artifacts-destination",
            str(folder / "artifacts"),
            "--workers",
            "1",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"`mlflow server` exited with code {proc.returncode}; "
                    "install the full package: pip install -e '.[test]'"
                )
            try:
                with urllib.request.urlopen(f"{uri}/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("`mlflow server` did not answer /health in 120 s") from None
                time.sleep(0.5)
        yield uri
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


# %%
# The champion, the gated selection, the screenshots
# --------------------------------------------------
# ``shoot`` takes a screenshot with Chromium when it can; otherwise (or when Chromium
# fails) it calls ``draw``, which draws the same information with matplotlib.
def shoot(url: str, name: str, profile: Path, size: str, draw) -> None:
    if CHROMIUM is not None:
        try:
            subprocess.run(
                [
                    CHROMIUM,
                    "--headless",
                    "--no-sandbox",
                    "--disable-gpu",
                    "--hide-scrollbars",
                    "--virtual-time-budget=10000",
                    f"--user-data-dir={profile}",
                    f"--window-size={size}",
                    f"--screenshot={IMG / name}",
                    url,
                ],
                check=True,
                capture_output=True,
                timeout=90,
            )
            print("wrote", f"docs/img/{name}", "(Chromium)")
            return
        except (OSError, subprocess.SubprocessError) as err:
            print(f"Chromium failed ({type(err).__name__}); drawing {name} with matplotlib")
    else:
        print(f"no Chromium binary: drawing {name} with matplotlib")
    fig = draw()
    save(fig, name)
    plt.close(fig)


def table_figure(title: str, header: list[str], rows: list[list[str]]):
    """A table as a figure: the fallback for a screenshot."""
    height = 0.3 * (len(rows) + 1)
    fig = plt.figure(figsize=(11, height + 0.8))
    ax = fig.add_axes((0.01, 0.02, 0.98, height / (height + 0.8)))
    ax.axis("off")
    fig.suptitle(
        title + " (drawn with matplotlib: no Chromium for a screenshot)",
        x=0.01,
        ha="left",
        fontsize=10,
    )
    table = ax.table(
        cellText=[[str(c)[:80] for c in r] for r in rows] or [[""] * len(header)],
        colLabels=header,
        cellLoc="left",
        bbox=(0, 0, 1, 1),
    )
    table.auto_set_font_size(False)
    table.set_fontsize(8)
    return fig


def run_rows(client, run_id: str) -> list[list[str]]:
    data = client.get_run(run_id).data
    return (
        [
            ["tag", k, str(v)]
            for k, v in sorted(data.tags.items())
            if not k.startswith("mlflow.") or k == "mlflow.parentRunId"
        ]
        + [["param", k, str(v)] for k, v in sorted(data.params.items())]
        + [["metric", k, f"{v:.4g}"] for k, v in sorted(data.metrics.items())]
    )


def model_rows(client, name: str) -> list[list[str]]:
    model = client.get_registered_model(name)
    rows = [["alias", f"@{alias}", f"version {v}"] for alias, v in sorted(model.aliases.items())]
    return rows + [
        ["version", str(mv.version), f"run {mv.run_id}"]
        for mv in client.search_model_versions(f"name = '{name}'")
    ]


def selection_figure(sel):
    frame = sel.summary().reset_index(drop=True)
    cols = [
        c
        for c in (
            "step",
            "champion",
            "challenger",
            "champion_score",
            "challenger_score",
            "p_better",
            "p_right",
            "risk",
            "decision",
        )
        if c in frame.columns
    ]
    rows = [
        [f"{v:.4g}" if isinstance(v, float) else str(v) for v in r]
        for r in frame[cols].itertuples(index=False)
    ]
    return table_figure("Selection (notebook view)", cols, rows)


import mlflow  # noqa: E402
from mlflow import MlflowClient  # noqa: E402
from sklearn.datasets import load_breast_cancer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.pipeline import make_pipeline  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

import bayescomp as bc  # noqa: E402
from bayescomp.integrations.mlflow import MlflowTracker, registry_models  # noqa: E402
from bayescomp.splits.repeats import default_cv  # noqa: E402

KIND = ["kind", "name", "value"]
IMG.mkdir(parents=True, exist_ok=True)
X, y = load_breast_cancer(return_X_y=True)
tmp = Path(tempfile.mkdtemp(prefix="bc_mlflow_docs_"))
try:
    with mlflow_server(tmp) as uri:
        mlflow.set_tracking_uri(uri)
        client = MlflowClient(uri)
        with mlflow.start_run(run_name="train production model"):
            info = mlflow.sklearn.log_model(
                GaussianNB().fit(X, y), name="model", serialization_format="cloudpickle"
            )
        mv = mlflow.register_model(info.model_uri, "fraud")
        client.set_registered_model_alias("fraud", "champion", mv.version)
        models = {
            **registry_models(["models:/fraud@champion"], tracking_uri=uri),
            "logreg": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
        }
        tracker = MlflowTracker("fraud", tracking_uri=uri)
        sel = bc.select_models(
            models,
            X,
            y,
            baseline="fraud@champion",
            scoring="accuracy",
            rope=0.005,
            progress=False,
            tracker=tracker,
            cv=default_cv(y, n_splits=5, n_repeats=2),
        )
        print(sel)

        parent = client.get_run(tracker.parent_id)
        exp = parent.info.experiment_id
        steps = client.search_runs(
            [exp],
            filter_string=f"tags.`mlflow.parentRunId` = '{tracker.parent_id}'",
            order_by=["attributes.start_time ASC"],
        )
        step = steps[0].info.run_id
        shoot(
            f"{uri}/#/experiments/{exp}/runs/{tracker.parent_id}",
            "mlflow_parent_run.png",
            tmp / "p1",
            "1400,1000",
            lambda: table_figure("MLflow parent run", KIND, run_rows(client, tracker.parent_id)),
        )
        shoot(
            f"{uri}/#/experiments/{exp}/runs/{step}",
            "mlflow_step_run.png",
            tmp / "p2",
            "1400,1000",
            lambda: table_figure("MLflow step run", KIND, run_rows(client, step)),
        )
        shoot(
            f"{uri}/#/models/fraud",
            "mlflow_model.png",
            tmp / "p3",
            "1400,700",
            lambda: table_figure(
                "MLflow registered model fraud", KIND, model_rows(client, "fraud")
            ),
        )
        page = tmp / "notebook.html"
        page.write_text(
            "<!DOCTYPE html><meta charset='utf-8'><body style='margin:16px'>"
            + sel._repr_html_()
            + "</body>",
            encoding="utf-8",
        )
        shoot(
            page.as_uri(),
            "notebook_selection.png",
            tmp / "p4",
            "1000,900",
            lambda: selection_figure(sel),
        )
finally:
    shutil.rmtree(tmp, ignore_errors=True)
