from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'diagnosis.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_v = resolve('v')
    l_0_b = resolve('b')
    l_0_t = resolve('t')
    l_0_f = resolve('f')
    l_0_code = resolve('code')
    l_0_rt = resolve('rt')
    l_0_variants = resolve('variants')
    l_0_rt_list = resolve('rt_list')
    l_0_p = resolve('p')
    l_0_oom_line = l_0_rule_block = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    try:
        t_2 = environment.filters['length']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'length' found.")
    pass
    def macro(l_1_o):
        t_3 = []
        l_1__ = resolve('_')
        l_1_parts = missing
        if l_1_o is missing:
            l_1_o = undefined("parameter 'o' was not provided", name='o')
        pass
        l_1_parts = []
        if environment.getattr(l_1_o, 'tried'):
            pass
            l_1__ = context.call(environment.getattr((undefined(name='parts') if l_1_parts is missing else l_1_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.tried', tried=environment.getattr(l_1_o, 'tried')))
        if (environment.getattr(l_1_o, 'free') and environment.getattr(l_1_o, 'total')):
            pass
            l_1__ = context.call(environment.getattr((undefined(name='parts') if l_1_parts is missing else l_1_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.free_of_total', free=environment.getattr(l_1_o, 'free'), total=environment.getattr(l_1_o, 'total')))
        elif environment.getattr(l_1_o, 'total'):
            pass
            l_1__ = context.call(environment.getattr((undefined(name='parts') if l_1_parts is missing else l_1_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.total', total=environment.getattr(l_1_o, 'total')))
        elif environment.getattr(l_1_o, 'free'):
            pass
            l_1__ = context.call(environment.getattr((undefined(name='parts') if l_1_parts is missing else l_1_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.free', free=environment.getattr(l_1_o, 'free')))
        if environment.getattr(l_1_o, 'process'):
            pass
            l_1__ = context.call(environment.getattr((undefined(name='parts') if l_1_parts is missing else l_1_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.process', process=environment.getattr(l_1_o, 'process')))
        if environment.getattr(l_1_o, 'others'):
            pass
            l_1__ = context.call(environment.getattr((undefined(name='parts') if l_1_parts is missing else l_1_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.others', others=environment.getattr(l_1_o, 'others')))
        t_3.extend((
            str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.label')),
            str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep')),
            str(t_1(context.eval_ctx, (undefined(name='parts') if l_1_parts is missing else l_1_parts), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.oom.joiner'))),
        ))
        return concat(t_3)
    context.exported_vars.add('oom_line')
    context.vars['oom_line'] = l_0_oom_line = Macro(environment, macro, 'oom_line', ('o',), False, False, False, context.eval_ctx.autoescape)
    def macro(l_1_s, l_1_full):
        t_4 = []
        l_1_action = resolve('action')
        l_1_trusted = resolve('trusted')
        l_1_first = resolve('first')
        l_1_detail = resolve('detail')
        l_1_act = missing
        if l_1_s is missing:
            l_1_s = undefined("parameter 's' was not provided", name='s')
        if l_1_full is missing:
            l_1_full = undefined("parameter 'full' was not provided", name='full')
        pass
        l_1_act = context.call((undefined(name='action') if l_1_action is missing else l_1_action), environment.getattr(l_1_s, 'rule_id'), environment.getattr(l_1_s, 'params'))
        t_4.extend((
            '✅ ',
            str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.item', number=environment.getattr(l_1_s, 'number'), action=context.call((undefined(name='trusted') if l_1_trusted is missing else l_1_trusted), (undefined(name='act') if l_1_act is missing else l_1_act))))),
            ' · ',
            str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.applicability.', environment.getattr(l_1_s, 'applicability'), )))),
            '\n',
        ))
        if l_1_full:
            pass
            l_1_detail = context.call((undefined(name='first') if l_1_first is missing else l_1_first), environment.getattr(l_1_s, 'rule_id'), ('detail', 'detail_short'), environment.getattr(l_1_s, 'params'))
            if (undefined(name='detail') if l_1_detail is missing else l_1_detail):
                pass
                t_4.extend((
                    str((undefined(name='detail') if l_1_detail is missing else l_1_detail)),
                    '\n',
                ))
            for l_2_extra in context.call((undefined(name='variants') if l_0_variants is missing else l_0_variants), environment.getattr(l_1_s, 'rule_id'), environment.getattr(l_1_s, 'params')):
                _loop_vars = {}
                pass
                t_4.extend((
                    str(l_2_extra),
                    '\n',
                ))
            l_2_extra = missing
            t_4.extend((
                str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr(l_1_s, 'rule_id'), 'explanation')),
                '\n',
            ))
            for l_2_line in context.call((undefined(name='rt_list') if l_0_rt_list is missing else l_0_rt_list), environment.getattr(l_1_s, 'rule_id'), 'fix', environment.getattr(l_1_s, 'params')):
                _loop_vars = {}
                pass
                t_4.extend((
                    str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars)),
                    ' ',
                    str(l_2_line),
                    '\n',
                ))
            l_2_line = missing
            t_4.extend((
                str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.where')),
                str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep')),
                str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr(l_1_s, 'rule_id'), 'ui_path', environment.getattr(l_1_s, 'params'))),
                '\n',
            ))
            if (environment.getattr(l_1_s, 'rule_id') in ('gc_off', 'risky_family_gc_off')):
                pass
                t_4.extend((
                    str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.gc.retry_first')),
                    '\n',
                ))
        return concat(t_4)
    context.exported_vars.add('rule_block')
    context.vars['rule_block'] = l_0_rule_block = Macro(environment, macro, 'rule_block', ('s', 'full'), False, False, False, context.eval_ctx.autoescape)
    if ((environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'evidence') or environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'oom')) and (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') != 'yaml_invalid')):
        pass
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.section.evidence')))
        yield '\n'
        if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'oom'):
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet'))
            yield ' '
            yield str(context.call((undefined(name='oom_line') if l_0_oom_line is missing else l_0_oom_line), environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'oom')))
            yield '\n'
        for l_1_e in environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'evidence'):
            l_1_ic = resolve('ic')
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
            yield ' '
            yield str((context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.evidence.user', _loop_vars=_loop_vars) if (environment.getattr(l_1_e, 'source') == 'user') else (context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.evidence.at_line', source=environment.getattr(l_1_e, 'source'), line=environment.getattr(l_1_e, 'line'), _loop_vars=_loop_vars) if environment.getattr(l_1_e, 'line') else context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.evidence.at_source', source=environment.getattr(l_1_e, 'source'), _loop_vars=_loop_vars))))
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep', _loop_vars=_loop_vars))
            yield str(context.call((undefined(name='ic') if l_1_ic is missing else l_1_ic), environment.getattr(l_1_e, 'text'), _loop_vars=_loop_vars))
            yield '\n'
        l_1_e = l_1_ic = missing
        yield '\n'
    if (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'not_oom'):
        pass
        l_0_f = environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'findings'), 'not_oom')
        context.vars['f'] = l_0_f
        context.exported_vars.add('f')
        if ((undefined(name='f') if l_0_f is missing else l_0_f) and environment.getattr(environment.getattr((undefined(name='f') if l_0_f is missing else l_0_f), 'params'), 'headline')):
            pass
            yield str(context.call((undefined(name='code') if l_0_code is missing else l_0_code), environment.getattr(environment.getattr((undefined(name='f') if l_0_f is missing else l_0_f), 'params'), 'headline'), ''))
            yield '\n'
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), 'not_oom', 'explanation'))
        yield '\n'
        for l_1_extra in context.call((undefined(name='variants') if l_0_variants is missing else l_0_variants), 'not_oom', (environment.getattr((undefined(name='f') if l_0_f is missing else l_0_f), 'params') if (undefined(name='f') if l_0_f is missing else l_0_f) else {})):
            _loop_vars = {}
            pass
            yield str(l_1_extra)
            yield '\n'
        l_1_extra = missing
        for l_1_line in context.call((undefined(name='rt_list') if l_0_rt_list is missing else l_0_rt_list), 'not_oom', 'fix'):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
            yield ' '
            yield str(l_1_line)
            yield '\n'
        l_1_line = missing
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'yaml_invalid'):
        pass
        l_0_p = environment.getattr(environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'findings'), 'yaml_invalid'), 'params')
        context.vars['p'] = l_0_p
        context.exported_vars.add('p')
        yield str((context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.yaml_invalid.problem', problem=environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'problem')) if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'problem') else ''))
        yield '\n'
        if environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'line_text'):
            pass
            yield str(context.call((undefined(name='code') if l_0_code is missing else l_0_code), environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'line_text'), 'yaml'))
            yield '\n'
        for l_1_extra in context.call((undefined(name='variants') if l_0_variants is missing else l_0_variants), 'yaml_invalid', (undefined(name='p') if l_0_p is missing else l_0_p)):
            _loop_vars = {}
            pass
            yield str(l_1_extra)
            yield '\n'
        l_1_extra = missing
        for l_1_line in context.call((undefined(name='rt_list') if l_0_rt_list is missing else l_0_rt_list), 'yaml_invalid', 'fix'):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
            yield ' '
            yield str(l_1_line)
            yield '\n'
        l_1_line = missing
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'question'):
        pass
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), 'input_incomplete', 'explanation'))
        yield '\n'
        for l_1_item in environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'question'):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
            yield ' '
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.ask.', l_1_item, )), _loop_vars=_loop_vars))
            yield '\n'
        l_1_item = missing
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'clean'):
        pass
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.clean.body'))
        yield '\n'
    else:
        pass
        if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps'):
            pass
            yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.section.fix')))
            yield '\n'
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), ('reply.checklist.intro' if (t_2(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps')) > 1) else 'reply.checklist.intro_one')))
            yield '\n'
            l_1_loop = missing
            for l_1_s, l_1_loop in LoopContext(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps'), undefined):
                _loop_vars = {}
                pass
                yield str(context.call((undefined(name='rule_block') if l_0_rule_block is missing else l_0_rule_block), l_1_s, environment.getattr(l_1_loop, 'first'), _loop_vars=_loop_vars))
                yield '\n'
            l_1_loop = l_1_s = missing
            if (t_2(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps')) > 1):
                pass
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.next_hint'))
                yield '\n'
            else:
                pass
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.next_label'))
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep'))
                yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr(environment.getitem(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps'), 0), 'rule_id'), 'next', environment.getattr(environment.getitem(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps'), 0), 'params')))
                yield '\n'
        if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'extra'):
            pass
            yield '\n'
            yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.section.also')))
            yield '\n'
            for l_1_s in environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'extra'):
                l_1_action = resolve('action')
                _loop_vars = {}
                pass
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
                yield ' '
                yield str(context.call((undefined(name='action') if l_1_action is missing else l_1_action), environment.getattr(l_1_s, 'rule_id'), environment.getattr(l_1_s, 'params'), _loop_vars=_loop_vars))
                yield ' · '
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.applicability.', environment.getattr(l_1_s, 'applicability'), )), _loop_vars=_loop_vars))
                yield '\n'
            l_1_s = l_1_action = missing
        if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'question'):
            pass
            yield '\n'
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.question.also'))
            yield '\n'
            for l_1_item in environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'question'):
                _loop_vars = {}
                pass
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
                yield ' '
                yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.ask.', l_1_item, )), _loop_vars=_loop_vars))
                yield '\n'
            l_1_item = missing
    if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'regression'):
        pass
        yield '\n🔄 '
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), 'regression_after_update', 'explanation'))
        yield '\n'
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), 'regression_after_update', 'fix'))
        yield '\n'
    if (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'gc_involved') and (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'diagnosis')):
        pass
        yield '\n💡 '
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.gc.oneliner'))
        yield '\n'
    if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'notes'):
        pass
        yield '\n'
        for (l_1_id, l_1_params) in environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'notes'):
            l_1_can = resolve('can')
            _loop_vars = {}
            pass
            yield 'ℹ️ '
            yield str((context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.note.', l_1_id, )), _loop_vars=_loop_vars, **l_1_params) if context.call((undefined(name='can') if l_1_can is missing else l_1_can), str_join(('reply.note.', l_1_id, )), l_1_params, _loop_vars=_loop_vars) else context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.note.generic', _loop_vars=_loop_vars)))
            yield '\n'
        l_1_id = l_1_params = l_1_can = missing

blocks = {}
debug_info = '2=33&3=40&4=41&5=44&6=47&7=50&8=53&9=56&10=60&12=67&13=79&14=82&15=87&16=89&17=90&19=96&21=105&22=108&23=112&25=119&26=124&27=127&31=133&32=135&33=137&34=139&36=143&37=147&41=155&42=157&43=160&44=162&46=164&47=166&49=172&50=175&52=180&53=182&54=185&55=187&56=189&58=191&60=197&61=200&63=205&64=207&65=209&66=212&68=217&69=219&71=223&72=225&73=227&74=230&75=233&77=236&78=238&80=242&83=246&85=249&86=251&87=255&90=262&92=265&93=267&94=270&98=275&100=278&101=280&103=282&105=285&107=287&109=290&110=295'

# Generated by `python -m diagnosis.precompile` from locales/_shared/templates/diagnosis.j2.
# Do not edit: change the template and run the command again.
# ruff: noqa
# mypy: ignore-errors
FINGERPRINT = '6c6a0d11eafb1b5ace8c347def969d025390558352681e8081ea37f52a1086d6'
