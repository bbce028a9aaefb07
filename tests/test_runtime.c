/* test_runtime.c: the runtime's behaviour (DESIGN section 2) on the memory
 * store, as the table of runtime_scenarios.h that every store passes; and
 * what only this file tests: a store that fails its save or commit (an
 * error, not a refusal), a store that logs the records the runtime hints
 * before it loads them, the registry and the null target, and that the
 * arguments a caller marks as checked are not checked again. */
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
#include <stdlib.h>
#include <string.h>

#include "runtime.h"
#include "runtime_scenarios.h"
#include "store_memory.h"

static const target_spec memory_ts = {.name = "memory", .label = "memory"};

/* ---- store failures ---- */

/* A store that wraps the memory store and fails the save or the commit. */
typedef struct failing_store {
    store base;
    store *inner;
    bool fail_save, fail_commit;
    int rollbacks;
} failing_store;

static int fs_begin(store *s)
{
    return ((failing_store *)s)->inner->ops->begin(((failing_store *)s)->inner);
}

static int fs_load(store *s, const aggregate *agg, const value *key, value *out)
{
    store *in = ((failing_store *)s)->inner;
    return in->ops->load(in, agg, key, out);
}

static int fs_save(store *s, const aggregate *agg, const value *key, const value *st, bool created)
{
    failing_store *fs = (failing_store *)s;
    if (fs->fail_save) {
        snprintf(s->error, sizeof s->error, "disk full");
        return -1;
    }
    return fs->inner->ops->save(fs->inner, agg, key, st, created);
}

static int fs_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                           const value *payload)
{
    store *in = ((failing_store *)s)->inner;
    return in->ops->append_event(in, ev, agg, key, payload);
}

static int fs_commit(store *s)
{
    failing_store *fs = (failing_store *)s;
    if (fs->fail_commit) {
        snprintf(s->error, sizeof s->error, "lost the connection");
        return -1;
    }
    return fs->inner->ops->commit(fs->inner);
}

static int fs_rollback(store *s)
{
    failing_store *fs = (failing_store *)s;
    fs->rollbacks++;
    return fs->inner->ops->rollback(fs->inner);
}

static int fs_count(store *s, uint64_t *aggs, uint64_t *events)
{
    store *in = ((failing_store *)s)->inner;
    return in->ops->count(in, aggs, events);
}

static const store_ops failing_ops = {.begin = fs_begin,
                                      .load = fs_load,
                                      .save = fs_save,
                                      .append_event = fs_append_event,
                                      .commit = fs_commit,
                                      .rollback = fs_rollback,
                                      .count = fs_count};

static void test_store_error_is_an_error_not_a_refusal(void **state)
{
    plan *p = fx_compile(pizzas_spec);
    failing_store fs = {.base.ops = &failing_ops};
    assert_int_equal(memory_store_new(p, &fs.inner), 0);
    runtime *rt;
    assert_int_equal(runtime_new(p, &fs.base, &rt), 0);

    const command *create = plan_find_verb(p, "Order.CreatePizza");
    value pizza_items[2] = {{.kind = VAL_INT, .u.i = 1}, {.kind = VAL_ENUM, .u.e = 0}};
    value items[2] = {{.kind = VAL_STRING, .len = 1, .u.s = "a"},
                      {.kind = VAL_STRUCT, .len = 2, .u.items = pizza_items}};
    value args = {.kind = VAL_STRUCT, .len = 2, .u.items = items};

    fs.fail_save = true;
    assert_int_equal(runtime_dispatch(rt, create, &args), RUNTIME_ERROR);
    assert_string_equal(runtime_message(rt), "Order.CreatePizza failed: disk full");
    assert_int_equal(fs.rollbacks, 1);

    fs.fail_save = false;
    fs.fail_commit = true;
    assert_int_equal(runtime_dispatch(rt, create, &args), RUNTIME_ERROR);
    assert_string_equal(runtime_message(rt), "Order.CreatePizza failed: lost the connection");
    assert_int_equal(fs.rollbacks, 2);

    uint64_t aggs[1], events[4];
    assert_int_equal(fs_count(&fs.base, aggs, events), 0);
    assert_int_equal(aggs[0], 0);
    assert_int_equal(events[0], 0);

    fs.fail_commit = false;
    assert_int_equal(runtime_dispatch(rt, create, &args), RUNTIME_OK);
    assert_string_equal(runtime_message(rt), "");
    assert_int_equal(runtime_dispatch(rt, create, &args), RUNTIME_REFUSED);
    assert_string_equal(runtime_message(rt), "Order.CreatePizza refused: Order 'a' already exists");

    runtime_free(rt);
    memory_store_free(fs.inner);
    plan_free(p);
}

/* A store that wraps the memory store and logs the prefetch hints. */
typedef struct hint_store {
    failing_store fs; /* first: the fs_ calls delegate to the memory store */
    char log[512];
} hint_store;

static int hs_prefetch(store *s, const aggregate *agg, const value *key)
{
    hint_store *h = (hint_store *)s;
    size_t n = strlen(h->log);
    snprintf(h->log + n, sizeof h->log - n, "%s %.*s; ", agg->name, (int)key->len, key->u.s);
    return 0;
}

static int hs_prefetch_via(store *s, const aggregate *agg, const aggregate *from,
                           const value *from_key, int from_field)
{
    hint_store *h = (hint_store *)s;
    size_t n = strlen(h->log);
    snprintf(h->log + n, sizeof h->log - n, "%s by %s %.*s.%s; ", agg->name, from->name,
             (int)from_key->len, from_key->u.s, from->state->fields[from_field].name);
    return 0;
}

static const store_ops hinted_ops = {.begin = fs_begin,
                                     .load = fs_load,
                                     .save = fs_save,
                                     .append_event = fs_append_event,
                                     .commit = fs_commit,
                                     .rollback = fs_rollback,
                                     .count = fs_count,
                                     .prefetch = hs_prefetch,
                                     .prefetch_via = hs_prefetch_via};

/* clang-format off */
static const char hints_spec[] =
    "spec: 1\n"
    "domain: hints\n"
    "aggregates:\n"
    "  Member:\n"
    "    identity: card\n"
    "    fields: {card: string, n: {type: int, default: 0}}\n"
    "    commands:\n"
    "      Join: {creates: true, params: {card: string}}\n"
    "      Bump: {params: {card: string}, set: {n: n + 1}}\n"
    "  Copy:\n"
    "    identity: barcode\n"
    "    fields: {barcode: string, holder: {type: string, default: ''}}\n"
    "    commands:\n"
    "      Acquire: {creates: true, params: {barcode: string, card: string},\n"
    "                set: {holder: arg.card}, emits: {event: Acquired, payload: {card: holder}}}\n"
    "      Poke: {params: {barcode: string, card: string}, emits: Poked}\n"
    "      Mix: {params: {barcode: string, card: string},\n"
    "            emits: {event: Mixed, payload: {card: arg.card, other: holder}}}\n"
    "      Drop: {params: {barcode: string}, emits: {event: Dropped, payload: {card: holder}}}\n"
    "      Take: {params: {barcode: string}, set: {holder: \"''\"},\n"
    "             emits: {event: Taken, payload: {card: old.holder}}}\n"
    "      Give: {params: {barcode: string, card: string}, set: {holder: arg.card},\n"
    "             emits: {event: Given, payload: {card: holder}}}\n"
    "policies:\n"
    "  - {when: Acquired, run: Member.Bump, args: {card: event.card}}\n"
    "  - {when: Poked, run: Member.Bump, args: {card: event.card}}\n"
    "  - {when: Mixed, run: Member.Bump, args: {card: event.card}}\n"
    "  - {when: Mixed, run: Member.Bump, args: {card: event.other}}\n"
    "  - {when: Dropped, run: Member.Bump, args: {card: event.card}}\n"
    "  - {when: Taken, run: Member.Bump, args: {card: event.card}}\n"
    "  - {when: Given, run: Member.Bump, args: {card: event.card}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Member.Join: {card: \"m-${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

/* The hints one dispatch of verb gave, with string arguments a and b. */
static const char *hints_of(runtime *rt, hint_store *h, const plan *p, const char *verb,
                            const char *a, const char *b)
{
    const command *cmd = plan_find_verb(p, verb);
    assert_non_null(cmd);
    value items[2] = {{.kind = VAL_STRING, .len = (uint32_t)strlen(a), .u.s = a},
                      {.kind = VAL_STRING, .len = b ? (uint32_t)strlen(b) : 0, .u.s = b}};
    value args = {.kind = VAL_STRUCT, .len = (uint32_t)cmd->params->nfields, .u.items = items};
    h->log[0] = '\0';
    if (runtime_dispatch(rt, cmd, &args) != RUNTIME_OK)
        fail_msg("%s: %s", verb, runtime_message(rt));
    return h->log;
}

static void test_policy_keys_known_before_the_command_are_hinted(void **state)
{
    plan *p = fx_compile(hints_spec);
    hint_store h = {.fs.base.ops = &hinted_ops};
    assert_int_equal(memory_store_new(p, &h.fs.inner), 0);
    runtime *rt;
    assert_int_equal(runtime_new(p, &h.fs.base, &rt), 0);
    assert_string_equal(hints_of(rt, &h, p, "Member.Join", "m-1", NULL), "Member m-1; ");
    /* each command hints its own record as it runs, a policy's too (the
     * last hints); a created record is not stored before, so its fields
     * give no key */
    assert_string_equal(hints_of(rt, &h, p, "Copy.Acquire", "c-1", "m-1"),
                        "Copy c-1; Member m-1; ");
    /* the default payload, and arg.x, are the arguments */
    assert_string_equal(hints_of(rt, &h, p, "Copy.Poke", "c-1", "m-1"),
                        "Copy c-1; Member m-1; Member m-1; ");
    /* a stored field the command does not set, bare or as old.x */
    assert_string_equal(
        hints_of(rt, &h, p, "Copy.Mix", "c-1", "m-1"),
        "Copy c-1; Member m-1; Member by Copy c-1.holder; Member m-1; Member m-1; ");
    assert_string_equal(hints_of(rt, &h, p, "Copy.Drop", "c-1", NULL),
                        "Copy c-1; Member by Copy c-1.holder; Member m-1; ");
    assert_string_equal(hints_of(rt, &h, p, "Copy.Take", "c-1", NULL),
                        "Copy c-1; Member by Copy c-1.holder; Member m-1; ");
    /* a field the command sets is known only when the policy runs */
    assert_string_equal(hints_of(rt, &h, p, "Copy.Give", "c-1", "m-1"), "Copy c-1; Member m-1; ");
    runtime_free(rt);
    memory_store_free(h.fs.inner);
    plan_free(p);
}

/* The commands that write only their own record and whose event runs no
 * policy take the memory store's direct path, where the memory target's
 * figures come from; the others, and every command on a store without the
 * path, a transaction. */
/* The direct path leaves out the ensures that the command's effects make
 * true, and only those: Skim's looks like Debit's but its effect takes one
 * more (runtime_scenarios.h: every store refuses it). */
static void test_ensures_the_effects_make_true_are_not_evaluated(void **state)
{
    (void)state;
    plan *p = fx_compile(banking_spec);
    store *s;
    assert_int_equal(memory_store_new(p, &s), 0);
    runtime *rt;
    assert_int_equal(runtime_new(p, s, &rt), 0);
    const command *debit = plan_find_verb(p, "Account.Debit"),
                  *skim = plan_find_verb(p, "Account.Skim");
    assert_int_equal(debit->nensures, 2);
    assert_int_equal(runtime_direct_ensures(rt, debit), 0);
    assert_int_equal(skim->nensures, 1);
    assert_int_equal(runtime_direct_ensures(rt, skim), 1);
    runtime_free(rt);
    memory_store_free(s);
    plan_free(p);
}

static void test_the_direct_path_takes_the_commands_that_fit(void **state)
{
    plan *p = fx_compile(hints_spec);
    store *s;
    assert_int_equal(memory_store_new(p, &s), 0);
    runtime *rt;
    assert_int_equal(runtime_new(p, s, &rt), 0);
    assert_true(runtime_is_direct(rt, plan_find_verb(p, "Member.Join")));
    assert_true(runtime_is_direct(rt, plan_find_verb(p, "Member.Bump")));
    static const char *const with_policies[] = {"Copy.Acquire", "Copy.Poke", "Copy.Mix",
                                                "Copy.Drop",    "Copy.Take", "Copy.Give"};
    for (size_t i = 0; i < sizeof with_policies / sizeof *with_policies; i++)
        assert_false(runtime_is_direct(rt, plan_find_verb(p, with_policies[i])));
    runtime_free(rt);
    /* the hinting store in front of it has no direct path */
    hint_store h = {.fs.base.ops = &hinted_ops, .fs.inner = s};
    assert_int_equal(runtime_new(p, &h.fs.base, &rt), 0);
    assert_false(runtime_is_direct(rt, plan_find_verb(p, "Member.Join")));
    runtime_free(rt);
    memory_store_free(s);
    plan_free(p);
    /* every command of the bundled specs */
    static const char *const bundled[] = {"specs/pizzas.yaml", "specs/banking.yaml"};
    for (size_t b = 0; b < 2; b++) {
        diag_list d = {0};
        doc *dc = NULL;
        p = NULL;
        assert_int_equal(load_file(bundled[b], &dc, &d), LOAD_OK); /* from the source tree */
        assert_int_equal(plan_compile(dc, &d, &p), 0);
        diag_list_free(&d);
        assert_int_equal(memory_store_new(p, &s), 0);
        assert_int_equal(runtime_new(p, s, &rt), 0);
        for (size_t c = 0; c < p->ncommands; c++)
            assert_true(runtime_is_direct(rt, p->commands[c]));
        const command *debit = plan_find_verb(p, "Account.Debit");
        if (debit) { /* its two ensures say what its effects did */
            assert_int_equal(debit->nensures, 2);
            assert_int_equal(runtime_direct_ensures(rt, debit), 0);
        }
        runtime_free(rt);
        memory_store_free(s);
        plan_free(p);
    }
}

/* ---- expressions that build values: if() and string + in `set` ---- */

/* clang-format off */
static const char labels_spec[] =
    "spec: 1\n"
    "domain: labels\n"
    "aggregates:\n"
    "  Label:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      text: {type: string, default: '', max_length: 8}\n"
    "      n: {type: int, default: 0}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: string}}\n"
    "      Add:\n"
    "        params: {id: string, part: string, by: int}\n"
    "        set:\n"
    "          text: \"if(text == '', arg.part, text + '-' + arg.part)\"\n"
    "          n: if(arg.by != 0, 100 / arg.by, n)\n"
    "workload:\n"
    "  cycle:\n"
    "    - Label.Make: {id: \"l-${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

static void test_if_and_string_plus_in_set(void **state)
{
    fx *f = fx_open(labels_spec, &memory_ts);
    fx_ok(f, "Label.Make", "{id: l-1}");
    fx_ok(f, "Label.Add", "{id: l-1, part: ab, by: 0}"); /* 100 / 0 is not evaluated */
    value rec;
    assert_true(fx_load(f, "Label", "l-1", &rec));
    fx_assert_cstr(fx_get(f, "Label", &rec, "text"), "ab");
    assert_int_equal(fx_int(f, "Label", &rec, "n"), 0);
    fx_ok(f, "Label.Add", "{id: l-1, part: cd, by: 4}");
    /* the store keeps its own copy of the scratch string */
    fx_ok(f, "Label.Make", "{id: l-2}");
    assert_true(fx_load(f, "Label", "l-1", &rec));
    fx_assert_cstr(fx_get(f, "Label", &rec, "text"), "ab-cd");
    assert_int_equal(fx_int(f, "Label", &rec, "n"), 25);
    /* a concatenation is checked against the field's constraints */
    fx_refused(f, "Label.Add", "{id: l-1, part: efg, by: 1}",
               "Label.Add refused: text: 9 character(s), more than the maximum 8");
    assert_true(fx_load(f, "Label", "l-1", &rec));
    fx_assert_cstr(fx_get(f, "Label", &rec, "text"), "ab-cd");
    fx_close(f);
}

/* ---- the registry and the null target ---- */

static void test_registry_lists_memory_and_null(void **state)
{
    size_t n;
    const target_driver *const *all = target_all(&n);
    assert_true(n >= 2);
    assert_string_equal(all[0]->name, "memory");
    assert_string_equal(all[1]->name, "null");
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(all[i]->version, TARGET_DRIVER_VERSION);
        assert_ptr_equal(target_find(all[i]->name), all[i]);
        assert_non_null(all[i]->about);
    }
    assert_null(target_find("nosuch"));
    char why[128];
    assert_int_equal(target_available(target_find("memory"), NULL, why, sizeof why), 0);
    assert_int_equal(target_available(target_find("null"), NULL, why, sizeof why), 0);
}

static void test_null_target_accepts_everything_and_cannot_count(void **state)
{
    plan *p = fx_compile(pizzas_spec);
    const target_driver *drv = target_find("null");
    target *t;
    char err[128];
    assert_int_equal(target_open(drv, p, &p->work.targets[0], 1, &t, err, sizeof err), TARGET_OK);
    value args = {.kind = VAL_STRUCT}; /* not even well-formed: null does not look */
    for (int i = 0; i < 3; i++)
        assert_int_equal(target_dispatch(t, plan_find_verb(p, "Order.Purchase"), &args), TARGET_OK);
    uint64_t aggs[1], events[4];
    assert_int_equal(target_count(t, aggs, events), TARGET_UNSUPPORTED);
    assert_int_equal(target_probe(t), TARGET_UNSUPPORTED);
    target_close(t);
    plan_free(p);
}

/* The contract of the mask (runtime_dispatch_checked): a marked argument is
 * not checked again, the others are, the first failing one in field order
 * named; no mask (bench serve, the process protocol) checks them all. */
static void test_marked_arguments_are_not_checked_again(void **state)
{
    fx *f = fx_open(boxes_spec, &memory_ts);
    const command *make = fx_verb(f, "Box.Make");
    value args = fx_args(f, make, "{id: c-1, qty: 0, note: toolong}");
    assert_int_equal(target_dispatch(f->t, make, &args), TARGET_REFUSED);
    assert_string_equal(f->t->message, "Box.Make refused: qty: 0 is less than the minimum 1");
    assert_int_equal(target_dispatch_checked(f->t, make, &args, 0), TARGET_REFUSED);
    assert_string_equal(f->t->message, "Box.Make refused: qty: 0 is less than the minimum 1");
    assert_int_equal(target_dispatch_checked(f->t, make, &args, 1u << 1), TARGET_REFUSED);
    assert_string_equal(f->t->message,
                        "Box.Make refused: note: 7 character(s), more than the maximum 4");
    assert_int_equal(fx_count(f, "Box"), 0);
    /* the caller vouched for both: taken as given */
    assert_int_equal(target_dispatch_checked(f->t, make, &args, 1u << 1 | 1u << 2), TARGET_OK);
    assert_int_equal(fx_count(f, "Box"), 1);
    fx_close(f);
}

static void test_target_fail_sets_the_message_and_returns_the_status(void **state)
{
    target t = {0};
    assert_int_equal(target_fail(&t, TARGET_ERROR, "lost %d of %s", 3, "them"), TARGET_ERROR);
    assert_string_equal(t.message, "lost 3 of them");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_error_is_an_error_not_a_refusal),
        cmocka_unit_test(test_policy_keys_known_before_the_command_are_hinted),
        cmocka_unit_test(test_the_direct_path_takes_the_commands_that_fit),
        cmocka_unit_test(test_ensures_the_effects_make_true_are_not_evaluated),
        cmocka_unit_test(test_if_and_string_plus_in_set),
        cmocka_unit_test(test_registry_lists_memory_and_null),
        cmocka_unit_test(test_null_target_accepts_everything_and_cannot_count),
        cmocka_unit_test(test_target_fail_sets_the_message_and_returns_the_status),
        cmocka_unit_test(test_marked_arguments_are_not_checked_again),
    };
    int failed = runtime_scenarios_run(&memory_ts);
    return failed + cmocka_run_group_tests_name("runtime internals", tests, NULL, NULL);
}
