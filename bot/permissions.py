"""Who counts as a moderator: `manage_messages` in the channel, or one of the configured roles."""

from __future__ import annotations

from collections.abc import Collection, Iterable

import discord


def is_moderator(
    manage_messages: bool, member_role_ids: Iterable[int], moderator_role_ids: Collection[int]
) -> bool:
    if manage_messages:
        return True
    return any(role_id in moderator_role_ids for role_id in member_role_ids)


def _role_ids(user: discord.abc.User | discord.Member) -> list[int]:
    roles = getattr(user, "roles", None) or []
    return [role.id for role in roles]


def interaction_is_moderator(interaction: discord.Interaction, moderator_role_ids: Collection[int]) -> bool:
    """Checked at run time from the permissions Discord resolved for this channel."""
    if interaction.guild is None:
        return False
    return is_moderator(
        interaction.permissions.manage_messages, _role_ids(interaction.user), moderator_role_ids
    )


def member_is_moderator(
    user: discord.abc.User | discord.Member,
    channel: discord.abc.Messageable | None,
    moderator_role_ids: Collection[int],
) -> bool:
    if not isinstance(user, discord.Member):
        return False
    permissions_for = getattr(channel, "permissions_for", None)
    manage = bool(permissions_for(user).manage_messages) if permissions_for is not None else False
    return is_moderator(manage, _role_ids(user), moderator_role_ids)
