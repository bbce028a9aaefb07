/* test_compile.c: the compiler, from YAML text through the schema check to
 * the plan: the bundled domains as the compiler understands them, totals,
 * templates, defaults, target options and the JSON plan (the workload
 * warnings are lint's: test_lint.c). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonschema.h"
#include "load.h"
#include "plan.h"
#include "spec.h"
#include "target.h"

/* ---- helpers ---- */

typedef struct compiled {
    doc *dc; /* the caller's until plan_compile succeeds */
    plan *p; /* NULL when anything failed */
    diag_list d;
    int rc; /* 0, or -1 when loading, the schema or the compiler refused */
} compiled;

static compiled compile_named(const char *name, const char *yaml, size_t len)
{
    compiled c = {0};
    if (load_string(name, yaml, len, &c.dc, &c.d) != LOAD_OK) {
        c.rc = -1;
        return c;
    }
    if (!jschema_validate(spec_schema(), c.dc->root, &c.d)) {
        c.rc = -1;
        return c;
    }
    c.rc = plan_compile(c.dc, &c.d, &c.p);
    if (c.rc == 0)
        c.dc = NULL; /* the plan owns it now */
    return c;
}

static compiled compile_text(const char *yaml)
{
    return compile_named("t.yaml", yaml, strlen(yaml));
}

/* Compiles the file at path with suffix appended (more workload keys). */
static compiled compile_file_with(const char *path, const char *suffix)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s (tests run from the repository root)", path);
    size_t cap = 1 << 16, len = 0, n;
    char *buf = malloc(cap);
    while ((n = fread(buf + len, 1, cap - len, f)) > 0)
        if ((len += n) == cap)
            buf = realloc(buf, cap *= 2);
    fclose(f);
    size_t extra = strlen(suffix);
    buf = realloc(buf, len + extra + 1);
    memcpy(buf + len, suffix, extra + 1);
    compiled c = compile_named(path, buf, len + extra);
    free(buf);
    return c;
}

static compiled compile_file(const char *path)
{
    return compile_file_with(path, "");
}

static void release(compiled *c)
{
    if (c->p)
        plan_free(c->p);
    else
        doc_free(c->dc);
    diag_list_free(&c->d);
}

/* Fails with every diagnostic when c did not compile cleanly. */
static void assert_compiled(const compiled *c)
{
    if (c->rc == 0 && c->p && c->d.errors == 0)
        return;
    for (size_t i = 0; i < c->d.count; i++)
        print_error("%d:%d: %s\n", c->d.items[i].line, c->d.items[i].col, c->d.items[i].message);
    fail_msg("the spec did not compile");
}

static const aggregate *agg_named(const plan *p, const char *name)
{
    for (size_t i = 0; i < p->naggs; i++)
        if (!strcmp(p->aggs[i].name, name))
            return &p->aggs[i];
    fail_msg("no aggregate %s", name);
    return NULL;
}

static const command *verb(const plan *p, const char *v)
{
    const command *cmd = plan_find_verb(p, v);
    if (!cmd)
        fail_msg("no command %s", v);
    return cmd;
}

static const event_def *event_named(const plan *p, const char *name)
{
    for (size_t i = 0; i < p->nevents; i++)
        if (!strcmp(p->events[i].name, name))
            return &p->events[i];
    fail_msg("no event %s", name);
    return NULL;
}

static size_t event_index(const plan *p, const char *name)
{
    return event_named(p, name)->index;
}

static void assert_fields(const ty *t, const char *const *names, size_t n)
{
    assert_int_equal(t->kind, TY_STRUCT);
    assert_int_equal(t->nfields, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(t->fields[i].name, names[i]);
}

static uint64_t warm_plus_iter(const plan *p)
{
    return (uint64_t)(p->work.warmup + p->work.iterations);
}

/* What a run leaves with the given prefill, warmup and iterations (flags may
 * override the spec's): plan_expected into the test's own memory. */
typedef struct run_totals {
    size_t commands_per_cycle;
    uint64_t commands_timed;
    uint64_t aggregates[16], events[64];
} run_totals;

static run_totals totals_for(const plan *p, int64_t prefill, int64_t warmup, int64_t iterations)
{
    assert_true(p->naggs <= 16 && p->nevents <= 64);
    size_t per_cycle = p->totals[0].commands_per_cycle;
    run_totals t = {.commands_per_cycle = per_cycle,
                    .commands_timed = (uint64_t)iterations * per_cycle};
    plan_expected(p, (uint64_t)(prefill + warmup + iterations), t.aggregates, t.events);
    return t;
}

/* A small shop domain the tests below extend with a workload. */
#define SHOP_DOMAIN                                                                                \
    "spec: 1\n"                                                                                    \
    "domain: shop\n"                                                                               \
    "types:\n"                                                                                     \
    "  Person: {fields: {given: string, family: string}}\n"                                        \
    "aggregates:\n"                                                                                \
    "  Cart:\n"                                                                                    \
    "    identity: id\n"                                                                           \
    "    fields:\n"                                                                                \
    "      id: string\n"                                                                           \
    "      seq: {type: int, default: 0}\n"                                                         \
    "      owner: {type: Person, optional: true}\n"                                                \
    "    commands:\n"                                                                              \
    "      Open:\n"                                                                                \
    "        creates: true\n"                                                                      \
    "        params:\n"                                                                            \
    "          id: string\n"                                                                       \
    "          seq: int\n"                                                                         \
    "          owner: Person\n"                                                                    \
    "          tags: {list: string}\n"                                                             \
    "          note: {type: string, optional: true}\n"                                             \
    "          qty: {type: int, min: 1, default: 5}\n"                                             \
    "        set: {seq: arg.seq, owner: arg.owner}\n"

/* ---- the bundled domains ---- */

static void test_compile_pizzas_domain(void **state)
{
    compiled c = compile_file("specs/pizzas.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    assert_string_equal(p->domain, "pizzas");
    assert_string_equal(p->about, "Order a large pizza, top it twice, buy it.");
    assert_int_equal(p->ntypes, 6);
    static const char *const type_names[] = {"Cents",       "Size",          "Pizza",
                                             "ToppingName", "ToppingAmount", "Topping"};
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(p->types[i]->name, type_names[i]);
    assert_int_equal(p->types[0]->kind, TY_INT);
    assert_true(p->types[0]->has_min && p->types[0]->min == 0 && !p->types[0]->has_max);

    assert_int_equal(p->naggs, 1);
    const aggregate *order = agg_named(p, "Order");
    static const char *const fields[] = {"name", "pizza", "toppings", "customer_name", "status"};
    assert_fields(order->state, fields, 5);
    assert_int_equal(order->identity, 0);
    assert_true(order->state->fields[0].type->has_min_len);
    assert_int_equal(order->state->fields[2].type->kind, TY_LIST);
    assert_string_equal(order->state->fields[2].type->elem->name, "Topping");
    assert_true(order->state->fields[3].optional);
    assert_int_equal(order->state->fields[4].type->kind, TY_ENUM);

    assert_int_equal(p->ncommands, 3);
    assert_int_equal(order->ncommands, 3);
    static const char *const verbs[] = {"Order.CreatePizza", "Order.AddTopping", "Order.Purchase"};
    static const size_t guards[] = {0, 2, 4}, effects[] = {1, 1, 2};
    for (size_t i = 0; i < 3; i++) {
        const command *cmd = p->commands[i];
        assert_string_equal(cmd->verb, verbs[i]);
        assert_int_equal(cmd->index, i);
        assert_ptr_equal(cmd->agg, order);
        assert_int_equal(cmd->creates, i == 0);
        assert_int_equal(cmd->identity_param, 0);
        assert_int_equal(cmd->nguards, guards[i]);
        assert_int_equal(cmd->neffects, effects[i]);
        assert_int_equal(cmd->nensures, 0);
        assert_int_equal(cmd->nreads, 0);
        assert_null(cmd->payload); /* emits: Name carries the arguments */
    }
    const command *create = verb(p, "Order.CreatePizza");
    assert_int_equal(create->effects[0].kind, EFFECT_SET);
    assert_int_equal(create->effects[0].field, 1);
    const command *add = verb(p, "Order.AddTopping");
    assert_int_equal(add->effects[0].kind, EFFECT_APPEND);
    assert_int_equal(add->effects[0].field, 2);
    assert_null(add->effects[0].value); /* a Topping built from its two arguments */
    assert_non_null(add->effects[0].build);
    assert_string_equal(add->guards[1].refuse, "at most 10 toppings");
    const command *buy = verb(p, "Order.Purchase");
    assert_int_equal(buy->effects[0].field, 3);
    assert_int_equal(buy->effects[1].field, 4);

    assert_int_equal(p->nevents, 3);
    static const char *const events[] = {"PizzaCreated", "ToppingAdded", "PizzaPurchased"};
    for (size_t i = 0; i < 3; i++) {
        assert_string_equal(p->events[i].name, events[i]);
        assert_int_equal(p->events[i].index, i);
        assert_ptr_equal(p->commands[i]->event, &p->events[i]);
        assert_ptr_equal(p->events[i].payload, p->commands[i]->params);
        assert_int_equal(p->events[i].npolicies, 0);
    }
    static const char *const created[] = {"name", "pizza"};
    assert_fields(p->events[0].payload, created, 2);
    assert_int_equal(p->npolicies, 0);
    release(&c);
}

static void test_compile_pizzas_workload(void **state)
{
    compiled c = compile_file("specs/pizzas.yaml");
    assert_compiled(&c);
    const workload *w = &c.p->work;
    assert_int_equal(w->nsetup, 0);
    assert_int_equal(w->flows[0].nsteps, 4);
    static const char *const verbs[] = {"Order.CreatePizza", "Order.AddTopping", "Order.AddTopping",
                                        "Order.Purchase"};
    for (size_t i = 0; i < 4; i++) {
        assert_string_equal(w->flows[0].steps[i].cmd->verb, verbs[i]);
        assert_false(w->flows[0].steps[i].expect_refused);
        assert_int_equal(w->flows[0].steps[i].ntmpls, 1);
    }
    assert_int_equal(w->warmup, 200);
    assert_int_equal(w->iterations, 1000);
    assert_int_equal(w->runs, 3);
    assert_int_equal(w->nprefill, 1);
    assert_int_equal(w->prefill[0], 0);
    assert_int_equal(w->ntargets, 6);
    static const char *const labels[] = {"memory",       "sqlite",  "postgres",
                                         "postgres-rls", "process", "python"};
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(w->targets[i].label, labels[i]);
    assert_string_equal(w->targets[5].name, "process");
    const char *const *argv = target_opt_argv(&w->targets[5], "command");
    assert_string_equal(argv[0], "python3");
    assert_string_equal(argv[1], "specs/../examples/pizzas_runtime.py"); /* beside the spec */
    assert_null(argv[2]);
    assert_string_equal(w->targets[3].name, "postgres");
    assert_string_equal(target_opt_str(&w->targets[3], "fence"), "rls");
    assert_null(target_opt_str(&w->targets[2], "fence"));
    /* AddTopping takes the topping and its amount as two arguments, as the framework does */
    const value *add = &w->flows[0].steps[1].args;
    assert_int_equal(add->len, 3);
    assert_int_equal(add->u.items[1].kind, VAL_STRING);
    assert_memory_equal(add->u.items[1].u.s, "Basil", 5);
    assert_int_equal(add->u.items[2].kind, VAL_INT);
    assert_true(add->u.items[2].u.i == 3);
    /* an enum argument is its index */
    const value *pizza = &w->flows[0].steps[0].args.u.items[1];
    assert_int_equal(pizza->u.items[1].kind, VAL_ENUM);
    assert_int_equal(pizza->u.items[1].u.e, 1); /* large */
    release(&c);
}

static void test_compile_banking_domain(void **state)
{
    compiled c = compile_file("specs/banking.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    assert_int_equal(p->naggs, 2);
    const aggregate *customer = agg_named(p, "Customer"), *account = agg_named(p, "Account");
    assert_int_equal(customer->index, 0);
    assert_int_equal(account->index, 1);
    assert_string_equal(customer->state->fields[customer->identity].name, "reference");
    assert_string_equal(account->state->fields[account->identity].name, "number");
    assert_int_equal(account->state->nfields, 8);
    assert_int_equal(account->ncommands, 3);

    const command *open = verb(p, "Account.Open");
    assert_true(open->creates);
    assert_int_equal(open->nreads, 1);
    assert_string_equal(open->reads[0].alias, "owner");
    assert_ptr_equal(open->reads[0].agg, customer);
    assert_true(ty_compatible(expr_type(open->reads[0].key), &ty_string));
    assert_int_equal(open->nguards, 1);
    assert_int_equal(open->neffects, 4);

    const command *debit = verb(p, "Account.Debit");
    assert_int_equal(debit->nguards, 5);
    assert_int_equal(debit->nensures, 2);
    assert_int_equal(debit->neffects, 2);
    assert_int_equal(debit->effects[0].kind, EFFECT_SET);
    const effect *ledger = &debit->effects[1];
    assert_int_equal(ledger->kind, EFFECT_APPEND);
    assert_string_equal(account->state->fields[ledger->field].name, "ledger");
    assert_null(ledger->value);
    assert_non_null(ledger->build);
    for (size_t i = 0; i < 4; i++) /* sequence, amount, narrative, direction */
        assert_non_null(ledger->build[i]);
    assert_int_equal(verb(p, "Account.Credit")->nguards, 3);

    assert_int_equal(p->nevents, 4);
    static const char *const events[] = {"CustomerRegistered", "AccountOpened", "AccountCredited",
                                         "AccountDebited"};
    for (size_t i = 0; i < 4; i++)
        assert_string_equal(p->events[i].name, events[i]);
    static const char *const debited[] = {"number", "amount", "narrative"};
    const ty *pt = event_named(p, "AccountDebited")->payload;
    assert_fields(pt, debited, 3);
    assert_int_equal(pt->fields[0].type->kind, TY_STRING);
    assert_int_equal(pt->fields[1].type->kind, TY_STRUCT); /* money: {cents, currency} */
    assert_string_equal(pt->fields[1].type->name, "Money");
    assert_int_equal(pt->fields[2].type->kind, TY_STRING);
    static const char *const opened[] = {"number", "customer", "kind", "daily_limit"};
    assert_fields(event_named(p, "AccountOpened")->payload, opened, 4);
    assert_int_equal(event_named(p, "AccountOpened")->payload->fields[2].type->kind, TY_ENUM);

    assert_int_equal(p->work.nsetup, 1);
    const step *reg = &p->work.setup[0];
    assert_string_equal(reg->cmd->verb, "Customer.Register");
    assert_int_equal(reg->ntmpls, 0);
    const value *name = &reg->args.u.items[1];
    assert_int_equal(name->kind, VAL_STRUCT);
    assert_int_equal(name->u.items[1].len, 8);
    assert_memory_equal(name->u.items[1].u.s, "Lovelace", 8);
    release(&c);
}

static void test_compile_library_policies_are_wired(void **state)
{
    compiled c = compile_file("examples/library.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    assert_int_equal(p->npolicies, 2);
    const policy *lent = &p->policies[0], *returned = &p->policies[1];
    assert_string_equal(lent->on->name, "CopyLent");
    assert_ptr_equal(lent->run, verb(p, "Member.CountLoan"));
    assert_non_null(lent->args[0]); /* card: event.card */
    assert_string_equal(returned->on->name, "CopyReturned");
    assert_ptr_equal(returned->run, verb(p, "Member.CountReturn"));
    assert_non_null(returned->args[0]);
    assert_non_null(returned->args[1]);

    const event_def *ev = event_named(p, "CopyLent");
    assert_int_equal(ev->npolicies, 1);
    assert_ptr_equal(ev->policies[0], lent);
    assert_int_equal(event_named(p, "CopyReturned")->npolicies, 1);
    assert_int_equal(event_named(p, "LoanCounted")->npolicies, 0);

    /* a payload chosen with expressions takes their types */
    const command *ret = verb(p, "Copy.Return");
    assert_non_null(ret->payload);
    const ty *pt = event_named(p, "CopyReturned")->payload;
    static const char *const fields[] = {"barcode", "card", "days_late"};
    assert_fields(pt, fields, 3);
    assert_int_equal(pt->fields[0].type->kind, TY_STRING);
    assert_int_equal(pt->fields[1].type->kind, TY_STRING);
    assert_int_equal(pt->fields[2].type->kind, TY_INT);
    release(&c);
}

static void test_compile_inventory_reads_and_payload(void **state)
{
    compiled c = compile_file("examples/inventory.yaml");
    assert_compiled(&c);
    const command *place = verb(c.p, "Order.Place");
    assert_int_equal(place->nreads, 1);
    assert_string_equal(place->reads[0].alias, "item");
    assert_string_equal(place->reads[0].agg->name, "Product");
    static const char *const fields[] = {"order", "sku", "quantity"};
    assert_fields(event_named(c.p, "OrderPlaced")->payload, fields, 3);
    assert_int_equal(c.p->npolicies, 1);
    assert_ptr_equal(c.p->policies[0].run, verb(c.p, "Product.Reserve"));
    assert_int_equal(verb(c.p, "Product.Reserve")->nensures, 1);
    release(&c);
}

/* ---- policies over lists ---- */

static void test_compile_for_each_policy_takes_the_lists_element_as_item(void **state)
{
    compiled c = compile_file("examples/cart.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    assert_int_equal(p->npolicies, 1);
    const policy *po = &p->policies[0];
    assert_string_equal(po->on->name, "CheckedOut");
    assert_ptr_equal(po->run, verb(p, "Product.Reserve"));
    assert_non_null(po->for_each);
    assert_string_equal(expr_text(po->for_each), "event.lines");
    assert_int_equal(expr_type(po->for_each)->kind, TY_LIST);
    assert_ptr_equal(po->item, expr_type(po->for_each)->elem);
    assert_string_equal(po->item->name, "Line");
    assert_string_equal(expr_text(po->args[0]), "item.sku");
    assert_string_equal(expr_text(po->args[1]), "item.qty");
    /* Product.Reserve adds no record and emits nothing: once per item adds
       nothing, so the counts stay exact */
    assert_false(verb(p, "Cart.Checkout")->counts_unknown);
    assert_false(verb(p, "Cart.Add")->counts_unknown);
    assert_false(verb(p, "Product.Reserve")->counts_unknown);
    release(&c);

    c = compile_file("examples/library.yaml"); /* plain policies */
    assert_compiled(&c);
    for (size_t i = 0; i < c.p->npolicies; i++) {
        assert_null(c.p->policies[i].for_each);
        assert_null(c.p->policies[i].item);
    }
    for (size_t i = 0; i < c.p->ncommands; i++)
        assert_false(c.p->commands[i]->counts_unknown);
    release(&c);
}

/* Go -> Went -> (policy) Step -> Stepped -> (for_each) Do; Other's policy is plain. */
static const char relay_yaml[] =
    "spec: 1\n"
    "domain: relay\n"
    "aggregates:\n"
    "  R:\n"
    "    identity: id\n"
    "    fields: {id: string, ids: {list: string}}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: string}}\n"
    "      Go: {params: {id: string}, emits: Went}\n"
    "      Step:\n"
    "        params: {id: string}\n"
    "        emits: {event: Stepped, payload: {ids: ids}}\n"
    "      Do: {params: {id: string}, emits: Done}\n"
    "      Other: {params: {id: string}, emits: Othered}\n"
    "policies:\n"
    "  - {when: Went, run: R.Step, args: {id: event.id}}\n"
    "  - {when: Stepped, for_each: event.ids, run: R.Do, args: {id: item}}\n"
    "  - {when: Othered, run: R.Do, args: {id: event.id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - R.Make: {id: \"r-${n}\"}\n"
    "    - R.Go: {id: \"r-${n}\"}\n";

static void test_compile_counts_unknown_follows_policy_chains(void **state)
{
    compiled c = compile_text(relay_yaml);
    assert_compiled(&c);
    assert_true(verb(c.p, "R.Go")->counts_unknown); /* two policies away */
    assert_true(verb(c.p, "R.Step")->counts_unknown);
    assert_false(verb(c.p, "R.Do")->counts_unknown);
    assert_false(verb(c.p, "R.Other")->counts_unknown);
    assert_false(verb(c.p, "R.Make")->counts_unknown);
    assert_ptr_equal(c.p->policies[1].item, &ty_string); /* the scalar itself */
    release(&c);
}

static void test_compile_for_each_errors_are_at_the_expression(void **state)
{
    /* quoted with spaces before it: the column is the expression's */
    const char *from = "for_each: event.ids", *at = strstr(relay_yaml, from);
    assert_non_null(at);
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%.*sfor_each: \"  len(event.ids)\"%s", (int)(at - relay_yaml),
             relay_yaml, at + strlen(from));
    compiled c = compile_text(yaml);
    assert_int_equal(c.rc, -1);
    assert_int_equal(c.d.errors, 1);
    assert_string_equal(c.d.items[0].message, "for_each needs a list; 'len(event.ids)' is int");
    assert_int_equal(c.d.items[0].line, 17);
    assert_int_equal(c.d.items[0].col, 34); /* the quote at 31 */
    release(&c);
}

/* ---- totals ---- */

static void test_compile_totals_pizzas(void **state)
{
    compiled c = compile_file("specs/pizzas.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    uint64_t wi = warm_plus_iter(p);
    for (int64_t prefill = 0; prefill <= 100; prefill += 100) {
        run_totals t = totals_for(p, prefill, p->work.warmup, p->work.iterations);
        uint64_t cycles = wi + (uint64_t)prefill;
        assert_int_equal(t.commands_per_cycle, 4);
        assert_int_equal(t.commands_timed, 4000);
        assert_int_equal(t.aggregates[0], cycles);
        uint64_t events = 0;
        for (size_t i = 0; i < p->nevents; i++)
            events += t.events[i];
        assert_int_equal(events, 4 * cycles);
        assert_int_equal(t.events[event_index(p, "ToppingAdded")], 2 * cycles);
    }
    /* flags may override warmup and iterations: the totals follow */
    run_totals t = totals_for(p, 0, 0, 10);
    assert_int_equal(t.commands_timed, 40);
    assert_int_equal(t.aggregates[0], 10);
    assert_int_equal(t.events[event_index(p, "ToppingAdded")], 20);
    release(&c);
}

static void test_compile_totals_banking(void **state)
{
    compiled c = compile_file("specs/banking.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    for (int64_t prefill = 0; prefill <= 100; prefill += 100) {
        run_totals t = totals_for(p, prefill, p->work.warmup, p->work.iterations);
        uint64_t cycles = warm_plus_iter(p) + (uint64_t)prefill;
        assert_int_equal(t.aggregates[agg_named(p, "Customer")->index], 1);
        assert_int_equal(t.aggregates[agg_named(p, "Account")->index], cycles);
        uint64_t events = 0;
        for (size_t i = 0; i < p->nevents; i++)
            events += t.events[i];
        assert_int_equal(events, 1 + 4 * cycles);
        assert_int_equal(t.events[event_index(p, "CustomerRegistered")], 1);
        assert_int_equal(t.events[event_index(p, "AccountCredited")], 2 * cycles);
    }
    release(&c);
}

static void test_compile_totals_count_policy_commands(void **state)
{
    compiled c = compile_file("examples/library.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    for (int64_t prefill = 0; prefill <= 100; prefill += 100) {
        run_totals t = totals_for(p, prefill, p->work.warmup, p->work.iterations);
        uint64_t cycles = warm_plus_iter(p) + (uint64_t)prefill;
        assert_int_equal(t.commands_per_cycle, 3); /* policies are not steps */
        assert_int_equal(t.aggregates[agg_named(p, "Member")->index], 1);
        assert_int_equal(t.aggregates[agg_named(p, "Copy")->index], cycles);
        assert_int_equal(t.events[event_index(p, "MemberJoined")], 1);
        assert_int_equal(t.events[event_index(p, "CopyLent")], cycles);
        assert_int_equal(t.events[event_index(p, "LoanCounted")], cycles);   /* by a policy */
        assert_int_equal(t.events[event_index(p, "ReturnCounted")], cycles); /* by a policy */
    }
    release(&c);
}

static void test_compile_totals_skip_expected_refusals(void **state)
{
    compiled c = compile_file("examples/tickets.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    run_totals t = totals_for(p, 0, p->work.warmup, p->work.iterations);
    uint64_t cycles = warm_plus_iter(p);
    assert_int_equal(t.commands_per_cycle, 8); /* refusals are timed too */
    assert_int_equal(t.commands_timed, 8 * p->work.iterations);
    assert_int_equal(t.events[event_index(p, "TicketClosed")], cycles);
    assert_int_equal(t.events[event_index(p, "NoteAdded")], cycles);
    assert_true(p->work.flows[0].steps[6].expect_refused);
    assert_true(p->work.flows[0].steps[7].expect_refused);
    assert_false(p->work.flows[0].steps[5].expect_refused);
    release(&c);
}

static void test_compile_plan_expected_is_setup_plus_cycles(void **state)
{
    compiled c = compile_file("specs/pizzas.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    uint64_t aggs[4], events[4];
    assert_int_equal(p->naggs, 1);
    assert_int_equal(p->nevents, 3);
    /* no setup: nothing before the first cycle */
    plan_expected(p, 0, aggs, events);
    assert_int_equal(aggs[0], 0);
    for (size_t i = 0; i < p->nevents; i++)
        assert_int_equal(events[i], 0);
    /* one cycle: one Order, four events */
    plan_expected(p, 1, aggs, events);
    assert_int_equal(aggs[agg_named(p, "Order")->index], 1);
    assert_int_equal(events[event_index(p, "PizzaCreated")], 1);
    assert_int_equal(events[event_index(p, "ToppingAdded")], 2);
    assert_int_equal(events[event_index(p, "PizzaPurchased")], 1);
    /* the spec's own settings give the compiler's totals */
    plan_expected(p, warm_plus_iter(p), aggs, events);
    assert_int_equal(aggs[0], p->totals[0].aggregates[0]);
    for (size_t i = 0; i < p->nevents; i++)
        assert_int_equal(events[i], p->totals[0].events[i]);
    release(&c);
}

static void test_compile_plan_expected_counts_setup_once(void **state)
{
    compiled c = compile_file("specs/banking.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    uint64_t aggs[8], events[16];
    assert_true(p->naggs <= 8 && p->nevents <= 16);
    plan_expected(p, 0, aggs, events); /* setup only */
    assert_int_equal(aggs[agg_named(p, "Customer")->index], 1);
    assert_int_equal(aggs[agg_named(p, "Account")->index], 0);
    assert_int_equal(events[event_index(p, "CustomerRegistered")], 1);
    plan_expected(p, 3, aggs, events);
    assert_int_equal(aggs[agg_named(p, "Customer")->index], 1);
    assert_int_equal(aggs[agg_named(p, "Account")->index], 3);
    assert_int_equal(events[event_index(p, "AccountCredited")], 6);
    release(&c);
}

/* ---- templates ---- */

static void test_compile_template_parts_and_path(void **state)
{
    compiled c = compile_file("specs/pizzas.yaml");
    assert_compiled(&c);
    const step *create = &c.p->work.flows[0].steps[0];
    const tmpl *t = &create->tmpls[0];
    assert_int_equal(t->depth, 1);
    assert_int_equal(t->path[0], 0); /* the name parameter */
    assert_false(t->as_int);
    assert_int_equal(t->nparts, 2);
    assert_int_equal(t->parts[0].var, TMPL_TEXT);
    assert_int_equal(t->parts[0].len, 6);
    assert_memory_equal(t->parts[0].text, "pizza-", 6);
    assert_int_equal(t->parts[1].var, TMPL_N);
    assert_true(t->max_len >= 6 + 20); /* room for any int64 */
    assert_int_equal(t->at->line, create->at->line);
    /* the constant in place is what ${n} = 0 gives */
    const value *name = &create->args.u.items[0];
    assert_int_equal(name->len, 7);
    assert_memory_equal(name->u.s, "pizza-0", 7);
    release(&c);
}

static void test_compile_templates_at_depth_and_as_int(void **state)
{
    compiled c = compile_text(SHOP_DOMAIN "workload:\n"
                                          "  cycle:\n"
                                          "    - Cart.Open:\n"
                                          "        id: \"c-${n} (run ${run})\"\n"
                                          "        seq: \"${n}\"\n"
                                          "        owner: {given: \"g${run}\", family: Doe}\n"
                                          "        tags: [fixed, \"t-${n}\"]\n");
    assert_compiled(&c);
    const step *st = &c.p->work.flows[0].steps[0];
    assert_int_equal(st->ntmpls, 4);

    const tmpl *id = &st->tmpls[0];
    assert_int_equal(id->depth, 1);
    assert_int_equal(id->path[0], 0);
    assert_int_equal(id->nparts, 5);
    static const tmpl_var vars[] = {TMPL_TEXT, TMPL_N, TMPL_TEXT, TMPL_RUN, TMPL_TEXT};
    for (size_t i = 0; i < 5; i++)
        assert_int_equal(id->parts[i].var, vars[i]);
    assert_memory_equal(id->parts[2].text, " (run ", 6);
    assert_int_equal(st->args.u.items[0].len, strlen("c-0 (run 1)"));
    assert_memory_equal(st->args.u.items[0].u.s, "c-0 (run 1)", strlen("c-0 (run 1)"));

    const tmpl *seq = &st->tmpls[1];
    assert_true(seq->as_int);
    assert_int_equal(seq->nparts, 1);
    assert_int_equal(seq->parts[0].var, TMPL_N);
    assert_int_equal(st->args.u.items[1].kind, VAL_INT);
    assert_true(st->args.u.items[1].u.i == 0);

    const tmpl *given = &st->tmpls[2];
    assert_int_equal(given->depth, 2);
    assert_int_equal(given->path[0], 2); /* owner */
    assert_int_equal(given->path[1], 0); /* given */
    assert_false(given->as_int);

    const tmpl *tag = &st->tmpls[3];
    assert_int_equal(tag->depth, 2);
    assert_int_equal(tag->path[0], 3); /* tags */
    assert_int_equal(tag->path[1], 1); /* the second item */
    release(&c);
}

/* ---- defaults ---- */

static void test_compile_field_defaults(void **state)
{
    compiled c = compile_file("specs/banking.yaml");
    assert_compiled(&c);
    const ty *account = agg_named(c.p, "Account")->state;
    const field *balance = &account->fields[ty_field_index(account, "balance")];
    assert_true(balance->has_default);
    assert_int_equal(balance->def.kind, VAL_INT);
    assert_true(balance->def.u.i == 0);
    const field *status = &account->fields[ty_field_index(account, "status")];
    assert_true(status->has_default);
    assert_int_equal(status->def.kind, VAL_ENUM);
    assert_int_equal(status->def.u.e, 0); /* open */
    const field *kind = &account->fields[ty_field_index(account, "kind")];
    assert_false(kind->has_default);
    assert_false(kind->optional);
    const ty *customer = agg_named(c.p, "Customer")->state;
    const field *standing = &customer->fields[ty_field_index(customer, "standing")];
    assert_true(standing->has_default);
    assert_int_equal(standing->def.u.e, 0); /* good */
    release(&c);

    compiled lib = compile_file("examples/library.yaml");
    assert_compiled(&lib);
    const ty *copy = agg_named(lib.p, "Copy")->state;
    const field *borrower = &copy->fields[ty_field_index(copy, "borrower")];
    assert_true(borrower->has_default);
    assert_int_equal(borrower->def.kind, VAL_STRING);
    assert_int_equal(borrower->def.len, 0);
    release(&lib);
}

static void test_compile_arguments_left_out_take_defaults(void **state)
{
    compiled c = compile_text(SHOP_DOMAIN "workload:\n"
                                          "  cycle:\n"
                                          "    - Cart.Open: {id: \"c-${n}\", seq: 1, owner: "
                                          "{given: Ada, family: Lovelace}}\n");
    assert_compiled(&c);
    const value *args = &c.p->work.flows[0].steps[0].args;
    assert_int_equal(args->kind, VAL_STRUCT);
    assert_int_equal(args->len, 6);
    assert_int_equal(args->u.items[3].kind, VAL_LIST); /* tags: an unset list is [] */
    assert_int_equal(args->u.items[3].len, 0);
    assert_int_equal(args->u.items[4].kind, VAL_NONE); /* note: optional, unset */
    assert_int_equal(args->u.items[5].kind, VAL_INT);  /* qty: its default */
    assert_true(args->u.items[5].u.i == 5);
    release(&c);
}

/* ---- targets ---- */

static void test_compile_target_options(void **state)
{
    compiled c = compile_text(SHOP_DOMAIN
                              "workload:\n"
                              "  cycle:\n"
                              "    - Cart.Open: {id: \"c-${n}\", seq: 1, owner: {given: A, family: "
                              "B}}\n"
                              "  targets:\n"
                              "    - memory\n"
                              "    - null\n"
                              "    - null: {label: floor}\n"
                              "    - sqlite: {durability: normal, keep: true}\n"
                              "    - postgres: {label: pg-rls, fence: rls, dsn: \"host=/tmp\", "
                              "durability: 'off'}\n"
                              "    - process:\n"
                              "        label: py\n"
                              "        command: [python3, rt.py]\n"
                              "        timeout_ms: 5000\n"
                              "        verbs: {Cart.Open: 'Shop::Cart.Open'}\n");
    assert_compiled(&c);
    const workload *w = &c.p->work;
    assert_int_equal(w->ntargets, 6);
    const target_spec *t = w->targets;
    assert_string_equal(t[0].name, "memory");
    assert_string_equal(t[0].label, "memory");        /* the label defaults to the name */
    assert_null(target_opt_str(&t[0], "durability")); /* memory has no durability */
    assert_int_equal(t[0].nopts, 0);
    assert_string_equal(t[1].name, "null"); /* a plain YAML null names the null target */
    assert_string_equal(t[1].label, "null");
    assert_string_equal(t[2].name, "null");
    assert_string_equal(t[2].label, "floor");
    assert_string_equal(t[3].name, "sqlite");
    assert_string_equal(target_opt_str(&t[3], "durability"), "normal");
    assert_true(target_opt_bool(&t[3], "keep"));
    assert_string_equal(t[4].label, "pg-rls");
    assert_string_equal(target_opt_str(&t[4], "fence"), "rls");
    assert_string_equal(target_opt_str(&t[4], "dsn"), "host=/tmp");
    assert_string_equal(target_opt_str(&t[4], "durability"), "off");
    assert_false(target_opt_bool(&t[4], "keep")); /* the declared default */
    assert_string_equal(t[5].name, "process");
    assert_string_equal(t[5].label, "py");
    const char *const *argv = target_opt_argv(&t[5], "command");
    assert_string_equal(argv[0], "python3");
    assert_string_equal(argv[1], "rt.py");
    assert_null(argv[2]);
    assert_true(target_opt_int(&t[5], "timeout_ms", 0) == 5000);
    const target_opt_value *verbs = target_opt_given(&t[5], "verbs");
    assert_int_equal(verbs->n, 1);
    assert_string_equal(verbs->keys[0], "Cart.Open");
    assert_string_equal(verbs->vals[0], "Shop::Cart.Open");
    assert_null(target_opt_given(&t[3], "dsn")); /* sqlite has no dsn */
    release(&c);
}

static void test_compile_targets_default_to_memory(void **state)
{
    compiled c = compile_text(SHOP_DOMAIN "workload:\n"
                                          "  cycle:\n"
                                          "    - Cart.Open: {id: \"c-${n}\", seq: 1, owner: "
                                          "{given: A, family: B}}\n"
                                          "  prefill: [0, 1000]\n");
    assert_compiled(&c);
    const workload *w = &c.p->work;
    assert_int_equal(w->ntargets, 1);
    assert_string_equal(w->targets[0].name, "memory");
    assert_string_equal(w->targets[0].label, "memory");
    assert_int_equal(w->warmup, 200); /* the documented defaults */
    assert_int_equal(w->iterations, 1000);
    assert_int_equal(w->runs, 3);
    assert_int_equal(w->nprefill, 2);
    assert_true(w->prefill[0] == 0 && w->prefill[1] == 1000);
    release(&c);
}

/* ---- warnings and errors ---- */

static void test_compile_error_leaves_no_plan(void **state)
{
    compiled c = compile_text(SHOP_DOMAIN "workload:\n"
                                          "  cycle:\n"
                                          "    - Cart.Shut: {id: x}\n");
    assert_int_equal(c.rc, -1);
    assert_null(c.p);
    assert_non_null(c.dc); /* still the caller's */
    assert_int_equal(c.d.errors, 1);
    assert_string_equal(c.d.items[0].message, "unknown command 'Cart.Shut'");
    release(&c);
}

static void test_compile_reports_independent_errors_together(void **state)
{
    /* two steps, two problems: both are reported, not only the first */
    compiled c = compile_text(SHOP_DOMAIN "workload:\n"
                                          "  cycle:\n"
                                          "    - Cart.Opn: {id: x}\n"
                                          "    - Cart.Open: {id: y, seq: 1}\n");
    assert_int_equal(c.rc, -1);
    assert_int_equal(c.d.errors, 2);
    diag_sort(&c.d);
    assert_string_equal(c.d.items[0].message,
                        "unknown command 'Cart.Opn' (did you mean 'Cart.Open'?)");
    assert_string_equal(c.d.items[1].message, "Cart.Open: missing 'owner'");
    release(&c);
}

/* ---- the JSON plan ---- */

static cJSON *plan_as_json(const plan *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(plan_print_json(p, f), 0);
    fclose(f);
    cJSON *root = cJSON_ParseWithLength(buf, len);
    free(buf);
    assert_non_null(root);
    return root;
}

static double json_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("no number '%s'", key);
    return v->valuedouble;
}

static void test_compile_plan_json_parses_and_has_totals(void **state)
{
    compiled c = compile_file("specs/pizzas.yaml");
    assert_compiled(&c);
    cJSON *root = plan_as_json(c.p);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "domain")->valuestring, "pizzas");
    const cJSON *aggs = cJSON_GetObjectItemCaseSensitive(root, "aggregates");
    assert_int_equal(cJSON_GetArraySize(aggs), 1);
    const cJSON *cmds = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(aggs, 0), "commands");
    assert_int_equal(cJSON_GetArraySize(cmds), 3);
    const cJSON *totals = cJSON_GetObjectItemCaseSensitive(root, "totals");
    assert_true(cJSON_IsArray(totals));
    assert_int_equal(cJSON_GetArraySize(totals), 1);
    const cJSON *t = cJSON_GetArrayItem(totals, 0);
    assert_true(json_number(t, "prefill") == 0);
    assert_true(json_number(t, "commands_per_cycle") == 4);
    assert_true(json_number(t, "commands_timed_per_run") == 4000);
    assert_true(json_number(cJSON_GetObjectItemCaseSensitive(t, "aggregates"), "Order") == 1200);
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(t, "events");
    assert_true(json_number(ev, "PizzaCreated") == 1200);
    assert_true(json_number(ev, "ToppingAdded") == 2400);
    assert_true(json_number(ev, "PizzaPurchased") == 1200);
    const cJSON *targets = cJSON_GetObjectItemCaseSensitive(root, "targets");
    assert_int_equal(cJSON_GetArraySize(targets), 6);
    cJSON_Delete(root);
    release(&c);
}

static void test_compile_plan_json_totals_per_prefill(void **state)
{
    /* banking ends inside its workload mapping, so a key can be added there */
    compiled c = compile_file_with("specs/banking.yaml", "  prefill: [0, 100]\n");
    assert_compiled(&c);
    assert_int_equal(c.p->work.nprefill, 2);
    cJSON *root = plan_as_json(c.p);
    const cJSON *totals = cJSON_GetObjectItemCaseSensitive(root, "totals");
    assert_int_equal(cJSON_GetArraySize(totals), 2);
    for (int i = 0; i < 2; i++) {
        const cJSON *t = cJSON_GetArrayItem(totals, i);
        double prefill = i * 100, cycles = 1200 + prefill;
        assert_true(json_number(t, "prefill") == prefill);
        const cJSON *ag = cJSON_GetObjectItemCaseSensitive(t, "aggregates");
        assert_true(json_number(ag, "Customer") == 1);
        assert_true(json_number(ag, "Account") == cycles);
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(t, "events");
        assert_true(json_number(ev, "CustomerRegistered") == 1);
        assert_true(json_number(ev, "AccountCredited") == 2 * cycles);
    }
    cJSON_Delete(root);
    release(&c);
}

/* What bench plan --format json prints under "totals" is the compiler's. */
static void assert_json_totals_are_the_plans(const plan *p)
{
    cJSON *root = plan_as_json(p);
    const cJSON *totals = cJSON_GetObjectItemCaseSensitive(root, "totals");
    assert_int_equal(cJSON_GetArraySize(totals), p->work.nprefill);
    for (size_t k = 0; k < p->work.nprefill; k++) {
        const plan_totals *want = &p->totals[k];
        const cJSON *t = cJSON_GetArrayItem(totals, (int)k);
        assert_true(json_number(t, "prefill") == (double)want->prefill);
        assert_true(json_number(t, "commands_per_cycle") == (double)want->commands_per_cycle);
        assert_true(json_number(t, "commands_timed_per_run") == (double)want->commands_timed);
        const cJSON *ag = cJSON_GetObjectItemCaseSensitive(t, "aggregates");
        assert_int_equal(cJSON_GetArraySize(ag), p->naggs);
        for (size_t i = 0; i < p->naggs; i++)
            assert_true(json_number(ag, p->aggs[i].name) == (double)want->aggregates[i]);
        const cJSON *ev = cJSON_GetObjectItemCaseSensitive(t, "events");
        assert_int_equal(cJSON_GetArraySize(ev), p->nevents);
        for (size_t i = 0; i < p->nevents; i++)
            assert_true(json_number(ev, p->events[i].name) == (double)want->events[i]);
    }
    cJSON_Delete(root);
}

static void test_compile_totals_are_what_plan_json_prints(void **state)
{
    static const char *const paths[] = {"specs/pizzas.yaml", "specs/banking.yaml",
                                        "examples/library.yaml", "examples/tickets.yaml",
                                        "examples/cart.yaml"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        compiled c = compile_file(paths[i]);
        assert_compiled(&c);
        assert_json_totals_are_the_plans(c.p);
        release(&c);
    }
    compiled c = compile_file_with("specs/banking.yaml", "  prefill: [0, 100]\n");
    assert_compiled(&c);
    assert_json_totals_are_the_plans(c.p);
    release(&c);
}

static char *plan_as_text(const plan *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    plan_print_text(p, f);
    fclose(f);
    return buf;
}

static void assert_has(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("no '%s' in:\n%s", part, text);
}

/* bench plan shows for_each on the policy, and that no totals follow from
 * the plan when a for_each policy's command emits (once per item). */
static void test_compile_plan_shows_for_each(void **state)
{
    compiled c = compile_text(relay_yaml);
    assert_compiled(&c);
    char *text = plan_as_text(c.p);
    assert_has(text, "\npolicies\n  on Went run R.Step {id: event.id}\n"
                     "  on Stepped for_each event.ids run R.Do {id: item}\n");
    assert_has(text, "\ntotals per run: depend on the draws and outcomes (a mix, a draw, a "
                     "counted refusal or a for_each); verify holds each run to what succeeded\n");
    free(text);
    cJSON *root = plan_as_json(c.p);
    const cJSON *pols = cJSON_GetObjectItemCaseSensitive(root, "policies");
    assert_true(
        cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pols, 0), "for_each")));
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(pols, 1), "for_each")->valuestring,
        "event.ids");
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "totals")), 0);
    cJSON_Delete(root);
    release(&c);

    c = compile_file("examples/library.yaml"); /* plain policies only */
    assert_compiled(&c);
    text = plan_as_text(c.p);
    assert_has(text, "\n  on CopyLent run Member.CountLoan {card: event.card}\n");
    assert_null(strstr(text, "unknown"));
    free(text);
    root = plan_as_json(c.p);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "totals")), 1);
    cJSON_Delete(root);
    release(&c);
}

/* ---- queries ---- */

/* A query is a command in the plan's table (found by its verb, indexed
 * after its aggregate's commands), with its returns typed from the
 * expressions; it adds nothing to the totals. */
static void test_compile_queries_are_read_only_commands(void **state)
{
    compiled c = compile_file("examples/pizza_status.yaml");
    assert_compiled(&c);
    const plan *p = c.p;
    const aggregate *order = agg_named(p, "Order");
    assert_int_equal(order->ncommands, 3);
    assert_int_equal(order->nqueries, 1);
    assert_int_equal(p->ncommands, 4);
    const command *q = verb(p, "Order.Status");
    assert_ptr_equal(q, &order->queries[0]);
    assert_ptr_equal(p->commands[q->index], q);
    assert_int_equal(q->index, 3);
    assert_true(q->query);
    assert_false(verb(p, "Order.Purchase")->query);
    assert_true(plan_has_queries(p));
    assert_false(q->creates || q->deletes || q->neffects || q->nensures || q->event);
    assert_int_equal(q->identity_param, 0);
    assert_int_equal(q->returns->nfields, 2);
    assert_string_equal(q->returns->fields[0].name, "status");
    assert_int_equal(q->returns->fields[0].type->kind, TY_ENUM);
    assert_string_equal(q->returns->fields[1].name, "toppings");
    assert_int_equal(q->returns->fields[1].type->kind, TY_INT);
    /* the steps' expectations, in the order written */
    const step *st = &p->work.flows[0].steps[2];
    assert_ptr_equal(st->cmd, q);
    assert_false(st->expect_refused);
    assert_int_equal(st->nexpect_returns, 2);
    assert_int_equal(st->expect_returns[0].field, 0);
    assert_int_equal(st->expect_returns[0].want.u.e, 0); /* available */
    assert_int_equal(st->expect_returns[1].field, 1);
    assert_int_equal(st->expect_returns[1].want.u.i, 1);
    assert_int_equal(p->work.flows[0].steps[4].nexpect_returns, 1);
    assert_int_equal(p->work.flows[0].steps[4].expect_returns[0].want.u.e, 1); /* sold */
    assert_null(p->work.flows[0].steps[3].expect_returns);
    /* five steps a cycle; the queries add no record and no event */
    assert_int_equal(p->totals[0].commands_per_cycle, 5);
    assert_int_equal(p->cycle_aggs[order->index], 1);
    uint64_t per = (uint64_t)(p->work.warmup + p->work.iterations);
    assert_int_equal(p->totals[0].aggregates[order->index], per);
    for (size_t i = 0; i < p->nevents; i++)
        assert_int_equal(p->totals[0].events[i], per);
    release(&c);

    compiled plain = compile_file("specs/pizzas.yaml");
    assert_compiled(&plain);
    assert_false(plan_has_queries(plain.p));
    assert_int_equal(agg_named(plain.p, "Order")->nqueries, 0);
    release(&plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compile_queries_are_read_only_commands),
        cmocka_unit_test(test_compile_pizzas_domain),
        cmocka_unit_test(test_compile_pizzas_workload),
        cmocka_unit_test(test_compile_banking_domain),
        cmocka_unit_test(test_compile_library_policies_are_wired),
        cmocka_unit_test(test_compile_inventory_reads_and_payload),
        cmocka_unit_test(test_compile_for_each_policy_takes_the_lists_element_as_item),
        cmocka_unit_test(test_compile_counts_unknown_follows_policy_chains),
        cmocka_unit_test(test_compile_for_each_errors_are_at_the_expression),
        cmocka_unit_test(test_compile_totals_pizzas),
        cmocka_unit_test(test_compile_totals_banking),
        cmocka_unit_test(test_compile_totals_count_policy_commands),
        cmocka_unit_test(test_compile_totals_skip_expected_refusals),
        cmocka_unit_test(test_compile_plan_expected_is_setup_plus_cycles),
        cmocka_unit_test(test_compile_plan_expected_counts_setup_once),
        cmocka_unit_test(test_compile_template_parts_and_path),
        cmocka_unit_test(test_compile_templates_at_depth_and_as_int),
        cmocka_unit_test(test_compile_field_defaults),
        cmocka_unit_test(test_compile_arguments_left_out_take_defaults),
        cmocka_unit_test(test_compile_target_options),
        cmocka_unit_test(test_compile_targets_default_to_memory),
        cmocka_unit_test(test_compile_error_leaves_no_plan),
        cmocka_unit_test(test_compile_reports_independent_errors_together),
        cmocka_unit_test(test_compile_plan_json_parses_and_has_totals),
        cmocka_unit_test(test_compile_plan_json_totals_per_prefill),
        cmocka_unit_test(test_compile_totals_are_what_plan_json_prints),
        cmocka_unit_test(test_compile_plan_shows_for_each),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
