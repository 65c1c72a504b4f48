"""How much VRAM a job needs: a per-component, per-phase estimate as a range, calibrated against the
table in tests/calibration/. Pure arithmetic over the numbers in `data/memory_model.yaml`.

`job_from_facts` reads what the estimate needs from a case's Facts; `estimate` gives every phase's
components; `fit` says whether the peak fits a card; `largest_that_fits` lets a rule choose how far to
cut (frames, bucket, batch).
"""

from __future__ import annotations

from diagnosis.estimate.fit import (
    Fit,
    fit,
    largest_that_fits,
    largest_that_fits_on_card,
    observed_floor,
    usable_gib,
)
from diagnosis.estimate.job import Job, job_from_facts
from diagnosis.estimate.model import Component, Estimate, PhaseEstimate, Span, estimate

__all__ = [
    "Component",
    "Estimate",
    "Fit",
    "Job",
    "PhaseEstimate",
    "Span",
    "estimate",
    "fit",
    "job_from_facts",
    "largest_that_fits",
    "largest_that_fits_on_card",
    "observed_floor",
    "usable_gib",
]
