"""Generated bad and hostile inputs for the API and the CLI, and how each outcome is judged.

Shared by ``tests/test_fuzz_api.py``, ``tests/test_fuzz_cli.py`` and ``bench/fuzz_table.py``
(which prints the issue-12 table from the same cases).  A case is a score table written as
CSV bytes (encoding, separator, BOM), possibly corrupted in one known way, with model names
drawn from a hostile list.  Each corruption says whether the input must be refused.
:data:`FILE_CASES` adds issue 28's command lines on other files (predictions tables,
``--data`` tables with ``--time``/``--groups``/``--guardrail``, ``interval``/``curves``
inputs), each with whether it must be refused and, when answered, an independent check.

Outcome classes (the columns of the table):

* ``ok`` — a valid input gave finite probabilities, invariant to rescaling scores and ROPE;
* ``clear error`` — refused with bayescomp's ValueError/TypeError raised by bayescomp's own
  code (CLI: exit 2 and exactly one ``error:`` line on stderr);
* ``raw exception`` — an exception from numpy/pandas/scipy internals, or of another type;
* ``accepted silently`` — an input that must be refused gave a result without an error;
* ``silent NaN`` — a result with NaN/inf probabilities (CLI: ``nan`` in the output);
* ``wrong number`` — the probabilities change when scores and ROPE are rescaled together
  (issue 28's files: the output differs from an independent computation or from the same
  data written plainly);
* ``traceback`` — the CLI printed a traceback, an internal error or more than one line;
* ``hang`` — the CLI did not end within its time limit.
"""

from __future__ import annotations

import contextlib
import io
import re
import signal
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import strategies as st

OUTCOMES = (
    "ok",
    "clear error",
    "raw exception",
    "accepted silently",
    "silent NaN",
    "wrong number",
    "traceback",
    "hang",
)

HOSTILE_NAMES = [
    "$x^$",
    r"$\frac$",
    "$a$",
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '"quoted"',
    "it's",
    "=cmd|' /C calc'!A0",
    "+1+1",
    "-2+3",
    "@SUM(A1)",
    "\ttab",
    "\rcr",
    "forêt 森",
    "new\nline",
    "a,b;c|d",
    "NA",
    "01",
    "1",
    " spaced ",
    "\x1b[31mred",
    "'=q",
]
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16")
SEPARATORS = (",", ";", "\t", "|")
SCALES = (1.0, 1e-300, 1e-150, 1e150, 1e300)
#: corruption -> must the input be refused?
CORRUPTIONS = {
    "none": False,
    "no_split_column": False,
    "constant": False,
    "duplicate_row": True,
    "non_numeric_cell": True,
    "inf_n_train": True,
    "nan_score": True,
    "inf_score": True,
    "empty_name": True,
    "no_sizes": True,
    "latin1": True,
    "ragged_row": True,
    "empty_key_column": True,  # issue 28: the model column empty on every row
}


@dataclass
class Case:
    models: list[str]
    n: int
    scale: float
    corruption: str
    encoding: str
    sep: str
    seed: int
    rope: float = 0.01
    frame: pd.DataFrame = field(default=None, repr=False)

    @property
    def must_refuse(self) -> bool:
        return CORRUPTIONS[self.corruption]


@st.composite
def cases(draw: Any, corruptions: tuple[str, ...] = tuple(CORRUPTIONS)) -> Case:
    names = draw(
        st.lists(
            st.one_of(st.sampled_from(HOSTILE_NAMES), st.text(min_size=1, max_size=8)),
            min_size=2,
            max_size=3,
            unique_by=lambda s: s.strip(),
        )
    )
    names = [n for n in names if n.strip()]
    if len(names) < 2:
        names = ["base", "cand"]
    return Case(
        models=names,
        n=draw(st.integers(3, 12)),
        scale=draw(st.sampled_from(SCALES)),
        corruption=draw(st.sampled_from(corruptions)),
        encoding=draw(st.sampled_from(ENCODINGS)),
        sep=draw(st.sampled_from(SEPARATORS)),
        seed=draw(st.integers(0, 2**16)),
    )


def table(case: Case, scale: float | None = None) -> pd.DataFrame:
    """The score table of ``case`` (scores multiplied by ``scale``), before corruption."""
    rng = np.random.default_rng(case.seed)
    # the metric is "score": unbounded, so the scale-free cases (x 1e150) are valid scores
    base = rng.normal(0.8, 0.02, case.n)
    rows = []
    for i, m in enumerate(case.models):
        vals = base + 0.004 * i + rng.normal(0, 0.01, case.n)
        if case.corruption == "constant":
            vals = np.full(case.n, 0.8)
        for s in range(case.n):
            rows.append({"model": m, "split": s, "score": vals[s], "n_train": 90, "n_test": 10})
    frame = pd.DataFrame(rows)
    frame["score"] *= case.scale if scale is None else scale
    return frame


def csv_bytes(case: Case, frame: pd.DataFrame) -> bytes:
    """``frame`` as the CSV file of ``case``, with its corruption applied."""
    frame = frame.copy()
    c = case.corruption
    if c == "duplicate_row":
        frame = pd.concat([frame, frame.iloc[[1]]], ignore_index=True)
    elif c == "non_numeric_cell":
        frame["score"] = frame["score"].astype(object)
        frame.loc[1, "score"] = "n/a-oops"
    elif c == "inf_n_train":
        frame["n_train"] = frame["n_train"].astype(float)
        frame.loc[0, "n_train"] = np.inf
    elif c in ("nan_score", "inf_score"):
        frame.loc[2, "score"] = np.nan if c == "nan_score" else np.inf
    elif c == "empty_name":
        frame["model"] = frame["model"].astype(object)
        frame.loc[0, "model"] = ""
    elif c == "no_sizes":
        frame = frame.drop(columns=["n_train", "n_test"])
    elif c == "empty_key_column":
        frame["model"] = np.nan
    elif c == "no_split_column":
        frame = frame.drop(columns=["split"])
    from bayescomp.scores.csvio import write_frame

    text = write_frame(frame, None, index=False, sep=case.sep)
    if c == "ragged_row":
        text += case.sep.join(["x"] * (frame.shape[1] + 3)) + "\n"
    if c == "latin1":
        return _latin1(text, case)
    return text.encode(case.encoding)


def _latin1(text: str, case: Case) -> bytes:
    lines = text.split("\n")
    lines[1] = lines[1].replace(lines[1].split(case.sep)[0], "café", 1)
    return "\n".join(lines).encode("latin-1", errors="replace")


def _ours(exc: BaseException) -> bool:
    """Raised by bayescomp's own code (its innermost frame is in the package)?"""
    frames = traceback.extract_tb(exc.__traceback__)
    return bool(frames) and "/bayescomp/" in frames[-1].filename.replace("\\", "/")


def _probabilities(path: Path, case: Case) -> np.ndarray:
    import bayescomp as bc

    scores = bc.Scores.read_csv(path)
    base = scores.models[0]
    rope = case.rope * case.scale
    out = []
    for cand in scores.models[1:]:
        res = bc.compare(scores, baseline=base, candidate=cand, metric="score", rope=rope)
        out.append([res.p_left, res.p_rope, res.p_right, res.p_better])
    return np.asarray(out, dtype=float)


def run_api(case: Case, folder: Path) -> str:
    """Read the case's CSV and compare every candidate with the first model; classify."""
    path = folder / "scores.csv"
    path.write_bytes(csv_bytes(case, table(case)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            probs = _probabilities(path, case)
        except (ValueError, TypeError, FileNotFoundError) as exc:
            return "clear error" if str(exc) and _ours(exc) else "raw exception"
        except Exception:
            return "raw exception"
    if case.must_refuse:
        return "accepted silently"
    if not np.all(np.isfinite(probs)):
        return "silent NaN"
    # the same case on the scale-free table (scores near 0.8, ROPE 0.01) gives the same answer
    ref = Case(**{**case.__dict__, "scale": 1.0})
    path.write_bytes(csv_bytes(ref, table(ref)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = _probabilities(path, ref)
    if not np.allclose(probs, expected, rtol=1e-6, atol=1e-9):
        return "wrong number"
    return "ok"


class Hang(BaseException):
    """The in-process CLI run passed its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float):
    def stop(signum, frame):
        raise Hang()

    old = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def cli_argv(case: Case, path: Path, command: str, extra: list[str]) -> list[str]:
    # --flag=VALUE: a name starting with '-' is a value, not an option
    base = [f"--baseline={case.models[0]}", "--metric", "score"]
    rope = [f"--rope={case.rope * case.scale:g}"]
    return [command, str(path), *base, *rope, *extra]


def _has_nan(stdout: str, names: list[str]) -> bool:
    """NaN in the output that no ``NaN: ...`` line explains."""
    if any(line.startswith("NaN: ") for line in stdout.splitlines()):
        return False
    for name in sorted(names, key=len, reverse=True):
        stdout = stdout.replace(name, "")
    return re.search(r"(?<![\w])nan(?![\w])", stdout, flags=re.IGNORECASE) is not None


def run_cli(
    argv: list[str], must_refuse: bool, seconds: float = 60, names: list[str] = ()
) -> tuple[str, str, str]:
    """Run ``bayescomp`` in-process; return (outcome, stdout, stderr)."""
    from bayescomp.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with time_limit(seconds), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse
                code = exc.code if isinstance(exc.code, int) else 2
    except Hang:
        return "hang", out.getvalue(), err.getvalue()
    except Exception:
        return "traceback", out.getvalue(), err.getvalue() + traceback.format_exc()
    stdout, stderr = out.getvalue(), err.getvalue()
    # a renamed flag's one-line deprecation notice is not part of the error
    lines = [x for x in stderr.splitlines() if not x.startswith("FutureWarning: ")]
    if code == 0:
        if must_refuse:
            return "accepted silently", stdout, stderr
        if _has_nan(stdout, list(names)):
            return "silent NaN", stdout, stderr
        return "ok", stdout, stderr
    if code == 2 and len(lines) == 1 and ": error: " in lines[0]:
        return "clear error", stdout, stderr
    return "traceback", stdout, stderr


# ---------------------------------------------------------------- issue 28: other files
_LR = "from sklearn.linear_model import LogisticRegression\n\nmodel = LogisticRegression()\n"
_PRIOR = "from sklearn.dummy import DummyClassifier\n\nmodel = DummyClassifier()\n"
_FAST = ["--baseline", "lr", "--rope", "0.01", "--n-splits", "3", "--n-repeats", "1", "--quiet"]


def _data(n: int = 60) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"x": rng.normal(size=n), "g": np.arange(n) % 6})
    df["y"] = (df["x"] + rng.normal(size=n) > 0).astype(int)
    return df


def _probs(n: int = 200) -> pd.DataFrame:
    """Predicted probabilities of class 1 (none of them 0 or 1) and 0/1 truth."""
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, n)
    old = np.clip(np.where(y == 1, rng.beta(3, 2, n), rng.beta(2, 3, n)), 0.01, 0.99)
    new = np.clip(np.where(y == 1, rng.beta(5, 2, n), rng.beta(2, 5, n)), 0.01, 0.99)
    return pd.DataFrame({"y_true": y, "old": old, "new": new})


def _labels_table() -> pd.DataFrame:
    p = _probs()
    return p.assign(old=(p["old"] >= 0.5).astype(int), new=(p["new"] >= 0.5).astype(int))


def _select_data(folder: Path, name: str, frame_or_bytes: Any, *flags: str) -> list[str]:
    models = folder / "models"
    models.mkdir(exist_ok=True)
    (models / "lr.py").write_text(_LR)
    (models / "prior.py").write_text(_PRIOR)
    path = folder / name
    if isinstance(frame_or_bytes, bytes):
        path.write_bytes(frame_or_bytes)
    else:
        frame_or_bytes.to_csv(path, index=False)
    return ["select", str(models), "--data", str(path), "--target", "y", *flags, *_FAST]


def _same_as(reference: Any, *flags: str):
    """Check: the output equals the same command on ``reference`` (a plainly written table)."""

    def check(stdout: str, folder: Path) -> str | None:
        sub = folder / "reference"
        sub.mkdir(exist_ok=True)
        outcome, ref, err = run_cli(_select_data(sub, "ref.csv", reference, *flags), False)
        if outcome != "ok":
            return f"reference run: {outcome} {err[-200:]}"
        return None if stdout == ref else "output differs from the plainly written table"

    return check


def _accuracy_printed(stdout: str, folder: Path) -> str | None:
    """compare --threshold 0.5 prints sklearn's accuracy_score(y, p >= 0.5) of each model."""
    from sklearn.metrics import accuracy_score

    p = _probs()
    for m in ("old", "new"):
        want = f"{accuracy_score(p['y_true'], p[m] >= 0.5):.4f}"
        if want not in stdout:
            return f"accuracy of {m} {want} not in the output"
    return None


def _predictions(
    folder: Path, frame: pd.DataFrame, command: str, *flags: str, rope: str = "0.01"
) -> list[str]:
    path = folder / "p.csv"
    frame.to_csv(path, index=False)
    extra = ["--candidate", "new"] if command == "compare" else []
    return [
        command,
        "--predictions",
        str(path),
        "--baseline",
        "old",
        "--rope",
        rope,
        *extra,
        *flags,
    ]


def _write(folder: Path, frame: pd.DataFrame, name: str = "p.csv") -> str:
    frame.to_csv(folder / name, index=False)
    return str(folder / name)


def _dup(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(extra=frame["new"]).set_axis(["y_true", "old", "new", "new"], axis=1)


def _day_first(n: int = 60) -> list[str]:
    return [f"{i % 28 + 1:02d}/0{i // 28 + 1}/2024 08:15" for i in range(n)]


def _iso(n: int = 60) -> list[str]:
    return [f"2024-0{i // 28 + 1}-{i % 28 + 1:02d} 08:15" for i in range(n)]


def _three_classes() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 90)
    return pd.DataFrame(
        {"y": y, "s": rng.random(90), "label": np.where(rng.random(90) < 0.7, y, 0)}
    )


#: name -> (build(folder) -> (argv, check or None), must refuse)
FILE_CASES: dict[str, tuple[Any, bool]] = {
    **{
        f"{cmd} --predictions probabilities, metric {metric}": (
            lambda f, cmd=cmd, metric=metric: (
                _predictions(f, _probs(), cmd, "--metric", metric),
                None,
            ),
            True,
        )
        for cmd in ("compare", "select")
        for metric in ("accuracy", "error_rate")
    },
    "compare --predictions probabilities --threshold 0.5": (
        lambda f: (_predictions(f, _probs(), "compare", "--threshold", "0.5"), _accuracy_printed),
        False,
    ),
    "select --predictions probabilities --threshold 0.5": (
        lambda f: (_predictions(f, _probs(), "select", "--threshold", "0.5"), None),
        False,
    ),
    "select --predictions with a text column": (
        lambda f: (
            _predictions(f, _labels_table().assign(q=[f"q{i}" for i in range(200)]), "select"),
            None,
        ),
        True,
    ),
    "compare --predictions with duplicate column names": (
        lambda f: (_predictions(f, _dup(_labels_table()), "compare"), None),
        True,
    ),
    "select --predictions with duplicate column names": (
        lambda f: (_predictions(f, _dup(_labels_table()), "select"), None),
        True,
    ),
    **{
        f"{cmd} --predictions per-item values without a direction": (
            lambda f, cmd=cmd: (
                _predictions(f, _probs()[["old", "new"]], cmd, "--y-true", "none"),
                None,
            ),
            True,
        )
        for cmd in ("compare", "select")
    },
    "compare --predictions per-item values --lower-is-better": (
        lambda f: (
            _predictions(
                f, _probs()[["old", "new"]], "compare", "--y-true", "none", "--lower-is-better"
            ),
            None,
        ),
        False,
    ),
    "--time day-first dates": (
        lambda f: (_select_data(f, "t.csv", _data().assign(t=_day_first()), "--time", "t"), None),
        True,
    ),
    "--time day-first dates with --time-format": (
        lambda f: (
            _select_data(
                f,
                "t.csv",
                _data().assign(t=_day_first()),
                "--time",
                "t",
                "--time-format",
                "%d/%m/%Y %H:%M",
            ),
            _same_as(_data().assign(t=_iso()), "--time", "t"),
        ),
        False,
    ),
    "--time numbers stored as text": (
        lambda f: (
            _select_data(
                f,
                "t.csv",
                _data().assign(t=[f"{i}" for i in range(60)]).sample(frac=1.0, random_state=0),
                "--time",
                "t",
            ),
            _same_as(_data().assign(t=np.arange(60)), "--time", "t"),
        ),
        False,
    ),
    "--time unparseable labels": (
        lambda f: (
            _select_data(
                f, "t.csv", _data().assign(t=[f"day-{i}" for i in range(60)]), "--time", "t"
            ),
            None,
        ),
        True,
    ),
    "--target equal to --groups": (
        lambda f: (_select_data(f, "d.csv", _data(), "--groups", "y"), None),
        True,
    ),
    "--target equal to --time": (
        lambda f: (_select_data(f, "d.csv", _data(), "--time", "y"), None),
        True,
    ),
    "0-row --data": (lambda f: (_select_data(f, "empty.csv", _data().head(0)), None), True),
    "';'-separated --data": (
        lambda f: (
            _select_data(f, "semi.csv", _data().to_csv(index=False, sep=";").encode()),
            _same_as(_data()),
        ),
        False,
    ),
    "UTF-16 --data": (
        lambda f: (
            _select_data(f, "u16.csv", _data().to_csv(index=False).encode("utf-16")),
            _same_as(_data()),
        ),
        False,
    ),
    **{
        f"--guardrail {spec}": (
            lambda f, spec=spec: (_select_data(f, "d.csv", _data(), "--guardrail", spec), None),
            True,
        )
        for spec in ("fit_time:inf", "fit_time:0.1:0.2", "nope:0.1", "fit_time", ":0.1")
    },
    "interval on a text score column": (
        lambda f: (
            [
                "interval",
                _write(f, pd.DataFrame({"y": [0, 1] * 10, "s": list("abcdefghij") * 2})),
                "--y-true",
                "y",
                "--pred",
                "s",
            ],
            None,
        ),
        True,
    ),
    **{
        f"interval {metric} on three classes": (
            lambda f, metric=metric, column=column: (
                [
                    "interval",
                    _write(f, _three_classes()),
                    "--y-true",
                    "y",
                    "--pred",
                    column,
                    "--metric",
                    metric,
                ],
                None,
            ),
            True,
        )
        for metric, column in (("roc_auc", "s"), ("f1", "label"), ("precision", "label"))
    },
    "curves on a text score column": (
        lambda f: (
            [
                "curves",
                _write(
                    f,
                    pd.DataFrame(
                        {"rep": np.repeat([0, 1], 20), "y": [0, 1] * 20, "s": ["low", "high"] * 20}
                    ),
                ),
                "--y-true",
                "y",
                "--score",
                "s",
                "--repetition",
                "rep",
            ],
            None,
        ),
        True,
    ),
}


def _ranked(folder: Path, name: str, k: int = 3, nan: bool = False) -> str:
    """A scores CSV of ``k`` models on three datasets (4 splits), optionally one NaN score."""
    rng = np.random.default_rng(5)
    f = pd.DataFrame(
        {
            "dataset": np.repeat(["d1", "d2", "d3"], 4 * k),
            "model": np.tile(np.repeat([f"m{i}" for i in range(k)], 4), 3),
            "split": np.tile(np.arange(4), 3 * k),
            "accuracy": rng.uniform(0.6, 0.9, 12 * k),
        }
        | {"n_train": 90, "n_test": 10}
    )
    if nan:
        f.loc[7, "accuracy"] = np.nan
    return _write(folder, f, name)


#: the Plackett–Luce ranking's bad inputs on the command line
FILE_CASES.update(
    {
        "rank --comment-file (a ranking has no comment)": (
            lambda f: (["rank", _ranked(f, "r.csv"), "--comment-file", str(f / "c.md")], None),
            True,
        ),
        "rank plackett_luce on a NaN score": (
            lambda f: (["rank", _ranked(f, "n.csv", nan=True), "--metric", "accuracy"], None),
            True,
        ),
        "rank plackett_luce on 2,001 models": (
            lambda f: (["rank", _ranked(f, "k.csv", k=2001), "--metric", "accuracy"], None),
            True,
        ),
    }
)


def _model_exits(folder: Path, code: str) -> tuple[list[str], None]:
    """compare on a model file that calls ``sys.exit(code)`` at import, as a CI gate."""
    argv = _select_data(folder, "d.csv", _data())
    (folder / "models" / "bad.py").write_text(f"import sys\n\nsys.exit({code})\n")
    files = [str(folder / "models" / n) for n in ("lr.py", "bad.py")]
    return ["compare", *files, *argv[2:6], "--rope", "0.01", "--fail-unless", "promote"], None


def _store_changed(folder: Path, damage: str) -> tuple[list[str], None]:
    """select --store again after ``damage`` (SQL) changed the store outside bayescomp."""
    import sqlite3

    argv = _select_data(folder, "d.csv", _data(), "--store", str(folder / "s.sqlite"))
    outcome, _, err = run_cli(argv, False)
    assert outcome == "ok", err
    with sqlite3.connect(folder / "s.sqlite") as con:
        con.execute(damage)
    return argv, None


FILE_CASES.update(
    {
        **{
            f"compare on a model file calling sys.exit({code}) at import": (
                lambda f, code=code: _model_exits(f, code),
                True,
            )
            for code in ("0", "3")
        },
        **{
            f"select --store on a store after {damage}": (
                lambda f, damage=damage: _store_changed(f, damage),
                True,
            )
            for damage in ("DROP TABLE fits", "UPDATE scores SET value = 'oops'")
        },
    }
)


def run_file_case(name: str, folder: Path, seconds: float = 120) -> tuple[str, str]:
    """Run issue 28's command ``name`` on its files in ``folder``; (outcome, detail)."""
    build, refuse = FILE_CASES[name]
    argv, check = build(folder)
    outcome, stdout, stderr = run_cli(argv, refuse, seconds)
    if outcome == "ok" and check is not None:
        wrong = check(stdout, folder)
        if wrong:
            return "wrong number", wrong
    return outcome, (stderr or stdout)[-300:]


def _text_labels() -> pd.DataFrame:
    """The labels table with text classes "yes" / "no"."""
    return _labels_table().replace({0: "no", 1: "yes"})


#: one test set: text labels and --pos-label, a missing label, margins on predictions
FILE_CASES.update(
    {
        "compare --predictions text labels, f1 without --pos-label": (
            lambda f: (_predictions(f, _text_labels(), "compare", "--metric", "f1"), None),
            True,
        ),
        "compare --predictions text labels --pos-label maybe": (
            lambda f: (
                _predictions(
                    f, _text_labels(), "compare", "--metric", "f1", "--pos-label", "maybe"
                ),
                None,
            ),
            True,
        ),
        "select --predictions text labels --pos-label yes": (
            lambda f: (
                _predictions(f, _text_labels(), "select", "--metric", "f1", "--pos-label", "yes"),
                None,
            ),
            False,
        ),
        "compare --predictions a missing label --pos-label yes": (
            lambda f: (
                _predictions(
                    f,
                    _text_labels()
                    .astype(object)
                    .assign(y_true=lambda t: t.y_true.mask(t.index == 3)),
                    "compare",
                    *("--metric", "f1", "--pos-label", "yes"),
                ),
                None,
            ),
            True,
        ),
        "compare --predictions roc_auc --rope 0.1sd": (
            lambda f: (
                _predictions(f, _probs(), "compare", "--metric", "roc_auc", rope="0.1sd"),
                None,
            ),
            True,
        ),
        "select --predictions --rope 1%": (
            lambda f: (_predictions(f, _labels_table(), "select", rope="1%"), None),
            False,
        ),
    }
)
