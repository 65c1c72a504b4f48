"""Self-tests of the fake Discord, driven by a tiny discord.py bot defined here (not the product)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from . import harness
from .fakecord import FakeDiscord, mentions_nothing, point_discord_at
from .fakecord.payloads import Perm
from .fakecord.redirect import refusing_connector
from .fakecord.server import LOADING

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

        @app_commands.command(name="late", description="defers after `seconds`")
        async def late(interaction: discord.Interaction, seconds: float) -> None:
            await asyncio.sleep(seconds)
            try:
                await interaction.response.defer(thinking=True)
            except discord.HTTPException as exc:
                self.errors.append(exc)
                return
            await interaction.followup.send("late but done")

        @app_commands.command(name="ping", description="answers anywhere, DMs included")
        async def ping(interaction: discord.Interaction) -> None:
            where = "dm" if interaction.guild_id is None else "guild"
            await interaction.response.send_message(f"pong:{where}")

        self.tree.add_command(echo, guild=discord.Object(guild_id))
        self.tree.add_command(late, guild=discord.Object(guild_id))
        self.tree.add_command(echo_menu)
        self.tree.add_command(ping)

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
            elif message.content == "embed":
                await message.channel.send("with embed", embed=discord.Embed(title="an embed"))
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
    # A client that keeps beating is never closed for it.
    assert server.close_codes == [] and server.connections == 1


# ---------------------------------------------------------------- the stricter Discord (issue #18)


async def test_an_acknowledgement_past_the_window_is_unknown(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    fake.ack_window = 0.2
    in_time = await fake.slash_command(fake.alice, fake.general, "late", {"seconds": 0.0})
    assert (await fake.wait_responded(in_time))["type"] == 5
    await fake.wait_for(lambda: not fake.message(in_time.original_id or 0)["flags"] & LOADING)
    too_late = await fake.slash_command(fake.alice, fake.general, "late", {"seconds": 0.5})
    await fake.wait_for(lambda: probe.client.errors, what="the refused acknowledgement")
    error = probe.client.errors[0]
    assert isinstance(error, discord.NotFound) and error.code == 10062
    assert too_late.expired and too_late.callbacks == []


async def test_rest_latency_counts_against_the_window(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    # An immediate acknowledgement, slowed down on its way: Discord still sees it too late.
    fake.ack_window, fake.rest_latency = 0.1, 0.3
    inter = await fake.slash_command(fake.alice, fake.general, "late", {"seconds": 0.0})
    await fake.wait_for(lambda: probe.client.errors, what="the refused acknowledgement")
    assert inter.expired
    assert [r.status for r in fake.calls("interaction_callback")] == [404]


async def test_the_first_follow_up_fills_the_thinking_message(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    inter = await fake.slash_command(fake.alice, fake.general, "late", {"seconds": 0.0})
    await fake.wait_for(lambda: fake.calls("followup_create"), what="the follow-up")
    await fake.settle()
    original = fake.message(inter.original_id or 0)
    assert original["content"] == "late but done" and not original["flags"] & LOADING
    assert inter.followup_ids == []


async def test_without_the_guild_messages_intent_no_message_arrives(fake: FakeDiscord) -> None:
    class Blind(commands.Bot):
        def __init__(self) -> None:
            intents = discord.Intents.none()
            intents.guilds = True
            super().__init__(command_prefix="!", intents=intents, **harness.client_options())
            self.seen: list[int] = []

        async def on_message(self, message: discord.Message) -> None:
            self.seen.append(message.id)

    running = await harness.start(Blind(), fake)
    try:
        await fake.user_sends(fake.alice, fake.help_channel, "unseen")
        await fake.settle()
        assert running.client.seen == []
        assert not [e for e in fake.events if e.name == "MESSAGE_CREATE"]
    finally:
        await running.stop()


async def test_a_privileged_intent_the_application_lacks_closes_4014(fake: FakeDiscord) -> None:
    fake.privileged_intents = 0
    client = Probe(fake.guild_id)
    await client.login(fake.token)
    try:
        with pytest.raises(discord.PrivilegedIntentsRequired):
            await asyncio.wait_for(client.connect(reconnect=True), 15)
    finally:
        await client.close()
    assert fake.close_codes == [4014] and fake.identifies == 0


async def test_a_reset_token_ends_the_session_with_4004(fake: FakeDiscord) -> None:
    running = await harness.start(Probe(fake.guild_id), fake)
    old = fake.token
    await fake.reset_token()
    with pytest.raises(discord.ConnectionClosed) as closed:
        await asyncio.wait_for(running.task, 15)
    assert closed.value.code == 4004
    await running.client.close()
    async with aiohttp.ClientSession() as session:
        me = await session.get(f"{fake.api_base}/users/@me", headers={"Authorization": f"Bot {old}"})
        assert me.status == 401


async def test_a_route_bucket_sends_discords_headers_and_429s_past_its_limit(fake: FakeDiscord) -> None:
    fake.rate_limit("create_message", limit=2, window=5.0)
    url = f"{fake.api_base}/channels/{fake.general}/messages"
    body = {"content": "x", "allowed_mentions": {"parse": []}}
    async with aiohttp.ClientSession() as session:
        answers = [await session.post(url, json=body) for _ in range(3)]
        limited = await answers[2].json()
    assert [a.status for a in answers] == [200, 200, 429]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["1", "0", "0"]
    assert len({a.headers["X-RateLimit-Bucket"] for a in answers}) == 1
    headers = answers[2].headers
    assert headers["X-RateLimit-Scope"] == "user" and "X-RateLimit-Global" not in headers
    assert float(headers["X-RateLimit-Reset-After"]) > 0 and int(headers["Retry-After"]) >= 1
    assert headers["Via"] and limited["global"] is False and limited["retry_after"] > 0
    # The bucket is per channel: another channel has its own.
    async with aiohttp.ClientSession() as session:
        other = await session.post(f"{fake.api_base}/channels/{fake.help_channel}/messages", json=body)
    assert other.status == 200


async def test_discord_py_throttles_itself_by_the_bucket_headers(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    fake.rate_limit("create_message", limit=2, window=0.3)
    sent = [await fake.user_sends(fake.alice, fake.help_channel, f"n{n}") for n in range(5)]
    for msg in sent:
        await fake.wait_for(lambda: fake.replies_to(int(msg["id"])), what="every reply")  # noqa: B023
    assert [r.status for r in fake.calls("create_message")] == [200] * 5


async def test_a_global_429_blocks_and_is_retried(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    async with aiohttp.ClientSession() as session:
        fake.limit_globally(retry_after=0.05)
        answer = await session.get(f"{fake.api_base}/channels/{fake.general}")
        body = await answer.json()
    assert answer.status == 429 and body["global"] is True
    assert answer.headers["X-RateLimit-Global"] == "true" and answer.headers["X-RateLimit-Scope"] == "global"
    fake.limit_globally(retry_after=0.05)
    msg = await fake.user_sends(fake.alice, fake.help_channel, "global")
    await fake.wait_for(lambda: fake.replies_to(int(msg["id"])))
    assert [r.status for r in fake.calls("create_message")] == [429, 200]


async def test_503_surfaces_and_502_is_an_html_page(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    fake.fail_next("create_message", 503)
    await fake.user_sends(fake.alice, fake.help_channel, "unavailable")
    await fake.wait_for(lambda: probe.client.errors)
    assert isinstance(probe.client.errors[0], discord.DiscordServerError)
    assert probe.client.errors[0].status == 503
    fake.fail_next("get_channel", 502)
    async with aiohttp.ClientSession() as session:
        answer = await session.get(f"{fake.api_base}/channels/{fake.general}")
        assert answer.status == 502 and "text/html" in answer.headers["Content-Type"]


async def test_the_permission_model(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    async def refusal(text: str) -> BaseException:
        probe.client.errors.clear()
        await fake.user_sends(fake.alice, fake.help_channel, text)
        await fake.wait_for(lambda: probe.client.errors, what=f"the refusal of {text!r}")
        return probe.client.errors[0]

    await fake.set_bot_permissions(fake.help_channel, deny=Perm.SEND_MESSAGES)
    error = await refusal("no send")
    assert isinstance(error, discord.Forbidden) and error.code == 50013
    await fake.set_bot_permissions(fake.help_channel, deny=Perm.VIEW_CHANNEL)
    error = await refusal("no view")
    assert isinstance(error, discord.Forbidden) and error.code == 50001
    await fake.set_bot_permissions(fake.help_channel, deny=Perm.READ_MESSAGE_HISTORY)
    error = await refusal("no history, so no reply")
    assert isinstance(error, discord.HTTPException) and error.code == 160002
    # discord.py's cache follows the overwrite (CHANNEL_UPDATE).
    channel = probe.client.get_channel(fake.help_channel)
    assert isinstance(channel, discord.TextChannel)
    assert not channel.permissions_for(channel.guild.me).read_message_history
    # Without Embed Links the message is posted and its embeds are dropped.
    await fake.set_bot_permissions(fake.general, deny=Perm.EMBED_LINKS)
    await fake.user_sends(fake.alice, fake.general, "embed")
    posts = await fake.wait_for(lambda: fake.bot_messages(fake.general), what="the post without its embed")
    assert posts[0]["content"] == "with embed" and posts[0]["embeds"] == []
    assert fake.calls("create_message")[-1].body["embeds"]


async def test_a_deleted_channel_and_a_deleted_message(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    msg = await fake.user_sends(fake.alice, fake.general, "soon gone", dispatch=False)
    await fake.user_deletes(msg)
    channel = probe.client.get_channel(fake.general)
    assert isinstance(channel, discord.TextChannel)
    with pytest.raises(discord.HTTPException) as gone:
        await channel.get_partial_message(int(msg["id"])).reply("late", mention_author=False)
    assert gone.value.code == 50035 and "Unknown message" in gone.value.text
    await fake.delete_channel(fake.general, announce=False)
    with pytest.raises(discord.NotFound) as unknown:
        await channel.send("into the void")
    assert unknown.value.code == 10003


async def test_a_dm_interaction(fake: FakeDiscord, probe: harness.Running[Probe]) -> None:
    inter = await fake.dm_slash_command(fake.alice, "ping")
    callback = await fake.wait_responded(inter)
    assert callback["data"]["content"] == "pong:dm"
    assert "guild_id" not in inter.payload and inter.payload["user"]["id"] == str(fake.alice.id)
    with pytest.raises(AssertionError, match="does not offer"):
        await fake.dm_slash_command(fake.alice, "echo", {"text": "guild only"})


async def test_a_session_invalidated_loses_the_events_of_the_gap(
    fake: FakeDiscord, probe: harness.Running[Probe]
) -> None:
    await fake.invalidate_session()
    lost = await fake.user_sends(fake.alice, fake.help_channel, "posted in the gap")
    await fake.wait_connected(identifies=2)
    after = await fake.user_sends(fake.alice, fake.help_channel, "after")
    await fake.wait_for(lambda: fake.replies_to(int(after["id"])))
    await fake.settle()
    assert probe.client.seen == [int(after["id"])]
    assert fake.replies_to(int(lost["id"])) == []


async def test_missed_heartbeats_close_the_connection() -> None:
    server = FakeDiscord(heartbeat_interval_ms=50, heartbeat_timeout=0.2)
    await server.start()
    try:
        async with aiohttp.ClientSession() as session, session.ws_connect(server.gateway_url) as ws:
            hello = await ws.receive_json()
            assert hello["op"] == 10
            identify = {"op": 2, "d": {"token": server.token, "intents": 1, "properties": {}}}
            await ws.send_str(json.dumps(identify))
            # Never a heartbeat: read until Discord closes the connection.
            while not ws.closed:
                frame = await asyncio.wait_for(ws.receive(), 10)
                if frame.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED):
                    break
            assert ws.close_code == 4009
    finally:
        await server.close()
    assert server.close_codes == [4009] and server.session_id == "timed-out"
