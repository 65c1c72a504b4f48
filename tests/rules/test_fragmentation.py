"""The rule `fragmentation` (diagnosis/rules/fragmentation.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import Facts
from diagnosis.render import message, render_discord
from diagnosis.report import Report
from tests.golden.cases import ADV, WARN, finding
from tests.rules.helpers import (
    GIB,
    LANGS,
    assert_said_in_both_languages,
    check,
    everything,
    gpu_event,
    in_step,
    oom_facts,
)


def test_fragmentation_needs_large_reserved_next_to_the_request() -> None:
    big = gpu_event(reserved_unallocated_bytes=6 * GIB, tried_bytes=5 * GIB)
    found = check("fragmentation", in_step(Facts(), big))
    assert found.params == {"reserved_gib": 6.0, "tried_gib": 5.0}
    assert found.applicability.value == "advice"


def test_fragmentation_is_not_offered_where_expandable_segments_are_ignored() -> None:
    # PyTorch supports expandable segments on Linux only; on Windows it ignores the setting.
    big = gpu_event(reserved_unallocated_bytes=6 * GIB, tried_bytes=2 * GIB)
    assert check("fragmentation", in_step(Facts(os="windows"), big)) is None
    assert check("fragmentation", in_step(Facts(os="linux"), big)) is not None


def test_fragmentation_needs_reserved_memory_that_would_have_covered_the_request() -> None:
    # Case 007: 2.92 GiB reserved-but-unallocated could never have served a 5.06 GiB request.
    short = gpu_event(reserved_unallocated_bytes=int(2.92 * GIB), tried_bytes=int(5.06 * GIB))
    assert check("fragmentation", in_step(Facts(), short)) is None


def test_fragmentation_boilerplate_is_not_evidence() -> None:
    # 352 MiB reserved-but-unallocated: the hint sentence is printed in every modern OOM message.
    small = gpu_event(reserved_unallocated_bytes=352 * 1024**2, tried_bytes=48 * 1024**2)
    assert check("fragmentation", in_step(Facts(), small)) is None


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize(("reserved", "tried", "full"), [(6.5, 2.25, True), (2.92, 5.06, False)])
def test_fragmentation_never_claims_more_than_the_request_when_it_is_less(
    lang: str, reserved: float, tried: float, full: bool
) -> None:
    f = finding("fragmentation", WARN, ADV, reserved_gib=reserved, tried_gib=tried)
    text = everything(render_discord(Report([f], [], oom_facts(), lang, False)))
    long = message("rules.fragmentation.detail", lang, reserved_gib=reserved, tried_gib=tried)
    assert (long in text) is full
    assert (message("rules.fragmentation.detail_short", lang, reserved_gib=reserved) in text) is not full


def test_fragmentation_is_said_in_both_languages() -> None:
    big = gpu_event(reserved_unallocated_bytes=6 * GIB, tried_bytes=5 * GIB)
    assert_said_in_both_languages("fragmentation", in_step(Facts(), big))
