"""The output gate on the bot's rendering path: the engine port's reply, then `bot.send`, which every
message the bot posts is assembled by (content, embeds, attached files)."""

from __future__ import annotations

from bot.diagnosis_port import DiagnosisEngine
from bot.send import from_reply, from_text
from diagnosis.render.discord import DiscordReply, ReplyFile
from tests.conftest import EXAMPLES
from tests.test_outgate import AWS_ID, GITHUB_PAT, GOOGLE, HF, SIGNATURE
from tests.test_outgate_cli import FIXTURE, leaks


def _posted(inputs: list[str], lang: str = "en") -> str:
    """Everything the bot would post for these inputs, as one text (the files decoded)."""
    engine = DiagnosisEngine()
    report = engine.diagnose(inputs, locale=lang, gpu_vram_gib=None, sources=["message"])
    out = from_reply(engine.render(report, lang=lang, step=1))
    files = "\n".join(data.decode("utf-8") for _, data in out.files)
    return "\n".join([out.content, *(str(e) for e in out.embeds), files])


def test_the_whole_corrected_file_and_the_reply_hold_no_secret() -> None:
    posted = _posted([FIXTURE.read_text(encoding="utf-8"), (EXAMPLES / "flux_lora_24gb_oom.log").read_text()])
    assert "gradient_checkpointing: true" in posted  # the attached whole file is there
    assert leaks(posted) == []
    # The reply's count is what was replaced: intake's two and the gate's, not "1 (GitHub token)".
    assert "I found 14 (" in posted


def test_a_token_split_by_an_invisible_character_in_the_users_words() -> None:
    split = HF[:9] + "\u200b" + HF[9:]
    posted = _posted([f"After the update training got 14x slower on my 4090, token {split}"])
    assert "You wrote:" in posted
    assert HF[9:] not in posted and HF[3:9] + "\u200b" not in posted
    assert "I found 1 (Hugging Face token)" in posted


def test_a_presigned_url_in_the_quoted_error_line() -> None:
    url = (
        f"https://my-bucket.s3.amazonaws.com/x.safetensors?X-Amz-Credential={AWS_ID}%2F20240101%2F"
        f"us-east-1%2Fs3%2Faws4_request&X-Amz-Signature={SIGNATURE}"
    )
    log = (
        "Traceback (most recent call last):\n"
        '  File "/home/alice/ai-toolkit/run.py", line 90, in <module>\n'
        "    main()\n"
        f"RuntimeError: could not download {url}\n"
    )
    posted = _posted([log])
    assert "RuntimeError: could not download" in posted  # the error line is quoted…
    assert SIGNATURE not in posted and AWS_ID not in posted  # …without its signature
    assert "alice" not in posted


def test_the_japanese_reply_is_gated_too() -> None:
    posted = _posted(
        [f"アップデート後に学習が 14 倍遅くなりました。{GITHUB_PAT} を使っています。"], lang="ja"
    )
    assert GITHUB_PAT[11:] not in posted
    assert "GitHub のトークン" in posted


def test_send_gates_every_part_of_any_reply_it_assembles() -> None:
    # A reply that did not come through the engine's gate (a note naming a file, a text of the bot's own).
    reply = DiscordReply(
        f"see {GOOGLE}",
        [{"title": "t", "description": f"mail bob@example.org, key {GOOGLE}"}],
        [ReplyFile("fixed.yaml", f"maps: {GOOGLE}\n".encode())],
    )
    out = from_reply(reply, notes=[f"skipped {GOOGLE}.png"])
    assert GOOGLE[4:] not in out.content
    assert "bob@example.org" not in out.embeds[0]["description"]
    assert GOOGLE[4:] not in out.embeds[0]["description"]
    assert out.files == (("fixed.yaml", b"maps: REDACTED_GOOGLE_KEY\n"),)
    assert GOOGLE[4:] not in from_text(f"text {GOOGLE}").content
