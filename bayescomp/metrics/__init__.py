"""Uncertainty of evaluation metrics on one model's predictions (bootstrap, BLB, curves).

:func:`check_pos_label` (the check behind every ``pos_label=``) is public here, so the
command line checks ``--pos-label`` the same way without reaching into a private module.
"""

from bayescomp.metrics._metric import check_pos_label

__all__ = ["check_pos_label"]
