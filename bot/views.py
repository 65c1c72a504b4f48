"""Follow-up buttons that survive restarts: the custom_id carries the action, the store the inputs.

custom_id grammar (≤ 100 characters, matched by `OomButton`'s template):
`oom:step:<n>` render ladder step n · `oom:lang:<language>` re-render in that language ·
`oom:up` / `oom:down` feedback · `oom:del` delete the reply · `oom:file:<n>` send the whole corrected
config of step n privately. With more than two reply languages the language button gives way to a
menu, `oom:language`, whose chosen value is the language.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, ClassVar, NamedTuple, cast

import discord

from bot.languages import reply_languages

# The emoji of each emoji-only button (and of the delete and file buttons, which have labels too).
_EMOJI = {"up": "👍", "down": "👎", "del": "🗑️", "file": "📄"}
# Discord lays out at most five buttons in a row.
_ROW = 5

_TEMPLATE = r"oom:(?P<action>step|lang|up|down|del|file)(?::(?P<arg>[a-z0-9]{1,6}))?"
_PATTERN = re.compile(_TEMPLATE)
# Not matched by `_TEMPLATE`: "lang" there must be followed by ":" or the end.
_MENU_ID = "oom:language"


@dataclass(frozen=True)
class ButtonAction:
    action: str  # "step", "lang", "up", "down", "del", "file"
    arg: str = ""

    def encode(self) -> str:
        return f"oom:{self.action}:{self.arg}" if self.arg else f"oom:{self.action}"


def decode(custom_id: str) -> ButtonAction | None:
    match = _PATTERN.fullmatch(custom_id)
    if match is None:
        return None
    action = ButtonAction(match["action"], match["arg"] or "")
    valid = {
        "step": _is_step(action.arg),
        "file": _is_step(action.arg),
        "lang": action.arg in reply_languages(),
    }.get(action.action, action.arg == "")
    return action if valid else None


def _is_step(arg: str) -> bool:
    return arg.isdigit() and 1 <= int(arg) <= 99


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
                emoji=_EMOJI.get(action.action),
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
        await _route(interaction, self.action)


async def _route(interaction: discord.Interaction, action: ButtonAction) -> None:
    handler: ButtonHandler | None = getattr(interaction.client, "on_oom_button", None)
    if handler is not None:
        await handler(interaction, action)


class LanguageChoice(NamedTuple):
    code: str
    name: str  # in the language itself
    current: bool


def _menu_select(menu: tuple[LanguageChoice, ...]) -> discord.ui.Select[Any]:
    options = [discord.SelectOption(label=c.name, value=c.code, default=c.current) for c in menu]
    return discord.ui.Select(custom_id=_MENU_ID, options=options)


class OomLanguageMenu(discord.ui.DynamicItem[discord.ui.Select[Any]], template=_MENU_ID):
    """The language menu under a reply; choosing a language is a click on that language's button."""

    def __init__(self, menu: tuple[LanguageChoice, ...] = ()) -> None:
        super().__init__(_menu_select(menu))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> OomLanguageMenu:
        return cls()

    async def callback(self, interaction: discord.Interaction) -> None:
        values = self.item.values
        # The value comes from the client: only a language of the list is taken.
        action = decode(f"oom:lang:{values[0]}") if len(values) == 1 else None
        if action is not None:
            await _route(interaction, action)


@dataclass(frozen=True)
class ButtonLabels:
    next_step: str
    language: str
    delete: str
    whole_file: str = ""


class ReplyButtons(NamedTuple):
    """The buttons under a reply, as plain values. A new reply sends their components as they are
    (`for_send`); an edit or a follow-up builds the discord.py view (`view`)."""

    labels: ButtonLabels
    step: int
    has_next: bool
    lang: str
    deletable: bool
    menu: tuple[LanguageChoice, ...] = ()  # empty: a toggle button to the other language
    whole_file: bool = False  # the reply offers its whole corrected config (sent privately on a click)

    def actions(self) -> list[tuple[ButtonAction, str, discord.ButtonStyle]]:
        """(action, label, style) of each button, left to right."""
        labels, secondary = self.labels, discord.ButtonStyle.secondary
        buttons = []
        if self.has_next:
            buttons.append(
                (ButtonAction("step", str(self.step + 1)), labels.next_step, discord.ButtonStyle.primary)
            )
        if not self.menu:
            other = next((code for code in reply_languages() if code != self.lang), self.lang)
            buttons.append((ButtonAction("lang", other), labels.language, secondary))
        buttons.append((ButtonAction("up"), "", secondary))
        buttons.append((ButtonAction("down"), "", secondary))
        if self.deletable:
            buttons.append((ButtonAction("del"), labels.delete, discord.ButtonStyle.danger))
        if self.whole_file:
            buttons.append((ButtonAction("file", str(self.step)), labels.whole_file, secondary))
        return buttons

    def view(self) -> discord.ui.View:
        view = discord.ui.View(timeout=None)
        for n, (action, label, style) in enumerate(self.actions()):
            button = OomButton(action, label=label, style=style)
            button.row = n // _ROW
            view.add_item(button)
        if self.menu:
            view.add_item(OomLanguageMenu(self.menu))  # a menu is a row's full width: the next row
        return view

    def components(self) -> list[dict[str, Any]]:
        """What `view().to_components()` gives, without building the view: the buttons five to a
        row, each laid out as discord.py lays out a `ButtonComponent`; the language menu, if any, in
        a row of its own below."""
        row: list[dict[str, Any]] = []
        for action, label, style in self.actions():
            button: dict[str, Any] = {"type": 2, "style": style.value, "disabled": False}
            if label:
                button["label"] = label
            button["custom_id"] = action.encode()
            emoji = _EMOJI.get(action.action)
            if emoji is not None:
                button["emoji"] = {"id": None, "name": emoji}
            row.append(button)
        rows = [{"type": 1, "components": row[i : i + _ROW]} for i in range(0, len(row), _ROW)]
        if self.menu:
            rows.append({"type": 1, "components": [_menu_select(self.menu).to_component_dict()]})
        return rows

    def for_send(self) -> discord.ui.View:
        """The `view=` of a new message: the components only (see `SentComponents`)."""
        return cast(discord.ui.View, SentComponents(self.components()))


class SentComponents:
    """Stands in for a `discord.ui.View` when a new message is sent. discord.py asks the view for
    its components and, after sending, stores it to route clicks, unless it is finished. Building a
    `View` of `OomButton`s costs more than the rest of the reply's payload, and storing it does
    nothing: clicks on `OomButton`s are routed by their custom_id template, registered when the bot
    starts (`add_dynamic_items`), which is how clicks after a restart reach the bot as well."""

    __discord_ui_view__: ClassVar[bool] = True

    def __init__(self, components: list[dict[str, Any]]) -> None:
        self._components = components

    def to_components(self) -> list[dict[str, Any]]:
        return self._components

    def has_components_v2(self) -> bool:
        return False

    def is_finished(self) -> bool:
        return True

    def is_dispatchable(self) -> bool:
        return False
