"""The whole corrected config is never posted in the channel: the reply shows the changed lines and
the diff, and offers the whole file through a button that sends it privately (tests/e2e clicks it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.diagnosis_port import DiagnosisEngine
from bot.inputs import Gathered, SourcedText
from bot.request import Prepared, Request
from bot.views import ButtonAction, decode
from diagnosis.render import message
from tests.bot_fakes import make_bot
from tests.conftest import EXAMPLES

CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
# A line far from the change: in the whole file, never in the excerpt or the diff.
FAR_LINE = "# far from the change: only the whole file holds this line"
SHORT = """job: extension
config:
  process:
    - type: sd_trainer
      train:
        batch_size: 1
        dtype: bf16
        gradient_checkpointing: false
      model:
        name_or_path: black-forest-labs/FLUX.1-dev
        quantize: true
"""


def _long_config() -> str:
    assert CONFIG.count("\n") > 30
    return CONFIG.replace("---\n", f"---\n{FAR_LINE}\n", 1)


async def _prepared(tmp_path: Path, text: str, lang: str) -> Prepared:
    bot = await make_bot(tmp_path, DiagnosisEngine())  # type: ignore[arg-type]
    try:
        request = Request(
            gathered=Gathered((SourcedText("config.yaml", text),)),
            guild_id=1,
            channel_id=10,
            author_id=7,
            source_id=99,
            explicit_language=lang,
        )
        return await bot.service.prepare(request, lang=lang)
    finally:
        bot.service.close()


def _public_text(prepared: Prepared) -> str:
    out = prepared.outgoing
    parts = [out.content, *(str(e.get("description", "")) for e in out.embeds)]
    return "\n".join(parts + [data.decode("utf-8") for _, data in out.files])


@pytest.mark.parametrize(
    ("lang", "label"),
    [("en", "Get the whole corrected config"), ("ja", "修正済みの設定ファイル全体を受け取る")],
)
async def test_a_long_config_is_offered_privately_never_attached(
    tmp_path: Path, lang: str, label: str
) -> None:
    text = _long_config()
    prepared = await _prepared(tmp_path, text, lang)
    public = _public_text(prepared)
    assert "gradient_checkpointing: true" in public  # the excerpt and the diff are public
    assert FAR_LINE not in public and not prepared.outgoing.files
    assert message("reply.config.whole_file_offered", lang) in public
    assert prepared.whole_config is not None
    name, data = prepared.whole_config
    assert name == "config.step1.fixed.yaml"
    assert FAR_LINE in data.decode("utf-8") and "gradient_checkpointing: true" in data.decode("utf-8")
    buttons = [b for row in prepared.buttons.components() for b in row["components"]]
    offered = [b for b in buttons if b.get("custom_id") == "oom:file:1"]
    assert len(offered) == 1 and offered[0]["label"] == label


async def test_a_short_config_has_no_whole_file_button(tmp_path: Path) -> None:
    prepared = await _prepared(tmp_path, SHORT, "en")
    assert "gradient_checkpointing: true" in _public_text(prepared)
    assert prepared.whole_config is None
    ids = [b.get("custom_id") for row in prepared.buttons.components() for b in row["components"]]
    assert not any(str(i).startswith("oom:file") for i in ids)


def test_the_file_button_names_a_ladder_step() -> None:
    assert decode("oom:file:1") == ButtonAction("file", "1")
    assert decode("oom:file:12") == ButtonAction("file", "12")
    for bad in ("oom:file", "oom:file:0", "oom:file:100", "oom:file:en"):
        assert decode(bad) is None


# Hidden in attachment names: an escape that clears the screen, bidi marks (U+061C, U+200E/F, an
# override, an isolate), a tag character, the Hangul filler and the blank Braille pattern.
_HIDDEN = "\x1b[2J\u061c\u200e\u200f\u202e\u2066\U000e0041\u3164\u2800"
_NEVER = "\x1b\u061c\u200e\u200f\u202e\u2066\U000e0041\u3164\u2800"


async def test_attachment_names_reach_the_reply_with_nothing_hidden(tmp_path: Path) -> None:
    from bot.inputs import gather_message
    from tests.bot_fakes import FakeAttachment, FakeMessage

    message = FakeMessage(
        "",
        [
            FakeAttachment(f"job{_HIDDEN}.yaml", SHORT.encode()),
            FakeAttachment(f"screen{_HIDDEN}.png", b"\x89PNG", "image/png"),
        ],
    )
    gathered = await gather_message(message, cap=65536, bot_user_id=None)  # type: ignore[arg-type]
    bot = await make_bot(tmp_path, DiagnosisEngine())  # type: ignore[arg-type]
    try:
        request = Request(gathered=gathered, guild_id=1, channel_id=10, author_id=7, source_id=99)
        prepared = await bot.service.prepare(request, lang="en")
    finally:
        bot.service.close()
    public = _public_text(prepared)
    assert "job" in public and "screen" in public  # the evidence and the note name both files
    for ch in _NEVER:
        assert ch not in public
