"""The texts a rule's params select in the catalogues (`when_<param>_<value>`, `variant.<param>.<value>`):
what the user reads must match what the step changes, in both languages."""

from __future__ import annotations

from typing import Any

import pytest

from diagnosis.facts_model import Facts
from diagnosis.families import family_for
from diagnosis.render.templating import TARGETS, Wording
from diagnosis.render.view import usable_params
from diagnosis.rules import spec_of

LANGS = ("en", "ja")


def found(rule_id: str, f: Facts) -> Any:
    spec = spec_of(rule_id)
    assert spec is not None
    result = spec.check(f)
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


def config(arch: str, name: str, **kw: Any) -> Facts:
    f = Facts(has_config=True, config_parsed=True, config_shape="full_job", vram_gib=24.0, vram_source="user")
    fam = family_for(arch, name)
    f.family_info, f.family, f.family_label, f.params_b = fam, fam.key, fam.label, fam.params_b
    f.is_video, f.arch, f.name_or_path = fam.is_video, arch, name
    for key, value in kw.items():
        setattr(f, key, value)
    return f


WAN = ("wan22_14b", "ai-toolkit/Wan2.2-T2V-A14B-Diffusers-bf16")


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
