"""The adapter's event handling with plain objects and the fake engine (no network, no gateway)."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest

from bot.app import OomBot, create_bot
from bot.inputs import Gathered, SourcedText
from bot.store import GuildSettings
from tests.bot_fakes import (
    BOT_ID,
    CONFIG,
    GENERAL,
    HELP,
    LOG,
    SECRET,
    Channel,
    FakeAttachment,
    FakeEngine,
    Message,
    PartialTarget,
    SlowEngine,
    User,
    make_bot,
    pasted,
    settings,
)

# The bot's own user, as discord.py sets it at login (tests/conftest.py).
pytestmark = pytest.mark.usefixtures("bot_user")


@pytest.fixture
async def bot(tmp_path: Path) -> AsyncIterator[OomBot]:
    instance = await make_bot(tmp_path)
    yield instance
    await instance.close()


async def test_factory_sets_intents_mentions_and_passes_client_options(tmp_path: Path) -> None:
    client = create_bot(
        settings(tmp_path), allowed_mentions=discord.AllowedMentions.all(), max_ratelimit_timeout=42
    )
    try:
        intents = client.intents
        assert intents.guilds and intents.guild_messages and intents.message_content
        assert not intents.members and not intents.presences and not intents.dm_messages
        assert client.allowed_mentions is not None and client.allowed_mentions.to_dict() == {"parse": []}
        assert client.http.max_ratelimit_timeout == 42
        names = {c.name for c in client.tree.get_commands()}
        assert {"oom-check", "oom-explain", "oom-rules", "oom-config", "oom-stats"} <= names
        menus = client.tree.get_commands(type=discord.AppCommandType.message)
        assert [m.name for m in menus] == ["OOM check"]
    finally:
        await client.close()


async def test_auto_mode_answers_a_config_once_even_when_two_events_race(bot: OomBot) -> None:
    message = Message(CONFIG, User(7), Channel(HELP))
    await asyncio.gather(bot.messages.on_message(message), bot.messages.answer(message))  # type: ignore[arg-type]
    assert len(message.outbox) == 1
    sent = message.outbox[0]
    assert sent.content == "[en] step 1: gc_off"
    assert sent.kwargs["allowed_mentions"].to_dict() == {"parse": []}
    assert sent.kwargs["mention_author"] is False
    await bot.messages.on_message(message)  # a RESUME replay
    assert len(message.outbox) == 1


async def test_no_second_answer_after_a_restart(tmp_path: Path) -> None:
    message = Message(LOG, User(7), Channel(HELP))
    first = await make_bot(tmp_path)
    await first.messages.on_message(message)  # type: ignore[arg-type]
    await first.close()
    second = await make_bot(tmp_path)
    await second.messages.on_message(message)  # type: ignore[arg-type]
    await second.close()
    assert len(message.outbox) == 1


async def test_chat_and_other_channels_get_no_auto_answer(bot: OomBot) -> None:
    chat = Message("does anyone know a good LoRA rank?", User(7), Channel(HELP))
    elsewhere = Message(CONFIG, User(7), Channel(GENERAL))
    own = Message(CONFIG, User(BOT_ID, bot=True), Channel(HELP))
    for message in (chat, elsewhere, own):
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert message.outbox == []


async def test_forum_posts_and_help_threads_are_in_scope(bot: OomBot) -> None:
    post = Message(LOG, User(7), Channel(500, parent_id=20))
    thread_message = Message(LOG, User(8), Channel(501, parent_id=HELP))
    for message in (post, thread_message):
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert len(message.outbox) == 1


async def test_a_mention_is_answered_anywhere_and_reads_the_replied_message(bot: OomBot) -> None:
    engine = bot.service.engine
    assert isinstance(engine, FakeEngine)
    original = Message(LOG, User(8), Channel(GENERAL))
    ask = Message(f"<@{BOT_ID}> what is wrong?", User(7), Channel(GENERAL))
    ask.reference = SimpleNamespace(message_id=original.id, resolved=original)
    await bot.messages.on_message(ask)  # type: ignore[arg-type]
    assert len(ask.outbox) == 1
    assert engine.diagnosed[-1] == [LOG, "what is wrong?"]


async def test_a_bare_mention_says_what_to_send(bot: OomBot) -> None:
    ask = Message(f"<@{BOT_ID}>", User(7), Channel(GENERAL))
    await bot.messages.on_message(ask)  # type: ignore[arg-type]
    assert [s.content for s in ask.outbox] == ["en:bot.nothing_to_check"]
    await bot.messages.on_message(ask)  # type: ignore[arg-type]
    assert len(ask.outbox) == 1


async def test_moderators_can_turn_auto_mode_off_for_their_server(bot: OomBot) -> None:
    await bot.service.db(bot.service.store.set_guild_settings, 1, GuildSettings(auto_mode=False))
    message = Message(CONFIG, User(7), Channel(HELP))
    await bot.messages.on_message(message)  # type: ignore[arg-type]
    assert message.outbox == []
    mention = Message(f"<@{BOT_ID}> {CONFIG}", User(7), Channel(HELP))
    await bot.messages.on_message(mention)  # type: ignore[arg-type]
    assert len(mention.outbox) == 1


async def test_user_cooldown_and_channel_budget(tmp_path: Path) -> None:
    bot = await make_bot(tmp_path, user_cooldown_seconds=60, channel_replies_per_minute=2)
    try:
        first = Message(CONFIG, User(7), Channel(HELP))
        again = Message(CONFIG + "# v2", User(7), Channel(HELP))
        other = Message(LOG, User(8), Channel(HELP))
        third = Message(LOG, User(9), Channel(HELP))
        for message in (first, again, other, third):
            await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert [len(m.outbox) for m in (first, again, other, third)] == [1, 0, 1, 0]
    finally:
        await bot.close()


async def test_a_log_after_the_config_is_folded_into_the_same_reply(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await make_bot(tmp_path, user_cooldown_seconds=60)
    try:
        target = PartialTarget()
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        config = Message(CONFIG, User(7), Channel(HELP))
        log = Message(LOG, User(7), Channel(HELP))
        await bot.messages.on_message(config)  # type: ignore[arg-type]
        await bot.messages.on_message(log)  # type: ignore[arg-type]
        assert len(config.outbox) == 1 and log.outbox == []
        assert len(target.edits) == 1
        assert target.edits[0]["reply_id"] == config.outbox[0].id
        assert target.edits[0]["content"] == "[en] step 1: gc_off,batch_too_large"
        case = await bot.service.db(bot.service.store.case, config.outbox[0].id)
        assert case is not None and [text for _, text in case.inputs] == [CONFIG, LOG]
        await bot.messages.on_message(log)  # a replay: already answered through the fold
        another = Message(LOG, User(7), Channel(HELP))  # the case is complete now: no second fold
        await bot.messages.on_message(another)  # type: ignore[arg-type]
        assert len(target.edits) == 1 and another.outbox == []
        elsewhere = Message(LOG, User(8), Channel(HELP))  # someone else's log is their own case
        await bot.messages.on_message(elsewhere)  # type: ignore[arg-type]
        assert len(elsewhere.outbox) == 1 and len(target.edits) == 1
    finally:
        await bot.close()


async def test_no_fold_after_the_edit_window(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = await make_bot(tmp_path, user_cooldown_seconds=0)
    try:
        target = PartialTarget()
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        config = Message(CONFIG, User(7), Channel(HELP))
        await bot.messages.on_message(config)  # type: ignore[arg-type]
        monkeypatch.setattr("bot.listeners.time.time", lambda: 4_000_000_000.0)
        log = Message(LOG, User(7), Channel(HELP))
        await bot.messages.on_message(log)  # type: ignore[arg-type]
        assert target.edits == [] and len(log.outbox) == 1
    finally:
        await bot.close()


async def test_only_scrubbed_text_reaches_the_database(bot: OomBot, tmp_path: Path) -> None:
    request = pasted(f"hf_token: {SECRET}\n{CONFIG}", source_id=555)
    prepared = await bot.service.prepare(request)
    await bot.service.remember(prepared, 777)
    case = await bot.service.db(bot.service.store.case, 777)
    assert case is not None and "hf_REDACTED" in case.inputs[0][1]
    answer = await bot.service.db(bot.service.store.answer_for, 555)
    assert answer is not None and answer.reply_id == 777
    await bot.close()
    for path in tmp_path.iterdir():
        assert SECRET.encode() not in path.read_bytes(), path.name


async def test_inputs_are_scrubbed_on_the_engine_pool(bot: OomBot, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    scrub = bot.service.engine.scrub

    def spying_scrub(text: str, source: str) -> str:
        threads.append(threading.current_thread().name)
        return scrub(text, source)

    monkeypatch.setattr(bot.service.engine, "scrub", spying_scrub)
    request = pasted(CONFIG, SourcedText("log.txt", LOG), source_id=556)
    await bot.service.remember(await bot.service.prepare(request), 778)
    assert len(threads) == 2
    assert all(name.startswith("oomcheck-engine") for name in threads), threads
    await bot.close()


async def test_an_edit_within_the_window_updates_the_reply_in_place(
    bot: OomBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = PartialTarget()
    monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
    message = Message(CONFIG, User(7), Channel(HELP))
    await bot.messages.on_message(message)  # type: ignore[arg-type]
    reply_id = message.outbox[0].id

    unfurl = SimpleNamespace(message_id=message.id, data={"embeds": []}, message=message)
    await bot.messages.on_raw_message_edit(unfurl)  # type: ignore[arg-type]
    same = SimpleNamespace(message_id=message.id, data={"content": CONFIG}, message=message)
    await bot.messages.on_raw_message_edit(same)  # type: ignore[arg-type]
    assert target.edits == []

    message.content = CONFIG + LOG
    edited = SimpleNamespace(message_id=message.id, data={"content": message.content}, message=message)
    await bot.messages.on_raw_message_edit(edited)  # type: ignore[arg-type]
    assert len(target.edits) == 1
    assert target.edits[0]["reply_id"] == reply_id
    assert target.edits[0]["content"] == "[en] step 1: gc_off,batch_too_large"
    assert target.edits[0]["allowed_mentions"].to_dict() == {"parse": []}
    assert len(message.outbox) == 1  # edited, not answered again


async def test_an_edit_after_the_window_is_left_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bot = await make_bot(tmp_path, edit_window_minutes=15)
    try:
        target = PartialTarget()
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        message = Message(CONFIG, User(7), Channel(HELP))
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        monkeypatch.setattr("bot.listeners.time.time", lambda: 4_000_000_000.0)
        message.content = LOG
        payload = SimpleNamespace(message_id=message.id, data={"content": LOG}, message=message)
        await bot.messages.on_raw_message_edit(payload)  # type: ignore[arg-type]
        assert target.edits == []
    finally:
        await bot.close()


def _marked_slow(inputs: Sequence[str]) -> bool:
    return any("slow" in text for text in inputs)


async def test_a_slow_diagnosis_times_out_and_the_message_can_be_retried(tmp_path: Path) -> None:
    bot = await make_bot(tmp_path, SlowEngine(_marked_slow), diagnosis_timeout_seconds=0.05, engine_workers=1)
    try:
        message = Message("slow " + LOG, User(7), Channel(HELP))
        with pytest.raises(TimeoutError):
            await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert message.outbox == []
        assert bot.service.claims.claim(message.id)  # released: a replay may try again
    finally:
        await bot.close()


class HistoryChannel:
    def __init__(self, newest_first: list[Message]) -> None:
        self.newest_first = newest_first
        self.limits: list[int] = []

    async def history(self, *, limit: int) -> AsyncIterator[Message]:
        self.limits.append(limit)
        for message in self.newest_first[:limit]:
            yield message


async def test_history_merges_the_latest_config_and_log_of_one_author(tmp_path: Path) -> None:
    from bot.commands import _history

    bot = await make_bot(tmp_path, history_depth=5)
    try:
        alice, bob = User(7), User(8)
        channel = HistoryChannel(
            [
                Message("thanks!", bob, Channel(HELP)),
                Message(LOG, alice, Channel(HELP)),
                Message(CONFIG + "# bob's", bob, Channel(HELP)),
                Message("answer", User(BOT_ID, bot=True), Channel(HELP)),
                Message(CONFIG, alice, Channel(HELP)),
                Message(CONFIG + "# too old", alice, Channel(HELP)),  # beyond the history depth
            ]
        )
        gathered = await _history(bot.service, channel, None)  # type: ignore[arg-type]
        assert channel.limits == [5]
        assert [(i.source, i.text) for i in gathered.inputs] == [("message 1", CONFIG), ("message 2", LOG)]
        own = await _history(bot.service, channel, bob.id)  # type: ignore[arg-type]
        assert [i.text for i in own.inputs] == [CONFIG + "# bob's"]
        assert (await _history(bot.service, channel, 99)).inputs == ()  # type: ignore[arg-type]
    finally:
        await bot.close()


async def test_real_catalogue_names_the_context_menu_in_japanese(tmp_path: Path) -> None:
    from discord import app_commands

    from bot.translator import CatalogueTranslator, catalogue_lookup

    client = create_bot(settings(tmp_path))
    try:
        menu = client.tree.get_commands(type=discord.AppCommandType.message)[0]
        context = app_commands.TranslationContext(app_commands.TranslationContextLocation.command_name, menu)
        translator = CatalogueTranslator(catalogue_lookup)
        assert (
            await translator.translate(menu._locale_name, discord.Locale.japanese, context) == "OOMチェック"
        )
        check = client.tree.get_command("oom-check")
        assert check is not None and check.description.startswith("Check a training config")
    finally:
        await client.close()


async def test_a_mention_that_fails_gets_an_apology(tmp_path: Path) -> None:
    bot = await make_bot(tmp_path, SlowEngine(_marked_slow), diagnosis_timeout_seconds=0.05)
    try:
        ask = Message(f"<@{BOT_ID}> slow {LOG}", User(7), Channel(GENERAL))
        await bot.messages.on_message(ask)  # type: ignore[arg-type]
        assert [s.content for s in ask.outbox] == ["en:bot.apology"]
    finally:
        await bot.close()


async def test_a_burst_from_one_member_on_cooldown_is_not_diagnosed(tmp_path: Path) -> None:
    """Five configs at once from one member, each in another help thread: one diagnosis, one reply."""
    engine = FakeEngine()
    bot = await make_bot(tmp_path, engine, user_cooldown_seconds=60)
    try:
        burst = [Message(CONFIG + f"# v{n}", User(7), Channel(600 + n, parent_id=HELP)) for n in range(5)]
        await asyncio.gather(*(bot.messages.on_message(m) for m in burst))  # type: ignore[arg-type]
        assert sum(len(m.outbox) for m in burst) == 1
        assert len(engine.diagnosed) == 1
        later = Message(CONFIG + "# later", User(7), Channel(700, parent_id=HELP))
        await bot.messages.on_message(later)  # type: ignore[arg-type]
        assert later.outbox == [] and len(engine.diagnosed) == 1
    finally:
        await bot.close()


async def test_a_channel_over_its_budget_diagnoses_nothing_more(tmp_path: Path) -> None:
    engine = FakeEngine()
    bot = await make_bot(tmp_path, engine, channel_replies_per_minute=1)
    try:
        messages = [Message(CONFIG + f"# {n}", User(70 + n), Channel(HELP)) for n in range(4)]
        for message in messages:
            await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert [len(m.outbox) for m in messages] == [1, 0, 0, 0]
        assert len(engine.diagnosed) == 1
    finally:
        await bot.close()


async def test_a_message_that_gets_no_reply_does_not_start_the_cooldown(tmp_path: Path) -> None:
    bot = await make_bot(tmp_path, user_cooldown_seconds=60)
    try:
        chat = Message("hello, anyone around?", User(7), Channel(HELP))
        config = Message(CONFIG, User(7), Channel(HELP))
        for message in (chat, config):
            await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert chat.outbox == [] and len(config.outbox) == 1
    finally:
        await bot.close()


async def test_on_cooldown_only_a_message_that_may_complete_the_open_case_is_diagnosed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = FakeEngine()
    bot = await make_bot(tmp_path, engine, user_cooldown_seconds=60)
    try:
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: PartialTarget())
        whole = Message(CONFIG + LOG, User(7), Channel(HELP))  # config and log: nothing left to fold
        await bot.messages.on_message(whole)  # type: ignore[arg-type]
        assert len(whole.outbox) == 1 and len(engine.diagnosed) == 1
        again = Message(LOG, User(7), Channel(HELP))
        await bot.messages.on_message(again)  # type: ignore[arg-type]
        assert again.outbox == [] and len(engine.diagnosed) == 1
    finally:
        await bot.close()


class FetchingTarget(PartialTarget):
    """A channel that also hands back its messages by id (as `fetch_message` would)."""

    def __init__(self, *messages: Message) -> None:
        super().__init__()
        self.messages = {m.id: m for m in messages}
        self.fetched: list[int] = []

    async def fetch_message(self, message_id: int) -> Message:
        self.fetched.append(message_id)
        if message_id not in self.messages:
            raise discord.NotFound(SimpleNamespace(status=404, reason="Not Found"), "gone")
        return self.messages[message_id]


def _edit_payload(message: Message) -> Any:
    return SimpleNamespace(message_id=message.id, data={"content": message.content}, message=message)


async def test_editing_either_half_of_a_folded_case_rebuilds_from_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = FakeEngine()
    bot = await make_bot(tmp_path, engine, user_cooldown_seconds=60)
    try:
        config = Message(CONFIG, User(7), Channel(HELP))
        log = Message(LOG, User(7), Channel(HELP))
        target = FetchingTarget(config, log)
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        await bot.messages.on_message(config)  # type: ignore[arg-type]
        await bot.messages.on_message(log)  # type: ignore[arg-type]
        assert len(target.edits) == 1  # folded

        await bot.messages.on_raw_message_edit(_edit_payload(log))  # nothing changed
        assert len(target.edits) == 1

        log.content = LOG + "Tried to allocate 4.00 GiB\n"
        await bot.messages.on_raw_message_edit(_edit_payload(log))
        assert len(target.edits) == 2
        assert target.edits[1]["content"] == "[en] step 1: gc_off,batch_too_large"
        assert engine.diagnosed[-1] == [CONFIG, log.content]

        config.content = CONFIG + "# fixed\n"
        await bot.messages.on_raw_message_edit(_edit_payload(config))
        assert len(target.edits) == 3
        assert engine.diagnosed[-1] == [config.content, log.content]
        case = await bot.service.db(bot.service.store.case, config.outbox[0].id)
        assert case is not None and [text for _, text in case.inputs] == [config.content, log.content]

        del target.messages[config.id]  # the config was deleted: the log alone remains
        log.content = LOG
        await bot.messages.on_raw_message_edit(_edit_payload(log))
        assert engine.diagnosed[-1] == [LOG]
        assert target.edits[-1]["content"] == "[en] step 1: batch_too_large"
    finally:
        await bot.close()


async def test_bots_webhooks_and_system_messages_are_never_answered(bot: OomBot) -> None:
    engine = bot.service.engine
    assert isinstance(engine, FakeEngine)
    other_bot = Message(CONFIG, User(90, bot=True), Channel(HELP))
    relayed = Message(LOG, User(91), Channel(HELP), webhook_id=555)  # a bridge posting as a "user"
    system = Message(LOG, User(92, system=True), Channel(HELP))
    mention_by_webhook = Message(f"<@{BOT_ID}> {LOG}", User(93), Channel(GENERAL), webhook_id=556)
    for message in (other_bot, relayed, system, mention_by_webhook):
        await bot.messages.on_message(message)  # type: ignore[arg-type]
        assert message.outbox == []
    assert engine.diagnosed == []


async def test_a_mention_of_the_bots_own_role_counts_as_a_mention(bot: OomBot) -> None:
    engine = bot.service.engine
    assert isinstance(engine, FakeEngine)
    guild = SimpleNamespace(id=1, self_role=SimpleNamespace(id=77))
    ask = Message(f"<@&77> {LOG}", User(7), Channel(GENERAL), guild=guild)
    await bot.messages.on_message(ask)  # type: ignore[arg-type]
    assert len(ask.outbox) == 1 and engine.diagnosed[-1] == [LOG]
    other_role = Message(f"<@&78> {LOG}", User(8), Channel(GENERAL), guild=guild)
    await bot.messages.on_message(other_role)  # type: ignore[arg-type]
    assert other_role.outbox == []


class ConcurrencyEngine(FakeEngine):
    """Records how many diagnoses ran at the same time."""

    def __init__(self) -> None:
        super().__init__()
        self._guard = threading.Lock()
        self.active = 0
        self.most = 0

    def diagnose(self, inputs: Any, **kwargs: Any) -> Any:
        with self._guard:
            self.active += 1
            self.most = max(self.most, self.active)
        try:
            time.sleep(0.05)
            return super().diagnose(inputs, **kwargs)
        finally:
            with self._guard:
                self.active -= 1


async def test_one_members_edits_take_one_engine_worker_at_a_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = ConcurrencyEngine()
    bot = await make_bot(tmp_path, engine, engine_workers=2)
    try:
        first = Message(CONFIG, User(7), Channel(600, parent_id=HELP))
        second = Message(CONFIG, User(7), Channel(601, parent_id=HELP))
        target = FetchingTarget(first, second)
        monkeypatch.setattr(bot, "get_partial_messageable", lambda channel_id: target)
        for message in (first, second):
            await bot.messages.on_message(message)  # type: ignore[arg-type]
        engine.most = 0
        for message in (first, second):
            message.content = CONFIG + LOG
        await asyncio.gather(*(bot.messages.on_raw_message_edit(_edit_payload(m)) for m in (first, second)))
        assert len(target.edits) == 2
        assert engine.most == 1
    finally:
        await bot.close()


async def test_history_counts_its_budget_in_bytes(tmp_path: Path) -> None:
    from bot.commands import _history

    bot = await make_bot(tmp_path, input_cap_bytes=1024)  # two caps for the whole history: 2048 bytes
    try:
        alice = User(7)
        japanese = ("あ" * 341).encode()  # 1023 bytes, 341 characters
        files = [FakeAttachment(f"{n}.log", japanese) for n in range(3)]
        channel = HistoryChannel([Message("", alice, Channel(HELP), attachments=[f]) for f in files])
        await _history(bot.service, channel, None)  # type: ignore[arg-type]
        assert [f.reads for f in files] == [1, 1, 0]
    finally:
        await bot.close()


async def test_history_stops_reading_files_once_the_budget_is_spent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot import inputs
    from bot.commands import _history

    opened: list[str] = []
    read_attachment = inputs.read_attachment

    async def counting_read(attachment: Any, *, cap: int, read_limit: int | None = None) -> Gathered:
        opened.append(attachment.filename)
        return await read_attachment(attachment, cap=cap, read_limit=read_limit)

    monkeypatch.setattr(inputs, "read_attachment", counting_read)
    bot = await make_bot(tmp_path, input_cap_bytes=1024)
    try:
        alice = User(7)
        full = [FakeAttachment(f"{n}.log", b"x" * 1024) for n in range(2)]  # exactly the budget
        later = [FakeAttachment(f"late{n}.log", LOG.encode()) for n in range(3)]
        channel = HistoryChannel(
            [
                *(Message("", alice, Channel(HELP), attachments=[f]) for f in full),
                Message(CONFIG, alice, Channel(HELP), attachments=later),
            ]
        )
        gathered = await _history(bot.service, channel, None)  # type: ignore[arg-type]
        assert opened == ["0.log", "1.log"]
        assert all(f.reads == 0 for f in later)
        assert ("message 1", CONFIG) in [(i.source, i.text) for i in gathered.inputs]
    finally:
        await bot.close()


# The buttons of a real reply with two languages, as main sent them before the language menu
# existed (`ReplyButtons.components()`, in English and in Japanese), compared as JSON text so that
# the order of the keys counts too.
TWO_LANGUAGE_BUTTONS: dict[str, list[dict[str, Any]]] = {
    "en": [
        {
            "type": 1,
            "components": [
                {
                    "type": 2,
                    "style": 1,
                    "disabled": False,
                    "label": "Still OOM → next step",
                    "custom_id": "oom:step:2",
                },
                {
                    "type": 2,
                    "style": 2,
                    "disabled": False,
                    "label": "日本語 / English",
                    "custom_id": "oom:lang:ja",
                },
                {
                    "type": 2,
                    "style": 2,
                    "disabled": False,
                    "custom_id": "oom:up",
                    "emoji": {"id": None, "name": "👍"},
                },
                {
                    "type": 2,
                    "style": 2,
                    "disabled": False,
                    "custom_id": "oom:down",
                    "emoji": {"id": None, "name": "👎"},
                },
                {
                    "type": 2,
                    "style": 4,
                    "disabled": False,
                    "label": "Delete",
                    "custom_id": "oom:del",
                    "emoji": {"id": None, "name": "🗑️"},
                },
            ],
        }
    ],
    "ja": [
        {
            "type": 1,
            "components": [
                {
                    "type": 2,
                    "style": 1,
                    "disabled": False,
                    "label": "まだ OOM → 次の手順",
                    "custom_id": "oom:step:2",
                },
                {
                    "type": 2,
                    "style": 2,
                    "disabled": False,
                    "label": "日本語 / English",
                    "custom_id": "oom:lang:en",
                },
                {
                    "type": 2,
                    "style": 2,
                    "disabled": False,
                    "custom_id": "oom:up",
                    "emoji": {"id": None, "name": "👍"},
                },
                {
                    "type": 2,
                    "style": 2,
                    "disabled": False,
                    "custom_id": "oom:down",
                    "emoji": {"id": None, "name": "👎"},
                },
                {
                    "type": 2,
                    "style": 4,
                    "disabled": False,
                    "label": "削除",
                    "custom_id": "oom:del",
                    "emoji": {"id": None, "name": "🗑️"},
                },
            ],
        }
    ],
}


async def test_two_languages_keep_the_toggle_button_byte_for_byte(tmp_path: Path) -> None:
    client = create_bot(settings(tmp_path))
    try:
        await client.service.open_store()
        request = pasted(CONFIG + LOG)
        for lang, expected in TWO_LANGUAGE_BUTTONS.items():
            prepared = await client.service.prepare(request, lang=lang)
            assert prepared.buttons.menu == ()
            assert json.dumps(prepared.buttons.components(), ensure_ascii=False) == json.dumps(
                expected, ensure_ascii=False
            )
    finally:
        await client.close()


async def test_a_third_language_brings_a_menu_named_in_each_language(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import locales

    monkeypatch.setattr(locales, "LANGUAGES", ("en", "ja", "xx"))
    client = create_bot(settings(tmp_path))
    try:
        await client.service.open_store()
        request = pasted(CONFIG)
        prepared = await client.service.prepare(request, lang="ja")
        menu = prepared.buttons.menu
        assert [(c.code, c.current) for c in menu] == [("en", False), ("ja", True), ("xx", False)]
        assert [c.name for c in menu][:2] == ["English", "日本語"]
        rows = prepared.buttons.components()
        assert [c["custom_id"] for c in rows[0]["components"]] == [
            "oom:step:2",
            "oom:up",
            "oom:down",
            "oom:del",
        ]
        assert [c["custom_id"] for c in rows[1]["components"]] == ["oom:language"]
    finally:
        await client.close()
