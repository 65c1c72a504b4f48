"""What the per-rule tests share: hand-made Facts, a rule's check, the texts its finding selects in
both languages, and its fix applied to a real config and checked again."""

from __future__ import annotations

from typing import Any

from diagnosis import diagnose
from diagnosis.config.edit import apply_text_edits, plan_edits
from diagnosis.facts_model import DatasetFacts, Facts
from diagnosis.families import family_for
from diagnosis.ladder import drop_ruled_out, rank_findings
from diagnosis.models import Evidence, Finding, LogLine, OomEvent, OomKind, Phase
from diagnosis.render import DiscordReply
from diagnosis.render.templating import TARGETS, Wording
from diagnosis.render.view import usable_params
from diagnosis.rules import run_rules, spec
from tests.golden.cases import swap

GIB = 1024**3
LANGS = ("en", "ja")

FLUX = ("flux", "black-forest-labs/FLUX.1-dev")
QWEN = ("qwen_image", "Qwen/Qwen-Image")
QEDIT = ("qwen_image_edit_plus", "Qwen/Qwen-Image-Edit-2509")
WAN = ("wan22_14b", "ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16")
ALL_ON = {"quantize": True, "quantize_te": True, "low_vram": True, "cache_text_embeddings": True}
ALL_BUT_QUANTIZE = {**ALL_ON, "quantize": False}


# --- Facts by hand ----------------------------------------------------------------------------------


def facts(arch: str | None = "flux", name: str = "black-forest-labs/FLUX.1-dev", **kw: Any) -> Facts:
    """A parsed, complete config for `arch` on a 24 GB card, with the trainer's safe defaults."""
    f = Facts(has_config=True, config_parsed=True, config_shape="full_job", vram_gib=24.0, vram_source="user")
    if arch is not None:
        fam = family_for(arch, name)
        f.family_info, f.family, f.family_label, f.params_b = fam, fam.key, fam.label, fam.params_b
        f.is_video, f.arch, f.name_or_path = fam.is_video, arch, name
    f.dtype, f.dtype_explicit, f.optimizer = "bf16", True, "adamw8bit"
    f.quantize = f.quantize_te = True
    f.datasets = [DatasetFacts(index=0, resolutions=[512, 768, 1024], latents_cached=True)]
    f.paths["datasets[0].resolution"] = ("datasets", 0, "resolution")
    f.buckets, f.max_bucket, f.latents_cached = [512, 768, 1024], 1024, True
    for key, value in kw.items():
        setattr(f, key, value)
    if "buckets" in kw:
        f.datasets[0].resolutions = list(kw["buckets"])
        f.max_bucket = max(kw["buckets"])
    return f


def config(arch: str, name: str, **kw: Any) -> Facts:
    """A parsed, complete config with nothing but the family and `kw` set (no safe defaults)."""
    f = Facts(has_config=True, config_parsed=True, config_shape="full_job", vram_gib=24.0, vram_source="user")
    fam = family_for(arch, name)
    f.family_info, f.family, f.family_label, f.params_b = fam, fam.key, fam.label, fam.params_b
    f.is_video, f.arch, f.name_or_path = fam.is_video, arch, name
    for key, value in kw.items():
        setattr(f, key, value)
    return f


def gpu_event(**kw: Any) -> OomEvent:
    base: dict[str, Any] = {
        "kind": OomKind.CUDA_ALLOC,
        "where": LogLine(1, "CUDA out of memory"),
        "tried_bytes": GIB // 2,
        "total_bytes": int(23.55 * GIB),
        "free_bytes": GIB // 4,
        "process_bytes": 23 * GIB,
        "allocated_bytes": 22 * GIB,
        "reserved_unallocated_bytes": GIB // 4,
    }
    base.update(kw)
    return OomEvent(**base)


def in_step(f: Facts, event: OomEvent | None = None) -> Facts:
    f.has_log = f.has_oom = f.gpu_oom = True
    f.fatal = event or gpu_event()
    f.phase = Phase.TRAINING_STEP
    return f


def oom(f: Facts, phase: Phase, **event: Any) -> Facts:
    f.has_log = f.has_oom = f.gpu_oom = True
    f.fatal = gpu_event(**event)
    f.phase = phase
    return f


def host(kind: OomKind, text: str = "Killed") -> Facts:
    f = Facts(has_log=True, has_oom=True)
    f.host_oom = OomEvent(kind=kind, where=LogLine(1, text))
    return f


def oom_facts(**kw: Any) -> Facts:
    return Facts(has_oom=True, **kw)


# --- a rule's check and its texts -------------------------------------------------------------------


def check(rule_id: str, f: Facts) -> Any:
    """The rule's finding on `f`, or None. Every finding a test sees carries only declared params."""
    found = spec(rule_id).check(f)
    if found is not None:
        assert set(found.params) <= spec(rule_id).params, set(found.params) - spec(rule_id).params
    return found


def found(rule_id: str, f: Facts) -> Any:
    result = check(rule_id, f)
    assert result is not None
    return result


def texts(rule_id: str, f: Facts, lang: str) -> dict[str, str]:
    """The action, the fix bullets, the place in the UI and the extra sentences the reply shows."""
    finding = found(rule_id, f)
    params = usable_params(rule_id, dict(finding.params))
    w = Wording(lang, TARGETS["text"])
    return {
        "action": str(w.action(rule_id, params)),
        "fix": "\n".join(w.rt_list(rule_id, "fix", params)),
        "ui_path": str(w.rt(rule_id, "ui_path", params) or ""),
        "variants": "\n".join(w.variants(rule_id, params)),
        "next": str(w.rt(rule_id, "next", params) or ""),
    }


def assert_said_in_both_languages(rule_id: str, f: Facts) -> None:
    """The finding on `f` is said in every language: an action of its own (not the bare title), the
    fix and where to find it, with every placeholder filled and nothing unknown quoted."""
    shown = {lang: texts(rule_id, f, lang) for lang in LANGS}
    for lang, parts in shown.items():
        assert parts["action"].strip() and parts["fix"].strip() and parts["ui_path"].strip(), (lang, parts)
        for name, text in parts.items():
            assert "{" not in text and "None" not in text, (lang, name, text)
    assert shown["en"]["action"] != shown["ja"]["action"], "the Japanese action is not translated"


def everything(reply: DiscordReply) -> str:
    parts = [reply.content] + [str(e.get(k, "")) for e in reply.embeds for k in ("title", "description")]
    return "\n".join(parts)


# --- a real config, its fix applied -----------------------------------------------------------------

_TEMPLATE = """\
job: extension
config:
  name: example
  process:
    - type: sd_trainer
      network:
        type: lora
        linear: {rank}
        linear_alpha: {rank}
      datasets:
        - folder_path: /data
          caption_dropout_rate: 0.05
          cache_latents_to_disk: true
          resolution: {resolution}
          num_frames: 1
      train:
        batch_size: 1
        gradient_checkpointing: true
        optimizer: adamw8bit
        dtype: bf16
{train}
      model:
{model}
      sample:
        width: 1024
        height: 1024
        sample_every: 250
        sample_steps: 25
        num_frames: 1
        prompts: [a, b, c, d, e, f, g, h, i, j]
"""

Example = tuple[float, int, str, list[str], list[str]]  # VRAM, rank, resolution, train keys, model keys

# The memory settings of AI Toolkit's shipped examples (config-reference §3), each on its card.
EXAMPLES: dict[str, Example] = {
    "train_lora_flux_24gb": (
        24, 16, "[512, 768, 1024]", [],
        ["name_or_path: black-forest-labs/FLUX.1-dev", "is_flux: true", "quantize: true"],
    ),
    "train_lora_flex_24gb": (
        24, 16, "[512, 768, 1024]", [],
        ["name_or_path: ostris/Flex.1-alpha", "is_flux: true", "quantize: true"],
    ),
    "train_lora_chroma_24gb": (
        24, 16, "[512, 768, 1024]", [], ["name_or_path: lodestones/Chroma", "arch: chroma", "quantize: true"]
    ),
    "train_lora_flux_kontext_24gb": (
        24, 16, "[512, 768]", [],
        ["name_or_path: black-forest-labs/FLUX.1-Kontext-dev", "arch: flux_kontext", "quantize: true"],
    ),
    "train_lora_qwen_image_24gb": (
        24, 16, "[512, 768, 1024]", ["cache_text_embeddings: true"],
        ["name_or_path: Qwen/Qwen-Image", "arch: qwen_image", "quantize: true", "qtype: uint3",
         "low_vram: true"],
    ),
    "train_lora_qwen_image_edit_2509_32gb": (
        32, 16, "[512, 768, 1024]", ["cache_text_embeddings: true"],
        ["name_or_path: Qwen/Qwen-Image-Edit-2509", "arch: qwen_image_edit_plus", "quantize: true",
         "qtype: uint3", "low_vram: true"],
    ),
    "train_lora_wan22_14b_24gb": (
        24, 32, "[512, 768, 1024]", ["cache_text_embeddings: true"],
        ["name_or_path: ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16", "arch: wan22_14b", "quantize: true",
         "qtype: uint4", "low_vram: true"],
    ),
    "train_lora_wan21_14b_24gb": (
        24, 32, "[632]", ["unload_text_encoder: true"],
        ["name_or_path: Wan-AI/Wan2.1-T2V-14B-Diffusers", "arch: wan21", "quantize: true", "low_vram: true"],
    ),
    "train_lora_sd35_large_24gb": (
        24, 16, "[1024]", [],
        ["name_or_path: stabilityai/stable-diffusion-3.5-large", "is_v3: true", "quantize: true"],
    ),
    "train_lora_hidream_48": (
        48, 32, "[512, 768, 1024]", [],
        ["name_or_path: HiDream-ai/HiDream-I1-Full", "arch: hidream", "quantize: true", "quantize_te: true"],
    ),
}  # fmt: skip


def job(example: Example) -> str:
    _, rank, resolution, train, model = example
    pad = " " * 8
    return _TEMPLATE.format(
        rank=rank,
        resolution=resolution,
        train="\n".join(pad + line for line in train),
        model="\n".join(pad + line for line in model),
    )


def shipped(name: str, *pairs: tuple[str, str]) -> str:
    """A shipped example's config (which raises nothing on its card) with these lines changed."""
    return swap(job(EXAMPLES[name]), *pairs)


def assert_fix_clears(rule_id: str, text: str, vram_gib: float = 24.0) -> Finding:
    """The rule fires on the config `text`; its edits, written into the text as the reply writes them,
    give a config on which it no longer fires (the config alone re-checked, as the ladder does), and
    which still parses and raises nothing new. Returns the finding."""
    report = diagnose([text], gpu_vram_gib=vram_gib)
    # The rules' own findings, before the ladder leaves out what the reply does not show (a tip alone).
    finding = next((f for f in run_rules(report.facts)[0] if f.rule_id == rule_id), None)
    assert finding is not None, [f.rule_id for f in run_rules(report.facts)[0]]
    assert finding.edits, "the rule gives no edit to apply"
    assert report.config is not None and report.config.ok
    fixed = apply_text_edits(report.config.piece.text, plan_edits(report.config, finding.edits))
    assert fixed != report.config.piece.text
    again = diagnose([fixed], gpu_vram_gib=vram_gib)
    assert again.config is not None and again.config.ok
    before = {f.rule_id for f in run_rules(report.facts)[0]}
    after = {f.rule_id for f in run_rules(again.facts)[0]}
    # As the ladder asks of a step: its finding gone, and nothing new brought in.
    assert rule_id not in after and after <= before, (sorted(before), sorted(after), fixed)
    return finding


def assert_missing_key_is_said_missing(rule_id: str, key: str, lang: str) -> None:
    """A key the config leaves out (the trainer's default applies) is said missing; the line of its
    section is not quoted as if it held the key."""
    g = config(*FLUX, quantize=True, dtype="fp32", dtype_explicit=False, optimizer="adamw")
    g.full_finetune = True
    g.paths["section_train"] = ("train",)
    g.evidence["section_train"] = Evidence("stdin", 12, "train:")
    finding = found(rule_id, g)
    assert all(e.text != "train:" for e in finding.evidence), finding.evidence
    params = usable_params(rule_id, dict(finding.params))
    detail = str(Wording(lang, TARGETS["text"]).first(rule_id, ("detail", "detail_short"), params))
    assert f"`{key}`" in detail and "`train:`" in detail, detail


# The fixes that only lower the card's memory: after the host ran out, none of them is a next step.
VRAM_ONLY = frozenset(
    {
        "gc_off", "risky_family_gc_off", "no_low_vram", "text_encoder_not_unloaded_or_cached",
        "train_text_encoder_on", "other_process_on_gpu", "gpu_too_small_for_model", "latents_not_cached",
        "batch_too_large", "bucket_too_large", "preview_heavy", "video_frames_heavy", "high_rank",
        "optimizer_full_precision_states", "fragmentation",
    }
)  # fmt: skip


def ladder_after_host_oom(kind: OomKind, text: str) -> list[str]:
    """The ranked findings of a FLUX config with every VRAM lever off, after the host ran out."""
    f = facts(vram_gib=12.0, gradient_checkpointing=False, gc_explicit=True, low_vram=False, batch_size=4)
    f.paths["gradient_checkpointing"] = ("train", "gradient_checkpointing")
    f.has_log = f.has_oom = True
    f.host_oom = OomEvent(kind=kind, where=LogLine(1, text))
    return [x.rule_id for x in rank_findings(drop_ruled_out(run_rules(f)[0], f), f)]
