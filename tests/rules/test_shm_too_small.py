"""The rule `shm_too_small` (diagnosis/rules/shm_too_small.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.models import OomKind
from tests.rules.helpers import assert_said_in_both_languages, check, host


def test_shm_too_small() -> None:
    assert check("shm_too_small", host(OomKind.SHM, "Bus error")) is not None
    assert check("shm_too_small", host(OomKind.HOST_KILLED)) is None


def test_shm_too_small_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("shm_too_small", host(OomKind.SHM, "Bus error"))
