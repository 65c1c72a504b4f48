from diagnosis.render.runtime import UNDEFINED, Loop, Scope, attr, call, concat, item, macro
from diagnosis.render.runtime import f_join, f_length, f_list, f_selectattr


def render(context):
    s0 = Scope(context)
    out = []
    w = out.append
    s0.vars['where'] = (call(s0.get('t'), attr(s0.get('v'), 'where_key'), step=attr(s0.get('v'), 'step')) if attr(s0.get('v'), 'where_key') else '')
    s0.vars['cause_text'] = (call(s0.get('cause'), attr(s0.get('v'), 'primary'), item(attr(s0.get('v'), 'rule_params'), attr(s0.get('v'), 'primary'))) if attr(s0.get('v'), 'primary') else None)
    if ((attr(s0.get('v'), 'shown_step') > 1) and attr(s0.get('v'), 'step_view')):
        s0.vars['s'] = attr(s0.get('v'), 'step_view')
        w(str(call(s0.get('b'), call(s0.get('t'), 'reply.headline.step', number=attr(s0.get('s'), 'number'), total=attr(s0.get('v'), 'total_steps'), action=call(s0.get('trusted'), call(s0.get('action'), attr(s0.get('s'), 'rule_id'), attr(s0.get('s'), 'params')))))))
    elif (attr(s0.get('v'), 'shown_step') > 1):
        w(str(call(s0.get('b'), call(s0.get('t'), 'reply.headline.step_beyond', number=attr(s0.get('v'), 'shown_step'), total=attr(s0.get('v'), 'total_steps')))))
    elif (attr(s0.get('v'), 'kind') == 'verdict'):
        w(str(call(s0.get('b'), call(s0.get('rt'), attr(attr(s0.get('v'), 'verdict'), 'rule_id'), 'headline', attr(attr(s0.get('v'), 'verdict'), 'params')))))
    elif (attr(s0.get('v'), 'kind') == 'question'):
        if ((attr(s0.get('v'), 'has_oom') and attr(s0.get('v'), 'where_key')) and attr(attr(s0.get('v'), 'question_params'), 'phase')):
            w(str(call(s0.get('b'), call(s0.get('t'), 'reply.headline.question_oom_where', where=s0.get('where')))))
        else:
            w(str(call(s0.get('b'), call(s0.get('t'), ('reply.headline.question_oom' if attr(s0.get('v'), 'has_oom') else 'reply.headline.question')))))
    elif (attr(s0.get('v'), 'kind') == 'clean'):
        w(str(call(s0.get('b'), call(s0.get('t'), 'reply.headline.clean'))))
    elif (((not attr(s0.get('v'), 'has_oom')) and attr(s0.get('v'), 'primary')) and call(s0.get('rt'), attr(s0.get('v'), 'primary'), 'headline_no_oom', item(attr(s0.get('v'), 'rule_params'), attr(s0.get('v'), 'primary')))):
        w(str(call(s0.get('b'), call(s0.get('rt'), attr(s0.get('v'), 'primary'), 'headline_no_oom', item(attr(s0.get('v'), 'rule_params'), attr(s0.get('v'), 'primary'))))))
    else:
        s0.vars['base'] = ('host' if attr(s0.get('v'), 'host_oom') else ('oom' if attr(s0.get('v'), 'has_oom') else ('risk' if attr(s0.get('v'), 'has_config') else 'risk_described')))
        w(str(call(s0.get('b'), call(s0.get('t'), concat(('reply.headline.', s0.get('base'), ('_cause' if s0.get('cause_text') else '_no_cause'), )), where=s0.get('where'), cause=s0.get('cause_text')))))
    if (((((attr(s0.get('v'), 'kind') == 'diagnosis') or ((attr(s0.get('v'), 'kind') == 'verdict') and attr(attr(s0.get('v'), 'verdict_shape'), 'context'))) or ((attr(s0.get('v'), 'kind') == 'question') and attr(s0.get('v'), 'has_oom'))) and attr(s0.get('v'), 'context')) and (attr(s0.get('v'), 'shown_step') == 1)):
        w('\n')
        s0.vars['parts'] = []
        if attr(attr(s0.get('v'), 'context'), 'family_label'):
            s0.vars['_'] = call(attr(s0.get('parts'), 'append'), call(s0.get('t'), 'reply.context.family', family_label=attr(attr(s0.get('v'), 'context'), 'family_label')))
        if attr(attr(s0.get('v'), 'context'), 'gc_disabled'):
            s0.vars['_'] = call(attr(s0.get('parts'), 'append'), call(s0.get('t'), 'reply.context.gc_disabled'))
        if attr(attr(s0.get('v'), 'context'), 'batch_size'):
            s0.vars['_'] = call(attr(s0.get('parts'), 'append'), call(s0.get('t'), 'reply.context.batch', batch_size=attr(attr(s0.get('v'), 'context'), 'batch_size')))
        if attr(attr(s0.get('v'), 'context'), 'max_bucket'):
            s0.vars['_'] = call(attr(s0.get('parts'), 'append'), call(s0.get('t'), 'reply.context.buckets', max_bucket=attr(attr(s0.get('v'), 'context'), 'max_bucket')))
        if attr(attr(s0.get('v'), 'context'), 'vram'):
            s0.vars['_'] = call(attr(s0.get('parts'), 'append'), call(s0.get('t'), 'reply.context.vram', vram=attr(attr(s0.get('v'), 'context'), 'vram')))
        if s0.get('parts'):
            w(str(call(s0.get('t'), 'reply.context.intro', parts=call(s0.get('trusted'), f_join(s0.get('parts'), call(s0.get('t'), 'reply.context.joiner'))))))
    if attr(s0.get('v'), 'secret'):
        w('\n')
        s0.vars['kinds'] = []
        values2 = attr(s0.get('v'), 'secret_kinds')
        for i3, v4 in enumerate(values2):
            s1 = Scope(s0)
            s1.vars['k'] = v4
            s1.vars['_'] = call(attr(s1.get('kinds'), 'append'), (call(s1.get('t'), concat(('reply.secret_kind.', s1.get('k'), ))) if call(s1.get('can'), concat(('reply.secret_kind.', s1.get('k'), ))) else call(s1.get('u'), s1.get('k'))))
        s0.vars['local'] = (s0.get('channel') in ('cli', 'cli_fixing', ))
        w('⚠️ ')
        w(str(call(s0.get('b'), call(s0.get('t'), ('reply.secret.headline_cli' if s0.get('local') else 'reply.secret.headline')))))
        w(str(call(s0.get('t'), 'reply.sep')))
        w(str((call(s0.get('t'), ('reply.secret.found_cli' if s0.get('local') else 'reply.secret.found'), count=(attr(attr(attr(s0.get('v'), 'secret'), 'params'), 'count') or 1), kinds=call(s0.get('trusted'), f_join(s0.get('kinds'), call(s0.get('t'), 'reply.context.joiner')))) if s0.get('kinds') else '')))
        w('\n')
        w(str(call(s0.get('t'), ('reply.secret.revoke_cli' if s0.get('local') else 'reply.secret.revoke'))))
        w('\n')
    return "".join(out)


SOURCE = '{#- One or two sentences: what ran out, where, and the most likely cause. -#}\n{%- set where = t(v.where_key, step=v.step) if v.where_key else "" -%}\n{%- set cause_text = cause(v.primary, v.rule_params[v.primary]) if v.primary else None -%}\n{%- if v.shown_step > 1 and v.step_view -%}\n{%- set s = v.step_view -%}\n{{ b(t("reply.headline.step", number=s.number, total=v.total_steps, action=trusted(action(s.rule_id, s.params)))) }}\n{%- elif v.shown_step > 1 -%}\n{{ b(t("reply.headline.step_beyond", number=v.shown_step, total=v.total_steps)) }}\n{%- elif v.kind == "verdict" -%}\n{{ b(rt(v.verdict.rule_id, "headline", v.verdict.params)) }}\n{%- elif v.kind == "question" -%}\n{%- if v.has_oom and v.where_key and v.question_params.phase -%}\n{{ b(t("reply.headline.question_oom_where", where=where)) }}\n{%- else -%}\n{{ b(t("reply.headline.question_oom" if v.has_oom else "reply.headline.question")) }}\n{%- endif -%}\n{%- elif v.kind == "clean" -%}\n{{ b(t("reply.headline.clean")) }}\n{%- elif not v.has_oom and v.primary and rt(v.primary, "headline_no_oom", v.rule_params[v.primary]) -%}\n{{ b(rt(v.primary, "headline_no_oom", v.rule_params[v.primary])) }}\n{%- else -%}\n{%- set base = "host" if v.host_oom else ("oom" if v.has_oom else ("risk" if v.has_config else "risk_described")) -%}\n{{ b(t("reply.headline." ~ base ~ ("_cause" if cause_text else "_no_cause"), where=where, cause=cause_text)) }}\n{%- endif -%}\n{% if (v.kind == "diagnosis" or (v.kind == "verdict" and v.verdict_shape.context) or (v.kind == "question" and v.has_oom)) and v.context and v.shown_step == 1 %}\n\n{% set parts = [] -%}\n{% if v.context.family_label %}{% set _ = parts.append(t("reply.context.family", family_label=v.context.family_label)) %}{% endif -%}\n{% if v.context.gc_disabled %}{% set _ = parts.append(t("reply.context.gc_disabled")) %}{% endif -%}\n{% if v.context.batch_size %}{% set _ = parts.append(t("reply.context.batch", batch_size=v.context.batch_size)) %}{% endif -%}\n{% if v.context.max_bucket %}{% set _ = parts.append(t("reply.context.buckets", max_bucket=v.context.max_bucket)) %}{% endif -%}\n{% if v.context.vram %}{% set _ = parts.append(t("reply.context.vram", vram=v.context.vram)) %}{% endif -%}\n{% if parts %}{{ t("reply.context.intro", parts=trusted(parts | join(t("reply.context.joiner")))) }}{% endif -%}\n{%- endif %}\n{% if v.secret %}\n\n{% set kinds = [] %}\n{% for k in v.secret_kinds %}\n{% set _ = kinds.append(t("reply.secret_kind." ~ k) if can("reply.secret_kind." ~ k) else u(k)) %}\n{% endfor %}\n{% set local = channel in ("cli", "cli_fixing") %}\n⚠️ {{ b(t("reply.secret.headline_cli" if local else "reply.secret.headline")) }}{{ t("reply.sep") }}{{ t("reply.secret.found_cli" if local else "reply.secret.found", count=v.secret.params.count or 1, kinds=trusted(kinds | join(t("reply.context.joiner")))) if kinds else "" }}\n{{ t("reply.secret.revoke_cli" if local else "reply.secret.revoke") }}\n{% endif %}\n'
OPTIONS = {'autoescape': False, 'trim_blocks': True, 'lstrip_blocks': True, 'keep_trailing_newline': False}
TRANSLATOR = 1


# Generated by `python -m diagnosis.precompile` from locales/_shared/templates/headline.j2.
# Do not edit: change the template and run the command again.
# ruff: noqa
# mypy: ignore-errors
