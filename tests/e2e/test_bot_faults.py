"""The real bot under Discord's faults (issue #18): delivery retried or skipped with a word in the
log, permission problems said once per channel and shown in /oom-config, restarts that leave no
message unanswered and no interaction "thinking", the 3-second acknowledgement window."""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from bot.app import OomBot
from oomcheck.botcmd import EXIT_OK, _serve

from .botharness import Bots
from .cases import CHAT, CONFIG, FIX_LINE, config_variant, fenced
from .fakecord import FakeDiscord
from .fakecord import payloads as p
from .fakecord.payloads import Json, Perm
from .fakecord.server import LOADING

pytestmark = [pytest.mark.e2e]


def warnings_of(caplog: pytest.LogCaptureFixture, needle: str = "") -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("oomcheck") and r.levelno >= logging.WARNING and needle in r.getMessage()
    ]


async def wait_reply(fake: FakeDiscord, msg: Json) -> list[Json]:
    found: list[Json] = await fake.wait_for(
        lambda: fake.replies_to(int(msg["id"])), what=f"a reply to {msg['id']}"
    )
    return found


def the_bot(bots: Bots) -> OomBot:
    assert bots.current is not None
    client = bots.current.client
    assert isinstance(client, OomBot)
    return client


def gate_diagnoses(client: OomBot) -> tuple[asyncio.Event, list[int]]:
    """Every diagnosis waits for the returned event; the list counts the diagnoses that began. (All
    engine work goes through `engine_call`, inline, on a thread or in a worker process.)"""
    service = client.service
    real = service.engine_call
    gate = asyncio.Event()
    began: list[int] = []

    async def gated(*args: Any, **kwargs: Any) -> Any:
        began.append(1)
        await gate.wait()
        return await real(*args, **kwargs)

    service.engine_call = gated  # type: ignore[method-assign]
    return gate, began


def slow_diagnoses(client: OomBot, seconds: float) -> None:
    service = client.service
    real = service.engine_call

    async def slow(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(seconds)
        return await real(*args, **kwargs)

    service.engine_call = slow  # type: ignore[method-assign]


# ------------------------------------------------------------------ delivery


async def test_a_503_on_the_reply_is_retried_by_the_bot(fake: FakeDiscord, bot: Bots) -> None:
    # discord.py does not retry a 503 on a channel route: without the bot's own retry it is lost.
    fake.fail_next("create_message", 503)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await wait_reply(fake, msg)
    await fake.settle()
    assert [r.status for r in fake.calls("create_message")] == [503, 200]
    assert len(fake.replies_to(int(msg["id"]))) == 1


async def test_a_429_storm_longer_than_discord_py_s_own_tries_is_waited_out(
    fake: FakeDiscord, bot: Bots
) -> None:
    # discord.py tries a 429 five times and then raises; the bot waits the bucket's reset and tries again.
    fake.fail_next("create_message", 429, times=6, retry_after=0.01)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await wait_reply(fake, msg)
    await fake.settle()
    assert [r.status for r in fake.calls("create_message")] == [429] * 6 + [200]
    assert len(fake.replies_to(int(msg["id"]))) == 1


async def test_a_global_429_is_waited_out(fake: FakeDiscord, bot: Bots) -> None:
    fake.limit_globally(retry_after=0.05)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await wait_reply(fake, msg)
    await fake.settle()
    assert [r.status for r in fake.calls("create_message")] == [429, 200]


async def test_a_reply_finally_lost_is_logged_with_its_ids(
    fake: FakeDiscord, bots: Bots, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await bots.start(delivery_attempts=2)
    fake.fail_next("create_message", 503, times=5)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.wait_for(lambda: warnings_of(caplog, "NOT delivered"), what="the line about the lost reply")
    await fake.settle()
    assert [r.status for r in fake.calls("create_message")] == [503, 503]
    [line] = warnings_of(caplog, "NOT delivered")
    assert msg["id"] in line and str(fake.guild_id) in line and str(fake.help_channel) in line
    assert "503" in line


async def test_missing_permissions_are_logged_once_per_channel_and_shown_in_oom_config(
    fake: FakeDiscord, bot: Bots, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await fake.set_bot_permissions(fake.help_channel, deny=Perm.SEND_MESSAGES)
    await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.user_sends(fake.bob, fake.help_channel, fenced(config_variant(2)))
    await fake.wait_for(lambda: len(fake.calls("create_message")) == 2, what="both refused replies")
    await fake.settle()
    assert [r.status for r in fake.calls("create_message")] == [403, 403]
    [line] = warnings_of(caplog, "missing permission")
    assert str(fake.guild_id) in line and str(fake.help_channel) in line and "send_messages" in line
    inter = await fake.slash_command(fake.moderator, fake.general, "oom-config")
    shown = fake.text_of(await fake.shown(inter))
    assert f"<#{fake.help_channel}>" in shown and "Send Messages" in shown
    # Granted again: the channel is served again.
    await fake.set_bot_permissions(fake.help_channel)
    after = await fake.user_sends(fake.alice, fake.help_channel, fenced(config_variant(3)))
    await wait_reply(fake, after)


async def test_missing_access_names_the_guild_and_channel(
    fake: FakeDiscord, bot: Bots, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    # The overwrite is not announced: the bot's cache still believes it may post.
    await fake.set_bot_permissions(fake.help_channel, deny=Perm.VIEW_CHANNEL, announce=False)
    await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.wait_for(lambda: fake.calls("create_message"), what="the refused reply")
    await fake.settle()
    [line] = warnings_of(caplog, "missing permission")
    assert str(fake.guild_id) in line and str(fake.help_channel) in line and "50001" in line


async def test_without_embed_links_the_reply_still_says_the_fix(fake: FakeDiscord, bot: Bots) -> None:
    await fake.set_bot_permissions(fake.help_channel, deny=Perm.EMBED_LINKS)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    [reply] = await wait_reply(fake, msg)
    # Discord would drop the embeds and leave the headline alone: the bot sends their text instead.
    assert reply["embeds"] == [] and not fake.calls("create_message")[0].body.get("embeds")
    assert FIX_LINE in reply["content"]


@pytest.mark.parametrize("gone", ["thread", "message"])
async def test_a_reply_whose_thread_or_message_is_gone_is_a_quiet_skip(
    fake: FakeDiscord, bot: Bots, caplog: pytest.LogCaptureFixture, gone: str
) -> None:
    caplog.set_level(logging.DEBUG, logger="oomcheck")
    msg = await fake.user_sends(fake.alice, fake.help_thread, fenced(CONFIG), dispatch=False)
    if gone == "thread":
        await fake.delete_channel(fake.help_thread, announce=False)
    else:
        await fake.user_deletes(msg)
    # The events race: the message reaches the bot after it was deleted.
    await fake.redeliver(msg)
    await fake.wait_for(lambda: fake.calls("create_message"), what="the reply attempt")
    await fake.settle()
    assert [r.status for r in fake.calls("create_message")] == [404 if gone == "thread" else 400]
    assert warnings_of(caplog) == []
    assert [r for r in caplog.records if r.levelno == logging.DEBUG and "gone" in r.getMessage()]
    after = await fake.user_sends(fake.bob, fake.help_channel, fenced(config_variant(2)))
    await wait_reply(fake, after)


# ------------------------------------------------------------------ the acknowledgement window


@pytest.mark.parametrize("how", ["slash", "menu"])
async def test_a_slow_check_is_acknowledged_within_the_window(
    fake: FakeDiscord, bots: Bots, how: str
) -> None:
    """Discord forgets an interaction not acknowledged in 3 s (here 1 s, with 150 ms of REST
    latency); the diagnosis takes longer than that, so the bot must defer before it."""
    fake.ack_window, fake.rest_latency = 1.0, 0.15
    await bots.start()
    slow_diagnoses(the_bot(bots), 1.5)
    if how == "slash":
        inter = await fake.slash_command(fake.alice, fake.general, "oom-check", {"text": CONFIG})
    else:
        target = await fake.user_sends(fake.alice, fake.general, fenced(CONFIG))
        inter = await fake.message_command(fake.alice, target, fake.context_menu())
    shown = await fake.shown(inter)
    assert not inter.expired and inter.callbacks[0]["type"] == 5
    assert FIX_LINE in fake.text_of(shown)


async def test_a_failed_check_does_not_stay_thinking(fake: FakeDiscord, bot: Bots) -> None:
    async def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the engine broke")

    the_bot(bot).service.engine_call = broken  # type: ignore[method-assign]
    inter = await fake.slash_command(fake.alice, fake.general, "oom-check", {"text": CONFIG})
    shown = await fake.shown(inter)
    assert not shown["flags"] & LOADING and "Sorry" in fake.text_of(shown)


async def test_a_dm_check(fake: FakeDiscord, bots: Bots) -> None:
    # Commands offered in DMs are global ones: no guild list.
    await bots.start(guild_ids=[])
    inter = await fake.dm_slash_command(fake.alice, "oom-check", {"text": CONFIG})
    shown = await fake.shown(inter)
    assert FIX_LINE in fake.text_of(shown)
    with pytest.raises(AssertionError, match="does not offer"):
        await fake.dm_slash_command(fake.alice, "oom-config")


# ------------------------------------------------------------------ restarts


async def test_messages_posted_while_the_bot_was_away_are_answered_at_start(
    fake: FakeDiscord, bots: Bots
) -> None:
    await bots.start(catchup_messages=50)
    before = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await wait_reply(fake, before)
    await bots.stop()
    away = await fake.user_sends(fake.bob, fake.help_channel, fenced(config_variant(2)))
    chat = await fake.user_sends(fake.bob, fake.help_channel, CHAT)
    in_thread = await fake.user_sends(fake.alice, fake.help_thread, fenced(config_variant(3)))
    stale = await fake.user_sends(
        fake.alice,
        fake.help_channel,
        fenced(config_variant(4)),
        message_id=p.snowflake_at(time.time() - 3 * 3600),
    )
    elsewhere = await fake.user_sends(fake.alice, fake.general, fenced(config_variant(5)))
    post = await fake.create_forum_post(fake.bob, "OOM on step 1", fenced(config_variant(6)))
    await bots.start(catchup_messages=50, catchup_max_age_minutes=60)
    for msg in (away, in_thread, post):
        await wait_reply(fake, msg)
    await fake.settle()
    counts = Counter(str(m["message_reference"]["message_id"]) for m in fake.bot_messages())
    assert counts == {before["id"]: 1, away["id"]: 1, in_thread["id"]: 1, post["id"]: 1}
    assert not {chat["id"], stale["id"], elsewhere["id"]} & set(counts)


async def test_the_look_back_is_bounded_by_count(fake: FakeDiscord, bots: Bots) -> None:
    people = [fake.add_member(f"away{n}") for n in range(4)]
    sent = [
        await fake.user_sends(m, fake.help_channel, fenced(config_variant(2 + n)))
        for n, m in enumerate(people)
    ]
    await bots.start(catchup_messages=2)
    await wait_reply(fake, sent[-1])
    await fake.settle()
    answered = {str(m["message_reference"]["message_id"]) for m in fake.bot_messages()}
    assert answered == {sent[2]["id"], sent[3]["id"]}, "the newest two, no more"


async def test_a_message_posted_while_the_session_was_invalid_is_answered(
    fake: FakeDiscord, bots: Bots
) -> None:
    running = await bots.start(catchup_messages=50)

    async def no_identify_wait(shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py waits 5 s before a re-IDENTIFY (Discord's limit); the fake has none

    running.client.before_identify_hook = no_identify_wait  # type: ignore[method-assign]
    await fake.invalidate_session()
    gap = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.wait_connected(identifies=2)
    await wait_reply(fake, gap)
    await fake.settle()
    assert len(fake.replies_to(int(gap["id"]))) == 1


async def test_a_graceful_stop_finishes_the_reply_in_flight(fake: FakeDiscord, bots: Bots) -> None:
    await bots.start(shutdown_grace_seconds=30)
    client = the_bot(bots)
    gate, began = gate_diagnoses(client)
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    await fake.wait_for(lambda: began, what="the diagnosis to begin")
    stopping = asyncio.create_task(client.shutdown())
    await fake.wait_for(lambda: client.service.inflight.closing, what="the stop to begin")
    late = await fake.user_sends(fake.bob, fake.help_channel, fenced(config_variant(2)))
    await fake.wait_for(
        lambda: any(m.id == int(late["id"]) for m in client.cached_messages), what="the bot to see it"
    )
    assert not stopping.done(), "the stop waits for the reply in flight"
    gate.set()
    await asyncio.wait_for(stopping, 30)
    assert len(fake.replies_to(int(msg["id"]))) == 1
    assert fake.replies_to(int(late["id"])) == [], "nothing new starts once the stop began"
    assert client.is_closed()


async def test_a_stop_past_its_bound_fails_what_is_left_clearly(
    fake: FakeDiscord, bots: Bots, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    await bots.start(shutdown_grace_seconds=0.2)
    client = the_bot(bots)
    _, began = gate_diagnoses(client)  # never opened
    msg = await fake.user_sends(fake.alice, fake.help_channel, fenced(CONFIG))
    inter = await fake.slash_command(fake.bob, fake.general, "oom-check", {"text": CONFIG})
    await fake.wait_for(lambda: len(began) == 2, what="both diagnoses to begin")
    await client.shutdown()
    original = fake.message(inter.original_id or 0)
    assert not original["flags"] & LOADING, "the deferred check does not stay thinking"
    assert "restarting" in fake.text_of(original)
    [line] = warnings_of(caplog, "did not finish in")
    assert msg["id"] in line and str(fake.guild_id) in line and str(fake.help_channel) in line


async def _serve_until(
    fake: FakeDiscord, bots: Bots, fault: Callable[[], Awaitable[None]] | None
) -> tuple[int, str]:
    err = io.StringIO()
    task = asyncio.create_task(_serve(bots.settings(), fake.token, err))
    if fault is not None:
        await fake.wait_connected()
        await fault()
    code = await asyncio.wait_for(task, 30)
    return code, err.getvalue()


async def test_a_reset_token_stops_the_bot_with_one_clear_line(fake: FakeDiscord, bots: Bots) -> None:
    code, err = await _serve_until(fake, bots, fake.reset_token)
    assert code != EXIT_OK
    assert err.count("\n") == 1 and "4004" in err and "DISCORD_TOKEN" in err


async def test_a_privileged_intent_turned_off_stops_the_bot_with_one_clear_line(
    fake: FakeDiscord, bots: Bots
) -> None:
    fake.privileged_intents = 0
    code, err = await _serve_until(fake, bots, None)
    assert code != EXIT_OK and fake.close_codes == [4014]
    assert err.count("\n") == 1 and "Message Content" in err
