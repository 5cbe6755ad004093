"""Stage 4 — decision: turn a posterior into promote / reject / equivalent / inconclusive."""
