"""Text shared by sub-commands: the one ROPE rule and how the output explains it.

``compare`` and ``select`` follow one rule: ``--rope`` is required.  The region of
practical equivalence decides what "better" means, and no default suits every metric
(±0.01 AUC is small, ±0.01 R² on a noisy target may be large), so the user states it —
``--rope 0`` when every difference matters — and the output says what the choice means.
"""

from __future__ import annotations

from typing import Any

ROPE_HELP = ("required: half-width of the region of practical equivalence on the metric's "
             "scale, the smallest difference that matters (e.g. 0.01 for AUC); differences "
             "within ±ROPE count as equivalent. --rope 0 makes every difference matter")


def rope_note(rope: Any) -> str:
    """One line saying what the chosen ROPE means for the decisions.

    Examples
    --------
    >>> rope_note(0.01)[:40]
    'ROPE ±0.01 (--rope): differences within '
    """
    rope = float(rope)
    if rope == 0:
        return ("ROPE ±0 (--rope 0): no difference is too small to matter, so 'equivalent' "
                "is impossible and any difference the posterior is sure of decides.")
    return (f"ROPE ±{rope:g} (--rope): differences within ±{rope:g} count as practically "
            "equivalent; 'promote' needs the candidate better by more than that.")
