"""A fake Discord (REST + gateway + CDN) served by aiohttp on 127.0.0.1.

It keeps just enough state to answer discord.py 2.7 the way Discord does, records every request the
bot makes, and lets a test drive users, inject faults and break the gateway connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import mimetypes
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import BodyPartReader, WSMsgType, web

from . import payloads as p
from .limits import message_violations
from .payloads import Json, Perm
from .perms import base_permissions, channel_permissions, overwrite
from .ratelimits import Bucket, bucket_key, limit_headers, too_many

GUILDS_INTENT = 1 << 0
GUILD_MEMBERS_INTENT = 1 << 1
GUILD_PRESENCES_INTENT = 1 << 8
GUILD_MESSAGES_INTENT = 1 << 9
DIRECT_MESSAGES_INTENT = 1 << 12
MESSAGE_CONTENT_INTENT = 1 << 15
PRIVILEGED_INTENTS = GUILD_MEMBERS_INTENT | GUILD_PRESENCES_INTENT | MESSAGE_CONTENT_INTENT
EPHEMERAL = 1 << 6
LOADING = 1 << 7
# Routes Discord never limits globally (an interaction's callback) or that are not the API (the CDN).
_NO_GLOBAL_LIMIT = frozenset({"interaction_callback", "cdn", "unhandled"})
_CHANNEL_EVENTS = frozenset(
    {"CHANNEL_CREATE", "CHANNEL_UPDATE", "CHANNEL_DELETE", "THREAD_CREATE", "THREAD_UPDATE", "THREAD_DELETE"}
)
_MESSAGE_EVENTS = frozenset({"MESSAGE_CREATE", "MESSAGE_UPDATE", "MESSAGE_DELETE"})


def mentions_nothing(allowed: Any) -> bool:
    """True when an `allowed_mentions` object can ping nobody (no @everyone, roles, users or author)."""
    if not isinstance(allowed, dict) or allowed.get("parse") != []:
        return False
    return not allowed.get("users") and not allowed.get("roles") and not allowed.get("replied_user")


def json_response(data: Any, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    # discord.py decodes JSON only when Content-Type is exactly this (aiohttp's helper adds a charset).
    hdrs = {"Content-Type": "application/json"}
    hdrs.update(headers or {})
    return web.Response(body=json.dumps(data).encode(), status=status, headers=hdrs)


def error_response(status: int, code: int, message: str) -> web.Response:
    return json_response({"message": message, "code": code}, status=status)


def missing_access() -> web.Response:
    return error_response(403, 50001, "Missing Access")


def missing_permissions() -> web.Response:
    return error_response(403, 50013, "Missing Permissions")


def intent_of(event: str, data: Json) -> int:
    """The gateway intent an event needs (0: sent whatever the intents)."""
    if event in _CHANNEL_EVENTS:
        return GUILDS_INTENT
    if event in _MESSAGE_EVENTS:
        return GUILD_MESSAGES_INTENT if "guild_id" in data else DIRECT_MESSAGES_INTENT
    return 0


# Names discord.py gives the tasks that run event handlers, app commands and component callbacks.
_CLIENT_TASKS = ("discord.py: ", "CommandTree-invoker", "discord-ui-")


def _client_busy() -> bool:
    return any(task.get_name().startswith(_CLIENT_TASKS) and not task.done() for task in asyncio.all_tasks())


@dataclass
class Upload:
    field: str
    filename: str
    data: bytes


@dataclass
class Request:
    """One HTTP request the bot made, as Discord would have received it."""

    method: str
    route: str
    path: str
    query: dict[str, str]
    params: dict[str, str]
    body: Any
    files: list[Upload]
    status: int = 0

    @property
    def content(self) -> str:
        return str((self.body or {}).get("content") or "") if isinstance(self.body, dict) else ""


RECORD = web.RequestKey("record", Request)


@dataclass
class Fault:
    route: str
    status: int
    times: int
    body: Json
    headers: dict[str, str]


@dataclass
class Person:
    user: Json
    role_ids: list[int]

    @property
    def id(self) -> int:
        return int(self.user["id"])

    @property
    def name(self) -> str:
        return str(self.user["username"])


@dataclass
class Interaction:
    id: int
    token: str
    payload: Json
    channel_id: int
    callbacks: list[Json] = field(default_factory=list)
    original_id: int | None = None
    followup_ids: list[int] = field(default_factory=list)
    # When it was dispatched (the event loop's clock): Discord waits 3 s for the acknowledgement.
    created: float = 0.0
    # The acknowledgement came too late and was refused with 10062.
    expired: bool = False


@dataclass
class _Event:
    seq: int
    name: str
    data: Json


class FakeDiscord:
    """One guild, a handful of channels and members, and the bot's application."""

    def __init__(
        self,
        *,
        # Shaped like a real token (id.timestamp.hmac): `oomcheck bot` checks the shape before it starts.
        token: str = "MTAwMDAwMDAwMDAwMDAwMDAw.ZmFrZQ.ZmFrZS1ib3QtdG9rZW4tZm9yLXRlc3Rz",
        heartbeat_interval_ms: int = 41_250,
        heartbeat_timeout: float | None = None,
        ack_window: float = 3.0,
        rest_latency: float = 0.0,
        privileged_intents: int = PRIVILEGED_INTENTS,
    ) -> None:
        self.token = token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        # A connection that sends no heartbeat for this long is closed (4009) and its session ends.
        self.heartbeat_timeout = (
            heartbeat_interval_ms / 1000 * 2 + 1.0 if heartbeat_timeout is None else heartbeat_timeout
        )
        # Seconds the bot has to acknowledge an interaction before Discord answers 10062.
        self.ack_window = ack_window
        # Seconds every REST request waits before Discord handles it.
        self.rest_latency = rest_latency
        # The privileged intents the application may use (the developer portal's switches); asking
        # for another one closes the gateway with 4014.
        self.privileged_intents = privileged_intents
        self.port = 0
        self.app_id = p.snowflake()
        self.guild_id = p.snowflake()
        self.bot = Person(p.user(self.app_id, "oomcheck", bot=True), [])
        self.owner = Person(p.user(p.snowflake(), "owner"), [])

        self.everyone_role = p.role(self.guild_id, "@everyone", Perm.MEMBER)
        self.moderator_role_id = p.snowflake()
        self.bot_role_id = p.snowflake()
        self.roles: list[Json] = [
            self.everyone_role,
            p.role(self.moderator_role_id, "Moderator", Perm.MODERATOR, position=2),
            p.role(self.bot_role_id, "oomcheck", Perm.BOT, position=1),
        ]
        self.bot.role_ids = [self.bot_role_id]
        self.people: dict[int, Person] = {self.bot.id: self.bot, self.owner.id: self.owner}
        self.moderator = self.add_member("mod", moderator=True)
        self.alice = self.add_member("alice")
        self.bob = self.add_member("bob")

        self.channels: dict[int, Json] = {}
        self.help_channel = self.add_text_channel("help")
        self.general = self.add_text_channel("general")
        self.extra_help_channels = [self.add_text_channel(f"help-{n}") for n in range(2, 11)]
        self.forum = self._add_channel(p.forum_channel(p.snowflake(), self.guild_id, "training-help"))
        self.threads: dict[int, Json] = {}
        self.help_thread = self._add_thread(
            p.thread(p.snowflake(), self.guild_id, self.help_channel, self.alice.id, "my OOM")
        )

        self.messages: dict[int, Json] = {}
        self.history: dict[int, list[int]] = {}
        self.cdn: dict[str, bytes] = {}
        self.commands: dict[int | None, list[Json]] = {}
        self.interactions: dict[int, Interaction] = {}

        self.dms: dict[int, Json] = {}
        self.requests: list[Request] = []
        self.unhandled: list[str] = []
        self.violations: list[str] = []
        self.faults: list[Fault] = []
        self.buckets: dict[str, Bucket] = {}
        self.global_429s: list[float] = []
        self.close_codes: list[int] = []

        self.identifies = 0
        self.heartbeats = 0
        self.resumes = 0
        self.connections = 0
        self.intents = 0
        self.session_id = ""
        self.events: list[_Event] = []
        self._ws: web.WebSocketResponse | None = None
        self._send_lock = asyncio.Lock()
        self._changed = asyncio.Condition()
        self._runner: web.AppRunner | None = None
        self._sockets: set[web.WebSocketResponse] = set()

    # ------------------------------------------------------------------ world
    def add_member(self, name: str, *, moderator: bool = False) -> Person:
        person = Person(p.user(p.snowflake(), name), [self.moderator_role_id] if moderator else [])
        self.people[person.id] = person
        return person

    def add_text_channel(self, name: str) -> int:
        return self._add_channel(
            p.text_channel(p.snowflake(), self.guild_id, name, position=len(self.channels))
        )

    def _add_channel(self, data: Json) -> int:
        self.channels[int(data["id"])] = data
        return int(data["id"])

    def _add_thread(self, data: Json) -> int:
        self.threads[int(data["id"])] = data
        return int(data["id"])

    def permissions_of(self, person: Person) -> int:
        return base_permissions(
            int(self.everyone_role["permissions"]),
            (int(r["permissions"]) for r in self.roles if int(r["id"]) in person.role_ids),
        )

    def permissions_in(self, person: Person, channel_id: int) -> int:
        """`person`'s permissions in a channel (a thread's are its parent's; a DM allows sending)."""
        if channel_id in self.dms:
            return Perm.MEMBER
        channel = self.threads.get(channel_id)
        parent = int(channel["parent_id"]) if channel is not None else channel_id
        overwrites = self.channels.get(parent, {}).get("permission_overwrites") or []
        return channel_permissions(
            self.permissions_of(person),
            overwrites,
            guild_id=self.guild_id,
            role_ids=person.role_ids,
            member_id=person.id,
        )

    async def set_bot_permissions(
        self, channel_id: int, *, deny: int = 0, allow: int = 0, announce: bool = True
    ) -> None:
        """An overwrite on the bot's role in a channel (a thread's parent); `announce` sends the
        CHANNEL_UPDATE Discord sends (False: the bot's cache does not know yet)."""
        channel = self.channels[channel_id]
        kept = [o for o in channel["permission_overwrites"] if int(o["id"]) != self.bot_role_id]
        channel["permission_overwrites"] = [
            *kept,
            overwrite(self.bot_role_id, member=False, allow=allow, deny=deny),
        ]
        if announce:
            await self.dispatch("CHANNEL_UPDATE", channel)

    async def delete_channel(self, channel_id: int, *, announce: bool = True) -> None:
        """A channel or thread is deleted (`announce`: its *_DELETE event is sent)."""
        if channel_id in self.threads:
            data = self.threads.pop(channel_id)
            event = "THREAD_DELETE"
            payload: Json = {k: data[k] for k in ("id", "guild_id", "parent_id", "type")}
        else:
            data = self.channels.pop(channel_id)
            event, payload = "CHANNEL_DELETE", data
        if announce:
            await self.dispatch(event, payload)

    def open_dm(self, person: Person) -> int:
        """The DM channel between `person` and the bot."""
        for cid, dm in self.dms.items():
            if dm["recipients"][0]["id"] == person.user["id"]:
                return cid
        cid = p.snowflake()
        self.dms[cid] = p.dm_channel(cid, person.user)
        return cid

    def member_payload(self, person: Person, *, with_permissions: bool = False) -> Json:
        return p.member(
            person.user,
            person.role_ids,
            permissions=self.permissions_of(person) if with_permissions else None,
        )

    def channel_payload(self, channel_id: int) -> Json:
        if channel_id in self.threads:
            return self.threads[channel_id]
        if channel_id in self.dms:
            return self.dms[channel_id]
        return self.channels[channel_id]

    def _exists(self, channel_id: int) -> bool:
        return channel_id in self.channels or channel_id in self.threads or channel_id in self.dms

    def guild_payload(self) -> Json:
        return p.guild(
            self.guild_id,
            "AI Toolkit Help",
            roles=self.roles,
            channels=list(self.channels.values()),
            threads=list(self.threads.values()),
            members=[self.member_payload(m) for m in self.people.values()],
            owner_id=self.owner.id,
        )

    # ------------------------------------------------------------- lifecycle
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/"

    async def start(self) -> None:
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        r = app.router
        a = "/api/v10"
        r.add_get("/", self._gateway, name="gateway")
        r.add_get(a + "/users/@me", self._me, name="get_me")
        r.add_get(a + "/oauth2/applications/@me", self._application, name="get_application")
        r.add_get(a + "/gateway/bot", self._gateway_bot, name="get_gateway_bot")
        r.add_get(a + "/gateway", self._gateway_bot, name="get_gateway")
        r.add_put(a + "/applications/{app}/commands", self._put_commands, name="sync_global_commands")
        r.add_get(a + "/applications/{app}/commands", self._get_commands, name="get_global_commands")
        r.add_put(
            a + "/applications/{app}/guilds/{guild}/commands", self._put_commands, name="sync_guild_commands"
        )
        r.add_get(
            a + "/applications/{app}/guilds/{guild}/commands", self._get_commands, name="get_guild_commands"
        )
        r.add_get(a + "/channels/{channel}", self._get_channel, name="get_channel")
        r.add_post(a + "/channels/{channel}/typing", self._no_content, name="typing")
        r.add_post(a + "/channels/{channel}/messages", self._create_message, name="create_message")
        r.add_get(a + "/channels/{channel}/messages", self._history, name="get_history")
        r.add_get(a + "/channels/{channel}/messages/{message}", self._get_message, name="get_message")
        r.add_patch(a + "/channels/{channel}/messages/{message}", self._edit_message, name="edit_message")
        r.add_delete(
            a + "/channels/{channel}/messages/{message}", self._delete_message, name="delete_message"
        )
        reaction = a + "/channels/{channel}/messages/{message}/reactions/{emoji}/@me"
        r.add_put(reaction, self._no_content, name="add_reaction")
        r.add_delete(reaction, self._no_content, name="remove_reaction")
        r.add_get(a + "/guilds/{guild}/members/{user}", self._get_member, name="get_member")
        r.add_post(
            a + "/interactions/{interaction}/{token}/callback", self._callback, name="interaction_callback"
        )
        hook = a + "/webhooks/{app}/{token}"
        r.add_post(hook, self._followup, name="followup_create")
        r.add_get(hook + "/messages/{message}", self._webhook_get, name="webhook_get_message")
        r.add_patch(hook + "/messages/{message}", self._webhook_edit, name="webhook_edit_message")
        r.add_delete(hook + "/messages/{message}", self._webhook_delete, name="webhook_delete_message")
        r.add_get("/attachments/{channel}/{attachment}/{filename}", self._cdn, name="cdn")
        r.add_route("*", "/{tail:.*}", self._unknown, name="unhandled")
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server = site._server
        assert server is not None
        self.port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]

    async def close(self) -> None:
        for ws in list(self._sockets):
            await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()

    # --------------------------------------------------------------- waiting
    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[], Any], *, timeout: float = 15.0, what: str = "") -> Any:
        """Wait until `predicate()` is truthy: re-checked after every request and gateway event, and
        every 50 ms for predicates on the bot's own state."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            value = predicate()
            if value:
                return value
            if loop.time() > deadline:
                raise AssertionError(f"fake Discord: timed out waiting for {what or predicate}")
            async with self._changed:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), 0.05)

    async def settle(self, *, quiet: float = 0.05, timeout: float = 30.0) -> None:
        """Return once the in-process bot is idle: none of discord.py's event, command or component
        tasks is running and no request came in for `quiet` seconds (used before asserting absence)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        seen = -1
        while len(self.requests) != seen or _client_busy():
            if loop.time() > deadline:
                raise AssertionError("fake Discord: the bot never went quiet")
            seen = len(self.requests)
            await asyncio.sleep(quiet)

    async def wait_connected(self, *, identifies: int = 1, timeout: float = 15.0) -> None:
        await self.wait_for(
            lambda: self.identifies >= identifies and self._ws is not None,
            timeout=timeout,
            what=f"IDENTIFY #{identifies}",
        )

    # ------------------------------------------------------------- inspection
    def calls(self, route: str | None = None, *, method: str | None = None) -> list[Request]:
        return [
            r
            for r in self.requests
            if (route is None or r.route == route) and (method is None or r.method == method)
        ]

    def bot_posts(self, channel_id: int | None = None) -> list[Request]:
        """Successful channel message sends by the bot (replies and plain posts)."""
        return [
            r
            for r in self.calls("create_message")
            if r.status == 200 and (channel_id is None or int(r.params["channel"]) == channel_id)
        ]

    def bot_messages(self, channel_id: int | None = None) -> list[Json]:
        """Messages the bot authored that still exist (channel posts, interaction responses, follow-ups)."""
        return [
            m
            for m in self.messages.values()
            if int(m["author"]["id"]) == self.bot.id
            and (channel_id is None or int(m["channel_id"]) == channel_id)
        ]

    def replies_to(self, message_id: int) -> list[Json]:
        return [
            m
            for m in self.bot_messages()
            if (m.get("message_reference") or {}).get("message_id") == str(message_id)
        ]

    def message_link(self, msg: Json) -> str:
        return f"https://discord.com/channels/{self.guild_id}/{msg['channel_id']}/{msg['id']}"

    def text_of(self, msg: Json) -> str:
        """Everything a reader sees in a message: content, embed texts and the attached files' text."""
        parts = [str(msg.get("content") or "")]
        for embed in msg.get("embeds") or []:
            parts += [str(embed.get("title") or ""), str(embed.get("description") or "")]
            parts += [f"{f.get('name')}\n{f.get('value')}" for f in embed.get("fields") or []]
            parts.append(str((embed.get("footer") or {}).get("text") or ""))
        for att in msg.get("attachments") or []:
            data = self.cdn.get(att["url"].removeprefix(self.base_url), b"")
            parts.append(data.decode("utf-8", "replace"))
        return "\n".join(parts)

    def custom_ids(self, msg: Json) -> list[str]:
        current = self.messages.get(int(msg["id"]), msg)
        return [c["custom_id"] for row in current.get("components", []) for c in row.get("components", [])]

    def message_bodies(self) -> list[Request]:
        """Every request that carries message text the bot wrote (sends, edits, responses, follow-ups)."""
        out = []
        for r in self.requests:
            body = r.body if isinstance(r.body, dict) else {}
            if r.route == "interaction_callback":
                body = body.get("data") or {}
            if body.get("content") or body.get("embeds") or r.files:
                out.append(r)
        return out

    def message(self, message_id: int | str) -> Json:
        return self.messages[int(message_id)]

    def context_menu(self) -> str:
        """The name of the (only) message context-menu command the bot registered."""
        names = [c["name"] for cmds in self.commands.values() for c in cmds if c.get("type") == 3]
        if len(names) != 1:
            raise AssertionError(f"expected one message context menu, found {names}")
        return str(names[0])

    def command(self, name: str) -> tuple[Json, int | None]:
        """The registered application command named `name`, and the guild it was registered in."""
        for scope, cmds in self.commands.items():
            for cmd in cmds:
                if cmd["name"] == name:
                    return cmd, scope
        raise AssertionError(f"the bot did not register an application command named {name!r}")

    # ---------------------------------------------------------------- faults
    def fail_next(
        self,
        route: str,
        status: int,
        *,
        times: int = 1,
        retry_after: float = 0.05,
        code: int = 0,
        message: str | None = None,
    ) -> None:
        """Answer the next `times` calls to `route` (a route name, e.g. "create_message") with `status`."""
        headers: dict[str, str] = {}
        if status == 429:
            body, headers = too_many(
                retry_after, scope="user", bucket=Bucket(route, 1, retry_after, f"fault-{route}")
            )
        else:
            default = {
                403: (50013, "Missing Permissions"),
                404: (10008, "Unknown Message"),
                502: (0, "Bad Gateway"),
                503: (0, "Service Unavailable"),
            }
            dcode, dmsg = default.get(status, (code, "Internal Server Error" if status >= 500 else "Error"))
            body = {"message": message or dmsg, "code": code or dcode}
        self.faults.append(Fault(route, status, times, body, headers))

    def rate_limit(self, route: str, *, limit: int, window: float) -> Bucket:
        """Limit `route` to `limit` requests per `window` seconds per channel/guild/webhook, with
        Discord's headers on every answer and a 429 (scope "user") past the limit."""
        bucket = Bucket(route, limit, window, secrets.token_hex(8))
        self.buckets[route] = bucket
        return bucket

    def limit_globally(self, *, retry_after: float = 0.05, times: int = 1) -> None:
        """The next `times` API requests (any route but an interaction callback) get a global 429."""
        self.global_429s.extend([retry_after] * times)

    def _take_fault(self, route: str) -> Fault | None:
        for fault in self.faults:
            if fault.route == route and fault.times > 0:
                fault.times -= 1
                return fault
        return None

    # ------------------------------------------------------------ middleware
    @web.middleware
    async def _middleware(self, request: web.Request, handler: Any) -> web.StreamResponse:
        route = request.match_info.route.name or "unhandled"
        if route == "gateway":
            result: web.StreamResponse = await handler(request)
            return result
        body, files = await self._read_body(request)
        rec = Request(
            request.method,
            route,
            request.path,
            dict(request.query),
            dict(request.match_info),
            body,
            files,
        )
        request[RECORD] = rec
        self.requests.append(rec)
        if self.rest_latency and route != "cdn":
            await asyncio.sleep(self.rest_latency)
        response = await self._limited(route, rec) or await self._faulty(route)
        if response is None:
            try:
                response = await handler(request)
            except web.HTTPException as exc:
                response = exc
            self._count_in_bucket(route, rec, response)
        rec.status = response.status
        await self._notify()
        return response

    async def _limited(self, route: str, rec: Request) -> web.StreamResponse | None:
        if self.global_429s and route not in _NO_GLOBAL_LIMIT:
            body, headers = too_many(self.global_429s.pop(0), scope="global")
            return json_response(body, 429, headers)
        bucket = self.buckets.get(route)
        if bucket is None:
            return None
        key = bucket_key(rec.params)
        allowed, _, reset_after = bucket.take(key, asyncio.get_running_loop().time())
        if allowed:
            return None
        body, headers = too_many(reset_after, scope="user", bucket=bucket)
        return json_response(body, 429, headers)

    def _count_in_bucket(self, route: str, rec: Request, response: web.StreamResponse) -> None:
        bucket = self.buckets.get(route)
        if bucket is None:
            return
        remaining, reset_after = bucket.state(bucket_key(rec.params), asyncio.get_running_loop().time())
        response.headers.update(limit_headers(bucket, remaining, reset_after))

    async def _faulty(self, route: str) -> web.StreamResponse | None:
        fault = self._take_fault(route)
        if fault is None:
            return None
        if fault.status == 502:
            # What Discord's proxies answer: an HTML page, not JSON.
            return web.Response(
                status=502, text="<html><body>502 Bad Gateway</body></html>", content_type="text/html"
            )
        return json_response(fault.body, fault.status, fault.headers)

    async def _read_body(self, request: web.Request) -> tuple[Any, list[Upload]]:
        ctype = request.content_type
        if ctype == "application/json":
            return await request.json(), []
        if ctype.startswith("multipart/"):
            body: Any = None
            files: list[Upload] = []
            reader = await request.multipart()
            async for part in reader:
                if not isinstance(part, BodyPartReader):
                    continue
                data = await part.read()
                if part.name == "payload_json":
                    body = json.loads(data)
                else:
                    files.append(Upload(part.name or "", part.filename or "", bytes(data)))
            return body, files
        raw = await request.read()
        return (raw.decode("utf-8", "replace") if raw else None), []

    # ------------------------------------------------------------------ REST
    async def _unknown(self, request: web.Request) -> web.Response:
        self.unhandled.append(f"{request.method} {request.path_qs}")
        return error_response(404, 0, "404: Not Found")

    async def _no_content(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def _me(self, request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bot {self.token}":
            return error_response(401, 0, "401: Unauthorized")
        return json_response(self.bot.user)

    async def _application(self, request: web.Request) -> web.Response:
        return json_response(p.application(self.app_id, self.owner.user))

    async def _gateway_bot(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    async def _put_commands(self, request: web.Request) -> web.Response:
        scope = int(request.match_info["guild"]) if "guild" in request.match_info else None
        body = request[RECORD].body or []
        stored = []
        for cmd in body:
            stored.append(
                {
                    **cmd,
                    "id": str(p.snowflake()),
                    "application_id": str(self.app_id),
                    "description": cmd.get("description", ""),
                    "type": cmd.get("type", 1),
                    "version": str(p.snowflake()),
                    **({"guild_id": str(scope)} if scope else {}),
                }
            )
        self.commands[scope] = stored
        return json_response(stored)

    async def _get_commands(self, request: web.Request) -> web.Response:
        scope = int(request.match_info["guild"]) if "guild" in request.match_info else None
        return json_response(self.commands.get(scope, []))

    async def _get_channel(self, request: web.Request) -> web.Response:
        cid = int(request.match_info["channel"])
        if cid in self.channels or cid in self.threads:
            return json_response(self.channel_payload(cid))
        return error_response(404, 10003, "Unknown Channel")

    async def _get_member(self, request: web.Request) -> web.Response:
        person = self.people.get(int(request.match_info["user"]))
        if person is None:
            return error_response(404, 10007, "Unknown Member")
        return json_response(self.member_payload(person))

    async def _create_message(self, request: web.Request) -> web.Response:
        rec: Request = request[RECORD]
        cid = int(request.match_info["channel"])
        if not self._exists(cid):
            return error_response(404, 10003, "Unknown Channel")
        body: Json = rec.body or {}
        refused = self._refuse_post(cid, body, rec.files)
        if refused is not None:
            return refused
        problems = message_violations(body, rec.files, creating=True)
        if problems:
            return self._reject(problems)
        msg = self._bot_message(cid, self._without_embeds_unless_allowed(cid, body), rec.files)
        await self._store_and_echo(msg)
        return json_response(msg)

    def _refuse_post(self, cid: int, body: Json, files: Sequence[Upload]) -> web.Response | None:
        """What Discord answers a post the bot may not make in `cid`, else None."""
        perms = self.permissions_in(self.bot, cid)
        if not perms & Perm.VIEW_CHANNEL:
            return missing_access()
        send = Perm.SEND_MESSAGES_IN_THREADS if cid in self.threads else Perm.SEND_MESSAGES
        if not perms & send or (files and not perms & Perm.ATTACH_FILES):
            return missing_permissions()
        ref = body.get("message_reference")
        if ref is not None:
            if not perms & Perm.READ_MESSAGE_HISTORY:
                return error_response(400, 160002, "Cannot reply without permission to read message history")
            if int(ref["message_id"]) not in self.messages and ref.get("fail_if_not_exists", True):
                return json_response(
                    {
                        "message": "Invalid Form Body",
                        "code": 50035,
                        "errors": {
                            "message_reference": {
                                "_errors": [{"code": "REPLIES_UNKNOWN_MESSAGE", "message": "Unknown message"}]
                            }
                        },
                    },
                    400,
                )
        return None

    def _without_embeds_unless_allowed(self, cid: int, body: Json) -> Json:
        """Without Embed Links Discord posts the message and silently drops its embeds."""
        if body.get("embeds") and not self.permissions_in(self.bot, cid) & Perm.EMBED_LINKS:
            return {**body, "embeds": []}
        return body

    def _reject(self, problems: list[str]) -> web.Response:
        self.violations.extend(problems)
        return json_response(
            {
                "message": "Invalid Form Body",
                "code": 50035,
                "errors": {"_errors": [{"message": m} for m in problems]},
            },
            400,
        )

    def _bot_message(
        self, cid: int, body: Json, files: Sequence[Upload], *, flags: int = 0, webhook: bool = False
    ) -> Json:
        mid = p.snowflake()
        ref = body.get("message_reference")
        referenced = None
        guild_id = None if cid in self.dms else self.guild_id
        if ref is not None:
            referenced = self.messages.get(int(ref["message_id"]))
            ref = {"message_id": str(ref["message_id"]), "channel_id": str(cid)}
            if guild_id is not None:
                ref["guild_id"] = str(guild_id)
        msg = p.message(
            mid,
            cid,
            self.bot.user,
            str(body.get("content") or ""),
            guild_id=guild_id,
            member_payload=None if webhook or guild_id is None else self.member_payload(self.bot),
            attachments=self._attachments_from(cid, body.get("attachments"), files, existing=[]),
            embeds=body.get("embeds") or [],
            components=body.get("components") or [],
            reference=ref,
            referenced_message=referenced,
            flags=int(body.get("flags") or 0) | flags,
            webhook_id=self.app_id if webhook else None,
        )
        msg["allowed_mentions_sent"] = body.get("allowed_mentions")
        return msg

    def _attachments_from(
        self, cid: int, meta: Any, files: Sequence[Upload], *, existing: list[Json]
    ) -> list[Json]:
        kept: list[Json] = []
        new_by_index: dict[int, Json] = {}
        for item in meta or []:
            match = next((a for a in existing if a["id"] == str(item.get("id"))), None)
            if match is not None:
                kept.append(match)
            else:
                new_by_index[int(item["id"])] = item
        if meta is None:
            kept = list(existing)
        for index, upload in enumerate(files):
            name = new_by_index.get(index, {}).get("filename") or upload.filename
            kept.append(self.host_file(cid, name, upload.data))
        return kept

    def host_file(self, cid: int, filename: str, data: bytes) -> Json:
        aid = p.snowflake()
        path = f"/attachments/{cid}/{aid}/{filename}"
        self.cdn[path] = data
        ctype = mimetypes.guess_type(filename)[0]
        if ctype is not None and ctype.startswith("text/"):
            ctype += "; charset=utf-8"
        return p.attachment(aid, filename, len(data), self.base_url + path, ctype)

    async def _store_and_echo(self, msg: Json, *, echo: bool = True) -> None:
        mid, cid = int(msg["id"]), int(msg["channel_id"])
        self.messages[mid] = msg
        if not int(msg.get("flags", 0)) & EPHEMERAL:
            self.history.setdefault(cid, []).append(mid)
            if echo:
                await self.dispatch("MESSAGE_CREATE", self._public(msg))

    @staticmethod
    def _public(msg: Json) -> Json:
        return {k: v for k, v in msg.items() if k != "allowed_mentions_sent"}

    async def _history(self, request: web.Request) -> web.Response:
        cid = int(request.match_info["channel"])
        if not self._exists(cid):
            return error_response(404, 10003, "Unknown Channel")
        perms = self.permissions_in(self.bot, cid)
        if not perms & Perm.VIEW_CHANNEL:
            return missing_access()
        if not perms & Perm.READ_MESSAGE_HISTORY:
            return json_response([])  # Discord answers an empty page, not an error
        limit = min(int(request.query.get("limit", "50")), 100)
        # Pages are in id order whatever the order the messages were made in here.
        ids = sorted(i for i in self.history.get(cid, []) if i in self.messages)
        if "before" in request.query:
            ids = [i for i in ids if i < int(request.query["before"])]
        if "after" in request.query:
            ids = [i for i in ids if i > int(request.query["after"])]
            ids = ids[:limit]
        ids = ids[-limit:]
        return json_response([self._public(self.messages[i]) for i in reversed(ids)])

    def _lookup(self, request: web.Request) -> Json | None:
        msg = self.messages.get(int(request.match_info["message"]))
        if msg is None or msg["channel_id"] != request.match_info["channel"]:
            return None
        return msg

    async def _get_message(self, request: web.Request) -> web.Response:
        cid = int(request.match_info["channel"])
        if not self._exists(cid):
            return error_response(404, 10003, "Unknown Channel")
        perms = self.permissions_in(self.bot, cid)
        if not perms & Perm.VIEW_CHANNEL:
            return missing_access()
        if not perms & Perm.READ_MESSAGE_HISTORY:
            return missing_permissions()
        msg = self._lookup(request)
        if msg is None or int(msg.get("flags", 0)) & EPHEMERAL:
            return error_response(404, 10008, "Unknown Message")
        return json_response(self._public(msg))

    async def _edit_message(self, request: web.Request) -> web.Response:
        cid = int(request.match_info["channel"])
        if not self._exists(cid):
            return error_response(404, 10003, "Unknown Channel")
        if not self.permissions_in(self.bot, cid) & Perm.VIEW_CHANNEL:
            return missing_access()
        msg = self._lookup(request)
        if msg is None:
            return error_response(404, 10008, "Unknown Message")
        if int(msg["author"]["id"]) != self.bot.id:
            return error_response(403, 50005, "Cannot edit a message authored by another user")
        rec: Request = request[RECORD]
        if isinstance(rec.body, dict):
            rec.body = self._without_embeds_unless_allowed(cid, rec.body)
        return await self._apply_edit(msg, rec)

    async def _apply_edit(self, msg: Json, rec: Request) -> web.Response:
        body: Json = rec.body or {}
        merged = {**msg, **{k: v for k, v in body.items() if k in ("content", "embeds", "components")}}
        problems = message_violations(merged, rec.files, creating=False)
        if problems:
            return self._reject(problems)
        for key in ("content", "embeds", "components"):
            if key in body:
                msg[key] = body[key] if body[key] is not None else ([] if key != "content" else "")
        if "flags" in body and body["flags"] is not None:
            msg["flags"] = (int(msg.get("flags", 0)) & (EPHEMERAL)) | int(body["flags"])
        msg["flags"] = int(msg.get("flags", 0)) & ~LOADING
        if "attachments" in body or rec.files:
            msg["attachments"] = self._attachments_from(
                int(msg["channel_id"]), body.get("attachments"), rec.files, existing=msg["attachments"]
            )
        if "allowed_mentions" in body:
            msg["allowed_mentions_sent"] = body["allowed_mentions"]
        msg["edited_timestamp"] = p.iso_now()
        if not int(msg.get("flags", 0)) & EPHEMERAL:
            await self.dispatch("MESSAGE_UPDATE", self._public(msg))
        return json_response(self._public(msg))

    async def _delete_message(self, request: web.Request) -> web.Response:
        msg = self._lookup(request)
        if msg is None:
            return error_response(404, 10008, "Unknown Message")
        await self._remove(msg)
        return web.Response(status=204)

    async def _remove(self, msg: Json) -> None:
        del self.messages[int(msg["id"])]
        if not int(msg.get("flags", 0)) & EPHEMERAL:
            payload = {"id": msg["id"], "channel_id": msg["channel_id"], "guild_id": str(self.guild_id)}
            await self.dispatch("MESSAGE_DELETE", payload)

    async def _cdn(self, request: web.Request) -> web.Response:
        data = self.cdn.get(request.path)
        if data is None:
            return web.Response(status=404, text="not found")
        return web.Response(body=data, headers={"Content-Type": "application/octet-stream"})

    # ---------------------------------------------------------- interactions
    def _interaction(self, request: web.Request) -> Interaction | None:
        if "interaction" in request.match_info:
            inter = self.interactions.get(int(request.match_info["interaction"]))
            if inter is None or inter.token != request.match_info["token"]:
                return None
            return inter
        if request.match_info["app"] != str(self.app_id):
            return None
        return next((i for i in self.interactions.values() if i.token == request.match_info["token"]), None)

    async def _callback(self, request: web.Request) -> web.Response:
        inter = self._interaction(request)
        if inter is None:
            return error_response(404, 10062, "Unknown interaction")
        if inter.callbacks:
            return error_response(400, 40060, "Interaction has already been acknowledged.")
        if asyncio.get_running_loop().time() - inter.created > self.ack_window:
            # Discord forgets an interaction nobody acknowledged within its window.
            inter.expired = True
            return error_response(404, 10062, "Unknown interaction")
        rec: Request = request[RECORD]
        body: Json = rec.body or {}
        inter.callbacks.append(body)
        ctype = int(body.get("type", 0))
        data: Json = body.get("data") or {}
        flags = int(data.get("flags") or 0)
        message: Json | None = None
        if ctype in (4, 5):
            if ctype == 4:
                problems = message_violations(data, rec.files, creating=True)
                if problems:
                    inter.callbacks.clear()
                    return self._reject(problems)
            message = self._bot_message(
                inter.channel_id, data, rec.files, flags=LOADING if ctype == 5 else 0, webhook=False
            )
            message["interaction_metadata"] = {
                "id": str(inter.id),
                "type": inter.payload["type"],
                "user": (inter.payload.get("member") or {}).get("user") or inter.payload["user"],
            }
            inter.original_id = int(message["id"])
            await self._store_and_echo(message, echo=ctype == 4)
        elif ctype in (6, 7):
            target = inter.payload.get("message")
            if target is None:
                return error_response(400, 50035, "callback type 6/7 needs a component interaction")
            inter.original_id = int(target["id"])
            message = self.messages.get(inter.original_id)
            if ctype == 7 and message is not None:
                edit = Request("PATCH", "callback_update", "", {}, {}, data, rec.files)
                resp = await self._apply_edit(message, edit)
                if resp.status != 200:
                    inter.callbacks.clear()
                    return resp
        ephemeral = bool(flags & EPHEMERAL)
        return json_response(
            p.callback_response(
                inter.id, ctype, self._public(message) if message else None, ephemeral=ephemeral
            )
        )

    async def _followup(self, request: web.Request) -> web.Response:
        inter = self._interaction(request)
        if inter is None:
            return error_response(404, 10015, "Unknown Webhook")
        rec: Request = request[RECORD]
        if not inter.callbacks:
            if not inter.expired:
                self.violations.append("follow-up sent before the interaction was acknowledged")
            return error_response(404, 10015, "Unknown Webhook")
        problems = message_violations(rec.body or {}, rec.files, creating=True)
        if problems:
            return self._reject(problems)
        loading = self.messages.get(inter.original_id or 0)
        if loading is not None and int(loading.get("flags", 0)) & LOADING:
            # The first follow-up after a "thinking" deferral fills that message in (keeping the
            # deferral's visibility) rather than posting a new one, as on Discord.
            body = {k: v for k, v in (rec.body or {}).items() if k != "flags"}
            return await self._apply_edit(
                loading, Request("POST", "followup_fill", "", {}, {}, body, rec.files)
            )
        msg = self._bot_message(inter.channel_id, rec.body or {}, rec.files, webhook=True)
        inter.followup_ids.append(int(msg["id"]))
        await self._store_and_echo(msg)
        return json_response(self._public(msg))

    def _webhook_target(self, request: web.Request) -> Json | None:
        inter = self._interaction(request)
        if inter is None:
            return None
        ref = request.match_info["message"]
        mid = inter.original_id if ref == "@original" else int(ref)
        if mid is None or (ref != "@original" and mid not in inter.followup_ids):
            return None
        return self.messages.get(mid)

    async def _webhook_get(self, request: web.Request) -> web.Response:
        msg = self._webhook_target(request)
        if msg is None:
            return error_response(404, 10008, "Unknown Message")
        return json_response(self._public(msg))

    async def _webhook_edit(self, request: web.Request) -> web.Response:
        msg = self._webhook_target(request)
        if msg is None:
            return error_response(404, 10008, "Unknown Message")
        return await self._apply_edit(msg, request[RECORD])

    async def _webhook_delete(self, request: web.Request) -> web.Response:
        msg = self._webhook_target(request)
        if msg is None:
            return error_response(404, 10008, "Unknown Message")
        await self._remove(msg)
        return web.Response(status=204)

    # --------------------------------------------------------------- gateway
    async def _send(self, ws: web.WebSocketResponse, frame: Json) -> None:
        try:
            await ws.send_str(json.dumps(frame))
        except (ConnectionError, RuntimeError):
            if self._ws is ws:
                self._ws = None

    async def dispatch(self, name: str, data: Json) -> None:
        """Send a DISPATCH event; it is kept for replay after a RESUME, like Discord does. An event
        of an intent the session did not ask for is not sent at all."""
        needed = intent_of(name, data)
        if needed and self.identifies and not self.intents & needed:
            return
        async with self._send_lock:
            event = _Event(len(self.events) + 1, name, data)
            self.events.append(event)
            if self._ws is not None:
                await self._send(self._ws, {"op": 0, "s": event.seq, "t": name, "d": data})
        await self._notify()

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        self._sockets.add(ws)
        self.connections += 1
        beats = [asyncio.get_running_loop().time()]
        watchdog = asyncio.create_task(self._watch_heartbeats(ws, beats))
        try:
            await self._send(ws, {"op": 10, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for msg in ws:
                if msg.type != WSMsgType.TEXT:
                    continue
                frame = json.loads(msg.data)
                op, d = frame.get("op"), frame.get("d")
                if op == 1:
                    self.heartbeats += 1
                    beats[0] = asyncio.get_running_loop().time()
                    async with self._send_lock:
                        await self._send(ws, {"op": 11})
                elif op == 2:
                    await self._identify(ws, d)
                elif op == 6:
                    await self._resume(ws, d)
                elif op == 8:
                    chunk = {
                        "guild_id": str(self.guild_id),
                        "members": [self.member_payload(m) for m in self.people.values()],
                        "chunk_index": 0,
                        "chunk_count": 1,
                        "nonce": d.get("nonce"),
                    }
                    await self.dispatch("GUILD_MEMBERS_CHUNK", chunk)
        finally:
            watchdog.cancel()
            self._sockets.discard(ws)
            if self._ws is ws:
                self._ws = None
            await self._notify()
        return ws

    async def _watch_heartbeats(self, ws: web.WebSocketResponse, beats: list[float]) -> None:
        """Close a connection whose heartbeats stopped (4009: the session timed out and is gone)."""
        loop = asyncio.get_running_loop()
        while not ws.closed:
            await asyncio.sleep(min(self.heartbeat_timeout / 4, 1.0))
            if loop.time() - beats[0] > self.heartbeat_timeout:
                if self._ws is ws:
                    self._ws = None
                    self.session_id = "timed-out"
                await self._close(ws, 4009, "Session timed out.")
                return

    async def _close(self, ws: web.WebSocketResponse, code: int, reason: str) -> None:
        self.close_codes.append(code)
        await ws.close(code=code, message=reason.encode())

    async def _identify(self, ws: web.WebSocketResponse, d: Json) -> None:
        if d.get("token") != self.token:
            await self._close(ws, 4004, "Authentication failed.")
            return
        if int(d.get("intents", 0)) & PRIVILEGED_INTENTS & ~self.privileged_intents:
            await self._close(ws, 4014, "Disallowed intent(s).")
            return
        async with self._send_lock:
            self.identifies += 1
            self.intents = int(d.get("intents", 0))
            self.session_id = secrets.token_hex(16)
            self.events = []
            self._ws = ws
        await self.dispatch(
            "READY", p.ready(self.bot.user, self.session_id, self.gateway_url, [self.guild_id], self.app_id)
        )
        await self.dispatch("GUILD_CREATE", self.guild_payload())

    async def _resume(self, ws: web.WebSocketResponse, d: Json) -> None:
        if d.get("token") != self.token:
            await self._close(ws, 4004, "Authentication failed.")
            return
        if d.get("session_id") != self.session_id:
            await self._send(ws, {"op": 9, "d": False})
            return
        async with self._send_lock:
            self.resumes += 1
            seq = int(d.get("seq") or 0)
            for event in self.events:
                if event.seq > seq:
                    await self._send(ws, {"op": 0, "s": event.seq, "t": event.name, "d": event.data})
            self._ws = ws
        await self.dispatch("RESUMED", {})

    async def drop_connection(self, code: int = 4000) -> None:
        """Close the bot's gateway socket; events dispatched until it resumes are buffered."""
        ws = self._ws
        self._ws = None
        if ws is not None:
            await ws.close(code=code)

    async def send_reconnect(self) -> None:
        """Op 7: Discord asks the client to reconnect and resume."""
        async with self._send_lock:
            ws = self._ws
            self._ws = None
            if ws is not None:
                await self._send(ws, {"op": 7, "d": None})

    async def reset_token(self, new_token: str = "reset-token") -> None:
        """The owner resets the bot's token: the session ends (4004) and the old token is refused."""
        self.token = new_token
        ws, self._ws = self._ws, None
        if ws is not None:
            await self._close(ws, 4004, "Authentication failed.")

    async def invalidate_session(self) -> None:
        """Op 9 with d=false: the session is gone; the client must IDENTIFY again."""
        async with self._send_lock:
            ws = self._ws
            self._ws = None
            self.session_id = "invalidated"
            if ws is not None:
                await self._send(ws, {"op": 9, "d": False})

    # ---------------------------------------------------------- user actions
    def _visible(self, msg: Json) -> Json:
        """What the bot receives: without the message-content intent, content is stripped (as on Discord)."""
        mentioned = any(u["id"] == str(self.bot.id) for u in msg.get("mentions", []))
        if self.intents & MESSAGE_CONTENT_INTENT or mentioned or "guild_id" not in msg:
            return msg
        return {**msg, "content": "", "embeds": [], "attachments": [], "components": []}

    async def user_sends(
        self,
        author: Person,
        channel_id: int,
        content: str = "",
        *,
        files: Iterable[tuple[str, bytes]] = (),
        reply_to: Json | None = None,
        mention_bot: bool = False,
        message_id: int | None = None,
        dispatch: bool = True,
    ) -> Json:
        """A member posts a message (optionally with files); returns the message payload."""
        mid = message_id or p.snowflake()
        mentions = [self.bot.user] if mention_bot else []
        if mention_bot:
            content = f"<@{self.bot.id}> {content}"
        in_dm = channel_id in self.dms
        msg = p.message(
            mid,
            channel_id,
            author.user,
            content,
            guild_id=None if in_dm else self.guild_id,
            member_payload=None if in_dm else self.member_payload(author),
            attachments=[self.host_file(channel_id, name, data) for name, data in files],
            mentions=mentions,
            mention_everyone="@everyone" in content,
            reference=(
                {"message_id": reply_to["id"], "channel_id": str(channel_id), "guild_id": str(self.guild_id)}
                if reply_to
                else None
            ),
            referenced_message=reply_to,
        )
        self.messages[mid] = msg
        self.history.setdefault(channel_id, []).append(mid)
        if channel_id in self.threads:
            self.threads[channel_id]["message_count"] += 1
        if dispatch:
            await self.dispatch("MESSAGE_CREATE", self._visible(msg))
        return msg

    async def user_edits(self, msg: Json, content: str) -> Json:
        msg["content"] = content
        msg["edited_timestamp"] = p.iso_now()
        await self.dispatch("MESSAGE_UPDATE", self._visible(msg))
        return msg

    async def redeliver(self, msg: Json) -> None:
        """Dispatch MESSAGE_CREATE again for an existing message (Discord may deliver an event twice)."""
        await self.dispatch("MESSAGE_CREATE", self._visible(msg))

    async def user_deletes(self, msg: Json) -> None:
        await self._remove(msg)

    async def create_thread(
        self, owner: Person, parent_id: int, name: str, *, thread_id: int | None = None
    ) -> int:
        data = p.thread(thread_id or p.snowflake(), self.guild_id, parent_id, owner.id, name)
        tid = self._add_thread(data)
        await self.dispatch("THREAD_CREATE", {**data, "newly_created": True})
        return tid

    async def create_forum_post(
        self,
        author: Person,
        title: str,
        content: str,
        *,
        files: Iterable[tuple[str, bytes]] = (),
        message_first: bool = False,
        forum_id: int | None = None,
    ) -> Json:
        """A forum post: THREAD_CREATE + the starter MESSAGE_CREATE (same id), in either order."""
        tid = p.snowflake()
        forum = forum_id or self.forum
        if message_first:
            # The thread exists on Discord already; only the gateway events come in the other order.
            self._add_thread(p.thread(tid, self.guild_id, forum, author.id, title))
            msg = await self.user_sends(author, tid, content, files=files, message_id=tid)
            await self.create_thread(author, forum, title, thread_id=tid)
        else:
            await self.create_thread(author, forum, title, thread_id=tid)
            msg = await self.user_sends(author, tid, content, files=files, message_id=tid)
        return msg

    def _channel_for_interaction(self, channel_id: int) -> Json:
        data = dict(self.channel_payload(channel_id))
        data["permissions"] = str(self.permissions_in(self.bot, channel_id))
        return data

    def _new_interaction(
        self, type_: int, author: Person, channel_id: int, data: Json, **extra: Any
    ) -> Interaction:
        iid = p.snowflake()
        token = secrets.token_urlsafe(24)
        payload = p.interaction(
            iid,
            token,
            self.app_id,
            type_,
            guild_id=self.guild_id,
            channel=self._channel_for_interaction(channel_id),
            member_payload=self.member_payload(author, with_permissions=True),
            data=data,
            app_permissions=self.permissions_in(self.bot, channel_id),
            **extra,
        )
        return self._register(Interaction(iid, token, payload, channel_id))

    def _register(self, inter: Interaction) -> Interaction:
        inter.created = asyncio.get_running_loop().time()
        self.interactions[inter.id] = inter
        return inter

    async def dm_slash_command(
        self, author: Person, name: str, options: dict[str, Any] | None = None
    ) -> Interaction:
        """A member runs `/name` in their DM with the bot (string/int/bool options only). Discord
        offers there only global commands that allow the bot-DM context."""
        cmd, scope = self.command(name)
        contexts = cmd.get("contexts")
        if (
            scope is not None
            or cmd.get("dm_permission") is False
            or (contexts is not None and 1 not in contexts)
        ):
            raise AssertionError(f"Discord does not offer /{name} in a DM")
        declared = {o["name"]: o["type"] for o in cmd.get("options", [])}
        opts = [{"name": k, "type": declared[k], "value": v} for k, v in (options or {}).items()]
        cid = self.open_dm(author)
        payload = p.dm_interaction(
            p.snowflake(),
            secrets.token_urlsafe(24),
            self.app_id,
            2,
            channel=self.dms[cid],
            user_payload=author.user,
            data=p.slash_data(int(cmd["id"]), name, opts, guild_id=None),
        )
        inter = self._register(Interaction(int(payload["id"]), payload["token"], payload, cid))
        await self.dispatch("INTERACTION_CREATE", payload)
        return inter

    async def slash_command(
        self,
        author: Person,
        channel_id: int,
        name: str,
        options: dict[str, Any] | None = None,
        *,
        files: dict[str, tuple[str, bytes]] | None = None,
        locale: str = "en-US",
        autocomplete: str | None = None,
    ) -> Interaction:
        """A member runs `/name` with string/int/bool options and attachment options (name → file).

        With `autocomplete="option"` it is instead the autocomplete request (interaction type 4)
        Discord sends while the member types that option."""
        cmd, scope = self.command(name)
        declared = {o["name"]: o["type"] for o in cmd.get("options", [])}
        types = {str: 3, bool: 5, int: 4, float: 10}
        opts: list[Json] = []
        for key, value in (options or {}).items():
            if key not in declared:
                raise AssertionError(f"/{name} has no option {key!r} (it has {sorted(declared)})")
            option: Json = {"name": key, "type": declared[key], "value": value}
            if key == autocomplete:
                option["focused"] = True
            elif declared[key] != types[type(value)] and not (declared[key] == 10 and type(value) is int):
                raise AssertionError(f"/{name} {key}: option type {declared[key]}, value {value!r}")
            opts.append(option)
        resolved: Json = {}
        for opt_name, (filename, data) in (files or {}).items():
            att = self.host_file(channel_id, filename, data)
            resolved.setdefault("attachments", {})[att["id"]] = att
            opts.append({"name": opt_name, "type": 11, "value": att["id"]})
        data_ = p.slash_data(int(cmd["id"]), name, opts, guild_id=scope, resolved=resolved)
        inter = self._new_interaction(4 if autocomplete else 2, author, channel_id, data_, locale=locale)
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    async def message_command(
        self, author: Person, target: Json, name: str, *, locale: str = "en-US"
    ) -> Interaction:
        """A member uses the message context menu `name` on `target`."""
        cmd, scope = self.command(name)
        data = p.message_command_data(int(cmd["id"]), name, self._public(target), guild_id=scope)
        inter = self._new_interaction(2, author, int(target["channel_id"]), data, locale=locale)
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    async def click(
        self, author: Person, message: Json, custom_id: str, *, locale: str = "en-US"
    ) -> Interaction:
        """A member clicks the button `custom_id` on `message` (a message the bot sent)."""
        return await self._use_component(author, message, custom_id, 2, None, locale)

    async def choose(
        self, author: Person, message: Json, custom_id: str, values: list[str], *, locale: str = "en-US"
    ) -> Interaction:
        """A member picks `values` in the string select `custom_id` on `message`; Discord sends
        only values that the select offers."""
        current = self.messages.get(int(message["id"]), message)
        offered = [
            o["value"]
            for row in current.get("components", [])
            for c in row.get("components", [])
            if c.get("custom_id") == custom_id and c.get("type") == 3
            for o in c.get("options", [])
        ]
        if not set(values) <= set(offered):
            raise AssertionError(
                f"select {custom_id!r} on message {message['id']} offers {offered}, not {values}"
            )
        return await self._use_component(author, message, custom_id, 3, values, locale)

    async def _use_component(
        self,
        author: Person,
        message: Json,
        custom_id: str,
        component_type: int,
        values: list[str] | None,
        locale: str,
    ) -> Interaction:
        current = self.messages.get(int(message["id"]), message)
        ids = [c.get("custom_id") for row in current.get("components", []) for c in row.get("components", [])]
        if custom_id not in ids:
            raise AssertionError(f"no component {custom_id!r} on message {message['id']}: {ids}")
        data = p.component_data(custom_id, component_type, values)
        inter = self._new_interaction(
            3, author, int(current["channel_id"]), data, locale=locale, message_payload=self._public(current)
        )
        await self.dispatch("INTERACTION_CREATE", inter.payload)
        return inter

    async def wait_responded(self, inter: Interaction, *, timeout: float = 15.0) -> Json:
        """Wait for the bot's callback to `inter`; returns the callback body ({"type", "data"})."""
        await self.wait_for(
            lambda: inter.callbacks, timeout=timeout, what=f"a response to interaction {inter.id}"
        )
        return inter.callbacks[0]

    async def shown(self, inter: Interaction) -> Json:
        """The message the interaction ended up showing (a deferred response once it is filled in),
        after the bot has stopped talking."""
        await self.wait_responded(inter)
        await self.wait_for(
            lambda: inter.original_id is not None and not self.message(inter.original_id)["flags"] & LOADING,
            what="the deferred response to be filled in",
        )
        await self.settle()
        assert inter.original_id is not None
        return self.message(inter.original_id)
