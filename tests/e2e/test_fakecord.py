"""Self-tests of the fake Discord, driven by a tiny discord.py bot defined here (not the product)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from . import harness
from .fakecord import FakeDiscord, mentions_nothing, point_discord_at
from .fakecord.redirect import refusing_connector

pytestmark = pytest.mark.e2e


class Buttons(discord.ui.View):
    def __init__(self) -> None:
        super().__init__(timeout=None)

    @discord.ui.button(label="Again", custom_id="probe:again")
    async def again(self, interaction: discord.Interaction, button: discord.ui.Button[Buttons]) -> None:
        await interaction.response.edit_message(content="clicked", view=self)


class Probe(commands.Bot):
    """Echo bot: replies to messages, answers /echo and an "Echo" message context menu."""

    def __init__(self, guild_id: int) -> None:
        intents = discord.Intents.default()
        intents.message_content = True
        super().__init__(command_prefix="!", intents=intents, **harness.client_options())
        self.guild_id = guild_id
        self.errors: list[BaseException] = []
        self.seen: list[int] = []

        @app_commands.command(name="echo", description="echo")
        async def echo(
            interaction: discord.Interaction, text: str, file: discord.Attachment | None = None
        ) -> None:
            await interaction.response.defer(thinking=True)
            body = (await file.read()).decode() if file else ""
            await interaction.edit_original_response(content=f"{text}|{body}")
            await interaction.followup.send("more", file=discord.File(__file__, "probe.txt"), ephemeral=True)

        @app_commands.context_menu(name="Echo")
        async def echo_menu(interaction: discord.Interaction, message: discord.Message) -> None:
            await interaction.response.send_message(f"menu:{message.content}", ephemeral=True)

        self.tree.add_command(echo, guild=discord.Object(guild_id))
        self.tree.add_command(echo_menu)

    async def before_identify_hook(self, shard_id: int | None, *, initial: bool = False) -> None:
        # discord.py waits 5 s before a re-IDENTIFY (Discord's identify limit); the fake has none.
        return None

    async def setup_hook(self) -> None:
        self.add_view(Buttons())
        await self.tree.sync(guild=discord.Object(self.guild_id))
        await self.tree.sync()

    async def on_message(self, message: discord.Message) -> None:
        if message.author.bot:
            return
        self.seen.append(message.id)
        parts = [message.content]
        for att in message.attachments:
            parts.append((await att.read()).decode())
        try:
            if message.content == "button":
                await message.channel.send("with button", view=Buttons())
            elif message.content == "toolong":
                await message.channel.send("x" * 2001)
            else:
                await message.reply(
                    "echo:" + "|".join(parts),
                    allowed_mentions=discord.AllowedMentions.none(),
                    mention_author=False,
                )
        except discord.HTTPException as exc:
            self.errors.append(exc)


@pytest.fixture
async def probe(fake: FakeDiscord) -> AsyncIterator[harness.Running[Probe]]:
    running = await harness.start(Probe(fake.guild_id), fake)
    yield running
    await running.stop()


async def test_login_sync_and_ready(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    routes = [r.route for r in fake.requests]
    assert routes[:2] == ["get_me", "get_application"]
    assert fake.command("echo")[1] == fake.guild_id
    assert fake.command("Echo")[1] is None
    client = probe.client
    assert client.user is not None and client.user.id == fake.bot.id
    guild = client.get_guild(fake.guild_id)
    assert guild is not None
    assert isinstance(guild.get_channel(fake.forum), discord.ForumChannel)
    assert guild.get_thread(fake.help_thread) is not None
    me = guild.me
    assert me.guild_permissions.attach_files and not me.guild_permissions.administrator
    assert fake.intents & (1 << 15)


async def test_message_reply_with_reference_and_attachment(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    msg = await fake.user_sends(fake.alice, fake.help_channel, "hi", files=[("a.txt", b"file body")])
    replies = await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="reply")
    assert replies[0]["content"] == "echo:hi|file body"
    post = fake.bot_posts(fake.help_channel)[0]
    assert mentions_nothing(post.body["allowed_mentions"])
    assert str(post.body["message_reference"]["message_id"]) == msg["id"]
    # The bot's own message came back over the gateway and was ignored.
    await fake.settle()
    assert len(fake.bot_posts()) == 1
    assert probe.client.seen == [int(msg["id"])]


async def test_slash_command_defer_edit_followup_with_files(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    inter = await fake.slash_command(
        fake.alice, fake.help_channel, "echo", {"text": "hey"}, files={"file": ("f.txt", b"F")}
    )
    callback = await fake.wait_responded(inter)
    assert callback["type"] == 5
    await fake.wait_for(lambda: inter.followup_ids, what="follow-up")
    original = fake.message(inter.original_id or 0)
    assert original["content"] == "hey|F"
    follow = fake.message(inter.followup_ids[0])
    assert follow["flags"] & 64
    assert follow["attachments"][0]["filename"] == "probe.txt"
    upload = fake.calls("followup_create")[0]
    assert upload.files and upload.files[0].data.startswith(b'"""Self-tests')


async def test_context_menu_is_ephemeral(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    target = await fake.user_sends(fake.bob, fake.general, "look")
    await fake.wait_for(lambda: fake.replies_to(int(target["id"])))
    inter = await fake.message_command(fake.moderator, target, "Echo")
    callback = await fake.wait_responded(inter)
    assert callback["type"] == 4
    assert callback["data"]["content"] == "menu:look"
    assert callback["data"]["flags"] & 64


async def test_button_click_updates_message(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    await fake.user_sends(fake.alice, fake.general, "button")
    posts = await fake.wait_for(lambda: fake.bot_messages(fake.general), what="button message")
    inter = await fake.click(fake.bob, posts[0], "probe:again")
    assert (await fake.wait_responded(inter))["type"] == 7
    assert fake.message(posts[0]["id"])["content"] == "clicked"


async def test_forum_post_in_both_orders(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    first = await fake.create_forum_post(fake.alice, "help", "post one")
    second = await fake.create_forum_post(fake.bob, "help 2", "post two", message_first=True)
    for post in (first, second):
        await fake.wait_for(lambda: fake.replies_to(int(post["id"])))  # noqa: B023
    guild = probe.client.get_guild(fake.guild_id)
    assert guild is not None and guild.get_thread(int(second["id"])) is not None


async def test_429_retried_then_delivered_once(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    fake.fail_next("create_message", 429, retry_after=0.05)
    msg = await fake.user_sends(fake.alice, fake.help_channel, "rl")
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])))
    assert [r.status for r in fake.calls("create_message")] == [429, 200]


async def test_500_retried_and_403_surfaces(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    fake.fail_next("create_message", 500)
    msg = await fake.user_sends(fake.alice, fake.help_channel, "five hundred")
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])))
    fake.fail_next("create_message", 403)
    await fake.user_sends(fake.alice, fake.help_channel, "forbidden")
    await fake.wait_for(lambda: probe.client.errors)
    assert isinstance(probe.client.errors[0], discord.Forbidden)
    assert [r.status for r in fake.calls("create_message")] == [500, 200, 403]


async def test_limits_are_enforced(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    await fake.user_sends(fake.alice, fake.general, "toolong")
    await fake.wait_for(lambda: probe.client.errors)
    assert fake.violations == ["content: 2001 characters > 2000"]
    fake.violations.clear()


async def test_drop_resume_replays_missed_messages(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    await fake.drop_connection()
    during = await fake.user_sends(fake.alice, fake.help_channel, "during drop")
    await fake.wait_for(lambda: fake.resumes == 1, what="RESUME")
    await fake.wait_for(lambda: fake.replies_to(int(during["id"])))
    await fake.send_reconnect()
    after = await fake.user_sends(fake.alice, fake.help_channel, "after op 7")
    await fake.wait_for(lambda: fake.replies_to(int(after["id"])))
    await fake.settle()
    assert fake.resumes == 2 and fake.identifies == 1
    assert probe.client.seen == [int(during["id"]), int(after["id"])]


async def test_invalid_session_identifies_again(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    await fake.invalidate_session()
    await fake.wait_connected(identifies=2)
    msg = await fake.user_sends(fake.alice, fake.help_channel, "again")
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])))


async def test_unknown_routes_are_recorded(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    channel = probe.client.get_channel(fake.general)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.NotFound):
        await channel.create_webhook(name="nope")
    assert fake.unhandled == [f"POST /api/v10/channels/{fake.general}/webhooks"]
    fake.unhandled.clear()


async def test_resolver_refuses_every_name() -> None:
    async with aiohttp.ClientSession(connector=refusing_connector()) as session:
        with pytest.raises(aiohttp.ClientConnectorError):
            await session.get("https://discord.com/api/v10/gateway")


async def test_missing_message_content_intent_strips_content(fake: FakeDiscord) -> None:
    class Deaf(commands.Bot):
        def __init__(self) -> None:
            super().__init__(
                command_prefix="!", intents=discord.Intents.default(), **harness.client_options()
            )
            self.contents: list[str] = []

        async def on_message(self, message: discord.Message) -> None:
            self.contents.append(message.content)

    running = await harness.start(Deaf(), fake)
    try:
        await fake.user_sends(fake.alice, fake.help_channel, "secret text")
        await fake.user_sends(fake.alice, fake.help_channel, "hello", mention_bot=True)
        await fake.wait_for(lambda: len(running.client.contents) == 2)
        assert running.client.contents == ["", f"<@{fake.bot.id}> hello"]
    finally:
        await running.stop()


async def test_heartbeats_are_acknowledged() -> None:
    server = FakeDiscord(heartbeat_interval_ms=50)
    await server.start()
    try:
        with pytest.MonkeyPatch.context() as mp:
            point_discord_at(server.base_url, mp.setattr)
            running = await harness.start(Probe(server.guild_id), server)
            try:
                await server.wait_for(lambda: server.heartbeats >= 4, what="periodic heartbeats")
                await server.wait_for(lambda: running.client.latency < 1.0, what="an acknowledged heartbeat")
            finally:
                await running.stop()
    finally:
        await server.close()
    assert server.unhandled == [] and server.identifies == 1
