"""Whatever a report holds, every Discord reply stays within Discord's limits and never cuts a code
block open; what does not fit goes into the attached file."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diagnosis import diagnose
from diagnosis.facts_model import Facts
from diagnosis.models import (
    Applicability,
    ConfigDoc,
    ConfigShape,
    Evidence,
    Finding,
    LadderStep,
    Note,
    Piece,
    PieceKind,
    Severity,
)
from diagnosis.render import DiscordReply, message, render_cli, render_discord
from diagnosis.render.discord import REPLY_FILE, cut_markdown
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS

CONTENT_MAX, TITLE_MAX, DESCRIPTION_MAX, TOTAL_MAX, EMBEDS_MAX = 2000, 256, 4096, 6000, 10

any_text = st.text(max_size=3000) | st.builds(
    lambda s, n: s * n, st.text(min_size=1, max_size=40), st.integers(1, 400)
)
param_value = st.one_of(any_text, st.integers(-(10**12), 10**12), st.booleans(), st.floats(allow_nan=False))


def assert_within_limits(reply: DiscordReply) -> None:
    assert len(reply.content) <= CONTENT_MAX
    assert len(reply.embeds) <= EMBEDS_MAX
    total = 0
    for embed in reply.embeds:
        title, description = embed.get("title", ""), embed.get("description", "")
        assert len(title) <= TITLE_MAX and len(description) <= DESCRIPTION_MAX
        assert len(embed.get("fields", [])) <= 25
        total += len(title) + len(description)
        assert description.count("```") % 2 == 0, "a code block was cut open"
    assert total <= TOTAL_MAX
    assert reply.content.count("```") % 2 == 0
    assert reply.content.strip() or reply.embeds or reply.files
    assert len(reply.files) <= 10


@st.composite
def reports(draw: Any) -> Report:
    findings = []
    for rule_id in draw(st.lists(st.sampled_from(RULE_IDS), max_size=12)):
        evidence = [
            Evidence(draw(any_text), draw(st.none() | st.integers(1, 10**6)), draw(any_text))
            for _ in range(draw(st.integers(0, 8)))
        ]
        params = draw(
            st.dictionaries(
                st.sampled_from(
                    [
                        "batch_size",
                        "kind",
                        "headline",
                        "quote",
                        "missing",
                        "line_text",
                        "problem",
                        "pids",
                        "family_label",
                        "kinds",
                        "count",
                        "reason",
                        "signal",
                        "tab",
                        "new_buckets",
                    ]
                ),
                param_value,
                max_size=8,
            )
        )
        findings.append(
            Finding(
                rule_id,
                draw(st.sampled_from(Severity)),
                draw(st.sampled_from(Applicability)),
                evidence,
                params,
            )
        )
    config_text = draw(any_text)
    ladder = [
        LadderStep(i + 1, [f.rule_id], [], draw(st.none() | any_text), None)
        for i, f in enumerate(findings[: draw(st.integers(0, 5))])
    ]
    config = None
    if draw(st.booleans()):
        piece = Piece(PieceKind.CONFIG_YAML, config_text, draw(any_text), 0, 0)
        config = ConfigDoc(piece, draw(st.sampled_from(["yaml", "json"])), ConfigShape.FULL_JOB, {}, (), {})
    facts = Facts(
        has_oom=draw(st.booleans()),
        config_parsed=draw(st.booleans()),
        family_label=draw(st.none() | any_text),
        batch_size=draw(st.integers(-5, 10**9)),
        max_bucket=draw(st.none() | st.integers(0, 10**9)),
        step=draw(st.none() | st.integers(0, 10**9)),
    )
    notes = [Note(draw(st.sampled_from(["input_truncated", "limit_hit", "x"])), {"limit": draw(any_text)})]
    return Report(
        findings,
        ladder,
        facts,
        draw(st.sampled_from(["en", "ja", "xx"])),
        draw(st.booleans()),
        config,
        None,
        notes,
    )


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(reports(), st.sampled_from(["en", "ja", None]), st.integers(-3, 8))
def test_every_reply_fits_discord(report: Report, lang: str | None, step: int) -> None:
    reply = render_discord(report, lang=lang, step=step)
    assert_within_limits(reply)
    if any(f.name == REPLY_FILE for f in reply.files):
        # The whole reply is in the file, and the message says where the rest is.
        continued = {message("reply.continued", "en"), message("reply.continued", "ja")}
        assert any(
            c in t for c in continued for t in [reply.content] + [e["description"] for e in reply.embeds]
        )
    render_cli(report, fmt="text", lang=lang)


def test_a_huge_reply_moves_to_the_file_with_a_continued_line() -> None:
    evidence = [Evidence("config.yaml", i, "x" * 290) for i in range(1, 7)]
    names = (
        "quote",
        "family_label",
        "others_gib",
        "batch_size",
        "new_batch_size",
        "new_accumulation",
        "effective_batch",
        "max_bucket",
        "limit",
        "new_buckets",
        "te_name",
        "optimizer",
        "rank",
        "new_rank",
    )
    params = {name: "q" * 400 for name in names}
    # Every rule that adds to a diagnosis; the verdicts (another error, another trainer) replace it.
    verdicts = ("not_oom", "other_trainer_config", "input_incomplete", "yaml_invalid")
    ids = [r for r in RULE_IDS if r not in verdicts]
    findings = [Finding(r, Severity.ERROR, Applicability.ADVICE, evidence, params) for r in ids]
    long_config = "\n".join(f"key{i}: {'v' * 100}" for i in range(3000))
    piece = Piece(PieceKind.CONFIG_YAML, long_config, "config.yaml", 0, 0)
    config = ConfigDoc(piece, "yaml", ConfigShape.FULL_JOB, {}, (), {})
    corrected = long_config.replace("key5: ", "key5: changed ")
    report = Report(
        findings, [LadderStep(1, [RULE_IDS[0]], [], corrected, None)], Facts(), "en", False, config
    )
    reply = render_discord(report)
    assert_within_limits(reply)
    files = [f.name for f in reply.files]
    assert files == [REPLY_FILE] and reply.whole_config is not None
    assert message("reply.continued", "en") in reply.embeds[0]["description"]
    full = next(f for f in reply.files if f.name == REPLY_FILE).data.decode()
    assert message("rules.shm_too_small.action", "en") in full


def _fences(text: str) -> int:
    return sum(1 for line in text.split("\n") if line.startswith("```"))


# The renderer's own Markdown: fences only ever start a line (user text cannot make one).
@given(
    st.lists(st.sampled_from(["a", "", "```", "```yaml", "x" * 50, "b c"]), max_size=120), st.integers(1, 500)
)
def test_cut_never_leaves_a_fence_open_and_respects_the_limit(lines: list[str], limit: int) -> None:
    text = "\n".join(lines)
    out, cut = cut_markdown(text, limit)
    assert len(out) <= limit
    if not cut:
        assert out == text
    elif _fences(text) % 2 == 0:
        assert _fences(out) % 2 == 0
        assert text.startswith(out.removesuffix("\n```").rstrip("\n…")[:-1])


CORPUS = Path(__file__).parent / "corpus"
LEAKED_KEY = re.compile(r"\b(?:rules|reply|cli)\.[a-z_]+\.[a-z_]+")


@pytest.mark.parametrize("path", sorted(CORPUS.glob("*/*/input.txt")), ids=lambda p: p.parent.name[:40])
def test_every_corpus_reply_fits_and_names_no_catalogue_key(path: Path) -> None:
    report = diagnose([path.read_text(encoding="utf-8")], sources=["message 1"])
    for lang in ("en", "ja"):
        for step in (1, 2):
            reply = render_discord(report, lang=lang, step=step)
            assert_within_limits(reply)
            shown = [reply.content] + [e["title"] + "\n" + e["description"] for e in reply.embeds]
            for text in shown:
                assert not LEAKED_KEY.search(text), text
        assert not LEAKED_KEY.search(render_cli(report, fmt="text", lang=lang))
