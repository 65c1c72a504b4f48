"""The oomcheck engine: pure, synchronous, no Discord, no network, no global state.

`diagnose(inputs)` is the one entry point: texts in, a `Report` out, never an exception on user input.
"""

from diagnosis.engine import diagnose
from diagnosis.report import Report

__all__ = ["Report", "diagnose"]
