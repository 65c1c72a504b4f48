"""The rule `windows_pagefile` (diagnosis/rules/windows_pagefile.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

from diagnosis.models import OomKind
from tests.rules.helpers import VRAM_ONLY, assert_said_in_both_languages, check, host, ladder_after_host_oom


def test_windows_pagefile() -> None:
    assert check("windows_pagefile", host(OomKind.WINDOWS_PAGEFILE, "os error 1455")) is not None
    assert check("windows_pagefile", host(OomKind.HOST_KILLED)) is None


def test_windows_pagefile_is_said_in_both_languages() -> None:
    assert_said_in_both_languages("windows_pagefile", host(OomKind.WINDOWS_PAGEFILE, "os error 1455"))


def test_the_steps_after_a_page_file_error_stay_host_side() -> None:
    ids = ladder_after_host_oom(OomKind.WINDOWS_PAGEFILE, "os error 1455")
    assert ids[0] == "windows_pagefile" and not set(ids) & VRAM_ONLY, ids
