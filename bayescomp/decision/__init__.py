"""Stage 4 — decision: turn a posterior into promote / worse / equivalent / inconclusive."""
