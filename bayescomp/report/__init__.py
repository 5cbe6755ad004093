"""Stage 5 — report: plots, HTML/JSON reports."""
