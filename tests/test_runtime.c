/* test_runtime.c: dispatch semantics (DESIGN section 2) through the memory
 * target, on small domains compiled from YAML written here. Arguments are
 * written as YAML flow mappings and converted by type without checking
 * constraints, so the runtime's own checks are what refuse them. */
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

#include "drivers.h"
#include "load.h"
#include "memory.h"
#include "plan.h"
#include "runtime.h"
#include "target.h"

/* ---- fixture: a compiled plan, an open memory target ---- */

enum { FX_MAX_DOCS = 64 };

typedef struct fx {
    plan *p;
    target *t;
    doc *args[FX_MAX_DOCS]; /* argument documents; their arenas hold built values */
    size_t nargs;
    size_t next; /* the next doc slot to reuse once all are taken */
} fx;

static plan *compile_yaml(const char *yaml)
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

static fx *fx_open(const char *yaml)
{
    fx *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->p = compile_yaml(yaml);
    const target_driver *drv = target_find("memory");
    assert_non_null(drv);
    char err[256];
    assert_int_equal(drv->open(f->p, &f->p->work.targets[0], 1, &f->t, err, sizeof err), TARGET_OK);
    return f;
}

static void fx_close(fx *f)
{
    target_close(f->t);
    for (size_t i = 0; i < f->nargs; i++)
        doc_free(f->args[i]);
    plan_free(f->p);
    free(f);
}

/* n as a value of type t, by YAML shape only (constraints are not checked). */
static value to_value(arena *a, const ty *t, const node *n)
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
            items[i] = to_value(a, t->elem, n->items[i]);
        return (value){.kind = VAL_LIST, .len = (uint32_t)n->count, .u.items = items};
    }
    case TY_STRUCT: break;
    }
    value *items = arena_alloc(a, (t->nfields + 1) * sizeof *items);
    for (size_t i = 0; i < t->nfields; i++) {
        const field *fd = &t->fields[i];
        const node *v = node_get(n, fd->name);
        if (v && v->kind != NODE_NULL)
            items[i] = to_value(a, fd->type, v);
        else if (fd->has_default)
            items[i] = fd->def;
        else if (fd->type->kind == TY_LIST)
            items[i] = (value){.kind = VAL_LIST};
    }
    return (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
}

/* Arguments for cmd from a YAML flow mapping; they live until fx_close. */
static value fx_args(fx *f, const command *cmd, const char *yaml)
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
    return to_value(&dc->mem, cmd->params, dc->root);
}

static const command *verb(fx *f, const char *name)
{
    const command *cmd = plan_find_verb(f->p, name);
    if (!cmd)
        fail_msg("no command %s", name);
    return cmd;
}

/* Dispatches verb with args; TARGET_OK, TARGET_REFUSED or TARGET_ERROR. */
static int call(fx *f, const char *name, const char *args)
{
    const command *cmd = verb(f, name);
    value v = fx_args(f, cmd, args);
    f->t->message[0] = '\0';
    return target_dispatch(f->t, cmd, &v);
}

static void ok(fx *f, const char *name, const char *args)
{
    int rc = call(f, name, args);
    if (rc != TARGET_OK)
        fail_msg("%s %s: %d %s", name, args, rc, f->t->message);
}

static void refused(fx *f, const char *name, const char *args, const char *message)
{
    int rc = call(f, name, args);
    if (rc != TARGET_REFUSED)
        fail_msg("%s %s: expected a refusal, got %d %s", name, args, rc, f->t->message);
    assert_string_equal(f->t->message, message);
}

static uint64_t count_of(fx *f, const char *name)
{
    uint64_t aggs[16] = {0}, events[64] = {0};
    assert_true(f->p->naggs <= 16 && f->p->nevents <= 64);
    assert_int_equal(target_count(f->t, aggs, events), TARGET_OK);
    for (size_t i = 0; i < f->p->naggs; i++)
        if (!strcmp(f->p->aggs[i].name, name))
            return aggs[i];
    for (size_t i = 0; i < f->p->nevents; i++)
        if (!strcmp(f->p->events[i].name, name))
            return events[i];
    fail_msg("no aggregate or event %s", name);
    return 0;
}

static const aggregate *agg_named(fx *f, const char *name)
{
    for (size_t i = 0; i < f->p->naggs; i++)
        if (!strcmp(f->p->aggs[i].name, name))
            return &f->p->aggs[i];
    fail_msg("no aggregate %s", name);
    return NULL;
}

/* Loads the committed record of aggregate name with a string key; false when absent. */
static bool load(fx *f, const char *name, const char *key, value *out)
{
    store *s = memory_target_store(f->t);
    value k = {.kind = VAL_STRING, .len = (uint32_t)strlen(key), .u.s = key};
    int rc = s->ops->load(s, agg_named(f, name), &k, out);
    assert_true(rc >= 0);
    return rc == 1;
}

static bool load_int(fx *f, const char *name, int64_t key, value *out)
{
    store *s = memory_target_store(f->t);
    value k = {.kind = VAL_INT, .u.i = key};
    int rc = s->ops->load(s, agg_named(f, name), &k, out);
    assert_true(rc >= 0);
    return rc == 1;
}

/* The field called name of record rec of aggregate agg. */
static const value *get(fx *f, const char *agg, const value *rec, const char *name)
{
    int i = ty_field_index(agg_named(f, agg)->state, name);
    if (i < 0)
        fail_msg("%s has no field %s", agg, name);
    return &rec->u.items[i];
}

static int64_t get_int(fx *f, const char *agg, const value *rec, const char *name)
{
    const value *v = get(f, agg, rec, name);
    assert_int_equal(v->kind, VAL_INT);
    return v->u.i;
}

static const char *get_enum(fx *f, const char *agg, const value *rec, const char *name)
{
    const value *v = get(f, agg, rec, name);
    assert_int_equal(v->kind, VAL_ENUM);
    int i = ty_field_index(agg_named(f, agg)->state, name);
    return agg_named(f, agg)->state->fields[i].type->values[v->u.e];
}

static void assert_str(const value *v, const char *s)
{
    assert_int_equal(v->kind, VAL_STRING);
    assert_int_equal(v->len, strlen(s));
    assert_memory_equal(v->u.s, s, v->len);
}

/* ---- domains ---- */

/* clang-format off */

static const char pizzas[] =
    "spec: 1\n"
    "domain: pizzas\n"
    "types:\n"
    "  Cents: {type: int, min: 0}\n"
    "  Size: {enum: [small, large]}\n"
    "  Pizza: {fields: {price_cents: Cents, size: Size}}\n"
    "  Topping: {fields: {name: string, amount: int}}\n"
    "aggregates:\n"
    "  Order:\n"
    "    identity: name\n"
    "    fields:\n"
    "      name: {type: string, min_length: 1}\n"
    "      pizza: Pizza\n"
    "      toppings: {list: Topping}\n"
    "      customer_name: {type: string, optional: true}\n"
    "      status: {enum: [available, sold], default: available}\n"
    "    commands:\n"
    "      CreatePizza:\n"
    "        creates: true\n"
    "        params: {name: string, pizza: Pizza}\n"
    "        set: {pizza: arg.pizza}\n"
    "        emits: PizzaCreated\n"
    "      AddTopping:\n"
    "        params: {name: string, topping: Topping}\n"
    "        guards:\n"
    "          - {check: status == available, refuse: the pizza is already sold}\n"
    "          - {check: len(toppings) < 10, refuse: at most 10 toppings}\n"
    "        append: {toppings: arg.topping}\n"
    "        emits: ToppingAdded\n"
    "      Purchase:\n"
    "        params: {name: string, customer_name: string, amount: Cents}\n"
    "        guards:\n"
    "          - {check: status == available, refuse: the pizza is already sold}\n"
    "          - {check: len(toppings) > 0, refuse: a pizza needs a topping}\n"
    "          - {check: arg.amount > 0, refuse: payment must be positive}\n"
    "          - {check: arg.amount >= pizza.price_cents, refuse: payment does not cover the "
    "price}\n"
    "        set: {customer_name: arg.customer_name, status: sold}\n"
    "        emits: PizzaPurchased\n"
    "workload:\n"
    "  cycle:\n"
    "    - Order.CreatePizza: {name: \"pizza-${n}\", pizza: {price_cents: 1200, size: large}}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";

static const char banking[] =
    "spec: 1\n"
    "domain: banking\n"
    "types:\n"
    "  Cents: {type: int, min: 0}\n"
    "  Reference: {type: string, min_length: 1}\n"
    "  PersonName: {fields: {given: string, family: string}}\n"
    "  Email: {type: string, pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$'}\n"
    "  CustomerStatus: {enum: [active, suspended]}\n"
    "  Direction: {enum: [credit, debit]}\n"
    "  Entry:\n"
    "    fields:\n"
    "      sequence: {type: int, min: 1}\n"
    "      amount: {type: int, min: 1}\n"
    "      narrative: string\n"
    "      direction: Direction\n"
    "aggregates:\n"
    "  Customer:\n"
    "    identity: reference\n"
    "    fields:\n"
    "      reference: Reference\n"
    "      name: PersonName\n"
    "      email: Email\n"
    "      status: {type: CustomerStatus, default: active}\n"
    "    commands:\n"
    "      Register:\n"
    "        creates: true\n"
    "        params: {reference: Reference, name: PersonName, email: Email}\n"
    "        set: {name: arg.name, email: arg.email}\n"
    "        emits: CustomerRegistered\n"
    "      Suspend:\n"
    "        params: {reference: Reference}\n"
    "        set: {status: suspended}\n"
    "  Account:\n"
    "    identity: number\n"
    "    fields:\n"
    "      number: {type: string, min_length: 1}\n"
    "      customer: Reference\n"
    "      balance: {type: Cents, default: 0}\n"
    "      daily_limit: Cents\n"
    "      ledger: {list: Entry}\n"
    "      customer_status: CustomerStatus\n"
    "    commands:\n"
    "      Open:\n"
    "        creates: true\n"
    "        params: {number: string, customer: Reference, daily_limit: Cents}\n"
    "        reads: {owner: {Customer: arg.customer}}\n"
    "        guards:\n"
    "          - {check: owner.status == active, refuse: the customer is not active}\n"
    "        set: {customer: arg.customer, daily_limit: arg.daily_limit,\n"
    "              customer_status: owner.status}\n"
    "        emits: AccountOpened\n"
    "      Credit:\n"
    "        params: {number: string, amount: Cents, narrative: string}\n"
    "        guards:\n"
    "          - {check: arg.amount > 0, refuse: the amount must be positive}\n"
    "        set: {balance: balance + arg.amount}\n"
    "        append:\n"
    "          ledger: {sequence: len(ledger) + 1, amount: arg.amount,\n"
    "                   narrative: arg.narrative, direction: credit}\n"
    "        emits: AccountCredited\n"
    "      Debit:\n"
    "        params: {number: string, amount: Cents, narrative: string}\n"
    "        guards:\n"
    "          - {check: balance >= arg.amount, refuse: the balance does not cover it}\n"
    "        set: {balance: balance - arg.amount}\n"
    "        append:\n"
    "          ledger: {sequence: len(ledger) + 1, amount: arg.amount,\n"
    "                   narrative: arg.narrative, direction: debit}\n"
    "        ensure:\n"
    "          - {check: balance == old.balance - arg.amount, refuse: the balance moved wrongly}\n"
    "          - {check: len(ledger) == len(old.ledger) + 1, refuse: the ledger did not grow}\n"
    "        emits: {event: AccountDebited, payload: {number: arg.number, amount: arg.amount}}\n"
    "      Overdraw:                  # no guard: the field constraint on balance refuses\n"
    "        params: {number: string, amount: int}\n"
    "        set: {balance: balance - arg.amount}\n"
    "      Skim:                      # an ensure that fails: the balance moves by one too many\n"
    "        params: {number: string, amount: Cents}\n"
    "        set: {balance: balance - arg.amount - 1}\n"
    "        ensure:\n"
    "          - {check: balance == old.balance - arg.amount, refuse: the balance moved wrongly}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Account.Credit: {number: a, amount: 1, narrative: x}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";

static const char library[] =
    "spec: 1\n"
    "domain: library\n"
    "types:\n"
    "  Shelf: {enum: [on_shelf, on_loan]}\n"
    "aggregates:\n"
    "  Member:\n"
    "    identity: card\n"
    "    fields:\n"
    "      card: string\n"
    "      loans: {type: int, min: 0, default: 0}\n"
    "      max_loans: int\n"
    "      fines: {type: int, default: 0}\n"
    "    commands:\n"
    "      Join:\n"
    "        creates: true\n"
    "        params: {card: string, max_loans: int}\n"
    "        set: {max_loans: arg.max_loans}\n"
    "      CountLoan:\n"
    "        params: {card: string}\n"
    "        guards:\n"
    "          - {check: loans < max_loans, refuse: at most max_loans loans}\n"
    "        set: {loans: loans + 1}\n"
    "        emits: LoanCounted\n"
    "      CountReturn:\n"
    "        params: {card: string, days_late: int}\n"
    "        set: {loans: loans - 1, fines: fines + arg.days_late * 25}\n"
    "  Copy:\n"
    "    identity: barcode\n"
    "    fields:\n"
    "      barcode: string\n"
    "      status: {type: Shelf, default: on_shelf}\n"
    "      borrower: {type: string, default: ''}\n"
    "    commands:\n"
    "      Acquire:\n"
    "        creates: true\n"
    "        params: {barcode: string}\n"
    "        emits: CopyAcquired\n"
    "      Lend:\n"
    "        params: {barcode: string, card: string}\n"
    "        guards:\n"
    "          - {check: status == on_shelf, refuse: the copy is already lent}\n"
    "        set: {status: on_loan, borrower: arg.card}\n"
    "        emits: CopyLent\n"
    "      Return:\n"
    "        params: {barcode: string, days_late: int}\n"
    "        guards:\n"
    "          - {check: status == on_loan, refuse: the copy is not on loan}\n"
    "        set: {status: on_shelf}\n"
    "        emits:\n"
    "          event: CopyReturned\n"
    "          payload: {barcode: arg.barcode, card: borrower, days_late: arg.days_late}\n"
    "policies:\n"
    "  - {on: CopyLent, run: Member.CountLoan, args: {card: event.card}}\n"
    "  - {on: CopyReturned, run: Member.CountReturn,\n"
    "     args: {card: event.card, days_late: event.days_late}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Copy.Acquire: {barcode: c}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";

/* Odds and ends: swaps, built appends with defaults, arithmetic refusals,
 * an event payload computed from the new and old states. */
static const char misc[] =
    "spec: 1\n"
    "domain: misc\n"
    "types:\n"
    "  Kind: {enum: [plain, fancy]}\n"
    "  Note:\n"
    "    fields:\n"
    "      seq: int\n"
    "      text: {type: string, default: none}\n"
    "      kind: {type: Kind, default: fancy}\n"
    "      tag: {type: string, optional: true}\n"
    "aggregates:\n"
    "  Pair:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      a: int\n"
    "      b: int\n"
    "      nick: {type: string, optional: true}\n"
    "      notes: {list: Note, max_items: 2}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {id: string, a: int, b: int}\n"
    "        set: {a: arg.a, b: arg.b}\n"
    "      Swap:\n"
    "        params: {id: string}\n"
    "        set: {a: b, b: a}\n"
    "      Add:\n"
    "        params: {id: string, by: int}\n"
    "        set: {a: a + arg.by}\n"
    "      Divide:\n"
    "        params: {id: string, by: int}\n"
    "        set: {a: a / arg.by}\n"
    "      Greet:\n"
    "        params: {id: string}\n"
    "        guards:\n"
    "          - {check: \"nick == 'bob'\", refuse: not bob}\n"
    "      Jot:\n"
    "        params: {id: string}\n"
    "        append: {notes: {seq: len(notes) + 1}}\n"
    "        emits:\n"
    "          event: Jotted\n"
    "          payload: {id: arg.id, now: len(notes), before: len(old.notes), a: a}\n"
    "      JotTagged:\n"
    "        params: {id: string, tag: string}\n"
    "        append: {notes: {seq: a, text: \"'tagged'\", kind: plain, tag: arg.tag}}\n"
    "        set: {a: a + 100}\n"
    "  Log:                           # one per note, keyed by its position\n"
    "    identity: now\n"
    "    fields:\n"
    "      now: int\n"
    "      id: string\n"
    "      before: int\n"
    "      a: int\n"
    "    commands:\n"
    "      Write:\n"
    "        creates: true\n"
    "        params: {now: int, id: string, before: int, a: int}\n"
    "        set: {id: arg.id, before: arg.before, a: arg.a}\n"
    "policies:\n"
    "  - {on: Jotted, run: Log.Write,\n"
    "     args: {id: event.id, now: event.now, before: event.before, a: event.a}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Pair.Swap: {id: x}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";

/* clang-format on */

/* ---- pizzas: the happy path and each refusal ---- */

static void create_pizza(fx *f, const char *name)
{
    char args[128];
    snprintf(args, sizeof args, "{name: %s, pizza: {price_cents: 1200, size: large}}", name);
    ok(f, "Order.CreatePizza", args);
}

static void test_pizza_cycle_changes_the_record_and_counts_events(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-1");
    ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Olive, amount: 2}}");
    ok(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1200}");

    value rec;
    assert_true(load(f, "Order", "pizza-1", &rec));
    assert_string_equal(get_enum(f, "Order", &rec, "status"), "sold");
    assert_str(get(f, "Order", &rec, "customer_name"), "Chris");
    const value *tops = get(f, "Order", &rec, "toppings");
    assert_int_equal(tops->len, 2);
    assert_str(&tops->u.items[0].u.items[0], "Basil");
    assert_str(&tops->u.items[1].u.items[0], "Olive");
    assert_int_equal(tops->u.items[1].u.items[1].u.i, 2);
    const value *pizza = get(f, "Order", &rec, "pizza");
    assert_int_equal(pizza->u.items[0].u.i, 1200);

    assert_int_equal(count_of(f, "Order"), 1);
    assert_int_equal(count_of(f, "PizzaCreated"), 1);
    assert_int_equal(count_of(f, "ToppingAdded"), 2);
    assert_int_equal(count_of(f, "PizzaPurchased"), 1);
    fx_close(f);
}

static void test_new_record_takes_defaults_and_leaves_optionals_unset(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-1");
    value rec;
    assert_true(load(f, "Order", "pizza-1", &rec));
    assert_str(get(f, "Order", &rec, "name"), "pizza-1");
    assert_string_equal(get_enum(f, "Order", &rec, "status"), "available");
    assert_int_equal(get(f, "Order", &rec, "customer_name")->kind, VAL_NONE);
    assert_int_equal(get(f, "Order", &rec, "toppings")->kind, VAL_LIST);
    assert_int_equal(get(f, "Order", &rec, "toppings")->len, 0);
    fx_close(f);
}

static void test_bad_argument_refuses_naming_the_parameter(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-1");
    ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: -5}",
            "Order.Purchase refused: amount: -5 is less than the minimum 0");
    refused(f, "Order.CreatePizza", "{name: pizza-2, pizza: {price_cents: -1, size: large}}",
            "Order.CreatePizza refused: pizza.price_cents: -1 is less than the minimum 0");
    assert_int_equal(count_of(f, "Order"), 1);
    fx_close(f);
}

static void test_create_refuses_an_identity_that_exists(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-3");
    refused(f, "Order.CreatePizza", "{name: pizza-3, pizza: {price_cents: 1, size: small}}",
            "Order.CreatePizza refused: Order 'pizza-3' already exists");
    value rec;
    assert_true(load(f, "Order", "pizza-3", &rec));
    assert_int_equal(get(f, "Order", &rec, "pizza")->u.items[0].u.i, 1200);
    assert_int_equal(count_of(f, "PizzaCreated"), 1);
    fx_close(f);
}

static void test_command_refuses_an_identity_that_does_not_exist(void **state)
{
    fx *f = fx_open(pizzas);
    refused(f, "Order.AddTopping", "{name: pizza-9, topping: {name: Basil, amount: 3}}",
            "Order.AddTopping refused: Order 'pizza-9' does not exist");
    assert_int_equal(count_of(f, "Order"), 0);
    assert_int_equal(count_of(f, "ToppingAdded"), 0);
    fx_close(f);
}

static void test_guard_refuses_with_its_text(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-1");
    ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    ok(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1200}");
    refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Dana, amount: 1500}",
            "Order.Purchase refused: the pizza is already sold");
    value rec;
    assert_true(load(f, "Order", "pizza-1", &rec));
    assert_str(get(f, "Order", &rec, "customer_name"), "Chris");
    assert_int_equal(count_of(f, "PizzaPurchased"), 1);
    fx_close(f);
}

static void test_guards_run_in_order_and_the_first_false_one_refuses(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-1");
    /* no topping and no payment: the topping guard comes first */
    refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 0}",
            "Order.Purchase refused: a pizza needs a topping");
    ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 0}",
            "Order.Purchase refused: payment must be positive");
    refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1199}",
            "Order.Purchase refused: payment does not cover the price");
    fx_close(f);
}

static void test_list_guard_bounds_toppings(void **state)
{
    fx *f = fx_open(pizzas);
    create_pizza(f, "pizza-1");
    for (int i = 0; i < 10; i++)
        ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 1}}");
    refused(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 1}}",
            "Order.AddTopping refused: at most 10 toppings");
    assert_int_equal(count_of(f, "ToppingAdded"), 10);
    fx_close(f);
}

/* ---- banking: reads, built appends, invariants, ensure, payloads ---- */

static const char ada[] =
    "{reference: CUST-0001, name: {given: Ada, family: Lovelace}, email: ada@example.com}";

static void test_read_of_a_missing_record_refuses_naming_the_alias(void **state)
{
    fx *f = fx_open(banking);
    ok(f, "Customer.Register", ada);
    refused(f, "Account.Open", "{number: acct-1, customer: CUST-0002, daily_limit: 100}",
            "Account.Open refused: Customer 'CUST-0002' does not exist (read as owner)");
    assert_int_equal(count_of(f, "Account"), 0);
    ok(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 100}");
    value rec;
    assert_true(load(f, "Account", "acct-1", &rec));
    assert_string_equal(get_enum(f, "Account", &rec, "customer_status"), "active");
    fx_close(f);
}

static void test_guard_reads_the_loaded_alias(void **state)
{
    fx *f = fx_open(banking);
    ok(f, "Customer.Register", ada);
    ok(f, "Customer.Suspend", "{reference: CUST-0001}");
    refused(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 100}",
            "Account.Open refused: the customer is not active");
    fx_close(f);
}

static void test_pattern_constraint_refuses_a_bad_argument(void **state)
{
    fx *f = fx_open(banking);
    refused(f, "Customer.Register",
            "{reference: CUST-0001, name: {given: Ada, family: Lovelace}, email: not-an-email}",
            "Customer.Register refused: email: 'not-an-email' does not match the pattern "
            "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$");
    assert_int_equal(count_of(f, "Customer"), 0);
    fx_close(f);
}

static void open_account(fx *f)
{
    ok(f, "Customer.Register", ada);
    ok(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 50000}");
}

static void test_append_builds_a_struct_from_expressions(void **state)
{
    fx *f = fx_open(banking);
    open_account(f);
    ok(f, "Account.Credit", "{number: acct-1, amount: 10000, narrative: Deposit}");
    ok(f, "Account.Credit", "{number: acct-1, amount: 5000, narrative: Deposit}");
    ok(f, "Account.Debit", "{number: acct-1, amount: 2500, narrative: Groceries}");
    value rec;
    assert_true(load(f, "Account", "acct-1", &rec));
    assert_int_equal(get_int(f, "Account", &rec, "balance"), 12500);
    const value *ledger = get(f, "Account", &rec, "ledger");
    assert_int_equal(ledger->len, 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(ledger->u.items[i].u.items[0].u.i, i + 1); /* sequence */
    const value *debit = &ledger->u.items[2];
    assert_int_equal(debit->u.items[1].u.i, 2500);
    assert_str(&debit->u.items[2], "Groceries");
    assert_int_equal(debit->u.items[3].u.e, 1); /* debit */
    assert_int_equal(count_of(f, "AccountCredited"), 2);
    assert_int_equal(count_of(f, "AccountDebited"), 1);
    fx_close(f);
}

static void test_field_constraint_refuses_the_new_state_naming_the_field(void **state)
{
    fx *f = fx_open(banking);
    open_account(f);
    ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    refused(f, "Account.Overdraw", "{number: acct-1, amount: 105}",
            "Account.Overdraw refused: balance: -5 is less than the minimum 0");
    value rec;
    assert_true(load(f, "Account", "acct-1", &rec));
    assert_int_equal(get_int(f, "Account", &rec, "balance"), 100);
    fx_close(f);
}

static void test_ensure_compares_the_new_state_with_old(void **state)
{
    fx *f = fx_open(banking);
    open_account(f);
    ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    ok(f, "Account.Debit", "{number: acct-1, amount: 40, narrative: Tea}"); /* ensures hold */
    refused(f, "Account.Skim", "{number: acct-1, amount: 10}",
            "Account.Skim refused: the balance moved wrongly");
    value rec;
    assert_true(load(f, "Account", "acct-1", &rec));
    assert_int_equal(get_int(f, "Account", &rec, "balance"), 60);
    assert_int_equal(get(f, "Account", &rec, "ledger")->len, 2);
    fx_close(f);
}

static void test_refusal_keeps_nothing_of_the_command(void **state)
{
    fx *f = fx_open(banking);
    open_account(f);
    ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    uint64_t credited = count_of(f, "AccountCredited"), debited = count_of(f, "AccountDebited");
    refused(f, "Account.Debit", "{number: acct-1, amount: 101, narrative: Too much}",
            "Account.Debit refused: the balance does not cover it");
    refused(f, "Account.Skim", "{number: acct-1, amount: 1}",
            "Account.Skim refused: the balance moved wrongly");
    value rec;
    assert_true(load(f, "Account", "acct-1", &rec));
    assert_int_equal(get_int(f, "Account", &rec, "balance"), 100);
    assert_int_equal(get(f, "Account", &rec, "ledger")->len, 1);
    assert_int_equal(count_of(f, "AccountCredited"), credited);
    assert_int_equal(count_of(f, "AccountDebited"), debited);
    assert_int_equal(count_of(f, "Account"), 1);
    fx_close(f);
}

/* ---- misc: effects on the old state, defaults, arithmetic ---- */

static void test_effects_see_the_old_state(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    ok(f, "Pair.Swap", "{id: x}");
    value rec;
    assert_true(load(f, "Pair", "x", &rec));
    assert_int_equal(get_int(f, "Pair", &rec, "a"), 2);
    assert_int_equal(get_int(f, "Pair", &rec, "b"), 1);
    /* the appended item reads a before the set raises it */
    ok(f, "Pair.JotTagged", "{id: x, tag: red}");
    assert_true(load(f, "Pair", "x", &rec));
    assert_int_equal(get_int(f, "Pair", &rec, "a"), 102);
    const value *note = &get(f, "Pair", &rec, "notes")->u.items[0];
    assert_int_equal(note->u.items[0].u.i, 2);
    assert_str(&note->u.items[1], "tagged");
    assert_int_equal(note->u.items[2].u.e, 0); /* plain */
    assert_str(&note->u.items[3], "red");
    fx_close(f);
}

static void test_append_build_fills_defaults_and_leaves_optionals_unset(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    ok(f, "Pair.Jot", "{id: x}");
    value rec;
    assert_true(load(f, "Pair", "x", &rec));
    const value *notes = get(f, "Pair", &rec, "notes");
    assert_int_equal(notes->len, 1);
    const value *note = &notes->u.items[0];
    assert_int_equal(note->u.items[0].u.i, 1);
    assert_str(&note->u.items[1], "none");
    assert_int_equal(note->u.items[2].kind, VAL_ENUM);
    assert_int_equal(note->u.items[2].u.e, 1); /* fancy */
    assert_int_equal(note->u.items[3].kind, VAL_NONE);
    fx_close(f);
}

static void test_list_max_items_is_an_invariant(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    ok(f, "Pair.Jot", "{id: x}");
    ok(f, "Pair.Jot", "{id: x}");
    refused(f, "Pair.Jot", "{id: x}",
            "Pair.Jot refused: notes: 3 item(s), more than the maximum 2");
    assert_int_equal(count_of(f, "Jotted"), 2);
    assert_int_equal(count_of(f, "Log"), 2);
    fx_close(f);
}

static void test_payload_expressions_see_the_new_and_old_states(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 7, b: 2}");
    ok(f, "Pair.Jot", "{id: x}");
    value rec;
    assert_true(load_int(f, "Log", 1, &rec));
    assert_str(get(f, "Log", &rec, "id"), "x");
    assert_int_equal(get_int(f, "Log", &rec, "before"), 0);
    assert_int_equal(get_int(f, "Log", &rec, "a"), 7);
    fx_close(f);
}

static void test_int_overflow_refuses(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 9223372036854775806, b: 0}");
    ok(f, "Pair.Add", "{id: x, by: 1}");
    refused(f, "Pair.Add", "{id: x, by: 1}",
            "Pair.Add refused: integer overflow in \"a + arg.by\"");
    value rec;
    assert_true(load(f, "Pair", "x", &rec));
    assert_int_equal(get_int(f, "Pair", &rec, "a"), INT64_MAX);
    fx_close(f);
}

static void test_division_by_zero_refuses(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 7, b: 0}");
    ok(f, "Pair.Divide", "{id: x, by: -2}");
    refused(f, "Pair.Divide", "{id: x, by: 0}",
            "Pair.Divide refused: division by zero in \"a / arg.by\"");
    value rec;
    assert_true(load(f, "Pair", "x", &rec));
    assert_int_equal(get_int(f, "Pair", &rec, "a"), -3); /* C truncation */
    fx_close(f);
}

static void test_reading_an_unset_optional_refuses(void **state)
{
    fx *f = fx_open(misc);
    ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    refused(f, "Pair.Greet", "{id: x}",
            "Pair.Greet refused: an optional field is not set in \"nick == 'bob'\"");
    fx_close(f);
}

/* ---- policies ---- */

static void library_setup(fx *f, int max_loans)
{
    char args[64];
    snprintf(args, sizeof args, "{card: M-0001, max_loans: %d}", max_loans);
    ok(f, "Member.Join", args);
}

static void test_policy_runs_in_the_same_dispatch(void **state)
{
    fx *f = fx_open(library);
    library_setup(f, 3);
    ok(f, "Copy.Acquire", "{barcode: c-1}");
    ok(f, "Copy.Lend", "{barcode: c-1, card: M-0001}");
    value rec;
    assert_true(load(f, "Member", "M-0001", &rec));
    assert_int_equal(get_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(count_of(f, "CopyLent"), 1);
    assert_int_equal(count_of(f, "LoanCounted"), 1);

    /* the payload of Return is computed: card comes from the copy's borrower */
    ok(f, "Copy.Return", "{barcode: c-1, days_late: 2}");
    assert_true(load(f, "Member", "M-0001", &rec));
    assert_int_equal(get_int(f, "Member", &rec, "loans"), 0);
    assert_int_equal(get_int(f, "Member", &rec, "fines"), 50);
    assert_int_equal(count_of(f, "CopyReturned"), 1);
    fx_close(f);
}

static void test_refused_policy_rolls_back_the_whole_dispatch(void **state)
{
    fx *f = fx_open(library);
    library_setup(f, 1);
    ok(f, "Copy.Acquire", "{barcode: c-1}");
    ok(f, "Copy.Acquire", "{barcode: c-2}");
    ok(f, "Copy.Lend", "{barcode: c-1, card: M-0001}");
    refused(f, "Copy.Lend", "{barcode: c-2, card: M-0001}",
            "Copy.Lend refused: policy Member.CountLoan refused: at most max_loans loans");
    value rec;
    assert_true(load(f, "Copy", "c-2", &rec));
    assert_string_equal(get_enum(f, "Copy", &rec, "status"), "on_shelf");
    assert_str(get(f, "Copy", &rec, "borrower"), "");
    assert_true(load(f, "Member", "M-0001", &rec));
    assert_int_equal(get_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(count_of(f, "CopyLent"), 1);
    assert_int_equal(count_of(f, "LoanCounted"), 1);
    fx_close(f);
}

static void test_policy_on_a_missing_record_refuses_the_command(void **state)
{
    fx *f = fx_open(library);
    ok(f, "Copy.Acquire", "{barcode: c-1}");
    refused(f, "Copy.Lend", "{barcode: c-1, card: M-0404}",
            "Copy.Lend refused: policy Member.CountLoan refused: Member 'M-0404' does not "
            "exist");
    value rec;
    assert_true(load(f, "Copy", "c-1", &rec));
    assert_string_equal(get_enum(f, "Copy", &rec, "status"), "on_shelf");
    fx_close(f);
}

/* clang-format off */
/* A policy that loads the very record its command just saved (uncommitted)
 * and writes it again. */
static const char audit[] =
    "spec: 1\n"
    "domain: audit\n"
    "aggregates:\n"
    "  Counter:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: int\n"
    "      n: {type: int, default: 0}\n"
    "      audited: {type: int, default: 0}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {id: int}\n"
    "      Inc:\n"
    "        params: {id: int}\n"
    "        set: {n: n + 1}\n"
    "        emits: Incremented\n"
    "      Audit:\n"
    "        params: {id: int}\n"
    "        guards:\n"
    "          - {check: n == audited + 1, refuse: the policy saw a stale record}\n"
    "        set: {audited: n}\n"
    "        emits: Audited\n"
    "policies:\n"
    "  - {on: Incremented, run: Counter.Audit, args: {id: event.id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Counter.Inc: {id: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static void test_policy_sees_its_commands_uncommitted_write(void **state)
{
    fx *f = fx_open(audit);
    ok(f, "Counter.Make", "{id: 7}");
    ok(f, "Counter.Inc", "{id: 7}");
    ok(f, "Counter.Inc", "{id: 7}");
    value rec;
    assert_true(load_int(f, "Counter", 7, &rec));
    assert_int_equal(get_int(f, "Counter", &rec, "n"), 2);
    assert_int_equal(get_int(f, "Counter", &rec, "audited"), 2);
    assert_int_equal(count_of(f, "Counter"), 1);
    assert_int_equal(count_of(f, "Incremented"), 2);
    assert_int_equal(count_of(f, "Audited"), 2);
    refused(f, "Counter.Inc", "{id: 8}", "Counter.Inc refused: Counter 8 does not exist");
    fx_close(f);
}

/* clang-format off */
/* S0 -> E0 -> S1 -> E1 ... -> S8: the longest chain the compiler allows. */
static const char chain[] =
    "spec: 1\n"
    "domain: chain\n"
    "aggregates:\n"
    "  C:\n"
    "    identity: id\n"
    "    fields: {id: string, n: {type: int, default: 0}}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: string}}\n"
    "      S0: {params: {id: string}, set: {n: n + 1}, emits: E0}\n"
    "      S1: {params: {id: string}, set: {n: n + 1}, emits: E1}\n"
    "      S2: {params: {id: string}, set: {n: n + 1}, emits: E2}\n"
    "      S3: {params: {id: string}, set: {n: n + 1}, emits: E3}\n"
    "      S4: {params: {id: string}, set: {n: n + 1}, emits: E4}\n"
    "      S5: {params: {id: string}, set: {n: n + 1}, emits: E5}\n"
    "      S6: {params: {id: string}, set: {n: n + 1}, emits: E6}\n"
    "      S7: {params: {id: string}, set: {n: n + 1}, emits: E7}\n"
    "      S8: {params: {id: string}, set: {n: n + 1}}\n"
    "policies:\n"
    "  - {on: E0, run: C.S1, args: {id: event.id}}\n"
    "  - {on: E1, run: C.S2, args: {id: event.id}}\n"
    "  - {on: E2, run: C.S3, args: {id: event.id}}\n"
    "  - {on: E3, run: C.S4, args: {id: event.id}}\n"
    "  - {on: E4, run: C.S5, args: {id: event.id}}\n"
    "  - {on: E5, run: C.S6, args: {id: event.id}}\n"
    "  - {on: E6, run: C.S7, args: {id: event.id}}\n"
    "  - {on: E7, run: C.S8, args: {id: event.id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - C.S0: {id: x}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static void test_policy_chain_of_depth_eight_runs(void **state)
{
    fx *f = fx_open(chain);
    ok(f, "C.Make", "{id: x}");
    ok(f, "C.S0", "{id: x}");
    value rec;
    assert_true(load(f, "C", "x", &rec));
    assert_int_equal(get_int(f, "C", &rec, "n"), 9);
    assert_int_equal(count_of(f, "E7"), 1);
    fx_close(f);
}

static void test_policy_chain_deeper_than_eight_refuses(void **state)
{
    fx *f = fx_open(chain);
    /* the compiler refuses cycles; make one behind its back, as a plan from
     * elsewhere might, to reach the runtime's own bound */
    command *s8 = (command *)verb(f, "C.S8");
    s8->event = verb(f, "C.S0")->event;
    ok(f, "C.Make", "{id: x}");
    assert_int_equal(call(f, "C.S0", "{id: x}"), TARGET_REFUSED);
    const char *m = f->t->message;
    const char *head = "C.S0 refused: policy C.S1 refused: policy C.S2 refused: policy";
    const char *tail = "C.S1 refused: policies chain deeper than 8";
    assert_memory_equal(m, head, strlen(head));
    assert_true(strlen(m) > strlen(tail));
    assert_string_equal(m + strlen(m) - strlen(tail), tail);
    value rec;
    assert_true(load(f, "C", "x", &rec));
    assert_int_equal(get_int(f, "C", &rec, "n"), 0);
    assert_int_equal(count_of(f, "E0"), 0);
    s8->event = NULL;
    fx_close(f);
}

/* clang-format off */
/* A create whose policy refuses: the create's pending write must vanish. */
static const char tagging[] =
    "spec: 1\n"
    "domain: tagging\n"
    "aggregates:\n"
    "  Item:\n"
    "    identity: id\n"
    "    fields: {id: string, tag: string}\n"
    "    commands:\n"
    "      Create:\n"
    "        creates: true\n"
    "        params: {id: string, tag: string}\n"
    "        set: {tag: arg.tag}\n"
    "        emits: Created\n"
    "  Tag:\n"
    "    identity: name\n"
    "    fields: {name: string}\n"
    "    commands:\n"
    "      Claim: {creates: true, params: {name: string}, emits: Claimed}\n"
    "policies:\n"
    "  - {on: Created, run: Tag.Claim, args: {name: event.tag}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Item.Create: {id: a, tag: t}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static void test_rolled_back_create_can_be_created_again(void **state)
{
    fx *f = fx_open(tagging);
    ok(f, "Item.Create", "{id: a, tag: red}");
    refused(f, "Item.Create", "{id: b, tag: red}",
            "Item.Create refused: policy Tag.Claim refused: Tag 'red' already exists");
    value rec;
    assert_false(load(f, "Item", "b", &rec));
    assert_int_equal(count_of(f, "Item"), 1);
    assert_int_equal(count_of(f, "Created"), 1);
    ok(f, "Item.Create", "{id: b, tag: blue}");
    assert_true(load(f, "Item", "b", &rec));
    assert_str(get(f, "Item", &rec, "tag"), "blue");
    assert_int_equal(count_of(f, "Item"), 2);
    assert_int_equal(count_of(f, "Tag"), 2);
    assert_int_equal(count_of(f, "Claimed"), 2);
    fx_close(f);
}

/* ---- scale ---- */

static void test_store_grows_past_many_thousands_of_records(void **state)
{
    enum { N = 30000 };
    fx *f = fx_open(pizzas);
    char args[128];
    for (int i = 0; i < N; i++) {
        snprintf(args, sizeof args, "{name: p%d, pizza: {price_cents: %d, size: small}}", i, i);
        ok(f, "Order.CreatePizza", args);
    }
    assert_int_equal(count_of(f, "Order"), N);
    assert_int_equal(count_of(f, "PizzaCreated"), N);
    for (int i = 0; i < N; i += 7) {
        char key[32];
        snprintf(key, sizeof key, "p%d", i);
        value rec;
        assert_true(load(f, "Order", key, &rec));
        assert_int_equal(get(f, "Order", &rec, "pizza")->u.items[0].u.i, i);
    }
    ok(f, "Order.AddTopping", "{name: p12345, topping: {name: Basil, amount: 3}}");
    refused(f, "Order.CreatePizza", "{name: p29999, pizza: {price_cents: 1, size: small}}",
            "Order.CreatePizza refused: Order 'p29999' already exists");
    value rec;
    assert_false(load(f, "Order", "p30000", &rec));
    fx_close(f);
}

static void test_int_identities_grow_too(void **state)
{
    enum { N = 20000 };
    fx *f = fx_open(audit);
    char args[64];
    for (int i = 0; i < N; i++) {
        snprintf(args, sizeof args, "{id: %d}", i * 1024); /* same low bits */
        ok(f, "Counter.Make", args);
    }
    assert_int_equal(count_of(f, "Counter"), N);
    ok(f, "Counter.Inc", "{id: 1024}");
    value rec;
    assert_true(load_int(f, "Counter", 1024, &rec));
    assert_int_equal(get_int(f, "Counter", &rec, "n"), 1);
    assert_false(load_int(f, "Counter", 1, &rec));
    fx_close(f);
}

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
    plan *p = compile_yaml(pizzas);
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
    assert_int_equal(target_find("memory")->available(NULL, why, sizeof why), 0);
    assert_int_equal(target_find("null")->available(NULL, why, sizeof why), 0);
}

static void test_null_target_accepts_everything_and_cannot_count(void **state)
{
    plan *p = compile_yaml(pizzas);
    const target_driver *drv = target_find("null");
    target *t;
    char err[128];
    assert_int_equal(drv->open(p, &p->work.targets[0], 1, &t, err, sizeof err), TARGET_OK);
    value args = {.kind = VAL_STRUCT}; /* not even well-formed: null does not look */
    for (int i = 0; i < 3; i++)
        assert_int_equal(target_dispatch(t, plan_find_verb(p, "Order.Purchase"), &args), TARGET_OK);
    uint64_t aggs[1], events[4];
    assert_int_equal(target_count(t, aggs, events), TARGET_UNSUPPORTED);
    assert_int_equal(target_probe(t), TARGET_UNSUPPORTED);
    target_close(t);
    plan_free(p);
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
        cmocka_unit_test(test_pizza_cycle_changes_the_record_and_counts_events),
        cmocka_unit_test(test_new_record_takes_defaults_and_leaves_optionals_unset),
        cmocka_unit_test(test_bad_argument_refuses_naming_the_parameter),
        cmocka_unit_test(test_create_refuses_an_identity_that_exists),
        cmocka_unit_test(test_command_refuses_an_identity_that_does_not_exist),
        cmocka_unit_test(test_guard_refuses_with_its_text),
        cmocka_unit_test(test_guards_run_in_order_and_the_first_false_one_refuses),
        cmocka_unit_test(test_list_guard_bounds_toppings),
        cmocka_unit_test(test_read_of_a_missing_record_refuses_naming_the_alias),
        cmocka_unit_test(test_guard_reads_the_loaded_alias),
        cmocka_unit_test(test_pattern_constraint_refuses_a_bad_argument),
        cmocka_unit_test(test_append_builds_a_struct_from_expressions),
        cmocka_unit_test(test_field_constraint_refuses_the_new_state_naming_the_field),
        cmocka_unit_test(test_ensure_compares_the_new_state_with_old),
        cmocka_unit_test(test_refusal_keeps_nothing_of_the_command),
        cmocka_unit_test(test_effects_see_the_old_state),
        cmocka_unit_test(test_append_build_fills_defaults_and_leaves_optionals_unset),
        cmocka_unit_test(test_list_max_items_is_an_invariant),
        cmocka_unit_test(test_payload_expressions_see_the_new_and_old_states),
        cmocka_unit_test(test_int_overflow_refuses),
        cmocka_unit_test(test_division_by_zero_refuses),
        cmocka_unit_test(test_reading_an_unset_optional_refuses),
        cmocka_unit_test(test_policy_runs_in_the_same_dispatch),
        cmocka_unit_test(test_refused_policy_rolls_back_the_whole_dispatch),
        cmocka_unit_test(test_policy_on_a_missing_record_refuses_the_command),
        cmocka_unit_test(test_policy_sees_its_commands_uncommitted_write),
        cmocka_unit_test(test_policy_chain_of_depth_eight_runs),
        cmocka_unit_test(test_policy_chain_deeper_than_eight_refuses),
        cmocka_unit_test(test_rolled_back_create_can_be_created_again),
        cmocka_unit_test(test_store_grows_past_many_thousands_of_records),
        cmocka_unit_test(test_int_identities_grow_too),
        cmocka_unit_test(test_store_error_is_an_error_not_a_refusal),
        cmocka_unit_test(test_registry_lists_memory_and_null),
        cmocka_unit_test(test_null_target_accepts_everything_and_cannot_count),
        cmocka_unit_test(test_target_fail_sets_the_message_and_returns_the_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
