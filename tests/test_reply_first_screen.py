"""The first screen of a reply: the headline, the evidence and step 1 in full; later steps only by their
title (their details are behind "next step" or in the file). A reply that grows past what a member
reads without scrolling fails here, for every corpus case in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.render import message, render_discord
from tests.rules.helpers import LANGS
from tests.test_corpus import CASES

# The diagnosis embed of the longest corpus reply (a slowdown after an update, in English) is ~2,900
# characters: headline, evidence, the slowdown checklist and step 1. Past this, something new was
# added to the first screen that belongs behind "next step" or in the file.
FIRST_SCREEN_CHARS = 3000


def _embed_text(embed: dict[str, object]) -> str:
    fields = embed.get("fields") or []
    assert isinstance(fields, list)
    return str(embed.get("description", "")) + "".join(str(f["name"]) + str(f["value"]) for f in fields)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", CASES, ids=[p.parent.name for p in CASES])
def test_the_first_screen_holds_the_diagnosis_and_step_one_only(case: Path, lang: str) -> None:
    report = diagnose([(case.parent / "input.txt").read_text(encoding="utf-8")], locale=lang)
    reply = render_discord(report)
    body = _embed_text(reply.embeds[0]) if reply.embeds else ""
    assert len(body) <= FIRST_SCREEN_CHARS, (len(body), body[:300])
    # Step 2 and later are named, not explained: no "where" line after the second step's title.
    if len(report.ladder) >= 2:
        second = body.find("**2. ")
        if second != -1:
            rest = body[second:]
            for key in ("reply.checklist.where", "reply.checklist.where_look"):
                assert message(key, lang) not in rest, rest
