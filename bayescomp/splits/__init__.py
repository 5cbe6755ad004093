"""Stage 1 — splits: the cross-validation design, fixed once and shared by every model."""
