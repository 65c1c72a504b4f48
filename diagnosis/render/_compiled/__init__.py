"""Generated: the reply templates as Python (see diagnosis.precompile)."""
