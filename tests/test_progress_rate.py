"""The progress bar's rate and ETA: fits done / time elapsed, stored fits not counted."""

from __future__ import annotations

import io
import re
import time

import pytest

from bayescomp.scores.engine import Progress


class _Terminal(io.StringIO):
    """A stderr that says it is a terminal, so the real tqdm bar is drawn into it."""

    def isatty(self) -> bool:
        return True


def test_rate_and_eta_are_fits_per_elapsed_second(monkeypatch):
    term = _Terminal()
    monkeypatch.setattr("sys.stderr", term)
    bar = Progress(True, "select")
    assert bar.bar is not None
    bar.bar.fp = term
    bar.grow(200)
    bar.skip("read from the store", 10)  # instant reads: they must not inflate the rate
    t0 = bar.bar.start_t
    time.sleep(0.1)
    bar.tick("first", 1)
    time.sleep(0.4)
    bar.tick("burst", 4)  # n_jobs=-1: several results arrive at the same moment
    elapsed = time.time() - t0
    rate = 5 / elapsed  # independent: fits computed / wall time (about 10 fit/s)
    line = term.getvalue().split("\r")[-1]
    shown = float(re.search(r"([\d.]+)fit/s", line).group(1))
    assert shown == pytest.approx(rate, rel=0.25)
    # the ETA is what is left at that rate: 185 fits at ~10 fit/s ≈ 18 s, not 00:00
    mm, ss = re.search(r"<(\d\d):(\d\d)", line).groups()
    eta = 60 * int(mm) + int(ss)
    assert eta == pytest.approx(185 / rate, rel=0.25)
    bar.close()
