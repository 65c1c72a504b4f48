"""Hand-built reports for the render tests: the shapes the engine produces, without the engine.

Configs come from the corpus (scrubbed, as intake would), so the excerpts and diffs are real ones.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from diagnosis.facts_model import Facts
from diagnosis.models import (
    Applicability,
    ConfigDoc,
    ConfigEdit,
    ConfigShape,
    Evidence,
    Finding,
    LadderStep,
    LogFacts,
    LogLine,
    Note,
    OomEvent,
    OomKind,
    OtherProcess,
    Phase,
    Piece,
    PieceKind,
    Severity,
)
from diagnosis.report import Report
from diagnosis.scrub import scrub

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
GIB = 1024**3
MIB = 1024**2
MEM, CHG, ADV = Applicability.MEMORY_ONLY, Applicability.CHANGES_RESULTS, Applicability.ADVICE
ERR, WARN, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


def corpus_config(case: str) -> tuple[str, str]:
    """The first fenced config of a corpus input, scrubbed, and its fence language."""
    path = next((CORPUS / "synthetic").glob(f"{case}*")) / "input.txt"
    text, _ = scrub(path.read_text(encoding="utf-8"), "message 1")
    m = re.search(r"```(yaml|json)\n(.*?)```", text, re.S)
    assert m is not None, case
    return m.group(2), m.group(1)


def swap(text: str, *pairs: tuple[str, str]) -> str:
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


def ev(line: int | None, text: str, source: str = "message 1") -> Evidence:
    return Evidence(source, line, text)


def finding(
    rule_id: str,
    severity: Severity,
    applicability: Applicability,
    evidence: list[Evidence] | None = None,
    rank: int = 100,
    edits: list[ConfigEdit] | None = None,
    **params: Any,
) -> Finding:
    return Finding(rule_id, severity, applicability, evidence or [], params, edits or [], rank)


def config_doc(text: str, fmt: str = "yaml") -> ConfigDoc:
    kind = PieceKind.CONFIG_JSON if fmt == "json" else PieceKind.CONFIG_YAML
    piece = Piece(kind=kind, text=text, source="message 1", input_index=0, line_offset=4, fenced=True)
    return ConfigDoc(piece, fmt, ConfigShape.FULL_JOB, {"job": "extension"}, ("config", "process", 0), {})


def log_facts(phase: Phase, step: int | None = None, event: OomEvent | None = None) -> LogFacts:
    piece = Piece(kind=PieceKind.LOG, text="", source="message 1", input_index=0, line_offset=60)
    log = LogFacts(piece=piece, phase=phase, step=step)
    if event is not None:
        log.events, log.fatal = [event], event
    return log


def cuda_oom(
    tried: float, free_mib: float, total: float, process: float | None = None, **kw: Any
) -> OomEvent:
    return OomEvent(
        kind=kw.pop("kind", OomKind.CUDA_ALLOC),
        where=LogLine(80, "torch.OutOfMemoryError: CUDA out of memory."),
        tried_bytes=int(tried * GIB),
        free_bytes=int(free_mib * MIB),
        total_bytes=int(total * GIB),
        process_bytes=int(process * GIB) if process is not None else None,
        **kw,
    )


def step(number: int, f: Finding, corrected: str | None) -> LadderStep:
    return LadderStep(number, [f.rule_id], f.edits, corrected, None, corrected is not None)


def logged_oom(
    findings: list[Finding],
    ladder: list[LadderStep],
    facts: Facts,
    lang: str,
    event: OomEvent | None,
    config: ConfigDoc | None = None,
    **report: Any,
) -> Report:
    """A report of a log that ran out of memory: the log stopped where the facts say (phase, step),
    and the facts say a config was read exactly when there is one."""
    facts.has_log = facts.has_oom = True
    facts.has_config = facts.config_parsed = config is not None
    log = log_facts(facts.phase, facts.step, event)
    return Report(findings, ladder, facts, lang, False, config, log, **report)


# --------------------------------------------------------------------------------------------------


def flux_gc_off_step2() -> Report:
    text, _ = corpus_config("101")
    gc = finding(
        "risky_family_gc_off",
        ERR,
        MEM,
        [ev(28, "gradient_checkpointing: false")],
        10,
        [ConfigEdit(("train", "gradient_checkpointing"), True)],
        family="flux",
        family_label="FLUX.1-dev",
    )
    batch = finding(
        "batch_too_large",
        WARN,
        CHG,
        [ev(24, "batch_size: 4")],
        20,
        [ConfigEdit(("train", "batch_size"), 1), ConfigEdit(("train", "gradient_accumulation"), 4)],
        batch_size=4,
        new_batch_size=1,
        new_accumulation=4,
        effective_batch=4,
    )
    bucket = finding(
        "bucket_too_large",
        WARN,
        CHG,
        [ev(19, "resolution: [ 512, 768, 1024 ]")],
        30,
        max_bucket=1024,
        limit=1024,
        within=True,  # FLUX.1 at 24 GB holds 1024: the rule advises, it does not edit
    )
    fixed_gc = swap(text, ("gradient_checkpointing: false", "gradient_checkpointing: true"))
    fixed_batch = swap(fixed_gc, ("batch_size: 4", "batch_size: 1"))
    facts = Facts(
        family="flux",
        family_label="FLUX.1-dev",
        vram_gib=24,
        vram_source="oom_message",
        batch_size=4,
        gradient_checkpointing=False,
        gc_explicit=True,
        max_bucket=1024,
        phase=Phase.TRAINING_STEP,
        step=2,
    )
    event = cuda_oom(2.0, 40, 23.55, 22.9)
    ladder = [step(1, gc, fixed_gc), step(2, batch, fixed_batch), step(3, bucket, None)]
    return logged_oom([gc, batch, bucket], ladder, facts, "en", event, config_doc(text))


def zimage_gc_off_json() -> Report:
    text, fmt = corpus_config("102")
    gc = finding(
        "risky_family_gc_off",
        ERR,
        MEM,
        [ev(68, '"gradient_checkpointing": false,')],
        10,
        [ConfigEdit(("train", "gradient_checkpointing"), True)],
        family="zimage",
        family_label="Z-Image Turbo",
    )
    bucket = finding(
        "bucket_too_large",
        WARN,
        CHG,
        [ev(50, "1536")],
        30,
        max_bucket=1536,
        limit=1024,
        new_buckets=[1024],
    )
    fixed = swap(text, ('"gradient_checkpointing": false', '"gradient_checkpointing": true'))
    facts = Facts(
        family="zimage",
        family_label="Z-Image Turbo",
        vram_gib=24,
        vram_source="gpu_name",
        batch_size=4,
        gradient_checkpointing=False,
        gc_explicit=True,
        max_bucket=1536,
        phase=Phase.TRAINING_STEP,
        step=1,
    )
    ladder = [step(1, gc, fixed), step(2, bucket, None)]
    return logged_oom([gc, bucket], ladder, facts, "ja", None, config_doc(text, fmt))


def qwen_first_preview() -> Report:
    text, _ = corpus_config("103")
    preview = finding(
        "preview_heavy",
        ERR,
        MEM,
        [ev(40, "width: 1536"), ev(41, "height: 1536"), ev(43, "sample_steps: 40")],
        5,
        [ConfigEdit(("sample", "width"), 1024), ConfigEdit(("sample", "height"), 1024)],
        width=1536,
        height=1536,
        steps=40,
        prompts=4,
        every=250,
        frames=1,
        new_width=1024,
        new_height=1024,
        new_steps=25,
    )
    fixed = swap(text, ("width: 1536", "width: 1024"), ("height: 1536", "height: 1024"))
    facts = Facts(
        family="qwen_image",
        family_label="Qwen-Image 2512",
        vram_gib=32,
        vram_source="oom_message",
        phase=Phase.FIRST_SAMPLE,
    )
    event = cuda_oom(4.5, 1200, 31.36, 29.6)
    return logged_oom([preview], [step(1, preview, fixed)], facts, "en", event, config_doc(text))


def wan_low_vram_loading() -> Report:
    text, _ = corpus_config("104")
    low = finding(
        "no_low_vram",
        ERR,
        MEM,
        [ev(33, "low_vram: false")],
        5,
        [ConfigEdit(("model", "low_vram"), True)],
        family_label="Wan 2.2 T2V 14B",
    )
    fixed = swap(text, ("low_vram: false", "low_vram: true"))
    facts = Facts(
        family="wan22_14b",
        family_label="Wan 2.2 T2V 14B",
        vram_gib=24,
        vram_source="oom_message",
        phase=Phase.MODEL_LOAD,
    )
    event = cuda_oom(0.27, 110, 23.64, 23.1)
    return logged_oom([low], [step(1, low, fixed)], facts, "en", event, config_doc(text))


def kontext_secret() -> Report:
    text, _ = corpus_config("110")
    bucket = finding(
        "bucket_too_large",
        ERR,
        CHG,
        [ev(36, "resolution: [ 512, 768, 1024 ]")],
        10,
        [ConfigEdit(("datasets", 0, "resolution"), [512, 768])],
        max_bucket=1024,
        limit=768,  # Kontext's limit at 24 GB, as the rule gives it for corpus 110
        new_buckets=[512, 768],
    )
    secret = finding(
        "secret_in_input", WARN, ADV, [ev(24, "hf_token: hf_REDACTED")], 0, kinds="hf_token", count=1
    )
    fixed = swap(text, ("resolution: [ 512, 768, 1024 ]", "resolution: [ 512, 768 ]"))
    facts = Facts(
        family="flux_kontext",
        family_label="FLUX.1 Kontext",
        vram_gib=24,
        vram_source="gpu_name",
        max_bucket=1024,
        phase=Phase.TRAINING_STEP,
        step=1,
    )
    event = cuda_oom(1.5, 600, 23.99, 22.1)
    ladder = [step(1, bucket, fixed)]
    return logged_oom([secret, bucket], ladder, facts, "ja", event, config_doc(text), secrets_found=1)


def yaml_tab_invalid() -> Report:
    f = finding(
        "yaml_invalid",
        ERR,
        ADV,
        [ev(17, "\tbatch_size: 1")],
        0,
        line=17,
        column=1,
        problem="found character '\\t' that cannot start any token",
        line_text="\tbatch_size: 1",
        tab=True,
    )
    facts = Facts(has_config=True, config_parsed=False)
    return Report([f], [], facts, "ja", False)


def sdxl_other_process() -> Report:
    other = finding(
        "other_process_on_gpu",
        ERR,
        ADV,
        [ev(12, "Process 4242 has 7.10 GiB memory in use.")],
        1,
        others_gib=7.1,
        pids=[4242],
        reason="other_pids",
    )
    event = cuda_oom(0.5, 20, 11.76, 4.3, other_processes=[OtherProcess(4242, int(7.1 * GIB))])
    facts = Facts(
        family="sdxl",
        family_label="SDXL",
        vram_gib=12,
        vram_source="oom_message",
        phase=Phase.TRAINING_STEP,
        step=15,
    )
    return logged_oom([other], [step(1, other, None)], facts, "en", event)


def klein_host_ram() -> Report:
    ram = finding(
        "system_ram_oom",
        ERR,
        ADV,
        [ev(57, "Killed")],
        1,
        signal="killed",
        layer_offloading=True,
    )
    facts = Facts(
        family="flux2_klein",
        family_label="FLUX.2 Klein 9B",
        oom_kind="host_killed",
        layer_offloading=True,
        phase=Phase.QUANTIZE,
    )
    host = OomEvent(kind=OomKind.HOST_KILLED, where=LogLine(57, "Killed"))
    return logged_oom([ram], [step(1, ram, None)], facts, "en", host)


def hf_gated_not_oom() -> Report:
    f = finding(
        "not_oom",
        ERR,
        ADV,
        [ev(31, "huggingface_hub.errors.GatedRepoError: 401 Client Error.")],
        kind="hf_auth",
        headline="GatedRepoError: 401 Client Error. Cannot access gated repo for url https://huggingface.co/...",
    )
    facts = Facts(has_log=True, not_oom_kind="hf_auth")
    return Report([f], [], facts, "en", True, None, log_facts(Phase.MODEL_LOAD))


def one_line_question() -> Report:
    f = finding("input_incomplete", INFO, ADV, missing=["config", "error_lines", "gpu"])
    return Report([f], [], Facts(), "ja", False)


def regression_and_fragmentation() -> Report:
    reg = finding(
        "regression_after_update",
        WARN,
        ADV,
        [ev(1, "it worked before I updated ai-toolkit yesterday", "user")],
        1,
        quote="it worked before I updated ai-toolkit yesterday",
    )
    frag = finding(
        "fragmentation",
        INFO,
        ADV,
        [ev(44, "6.20 GiB is reserved by PyTorch but unallocated.")],
        50,
        reserved_gib=6.2,
        tried_gib=1.25,
    )
    facts = Facts(
        family="flux2_klein",
        family_label="FLUX.2 Klein 9B",
        vram_gib=16,
        vram_source="oom_message",
        phase=Phase.TRAINING_STEP,
        step=350,
        said={"regression_after_update.regression": "It worked before the update"},
    )
    event = cuda_oom(1.25, 300, 15.47, 14.9, reserved_unallocated_bytes=int(6.2 * GIB))
    ladder = [step(1, reg, None), step(2, frag, None)]
    return logged_oom([reg, frag], ladder, facts, "en", event, notes=[Note("vram_assumed", {"gib": 16})])


def windows_pagefile() -> Report:
    f = finding(
        "windows_pagefile", ERR, ADV, [ev(40, "OSError: [WinError 1455] The paging file is too small")]
    )
    facts = Facts(oom_kind="windows_pagefile", os="windows", phase=Phase.MODEL_LOAD)
    event = OomEvent(kind=OomKind.WINDOWS_PAGEFILE, where=LogLine(40, "OSError: [WinError 1455]"))
    return logged_oom([f], [step(1, f, None)], facts, "ja", event)


def config_only_risk() -> Report:
    text, _ = corpus_config("112")
    batch = finding(
        "batch_too_large",
        WARN,
        CHG,
        [ev(20, "batch_size: 8")],
        20,
        [ConfigEdit(("train", "batch_size"), 2), ConfigEdit(("train", "gradient_accumulation"), 4)],
        batch_size=8,
        new_batch_size=2,
        new_accumulation=4,
        effective_batch=8,
    )
    fixed = swap(text, ("batch_size: 8", "batch_size: 2"))
    facts = Facts(
        has_config=True,
        config_parsed=True,
        family="flux",
        family_label="Flex.1-alpha",
        vram_gib=24,
        vram_source="user",
        batch_size=8,
        max_bucket=1024,
    )
    return Report(
        [batch],
        [step(1, batch, fixed)],
        facts,
        "en",
        False,
        config_doc(text),
    )


def hostile_values() -> Report:
    """User text that tries to break out: fences, pings, masked links, bidi overrides, ANSI."""
    evil = "```\n@everyone <@123> <@&45> <#67> [click](https://evil.example) \u202eevil\u200b \x1b[31mred"
    text = f"train:\n  gradient_checkpointing: false  # {evil}\n  batch_size: 1\n"
    gc = finding(
        "gc_off",
        ERR,
        MEM,
        [ev(2, f"gradient_checkpointing: false  # {evil}", source="@here.yaml")],
        1,
        [ConfigEdit(("train", "gradient_checkpointing"), True)],
    )
    nf = finding(
        "other_process_on_gpu", WARN, ADV, [ev(3, evil)], 50, others_gib=1.5, pids=evil, reason="other_pids"
    )
    fixed = swap(text, ("gradient_checkpointing: false", "gradient_checkpointing: true"))
    facts = Facts(
        has_config=True,
        config_parsed=True,
        family_label=f"FLUX {evil}",
        gradient_checkpointing=False,
        gc_explicit=True,
    )
    return Report([gc, nf], [step(1, gc, fixed)], facts, "en", False, config_doc(text))


CASES: dict[str, Callable[[], Report]] = {
    "flux_gc_off_step2": flux_gc_off_step2,
    "zimage_gc_off_json": zimage_gc_off_json,
    "qwen_first_preview": qwen_first_preview,
    "wan_low_vram_loading": wan_low_vram_loading,
    "kontext_secret": kontext_secret,
    "yaml_tab_invalid": yaml_tab_invalid,
    "sdxl_other_process": sdxl_other_process,
    "klein_host_ram": klein_host_ram,
    "hf_gated_not_oom": hf_gated_not_oom,
    "one_line_question": one_line_question,
    "regression_and_fragmentation": regression_and_fragmentation,
    "windows_pagefile": windows_pagefile,
    "config_only_risk": config_only_risk,
    "hostile_values": hostile_values,
}
