"""Studies built on the decision: selection, learning curves, the result store."""
