"""Uncertainty of evaluation metrics on one model's predictions (bootstrap, BLB, curves)."""
