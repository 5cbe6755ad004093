"""Regenerate the figures of docs/selection.md.

    python docs/scripts/selection_figures.py

Writes docs/img/selection_timeline.png, selection_step.png, selection_rank.png and
(when a ``chromium`` binary is installed) selection_report.png, a screenshot of
the HTML report.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
IMG = REPO / "docs" / "img"


def main() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import bayescomp as bc
    from bayescomp.scores.datasets import load_dataset

    X, y, _ = load_dataset("breast_cancer")
    files = [REPO / "models" / f"{m}.py" for m in
             ("logistic_regression", "naive_bayes", "svm_rbf", "knn")]
    sel = bc.select(files, X, y, baseline="naive_bayes", scoring="accuracy", rope=0.01,
                    n_splits=10, n_repeats=3, max_repeats=2, progress=False,
                    dataset="breast_cancer")
    print(sel)
    IMG.mkdir(parents=True, exist_ok=True)
    axes = sel.plot()
    axes[0].figure.savefig(IMG / "selection_timeline.png", dpi=90)
    plt.close("all")
    ax = sel.plot_step(1)
    ax.figure.savefig(IMG / "selection_step.png", dpi=90)
    plt.close("all")
    r = bc.rank(sel.base_scores, "accuracy", rope=0.01)
    ax = r.plot()
    ax.figure.savefig(IMG / "selection_rank.png", dpi=90)
    plt.close("all")

    chromium = shutil.which("chromium") or shutil.which("google-chrome")
    if chromium is None:
        print("no chromium: report screenshot not regenerated")
        return
    with tempfile.TemporaryDirectory() as tmp:
        html = sel.report(Path(tmp) / "report")
        shot = Path(tmp) / "shot.png"
        subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu",
                        "--disable-quic", "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        f"--user-data-dir={Path(tmp) / 'profile'}", f"--screenshot={shot}",
                        "--window-size=1100,1250", html.resolve().as_uri()],
                       check=True, capture_output=True, timeout=120)
        from PIL import Image

        img = Image.open(shot).convert("RGB")
        img = img.resize((img.width * 3 // 4, img.height * 3 // 4), Image.LANCZOS)
        img.quantize(colors=128).save(IMG / "selection_report.png", optimize=True)
    print("figures written to", IMG)


if __name__ == "__main__":
    main()
