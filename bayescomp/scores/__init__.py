"""Stage 2 — scores: paired per-split performance tables and metric uncertainty."""
