from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'headline.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_v = resolve('v')
    l_0_t = resolve('t')
    l_0_cause = resolve('cause')
    l_0_s = resolve('s')
    l_0_b = resolve('b')
    l_0_trusted = resolve('trusted')
    l_0_action = resolve('action')
    l_0_kind_key = resolve('kind_key')
    l_0_can = resolve('can')
    l_0_p = resolve('p')
    l_0_base = resolve('base')
    l_0_parts = resolve('parts')
    l_0__ = resolve('_')
    l_0_kinds = resolve('kinds')
    l_0_where = l_0_cause_text = missing
    try:
        t_1 = environment.filters['join']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'join' found.")
    pass
    l_0_where = (context.call((undefined(name='t') if l_0_t is missing else l_0_t), environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'where_key'), step=environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'step')) if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'where_key') else '')
    context.vars['where'] = l_0_where
    context.exported_vars.add('where')
    l_0_cause_text = (context.call((undefined(name='cause') if l_0_cause is missing else l_0_cause), environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'primary'), environment.getitem(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'rule_params'), environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'primary'))) if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'primary') else None)
    context.vars['cause_text'] = l_0_cause_text
    context.exported_vars.add('cause_text')
    if ((environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'shown_step') > 1) and environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'step_view')):
        pass
        l_0_s = environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'step_view')
        context.vars['s'] = l_0_s
        context.exported_vars.add('s')
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.headline.step', number=environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'number'), total=environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'total_steps'), action=context.call((undefined(name='trusted') if l_0_trusted is missing else l_0_trusted), context.call((undefined(name='action') if l_0_action is missing else l_0_action), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params'))))))
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'shown_step') > 1):
        pass
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.headline.step_beyond', number=environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'shown_step'), total=environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'total_steps'))))
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'not_oom'):
        pass
        l_0_kind_key = str_join(('reply.not_oom_kind.', environment.getattr(environment.getattr(environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'findings'), 'not_oom'), 'params'), 'kind'), ))
        context.vars['kind_key'] = l_0_kind_key
        context.exported_vars.add('kind_key')
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.headline.not_oom', kind=context.call((undefined(name='t') if l_0_t is missing else l_0_t), ((undefined(name='kind_key') if l_0_kind_key is missing else l_0_kind_key) if context.call((undefined(name='can') if l_0_can is missing else l_0_can), (undefined(name='kind_key') if l_0_kind_key is missing else l_0_kind_key)) else 'reply.not_oom_kind.other')))))
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'yaml_invalid'):
        pass
        l_0_p = environment.getattr(environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'findings'), 'yaml_invalid'), 'params')
        context.vars['p'] = l_0_p
        context.exported_vars.add('p')
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.headline.yaml_invalid', line=environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'line'), column=environment.getattr((undefined(name='p') if l_0_p is missing else l_0_p), 'column'))))
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'question'):
        pass
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), ('reply.headline.question_oom' if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'has_oom') else 'reply.headline.question'))))
    elif (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') == 'clean'):
        pass
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.headline.clean')))
    else:
        pass
        l_0_base = ('host' if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'host_oom') else ('oom' if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'has_oom') else ('risk' if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'has_config') else 'risk_described')))
        context.vars['base'] = l_0_base
        context.exported_vars.add('base')
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.headline.', (undefined(name='base') if l_0_base is missing else l_0_base), ('_cause' if (undefined(name='cause_text') if l_0_cause_text is missing else l_0_cause_text) else '_no_cause'), )), where=(undefined(name='where') if l_0_where is missing else l_0_where), cause=(undefined(name='cause_text') if l_0_cause_text is missing else l_0_cause_text))))
    if (((environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'kind') in ('diagnosis', 'yaml_invalid')) and environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context')) and (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'shown_step') == 1)):
        pass
        yield '\n'
        l_0_parts = []
        context.vars['parts'] = l_0_parts
        context.exported_vars.add('parts')
        if environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'family_label'):
            pass
            l_0__ = context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.family', family_label=environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'family_label')))
            context.vars['_'] = l_0__
        if (environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'gc_off') and (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'primary') not in ('gc_off', 'risky_family_gc_off'))):
            pass
            l_0__ = context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.gc_off'))
            context.vars['_'] = l_0__
        if environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'batch_size'):
            pass
            l_0__ = context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.batch', batch_size=environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'batch_size')))
            context.vars['_'] = l_0__
        if environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'max_bucket'):
            pass
            l_0__ = context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.buckets', max_bucket=environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'max_bucket')))
            context.vars['_'] = l_0__
        if environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'vram'):
            pass
            l_0__ = context.call(environment.getattr((undefined(name='parts') if l_0_parts is missing else l_0_parts), 'append'), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.vram', vram=environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'context'), 'vram')))
            context.vars['_'] = l_0__
        if (undefined(name='parts') if l_0_parts is missing else l_0_parts):
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.intro', parts=context.call((undefined(name='trusted') if l_0_trusted is missing else l_0_trusted), t_1(context.eval_ctx, (undefined(name='parts') if l_0_parts is missing else l_0_parts), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.joiner')))))
    if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'secret'):
        pass
        yield '\n'
        l_0_kinds = []
        context.vars['kinds'] = l_0_kinds
        context.exported_vars.add('kinds')
        for l_1_k in environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'secret_kinds'):
            l_1_u = resolve('u')
            l_1__ = l_0__
            _loop_vars = {}
            pass
            l_1__ = context.call(environment.getattr((undefined(name='kinds') if l_0_kinds is missing else l_0_kinds), 'append'), (context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.secret_kind.', l_1_k, )), _loop_vars=_loop_vars) if context.call((undefined(name='can') if l_0_can is missing else l_0_can), str_join(('reply.secret_kind.', l_1_k, )), _loop_vars=_loop_vars) else context.call((undefined(name='u') if l_1_u is missing else l_1_u), l_1_k, _loop_vars=_loop_vars)), _loop_vars=_loop_vars)
            _loop_vars['_'] = l_1__
        l_1_k = l_1_u = l_1__ = missing
        yield '⚠️ '
        yield str(context.call((undefined(name='b') if l_0_b is missing else l_0_b), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.secret.headline')))
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep'))
        yield str((context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.secret.found', count=(environment.getattr(environment.getattr(environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'secret'), 'params'), 'count') or 1), kinds=context.call((undefined(name='trusted') if l_0_trusted is missing else l_0_trusted), t_1(context.eval_ctx, (undefined(name='kinds') if l_0_kinds is missing else l_0_kinds), context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.context.joiner')))) if (undefined(name='kinds') if l_0_kinds is missing else l_0_kinds) else ''))
        yield '\n'
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.secret.revoke'))
        yield '\n'

blocks = {}
debug_info = '2=32&3=35&4=38&5=40&6=43&7=44&8=46&9=47&10=49&11=52&12=53&13=55&14=58&15=59&16=61&17=62&18=64&20=67&21=70&23=71&25=74&26=77&27=81&28=85&29=89&30=93&31=97&33=100&35=103&36=106&37=111&39=115&40=119'

# Generated by `python -m diagnosis.precompile` from locales/_shared/templates/headline.j2.
# Do not edit: change the template and run the command again.
# ruff: noqa
# mypy: ignore-errors
FINGERPRINT = 'e2676c4629aa54cf81131b07867357de826d57c7f6f631ca83e90d6cdb097034'
