from jinja2.runtime import LoopContext, Macro, Markup, Namespace, TemplateNotFound, TemplateReference, TemplateRuntimeError, Undefined, escape, identity, internalcode, markup_join, missing, str_join
name = 'step.j2'

def root(context, missing=missing):
    resolve = context.resolve_or_missing
    undefined = environment.undefined
    concat = environment.concat
    cond_expr_undefined = Undefined
    if 0: yield None
    l_0_v = resolve('v')
    l_0_t = resolve('t')
    l_0_rt = resolve('rt')
    l_0_first = resolve('first')
    l_0_detail = resolve('detail')
    l_0_variants = resolve('variants')
    l_0_rt_list = resolve('rt_list')
    l_0_following = resolve('following')
    l_0_f = resolve('f')
    l_0_trusted = resolve('trusted')
    l_0_action = resolve('action')
    l_0_s = missing
    try:
        t_1 = environment.filters['list']
    except KeyError:
        @internalcode
        def t_1(*unused):
            raise TemplateRuntimeError("No filter named 'list' found.")
    try:
        t_2 = environment.filters['selectattr']
    except KeyError:
        @internalcode
        def t_2(*unused):
            raise TemplateRuntimeError("No filter named 'selectattr' found.")
    pass
    l_0_s = environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'step_view')
    context.vars['s'] = l_0_s
    context.exported_vars.add('s')
    if (not (undefined(name='s') if l_0_s is missing else l_0_s)):
        pass
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.step_beyond.body'))
        yield '\n'
        for l_1_item in (environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'question') or (['error_lines', 'gpu'] if environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'has_config') else ['config', 'error_lines'])):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
            yield ' '
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), str_join(('reply.ask.', l_1_item, )), _loop_vars=_loop_vars))
            yield '\n'
        l_1_item = missing
    else:
        pass
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.explain.applicability'))
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep'))
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), 'applicability', environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params')))
        yield '\n'
        l_0_detail = context.call((undefined(name='first') if l_0_first is missing else l_0_first), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), ('detail', 'detail_short'), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params'))
        context.vars['detail'] = l_0_detail
        context.exported_vars.add('detail')
        if (undefined(name='detail') if l_0_detail is missing else l_0_detail):
            pass
            yield str((undefined(name='detail') if l_0_detail is missing else l_0_detail))
            yield '\n'
        for l_1_extra in context.call((undefined(name='variants') if l_0_variants is missing else l_0_variants), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params')):
            _loop_vars = {}
            pass
            yield str(l_1_extra)
            yield '\n'
        l_1_extra = missing
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), 'explanation'))
        yield '\n'
        for l_1_line in context.call((undefined(name='rt_list') if l_0_rt_list is missing else l_0_rt_list), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), 'fix', environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params')):
            _loop_vars = {}
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.bullet', _loop_vars=_loop_vars))
            yield ' '
            yield str(l_1_line)
            yield '\n'
        l_1_line = missing
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.where'))
        yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep'))
        yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), 'ui_path', environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params')))
        yield '\n'
        l_0_following = t_1(context.eval_ctx, t_2(context, environment.getattr((undefined(name='v') if l_0_v is missing else l_0_v), 'steps'), 'number', 'equalto', (environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'number') + 1)))
        context.vars['following'] = l_0_following
        context.exported_vars.add('following')
        if (undefined(name='following') if l_0_following is missing else l_0_following):
            pass
            l_0_f = environment.getitem((undefined(name='following') if l_0_following is missing else l_0_following), 0)
            context.vars['f'] = l_0_f
            context.exported_vars.add('f')
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.next_step', number=environment.getattr((undefined(name='f') if l_0_f is missing else l_0_f), 'number'), action=context.call((undefined(name='trusted') if l_0_trusted is missing else l_0_trusted), context.call((undefined(name='action') if l_0_action is missing else l_0_action), environment.getattr((undefined(name='f') if l_0_f is missing else l_0_f), 'rule_id'), environment.getattr((undefined(name='f') if l_0_f is missing else l_0_f), 'params')))))
            yield '\n'
        else:
            pass
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.checklist.next_label'))
            yield str(context.call((undefined(name='t') if l_0_t is missing else l_0_t), 'reply.sep'))
            yield str(context.call((undefined(name='rt') if l_0_rt is missing else l_0_rt), environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'rule_id'), 'next', environment.getattr((undefined(name='s') if l_0_s is missing else l_0_s), 'params')))
            yield '\n'

blocks = {}
debug_info = '2=35&3=38&4=40&5=42&6=45&9=52&10=56&11=59&12=61&14=63&15=66&17=69&18=71&19=74&21=79&22=83&23=86&24=88&25=91&27=95'

# Generated by `python -m diagnosis.precompile` from locales/_shared/templates/step.j2.
# Do not edit: change the template and run the command again.
# ruff: noqa
# mypy: ignore-errors
FINGERPRINT = '8cef9b14b616f2941cd50764af972aded39b14b13fd7f517cd1c25ea56185015'
