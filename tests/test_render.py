"""The reply: what it says for each kind of report, language choice, escaping, CLI = bot."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Severity
from diagnosis.render import (
    DiscordReply,
    choose_language,
    cli_message,
    message,
    render_cli,
    render_discord,
    render_explain,
    render_rules,
)
from diagnosis.render.escape import (
    ZWSP,
    clean,
    discord_code_block,
    discord_inline_code,
    discord_text,
    terminal_text,
)
from diagnosis.render.view import line_diff, short_diff
from diagnosis.report import Report
from diagnosis.rules import RULE_IDS
from tests.golden.cases import CASES, corpus_config, finding

CODE = re.compile(r"```.*?(?:```|\Z)|`[^`\n]*`", re.S)
PING = re.compile(r"@everyone|@here|<@[!&]?\d+>|<#\d+>")
MASKED_LINK = re.compile(r"(?<!\\)\[[^\[\]\n]*(?<!\\)\]\(\s*<?https?://")
BIDI = set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def texts(reply: DiscordReply) -> list[str]:
    return [reply.content] + [str(e.get(k, "")) for e in reply.embeds for k in ("title", "description")]


def everything(reply: DiscordReply) -> str:
    offered = [reply.whole_config] if reply.whole_config is not None else []
    return "\n".join(texts(reply) + [f.data.decode() for f in [*reply.files, *offered]])


# ---------------------------------------------------------------------------------------------- language


@pytest.mark.parametrize(
    ("args", "want"),
    [
        (("ja", "en-US", "en", "en"), "ja"),
        ((None, "ja", "en", "en"), "ja"),
        ((None, "en-GB", "ja", "ja"), "en"),
        ((None, "fr", "ja", "en"), "ja"),
        ((None, None, None, "ja"), "ja"),
        ((None, "pt-BR", None, None), "en"),
        ((None, None, None, None), "en"),
        (("JA_jp", None, None, None), "ja"),
    ],
)
def test_language_choice_order(args: tuple[str | None, ...], want: str) -> None:
    assert choose_language(*args) == want


def test_messages_fill_placeholders_and_survive_missing_ones() -> None:
    assert message("cli.fix_written", "en", path="a.yaml") == "Corrected config written to a.yaml"
    assert "a.yaml" in cli_message("cli.fix_written", "ja", path="a.yaml")
    assert "{path}" in message("cli.fix_written", "en")
    assert message("no.such.key", "ja") == "no.such.key"
    assert message("cli.nothing_to_fix", "fr") == message("cli.nothing_to_fix", "en")


# ---------------------------------------------------------------------------------------------- content


def test_gc_reply_leads_with_phase_step_and_context_then_ladder_order() -> None:
    report = CASES["flux_gc_off_step2"]()
    reply = render_discord(report, lang="en")
    assert reply.content.startswith("**Out of memory at step 2 of training")
    assert "FLUX.1-dev, batch 4, buckets up to 1024" in reply.content
    body = reply.embeds[0]["description"]
    assert "tried to allocate 2.00 GiB; 40.00 MiB free of 23.55 GiB" in body
    assert body.index("**1. Turn gradient checkpointing back on") < body.index(
        "**2. Lower Batch Size from 4 to 1"
    )
    assert body.index("**2.") < body.index("**3. Drop the largest resolution bucket")
    assert message("reply.gc.oneliner", "en") in body
    assert message("reply.gc.retry_first", "en") in body
    fix = reply.embeds[1]["description"]
    assert "```yaml\n" in fix and "gradient_checkpointing: true  # turned off for speed" in fix
    assert "```diff\n" in fix and "-        gradient_checkpointing: false" in fix
    # The whole file is offered, never attached to the public reply (see test_bot_whole_file.py).
    assert reply.files == []
    assert reply.whole_config is not None and reply.whole_config.name == "config.step1.fixed.yaml"
    assert reply.whole_config.data.decode() == report.ladder[0].corrected_config
    assert message("reply.config.whole_file_offered", "en") in fix


def test_ja_reply_says_the_same_in_japanese() -> None:
    reply = render_discord(CASES["flux_gc_off_step2"](), lang="ja")
    assert reply.content.startswith("**学習の 2 ステップ目でメモリ不足（OOM）になりました。")
    body = reply.embeds[0]["description"]
    assert "同じバッチサイズと解像度のまま再試行" in body
    assert "Show Advanced → `train:` → `gradient_checkpointing: true`" in body


def test_next_step_shows_its_own_change_only() -> None:
    report = CASES["flux_gc_off_step2"]()
    reply = render_discord(report, lang="en", step=2)
    assert reply.content.startswith("**Still out of memory? Step 2 of 3: Lower Batch Size")
    fix = reply.embeds[1]["description"]
    assert "+        batch_size: 1" in fix
    assert "gradient_checkpointing: false" not in fix  # step 1 is already applied
    assert "step 3" in reply.embeds[0]["description"]
    past_the_end = render_discord(report, lang="en", step=99)
    assert "Step 3 of 3" in past_the_end.content


def test_not_oom_says_so_without_an_oom_checklist() -> None:
    reply = render_discord(CASES["hf_gated_not_oom"](), lang="en")
    assert reply.content.startswith(
        "**This is not an out-of-memory error: Hugging Face refused the download."
    )
    joined = everything(reply)
    assert message("reply.section.fix", "en") not in joined and "gradient" not in joined.lower()
    assert "```\nGatedRepoError" in joined


def test_thin_evidence_asks_the_precise_question() -> None:
    reply = render_discord(CASES["one_line_question"](), lang="en")
    joined = everything(reply)
    assert message("reply.section.fix", "en") not in joined
    for item in ("config", "error_lines", "gpu"):
        assert message(f"reply.ask.{item}", "en") in joined
    assert message("reply.ask.log", "en") not in joined


def test_secret_is_never_echoed_and_the_user_is_told_to_revoke() -> None:
    token = "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"
    report = CASES["kontext_secret"]()
    for lang in ("en", "ja"):
        reply = render_discord(report, lang=lang)
        assert token not in everything(reply)
        assert message("reply.secret.revoke", lang) in reply.content
        assert message("reply.secret_kind.hf_token", lang) in reply.content
    assert token not in corpus_config("110")[0]


def test_yaml_error_shows_line_column_and_the_line() -> None:
    reply = render_discord(CASES["yaml_tab_invalid"](), lang="en")
    assert "line 17, column 1" in reply.content
    assert "```yaml\n\tbatch_size: 1\n```" in reply.embeds[0]["description"]
    assert "indented with a tab" in reply.embeds[0]["description"]


def test_host_ram_is_not_called_vram() -> None:
    reply = render_discord(CASES["klein_host_ram"](), lang="en")
    assert reply.content.startswith("**System RAM ran out while quantizing the model")
    assert "Layer Offloading is on" in reply.embeds[0]["description"]


def test_gc_one_liner_only_when_gc_is_involved() -> None:
    for case in ("qwen_first_preview", "wan_low_vram_loading", "sdxl_other_process"):
        assert message("reply.gc.oneliner", "en") not in everything(render_discord(CASES[case](), lang="en"))


def test_clean_report_and_empty_report_still_answer() -> None:
    reply = render_discord(Report([], [], Facts(), "en", False), lang="en")
    assert reply.content == "**" + message("reply.headline.clean", "en") + "**"
    assert render_cli(Report([], [], Facts(), "ja", False)).strip()


def test_unknown_params_and_missing_facts_do_not_leak_placeholders() -> None:
    f = Finding("batch_too_large", Severity.WARNING, Applicability.CHANGES_RESULTS, params={"batch_size": 4})
    reply = render_discord(Report([f], [], Facts(has_config=True, config_parsed=True), "en", False))
    joined = everything(reply)
    assert "{" not in joined
    # Without its params the checklist line falls back to the rule's plain action (before: its title).
    assert message("rules.batch_too_large.action_plain", "en") in joined


@pytest.mark.parametrize("case", sorted(CASES))
def test_cli_markdown_is_the_bot_reply(case: str) -> None:
    report = CASES[case]()
    for lang in ("en", "ja"):
        reply = render_discord(report, lang=lang)
        if any(f.name == "oomcheck-reply.md" for f in reply.files):
            continue
        md = render_cli(report, fmt="markdown", lang=lang)
        expected = [reply.content] + [f"### {e['title']}\n\n{e['description']}" for e in reply.embeds]
        # Only the way the whole corrected file is offered differs: attached on Discord, --fix on the CLI.
        cli_fix = message("reply.config.cli_fix", lang)
        # A pasted secret is spoken of as in a local file: nothing was posted.
        for part in ("headline", "found", "revoke"):
            said = re.split(r"\{\w+\}", message(f"reply.secret.{part}", lang))
            local = re.split(r"\{\w+\}", message(f"reply.secret.{part}_cli", lang))
            for old, new in zip(said, local, strict=True):
                expected = [p.replace(old, new) for p in expected] if old else expected
        if reply.whole_config is not None:
            offered = message("reply.config.whole_file_offered", lang)
            expected = [part.replace(offered, cli_fix) for part in expected]
        if reply.embeds and cli_fix not in expected[-1] and len(reply.embeds) == 2:
            apply = message("reply.config.apply", lang)
            expected[-1] = expected[-1].replace(apply, f"{cli_fix}\n{apply}")
        assert md == "\n\n".join(expected) + "\n"


def test_cli_text_has_no_markdown_fences_or_escapes() -> None:
    text = render_cli(CASES["flux_gc_off_step2"](), fmt="text", lang="en")
    assert "```" not in text and "**" not in text
    assert "    -        gradient_checkpointing: false  # turned off for speed" in text


def test_rule_list_and_explain() -> None:
    for lang in ("en", "ja"):
        listing = render_rules(lang)
        for rid in RULE_IDS:
            assert f"`{rid}`" in listing
            assert message(f"rules.{rid}.title", lang) in listing
        for rid in RULE_IDS:
            text = render_explain(rid, lang)
            assert text is not None and "{" not in text
            assert message(f"rules.{rid}.explanation", lang) in text
    assert render_explain("nope", "en") is None


# ---------------------------------------------------------------------------------------------- escaping


def test_escaping_of_prose_values() -> None:
    evil = "@everyone <@123> <@&4> <#5> [x](https://e.example) **b** \u202eabc\u200b\nsecond"
    out = discord_text(evil)
    assert not PING.search(out) and not MASKED_LINK.search(out)
    assert not BIDI & set(out) and "\n" not in out
    assert "\\*\\*b\\*\\*" in out
    assert discord_text("# heading") == "\\# heading" and discord_text("- item") == "\\- item"


def test_inline_code_cannot_be_closed() -> None:
    out = discord_inline_code("a`b``c @here")
    assert "`" not in out and "@here" not in out


def test_code_block_cannot_be_closed_and_keeps_tabs() -> None:
    out = discord_code_block("a: 1\n```\n@everyone\n\tb: 2 \u202e")
    assert "```" not in out and "@everyone" not in out and "\tb: 2" in out and "\u202e" not in out


def test_terminal_drops_escape_sequences() -> None:
    assert terminal_text("\x1b[2J\x1b]0;title\x07ok\x07\x00") == "ok"
    assert clean("a\u200bb\u2066c") == "abc"


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_hostile_values_stay_inert_in_every_output(lang: str) -> None:
    report = CASES["hostile_values"]()
    reply = render_discord(report, lang=lang)
    for text in texts(reply):
        bare = CODE.sub(" ", text)
        assert not PING.search(bare) and not MASKED_LINK.search(bare), bare
        assert not BIDI & set(text)
        assert text.count("```") % 2 == 0
    for text in texts(reply):
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            assert "@everyone" not in block and "<@1" not in block
    terminal = render_cli(report, fmt="text", lang=lang)
    assert "\x1b" not in terminal and not BIDI & set(terminal)
    assert ZWSP not in render_cli(CASES["flux_gc_off_step2"](), fmt="text", lang=lang)


def test_a_finding_helper_builds_findings() -> None:
    assert finding("gc_off", Severity.ERROR, Applicability.MEMORY_ONLY).rule_id == "gc_off"


def test_user_name_placeholder_in_paths_is_pointed_out() -> None:
    report = CASES["flux_gc_off_step2"]()
    assert "/home/USER/" in (report.corrected_config or "")
    for lang in ("en", "ja"):
        assert (
            message("reply.config.user_placeholder", lang)
            in render_discord(report, lang=lang).embeds[1]["description"]
        )
    clean = CASES["kontext_secret"]()
    assert message("reply.config.user_placeholder", "en") not in everything(render_discord(clean, lang="en"))


def test_a_pasted_token_alone_gets_the_revoke_notice_and_no_memory_talk() -> None:
    secret = finding(
        "secret_in_input", Severity.WARNING, Applicability.ADVICE, kinds="discord_token", count=1
    )
    reply = render_discord(Report([secret], [], Facts(), "ja", False))
    assert message("reply.headline.clean", "ja") in reply.content
    assert message("reply.secret.revoke", "ja") in reply.content
    assert message("reply.secret_kind.discord_token", "ja") in reply.content
    assert message("reply.section.fix", "ja") not in everything(reply)


def test_cli_text_underlines_match_display_width() -> None:
    for lang in ("en", "ja"):
        lines = render_cli(CASES["flux_gc_off_step2"](), fmt="text", lang=lang).splitlines()
        underlined = [(lines[i - 1], line) for i, line in enumerate(lines) if i and set(line) == {"-"}]
        assert underlined
        for title, underline in underlined:
            wide = sum(1 for ch in title if unicodedata.east_asian_width(ch) in ("W", "F"))
            assert len(underline) == min(60, len(title) + wide), (lang, title)
    assert "Diagnosis\n---------\n" in render_cli(CASES["flux_gc_off_step2"](), fmt="text", lang="en")


def test_short_diff_hunks_count_lines_of_the_input_like_the_evidence() -> None:
    case = Path(__file__).parent / "corpus" / "synthetic" / "110-kontext-1024-bucket-hf-token-in-config"
    text = (case / "input.txt").read_text(encoding="utf-8")
    report = diagnose([text], sources=["input.txt"], locale="en")
    out = render_cli(report, fmt="markdown", lang="en")
    hunks = re.findall(r"^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@\n-(.*)$", out, re.M)
    assert hunks
    lines = text.splitlines()
    for old_line, new_line, removed in hunks:
        assert lines[int(old_line) - 1] == removed
        assert f"input.txt, line {old_line}:" in out
        assert old_line == new_line


def test_short_diff_shifts_every_hunk_header() -> None:
    lines = line_diff("a\nb\nc\nd\n", "a\nB\nc\nd\nE\n")
    assert lines is not None
    diff = short_diff(lines, offset=10)
    assert diff is not None
    assert re.findall(r"^@@ .* @@$", diff, re.M) == ["@@ -12 +12 @@", "@@ -14,0 +15 @@"]
