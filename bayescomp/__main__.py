from bayescomp.cli.main import main

if __name__ == "__main__":  # not when a spawned worker process (Dask, loky) imports it
    raise SystemExit(main())
