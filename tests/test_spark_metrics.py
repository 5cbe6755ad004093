"""Metric intervals on a Spark DataFrame, computed inside Spark (issue 22).

``threshold_curves`` counts, the Poisson ``bootstrap_metric`` (confusion metrics and ROC
AUC) and ``blb_metric`` against the in-memory results on the same rows: exactly for
counts and full-data values, within Monte-Carlo error (tolerances derived from the
seeded runs' own spread) for resampling.  One small ``local[2]`` session (``conftest.py``)
serves every test; the 10^7-row run is ``bench/spark_blb.py``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import bayescomp as bc
from bayescomp.metrics.spark_auc import weighted_auc

pytestmark = pytest.mark.xdist_group("spark")
COLS = {"label": "label", "score": "p"}


@pytest.fixture(scope="module")
def scored(spark_session):
    """20,000 rows with tied scores, as arrays and as a 3-partition Spark DataFrame."""
    rng = np.random.default_rng(7)
    n = 20_000
    y = rng.integers(0, 2, n)
    p = np.round(1 / (1 + np.exp(-(y + rng.normal(0, 1.5, n)))), 3)  # ties
    sdf = spark_session.createDataFrame(pd.DataFrame({"label": y, "p": p})).repartition(3)
    return y, p, sdf.cache()


def test_threshold_curves_on_a_spark_dataframe_equal_in_memory(spark_session):
    """The per-threshold counts computed in Spark equal the in-memory ones exactly."""
    from sklearn.metrics import confusion_matrix

    rng = np.random.default_rng(0)
    n = 6000
    frame = pd.DataFrame(
        {"rep": np.repeat([0, 1, 2], n // 3), "label": rng.choice(["fraud", "ok"], n, p=[0.2, 0.8])}
    )
    frame["p"] = np.clip(rng.beta(2, 5, n) + 0.3 * (frame["label"] == "fraud"), 0, 1)
    frame.loc[::97, "p"] = 0.5  # ties at a threshold
    thr = np.linspace(0, 1, 41)
    metrics = ("precision", "recall", "fpr", "f1", "accuracy", "positive_rate")
    memory = bc.threshold_curves(
        predictions=frame.rename(columns={"rep": "repetition", "label": "y_true", "p": "y_score"}),
        thresholds=thr,
        metrics=metrics,
        pos_label="fraud",
    )
    sdf = spark_session.createDataFrame(frame).repartition(3)
    spark = bc.threshold_curves(
        predictions=sdf,
        thresholds=thr,
        metrics=metrics,
        pos_label="fraud",
        columns={"label": "label", "score": "p", "repetition": "rep"},
    )
    np.testing.assert_array_equal(spark.values, memory.values)
    np.testing.assert_array_equal(spark.n_test, [n // 3] * 3)
    # one threshold of one repetition against scikit-learn's confusion matrix
    rep1 = frame[frame["rep"] == 1]
    tn, fp, _fn, tp = confusion_matrix(rep1["label"] == "fraud", rep1["p"] >= 0.5).ravel()
    k = int(np.flatnonzero(np.isclose(thr, 0.5))[0])
    assert spark.values[metrics.index("precision"), 1, k] == tp / (tp + fp)
    assert spark.values[metrics.index("fpr"), 1, k] == fp / (fp + tn)
    # no repetition column: the whole frame is one repetition
    whole = bc.threshold_curves(
        predictions=sdf.drop("rep"),
        thresholds=thr,
        metrics=metrics,
        pos_label="fraud",
        columns={"label": "label", "score": "p"},
    )
    assert whole.values.shape == (len(metrics), 1, len(thr)) and whole.n_test[0] == n


def test_threshold_curves_spark_bad_input(spark_session):
    sdf = spark_session.createDataFrame(
        pd.DataFrame({"y_true": [0, 1, 1, 0], "y_score": [0.1, 0.8, float("nan"), 0.3]})
    )
    with pytest.raises(ValueError, match="no label column 'target'"):
        bc.threshold_curves(predictions=sdf, columns={"label": "target"})
    with pytest.raises(ValueError, match="1 rows have a missing, NaN or infinite"):
        bc.threshold_curves(predictions=sdf)
    with pytest.raises(ValueError, match="pos_label='yes' is not one of the labels"):
        bc.threshold_curves(predictions=sdf.dropna(), pos_label="yes")


def test_poisson_bootstrap_in_spark_matches_in_memory(spark_session):
    """Seeded: the Spark Poisson bootstrap agrees with the in-memory bootstrap and with the
    binomial standard error within Monte-Carlo error; the estimate is exact."""
    rng = np.random.default_rng(1)
    n = 20_000
    y = rng.integers(0, 2, n)
    p = np.clip(0.5 * y + rng.normal(0.25, 0.25, n), 0, 1)
    frame = pd.DataFrame({"label": y, "p": p})
    sdf = spark_session.createDataFrame(frame).repartition(4)
    cols = {"label": "label", "score": "p"}
    memory = bc.bootstrap_metric(
        y, p, "accuracy", threshold=0.5, method="percentile", n_resamples=1000, random_state=0
    )
    spark = bc.bootstrap_metric(
        sdf,
        None,
        "accuracy",
        threshold=0.5,
        method="percentile",
        n_resamples=400,
        random_state=0,
        columns=cols,
    )
    acc = np.mean((p >= 0.5) == y)
    assert spark.estimate == acc == memory.estimate
    assert spark.n == n and spark.distribution.shape == (400,)
    binomial_se = np.sqrt(acc * (1 - acc) / n)
    assert abs(spark.standard_error / binomial_se - 1) < 0.15
    assert abs(spark.standard_error / memory.standard_error - 1) < 0.15
    width = memory.high - memory.low
    assert abs(spark.low - memory.low) < 0.2 * width
    assert abs(spark.high - memory.high) < 0.2 * width
    again = bc.bootstrap_metric(
        sdf,
        None,
        "accuracy",
        threshold=0.5,
        method="percentile",
        n_resamples=400,
        random_state=0,
        columns=cols,
    )
    np.testing.assert_array_equal(again.distribution, spark.distribution)  # seeded
    with pytest.raises(ValueError, match="'percentile' or 'basic'"):
        bc.bootstrap_metric(sdf, None, "accuracy", threshold=0.5, columns=cols)
    with pytest.raises(ValueError, match=r"computes roc_auc and .* in Spark"):
        bc.bootstrap_metric(sdf, None, "log_loss", method="percentile", columns=cols)


# ------------------------------------------------------------------ ROC AUC in Spark
def test_weighted_auc_in_spark_equals_sklearn_with_ties_across_partitions(spark_session):
    """The Spark aggregation: tie groups spread over several partitions, and three score
    ranges combined on the driver, give scikit-learn's weighted AUC exactly, for every
    weight column."""
    rng = np.random.default_rng(0)
    n = 3000
    s = np.round(rng.normal(size=n), 1)  # about 60 distinct values: many ties
    y = rng.integers(0, 2, n).astype(bool)
    w = np.column_stack([np.ones(n, dtype=int), rng.poisson(1.0, (n, 3))])
    frame = pd.DataFrame(
        {"k": np.repeat(np.arange(4), n), "s": np.tile(s, 4), "p": np.tile(y, 4).astype(int)}
    )
    frame["w"] = w.T.ravel()
    frame["b"] = (frame["s"] > -0.45).astype(int) + (frame["s"] > 0.35)  # three score ranges
    got = weighted_auc(spark_session.createDataFrame(frame).repartition(5))
    want = [roc_auc_score(y, s, sample_weight=w[:, k]) for k in range(4)]
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_poisson_bootstrap_refuses_a_nan_predicted_label(spark_session):
    """Predicted labels in a float column: a NaN is refused in one line, as by blb_metric,
    not scored as a wrong prediction (a null was refused, a NaN counted); without that row the
    estimate is the exact accuracy."""
    from pyspark.sql import functions as F

    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200)
    pred = np.where(rng.random(200) < 0.8, y, 1 - y).astype(float)
    pred[5] = np.nan
    rows = [(int(a), float(b)) for a, b in zip(y, pred, strict=True)]  # a NaN, not a null
    sdf = spark_session.createDataFrame(rows, "label long, p double")
    kw = dict(method="percentile", n_resamples=200, random_state=0, columns=COLS)
    with pytest.raises(ValueError, match=r"^1 rows have a missing or NaN 'label' or 'p'"):
        bc.bootstrap_metric(sdf, None, "accuracy", **kw)
    clean = bc.bootstrap_metric(sdf.filter(~F.isnan("p")), None, "accuracy", **kw)
    keep = ~np.isnan(pred)
    assert clean.estimate == np.mean(y[keep] == pred[keep]) and clean.n == 199


def test_poisson_bootstrap_roc_auc_in_spark(scored):
    """ROC AUC in the Spark bootstrap: the estimate is scikit-learn's exactly; the standard
    error agrees with the in-memory bootstrap's within Monte-Carlo error (the relative
    error of an SD from R resamples is about 1/sqrt(2R): 4 of those, both runs)."""
    y, p, sdf = scored
    r_spark, r_mem = 300, 1000
    spark = bc.bootstrap_metric(
        sdf, None, "roc_auc", method="percentile", n_resamples=r_spark, random_state=3,
        columns=COLS,
    )  # fmt: skip
    memory = bc.bootstrap_metric(
        y, p, "roc_auc", method="percentile", n_resamples=r_mem, random_state=3
    )
    assert spark.estimate == pytest.approx(roc_auc_score(y, p), abs=1e-12)
    assert spark.n == y.size and spark.distribution.shape == (r_spark,)
    tol = 4 * np.sqrt(1 / (2 * r_spark) + 1 / (2 * r_mem))
    assert abs(spark.standard_error / memory.standard_error - 1) < tol
    # the Poisson-weighted resamples are centred on the estimate (mean within 4 SE)
    assert abs(spark.distribution.mean() - spark.estimate) < 4 * spark.standard_error / np.sqrt(
        r_spark
    )


# ------------------------------------------------------------------ BLB in Spark
def test_blb_subsets_are_uniform_draws_without_replacement(spark_session):
    """The distributed subset draw (per subset, the b rows with the smallest hashed keys)
    is a uniform draw of b rows without replacement: every subset has
    exactly b distinct rows, and each row's inclusion count over 300 subsets is
    Binomial(300, b/n) (chi-square test)."""
    from bayescomp.metrics.spark_blb import count_rows, pick_subsets

    n, b, s = 300, 30, 300
    sdf = spark_session.createDataFrame(
        pd.DataFrame({"label": np.arange(n) % 2, "p": np.arange(n, dtype=float)})
    ).repartition(3)
    assert count_rows(sdf, "label", "p") == n
    rows = pick_subsets(sdf, "label", "p", n=n, b=b, n_subsets=s, seed=1).toPandas()
    per = rows.groupby("subset")["s"]
    assert (per.size() == b).all() and (per.nunique() == b).all()
    hits = np.bincount(rows["s"].astype(int), minlength=n)
    expected = s * b / n
    chi2 = np.sum((hits - expected) ** 2 / (expected * (1 - b / n)))
    assert stats.chi2.sf(chi2, n - 1) > 1e-3


def test_blb_on_spark_matches_in_memory_within_monte_carlo_error(scored):
    """Seeded: same rows in memory and in Spark.  The centre (full-data AUC) is equal; the
    averaged per-subset quantile offsets differ by less than 4 standard errors of their
    difference, each SE from that run's own spread over its subsets."""
    y, p, sdf = scored
    kw = dict(n_subsets=12, n_resamples=60, adaptive=False)
    spark = bc.blb_metric(sdf, None, "roc_auc", random_state=5, columns=COLS, **kw)
    memory = bc.blb_metric(y, p, "roc_auc", random_state=5, **kw)
    assert spark.estimate == pytest.approx(memory.estimate, abs=1e-12)
    assert spark.estimate == pytest.approx(roc_auc_score(y, p), abs=1e-12)
    assert (spark.n, spark.b, spark.n_subsets) == (memory.n, memory.b, 12)
    assert (spark.subsets["n_resamples"] == 60).all() and spark.estimate_source == "full"
    for col in ("offset_low", "offset_high", "value"):
        a, m = spark.subsets[col], memory.subsets[col]
        se = np.sqrt(a.var(ddof=1) / a.size + m.var(ddof=1) / m.size)
        assert abs(a.mean() - m.mean()) < 4 * se, col
    assert abs(spark.width / memory.width - 1) < 0.25  # a 95% interval of ~2,000 AUC pairs


def test_blb_on_spark_confusion_metric_adaptive_and_bad_input(scored, spark_session):
    """Accuracy at a threshold: the centre equals the in-memory accuracy exactly; a seeded
    run repeats exactly; adaptive stopping keeps a prefix of the subsets; bad input is
    refused with what to do.  The DataFrame is a plain local one (not cached, no shuffle):
    its partitions are those of the per-partition passes."""
    y, p, _ = scored
    sdf = spark_session.createDataFrame(pd.DataFrame({"label": y, "p": p}))
    kw = dict(threshold=0.5, columns=COLS, random_state=2, n_subsets=8, n_resamples=40)
    a = bc.blb_metric(sdf, None, "accuracy", **kw)
    assert a.estimate == np.mean((p >= 0.5) == y) and a.estimate_source == "full"
    assert 3 <= a.n_subsets <= 8 and len(a.history) == a.n_subsets
    assert a.low < a.estimate < a.high
    again = bc.blb_metric(sdf, None, "accuracy", **kw)
    assert (again.low, again.high) == (a.low, a.high)
    with pytest.raises(ValueError, match=r"no score column 'y_score'.*columns="):
        bc.blb_metric(sdf, None, "accuracy", threshold=0.5, columns={"label": "label"})
    with pytest.raises(TypeError, match="y_pred_or_score=None"):
        bc.blb_metric(sdf, p, "accuracy", columns=COLS)
    nan = spark_session.createDataFrame(pd.DataFrame({"label": [0, 1, 1], "p": [0.1, np.nan, 1]}))
    with pytest.raises(ValueError, match="1 rows have a missing or NaN"):
        bc.blb_metric(nan, None, "roc_auc", columns=COLS)
