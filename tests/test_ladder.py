"""The fix ladder: phase order, shared steps, cumulative corrected configs, verification."""

from __future__ import annotations

from diagnosis import diagnose
from diagnosis.config.parse import parse_config
from diagnosis.facts_model import Facts
from diagnosis.ladder import build_ladder, drop_ruled_out, rank_findings
from diagnosis.models import (
    Applicability,
    ConfigDoc,
    ConfigEdit,
    Finding,
    LogLine,
    OomEvent,
    OomKind,
    Phase,
    Piece,
    PieceKind,
    Severity,
)
from tests.conftest import CORPUS


def finding(
    rule_id: str, severity: Severity = Severity.ERROR, rank: int = 50, edits: list[ConfigEdit] | None = None
) -> Finding:
    return Finding(rule_id, severity, Applicability.MEMORY_ONLY, edits=edits or [], ladder_rank=rank)


def order(findings: list[Finding], phase: Phase) -> list[str]:
    return [f.rule_id for f in rank_findings(findings, Facts(phase=phase))]


def test_training_step_order_gc_then_batch_then_bucket() -> None:
    found = [
        finding("bucket_too_large", rank=25),
        finding("batch_too_large", rank=20),
        finding("gc_off", rank=10),
    ]
    assert order(found, Phase.TRAINING_STEP) == ["gc_off", "batch_too_large", "bucket_too_large"]


def test_loading_puts_the_low_memory_paths_first_and_gc_last() -> None:
    found = [
        finding("gc_off", Severity.WARNING, 10),
        finding("no_low_vram", rank=40),
        finding("no_quantize_big_model", rank=42),
    ]
    assert order(found, Phase.MODEL_LOAD) == ["no_quantize_big_model", "no_low_vram", "gc_off"]


def test_sampling_puts_the_preview_first() -> None:
    found = [finding("gc_off", Severity.WARNING, 10), finding("preview_heavy", rank=30)]
    assert order(found, Phase.FIRST_SAMPLE) == ["preview_heavy", "gc_off"]


def test_host_memory_and_notices() -> None:
    found = [
        finding("secret_in_input", Severity.WARNING, 99),
        finding("gc_off"),
        finding("system_ram_oom", rank=3),
    ]
    assert order(found, Phase.TRAINING_STEP) == ["system_ram_oom", "gc_off", "secret_in_input"]


def test_errors_before_warnings_before_tips() -> None:
    found = [
        finding("latents_not_cached", Severity.INFO, 60),
        finding("high_rank", Severity.WARNING, 50),
        finding("dtype_fp32", Severity.ERROR, 38),
    ]
    assert order(found, Phase.UNKNOWN) == ["dtype_fp32", "high_rank", "latents_not_cached"]


def test_ruled_out_by_a_load_oom() -> None:
    f = Facts(phase=Phase.MODEL_LOAD, has_oom=True, gpu_oom=True)
    kept = drop_ruled_out([finding("bucket_too_large"), finding("no_low_vram"), finding("gc_off")], f)
    assert [x.rule_id for x in kept] == ["no_low_vram", "gc_off"]


def test_an_async_cuda_error_does_not_rule_out_by_its_traceback() -> None:
    f = Facts(phase=Phase.MODEL_LOAD, has_oom=True, gpu_oom=True, oom_kind=OomKind.CUDA_ERROR.value)
    kept = drop_ruled_out([finding("bucket_too_large"), finding("no_low_vram")], f)
    assert [x.rule_id for x in kept] == ["bucket_too_large", "no_low_vram"]


def test_ruled_out_by_the_host_running_out() -> None:
    f = Facts(phase=Phase.TRAINING_STEP, has_oom=True)
    f.host_oom = OomEvent(OomKind.HOST_KILLED, LogLine(1, "Killed"))
    kept = drop_ruled_out([finding("batch_too_large"), finding("system_ram_oom")], f)
    assert [x.rule_id for x in kept] == ["system_ram_oom"]


CONFIG = """\
train:
  batch_size: 4  # four
  gradient_checkpointing: false  # fast
model:
  quantize: true
"""


def doc(text: str = CONFIG) -> ConfigDoc:
    return parse_config(Piece(PieceKind.CONFIG_YAML, text, "config.yaml", 0, 0))


GC = ConfigEdit(("train", "gradient_checkpointing"), True)
BATCH = [ConfigEdit(("train", "batch_size"), 1), ConfigEdit(("train", "gradient_accumulation"), 4)]


def no_findings(_: ConfigDoc) -> list[Finding]:
    return []


def test_shared_edit_is_one_step_and_steps_are_cumulative() -> None:
    ranked = [
        finding("gc_off", edits=[GC]),
        finding("risky_family_gc_off", edits=[GC]),
        finding("batch_too_large", edits=BATCH),
    ]
    steps = build_ladder(ranked, doc(), no_findings)
    assert [s.rule_ids for s in steps] == [["gc_off", "risky_family_gc_off"], ["batch_too_large"]]
    assert all(s.verified for s in steps)
    first, second = steps[0].corrected_config, steps[1].corrected_config
    assert first is not None and second is not None
    assert "gradient_checkpointing: true  # fast" in first and "batch_size: 4  # four" in first
    assert "gradient_checkpointing: true  # fast" in second and "batch_size: 1  # four" in second
    assert "gradient_accumulation: 4" in second
    assert steps[1].diff is not None and "-  batch_size: 4  # four" in steps[1].diff
    assert "gradient_checkpointing" not in steps[1].diff.replace(
        "  gradient_checkpointing: true  # fast\n", ""
    )


def test_a_step_whose_finding_survives_the_recheck_is_not_shipped() -> None:
    def still_there(_: ConfigDoc) -> list[Finding]:
        return [finding("gc_off")]

    steps = build_ladder([finding("gc_off", edits=[GC])], doc(), still_there)
    assert not steps[0].verified and steps[0].corrected_config is None and steps[0].edits == [GC]


def test_a_step_that_brings_a_new_finding_is_not_shipped() -> None:
    def recheck(d: ConfigDoc) -> list[Finding]:
        fixed = d.data["train"]["gradient_checkpointing"] is True
        return [finding("high_rank")] if fixed else [finding("gc_off")]

    steps = build_ladder([finding("gc_off", edits=[GC])], doc(), recheck)
    assert not steps[0].verified


def test_a_later_step_settled_by_an_earlier_one_is_dropped() -> None:
    def recheck(d: ConfigDoc) -> list[Finding]:
        # Quantizing the transformer also quantizes the text encoder: its finding goes with step 1.
        return (
            []
            if d.data["model"].get("low_vram")
            else [finding("no_low_vram"), finding("text_encoder_not_unloaded_or_cached")]
        )

    ranked = [
        finding("no_low_vram", edits=[ConfigEdit(("model", "low_vram"), True)]),
        finding(
            "text_encoder_not_unloaded_or_cached",
            edits=[ConfigEdit(("train", "cache_text_embeddings"), True)],
        ),
    ]
    steps = build_ladder(ranked, doc(), recheck)
    assert [s.rule_ids for s in steps] == [["no_low_vram"]]


def test_advice_steps_carry_no_config() -> None:
    steps = build_ladder([finding("other_process_on_gpu"), finding("gc_off", edits=[GC])], doc(), no_findings)
    assert steps[0].corrected_config is None and steps[0].edits == []
    assert steps[1].corrected_config is not None and steps[1].number == 2


def test_no_config_no_corrected_text() -> None:
    steps = build_ladder([finding("gc_off", edits=[GC])], None, no_findings)
    assert steps[0].corrected_config is None and not steps[0].verified


def test_a_failing_recheck_costs_the_step_its_config_not_the_ladder() -> None:
    calls = {"n": 0}

    def flaky(_: ConfigDoc) -> list[Finding]:
        calls["n"] += 1
        if calls["n"] > 1:
            raise OverflowError("bug")
        return []

    steps = build_ladder([finding("gc_off", edits=[GC]), finding("fragmentation")], doc(), flaky)
    assert [s.rule_ids for s in steps] == [["gc_off"], ["fragmentation"]]
    assert steps[0].corrected_config is None and not steps[0].verified


def test_the_ladder_holds_only_steps_to_act_on() -> None:
    # "Still out of memory → next step" is offered while step < len(ladder): a last step that only asks
    # for the log would be offered as a fix. The question stays a finding, rendered as a question.
    for path in sorted(CORPUS.glob("*/*/input.txt")):
        report = diagnose([path.read_text(encoding="utf-8")])
        notices = {"input_incomplete", "secret_in_input"}
        assert not any(notices & set(step.rule_ids) for step in report.ladder), path.parent.name
    report = diagnose([next(CORPUS.glob("cases/010*/input.txt")).read_text(encoding="utf-8")])
    assert [s.rule_ids for s in report.ladder] == [["preview_heavy"]]
    assert "input_incomplete" in {f.rule_id for f in report.findings}


def test_a_card_too_small_for_the_model_comes_before_every_config_change() -> None:
    # Below the family's minimum with every low-memory path on, steps that change the config cannot
    # make it fit: the user should not try six of them first.
    found = [
        finding("gc_off", rank=10),
        finding("batch_too_large", rank=20),
        finding("no_low_vram", rank=40),
        finding("gpu_too_small_for_model", Severity.WARNING, 80),
    ]
    for phase in (Phase.TRAINING_STEP, Phase.MODEL_LOAD, Phase.UNKNOWN):
        assert order(found, phase)[0] == "gpu_too_small_for_model"


LATENTS = [ConfigEdit(("datasets", 0, "cache_latents_to_disk"), True)]


def test_uncached_latents_are_a_tip_beside_the_ladder_never_a_step() -> None:
    # Caching latents saves the VAE's share: worth a line under "Also worth checking", not a step the
    # user spends a retry on (104: step 2 after a load OOM), nor the headline of a known-good config.
    ranked = rank_findings(
        [finding("no_low_vram", rank=40), finding("latents_not_cached", Severity.INFO, 60, LATENTS)],
        Facts(phase=Phase.TRAINING_STEP),
    )
    assert [f.rule_id for f in ranked] == ["no_low_vram", "latents_not_cached"]
    steps = build_ladder(ranked, doc(), no_findings)
    assert [s.rule_ids for s in steps] == [["no_low_vram"]]


def test_uncached_latents_alone_are_not_reported_as_a_cause() -> None:
    # AI Toolkit's own Wan 2.2 14B 24 GB example: nothing else wrong, so nothing to blame on the latents.
    tip = finding("latents_not_cached", Severity.INFO, 60, LATENTS)
    secret = finding("secret_in_input", Severity.WARNING, 99)
    kept = drop_ruled_out([tip, secret], Facts())
    assert [x.rule_id for x in kept] == ["secret_in_input"]
    beside = drop_ruled_out([tip, finding("gc_off")], Facts())
    assert [x.rule_id for x in beside] == ["latents_not_cached", "gc_off"]


def test_uncached_latents_are_ruled_out_by_a_load_oom() -> None:
    f = Facts(phase=Phase.MODEL_LOAD, has_oom=True, gpu_oom=True)
    kept = drop_ruled_out([finding("latents_not_cached", Severity.INFO, 60), finding("no_low_vram")], f)
    assert [x.rule_id for x in kept] == ["no_low_vram"]
