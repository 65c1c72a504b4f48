"""Scenarios driven by interactions: /oom-check, the message context menu and the reply's buttons."""

from __future__ import annotations

import pytest

from bot import ocr
from bot.store import unpack_inputs

from .botharness import Bots
from .cases import CHAT, CONFIG, EPHEMERAL, FIX_LINE, JAPANESE, LOG, PNG, config_variant, db_rows, fenced
from .fakecord import FakeDiscord
from .fakecord.payloads import Json

pytestmark = [pytest.mark.e2e]


async def test_s3_slash_with_text_defers_then_edits(fake: FakeDiscord, bot: Bots) -> None:
    inter = await fake.slash_command(fake.alice, fake.help_channel, "oom-check", {"text": CONFIG})
    original = await fake.shown(inter)
    assert [c["type"] for c in inter.callbacks] == [5], "slow work is deferred first"
    assert inter.callbacks[0]["data"]["flags"] & EPHEMERAL, "a member's check is private by default"
    assert FIX_LINE in fake.text_of(original)
    edits = fake.calls("webhook_edit_message")
    assert len(edits) == 1 and edits[0].params["message"] == "@original"
    assert "oom:up" in fake.custom_ids(original)
    assert fake.bot_posts() == [], "nothing is posted in the channel"


async def test_s3_slash_with_file(fake: FakeDiscord, bot: Bots) -> None:
    files = {"file": ("config.yaml", CONFIG.encode())}
    inter = await fake.slash_command(fake.alice, fake.general, "oom-check", files=files)
    original = await fake.shown(inter)
    assert FIX_LINE in fake.text_of(original)
    assert [r.status for r in fake.calls("cdn")] == [200]


async def test_s3_slash_with_binary_file_gets_a_note(fake: FakeDiscord, bot: Bots) -> None:
    inter = await fake.slash_command(fake.alice, fake.general, "oom-check", files={"file": ("shot.png", PNG)})
    original = await fake.shown(inter)
    assert "shot.png" in fake.text_of(original)
    # A PNG is downloaded only to be read as a screenshot, where Tesseract is installed; nothing else.
    assert all(r.path.endswith(".png") for r in fake.calls("cdn"))
    if not ocr.available():
        assert fake.calls("cdn") == []


async def test_s3_slash_with_message_link(fake: FakeDiscord, bot: Bots) -> None:
    mine = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    inter = await fake.slash_command(
        fake.alice, fake.help_channel, "oom-check", {"message": fake.message_link(mine)}
    )
    original = await fake.shown(inter)
    assert FIX_LINE in fake.text_of(original)
    fetched = fake.calls("get_message")
    assert [(r.params["channel"], r.params["message"]) for r in fetched] == [(mine["channel_id"], mine["id"])]


async def test_s3_member_cannot_check_someone_elses_message(fake: FakeDiscord, bot: Bots) -> None:
    theirs = await fake.user_sends(fake.bob, fake.general, fenced(CONFIG))
    inter = await fake.slash_command(
        fake.alice, fake.general, "oom-check", {"message": fake.message_link(theirs)}
    )
    original = await fake.shown(inter)
    assert FIX_LINE not in fake.text_of(original)
    assert original["flags"] & EPHEMERAL


async def test_s3_moderator_posts_publicly(fake: FakeDiscord, bot: Bots) -> None:
    inter = await fake.slash_command(
        fake.moderator, fake.help_channel, "oom-check", {"text": CONFIG, "public": True}
    )
    original = await fake.shown(inter)
    assert not (inter.callbacks[0].get("data") or {}).get("flags", 0) & EPHEMERAL
    assert not original["flags"] & EPHEMERAL
    assert "oom:del" in fake.custom_ids(original)


async def test_s4_no_input_in_thread_merges_config_and_traceback(fake: FakeDiscord, bot: Bots) -> None:
    thread = await fake.create_thread(fake.alice, fake.general, "OOM at step 1")
    await fake.user_sends(fake.alice, thread, fenced(CONFIG))
    await fake.user_sends(fake.bob, thread, CHAT)
    await fake.user_sends(fake.alice, thread, "and then this:\n" + fenced(LOG, "text"))
    # The newest config is someone else's: a member's check reads only their own messages.
    await fake.user_sends(fake.bob, thread, "mine is similar:\n" + fenced(config_variant(7)))
    inter = await fake.slash_command(fake.alice, thread, "oom-check")
    original = await fake.shown(inter)
    assert [r.params["channel"] for r in fake.calls("get_history")] == [str(thread)]
    assert inter.followup_ids == [] and len(fake.calls("webhook_edit_message")) == 1
    assert FIX_LINE in fake.text_of(original)
    rows = db_rows(
        bot.database, "SELECT inputs, author_id FROM cases WHERE reply_id = ?", int(original["id"])
    )
    assert len(rows) == 1
    joined = "\n".join(text for _, text in unpack_inputs(rows[0][0]))
    assert "gradient_checkpointing" in joined and "CUDA out of memory" in joined
    assert CHAT not in joined and "batch_size: 7" not in joined
    assert rows[0][1] == fake.alice.id


async def test_s5_context_menu_by_moderator_is_public(fake: FakeDiscord, bot: Bots) -> None:
    target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    inter = await fake.message_command(fake.moderator, target, fake.context_menu())
    original = await fake.shown(inter)
    assert inter.callbacks[0]["type"] == 5
    assert not (inter.callbacks[0].get("data") or {}).get("flags", 0) & EPHEMERAL
    assert not original["flags"] & EPHEMERAL
    assert FIX_LINE in fake.text_of(original)
    assert int(original["id"]) in fake.history[fake.general], "a public answer is visible in the channel"


async def test_s5_context_menu_by_member_on_others_message_is_refused(fake: FakeDiscord, bot: Bots) -> None:
    target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    inter = await fake.message_command(fake.bob, target, fake.context_menu())
    callback = await fake.wait_responded(inter)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert FIX_LINE not in callback["data"]["content"]
    assert fake.history.get(fake.general) == [int(target["id"])], "nothing public was posted"


async def test_s5_context_menu_by_author_is_private(fake: FakeDiscord, bot: Bots) -> None:
    target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
    inter = await fake.message_command(fake.alice, target, fake.context_menu())
    original = await fake.shown(inter)
    assert original["flags"] & EPHEMERAL
    assert FIX_LINE in fake.text_of(original)


async def answered(fake: FakeDiscord) -> tuple[Json, Json]:
    """A config with its OOM log: a case whose fix ladder has several steps."""
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, fenced(CONFIG), files=[("oom.log", LOG.encode())]
    )
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="the auto reply")
    await fake.settle()
    return msg, replies[0]


async def test_s8_next_step_and_language_switch_by_author(fake: FakeDiscord, bot: Bots) -> None:
    _, reply = await answered(fake)
    ids = fake.custom_ids(reply)
    assert "oom:step:2" in ids and "oom:lang:ja" in ids
    step1 = fake.text_of(reply)

    inter = await fake.click(fake.alice, reply, "oom:step:2")
    assert (await fake.wait_responded(inter))["type"] == 6
    await fake.wait_for(lambda: fake.calls("webhook_edit_message"), what="the edit for step 2")
    await fake.settle()
    step2 = fake.message(reply["id"])
    assert fake.text_of(step2) != step1
    # Step 2 shows its own corrected config: the engine was asked to write the ladder up to step 2.
    assert "```yaml" in fake.text_of(step2) and "gradient_accumulation: 4" in fake.text_of(step2)
    assert "oom:step:2" not in fake.custom_ids(step2)

    inter = await fake.click(fake.alice, step2, "oom:lang:ja")
    assert (await fake.wait_responded(inter))["type"] == 6
    await fake.wait_for(lambda: len(fake.calls("webhook_edit_message")) == 2, what="the edit to Japanese")
    await fake.settle()
    japanese = fake.message(reply["id"])
    assert JAPANESE.search(fake.text_of(japanese))
    assert "oom:lang:en" in fake.custom_ids(japanese)
    assert len(fake.bot_posts()) == 1, "buttons edit the reply in place"
    rows = db_rows(bot.database, "SELECT language, step FROM cases WHERE reply_id = ?", int(reply["id"]))
    assert rows == [("ja", 2)]


async def test_s8_other_member_gets_a_private_copy(fake: FakeDiscord, bot: Bots) -> None:
    _, reply = await answered(fake)
    before = fake.text_of(reply)
    inter = await fake.click(fake.bob, reply, "oom:step:2")
    callback = await fake.wait_responded(inter)
    # The follow-up fills the private "thinking" message the click was deferred with (as on Discord).
    copy = await fake.shown(inter)
    assert callback["type"] == 5 and callback["data"]["flags"] & EPHEMERAL
    assert [r.status for r in fake.calls("followup_create")] == [200]
    assert copy["flags"] & EPHEMERAL and copy["id"] != reply["id"]
    assert fake.text_of(copy) != before, "the copy shows step 2"
    assert fake.text_of(fake.message(reply["id"])) == before, "the public reply is unchanged"


async def test_s8_feedback_is_stored(fake: FakeDiscord, bot: Bots) -> None:
    _, reply = await answered(fake)
    up = await fake.click(fake.bob, reply, "oom:up")
    callback = await fake.wait_responded(up)
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    down = await fake.click(fake.moderator, reply, "oom:down")
    await fake.wait_responded(down)
    await fake.settle()
    rows = db_rows(bot.database, "SELECT user_id, helpful FROM feedback WHERE reply_id = ?", int(reply["id"]))
    assert sorted(rows) == sorted([(fake.bob.id, 1), (fake.moderator.id, 0)])


async def test_s8_delete_only_by_author_or_moderator(fake: FakeDiscord, bot: Bots) -> None:
    _, reply = await answered(fake)
    denied = await fake.click(fake.bob, reply, "oom:del")
    callback = await fake.wait_responded(denied)
    await fake.settle()
    assert callback["type"] == 4 and callback["data"]["flags"] & EPHEMERAL
    assert int(reply["id"]) in fake.messages

    allowed = await fake.click(fake.moderator, reply, "oom:del")
    await fake.wait_for(lambda: int(reply["id"]) not in fake.messages, what="the deletion")
    await fake.settle()
    assert allowed.callbacks[0]["type"] == 6
    assert [r.params["message"] for r in fake.calls("webhook_delete_message")] == ["@original"]


async def test_s8_author_deletes_own_reply(fake: FakeDiscord, bot: Bots) -> None:
    _, reply = await answered(fake)
    await fake.click(fake.alice, reply, "oom:del")
    await fake.wait_for(lambda: int(reply["id"]) not in fake.messages, what="the deletion")


async def test_s8_buttons_work_after_a_restart(fake: FakeDiscord, bot: Bots) -> None:
    _, reply = await answered(fake)
    await bot.restart()
    up = await fake.click(fake.bob, reply, "oom:up")
    assert (await fake.wait_responded(up))["type"] == 4
    lang = await fake.click(fake.alice, reply, "oom:lang:ja")
    assert (await fake.wait_responded(lang))["type"] == 6
    await fake.wait_for(lambda: fake.calls("webhook_edit_message"), what="the re-render after restart")
    await fake.settle()
    assert JAPANESE.search(fake.text_of(fake.message(reply["id"])))
    rows = db_rows(bot.database, "SELECT user_id, helpful FROM feedback WHERE reply_id = ?", int(reply["id"]))
    assert rows == [(fake.bob.id, 1)]


async def test_with_three_languages_a_menu_replaces_the_language_button(
    fake: FakeDiscord, bot: Bots, monkeypatch: pytest.MonkeyPatch
) -> None:
    import locales

    monkeypatch.setattr(locales, "LANGUAGES", (*locales.LANGUAGES, "xx"))
    _, reply = await answered(fake)
    ids = fake.custom_ids(reply)
    assert "oom:language" in ids and not any(i.startswith("oom:lang:") for i in ids)
    (menu,) = [c for row in reply["components"] for c in row["components"] if c["type"] == 3]
    assert [(o["value"], o["default"]) for o in menu["options"]] == [
        ("en", True),
        ("ja", False),
        ("xx", False),
    ]
    assert [o["label"] for o in menu["options"]][:2] == ["English", "日本語"]

    inter = await fake.choose(fake.alice, reply, "oom:language", ["ja"])
    assert (await fake.wait_responded(inter))["type"] == 6
    await fake.wait_for(lambda: fake.calls("webhook_edit_message"), what="the edit to Japanese")
    await fake.settle()
    japanese = fake.message(reply["id"])
    assert JAPANESE.search(fake.text_of(japanese))
    (menu,) = [c for row in japanese["components"] for c in row["components"] if c["type"] == 3]
    assert [o["value"] for o in menu["options"] if o["default"]] == ["ja"]
    rows = db_rows(bot.database, "SELECT language FROM cases WHERE reply_id = ?", int(reply["id"]))
    assert rows == [("ja",)]


async def test_s8_a_step_past_the_ladder_is_declined_privately(fake: FakeDiscord, bot: Bots) -> None:
    # A stale button (one the ladder no longer reaches) leaves the reply as it is.
    _, reply = await answered(fake)
    before = fake.text_of(reply)
    for row in fake.messages[int(reply["id"])]["components"]:
        for component in row["components"]:
            if component.get("custom_id") == "oom:step:2":
                component["custom_id"] = "oom:step:99"
    inter = await fake.click(fake.alice, reply, "oom:step:99")
    await fake.wait_for(lambda: inter.followup_ids, what="the private answer")
    await fake.settle()
    assert "no further steps" in fake.text_of(fake.message(inter.followup_ids[0]))
    assert fake.calls("webhook_edit_message") == []
    assert fake.text_of(fake.message(reply["id"])) == before
