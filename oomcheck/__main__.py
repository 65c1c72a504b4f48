from oomcheck.cli import main

raise SystemExit(main())
