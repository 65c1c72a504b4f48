"""When does a message get an answer? Pure decisions over plain values."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from bot.diagnosis_port import InputKinds


@dataclass(frozen=True)
class AutoScope:
    help_channel_ids: Collection[int]
    forum_channel_ids: Collection[int]


def in_auto_scope(channel_id: int, parent_id: int | None, scope: AutoScope) -> bool:
    """A configured help channel, or a thread / forum post under a help channel or a configured forum."""
    if channel_id in scope.help_channel_ids:
        return True
    return parent_id is not None and (
        parent_id in scope.forum_channel_ids or parent_id in scope.help_channel_ids
    )


def auto_enabled(global_setting: bool, guild_setting: bool | None) -> bool:
    """A moderator's `/oom-config` choice for the server wins over the deployment default."""
    return global_setting if guild_setting is None else guild_setting


def mentions_bot(
    raw_mentions: Collection[int],
    bot_user_id: int | None,
    raw_role_mentions: Collection[int] = (),
    bot_role_id: int | None = None,
) -> bool:
    """Only a written mention counts (a reply to the bot pings it without the user asking). The
    client's autocomplete often offers the bot's own role (same name) first: that counts too."""
    if bot_user_id is not None and bot_user_id in raw_mentions:
        return True
    return bot_role_id is not None and bot_role_id in raw_role_mentions


def may_be_forum_starter(message_id: int, channel_id: int) -> bool:
    """A forum post's starter message has the thread's id."""
    return message_id == channel_id


def within_edit_window(answered_at: float, now: float, window_minutes: float) -> bool:
    return 0 <= now - answered_at <= window_minutes * 60


def complements(previous: InputKinds, new: InputKinds) -> bool:
    """The new message brings exactly the kind (config or log) that the previous case lacked."""
    if previous.config and not previous.log:
        return new.log and not new.config
    if previous.log and not previous.config:
        return new.config and not new.log
    return False
