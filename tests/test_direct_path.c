/* test_direct_path.c: the memory store's direct path (store.h, direct_find)
 * against its transaction path, command by command. Every spec of
 * runtime_scenarios.h and the two bundled ones is driven by a stream of
 * random commands with random arguments (from small pools, so that records
 * collide, reads find their records or miss them, and most refusals happen:
 * bad arguments, guards, invariants, overflow, duplicate creates, missing
 * records), each dispatched three ways: on a memory store whose runtime
 * takes the direct path where a command fits (a create's own find last,
 * after a prefetch: store.h, direct_prefetch), on a session of a shared
 * memory store (its stripes' locks, its own pool and log; its creates
 * find first), both with their
 * room reserved halfway through as before a timed pass, and on a memory
 * store whose direct path is turned off, so that every command runs in a
 * transaction. Every other command comes as a step's constants would: the
 * arguments that pass their checks marked checked and lasting, so that the
 * store may keep them in its log as they are handed (store_write.lasting).
 * The three must give the same status, the same message, the
 * same answer to a query, and every so often the same records under every
 * key of the pools, the same events written (a store in front of each keeps
 * the payloads handed to the store) and the same counts of records and
 * events. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arena.h"
#include "load.h"
#include "runtime.h"
#include "runtime_scenarios.h"
#include "store_driver.h"
#include "store_memory.h"
#include "value.h"

extern const store_driver memory_store_driver;

enum {
    EPOCHS = 12,        /* fresh stores a spec */
    EPOCH = 250,        /* commands on them */
    COMPARE_EVERY = 25, /* commands between comparisons of the stores */
    SCRATCH = 1 << 16   /* values of one command's arguments */
};

/* The pools arguments are drawn from: keys and strings in one, so that a
 * string argument is often some record's identity. A key longer than the
 * store's remembered-lookup bytes is among them. */
/* clang-format off */
static const char *const strings[] = {
    "a", "ab", "c-1", "c-2", "x-1", "k1", "k2", "CUST-0001", "USD", "usd", "", "bob", "inbox",
    "ada", "Deposit", "ada@example.com", "c-12", "small", "large", "k1@b.co", "bob@inbox.org",
    "a-key-longer-than-the-sixty-four-bytes-a-lookup-remembers-of-a-key-string",
};
/* clang-format on */
static const int64_t ints[] = {0, 1, 2, 3, -1, 5, 9, 10, 100, 2500, 50000, INT64_MAX, INT64_MIN};

#define COUNT(a) (sizeof(a) / sizeof *(a))

typedef struct gen {
    uint64_t rng;
    char scratch[SCRATCH];
    size_t used;
} gen;

static uint64_t next(gen *g)
{
    g->rng ^= g->rng << 13;
    g->rng ^= g->rng >> 7;
    g->rng ^= g->rng << 17;
    return g->rng;
}

static unsigned pick(gen *g, unsigned n)
{
    return (unsigned)(next(g) % n);
}

static value *take(gen *g, size_t n)
{
    size_t size = (n ? n : 1) * sizeof(value);
    assert_true(g->used + size <= sizeof g->scratch);
    value *v = (value *)(void *)(g->scratch + g->used);
    g->used += (size + 15) & ~(size_t)15;
    return v;
}

static value a_string(gen *g)
{
    const char *s = strings[pick(g, COUNT(strings))];
    return (value){.kind = VAL_STRING, .len = (uint32_t)strlen(s), .u.s = s};
}

/* A value of type t, now and then none at all (a missing argument). */
static value a_value(gen *g, const ty *t, bool optional)
{
    if (pick(g, 100) < (optional ? 30u : 2u))
        return (value){.kind = VAL_NONE};
    switch (t->kind) {
    case TY_INT:
    case TY_STRING: {
        /* three times in four, one that passes the type's constraints when
           one of some draws does */
        bool valid = pick(g, 4) != 0;
        value v;
        for (int tries = 0; tries < 16; tries++) {
            v = t->kind == TY_INT ? (value){.kind = VAL_INT, .u.i = ints[pick(g, COUNT(ints))]}
                                  : a_string(g);
            if (!valid || value_valid(t, &v))
                break;
        }
        return v;
    }
    case TY_BOOL: return (value){.kind = VAL_BOOL, .u.b = pick(g, 2)};
    case TY_ENUM: return (value){.kind = VAL_ENUM, .u.e = (int32_t)pick(g, (unsigned)t->nvalues)};
    case TY_STRUCT: {
        value *items = take(g, t->nfields);
        for (size_t i = 0; i < t->nfields; i++)
            items[i] = a_value(g, t->fields[i].type, t->fields[i].optional);
        return (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    }
    case TY_LIST: {
        uint32_t n = pick(g, 4);
        value *items = take(g, n);
        for (uint32_t i = 0; i < n; i++)
            items[i] = a_value(g, t->elem, false);
        return (value){.kind = VAL_LIST, .len = n, .u.items = items};
    }
    }
    return (value){.kind = VAL_NONE};
}

/* The three ways a command is dispatched. */
enum { DIRECT, SESSION, TXN, WAYS };
static const char *const way_name[WAYS] = {"direct", "session", "transaction"};

/* ---- a store in front of each way's that keeps the events it writes ---- */

typedef struct logged {
    size_t event, agg; /* indexes in the plan */
    value key, payload;
} logged;

enum { TAP_EVENTS = 4096 };

/* The events of the dispatches that ended written (committed, or written
 * by the direct path), in order, their payloads copied; those of a
 * transaction rolled back or a direct path released are dropped. */
typedef struct tap {
    store base;
    store_ops ops;
    store *inner;
    const plan *p;
    logged events[TAP_EVENTS];
    size_t n, mark; /* mark: where the open transaction's began */
    arena copies;
} tap;

static int tap_begin(store *s)
{
    tap *t = (tap *)s;
    t->mark = t->n;
    return t->inner->ops->begin(t->inner);
}

static int tap_load(store *s, const aggregate *agg, const value *key, value *out)
{
    return ((tap *)s)->inner->ops->load(((tap *)s)->inner, agg, key, out);
}

static int tap_save(store *s, const aggregate *agg, const value *key, const value *st, bool created)
{
    return ((tap *)s)->inner->ops->save(((tap *)s)->inner, agg, key, st, created);
}

static int tap_update(store *s, const aggregate *agg, const value *key, const store_change *c,
                      size_t n, value *st)
{
    return ((tap *)s)->inner->ops->update(((tap *)s)->inner, agg, key, c, n, st);
}

static int tap_remove(store *s, const aggregate *agg, const value *key)
{
    return ((tap *)s)->inner->ops->remove(((tap *)s)->inner, agg, key);
}

static void tap_keep(tap *t, const event_def *ev, const aggregate *agg, const value *key,
                     const value *payload)
{
    assert_true(t->n < TAP_EVENTS);
    t->events[t->n++] = (logged){.event = ev->index,
                                 .agg = agg->index,
                                 .key = value_copy(&t->copies, key),
                                 .payload = value_copy(&t->copies, payload)};
}

static int tap_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                            const value *payload)
{
    tap *t = (tap *)s;
    int rc = t->inner->ops->append_event(t->inner, ev, agg, key, payload);
    if (rc == 0)
        tap_keep(t, ev, agg, key, payload);
    return rc;
}

static int tap_commit(store *s)
{
    return ((tap *)s)->inner->ops->commit(((tap *)s)->inner);
}

static int tap_rollback(store *s)
{
    tap *t = (tap *)s;
    t->n = t->mark;
    return t->inner->ops->rollback(t->inner);
}

static int tap_count(store *s, uint64_t *aggs, uint64_t *events)
{
    return ((tap *)s)->inner->ops->count(((tap *)s)->inner, aggs, events);
}

static int tap_read_begin(store *s)
{
    return ((tap *)s)->inner->ops->read_begin(((tap *)s)->inner);
}

static int tap_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    return ((tap *)s)->inner->ops->scan(((tap *)s)->inner, agg, from, limit, out);
}

static int tap_direct_find(store *s, const aggregate *agg, const value *key, const store_room *room,
                           size_t nroom, store_ref *ref, value *st)
{
    tap *t = (tap *)s;
    return t->inner->ops->direct_find(t->inner, agg, key, room, nroom, ref, st);
}

static void tap_direct_prefetch(store *s, const aggregate *agg, const value *key)
{
    tap *t = (tap *)s;
    t->inner->ops->direct_prefetch(t->inner, agg, key);
}

/* The payload is copied before the write, which may free what it points
 * into. */
static int tap_direct_write(store *s, const store_write *w)
{
    tap *t = (tap *)s;
    size_t n = t->n;
    if (w->event)
        tap_keep(t, w->event, w->agg, w->key, w->payload);
    int rc = t->inner->ops->direct_write(t->inner, w);
    if (rc < 0)
        t->n = n;
    return rc;
}

static void tap_direct_release(store *s)
{
    tap *t = (tap *)s;
    t->inner->ops->direct_release(t->inner);
}

/* t in front of inner, with the optional calls inner has and no others. */
static void tap_open(tap *t, store *inner, const plan *p)
{
    const store_ops *in = inner->ops;
    assert_null(in->prefetch); /* the memory store fetches nothing ahead */
    t->inner = inner;
    t->p = p;
    t->ops = (store_ops){
        .begin = tap_begin,
        .load = tap_load,
        .save = tap_save,
        .remove = in->remove ? tap_remove : NULL,
        .append_event = tap_append_event,
        .commit = tap_commit,
        .rollback = tap_rollback,
        .count = tap_count,
        .checks_creates = in->checks_creates,
        .read_begin = in->read_begin ? tap_read_begin : NULL,
        .scan = in->scan ? tap_scan : NULL,
        .update = in->update ? tap_update : NULL,
        .direct_find = in->direct_find ? tap_direct_find : NULL,
        .direct_prefetch = in->direct_prefetch ? tap_direct_prefetch : NULL,
        .direct_write = in->direct_write ? tap_direct_write : NULL,
        .direct_release = in->direct_release ? tap_direct_release : NULL,
    };
    t->base.ops = &t->ops;
}

/* ---- the three ways ---- */

typedef struct ways {
    store *s[WAYS];      /* each way's memory store (SESSION: the session) */
    store *shared;       /* the store SESSION's session is of */
    tap *taps;           /* in front of each, keeping its events */
    runtime *rt[WAYS];   /* each dispatching through its tap */
    store_ops no_direct; /* TXN's store's ops, its direct path taken out */
    arena lasting;       /* the constant arguments' struct copies: freed after the stores */
} ways;

static void ways_open(ways *w, const plan *p)
{
    assert_int_equal(memory_store_new(p, &w->s[DIRECT]), 0);
    assert_int_equal(memory_store_new(p, &w->shared), 0);
    char err[256];
    assert_int_equal(memory_store_driver.session(w->shared, &w->s[SESSION], err, sizeof err), 0);
    assert_int_equal(memory_store_new(p, &w->s[TXN]), 0);
    w->no_direct = *w->s[TXN]->ops;
    w->no_direct.direct_find = NULL;
    w->no_direct.direct_write = NULL;
    w->no_direct.direct_release = NULL;
    w->s[TXN]->ops = &w->no_direct;
    w->taps = calloc(WAYS, sizeof *w->taps);
    assert_non_null(w->taps);
    for (int i = 0; i < WAYS; i++) {
        tap_open(&w->taps[i], w->s[i], p);
        assert_int_equal(runtime_new(p, &w->taps[i].base, &w->rt[i]), 0);
        runtime_keep_constants(w->rt[i]); /* constants_of keeps the promise */
    }
    w->lasting = (arena){0};
}

static void ways_close(ways *w)
{
    for (int i = 0; i < WAYS; i++) {
        runtime_free(w->rt[i]);
        arena_free(&w->taps[i].copies);
    }
    free(w->taps);
    memory_store_driver.session_close(w->s[SESSION]);
    memory_store_free(w->shared);
    memory_store_free(w->s[DIRECT]);
    memory_store_free(w->s[TXN]);
    arena_free(&w->lasting);
}

/* The arguments of args that a step's constants would be: each that passes
 * its checks, marked as a step instance marks them (step_inst.checked),
 * and made to last as long as the stores, as the runtimes were promised (a
 * struct or list copied into w->lasting; a string of the pools is static,
 * so the same one comes again at the same address, as a step's does). */
static uint64_t constants_of(ways *w, const ty *params, value *args)
{
    uint64_t checked = 0;
    char why[512];
    for (size_t i = 0; i < params->nfields && i < 64; i++) {
        value *v = &args->u.items[i];
        if (value_check_field(params, i, v, 0, why, sizeof why) < 0)
            continue;
        if (v->kind == VAL_STRUCT || v->kind == VAL_LIST)
            *v = value_copy(&w->lasting, v);
        checked |= UINT64_C(1) << i;
    }
    return checked;
}

/* Reading a way's event log back against its tap's events (the ones it
 * was handed): where the next one is, and the first entry that differs. */
typedef struct log_read {
    const tap *t;
    size_t n;
} log_read;

static int log_entry_agrees(void *ctx, size_t event, size_t agg, const value *key,
                            const value *payload)
{
    log_read *r = ctx;
    if (r->n >= r->t->n)
        return 1;
    const logged *l = &r->t->events[r->n++];
    return l->event == event && l->agg == agg && value_equal(&l->key, key) &&
                   value_equal(&l->payload, payload)
               ? 0
               : 1;
}

/* Every key of the pools of agg's identity type: the same record (or none)
 * on each way; each way's event log holds what it was handed, as it was
 * handed; then the same counts. */
static void compare_stores(const ways *w, const plan *p, const char *what, int at)
{
    for (size_t a = 0; a < p->naggs; a++) {
        const aggregate *agg = &p->aggs[a];
        bool by_int = agg->state->fields[agg->identity].type->kind == TY_INT;
        size_t nkeys = by_int ? COUNT(ints) : COUNT(strings);
        for (size_t k = 0; k < nkeys; k++) {
            value key = by_int ? (value){.kind = VAL_INT, .u.i = ints[k]}
                               : (value){.kind = VAL_STRING,
                                         .len = (uint32_t)strlen(strings[k]),
                                         .u.s = strings[k]};
            value rec[WAYS];
            int found[WAYS];
            for (int i = 0; i < WAYS; i++) {
                store *s = i == SESSION ? w->shared : w->s[i];
                found[i] = s->ops->load(s, agg, &key, &rec[i]);
                assert_true(found[i] >= 0);
            }
            for (int i = 1; i < WAYS; i++)
                if (found[i] != found[0] || (found[0] && !value_equal(&rec[i], &rec[0]))) {
                    char name[80];
                    fprintf(stderr, "%s, after command %d: record %s %s: %s %s, %s %s\n", what, at,
                            agg->name,
                            by_int ? (snprintf(name, sizeof name, "%" PRId64, key.u.i), name)
                                   : strings[k],
                            way_name[0], found[0] ? "has it" : "has none", way_name[i],
                            found[i] == found[0] ? "differs"
                            : found[i]           ? "has it"
                                                 : "has none");
                    fail();
                }
        }
    }
    for (int i = 1; i < WAYS; i++) {
        const tap *a = &w->taps[0], *b = &w->taps[i];
        for (size_t e = 0; e < a->n || e < b->n; e++)
            if (e >= a->n || e >= b->n || a->events[e].event != b->events[e].event ||
                !value_equal(&a->events[e].payload, &b->events[e].payload)) {
                fprintf(stderr, "%s, after command %d: event %zu differs (%s, %s)\n", what, at, e,
                        way_name[0], way_name[i]);
                fail();
            }
    }
    for (int i = 0; i < WAYS; i++) {
        log_read r = {.t = &w->taps[i]};
        if (memory_store_events(w->s[i], log_entry_agrees, &r) != 0 || r.n != w->taps[i].n) {
            fprintf(stderr, "%s, after command %d: %s's event log: entry %zu of %zu differs\n",
                    what, at, way_name[i], r.n, w->taps[i].n);
            fail();
        }
    }
    uint64_t counts[WAYS][64];
    assert_true(p->naggs + p->nevents <= 64);
    for (int i = 0; i < WAYS; i++) {
        store *s = i == SESSION ? w->shared : w->s[i];
        assert_int_equal(s->ops->count(s, counts[i], counts[i] + p->naggs), 0);
    }
    for (int i = 1; i < WAYS; i++)
        for (size_t c = 0; c < p->naggs + p->nevents; c++)
            if (counts[i][c] != counts[0][c]) {
                fprintf(stderr, "%s, after command %d: %s %s counts %" PRIu64 ", %s %" PRIu64 "\n",
                        what, at, c < p->naggs ? p->aggs[c].name : p->events[c - p->naggs].name,
                        way_name[0], counts[0][c], way_name[i], counts[i][c]);
                fail();
            }
}

/* EPOCHS times, fresh stores and EPOCH random commands of p on them, three
 * ways; returns how many took the direct path and succeeded, and counts the
 * refusals in *refused (the caller checks the streams exercised both). */
static int drive(const plan *p, const char *what, uint64_t seed, int *refused)
{
    gen *g = calloc(1, sizeof *g);
    assert_non_null(g);
    g->rng = seed;
    int direct_ok = 0;
    for (int e = 0; e < EPOCHS; e++) {
        ways w;
        ways_open(&w, p);
        for (int k = 0; k < EPOCH; k++) {
            g->used = 0;
            if (k == EPOCH / 2) /* the rest from reserved room, as a timed pass */
                for (int i = DIRECT; i <= SESSION; i++)
                    assert_int_equal(memory_store_driver.reserve(w.s[i], k, EPOCH - k), 0);
            const command *cmd = p->commands[pick(g, (unsigned)p->ncommands)];
            value args = a_value(g, cmd->params, false);
            if (args.kind == VAL_NONE)
                continue;
            /* every other command as a step's constants would come: those
               that pass their checks marked, and lasting (the store may
               keep them in its log: store_write.lasting) */
            uint64_t checked = k % 2 ? constants_of(&w, cmd->params, &args) : 0;
            runtime_status st[WAYS];
            char msg[WAYS][512];
            for (int i = 0; i < WAYS; i++) {
                st[i] = runtime_dispatch_checked(w.rt[i], cmd, &args, checked);
                snprintf(msg[i], sizeof msg[i], "%s",
                         st[i] == RUNTIME_OK ? "" : runtime_message(w.rt[i]));
                if (st[i] == RUNTIME_ERROR) {
                    fprintf(stderr, "%s, epoch %d, command %d, %s on %s: %s\n", what, e, k,
                            cmd->verb, way_name[i], msg[i]);
                    fail();
                }
            }
            for (int i = 1; i < WAYS; i++) {
                if (st[i] != st[0] || strcmp(msg[i], msg[0]) != 0) {
                    fprintf(stderr, "%s, epoch %d, command %d, %s: %s %s '%s', %s %s '%s'\n", what,
                            e, k, cmd->verb, way_name[0], st[0] == RUNTIME_OK ? "ok" : "refused",
                            msg[0], way_name[i], st[i] == RUNTIME_OK ? "ok" : "refused", msg[i]);
                    fail();
                }
                const value *a0 = runtime_answer(w.rt[0]), *ai = runtime_answer(w.rt[i]);
                if ((a0 == NULL) != (ai == NULL) || (a0 && !value_equal(a0, ai))) {
                    fprintf(stderr, "%s, epoch %d, command %d, %s: the answers differ (%s, %s)\n",
                            what, e, k, cmd->verb, way_name[0], way_name[i]);
                    fail();
                }
            }
            if (st[0] == RUNTIME_OK && runtime_is_direct(w.rt[DIRECT], cmd))
                direct_ok++;
            if (st[0] == RUNTIME_REFUSED)
                ++*refused;
            if (k % COMPARE_EVERY == COMPARE_EVERY - 1)
                compare_stores(&w, p, what, k);
        }
        compare_stores(&w, p, what, EPOCH);
        ways_close(&w);
    }
    free(g);
    return direct_ok;
}

/* Payloads computed from the old and the new state by commands that take
 * the direct path (those of runtime_scenarios.h that compute one run a
 * policy), a list with a bound, an optional field, a delete. */
/* clang-format off */
static const char payloads_spec[] =
    "spec: 1\n"
    "domain: payloads\n"
    "types:\n"
    "  Small: {type: int, min: 0, max: 100}\n"
    "  Note: {fields: {seq: int, text: {type: string, default: none}}}\n"
    "aggregates:\n"
    "  Pad:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      n: Small\n"
    "      notes: {list: Note, max_items: 3}\n"
    "      tag: {type: string, optional: true}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {id: string, n: int}\n"
    "        set: {n: arg.n}\n"
    "        emits: {event: Made, payload: {id: arg.id, n: n, twice: n + arg.n}}\n"
    "      Bump:\n"
    "        params: {id: string, by: int}\n"
    "        set: {n: n + arg.by}\n"
    "        emits: {event: Bumped, payload: {id: arg.id, was: old.n, now: n, notes: len(notes)}}\n"
    "      Jot:\n"
    "        params: {id: string, text: string}\n"
    "        append: {notes: {seq: len(notes) + 1, text: arg.text}}\n"
    "        set: {tag: arg.text}\n"
    "        emits: {event: Jotted, payload: {id: arg.id, count: len(notes), before: len(old.notes), tag: tag}}\n"
    "      Drop:\n"
    "        deletes: true\n"
    "        params: {id: string}\n"
    "        emits: {event: Dropped, payload: {id: arg.id, n: n, notes: len(notes)}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Pad.Make: {id: \"p-${n}\", n: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static plan *bundled(const char *path)
{
    diag_list d = {0};
    doc *dc = NULL;
    plan *p = NULL;
    assert_int_equal(load_file(path, &dc, &d), LOAD_OK); /* from the source tree */
    assert_int_equal(plan_compile(dc, &d, &p), 0);
    diag_list_free(&d);
    return p;
}

static void test_the_direct_path_does_what_a_transaction_does(void **state)
{
    (void)state;
    static const struct {
        const char *name, *yaml;
    } specs[] = {
        {"pizzas", pizzas_spec},         {"banking", banking_spec},
        {"library", library_spec},       {"misc", misc_spec},
        {"boxes", boxes_spec},           {"changed", changed_spec},
        {"creates", creates_spec},       {"passed", passed_spec},
        {"audit", audit_spec},           {"chain", chain_spec},
        {"tagging", tagging_spec},       {"shop", shop_spec},
        {"documents", documents_spec},   {"values", values_spec},
        {"lending", lending_spec},       {"names", names_spec},
        {"query_shop", query_shop_spec}, {"scan", scan_spec},
        {"payloads", payloads_spec},     {"specs/pizzas.yaml", NULL},
        {"specs/banking.yaml", NULL},
    };
    int direct_total = 0, refused_total = 0;
    for (size_t i = 0; i < COUNT(specs); i++) {
        plan *p = specs[i].yaml ? fx_compile(specs[i].yaml) : bundled(specs[i].name);
        int refused = 0;
        int direct = drive(p, specs[i].name, 0x9e3779b97f4a7c15ULL + i, &refused);
        direct_total += direct;
        refused_total += refused;
        plan_free(p);
    }
    /* the streams took the direct path, and refused, many times */
    assert_true(direct_total > 10000);
    assert_true(refused_total > 20000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_direct_path_does_what_a_transaction_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
