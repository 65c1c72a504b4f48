"""After a restart or an invalidated session, Discord does not replay what was posted while the bot
was away: the help channels' recent history (and their threads' and forum posts') is read instead,
and every message from a member that still has no reply goes through the live path, bounded by
`catchup_messages` per channel and `catchup_max_age_minutes`."""

from __future__ import annotations

import datetime
import logging
from collections.abc import Awaitable, Callable, Iterable

import discord

from bot.settings import BotSettings

log = logging.getLogger("oomcheck.bot")


def cutoff(settings: BotSettings, now: datetime.datetime | None = None) -> datetime.datetime:
    now = now or discord.utils.utcnow()
    return now - datetime.timedelta(minutes=settings.catchup_max_age_minutes)


def places(
    client: discord.Client, settings: BotSettings, since: datetime.datetime
) -> list[discord.abc.Messageable]:
    """The help channels, then the threads under them and the forums that were active since `since`."""
    parents = {*settings.help_channel_ids, *settings.forum_channel_ids}
    found: list[discord.abc.Messageable] = []
    for channel_id in settings.help_channel_ids:
        channel = client.get_channel(channel_id)
        if isinstance(channel, discord.TextChannel):
            found.append(channel)
    for guild in client.guilds:
        for thread in guild.threads:
            last = thread.last_message_id or thread.id
            if thread.parent_id in parents and discord.utils.snowflake_time(last) >= since:
                found.append(thread)
    return found


def unanswered(
    history: Iterable[discord.Message],
    own_id: int,
    since: datetime.datetime,
    answered: Callable[[int], bool],
) -> list[discord.Message]:
    """Members' messages after `since` that neither the bot's replies in `history` nor the store
    show as answered, oldest first."""
    messages = list(history)
    replied = {m.reference.message_id for m in messages if m.author.id == own_id and m.reference is not None}
    return sorted(
        (
            m
            for m in messages
            if m.author.id != own_id
            and not m.author.bot
            and m.created_at >= since
            and m.id not in replied
            and not answered(m.id)
        ),
        key=lambda m: m.id,
    )


async def catch_up(
    client: discord.Client,
    settings: BotSettings,
    answered: Callable[[int], bool],
    handle: Callable[[discord.Message], Awaitable[None]],
) -> int:
    """Hand every unanswered recent message to `handle` (the live message handler); how many."""
    user = client.user
    if settings.catchup_messages == 0 or user is None:
        return 0
    since = cutoff(settings)
    count = 0
    for place in places(client, settings, since):
        try:
            history = [m async for m in place.history(limit=settings.catchup_messages)]
        except discord.HTTPException as exc:
            log.warning(
                "catch-up: cannot read channel %s (HTTP %s, Discord error %s)",
                getattr(place, "id", "?"),
                exc.status,
                exc.code,
            )
            continue
        for message in unanswered(history, user.id, since, answered):
            count += 1
            await handle(message)
    if count:
        log.info("catch-up: %d message(s) from while the bot was away were looked at", count)
    return count
