"""Stage 3 — posterior: Bayesian models of the difference between two models."""
