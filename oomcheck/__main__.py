from oomcheck.program import run

raise SystemExit(run())
