"""Issue 12, the API: every bad input gets bayescomp's clear error, every valid one a scale-free
answer.  Generated cases (tests/fuzz_cases.py) plus one test per class the issue found.

Run the big fuzz by hand: ``HYPOTHESIS_PROFILE=slow python -m pytest tests/test_fuzz_api.py``.
"""

from __future__ import annotations

import codecs
import sqlite3
import warnings

import numpy as np
import pandas as pd
import pytest
from fuzz_cases import CORRUPTIONS, HOSTILE_NAMES, cases, run_api
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import bayescomp as bc
from bayescomp.core.exceptions import RowOrderPairingWarning
from bayescomp.core.text import FORMULA_PREFIXES, from_spreadsheet, to_spreadsheet


@given(case=cases())
def test_generated_tables_give_a_clear_error_or_a_scale_free_answer(case, tmp_path_factory):
    outcome = run_api(case, tmp_path_factory.mktemp("case"))
    assert outcome == ("clear error" if CORRUPTIONS[case.corruption] else "ok"), case


@given(
    exponent=st.integers(-300, 300),
    n=st.integers(3, 30),
    seed=st.integers(0, 2**16),
    rho=st.floats(0.01, 0.5),
    rope=st.floats(0.0, 0.05),
)
def test_ttest_is_invariant_to_rescaling_scores_and_rope(exponent, n, seed, rho, rope):
    rng = np.random.default_rng(seed)
    b = rng.normal(0.8, 0.02, n)
    c = b + rng.normal(0.003, 0.01, n)
    k = 10.0**exponent
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = bc.correlated_ttest(b * k, c * k, rho=rho, rope=rope * k)
    # the scale-free answer, from scipy's t distribution on the unscaled differences
    d = c - b
    scale = d.std(ddof=1) * np.sqrt(1 / n + rho / (1 - rho))
    post = stats.t(n - 1, loc=d.mean(), scale=scale)
    expected = [post.cdf(-rope), post.sf(rope), post.sf(0.0)]
    np.testing.assert_allclose(
        [res.p_left, res.p_right, res.p_better], expected, atol=1e-9, rtol=1e-6
    )


def test_a_tiny_scale_no_longer_says_certain():
    rng = np.random.default_rng(5)
    b = rng.normal(0.8, 0.02, 10)
    c = b + rng.normal(0.002, 0.01, 10)
    ref = bc.correlated_ttest(b, c, rho=0.1, rope=0.002)
    tiny = bc.correlated_ttest(b * 1e-300, c * 1e-300, rho=0.1, rope=0.002e-300)
    assert 0.05 < ref.p_right < 0.95  # a genuinely uncertain answer ...
    assert tiny.p_right == pytest.approx(ref.p_right, abs=1e-9)  # ... at every scale


# ------------------------------------------------------------------ score tables
def _frame(models=("a", "b"), n=6, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "model": np.repeat(list(models), n),
            "split": np.tile(range(n), len(models)),
            "accuracy": rng.uniform(0.7, 0.9, n * len(models)),
            "n_train": 90,
            "n_test": 10,
        }
    )


def test_duplicated_long_rows_are_refused_not_averaged():
    long = _frame().melt(id_vars=["model", "split", "n_train", "n_test"], var_name="metric")
    with pytest.raises(ValueError, match=r"2 rows repeat a \(dataset, model, split, metric\)"):
        bc.Scores.from_frame(pd.concat([long, long.iloc[[3]]]))
    with pytest.raises(ValueError, match="needs a 'split' column"):
        bc.Scores.from_frame(long.drop(columns="split"))


def test_infinite_sizes_and_non_numeric_cells_are_refused():
    f = _frame()
    f["n_train"] = f["n_train"].astype(float)
    f.loc[3, "n_train"] = np.inf
    with pytest.raises(ValueError, match="n_train must be a positive whole number"):
        bc.Scores.from_frame(f)
    f = _frame()
    f["accuracy"] = f["accuracy"].astype(object)
    f.loc[4, "accuracy"] = "0,85"
    for metrics in (None, ["accuracy"]):
        with pytest.raises(
            ValueError,
            match=r"'accuracy' has 1 cell\(s\) that are not numbers.*"
            r"'value': '0,85'",
        ):
            bc.Scores.from_frame(f, metrics=metrics)


def test_a_table_without_split_column_pairs_by_row_order_and_says_so():
    f = _frame()
    shuffled = f.sample(frac=1.0, random_state=1)
    with pytest.warns(RowOrderPairingWarning, match="numbered by row order"):
        a = bc.Scores.from_frame(f.drop(columns="split"))
    with pytest.warns(RowOrderPairingWarning):
        b = bc.Scores.from_frame(shuffled.drop(columns="split"))
    # the warning is the point: the same rows in another order pair differently
    pa = a.paired("a", "b", "accuracy")["candidate"].to_numpy()
    pb = b.paired("a", "b", "accuracy")["candidate"].to_numpy()
    assert sorted(pa) == sorted(pb) and not np.array_equal(pa, pb)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bc.Scores.from_frame(f)  # an explicit split column: no warning


@pytest.mark.parametrize(
    "encoding,bom", [("utf-8", b""), ("utf-8", codecs.BOM_UTF8), ("utf-16", b"")]
)
@pytest.mark.parametrize("sep", [",", ";", "\t", "|"])
def test_csv_encodings_and_separators(tmp_path, encoding, bom, sep):
    f = _frame(models=("forêt 森", "a,b;c"))
    path = tmp_path / "s.csv"
    path.write_bytes(bom + f.to_csv(index=False, sep=sep).encode(encoding))
    s = bc.Scores.read_csv(path)
    assert s.models == ["forêt 森", "a,b;c"]
    np.testing.assert_allclose(s.to_frame()["accuracy"], f["accuracy"])


def test_csv_in_another_encoding_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "s.csv"
    path.write_bytes(_frame(models=("café", "b")).to_csv(index=False).encode("latin-1"))
    with pytest.raises(ValueError, match=r"is not UTF-8 text \(byte 0xe9.*re-save it as UTF-8"):
        bc.Scores.read_csv(path)
    assert bc.Scores.read_csv(path, encoding="latin-1").models == ["café", "b"]


def test_names_stay_text_when_read(tmp_path):
    path = tmp_path / "s.csv"
    _frame(models=("01", "1", "NA")).to_csv(path, index=False)
    assert bc.Scores.read_csv(path).models == ["01", "1", "NA"]


# ------------------------------------------------------------ spreadsheet safety
@given(st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(max_size=6)))
def test_spreadsheet_escape_round_trips_and_is_never_a_formula(name):
    safe = to_spreadsheet(name)
    assert from_spreadsheet(safe) == name
    assert safe[:1] not in FORMULA_PREFIXES


def test_to_csv_writes_names_exactly_and_exports_neutralise_formulas(tmp_path):
    # Scores.to_csv is an interchange file: every tool reads the names written (issue 17);
    # the spreadsheet-facing exports (--out tables, the report) neutralise formulas
    from bayescomp.scores.csvio import write_frame

    names = ["=cmd|' /C calc'!A0", "+1+1", "-2", "@SUM(1)", "\tx", "\rcr", "'=q", "plain"]
    s = bc.Scores.from_frame(_frame(models=names))
    path = tmp_path / "s.csv"
    s.to_csv(path)
    cells = pd.read_csv(path, dtype=str, keep_default_na=False)["model"]
    assert set(cells) == set(names)  # what pandas, R or a database reads
    export = tmp_path / "export.csv"
    write_frame(s.to_frame(), export, index=False)
    cells = pd.read_csv(export, dtype=str, keep_default_na=False)["model"]
    assert not cells.str[:1].isin(FORMULA_PREFIXES).any()  # what a spreadsheet opens
    assert set(cells) >= {"'=cmd|' /C calc'!A0", "'+1+1", "'-2", "'@SUM(1)", "''=q", "plain"}
    back = bc.Scores.read_csv(path)
    assert back.models == names
    pd.testing.assert_frame_equal(back.to_frame(), s.to_frame(), check_dtype=False)


# ------------------------------------------------------------------ store, load
def test_store_query_is_read_only(tmp_path):
    from bayescomp.studies.store import ResultStore

    store = ResultStore(tmp_path / "s.sqlite")
    store._con.execute("INSERT INTO meta VALUES ('probe', '1')")
    for sql in ("DELETE FROM meta", "DROP TABLE steps", "UPDATE meta SET value = 'x'"):
        with pytest.raises(ValueError, match=r"query refused.*read-only"):
            store.query(sql)
    assert store.query("SELECT value FROM meta WHERE key = 'probe'")["value"].tolist() == ["1"]
    con = sqlite3.connect(tmp_path / "s.sqlite")
    assert con.execute("SELECT count(*) FROM meta").fetchone()[0] >= 2
    con.close()


def test_load_refuses_a_small_file_declaring_a_huge_array(tmp_path):
    h5netcdf = pytest.importorskip("h5netcdf")
    path = tmp_path / "crafted.nc"
    with h5netcdf.File(path, "w") as f:  # 4 × 5e8 float64 = 14.9 GiB declared, nothing written
        g = f.create_group("posterior")
        g.dimensions = {"chain": 4, "draw": 500_000_000}
        g.create_variable("delta0", ("chain", "draw"), dtype="f8", chunks=(1, 1_000_000))
        g.attrs["bayescomp_result"] = "HierarchicalResult"
    assert path.stat().st_size < 64_000
    with pytest.raises(ValueError, match=r"declares 14.9 GiB of arrays but the file is only"):
        bc.load(path)
