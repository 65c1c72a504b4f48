from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from bot.views import (
    ButtonAction,
    ButtonLabels,
    LanguageChoice,
    OomButton,
    OomLanguageMenu,
    ReplyButtons,
    decode,
)

LABELS = ButtonLabels(next_step="Still OOM → next step", language="日本語 / English", delete="Delete")


@pytest.mark.parametrize(
    "action",
    [
        ButtonAction("step", "2"),
        ButtonAction("step", "99"),
        ButtonAction("lang", "ja"),
        ButtonAction("lang", "en"),
        ButtonAction("up"),
        ButtonAction("down"),
        ButtonAction("del"),
    ],
)
def test_custom_ids_round_trip_and_fit_discord(action: ButtonAction) -> None:
    custom_id = action.encode()
    assert len(custom_id) <= 100
    assert decode(custom_id) == action


@pytest.mark.parametrize(
    "custom_id",
    [
        "",
        "oom:",
        "oom:step",
        "oom:step:0",
        "oom:step:100",
        "oom:step:x",
        "oom:lang:fr",
        "oom:up:1",
        "oom:del:2",
        "other:up",
        "oom:up ",
        "oom:step:2:3",
        "xoom:up",
    ],
)
def test_foreign_or_malformed_ids_are_refused(custom_id: str) -> None:
    assert decode(custom_id) is None


def _ids(view: object) -> list[str]:
    return [item.custom_id for item in view.children]  # type: ignore[attr-defined]


async def test_view_of_a_public_reply_with_more_steps() -> None:
    view = ReplyButtons(LABELS, step=1, has_next=True, lang="ja", deletable=True).view()
    assert view.timeout is None and view.is_persistent()
    assert _ids(view) == ["oom:step:2", "oom:lang:en", "oom:up", "oom:down", "oom:del"]
    assert all(isinstance(item, OomButton) for item in view.children)
    labels = [item.item.label for item in view.children]  # type: ignore[attr-defined]
    assert labels[0] == LABELS.next_step and labels[1] == LABELS.language


async def test_view_of_the_last_step_in_english_without_delete() -> None:
    view = ReplyButtons(LABELS, step=3, has_next=False, lang="en", deletable=False).view()
    assert _ids(view) == ["oom:lang:ja", "oom:up", "oom:down"]


async def test_every_built_id_matches_the_dynamic_template() -> None:
    view = ReplyButtons(LABELS, step=7, has_next=True, lang="en", deletable=True).view()
    for item in view.children:
        assert OomButton.__discord_ui_compiled_template__.fullmatch(item.custom_id)  # type: ignore[attr-defined]


MENU = (
    LanguageChoice("en", "English", False),
    LanguageChoice("ja", "日本語", True),
    LanguageChoice("xx", "Xx", False),
)


def test_a_language_is_one_of_the_catalogues(monkeypatch: pytest.MonkeyPatch) -> None:
    import locales

    assert decode("oom:lang:xx") is None
    monkeypatch.setattr(locales, "LANGUAGES", ("en", "ja", "xx"))
    assert decode("oom:lang:xx") == ButtonAction("lang", "xx")
    assert decode("oom:lang:fr") is None


async def test_a_menu_replaces_the_language_button_in_a_row_of_its_own() -> None:
    buttons = ReplyButtons(LABELS, step=1, has_next=True, lang="ja", deletable=True, menu=MENU)
    view = buttons.view()
    assert _ids(view) == ["oom:step:2", "oom:up", "oom:down", "oom:del", "oom:language"]
    menu = view.children[-1]
    assert isinstance(menu, OomLanguageMenu)
    assert OomLanguageMenu.__discord_ui_compiled_template__.fullmatch(menu.custom_id)  # type: ignore[attr-defined]
    assert not OomButton.__discord_ui_compiled_template__.fullmatch(menu.custom_id)  # type: ignore[attr-defined]
    options = menu.item.options
    assert [(o.value, o.label, o.default) for o in options] == [
        ("en", "English", False),
        ("ja", "日本語", True),
        ("xx", "Xx", False),
    ]
    assert json.dumps(buttons.components()) == json.dumps(view.to_components())
    assert [len(row["components"]) for row in buttons.components()] == [4, 1]


class _Picked:
    def __init__(self) -> None:
        self.actions: list[ButtonAction] = []

    async def on_oom_button(self, interaction: object, action: ButtonAction) -> None:
        self.actions.append(action)


@pytest.mark.parametrize(("values", "routed"), [(["xx"], ["xx"]), (["fr"], []), ([], [])])
async def test_a_choice_in_the_menu_is_a_click_on_that_languages_button(
    monkeypatch: pytest.MonkeyPatch, values: list[str], routed: list[str]
) -> None:
    import locales

    monkeypatch.setattr(locales, "LANGUAGES", ("en", "ja", "xx"))
    menu = OomLanguageMenu(MENU)
    monkeypatch.setattr(type(menu.item), "values", property(lambda self: values))
    client = _Picked()
    await menu.callback(SimpleNamespace(client=client))  # type: ignore[arg-type]
    assert client.actions == [ButtonAction("lang", code) for code in routed]
