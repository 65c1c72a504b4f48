"""What the output gate costs, as ratios measured side by side (interleaved, medians).

`python -m benchmarks.outgate_ab` prints:
- a reply rendered through the gate against the same reply rendered without it (the example FLUX
  case, the Discord reply with its attached corrected config, and the CLI's text);
- the gate over 1 MiB of log and of config against the input scrubber over the same text, and the
  detect-secrets plugins alone against the scrubber (the gate reads what leaves, a few KB; a megabyte
  is what a whole corrected config attached to a reply can reach at most).
"""

from __future__ import annotations

import functools
import re
import statistics
from collections.abc import Callable, Iterable
from pathlib import Path

from benchmarks.run import ROOT, paired_samples

EXAMPLES = ROOT / "examples"
MIB = 1 << 20


def _ratio(subject: Callable[[], object], baseline: Callable[[], object], rounds: int) -> tuple[float, float]:
    """(median ratio subject/baseline, median subject seconds), runs interleaved."""
    times, baselines = paired_samples(subject, baseline, rounds)
    ratios = [t / max(b, 1e-9) for t, b in zip(times, baselines, strict=True)]
    return statistics.median(ratios), statistics.median(times)


def _listed(find: Callable[[str], Iterable[object]], text: str) -> list[object]:
    return list(find(text))


def _megabyte(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    return (text * (1 + MIB // len(text)))[:MIB]


def main() -> int:
    from diagnosis import diagnose
    from diagnosis.outgate import gate, gate_text
    from diagnosis.outgate.library import _plugins, find_library
    from diagnosis.render import _render_cli, _render_discord, render_cli, render_discord
    from diagnosis.scrub import scrub

    report = diagnose(
        [
            (EXAMPLES / "flux_lora_24gb_gc_off.yaml").read_text(encoding="utf-8"),
            (EXAMPLES / "flux_lora_24gb_oom.log").read_text(encoding="utf-8"),
        ]
    )
    render_discord(report)  # templates translated and patterns compiled before measuring

    ratio, seconds = _ratio(lambda: render_discord(report), lambda: _render_discord(report, None, 1), 200)
    print(f"Discord reply, gated vs not: {ratio:.2f}× ({seconds * 1000:.1f} ms)")
    reply = render_discord(report)
    ratio, seconds = _ratio(lambda: gate.gate_all(reply), lambda: _render_discord(report, None, 1), 200)
    print(
        f"  the bot's second pass over the gated reply vs rendering: {ratio:.2f}× ({seconds * 1000:.2f} ms)"
    )
    ratio, seconds = _ratio(
        lambda: render_cli(report), lambda: _render_cli(report, "text", None, 1, False, False, False), 200
    )
    print(f"CLI text, gated vs not: {ratio:.2f}× ({seconds * 1000:.1f} ms)")

    _plugins()
    never = re.compile("(?!)")
    for name, path in (
        ("log", EXAMPLES / "flux_lora_24gb_oom.log"),
        ("config", EXAMPLES / "flux_lora_24gb_gc_off.yaml"),
    ):
        text = _megabyte(path)
        scrubbing = functools.partial(scrub, text, "x")
        ratio, seconds = _ratio(functools.partial(gate_text, text), scrubbing, 5)
        print(f"gate over 1 MiB of {name} vs the input scrubber: {ratio:.1f}× ({seconds * 1000:.0f} ms)")
        ratio, seconds = _ratio(functools.partial(_listed, find_library, text), scrubbing, 5)
        print(f"  detect-secrets plugins alone vs the scrubber: {ratio:.1f}× ({seconds * 1000:.0f} ms)")
        ratio, _ = _ratio(functools.partial(gate_text, text), functools.partial(never.search, text), 5)
        print(f"  gate vs one plain regex scan: {ratio:.0f}×")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
