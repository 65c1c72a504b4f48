"""fakecord: a fake Discord for end-to-end tests of the real bot over real HTTP and websockets."""

from .redirect import RefuseAllResolver, point_discord_at
from .server import FakeDiscord, Interaction, Person, Request, mentions_nothing

__all__ = [
    "FakeDiscord",
    "Interaction",
    "Person",
    "RefuseAllResolver",
    "Request",
    "mentions_nothing",
    "point_discord_at",
]
