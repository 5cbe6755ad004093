"""Adapters to other tools; each module imports its tool only when used (optional extras).

* :mod:`bayescomp.integrations.mlflow` — MLflow tracking, registry alias and model specs
  (``pip install "bayescomp[mlflow]"``).
"""
