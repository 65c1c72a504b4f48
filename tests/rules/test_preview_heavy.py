"""The rule `preview_heavy` (diagnosis/rules/preview_heavy.py):
when it fires and when not, its fix, and what the reply says of it in both languages."""

from __future__ import annotations

import pytest

from diagnosis.facts_model import Facts
from diagnosis.models import Phase, Severity
from diagnosis.render import message, render_cli, render_discord
from diagnosis.render.templating import TARGETS, Wording
from diagnosis.render.view import usable_params
from diagnosis.report import Report
from tests.golden.cases import ERR, MEM, ev, finding
from tests.rules.helpers import (
    ALL_ON,
    FLUX,
    LANGS,
    QWEN,
    WAN,
    assert_fix_clears,
    assert_said_in_both_languages,
    check,
    config,
    everything,
    facts,
    found,
    oom,
    oom_facts,
    shipped,
    texts,
)


def test_preview_over_1024_is_shrunk_keeping_aspect() -> None:
    found = check("preview_heavy", facts(sample_width=1536, sample_height=1024, sample_steps=20))
    assert {e.path: e.value for e in found.edits} == {("sample", "width"): 1024, ("sample", "height"): 640}


def test_preview_oom_while_sampling_is_an_error_without_config() -> None:
    f = Facts(phase=Phase.FIRST_SAMPLE, says_oom=True)
    found = check("preview_heavy", f)
    assert found.severity == Severity.ERROR and not found.edits


def test_preview_of_usual_size_is_fine() -> None:
    assert check("preview_heavy", facts(sample_width=1024, sample_height=1024, sample_steps=25)) is None


def test_preview_disabled_is_never_heavy() -> None:
    f = facts(sample_width=2048, sample_height=2048, disable_sampling=True)
    assert check("preview_heavy", f) is None


def test_preview_oom_within_the_thresholds_is_advice() -> None:
    # The log describes the config before any fix: an edit from it alone would be asked for again.
    f = facts(sample_width=1024, sample_height=1024, sample_steps=25, phase=Phase.FIRST_SAMPLE, gpu_oom=True)
    found = check("preview_heavy", f)
    assert found.severity == Severity.ERROR and found.edits == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_video_preview_step_names_the_frames_it_changes(lang: str) -> None:
    # 832×480 at 25 steps is the shipped Wan example's preview; only the 81 frames are too many.
    f = config(*WAN, sample_width=832, sample_height=480, sample_steps=25, sample_frames=81, sample_every=250)
    finding = found("preview_heavy", f)
    assert [e.path for e in finding.edits] == [("sample", "num_frames")]
    shown = texts("preview_heavy", f, lang)
    assert "81" in shown["action"] and str(finding.params["new_frames"]) in shown["action"], shown
    assert "num_frames" in shown["fix"] and "Num Frames" in shown["ui_path"], shown
    assert "Width / Height" not in shown["fix"], shown
    # Too large as well: the step lowers the frames and the size, and says both.
    f.sample_width = f.sample_height = 1536
    finding = found("preview_heavy", f)
    assert {e.path for e in finding.edits} > {("sample", "num_frames")}
    shown = texts("preview_heavy", f, lang)
    assert "num_frames" in shown["fix"] and "Width / Height" in shown["fix"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_the_next_line_does_not_ask_for_options_already_on(lang: str) -> None:
    # Case 103: quantized (uint4 ARA), Low VRAM and cached embeddings, and an OOM at the first preview.
    f = oom(
        config(*QWEN, **ALL_ON, sample_width=1536, sample_height=1536, sample_steps=40),
        Phase.FIRST_SAMPLE,
    )
    shown = texts("preview_heavy", f, lang)
    assert "Low VRAM" not in shown["next"] and "Cache Text Embeddings" not in shown["next"], shown
    assert "skip_first_sample" in shown["next"], shown
    # Only what is still off is named.
    f.low_vram = False
    assert "Low VRAM" in texts("preview_heavy", f, lang)["next"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_periodic_preview_oom_is_not_told_to_skip_the_first_preview(lang: str) -> None:
    # The first preview went through; skipping it changes nothing for the one that failed.
    f = oom(config(*QWEN, **ALL_ON, sample_width=1536, sample_height=1536, sample_steps=40), Phase.SAMPLING)
    shown = texts("preview_heavy", f, lang)
    assert "skip_first_sample" not in shown["next"] and "Disable Sampling" in shown["next"], shown


@pytest.mark.parametrize("lang", LANGS)
def test_one_preview_prompt_is_not_counted_as_prompts(lang: str) -> None:
    preview = {"sample_width": 1536, "sample_height": 1536, "sample_steps": 40, "sample_every": 250}
    f = config(*FLUX, **preview, sample_prompts=1)
    w = Wording(lang, TARGETS["text"])

    def detail(g: Facts) -> str:
        params = usable_params("preview_heavy", dict(found("preview_heavy", g).params))
        return str(w.first("preview_heavy", ("detail",), params))

    one = detail(f)
    assert "(s)" not in one and ("1 prompt at" in one or "1 件" in one), one
    f.sample_prompts = 4
    assert "4 prompts" in detail(f) or "4 件" in detail(f)


@pytest.mark.parametrize("lang", LANGS)
def test_unknown_preview_numbers_fall_back_to_a_plain_action(lang: str) -> None:
    f = finding(
        "preview_heavy",
        ERR,
        MEM,
        [ev(None, "stuck at generating baseline samples", "user")],
        width=None,
        height=None,
        steps=None,
        prompts=0,
        every=None,
        new_width=None,
        new_height=None,
        new_steps=None,
    )
    text = everything(render_discord(Report([f], [], oom_facts(), lang, False)))
    assert "None" not in text
    assert "0 prompt" not in text
    assert message("rules.preview_heavy.action_plain", lang) in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_preview_action_names_only_what_changes(lang: str) -> None:
    base = {"width": 1536, "height": 1536, "steps": 40, "prompts": 4, "every": 250}
    size_only = finding("preview_heavy", ERR, MEM, **base, new_width=1024, new_height=1024, new_steps=40)
    text = everything(render_discord(Report([size_only], [], oom_facts(), lang, False)))
    assert message("rules.preview_heavy.action_size", lang, new_width=1024, new_height=1024) in text
    steps_only = finding("preview_heavy", ERR, MEM, **base, new_width=1536, new_height=1536, new_steps=20)
    text = everything(render_discord(Report([steps_only], [], oom_facts(), lang, False)))
    assert message("rules.preview_heavy.action_steps", lang, new_steps=20, steps=40) in text
    both = finding("preview_heavy", ERR, MEM, **base, new_width=1024, new_height=1024, new_steps=20)
    text = everything(render_discord(Report([both], [], oom_facts(), lang, False)))
    assert message("rules.preview_heavy.action", lang, new_width=1024, new_height=1024, new_steps=20) in text


def test_preview_is_said_in_both_languages() -> None:
    f = facts(sample_width=1536, sample_height=1024, sample_steps=20)
    assert_said_in_both_languages("preview_heavy", f)


def test_preview_fix_shrinks_the_preview() -> None:
    text = shipped(
        "train_lora_flux_24gb",
        ("width: 1024", "width: 1536"),
        ("height: 1024", "height: 1536"),
        ("sample_steps: 25", "sample_steps: 40"),
    )
    assert_fix_clears("preview_heavy", text)


# --- issue #19: "Lower Sample Steps" is a speed fix, not a memory fix ----------------------------------


def _preview(**kw: object) -> Facts:
    base: dict[str, object] = {
        "sample_width": 1024, "sample_height": 1024, "sample_steps": 25, "sample_every": 250,
        "sample_prompts": 2,
    }  # fmt: skip
    base.update(kw)
    return facts(**base)


@pytest.mark.parametrize(
    ("kw", "effect"),
    [
        ({"sample_steps": 60}, "speed"),  # only the steps: the preview takes less time, not less memory
        ({"sample_width": 1536, "sample_height": 1536}, "memory"),
        ({"sample_width": 1536, "sample_height": 1536, "sample_steps": 60}, "both"),
    ],
)
def test_the_preview_step_says_what_it_lowers(kw: dict[str, object], effect: str) -> None:
    found = check("preview_heavy", _preview(vram_gib=24.0, **kw))
    assert found.effect == effect, found


@pytest.mark.parametrize("lang", LANGS)
def test_fewer_sample_steps_are_marked_as_a_speed_fix_in_the_reply(lang: str) -> None:
    report = Report([found("preview_heavy", _preview(sample_steps=60))], [], _preview(), lang, False)
    text = render_cli(report, lang=lang)
    assert message("reply.effect.speed", lang) in text, text
    assert message("reply.applicability.memory_only", lang) not in text, text
