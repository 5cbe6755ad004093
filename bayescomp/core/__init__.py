"""Shared vocabulary: regions, the decision rule, metric orientation, argument checks, protocols."""
