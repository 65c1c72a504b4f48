"""Replies after the user-eyes review: each test pins one finding of /work/asks/q-user.md or q-advice.md
(U = q-user, A = q-advice) and fails on the reply as it was before the fix."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from diagnosis import diagnose
from diagnosis.facts_model import Facts
from diagnosis.models import ConfigEdit, LadderStep, OtherProcess
from diagnosis.render import DiscordReply, message, render_cli, render_discord
from diagnosis.render.view import trailing_comment
from diagnosis.report import Report
from tests.golden.cases import ADV, CASES, ERR, INFO, MEM, cuda_oom, ev, finding

LANGS = ("en", "ja")
CORPUS = Path(__file__).parent / "corpus"


def everything(reply: DiscordReply) -> str:
    parts = [reply.content] + [str(e.get(k, "")) for e in reply.embeds for k in ("title", "description")]
    return "\n".join(parts)


def corpus_input(case: str) -> str:
    (folder,) = [p for p in CORPUS.glob(f"*/{case}-*") if p.is_dir()]
    return (folder / "input.txt").read_text(encoding="utf-8")


# ---------------------------------------------------------------------- U1: a config cut short


@pytest.mark.parametrize("lang", LANGS)
def test_a_config_cut_short_is_asked_for_its_rest_not_for_the_config(lang: str) -> None:
    f = finding("input_incomplete", INFO, ADV, missing=["config_rest", "error_lines"])
    text = everything(render_discord(Report([f], [], Facts(has_config=True), lang, False)))
    assert message("reply.ask.config_rest", lang) in text
    assert message("reply.ask.config", lang) not in text
    assert message("reply.ask.error_lines", lang) in text


def test_the_cut_paste_of_case_032_is_answered_with_the_rest_of_the_config() -> None:
    report = diagnose([corpus_input("032")], sources=["input.txt"], locale="en")
    text = render_cli(report, fmt="markdown", lang="en")
    assert message("reply.ask.config_rest", "en") in text
    assert message("reply.ask.config", "en") not in text


# ---------------------------------------------------------------------- U6: no ✅ on steps


@pytest.mark.parametrize("lang", LANGS)
def test_checklist_steps_carry_no_check_mark(lang: str) -> None:
    # ✅ read as "done" or "verified" on steps the user has not tried and the engine did not verify.
    report = CASES["flux_gc_off_step2"]()
    body = render_discord(report, lang=lang).embeds[0]["description"]
    for number in range(1, len(report.ladder) + 1):
        assert f"\n**{number}. " in body
    assert "✅" not in body
    assert "✅" not in render_cli(report, fmt="text", lang=lang)


# ---------------------------------------------------------------------- U2 = A12: system RAM is not VRAM


@pytest.mark.parametrize("lang", LANGS)
def test_a_host_ram_kill_labels_the_trainers_usage_as_system_ram(lang: str) -> None:
    # Case 108: the OOM killer's anon-rss (29.48 GiB) on a machine with a 16 GB card.
    report = diagnose([corpus_input("108")], sources=["input.txt"], locale=lang)
    text = render_cli(report, fmt="text", lang=lang)
    ram_line = message("reply.oom.label_host", lang) + message("reply.sep", lang)
    assert ram_line + message("reply.oom.process_host", lang, process="29.48 GiB") in text
    assert message("reply.oom.label", lang) + message("reply.sep", lang) not in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_cuda_oom_keeps_the_oom_label(lang: str) -> None:
    text = everything(render_discord(CASES["flux_gc_off_step2"](), lang=lang))
    assert message("reply.oom.label", lang) + message("reply.sep", lang) in text
    assert message("reply.oom.label_host", lang) not in text


# ---------------------------------------------------------------------- A5: the trainer in a container

CONTAINER_OOM = (
    "Error running job: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of "
    "23.55 GiB of which 201.31 MiB is free. Process 4122 has 23.33 GiB memory in use. Of the allocated "
    "memory 22.60 GiB is allocated by PyTorch, and 301.77 MiB is reserved by PyTorch but unallocated.\n"
)


@pytest.mark.parametrize("lang", LANGS)
def test_a_container_oom_names_the_listed_trainer_as_the_trainer(lang: str) -> None:
    # No "this process has" fragment: process 4122 holds what PyTorch allocated, so it is the trainer.
    report = diagnose([CONTAINER_OOM], sources=["log.txt"], locale=lang)
    assert "other_process_on_gpu" not in {f.rule_id for f in report.findings}
    text = render_cli(report, fmt="text", lang=lang)
    assert message("reply.oom.process", lang, process="23.33 GiB") in text
    assert message("reply.oom.others", lang, others="23.33 GiB") not in text


GIB = 1024**3
SPLITS = [
    # (this process has, allocated by PyTorch, [(pid, bytes held)]) → (the trainer's GiB, the others' pids)
    ((None, 22.6, [(4122, 23.33)]), (23.33, [])),  # container: the trainer alone
    ((None, 22.6, [(4122, 23.33), (77, 1.5)]), (23.33, [77])),  # container: the trainer and one other program
    ((None, None, [(4122, 23.33)]), (None, [])),  # nothing to tell them apart: neither is claimed
    (
        (20.0, 19.0, [(77, 3.5), (78, 0.5)]),
        (20.0, [77, 78]),
    ),  # the usual message: every listed one is another
    ((None, 10.0, [(1, 9.6), (2, 9.4)]), (9.6, [2])),  # at the 95 % line
    # Another program holds far more than the trainer: the trainer is the one closest to PyTorch's figure.
    ((None, 21.65, [(3927658, 73.02), (4105349, 21.96)]), (21.96, [3927658])),
    ((None, 22.6, [(77, 30.0), (4122, 23.33), (78, 0.5)]), (23.33, [77, 78])),
]


@pytest.mark.parametrize(("given", "expected"), SPLITS)
def test_the_trainer_and_the_other_processes_of_an_oom_message(
    given: tuple[float | None, float | None, list[tuple[int, float]]],
    expected: tuple[float | None, list[int]],
) -> None:
    # One function decides for the rule (other_process_on_gpu) and for the reply's OOM line.
    from diagnosis.rules.other_process_on_gpu import _foreign

    process, allocated, listed = given
    event = cuda_oom(
        0.5,
        200,
        23.55,
        process,
        allocated_bytes=int(allocated * GIB) if allocated is not None else None,
        other_processes=[OtherProcess(pid, int(held * GIB)) for pid, held in listed],
    )
    trainer, others = event.trainer_and_others()
    want_trainer, want_others = expected
    assert (None if trainer is None else round(trainer / GIB, 2)) == want_trainer
    assert [p.pid for p in others] == want_others == [p.pid for p in _foreign(Facts(fatal=event))]


# ---------------------------------------------------------------------- A4: the family's GC sentence


def family_sentences(lang: str, family: str = "zimage", label: str = "Z-Image Turbo") -> list[str]:
    params = {"family": family, "family_label": label}
    return [
        message("rules.risky_family_gc_off.detail", lang, **params),
        message(f"rules.risky_family_gc_off.variant.family.{family}", lang, **params),
    ]


@pytest.mark.parametrize("lang", LANGS)
def test_a_step_shared_by_gc_off_and_risky_family_gc_off_says_the_family_sentence(lang: str) -> None:
    report = diagnose([corpus_input("102")], sources=["input.txt"], locale=lang)
    (first,) = [s for s in report.ladder if s.number == 1]
    assert first.rule_ids[:2] == ["gc_off", "risky_family_gc_off"]
    body = render_discord(report, lang=lang).embeds[0]["description"]
    for sentence in family_sentences(lang):
        assert sentence in body
    assert message("rules.gc_off.detail", lang) in body  # the step's own rule still speaks first


@pytest.mark.parametrize("lang", LANGS)
def test_a_later_shared_gc_step_says_the_family_sentence_too(lang: str) -> None:
    edit = [ConfigEdit(("train", "gradient_checkpointing"), True)]
    gc = finding("gc_off", ERR, MEM, [ev(68, "gradient_checkpointing: false")], 2, edit)
    risky = finding(
        "risky_family_gc_off", ERR, MEM, [], 3, edit, family="zimage", family_label="Z-Image Turbo"
    )
    other = finding("other_process_on_gpu", ERR, ADV, [], 1, others_gib=6.0, pids="77", reason="other_pids")
    ladder = [
        LadderStep(1, ["other_process_on_gpu"], [], None, None, False),
        LadderStep(2, ["gc_off", "risky_family_gc_off"], edit, None, None, False),
    ]
    facts = Facts(has_oom=True, family="zimage", family_label="Z-Image Turbo")
    report = Report([other, gc, risky], ladder, facts, lang, False)
    text = everything(render_discord(report, lang=lang, step=2))
    for sentence in family_sentences(lang):
        assert sentence in text


# ---------------------------------------------------------------------- U8: the CLI's secret notice


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("fixing", [False, True])
def test_the_cli_speaks_of_a_secret_in_a_local_file_not_of_a_posted_message(lang: str, fixing: bool) -> None:
    report = CASES["kontext_secret"]()
    for fmt in ("text", "markdown"):
        text = render_cli(report, fmt=fmt, lang=lang, fixing=fixing)
        assert message("reply.secret.headline_cli", lang) in text
        assert message("reply.secret.revoke_cli", lang) in text
        assert message("reply.secret.headline", lang) not in text
        assert message("reply.secret.revoke", lang) not in text


@pytest.mark.parametrize("lang", LANGS)
def test_discord_still_says_revoke_now(lang: str) -> None:
    reply = render_discord(CASES["kontext_secret"](), lang=lang)
    assert message("reply.secret.headline", lang) in reply.content
    assert message("reply.secret.revoke", lang) in reply.content
    assert message("reply.secret.revoke_cli", lang) not in everything(reply)


# ---------------------------------------------------------------------- U9: --fix put the paths back


@pytest.mark.parametrize("lang", LANGS)
def test_after_fix_restored_the_paths_the_reply_does_not_ask_to_put_them_back(lang: str) -> None:
    report = CASES["flux_gc_off_step2"]()
    assert "/home/USER/" in (report.corrected_config or "")
    restored = render_cli(report, fmt="text", lang=lang, fixing=True, paths_restored=True)
    assert message("reply.config.user_placeholder_restored", lang) in restored
    assert message("reply.config.user_placeholder", lang) not in restored
    # Without a written file (no --fix) nothing was restored, whatever the caller says.
    plain = render_cli(report, fmt="text", lang=lang, paths_restored=True)
    assert message("reply.config.user_placeholder", lang) in plain
    assert message("reply.config.user_placeholder_restored", lang) not in plain
    assert message("reply.config.user_placeholder", lang) in render_cli(report, lang=lang, fixing=True)


# ---------------------------------------------------------------------- A9: GC is on when the key is missing

GC_QUESTION = "do I need to turn on gradient checkpointing or something? I don't see it anywhere"


@pytest.mark.parametrize("lang", LANGS)
def test_a_user_asking_about_gc_with_the_key_missing_is_told_it_is_already_on(lang: str) -> None:
    text = corpus_input("105")
    assert GC_QUESTION in text and "gradient_checkpointing" not in text
    reply = render_cli(diagnose([text], sources=["input.txt"], locale=lang), fmt="markdown", lang=lang)
    assert message("reply.note.gc_default_on", lang) in reply


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("        batch_size: 1\n", "        batch_size: 1\n        gradient_checkpointing: true\n"),  # set
        (GC_QUESTION, "what should I change?"),  # not asked about
    ],
)
def test_no_gc_note_when_the_key_is_set_or_gc_is_not_mentioned(old: str, new: str) -> None:
    text = corpus_input("105")
    assert old in text
    report = diagnose([text.replace(old, new, 1)], sources=["input.txt"], locale="en")
    assert message("reply.note.gc_default_on", "en") not in render_cli(report, fmt="markdown", lang="en")


# ---------------------------------------------------------------------- U5: a kept comment on a changed line


@pytest.mark.parametrize(
    ("line", "comment"),
    [
        ("        gradient_checkpointing: true  # turned off for speed", "# turned off for speed"),
        ("    quantize: true  # 画質優先でオフ", "# 画質優先でオフ"),
        ("  x: 1\t# tab", "# tab"),
        ('  name: "a # b"', None),
        ("  name: 'a # b' # real", "# real"),
        ("  url: http://host/a#b", None),
        ("  # a whole-line comment", "# a whole-line comment"),
        ("  resolution: [ 512, 768 ]", None),
    ],
)
def test_trailing_comment(line: str, comment: str | None) -> None:
    assert trailing_comment(line) == comment


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", ["101", "104", "106"])
def test_a_changed_line_that_keeps_its_comment_is_pointed_out(case: str, lang: str) -> None:
    # 101 `gradient_checkpointing: true  # turned off for speed`, 104 `low_vram: true  # 遅いのでオフにした`,
    # 106 `quantize: true  # 画質優先でオフ`: the comment now says the opposite of the value.
    report = diagnose([corpus_input(case)], sources=["input.txt"], locale=lang)
    reply = render_discord(report, lang=lang)
    assert message("reply.config.comment_kept", lang) in reply.embeds[-1]["description"]


def test_no_comment_note_when_the_changed_line_has_none() -> None:
    report = diagnose([corpus_input("105")], sources=["input.txt"], locale="en")
    text = render_cli(report, fmt="markdown", lang="en")
    assert "resolution: [ 512, 768, 1024 ]" in text  # the bucket line changed, and it has no comment
    assert message("reply.config.comment_kept", "en") not in text


@pytest.mark.parametrize(
    ("parsed", "shape", "said"),
    [
        (True, "full_job", True),
        (True, "process", True),
        (True, "fragment", False),  # a bare `train:` pasted alone: the key may sit in the part not shown
        (False, None, False),  # nothing parsed: nothing known about the key
    ],
)
def test_the_gc_note_needs_a_whole_parsed_config(parsed: bool, shape: str | None, said: bool) -> None:
    facts = Facts(has_config=True, config_parsed=parsed, config_shape=shape, says_gc=True)
    text = render_cli(Report([], [], facts, "en", False), fmt="markdown", lang="en")
    assert (message("reply.note.gc_default_on", "en") in text) is said


@pytest.mark.parametrize("lang", LANGS)
def test_the_line_without_its_kept_comment_is_offered_as_its_own_choice(lang: str) -> None:
    # Issue #19: `gradient_checkpointing: true # off, to go faster` says the opposite of its value; the
    # reply names the comment and shows the line without it, so dropping it is a choice the user sees.
    report = diagnose([corpus_input("101")], sources=["input.txt"], locale=lang)
    text = render_cli(report, fmt="markdown", lang=lang)
    comment = "# turned off for speed"
    assert message("reply.config.comment_drop", lang, comment=f"`{comment}`") in text, text
    assert re.search(r"^\s*gradient_checkpointing: true\s*$", text, re.M), text


@pytest.mark.parametrize("lang", LANGS)
def test_right_beside_the_offered_file_the_reply_says_what_user_in_its_paths_breaks(lang: str) -> None:
    # Issue #19: pasted back, `/home/USER/…` breaks the dataset and output paths: the note says so, on
    # the line right after the one that names the file.
    report = CASES["flux_gc_off_step2"]()
    reply = render_discord(report, lang=lang)
    # The whole file is offered privately (issue #17), never attached to the public reply.
    assert reply.whole_config is not None and not reply.files, "the corrected config is offered"
    lines = everything(reply).splitlines()
    offered = lines.index(message("reply.config.whole_file_offered", lang))
    note = lines[offered + 1]
    assert note == message("reply.config.user_placeholder", lang)
    words = {"en": ("dataset", "output"), "ja": ("データセット", "出力")}[lang]
    assert all(word in note for word in words), note
