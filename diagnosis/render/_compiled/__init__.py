"""Generated: the reply templates as modules (see diagnosis.precompile)."""
