"""The ``bayescomp`` command-line tool."""
