"""Text labels: every metric respects the positive class, checked against scikit-learn.

scikit-learn's ``roc_auc_score`` has no ``pos_label``: on binary text labels it takes the
larger label as the positive class, so labels "fraud"/"ok" with a fraud probability gave
AUC 0.03 instead of 0.97.  Every entry point now scores one-dimensional scores against
``y_true == pos_label``; the references below binarise explicitly, so they do not share
that convention.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics as skm

import bayescomp as bc
from bayescomp.cli import main as cli

SCORE_METRICS = {
    "roc_auc": skm.roc_auc_score,
    "average_precision": skm.average_precision_score,
    "log_loss": skm.log_loss,
    "brier_score_loss": skm.brier_score_loss,
}
LABEL_METRICS = {
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f1": skm.f1_score,
    "accuracy": skm.accuracy_score,
}


@pytest.fixture(scope="module")
def fraud():
    rng = np.random.default_rng(7)
    n = 400
    is_fraud = rng.random(n) < 0.3
    p_fraud = np.where(is_fraud, rng.beta(5, 2, n), rng.beta(2, 5, n))
    return np.where(is_fraud, "fraud", "ok"), p_fraud


def _scores_for(y, p_fraud, positive):
    """The scores of the named positive class and sklearn's binary y_true for it."""
    return (p_fraud if positive == "fraud" else 1 - p_fraud), (y == positive)


@pytest.mark.parametrize("positive", ["fraud", "ok"])
@pytest.mark.parametrize("metric", sorted(SCORE_METRICS))
def test_score_metrics_follow_pos_label(fraud, positive, metric):
    y, p_fraud = fraud
    score, binary = _scores_for(y, p_fraud, positive)
    ref = SCORE_METRICS[metric](binary, score)
    boot = bc.bootstrap_metric(
        y, score, metric, pos_label=positive, n_resamples=200, method="percentile", random_state=0
    )
    assert boot.estimate == pytest.approx(ref, rel=1e-12)
    # the resamples use the same positive class: the interval surrounds the estimate
    assert boot.low <= ref <= boot.high
    blb = bc.blb_metric(y, score, metric, pos_label=positive, random_state=0)
    assert blb.estimate == pytest.approx(ref, rel=1e-12)
    assert blb.low <= ref <= blb.high


def test_auc_is_not_inverted_for_text_labels(fraud):
    """The issue's case: a fraud probability with labels fraud/ok."""
    y, p_fraud = fraud
    ci = bc.bootstrap_metric(
        y, p_fraud, "roc_auc", pos_label="fraud", n_resamples=200, random_state=0
    )
    assert ci.estimate == pytest.approx(skm.roc_auc_score(y == "fraud", p_fraud))
    assert ci.estimate > 0.9 and ci.low > 0.85


@pytest.mark.parametrize("positive", ["fraud", "ok"])
def test_metric_table_follows_pos_label(fraud, positive):
    y, p_fraud = fraud
    score, binary = _scores_for(y, p_fraud, positive)
    other = "ok" if positive == "fraud" else "fraud"
    labels = np.where(score >= 0.5, positive, other)
    table = bc.metric_table(
        y, labels, y_score=score, pos_label=positive, n_resamples=100, random_state=0
    )
    est = table["estimate"]
    assert est["roc_auc"] == pytest.approx(skm.roc_auc_score(binary, score))
    assert est["average_precision"] == pytest.approx(skm.average_precision_score(binary, score))
    assert est["precision (PPV)"] == pytest.approx(
        skm.precision_score(y, labels, pos_label=positive)
    )
    assert est["recall (TPR, sensitivity)"] == pytest.approx(
        skm.recall_score(y, labels, pos_label=positive)
    )


@pytest.mark.parametrize("positive", ["fraud", "ok"])
@pytest.mark.parametrize("metric", sorted(LABEL_METRICS))
def test_label_metrics_with_threshold_follow_pos_label(fraud, positive, metric):
    y, p_fraud = fraud
    score, _ = _scores_for(y, p_fraud, positive)
    other = "ok" if positive == "fraud" else "fraud"
    labels = np.where(score >= 0.5, positive, other)
    kw = {} if metric == "accuracy" else {"pos_label": positive}
    ref = LABEL_METRICS[metric](y, labels, **kw)
    ci = bc.bootstrap_metric(
        y,
        score,
        metric,
        threshold=0.5,
        pos_label=positive,
        n_resamples=100,
        method="percentile",
        random_state=0,
    )
    assert ci.estimate == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("positive", ["fraud", "ok"])
def test_threshold_curves_follow_pos_label(fraud, positive):
    y, p_fraud = fraud
    score, binary = _scores_for(y, p_fraud, positive)
    half = len(y) // 2
    reps = [(y[:half], score[:half]), (y[half:], score[half:])]
    cur = bc.threshold_curves(
        predictions=reps, thresholds=[0.3, 0.6], pos_label=positive, metrics=("precision", "recall")
    )
    prec = cur.summary("precision")["mean"].to_numpy()
    for i, t in enumerate((0.3, 0.6)):
        per_rep = [
            skm.precision_score(b, s >= t)
            for b, s in ((binary[:half], score[:half]), (binary[half:], score[half:]))
        ]
        assert prec[i] == pytest.approx(np.mean(per_rep), rel=1e-12)


def test_default_pos_label_with_text_labels_is_refused(fraud):
    """The default pos_label=1 is not a text label: a clear error, not sklearn's
    'Mix of label input types' or a silently inverted AUC."""
    y, p_fraud = fraud
    for metric in ("roc_auc", "average_precision", "log_loss"):
        with pytest.raises(
            ValueError,
            match=r"pos_label=1 is not among y_true's labels "
            r"\['fraud', 'ok'\]",
        ):
            bc.bootstrap_metric(y, p_fraud, metric, n_resamples=100, random_state=0)
    with pytest.raises(ValueError, match="pos_label=1 is not among"):
        bc.blb_metric(y, p_fraud, "roc_auc", random_state=0)


def test_cli_interval_auc_follows_pos_label(fraud, tmp_path, capsys):
    y, p_fraud = fraud
    path = tmp_path / "preds.csv"
    pd.DataFrame({"y": y, "p": p_fraud}).to_csv(path, index=False)
    out = tmp_path / "ci.csv"
    args = [
        "interval",
        str(path),
        "--y-true",
        "y",
        "--pred",
        "p",
        "--metric",
        "roc_auc",
        "--n-resamples",
        "100",
        "--seed",
        "0",
        "--out",
        str(out),
    ]
    assert cli.main([*args, "--pos-label", "fraud"]) == 0
    table = pd.read_csv(out)
    assert table["estimate"].iloc[0] == pytest.approx(skm.roc_auc_score(y == "fraud", p_fraud))
    capsys.readouterr()
    assert cli.main(args) == 2
    err = capsys.readouterr().err
    assert "--pos-label" in err and "['fraud', 'ok']" in err


def test_holdout_posterior_takes_text_labels_with_pos_label():
    """Text labels on one test set: ``pos_label=`` gives the posterior of the 0/1 coding (the
    refusal offers it), for a score metric and for a whole-set metric of labels."""
    import bayescomp as bc

    rng = np.random.default_rng(0)
    y = rng.choice(["no", "yes"], 400)
    s1, s2 = rng.random(400) + (y == "yes"), rng.random(400) + 1.3 * (y == "yes")
    with pytest.raises(ValueError, match="pos_label="):
        bc.holdout_posterior(y, s1, s2, metric="roc_auc", rope=0.01)
    text = bc.holdout_posterior(
        y, s1, s2, metric="roc_auc", rope=0.01, pos_label="yes", random_state=1
    )
    coded = bc.holdout_posterior(
        (y == "yes").astype(int), s1, s2, metric="roc_auc", rope=0.01, random_state=1
    )
    np.testing.assert_array_equal(text.draws, coded.draws)
    p1, p2 = np.where(s1 > 1, "yes", "no"), np.where(s2 > 1.1, "yes", "no")
    f1 = bc.holdout_posterior(y, p1, p2, metric="f1", rope=0.01, pos_label="yes", random_state=1)
    ref = bc.holdout_posterior(
        (y == "yes").astype(int),
        (p1 == "yes").astype(int),
        (p2 == "yes").astype(int),
        metric="f1",
        rope=0.01,
        random_state=1,
    )
    np.testing.assert_array_equal(f1.draws, ref.draws)
    with pytest.raises(ValueError, match="not a label of y_true"):
        bc.holdout_posterior(y, s1, s2, metric="roc_auc", pos_label="maybe")


@pytest.fixture(scope="module")
def text_table(fraud):
    """A predictions table with text labels: two models' labels and scores."""
    y, p_fraud = fraud
    rng = np.random.default_rng(3)
    flip = rng.random(y.size) < 0.2
    other = np.where(y == "fraud", "ok", "fraud")
    return pd.DataFrame(
        {
            "y_true": y,
            "A": np.where(p_fraud >= 0.5, "fraud", "ok"),
            "B": np.where(flip, other, y),
            "sA": p_fraud,
            "sB": np.clip(p_fraud + 0.2 * rng.standard_normal(y.size), 0, 1),
        }
    )


@pytest.mark.parametrize("metric", ["accuracy", "error_rate", "f1", "precision", "recall"])
def test_holdout_label_metrics_with_pos_label_match_scikit_learn(text_table, metric):
    """Text labels with ``pos_label=``: accuracy counts matching labels as they are (it used
    to be refused, blaming y_true), f1/precision/recall score the positive class."""
    t = text_table
    res = bc.holdout_posterior(t.y_true, t.A, t.B, metric=metric, pos_label="fraud", random_state=0)
    if metric in ("accuracy", "error_rate"):
        ref = [skm.accuracy_score(t.y_true, t[m]) for m in "AB"]
        ref = ref if metric == "accuracy" else [1 - r for r in ref]
    else:
        ref = [LABEL_METRICS[metric](t.y_true, t[m], pos_label="fraud") for m in "AB"]
    assert [res.baseline_score, res.candidate_score] == pytest.approx(ref)


@pytest.mark.parametrize("metric", ["accuracy", "f1"])
def test_holdout_threshold_with_pos_label_matches_scikit_learn(text_table, metric):
    """Scores turned into labels at a threshold, text labels named by ``pos_label=``: the
    scores are P(positive), not labels to compare with ``pos_label`` (f1 read every score
    as "not fraud" and reported 0)."""
    t = text_table
    res = bc.holdout_posterior(
        t.y_true, t.sA, t.sB, metric=metric, threshold=0.5, pos_label="fraud", random_state=0
    )
    pos = t.y_true == "fraud"
    ref = [LABEL_METRICS[metric](pos, t[m] >= 0.5) for m in ("sA", "sB")]
    assert [res.baseline_score, res.candidate_score] == pytest.approx(ref)


@pytest.mark.parametrize("missing", ["y_true", "A"])
def test_holdout_pos_label_refuses_a_missing_label(text_table, missing):
    """A missing label is neither class: refused in one line, with how many, not counted
    as the negative class."""
    t = text_table.astype({missing: object})
    t.loc[[3, 5], missing] = None
    with pytest.raises(ValueError, match=r"^(y_true|predicted labels): 2 missing .*drop"):
        bc.holdout_posterior(t.y_true, t.A, t.B, metric="f1", pos_label="fraud")


@pytest.mark.parametrize("command", ["compare", "select"])
def test_cli_predictions_honour_pos_label(text_table, tmp_path, capsys, command):
    """``compare``/``select --predictions --pos-label``: scored against the named class,
    checked against scikit-learn (the flag used to be ignored and the error asked for it)."""
    path = tmp_path / "preds.csv"
    text_table[["y_true", "A", "B"]].to_csv(path, index=False)
    args = [command, "--predictions", str(path), "--baseline", "A", "--metric", "f1"]
    args += ["--rope", "0.01", "--pos-label", "fraud", "--json", "--quiet"]
    assert cli.main(args) == 0
    import json

    out = json.loads(capsys.readouterr().out)
    ref = [skm.f1_score(text_table.y_true, text_table[m], pos_label="fraud") for m in "AB"]
    if command == "compare":
        got = [out[0]["baseline_score"], out[0]["candidate_score"]]
    else:
        step = out["steps"][0]
        got = [step["champion_score"], step["challenger_score"]]
    assert got == pytest.approx(ref)
