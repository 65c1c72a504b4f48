"""Follow-up buttons that survive restarts: the custom_id carries the action, the store the inputs.

custom_id grammar (≤ 100 characters, matched by `OomButton`'s template):
`oom:step:<n>` render ladder step n · `oom:lang:<ja|en>` re-render in that language ·
`oom:up` / `oom:down` feedback · `oom:del` delete the reply.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

_TEMPLATE = r"oom:(?P<action>step|lang|up|down|del)(?::(?P<arg>[a-z0-9]{1,6}))?"
_PATTERN = re.compile(_TEMPLATE)


@dataclass(frozen=True)
class ButtonAction:
    action: str  # "step", "lang", "up", "down", "del"
    arg: str = ""

    def encode(self) -> str:
        return f"oom:{self.action}:{self.arg}" if self.arg else f"oom:{self.action}"


def decode(custom_id: str) -> ButtonAction | None:
    match = _PATTERN.fullmatch(custom_id)
    if match is None:
        return None
    action = ButtonAction(match["action"], match["arg"] or "")
    valid = {
        "step": action.arg.isdigit() and 1 <= int(action.arg) <= 99,
        "lang": action.arg in ("ja", "en"),
    }.get(action.action, action.arg == "")
    return action if valid else None


ButtonHandler = Callable[[discord.Interaction, ButtonAction], Awaitable[None]]


class OomButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=_TEMPLATE):
    """Every follow-up button; the click goes to the bot's `on_oom_button` (registered at setup)."""

    def __init__(
        self, action: ButtonAction, *, label: str = "", style: discord.ButtonStyle | None = None
    ) -> None:
        super().__init__(
            discord.ui.Button(
                label=label or None,
                style=style or discord.ButtonStyle.secondary,
                custom_id=action.encode(),
                emoji={"up": "👍", "down": "👎", "del": "🗑️"}.get(action.action),
            )
        )
        self.action = action

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> OomButton:
        action = decode(match.group(0))
        if action is None:
            raise ValueError("unknown oomcheck button")
        return cls(action)

    async def callback(self, interaction: discord.Interaction) -> None:
        handler: ButtonHandler | None = getattr(interaction.client, "on_oom_button", None)
        if handler is not None:
            await handler(interaction, self.action)


@dataclass(frozen=True)
class ButtonLabels:
    next_step: str
    language: str
    delete: str


def build_view(
    *, labels: ButtonLabels, step: int, has_next: bool, lang: str, deletable: bool
) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if has_next:
        view.add_item(
            OomButton(
                ButtonAction("step", str(step + 1)), label=labels.next_step, style=discord.ButtonStyle.primary
            )
        )
    view.add_item(OomButton(ButtonAction("lang", "en" if lang == "ja" else "ja"), label=labels.language))
    view.add_item(OomButton(ButtonAction("up")))
    view.add_item(OomButton(ButtonAction("down")))
    if deletable:
        view.add_item(OomButton(ButtonAction("del"), label=labels.delete, style=discord.ButtonStyle.danger))
    return view
