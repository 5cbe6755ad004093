"""Issue 33 (MLflow half): the ``bayescomp`` evaluator plugin of ``mlflow.models.evaluate`` and
``compare_runs`` over two ``mlflow.genai.evaluate`` runs.

The round trips run against a real ``mlflow server`` on 127.0.0.1 (the session fixture of
tests/test_mlflow.py); GenAI runs use plain Python predict functions and ``@scorer``
functions, no LLM.  They take about a minute together, so they are marked slow.  The
pairing rule, the config errors and the coverage simulation need no server.

The parity test with MLflow 3.18's ``compare_evaluations`` runs where it imports: MLflow
3.18 needs ``mlflow-skinny==3.18.0``, which the package index here lacks, but its wheel
installed with ``--no-deps`` beside skinny 3.17.2 imports and runs (docs/mlflow.md).
"""

from __future__ import annotations

import importlib.util
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

mlflow = pytest.importorskip("mlflow")
pytestmark = pytest.mark.xdist_group("mlflow")

from cli_run import run_cli  # noqa: E402
from test_mlflow import server  # noqa: E402, F401 - the session's real mlflow server

from bayescomp.integrations.mlflow_evaluator import read_config  # noqa: E402
from bayescomp.integrations.mlflow_runs import EvalRow, feedback_value, pair_rows  # noqa: E402

BENCH = Path(__file__).resolve().parents[1] / "bench" / "mlflow_compare_runs.py"


# ------------------------------------------------------------------ no server
def _row(tid, rid=None, h=None, **values):
    return EvalRow(tid, rid, h, {"q": tid}, values)


def test_pairing_request_id_first_then_inputs_and_duplicates_pair_nothing():
    base = [
        _row("b1", "r1", "h1", s=1.0),
        _row("b2", None, "h2", s=0.0),
        _row("b3", "rX", "h3", s=1.0),  # its request ID is on no candidate row
        _row("b4", None, "h4", s=1.0),  # h4 twice in the candidate: ambiguous
        _row("b5", None, "h5", s=0.0),  # no match at all
    ]
    cand = [
        _row("c1", "r1", "hZ", s=1.0),  # inputs differ, request ID pairs it
        _row("c2", "rY", "h2", s=1.0),
        _row("c3", None, "h3", s=0.0),
        _row("c4a", None, "h4", s=1.0),
        _row("c4b", None, "h4", s=1.0),
    ]
    pairs, un_b, un_c = pair_rows(base, cand)
    got = [(b.trace_id, c.trace_id, on) for b, c, on in pairs]
    assert got == [
        ("b1", "c1", "request_id"),
        ("b2", "c2", "inputs_hash"),
        ("b3", "c3", "inputs_hash"),
    ]
    assert [r.trace_id for r in un_b] == ["b4", "b5"]
    assert [r.trace_id for r in un_c] == ["c4a", "c4b"]


def test_feedback_values_are_cast_as_mlflow_aggregates_them():
    assert [feedback_value(v) for v in (True, False, 3, 2.5, "yes", "No")] == [
        1.0,
        0.0,
        3.0,
        2.5,
        1.0,
        0.0,
    ]
    assert feedback_value("maybe") is None and feedback_value({"a": 1}) is None


@pytest.mark.parametrize(
    "model_type, config, message",
    [
        ("classifier", {"rope": 0.01, "metric": "roc_auc"}, r"lacks \['baseline'\]"),
        ("classifier", {"baseline": "models:/m@c", "metric": "roc_auc"}, r"lacks \['rope'\]"),
        ("classifier", {"baseline": "models:/m@c", "rope": 0.01, "metric": "nope"}, "not a metric"),
        ("classifier", {"baseline": "models:/m@c", "rope": 0.01, "metric": "mse"}, "regressor's"),
        ("regressor", {"baseline": "models:/m@c", "rope": 0.01, "metric": "f1"}, "classifier's"),
        (
            "classifier",
            {"baseline": "m", "rope": 0.01, "metric": "f1", "alpha": 1},
            r"unknown keys \['alpha'\]",
        ),
        ("text", {"baseline": "m", "rope": 0.01, "metric": "f1"}, "'classifier' or a 'regressor'"),
        ("classifier", {"baseline": "m", "rope": -1, "metric": "f1"}, "rope"),
    ],
)
def test_evaluator_config_errors_are_clear(model_type, config, message):
    with pytest.raises(ValueError, match=message):
        read_config(model_type, config)


def test_evaluator_config_canonical_metric():
    cfg = read_config("classifier", {"baseline": "models:/m@c", "rope": 0.01, "metric": "AUC"})
    assert cfg == {"baseline": "models:/m@c", "rope": 0.01, "metric": "roc_auc", "gamma": 0.95}


def _bench():
    spec = importlib.util.spec_from_file_location("mlflow_compare_runs", BENCH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_clustered_coverage_beats_the_row_bootstrap():
    """100 seeded runs of 100 clusters x 10 rows, ICC 0.3 (bench/mlflow_compare_runs.py has
    1,000): compare_runs' interval covers 95 % within binomial tolerance (3 standard
    errors, 2.2 points each), MLflow's row bootstrap (BCa) covers far less (about 70 %:
    the design effect is 3.7)."""
    reps = 100
    post, boot = _bench().coverage(reps, seed=7, draws=1000, n_resamples=1000)
    se = np.sqrt(0.95 * 0.05 / reps)
    assert abs(post - 0.95) <= 3 * se, post
    assert boot < 0.85 and boot < post - 0.1, (post, boot)
    # the binomial test of the row bootstrap at its nominal 95 % rejects it
    assert stats.binomtest(round(boot * reps), reps, 0.95).pvalue < 1e-6


# ------------------------------------------------------------- real server
@pytest.fixture
def tracking(server):  # noqa: F811
    old = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(server)
    yield server
    _leave(old)


def _leave(old_uri: str) -> None:
    """Back to the tracking URI before, and to the Default experiment (id 0 on every server):
    an experiment set here would be the active one of the next module's server too."""
    mlflow.set_experiment(experiment_id="0")
    mlflow.set_tracking_uri(old_uri)


def _fit_models():
    from sklearn.datasets import load_breast_cancer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.5, random_state=0, stratify=y)
    strong = make_pipeline(StandardScaler(), LogisticRegression(max_iter=5000)).fit(Xtr, ytr)
    stump = DecisionTreeClassifier(max_depth=1, random_state=0).fit(Xtr, ytr)
    return strong, stump, Xte, yte


@pytest.mark.slow
def test_evaluator_round_trip_gates_with_validate_evaluation_results(tracking):
    from mlflow import MlflowClient
    from mlflow.models import MetricThreshold
    from mlflow.models.evaluation.validation import ModelValidationFailedException
    from sklearn.metrics import roc_auc_score

    strong, stump, Xte, yte = _fit_models()
    mlflow.set_experiment("i33-evaluator")
    uris = {}
    for name, model in (("strong", strong), ("stump", stump)):
        with mlflow.start_run(run_name=name):
            uris[name] = mlflow.sklearn.log_model(
                model, name="model", serialization_format="cloudpickle"
            ).model_uri
        v = mlflow.register_model(uris[name], f"i33_{name}").version
        MlflowClient().set_registered_model_alias(f"i33_{name}", "champion", v)
    gate = {
        "bayescomp/p_better_beyond_rope": MetricThreshold(threshold=0.95, greater_is_better=True)
    }
    data = Xte.assign(label=yte)
    out = {}
    for cand, base in (("strong", "stump"), ("stump", "strong")):
        config = {"baseline": f"models:/i33_{base}@champion", "rope": 0.01, "metric": "roc_auc"}
        with mlflow.start_run(run_name=f"{cand} vs {base}") as run:
            out[cand] = mlflow.models.evaluate(
                uris[cand], data, targets="label", model_type="classifier",
                evaluators="bayescomp", evaluator_config=config,
            )  # fmt: skip
        logged = MlflowClient().get_run(run.info.run_id).data
        assert {k: v for k, v in logged.metrics.items() if k.startswith("bayescomp/")} == (
            pytest.approx(out[cand].metrics)
        )
        assert logged.tags["bayescomp.decision"] == ("promote" if cand == "strong" else "worse")
        arts = MlflowClient().list_artifacts(run.info.run_id, "bayescomp")
        assert sorted(a.path for a in arts) == ["bayescomp/posterior.png", "bayescomp/result.json"]
    m = out["strong"].metrics
    assert set(m) == {
        f"bayescomp/{k}"
        for k in ("p_better_beyond_rope", "p_rope", "p_worse_beyond_rope", "ci_low", "ci_high")
    } | {"bayescomp/expected_gain"}
    assert sum(
        m[f"bayescomp/{k}"] for k in ("p_better_beyond_rope", "p_rope", "p_worse_beyond_rope")
    ) == pytest.approx(1)
    # the posterior's mean gain is the AUC difference sklearn computes on the same rows
    p_strong, p_stump = strong.predict_proba(Xte)[:, 1], stump.predict_proba(Xte)[:, 1]
    auc_gain = roc_auc_score(yte, p_strong) - roc_auc_score(yte, p_stump)
    assert m["bayescomp/expected_gain"] == pytest.approx(auc_gain, abs=0.01)
    assert m["bayescomp/ci_low"] < auc_gain < m["bayescomp/ci_high"]
    assert out["stump"].metrics["bayescomp/expected_gain"] == pytest.approx(-auc_gain, abs=0.01)
    # MLflow's own gate passes the better candidate and fails the worse one
    mlflow.validate_evaluation_results(gate, out["strong"])
    with pytest.raises(ModelValidationFailedException, match="p_better_beyond_rope"):
        mlflow.validate_evaluation_results(gate, out["stump"])


def _scorers():
    from mlflow.entities import Feedback
    from mlflow.genai.scorers import scorer

    @scorer
    def exact(outputs, expectations):
        return outputs["answer"] == expectations["answer"]

    @scorer
    def grade(outputs):
        return float(outputs["grade"])

    @scorer
    def votes(outputs):  # two feedbacks of one name per trace: averaged
        return [Feedback(name="votes", value=bool(v)) for v in outputs["votes"]]

    return [exact, grade, votes]


def _agent(edge: float):
    def predict(question: str, passage: str) -> dict:
        i, p = int(question.split()[-1]), int(passage.split("-")[-1])
        rng = np.random.default_rng(1000 * p + i)
        hard, luck = rng.normal(0, 1), rng.normal(0, 1, 2)
        right = bool(luck[0] + 1.5 * edge > hard)
        grade = float(3 + edge * (1 + p % 3) + 0.5 * hard + 0.3 * luck[1])
        return {
            "answer": "right" if right else "wrong",
            "grade": grade,
            "votes": [right, bool(grade > 3.5)],
        }

    return predict


def _rows(ids):
    return [
        {
            "inputs": {"question": f"question {i}", "passage": f"passage-{i // 6}"},
            "expectations": {"answer": "right"},
        }
        for i in ids
    ]


@pytest.fixture(scope="module")
def genai_runs(server):  # noqa: F811
    """A baseline run on rows 0-47 and three candidates: the same rows; rows 6-53 (6
    unpaired on each side); rows 0-47 with row 3 twice (row 3 ambiguous)."""
    old = mlflow.get_tracking_uri()
    mlflow.set_tracking_uri(server)
    mlflow.set_experiment("i33-genai")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")

        def ev(ids, edge):
            return mlflow.genai.evaluate(
                data=_rows(ids), predict_fn=_agent(edge), scorers=_scorers()
            ).run_id

        runs = {
            "baseline": ev(range(48), 0.0),
            "same": ev(range(48), 0.8),
            "shifted": ev(range(6, 54), 0.8),
            "duplicate": ev([*range(48), 3], 0.8),
        }
    yield runs
    _leave(old)


@pytest.mark.slow
def test_compare_runs_on_real_genai_runs(genai_runs, tracking, tmp_path):
    from bayescomp.integrations.mlflow import compare_runs

    base, env = genai_runs["baseline"], {"MLFLOW_TRACKING_URI": tracking}
    every = {"exact": True, "grade": True, "votes": True}
    ropes = dict.fromkeys(every, 0.05)
    res = compare_runs(
        genai_runs["same"], base, scorers=every, rope=ropes, cluster="passage", log_results=True
    )
    assert len(res.pairs) == 48 and set(res.pairs["paired_on"]) == {"inputs_hash"}
    assert res.unpaired_baseline == [] and res.unpaired_candidate == []
    s = res.summary().set_index("scorer")
    assert list(s.index) == ["exact", "grade", "votes"]
    assert (s["n_clusters"] == 8).all() and (s["n_paired"] == 48).all()
    # independent: the paired rows' values computed from the agents themselves
    rows = _rows(range(48))
    old = [_agent(0.0)(**r["inputs"]) for r in rows]
    new = [_agent(0.8)(**r["inputs"]) for r in rows]
    d_grade = np.array([n["grade"] - o["grade"] for n, o in zip(new, old, strict=True)])
    d_votes = np.array(
        [np.mean(n["votes"]) - np.mean(o["votes"]) for n, o in zip(new, old, strict=True)]
    )
    assert s.loc["grade", "diff"] == pytest.approx(d_grade.mean(), abs=0.02)
    assert s.loc["votes", "diff"] == pytest.approx(d_votes.mean(), abs=0.03)
    # the interval's half-width against the cluster-robust standard error (numpy) and t_7
    cl = np.repeat(np.arange(8), 6)
    se = np.sqrt(np.sum([(d_grade[cl == g] - d_grade.mean()).sum() ** 2 for g in range(8)])) / 48
    half = (s.loc["grade", "ci_high"] - s.loc["grade", "ci_low"]) / 2
    assert half == pytest.approx(stats.t.ppf(0.975, 7) * se * np.sqrt(8 / 7), rel=0.25)
    assert res.scorer_gamma == pytest.approx(1 - 0.05 / 3)
    assert res.outcome == "promote", s
    logged = mlflow.get_run(genai_runs["same"]).data
    head = f"compare/{base[:8]}"
    assert (
        logged.metrics[f"{head}/grade/p_better_beyond_rope"]
        == s.loc["grade", "p_better_beyond_rope"]
    )
    assert logged.metrics[f"{head}/exact/n_paired"] == 48
    assert logged.tags[f"{head}/decision"] == "promote"

    with pytest.warns(UserWarning, match="6 baseline and 6 candidate row"):
        shifted = compare_runs(genai_runs["shifted"], base, scorers={"grade": True}, rope=0.05)
    assert len(shifted.pairs) == 42 and len(shifted.unpaired_candidate) == 6
    with pytest.warns(UserWarning, match="1 baseline and 2 candidate row"):
        dup = compare_runs(genai_runs["duplicate"], base, scorers={"grade": True}, rope=0.05)
    assert len(dup.pairs) == 47
    one = compare_runs(genai_runs["same"], base, scorers="exact", rope=0.05)  # one name
    assert list(one.results) == ["exact"] and one.scorer_gamma == 0.95
    # the command line: the same numbers as JSON, and its gate on the family decision
    cli = [*("compare", "--mlflow-runs", genai_runs["same"], base), *("--rope", "0.05")]
    cli += ["--scorers", "exact:higher", "grade:higher:0.05", "votes:higher:0.05"]
    cli[-3] += ":0.05"  # a half-width on every entry (or on none: then --rope)
    done = run_cli(*cli, "--cluster", "passage", "--json", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)[0]  # --json: a record per comparison
    assert got["decision"] == "promote" and got["n_paired"] == 48
    assert got["scorers"][1]["diff"] == pytest.approx(s.loc["grade", "diff"])
    failing = run_cli(*cli, "--fail-unless", "worse", cwd=tmp_path, env=env)
    assert failing.returncode == 1 and "all scorers: promote" in failing.stdout
    with pytest.raises(ValueError, match="not a key of the inputs"):
        compare_runs(genai_runs["same"], base, scorers=every, rope=ropes, cluster="customer")
    with pytest.raises(ValueError, match=r"have no feedback.*\['exact', 'grade', 'votes'\]"):
        compare_runs(genai_runs["same"], base, scorers=["relevance"], rope=0.05)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["same", "shifted", "duplicate"])
def test_pairs_exactly_the_rows_compare_evaluations_pairs(genai_runs, tracking, which):
    compare_evaluations = getattr(getattr(mlflow, "genai", None), "compare_evaluations", None)
    if compare_evaluations is None:
        pytest.skip("mlflow.genai.compare_evaluations needs MLflow >= 3.18")
    from bayescomp.integrations.mlflow import compare_runs

    cand, base = genai_runs[which], genai_runs["baseline"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = compare_evaluations(cand, base)
        every = dict.fromkeys(theirs.scorers, True)
        ours = compare_runs(cand, base, scorers=every, rope=dict.fromkeys(every, 0.05))
    assert len(ours.pairs) == len(theirs.paired_rows)
    assert list(
        zip(ours.pairs["baseline_trace_id"], ours.pairs["candidate_trace_id"], strict=True)
    ) == [(r["baseline_trace_id"], r["candidate_trace_id"]) for r in theirs.paired_rows]
    assert sorted(ours.unpaired_baseline) == sorted(theirs.unpaired_baseline_trace_ids)
    assert sorted(ours.unpaired_candidate) == sorted(theirs.unpaired_candidate_trace_ids)
    for name, comp in theirs.scorers.items():  # the same paired values: the same mean diff
        assert ours.results[name].n_rows == comp.n_paired
        assert ours.summary().set_index("scorer").loc[name, "candidate_mean"] == pytest.approx(
            comp.candidate_mean
        )


@pytest.mark.slow
def test_docs_mlflow_plugin_and_compare_runs_sections_run(tracking, tmp_path, monkeypatch):
    """docs/mlflow.md's sections 6 and 7 (its other examples run in tests/test_mlflow.py):
    every python block in order, against the real server instead of the placeholder."""
    from test_docs_examples import check_promises, python_blocks

    text = (Path(__file__).resolve().parents[1] / "docs" / "mlflow.md").read_text()
    part = text[text.index("## 6. A gate inside") : text.index("## 8. In a notebook")]
    blocks = [b.replace("http://127.0.0.1:5000", tracking) for b in python_blocks(part)]
    assert len(blocks) == 2
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, code in enumerate(blocks):
            exec(compile(code, f"mlflow.md, section {6 + i}", "exec"), namespace)
            assert check_promises(code, namespace, f"mlflow.md, section {6 + i}") == 1
    res = namespace["res"]
    assert res.scorer_gamma == pytest.approx(0.975)
    s = res.summary().set_index("scorer")
    assert s.loc["cites_clause", "n_clusters"] == 12 and len(res.pairs) == 60
    # one orientation per row: diff, posterior mean and interval all candidate − baseline.
    # By hand: v2 − v1 words = −20 − c + 3q, so the rows' mean is −19.5 and the contracts'
    # means are −14 − c (c = 0..11): the interval is about their t interval (12 clusters)
    length = s.loc["length"]
    assert length["diff"] == pytest.approx(-19.5, abs=1e-12)
    assert length["posterior_mean"] == pytest.approx(-19.5, abs=0.1)
    assert length["ci_low"] < length["diff"] < length["ci_high"] < 0
    means = -14.0 - np.arange(12)
    half = stats.t.ppf(0.975, 11) * means.std(ddof=1) / np.sqrt(12)
    assert length["ci_low"] == pytest.approx(-19.5 - half, rel=0.05)
    assert length["ci_high"] == pytest.approx(-19.5 + half, rel=0.05)
    assert not length["higher_is_better"] and length["p_better_beyond_rope"] > 0.99
    # the command line gives the Python example's answer, with each scorer's own direction
    # and half-width (it said `worse`, exit 1, reading the shorter answers as worse)
    runs, env = namespace["runs"], {"MLFLOW_TRACKING_URI": tracking}
    argv = ["compare", "--mlflow-runs", runs["v2"], runs["v1"], "--cluster", "contract"]
    argv += ["--rope", "0.05", "--scorers", "cites_clause:higher:0.05", "length:lower:5"]
    done = run_cli(*argv, "--json", "--fail-unless", "promote", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)[0]
    assert got["decision"] == res.outcome == "promote"
    assert got["scorers"] == json.loads(json.dumps(res.to_dict()["scorers"]))
    for flags, message in (
        ([], "scorer 'length' has values from 60 to 135, not pass/fail"),
        (["--lower-is-better"], "--lower-is-better set one metric's direction"),
        (["--scorers", "cites_clause:higher", "length:lower:5"], "every --scorers entry"),
    ):
        done = run_cli(*argv[:6], "--rope", "0.05", *flags, cwd=tmp_path, env=env)
        assert done.returncode == 2 and done.stdout == "", done.stderr
        assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1


def test_logged_diff_is_the_observed_difference_of_the_means():
    """``diff`` is candidate − baseline of the printed means (MLflow's key), the posterior
    mean of the cluster bootstrap has its own name (4 clusters: the two differ)."""
    import pandas as pd

    from bayescomp.integrations.mlflow_runs import RunComparison
    from bayescomp.posterior.holdout import holdout_posterior

    base = np.array([1, 0, 1, 1, 0, 1, 1, 0, 1, 0, 1, 1, 0, 1, 1], dtype=float)
    cand = np.array([1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1], dtype=float)
    cluster = np.repeat([0, 1, 2, 3], [4, 4, 4, 3])
    res = holdout_posterior(
        None,
        base,
        cand,
        metric=None,
        higher_is_better=True,
        rope=0.01,
        cluster=cluster,
        random_state=0,
    )
    comp = RunComparison("c" * 32, "b" * 32, {"correct": res}, 0.95, pd.DataFrame(), [], [])
    row = comp.summary().iloc[0]
    assert row["baseline_mean"] == pytest.approx(base.mean())
    assert row["candidate_mean"] == pytest.approx(cand.mean())
    assert row["diff"] == pytest.approx(cand.mean() - base.mean(), abs=1e-12)
    assert row["posterior_mean"] == pytest.approx(float(res.expected_gain))
    assert abs(row["posterior_mean"] - row["diff"]) > 1e-3  # a different number, named apart


def test_evaluator_says_what_is_wrong_in_one_line(tracking):
    """An unknown ``models:/`` name lists what the registry holds, a ``runs:/`` URI that names
    no model says so, a model that cannot predict on the features names them (before: MLflow's
    and scikit-learn's own exceptions)."""
    from bayescomp.integrations.mlflow_evaluator import load_baseline, predict

    with pytest.raises(ValueError, match="not found in the registry") as info:
        load_baseline("models:/no_such_model_here@champion")
    assert "registry holds" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ValueError, match="could not be loaded"):
        load_baseline("runs:/0123456789abcdef/model")
    strong, _, Xte, _ = _fit_models()
    with pytest.raises(ValueError, match="cannot predict on the evaluation dataset's features"):
        predict(strong, Xte.drop(columns=Xte.columns[0]), "labels", "candidate")
    with pytest.raises(ValueError, match="cannot predict"):
        predict(strong, Xte.iloc[:0], "labels", "candidate")


@pytest.mark.slow
def test_unknown_run_ids_are_named_in_one_line(genai_runs, tracking, tmp_path):
    """MLflow's own RestException before."""
    from bayescomp.integrations.mlflow import compare_runs

    base = genai_runs["baseline"]
    with pytest.raises(
        ValueError,
        match=rf"^no run 'nope' or '0{{32}}' on the tracking server {re.escape(tracking)}:",
    ):
        compare_runs("0" * 32, "nope", rope=0.05)
    with pytest.raises(ValueError, match=r"^no run 'f{32}' on the tracking server"):
        compare_runs("f" * 32, base, rope=0.05)
    argv = ["compare", "--mlflow-runs", "f" * 32, base, "--rope", "0.05"]
    done = run_cli(*argv, cwd=tmp_path, env={"MLFLOW_TRACKING_URI": tracking})
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"bayescomp compare: error: no run '{'f' * 32}' on the")
    assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.slow
def test_a_scorer_not_pass_fail_needs_its_direction_and_its_own_half_width(genai_runs, tracking):
    """One rope of 0.05 was applied to every scorer, and every scorer read as higher is
    better; 'grade' (about 3) is refused unless both are given for it."""
    from bayescomp.integrations.mlflow import compare_runs

    rows = _rows(range(48))
    grades = [_agent(e)(**r["inputs"])["grade"] for e in (0.0, 0.8) for r in rows]
    message = f"^scorer 'grade' has values from {min(grades):g} to {max(grades):g}, not pass/fail"
    same, base = genai_runs["same"], genai_runs["baseline"]
    with pytest.raises(ValueError, match=message):
        compare_runs(same, base, rope=0.05)
    with pytest.raises(ValueError, match=message):  # its direction, but one rope for three
        compare_runs(same, base, scorers={"exact": True, "grade": True, "votes": True}, rope=0.05)
    ropes = {"exact": 0.05, "grade": 0.2, "votes": 0.05}
    res = compare_runs(same, base, scorers=dict.fromkeys(ropes, True), rope=ropes)
    assert res.summary().set_index("scorer")["rope"].to_dict() == ropes
