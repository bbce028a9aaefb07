/* compile_query.c: what the compiler does for queries (DESIGN section 9):
 * a query is a command that writes nothing, so compile.c compiles its
 * params, reads and guards as a command's, and this file refuses what
 * would write, types its `returns` from the expressions, and reads a
 * step's `expect: {returns: ...}` against them. */
#include <string.h>

#include "compile_common.h"

/* The keys of a command that change the store; a query has none. */
static const char *const write_keys[] = {"creates", "deletes", "set", "append", "ensure", "emits"};

int cc_query_writes(cc *c, const command *q, const node *def)
{
    int rc = 0;
    for (size_t i = 0; i < sizeof write_keys / sizeof *write_keys; i++) {
        const node_pair *kp = node_get_pair(def, write_keys[i]);
        if (!kp)
            continue;
        diag_error_at(c->d, kp->key, "%s is a query and writes nothing; '%s' is for commands",
                      q->verb, write_keys[i]);
        rc = -1;
    }
    return rc;
}

int cc_query_returns(cc *c, command *q, const node *returns, const expr_env *env)
{
    if (!returns || returns->kind != NODE_MAP || returns->count == 0) {
        diag_error_at(c->d, returns ? returns : q->at,
                      "%s needs returns: a mapping of names to expressions", q->verb);
        return -1;
    }
    ty *t = arena_alloc(c->a, sizeof *t);
    t->kind = TY_STRUCT;
    t->fields = arena_alloc(c->a, returns->count * sizeof *t->fields);
    q->returns_exprs = arena_alloc(c->a, returns->count * sizeof *q->returns_exprs);
    int rc = 0;
    for (size_t i = 0; i < returns->count; i++) {
        const node *k = returns->pairs[i].key;
        const expr *e;
        if (!cc_ident(c, k, "returns name") ||
            expr_compile(c->a, returns->pairs[i].value, env, NULL, &e, c->d) < 0) {
            rc = -1;
            continue;
        }
        q->returns_exprs[t->nfields] = e;
        t->fields[t->nfields++] = (field){.name = k->text, .type = expr_type(e), .at = k};
    }
    q->returns = t;
    return rc;
}

/* The names of q's parameters, for a suggestion. */
static size_t param_names(const command *q, const char **names, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < q->params->nfields && n < max; i++)
        names[n++] = q->params->fields[i].name;
    return n;
}

/* Keys a scan query cannot have: a scan answers many records, so there is
 * no one record for a guard to judge or a read to follow. */
static const char *const scan_refuses[] = {"guards", "reads"};

int cc_query_scan(cc *c, command *q, const node *def)
{
    const node_pair *sp = node_get_pair(def, "scan");
    if (!sp)
        return 0;
    int rc = 0;
    for (size_t i = 0; i < sizeof scan_refuses / sizeof *scan_refuses; i++) {
        const node_pair *kp = node_get_pair(def, scan_refuses[i]);
        if (!kp)
            continue;
        diag_error_at(c->d, kp->key,
                      "%s is a scan and answers many records; '%s' is for queries of one record",
                      q->verb, scan_refuses[i]);
        rc = -1;
    }
    const node *lim = sp->value->kind == NODE_MAP ? node_get(sp->value, "limit") : NULL;
    if (!lim || lim->kind != NODE_STRING) {
        diag_error_at(c->d, lim ? lim : sp->value,
                      "%s: scan needs limit: the name of an int parameter, the most records it "
                      "answers",
                      q->verb);
        return -1;
    }
    int li = ty_field_index(q->params, lim->text);
    if (li < 0) {
        const char *names[256];
        size_t n = param_names(q, names, 256);
        const char *hint = diag_suggest(lim->text, names, n);
        diag_error_at(c->d, lim, "%s: scan limit '%s' is not a parameter%s%s%s", q->verb, lim->text,
                      hint ? " (did you mean '" : "", hint ? hint : "", hint ? "'?)" : "");
        return -1;
    }
    const ty *lt = q->params->fields[li].type;
    if (lt->kind != TY_INT || q->params->fields[li].optional) {
        diag_error_at(c->d, lim, "%s: scan limit '%s' must be a required int parameter", q->verb,
                      lim->text);
        return -1;
    }
    if (li == q->identity_param) {
        diag_error_at(c->d, lim,
                      "%s: scan limit '%s' is the start key; the limit needs a "
                      "parameter of its own",
                      q->verb, lim->text);
        return -1;
    }
    if (rc < 0)
        return -1;
    ty *rows = arena_alloc(c->a, sizeof *rows);
    rows->kind = TY_LIST;
    rows->elem = q->returns;
    q->scan = true;
    q->scan_limit = li;
    q->rows = rows;
    q->scan_at = sp->key;
    return 0;
}

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
