"""The issue-12 table, measured again: generated bad and hostile inputs, and what happened.

    PYTHONPATH=. python bench/fuzz_table.py            # 200 API + 200 CLI cases (~3 min)
    PYTHONPATH=. python bench/fuzz_table.py --n 1000

Cases come from ``tests/fuzz_cases.py`` (the strategies the test suite uses), drawn by
hypothesis with a fixed seed, so the table is reproducible.  API: read the CSV with
``Scores.read_csv`` and compare every candidate with the first model, then the same table
on the scale-free data (scores near 0.8, ROPE 0.01) to detect a wrong number; then every
mutation of every public entry point once (``tests/fuzz_entries.py``), with issue 28's
whole-call variants (probabilities under a label metric, misaligned Series, predictions
tables with text or duplicate columns, ...) whose answers are checked independently
(scikit-learn, scipy).  CLI: ``compare``/``select`` on the same files plus generated argument
vectors for all five sub-commands, run in-process with a 60 s limit, then issue 28's command
lines on other files once (``FILE_CASES``: ``--predictions`` tables, ``--data`` with
``--time``/``--groups``/``--guardrail``, ``;`` and UTF-16 files, ``interval``/``curves``
inputs), an answer checked against sklearn or the same data written plainly.  Goal: 0 in
every column but "clear error" (and "ok": a valid input that gave a correct answer).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from fuzz_cases import (
    FILE_CASES,
    OUTCOMES,
    Case,
    cases,
    cli_argv,
    csv_bytes,
    run_api,
    run_cli,
    run_file_case,
    table,
)
from fuzz_entries import entries, mutations, run_entry
from test_fuzz_cli import FLAG_VALUES, FLAGS

COLUMNS = [
    "ok",
    "clear error",
    "raw exception",
    "accepted silently",
    "silent NaN",
    "wrong number",
    "traceback",
    "hang",
]


def _settings(n: int):
    return settings(
        max_examples=n,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


def measure(n: int) -> dict[str, Counter]:
    tmp = Path(tempfile.mkdtemp())
    api, cli = Counter(), Counter()
    examples: dict[str, list] = {}

    @_settings(n)
    @given(case=cases())
    def api_cases(case):
        outcome = run_api(case, tmp)
        api[outcome] += 1
        examples.setdefault(f"API {outcome}", []).append(case)

    @_settings(n // 2)
    @given(case=cases(), command=st.sampled_from(["select", "compare"]))
    def cli_files(case, command):
        path = tmp / "cli.csv"
        path.write_bytes(csv_bytes(case, table(case)))
        outcome, _, err = run_cli(
            cli_argv(case, path, command, ["--quiet"]), case.must_refuse, names=case.models
        )
        cli[outcome] += 1
        examples.setdefault(f"CLI {outcome}", []).append((command, case, err[-300:]))

    @_settings(n - n // 2)
    @given(
        command=st.sampled_from(["select", "compare", "interval", "curves", "unlabeled"]),
        pairs=st.lists(st.tuples(FLAGS, FLAG_VALUES), max_size=5),
    )
    def cli_argvs(command, pairs):
        case = Case(
            models=["base", "cand"],
            n=8,
            scale=1.0,
            corruption="none",
            encoding="utf-8",
            sep=",",
            seed=0,
        )
        path = tmp / "argv.csv"
        path.write_bytes(csv_bytes(case, table(case)))
        argv = [command, str(path)] + [x for pair in pairs for x in pair]
        outcome, _, err = run_cli(argv, must_refuse=False, names=case.models)
        cli[outcome] += 1
        examples.setdefault(f"CLI {outcome}", []).append((argv, err[-300:]))

    api_cases()
    for name in entries():  # every mutation of every public entry point, once
        for label, _, refuse in mutations(name):
            outcome, detail = run_entry(name, label, refuse)
            api[outcome] += 1
            examples.setdefault(f"API {outcome}", []).append((name, label, detail))
    cli_files()
    cli_argvs()
    for i, name in enumerate(FILE_CASES):  # issue 28's command lines on other files, once
        folder = tmp / f"file{i}"
        folder.mkdir()
        outcome, detail = run_file_case(name, folder)
        cli[outcome] += 1
        examples.setdefault(f"CLI {outcome}", []).append((name, detail))
    return {"api": api, "cli": cli, "examples": examples}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=200, help="cases per surface")
    args = parser.parse_args()
    start = time.perf_counter()
    res = measure(args.n)
    assert set(COLUMNS) == set(OUTCOMES)
    n_entries = len({n.split("[")[0] for n in entries()})
    print(f"API entry points exercised: {n_entries} ({', '.join(entries())})\n")
    print("| surface | inputs tried | " + " | ".join(COLUMNS) + " |")
    print("|---|---|" + "---|" * len(COLUMNS))
    for label, key in (
        (f"Python API ({n_entries} entry points)", "api"),
        ("CLI (compare, select, interval, curves, unlabeled)", "cli"),
    ):
        c = res[key]
        print(f"| {label} | {sum(c.values())} | " + " | ".join(str(c[k]) for k in COLUMNS) + " |")
    print(f"\n{time.perf_counter() - start:.0f} s")
    for key, items in res["examples"].items():
        if not key.endswith(("ok", "clear error")):
            print(f"\n{key}: {len(items)}, e.g. {items[0]!r}")


if __name__ == "__main__":
    main()
