/* compile_query.c: what the compiler does for queries (DESIGN section 9):
 * a query is a command that writes nothing, so compile.c compiles its
 * params, reads and guards as a command's, and this file refuses what
 * would write and types its `returns` from the expressions (a step's
 * `expect: {returns: ...}` is read against them in compile_work.c, beside
 * the step). */
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
        t->fields[t->nfields++] = (field){
            .name = k->text, .name_len = (uint32_t)strlen(k->text), .type = expr_type(e), .at = k};
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
