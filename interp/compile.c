/* compile.c: the domain half of the compiler: types, aggregates, commands,
 * events and policies, with the meaning checks of DESIGN section 3 that
 * building the plan needs. The document has passed the schema check, so
 * shapes are right; this file checks names, types and references, builds
 * the plan and its totals. Checks over the finished plan (policy cycles
 * and depth) and the workload warnings are lint.c's. */
#include <inttypes.h>
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "compile_common.h"
#include "value.h"

/* ---- types ---- */

typedef struct type_slot {
    const node *key, *def;
    ty *t;
    int state; /* 0 unresolved, 1 resolving, 2 done */
} type_slot;

typedef struct type_ctx {
    type_slot *slots;
    size_t n;
} type_ctx;

static const ty *resolve_type(cc *c, type_ctx *tc, const node *n);

static const ty *named_type(cc *c, type_ctx *tc, const node *n)
{
    const char *s = n->text;
    if (!strcmp(s, "int"))
        return &ty_int;
    if (!strcmp(s, "string"))
        return &ty_string;
    if (!strcmp(s, "bool"))
        return &ty_bool;
    for (size_t i = 0; i < tc->n; i++) {
        type_slot *sl = &tc->slots[i];
        if (strcmp(sl->key->text, s) != 0)
            continue;
        if (sl->state == 1) {
            diag_error_at(c->d, n, "type '%s' refers to itself", s);
            return NULL;
        }
        if (sl->state == 0) {
            sl->state = 1;
            const ty *t = resolve_type(c, tc, sl->def);
            if (t) {
                ty *named = arena_alloc(c->a, sizeof *named);
                *named = *t;
                named->name = sl->key->text;
                named->at = sl->key;
                sl->t = named;
            }
            sl->state = 2;
        }
        return sl->t;
    }
    const char *names[256];
    size_t k = 0;
    static const char *const builtin[] = {"int", "string", "bool"};
    for (size_t i = 0; i < 3; i++)
        names[k++] = builtin[i];
    for (size_t i = 0; i < tc->n && k < 256; i++)
        names[k++] = tc->slots[i].key->text;
    const char *hint = diag_suggest(s, names, k);
    if (hint)
        diag_error_at(c->d, n, "unknown type '%s' (did you mean '%s'?)", s, hint);
    else
        diag_error_at(c->d, n, "unknown type '%s'", s);
    return NULL;
}

static int get_int(cc *c, const node *map, const char *key, bool *has, int64_t *out)
{
    const node *v = node_get(map, key);
    if (!v)
        return 0;
    if (v->kind != NODE_INT) {
        diag_error_at(c->d, v, "%s must be an integer", key);
        return -1;
    }
    *has = true;
    *out = v->v.i;
    return 0;
}

static int compile_pattern(cc *c, ty *t, const node *pat)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat->text, pat->len, PCRE2_UTF, &err, &off, NULL);
    if (!re) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        diag_error_in(c->d, pat, (size_t)off, "invalid pattern: %s", (const char *)msg);
        return -1;
    }
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE); /* falls back to the interpreter if JIT fails */
    t->pattern = pat->text;
    t->re = re;
    if (c->p->nregex == c->p->regex_cap) {
        c->p->regex_cap = c->p->regex_cap ? 2 * c->p->regex_cap : 8;
        c->p->regex = xrealloc(c->p->regex, c->p->regex_cap * sizeof *c->p->regex);
    }
    c->p->regex[c->p->nregex++] = t; /* plan_free releases re */
    return 0;
}

/* Constraint keys that refine a type, and the kind they need. */
static int refine(cc *c, ty *t, const node *n)
{
    static const struct {
        const char *key;
        ty_kind kind;
    } needs[] = {{"min", TY_INT},           {"max", TY_INT},        {"min_length", TY_STRING},
                 {"max_length", TY_STRING}, {"pattern", TY_STRING}, {"max_items", TY_LIST}};
    int rc = 0;
    for (size_t i = 0; i < sizeof needs / sizeof *needs; i++) {
        const node_pair *p = node_get_pair(n, needs[i].key);
        if (p && t->kind != needs[i].kind) {
            char buf[128];
            diag_error_at(c->d, p->key, "'%s' does not apply to %s", needs[i].key,
                          ty_describe(t, buf, sizeof buf));
            rc = -1;
        }
    }
    if (rc < 0)
        return rc;
    if (get_int(c, n, "min", &t->has_min, &t->min) < 0 ||
        get_int(c, n, "max", &t->has_max, &t->max) < 0 ||
        get_int(c, n, "min_length", &t->has_min_len, &t->min_len) < 0 ||
        get_int(c, n, "max_length", &t->has_max_len, &t->max_len) < 0 ||
        get_int(c, n, "max_items", &t->has_max_items, &t->max_items) < 0)
        return -1;
    if (t->has_min && t->has_max && t->min > t->max) {
        diag_error_at(c->d, node_get(n, "max"), "max %" PRId64 " is less than min %" PRId64, t->max,
                      t->min);
        return -1;
    }
    if (t->has_min_len && t->has_max_len && t->min_len > t->max_len) {
        diag_error_at(c->d, node_get(n, "max_length"), "max_length is less than min_length");
        return -1;
    }
    const node *pat = node_get(n, "pattern");
    if (pat && pat->kind == NODE_STRING && compile_pattern(c, t, pat) < 0)
        return -1;
    return 0;
}

static const ty *enum_type(cc *c, const node *list)
{
    if (!list || list->kind != NODE_SEQ || list->count == 0) {
        diag_error_at(c->d, list, "enum needs a sequence of at least one value");
        return NULL;
    }
    ty *t = arena_alloc(c->a, sizeof *t);
    t->kind = TY_ENUM;
    t->at = list;
    t->values = arena_alloc(c->a, list->count * sizeof *t->values);
    for (size_t i = 0; i < list->count; i++) {
        const node *v = list->items[i];
        if (!cc_ident(c, v, "enum value"))
            return NULL;
        for (size_t j = 0; j < i; j++)
            if (!strcmp(t->values[j], v->text)) {
                diag_error_at(c->d, v, "enum value '%s' is listed twice", v->text);
                return NULL;
            }
        t->values[t->nvalues++] = v->text;
    }
    return t;
}

static int field_list(cc *c, type_ctx *tc, const node *map, const char *what, ty *out);

static const ty *resolve_type(cc *c, type_ctx *tc, const node *n)
{
    if (!n)
        return NULL;
    if (n->kind == NODE_STRING)
        return named_type(c, tc, n);
    if (n->kind != NODE_MAP) {
        diag_error_at(c->d, n, "a type is a name or a mapping, not %s", node_kind_name(n->kind));
        return NULL;
    }
    ty *t = arena_alloc(c->a, sizeof *t);
    const node *shape;
    if ((shape = node_get(n, "type"))) {
        if (shape->kind != NODE_STRING) {
            diag_error_at(c->d, shape, "type must be a type name");
            return NULL;
        }
        const ty *base = named_type(c, tc, shape);
        if (!base)
            return NULL;
        *t = *base;
        t->name = NULL;
        t->refines = base->name ? base->name : base->refines;
    } else if ((shape = node_get(n, "enum"))) {
        const ty *e = enum_type(c, shape);
        if (!e)
            return NULL;
        *t = *e;
    } else if ((shape = node_get(n, "fields"))) {
        t->kind = TY_STRUCT;
        t->at = shape;
        if (field_list(c, tc, shape, "field", t) < 0)
            return NULL;
    } else if ((shape = node_get(n, "list"))) {
        t->kind = TY_LIST;
        t->elem = resolve_type(c, tc, shape);
        if (!t->elem)
            return NULL;
    } else {
        diag_error_at(c->d, n, "a type mapping needs one of type, enum, fields or list");
        return NULL;
    }
    if (refine(c, t, n) < 0)
        return NULL;
    return t;
}

static int field_default(cc *c, field *f, const node *def)
{
    char what[160];
    snprintf(what, sizeof what, "the default of '%s'", f->name);
    if (cc_value(c, f->type, def, what, &f->def, NULL, NULL, 0) < 0)
        return -1;
    f->has_default = true;
    return 0;
}

/* Fills out->fields from a mapping of name: type expression. */
static int field_list(cc *c, type_ctx *tc, const node *map, const char *what, ty *out)
{
    if (!map || map->kind != NODE_MAP) {
        diag_error_at(c->d, map, "%ss must be a mapping of names to types", what);
        return -1;
    }
    out->fields = arena_alloc(c->a, (map->count ? map->count : 1) * sizeof *out->fields);
    int rc = 0;
    for (size_t i = 0; i < map->count; i++) {
        const node *k = map->pairs[i].key, *v = map->pairs[i].value;
        if (!cc_ident(c, k, what)) {
            rc = -1;
            continue;
        }
        field *f = &out->fields[out->nfields++];
        f->name = k->text;
        f->name_len = (uint32_t)strlen(k->text);
        f->at = k;
        f->type = resolve_type(c, tc, v);
        if (!f->type) {
            rc = -1;
            continue;
        }
        const node *opt = node_get(v, "optional");
        f->optional = opt && opt->kind == NODE_BOOL && opt->v.b;
        const node *def = node_get(v, "default");
        if (def && field_default(c, f, def) < 0)
            rc = -1;
    }
    return rc;
}

static int compile_types(cc *c, const node *types, type_ctx *tc)
{
    size_t n = types ? types->count : 0;
    tc->slots = arena_alloc(c->a, (n ? n : 1) * sizeof *tc->slots);
    tc->n = 0;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const node *k = types->pairs[i].key;
        if (!cc_ident(c, k, "type name")) {
            rc = -1;
            continue;
        }
        if (!strcmp(k->text, "int") || !strcmp(k->text, "string") || !strcmp(k->text, "bool")) {
            diag_error_at(c->d, k, "'%s' is a built-in type and cannot be redefined", k->text);
            rc = -1;
            continue;
        }
        tc->slots[tc->n++] = (type_slot){.key = k, .def = types->pairs[i].value};
    }
    c->p->types = arena_alloc(c->a, (tc->n ? tc->n : 1) * sizeof *c->p->types);
    for (size_t i = 0; i < tc->n; i++) {
        const ty *t = named_type(c, tc, tc->slots[i].key);
        if (!t)
            rc = -1;
        else
            c->p->types[c->p->ntypes++] = t;
    }
    return rc;
}

/* ---- aggregates ---- */

static int compile_state(cc *c, type_ctx *tc, aggregate *ag, const node *def)
{
    ty *st = arena_alloc(c->a, sizeof *st);
    st->kind = TY_STRUCT;
    st->name = ag->name;
    st->at = ag->at;
    if (field_list(c, tc, node_get(def, "fields"), "field", st) < 0)
        return -1;
    ag->state = st;
    const node *id = node_get(def, "identity");
    if (!id || !cc_ident(c, id, "identity"))
        return -1;
    ag->identity = ty_field_index(st, id->text);
    if (ag->identity < 0) {
        const char *names[256];
        size_t k = 0;
        for (size_t i = 0; i < st->nfields && k < 256; i++)
            names[k++] = st->fields[i].name;
        const char *hint = diag_suggest(id->text, names, k);
        if (hint)
            diag_error_at(c->d, id, "identity '%s' is not a field of %s (did you mean '%s'?)",
                          id->text, ag->name, hint);
        else
            diag_error_at(c->d, id, "identity '%s' is not a field of %s", id->text, ag->name);
        return -1;
    }
    const field *f = &st->fields[ag->identity];
    if ((f->type->kind != TY_STRING && f->type->kind != TY_INT) || f->optional) {
        diag_error_at(c->d, id, "the identity field '%s' must be a string or an int, not optional",
                      f->name);
        return -1;
    }
    return 0;
}

static int compile_checks(cc *c, const node *list, const expr_env *env, check **out, size_t *n)
{
    size_t count = list && list->kind == NODE_SEQ ? list->count : 0;
    *out = arena_alloc(c->a, (count ? count : 1) * sizeof **out);
    *n = 0;
    int rc = 0;
    for (size_t i = 0; i < count; i++) {
        const node *item = list->items[i];
        const node *cond = node_get(item, "check"), *refuse = node_get(item, "refuse");
        if (!cond || !refuse) {
            diag_error_at(c->d, item, "a check needs 'check' and 'refuse'");
            rc = -1;
            continue;
        }
        check *k = &(*out)[(*n)++];
        k->at = item;
        k->refuse = refuse->text;
        if (expr_compile(c->a, cond, env, &ty_bool, &k->cond, c->d) < 0)
            rc = -1;
    }
    return rc;
}

static int compile_reads(cc *c, command *cmd, const node *reads, expr_env *env)
{
    size_t n = reads ? reads->count : 0;
    cmd->reads = arena_alloc(c->a, (n ? n : 1) * sizeof *cmd->reads);
    const char **names = arena_alloc(c->a, (n ? n : 1) * sizeof *names);
    const ty **types = arena_alloc(c->a, (n ? n : 1) * sizeof *types);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const node *k = reads->pairs[i].key, *v = reads->pairs[i].value;
        if (!cc_ident(c, k, "read alias")) {
            rc = -1;
            continue;
        }
        if (ty_field_index(cmd->agg->state, k->text) >= 0) {
            diag_error_at(c->d, k, "read alias '%s' shadows the field '%s' of %s; rename it",
                          k->text, k->text, cmd->agg->name);
            rc = -1;
            continue;
        }
        if (!strcmp(k->text, "arg") || !strcmp(k->text, "old") || !strcmp(k->text, "event")) {
            diag_error_at(c->d, k, "'%s' is reserved and cannot be a read alias", k->text);
            rc = -1;
            continue;
        }
        if (!v || v->kind != NODE_MAP || v->count != 1) {
            diag_error_at(c->d, v ? v : k, "a read is {Aggregate: key expression}");
            rc = -1;
            continue;
        }
        const node *an = v->pairs[0].key;
        aggregate *target = cc_find_agg(c, an->text);
        if (!target) {
            diag_error_at(c->d, an, "unknown aggregate '%s'", an->text);
            rc = -1;
            continue;
        }
        read_spec *r = &cmd->reads[cmd->nreads++];
        r->alias = k->text;
        r->agg = target;
        r->at = k;
        const ty *idt = target->state->fields[target->identity].type;
        expr_env kenv = *env;
        kenv.nalias = 0;
        if (expr_compile(c->a, v->pairs[0].value, &kenv, idt, &r->key, c->d) < 0) {
            rc = -1;
            continue;
        }
        names[env->nalias] = r->alias;
        types[env->nalias] = target->state;
        env->nalias++;
    }
    env->alias_names = names;
    env->alias_types = types;
    return rc;
}

static int set_effect(cc *c, command *cmd, const node *k, const node *v, const expr_env *env,
                      effect *e)
{
    const ty *st = cmd->agg->state;
    e->kind = EFFECT_SET;
    e->at = k;
    e->field = ty_field_index(st, k->text);
    if (e->field < 0) {
        diag_error_at(c->d, k, "%s has no field '%s'", cmd->agg->name, k->text);
        return -1;
    }
    if (e->field == cmd->agg->identity) {
        diag_error_at(c->d, k, "the identity field '%s' cannot be set; it comes from the parameter",
                      k->text);
        return -1;
    }
    return expr_compile(c->a, v, env, st->fields[e->field].type, &e->value, c->d);
}

static int append_effect(cc *c, command *cmd, const node *k, const node *v, const expr_env *env,
                         effect *e)
{
    const ty *st = cmd->agg->state;
    e->kind = EFFECT_APPEND;
    e->at = k;
    e->field = ty_field_index(st, k->text);
    if (e->field < 0) {
        diag_error_at(c->d, k, "%s has no field '%s'", cmd->agg->name, k->text);
        return -1;
    }
    const ty *lt = st->fields[e->field].type;
    if (lt->kind != TY_LIST) {
        char buf[128];
        diag_error_at(c->d, k, "append needs a list field; '%s' is %s", k->text,
                      ty_describe(lt, buf, sizeof buf));
        return -1;
    }
    if (v->kind != NODE_MAP)
        return expr_compile(c->a, v, env, lt->elem, &e->value, c->d);
    const ty *et = lt->elem;
    if (et->kind != TY_STRUCT) {
        diag_error_at(c->d, v, "the items of '%s' are not structs; append one expression", k->text);
        return -1;
    }
    e->build = arena_alloc(c->a, et->nfields * sizeof *e->build);
    int rc = 0;
    for (size_t i = 0; i < v->count; i++) {
        const node *fk = v->pairs[i].key;
        int fi = ty_field_index(et, fk->text);
        if (fi < 0) {
            char buf[128];
            diag_error_at(c->d, fk, "%s has no field '%s'", ty_describe(et, buf, sizeof buf),
                          fk->text);
            rc = -1;
            continue;
        }
        if (expr_compile(c->a, v->pairs[i].value, env, et->fields[fi].type, &e->build[fi], c->d) <
            0)
            rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < et->nfields; i++)
        if (!e->build[i] && !et->fields[i].optional && !et->fields[i].has_default) {
            diag_error_at(c->d, v, "the appended item does not set '%s'", et->fields[i].name);
            rc = -1;
        }
    return rc;
}

static int compile_effects(cc *c, command *cmd, const node *def, const expr_env *env)
{
    const node *set = node_get(def, "set"), *app = node_get(def, "append");
    size_t n = (set ? set->count : 0) + (app ? app->count : 0);
    cmd->effects = arena_alloc(c->a, (n ? n : 1) * sizeof *cmd->effects);
    int rc = 0;
    for (size_t i = 0; set && i < set->count; i++) {
        effect *e = &cmd->effects[cmd->neffects++];
        if (set_effect(c, cmd, set->pairs[i].key, set->pairs[i].value, env, e) < 0)
            rc = -1;
    }
    for (size_t i = 0; app && i < app->count; i++) {
        effect *e = &cmd->effects[cmd->neffects++];
        if (append_effect(c, cmd, app->pairs[i].key, app->pairs[i].value, env, e) < 0)
            rc = -1;
    }
    return rc;
}

static event_def *find_event(cc *c, const char *name)
{
    return name_index_get(&c->events, name);
}

static int declare_event(cc *c, command *cmd, const node *name, const ty *payload)
{
    if (!cc_ident(c, name, "event name"))
        return -1;
    event_def *ev = find_event(c, name->text);
    if (ev) {
        if (!ty_compatible(ev->payload, payload)) {
            diag_error_at(c->d, name,
                          "event '%s' is also emitted at line %d with a different payload",
                          name->text, ev->at->line);
            return -1;
        }
    } else {
        ev = &c->p->events[c->p->nevents];
        ev->index = c->p->nevents++;
        ev->name = name->text;
        ev->payload = payload;
        ev->at = name;
        name_index_put(&c->events, ev->name, ev);
    }
    cmd->event = ev;
    return 0;
}

static int compile_emits(cc *c, command *cmd, const node *emits, const expr_env *env)
{
    if (!emits)
        return 0;
    if (emits->kind == NODE_STRING)
        return declare_event(c, cmd, emits, cmd->params);
    const node *name = node_get(emits, "event"), *pl = node_get(emits, "payload");
    if (!name || name->kind != NODE_STRING) {
        diag_error_at(c->d, emits, "emits needs an event name");
        return -1;
    }
    if (!pl)
        return declare_event(c, cmd, name, cmd->params);
    ty *pt = arena_alloc(c->a, sizeof *pt);
    pt->kind = TY_STRUCT;
    pt->fields = arena_alloc(c->a, (pl->count ? pl->count : 1) * sizeof *pt->fields);
    cmd->payload = arena_alloc(c->a, (pl->count ? pl->count : 1) * sizeof *cmd->payload);
    int rc = 0;
    for (size_t i = 0; i < pl->count; i++) {
        const node *k = pl->pairs[i].key;
        if (!cc_ident(c, k, "payload field")) {
            rc = -1;
            continue;
        }
        if (expr_compile(c->a, pl->pairs[i].value, env, NULL, &cmd->payload[i], c->d) < 0) {
            rc = -1;
            continue;
        }
        field *f = &pt->fields[pt->nfields++];
        f->name = k->text;
        f->name_len = (uint32_t)strlen(k->text);
        f->at = k;
        f->type = expr_type(cmd->payload[i]);
    }
    if (rc < 0)
        return rc;
    return declare_event(c, cmd, name, pt);
}

/* A creates command must leave every required field with a value. */
static int check_creates_complete(cc *c, const command *cmd)
{
    const ty *st = cmd->agg->state;
    for (size_t i = 0; i < st->nfields; i++) {
        const field *f = &st->fields[i];
        if ((int)i == cmd->agg->identity || !field_required(f))
            continue;
        bool set = false;
        for (size_t j = 0; j < cmd->neffects; j++)
            set |= cmd->effects[j].field == (int)i;
        if (!set) {
            diag_error_at(c->d, cmd->at,
                          "%s creates %s but does not set '%s', which has no default and is not "
                          "optional",
                          cmd->name, cmd->agg->name, f->name);
            return -1;
        }
    }
    return 0;
}

/* A deleting command cannot create, and has no new state for effects or
 * postconditions to act on: each such key is an error at the key. */
static int check_deletes(cc *c, const command *cmd, const node *def)
{
    if (!cmd->deletes)
        return 0;
    int rc = 0;
    if (cmd->creates) {
        diag_error_at(c->d, node_get_pair(def, "deletes")->key,
                      "%s cannot both create and delete its record", cmd->verb);
        rc = -1;
    }
    static const char *const keys[] = {"set", "append", "ensure"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        const node_pair *kp = node_get_pair(def, keys[i]);
        if (!kp)
            continue;
        diag_error_at(c->d, kp->key,
                      "%s deletes its record, so '%s' has no state to act on; "
                      "guards may check the record before it goes",
                      cmd->verb, keys[i]);
        rc = -1;
    }
    return rc;
}

static int compile_command(cc *c, type_ctx *tc, command *cmd, const node *def)
{
    if (cmd->query && cc_query_writes(c, cmd, def) < 0)
        return -1;
    const node *cr = node_get(def, "creates"), *del = node_get(def, "deletes");
    cmd->creates = cr && cr->kind == NODE_BOOL && cr->v.b;
    cmd->deletes = del && del->kind == NODE_BOOL && del->v.b;
    if (check_deletes(c, cmd, def) < 0)
        return -1;
    ty *params = arena_alloc(c->a, sizeof *params);
    params->kind = TY_STRUCT;
    const node *pn = node_get(def, "params");
    if (pn && field_list(c, tc, pn, "parameter", params) < 0)
        return -1;
    if (!pn)
        params->fields = arena_alloc(c->a, sizeof *params->fields);
    cmd->params = params;
    const field *idf = &cmd->agg->state->fields[cmd->agg->identity];
    cmd->identity_param = ty_field_index(params, idf->name);
    if (cmd->identity_param < 0) {
        diag_error_at(c->d, pn ? pn : cmd->at,
                      "%s needs a parameter '%s': commands find their %s by its identity",
                      cmd->verb, idf->name, cmd->agg->name);
        return -1;
    }
    if (!ty_compatible(params->fields[cmd->identity_param].type, idf->type)) {
        diag_error_at(c->d, params->fields[cmd->identity_param].at,
                      "parameter '%s' must have the identity field's type", idf->name);
        return -1;
    }
    expr_env env = {.self = cmd->agg->state, .args = params};
    int rc = 0;
    if (compile_reads(c, cmd, node_get(def, "reads"), &env) < 0)
        rc = -1;
    if (compile_checks(c, node_get(def, "guards"), &env, &cmd->guards, &cmd->nguards) < 0)
        rc = -1;
    if (compile_effects(c, cmd, def, &env) < 0)
        rc = -1;
    expr_env post = env;
    post.allow_old = true;
    if (compile_checks(c, node_get(def, "ensure"), &post, &cmd->ensures, &cmd->nensures) < 0)
        rc = -1;
    if (compile_emits(c, cmd, node_get(def, "emits"), &post) < 0)
        rc = -1;
    if (rc == 0 && cmd->creates && check_creates_complete(c, cmd) < 0)
        rc = -1;
    if (rc == 0 && cmd->query && cc_query_returns(c, cmd, node_get(def, "returns"), &env) < 0)
        rc = -1;
    if (rc == 0 && cmd->query && cc_query_scan(c, cmd, def) < 0) /* compile_query.c */
        rc = -1;
    return rc;
}

/* The commands of ag, or (query) its queries: the same, but read-only. */
static int compile_commands(cc *c, type_ctx *tc, aggregate *ag, const node *cmds, bool query)
{
    size_t n = cmds && cmds->kind == NODE_MAP ? cmds->count : 0;
    command *list = arena_alloc(c->a, (n ? n : 1) * sizeof *list);
    size_t *count = query ? &ag->nqueries : &ag->ncommands;
    if (query)
        ag->queries = list;
    else
        ag->commands = list;
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const node *k = cmds->pairs[i].key;
        if (!cc_ident(c, k, query ? "query name" : "command name")) {
            rc = -1;
            continue;
        }
        const char *verb = arena_printf(c->a, "%s.%s", ag->name, k->text);
        if (query && plan_find_verb(c->p, verb)) {
            diag_error_at(c->d, k, "%s is a command already; a query needs a name of its own",
                          verb);
            rc = -1;
            continue;
        }
        command *cmd = &list[(*count)++];
        cmd->name = k->text;
        cmd->verb = verb;
        cmd->agg = ag;
        cmd->query = query;
        cmd->at = k;
        cmd->index = c->p->ncommands;
        c->p->commands[c->p->ncommands++] = cmd;
        name_index_put(&c->p->verbs, cmd->verb, cmd);
        if (compile_command(c, tc, cmd, cmds->pairs[i].value) < 0)
            rc = -1;
    }
    return rc;
}

/* An enum value that is also a field name of the aggregate would make a bare
 * name ambiguous. */
static int check_enum_shadow(cc *c, const aggregate *ag, const ty *t, int depth)
{
    if (!t || depth > 16)
        return 0;
    if (t->kind == TY_ENUM) {
        for (size_t i = 0; i < t->nvalues; i++)
            if (ty_field_index(ag->state, t->values[i]) >= 0) {
                diag_error_at(c->d, t->at,
                              "enum value '%s' shadows the field '%s' of %s; rename one",
                              t->values[i], t->values[i], ag->name);
                return -1;
            }
        return 0;
    }
    if (t->kind == TY_LIST)
        return check_enum_shadow(c, ag, t->elem, depth + 1);
    for (size_t i = 0; t->kind == TY_STRUCT && i < t->nfields; i++)
        if (check_enum_shadow(c, ag, t->fields[i].type, depth + 1) < 0)
            return -1;
    return 0;
}

static size_t count_commands(const node *aggs)
{
    size_t n = 0;
    for (size_t i = 0; aggs && i < aggs->count; i++) {
        const node *cm = node_get(aggs->pairs[i].value, "commands");
        const node *qs = node_get(aggs->pairs[i].value, "queries");
        n += cm && cm->kind == NODE_MAP ? cm->count : 0;
        n += qs && qs->kind == NODE_MAP ? qs->count : 0;
    }
    return n;
}

static int compile_aggregates(cc *c, type_ctx *tc, const node *aggs)
{
    size_t n = aggs && aggs->kind == NODE_MAP ? aggs->count : 0;
    plan *p = c->p;
    p->aggs = arena_alloc(c->a, (n ? n : 1) * sizeof *p->aggs);
    size_t ncmd = count_commands(aggs);
    p->commands = arena_alloc(c->a, (ncmd ? ncmd : 1) * sizeof *p->commands);
    p->events = arena_alloc(c->a, (ncmd ? ncmd : 1) * sizeof *p->events);
    name_index_init(&p->verbs, c->a, ncmd);
    name_index_init(&c->events, c->a, ncmd);
    name_index_init(&c->aggs, c->a, n);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const node *k = aggs->pairs[i].key;
        if (!cc_ident(c, k, "aggregate name")) {
            rc = -1;
            continue;
        }
        aggregate *ag = &p->aggs[p->naggs];
        ag->name = k->text;
        ag->at = k;
        ag->index = p->naggs++;
        name_index_put(&c->aggs, ag->name, ag);
        if (compile_state(c, tc, ag, aggs->pairs[i].value) < 0)
            rc = -1;
    }
    if (rc < 0 || n == 0)
        return rc;
    for (size_t i = 0; i < p->naggs; i++) {
        aggregate *ag = &p->aggs[i];
        const node *def = aggs->pairs[i].value; /* every name was declared: p->aggs[i] is pair i */
        if (compile_commands(c, tc, ag, node_get(def, "commands"), false) < 0)
            rc = -1;
        if (compile_commands(c, tc, ag, node_get(def, "queries"), true) < 0)
            rc = -1;
        if (check_enum_shadow(c, ag, ag->state, 0) < 0)
            rc = -1;
        for (size_t j = 0; j < ag->ncommands; j++)
            if (check_enum_shadow(c, ag, ag->commands[j].params, 0) < 0)
                rc = -1;
        for (size_t j = 0; j < ag->nqueries; j++)
            if (check_enum_shadow(c, ag, ag->queries[j].params, 0) < 0)
                rc = -1;
    }
    return rc;
}

/* ---- policies ---- */

static const command *find_verb_or_report(cc *c, const node *n)
{
    const command *cmd = plan_find_verb(c->p, n->text);
    if (cmd)
        return cmd;
    const char *names[512];
    size_t k = 0;
    for (size_t i = 0; i < c->p->ncommands && k < 512; i++)
        names[k++] = c->p->commands[i]->verb;
    const char *hint = diag_suggest(n->text, names, k);
    if (hint)
        diag_error_at(c->d, n, "unknown command '%s' (did you mean '%s'?)", n->text, hint);
    else
        diag_error_at(c->d, n, "unknown command '%s'", n->text);
    return NULL;
}

/* for_each: an expression over the event whose type is a list; its element
 * type is what `item` is in the policy's args. */
static int policy_for_each(cc *c, policy *po, const node *n)
{
    expr_env env = {.event = po->on->payload};
    if (expr_compile(c->a, n, &env, NULL, &po->for_each, c->d) < 0)
        return -1;
    const ty *t = expr_type(po->for_each);
    if (t->kind != TY_LIST) { /* at the expression, past any spaces before it */
        char buf[128], text[256];
        diag_error_in(c->d, n, strspn(n->text, " \t\r\n"), "for_each needs a list; '%s' is %s",
                      expr_render(po->for_each, text, sizeof text),
                      ty_describe(t, buf, sizeof buf));
        return -1;
    }
    po->item = t->elem;
    return 0;
}

static int policy_args(cc *c, policy *po, const node *args)
{
    const ty *params = po->run->params;
    expr_env env = {.event = po->on->payload, .item = po->item};
    po->args = arena_alloc(c->a, (params->nfields ? params->nfields : 1) * sizeof *po->args);
    int rc = 0;
    for (size_t i = 0; args && i < args->count; i++) {
        const node *k = args->pairs[i].key;
        int fi = ty_field_index(params, k->text);
        if (fi < 0) {
            diag_error_at(c->d, k, "%s has no parameter '%s'", po->run->verb, k->text);
            rc = -1;
            continue;
        }
        if (expr_compile(c->a, args->pairs[i].value, &env, params->fields[fi].type, &po->args[fi],
                         c->d) < 0)
            rc = -1;
    }
    for (size_t i = 0; rc == 0 && i < params->nfields; i++)
        if (!po->args[i] && !params->fields[i].optional && !params->fields[i].has_default) {
            diag_error_at(c->d, po->at, "the policy does not give %s its argument '%s'",
                          po->run->verb, params->fields[i].name);
            rc = -1;
        }
    return rc;
}

/* The event key of a policy into *out: 'when', or 'on', its name before YAML
 * 1.1 readers (PyYAML among them) were found to read the key on as the boolean
 * true. 'on' is still read, with a warning at the key that says what to write;
 * both at once is an error (-1). *out is NULL when neither is there. */
static int policy_event(cc *c, const node *item, const node **out)
{
    const node_pair *old = node_get_pair(item, "on");
    *out = node_get(item, "when");
    if (old && *out) {
        diag_error_at(c->d, old->key, "a policy has 'when' or 'on', not both: remove 'on'");
        return -1;
    }
    if (old) {
        diag_warning_at(c->d, old->key,
                        "'on' is read as true by YAML 1.1 readers such as PyYAML: write 'when: %s'",
                        old->value->kind == NODE_STRING ? old->value->text : "EVENT");
        *out = old->value;
    }
    return 0;
}

static int compile_policies(cc *c, const node *list)
{
    size_t n = list && list->kind == NODE_SEQ ? list->count : 0;
    plan *p = c->p;
    p->policies = arena_alloc(c->a, (n ? n : 1) * sizeof *p->policies);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        const node *item = list->items[i];
        const node *on, *run = node_get(item, "run");
        if (policy_event(c, item, &on) < 0) {
            rc = -1;
            continue;
        }
        if (!on || !run || on->kind != NODE_STRING || run->kind != NODE_STRING) {
            diag_error_at(c->d, item, "a policy needs 'when' and 'run'");
            rc = -1;
            continue;
        }
        event_def *ev = find_event(c, on->text);
        if (!ev) {
            const char *names[512];
            size_t k = 0;
            for (size_t j = 0; j < p->nevents && k < 512; j++)
                names[k++] = p->events[j].name;
            const char *hint = diag_suggest(on->text, names, k);
            if (hint)
                diag_error_at(c->d, on, "unknown event '%s' (did you mean '%s'?)", on->text, hint);
            else
                diag_error_at(c->d, on, "unknown event '%s': no command emits it", on->text);
            rc = -1;
            continue;
        }
        const command *cmd = find_verb_or_report(c, run);
        if (!cmd) {
            rc = -1;
            continue;
        }
        policy *po = &p->policies[p->npolicies++];
        po->on = ev;
        po->run = cmd;
        po->at = item;
        const node *fe = node_get(item, "for_each"); /* args only once item has its type */
        if ((fe && policy_for_each(c, po, fe) < 0) ||
            policy_args(c, po, node_get(item, "args")) < 0)
            rc = -1;
    }
    /* each event's policies in declaration order: count them, then fill */
    size_t *per_event = arena_alloc(c->a, (p->nevents + 1) * sizeof *per_event);
    for (size_t i = 0; i < p->npolicies; i++)
        per_event[p->policies[i].on->index]++;
    for (size_t e = 0; e < p->nevents; e++)
        p->events[e].policies =
            arena_alloc(c->a, (per_event[e] ? per_event[e] : 1) * sizeof *p->events[e].policies);
    for (size_t i = 0; i < p->npolicies; i++) {
        event_def *ev = &p->events[p->policies[i].on->index];
        ev->policies[ev->npolicies++] = &p->policies[i];
    }
    return rc; /* cycles and depth are lint's (lint_policies) */
}

/* ---- totals ---- */

/* One entry of a sparse count: index n of the aggregates or events. n is
 * signed: a deleting command takes a record away. */
typedef struct add {
    uint32_t index;
    bool is_event;
    int64_t n;
} add;

/* What one emission of each event adds to the store through its policies
 * (their creates minus deletes and their events, transitively, the event
 * itself included), by event index, as a sparse list: counting is linear in
 * the size of the policy graph and of what it adds, not in events x
 * (aggregates + events). */
typedef struct event_adds {
    add *adds;
    size_t nadds;
    int state;    /* 0 not yet, 1 being counted, 2 done */
    bool unknown; /* a for_each policy that adds records or events runs: what it adds
                     depends on a list's length */
} event_adds;

/* Dense scratch for building one event's list: counts, and the indexes
 * touched (marked, as a count may come back to 0), so that clearing costs
 * what was touched. */
typedef struct tally {
    int64_t *aggs, *events;
    bool *marked; /* naggs entries for the aggregates, then one per event */
    size_t naggs;
    add *touched;
    size_t ntouched;
} tally;

static void tally_add(tally *t, bool is_event, uint32_t index, int64_t n)
{
    int64_t *slot = is_event ? &t->events[index] : &t->aggs[index];
    bool *mark = &t->marked[is_event ? t->naggs + index : index];
    if (!*mark)
        t->touched[t->ntouched++] = (add){.index = index, .is_event = is_event};
    *mark = true;
    *slot += n;
}

/* The count of the touched entry d, which is cleared. */
static int64_t tally_take(tally *t, const add *d)
{
    int64_t *slot = d->is_event ? &t->events[d->index] : &t->aggs[d->index];
    int64_t n = *slot;
    *slot = 0;
    t->marked[d->is_event ? t->naggs + d->index : d->index] = false;
    return n;
}

/* What one successful run of cmd does to its own aggregate's count. */
static int64_t record_delta(const command *cmd)
{
    return cmd->creates ? 1 : cmd->deletes ? -1 : 0;
}

static void count_event(const plan *p, arena *a, event_adds *memo, tally *t, const event_def *ev)
{
    event_adds *e = &memo[ev->index];
    e->state = 1;
    for (size_t i = 0; i < ev->npolicies; i++) { /* the policies' events first */
        const event_def *next = ev->policies[i]->run->event;
        if (next && memo[next->index].state == 0)
            count_event(p, a, memo, t, next);
    }
    /* t is free again: every recursive call cleared what it touched */
    tally_add(t, true, (uint32_t)ev->index, 1);
    for (size_t i = 0; i < ev->npolicies; i++) {
        const command *run = ev->policies[i]->run;
        if (record_delta(run))
            tally_add(t, false, (uint32_t)run->agg->index, record_delta(run));
        const event_adds *next = run->event ? &memo[run->event->index] : NULL;
        for (size_t k = 0; next && next->state == 2 && k < next->nadds; k++)
            tally_add(t, next->adds[k].is_event, next->adds[k].index, next->adds[k].n);
        /* a for_each policy whose command adds nothing (no record, no event)
           adds nothing per item either: the count stays exact */
        bool per_item = ev->policies[i]->for_each && (record_delta(run) || run->event);
        e->unknown |= per_item || (next && next->state == 2 && next->unknown);
    } /* a policy cycle (state 1) adds nothing here: lint refuses it */
    e->adds = arena_alloc(a, (t->ntouched ? t->ntouched : 1) * sizeof *e->adds);
    for (size_t k = 0; k < t->ntouched; k++) {
        const add *d = &t->touched[k];
        e->adds[e->nadds++] =
            (add){.index = d->index, .is_event = d->is_event, .n = tally_take(t, d)};
    }
    t->ntouched = 0;
    e->state = 2;
}

/* Adds what one successful dispatch of cmd leaves in the store. */
static void count_dispatch(const plan *p, arena *a, event_adds *memo, tally *t, const command *cmd,
                           int64_t *aggs, int64_t *events)
{
    aggs[cmd->agg->index] += record_delta(cmd);
    if (!cmd->event)
        return;
    if (memo[cmd->event->index].state == 0)
        count_event(p, a, memo, t, cmd->event);
    const event_adds *e = &memo[cmd->event->index];
    for (size_t k = 0; k < e->nadds; k++)
        (e->adds[k].is_event ? events : aggs)[e->adds[k].index] += e->adds[k].n;
}

/* What one pass over steps adds to the store, into arrays in the plan's
 * arena (events never go down: only their counts are signed here). */
static void count_steps(plan *p, arena *scratch, event_adds *memo, tally *t, const step *steps,
                        size_t n, const int64_t **aggs_out, const uint64_t **events_out)
{
    int64_t *aggs = arena_alloc(&p->mem, (p->naggs + 1) * sizeof *aggs);
    int64_t *events = arena_alloc(scratch, (p->nevents + 1) * sizeof *events);
    for (size_t i = 0; i < n; i++)
        if (!steps[i].expect_refused)
            count_dispatch(p, scratch, memo, t, steps[i].cmd, aggs, events);
    uint64_t *counts = arena_alloc(&p->mem, (p->nevents + 1) * sizeof *counts);
    for (size_t i = 0; i < p->nevents; i++)
        counts[i] = (uint64_t)events[i];
    *aggs_out = aggs;
    *events_out = counts;
}

void plan_expected(const plan *p, uint64_t cycles, uint64_t *aggs, uint64_t *events)
{
    if (!p->cycle_aggs) { /* not fixed: nothing follows from the plan alone */
        memset(aggs, 0, p->naggs * sizeof *aggs);
        memset(events, 0, p->nevents * sizeof *events);
        return;
    }
    for (size_t i = 0; i < p->naggs; i++) {
        /* in whole numbers first: a cycle may remove what setup made */
        int64_t per = p->cycle_aggs[i], setup = p->setup_aggs[i];
        uint64_t grow = per > 0 ? (uint64_t)per : 0, shrink = per < 0 ? (uint64_t)-per : 0;
        uint64_t up = (setup > 0 ? (uint64_t)setup : 0) + cycles * grow;
        uint64_t down = (setup < 0 ? (uint64_t)-setup : 0) + cycles * shrink;
        aggs[i] = up > down ? up - down : 0;
    }
    for (size_t i = 0; i < p->nevents; i++)
        events[i] = p->setup_events[i] + cycles * p->cycle_events[i];
}

bool plan_is_fixed(const plan *p)
{
    const workload *w = &p->work;
    if (w->nflows != 1 || w->ndraws > 0)
        return false;
    for (size_t i = 0; i < w->nsetup; i++)
        if (w->setup[i].cmd->counts_unknown)
            return false;
    for (size_t i = 0; i < w->flows[0].nsteps; i++)
        if (w->flows[0].steps[i].count_refusals || w->flows[0].steps[i].cmd->counts_unknown)
            return false;
    return true;
}

/* What one successful dispatch of each command adds, for the runner's
 * tally of what it saw succeed (verify): as a sparse list of positions in
 * the aggregates then the events, built in t, so that it costs what the
 * command adds, not the plan's aggregates and events. */
static void compile_deltas(plan *p, arena *scratch, event_adds *memo, tally *t)
{
    cmd_delta *out = arena_alloc(&p->mem, (p->ncommands + 1) * sizeof *out);
    for (size_t i = 0; i < p->ncommands; i++) {
        const command *cmd = p->commands[i];
        const event_adds *e = NULL;
        if (cmd->event) { /* counted first: count_event takes t whole */
            if (memo[cmd->event->index].state == 0)
                count_event(p, scratch, memo, t, cmd->event);
            e = &memo[cmd->event->index];
        }
        if (record_delta(cmd))
            tally_add(t, false, (uint32_t)cmd->agg->index, record_delta(cmd));
        for (size_t k = 0; e && k < e->nadds; k++)
            tally_add(t, e->adds[k].is_event, e->adds[k].index, e->adds[k].n);
        uint32_t *at = arena_alloc(&p->mem, (t->ntouched + 1) * sizeof *at);
        int64_t *by = arena_alloc(&p->mem, (t->ntouched + 1) * sizeof *by);
        out[i].n = 0;
        for (size_t k = 0; k < t->ntouched; k++) {
            const add *d = &t->touched[k];
            int64_t n = tally_take(t, d);
            if (n) { /* a create and a delete of one aggregate cancel */
                at[out[i].n] = d->is_event ? (uint32_t)p->naggs + d->index : d->index;
                by[out[i].n++] = n;
            }
        }
        t->ntouched = 0;
        out[i].at = at;
        out[i].by = by;
    }
    p->cmd_delta = out;
}

/* Whether every total fits in an int64: the spec's cycles (each at most
 * CLI_MAX_CYCLES) times what one cycle adds. */
static bool totals_fit(const plan *p, size_t per_cycle)
{
    const workload *w = &p->work;
    for (size_t k = 0; k < w->nprefill; k++) {
        int64_t cycles, n;
        if (__builtin_add_overflow(w->prefill[k], w->warmup, &cycles) ||
            __builtin_add_overflow(cycles, w->iterations, &cycles) ||
            __builtin_mul_overflow(w->iterations, (int64_t)per_cycle, &n))
            return false;
        for (size_t i = 0; i < p->naggs; i++) {
            int64_t per = p->cycle_aggs[i] < 0 ? -p->cycle_aggs[i] : p->cycle_aggs[i];
            int64_t setup = p->setup_aggs[i] < 0 ? -p->setup_aggs[i] : p->setup_aggs[i];
            if (__builtin_mul_overflow(cycles, per, &n) || __builtin_add_overflow(n, setup, &n))
                return false;
        }
        for (size_t i = 0; i < p->nevents; i++)
            if (__builtin_mul_overflow(cycles, (int64_t)p->cycle_events[i], &n) ||
                __builtin_add_overflow(n, (int64_t)p->setup_events[i], &n))
                return false;
    }
    return true;
}

/* The totals bench plan prints: one per prefill entry, for the spec's own
 * warmup and iterations, when the workload is fixed; and every command's
 * delta. */
static void compile_totals(plan *p)
{
    const workload *w = &p->work;
    arena scratch = {0};
    event_adds *memo = arena_alloc(&scratch, (p->nevents + 1) * sizeof *memo);
    tally t = {.aggs = arena_alloc(&scratch, (p->naggs + 1) * sizeof *t.aggs),
               .events = arena_alloc(&scratch, (p->nevents + 1) * sizeof *t.events),
               .marked = arena_alloc(&scratch, (p->naggs + p->nevents + 1) * sizeof *t.marked),
               .naggs = p->naggs,
               .touched = arena_alloc(&scratch, (p->naggs + p->nevents + 1) * sizeof *t.touched)};
    for (size_t a = 0; a < p->naggs; a++) /* every command, not only the workload's */
        for (size_t j = 0; j < p->aggs[a].ncommands; j++) {
            command *cmd = &p->aggs[a].commands[j];
            const event_def *ev = cmd->event;
            if (ev && memo[ev->index].state == 0)
                count_event(p, &scratch, memo, &t, ev);
            cmd->counts_unknown = ev && memo[ev->index].unknown;
        }
    compile_deltas(p, &scratch, memo, &t);
    bool fixed = plan_is_fixed(p);
    if (fixed) {
        const flow *f = &w->flows[0];
        count_steps(p, &scratch, memo, &t, w->setup, w->nsetup, &p->setup_aggs, &p->setup_events);
        count_steps(p, &scratch, memo, &t, f->steps, f->nsteps, &p->cycle_aggs, &p->cycle_events);
    }
    arena_free(&scratch);
    if (!fixed)
        return;
    size_t per_cycle = w->flows[0].nsteps;
    if (!totals_fit(p, per_cycle)) {
        p->totals_overflow = true;
        return;
    }
    plan_totals *totals = arena_alloc(&p->mem, w->nprefill * sizeof *totals);
    for (size_t k = 0; k < w->nprefill; k++) {
        uint64_t *aggs = arena_alloc(&p->mem, (p->naggs + 1) * sizeof *aggs);
        uint64_t *events = arena_alloc(&p->mem, (p->nevents + 1) * sizeof *events);
        plan_expected(p, (uint64_t)(w->prefill[k] + w->warmup + w->iterations), aggs, events);
        totals[k] = (plan_totals){.prefill = w->prefill[k],
                                  .commands_per_cycle = per_cycle,
                                  .commands_timed = (uint64_t)w->iterations * per_cycle,
                                  .aggregates = aggs,
                                  .events = events};
    }
    p->totals = totals;
}

/* ---- the whole ---- */

int plan_compile(doc *dc, diag_list *d, plan **out)
{
    *out = NULL;
    plan *p = xcalloc(1, sizeof *p);
    cc c = {.p = p, .a = &p->mem, .d = d, .errors_at_start = d->errors};
    const node *root = dc->root;
    p->path = dc->path;
    const node *dom = node_get(root, "domain");
    if (dom && cc_ident(&c, dom, "domain"))
        p->domain = dom->text;
    const node *about = node_get(root, "about");
    p->about = about && about->kind == NODE_STRING ? about->text : NULL;
    type_ctx tc = {0};
    compile_types(&c, node_get(root, "types"), &tc);
    if (d->errors == c.errors_at_start)
        compile_aggregates(&c, &tc, node_get(root, "aggregates"));
    if (d->errors == c.errors_at_start)
        compile_policies(&c, node_get(root, "policies"));
    if (d->errors == c.errors_at_start)
        cc_workload(&c, node_get(root, "workload"));
    if (d->errors != c.errors_at_start) {
        plan_free(p);
        return -1;
    }
    compile_totals(p);
    p->source = dc;
    *out = p;
    return 0;
}

void plan_free(plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nregex; i++)
        pcre2_code_free(p->regex[i]->re);
    free(p->regex);
    doc_free(p->source);
    arena_free(&p->mem);
    free(p);
}
