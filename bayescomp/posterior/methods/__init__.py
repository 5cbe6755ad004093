"""Compare methods of bayescomp, one module each: a module here registers its method with
:func:`bayescomp.posterior.registry.register` and is imported by
:func:`~bayescomp.posterior.registry.methods` when the registry is first read, so a new
method needs no line anywhere else."""
