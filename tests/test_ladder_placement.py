"""The ladder's order comes from each rule's `Placement`. Before it did, the order was one data file
(data/ladder.yaml); the file's lists are kept here (two long lines wrapped), so a change of placement
that would reorder a reply shows up as a failure of this test and has to be made on purpose."""

from __future__ import annotations

from typing import Any

import yaml

from diagnosis.models import Phase
from diagnosis.rules import Role, catalogue
from diagnosis.rules.base import LADDER_PHASES, LEADS_PLACE

_BEFORE = yaml.safe_load(
    """
# The fix ladder's order (RULES.md "Phase changes the order", DESIGN.md "The fix ladder").
# A rule's place: its index in `first` (always), then in the phase's list, then its base rank;
# rules in the phase's `last` list go after everything else (they are not what broke this phase).

# Findings about later phases that the evidence rules out as the cause: an OOM while loading or
# quantizing the model, or the host running out of RAM, is not answered with buckets or previews.
ruled_out:
  load: [batch_too_large, bucket_too_large, preview_heavy, video_frames_heavy, high_rank,
         optimizer_full_precision_states, latents_not_cached]
  # Issue #19: after the host ran out, every fix that only lowers the card's memory is ruled out too.
  host: [batch_too_large, bucket_too_large, preview_heavy, video_frames_heavy, high_rank,
         optimizer_full_precision_states, fragmentation, gc_off, risky_family_gc_off, no_low_vram,
         text_encoder_not_unloaded_or_cached, train_text_encoder_on, other_process_on_gpu,
         gpu_too_small_for_model, latents_not_cached, layer_offloading_off]

# Tips: worth a line under "Also worth checking", never a step of the ladder nor the cause in the headline
# (caching latents saves the VAE's share, rarely what decides an OOM). A tip with no other finding beside
# it is left out: a config that only lacks it is not "likely to run out of memory".
tips: [latents_not_cached]

# gpu_too_small_for_model comes before every config change: on a card below what the family needs with
# every low-memory path on, none of those changes can make it fit. Rules added since the file was
# retired are listed here too, so that a new placement is a decision this test sees.
first: [yaml_invalid, other_trainer_config, not_oom, system_ram_oom, windows_pagefile, shm_too_small,
        wrong_gpu, gpu_not_visible, gpu_too_small_for_model, vram_spill_to_shared_memory]

phases:
  model_load:
    order: [other_process_on_gpu, no_quantize_big_model, no_low_vram, text_encoder_not_unloaded_or_cached,
            dtype_fp32, gpu_too_small_for_model]
    last: [gc_off, risky_family_gc_off, batch_too_large, bucket_too_large, preview_heavy, video_frames_heavy,
           high_rank, optimizer_full_precision_states, latents_not_cached, train_text_encoder_on,
           fragmentation]
  quantize:
    order: [other_process_on_gpu, no_low_vram, no_quantize_big_model, text_encoder_not_unloaded_or_cached,
            dtype_fp32, gpu_too_small_for_model]
    last: [gc_off, risky_family_gc_off, batch_too_large, bucket_too_large, preview_heavy, video_frames_heavy,
           high_rank, optimizer_full_precision_states, latents_not_cached, train_text_encoder_on,
           fragmentation]
  latent_caching:
    order: [other_process_on_gpu, bucket_too_large, video_frames_heavy, no_low_vram, no_quantize_big_model]
    last: [gc_off, risky_family_gc_off, batch_too_large, preview_heavy, high_rank,
           optimizer_full_precision_states, train_text_encoder_on]
  text_embedding_caching:
    order: [other_process_on_gpu, text_encoder_not_unloaded_or_cached, no_low_vram, no_quantize_big_model]
    last: [gc_off, risky_family_gc_off, batch_too_large, preview_heavy, high_rank,
           optimizer_full_precision_states, train_text_encoder_on]
  dataloader:
    order: [other_process_on_gpu]
    last: [gc_off, risky_family_gc_off, batch_too_large, preview_heavy, high_rank]
  first_sample:
    order: [other_process_on_gpu, preview_heavy]
    last: [gc_off, risky_family_gc_off, batch_too_large, high_rank, optimizer_full_precision_states]
  sampling:
    order: [other_process_on_gpu, preview_heavy]
    last: [gc_off, risky_family_gc_off, batch_too_large, high_rank, optimizer_full_precision_states]
  training_step:
    order: [other_process_on_gpu, gc_off, risky_family_gc_off, batch_too_large, bucket_too_large,
            video_frames_heavy]
    last: []
  save:
    order: [other_process_on_gpu]
    last: [gc_off, risky_family_gc_off, batch_too_large, bucket_too_large, preview_heavy]
"""
)


def _first() -> list[str]:
    placed = [s for s in catalogue() if s.placement.first is not None]
    return [s.id for s in sorted(placed, key=lambda s: s.placement.first or 0)]


def _order(phase: str) -> list[str]:
    placed = [s for s in catalogue() if phase in s.placement.phases]
    return [s.id for s in sorted(placed, key=lambda s: s.placement.phases[phase])]


def _last(phase: str) -> set[str]:
    return {s.id for s in catalogue() if phase in s.placement.last_in}


def test_first_is_unchanged() -> None:
    assert _first() == _BEFORE["first"]


def test_each_phase_orders_as_before() -> None:
    phases: dict[str, Any] = _BEFORE["phases"]
    assert set(phases) == LADDER_PHASES
    for phase, lists in phases.items():
        assert _order(phase) == lists["order"], phase
        assert _last(phase) == set(lists["last"]), phase


def test_ruled_out_and_tips_are_unchanged() -> None:
    for evidence, ids in _BEFORE["ruled_out"].items():
        assert {s.id for s in catalogue() if evidence in s.placement.ruled_out_by} == set(ids), evidence
    assert [s.id for s in catalogue() if s.role == Role.TIP] == _BEFORE["tips"]


def test_no_placement_names_a_phase_the_ladder_does_not_know() -> None:
    for s in catalogue():
        assert set(s.placement.phases) <= LADDER_PHASES, s.id
        assert s.placement.last_in <= LADDER_PHASES, s.id
        assert s.placement.ruled_out_by <= {"load", "host"}, s.id
    assert Phase.UNKNOWN.value not in LADDER_PHASES


def test_a_leading_default_is_a_declared_flag_and_ranks_between_the_log_and_the_phase() -> None:
    # `leads_when` names a param the rule declares; LEADS_PLACE sits after what the log blames (place 0)
    # and before every fix a phase orders, so no placement may take the places in between.
    for s in catalogue():
        if s.placement.leads_when is not None:
            assert s.placement.leads_when in s.params, s.id
        for place in s.placement.phases.values():
            assert place == 0 or place > LEADS_PLACE, (s.id, place)
