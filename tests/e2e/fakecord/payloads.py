"""Every Discord JSON shape the fake sends, in one place.

The field sets follow what discord.py 2.7 reads (see shared/discord-e2e-testing.md §6): a missing key
there crashes the client's gateway loop or silently changes a result, so builders always emit the full
set and callers only choose values.
"""

from __future__ import annotations

import itertools
import time
from datetime import UTC, datetime
from typing import Any

Json = dict[str, Any]

DISCORD_EPOCH_MS = 1_420_070_400_000
# Snowflakes carry a creation time in their top bits (discord.py's `created_at` reads it, and
# `history(after=...)` compares it): they start at the moment the fake is imported and increase like
# real ones (ids 18-19 digits).
_ids = itertools.count((int(time.time() * 1000) - DISCORD_EPOCH_MS) << 22)


def snowflake() -> int:
    return next(_ids)


def snowflake_at(unix_seconds: float) -> int:
    """An id created at `unix_seconds` (a message that was posted before now)."""
    return ((int(unix_seconds * 1000) - DISCORD_EPOCH_MS) << 22) + next(_ids) % (1 << 22)


def iso_now() -> str:
    return datetime.now(UTC).isoformat()


class Perm:
    """Permission bits the scenarios care about."""

    ADD_REACTIONS = 1 << 6
    VIEW_CHANNEL = 1 << 10
    SEND_MESSAGES = 1 << 11
    MANAGE_MESSAGES = 1 << 13
    EMBED_LINKS = 1 << 14
    ATTACH_FILES = 1 << 15
    READ_MESSAGE_HISTORY = 1 << 16
    MENTION_EVERYONE = 1 << 17
    USE_APPLICATION_COMMANDS = 1 << 31
    MANAGE_THREADS = 1 << 34
    CREATE_PUBLIC_THREADS = 1 << 35
    SEND_MESSAGES_IN_THREADS = 1 << 38
    ADMINISTRATOR = 1 << 3

    MEMBER = (
        VIEW_CHANNEL
        | SEND_MESSAGES
        | EMBED_LINKS
        | ATTACH_FILES
        | READ_MESSAGE_HISTORY
        | ADD_REACTIONS
        | USE_APPLICATION_COMMANDS
        | CREATE_PUBLIC_THREADS
        | SEND_MESSAGES_IN_THREADS
    )
    MODERATOR = MEMBER | MANAGE_MESSAGES | MANAGE_THREADS | MENTION_EVERYONE
    BOT = MEMBER | MANAGE_MESSAGES


class ChannelType:
    TEXT = 0
    DM = 1
    PUBLIC_THREAD = 11
    FORUM = 15


def user(uid: int, name: str, *, bot: bool = False) -> Json:
    return {
        "id": str(uid),
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


def role(rid: int, name: str, permissions: int, *, position: int = 0) -> Json:
    return {
        "id": str(rid),
        "name": name,
        "permissions": str(permissions),
        "position": position,
        "color": 0,
        "hoist": False,
        "managed": False,
        "mentionable": False,
        "flags": 0,
    }


def member(user_payload: Json, role_ids: list[int], *, permissions: int | None = None) -> Json:
    """A guild member; `permissions` is only present on interaction payloads, as on Discord."""
    data: Json = {
        "user": user_payload,
        "roles": [str(r) for r in role_ids],
        "flags": 0,
        "joined_at": "2025-01-01T00:00:00+00:00",
        "deaf": False,
        "mute": False,
        "nick": None,
    }
    if permissions is not None:
        data["permissions"] = str(permissions)
    return data


def text_channel(
    cid: int, guild_id: int, name: str, *, position: int = 0, type_: int = ChannelType.TEXT
) -> Json:
    return {
        "id": str(cid),
        "guild_id": str(guild_id),
        "type": type_,
        "name": name,
        "position": position,
        "permission_overwrites": [],
        "parent_id": None,
        "nsfw": False,
        "topic": None,
        "last_message_id": None,
        "rate_limit_per_user": 0,
    }


def forum_channel(cid: int, guild_id: int, name: str, *, position: int = 0) -> Json:
    data = text_channel(cid, guild_id, name, position=position, type_=ChannelType.FORUM)
    data.update({"available_tags": [], "default_reaction_emoji": None, "flags": 0, "default_forum_layout": 0})
    return data


def thread(tid: int, guild_id: int, parent_id: int, owner_id: int, name: str) -> Json:
    return {
        "id": str(tid),
        "guild_id": str(guild_id),
        "parent_id": str(parent_id),
        "owner_id": str(owner_id),
        "name": name,
        "type": ChannelType.PUBLIC_THREAD,
        "message_count": 0,
        "member_count": 1,
        "rate_limit_per_user": 0,
        "flags": 0,
        "applied_tags": [],
        "last_message_id": str(tid),
        "thread_metadata": {
            "archived": False,
            "auto_archive_duration": 1440,
            "archive_timestamp": iso_now(),
            "locked": False,
        },
    }


def guild(
    gid: int,
    name: str,
    *,
    roles: list[Json],
    channels: list[Json],
    threads: list[Json],
    members: list[Json],
    owner_id: int,
) -> Json:
    return {
        "id": str(gid),
        "name": name,
        "icon": None,
        "owner_id": str(owner_id),
        "unavailable": False,
        "large": False,
        "member_count": len(members),
        "roles": roles,
        "channels": channels,
        "threads": threads,
        "members": members,
        "emojis": [],
        "stickers": [],
        "features": [],
        "voice_states": [],
        "presences": [],
        "stage_instances": [],
        "guild_scheduled_events": [],
        "preferred_locale": "en-US",
        "verification_level": 0,
        "default_message_notifications": 0,
        "explicit_content_filter": 0,
        "mfa_level": 0,
        "premium_tier": 0,
        "nsfw_level": 0,
        "system_channel_id": None,
        "afk_channel_id": None,
        "afk_timeout": 300,
        "joined_at": "2025-01-01T00:00:00+00:00",
    }


def attachment(aid: int, filename: str, size: int, url: str, content_type: str | None) -> Json:
    data: Json = {"id": str(aid), "filename": filename, "size": size, "url": url, "proxy_url": url}
    if content_type is not None:
        data["content_type"] = content_type
    return data


def message(
    mid: int,
    channel_id: int,
    author: Json,
    content: str,
    *,
    guild_id: int | None,
    member_payload: Json | None = None,
    attachments: list[Json] | None = None,
    embeds: list[Json] | None = None,
    components: list[Json] | None = None,
    mentions: list[Json] | None = None,
    mention_roles: list[int] | None = None,
    mention_everyone: bool = False,
    reference: Json | None = None,
    referenced_message: Json | None = None,
    flags: int = 0,
    webhook_id: int | None = None,
    interaction_metadata: Json | None = None,
    type_: int = 0,
) -> Json:
    data: Json = {
        "id": str(mid),
        "channel_id": str(channel_id),
        "type": type_,
        "content": content,
        "author": author,
        "timestamp": iso_now(),
        "edited_timestamp": None,
        "tts": False,
        "pinned": False,
        "flags": flags,
        "mention_everyone": mention_everyone,
        "mentions": mentions or [],
        "mention_roles": [str(r) for r in mention_roles or []],
        "attachments": attachments or [],
        "embeds": embeds or [],
        "components": components or [],
    }
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    if member_payload is not None:
        data["member"] = {k: v for k, v in member_payload.items() if k != "user"}
    if reference is not None:
        data["message_reference"] = reference
    if referenced_message is not None:
        data["referenced_message"] = referenced_message
    if webhook_id is not None:
        data["webhook_id"] = str(webhook_id)
    if interaction_metadata is not None:
        data["interaction_metadata"] = interaction_metadata
    return data


def ready(bot_user: Json, session_id: str, resume_url: str, guild_ids: list[int], app_id: int) -> Json:
    return {
        "v": 10,
        "user": bot_user,
        "session_id": session_id,
        "session_type": "normal",
        "resume_gateway_url": resume_url,
        "guilds": [{"id": str(g), "unavailable": True} for g in guild_ids],
        "private_channels": [],
        "relationships": [],
        "application": {"id": str(app_id), "flags": 0},
    }


def application(app_id: int, owner: Json) -> Json:
    return {
        "id": str(app_id),
        "name": "oomcheck",
        "description": "",
        "icon": None,
        "bot_public": False,
        "bot_require_code_grant": False,
        "owner": owner,
        "verify_key": "0" * 64,
        "interactions_endpoint_url": None,
        "flags": 0,
        "team": None,
        "summary": "",
    }


def interaction(
    iid: int,
    token: str,
    app_id: int,
    type_: int,
    *,
    guild_id: int,
    channel: Json,
    member_payload: Json,
    data: Json,
    locale: str = "en-US",
    message_payload: Json | None = None,
    app_permissions: int = Perm.BOT,
) -> Json:
    payload: Json = {
        "id": str(iid),
        "application_id": str(app_id),
        "type": type_,
        "token": token,
        "version": 1,
        "guild_id": str(guild_id),
        "guild": {"id": str(guild_id), "locale": "en-US", "features": []},
        "channel_id": channel["id"],
        "channel": channel,
        "member": member_payload,
        "data": data,
        "locale": locale,
        "guild_locale": "en-US",
        "app_permissions": str(app_permissions),
        "entitlements": [],
        "authorizing_integration_owners": {"0": str(guild_id)},
        "context": 0,
        "attachment_size_limit": 10 * 1024 * 1024,
    }
    if message_payload is not None:
        payload["message"] = message_payload
    return payload


def slash_data(
    cmd_id: int, name: str, options: list[Json], *, guild_id: int | None, resolved: Json | None = None
) -> Json:
    data: Json = {"id": str(cmd_id), "name": name, "type": 1, "options": options}
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    if resolved:
        data["resolved"] = resolved
    return data


def message_command_data(cmd_id: int, name: str, target: Json, *, guild_id: int | None) -> Json:
    data: Json = {
        "id": str(cmd_id),
        "name": name,
        "type": 3,
        "target_id": target["id"],
        "resolved": {"messages": {target["id"]: target}},
    }
    if guild_id is not None:
        data["guild_id"] = str(guild_id)
    return data


def component_data(custom_id: str, component_type: int, values: list[str] | None = None) -> Json:
    data: Json = {"custom_id": custom_id, "component_type": component_type}
    if values is not None:
        data["values"] = values
    return data


def callback_response(iid: int, type_: int, message_payload: Json | None, *, ephemeral: bool) -> Json:
    inter: Json = {
        "id": str(iid),
        "type": type_,
        "response_message_loading": type_ == 5,
        "response_message_ephemeral": ephemeral,
    }
    body: Json = {"interaction": inter}
    if message_payload is not None:
        inter["response_message_id"] = message_payload["id"]
        body["resource"] = {"type": type_, "message": message_payload}
    return body


def dm_channel(cid: int, recipient: Json) -> Json:
    return {"id": str(cid), "type": ChannelType.DM, "recipients": [recipient], "last_message_id": None}


def dm_interaction(
    iid: int, token: str, app_id: int, type_: int, *, channel: Json, user_payload: Json, data: Json
) -> Json:
    """An interaction in the bot's DM with a member: `user` instead of `member`, no guild, context 1."""
    return {
        "id": str(iid),
        "application_id": str(app_id),
        "type": type_,
        "token": token,
        "version": 1,
        "channel_id": channel["id"],
        "channel": channel,
        "user": user_payload,
        "data": data,
        "locale": "en-US",
        "app_permissions": str(Perm.MEMBER),
        "entitlements": [],
        "authorizing_integration_owners": {"0": "0"},
        "context": 1,
        "attachment_size_limit": 10 * 1024 * 1024,
    }
