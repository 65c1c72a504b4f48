"""`input_incomplete`: Not enough information."""

from __future__ import annotations

from diagnosis.facts_model import Facts
from diagnosis.models import Applicability, Finding, Phase, Severity
from diagnosis.rules.base import Role, RuleSpec, big_model, ev, gpu_oom
from diagnosis.rules.other_trainer_config import heard_another_trainer

# The phases with a checklist of their own in the catalogue (`when_phase_<phase>`).
_CHECKLISTS = frozenset(
    p.value
    for p in (
        Phase.MODEL_LOAD,
        Phase.QUANTIZE,
        Phase.LATENT_CACHING,
        Phase.TEXT_EMBEDDING_CACHING,
        Phase.FIRST_SAMPLE,
        Phase.SAMPLING,
        Phase.TRAINING_STEP,
    )
)


def check_input_incomplete(f: Facts) -> Finding | None:
    """Ask for exactly what is missing, when the case lacks the config or the log."""
    if f.not_oom_kind is not None or heard_another_trainer(f):
        return None  # an error of another kind, or another trainer's config: AI Toolkit's is no help
    missing: list[str] = []
    if not f.has_config:
        missing.append("config")
    elif f.config_cut:
        # The message was cut in the middle of a value: what parsed is checked, the rest is asked for as
        # a file (a second message would be cut the same way).
        missing.append("config_cut")
    elif f.config_parsed and f.config_shape != "fragment" and f.family is None:
        # A job without its model section is a paste cut short: the model decides every threshold.
        # Asked as "the rest of the config", so the user does not read it as "you sent no config".
        missing.append("config_rest")
    if not f.has_log and (not f.has_config or f.says_oom):
        # With no error anywhere (a hang, a slowdown), the log is wanted up to where the run stops.
        missing.append("log" if f.has_oom or f.fatal is not None else "log_until_stop")
    elif f.has_log and f.log_cut and f.fatal is None and f.host_oom is None:
        missing.append("error_lines")
    if not missing:
        return None
    if f.vram_source == "assumed":
        missing.append("gpu")
    params: dict[str, object] = {"missing": missing}
    if gpu_oom(f) and not f.has_config:
        # A log without its config still proves the phase: the reply says what that rules in and out,
        # and which settings to look at, before it asks for the config. With no phase, the settings
        # behind most out-of-memory errors, in the order to check them.
        params["phase"] = f.phase.value if f.phase.value in _CHECKLISTS else Phase.UNKNOWN.value
        if f.family is not None and f.params_b is not None:
            # The model is known: the checklist names it (a large one) or leaves its line out (a small
            # one), instead of "if the model is 12B or more".
            params["model_size"] = "big" if big_model(f) else "small"
            params["family_label"] = f.family_label or f.family
    elif f.log_cut and f.phase.value in _CHECKLISTS:
        # A traceback cut before its last line still shows, in its frames, where the run was.
        params["cut_phase"] = f.phase.value
    # The frame that shows the phase is quoted when it is all the traceback shows.
    shown = ev(f, "phase") if "cut_phase" in params else []
    return SPEC.finding(evidence=[*ev(f, "oom", "host_oom", "user_oom"), *shown], params=params)


SPEC = RuleSpec(
    id="input_incomplete",
    order=230,
    severity=Severity.INFO,
    applicability=Applicability.ADVICE,
    reads=(
        "has_config",
        "config_cut",
        "config_parsed",
        "has_log",
        "log_cut",
        "fatal",
        "vram_source",
        "says_oom",
        "not_oom_kind",
        "phase",
        "family",
        "params_b",
        "said",
    ),
    rank=95,
    check=check_input_incomplete,
    # Said whatever the input shows: an error that is not an OOM does not make it moot.
    oom_checklist=False,
    params=frozenset({"missing", "phase", "cut_phase", "model_size", "family_label"}),
    role=Role.QUESTION,
)
