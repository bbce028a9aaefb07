/* compile_work.c: the workload half of the compiler: constant values with
 * their templates, setup and cycle steps, prefill/warmup/iterations/runs,
 * (targets are compile_targets.c's). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "compile_common.h"
#include "value.h"

enum {
    TMPL_INT_WIDTH = 20, /* bytes of the longest int64 in decimal */
    DEFAULT_WARMUP = 200,
    DEFAULT_ITERATIONS = 1000,
    DEFAULT_RUNS = 3,
};

/* Splits s into literal and ${var} parts. Returns the number of parts, or -1
 * after reporting a bad template at n. */
static int parse_template(cc *c, const node *n, tmpl *t)
{
    const char *s = n->text, *end = n->text + n->len;
    size_t cap = 4, count = 0;
    tmpl_part *parts = arena_alloc(c->a, cap * sizeof *parts);
    size_t max_len = 0;
    while (s < end) {
        const char *open = strstr(s, "${");
        const char *lit_end = open ? open : end;
        if (count + 2 > cap) {
            tmpl_part *more = arena_alloc(c->a, cap * 2 * sizeof *parts);
            memcpy(more, parts, count * sizeof *parts);
            parts = more, cap *= 2;
        }
        if (lit_end > s) {
            parts[count++] = (tmpl_part){.var = TMPL_TEXT, .text = s, .len = (size_t)(lit_end - s)};
            max_len += (size_t)(lit_end - s);
        }
        if (!open)
            break;
        const char *close = memchr(open, '}', (size_t)(end - open));
        size_t at = (size_t)(open - n->text);
        if (!close) {
            diag_error_in(c->d, n, at, "unterminated template '${'");
            return -1;
        }
        size_t vlen = (size_t)(close - open - 2);
        if (vlen == 1 && open[2] == 'n')
            parts[count++] = (tmpl_part){.var = TMPL_N};
        else if (vlen == 3 && !memcmp(open + 2, "run", 3))
            parts[count++] = (tmpl_part){.var = TMPL_RUN};
        else {
            diag_error_in(c->d, n, at,
                          "unknown template variable '${%.*s}'; the variables are ${n} and ${run}",
                          (int)vlen, open + 2);
            return -1;
        }
        max_len += TMPL_INT_WIDTH;
        s = close + 1;
    }
    t->parts = parts;
    t->nparts = count;
    t->max_len = max_len;
    t->at = n;
    return (int)count;
}

static bool has_template(const node *n)
{
    if (n->kind != NODE_STRING)
        return false;
    for (size_t i = 0; i + 1 < n->len; i++)
        if (n->text[i] == '$' && n->text[i + 1] == '{')
            return true;
    return false;
}

static int add_template(cc *c, tmpl_sink *sink, const node *n, const int *path, size_t depth,
                        bool as_int, value *out)
{
    if (!sink || sink->in_setup) {
        diag_error_at(c->d, n, "templates are not allowed in setup, which runs once per run");
        return -1;
    }
    tmpl t = {0};
    if (parse_template(c, n, &t) < 0)
        return -1;
    if (as_int && !(t.nparts == 1 && t.parts[0].var != TMPL_TEXT)) {
        diag_error_at(c->d, n, "an int argument takes exactly one template such as \"${n}\"");
        return -1;
    }
    int *p = arena_alloc(c->a, (depth ? depth : 1) * sizeof *p);
    memcpy(p, path, depth * sizeof *p);
    t.path = p;
    t.depth = depth;
    t.as_int = as_int;
    if (sink->count == sink->cap) {
        size_t cap = sink->cap ? sink->cap * 2 : 4;
        tmpl *more = arena_alloc(c->a, cap * sizeof *more);
        if (sink->count)
            memcpy(more, sink->items, sink->count * sizeof *more);
        sink->items = more, sink->cap = cap;
    }
    sink->items[sink->count++] = t;
    /* the placeholder is what ${n}=0, ${run}=1 gives, so constraints can be checked now */
    if (as_int) {
        out->kind = VAL_INT;
        out->u.i = t.parts[0].var == TMPL_RUN ? 1 : 0;
        return 0;
    }
    char *buf = arena_alloc(c->a, t.max_len + 1);
    size_t len = 0;
    for (size_t i = 0; i < t.nparts; i++) {
        if (t.parts[i].var == TMPL_TEXT) {
            memcpy(buf + len, t.parts[i].text, t.parts[i].len);
            len += t.parts[i].len;
        } else {
            buf[len++] = t.parts[i].var == TMPL_RUN ? '1' : '0';
        }
    }
    out->kind = VAL_STRING;
    out->u.s = buf;
    out->len = (uint32_t)len;
    return 0;
}

static int expected(cc *c, const node *n, const char *what, const char *want)
{
    diag_error_at(c->d, n, "%s: expected %s, got %s%s", what, want,
                  n->kind == NODE_INT || n->kind == NODE_NULL ? "an " : "a ",
                  node_kind_name(n->kind));
    return -1;
}

static int struct_value(cc *c, const ty *t, const node *n, const char *what, value *out,
                        tmpl_sink *sink, int *path, size_t depth)
{
    if (n->kind != NODE_MAP && !(n->kind == NODE_NULL && t->nfields == 0))
        return expected(c, n, what, "a mapping");
    out->kind = VAL_STRUCT;
    out->len = (uint32_t)t->nfields;
    out->u.items = arena_alloc(c->a, (t->nfields ? t->nfields : 1) * sizeof *out->u.items);
    int rc = 0;
    for (size_t i = 0; n->kind == NODE_MAP && i < n->count; i++) {
        const node *k = n->pairs[i].key;
        int fi = ty_field_index(t, k->text);
        if (fi >= 0)
            continue;
        const char *names[256];
        size_t m = 0;
        for (size_t j = 0; j < t->nfields && m < 256; j++)
            names[m++] = t->fields[j].name;
        const char *hint = diag_suggest(k->text, names, m);
        if (hint)
            diag_error_at(c->d, k, "%s has no field '%s' (did you mean '%s'?)", what, k->text,
                          hint);
        else
            diag_error_at(c->d, k, "%s has no field '%s'", what, k->text);
        rc = -1;
    }
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < t->nfields; i++) {
        const field *f = &t->fields[i];
        const node *v = node_get(n, f->name);
        if (!v) {
            if (field_required(f)) {
                diag_error_at(c->d, n, "%s: missing '%s'", what, f->name);
                rc = -1;
            } else {
                out->u.items[i] = field_initial(f);
            }
            continue;
        }
        char sub[256];
        snprintf(sub, sizeof sub, "%s.%s", what, f->name);
        path[depth] = (int)i;
        if (cc_value(c, f->type, v, sub, &out->u.items[i], sink, path, depth + 1) < 0)
            rc = -1;
    }
    return rc;
}

static int list_value(cc *c, const ty *t, const node *n, const char *what, value *out,
                      tmpl_sink *sink, int *path, size_t depth)
{
    if (n->kind != NODE_SEQ)
        return expected(c, n, what, "a sequence");
    out->kind = VAL_LIST;
    out->len = (uint32_t)n->count;
    out->u.items = arena_alloc(c->a, (n->count ? n->count : 1) * sizeof *out->u.items);
    int rc = 0;
    for (size_t i = 0; i < n->count; i++) {
        char sub[256];
        snprintf(sub, sizeof sub, "%s[%zu]", what, i);
        path[depth] = (int)i;
        if (cc_value(c, t->elem, n->items[i], sub, &out->u.items[i], sink, path, depth + 1) < 0)
            rc = -1;
    }
    return rc;
}

static int scalar_value(cc *c, const ty *t, const node *n, const char *what, value *out,
                        tmpl_sink *sink, int *path, size_t depth)
{
    switch (t->kind) {
    case TY_INT:
        if (has_template(n))
            return add_template(c, sink, n, path, depth, true, out);
        if (n->kind != NODE_INT)
            return expected(c, n, what, "an integer");
        *out = (value){.kind = VAL_INT, .u.i = n->v.i};
        return 0;
    case TY_BOOL:
        if (n->kind != NODE_BOOL)
            return expected(c, n, what, "true or false");
        *out = (value){.kind = VAL_BOOL, .u.b = n->v.b};
        return 0;
    case TY_STRING:
        if (n->kind != NODE_STRING)
            return expected(c, n, what, "a string");
        if (has_template(n))
            return add_template(c, sink, n, path, depth, false, out);
        *out = (value){.kind = VAL_STRING, .u.s = n->text, .len = (uint32_t)n->len};
        return 0;
    case TY_ENUM: {
        int e = n->kind == NODE_STRING ? ty_enum_index(t, n->text, n->len) : -1;
        if (e < 0) {
            char list[256];
            size_t len = 0;
            for (size_t i = 0; i < t->nvalues && len < sizeof list; i++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "",
                                        t->values[i]);
            diag_error_at(c->d, n, "%s: '%s' is not one of %s", what, n->text, list);
            return -1;
        }
        *out = (value){.kind = VAL_ENUM, .u.e = e};
        return 0;
    }
    default: return -1;
    }
}

int cc_value(cc *c, const ty *t, const node *n, const char *what, value *out, tmpl_sink *sink,
             int *path, size_t depth)
{
    int local_path[64];
    if (!path)
        path = local_path;
    if (depth >= 63) {
        diag_error_at(c->d, n, "%s: nested too deeply", what);
        return -1;
    }
    int rc;
    if (t->kind == TY_STRUCT)
        rc = struct_value(c, t, n, what, out, sink, path, depth);
    else if (t->kind == TY_LIST)
        rc = list_value(c, t, n, what, out, sink, path, depth);
    else
        rc = scalar_value(c, t, n, what, out, sink, path, depth);
    if (rc < 0 || t->kind == TY_STRUCT)
        return rc;
    char why[512];
    if (value_check(t, out, what, why, sizeof why) < 0) {
        diag_error_at(c->d, n, "%s", why);
        return -1;
    }
    return 0;
}

/* ---- steps ---- */

static int compile_step(cc *c, const node *item, step *st, bool in_setup)
{
    st->at = item;
    const node *verb = NULL, *args = NULL;
    for (size_t i = 0; item->kind == NODE_MAP && i < item->count; i++) {
        const node *k = item->pairs[i].key;
        if (!strcmp(k->text, "expect") || !strcmp(k->text, "on_refusal"))
            continue;
        if (verb) {
            diag_error_at(c->d, k, "a step runs one command; '%s' is a second", k->text);
            return -1;
        }
        verb = k;
        args = item->pairs[i].value;
    }
    if (!verb) {
        diag_error_at(c->d, item, "a step needs a command such as Aggregate.Command");
        return -1;
    }
    const command *cmd = plan_find_verb(c->p, verb->text);
    if (!cmd) {
        const char *names[512];
        size_t k = 0;
        for (size_t i = 0; i < c->p->ncommands && k < 512; i++)
            names[k++] = c->p->commands[i]->verb;
        const char *hint = diag_suggest(verb->text, names, k);
        if (hint)
            diag_error_at(c->d, verb, "unknown command '%s' (did you mean '%s'?)", verb->text,
                          hint);
        else
            diag_error_at(c->d, verb, "unknown command '%s'", verb->text);
        return -1;
    }
    st->cmd = cmd;
    const node *exp = node_get(item, "expect");
    int returns = cc_expect_returns(c, st, exp); /* compile_query.c */
    if (returns < 0)
        return -1;
    if (returns)
        exp = NULL; /* the answer is checked, not a refusal */
    const node *text = exp && exp->kind == NODE_MAP ? node_get(exp, "refused") : NULL;
    st->expect_refused = exp && (node_is_str(exp, "refused") ||
                                 (text && text->kind == NODE_STRING && exp->count == 1));
    if (exp && !st->expect_refused) {
        diag_error_at(c->d, exp, "expect can only be 'refused' or {refused: TEXT}");
        return -1;
    }
    if (text) {
        st->expect_text = text->text;
        st->expect_text_at = text;
    }
    if (in_setup && st->expect_refused) {
        diag_error_at(c->d, exp, "expect: refused is for cycle steps, not setup");
        return -1;
    }
    const node *onr = node_get(item, "on_refusal");
    st->count_refusals = onr && node_is_str(onr, "count");
    if (onr && !st->count_refusals && !node_is_str(onr, "abort")) {
        diag_error_at(c->d, onr, "on_refusal can only be 'count' or 'abort'");
        return -1;
    }
    if (st->count_refusals && (in_setup || st->expect_refused)) {
        diag_error_at(c->d, onr,
                      in_setup ? "on_refusal: count is for cycle steps, not setup"
                               : "on_refusal: count is for steps that may succeed; this one "
                                 "expects a refusal");
        return -1;
    }
    tmpl_sink sink = {.in_setup = in_setup};
    int path[64];
    static const node empty = {.kind = NODE_MAP};
    char what[160];
    snprintf(what, sizeof what, "%s", cmd->verb);
    node nargs = args && args->kind != NODE_NULL ? *args : empty;
    if (!args || args->kind == NODE_NULL) {
        nargs.file = verb->file, nargs.line = verb->line, nargs.col = verb->col;
    }
    if (cc_value(c, cmd->params, &nargs, what, &st->args, &sink, path, 0) < 0)
        return -1;
    char why[512];
    if (value_check(cmd->params, &st->args, cmd->verb, why, sizeof why) < 0) {
        diag_error_at(c->d, args ? args : verb, "%s", why);
        return -1;
    }
    st->tmpls = sink.items;
    st->ntmpls = sink.count;
    return 0;
}

static int compile_steps(cc *c, const node *list, bool in_setup, step **out, size_t *n)
{
    size_t count = list && list->kind == NODE_SEQ ? list->count : 0;
    *out = arena_alloc(c->a, (count ? count : 1) * sizeof **out);
    *n = count;
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        if (compile_step(c, list->items[i], &(*out)[i], in_setup) < 0)
            rc = -1;
    return rc;
}

static int64_t int_or(const node *w, const char *key, int64_t dflt)
{
    const node *v = node_get(w, key);
    return v && v->kind == NODE_INT ? v->v.i : dflt;
}

static int compile_prefill(cc *c, const node *pf)
{
    workload *w = &c->p->work;
    size_t n = pf && pf->kind == NODE_SEQ ? pf->count : 1;
    w->prefill = arena_alloc(c->a, (n ? n : 1) * sizeof *w->prefill);
    if (!pf) {
        w->nprefill = 1;
        return 0;
    }
    const node *const *items = pf->kind == NODE_SEQ ? (const node *const *)pf->items : &pf;
    for (size_t i = 0; i < n; i++) {
        if (items[i]->kind != NODE_INT || items[i]->v.i < 0) {
            diag_error_at(c->d, items[i], "prefill is a number of cycles (0 or more)");
            return -1;
        }
        w->prefill[w->nprefill++] = items[i]->v.i;
    }
    if (w->nprefill == 0) {
        diag_error_at(c->d, pf, "prefill needs at least one size");
        return -1;
    }
    return 0;
}

verify_level verify_level_of(const char *s)
{
    static const char *const names[] = {"counts", "state", "full"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(s, names[i]))
            return (verify_level)(VERIFY_LEVEL_COUNTS + i);
    return VERIFY_LEVEL_DEFAULT;
}

int cc_workload(cc *c, const node *wn)
{
    workload *w = &c->p->work;
    int rc = 0;
    w->warmup = int_or(wn, "warmup", DEFAULT_WARMUP);
    w->iterations = int_or(wn, "iterations", DEFAULT_ITERATIONS);
    w->runs = int_or(wn, "runs", DEFAULT_RUNS);
    w->verify = VERIFY_LEVEL_COUNTS;
    const node *vn = node_get(wn, "verify");
    if (vn && vn->kind == NODE_STRING && !(w->verify = verify_level_of(vn->text))) {
        diag_error_at(c->d, vn, "verify is one of counts, state, full");
        rc = -1;
    }
    if (compile_steps(c, node_get(wn, "setup"), true, &w->setup, &w->nsetup) < 0)
        rc = -1;
    const node *cycle = node_get(wn, "cycle");
    if (!cycle || cycle->kind != NODE_SEQ || cycle->count == 0) {
        diag_error_at(c->d, cycle ? cycle : wn, "the workload needs a cycle of at least one step");
        rc = -1;
    } else if (compile_steps(c, cycle, false, &w->cycle, &w->ncycle) < 0) {
        rc = -1;
    }
    if (compile_prefill(c, node_get(wn, "prefill")) < 0)
        rc = -1;
    if (cc_targets(c, node_get(wn, "targets")) < 0)
        rc = -1;
    return rc;
}
