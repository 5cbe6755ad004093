from bayescomp.cli.main import main

raise SystemExit(main())
