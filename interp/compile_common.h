/* compile_common.h: shared by the compiler's files (compile.c for the
 * domain, compile_work.c for the workload, compile_targets.c for its
 * targets). Not for other stages. */
#ifndef BENCH_COMPILE_COMMON_H
#define BENCH_COMPILE_COMMON_H

#include "name_index.h"
#include "plan.h"

typedef struct cc {
    plan *p;
    arena *a;
    diag_list *d;
    size_t errors_at_start;
    name_index aggs, events; /* by name, as they are declared */
} cc;

/* True when s is [A-Za-z_][A-Za-z0-9_]*; otherwise reports at n what is named. */
bool cc_ident(cc *c, const node *n, const char *what);
/* The text of a scalar key or value, or NULL (reported) when n is not a string. */
const char *cc_string(cc *c, const node *n, const char *what);
/* Converts a constant YAML node into a value of type t, checking constraints.
 * what names it in messages ("argument 'pizza'"). tmpls: where templates
 * found are collected (NULL: templates are an error, as in setup).
 * path/depth: the index path from the step's args struct. */
typedef struct tmpl_sink {
    tmpl *items;
    size_t count, cap;
    bool in_setup;
    const flow *flow; /* whose bindings ${name} finds; NULL: none */
    size_t nbound;    /* how many of them are bound so far */
    bool dynamic;     /* the value just compiled comes from a binding or a draw */
    bool any_dynamic; /* some value did */
} tmpl_sink;
int cc_value(cc *c, const ty *t, const node *n, const char *what, value *out, tmpl_sink *sink,
             int *path, size_t depth);
/* Compiles the workload section (steps, templates, targets). */
int cc_workload(cc *c, const node *w);
/* Compiles the workload's targets (list: its `targets` node, or NULL for
 * the default, the first target the registry lists). */
int cc_targets(cc *c, const node *list);
/* Looks up an aggregate by name. */
aggregate *cc_find_agg(cc *c, const char *name);

/* Queries (compile_query.c). A query's definition def with a key that
 * writes (creates, deletes, set, append, ensure, emits): one error at each
 * such key; returns 0 or -1. */
int cc_query_writes(cc *c, const command *q, const node *def);
/* Compiles a query's returns (name: expression, in env, where its reads
 * are known) into q->returns and q->returns_exprs. Returns 0 or -1. */
int cc_query_returns(cc *c, command *q, const node *returns, const expr_env *env);
/* A query's `scan: {limit: PARAM}` (none: 0, q is no scan) into q->scan,
 * q->scan_limit and q->rows (once returns is compiled: call it after
 * cc_query_returns); a scan has no guards and no reads. One error at what
 * is wrong (the key, the missing limit, the parameter that is unknown or
 * not an int); returns 0 or -1. */
int cc_query_scan(cc *c, command *q, const node *def);
/* Reads a step's expect when it checks an answer, {returns: {...}} or
 * {rows: N}, into st (whose cmd is set): 1 when it does, 0 when exp is
 * anything else (or NULL), -1 after an error at the name or value that is
 * wrong (returns on a scan, rows on anything but a scan). In
 * compile_work.c, beside the steps. */
int cc_expect_returns(cc *c, step *st, const node *exp);

#endif
