from diagnosis.render.runtime import UNDEFINED, Loop, Scope, attr, call, concat, item, macro
from diagnosis.render.runtime import f_join, f_length, f_list, f_selectattr


def render(context):
    s0 = Scope(context)
    out = []
    w = out.append
    def macro_1(s2):
        out = []
        w = out.append
        s2.vars['parts'] = []
        if attr(s2.get('o'), 'tried'):
            s2.vars['_'] = call(attr(s2.get('parts'), 'append'), call(s2.get('t'), 'reply.oom.tried', tried=attr(s2.get('o'), 'tried')))
        if (attr(s2.get('o'), 'free') and attr(s2.get('o'), 'total')):
            s2.vars['_'] = call(attr(s2.get('parts'), 'append'), call(s2.get('t'), 'reply.oom.free_of_total', free=attr(s2.get('o'), 'free'), total=attr(s2.get('o'), 'total')))
        elif attr(s2.get('o'), 'total'):
            s2.vars['_'] = call(attr(s2.get('parts'), 'append'), call(s2.get('t'), 'reply.oom.total', total=attr(s2.get('o'), 'total')))
        elif attr(s2.get('o'), 'free'):
            s2.vars['_'] = call(attr(s2.get('parts'), 'append'), call(s2.get('t'), 'reply.oom.free', free=attr(s2.get('o'), 'free')))
        if attr(s2.get('o'), 'process'):
            s2.vars['_'] = call(attr(s2.get('parts'), 'append'), call(s2.get('t'), ('reply.oom.process_host' if attr(s2.get('o'), 'host') else 'reply.oom.process'), process=attr(s2.get('o'), 'process')))
        if attr(s2.get('o'), 'others'):
            s2.vars['_'] = call(attr(s2.get('parts'), 'append'), call(s2.get('t'), 'reply.oom.others', others=attr(s2.get('o'), 'others')))
        w(str(call(s2.get('t'), ('reply.oom.label_host' if attr(s2.get('o'), 'host') else 'reply.oom.label'))))
        w(str(call(s2.get('t'), 'reply.sep')))
        w(str(f_join(s2.get('parts'), call(s2.get('t'), 'reply.oom.joiner'))))
        return "".join(out)
    s0.vars['oom_line'] = macro(macro_1, s0, ('o',))
    def macro_3(s4):
        out = []
        w = out.append
        s4.vars['act'] = call(s4.get('action'), attr(s4.get('s'), 'rule_id'), attr(s4.get('s'), 'params'))
        w(str(call(s4.get('b'), call(s4.get('t'), 'reply.checklist.item', number=attr(s4.get('s'), 'number'), action=call(s4.get('trusted'), s4.get('act'))))))
        w(' · ')
        w(str(call(s4.get('t'), concat(('reply.applicability.', attr(s4.get('s'), 'applicability'), )))))
        w('\n')
        if s4.get('full'):
            values6 = call(s4.get('details'), attr(s4.get('s'), 'rule_id'), attr(s4.get('s'), 'params'), attr(s4.get('s'), 'merged'))
            for i7, v8 in enumerate(values6):
                s5 = Scope(s4)
                s5.vars['line'] = v8
                w(str(s5.get('line')))
                w('\n')
            w(str(call(s4.get('rt'), attr(s4.get('s'), 'rule_id'), 'explanation')))
            w('\n')
            values10 = call(s4.get('rt_list'), attr(s4.get('s'), 'rule_id'), 'fix', attr(s4.get('s'), 'params'))
            for i11, v12 in enumerate(values10):
                s9 = Scope(s4)
                s9.vars['line'] = v12
                w(str(call(s9.get('t'), 'reply.checklist.bullet')))
                w(' ')
                w(str(s9.get('line')))
                w('\n')
            w(str(call(s4.get('t'), 'reply.checklist.where')))
            w(str(call(s4.get('t'), 'reply.sep')))
            w(str(call(s4.get('rt'), attr(s4.get('s'), 'rule_id'), 'ui_path', attr(s4.get('s'), 'params'))))
            w('\n')
            if (attr(s4.get('s'), 'group') == 'gc'):
                w(str(call(s4.get('t'), 'reply.gc.retry_first')))
                w('\n')
        return "".join(out)
    s0.vars['rule_block'] = macro(macro_3, s0, ('s', 'full'))
    if ((attr(s0.get('v'), 'evidence') or attr(s0.get('v'), 'oom')) and ((attr(s0.get('v'), 'kind') != 'verdict') or attr(attr(s0.get('v'), 'verdict_shape'), 'evidence'))):
        w(str(call(s0.get('b'), call(s0.get('t'), 'reply.section.evidence'))))
        w('\n')
        if attr(s0.get('v'), 'oom'):
            w(str(call(s0.get('t'), 'reply.checklist.bullet')))
            w(' ')
            w(str(call(s0.get('oom_line'), attr(s0.get('v'), 'oom'))))
            w('\n')
        values14 = attr(s0.get('v'), 'evidence')
        for i15, v16 in enumerate(values14):
            s13 = Scope(s0)
            s13.vars['e'] = v16
            s13.vars['src'] = (call(s13.get('t'), 'reply.evidence.message', number=attr(s13.get('e'), 'message')) if attr(s13.get('e'), 'message') else attr(s13.get('e'), 'source'))
            w(str(call(s13.get('t'), 'reply.checklist.bullet')))
            w(' ')
            w(str((call(s13.get('t'), 'reply.evidence.user') if (attr(s13.get('e'), 'source') == 'user') else (call(s13.get('t'), 'reply.evidence.at_line', source=s13.get('src'), line=attr(s13.get('e'), 'line')) if attr(s13.get('e'), 'line') else call(s13.get('t'), 'reply.evidence.at_source', source=s13.get('src'))))))
            w(str(call(s13.get('t'), 'reply.sep')))
            w(str(call(s13.get('ic'), attr(s13.get('e'), 'text'))))
            w('\n')
        w('\n')
    if (attr(s0.get('v'), 'kind') == 'verdict'):
        s0.vars['f'] = attr(s0.get('v'), 'verdict')
        s0.vars['shape'] = attr(s0.get('v'), 'verdict_shape')
        values18 = attr(s0.get('shape'), 'before')
        for i19, v20 in enumerate(values18):
            s17 = Scope(s0)
            s17.vars['field'] = v20
            w(str((call(s17.get('rt'), attr(s17.get('f'), 'rule_id'), s17.get('field'), attr(s17.get('v'), 'verdict_params')) or '')))
            w('\n')
        if item(attr(s0.get('f'), 'params'), attr(s0.get('shape'), 'quote')):
            w(str(call(s0.get('code'), item(attr(s0.get('f'), 'params'), attr(s0.get('shape'), 'quote')), attr(s0.get('shape'), 'quote_lang'))))
            w('\n')
        values22 = attr(s0.get('shape'), 'after')
        for i23, v24 in enumerate(values22):
            s21 = Scope(s0)
            s21.vars['field'] = v24
            w(str(call(s21.get('rt'), attr(s21.get('f'), 'rule_id'), s21.get('field'), attr(s21.get('v'), 'verdict_params'))))
            w('\n')
        values26 = call(s0.get('variants'), attr(s0.get('f'), 'rule_id'), attr(s0.get('f'), 'params'))
        for i27, v28 in enumerate(values26):
            s25 = Scope(s0)
            s25.vars['extra'] = v28
            w(str(s25.get('extra')))
            w('\n')
        values30 = call(s0.get('rt_list'), attr(s0.get('f'), 'rule_id'), 'fix', attr(s0.get('v'), 'verdict_params'))
        for i31, v32 in enumerate(values30):
            s29 = Scope(s0)
            s29.vars['line'] = v32
            w(str(call(s29.get('t'), 'reply.checklist.bullet')))
            w(' ')
            w(str(s29.get('line')))
            w('\n')
        if attr(s0.get('v'), 'steps'):
            w('\n')
            w(str(call(s0.get('b'), call(s0.get('t'), 'reply.section.fix'))))
            w('\n')
            values34 = list(attr(s0.get('v'), 'steps'))
            for i35, v36 in enumerate(values34):
                s33 = Scope(s0)
                s33.vars['s'] = v36
                s33.vars["loop"] = Loop(i35, len(values34))
                w(str(call(s33.get('rule_block'), s33.get('s'), attr(s33.get('loop'), 'first'))))
                w('\n')
        if attr(s0.get('v'), 'question'):
            w('\n')
            w(str(call(s0.get('t'), 'reply.question.also')))
            w('\n')
            values38 = attr(s0.get('v'), 'question')
            for i39, v40 in enumerate(values38):
                s37 = Scope(s0)
                s37.vars['item'] = v40
                w(str(call(s37.get('t'), 'reply.checklist.bullet')))
                w(' ')
                w(str(call(s37.get('t'), concat(('reply.ask.', s37.get('item'), )))))
                w('\n')
    elif (attr(s0.get('v'), 'kind') == 'question'):
        s0.vars['q'] = attr(s0.get('v'), 'question_params')
        if (attr(s0.get('v'), 'has_oom') and call(s0.get('rt'), attr(s0.get('v'), 'question_rule'), 'shown', s0.get('q'))):
            w(str(call(s0.get('rt'), attr(s0.get('v'), 'question_rule'), 'shown', s0.get('q'))))
            w('\n\n')
            w(str(call(s0.get('b'), call(s0.get('t'), 'reply.section.check'))))
            w('\n')
            values42 = call(s0.get('rt_list'), attr(s0.get('v'), 'question_rule'), 'checklist', s0.get('q'))
            for i43, v44 in enumerate(values42):
                s41 = Scope(s0)
                s41.vars['line'] = v44
                w(str(call(s41.get('t'), 'reply.checklist.bullet')))
                w(' ')
                w(str(s41.get('line')))
                w('\n')
            w('\n')
        w(str(call(s0.get('rt'), attr(s0.get('v'), 'question_rule'), 'explanation', s0.get('q'))))
        w('\n')
        values46 = attr(s0.get('v'), 'question')
        for i47, v48 in enumerate(values46):
            s45 = Scope(s0)
            s45.vars['item'] = v48
            w(str(call(s45.get('t'), 'reply.checklist.bullet')))
            w(' ')
            w(str(call(s45.get('t'), concat(('reply.ask.', s45.get('item'), )))))
            w('\n')
    elif (attr(s0.get('v'), 'kind') == 'clean'):
        w(str(call(s0.get('t'), 'reply.clean.body')))
        w('\n')
    else:
        if attr(s0.get('v'), 'steps'):
            w(str(call(s0.get('b'), call(s0.get('t'), 'reply.section.fix'))))
            w('\n')
            w(str(call(s0.get('t'), ('reply.checklist.intro' if (f_length(attr(s0.get('v'), 'steps')) > 1) else 'reply.checklist.intro_one'))))
            w('\n')
            values50 = list(attr(s0.get('v'), 'steps'))
            for i51, v52 in enumerate(values50):
                s49 = Scope(s0)
                s49.vars['s'] = v52
                s49.vars["loop"] = Loop(i51, len(values50))
                w(str(call(s49.get('rule_block'), s49.get('s'), attr(s49.get('loop'), 'first'))))
                w('\n')
            if (f_length(attr(s0.get('v'), 'steps')) > 1):
                w(str(call(s0.get('t'), 'reply.checklist.next_hint')))
                w('\n')
            else:
                w(str(call(s0.get('t'), ('reply.checklist.next_label' if (attr(s0.get('v'), 'has_oom') or attr(s0.get('v'), 'has_config')) else 'reply.checklist.next_label_other'))))
                w(str(call(s0.get('t'), 'reply.sep')))
                w(str(call(s0.get('rt'), attr(item(attr(s0.get('v'), 'steps'), 0), 'rule_id'), 'next', attr(item(attr(s0.get('v'), 'steps'), 0), 'params'))))
                w('\n')
        if attr(s0.get('v'), 'extra'):
            w('\n')
            w(str(call(s0.get('b'), call(s0.get('t'), 'reply.section.also'))))
            w('\n')
            values54 = attr(s0.get('v'), 'extra')
            for i55, v56 in enumerate(values54):
                s53 = Scope(s0)
                s53.vars['s'] = v56
                w(str(call(s53.get('t'), 'reply.checklist.bullet')))
                w(' ')
                w(str(call(s53.get('action'), attr(s53.get('s'), 'rule_id'), attr(s53.get('s'), 'params'))))
                w(' · ')
                w(str(call(s53.get('t'), concat(('reply.applicability.', attr(s53.get('s'), 'applicability'), )))))
                w('\n')
        if attr(s0.get('v'), 'question'):
            w('\n')
            w(str(call(s0.get('t'), 'reply.question.also')))
            w('\n')
            values58 = attr(s0.get('v'), 'question')
            for i59, v60 in enumerate(values58):
                s57 = Scope(s0)
                s57.vars['item'] = v60
                w(str(call(s57.get('t'), 'reply.checklist.bullet')))
                w(' ')
                w(str(call(s57.get('t'), concat(('reply.ask.', s57.get('item'), )))))
                w('\n')
    if attr(s0.get('v'), 'regression'):
        w('\n🔄 ')
        w(str(call(s0.get('rt'), attr(attr(s0.get('v'), 'regression'), 'rule_id'), 'explanation')))
        w('\n')
        w(str(call(s0.get('rt'), attr(attr(s0.get('v'), 'regression'), 'rule_id'), 'fix')))
        w('\n')
    if (attr(s0.get('v'), 'gc_involved') and (attr(s0.get('v'), 'kind') == 'diagnosis')):
        w('\n💡 ')
        w(str(call(s0.get('t'), 'reply.gc.oneliner')))
        w('\n')
    if attr(s0.get('v'), 'notes'):
        w('\n')
        values62 = attr(s0.get('v'), 'notes')
        for i63, v64 in enumerate(values62):
            s61 = Scope(s0)
            (s61.vars['id'], s61.vars['params'], ) = v64
            w('ℹ️ ')
            w(str((call(s61.get('t'), concat(('reply.note.', s61.get('id'), )), **s61.get('params')) if call(s61.get('can'), concat(('reply.note.', s61.get('id'), )), s61.get('params')) else call(s61.get('t'), 'reply.note.generic'))))
            w('\n')
    return "".join(out)


SOURCE = '{#- The body of the reply: evidence, then the checklist (or the question, or the non-OOM error). -#}\n{% macro oom_line(o) -%}\n{%- set parts = [] -%}\n{%- if o.tried %}{% set _ = parts.append(t("reply.oom.tried", tried=o.tried)) %}{% endif -%}\n{%- if o.free and o.total %}{% set _ = parts.append(t("reply.oom.free_of_total", free=o.free, total=o.total)) -%}\n{%- elif o.total %}{% set _ = parts.append(t("reply.oom.total", total=o.total)) -%}\n{%- elif o.free %}{% set _ = parts.append(t("reply.oom.free", free=o.free)) %}{% endif -%}\n{%- if o.process %}{% set _ = parts.append(t("reply.oom.process_host" if o.host else "reply.oom.process", process=o.process)) %}{% endif -%}\n{%- if o.others %}{% set _ = parts.append(t("reply.oom.others", others=o.others)) %}{% endif -%}\n{{ t("reply.oom.label_host" if o.host else "reply.oom.label") }}{{ t("reply.sep") }}{{ parts | join(t("reply.oom.joiner")) }}\n{%- endmacro %}\n{% macro rule_block(s, full) -%}\n{%- set act = action(s.rule_id, s.params) -%}\n{{ b(t("reply.checklist.item", number=s.number, action=trusted(act))) }} · {{ t("reply.applicability." ~ s.applicability) }}\n{% if full %}\n{% for line in details(s.rule_id, s.params, s.merged) %}{{ line }}\n{% endfor %}\n{{ rt(s.rule_id, "explanation") }}\n{% for line in rt_list(s.rule_id, "fix", s.params) %}\n{{ t("reply.checklist.bullet") }} {{ line }}\n{% endfor %}\n{{ t("reply.checklist.where") }}{{ t("reply.sep") }}{{ rt(s.rule_id, "ui_path", s.params) }}\n{% if s.group == "gc" %}\n{{ t("reply.gc.retry_first") }}\n{% endif %}\n{% endif %}\n{%- endmacro %}\n{% if (v.evidence or v.oom) and (v.kind != "verdict" or v.verdict_shape.evidence) %}\n{{ b(t("reply.section.evidence")) }}\n{% if v.oom %}\n{{ t("reply.checklist.bullet") }} {{ oom_line(v.oom) }}\n{% endif %}\n{% for e in v.evidence %}\n{% set src = t("reply.evidence.message", number=e.message) if e.message else e.source %}\n{{ t("reply.checklist.bullet") }} {{ t("reply.evidence.user") if e.source == "user" else (t("reply.evidence.at_line", source=src, line=e.line) if e.line else t("reply.evidence.at_source", source=src)) }}{{ t("reply.sep") }}{{ ic(e.text) }}\n{% endfor %}\n\n{% endif %}\n{% if v.kind == "verdict" %}\n{% set f = v.verdict %}\n{% set shape = v.verdict_shape %}\n{% for field in shape.before %}\n{{ rt(f.rule_id, field, v.verdict_params) or "" }}\n{% endfor %}\n{% if f.params[shape.quote] %}\n{{ code(f.params[shape.quote], shape.quote_lang) }}\n{% endif %}\n{% for field in shape.after %}\n{{ rt(f.rule_id, field, v.verdict_params) }}\n{% endfor %}\n{% for extra in variants(f.rule_id, f.params) %}{{ extra }}\n{% endfor %}\n{% for line in rt_list(f.rule_id, "fix", v.verdict_params) %}\n{{ t("reply.checklist.bullet") }} {{ line }}\n{% endfor %}\n{% if v.steps %}\n\n{{ b(t("reply.section.fix")) }}\n{% for s in v.steps %}\n{{ rule_block(s, loop.first) }}\n{% endfor %}\n{% endif %}\n{% if v.question %}\n\n{{ t("reply.question.also") }}\n{% for item in v.question %}\n{{ t("reply.checklist.bullet") }} {{ t("reply.ask." ~ item) }}\n{% endfor %}\n{% endif %}\n{% elif v.kind == "question" %}\n{% set q = v.question_params %}\n{% if v.has_oom and rt(v.question_rule, "shown", q) %}\n{{ rt(v.question_rule, "shown", q) }}\n\n{{ b(t("reply.section.check")) }}\n{% for line in rt_list(v.question_rule, "checklist", q) %}\n{{ t("reply.checklist.bullet") }} {{ line }}\n{% endfor %}\n\n{% endif %}\n{{ rt(v.question_rule, "explanation", q) }}\n{% for item in v.question %}\n{{ t("reply.checklist.bullet") }} {{ t("reply.ask." ~ item) }}\n{% endfor %}\n{% elif v.kind == "clean" %}\n{{ t("reply.clean.body") }}\n{% else %}\n{% if v.steps %}\n{{ b(t("reply.section.fix")) }}\n{{ t("reply.checklist.intro" if v.steps | length > 1 else "reply.checklist.intro_one") }}\n{% for s in v.steps %}\n{{ rule_block(s, loop.first) }}\n{% endfor %}\n{% if v.steps | length > 1 %}\n{{ t("reply.checklist.next_hint") }}\n{% else %}\n{{ t("reply.checklist.next_label" if v.has_oom or v.has_config else "reply.checklist.next_label_other") }}{{ t("reply.sep") }}{{ rt(v.steps[0].rule_id, "next", v.steps[0].params) }}\n{% endif %}\n{% endif %}\n{% if v.extra %}\n\n{{ b(t("reply.section.also")) }}\n{% for s in v.extra %}\n{{ t("reply.checklist.bullet") }} {{ action(s.rule_id, s.params) }} · {{ t("reply.applicability." ~ s.applicability) }}\n{% endfor %}\n{% endif %}\n{% if v.question %}\n\n{{ t("reply.question.also") }}\n{% for item in v.question %}\n{{ t("reply.checklist.bullet") }} {{ t("reply.ask." ~ item) }}\n{% endfor %}\n{% endif %}\n{% endif %}\n{% if v.regression %}\n\n🔄 {{ rt(v.regression.rule_id, "explanation") }}\n{{ rt(v.regression.rule_id, "fix") }}\n{% endif %}\n{% if v.gc_involved and v.kind == "diagnosis" %}\n\n💡 {{ t("reply.gc.oneliner") }}\n{% endif %}\n{% if v.notes %}\n\n{% for id, params in v.notes %}\nℹ️ {{ t("reply.note." ~ id, **params) if can("reply.note." ~ id, params) else t("reply.note.generic") }}\n{% endfor %}\n{% endif %}\n'
OPTIONS = {'autoescape': False, 'trim_blocks': True, 'lstrip_blocks': True, 'keep_trailing_newline': False}
TRANSLATOR = 1


# Generated by `python -m diagnosis.precompile` from locales/_shared/templates/diagnosis.j2.
# Do not edit: change the template and run the command again.
# ruff: noqa
# mypy: ignore-errors
