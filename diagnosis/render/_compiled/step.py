from diagnosis.render.runtime import UNDEFINED, Loop, Scope, attr, call, concat, item, macro
from diagnosis.render.runtime import f_join, f_length, f_list, f_selectattr


def render(context):
    s0 = Scope(context)
    out = []
    w = out.append
    s0.vars['s'] = attr(s0.get('v'), 'step_view')
    if (not s0.get('s')):
        w(str(call(s0.get('t'), 'reply.step_beyond.body')))
        w('\n')
        values2 = (attr(s0.get('v'), 'question') or (['error_lines', 'gpu'] if attr(s0.get('v'), 'has_config') else ['config', 'error_lines']))
        for i3, v4 in enumerate(values2):
            s1 = Scope(s0)
            s1.vars['item'] = v4
            w(str(call(s1.get('t'), 'reply.checklist.bullet')))
            w(' ')
            w(str(call(s1.get('t'), concat(('reply.ask.', s1.get('item'), )))))
            w('\n')
    else:
        w(str(call(s0.get('t'), 'reply.explain.applicability')))
        w(str(call(s0.get('t'), 'reply.sep')))
        w(str(call(s0.get('rt'), attr(s0.get('s'), 'rule_id'), 'applicability', attr(s0.get('s'), 'params'))))
        w('\n')
        s0.vars['detail'] = call(s0.get('first'), attr(s0.get('s'), 'rule_id'), ('detail', 'detail_short', ), attr(s0.get('s'), 'params'))
        if s0.get('detail'):
            w(str(s0.get('detail')))
            w('\n')
        values6 = call(s0.get('variants'), attr(s0.get('s'), 'rule_id'), attr(s0.get('s'), 'params'))
        for i7, v8 in enumerate(values6):
            s5 = Scope(s0)
            s5.vars['extra'] = v8
            w(str(s5.get('extra')))
            w('\n')
        values10 = attr(s0.get('s'), 'merged')
        for i11, v12 in enumerate(values10):
            s9 = Scope(s0)
            (s9.vars['rid'], s9.vars['p'], ) = v12
            s9.vars['merged_detail'] = call(s9.get('first'), s9.get('rid'), ('detail', 'detail_short', ), s9.get('p'))
            if s9.get('merged_detail'):
                w(str(s9.get('merged_detail')))
                w('\n')
            values14 = call(s9.get('variants'), s9.get('rid'), s9.get('p'))
            for i15, v16 in enumerate(values14):
                s13 = Scope(s9)
                s13.vars['extra'] = v16
                w(str(s13.get('extra')))
                w('\n')
        w(str(call(s0.get('rt'), attr(s0.get('s'), 'rule_id'), 'explanation')))
        w('\n')
        values18 = call(s0.get('rt_list'), attr(s0.get('s'), 'rule_id'), 'fix', attr(s0.get('s'), 'params'))
        for i19, v20 in enumerate(values18):
            s17 = Scope(s0)
            s17.vars['line'] = v20
            w(str(call(s17.get('t'), 'reply.checklist.bullet')))
            w(' ')
            w(str(s17.get('line')))
            w('\n')
        w(str(call(s0.get('t'), 'reply.checklist.where')))
        w(str(call(s0.get('t'), 'reply.sep')))
        w(str(call(s0.get('rt'), attr(s0.get('s'), 'rule_id'), 'ui_path', attr(s0.get('s'), 'params'))))
        w('\n')
        s0.vars['following'] = f_list(f_selectattr(attr(s0.get('v'), 'steps'), 'number', 'equalto', (attr(s0.get('s'), 'number') + 1)))
        if s0.get('following'):
            s0.vars['f'] = item(s0.get('following'), 0)
            w(str(call(s0.get('t'), 'reply.checklist.next_step', number=attr(s0.get('f'), 'number'), action=call(s0.get('trusted'), call(s0.get('action'), attr(s0.get('f'), 'rule_id'), attr(s0.get('f'), 'params'))))))
            w('\n')
        else:
            w(str(call(s0.get('t'), 'reply.checklist.next_label')))
            w(str(call(s0.get('t'), 'reply.sep')))
            w(str(call(s0.get('rt'), attr(s0.get('s'), 'rule_id'), 'next', attr(s0.get('s'), 'params'))))
            w('\n')
    return "".join(out)


SOURCE = '{#- A later ladder step ("still out of memory → next step"). -#}\n{% set s = v.step_view %}\n{% if not s %}\n{{ t("reply.step_beyond.body") }}\n{% for item in (v.question or (["error_lines", "gpu"] if v.has_config else ["config", "error_lines"])) %}\n{{ t("reply.checklist.bullet") }} {{ t("reply.ask." ~ item) }}\n{% endfor %}\n{% else %}\n{{ t("reply.explain.applicability") }}{{ t("reply.sep") }}{{ rt(s.rule_id, "applicability", s.params) }}\n{% set detail = first(s.rule_id, ("detail", "detail_short"), s.params) %}\n{% if detail %}\n{{ detail }}\n{% endif %}\n{% for extra in variants(s.rule_id, s.params) %}\n{{ extra }}\n{% endfor %}\n{% for rid, p in s.merged %}\n{% set merged_detail = first(rid, ("detail", "detail_short"), p) %}\n{% if merged_detail %}\n{{ merged_detail }}\n{% endif %}\n{% for extra in variants(rid, p) %}\n{{ extra }}\n{% endfor %}\n{% endfor %}\n{{ rt(s.rule_id, "explanation") }}\n{% for line in rt_list(s.rule_id, "fix", s.params) %}\n{{ t("reply.checklist.bullet") }} {{ line }}\n{% endfor %}\n{{ t("reply.checklist.where") }}{{ t("reply.sep") }}{{ rt(s.rule_id, "ui_path", s.params) }}\n{% set following = v.steps | selectattr("number", "equalto", s.number + 1) | list %}\n{% if following %}\n{% set f = following[0] %}\n{{ t("reply.checklist.next_step", number=f.number, action=trusted(action(f.rule_id, f.params))) }}\n{% else %}\n{{ t("reply.checklist.next_label") }}{{ t("reply.sep") }}{{ rt(s.rule_id, "next", s.params) }}\n{% endif %}\n{% endif %}\n'
OPTIONS = {'autoescape': False, 'trim_blocks': True, 'lstrip_blocks': True, 'keep_trailing_newline': False}
TRANSLATOR = 1


# Generated by `python -m diagnosis.precompile` from locales/_shared/templates/step.j2.
# Do not edit: change the template and run the command again.
# ruff: noqa
# mypy: ignore-errors
