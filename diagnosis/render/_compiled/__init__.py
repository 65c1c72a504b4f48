"""Generated: the reply templates as modules (see diagnosis.render.precompile)."""
