"""A member's permissions in a channel, computed the way Discord does (roles, then overwrites)."""

from __future__ import annotations

from collections.abc import Iterable

from .payloads import Json, Perm

ALL = (1 << 53) - 1


def base_permissions(everyone: int, role_permissions: Iterable[int]) -> int:
    perms = everyone
    for value in role_permissions:
        perms |= value
    return ALL if perms & Perm.ADMINISTRATOR else perms


def channel_permissions(
    base: int, overwrites: Iterable[Json], *, guild_id: int, role_ids: Iterable[int], member_id: int
) -> int:
    """`base` with a channel's overwrites applied: @everyone's, then the member's roles' (all denies
    before all allows), then the member's own."""
    if base & Perm.ADMINISTRATOR or base == ALL:
        return ALL
    by_id = {int(o["id"]): (int(o.get("allow") or 0), int(o.get("deny") or 0)) for o in overwrites}
    perms = base
    allow, deny = by_id.get(guild_id, (0, 0))
    perms = (perms & ~deny) | allow
    roles_allow = roles_deny = 0
    for rid in role_ids:
        a, d = by_id.get(rid, (0, 0))
        roles_allow |= a
        roles_deny |= d
    perms = (perms & ~roles_deny) | roles_allow
    allow, deny = by_id.get(member_id, (0, 0))
    return (perms & ~deny) | allow


def overwrite(target_id: int, *, member: bool, allow: int = 0, deny: int = 0) -> Json:
    return {"id": str(target_id), "type": 1 if member else 0, "allow": str(allow), "deny": str(deny)}
