"""The bundled example's log alone, its config alone and both together each get a headline that names
what that input proves (issue #16): never "I need a little more" as the headline."""

from __future__ import annotations

import pytest

from diagnosis import diagnose
from diagnosis.render import render_cli
from tests.conftest import EXAMPLES

CONFIG = (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8")
LOG = (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("inputs", "en", "ja"),
    [
        (
            [LOG],
            ["Out of memory at step 2 of training", "(FLUX.1, 24 GB card)"],
            ["学習の 2 ステップ目で", "FLUX.1"],
        ),
        (
            [CONFIG],
            ["gradient checkpointing is turned off", "FLUX.1-dev, batch 4"],
            ["Gradient Checkpointing（GC）がオフ", "FLUX.1-dev"],
        ),
        (
            [CONFIG, LOG],
            ["Out of memory at step 2 of training: most likely because gradient checkpointing is turned off"],
            ["学習の 2 ステップ目で", "Gradient Checkpointing（GC）がオフ"],
        ),
    ],
    ids=["log alone", "config alone", "both"],
)
def test_each_input_gets_a_headline_naming_what_it_proves(
    inputs: list[str], en: list[str], ja: list[str]
) -> None:
    for lang, wanted in (("en", en), ("ja", ja)):
        head = "\n".join(render_cli(diagnose(inputs), lang=lang).splitlines()[:2])
        for part in wanted:
            assert part in head, (lang, head)
        assert not head.startswith(("I need a little more", "Out of memory, but the input does not show"))
