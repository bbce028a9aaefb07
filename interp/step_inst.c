/* step_inst.c: argument instances, expanded from the step templates. */
#include "step_inst.h"

#include <string.h>

#include "value.h"

void step_inst_init(arena *a, step_inst *si, const step *st)
{
    si->st = st;
    si->args = value_copy(a, &st->args);
    si->slots = arena_alloc(a, (st->ntmpls ? st->ntmpls : 1) * sizeof *si->slots);
    si->bufs = arena_alloc(a, (st->ntmpls ? st->ntmpls : 1) * sizeof *si->bufs);
    for (size_t i = 0; i < st->ntmpls; i++) {
        const tmpl *t = &st->tmpls[i];
        value *v = &si->args;
        for (size_t d = 0; d < t->depth; d++)
            v = &v->u.items[t->path[d]];
        si->slots[i] = v;
        si->bufs[i] = arena_alloc(a, t->max_len + 1);
    }
}

step_inst *step_insts_new(arena *a, const step *steps, size_t n)
{
    step_inst *si = arena_alloc(a, (n ? n : 1) * sizeof *si);
    for (size_t i = 0; i < n; i++)
        step_inst_init(a, &si[i], &steps[i]);
    return si;
}

static size_t put_u64(char *out, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++)
        out[i] = tmp[n - 1 - i];
    return n;
}

void step_inst_expand(step_inst *si, uint64_t n, int run)
{
    const step *st = si->st;
    for (size_t i = 0; i < st->ntmpls; i++) {
        const tmpl *t = &st->tmpls[i];
        value *v = si->slots[i];
        if (t->as_int) {
            v->u.i = t->parts[0].var == TMPL_RUN ? run : (int64_t)n;
            continue;
        }
        char *b = si->bufs[i];
        size_t len = 0;
        for (size_t k = 0; k < t->nparts; k++) {
            const tmpl_part *pt = &t->parts[k];
            if (pt->var == TMPL_TEXT) {
                memcpy(b + len, pt->text, pt->len);
                len += pt->len;
            } else {
                len += put_u64(b + len, pt->var == TMPL_RUN ? (uint64_t)run : n);
            }
        }
        v->u.s = b;
        v->len = (uint32_t)len;
    }
}
