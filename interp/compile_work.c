/* compile_work.c: the workload half of the compiler: constant values with
 * their templates, setup and cycle steps, prefill/warmup/iterations/runs,
 * (targets are compile_targets.c's). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile_common.h"
#include "value.h"

enum {
    TMPL_INT_WIDTH = 20, /* bytes of the longest int64 in decimal */
    DEFAULT_WARMUP = 200,
    DEFAULT_ITERATIONS = 1000,
    DEFAULT_RUNS = 3,
    DEFAULT_SEED = 1,
};

/* ---- templates ---- */

static bool is_space(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* s[*i..end) past spaces. */
static void skip_spaces(const char *s, size_t *i, size_t end)
{
    while (*i < end && is_space(s[*i]))
        (*i)++;
}

static bool ident_char(char ch, bool first)
{
    return ch == '_' || (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
           (!first && ch >= '0' && ch <= '9');
}

/* An identifier at s[*i], moved past; its length (0: none). */
static size_t scan_ident(const char *s, size_t *i, size_t end)
{
    size_t from = *i;
    while (*i < end && ident_char(s[*i], *i == from))
        (*i)++;
    return *i - from;
}

/* A decimal integer at s[*i], moved past. Returns 0, or -1 when there is none. */
static int scan_int(const char *s, size_t *i, size_t end, int64_t *out)
{
    size_t from = *i;
    if (*i < end && s[*i] == '-')
        (*i)++;
    if (*i >= end || s[*i] < '0' || s[*i] > '9')
        return -1;
    char buf[32];
    while (*i < end && s[*i] >= '0' && s[*i] <= '9')
        (*i)++;
    if (*i - from >= sizeof buf)
        return -1;
    memcpy(buf, s + from, *i - from);
    buf[*i - from] = '\0';
    errno = 0;
    long long v = strtoll(buf, NULL, 10);
    if (errno)
        return -1;
    *out = v;
    return 0;
}

static const pool_def *find_pool(const workload *w, const char *name, size_t len)
{
    for (size_t i = 0; i < w->npools; i++)
        if (strlen(w->pools[i].name) == len && !memcmp(w->pools[i].name, name, len))
            return &w->pools[i];
    return NULL;
}

/* "unknown WHAT 'word' (did you mean 'x'?)", or "...; the WHATs are a, b"
 * when none is close, at byte `at` of n. Returns -1. */
static int unknown_name(cc *c, const node *n, size_t at, const char *what, const char *word,
                        const char *const *names, size_t m)
{
    const char *hint = diag_suggest(word, names, m);
    if (hint) {
        diag_error_in(c->d, n, at, "unknown %s '%s' (did you mean '%s'?)", what, word, hint);
        return -1;
    }
    char list[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < m && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", names[i]);
    diag_error_in(c->d, n, at, "unknown %s '%s'; the %ss are %s", what, word, what, list);
    return -1;
}

static int unknown_pool(cc *c, const node *n, size_t at, const char *name, size_t len)
{
    const workload *w = &c->p->work;
    if (w->npools == 0) {
        diag_error_in(c->d, n, at,
                      "unknown pool '%.*s'; no step adds records to a pool (into: NAME)", (int)len,
                      name);
        return -1;
    }
    const char *names[256];
    size_t m = 0;
    char word[128];
    snprintf(word, sizeof word, "%.*s", (int)len, name);
    for (size_t i = 0; i < w->npools && m < 256; i++)
        names[m++] = w->pools[i].name;
    return unknown_name(c, n, at, "pool", word, names, m);
}

/* ${uniform(lo, hi)}: the text between the parentheses is s[i, close). */
static int parse_uniform(cc *c, const node *n, size_t i, size_t close, draw_def *d)
{
    const char *s = n->text;
    skip_spaces(s, &i, close);
    size_t at = i;
    bool ok = scan_int(s, &i, close, &d->lo) == 0;
    skip_spaces(s, &i, close);
    ok = ok && i < close && s[i] == ',';
    i++;
    skip_spaces(s, &i, close);
    ok = ok && scan_int(s, &i, close, &d->hi) == 0;
    skip_spaces(s, &i, close);
    if (!ok || i != close) {
        diag_error_in(c->d, n, at, "uniform takes two integers: ${uniform(low, high)}");
        return -1;
    }
    if (d->lo > d->hi) {
        diag_error_in(c->d, n, at, "uniform's low end %" PRId64 " is above its high end %" PRId64,
                      d->lo, d->hi);
        return -1;
    }
    d->kind = DRAW_UNIFORM;
    d->type = &ty_int;
    return 0;
}

/* ${pick(pool, dist)} and ${take(pool, dist)}: the text between the
 * parentheses is s[i, close). */
static int parse_pool_draw(cc *c, const node *n, size_t i, size_t close, draw_def *d)
{
    const char *s = n->text;
    skip_spaces(s, &i, close);
    size_t at = i;
    size_t len = scan_ident(s, &i, close);
    skip_spaces(s, &i, close);
    if (len == 0 || (i < close && s[i] != ',')) {
        diag_error_in(c->d, n, at, "%s takes a pool and a distribution: ${%s(pool, uniform)}",
                      d->kind == DRAW_PICK ? "pick" : "take",
                      d->kind == DRAW_PICK ? "pick" : "take");
        return -1;
    }
    const pool_def *pool = find_pool(&c->p->work, s + at, len);
    if (!pool)
        return unknown_pool(c, n, at, s + at, len);
    d->pool = pool->index;
    d->type = pool->agg->state->fields[pool->agg->identity].type;
    d->dist = (dist_spec){.kind = d->kind == DRAW_PICK ? DIST_UNIFORM : DIST_OLDEST};
    if (i == close)
        return 0;
    i++; /* the comma */
    skip_spaces(s, &i, close);
    size_t dend = close;
    while (dend > i && is_space(s[dend - 1]))
        dend--;
    char why[256];
    size_t err_at = 0;
    if (dist_parse(s + i, dend - i, &d->dist, &err_at, why, sizeof why) < 0) {
        diag_error_in(c->d, n, i + err_at, "%s", why);
        return -1;
    }
    return 0;
}

/* The variable or draw inside ${...}: s[from, close) of node n. Returns 0
 * with *part filled, or -1 (reported). */
static int parse_var(cc *c, const node *n, size_t from, size_t close, const tmpl_sink *sink,
                     tmpl_part *part)
{
    const char *s = n->text;
    size_t i = from;
    skip_spaces(s, &i, close);
    size_t at = i;
    size_t len = scan_ident(s, &i, close);
    skip_spaces(s, &i, close);
    const char *name = s + at;
    if (len && i == close) {
        if (len == 1 && name[0] == 'n') {
            *part = (tmpl_part){.var = TMPL_N};
            return 0;
        }
        if (len == 3 && !memcmp(name, "run", 3)) {
            *part = (tmpl_part){.var = TMPL_RUN};
            return 0;
        }
        if (len == 6 && !memcmp(name, "client", 6)) {
            *part = (tmpl_part){.var = TMPL_CLIENT};
            return 0;
        }
        for (size_t b = 0; sink->flow && b < sink->nbound; b++)
            if (strlen(sink->flow->with[b].name) == len &&
                !memcmp(sink->flow->with[b].name, name, len)) {
                *part = (tmpl_part){.var = TMPL_BIND, .bind = b};
                return 0;
            }
    }
    bool call = len && i < close && s[i] == '(' && s[close - 1] == ')';
    draw_kind kind = DRAW_UNIFORM;
    if (call && len == 7 && !memcmp(name, "uniform", 7))
        kind = DRAW_UNIFORM;
    else if (call && len == 4 && !memcmp(name, "pick", 4))
        kind = DRAW_PICK;
    else if (call && len == 4 && !memcmp(name, "take", 4))
        kind = DRAW_TAKE;
    else {
        char vars[512] = "${n}, ${run}, ${client}";
        size_t used = strlen(vars);
        for (size_t b = 0; sink->flow && b < sink->nbound && used < sizeof vars; b++)
            used += (size_t)snprintf(vars + used, sizeof vars - used, ", ${%s}",
                                     sink->flow->with[b].name);
        diag_error_in(c->d, n, from - 2,
                      "unknown template variable '${%.*s}'; the variables are %s and the draws "
                      "${uniform(low, high)}, ${pick(pool, distribution)} and "
                      "${take(pool, distribution)}",
                      (int)(close - from), s + from, vars);
        return -1;
    }
    draw_def *d = arena_alloc(c->a, sizeof *d);
    *d = (draw_def){.kind = kind, .at = n};
    int rc = kind == DRAW_UNIFORM ? parse_uniform(c, n, i + 1, close - 1, d)
                                  : parse_pool_draw(c, n, i + 1, close - 1, d);
    if (rc < 0)
        return -1;
    d->index = c->p->work.ndraws++;
    *part = (tmpl_part){.var = TMPL_DRAW, .draw = d};
    return 0;
}

/* What a part gives: NULL for text, else int or the pool's identity type. */
static const ty *part_type(const tmpl_sink *sink, const tmpl_part *pt)
{
    switch (pt->var) {
    case TMPL_N:
    case TMPL_RUN:
    case TMPL_CLIENT: return &ty_int;
    case TMPL_BIND: return sink->flow->with[pt->bind].type;
    case TMPL_DRAW: return pt->draw->type;
    default: return NULL;
    }
}

/* Splits n's text into literal and ${...} parts. Returns the number of
 * parts, or -1 after reporting a bad template at n. */
static int parse_template(cc *c, const node *n, const tmpl_sink *sink, tmpl *t)
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
        if (parse_var(c, n, at + 2, (size_t)(close - n->text), sink, &parts[count]) < 0)
            return -1;
        const ty *pt = part_type(sink, &parts[count]);
        max_len += pt && pt->kind == TY_STRING ? 32 : TMPL_INT_WIDTH;
        count++;
        s = close + 1;
    }
    t->parts = parts;
    t->nparts = count;
    t->max_len = max_len;
    t->at = n;
    return (int)count;
}

/* Whether a template's value is known only as it runs (a binding or a
 * draw), so its constraints cannot be checked now. */
static bool tmpl_dynamic(const tmpl *t)
{
    for (size_t i = 0; i < t->nparts; i++)
        if (t->parts[i].var == TMPL_BIND || t->parts[i].var == TMPL_DRAW)
            return true;
    return false;
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
    if (parse_template(c, n, sink, &t) < 0)
        return -1;
    if (as_int) {
        const ty *pt = t.nparts == 1 ? part_type(sink, &t.parts[0]) : NULL;
        if (!pt || pt->kind != TY_INT) {
            diag_error_at(c->d, n,
                          pt ? "an int argument takes one int template; this one gives a string"
                             : "an int argument takes exactly one template such as \"${n}\"");
            return -1;
        }
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
    /* a binding or a draw is known only as it runs: its constraints are the
       runtime's to check (a refusal); the rest is checked now, with the
       placeholder ${n}=0, ${run}=1 and ${uniform(a, b)}=a give */
    sink->dynamic = tmpl_dynamic(&t);
    sink->any_dynamic = sink->any_dynamic || sink->dynamic;
    if (as_int) {
        const tmpl_part *pt = &t.parts[0];
        out->kind = VAL_INT;
        out->u.i = pt->var == TMPL_RUN ? 1 : pt->var == TMPL_DRAW ? pt->draw->lo : 0;
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
    if (sink && sink->dynamic) {
        sink->dynamic = false;
        return 0;
    }
    char why[512];
    if (value_check(t, out, what, why, sizeof why) < 0) {
        diag_error_at(c->d, n, "%s", why);
        return -1;
    }
    return 0;
}

/* ---- steps ---- */

/* A step's expect when it checks an answer, {returns: ...} or {rows: N}
 * (cc_expect_returns, compile_common.h): read here, with cc_value, so that
 * compile_query.c needs nothing of this file. */

/* Reports a name in expect: returns that the query does not return. */
static void no_such_field(cc *c, const command *q, const node *k)
{
    const ty *t = q->returns;
    const char *names[256] = {0};
    size_t n = 0;
    for (size_t i = 0; i < t->nfields && n < 256; i++)
        names[n++] = t->fields[i].name;
    const char *hint = diag_suggest(k->text, names, n);
    if (hint) {
        diag_error_at(c->d, k, "%s returns no field '%s' (did you mean '%s'?)", q->verb, k->text,
                      hint);
        return;
    }
    char list[512];
    size_t len = 0;
    for (size_t i = 0; i < n && len < sizeof list; i++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
    diag_error_at(c->d, k, "%s returns no field '%s'; it returns %s", q->verb, k->text, list);
}

/* One expected field: a constant of the returned field's type (templates
 * are refused: the answer is compared with what is written). */
static int expect_field_value(cc *c, const field *f, const node *v, expect_field *out)
{
    char what[160];
    snprintf(what, sizeof what, "expect: returns.%s", f->name);
    tmpl_sink sink = {0};
    if (cc_value(c, f->type, v, what, &out->want, &sink, NULL, 0) < 0)
        return -1;
    if (sink.count) {
        diag_error_at(c->d, sink.items[0].at,
                      "%s: templates are not allowed here; an answer is compared with constants",
                      what);
        return -1;
    }
    out->at = v;
    return 0;
}

/* expect: {rows: N} of a scan step. */
static int expect_rows(cc *c, step *st, const node_pair *rp)
{
    const command *q = st->cmd;
    if (!q->scan) {
        diag_error_at(c->d, rp->key, "expect: rows is for scans; %s is a %s", q->verb,
                      q->query ? "query of one record (expect: {returns: ...} checks it)"
                               : "command");
        return -1;
    }
    const node *v = rp->value;
    if (v->kind != NODE_INT || v->v.i < 0) {
        diag_error_at(c->d, v,
                      "expect: rows is the number of records %s answers: an integer, 0 "
                      "or more",
                      q->verb);
        return -1;
    }
    st->expect_rows_set = true;
    st->expect_rows = v->v.i;
    return 1;
}

int cc_expect_returns(cc *c, step *st, const node *exp)
{
    const node_pair *rows = exp && exp->kind == NODE_MAP ? node_get_pair(exp, "rows") : NULL;
    if (rows)
        return expect_rows(c, st, rows);
    const node_pair *rp = exp && exp->kind == NODE_MAP ? node_get_pair(exp, "returns") : NULL;
    if (!rp)
        return 0;
    const command *q = st->cmd;
    if (!q->query) {
        diag_error_at(c->d, rp->key, "expect: returns is for queries; %s is a command", q->verb);
        return -1;
    }
    if (q->scan) {
        diag_error_at(c->d, rp->key,
                      "expect: returns is for queries of one record; %s is a scan: check how many "
                      "records it answers with expect: {rows: N}",
                      q->verb);
        return -1;
    }
    const node *m = rp->value;
    if (m->kind != NODE_MAP || m->count == 0) {
        diag_error_at(c->d, m, "expect: returns is a mapping of %s's returns to constants",
                      q->verb);
        return -1;
    }
    expect_field *fields = arena_alloc(c->a, m->count * sizeof *fields);
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; i < m->count; i++) {
        const node *k = m->pairs[i].key;
        int fi = ty_field_index(q->returns, k->text);
        if (fi < 0) {
            no_such_field(c, q, k);
            rc = -1;
            continue;
        }
        fields[n].field = fi;
        if (expect_field_value(c, &q->returns->fields[fi], m->pairs[i].value, &fields[n]) < 0)
            rc = -1;
        else
            n++;
    }
    st->expect_returns = fields;
    st->nexpect_returns = n;
    return rc < 0 ? -1 : 1;
}

/* Whether k is one of a step's own keys beside its command. */
static bool step_key(const node *k)
{
    return !strcmp(k->text, "expect") || !strcmp(k->text, "on_refusal") || !strcmp(k->text, "into");
}

static int compile_step(cc *c, const node *item, step *st, bool in_setup, const flow *fl)
{
    st->at = item;
    st->into = -1;
    const node *verb = NULL, *args = NULL;
    for (size_t i = 0; item->kind == NODE_MAP && i < item->count; i++) {
        const node *k = item->pairs[i].key;
        if (step_key(k))
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
    int returns = cc_expect_returns(c, st, exp);
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
    const node *into = node_get(item, "into");
    if (into && cmd->scan) { /* a scan succeeds whether its start key is a record's or not */
        diag_error_at(c->d, node_get_pair(item, "into")->key,
                      "into: adds the step's record to a pool; %s is a scan, whose start key "
                      "need not be a record's",
                      cmd->verb);
        return -1;
    }
    if (into) {
        const pool_def *pool = find_pool(&c->p->work, into->text, into->len);
        if (!pool || pool->agg != cmd->agg) /* the pools' pass reported it */
            return -1;
        st->into = (int)pool->index;
    }
    tmpl_sink sink = {.in_setup = in_setup, .flow = fl, .nbound = fl ? fl->nwith : 0};
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
    if (!sink.any_dynamic && value_check(cmd->params, &st->args, cmd->verb, why, sizeof why) < 0) {
        diag_error_at(c->d, args ? args : verb, "%s", why);
        return -1;
    }
    st->tmpls = sink.items;
    st->ntmpls = sink.count;
    return 0;
}

static int compile_steps(cc *c, const node *list, bool in_setup, const flow *fl, step **out,
                         size_t *n)
{
    size_t count = list && list->kind == NODE_SEQ ? list->count : 0;
    *out = arena_alloc(c->a, (count ? count : 1) * sizeof **out);
    *n = count;
    int rc = 0;
    for (size_t i = 0; i < count; i++)
        if (compile_step(c, list->items[i], &(*out)[i], in_setup, fl) < 0)
            rc = -1;
    return rc;
}

static int64_t int_or(const node *w, const char *key, int64_t dflt)
{
    const node *v = node_get(w, key);
    return v && v->kind == NODE_INT ? v->v.i : dflt;
}

/* ---- pools: named by the steps' `into`, before any template draws ---- */

static const node *step_verb(const node *item)
{
    for (size_t i = 0; item->kind == NODE_MAP && i < item->count; i++)
        if (!step_key(item->pairs[i].key))
            return item->pairs[i].key;
    return NULL;
}

static int declare_pools_in(cc *c, const node *steps, size_t *cap)
{
    workload *w = &c->p->work;
    int rc = 0;
    for (size_t i = 0; steps && steps->kind == NODE_SEQ && i < steps->count; i++) {
        const node *into = node_get(steps->items[i], "into");
        const node *verb = step_verb(steps->items[i]);
        const command *cmd = verb ? plan_find_verb(c->p, verb->text) : NULL;
        if (!into || !cmd) /* an unknown command is compile_step's to report */
            continue;
        const pool_def *have = find_pool(w, into->text, into->len);
        if (have && have->agg != cmd->agg) {
            diag_error_at(c->d, into,
                          "pool '%s' holds %s records (into at line %d); %s acts on a %s: a "
                          "pool holds one aggregate type",
                          have->name, have->agg->name, have->at->line, cmd->verb, cmd->agg->name);
            rc = -1;
            continue;
        }
        if (have)
            continue;
        if (w->npools == *cap) {
            *cap = *cap ? *cap * 2 : 4;
            pool_def *more = arena_alloc(c->a, *cap * sizeof *more);
            if (w->npools)
                memcpy(more, w->pools, w->npools * sizeof *more);
            w->pools = more;
        }
        w->pools[w->npools] =
            (pool_def){.name = into->text, .agg = cmd->agg, .index = w->npools, .at = into};
        w->npools++;
    }
    return rc;
}

static int declare_pools(cc *c, const node *wn)
{
    size_t cap = 0;
    int rc = declare_pools_in(c, node_get(wn, "setup"), &cap);
    if (declare_pools_in(c, node_get(wn, "cycle"), &cap) < 0)
        rc = -1;
    const node *mix = node_get(wn, "mix");
    for (size_t i = 0; mix && mix->kind == NODE_MAP && i < mix->count; i++)
        if (declare_pools_in(c, node_get(mix->pairs[i].value, "steps"), &cap) < 0)
            rc = -1;
    return rc;
}

/* ---- flows ---- */

static const char *const reserved_names[] = {"n", "run", "client", "uniform", "pick", "take"};

static int compile_binding(cc *c, flow *fl, const node *k, const node *v, binding *b)
{
    *b = (binding){.name = k->text, .at = k};
    if (!cc_ident(c, k, "a binding"))
        return -1;
    for (size_t i = 0; i < sizeof reserved_names / sizeof *reserved_names; i++)
        if (!strcmp(k->text, reserved_names[i])) {
            diag_error_at(c->d, k,
                          "'%s' is a template variable or draw; name the binding otherwise",
                          k->text);
            return -1;
        }
    for (size_t i = 0; i < fl->nwith; i++)
        if (!strcmp(fl->with[i].name, k->text)) {
            diag_error_at(c->d, k, "'%s' is bound twice in flow %s", k->text, fl->name);
            return -1;
        }
    if (v->kind != NODE_STRING) {
        diag_error_at(c->d, v, "with binds templates such as \"${pick(open, uniform)}\"");
        return -1;
    }
    tmpl_sink sink = {.flow = fl, .nbound = fl->nwith};
    if (parse_template(c, v, &sink, &b->t) < 0)
        return -1;
    const ty *one = b->t.nparts == 1 ? part_type(&sink, &b->t.parts[0]) : NULL;
    b->type = one ? one : &ty_string;
    b->t.as_int = b->type->kind == TY_INT;
    return 0;
}

/* Counts a template's draws from each pool into takes and picks. */
static void count_draws(const tmpl *t, size_t *takes, size_t *picks)
{
    for (size_t i = 0; i < t->nparts; i++) {
        const draw_def *d = t->parts[i].var == TMPL_DRAW ? t->parts[i].draw : NULL;
        if (d && d->kind == DRAW_TAKE)
            takes[d->pool]++;
        else if (d && d->kind == DRAW_PICK)
            picks[d->pool]++;
    }
}

/* What each pool must hold for fl to run: as many as it takes, at least
 * one when it picks. */
static void flow_needs(cc *c, flow *fl)
{
    size_t np = c->p->work.npools;
    size_t *takes = arena_alloc(c->a, (np + 1) * sizeof *takes);
    size_t *picks = arena_alloc(c->a, (np + 1) * sizeof *picks);
    for (size_t i = 0; i < fl->nwith; i++)
        count_draws(&fl->with[i].t, takes, picks);
    for (size_t s = 0; s < fl->nsteps; s++)
        for (size_t i = 0; i < fl->steps[s].ntmpls; i++)
            count_draws(&fl->steps[s].tmpls[i], takes, picks);
    for (size_t i = 0; i < np; i++)
        takes[i] = takes[i] ? takes[i] : picks[i] ? 1 : 0;
    fl->need = takes;
}

static int compile_flow(cc *c, flow *fl, const node *name, const node *def)
{
    fl->at = name;
    fl->weight = int_or(def, "weight", 1);
    const node *with = node_get(def, "with");
    size_t nb = with && with->kind == NODE_MAP ? with->count : 0;
    fl->with = arena_alloc(c->a, (nb ? nb : 1) * sizeof *fl->with);
    int rc = 0;
    for (size_t i = 0; i < nb; i++) {
        if (compile_binding(c, fl, with->pairs[i].key, with->pairs[i].value, &fl->with[fl->nwith]) <
            0)
            rc = -1;
        else
            fl->nwith++;
    }
    if (rc < 0)
        return rc;
    const node *steps = node_get(def, "steps");
    if (compile_steps(c, steps, false, fl, &fl->steps, &fl->nsteps) < 0)
        return -1;
    flow_needs(c, fl);
    return 0;
}

static int compile_flows(cc *c, const node *wn)
{
    workload *w = &c->p->work;
    const node *cycle = node_get(wn, "cycle"), *mix = node_get(wn, "mix");
    if (cycle && mix) {
        diag_error_at(c->d, node_get_pair(wn, "mix")->key,
                      "a workload has a cycle or a mix, not both");
        return -1;
    }
    if (mix && mix->kind == NODE_MAP && mix->count > 0) {
        w->is_mix = true;
        w->flows = arena_alloc(c->a, mix->count * sizeof *w->flows);
        int rc = 0;
        int64_t total = 0;
        for (size_t i = 0; i < mix->count; i++) {
            flow *fl = &w->flows[w->nflows++];
            fl->name = mix->pairs[i].key->text;
            if (!cc_ident(c, mix->pairs[i].key, "a flow") ||
                compile_flow(c, fl, mix->pairs[i].key, mix->pairs[i].value) < 0)
                rc = -1;
            total += fl->weight;
        }
        if (rc == 0 && total == 0) {
            diag_error_at(c->d, node_get_pair(wn, "mix")->key,
                          "every flow has weight 0: nothing can run");
            rc = -1;
        }
        return rc;
    }
    if (!cycle || cycle->kind != NODE_SEQ || cycle->count == 0) {
        diag_error_at(c->d, cycle ? cycle : wn,
                      "the workload needs a cycle of at least one step (or a mix of flows)");
        return -1;
    }
    w->flows = arena_alloc(c->a, sizeof *w->flows);
    w->nflows = 1;
    flow *fl = &w->flows[0];
    *fl = (flow){.name = "cycle", .weight = 1, .at = cycle};
    fl->with = arena_alloc(c->a, sizeof *fl->with);
    if (compile_steps(c, cycle, false, fl, &fl->steps, &fl->nsteps) < 0)
        return -1;
    flow_needs(c, fl);
    return 0;
}

static int find_flow(cc *c, const node *name)
{
    const workload *w = &c->p->work;
    const char *names[256] = {0};
    size_t m = 0;
    for (size_t i = 0; i < w->nflows; i++) {
        if (!strcmp(w->flows[i].name, name->text))
            return (int)i;
        if (m < 256)
            names[m++] = w->flows[i].name;
    }
    return unknown_name(c, name, 0, "flow", name->text, names, m);
}

static int compile_prefill(cc *c, const node *pf)
{
    workload *w = &c->p->work;
    w->prefill_flow = -1;
    size_t n = pf && pf->kind == NODE_SEQ ? pf->count : 1;
    w->prefill = arena_alloc(c->a, (n ? n : 1) * sizeof *w->prefill);
    if (!pf) {
        w->nprefill = 1;
        return 0;
    }
    if (pf->kind == NODE_MAP) { /* {cycles: N, flow: NAME}: the schema checked the shape */
        const node *fl = node_get(pf, "flow");
        w->prefill[w->nprefill++] = int_or(pf, "cycles", 0);
        if (fl && (w->prefill_flow = find_flow(c, fl)) < 0)
            return -1;
        return 0;
    }
    const node *const *items = pf->kind == NODE_SEQ ? (const node *const *)pf->items : &pf;
    for (size_t i = 0; i < n; i++) {
        if (items[i]->kind != NODE_INT || items[i]->v.i < 0) {
            diag_error_at(c->d, items[i], "prefill is a number of cycles (0 or more)");
            return -1;
        }
        for (size_t k = 0; k < w->nprefill; k++)
            if (w->prefill[k] == items[i]->v.i) { /* one row per size, each its metric name */
                diag_error_at(c->d, items[i], "prefill lists %" PRId64 " twice", items[i]->v.i);
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

/* A duration node: "30s", "250ms", or a number of seconds. */
static int duration_of(cc *c, const node *n, const char *what, uint64_t *ns)
{
    char text[64];
    if (n->kind == NODE_INT || n->kind == NODE_FLOAT || n->kind == NODE_STRING)
        snprintf(text, sizeof text, "%.*s", (int)n->len, n->text);
    else
        text[0] = '\0';
    if (duration_parse(text, ns) == 0)
        return 0;
    diag_error_at(c->d, n, "%s is a duration such as 30s, 250ms or 2m", what);
    return -1;
}

static double rate_of(const node *n)
{
    return n && n->kind == NODE_INT ? (double)n->v.i : n && n->kind == NODE_FLOAT ? n->v.f : 0;
}

/* arrival: {rate: [R1, R2, ...]}: a sweep of rates, one result per level
 * (the schema checked the items' kinds). One sweep at a time: not beside a
 * list of clients. */
static int compile_rate_levels(cc *c, const node *wn, const node *rate)
{
    workload *w = &c->p->work;
    const node *cl = node_get(wn, "clients");
    if (cl && cl->kind == NODE_SEQ) {
        diag_error_at(c->d, rate,
                      "one sweep at a time: clients is already a list; give arrival's rate "
                      "one number, or clients one number");
        return -1;
    }
    if (rate->count == 0) {
        diag_error_at(c->d, rate, "arrival's rate needs at least one level");
        return -1;
    }
    w->rate_levels = arena_alloc(c->a, rate->count * sizeof *w->rate_levels);
    for (size_t i = 0; i < rate->count; i++) {
        double r = rate_of(rate->items[i]);
        if (!(r > 0) || !isfinite(r)) {
            diag_error_at(c->d, rate->items[i],
                          "arrival's rate is a number of cycles per second above 0");
            return -1;
        }
        for (size_t k = 0; k < w->nrate_levels; k++)
            if (w->rate_levels[k] == r) { /* one row per level, each its metric name */
                diag_error_at(c->d, rate->items[i], "arrival's rate lists %.15g twice", r);
                return -1;
            }
        w->rate_levels[w->nrate_levels++] = r;
    }
    w->arrival.rate = w->rate_levels[0];
    return 0;
}

/* duration and arrival (DESIGN section 10). */
static int compile_load(cc *c, const node *wn)
{
    workload *w = &c->p->work;
    const node *d = node_get(wn, "duration"), *a = node_get(wn, "arrival");
    if (d && duration_of(c, d, "duration", &w->duration_ns) < 0)
        return -1;
    if (!a || a->kind != NODE_MAP) /* the schema checked the shape */
        return 0;
    const node *rate = node_get(a, "rate"), *proc = node_get(a, "process");
    const node *lag = node_get(a, "max_lag");
    w->arrival.process = proc && node_is_str(proc, "uniform") ? ARRIVAL_UNIFORM : ARRIVAL_POISSON;
    if (rate && rate->kind == NODE_SEQ) {
        if (compile_rate_levels(c, wn, rate) < 0)
            return -1;
    } else if (!((w->arrival.rate = rate_of(rate)) > 0)) {
        diag_error_at(c->d, rate ? rate : a,
                      "arrival's rate is a number of cycles per second above 0");
        return -1;
    }
    if (lag && duration_of(c, lag, "max_lag", &w->arrival.max_lag_ns) < 0)
        return -1;
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
    w->seed = (uint64_t)int_or(wn, "seed", DEFAULT_SEED);
    w->clients = int_or(wn, "clients", 1);
    const node *cl = node_get(wn, "clients");
    if (cl && cl->kind == NODE_SEQ && cl->count > 0) { /* the schema checked the items */
        w->client_levels = arena_alloc(c->a, cl->count * sizeof *w->client_levels);
        for (size_t i = 0; i < cl->count; i++)
            w->client_levels[w->nclient_levels++] = cl->items[i]->v.i;
        w->clients = w->client_levels[0];
    }
    w->shared_keys = node_is_str(node_get(wn, "keys"), "shared");
    w->verify = VERIFY_LEVEL_COUNTS;
    const node *vn = node_get(wn, "verify");
    if (vn && vn->kind == NODE_STRING && !(w->verify = verify_level_of(vn->text))) {
        diag_error_at(c->d, vn, "verify is one of counts, state, full");
        rc = -1;
    }
    if (compile_load(c, wn) < 0)
        rc = -1;
    if (declare_pools(c, wn) < 0)
        rc = -1;
    if (compile_steps(c, node_get(wn, "setup"), true, NULL, &w->setup, &w->nsetup) < 0)
        rc = -1;
    if (compile_flows(c, wn) < 0)
        rc = -1;
    if (rc == 0 && compile_prefill(c, node_get(wn, "prefill")) < 0)
        rc = -1;
    if (cc_targets(c, node_get(wn, "targets")) < 0)
        rc = -1;
    return rc;
}
