"""Scenarios driven by plain messages: help channels, attachments, forum posts, edits, long reports,
restarts. Each asserts what Discord receives from the real bot."""

from __future__ import annotations

import pytest

from bot import ocr

from .botharness import Bots
from .cases import CHAT, CONFIG, FIX_LINE, LOG, PNG, config_variant, db_rows, fenced
from .fakecord import FakeDiscord, mentions_nothing
from .fakecord.payloads import Json

pytestmark = [pytest.mark.e2e]


async def one_reply(fake: FakeDiscord, msg: Json, what: str = "a reply") -> Json:
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what=what)
    await fake.settle()
    replies = fake.replies_to(int(msg["id"]))
    assert len(replies) == 1, f"expected exactly one reply, got {len(replies)}"
    return replies[0]


async def test_s1_config_in_help_channel_gets_one_reply_and_chat_none(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    reply = await one_reply(fake, msg)
    text = fake.text_of(reply)
    assert FIX_LINE in text, "the reply must carry the corrected YAML"
    assert "gradient" in text.lower()
    post = fake.bot_posts(fake.help_channel)[0]
    assert str(post.body["message_reference"]["message_id"]) == msg["id"]

    chat = await fake.user_sends(fake.bob, fake.help_channel, CHAT)
    # Barrier: a later config in the same channel is answered, so the chat was seen and processed.
    later = await fake.user_sends(fake.bob, fake.help_channel, fenced(config_variant(2)))
    await one_reply(fake, later)
    assert fake.replies_to(int(chat["id"])) == []
    assert len(fake.bot_posts()) == 2


async def test_s1_chat_in_other_channels_is_ignored(fake: FakeDiscord, bot: Bots) -> None:
    await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))  # not a help channel, no mention
    await fake.user_sends(fake.alice, fake.help_channel, "hello, does anyone train Wan here?")
    barrier = await fake.user_sends(fake.bob, fake.help_channel, fenced(LOG, "text"))
    await one_reply(fake, barrier)
    assert len(fake.bot_posts()) == 1


async def test_s2_log_attached_as_file_gets_reply(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, "my run died", files=[("train.log", LOG.encode())]
    )
    reply = await one_reply(fake, msg)
    assert fake.text_of(reply).strip()
    assert any(r.route == "cdn" and r.status == 200 for r in fake.requests), "the bot must download the file"


async def test_s2_binary_file_gets_a_note_and_no_crash(fake: FakeDiscord, bot: Bots) -> None:
    only_png = await fake.user_sends(fake.alice, fake.help_channel, "", files=[("screenshot.png", PNG)])
    with_config = await fake.user_sends(
        fake.bob, fake.help_channel, fenced(CONFIG), files=[("screenshot.png", PNG), ("weights.bin", PNG)]
    )
    reply = await one_reply(fake, with_config)
    text = fake.text_of(reply)
    assert "screenshot.png" in text and "weights.bin" in text, "skipped files are named in a note"
    assert FIX_LINE in text
    assert fake.replies_to(int(only_png["id"])) == []
    # No binary file was downloaded: the type is checked before reading. A PNG is downloaded only to
    # be read as a screenshot, where Tesseract is installed (tests/e2e/test_bot_media.py).
    assert not [r for r in fake.calls("cdn") if r.path.endswith(".bin")]
    assert all(r.path.endswith((".png", ".yaml", ".yml", ".txt", ".log", ".json")) for r in fake.calls("cdn"))
    if not ocr.available():
        assert not [r for r in fake.calls("cdn") if r.path.endswith(".png")]


async def test_s6_forum_post_thread_first_gets_one_reply(fake: FakeDiscord, bot: Bots) -> None:
    post = await fake.create_forum_post(fake.alice, "OOM on 24 GB", fenced(CONFIG))
    reply = await one_reply(fake, post)
    assert reply["channel_id"] == post["id"]
    assert len(fake.bot_posts()) == 1


async def test_s6_forum_post_message_first_gets_one_reply(fake: FakeDiscord, bot: Bots) -> None:
    post = await fake.create_forum_post(fake.alice, "OOM on 24 GB", fenced(CONFIG), message_first=True)
    reply = await one_reply(fake, post)
    assert reply["channel_id"] == post["id"]
    assert len(fake.bot_posts()) == 1


async def test_s6_forum_post_with_log_file(fake: FakeDiscord, bot: Bots) -> None:
    post = await fake.create_forum_post(fake.bob, "help", "log attached", files=[("oom.txt", LOG.encode())])
    await one_reply(fake, post)


async def test_s7_edit_updates_the_reply_instead_of_posting_again(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    reply = await one_reply(fake, msg)
    before = fake.text_of(reply)
    await fake.user_edits(msg, fenced(config_variant(8)))
    edit = await fake.wait_for(
        lambda: [r for r in fake.calls("edit_message") if r.params["message"] == reply["id"]], what="PATCH"
    )
    await fake.settle()
    assert len(fake.bot_posts()) == 1, "an edit must not produce a second reply"
    assert len(fake.calls("edit_message")) == 1
    assert edit[0].status == 200
    assert mentions_nothing(edit[0].body["allowed_mentions"])
    after = fake.text_of(fake.message(reply["id"]))
    assert after != before
    # Editing to the same text again does nothing.
    await fake.user_edits(msg, fenced(config_variant(8)))
    await fake.settle()
    assert len(fake.calls("edit_message")) == 1


async def test_s7_edit_by_someone_else_or_of_unanswered_message_is_ignored(
    fake: FakeDiscord, bot: Bots
) -> None:
    chat = await fake.user_sends(fake.alice, fake.help_channel, CHAT)
    await fake.user_edits(chat, "still chatting, nothing to check")
    barrier = await fake.user_sends(fake.bob, fake.help_channel, fenced(CONFIG))
    await one_reply(fake, barrier)
    assert fake.calls("edit_message") == []


async def test_s9_long_report_goes_to_an_attachment_within_limits(fake: FakeDiscord, bot: Bots) -> None:
    padding = "".join(f"# note {n}: keep this comment, it documents the run\n" for n in range(250))
    long_config = CONFIG.replace("config:\n", "config:\n" + padding.replace("# ", "  # "), 1)
    assert len(long_config) > 10_000
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, "", files=[("config.yaml", long_config.encode())]
    )
    reply = await one_reply(fake, msg)
    # The whole corrected config is offered privately, never posted (test_bot_whole_file.py clicks it).
    assert "oom:file:1" in fake.custom_ids(reply)
    public = fake.text_of(reply)
    assert FIX_LINE in public, "the changed lines and the diff are in the reply"
    assert "# note 249: keep this comment" not in public
    assert fake.violations == []
    post = fake.bot_posts()[0]
    assert len(post.body.get("content") or "") <= 2000


async def test_s9_everyone_and_role_pings_are_never_sent(fake: FakeDiscord, bot: Bots) -> None:
    text = f"@everyone @here <@&{fake.moderator_role_id}> <@{fake.bob.id}> help!!\n" + fenced(CONFIG)
    msg = await fake.user_sends(fake.alice, fake.help_channel, text)
    await one_reply(fake, msg)
    bodies = fake.message_bodies()
    assert bodies
    for request in bodies:
        body = request.body if request.route != "interaction_callback" else request.body["data"]
        assert body["allowed_mentions"]["parse"] == []
        assert mentions_nothing(body["allowed_mentions"])


async def test_s12_restart_never_answers_a_message_twice(fake: FakeDiscord, bot: Bots) -> None:
    first = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    post = await fake.create_forum_post(fake.bob, "forum", fenced(config_variant(2)))
    for msg in (first, post):
        await one_reply(fake, msg)
    await bot.restart()
    assert fake.identifies == 2
    # Discord may deliver old events again (a replayed session, a re-sent THREAD_CREATE) and the
    # author may "edit" without changing anything: none of it is a new question.
    await fake.redeliver(first)
    await fake.redeliver(post)
    await fake.dispatch("THREAD_CREATE", {**fake.threads[int(post["id"])], "newly_created": True})
    fresh = await fake.user_sends(fake.alice, fake.help_channel, fenced(config_variant(3)))
    await one_reply(fake, fresh)
    assert len(fake.bot_posts()) == 3
    assert len(fake.replies_to(int(first["id"]))) == 1 and len(fake.replies_to(int(post["id"]))) == 1
    answered = db_rows(bot.database, "SELECT source_id FROM answered ORDER BY source_id")
    assert sorted(int(r[0]) for r in answered) == sorted(int(m["id"]) for m in (first, post, fresh))


async def test_s12_duplicate_delivery_in_one_session_answers_once(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.redeliver(msg)
    await fake.redeliver(msg)
    await one_reply(fake, msg)
    assert len(fake.bot_posts()) == 1


async def test_s9_attached_config_keeps_its_header_comments(fake: FakeDiscord, bot: Bots) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, "", files=[("config.yaml", CONFIG.encode())])
    reply = await one_reply(fake, msg)
    header = CONFIG.splitlines()[1]
    assert header.startswith("# FLUX.1-dev LoRA")
    # The whole corrected file comes privately, from the reply's button (never posted in the channel).
    inter = await fake.click(fake.alice, reply, "oom:file:1")
    sent = await fake.shown(inter)
    assert header in fake.text_of(sent)


async def test_s7_editing_the_log_of_a_merged_config_and_log_keeps_both(fake: FakeDiscord, bot: Bots) -> None:
    """Config, then its log as a second message: one reply, updated with both. Editing the log
    later rebuilds that reply from both messages (the config is read again), not from the log alone."""
    config = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    reply = await one_reply(fake, config)
    log = await fake.user_sends(fake.alice, fake.help_channel, fenced(LOG, "text"))
    await fake.wait_for(lambda: fake.calls("edit_message"), what="the merged reply")
    await fake.settle()
    assert len(fake.bot_posts()) == 1 and fake.replies_to(int(log["id"])) == []
    assert FIX_LINE in fake.text_of(fake.message(reply["id"]))

    await fake.user_edits(log, fenced(LOG.replace("512.00 MiB", "1.50 GiB"), "text"))
    await fake.wait_for(lambda: len(fake.calls("edit_message")) >= 2, what="the rebuilt reply")
    await fake.settle()
    assert len(fake.bot_posts()) == 1
    assert [r.status for r in fake.calls("edit_message")] == [200, 200]
    assert FIX_LINE in fake.text_of(fake.message(reply["id"])), "the config half must survive the edit"
    assert [r.params["message"] for r in fake.calls("get_message")][-1:] == [config["id"]]


async def test_s2_a_log_over_the_cap_is_read_from_its_end(fake: FakeDiscord, bots: Bots) -> None:
    await bots.start(input_cap_bytes=4096, attachment_read_bytes=64 * 1024)
    noise = "".join(f"step {n}/3000 loss 0.{n % 97:02d}\n" for n in range(1_500))  # ~40 KB
    msg = await fake.user_sends(
        fake.alice, fake.help_channel, "", files=[("train.log", (noise + LOG).encode())]
    )
    reply = await one_reply(fake, msg)
    text = fake.text_of(reply)
    assert "train.log" in text
    assert "only its last" in text, "the reply says only the end of the file was read"
    assert "out of memory" in text.lower(), "the OOM at the end of the file was diagnosed"

    too_big = (noise * 2 + LOG).encode()  # over the 64 KiB read limit
    skipped = await fake.user_sends(fake.bob, fake.help_channel, fenced(CONFIG), files=[("big.log", too_big)])
    note = fake.text_of(await one_reply(fake, skipped))
    assert "Skipped big.log" in note
    assert not [r for r in fake.calls("cdn") if r.path.endswith("big.log")], "never downloaded"


async def test_s1_a_problem_told_in_words_gets_a_reply_and_chat_none(fake: FakeDiscord, bot: Bots) -> None:
    # Issue #16: no config, no log, a sentence about the run. The reply says what it can, then asks.
    chat = await fake.user_sends(fake.bob, fake.help_channel, "what sampler do you use for previews?")
    words = await fake.user_sends(
        fake.alice, fake.help_channel, "Training z-image lora, always stuck at Step 0 of 3000, no error"
    )
    reply = await one_reply(fake, words)
    text = fake.text_of(reply)
    assert "not an out-of-memory error" in text and "python run.py" in text
    assert fake.replies_to(int(chat["id"])) == []
