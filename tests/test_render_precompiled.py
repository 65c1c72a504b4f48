"""The precompiled reply templates: current, verbatim Jinja2 output, and used instead of compiling.

When a template changes, `python -m diagnosis.precompile` rebuilds its module; until then the
loader compiles that template from source (slower, never stale) and the first test here fails.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2
import pytest

from diagnosis import diagnose
from diagnosis.precompile import COMPILED_DIR, module_text
from diagnosis.render import render_cli, render_discord, render_explain, render_rules, templating
from diagnosis.render.templating import TEMPLATES_DIR, fingerprint, module_name, source_environment
from tests.conftest import CORPUS, EXAMPLES

TEMPLATES = sorted(TEMPLATES_DIR.glob("*.j2"))
REBUILD = "out of date: run `python -m diagnosis.precompile`"


def test_there_are_templates() -> None:
    assert len(TEMPLATES) >= 6
    assert all(module_name(p.name) for p in TEMPLATES)


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: p.name)
def test_each_module_is_jinja2s_code_for_the_current_template(template: Path) -> None:
    module = COMPILED_DIR / f"{module_name(template.name)}.py"
    assert module.is_file(), REBUILD
    expected = module_text(source_environment(), template.name, template.read_text(encoding="utf-8"))
    assert module.read_text(encoding="utf-8") == expected, REBUILD


def test_no_module_outlives_its_template() -> None:
    stems = {module_name(p.name) for p in TEMPLATES} | {"__init__"}
    assert {p.stem for p in COMPILED_DIR.glob("*.py")} <= stems


def test_the_fingerprint_follows_the_source_and_the_options() -> None:
    env = source_environment()
    other = jinja2.Environment(trim_blocks=False, lstrip_blocks=True)
    assert fingerprint(env, "a") != fingerprint(env, "b")
    assert fingerprint(env, "a") != fingerprint(other, "a")
    assert fingerprint(env, "a") == fingerprint(source_environment(), "a")


def _fresh_precompiled() -> jinja2.Environment:
    return templating._environment(templating._PrecompiledLoader(str(TEMPLATES_DIR)))


def test_current_modules_are_loaded_without_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("a template was compiled at run time")

    env = _fresh_precompiled()
    monkeypatch.setattr(jinja2.Environment, "compile", refuse)
    for template in TEMPLATES:
        assert env.get_template(template.name).name == template.name


def test_a_stale_module_is_ignored_and_the_source_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    source_env = source_environment()
    real_source = source_env.loader.get_source  # type: ignore[union-attr]

    def edited(environment: jinja2.Environment, name: str) -> tuple[str, str | None, Any]:
        source, filename, uptodate = real_source(environment, name)
        return source.replace('{{ t("reply.config.apply") }}', "EDITED"), filename, uptodate

    monkeypatch.setattr(
        templating._PrecompiledLoader, "get_source", lambda self, env, name: edited(env, name)
    )
    env = _fresh_precompiled()
    rendered = env.get_template("fix.j2").render(
        t=lambda key, **_: key, code=lambda body, lang="": body, v={"config": {}}, channel="cli"
    )
    assert rendered.endswith("EDITED")


def _reports() -> list[Any]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(CORPUS.glob("*/*/input.txt"))]
    texts += [p.read_text(encoding="utf-8") for p in sorted(EXAMPLES.iterdir())]
    return [diagnose([text]) for text in texts]


def test_precompiled_and_source_templates_write_the_same_replies(monkeypatch: pytest.MonkeyPatch) -> None:
    reports = _reports()

    def every_reply() -> list[str]:
        out: list[str] = []
        for report in reports:
            for lang in ("en", "ja"):
                for step in (1, 2, 3):
                    out.append(render_cli(report, fmt="text", lang=lang, step=step))
                    reply = render_discord(report, lang=lang, step=step)
                    out.append(reply.content + repr(reply.embeds))
        for lang in ("en", "ja"):
            out.append(render_rules(lang) + render_rules(lang, fmt="text"))
            out.append(str(render_explain("gc_off", lang)) + str(render_explain("batch_too_large", lang)))
        return out

    precompiled = every_reply()
    from_source_env = source_environment()
    monkeypatch.setattr(templating, "environment", lambda: from_source_env)
    from_source = every_reply()
    assert len(precompiled) > 400
    assert precompiled == from_source
