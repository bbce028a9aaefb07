/* runtime.c: carries out one command against a store, step by step as
 * DESIGN section 2 defines it, or answers one query (section 9). Everything a dispatch builds
 * (fresh records, new states, appended items, payloads, policy arguments) lives in a scratch arena
 * reset at the start of the next dispatch; the store copies what it keeps. A refusal is a normal
 * result: the message says why and the store rolls back, so nothing the command or its policies did
 * is kept. */
#include "runtime.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "value.h"

enum {
    RUNTIME_MESSAGE_MAX = BENCH_ERROR_MAX,
    RUNTIME_WHY_MAX = 512,
    EXECUTE_ROOM = 16, /* fields of an old state, reads, kept on execute's frame */
};

/* Where the key of a record a policy of a command's event loads comes from:
 * an argument of the command, or a field of the command's stored record. */
typedef struct policy_key {
    const aggregate *agg; /* the record the policy's command loads */
    bool via;             /* true: field `field` of the command's record; false: param */
    int field;
} policy_key;

/* What of a changed field is checked against its constraints. */
typedef enum field_check {
    CHECK_ALL,  /* the new value (an appended list: its items from the ones before) */
    CHECK_NONE, /* the value passed these very checks already (passed_already) */
    CHECK_ROOM, /* one item appended that passed them already: the list's max_items only */
    CHECK_ITEM, /* one struct appended, built field by field: its fields in `item`, then
                   max_items */
} field_check;

/* A field a command's effects change, for checking only what changed. */
typedef struct changed_field {
    int field;
    bool appends_only; /* every effect on it appends: the items before were checked */
    field_check check;
    uint64_t item; /* CHECK_ITEM: bit i, the item's field i is checked */
} changed_field;

struct runtime {
    const plan *p;
    store *s;
    /* per command index: the fields its effects change, in declaration
     * order (the order value_check reports in), and how many */
    changed_field **changed;
    size_t *nchanged;
    /* per command index: a create whose unset fields pass as they start, so
       only the fields it sets are checked (fresh_rest_valid) */
    bool *fresh_checks_changed;
    uint64_t *free_params; /* per command index: unconstrained_params */
    store_change *changes; /* room for the most effects of any command */
    arena scratch;         /* per dispatch; reset at the start of the next one */
    /* per command index, per read: its key reads only arguments, so a store
     * with prefetch can fetch it before the command's record is loaded */
    bool **arg_only;
    /* per command index: the records its event's policies load whose keys
     * are known before the command runs (policy_keys), and how many */
    policy_key **policy_keys;
    size_t *npolicy_keys;
    /* per command index: how the store's direct path carries it out
       (find_direct), or NULL: in a transaction */
    struct direct_cmd **direct;
    value **fresh; /* per aggregate index: a new record's fields as they start (field_initial) */
    bool conflict; /* the dispatch's create was refused as already existing */
    bool args_checked;   /* the dispatched command's arguments passed their checks */
    bool answered;       /* the dispatch was a query that succeeded: answer holds its returns */
    bool keep_constants; /* runtime_keep_constants: checked arguments outlive the store */
    value answer;        /* in scratch, or lent from the store's records */
    char message[RUNTIME_MESSAGE_MAX];
};

static void note_scope(void *ctx, expr_scope scope, int alias, const char *path)
{
    if (scope != SCOPE_ARG)
        *(bool *)ctx = false;
}

static bool effects_set(const command *cmd, int f)
{
    for (size_t i = 0; i < cmd->neffects; i++)
        if (cmd->effects[i].field == f)
            return true;
    return false;
}

/* Where the payload field f of cmd's event comes from, when it is an
 * argument or a stored field of cmd's record that cmd leaves unchanged. */
static bool payload_source(const command *cmd, int f, policy_key *out)
{
    if (!cmd->payload) { /* the payload is the arguments */
        int param = ty_field_index(cmd->params, cmd->event->payload->fields[f].name);
        *out = (policy_key){.via = false, .field = param};
        return param >= 0;
    }
    expr_scope scope;
    int alias;
    const char *path;
    if (!cmd->payload[f] || !expr_name_path(cmd->payload[f], &scope, &alias, &path) ||
        strchr(path, '.'))
        return false;
    if (scope == SCOPE_ARG) {
        *out = (policy_key){.via = false, .field = ty_field_index(cmd->params, path)};
        return out->field >= 0;
    }
    /* in a payload a bare name is the new state: the stored one only when
     * no effect sets it; a created record is not stored before */
    if ((scope != SCOPE_SELF && scope != SCOPE_OLD) || cmd->creates)
        return false;
    *out = (policy_key){.via = true, .field = ty_field_index(cmd->agg->state, path)};
    return out->field >= 0 && (scope == SCOPE_OLD || !effects_set(cmd, out->field));
}

/* Which records the policies of each command's event load by a key known
 * before the command runs: a policy argument `event.f` for the identity of
 * the policy's command, where the payload field f is an argument or an
 * unchanged stored field of the command's record. Other keys are loaded
 * when their policy runs (a policy's own policies are hinted then). */
static int find_policy_keys(runtime *rt, bool via_ok)
{
    const plan *p = rt->p;
    size_t n = p->ncommands ? p->ncommands : 1;
    rt->policy_keys = calloc(n, sizeof *rt->policy_keys);
    rt->npolicy_keys = calloc(n, sizeof *rt->npolicy_keys);
    if (!rt->policy_keys || !rt->npolicy_keys)
        return -1;
    for (size_t c = 0; c < p->ncommands; c++) {
        const command *cmd = p->commands[c];
        const event_def *ev = cmd->event;
        if (!ev || !ev->npolicies)
            continue;
        policy_key *keys = calloc(ev->npolicies, sizeof *keys);
        if (!keys)
            return -1;
        rt->policy_keys[cmd->index] = keys;
        for (size_t i = 0; i < ev->npolicies; i++) {
            const command *run = ev->policies[i]->run;
            /* a for_each policy loads one record per item, each when its
               command runs: not prefetched, and correct on every store */
            if (ev->policies[i]->for_each)
                continue;
            expr_scope scope;
            int alias, f;
            const char *path;
            policy_key k;
            if (!expr_name_path(ev->policies[i]->args[run->identity_param], &scope, &alias,
                                &path) ||
                scope != SCOPE_EVENT || strchr(path, '.') ||
                (f = ty_field_index(ev->payload, path)) < 0 || !payload_source(cmd, f, &k) ||
                (k.via && !via_ok))
                continue;
            k.agg = run->agg;
            keys[rt->npolicy_keys[cmd->index]++] = k;
        }
    }
    return 0;
}

/* Which reads of each command have keys computed from arguments alone. */
static int find_arg_only_reads(runtime *rt)
{
    const plan *p = rt->p;
    rt->arg_only = calloc(p->ncommands ? p->ncommands : 1, sizeof *rt->arg_only);
    if (!rt->arg_only)
        return -1;
    for (size_t c = 0; c < p->ncommands; c++) {
        const command *cmd = p->commands[c];
        if (!cmd->nreads)
            continue;
        bool *flags = calloc(cmd->nreads, sizeof *flags);
        if (!flags)
            return -1;
        for (size_t i = 0; i < cmd->nreads; i++) {
            flags[i] = true;
            expr_visit_names(cmd->reads[i].key, note_scope, &flags[i]);
        }
        rt->arg_only[cmd->index] = flags;
    }
    return 0;
}

/* Bit i: parameter i (i < 64) has a type without constraints. */
static uint64_t unconstrained_params(const ty *params)
{
    uint64_t m = 0;
    for (size_t i = 0; i < params->nfields && i < 64; i++)
        if (value_type_unconstrained(params->fields[i].type))
            m |= UINT64_C(1) << i;
    return m;
}

/* Whether every field of a record that cmd creates and neither its identity
 * nor an effect sets passes its checks at its initial value (field_initial):
 * then only the fields cmd sets are checked on each create, in field order,
 * with the same sentence as the whole state's check (the others pass). */
static bool fresh_rest_valid(const command *cmd, const changed_field *ch, size_t n)
{
    const ty *st = cmd->agg->state;
    char why[RUNTIME_WHY_MAX];
    size_t k = 0;
    for (size_t f = 0; f < st->nfields; f++) {
        if (k < n && ch[k].field == (int)f) {
            k++;
            continue;
        }
        value v = field_initial(&st->fields[f]);
        if (value_check_field(st, f, &v, 0, why, sizeof why) < 0)
            return false;
    }
    return true;
}

/* Whether every value that passes a's checks passes b's: the same type,
 * or scalars of one kind whose bounds b does not tighten (an enum of the
 * same values, a refinement that only adds a default). */
static bool checks_cover(const ty *a, const ty *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TY_BOOL: return true;
    case TY_ENUM: return ty_compatible(a, b);
    case TY_INT:
        return (!b->has_min || (a->has_min && a->min >= b->min)) &&
               (!b->has_max || (a->has_max && a->max <= b->max));
    case TY_STRING:
        return (!b->pattern || (a->pattern && strcmp(a->pattern, b->pattern) == 0)) &&
               (!b->has_min_len || (a->has_min_len && a->min_len >= b->min_len)) &&
               (!b->has_max_len || (a->has_max_len && a->max_len <= b->max_len));
    case TY_STRUCT:
    case TY_LIST: break;
    }
    return false;
}

/* Whether whatever e yields passed t's checks before it is stored: a
 * constant that passes them, or a bare name read from what passed checks
 * that cover t's (checks_cover) already: an argument (each is checked
 * before the command runs), a stored record's field (checked when saved:
 * the command's own before it changes, unless it is created, and a
 * read's). */
static bool passed_already(const command *cmd, const expr *e, const ty *t)
{
    value k;
    char why[RUNTIME_WHY_MAX];
    if (expr_constant(e, &k))
        return value_check(t, &k, "", why, sizeof why) == 0;
    expr_scope scope;
    int alias;
    const char *path;
    if (!checks_cover(expr_type(e), t) || !expr_name_path(e, &scope, &alias, &path))
        return false;
    return scope == SCOPE_ARG || scope == SCOPE_ALIAS ||
           (!cmd->creates && (scope == SCOPE_SELF || scope == SCOPE_OLD));
}

/* How the field of ch is checked after cmd: touched by ne of its effects,
 * the last of them e (create: the field is its identity, from the arguments). */
static void plan_check(const command *cmd, changed_field *ch, size_t ne, const effect *e,
                       bool identity)
{
    const ty *st = cmd->agg->state, *ft = st->fields[ch->field].type;
    ch->check = CHECK_ALL;
    if (identity) {
        if (!ne && checks_cover(cmd->params->fields[cmd->identity_param].type, ft))
            ch->check = CHECK_NONE;
        return;
    }
    if (ne != 1)
        return;
    if (e->kind == EFFECT_SET) {
        ch->check = passed_already(cmd, e->value, ft) ? CHECK_NONE : CHECK_ALL;
        return;
    }
    const ty *elem = ft->elem;
    if (e->value) {
        ch->check = passed_already(cmd, e->value, elem) ? CHECK_ROOM : CHECK_ALL;
        return;
    }
    if (elem->nfields > 64)
        return;
    char why[RUNTIME_WHY_MAX];
    for (size_t i = 0; i < elem->nfields; i++) {
        value v = field_initial(&elem->fields[i]);
        bool ok = e->build[i] ? passed_already(cmd, e->build[i], elem->fields[i].type)
                              : value_check_field(elem, i, &v, 0, why, sizeof why) == 0;
        if (!ok)
            ch->item |= UINT64_C(1) << i;
    }
    ch->check = CHECK_ITEM;
}

/* The fields each command changes, in field order (find_changed); for a
 * create, its identity too, and whether the rest pass as they start. */
static int find_changed(runtime *rt)
{
    const plan *p = rt->p;
    size_t n = p->ncommands ? p->ncommands : 1, most = 0;
    rt->changed = calloc(n, sizeof *rt->changed);
    rt->nchanged = calloc(n, sizeof *rt->nchanged);
    rt->fresh_checks_changed = calloc(n, sizeof *rt->fresh_checks_changed);
    rt->free_params = calloc(n, sizeof *rt->free_params);
    if (!rt->changed || !rt->nchanged || !rt->fresh_checks_changed || !rt->free_params)
        return -1;
    for (size_t c = 0; c < p->ncommands; c++) {
        const command *cmd = p->commands[c];
        rt->free_params[cmd->index] = unconstrained_params(cmd->params);
        if (cmd->neffects > most)
            most = cmd->neffects;
        bool create = cmd->creates && !cmd->query && !cmd->scan;
        if ((!cmd->neffects && !create) || !cmd->agg)
            continue;
        changed_field *ch = calloc(cmd->neffects + 1, sizeof *ch);
        if (!ch)
            return -1;
        rt->changed[cmd->index] = ch;
        size_t k = 0;
        for (size_t f = 0; f < cmd->agg->state->nfields; f++) {
            bool identity = create && (int)f == cmd->agg->identity, appends = !identity;
            size_t ne = 0;
            const effect *last = NULL;
            for (size_t i = 0; i < cmd->neffects; i++)
                if (cmd->effects[i].field == (int)f) {
                    ne++;
                    last = &cmd->effects[i];
                    appends = appends && cmd->effects[i].kind != EFFECT_SET;
                }
            if (!identity && !ne)
                continue;
            ch[k] = (changed_field){.field = (int)f, .appends_only = appends};
            plan_check(cmd, &ch[k++], ne, last, identity);
        }
        rt->nchanged[cmd->index] = k;
        rt->fresh_checks_changed[cmd->index] = create && fresh_rest_valid(cmd, ch, k);
    }
    rt->changes = calloc(most ? most : 1, sizeof *rt->changes);
    return rt->changes ? 0 : -1;
}

/* Whether cmd can take a store's direct path (store.h): it writes only its
 * own record (an update, a create or a delete; its reads only load) and
 * its event runs no policy, so everything it checks comes before its one
 * write; and no field is both set and appended to (the direct write
 * applies a set and an append to different fields). */
static bool direct_fits(const command *cmd)
{
    if (cmd->query || cmd->scan || !cmd->agg || (cmd->event && cmd->event->npolicies))
        return false;
    for (size_t i = 0; i < cmd->neffects; i++)
        for (size_t j = i + 1; j < cmd->neffects; j++)
            if (cmd->effects[i].field == cmd->effects[j].field)
                return false;
    return true;
}

/* Where a value that the direct path puts into a change comes from,
 * worked out once (find_direct): a required argument's slot, a constant, a
 * built struct's field left to its initial value, or an expression. */
typedef enum src_kind {
    SRC_EXPR,
    SRC_ARG,   /* arg.x of a parameter that is not optional */
    SRC_CONST, /* and a field's initial value */
    SRC_SUM,   /* an int sum of two leaves, read in place (expr_sum) */
} src_kind;

typedef struct src {
    src_kind kind;
    int arg;       /* SRC_ARG: the parameter's index */
    value k;       /* SRC_CONST */
    const expr *e; /* SRC_EXPR, SRC_SUM */
    expr_sum sum;  /* SRC_SUM */
} src;

/* An effect of a command on the direct path: its field, and where its
 * value comes from (or each field of an appended struct built field by
 * field). */
typedef struct direct_effect {
    int field;
    bool append;
    src v;      /* unless built */
    src *build; /* NULL, or one per field of the appended item's type */
    uint32_t nbuild;
} direct_effect;

/* A check of the direct path that a quick test passes in place when it
 * can (the test failing, the full check is asked, for its words). */
typedef enum quick_kind {
    QUICK_NONE,
    QUICK_INT,    /* an int field set whole: within its bounds */
    QUICK_STRING, /* a string field without pattern set whole: its byte count decides */
    QUICK_ITEMS,  /* an item built field by field into a list without max_items, each
                     checked field of it an int (the item's type in t) */
} quick_kind;

typedef struct quick {
    quick_kind kind;
    const ty *t; /* the field's type (QUICK_INT, QUICK_STRING), the item's (QUICK_ITEMS) */
} quick;

/* How a command runs on the store's direct path. */
typedef struct direct_cmd {
    direct_effect *effects; /* one per effect of the command, in its order */
    /* the changed fields (a create's identity among them) that a check may
       refuse: find_changed's entries, less those whose checks cannot fail,
       in field order */
    changed_field *checks;
    quick *quick; /* one per check */
    size_t nchecks;
    /* a create, or an update whose checks, ensures or payload read its new
       state (the view, next_view: the find makes room in the lists it
       appends to, unless quick_only) */
    bool view;
    /* an update that only its checks make look at its new state, each with
       a quick test: they test the changes themselves (quick_change), and
       only when one fails is the view made, its lists copied */
    bool quick_only;
    int *check_effect; /* per check: the index of the effect on its field */
    /* the ensures to evaluate: the command's, less those its effects make
       true (ensure_implied) */
    check *ensures;
    size_t nensures;
    src *read_key; /* per read: where its key comes from */
    store_room *room;
    size_t nroom;
} direct_cmd;

/* The src of e in cmd: an argument, a constant or an expression. */
static src src_of(const command *cmd, const expr *e)
{
    value k;
    if (expr_constant(e, &k))
        return (src){.kind = SRC_CONST, .k = k};
    expr_scope scope;
    int alias;
    const char *path;
    if (expr_name_path(e, &scope, &alias, &path) && scope == SCOPE_ARG && !strchr(path, '.')) {
        int i = ty_field_index(cmd->params, path);
        if (i >= 0 && !cmd->params->fields[i].optional)
            return (src){.kind = SRC_ARG, .arg = i};
    }
    src sv = {.kind = SRC_EXPR, .e = e};
    if (expr_int_sum(e, &sv.sum))
        sv.kind = SRC_SUM;
    return sv;
}

/* Whether the check of ch after cmd can refuse anything: not when nothing
 * is checked, when only a list's max_items is and the list has none, or when
 * the field's type takes every value of its kind and what is set cannot be
 * unset (a successful expression never is). */
static bool check_can_fail(const command *cmd, const changed_field *ch)
{
    const ty *ft = cmd->agg->state->fields[ch->field].type;
    bool bounded = ft->kind == TY_LIST && ft->has_max_items;
    switch (ch->check) {
    case CHECK_NONE: return false;
    case CHECK_ROOM: return bounded;
    case CHECK_ITEM: return ch->item || bounded;
    case CHECK_ALL: break;
    }
    if (ft->kind == TY_LIST)
        return bounded || !ch->appends_only || !value_type_unconstrained(ft->elem);
    return !value_type_unconstrained(ft);
}

/* The quick test of the changed field ch of cmd (quick_kind). */
static quick quick_of(const command *cmd, const changed_field *ch)
{
    const ty *ft = cmd->agg->state->fields[ch->field].type;
    if (ch->check == CHECK_ALL && ft->kind == TY_INT)
        return (quick){.kind = QUICK_INT, .t = ft};
    if (ch->check == CHECK_ALL && ft->kind == TY_STRING && !ft->re)
        return (quick){.kind = QUICK_STRING, .t = ft};
    if (ch->check != CHECK_ITEM || ft->has_max_items || ft->elem->kind != TY_STRUCT)
        return (quick){.kind = QUICK_NONE};
    for (uint64_t m = ch->item; m; m &= m - 1)
        if (ft->elem->fields[__builtin_ctzll(m)].type->kind != TY_INT)
            return (quick){.kind = QUICK_NONE};
    return (quick){.kind = QUICK_ITEMS, .t = ft->elem};
}

/* Whether nv, the new value of ch's field, passes q in place. */
static inline bool quick_passes(const quick *q, const changed_field *ch, const value *nv)
{
    switch (q->kind) {
    case QUICK_INT: return nv->kind == VAL_INT && value_int_fits(q->t, nv->u.i);
    case QUICK_STRING: return nv->kind == VAL_STRING && value_bytes_fit(q->t, nv->len);
    case QUICK_ITEMS: {
        const value *item = &nv->u.items[nv->len - 1];
        for (uint64_t m = ch->item; m; m &= m - 1) {
            unsigned f = (unsigned)__builtin_ctzll(m);
            const value *fv = &item->u.items[f];
            if (fv->kind != VAL_INT || !value_int_fits(q->t->fields[f].type, fv->u.i))
                return false;
        }
        return true;
    }
    case QUICK_NONE: break;
    }
    return false;
}

/* quick_passes on the change c of ch's field itself: a set value, or an
 * appended item (QUICK_ITEMS). */
static inline bool quick_change(const quick *q, const changed_field *ch, const store_change *c)
{
    if (q->kind != QUICK_ITEMS)
        return quick_passes(q, ch, &c->v);
    value one = {.kind = VAL_LIST, .len = 1, .u.items = (value *)&c->v};
    return quick_passes(q, ch, &one);
}

/* Whether every check of dc (quick_only) passes its quick test on the
 * change of its field. */
static bool quick_all(const runtime *rt, const direct_cmd *dc)
{
    for (size_t i = 0; i < dc->nchecks; i++)
        if (!quick_change(&dc->quick[i], &dc->checks[i], &rt->changes[dc->check_effect[i]]))
            return false;
    return true;
}

static void direct_cmd_free(direct_cmd *dc, size_t neffects)
{
    if (!dc)
        return;
    for (size_t i = 0; dc->effects && i < neffects; i++)
        free(dc->effects[i].build);
    free(dc->effects);
    free(dc->checks);
    free(dc->quick);
    free(dc->check_effect);
    free(dc->ensures);
    free(dc->read_key);
    free(dc->room);
    free(dc);
}

/* Whether cmd's ensure c holds whenever its effects have run, so that the
 * direct path need not evaluate it: it says of a field what the one effect
 * on it did (expr_ensure_implied; the direct path has at most one effect a
 * field, direct_fits). */
static bool ensure_implied(const command *cmd, const check *c)
{
    if (cmd->deletes)
        return false;
    for (size_t i = 0; i < cmd->neffects; i++) {
        const effect *e = &cmd->effects[i];
        if (e->kind == EFFECT_SET ? e->value && expr_ensure_implied(c->cond, e->field, e->value)
                                  : !cmd->agg->state->fields[e->field].optional &&
                                        expr_ensure_implied(c->cond, e->field, NULL))
            return true;
    }
    return false;
}

/* How cmd runs on the direct path, or NULL when out of memory. */
static direct_cmd *direct_cmd_make(const runtime *rt, const command *cmd)
{
    direct_cmd *dc = calloc(1, sizeof *dc);
    if (!dc)
        return NULL;
    size_t ne = cmd->neffects, nch = rt->nchanged[cmd->index];
    dc->effects = calloc(ne + 1, sizeof *dc->effects);
    dc->checks = calloc(nch + 1, sizeof *dc->checks);
    dc->quick = calloc(nch + 1, sizeof *dc->quick);
    dc->check_effect = calloc(nch + 1, sizeof *dc->check_effect);
    dc->read_key = calloc(cmd->nreads + 1, sizeof *dc->read_key);
    dc->room = calloc(ne + 1, sizeof *dc->room);
    dc->ensures = calloc(cmd->nensures + 1, sizeof *dc->ensures);
    if (!dc->effects || !dc->checks || !dc->quick || !dc->check_effect || !dc->read_key ||
        !dc->room || !dc->ensures) {
        direct_cmd_free(dc, ne);
        return NULL;
    }
    for (size_t i = 0; i < ne; i++) {
        const effect *e = &cmd->effects[i];
        direct_effect *de = &dc->effects[i];
        de->field = e->field;
        de->append = e->kind != EFFECT_SET;
        if (de->append)
            dc->room[dc->nroom++] = (store_room){.field = e->field, .n = 1};
        if (e->value) {
            de->v = src_of(cmd, e->value);
            continue;
        }
        const ty *elem = cmd->agg->state->fields[e->field].type->elem;
        de->nbuild = (uint32_t)elem->nfields;
        de->build = calloc(elem->nfields + 1, sizeof *de->build);
        if (!de->build) {
            direct_cmd_free(dc, ne);
            return NULL;
        }
        for (size_t f = 0; f < elem->nfields; f++)
            de->build[f] = e->build[f]
                               ? src_of(cmd, e->build[f])
                               : (src){.kind = SRC_CONST, .k = field_initial(&elem->fields[f])};
    }
    for (size_t i = 0; i < cmd->nreads; i++)
        dc->read_key[i] = src_of(cmd, cmd->reads[i].key);
    const changed_field *ch = rt->changed[cmd->index];
    for (size_t i = 0; i < nch; i++)
        if (check_can_fail(cmd, &ch[i])) {
            dc->quick[dc->nchecks] = quick_of(cmd, &ch[i]);
            dc->checks[dc->nchecks++] = ch[i];
        }
    for (size_t i = 0; i < cmd->nensures; i++)
        if (!ensure_implied(cmd, &cmd->ensures[i]))
            dc->ensures[dc->nensures++] = cmd->ensures[i];
    /* a create's new state is the record written: always made */
    dc->view = cmd->creates || dc->nchecks || dc->nensures || cmd->payload;
    dc->quick_only = !cmd->creates && !dc->nensures && !cmd->payload;
    for (size_t i = 0; i < dc->nchecks; i++) {
        dc->check_effect[i] = -1;
        for (size_t k = 0; k < ne; k++)
            if (cmd->effects[k].field == dc->checks[i].field)
                dc->check_effect[i] = (int)k;
        dc->quick_only =
            dc->quick_only && dc->check_effect[i] >= 0 && dc->quick[i].kind != QUICK_NONE &&
            (dc->quick[i].kind == QUICK_ITEMS) == dc->effects[dc->check_effect[i]].append;
    }
    if (cmd->creates || !dc->view || dc->quick_only)
        dc->nroom = 0;
    return dc;
}

/* Which commands take the store's direct path, and how (direct_cmd). */
static int find_direct(runtime *rt)
{
    const plan *p = rt->p;
    rt->direct = calloc(p->ncommands ? p->ncommands : 1, sizeof *rt->direct);
    if (!rt->direct)
        return -1;
    for (size_t c = 0; c < p->ncommands; c++)
        if (direct_fits(p->commands[c]) && !(rt->direct[c] = direct_cmd_make(rt, p->commands[c])))
            return -1;
    return 0;
}

/* Each aggregate's fields as a new record starts (rt->fresh). */
static int find_fresh(runtime *rt)
{
    const plan *p = rt->p;
    rt->fresh = calloc(p->naggs ? p->naggs : 1, sizeof *rt->fresh);
    if (!rt->fresh)
        return -1;
    for (size_t a = 0; a < p->naggs; a++) {
        const ty *st = p->aggs[a].state;
        if (!(rt->fresh[a] = calloc(st->nfields ? st->nfields : 1, sizeof(value))))
            return -1;
        for (size_t f = 0; f < st->nfields; f++)
            rt->fresh[a][f] = field_initial(&st->fields[f]);
    }
    return 0;
}

int runtime_new(const plan *p, store *s, runtime **out)
{
    *out = NULL;
    runtime *rt = calloc(1, sizeof *rt);
    if (!rt)
        return -1;
    rt->p = p;
    rt->s = s;
    if (find_fresh(rt) < 0 || find_changed(rt) < 0 ||
        (s->ops->direct_find && find_direct(rt) < 0)) {
        runtime_free(rt);
        return -1;
    }
    if (s->ops->prefetch &&
        (find_arg_only_reads(rt) < 0 || find_policy_keys(rt, s->ops->prefetch_via != NULL) < 0)) {
        runtime_free(rt);
        return -1;
    }
    *out = rt;
    return 0;
}

void runtime_free(runtime *rt)
{
    if (!rt)
        return;
    for (size_t c = 0; rt->arg_only && c < rt->p->ncommands; c++)
        free(rt->arg_only[c]);
    free(rt->arg_only);
    for (size_t c = 0; rt->policy_keys && c < rt->p->ncommands; c++)
        free(rt->policy_keys[c]);
    free(rt->policy_keys);
    free(rt->npolicy_keys);
    for (size_t c = 0; rt->changed && c < rt->p->ncommands; c++)
        free(rt->changed[c]);
    free(rt->changed);
    free(rt->nchanged);
    free(rt->fresh_checks_changed);
    free(rt->free_params);
    free(rt->changes);
    for (size_t c = 0; rt->direct && c < rt->p->ncommands; c++)
        direct_cmd_free(rt->direct[c], rt->p->commands[c]->neffects);
    free(rt->direct);
    for (size_t a = 0; rt->fresh && a < rt->p->naggs; a++)
        free(rt->fresh[a]);
    free(rt->fresh);
    arena_free(&rt->scratch);
    free(rt);
}

bool runtime_is_direct(const runtime *rt, const command *cmd)
{
    return rt->direct && rt->direct[cmd->index];
}

size_t runtime_direct_ensures(const runtime *rt, const command *cmd)
{
    return runtime_is_direct(rt, cmd) ? rt->direct[cmd->index]->nensures : cmd->nensures;
}

const char *runtime_message(const runtime *rt)
{
    return rt->message;
}

const value *runtime_answer(const runtime *rt)
{
    return rt->answered ? &rt->answer : NULL;
}

static runtime_status refuse(runtime *rt, const command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static runtime_status refuse(runtime *rt, const command *cmd, const char *fmt, ...)
{
    int n = snprintf(rt->message, sizeof rt->message, "%s refused: ", cmd->verb);
    if (n >= 0 && (size_t)n < sizeof rt->message) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(rt->message + n, sizeof rt->message - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return RUNTIME_REFUSED;
}

static runtime_status store_failed(runtime *rt, const command *cmd)
{
    snprintf(rt->message, sizeof rt->message, "%s",
             rt->s->error[0] ? rt->s->error : "the store failed without saying why");
    err_prefix_buf(rt->message, sizeof rt->message, "%s failed: ", cmd->verb);
    return RUNTIME_ERROR;
}

/* An identity as users wrote it: 'pizza-3' or 42. */
static const char *key_text(const value *key, char *buf, size_t size)
{
    if (key->kind == VAL_INT)
        snprintf(buf, size, "%" PRId64, key->u.i);
    else if (key->kind == VAL_STRING)
        snprintf(buf, size, "'%.*s'", key->len > 200 ? 200 : (int)key->len, key->u.s);
    else
        snprintf(buf, size, "(unset)");
    return buf;
}

/* cmd refused because e did not evaluate (status s). */
static runtime_status eval_failed(runtime *rt, const command *cmd, const expr *e, expr_status s)
{
    return refuse(rt, cmd, "%s in \"%s\"", expr_status_text(s), expr_text(e));
}

static inline runtime_status eval(runtime *rt, const command *cmd, const expr *e,
                                  const expr_ctx *ctx, value *out)
{
    expr_status s = expr_run(e, ctx, out);
    return s == EXPR_OK ? RUNTIME_OK : eval_failed(rt, cmd, e, s);
}

/* Runs checks in order; the first false one refuses with its own text. */
static inline runtime_status run_checks(runtime *rt, const command *cmd, const check *checks,
                                        size_t n, const expr_ctx *ctx)
{
    for (size_t i = 0; i < n; i++) {
        value v;
        expr_status s = expr_run(checks[i].cond, ctx, &v);
        if (s != EXPR_OK)
            return eval_failed(rt, cmd, checks[i].cond, s);
        if (!v.u.b)
            return refuse(rt, cmd, "%s", checks[i].refuse);
    }
    return RUNTIME_OK;
}

static value *scratch_values(runtime *rt, size_t n)
{
    return arena_alloc_raw(&rt->scratch, (n ? n : 1) * sizeof(value));
}

/* A struct of type t whose fields are computed by exprs (NULL entries take
 * their initial value), evaluated in ctx. */
static runtime_status build_struct(runtime *rt, const command *cmd, const ty *t,
                                   const expr *const *exprs, const expr_ctx *ctx, value *out)
{
    value *items = scratch_values(rt, t->nfields);
    for (size_t i = 0; i < t->nfields; i++) {
        if (!exprs[i]) {
            items[i] = field_initial(&t->fields[i]);
            continue;
        }
        runtime_status st = eval(rt, cmd, exprs[i], ctx, &items[i]);
        if (st != RUNTIME_OK)
            return st;
    }
    *out = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    return RUNTIME_OK;
}

/* A new record of key: its fields as they start (rt->fresh), in room when
 * it holds EXECUTE_ROOM of them (NULL: scratch). */
static value fresh_record(runtime *rt, const aggregate *agg, const value *key, value *room)
{
    size_t n = agg->state->nfields;
    value *items = room && n <= EXECUTE_ROOM ? room : scratch_values(rt, n);
    values_copy(items, rt->fresh[agg->index], n);
    items[agg->identity] = *key;
    return (value){.kind = VAL_STRUCT, .len = (uint32_t)n, .u.items = items};
}

/* The refusal of a command whose read r found no record of key. */
static runtime_status read_absent(runtime *rt, const command *cmd, const read_spec *r,
                                  const value *key)
{
    char kb[256];
    return refuse(rt, cmd, "%s %s does not exist (read as %s)", r->agg->name,
                  key_text(key, kb, sizeof kb), r->alias);
}

/* Loads every `reads` alias; an absent one refuses. */
static runtime_status load_reads(runtime *rt, const command *cmd, const expr_ctx *ctx,
                                 const value **aliases)
{
    if (!cmd->nreads)
        return RUNTIME_OK;
    value *vals = scratch_values(rt, cmd->nreads);
    for (size_t i = 0; i < cmd->nreads; i++) {
        const read_spec *r = &cmd->reads[i];
        value key;
        runtime_status st = eval(rt, cmd, r->key, ctx, &key);
        if (st != RUNTIME_OK)
            return st;
        int rc = rt->s->ops->load(rt->s, r->agg, &key, &vals[i]);
        if (rc < 0)
            return store_failed(rt, cmd);
        if (rc == 0)
            return read_absent(rt, cmd, r, &key);
        aliases[i] = &vals[i];
    }
    return RUNTIME_OK;
}

/* Every effect expression sees the old state (ctx): the results, in
 * rt->changes, before any is applied. */
static runtime_status compute_effects(runtime *rt, const command *cmd, const expr_ctx *ctx)
{
    for (size_t i = 0; i < cmd->neffects; i++) {
        const effect *e = &cmd->effects[i];
        store_change *ch = &rt->changes[i];
        ch->field = e->field;
        ch->append = e->kind != EFFECT_SET;
        runtime_status st;
        if (e->value)
            st = eval(rt, cmd, e->value, ctx, &ch->v);
        else
            st = build_struct(rt, cmd, cmd->agg->state->fields[e->field].type->elem, e->build, ctx,
                              &ch->v);
        if (st != RUNTIME_OK)
            return st;
    }
    return RUNTIME_OK;
}

/* The effects' results applied together to a copy of the old state, in
 * *out (for a store without update, which saves whole states). */
static runtime_status apply_effects(runtime *rt, const command *cmd, const value *old,
                                    const expr_ctx *ctx, value *out)
{
    runtime_status st = compute_effects(rt, cmd, ctx);
    if (st != RUNTIME_OK)
        return st;
    value *items = scratch_values(rt, old->len);
    values_copy(items, old->u.items, old->len);
    for (size_t i = 0; i < cmd->neffects; i++) {
        const effect *e = &cmd->effects[i];
        value *f = &items[e->field];
        if (e->kind == EFFECT_SET) {
            *f = rt->changes[i].v;
            continue;
        }
        uint32_t n = f->kind == VAL_LIST ? f->len : 0; /* an unset optional list is [] */
        value *list = scratch_values(rt, (size_t)n + 1);
        if (n)
            memcpy(list, f->u.items, n * sizeof *list);
        list[n] = rt->changes[i].v;
        *f = (value){.kind = VAL_LIST, .len = n + 1, .u.items = list};
    }
    *out = (value){.kind = VAL_STRUCT, .len = old->len, .u.items = items};
    return RUNTIME_OK;
}

static runtime_status execute(runtime *rt, const command *cmd, const value *args, int depth,
                              uint64_t checked);

/* The refusal of a command (or query) whose record does not exist. */
static runtime_status absent(runtime *rt, const command *cmd, const value *key)
{
    char kb[256];
    return refuse(rt, cmd, "%s %s does not exist", cmd->agg->name, key_text(key, kb, sizeof kb));
}

static runtime_status already_exists(runtime *rt, const command *cmd, const value *key)
{
    char kb[256];
    rt->conflict = true;
    return refuse(rt, cmd, "%s %s already exists", cmd->agg->name, key_text(key, kb, sizeof kb));
}

/* Tells a store with prefetch which records this command will load before
 * its guards: its own (unless the store checks the create itself) and every
 * read whose key comes from the arguments alone; and which records its
 * event's policies will load by a key known now (find_policy_keys). A key
 * that does not evaluate is left for load_reads to refuse. */
static runtime_status prefetch(runtime *rt, const command *cmd, const value *args, const value *key,
                               bool load_self)
{
    store *s = rt->s;
    if (load_self && s->ops->prefetch(s, cmd->agg, key) < 0)
        return store_failed(rt, cmd);
    const bool *arg_only = rt->arg_only[cmd->index];
    expr_ctx ctx = {.args = args, .scratch = &rt->scratch};
    for (size_t i = 0; i < cmd->nreads; i++) {
        value k;
        if (!arg_only[i] || expr_eval(cmd->reads[i].key, &ctx, &k) != EXPR_OK)
            continue;
        if (s->ops->prefetch(s, cmd->reads[i].agg, &k) < 0)
            return store_failed(rt, cmd);
    }
    const policy_key *keys = rt->policy_keys[cmd->index];
    for (size_t i = 0; i < rt->npolicy_keys[cmd->index]; i++) {
        const policy_key *k = &keys[i];
        if (!k->via && args->u.items[k->field].kind == VAL_NONE)
            continue; /* an unset optional: the policy refuses */
        int rc = k->via ? s->ops->prefetch_via(s, k->agg, cmd->agg, key, k->field)
                        : s->ops->prefetch(s, k->agg, &args->u.items[k->field]);
        if (rc < 0)
            return store_failed(rt, cmd);
    }
    return RUNTIME_OK;
}

/* The refusal of policy po's command (rt->message, "Verb refused: why") as
 * cmd's: "cmd refused: policy Verb refused: why"; for item k (from 1) of n
 * of a for_each (k 0: none), "policy Verb (item 2 of 3) refused: why". */
static runtime_status policy_refused(runtime *rt, const command *cmd, const policy *po, uint32_t k,
                                     uint32_t n)
{
    char inner[RUNTIME_MESSAGE_MAX];
    memcpy(inner, rt->message, sizeof inner);
    size_t vl = strlen(po->run->verb);
    if (k == 0 || strncmp(inner, po->run->verb, vl) != 0)
        return refuse(rt, cmd, "policy %s", inner);
    return refuse(rt, cmd, "policy %s (item %" PRIu32 " of %" PRIu32 ")%s", po->run->verb, k, n,
                  inner + vl);
}

/* po's command with its arguments computed from the payload (and item). */
static runtime_status run_policy(runtime *rt, const policy *po, const value *payload,
                                 const value *item, int depth)
{
    expr_ctx ctx = {.event = payload, .item = item, .scratch = &rt->scratch};
    value args;
    runtime_status st = build_struct(rt, po->run, po->run->params, po->args, &ctx, &args);
    return st == RUNTIME_OK ? execute(rt, po->run, &args, depth + 1, 0) : st;
}

/* A for_each policy: its command once per item of the list, in order, each
 * at the same depth; an unset optional list is [], as for append. */
static runtime_status run_for_each(runtime *rt, const command *cmd, const policy *po,
                                   const value *payload, int depth)
{
    expr_ctx ctx = {.event = payload, .scratch = &rt->scratch};
    value list;
    expr_status s = expr_eval(po->for_each, &ctx, &list);
    expr_scope scope;
    int alias;
    const char *path;
    if (s == EXPR_UNSET && expr_name_path(po->for_each, &scope, &alias, &path))
        list = (value){.kind = VAL_LIST};
    else if (s != EXPR_OK) { /* the message names the policy's command, as for its args */
        (void)eval_failed(rt, po->run, po->for_each, s);
        return policy_refused(rt, cmd, po, 0, 0);
    }
    for (uint32_t k = 0; k < list.len; k++) {
        runtime_status st = run_policy(rt, po, payload, &list.u.items[k], depth);
        if (st == RUNTIME_REFUSED)
            return policy_refused(rt, cmd, po, k + 1, list.len);
        if (st != RUNTIME_OK)
            return st;
    }
    return RUNTIME_OK;
}

/* Runs the policies of the event just appended, each in this dispatch. */
static runtime_status run_policies(runtime *rt, const command *cmd, const value *payload, int depth)
{
    const event_def *ev = cmd->event;
    for (size_t i = 0; i < ev->npolicies; i++) {
        const policy *po = ev->policies[i];
        if (po->for_each) {
            runtime_status st = run_for_each(rt, cmd, po, payload, depth);
            if (st != RUNTIME_OK)
                return st;
            continue;
        }
        runtime_status st = run_policy(rt, po, payload, NULL, depth);
        if (st == RUNTIME_REFUSED)
            return policy_refused(rt, cmd, po, 0, 0);
        if (st != RUNTIME_OK)
            return st;
    }
    return RUNTIME_OK;
}

static runtime_status emit(runtime *rt, const command *cmd, const value *args, const value *key,
                           const expr_ctx *post, int depth)
{
    value payload = *args;
    if (cmd->payload) {
        runtime_status st =
            build_struct(rt, cmd, cmd->event->payload, cmd->payload, post, &payload);
        if (st != RUNTIME_OK)
            return st;
    }
    if (rt->s->ops->append_event(rt->s, cmd->event, cmd->agg, key, &payload) < 0)
        return store_failed(rt, cmd);
    return run_policies(rt, cmd, &payload, depth);
}

/* value_check of args (laid out as params) but for the fields whose bit is
 * set in checked, which the caller checked already (runtime_dispatch_checked):
 * the same sentence, since value_check reports the first field that fails in
 * field order and those passed. */
static inline int check_args(const ty *params, const value *args, uint64_t checked, uint64_t loose,
                             char *why, size_t size)
{
    size_t nf = params->nfields;
    /* the common case, without a call: every field not checked already is of
       a type without constraints, and set */
    uint64_t rest = nf < 64 ? ~checked & ((UINT64_C(1) << nf) - 1) : 0;
    if (nf < 64 && !(rest & ~loose)) {
        for (; rest; rest &= rest - 1)
            if (args->u.items[__builtin_ctzll(rest)].kind == VAL_NONE)
                break;
        if (!rest)
            return 0;
    }
    if (!checked && !loose)
        return value_check(params, args, "", why, size);
    size_t n = params->nfields;
    /* the fields below 64 not checked yet, in order, then those above; one
       of a type without constraints only when unset */
    uint64_t todo = ~checked & (n >= 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1);
    for (; todo; todo &= todo - 1) {
        size_t f = (size_t)__builtin_ctzll(todo);
        if ((loose >> f & 1) && args->u.items[f].kind != VAL_NONE)
            continue;
        if (value_check_field(params, f, &args->u.items[f], 0, why, size) < 0)
            return -1;
    }
    for (size_t f = 64; f < n; f++)
        if (value_check_field(params, f, &args->u.items[f], 0, why, size) < 0)
            return -1;
    return 0;
}

/* Where value_check_field starts on the changed field of ch, now nv and
 * before was (the items from there on are checked; 0: the whole value), or
 * UINT32_MAX when nothing of it needs checking (field_check). */
static uint32_t check_from(const ty *st, const changed_field *ch, const value *was, const value *nv)
{
    uint32_t before = ch->appends_only && was->kind == VAL_LIST ? was->len : 0;
    switch (ch->check) {
    case CHECK_NONE: return UINT32_MAX;
    case CHECK_ROOM: return nv->len;
    case CHECK_ITEM: {
        const ty *elem = st->fields[ch->field].type->elem;
        const value *item = &nv->u.items[nv->len - 1];
        for (uint64_t m = ch->item; m; m &= m - 1) {
            size_t f = (size_t)__builtin_ctzll(m);
            const value *fv = &item->u.items[f];
            if (fv->kind == VAL_NONE ? !elem->fields[f].optional
                                     : !value_valid(elem->fields[f].type, fv))
                return before; /* the sentence, from value_check_field */
        }
        return nv->len;
    }
    case CHECK_ALL: break;
    }
    return before;
}

/* Field constraints are invariants of the new state next (old before it):
 * only what the effects changed when by_field (the record was changed
 * field by field: the rest passed before), only what a create sets when
 * the rest pass as they start, else all of it. */
static runtime_status check_state(runtime *rt, const command *cmd, const value *old,
                                  const value *next, bool by_field)
{
    char why[RUNTIME_WHY_MAX];
    const ty *st = cmd->agg->state;
    if (!by_field && !(cmd->creates && rt->fresh_checks_changed[cmd->index]))
        return value_check(st, next, "", why, sizeof why) < 0 ? refuse(rt, cmd, "%s", why)
                                                              : RUNTIME_OK;
    const changed_field *ch = rt->changed[cmd->index];
    for (size_t i = 0; i < rt->nchanged[cmd->index]; i++) {
        const value *nv = &next->u.items[ch[i].field];
        uint32_t from = check_from(st, &ch[i], &old->u.items[ch[i].field], nv);
        if (from != UINT32_MAX &&
            value_check_field(st, (size_t)ch[i].field, nv, from, why, sizeof why) < 0)
            return refuse(rt, cmd, "%s", why);
    }
    return RUNTIME_OK;
}

/* One command inside the open transaction: every check, the save (or, for a
 * deleting command, the removal), the event and its policies. depth counts policy hops from the
 * dispatched command; checked: the arguments not to check again (0 for a policy's). */
static runtime_status execute(runtime *rt, const command *cmd, const value *args, int depth,
                              uint64_t checked)
{
    assert(args->kind == VAL_STRUCT && args->len == cmd->params->nfields);
    if (depth > PLAN_POLICY_MAX_DEPTH)
        return refuse(rt, cmd, "policies chain deeper than %d", PLAN_POLICY_MAX_DEPTH);
    char why[RUNTIME_WHY_MAX];
    if (check_args(cmd->params, args, checked, rt->free_params[cmd->index], why, sizeof why) < 0)
        return refuse(rt, cmd, "%s", why);
    if (depth == 0)
        rt->args_checked = true;

    const aggregate *agg = cmd->agg;
    const value *key = &args->u.items[cmd->identity_param];
    /* the dispatched command's create is checked by the store's insert */
    bool deferred = cmd->creates && depth == 0 && rt->s->ops->checks_creates;
    if (rt->s->ops->prefetch) {
        runtime_status st = prefetch(rt, cmd, args, key, !deferred);
        if (st != RUNTIME_OK)
            return st;
    }
    value old;
    int rc = deferred ? 0 : rt->s->ops->load(rt->s, agg, key, &old);
    if (rc < 0)
        return store_failed(rt, cmd);
    if (cmd->creates && rc == 1)
        return already_exists(rt, cmd, key);
    if (!cmd->creates && rc == 0)
        return absent(rt, cmd, key);
    if (cmd->creates)
        old = fresh_record(rt, agg, key, NULL);
    /* a store may change the record it lent in place (update, and save):
       the old state is kept as a shallow copy of its fields, which stay
       valid until commit or rollback */
    bool in_place = rt->s->ops->update && !cmd->creates && !cmd->deletes && cmd->neffects;
    /* on this frame when small: nothing outside this call keeps them */
    value snap_room[EXECUTE_ROOM];
    const value *alias_room[EXECUTE_ROOM];
    if (!cmd->creates) {
        value *snap = old.len <= EXECUTE_ROOM ? snap_room : scratch_values(rt, old.len);
        memcpy(snap, old.u.items, old.len * sizeof *snap);
        old.u.items = snap;
    }

    const value **aliases =
        cmd->nreads < EXECUTE_ROOM
            ? alias_room
            : arena_alloc_raw(&rt->scratch, (cmd->nreads + 1) * sizeof *aliases);
    expr_ctx pre = {.self = &old, .args = args, .aliases = aliases, .scratch = &rt->scratch};
    runtime_status st = load_reads(rt, cmd, &pre, aliases);
    if (st == RUNTIME_OK)
        st = run_checks(rt, cmd, cmd->guards, cmd->nguards, &pre);
    value next = old;
    if (st == RUNTIME_OK && in_place)
        st = compute_effects(rt, cmd, &pre);
    else if (st == RUNTIME_OK)
        st = apply_effects(rt, cmd, &old, &pre, &next);
    if (st != RUNTIME_OK)
        return st;

    if (in_place && rt->s->ops->update(rt->s, agg, key, rt->changes, cmd->neffects, &next) < 0)
        return store_failed(rt, cmd);
    st = check_state(rt, cmd, &old, &next, in_place);
    expr_ctx post = {
        .self = &next, .args = args, .old = &old, .aliases = aliases, .scratch = &rt->scratch};
    if (st == RUNTIME_OK)
        st = run_checks(rt, cmd, cmd->ensures, cmd->nensures, &post);
    if (st != RUNTIME_OK)
        return st;

    if (in_place)
        rc = 0;
    else
        rc = cmd->deletes ? rt->s->ops->remove(rt->s, agg, key)
                          : rt->s->ops->save(rt->s, agg, key, &next, cmd->creates);
    if (rc == STORE_CONFLICT && deferred)
        return already_exists(rt, cmd, key);
    if (rc != 0)
        return store_failed(rt, cmd);
    if (!cmd->event)
        return RUNTIME_OK;
    return emit(rt, cmd, args, key, &post, depth);
}

enum { DIRECT_FRAME = 32 }; /* values direct() keeps on its frame for built items */

/* The value src gives, as the expression would (an argument, a constant). */
static inline runtime_status src_value(runtime *rt, const command *cmd, const src *sv,
                                       const expr_ctx *ctx, value *out)
{
    switch (sv->kind) {
    case SRC_ARG: *out = ctx->args->u.items[sv->arg]; return RUNTIME_OK;
    case SRC_CONST: *out = sv->k; return RUNTIME_OK;
    case SRC_SUM: {
        int64_t i;
        if (expr_sum_run(&sv->sum, ctx, &i)) {
            *out = (value){.kind = VAL_INT, .u.i = i};
            return RUNTIME_OK;
        }
        break; /* the expression says why not */
    }
    case SRC_EXPR: break;
    }
    return eval(rt, cmd, sv->e, ctx, out);
}

/* load_reads on the direct path: each key from its src, each record found
 * where it lies, into vals. */
static runtime_status direct_reads(runtime *rt, const command *cmd, const direct_cmd *dc,
                                   const expr_ctx *ctx, const value **aliases, value *vals)
{
    for (size_t i = 0; i < cmd->nreads; i++) {
        const read_spec *r = &cmd->reads[i];
        value key;
        runtime_status st = src_value(rt, cmd, &dc->read_key[i], ctx, &key);
        if (st != RUNTIME_OK)
            return st;
        store_ref ref;
        int rc = rt->s->ops->direct_find(rt->s, r->agg, &key, NULL, 0, &ref, &vals[i]);
        if (rc < 0)
            return store_failed(rt, cmd);
        if (rc == 0)
            return read_absent(rt, cmd, r, &key);
        aliases[i] = &vals[i];
    }
    return RUNTIME_OK;
}

/* compute_effects by dc: each effect's value into rt->changes, every one on
 * the state before (ctx); a built item's fields in frame (*used of
 * DIRECT_FRAME taken) while they fit, else in scratch. */
static runtime_status direct_effects(runtime *rt, const command *cmd, const direct_cmd *dc,
                                     const expr_ctx *ctx, value *frame, size_t *used)
{
    for (size_t i = 0; i < cmd->neffects; i++) {
        const direct_effect *de = &dc->effects[i];
        store_change *ch = &rt->changes[i];
        ch->field = de->field;
        ch->append = de->append;
        runtime_status st;
        if (!de->build) {
            if ((st = src_value(rt, cmd, &de->v, ctx, &ch->v)) != RUNTIME_OK)
                return st;
            continue;
        }
        value *items = frame + *used;
        if (*used + de->nbuild <= DIRECT_FRAME)
            *used += de->nbuild;
        else
            items = scratch_values(rt, de->nbuild);
        for (uint32_t f = 0; f < de->nbuild; f++)
            if ((st = src_value(rt, cmd, &de->build[f], ctx, &items[f])) != RUNTIME_OK)
                return st;
        ch->v = (value){.kind = VAL_STRUCT, .len = de->nbuild, .u.items = items};
    }
    return RUNTIME_OK;
}

/* The record's new state after the changes of cmd's effects (rt->changes),
 * as the checks after the effects see it, with nothing written: its
 * fields as they are (in room when they fit), each set one replaced, each
 * list appended to one item longer: the item goes into the room the direct
 * find made past the list's length (in_room), or the list is copied, one
 * item longer (an unset optional list: the item alone). */
static value next_view(runtime *rt, const command *cmd, const value *old, value *room, bool in_room)
{
    value *items = old->len <= EXECUTE_ROOM ? room : scratch_values(rt, old->len);
    values_copy(items, old->u.items, old->len);
    for (size_t i = 0; i < cmd->neffects; i++) {
        const store_change *c = &rt->changes[i];
        value *f = &items[c->field];
        if (!c->append) {
            *f = c->v;
        } else if (f->kind == VAL_LIST && in_room) {
            f->u.items[f->len++] = c->v;
        } else if (f->kind == VAL_LIST) { /* no room made: the list copied, one longer */
            value *list = scratch_values(rt, (size_t)f->len + 1);
            if (f->len) /* an empty list may have no items pointer */
                memcpy(list, f->u.items, f->len * sizeof *list);
            list[f->len] = c->v;
            f->u.items = list;
            f->len++;
        } else {
            value *one = scratch_values(rt, 1);
            *one = c->v;
            *f = (value){.kind = VAL_LIST, .len = 1, .u.items = one};
        }
    }
    return (value){.kind = VAL_STRUCT, .len = old->len, .u.items = items};
}

/* A created record's state: the new record's fields (fresh) with the
 * changes of cmd's effects (rt->changes) applied, in room when they fit; an
 * appended list is a new one of the items it starts with and the item. */
static value created_state(runtime *rt, const command *cmd, const value *fresh, value *room)
{
    value *items = fresh->len <= EXECUTE_ROOM ? room : scratch_values(rt, fresh->len);
    values_copy(items, fresh->u.items, fresh->len);
    for (size_t i = 0; i < cmd->neffects; i++) {
        const store_change *c = &rt->changes[i];
        value *f = &items[c->field];
        if (!c->append) {
            *f = c->v;
            continue;
        }
        uint32_t n = f->kind == VAL_LIST ? f->len : 0; /* an unset optional list is [] */
        value *list = scratch_values(rt, (size_t)n + 1);
        if (n)
            memcpy(list, f->u.items, n * sizeof *list);
        list[n] = c->v;
        *f = (value){.kind = VAL_LIST, .len = n + 1, .u.items = list};
    }
    return (value){.kind = VAL_STRUCT, .len = fresh->len, .u.items = items};
}

/* The checks on the direct path: dc's, the changed fields whose checks can
 * fail, each passed by its quick test or else checked in check_state's
 * words. */
static runtime_status direct_checks(runtime *rt, const command *cmd, const direct_cmd *dc,
                                    const value *old, const value *next)
{
    char why[RUNTIME_WHY_MAX];
    const ty *st = cmd->agg->state;
    for (size_t i = 0; i < dc->nchecks; i++) {
        const changed_field *ch = &dc->checks[i];
        const value *nv = &next->u.items[ch->field];
        if (quick_passes(&dc->quick[i], ch, nv))
            continue;
        uint32_t from = check_from(st, ch, &old->u.items[ch->field], nv);
        if (from != UINT32_MAX &&
            value_check_field(st, (size_t)ch->field, nv, from, why, sizeof why) < 0)
            return refuse(rt, cmd, "%s", why);
    }
    return RUNTIME_OK;
}

/* A command on the store's direct path (find_direct): execute's steps,
 * checks and words, but every check before the one write, so a refusal has
 * nothing to undo. The record is read where it lies (nothing changes it
 * before the write); an update's new state is a view (next_view), made only
 * when something reads it; the write takes the changes, the created record
 * or the removal, and the event. */
static runtime_status direct(runtime *rt, const command *cmd, const value *args, uint64_t checked)
{
    const direct_cmd *dc = rt->direct[cmd->index];
    char why[RUNTIME_WHY_MAX];
    if (check_args(cmd->params, args, checked, rt->free_params[cmd->index], why, sizeof why) < 0)
        return refuse(rt, cmd, "%s", why);
    rt->args_checked = true;
    store *s = rt->s;
    const aggregate *agg = cmd->agg;
    const value *key = &args->u.items[cmd->identity_param];
    store_ref ref;
    value old;
    runtime_status st;
    /* a create's own find comes last, just before the write, when the
       store can bring in meanwhile where the record would lie (a miss of
       the cache that the checks then overlap): its outcome still comes
       first, as nothing before it has any effect but the message */
    bool late = cmd->creates && s->ops->direct_prefetch;
    if (late) {
        s->ops->direct_prefetch(s, agg, key);
    } else {
        int rc = s->ops->direct_find(s, agg, key, dc->room, dc->nroom, &ref, &old);
        if (rc < 0) {
            st = store_failed(rt, cmd);
            goto release;
        }
        if (cmd->creates && rc == 1) {
            st = already_exists(rt, cmd, key);
            goto release;
        }
        if (!cmd->creates && rc == 0) {
            st = absent(rt, cmd, key);
            goto release;
        }
    }
    value fresh_room[EXECUTE_ROOM];
    if (cmd->creates)
        old = fresh_record(rt, agg, key, fresh_room);
    const value *alias_room[EXECUTE_ROOM];
    value read_room[EXECUTE_ROOM];
    bool few = cmd->nreads < EXECUTE_ROOM;
    const value **aliases =
        few ? alias_room : arena_alloc_raw(&rt->scratch, (cmd->nreads + 1) * sizeof *aliases);
    expr_ctx pre = {.self = &old, .args = args, .aliases = aliases, .scratch = &rt->scratch};
    st = cmd->nreads ? direct_reads(rt, cmd, dc, &pre, aliases,
                                    few ? read_room : scratch_values(rt, cmd->nreads))
                     : RUNTIME_OK;
    if (st == RUNTIME_OK)
        st = run_checks(rt, cmd, cmd->guards, cmd->nguards, &pre);
    bool by_field = !cmd->creates && !cmd->deletes && cmd->neffects;
    value next = old, next_room[EXECUTE_ROOM], frame[DIRECT_FRAME];
    size_t used = 0;
    if (st == RUNTIME_OK && (by_field || cmd->creates)) {
        st = direct_effects(rt, cmd, dc, &pre, frame, &used);
        /* every check passed on the changes themselves: no view */
        bool view = dc->view && !(st == RUNTIME_OK && dc->quick_only && quick_all(rt, dc));
        if (st == RUNTIME_OK && view) {
            next = cmd->creates ? created_state(rt, cmd, &old, next_room)
                                : next_view(rt, cmd, &old, next_room, !dc->quick_only);
            /* a create whose other fields may not pass as they start is
               checked whole, as check_state does */
            st = cmd->creates && !rt->fresh_checks_changed[cmd->index]
                     ? check_state(rt, cmd, &old, &next, false)
                     : direct_checks(rt, cmd, dc, &old, &next);
        }
    } else if (st == RUNTIME_OK) {
        st = apply_effects(rt, cmd, &old, &pre, &next);
        if (st == RUNTIME_OK)
            st = check_state(rt, cmd, &old, &next, false);
    }
    expr_ctx post = {
        .self = &next, .args = args, .old = &old, .aliases = aliases, .scratch = &rt->scratch};
    if (st == RUNTIME_OK && dc->nensures)
        st = run_checks(rt, cmd, dc->ensures, dc->nensures, &post);
    value payload = *args;
    if (st == RUNTIME_OK && cmd->event && cmd->payload)
        st = build_struct(rt, cmd, cmd->event->payload, cmd->payload, &post, &payload);
    if (late) { /* what the find says comes before what the checks said */
        value found;
        int rc = s->ops->direct_find(s, agg, key, dc->room, dc->nroom, &ref, &found);
        if (rc < 0)
            st = store_failed(rt, cmd);
        else if (rc == 1)
            st = already_exists(rt, cmd, key);
    }
    if (st != RUNTIME_OK)
        goto release;
    store_write w = {
        .kind = cmd->creates   ? STORE_WRITE_CREATE
                : cmd->deletes ? STORE_WRITE_REMOVE
                               : STORE_WRITE_UPDATE,
        .agg = agg,
        .key = key,
        .ref = &ref,
        .changes = rt->changes,
        .nchanges = by_field ? cmd->neffects : 0,
        .state = &next,
        .event = cmd->event,
        .payload = &payload,
        .key_field = cmd->payload ? -1 : cmd->identity_param,
        /* a payload that is the arguments: the constant ones, when the
           caller promised they outlive the store */
        .lasting = rt->keep_constants && !cmd->payload ? checked : 0,
    };
    return s->ops->direct_write(s, &w) < 0 ? store_failed(rt, cmd) : RUNTIME_OK;
release:
    s->ops->direct_release(s);
    return st;
}

void runtime_keep_constants(runtime *rt)
{
    rt->keep_constants = true;
}

/* A create the store checks itself was refused for another reason: the
 * memory runtime would have refused it first as already existing, so say
 * that when the committed store holds the identity. */
static runtime_status recheck_create(runtime *rt, const command *cmd, const value *args)
{
    const value *key = &args->u.items[cmd->identity_param];
    value found;
    int rc = rt->s->ops->load(rt->s, cmd->agg, key, &found);
    if (rc < 0)
        return store_failed(rt, cmd);
    return rc == 1 ? already_exists(rt, cmd, key) : RUNTIME_REFUSED;
}

/* A query: its record and reads loaded outside any transaction (what is
 * committed; the store is told a read begins, and a store that batches
 * fetches the hinted records together), its guards, then its returns into
 * rt->answer. Nothing is written. */
static runtime_status query(runtime *rt, const command *q, const value *args, uint64_t checked)
{
    char why[RUNTIME_WHY_MAX];
    if (check_args(q->params, args, checked, rt->free_params[q->index], why, sizeof why) < 0)
        return refuse(rt, q, "%s", why);
    store *s = rt->s;
    const value *key = &args->u.items[q->identity_param];
    if (s->ops->read_begin && s->ops->read_begin(s) < 0)
        return store_failed(rt, q);
    if (s->ops->prefetch) {
        runtime_status st = prefetch(rt, q, args, key, true);
        if (st != RUNTIME_OK)
            return st;
    }
    value rec;
    int rc = s->ops->load(s, q->agg, key, &rec);
    if (rc < 0)
        return store_failed(rt, q);
    if (rc == 0)
        return absent(rt, q, key);
    const value **aliases = arena_alloc(&rt->scratch, (q->nreads + 1) * sizeof *aliases);
    expr_ctx ctx = {.self = &rec, .args = args, .aliases = aliases, .scratch = &rt->scratch};
    runtime_status st = load_reads(rt, q, &ctx, aliases);
    if (st == RUNTIME_OK)
        st = run_checks(rt, q, q->guards, q->nguards, &ctx);
    if (st == RUNTIME_OK)
        st = build_struct(rt, q, q->returns, q->returns_exprs, &ctx, &rt->answer);
    rt->answered = st == RUNTIME_OK;
    return st;
}

/* A scan: the store reads up to limit records from the start key on,
 * outside any transaction; returns is evaluated on each into the list
 * rt->answer. A start key no record has is no refusal. */
static runtime_status scan(runtime *rt, const command *q, const value *args, uint64_t checked)
{
    char why[RUNTIME_WHY_MAX];
    if (check_args(q->params, args, checked, rt->free_params[q->index], why, sizeof why) < 0)
        return refuse(rt, q, "%s", why);
    int64_t limit = args->u.items[q->scan_limit].u.i;
    if (limit < 1) /* the shape of a minimum's refusal (value.c), which lint knows */
        return refuse(rt, q, "%s: %" PRId64 " is less than the minimum 1",
                      q->params->fields[q->scan_limit].name, limit);
    store *s = rt->s;
    if (!s->ops->scan) {
        snprintf(rt->message, sizeof rt->message, "%s failed: the store cannot scan", q->verb);
        return RUNTIME_ERROR;
    }
    value recs;
    if ((s->ops->read_begin && s->ops->read_begin(s) < 0) ||
        s->ops->scan(s, q->agg, &args->u.items[q->identity_param], limit, &recs) < 0)
        return store_failed(rt, q);
    value *rows = scratch_values(rt, recs.len);
    for (uint32_t i = 0; i < recs.len; i++) {
        expr_ctx ctx = {.self = &recs.u.items[i], .args = args, .scratch = &rt->scratch};
        runtime_status st = build_struct(rt, q, q->returns, q->returns_exprs, &ctx, &rows[i]);
        if (st != RUNTIME_OK)
            return st;
    }
    rt->answer = (value){.kind = VAL_LIST, .len = recs.len, .u.items = rows};
    rt->answered = true;
    return RUNTIME_OK;
}

runtime_status runtime_dispatch(runtime *rt, const command *cmd, const value *args)
{
    return runtime_dispatch_checked(rt, cmd, args, 0);
}

runtime_status runtime_dispatch_checked(runtime *rt, const command *cmd, const value *args,
                                        uint64_t checked)
{
    arena_reset(&rt->scratch);
    rt->message[0] = '\0';
    rt->conflict = rt->args_checked = rt->answered = false;
    if (cmd->scan)
        return scan(rt, cmd, args, checked);
    if (cmd->query)
        return query(rt, cmd, args, checked);
    if (rt->direct && rt->direct[cmd->index])
        return direct(rt, cmd, args, checked);
    store *s = rt->s;
    if (s->ops->begin(s) < 0)
        return store_failed(rt, cmd);
    runtime_status st = execute(rt, cmd, args, 0, checked);
    if (st == RUNTIME_OK) {
        int rc = s->ops->commit(s);
        if (rc == 0)
            return RUNTIME_OK;
        st = rc == STORE_CONFLICT && cmd->creates && s->ops->checks_creates
                 ? already_exists(rt, cmd, &args->u.items[cmd->identity_param])
                 : store_failed(rt, cmd);
    }
    if (s->ops->rollback(s) < 0 && st == RUNTIME_REFUSED)
        return store_failed(rt, cmd);
    if (st == RUNTIME_REFUSED && cmd->creates && s->ops->checks_creates && rt->args_checked &&
        !rt->conflict)
        return recheck_create(rt, cmd, args);
    return st;
}
