"""The output gate: one final check on every text that leaves (see `gate.py`)."""

from diagnosis.outgate.gate import PERSONAL_KINDS, Found, gate_all, gate_text

__all__ = ["PERSONAL_KINDS", "Found", "gate_all", "gate_text"]
