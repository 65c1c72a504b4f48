"""The other application commands: /oom-explain (with autocomplete), /oom-rules, /oom-config,
/oom-stats, and /oom-check's language and GPU options."""

from __future__ import annotations

import pytest

from .botharness import Bots
from .cases import CONFIG, EPHEMERAL, FIX_LINE, JAPANESE, db_rows, fenced
from .fakecord import FakeDiscord

pytestmark = [pytest.mark.e2e]


async def test_explain_a_rule_and_an_unknown_one(fake: FakeDiscord, bot: Bots) -> None:
    known = await fake.shown(
        await fake.slash_command(fake.alice, fake.general, "oom-explain", {"rule_id": "gc_off"})
    )
    assert known["flags"] & EPHEMERAL
    assert "gradient" in fake.text_of(known).lower()
    unknown = await fake.shown(
        await fake.slash_command(fake.alice, fake.general, "oom-explain", {"rule_id": "@everyone nope"})
    )
    assert "@everyone nope" in fake.text_of(unknown), "the rule id is quoted as typed (no ping: see `bots`)"


async def test_explain_autocomplete_offers_rule_ids(fake: FakeDiscord, bot: Bots) -> None:
    inter = await fake.slash_command(
        fake.alice, fake.general, "oom-explain", {"rule_id": "gc"}, autocomplete="rule_id"
    )
    callback = await fake.wait_responded(inter)
    assert callback["type"] == 8
    values = [c["value"] for c in callback["data"]["choices"]]
    assert "gc_off" in values and len(values) <= 25
    assert all("gc" in v for v in values)


async def test_rules_list_fits_discord(fake: FakeDiscord, bot: Bots) -> None:
    from diagnosis.rules import RULE_IDS

    listed = await fake.shown(await fake.slash_command(fake.bob, fake.general, "oom-rules"))
    text = fake.text_of(listed)
    missing = [r for r in RULE_IDS if r not in text]
    assert missing == []


async def test_config_is_for_moderators_and_changes_the_language(fake: FakeDiscord, bot: Bots) -> None:
    refused = await fake.slash_command(fake.alice, fake.general, "oom-config", {"language": "ja"})
    callback = await fake.wait_responded(refused)
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert db_rows(bot.database, "SELECT * FROM guild_settings") == []

    saved = await fake.shown(
        await fake.slash_command(fake.moderator, fake.general, "oom-config", {"language": "ja"})
    )
    assert saved["flags"] & EPHEMERAL
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="the auto reply")
    assert JAPANESE.search(fake.text_of(replies[0])), "the server's language is now Japanese"


async def test_auto_mode_off_still_answers_mentions(fake: FakeDiscord, bot: Bots) -> None:
    await fake.shown(
        await fake.slash_command(fake.moderator, fake.general, "oom-config", {"auto_mode": False})
    )
    quiet = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    asked = await fake.user_sends(fake.bob, fake.help_channel, fenced(CONFIG), mention_bot=True)
    await fake.wait_for(lambda: fake.replies_to(int(asked["id"])), what="the reply to the mention")
    await fake.settle()
    assert fake.replies_to(int(quiet["id"])) == []


async def test_stats_count_the_diagnoses(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="the auto reply")
    refused = await fake.slash_command(fake.alice, fake.general, "oom-stats")
    assert (await fake.wait_responded(refused))["type"] == 4
    stats = await fake.shown(await fake.slash_command(fake.moderator, fake.general, "oom-stats"))
    assert "gc_off" in fake.text_of(stats)


async def test_check_in_japanese_with_a_gpu_size(fake: FakeDiscord, bot: Bots) -> None:
    # 12, not 24: without a size the reply assumes a 24 GB card, and says so.
    inter = await fake.slash_command(
        fake.alice, fake.general, "oom-check", {"text": CONFIG, "lang": "ja", "gpu": 12}
    )
    original = await fake.shown(inter)
    text = fake.text_of(original)
    assert JAPANESE.search(text) and FIX_LINE in text
    assert "12 GB" not in CONFIG and "12 GB" in text, "the diagnosis knows the card it was told"
    rows = db_rows(
        bot.database, "SELECT language, gpu_vram_gib FROM cases WHERE reply_id = ?", int(original["id"])
    )
    assert rows == [("ja", 12.0)]
