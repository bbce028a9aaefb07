/* expr.h: the expression language of guards, effects, ensure, policy
 * arguments and event payloads (DESIGN section 2, "Names in expressions").
 * Expressions are parsed and type-checked once, when the spec is compiled;
 * evaluation never parses, never calls malloc (string '+' takes its result
 * from the caller's scratch arena, expr_ctx.scratch) and never fails except for the
 * refusals the language defines (overflow, division by zero, reading an
 * optional field that is unset). */
#ifndef BENCH_EXPR_H
#define BENCH_EXPR_H

#include "arena.h"
#include "diag.h"
#include "node.h"
#include "types.h"

/* The scopes a name can come from. */
typedef enum expr_scope {
    SCOPE_SELF,  /* bare name: a field of the command's aggregate (new state in ensure) */
    SCOPE_ARG,   /* arg.x: a parameter */
    SCOPE_OLD,   /* old.x: the aggregate before the command (ensure only) */
    SCOPE_ALIAS, /* alias.x: an aggregate loaded by `reads` */
    SCOPE_EVENT, /* event.x: the triggering event's payload (policies only) */
    SCOPE_ITEM,  /* item, item.x: the current element of a for_each policy's list */
} expr_scope;

/* What names mean where an expression is compiled. Any pointer may be NULL:
 * that scope does not exist there (e.g. no `self` in a policy). */
typedef struct expr_env {
    const ty *self;                 /* struct type of the aggregate */
    const ty *args;                 /* struct type of the parameters */
    bool allow_old;                 /* old.x allowed (ensure) */
    const char *const *alias_names; /* read aliases, in declaration order */
    const ty *const *alias_types;   /* their aggregates' struct types */
    size_t nalias;
    const ty *event; /* struct type of the event payload */
    const ty *item;  /* the element type of a for_each policy's list (any type) */
} expr_env;

typedef struct expr expr; /* opaque compiled form, lives in the arena */

/* Parses and type-checks the text of scalar node n as an expression.
 * expected: the type the context needs (bool for checks, a field's type for
 * effects), or NULL for "any". A bare enum value is accepted only where an
 * enum containing it is expected (by `expected` or by the other side of a
 * comparison). On success stores the compiled expression in *out and returns
 * 0; on failure appends one error, at the expression's own column inside the
 * YAML scalar (n->col plus the offset, plus one for a quoted scalar), and
 * returns -1. Compatibility is ty_compatible(). */
int expr_compile(arena *a, const node *n, const expr_env *env, const ty *expected, const expr **out,
                 diag_list *d);
/* Same, from a string at a given position (for tests and for templates). */
int expr_compile_text(arena *a, const char *text, const char *file, int line, int col,
                      const expr_env *env, const ty *expected, const expr **out, diag_list *d);

/* The static type of a compiled expression. */
const ty *expr_type(const expr *e);
/* The source text it was compiled from. */
const char *expr_text(const expr *e);
/* Writes a canonical, fully parenthesised rendering into buf (for `bench
 * plan`): e.g. "(len(toppings) < 10)"; truncated to size, NUL-terminated
 * when size > 0. Returns buf. */
const char *expr_render(const expr *e, char *buf, size_t size);
/* Calls fn for every name the expression reads: (scope, alias index for
 * SCOPE_ALIAS else 0, field path as "a.b"; "" for the whole `item`). For
 * lint and plan. */
void expr_visit_names(const expr *e,
                      void (*fn)(void *ctx, expr_scope scope, int alias, const char *path),
                      void *ctx);
/* True when the whole expression is one name (`event.card`, `borrower`):
 * then its scope, alias index (SCOPE_ALIAS, else 0) and field path inside
 * the scope ("card") are set. The path lives as long as the expression. */
bool expr_name_path(const expr *e, expr_scope *scope, int *alias, const char **path);

/* True when e is a constant (a literal, or operators on constants that the
 * compiler folded): its value is set. */
bool expr_constant(const expr *e, value *out);

/* Whether ensure e holds whenever the command has run with one effect on
 * field f of its record and no other change to f, so that it need not be
 * evaluated. With set, the effect's value (computed on the state before):
 * e is `f == E` either way round, E being set with each field of the
 * record it reads written old.x (`balance == old.balance - arg.amount.cents`
 * after `balance: balance - arg.amount.cents`). With set NULL, for one item
 * appended to f, a list that is never unset: e is `len(f) == len(old.f) + 1`
 * (or `1 + len(old.f)`, either way round). Anything else: false. */
bool expr_ensure_implied(const expr *e, int f, const expr *set);

/* The values names are read from at evaluation: each is a VAL_STRUCT laid out
 * as the corresponding env type (NULL where the scope does not exist). */
typedef struct expr_ctx {
    const value *self;
    const value *args;
    const value *old;
    const value *const *aliases;
    const value *event;
    const value *item; /* the current element of a for_each policy's list */
    /* where '+' on strings puts its result: the runtime's per-dispatch
     * scratch arena, so evaluation never calls malloc once it has grown */
    arena *scratch;
} expr_ctx;

typedef enum expr_status {
    EXPR_OK = 0,
    EXPR_OVERFLOW = -1, /* 64-bit signed overflow in + - * / %, unary - or abs */
    EXPR_DIV_ZERO = -2, /* / or % by zero */
    EXPR_UNSET = -3,    /* read an optional field that is not set */
} expr_status;

struct xnode;
/* The start of every compiled expression, public for expr_run: its root
 * node and the function that evaluates it (the rest is expr.c's). */
typedef struct expr_head {
    expr_status (*run)(const struct xnode *root, const expr_ctx *ctx, value *out);
    const struct xnode *root;
} expr_head;

/* expr_eval without a call of its own, for the runtime's hot path: the
 * same result, but *out may be written when the status is not EXPR_OK. */
static inline expr_status expr_run(const expr *e, const expr_ctx *ctx, value *out)
{
    const expr_head *h = (const expr_head *)(const void *)e;
    return h->run(h->root, ctx, out);
}

/* An int operand read in place, with no call (expr_sum): a constant, a
 * field one or two steps into its scope, or len() of a list field one step
 * in (the scope: the expr_ctx member at byte offset at, or aliases[at]). */
typedef enum expr_leaf_kind {
    EXPR_LEAF_K,
    EXPR_LEAF_F1,
    EXPR_LEAF_F2,
    EXPR_LEAF_LEN1,
} expr_leaf_kind;

typedef struct expr_leaf {
    expr_leaf_kind kind;
    bool alias;
    uint32_t at;
    int32_t idx[2];
    int64_t k;
} expr_leaf;

/* l + r, or l - r when sub: an int expression of two leaves. */
typedef struct expr_sum {
    expr_leaf l, r;
    bool sub;
} expr_sum;

/* True when e is such a sum (`balance + arg.amount.cents`, `len(ledger) +
 * 1`): then *out describes it, for expr_sum_run. */
bool expr_int_sum(const expr *e, expr_sum *out);

static inline bool expr_leaf_read(const expr_leaf *f, const expr_ctx *x, int64_t *out)
{
    if (f->kind == EXPR_LEAF_K) {
        *out = f->k;
        return true;
    }
    const value *v =
        f->alias ? x->aliases[f->at] : *(const value *const *)((const char *)x + f->at);
    v = &v->u.items[f->idx[0]];
    if (v->kind == VAL_NONE)
        return false;
    if (f->kind == EXPR_LEAF_F2 && (v = &v->u.items[f->idx[1]])->kind == VAL_NONE)
        return false;
    *out = f->kind == EXPR_LEAF_LEN1 ? (int64_t)v->len : v->u.i;
    return true;
}

/* The sum s describes, evaluated in place: true with its value in *out,
 * the value expr_run of its expression gives; false when that would not be
 * EXPR_OK (an unset field, an overflow): the caller runs the expression for
 * the status. */
static inline bool expr_sum_run(const expr_sum *s, const expr_ctx *x, int64_t *out)
{
    int64_t a, b;
    return expr_leaf_read(&s->l, x, &a) && expr_leaf_read(&s->r, x, &b) &&
           !(s->sub ? __builtin_sub_overflow(a, b, out) : __builtin_add_overflow(a, b, out));
}

/* Evaluates e. The result may point into the values of ctx (strings,
 * structs, lists are not copied) or into ctx->scratch (a concatenation). Returns EXPR_OK or a
 * negative status; *out is set only on EXPR_OK. */
expr_status expr_eval(const expr *e, const expr_ctx *ctx, value *out);
/* A one-line reason for a status, e.g. "integer overflow"; the caller adds
 * the expression (expr_text) when it reports one. */
const char *expr_status_text(expr_status s);

#endif
