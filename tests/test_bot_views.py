from __future__ import annotations

import pytest

from bot.views import ButtonAction, ButtonLabels, OomButton, ReplyButtons, decode

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
