"""The memory estimate in the reply: shown where the family, the config and the card are known (or
the card is stated as assumed), always as a range; the reply is as before everywhere else, and the
estimate is not even worked out there."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

import pytest

from diagnosis import diagnose, engine
from diagnosis.estimate.reply import reply_estimate
from diagnosis.facts_model import Facts
from diagnosis.models import Finding
from diagnosis.render import estimate_view as estimate_view_module
from diagnosis.render import message, render_cli
from diagnosis.rules import spec
from tests.conftest import CORPUS, EXAMPLES

CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
LOG = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")


def _case(name: str) -> str:
    found = next(Path(CORPUS).glob(f"*/{name}*/input.txt"))
    return found.read_text(encoding="utf-8")


def test_a_config_alone_gets_the_estimate_on_the_assumed_card() -> None:
    reply = render_cli(diagnose([CONFIG]), lang="en")
    assert "📏 Estimated peak: ≈ " in reply
    assert "GPU: 24 GB, assumed (≈ 23.5 GiB usable)." in reply
    ja = render_cli(diagnose([CONFIG]), lang="ja")
    assert "📏 推定ピーク：" in ja and "24 GB と仮定" in ja


def test_a_stated_card_is_not_called_assumed() -> None:
    reply = render_cli(diagnose([CONFIG], gpu_vram_gib=48), lang="en")
    assert "GPU: 48 GB (≈ 47.0 GiB usable)." in reply


def test_each_step_says_what_it_saves_until_one_fits() -> None:
    reply = render_cli(diagnose([CONFIG, LOG]), lang="en")
    steps = [line for line in reply.splitlines() if line.startswith("• After step ")]
    assert steps and steps[0].startswith("• After step 1: ≈ ")
    assert "less than now" in steps[0]


@pytest.mark.parametrize(
    "name",
    [
        "107-sdxl-3060",  # a log alone: no config to estimate
        "108-flux2-klein9b",  # system RAM ran out
        "109-flux-dev-hf-401",  # not an out-of-memory
        "111-qwen-edit-2511-tab",  # the config does not parse
    ],
)
def test_no_estimate_where_it_would_mean_nothing(name: str) -> None:
    for lang in ("en", "ja"):
        reply = render_cli(diagnose([_case(name)]), lang=lang)
        assert "📏" not in reply


def test_an_unknown_family_gets_no_estimate() -> None:
    pixart = CONFIG.replace("name_or_path: ", "arch: pixart\n      name_or_path: ", 1)
    report = diagnose([pixart])
    assert report.facts.family != "flux"
    assert "📏" not in render_cli(report, lang="en")


def test_not_worked_out_where_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[object] = []

    def counted(report: object) -> None:
        asked.append(report)

    monkeypatch.setattr(estimate_view_module, "reply_estimate", counted)
    render_cli(diagnose([_case("109-flux-dev-hf-401")]), lang="en")
    render_cli(diagnose([_case("107-sdxl-3060")]), lang="en")
    assert asked == []
    render_cli(diagnose([CONFIG]), lang="en")
    assert len(asked) == 1


def test_the_oom_message_raises_the_phase_where_it_failed() -> None:
    reply = render_cli(diagnose([_case("103-qwen-image-2512")]), lang="en")
    assert "The OOM message shows the process held at least 31.9 GiB there" in reply
    assert "Estimated peak: ≈ 32–38 GiB at the preview." in reply


def test_a_failing_estimate_costs_only_its_line(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(report: object) -> None:
        raise ZeroDivisionError

    monkeypatch.setattr(estimate_view_module, "reply_estimate", broken)
    reply = render_cli(diagnose([CONFIG]), lang="en")
    assert "📏" not in reply and "gradient checkpointing" in reply.lower()


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_the_list_of_steps_stops_once_the_estimate_fits_with_margin(lang: str) -> None:
    # Issue #20: corpus 102 (Z-Image Turbo, GC off, batch 4, buckets to 1536 on 24 GB) fits after
    # step 2 by the high end of the range: the bucket step that would come third is not listed.
    report = diagnose([_case("102")], locale=lang)
    assert len(report.ladder) >= 3, "the engine's ladder itself keeps every step (JSON, next step)"
    reply = render_cli(report, fmt="markdown", lang=lang)
    assert "**2. " in reply and "**3. " not in reply
    assert message("reply.estimate.enough", lang, number=2) in reply


def test_a_cut_after_an_earlier_step_is_sized_for_the_config_that_step_leaves() -> None:
    # Corpus 102: GC off, batch 4. As pasted (GC off) not even batch 1 fits 24 GB with the margin, so
    # the rule alone keeps its table's 1; at its step GC is already on, and batch 2 fits.
    report = diagnose([_case("102")], steps=None)  # every step written and verified
    assert report.ladder[0].rule_ids[0] == "gc_off"
    step = report.ladder[1]
    assert step.rule_ids == ["batch_too_large"] and step.applied and step.verified
    assert {e.path[-1]: e.value for e in step.edits} == {"batch_size": 2, "gradient_accumulation": 2}
    finding = next(f for f in report.findings if f.rule_id == "batch_too_large")
    assert finding.params["new_batch_size"] == 2 and finding.edits == step.edits
    alone = spec("batch_too_large").check(report.facts)
    assert alone is not None and alone.params["new_batch_size"] == 1


def test_a_step_the_ladder_did_not_count_shows_no_saving(monkeypatch: pytest.MonkeyPatch) -> None:
    # The re-check of the config alone still finds GC off after step 1 (as a rule that misreads the
    # fix would): the ladder does not count step 1, and step 2 builds on the config without it. The
    # estimate's steps must be the ladder's: no saving for step 1, and step 2's with GC still off.
    real = engine.run_rules

    def stubborn(facts: Facts) -> tuple[list[Finding], list[str]]:
        found, failed = real(facts)
        if not facts.has_log and all(f.rule_id != "gc_off" for f in found):
            found.append(spec("gc_off").finding())
        return found, failed

    monkeypatch.setattr(engine, "run_rules", stubborn)
    report = diagnose([CONFIG, LOG])
    assert report.ladder[0].rule_ids[0] == "gc_off" and not report.ladder[0].verified
    estimate = reply_estimate(report)
    assert estimate is not None
    assert [s.number for s in estimate.steps] == [2]
    # Batch 1 with GC still off: far above the card, far less saved than GC on would give.
    assert estimate.steps[0].fit.value == "over"


def test_the_engine_sizes_only_the_steps_that_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    # Corpus 102: the batch and bucket rules size their fix once for the config as pasted and once
    # more at their step; the ladder's re-checks of each corrected config size nothing.
    # The package exports its function `fit` under the submodule's name.
    fit_module = importlib.import_module("diagnosis.estimate.fit")
    asked: list[str] = []
    real = fit_module.largest_that_fits_on_card

    def counted(facts: Facts, field: str, *args: object, **kw: object) -> int | None:
        asked.append(field)
        return real(facts, field, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(fit_module, "largest_that_fits_on_card", counted)
    diagnose([_case("102")])
    assert sorted(asked) == ["batch", "batch", "bucket", "bucket"]
    asked.clear()
    diagnose([_case("107-sdxl-3060")])  # a log alone: nothing to size
    diagnose([_case("103-qwen-image-2512")])  # no cutting rule fires
    assert asked == []


def test_one_case_estimates_each_job_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # Corpus 102 sizes the batch and the bucket, each before and at its step, from the same jobs: the
    # case's Facts remember each job's estimate, so no job is estimated twice in one diagnosis.
    fit_module = importlib.import_module("diagnosis.estimate.fit")
    jobs: list[tuple[object, ...]] = []
    real = fit_module.estimate

    def counted(job: Any, *args: Any) -> Any:
        jobs.append(tuple(vars(job).values()) if hasattr(job, "__dict__") else (repr(job),))
        return real(job, *args)

    monkeypatch.setattr(fit_module, "estimate", counted)
    diagnose([_case("102")])
    assert jobs and len(jobs) == len(set(jobs))


@pytest.mark.parametrize("lang", ["en", "ja"])
def test_a_step_after_which_the_peak_moves_or_stays_says_so(lang: str) -> None:
    # FLUX.1 on 24 GB at batch 4 and 1536 px: batch 1 takes the training step below the model's load,
    # which then is the peak; the bucket and preview steps after it leave that peak where it is, and
    # do not repeat step 1's saving as theirs.
    from tests.rules.helpers import shipped

    text = shipped(
        "train_lora_flux_24gb",
        ("batch_size: 1", "batch_size: 4"),
        ("resolution: [512, 768, 1024]", "resolution: [512, 768, 1024, 1280, 1536]"),
        ("height: 1024", "height: 1536"),
    )
    report = diagnose([text], gpu_vram_gib=24, locale=lang)
    out = render_cli(report, lang=lang)
    moved = message("reply.estimate.phase.model_load", lang)
    said = f"the peak is then at {moved}" if lang == "en" else f"ピークは{moved}に移ります"
    assert said in out
    stays = "After step 2: still" if lang == "en" else "手順 2 の後も約"
    assert stays in out
