"""Reported engine problems, each on the corpus case that showed it."""

from __future__ import annotations

from diagnosis import diagnose
from diagnosis.models import Finding
from diagnosis.render import render_cli
from diagnosis.report import Report
from diagnosis.rules import spec_of
from tests.conftest import CORPUS


def _report(name: str) -> Report:
    case = next(CORPUS.glob(f"*/{name}*"))
    return diagnose([(case / "input.txt").read_text(encoding="utf-8")])


def _finding(report: Report, rule_id: str) -> Finding:
    return next(f for f in report.findings if f.rule_id == rule_id)


def test_preview_without_a_config_sends_no_unknown_values() -> None:
    for name in ("007", "010", "022", "035"):
        params = _finding(_report(name), "preview_heavy").params
        assert all(value is not None for value in params.values()), (name, params)
        assert params.get("prompts") != 0, (name, params)
        assert "width" not in params and "steps" not in params and "every" not in params, (name, params)


def test_preview_with_a_config_keeps_its_values() -> None:
    params = _finding(_report("103"), "preview_heavy").params
    assert params["width"] == 1536 and params["steps"] == 40 and params["prompts"] == 4


def test_text_encoder_already_cached_is_not_told_to_cache() -> None:
    report = _report("026")
    finding = _finding(report, "text_encoder_not_unloaded_or_cached")
    assert finding.params["cached"] is True
    assert finding.applicability.value == "memory_only"
    assert not finding.edits
    for lang in ("en", "ja"):
        text = render_cli(report, lang=lang)
        assert "cache_text_embeddings: true" not in text, lang
        assert "AI Toolkit" in text and "quantize_te" in text, lang


def test_text_encoder_caching_fix_names_the_encoder_and_owns_up_to_the_dropout_change() -> None:
    finding = _finding(_report("106"), "text_encoder_not_unloaded_or_cached")
    assert finding.params["te_name"] == "T5-XXL"
    assert finding.params["cached"] is False
    assert any(e.path[-1] == "cache_text_embeddings" for e in finding.edits)
    # 106 trains with caption dropout 0.05: caching needs 0, so the step changes what is trained
    # (with dropout already 0 it is memory only: tests/test_rules.py).
    assert any(e.path[-1] == "caption_dropout_rate" and e.value == 0.0 for e in finding.edits)
    assert finding.applicability.value == "changes_results"
    assert finding.params["drops_dropout"] is True


def test_other_programs_the_user_mentions_have_no_measured_size() -> None:
    params = _finding(_report("020"), "other_process_on_gpu").params
    assert params["reason"] == "user_says"
    assert "others_gib" not in params and "pids" not in params


def test_a_device_the_user_set_that_is_not_the_failing_gpu_is_a_device_mismatch() -> None:
    finding = _finding(_report("002"), "wrong_gpu")
    assert finding.params["reason"] == "device_mismatch"
    assert any("cuda:3" in e.text for e in finding.evidence)
    # What else holds GPU 0 is still said: the two are separate findings now.
    assert "other_process_on_gpu" in {f.rule_id for f in _report("002").findings}


def test_fragmentation_is_not_raised_when_the_reserved_memory_was_smaller_than_the_request() -> None:
    assert "fragmentation" not in {f.rule_id for f in _report("007").findings}


def test_a_bucket_step_without_an_edit_names_no_buckets_to_keep() -> None:
    for name in ("101", "112"):
        report = _report(name)
        finding = _finding(report, "bucket_too_large")
        assert not finding.edits and "new_buckets" not in finding.params, name
        text = render_cli(report, lang="en")
        assert "Train at 512, 768 only" not in text and "Drop the largest resolution bucket" in text, name


def test_a_bucket_step_over_the_limit_names_what_its_edit_keeps() -> None:
    finding = _finding(_report("102"), "bucket_too_large")
    kept = finding.params["new_buckets"]
    assert [e.value for e in finding.edits] == [kept]


def test_the_card_is_the_one_named_next_to_the_crash_not_the_first_one_named() -> None:
    # Case 011: "RTX 4090 (24 GB) … OOM", then "RTX A6000 (48 GB) … SIGKILL"; the SIGKILL is the error.
    facts = _report("011").facts
    assert facts.vram_gib == 48.0 and facts.gpu_name is not None and "A6000" in facts.gpu_name


def test_the_card_next_to_the_crash_is_found_by_the_readers_line_numbers() -> None:
    # Form feeds and line separators inside a line do not start a line for the log reader; a split at
    # them put the crash lines earlier and took the card named before the A6000.
    for inside in (" ", "\x0c", "\u2028"):
        log = (
            "```\nRunning on NVIDIA GeForce RTX 4090\n"
            + f"a{inside}b{inside}c\n" * 5
            + "Moved to NVIDIA RTX A6000\nJob process terminated with signal SIGKILL\n"
            + "next try on the RTX 4090\n```\n"
        )
        facts = diagnose([log]).facts
        assert (facts.gpu_name, facts.vram_gib) == ("RTX A6000", 48.0), repr(inside)


def test_the_oom_message_total_still_decides_the_card() -> None:
    log = (
        "Tested on an RTX 4090 first, now on the A6000.\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
        "capacity of 23.55 GiB of which 1.00 GiB is free.\n"
    )
    facts = diagnose([log]).facts
    assert facts.vram_source == "oom_message" and facts.vram_gib == 24


def _texts(finding: Finding) -> list[str]:
    return [e.text for e in finding.evidence]


def test_preview_evidence_is_the_trainers_announcement_and_the_heavy_values() -> None:
    texts = _texts(_finding(_report("103"), "preview_heavy"))
    assert "Generating baseline samples before training" in texts
    assert "width: 1536" in texts and "height: 1536" in texts
    assert not any("super().sample" in t or "num_frames" in t for t in texts), texts


def test_a_list_over_several_lines_is_quoted_with_its_values() -> None:
    texts = _texts(_finding(_report("102"), "bucket_too_large"))
    assert '"resolution": [1024, 1536]' in texts, texts


def test_latents_evidence_is_not_an_unrelated_dataset_line() -> None:
    # 104 is a load OOM, where the ladder rules the latents out: the rule itself still reads the config.
    spec = spec_of("latents_not_cached")
    assert spec is not None
    found = spec.check(_report("104").facts)
    assert found is not None
    texts = _texts(found)
    assert not any("folder_path" in t for t in texts), texts


def test_a_traceback_frame_is_quoted_by_its_function_not_its_long_path() -> None:
    texts = _texts(_finding(_report("028"), "shm_too_small"))
    assert texts and all("miniconda3" not in t for t in texts), texts
    assert any("_share_filename_cpu_" in t for t in texts), texts


def test_a_device_mismatch_is_answered_with_the_device_not_with_closing_programs() -> None:
    report = _report("002")
    for lang in ("en", "ja"):
        text = render_cli(report, lang=lang)
        assert "CUDA_VISIBLE_DEVICES" in text and "cuda:3" in text, lang
    assert "Make the run use the GPU you chose" in render_cli(report, lang="en")


def test_a_run_the_user_says_lands_on_another_card_is_a_device_mismatch() -> None:
    # Case 023: "trying to use 'GPU 2' which then in fact uses GPU 0 …" and no log: the reply was
    # "not enough to tell why"; it is the device advice, quoting the user's words.
    finding = _finding(_report("023"), "wrong_gpu")
    assert finding.params["reason"] == "user_says"
    assert any(e.source == "user" and "GPU 0" in e.text for e in finding.evidence)
    assert "another GPU than the one you chose" in render_cli(_report("023"))
    # CUDA numbers the cards fastest first unless told otherwise, nvidia-smi by PCI bus: 023's shift.
    for lang in ("en", "ja"):
        assert "CUDA_DEVICE_ORDER=PCI_BUS_ID" in render_cli(_report("023"), lang=lang), lang


def test_a_user_who_closed_the_programs_is_not_told_to_close_them_again() -> None:
    # Case 020: "Even after manually closing these applications, the issue persists."
    finding = _finding(_report("020"), "other_process_on_gpu")
    assert finding.params.get("tried_closing") is True
    reply = render_cli(_report("020"))
    assert "Close ComfyUI" not in reply and "nvidia-smi" in reply, reply
    # Without those words the usual step stays.
    plain = diagnose(["ComfyUI is open at the same time and I get CUDA out of memory"])
    assert "tried_closing" not in _finding(plain, "other_process_on_gpu").params
