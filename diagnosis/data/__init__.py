"""Data tables of the engine (families, prose keywords, ladder order)."""
