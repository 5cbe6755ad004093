"""The MLflow bridge against a real MLflow tracking server (SQLite backend, local artifacts).

The session fixture starts ``mlflow server`` on 127.0.0.1 on a free port, waits for
``/health`` with bounded retries and stops it afterwards.  Designs are small (5×2 CV).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import urllib.request

import numpy as np
import pandas as pd
import pytest
import scipy.stats
from processes import spawn, stop
from scipy import stats
from sklearn.model_selection import RepeatedStratifiedKFold

mlflow = pytest.importorskip("mlflow")
pytestmark = pytest.mark.xdist_group("mlflow")  # one server per run, not one per worker

import bayescomp as bc  # noqa: E402
from bayescomp.integrations.mlflow import (  # noqa: E402
    BayesianThreshold,
    MlflowTracker,
    alias_history,
    registry_models,
    validate,
)

DESIGN = dict(
    scoring="accuracy",
    rope=0.005,
    cv=RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0),
    progress=False,
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("mlflow_server")
    port = _free_port()
    log = open(root / "server.log", "w")  # noqa: SIM115 - closed after the server stops
    proc = spawn(  # dies with this process, its workers too (issue 41, item 9)
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
            f"sqlite:///{root / 'mlflow.db'}",
            "--artifacts-destination",
            str(root / "artifacts"),
            "--workers",
            "1",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    uri = f"http://127.0.0.1:{port}"
    try:
        for _ in range(120):  # bounded: at most ~120 s
            if proc.poll() is not None:
                pytest.fail(f"mlflow server exited: {(root / 'server.log').read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{uri}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                time.sleep(1)
        else:
            pytest.fail("mlflow server did not answer /health within 120 s")
        yield uri
    finally:
        stop(proc)
        log.close()


@pytest.fixture(scope="module")
def data():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _lr():
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000))


def _register_nb(uri, name, X, y):
    """The production champion: GaussianNB registered as version 1 with alias champion."""
    from mlflow import MlflowClient
    from sklearn.naive_bayes import GaussianNB

    mlflow.set_tracking_uri(uri)
    with mlflow.start_run(run_name="train production model"):
        info = mlflow.sklearn.log_model(
            GaussianNB().fit(X, y), name="model", serialization_format="cloudpickle"
        )
    client = MlflowClient(uri)
    mv = mlflow.register_model(info.model_uri, name)
    client.set_registered_model_alias(name, "champion", mv.version)
    return client


def _small_data():
    from sklearn.datasets import load_iris

    return load_iris(return_X_y=True)


def _runs(client, kind):
    exp = client.get_experiment_by_name("bayescomp")
    return client.search_runs(
        [exp.experiment_id], filter_string=f"tags.`bayescomp.kind` = '{kind}'"
    )


def test_registry_champion_to_gated_promotion(server, data):
    X, y = data
    client = _register_nb(server, "bc_promote", X, y)
    models = {**registry_models(["models:/bc_promote@champion"], tracking_uri=server), "lr": _lr()}
    assert models["bc_promote@champion"].path == "models:/bc_promote/1"
    tracker = MlflowTracker("bc_promote", tracking_uri=server)
    sel = bc.select_models(models, X, y, baseline="bc_promote@champion", tracker=tracker, **DESIGN)
    assert sel.steps["decision"].tolist() == ["promote"] and sel.champion == "lr"

    # one parent run, one nested step run with the step's numbers
    parent = client.get_run(tracker.parent_id)
    assert parent.info.status == "FINISHED"
    assert parent.data.tags["bayescomp.action"] == "promote"
    # the default family rule decided; one challenger: its simultaneous lower bound is the
    # correlated t posterior's 5 % quantile
    assert parent.data.tags["bayescomp.rule"] == "family" == sel.recommendation["rule"]
    assert parent.data.metrics["gain_lower"] == pytest.approx(sel.recommendation["gain_lower"])
    post = sel.results[0]
    assert sel.recommendation["gain_lower"] == pytest.approx(
        scipy.stats.t.ppf(0.05, post.df, post.mean, post.scale), rel=1e-6
    )
    steps = [
        r for r in _runs(client, "step") if r.data.tags["mlflow.parentRunId"] == tracker.parent_id
    ]
    assert len(steps) == 1
    run, row = steps[0], sel.steps.iloc[0]
    for k in ("p_better", "p_left", "p_rope", "p_right", "risk", "expected_gain"):
        assert run.data.metrics[k] == pytest.approx(float(row[k]), abs=1e-12)
    lo, hi = sel.results[0].hdi(0.95)
    assert run.data.metrics["hdi95_low"] == pytest.approx(lo)
    assert run.data.metrics["hdi95_high"] == pytest.approx(hi)
    assert run.data.params["rope"] == "0.005" and run.data.params["rho"] == str(sel.results[0].rho)
    assert json.loads(run.data.params["design_fingerprint"]) == sel.settings["design_fingerprint"]
    assert run.data.tags["bayescomp.decision"] == "promote"
    assert run.data.tags["bayescomp.reason"] == row["reason"]
    arts = {a.path for a in client.list_artifacts(run.info.run_id)}
    assert arts == {"paired_scores.csv", "posterior.png", "paired_scores.png"}
    csv = mlflow.artifacts.download_artifacts(
        run_id=run.info.run_id, artifact_path="paired_scores.csv", tracking_uri=server
    )
    np.testing.assert_allclose(pd.read_csv(csv)["challenger"], sel.paired[0]["challenger"])
    assert "report.html" in {
        a.path.split("/")[-1] for a in client.list_artifacts(tracker.parent_id, "report")
    }

    # the alias moved to a new version holding the refitted champion
    mv = client.get_model_version_by_alias("bc_promote", "champion")
    assert mv.version == "2"
    prod = registry_models(["models:/bc_promote@champion"], tracking_uri=server)
    np.testing.assert_array_equal(
        prod["bc_promote@champion"].estimator.predict(X), sel.refit_champion().predict(X)
    )
    hist = alias_history("bc_promote", tracking_uri=server)
    assert hist[["action", "from_version", "to_version"]].values.tolist() == [["moved", "1", "2"]]
    # the move is done: no pending_from tag is left on the run (issue 23 item 19)
    assert "bayescomp.alias.pending_from" not in client.get_run(tracker.parent_id).data.tags

    # rerunning the same selection logs nothing twice and leaves the alias alone
    n_parent, n_step = len(_runs(client, "selection")), len(_runs(client, "step"))
    again = MlflowTracker("bc_promote", tracking_uri=server)
    bc.select_models(models, X, y, baseline="bc_promote@champion", tracker=again, **DESIGN)
    assert again.resumed and again.parent_id == tracker.parent_id
    assert (len(_runs(client, "selection")), len(_runs(client, "step"))) == (n_parent, n_step)
    assert len(client.search_model_versions("name='bc_promote'")) == 2
    assert len(alias_history("bc_promote", tracking_uri=server)) == 1


def test_keep_is_a_recorded_refusal(server, data):
    X, y = data
    from sklearn.naive_bayes import GaussianNB

    client = _register_nb(server, "bc_keep", X, y)
    tracker = MlflowTracker("bc_keep", tracking_uri=server)
    sel = bc.select_models(
        {"lr": _lr(), "nb": GaussianNB()}, X, y, baseline="lr", tracker=tracker, **DESIGN
    )
    assert sel.recommendation["action"] == "keep"
    assert client.get_model_version_by_alias("bc_keep", "champion").version == "1"
    hist = alias_history("bc_keep", tracking_uri=server)
    assert hist["action"].tolist() == ["refused"]
    assert hist["reason"][0] == sel.recommendation["text"]
    assert hist["from_version"][0] == hist["to_version"][0] == "1"


_KILLED_RUN = """
import os, signal, sys
import bayescomp as bc
from sklearn.model_selection import RepeatedStratifiedKFold
from bayescomp.splits.repeats import default_cv
from sklearn.datasets import load_breast_cancer
from sklearn.naive_bayes import GaussianNB
from sklearn.tree import DecisionTreeClassifier
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from bayescomp.integrations.mlflow import MlflowTracker

class Dies(MlflowTracker):
    def on_step(self, step, result, paired):
        super().on_step(step, result, paired)
        if os.environ.get("BC_KILL_AFTER") == str(step["step"]):
            os.kill(os.getpid(), signal.SIGKILL)

X, y = load_breast_cancer(return_X_y=True)
models = {"nb": GaussianNB(),
          "lr": make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)),
          "tree": DecisionTreeClassifier(max_depth=1, random_state=0)}
sel = bc.select_models(models, X, y, baseline="nb", scoring="accuracy", rope=0.005, cv=default_cv(y, n_splits=5,
                n_repeats=2), progress=False, store=sys.argv[2],
                tracker=Dies(sys.argv[3], tracking_uri=sys.argv[1]))
print("RESULT", sel.fits_loaded, sel.steps["decision"].tolist())
"""


@pytest.mark.slow  # ~80 s: two selections through a real server; the resume itself is tested without MLflow in test_store and test_backends
def test_killed_selection_resumes_without_duplicates(server, tmp_path):
    script = tmp_path / "run.py"
    script.write_text(textwrap.dedent(_KILLED_RUN))
    store = tmp_path / "store.sqlite"
    args = [sys.executable, str(script), server, str(store), "bc_resume"]
    env = {**os.environ, "BC_KILL_AFTER": "1"}
    killed = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    from mlflow import MlflowClient

    client = MlflowClient(server)
    parents = [
        r
        for r in _runs(client, "selection")
        if r.data.params.get("baseline") == "nb"
        and r.data.tags.get("bayescomp.identity")
        and r.info.status == "RUNNING"
    ]
    assert len(parents) == 1
    pid = parents[0].info.run_id
    kids = lambda: [  # noqa: E731
        r for r in _runs(client, "step") if r.data.tags["mlflow.parentRunId"] == pid
    ]
    assert [r.data.tags["bayescomp.step"] for r in kids()] == ["1"]
    env.pop("BC_KILL_AFTER")
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = next(x for x in done.stdout.splitlines() if x.startswith("RESULT "))
    loaded, decisions = line.split(" ", 2)[1:]
    assert int(loaded) == 30  # every fit came back from the store: nothing refitted
    assert sorted(r.data.tags["bayescomp.step"] for r in kids()) == ["1", "2"]
    assert client.get_run(pid).info.status == "FINISHED"
    assert eval(decisions)[0] == "promote"
    hist = alias_history("bc_resume", tracking_uri=server)
    assert hist["action"].tolist() == ["moved"]
    assert len(client.search_model_versions("name='bc_resume'")) == 1
    # a third run finds everything done: still one move, one version, two step runs
    assert subprocess.run(args, env=env, capture_output=True, timeout=300).returncode == 0
    assert len(kids()) == 2 and len(alias_history("bc_resume", tracking_uri=server)) == 1
    assert len(client.search_model_versions("name='bc_resume'")) == 1


@pytest.mark.parametrize("where", ["default", "file"])
def test_default_and_file_store_uris(where, tmp_path, monkeypatch):
    """No URI given: MLflow's own default (``sqlite:///mlflow.db`` in the working folder in
    MLflow 3, ``./mlruns`` before); and a ``file:`` store given by MLFLOW_TRACKING_URI."""
    from mlflow import MlflowClient

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    if where == "file":
        monkeypatch.setenv("MLFLOW_ALLOW_FILE_STORE", "true")  # MLflow 3: opt in
        monkeypatch.setenv("MLFLOW_TRACKING_URI", (tmp_path / "mlruns").as_uri())
    mlflow.set_tracking_uri(None)  # forget what an earlier test set: back to the default
    rng = np.random.default_rng(3)
    base = rng.normal(0.8, 0.02, 20)
    f = pd.DataFrame(
        {
            "model": np.repeat(["a", "b"], 20),
            "split": np.tile(range(20), 2),
            "acc": np.r_[base, base + 0.03 + rng.normal(0, 0.005, 20)],
            "n_train": 90,
            "n_test": 10,
        }
    )
    tracker = MlflowTracker()  # no registry model: tracking only, MLflow's default URI
    sel = bc.select(
        bc.Scores.from_frame(f, metrics=["acc"]),
        baseline="a",
        rope=0.01,
        higher_is_better=True,
        tracker=tracker,
        metric="acc",
    )
    run = MlflowClient().get_run(tracker.parent_id)
    assert run.data.tags["bayescomp.action"] == "promote"
    assert run.data.metrics["p_right"] == pytest.approx(sel.recommendation["p_right"])
    written = {p.name for p in tmp_path.iterdir()}
    assert ("mlruns" in written) if where == "file" else written & {"mlflow.db", "mlruns"}


def _paired_scores(shift, seed=0, n=20):
    rng = np.random.default_rng(seed)
    base = rng.normal(0.85, 0.02, n)
    cand = base + shift + rng.normal(0, 0.004, n)
    f = pd.DataFrame(
        {
            "model": np.repeat(["prod", "new"], n),
            "split": np.tile(range(n), 2),
            "accuracy": np.r_[base, cand],
            "n_train": 90,
            "n_test": 10,
        }
    )
    return bc.Scores.from_frame(f, metrics=["accuracy"]), cand - base


def test_bayesian_threshold_validate_passes_and_fails_from_the_posterior():
    from mlflow.models.evaluation.validation import ModelValidationFailedException

    scores, diff = _paired_scores(0.02)
    out = validate(scores, "new", "prod", [BayesianThreshold("accuracy", rope=0.01)])
    # independent: Nadeau–Bengio corrected Student t posterior of the mean difference
    n, rho = len(diff), 0.1
    post = stats.t(
        n - 1, loc=diff.mean(), scale=np.sqrt(diff.var(ddof=1) * (1 / n + rho / (1 - rho)))
    )
    assert out["accuracy"].outcome == "promote"
    assert out["accuracy"].p_right == pytest.approx(post.sf(0.01), rel=1e-9)
    with pytest.raises(ModelValidationFailedException, match="accuracy: inconclusive") as e:
        validate(scores, "new", "prod", {"accuracy": BayesianThreshold("accuracy", rope=0.019)})
    assert "new did not pass" in str(e.value)
    # lower is better: the same scores read as an error rate fail with worse
    with pytest.raises(ModelValidationFailedException, match="accuracy: worse"):
        validate(
            scores,
            "new",
            "prod",
            [BayesianThreshold("accuracy", rope=0.01, greater_is_better=False)],
        )
    with pytest.raises(ValueError, match="gamma"):
        BayesianThreshold("accuracy", rope=0.01, gamma=1.5)


def test_registry_uri_errors_say_what_to_write(server):
    with pytest.raises(ValueError, match="models:/NAME/VERSION"):
        registry_models(["models:/oops"], tracking_uri=server)
    with pytest.raises(ValueError, match="not found in the registry") as missing:
        registry_models(["models:/no_such_model/7"], tracking_uri=server)
    # MLflow 3 has no `mlflow models list`; the message lists the registry itself
    from mlflow import MlflowClient

    held = sorted(m.name for m in MlflowClient(server).search_registered_models(max_results=20))
    text = str(missing.value)
    assert "mlflow models list" not in text and "no registered model 'no_such_model'" in text
    assert f"the registry holds {held}" in text or (
        not held and "the registry holds no model" in text
    )
    assert "mlflow.register_model(" in text and "set_registered_model_alias" in text
    client = _register_nb(server, "bc_hint", *_small_data())
    with pytest.raises(ValueError, match=r"model 'bc_hint' has versions \[1\] and aliases: ") as e:
        registry_models(["models:/bc_hint/9"], tracking_uri=server)
    assert "champion -> 1; write models:/bc_hint/1 or models:/bc_hint@champion" in str(e.value)
    assert client.get_registered_model("bc_hint").aliases == {"champion": "1"}  # independent


def test_cli_registry_candidates_and_gate(server, data, tmp_path, capsys):
    from bayescomp.cli.main import main

    X, y = data
    client = _register_nb(server, "bc_cli", X, y)
    models = tmp_path / "models"
    models.mkdir()
    (models / "lr.py").write_text(
        '"""Scaled logistic regression."""\nfrom sklearn.linear_model import LogisticRegression\n'
        "from sklearn.pipeline import make_pipeline\nfrom sklearn.preprocessing import "
        "StandardScaler\nmodel = make_pipeline(StandardScaler(), LogisticRegression("
        "max_iter=5000))\n"
    )
    args = [
        "select",
        "models:/bc_cli@champion",
        str(models),
        "--dataset",
        "breast_cancer",
        "--baseline",
        "bc_cli@champion",
        "--metric",
        "accuracy",
        "--rope",
        "0.005",
        "--n-splits",
        "5",
        "--n-repeats",
        "2",
        "--quiet",
        "--mlflow-model",
        "bc_cli",
        "--mlflow-uri",
        server,
        "--json",
    ]
    capsys.readouterr()  # MLflow's own "View run" lines of the registration above
    assert main([*args, "--fail-unless", "keep"]) == 1  # the gate fails: lr is promoted
    rec = json.loads(capsys.readouterr().out)
    assert rec["champion"] == "lr" and rec["gate"] == {"condition": "keep", "met": False}
    assert client.get_model_version_by_alias("bc_cli", "champion").version == "2"
    # the same command next time: @champion is now the refitted lr (version 2), the lr file
    # is the same procedure (every split scores the same: equivalent), so the alias stays
    assert main([*args, "--fail-unless", "keep"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert rec["steps"][0]["decision"] == "equivalent" and rec["steps"][0]["p_rope"] == 1.0
    hist = alias_history("bc_cli", tracking_uri=server)
    assert hist[["action", "from_version", "to_version"]].values.tolist() == [
        ["moved", "1", "2"],
        ["refused", "2", "2"],
    ]


def test_pointing_mlflow_at_a_server_leaves_the_registry_following_tracking(tmp_path, monkeypatch):
    """After bayescomp points MLflow's global URIs at a server and restores them, a registry
    URI nobody set follows the tracking URI again (it was pinned to the server before: the
    next server's ``register_model`` then created versions on the old one and got 500s),
    and one a user set is kept."""
    import mlflow

    from bayescomp.integrations import mlflow as bridge

    monkeypatch.delenv("MLFLOW_REGISTRY_URI", raising=False)
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    mlflow.set_registry_uri(None)
    a, b, c = (f"sqlite:///{tmp_path / n}.db" for n in "abc")
    mlflow.set_tracking_uri(a)
    try:
        with bridge._tracking(b):
            assert mlflow.get_registry_uri() == b
        assert mlflow.get_tracking_uri() == a and mlflow.get_registry_uri() == a
        mlflow.set_tracking_uri(c)
        assert mlflow.get_registry_uri() == c  # follows, not pinned to a or b
        assert "MLFLOW_REGISTRY_URI" not in os.environ
        mlflow.set_registry_uri(a)  # a user's own registry stays theirs
        with bridge._tracking(b):
            pass
        assert mlflow.get_registry_uri() == a and mlflow.get_tracking_uri() == c
    finally:
        mlflow.set_registry_uri(None)
        os.environ.pop("MLFLOW_REGISTRY_URI", None)


def test_several_thresholds_hold_together_at_gamma():
    """k thresholds are each decided at 1 − (1 − γ)/k (before: each at γ, so together they
    held with probability below γ): a threshold whose P(better beyond its ROPE) is 0.96
    passes alone at γ = 0.95 and fails beside a second one (needs 0.975)."""
    from mlflow.models.evaluation.validation import ModelValidationFailedException

    scores, diff = _paired_scores(0.02)
    n, rho = len(diff), 0.1
    post = stats.t(
        n - 1, loc=diff.mean(), scale=np.sqrt(diff.var(ddof=1) * (1 / n + rho / (1 - rho)))
    )
    rope = float(post.isf(0.96))  # P(difference > rope) = 0.96, by the independent posterior
    alone = validate(scores, "new", "prod", [BayesianThreshold("accuracy", rope=rope)])
    assert alone["accuracy"].outcome == "promote" and alone["accuracy"].gamma == 0.95
    two = bc.Scores.from_frame(scores.to_frame().assign(f1=lambda f: f["accuracy"]))
    pair = [BayesianThreshold("accuracy", rope=rope), BayesianThreshold("f1", rope=0.0)]
    with pytest.raises(ModelValidationFailedException, match="accuracy: inconclusive"):
        validate(two, "new", "prod", pair)
    with pytest.raises(ValueError, match="one threshold per metric"):
        validate(scores, "new", "prod", [pair[0], BayesianThreshold("accuracy", rope=0.0)])
