/* plan_fixture.h: a plan compiled from YAML written in the test, an open
 * target that runs the C runtime on a store (memory, sqlite, postgres) with
 * given options, commands dispatched with arguments written as YAML flow
 * mappings (converted by type without checking constraints, so the
 * runtime's own checks are what refuse them), and records loaded back
 * through the target's store. Used by runtime_scenarios.h and by each
 * store's own tests. Include after cmocka.h. */
#ifndef BENCH_TESTS_PLAN_FIXTURE_H
#define BENCH_TESTS_PLAN_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load.h"
#include "plan.h"
#include "store.h"
#include "target.h"

enum { FX_MAX_DOCS = 64 };

typedef struct fx {
    plan *p;
    target_spec ts; /* the options t was opened with */
    target *t;
    doc *args[FX_MAX_DOCS]; /* argument documents; their arenas hold built values */
    size_t nargs;
    size_t next; /* the next doc slot to reuse once all are taken */
} fx;

/* The plan compiled from yaml; the test fails, with the errors on stderr,
 * when it does not compile. */
static inline plan *fx_compile(const char *yaml)
{
    diag_list d = {0};
    doc *dc = NULL;
    plan *p = NULL;
    int rc = load_string("test.yaml", yaml, strlen(yaml), &dc, &d);
    if (rc == LOAD_OK)
        rc = plan_compile(dc, &d, &p);
    for (size_t i = 0; i < d.count; i++)
        if (d.items[i].severity == DIAG_ERROR)
            fprintf(stderr, "%s:%d:%d: %s\n", d.items[i].file, d.items[i].line, d.items[i].col,
                    d.items[i].message);
    diag_list_free(&d);
    if (!p)
        doc_free(dc);
    assert_non_null(p);
    return p;
}

/* Opens a target of ts->name with options ts on a plan compiled from yaml;
 * the target runs the C runtime on a store (runtime_target_store). */
static inline fx *fx_open(const char *yaml, const target_spec *ts)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->p = fx_compile(yaml);
    f->ts = *ts;
    const target_driver *drv = target_find(ts->name);
    assert_non_null(drv);
    char err[1024] = "";
    if (target_open(drv, f->p, &f->ts, 1, &f->t, err, sizeof err) != TARGET_OK)
        fail_msg("opening %s: %s", ts->name, err);
    assert_non_null(runtime_target_store(f->t));
    return f;
}

static inline void fx_close(fx *f)
{
    target_close(f->t);
    for (size_t i = 0; i < f->nargs; i++)
        doc_free(f->args[i]);
    plan_free(f->p);
    free(f);
}

/* n as a value of type t, by YAML shape only (constraints are not checked). */
static inline value fx_value(arena *a, const ty *t, const node *n)
{
    switch (t->kind) {
    case TY_INT: return (value){.kind = VAL_INT, .u.i = n->v.i};
    case TY_BOOL: return (value){.kind = VAL_BOOL, .u.b = n->v.b};
    case TY_STRING: return (value){.kind = VAL_STRING, .len = (uint32_t)n->len, .u.s = n->text};
    case TY_ENUM: {
        int e = ty_enum_index(t, n->text, n->len);
        assert_true(e >= 0);
        return (value){.kind = VAL_ENUM, .u.e = e};
    }
    case TY_LIST: {
        value *items = arena_alloc(a, (n->count + 1) * sizeof *items);
        for (size_t i = 0; i < n->count; i++)
            items[i] = fx_value(a, t->elem, n->items[i]);
        return (value){.kind = VAL_LIST, .len = (uint32_t)n->count, .u.items = items};
    }
    case TY_STRUCT: break;
    }
    value *items = arena_alloc(a, (t->nfields + 1) * sizeof *items);
    for (size_t i = 0; i < t->nfields; i++) {
        const field *fd = &t->fields[i];
        const node *v = node_get(n, fd->name);
        if (v && v->kind != NODE_NULL)
            items[i] = fx_value(a, fd->type, v);
        else if (fd->has_default)
            items[i] = fd->def;
        else if (fd->type->kind == TY_LIST)
            items[i] = (value){.kind = VAL_LIST};
    }
    return (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
}

/* Arguments for cmd from a YAML flow mapping; they live until fx_close. */
static inline value fx_args(fx *f, const command *cmd, const char *yaml)
{
    diag_list d = {0};
    doc *dc = NULL;
    assert_int_equal(load_string("args", yaml, strlen(yaml), &dc, &d), LOAD_OK);
    diag_list_free(&d);
    if (f->nargs == FX_MAX_DOCS) { /* long loops: recycle the oldest */
        doc_free(f->args[f->next]);
        f->args[f->next] = dc;
        f->next = (f->next + 1) % FX_MAX_DOCS;
    } else {
        f->args[f->nargs++] = dc;
    }
    return fx_value(&dc->mem, cmd->params, dc->root);
}

static inline const command *fx_verb(fx *f, const char *name)
{
    const command *cmd = plan_find_verb(f->p, name);
    if (!cmd)
        fail_msg("no command %s", name);
    return cmd;
}

/* Dispatches verb with args; TARGET_OK, TARGET_REFUSED or TARGET_ERROR. */
static inline int fx_call(fx *f, const char *name, const char *args)
{
    const command *cmd = fx_verb(f, name);
    value v = fx_args(f, cmd, args);
    f->t->message[0] = '\0';
    return target_dispatch(f->t, cmd, &v);
}

static inline void fx_ok(fx *f, const char *name, const char *args)
{
    int rc = fx_call(f, name, args);
    if (rc != TARGET_OK)
        fail_msg("%s %s: %d %s", name, args, rc, f->t->message);
}

static inline void fx_refused(fx *f, const char *name, const char *args, const char *message)
{
    int rc = fx_call(f, name, args);
    if (rc != TARGET_REFUSED)
        fail_msg("%s %s: expected a refusal, got %d %s", name, args, rc, f->t->message);
    assert_string_equal(f->t->message, message);
}

/* Dispatches the query verb with args, which must succeed, and returns its
 * answer (lent until the next dispatch). */
static inline const value *fx_ask(fx *f, const char *name, const char *args)
{
    fx_ok(f, name, args);
    const value *answer = NULL;
    if (target_answer(f->t, &answer) != TARGET_OK)
        fail_msg("%s %s: no answer: %s", name, args, f->t->message);
    assert_non_null(answer);
    return answer;
}

/* The field called name of an answer of the query verb. */
static inline const value *fx_returned(fx *f, const char *verb, const value *answer,
                                       const char *name)
{
    int i = ty_field_index(fx_verb(f, verb)->returns, name);
    if (i < 0)
        fail_msg("%s returns no %s", verb, name);
    return &answer->u.items[i];
}

/* Records of an aggregate or events of a name the store holds. */
static inline uint64_t fx_count(fx *f, const char *name)
{
    uint64_t aggs[16] = {0}, events[64] = {0};
    assert_true(f->p->naggs <= 16 && f->p->nevents <= 64);
    if (target_count(f->t, aggs, events) != TARGET_OK)
        fail_msg("count: %s", f->t->message);
    for (size_t i = 0; i < f->p->naggs; i++)
        if (!strcmp(f->p->aggs[i].name, name))
            return aggs[i];
    for (size_t i = 0; i < f->p->nevents; i++)
        if (!strcmp(f->p->events[i].name, name))
            return events[i];
    fail_msg("no aggregate or event %s", name);
    return 0;
}

static inline const aggregate *fx_agg(fx *f, const char *name)
{
    for (size_t i = 0; i < f->p->naggs; i++)
        if (!strcmp(f->p->aggs[i].name, name))
            return &f->p->aggs[i];
    fail_msg("no aggregate %s", name);
    return NULL;
}

/* Loads the committed record of aggregate name with key; false when absent. */
static inline bool fx_load_key(fx *f, const char *name, const value *key, value *out)
{
    store *s = runtime_target_store(f->t);
    int rc = s->ops->load(s, fx_agg(f, name), key, out);
    if (rc < 0)
        fail_msg("load: %s", s->error);
    return rc == 1;
}

/* The same with a string key. */
static inline bool fx_load(fx *f, const char *name, const char *key, value *out)
{
    value k = {.kind = VAL_STRING, .len = (uint32_t)strlen(key), .u.s = key};
    return fx_load_key(f, name, &k, out);
}

/* The same with an int key. */
static inline bool fx_load_int(fx *f, const char *name, int64_t key, value *out)
{
    value k = {.kind = VAL_INT, .u.i = key};
    return fx_load_key(f, name, &k, out);
}

/* The field called name of record rec of aggregate agg. */
static inline const value *fx_get(fx *f, const char *agg, const value *rec, const char *name)
{
    int i = ty_field_index(fx_agg(f, agg)->state, name);
    if (i < 0)
        fail_msg("%s has no field %s", agg, name);
    return &rec->u.items[i];
}

static inline int64_t fx_int(fx *f, const char *agg, const value *rec, const char *name)
{
    const value *v = fx_get(f, agg, rec, name);
    assert_int_equal(v->kind, VAL_INT);
    return v->u.i;
}

/* The name of the enum value in field name of rec. */
static inline const char *fx_enum(fx *f, const char *agg, const value *rec, const char *name)
{
    const value *v = fx_get(f, agg, rec, name);
    assert_int_equal(v->kind, VAL_ENUM);
    const ty *t = fx_agg(f, agg)->state;
    return t->fields[ty_field_index(t, name)].type->values[v->u.e];
}

static inline void fx_assert_str(const value *v, const char *s, size_t len)
{
    assert_int_equal(v->kind, VAL_STRING);
    assert_int_equal(v->len, len);
    assert_memory_equal(v->u.s, s, len);
}

static inline void fx_assert_cstr(const value *v, const char *s)
{
    fx_assert_str(v, s, strlen(s));
}

#endif
