from __future__ import annotations

import pytest

from bot.diagnosis_port import InputKinds
from bot.inputs import (
    Candidate,
    SourcedText,
    decode_text,
    gather_message,
    is_text_attachment,
    merge,
    parse_message_ref,
    select_from_history,
    strip_mentions,
)
from bot.textfile import texts_hash
from tests.bot_fakes import FakeAttachment, FakeMessage

CONFIG = InputKinds(config=True, log=False)
LOG = InputKinds(config=False, log=True)
BOTH = InputKinds(config=True, log=True)
CHAT = InputKinds(config=False, log=False)


def cand(mid: int, author: int, kinds: InputKinds) -> Candidate:
    return Candidate(mid, author, (SourcedText("message", f"m{mid}"),), kinds)


@pytest.mark.parametrize(
    ("name", "content_type", "ok"),
    [
        ("config.yaml", None, True),
        ("CONFIG.YML", None, True),
        ("job.json", "application/json", True),
        ("log.txt", None, True),
        ("train.LOG", None, True),
        ("paste", "text/plain; charset=utf-8", True),
        ("screenshot.png", "image/png", False),
        ("model.safetensors", None, False),
        ("archive.yaml.zip", "application/zip", False),
    ],
)
def test_text_attachments(name: str, content_type: str | None, ok: bool) -> None:
    assert is_text_attachment(name, content_type) is ok


def test_strip_mentions_both_forms() -> None:
    assert strip_mentions("<@42> check <@!42>this", 42) == "check this"
    assert strip_mentions("<@42>\n  train:\n    batch_size: 1\n", 42) == "\n  train:\n    batch_size: 1\n"
    assert strip_mentions("<@43> hi", 42) == "<@43> hi"


def test_parse_message_links_and_ids() -> None:
    ref = parse_message_ref("https://discord.com/channels/1/222222222222222222/333333333333333333")
    assert ref is not None and (ref.channel_id, ref.message_id) == (222222222222222222, 333333333333333333)
    ref = parse_message_ref(" <https://ptb.discordapp.com/channels/1/22/33> ")
    assert ref is not None and (ref.channel_id, ref.message_id) == (22, 33)
    ref = parse_message_ref("333333333333333333")
    assert ref is not None and (ref.channel_id, ref.message_id) == (None, 333333333333333333)
    assert parse_message_ref("not a link") is None
    assert parse_message_ref("12") is None
    assert parse_message_ref("https://example.com/channels/1/2/3") is None


def test_decode_text_handles_bom_and_bad_bytes() -> None:
    assert decode_text("\ufefftrain: 1".encode()) == "train: 1"
    assert decode_text("CUDA out of memory".encode("utf-16")) == "CUDA out of memory"
    assert decode_text(b"ok \xff\xff") == "ok \ufffd\ufffd"
    # What the command line reads right, the bot reads right: Shift-JIS, UTF-16 without a BOM.
    assert decode_text("学習ログ: CUDA out of memory".encode("cp932")) == "学習ログ: CUDA out of memory"
    assert decode_text("CUDA out of memory\r\n".encode("utf-16-le")) == "CUDA out of memory\n"


def test_texts_hash_depends_on_text_and_source() -> None:
    a = (("message", "x"),)
    assert texts_hash(a) == texts_hash((("message", "x"),))
    assert texts_hash(a) != texts_hash((("message", "y"),))
    assert texts_hash(a) != texts_hash((("log.txt", "x"),))


def test_history_merges_latest_config_and_log_of_one_author() -> None:
    newest_first = [
        cand(9, 2, CHAT),
        cand(8, 1, LOG),
        cand(7, 2, CONFIG),  # another author's config: not theirs
        cand(6, 1, CONFIG),
        cand(5, 1, CONFIG),  # older config of the same author: the newer one wins
        cand(4, 1, LOG),
    ]
    chosen = select_from_history(newest_first, author_id=None)
    assert [c.message_id for c in chosen] == [6, 8]


def test_history_one_message_with_both() -> None:
    chosen = select_from_history([cand(3, 1, BOTH), cand(2, 1, LOG)], author_id=None)
    assert [c.message_id for c in chosen] == [3]


def test_history_restricted_to_the_member() -> None:
    newest_first = [cand(5, 2, LOG), cand(4, 1, CONFIG), cand(3, 2, CONFIG)]
    assert [c.message_id for c in select_from_history(newest_first, author_id=1)] == [4]
    assert [c.message_id for c in select_from_history(newest_first, author_id=2)] == [3, 5]
    assert select_from_history(newest_first, author_id=3) == []


def test_history_without_config_or_log() -> None:
    assert select_from_history([cand(1, 1, CHAT)], author_id=None) == []
    assert select_from_history([], author_id=None) == []


async def test_gather_message_reads_text_attachments_only() -> None:
    big = FakeAttachment("huge.log", b"x" * 5000)
    image = FakeAttachment("shot.png", b"\x89PNG", "image/png")
    config = FakeAttachment("config.yaml", b"train:\n  batch_size: 1\n")
    message = FakeMessage("<@42> please check", [config, image, big])
    gathered = await gather_message(message, cap=4096, bot_user_id=42)  # type: ignore[arg-type]
    assert gathered.inputs == (
        SourcedText("message", "please check"),
        SourcedText("config.yaml", "train:\n  batch_size: 1\n"),
    )
    assert [(f.name, f.reason) for f in gathered.ignored] == [("shot.png", "type"), ("huge.log", "size")]
    assert image.reads == 0 and big.reads == 0  # never downloaded


async def test_gather_message_mention_only_has_no_input() -> None:
    gathered = await gather_message(FakeMessage("<@42>"), cap=100, bot_user_id=42)  # type: ignore[arg-type]
    assert gathered.inputs == ()


def test_merge_keeps_order() -> None:
    from bot.inputs import Gathered, IgnoredFile

    a = Gathered((SourcedText("a", "1"),), (IgnoredFile("x.png", "type"),))
    b = Gathered((SourcedText("b", "2"),))
    merged = merge(a, b)
    assert [i.source for i in merged.inputs] == ["a", "b"]
    assert merged.ignored == a.ignored


async def test_one_message_is_read_up_to_a_few_files_and_the_cap_in_total() -> None:
    from bot.inputs import MAX_TEXT_ATTACHMENTS

    small = [FakeAttachment(f"part{n}.log", b"CUDA out of memory\n") for n in range(10)]
    gathered = await gather_message(FakeMessage("", small), cap=4096, bot_user_id=None)  # type: ignore[arg-type]
    assert [i.source for i in gathered.inputs] == [f"part{n}.log" for n in range(MAX_TEXT_ATTACHMENTS)]
    assert [(f.name, f.reason) for f in gathered.ignored] == [
        (f"part{n}.log", "many") for n in range(MAX_TEXT_ATTACHMENTS, 10)
    ]
    assert sum(a.reads for a in small) == MAX_TEXT_ATTACHMENTS

    # Each file is under the cap, but together they are not: the one that would overflow is skipped.
    halves = [FakeAttachment(f"half{n}.txt", b"y" * 3000) for n in range(2)] + [
        FakeAttachment("tail.yaml", b"train: {}\n")
    ]
    gathered = await gather_message(FakeMessage("", halves), cap=4096, bot_user_id=None)  # type: ignore[arg-type]
    assert [i.source for i in gathered.inputs] == ["half0.txt", "tail.yaml"]
    assert [(f.name, f.reason) for f in gathered.ignored] == [("half1.txt", "many")]
    assert halves[1].reads == 0
