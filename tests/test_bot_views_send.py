"""A new reply sends its buttons as prebuilt components (`ReplyButtons.for_send`) instead of a
discord.py `View`: the payload must be the one the view would have produced, byte for byte, and
discord.py must neither store it nor refuse it."""

from __future__ import annotations

import json
from typing import Any

import discord
import pytest
from discord.http import handle_message_parameters
from hypothesis import given
from hypothesis import strategies as st

from bot.views import ButtonLabels, ReplyButtons, SentComponents

labels_ = st.builds(
    ButtonLabels,
    next_step=st.text(max_size=80),
    language=st.text(max_size=80),
    delete=st.text(max_size=80),
    whole_file=st.text(max_size=80),
)
buttons_ = st.builds(
    ReplyButtons,
    labels=labels_,
    step=st.integers(1, 98),
    has_next=st.booleans(),
    lang=st.sampled_from(["ja", "en"]),
    deletable=st.booleans(),
    whole_file=st.booleans(),
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


@given(buttons_)
async def test_prebuilt_components_are_what_the_view_gives(buttons: ReplyButtons) -> None:
    assert _json(buttons.components()) == _json(buttons.view().to_components())


@pytest.mark.parametrize("deletable", [True, False])
async def test_the_send_payload_is_the_one_the_view_gives(deletable: bool) -> None:
    labels = ButtonLabels("Next", "日本語 / English", "Delete")
    buttons = ReplyButtons(labels, step=2, has_next=True, lang="en", deletable=deletable)

    def payload(view: discord.ui.View) -> Any:
        with handle_message_parameters(content="hi", nonce=1, view=view) as params:
            return params.payload

    assert _json(payload(buttons.for_send())) == _json(payload(buttons.view()))


async def test_discord_py_does_not_store_the_stand_in() -> None:
    sent = ReplyButtons(
        ButtonLabels("a", "b", "c"), step=1, has_next=False, lang="ja", deletable=True
    ).for_send()
    assert isinstance(sent, SentComponents)
    assert sent.__discord_ui_view__  # accepted by Messageable.send
    # The condition under which discord.py stores a sent view (abc.Messageable.send).
    assert not (sent and not sent.is_finished() and sent.is_dispatchable())
    assert not sent.has_components_v2()
