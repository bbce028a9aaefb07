/* step_inst.c: argument instances for the steps' templates to fill. */
#include "step_inst.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "value.h"

/* The arguments of st no template fills (the top of each template's path)
 * that pass their checks: value_check_field's sentence is value_check's for
 * that field, so a dispatch that skips them refuses as one that checks all. */
static uint64_t checked_constants(const step *st)
{
    const ty *params = st->cmd->params;
    if (st->args.kind != VAL_STRUCT || st->args.len != params->nfields)
        return 0;
    uint64_t varies = 0;
    for (size_t i = 0; i < st->ntmpls; i++) {
        const tmpl *t = &st->tmpls[i];
        if (t->depth == 0) /* the whole of args: nothing is constant */
            return 0;
        if (t->path[0] < 64)
            varies |= UINT64_C(1) << t->path[0];
    }
    uint64_t ok = 0;
    char why[512];
    for (size_t f = 0; f < params->nfields && f < 64; f++)
        if (!(varies >> f & 1) &&
            value_check_field(params, f, &st->args.u.items[f], 0, why, sizeof why) == 0)
            ok |= UINT64_C(1) << f;
    return ok;
}

void step_inst_init(arena *a, step_inst *si, const step *st)
{
    size_t n = st->ntmpls ? st->ntmpls : 1;
    si->st = st;
    si->args = value_copy(a, &st->args);
    si->slots = arena_alloc(a, n * sizeof *si->slots);
    si->bufs = arena_alloc(a, n * sizeof *si->bufs);
    si->caps = arena_alloc(a, n * sizeof *si->caps);
    si->memo = arena_alloc(a, n * sizeof *si->memo);
    for (size_t i = 0; i < n; i++)
        si->memo[i] = -1;
    si->checked = checked_constants(st);
    for (size_t i = 0; i < st->ntmpls; i++) {
        const tmpl *t = &st->tmpls[i];
        value *v = &si->args;
        for (size_t d = 0; d < t->depth; d++)
            v = &v->u.items[t->path[d]];
        si->slots[i] = v;
        si->caps[i] = t->max_len + 1;
        si->bufs[i] = xmalloc(si->caps[i]);
    }
}

void step_inst_free(step_inst *si)
{
    for (size_t i = 0; si->st && i < si->st->ntmpls; i++)
        free(si->bufs[i]);
}

step_inst *step_insts_new(arena *a, const step *steps, size_t n)
{
    step_inst *si = arena_alloc(a, (n ? n : 1) * sizeof *si);
    for (size_t i = 0; i < n; i++)
        step_inst_init(a, &si[i], &steps[i]);
    return si;
}

void step_insts_free(step_inst *si, size_t n)
{
    for (size_t i = 0; si && i < n; i++)
        step_inst_free(&si[i]);
}
