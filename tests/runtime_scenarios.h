/* runtime_scenarios.h: what the C runtime does to a store (DESIGN section
 * 2), written once as a table of scenarios and run against every store:
 * test_runtime.c on memory, test_sqlite.c on the real SQLite and
 * test_postgres.c on the real PostgreSQL (plain and fenced). Each scenario
 * takes the options of the target that runs the runtime on the store
 * ({.name = "sqlite", .label = "sqlite"} ...) and opens its own fresh
 * store; every store must pass every one with the same assertions, the
 * memory runtime's messages included. Arguments are written as YAML flow
 * mappings and converted by type without checking constraints, so the
 * runtime's own checks are what refuse them. Include after cmocka.h. */
#ifndef BENCH_TESTS_RUNTIME_SCENARIOS_H
#define BENCH_TESTS_RUNTIME_SCENARIOS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql_fixture.h"
#include "step_inst.h"

/* ---- domains ---- */

/* clang-format off */

static const char pizzas_spec[] =
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

static const char banking_spec[] =
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

static const char library_spec[] =
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
    "  - {when: CopyLent, run: Member.CountLoan, args: {card: event.card}}\n"
    "  - {when: CopyReturned, run: Member.CountReturn,\n"
    "     args: {card: event.card, days_late: event.days_late}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Copy.Acquire: {barcode: c}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";

/* Odds and ends: swaps, built appends with defaults, arithmetic refusals,
 * an event payload computed from the new and old states. */
static const char misc_spec[] =
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
    "  - {when: Jotted, run: Log.Write,\n"
    "     args: {id: event.id, now: event.now, before: event.before, a: event.a}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Pair.Swap: {id: x}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";

/* clang-format on */

/* ---- pizzas: the happy path and each refusal ---- */

static inline void create_pizza(fx *f, const char *name)
{
    char args[128];
    snprintf(args, sizeof args, "{name: %s, pizza: {price_cents: 1200, size: large}}", name);
    fx_ok(f, "Order.CreatePizza", args);
}

static inline void scenario_pizza_cycle_changes_the_record_and_counts_events(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-1");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Olive, amount: 2}}");
    fx_ok(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1200}");

    value rec;
    assert_true(fx_load(f, "Order", "pizza-1", &rec));
    assert_string_equal(fx_enum(f, "Order", &rec, "status"), "sold");
    fx_assert_cstr(fx_get(f, "Order", &rec, "customer_name"), "Chris");
    const value *tops = fx_get(f, "Order", &rec, "toppings");
    assert_int_equal(tops->len, 2);
    fx_assert_cstr(&tops->u.items[0].u.items[0], "Basil");
    fx_assert_cstr(&tops->u.items[1].u.items[0], "Olive");
    assert_int_equal(tops->u.items[1].u.items[1].u.i, 2);
    const value *pizza = fx_get(f, "Order", &rec, "pizza");
    assert_int_equal(pizza->u.items[0].u.i, 1200);

    assert_int_equal(fx_count(f, "Order"), 1);
    assert_int_equal(fx_count(f, "PizzaCreated"), 1);
    assert_int_equal(fx_count(f, "ToppingAdded"), 2);
    assert_int_equal(fx_count(f, "PizzaPurchased"), 1);
    fx_close(f);
}

static inline void
scenario_new_record_takes_defaults_and_leaves_optionals_unset(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-1");
    value rec;
    assert_true(fx_load(f, "Order", "pizza-1", &rec));
    fx_assert_cstr(fx_get(f, "Order", &rec, "name"), "pizza-1");
    assert_string_equal(fx_enum(f, "Order", &rec, "status"), "available");
    assert_int_equal(fx_get(f, "Order", &rec, "customer_name")->kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Order", &rec, "toppings")->kind, VAL_LIST);
    assert_int_equal(fx_get(f, "Order", &rec, "toppings")->len, 0);
    fx_close(f);
}

static inline void scenario_bad_argument_refuses_naming_the_parameter(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-1");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: -5}",
               "Order.Purchase refused: amount: -5 is less than the minimum 0");
    fx_refused(f, "Order.CreatePizza", "{name: pizza-2, pizza: {price_cents: -1, size: large}}",
               "Order.CreatePizza refused: pizza.price_cents: -1 is less than the minimum 0");
    assert_int_equal(fx_count(f, "Order"), 1);
    fx_close(f);
}

/* ---- constant arguments, checked once (step_inst.h's checked) ---- */

/* clang-format off */
static const char boxes_spec[] =
    "spec: 1\n"
    "domain: boxes\n"
    "types:\n"
    "  Code: {type: string, pattern: '^c-[0-9]+$'}\n"
    "  Label: {fields: {text: {type: string, max_length: 8}, size: {type: int, min: 1}}}\n"
    "aggregates:\n"
    "  Box:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: Code\n"
    "      qty: {type: int, default: 0}\n"
    "      label: {type: Label, optional: true}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {id: Code, qty: {type: int, min: 1, max: 9}, note: {type: string, max_length: 4}}\n"
    "        set: {qty: arg.qty}\n"
    "      Tag:\n"
    "        params: {id: Code, label: Label}\n"
    "        set: {label: arg.label}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Box.Make: {id: \"c-${n}\", qty: 3, note: ok}\n"
    "    - Box.Tag: {id: c-1, label: {text: \"t${n}\", size: 2}}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

/* The instance of the step's i-th cycle step, its arguments in f's plan. */
static inline void boxes_step(fx *f, arena *a, size_t i, step_inst *si)
{
    assert_true(f->p->work.nflows >= 1 && f->p->work.flows[0].nsteps > i);
    step_inst_init(a, si, &f->p->work.flows[0].steps[i]);
}

/* Dispatches si as the runner does, and once more with every argument
 * checked: both must be refused with message. */
static inline void boxes_refused_both_ways(fx *f, const step_inst *si, const char *message)
{
    const command *cmd = si->st->cmd;
    for (int checked = 1; checked >= 0; checked--) {
        f->t->message[0] = '\0';
        int rc = checked ? target_dispatch_checked(f->t, cmd, &si->args, si->checked)
                         : target_dispatch(f->t, cmd, &si->args);
        if (rc != TARGET_REFUSED)
            fail_msg("%s: expected a refusal, got %d %s", cmd->verb, rc, f->t->message);
        assert_string_equal(f->t->message, message);
    }
}

/* A step's constants (no template in them) are checked once, when its
 * instance is built, and marked; a template's argument, a whole struct
 * when a template fills a field of it, is checked on every dispatch, and a
 * constant that fails (the compiler refuses those; here one is put in the
 * compiled step by hand) is left unmarked and refused, in the same words as
 * a dispatch that checks every argument. */
static inline void
scenario_constant_arguments_are_checked_once_and_the_rest_always(const target_spec *ts)
{
    fx *f = fx_open(boxes_spec, ts);
    arena a = {0};
    step_inst make, tag;
    boxes_step(f, &a, 0, &make);
    boxes_step(f, &a, 1, &tag);
    assert_int_equal(make.checked, 1u << 1 | 1u << 2); /* qty, note; not id */
    assert_int_equal(tag.checked, 1u << 0);            /* id; not label: text varies */

    /* the template's value, filled as mix_expand would, is checked each time */
    *make.slots[0] = (value){.kind = VAL_STRING, .len = 3, .u.s = "x-1"};
    for (int i = 0; i < 2; i++)
        boxes_refused_both_ways(
            f, &make, "Box.Make refused: id: 'x-1' does not match the pattern ^c-[0-9]+$");
    *make.slots[0] = (value){.kind = VAL_STRING, .len = 3, .u.s = "c-1"};
    assert_int_equal(target_dispatch_checked(f->t, make.st->cmd, &make.args, make.checked),
                     TARGET_OK);
    *tag.slots[0] = (value){.kind = VAL_STRING, .len = 9, .u.s = "too-long!"};
    boxes_refused_both_ways(f, &tag,
                            "Box.Tag refused: label.text: 9 character(s), more than the maximum 8");
    *tag.slots[0] = (value){.kind = VAL_STRING, .len = 2, .u.s = "t1"};
    assert_int_equal(target_dispatch_checked(f->t, tag.st->cmd, &tag.args, tag.checked), TARGET_OK);

    /* constants that break their constraints: qty below its minimum, a
       note too long; the first in field order is the one named */
    step *st = &f->p->work.flows[0].steps[0];
    st->args.u.items[1].u.i = 0;
    st->args.u.items[2] = (value){.kind = VAL_STRING, .len = 5, .u.s = "hello"};
    step_inst bad;
    step_inst_init(&a, &bad, st);
    assert_int_equal(bad.checked, 0);
    *bad.slots[0] = (value){.kind = VAL_STRING, .len = 3, .u.s = "c-2"};
    for (int i = 0; i < 2; i++)
        boxes_refused_both_ways(f, &bad, "Box.Make refused: qty: 0 is less than the minimum 1");
    st->args.u.items[1].u.i = 4;
    step_inst_free(&bad);
    step_inst_init(&a, &bad, st);
    assert_int_equal(bad.checked, 1u << 1);
    *bad.slots[0] = (value){.kind = VAL_STRING, .len = 3, .u.s = "c-2"};
    boxes_refused_both_ways(f, &bad,
                            "Box.Make refused: note: 5 character(s), more than the maximum 4");
    assert_int_equal(fx_count(f, "Box"), 1);

    step_inst_free(&make);
    step_inst_free(&tag);
    step_inst_free(&bad);
    arena_free(&a);
    fx_close(f);
}

static inline void scenario_create_refuses_an_identity_that_exists(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-3");
    fx_refused(f, "Order.CreatePizza", "{name: pizza-3, pizza: {price_cents: 1, size: small}}",
               "Order.CreatePizza refused: Order 'pizza-3' already exists");
    value rec;
    assert_true(fx_load(f, "Order", "pizza-3", &rec));
    assert_int_equal(fx_get(f, "Order", &rec, "pizza")->u.items[0].u.i, 1200);
    assert_int_equal(fx_count(f, "PizzaCreated"), 1);
    fx_close(f);
}

static inline void scenario_command_refuses_an_identity_that_does_not_exist(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    fx_refused(f, "Order.AddTopping", "{name: pizza-9, topping: {name: Basil, amount: 3}}",
               "Order.AddTopping refused: Order 'pizza-9' does not exist");
    assert_int_equal(fx_count(f, "Order"), 0);
    assert_int_equal(fx_count(f, "ToppingAdded"), 0);
    fx_close(f);
}

static inline void scenario_guard_refuses_with_its_text(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-1");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_ok(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1200}");
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Dana, amount: 1500}",
               "Order.Purchase refused: the pizza is already sold");
    value rec;
    assert_true(fx_load(f, "Order", "pizza-1", &rec));
    fx_assert_cstr(fx_get(f, "Order", &rec, "customer_name"), "Chris");
    assert_int_equal(fx_count(f, "PizzaPurchased"), 1);
    fx_close(f);
}

static inline void
scenario_guards_run_in_order_and_the_first_false_one_refuses(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-1");
    /* no topping and no payment: the topping guard comes first */
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 0}",
               "Order.Purchase refused: a pizza needs a topping");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 0}",
               "Order.Purchase refused: payment must be positive");
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1199}",
               "Order.Purchase refused: payment does not cover the price");
    fx_close(f);
}

static inline void scenario_list_guard_bounds_toppings(const target_spec *ts)
{
    fx *f = fx_open(pizzas_spec, ts);
    create_pizza(f, "pizza-1");
    for (int i = 0; i < 10; i++)
        fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 1}}");
    fx_refused(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 1}}",
               "Order.AddTopping refused: at most 10 toppings");
    assert_int_equal(fx_count(f, "ToppingAdded"), 10);
    fx_close(f);
}

/* ---- banking: reads, built appends, invariants, ensure, payloads ---- */

static const char ada[] =
    "{reference: CUST-0001, name: {given: Ada, family: Lovelace}, email: ada@example.com}";

static inline void scenario_read_of_a_missing_record_refuses_naming_the_alias(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    fx_ok(f, "Customer.Register", ada);
    fx_refused(f, "Account.Open", "{number: acct-1, customer: CUST-0002, daily_limit: 100}",
               "Account.Open refused: Customer 'CUST-0002' does not exist (read as owner)");
    assert_int_equal(fx_count(f, "Account"), 0);
    fx_ok(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 100}");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_string_equal(fx_enum(f, "Account", &rec, "customer_status"), "active");
    fx_close(f);
}

static inline void scenario_guard_reads_the_loaded_alias(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    fx_ok(f, "Customer.Register", ada);
    fx_ok(f, "Customer.Suspend", "{reference: CUST-0001}");
    fx_refused(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 100}",
               "Account.Open refused: the customer is not active");
    fx_close(f);
}

static inline void scenario_pattern_constraint_refuses_a_bad_argument(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    fx_refused(f, "Customer.Register",
               "{reference: CUST-0001, name: {given: Ada, family: Lovelace}, email: not-an-email}",
               "Customer.Register refused: email: 'not-an-email' does not match the pattern "
               "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$");
    assert_int_equal(fx_count(f, "Customer"), 0);
    fx_close(f);
}

static inline void open_account(fx *f)
{
    fx_ok(f, "Customer.Register", ada);
    fx_ok(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 50000}");
}

static inline void scenario_append_builds_a_struct_from_expressions(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    open_account(f);
    fx_ok(f, "Account.Credit", "{number: acct-1, amount: 10000, narrative: Deposit}");
    fx_ok(f, "Account.Credit", "{number: acct-1, amount: 5000, narrative: Deposit}");
    fx_ok(f, "Account.Debit", "{number: acct-1, amount: 2500, narrative: Groceries}");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_int_equal(fx_int(f, "Account", &rec, "balance"), 12500);
    const value *ledger = fx_get(f, "Account", &rec, "ledger");
    assert_int_equal(ledger->len, 3);
    for (uint32_t i = 0; i < 3; i++)
        assert_int_equal(ledger->u.items[i].u.items[0].u.i, i + 1); /* sequence */
    const value *debit = &ledger->u.items[2];
    assert_int_equal(debit->u.items[1].u.i, 2500);
    fx_assert_cstr(&debit->u.items[2], "Groceries");
    assert_int_equal(debit->u.items[3].u.e, 1); /* debit */
    assert_int_equal(fx_count(f, "AccountCredited"), 2);
    assert_int_equal(fx_count(f, "AccountDebited"), 1);
    fx_close(f);
}

static inline void
scenario_field_constraint_refuses_the_new_state_naming_the_field(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    open_account(f);
    fx_ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    fx_refused(f, "Account.Overdraw", "{number: acct-1, amount: 105}",
               "Account.Overdraw refused: balance: -5 is less than the minimum 0");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_int_equal(fx_int(f, "Account", &rec, "balance"), 100);
    fx_close(f);
}

static inline void scenario_ensure_compares_the_new_state_with_old(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    open_account(f);
    fx_ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    fx_ok(f, "Account.Debit", "{number: acct-1, amount: 40, narrative: Tea}"); /* ensures hold */
    fx_refused(f, "Account.Skim", "{number: acct-1, amount: 10}",
               "Account.Skim refused: the balance moved wrongly");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_int_equal(fx_int(f, "Account", &rec, "balance"), 60);
    assert_int_equal(fx_get(f, "Account", &rec, "ledger")->len, 2);
    fx_close(f);
}

static inline void scenario_refusal_keeps_nothing_of_the_command(const target_spec *ts)
{
    fx *f = fx_open(banking_spec, ts);
    open_account(f);
    fx_ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    uint64_t credited = fx_count(f, "AccountCredited"), debited = fx_count(f, "AccountDebited");
    fx_refused(f, "Account.Debit", "{number: acct-1, amount: 101, narrative: Too much}",
               "Account.Debit refused: the balance does not cover it");
    fx_refused(f, "Account.Skim", "{number: acct-1, amount: 1}",
               "Account.Skim refused: the balance moved wrongly");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_int_equal(fx_int(f, "Account", &rec, "balance"), 100);
    assert_int_equal(fx_get(f, "Account", &rec, "ledger")->len, 1);
    assert_int_equal(fx_count(f, "AccountCredited"), credited);
    assert_int_equal(fx_count(f, "AccountDebited"), debited);
    assert_int_equal(fx_count(f, "Account"), 1);
    fx_close(f);
}

/* ---- misc: effects on the old state, defaults, arithmetic ---- */

static inline void scenario_effects_see_the_old_state(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_ok(f, "Pair.Swap", "{id: x}");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    assert_int_equal(fx_int(f, "Pair", &rec, "a"), 2);
    assert_int_equal(fx_int(f, "Pair", &rec, "b"), 1);
    /* the appended item reads a before the set raises it */
    fx_ok(f, "Pair.JotTagged", "{id: x, tag: red}");
    assert_true(fx_load(f, "Pair", "x", &rec));
    assert_int_equal(fx_int(f, "Pair", &rec, "a"), 102);
    const value *note = &fx_get(f, "Pair", &rec, "notes")->u.items[0];
    assert_int_equal(note->u.items[0].u.i, 2);
    fx_assert_cstr(&note->u.items[1], "tagged");
    assert_int_equal(note->u.items[2].u.e, 0); /* plain */
    fx_assert_cstr(&note->u.items[3], "red");
    fx_close(f);
}

static inline void
scenario_append_build_fills_defaults_and_leaves_optionals_unset(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    const value *notes = fx_get(f, "Pair", &rec, "notes");
    assert_int_equal(notes->len, 1);
    const value *note = &notes->u.items[0];
    assert_int_equal(note->u.items[0].u.i, 1);
    fx_assert_cstr(&note->u.items[1], "none");
    assert_int_equal(note->u.items[2].kind, VAL_ENUM);
    assert_int_equal(note->u.items[2].u.e, 1); /* fancy */
    assert_int_equal(note->u.items[3].kind, VAL_NONE);
    fx_close(f);
}

static inline void scenario_list_max_items_is_an_invariant(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    fx_refused(f, "Pair.Jot", "{id: x}",
               "Pair.Jot refused: notes: 3 item(s), more than the maximum 2");
    assert_int_equal(fx_count(f, "Jotted"), 2);
    assert_int_equal(fx_count(f, "Log"), 2);
    fx_close(f);
}

/* clang-format off */
static const char changed_spec[] =
    "spec: 1\n"
    "domain: changed\n"
    "aggregates:\n"
    "  Log:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      label: {type: string, min_length: 2, max_length: 3, default: ab}\n"
    "      lines: {list: {fields: {n: {type: int, min: 1}}}}\n"
    "    commands:\n"
    "      Open: {creates: true, params: {id: string}}\n"
    "      Write: {params: {id: string, n: int}, append: {lines: {n: arg.n}}}\n"
    "      Label: {params: {id: string, label: string}, set: {label: arg.label}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Log.Open: {id: \"l-${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

/* Only what a command changes is checked against its constraints, in the
 * words a check of the whole new state uses: an appended item names its
 * list, a string's length counts characters (not bytes); a refusal keeps
 * nothing, and the list grows on after it. */
static inline void scenario_changed_fields_are_checked_in_the_same_words(const target_spec *ts)
{
    fx *f = fx_open(changed_spec, ts);
    fx_ok(f, "Log.Open", "{id: x}");
    for (int i = 1; i <= 5; i++)
        fx_ok(f, "Log.Write", "{id: x, n: 3}");
    fx_refused(f, "Log.Write", "{id: x, n: 0}",
               "Log.Write refused: lines.n: 0 is less than the minimum 1");
    fx_ok(f, "Log.Write", "{id: x, n: 7}");
    value rec;
    assert_true(fx_load(f, "Log", "x", &rec));
    const value *lines = fx_get(f, "Log", &rec, "lines");
    assert_int_equal(lines->len, 6);
    assert_int_equal(lines->u.items[5].u.items[0].u.i, 7);
    fx_ok(f, "Log.Label", "{id: x, label: \"\u00e9\u00e9\u00e9\"}"); /* 6 bytes, 3 characters */
    fx_refused(f, "Log.Label", "{id: x, label: \"\u00e9\u00e9\u00e9\u00e9\"}",
               "Log.Label refused: label: 4 character(s), more than the maximum 3");
    fx_refused(f, "Log.Label", "{id: x, label: a}",
               "Log.Label refused: label: 1 character(s), fewer than the minimum 2");
    assert_true(fx_load(f, "Log", "x", &rec));
    assert_int_equal(fx_get(f, "Log", &rec, "label")->len, 6);
    fx_close(f);
}

/* clang-format off */
static const char creates_spec[] =
    "spec: 1\n"
    "domain: creates\n"
    "aggregates:\n"
    "  Tag:\n"
    "    identity: id\n"
    "    fields:\n"
    "      size: {type: int, min: 1}\n"
    "      id: {type: string, min_length: 2}\n"
    "      color: {type: string, default: red}\n"
    "      marks: {list: {type: int, max: 9}}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: string, size: int, mark: int},\n"
    "             set: {size: arg.size}, append: {marks: arg.mark}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Tag.Make: {id: \"t-${n}\", size: 1, mark: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

/* A create checks what it sets (its identity from the arguments, its
 * effects) in the words of a check of the whole new record, the first
 * failing field in field order; a refused create keeps nothing. */
static inline void scenario_creates_check_what_they_set_in_the_same_words(const target_spec *ts)
{
    fx *f = fx_open(creates_spec, ts);
    /* arguments of types without constraints are refused only unset */
    fx_refused(f, "Tag.Make", "{size: 2, mark: 1}", "Tag.Make refused: id is not set");
    fx_refused(f, "Tag.Make", "{id: ab, mark: 1}", "Tag.Make refused: size is not set");
    fx_refused(f, "Tag.Make", "{id: x, size: 2, mark: 1}",
               "Tag.Make refused: id: 1 character(s), fewer than the minimum 2");
    fx_refused(f, "Tag.Make", "{id: ab, size: 0, mark: 1}",
               "Tag.Make refused: size: 0 is less than the minimum 1");
    fx_refused(f, "Tag.Make", "{id: x, size: 0, mark: 1}",
               "Tag.Make refused: size: 0 is less than the minimum 1");
    fx_refused(f, "Tag.Make", "{id: ab, size: 1, mark: 10}",
               "Tag.Make refused: marks: 10 is greater than the maximum 9");
    assert_int_equal(fx_count(f, "Tag"), 0);
    fx_ok(f, "Tag.Make", "{id: ab, size: 1, mark: 9}");
    value rec;
    assert_true(fx_load(f, "Tag", "ab", &rec));
    assert_int_equal(fx_get(f, "Tag", &rec, "size")->u.i, 1);
    assert_int_equal(fx_get(f, "Tag", &rec, "color")->len, 3);
    assert_int_equal(fx_get(f, "Tag", &rec, "marks")->len, 1);
    assert_int_equal(fx_count(f, "Tag"), 1);
    fx_close(f);
}

/* clang-format off */
static const char passed_spec[] =
    "spec: 1\n"
    "domain: passed\n"
    "types:\n"
    "  Small: {type: int, min: 1, max: 9}\n"
    "  Word: {type: string, min_length: 2}\n"
    "  Mark: {fields: {n: Small, w: Word, seq: {type: int, min: 1}}}\n"
    "aggregates:\n"
    "  Sheet:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: Word\n"
    "      size: Small\n"
    "      top: {type: int, max: 5, default: 0}\n"
    "      smalls: {list: Small, max_items: 2}\n"
    "      marks: {list: Mark, max_items: 3}\n"
    "      tag: {type: string, min_length: 3, default: abc}\n"
    "    commands:\n"
    "      Open: {creates: true, params: {id: Word, size: Small}, set: {size: arg.size}}\n"
    "      Tag: {params: {id: Word, w: Word}, set: {tag: arg.w}}\n"
    "      Push: {params: {id: Word, n: Small}, append: {smalls: arg.n}}\n"
    "      Mark:\n"
    "        params: {id: Word, n: Small, w: Word, seq: int}\n"
    "        append: {marks: {n: arg.n, w: arg.w, seq: arg.seq}}\n"
    "      Copy: {params: {id: Word}, set: {top: size}}\n"
    "      Six: {params: {id: Word}, set: {top: 6}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Sheet.Open: {id: \"s-${n}\", size: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

/* What passed its type's checks already (an argument or a stored field of
 * the same type, a constant that passes) is not checked again when stored,
 * and the refusals are the same words: an argument's own, a list's
 * max_items after an appended argument, a built item's other fields, a
 * stored field copied into a tighter one, a constant that breaks its field. */
static inline void scenario_values_that_passed_are_refused_in_the_same_words(const target_spec *ts)
{
    fx *f = fx_open(passed_spec, ts);
    fx_refused(f, "Sheet.Open", "{id: ab, size: 10}",
               "Sheet.Open refused: size: 10 is greater than the maximum 9");
    fx_refused(f, "Sheet.Open", "{id: a, size: 1}",
               "Sheet.Open refused: id: 1 character(s), fewer than the minimum 2");
    fx_ok(f, "Sheet.Open", "{id: ab, size: 7}");
    /* a string field tighter than the argument's type is checked */
    fx_refused(f, "Sheet.Tag", "{id: ab, w: xy}",
               "Sheet.Tag refused: tag: 2 character(s), fewer than the minimum 3");
    fx_ok(f, "Sheet.Tag", "{id: ab, w: xyz}");
    fx_ok(f, "Sheet.Push", "{id: ab, n: 1}");
    fx_ok(f, "Sheet.Push", "{id: ab, n: 2}");
    fx_refused(f, "Sheet.Push", "{id: ab, n: 3}",
               "Sheet.Push refused: smalls: 3 item(s), more than the maximum 2");
    fx_refused(f, "Sheet.Push", "{id: ab, n: 0}",
               "Sheet.Push refused: n: 0 is less than the minimum 1");
    fx_ok(f, "Sheet.Mark", "{id: ab, n: 1, w: xy, seq: 1}");
    fx_refused(f, "Sheet.Mark", "{id: ab, n: 1, w: xy, seq: 0}",
               "Sheet.Mark refused: marks.seq: 0 is less than the minimum 1");
    fx_refused(f, "Sheet.Mark", "{id: ab, n: 1, w: x, seq: 2}",
               "Sheet.Mark refused: w: 1 character(s), fewer than the minimum 2");
    fx_ok(f, "Sheet.Mark", "{id: ab, n: 2, w: xy, seq: 2}");
    fx_ok(f, "Sheet.Mark", "{id: ab, n: 3, w: xy, seq: 3}");
    fx_refused(f, "Sheet.Mark", "{id: ab, n: 4, w: xy, seq: 4}",
               "Sheet.Mark refused: marks: 4 item(s), more than the maximum 3");
    fx_refused(f, "Sheet.Copy", "{id: ab}",
               "Sheet.Copy refused: top: 7 is greater than the maximum 5");
    fx_refused(f, "Sheet.Six", "{id: ab}",
               "Sheet.Six refused: top: 6 is greater than the maximum 5");
    value rec;
    assert_true(fx_load(f, "Sheet", "ab", &rec));
    assert_int_equal(fx_get(f, "Sheet", &rec, "smalls")->len, 2);
    assert_int_equal(fx_get(f, "Sheet", &rec, "marks")->len, 3);
    assert_int_equal(fx_get(f, "Sheet", &rec, "top")->u.i, 0);
    fx_close(f);
}

static inline void scenario_payload_expressions_see_the_new_and_old_states(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 7, b: 2}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    value rec;
    assert_true(fx_load_int(f, "Log", 1, &rec));
    fx_assert_cstr(fx_get(f, "Log", &rec, "id"), "x");
    assert_int_equal(fx_int(f, "Log", &rec, "before"), 0);
    assert_int_equal(fx_int(f, "Log", &rec, "a"), 7);
    fx_close(f);
}

static inline void scenario_int_overflow_refuses(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 9223372036854775806, b: 0}");
    fx_ok(f, "Pair.Add", "{id: x, by: 1}");
    fx_refused(f, "Pair.Add", "{id: x, by: 1}",
               "Pair.Add refused: integer overflow in \"a + arg.by\"");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    assert_int_equal(fx_int(f, "Pair", &rec, "a"), INT64_MAX);
    fx_close(f);
}

static inline void scenario_division_by_zero_refuses(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 7, b: 0}");
    fx_ok(f, "Pair.Divide", "{id: x, by: -2}");
    fx_refused(f, "Pair.Divide", "{id: x, by: 0}",
               "Pair.Divide refused: division by zero in \"a / arg.by\"");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    assert_int_equal(fx_int(f, "Pair", &rec, "a"), -3); /* C truncation */
    fx_close(f);
}

static inline void scenario_reading_an_unset_optional_refuses(const target_spec *ts)
{
    fx *f = fx_open(misc_spec, ts);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_refused(f, "Pair.Greet", "{id: x}",
               "Pair.Greet refused: an optional field is not set in \"nick == 'bob'\"");
    fx_close(f);
}

/* ---- policies ---- */

static inline void library_setup(fx *f, int max_loans)
{
    char args[64];
    snprintf(args, sizeof args, "{card: M-0001, max_loans: %d}", max_loans);
    fx_ok(f, "Member.Join", args);
}

static inline void scenario_policy_runs_in_the_same_dispatch(const target_spec *ts)
{
    fx *f = fx_open(library_spec, ts);
    library_setup(f, 3);
    fx_ok(f, "Copy.Acquire", "{barcode: c-1}");
    fx_ok(f, "Copy.Lend", "{barcode: c-1, card: M-0001}");
    value rec;
    assert_true(fx_load(f, "Member", "M-0001", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "CopyLent"), 1);
    assert_int_equal(fx_count(f, "LoanCounted"), 1);

    /* the payload of Return is computed: card comes from the copy's borrower */
    fx_ok(f, "Copy.Return", "{barcode: c-1, days_late: 2}");
    assert_true(fx_load(f, "Member", "M-0001", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 0);
    assert_int_equal(fx_int(f, "Member", &rec, "fines"), 50);
    assert_int_equal(fx_count(f, "CopyReturned"), 1);
    fx_close(f);
}

static inline void scenario_refused_policy_rolls_back_the_whole_dispatch(const target_spec *ts)
{
    fx *f = fx_open(library_spec, ts);
    library_setup(f, 1);
    fx_ok(f, "Copy.Acquire", "{barcode: c-1}");
    fx_ok(f, "Copy.Acquire", "{barcode: c-2}");
    fx_ok(f, "Copy.Lend", "{barcode: c-1, card: M-0001}");
    fx_refused(f, "Copy.Lend", "{barcode: c-2, card: M-0001}",
               "Copy.Lend refused: policy Member.CountLoan refused: at most max_loans loans");
    value rec;
    assert_true(fx_load(f, "Copy", "c-2", &rec));
    assert_string_equal(fx_enum(f, "Copy", &rec, "status"), "on_shelf");
    fx_assert_cstr(fx_get(f, "Copy", &rec, "borrower"), "");
    assert_true(fx_load(f, "Member", "M-0001", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "CopyLent"), 1);
    assert_int_equal(fx_count(f, "LoanCounted"), 1);
    fx_close(f);
}

static inline void scenario_policy_on_a_missing_record_refuses_the_command(const target_spec *ts)
{
    fx *f = fx_open(library_spec, ts);
    fx_ok(f, "Copy.Acquire", "{barcode: c-1}");
    fx_refused(f, "Copy.Lend", "{barcode: c-1, card: M-0404}",
               "Copy.Lend refused: policy Member.CountLoan refused: Member 'M-0404' does not "
               "exist");
    value rec;
    assert_true(fx_load(f, "Copy", "c-1", &rec));
    assert_string_equal(fx_enum(f, "Copy", &rec, "status"), "on_shelf");
    fx_close(f);
}

/* clang-format off */
/* A policy that loads the very record its command just saved (uncommitted)
 * and writes it again. */
static const char audit_spec[] =
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
    "  - {when: Incremented, run: Counter.Audit, args: {id: event.id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Counter.Inc: {id: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static inline void scenario_policy_sees_its_commands_uncommitted_write(const target_spec *ts)
{
    fx *f = fx_open(audit_spec, ts);
    fx_ok(f, "Counter.Make", "{id: 7}");
    fx_ok(f, "Counter.Inc", "{id: 7}");
    fx_ok(f, "Counter.Inc", "{id: 7}");
    value rec;
    assert_true(fx_load_int(f, "Counter", 7, &rec));
    assert_int_equal(fx_int(f, "Counter", &rec, "n"), 2);
    assert_int_equal(fx_int(f, "Counter", &rec, "audited"), 2);
    assert_int_equal(fx_count(f, "Counter"), 1);
    assert_int_equal(fx_count(f, "Incremented"), 2);
    assert_int_equal(fx_count(f, "Audited"), 2);
    fx_refused(f, "Counter.Inc", "{id: 8}", "Counter.Inc refused: Counter 8 does not exist");
    fx_close(f);
}

/* clang-format off */
/* S0 -> E0 -> S1 -> E1 ... -> S8: the longest chain the compiler allows. */
static const char chain_spec[] =
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
    "  - {when: E0, run: C.S1, args: {id: event.id}}\n"
    "  - {when: E1, run: C.S2, args: {id: event.id}}\n"
    "  - {when: E2, run: C.S3, args: {id: event.id}}\n"
    "  - {when: E3, run: C.S4, args: {id: event.id}}\n"
    "  - {when: E4, run: C.S5, args: {id: event.id}}\n"
    "  - {when: E5, run: C.S6, args: {id: event.id}}\n"
    "  - {when: E6, run: C.S7, args: {id: event.id}}\n"
    "  - {when: E7, run: C.S8, args: {id: event.id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - C.S0: {id: x}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static inline void scenario_policy_chain_of_depth_eight_runs(const target_spec *ts)
{
    fx *f = fx_open(chain_spec, ts);
    fx_ok(f, "C.Make", "{id: x}");
    fx_ok(f, "C.S0", "{id: x}");
    value rec;
    assert_true(fx_load(f, "C", "x", &rec));
    assert_int_equal(fx_int(f, "C", &rec, "n"), 9);
    assert_int_equal(fx_count(f, "E7"), 1);
    fx_close(f);
}

static inline void scenario_policy_chain_deeper_than_eight_refuses(const target_spec *ts)
{
    fx *f = fx_open(chain_spec, ts);
    /* the compiler refuses cycles; make one behind its back, as a plan from
     * elsewhere might, to reach the runtime's own bound */
    command *s8 = (command *)fx_verb(f, "C.S8");
    s8->event = fx_verb(f, "C.S0")->event;
    fx_ok(f, "C.Make", "{id: x}");
    assert_int_equal(fx_call(f, "C.S0", "{id: x}"), TARGET_REFUSED);
    const char *m = f->t->message;
    const char *head = "C.S0 refused: policy C.S1 refused: policy C.S2 refused: policy";
    const char *tail = "C.S1 refused: policies chain deeper than 8";
    assert_memory_equal(m, head, strlen(head));
    assert_true(strlen(m) > strlen(tail));
    assert_string_equal(m + strlen(m) - strlen(tail), tail);
    value rec;
    assert_true(fx_load(f, "C", "x", &rec));
    assert_int_equal(fx_int(f, "C", &rec, "n"), 0);
    assert_int_equal(fx_count(f, "E0"), 0);
    s8->event = NULL;
    fx_close(f);
}

/* clang-format off */
/* A create whose policy refuses: the create's pending write must vanish. */
static const char tagging_spec[] =
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
    "  - {when: Created, run: Tag.Claim, args: {name: event.tag}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Item.Create: {id: a, tag: t}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static inline void scenario_rolled_back_create_can_be_created_again(const target_spec *ts)
{
    fx *f = fx_open(tagging_spec, ts);
    fx_ok(f, "Item.Create", "{id: a, tag: red}");
    fx_refused(f, "Item.Create", "{id: b, tag: red}",
               "Item.Create refused: policy Tag.Claim refused: Tag 'red' already exists");
    value rec;
    assert_false(fx_load(f, "Item", "b", &rec));
    assert_int_equal(fx_count(f, "Item"), 1);
    assert_int_equal(fx_count(f, "Created"), 1);
    fx_ok(f, "Item.Create", "{id: b, tag: blue}");
    assert_true(fx_load(f, "Item", "b", &rec));
    fx_assert_cstr(fx_get(f, "Item", &rec, "tag"), "blue");
    assert_int_equal(fx_count(f, "Item"), 2);
    assert_int_equal(fx_count(f, "Tag"), 2);
    assert_int_equal(fx_count(f, "Claimed"), 2);
    fx_close(f);
}

/* ---- policies over lists ---- */

/* clang-format off */
/* Checkout emits the cart's lines; a for_each policy reserves each line's
 * product. Submit checks out through a plain policy first, and every
 * reservation is tallied by a policy of its own: a for_each in the middle
 * of a chain. Tag claims each of a list of strings: a scalar item. */
static const char shop_spec[] =
    "spec: 1\n"
    "domain: shop\n"
    "types:\n"
    "  Line: {fields: {sku: string, qty: int}}\n"
    "aggregates:\n"
    "  Product:\n"
    "    identity: sku\n"
    "    fields:\n"
    "      sku: string\n"
    "      stock: {type: int, min: 0}\n"
    "      reserved: {type: int, default: 0}\n"
    "    commands:\n"
    "      Create: {creates: true, params: {sku: string, stock: int}, set: {stock: arg.stock}}\n"
    "      Reserve:\n"
    "        params: {sku: string, qty: int}\n"
    "        guards:\n"
    "          - {check: stock >= arg.qty, refuse: not enough stock}\n"
    "        set: {stock: stock - arg.qty, reserved: reserved + arg.qty}\n"
    "        emits: Reserved\n"
    "  Cart:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      lines: {list: Line}\n"
    "      status: {enum: [open, done], default: open}\n"
    "    commands:\n"
    "      Open: {creates: true, params: {id: string}}\n"
    "      Add:\n"
    "        params: {id: string, sku: string, qty: int}\n"
    "        append: {lines: {sku: arg.sku, qty: arg.qty}}\n"
    "      Checkout:\n"
    "        params: {id: string}\n"
    "        set: {status: done}\n"
    "        emits: {event: CheckedOut, payload: {id: arg.id, lines: lines}}\n"
    "      Submit: {params: {id: string}, emits: Submitted}\n"
    "      Tag: {params: {id: string, tags: {list: string, optional: true}}, emits: Tagged}\n"
    "  Tally:\n"
    "    identity: name\n"
    "    fields: {name: string, n: {type: int, default: 0}, units: {type: int, default: 0}}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {name: string}}\n"
    "      Bump:\n"
    "        params: {name: string, units: int}\n"
    "        set: {n: n + 1, units: units + arg.units}\n"
    "  Label:\n"
    "    identity: name\n"
    "    fields: {name: string, cart: string}\n"
    "    commands:\n"
    "      Claim: {creates: true, params: {name: string, cart: string}, set: {cart: arg.cart},\n"
    "              emits: Claimed}\n"
    "policies:\n"
    "  - {when: Submitted, run: Cart.Checkout, args: {id: event.id}}\n"
    "  - when: CheckedOut\n"
    "    for_each: event.lines\n"
    "    run: Product.Reserve\n"
    "    args: {sku: item.sku, qty: item.qty}\n"
    "  - {when: Reserved, run: Tally.Bump, args: {name: \"'reserved'\", units: event.qty}}\n"
    "  - {when: Tagged, for_each: event.tags, run: Label.Claim, args: {name: item, cart: event.id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Cart.Open: {id: c}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

/* Products a (stock 10), b (5) and c (1), the tally, and cart-1 with the
 * given lines, each "sku:qty". */
static inline fx *shop_with_cart(const target_spec *ts, const char *const *lines)
{
    fx *f = fx_open(shop_spec, ts);
    fx_ok(f, "Product.Create", "{sku: a, stock: 10}");
    fx_ok(f, "Product.Create", "{sku: b, stock: 5}");
    fx_ok(f, "Product.Create", "{sku: c, stock: 1}");
    fx_ok(f, "Tally.Make", "{name: reserved}");
    fx_ok(f, "Cart.Open", "{id: cart-1}");
    for (size_t i = 0; lines[i]; i++) {
        char args[96];
        snprintf(args, sizeof args, "{id: cart-1, sku: %.*s, qty: %s}",
                 (int)(strchr(lines[i], ':') - lines[i]), lines[i], strchr(lines[i], ':') + 1);
        fx_ok(f, "Cart.Add", args);
    }
    return f;
}

static inline void product_is(fx *f, const char *sku, int64_t stock, int64_t reserved)
{
    value rec;
    assert_true(fx_load(f, "Product", sku, &rec));
    assert_int_equal(fx_int(f, "Product", &rec, "stock"), stock);
    assert_int_equal(fx_int(f, "Product", &rec, "reserved"), reserved);
}

static inline void tally_is(fx *f, int64_t n, int64_t units)
{
    value rec;
    assert_true(fx_load(f, "Tally", "reserved", &rec));
    assert_int_equal(fx_int(f, "Tally", &rec, "n"), n);
    assert_int_equal(fx_int(f, "Tally", &rec, "units"), units);
}

static inline void cart_status_is(fx *f, const char *status)
{
    value rec;
    assert_true(fx_load(f, "Cart", "cart-1", &rec));
    assert_string_equal(fx_enum(f, "Cart", &rec, "status"), status);
}

/* A refused checkout of cart-1 kept nothing: no reservation, no tally. */
static inline void nothing_was_reserved(fx *f)
{
    cart_status_is(f, "open");
    product_is(f, "a", 10, 0);
    product_is(f, "b", 5, 0);
    product_is(f, "c", 1, 0);
    tally_is(f, 0, 0);
    assert_int_equal(fx_count(f, "CheckedOut"), 0);
    assert_int_equal(fx_count(f, "Reserved"), 0);
}

static inline void scenario_for_each_runs_the_command_once_per_item(const target_spec *ts)
{
    static const char *const lines[] = {"a:3", "b:2", "a:4", NULL};
    fx *f = shop_with_cart(ts, lines);
    fx_ok(f, "Cart.Checkout", "{id: cart-1}");
    cart_status_is(f, "done");
    product_is(f, "a", 3, 7); /* two items of a: the second saw the first's write */
    product_is(f, "b", 3, 2);
    product_is(f, "c", 1, 0);
    tally_is(f, 3, 9); /* each item's event ran its own policy */
    assert_int_equal(fx_count(f, "CheckedOut"), 1);
    assert_int_equal(fx_count(f, "Reserved"), 3);
    assert_int_equal(fx_count(f, "Product"), 3);
    assert_int_equal(fx_count(f, "Cart"), 1);
    fx_close(f);
}

static inline void scenario_for_each_refusal_of_one_item_keeps_nothing(const target_spec *ts)
{
    static const char *const lines[] = {"a:3", "c:2", "b:1", NULL};
    fx *f = shop_with_cart(ts, lines);
    fx_refused(f, "Cart.Checkout", "{id: cart-1}",
               "Cart.Checkout refused: policy Product.Reserve (item 2 of 3) refused: not enough "
               "stock");
    nothing_was_reserved(f); /* the first item's reservation went with the rest */
    fx_close(f);

    /* the same record twice: the second item refuses on the first one's write */
    static const char *const twice[] = {"b:3", "b:3", NULL};
    f = shop_with_cart(ts, twice);
    fx_refused(f, "Cart.Checkout", "{id: cart-1}",
               "Cart.Checkout refused: policy Product.Reserve (item 2 of 2) refused: not enough "
               "stock");
    nothing_was_reserved(f);
    /* and the store goes on: one line of b checks out */
    fx_ok(f, "Cart.Open", "{id: cart-2}");
    fx_ok(f, "Cart.Add", "{id: cart-2, sku: b, qty: 5}");
    fx_ok(f, "Cart.Checkout", "{id: cart-2}");
    product_is(f, "b", 0, 5);
    assert_int_equal(fx_count(f, "Reserved"), 1);
    fx_close(f);
}

static inline void scenario_for_each_over_an_empty_list_runs_nothing(const target_spec *ts)
{
    static const char *const none[] = {NULL};
    fx *f = shop_with_cart(ts, none);
    fx_ok(f, "Cart.Checkout", "{id: cart-1}");
    cart_status_is(f, "done");
    product_is(f, "a", 10, 0);
    tally_is(f, 0, 0);
    assert_int_equal(fx_count(f, "CheckedOut"), 1);
    assert_int_equal(fx_count(f, "Reserved"), 0);
    fx_ok(f, "Cart.Tag", "{id: cart-1, tags: []}");
    fx_ok(f, "Cart.Tag", "{id: cart-1}"); /* an unset optional list is [] */
    assert_int_equal(fx_count(f, "Tagged"), 2);
    assert_int_equal(fx_count(f, "Label"), 0);
    fx_close(f);
}

/* Submit -> (policy) Checkout -> (for_each) Reserve per item -> (policy)
 * Tally.Bump per item: depth 1, 2 and 3, each item at the same depth. */
static inline void scenario_for_each_inside_a_policy_chain(const target_spec *ts)
{
    static const char *const lines[] = {"a:1", "b:2", NULL};
    fx *f = shop_with_cart(ts, lines);
    fx_ok(f, "Cart.Submit", "{id: cart-1}");
    cart_status_is(f, "done");
    product_is(f, "a", 9, 1);
    product_is(f, "b", 3, 2);
    tally_is(f, 2, 3);
    assert_int_equal(fx_count(f, "Submitted"), 1);
    assert_int_equal(fx_count(f, "CheckedOut"), 1);
    assert_int_equal(fx_count(f, "Reserved"), 2);
    fx_close(f);

    static const char *const short_of_c[] = {"a:1", "c:5", NULL};
    f = shop_with_cart(ts, short_of_c);
    fx_refused(f, "Cart.Submit", "{id: cart-1}",
               "Cart.Submit refused: policy Cart.Checkout refused: policy Product.Reserve (item 2 "
               "of 2) refused: not enough stock");
    nothing_was_reserved(f);
    assert_int_equal(fx_count(f, "Submitted"), 0);
    fx_close(f);
}

/* item is the element itself when the list holds strings: a create per
 * item, the second of the same name refused, takes the first along. */
static inline void scenario_for_each_item_may_be_a_scalar(const target_spec *ts)
{
    static const char *const none[] = {NULL};
    fx *f = shop_with_cart(ts, none);
    fx_ok(f, "Cart.Tag", "{id: cart-1, tags: [red, blue]}");
    value rec;
    assert_true(fx_load(f, "Label", "blue", &rec));
    fx_assert_cstr(fx_get(f, "Label", &rec, "cart"), "cart-1");
    assert_int_equal(fx_count(f, "Label"), 2);
    assert_int_equal(fx_count(f, "Claimed"), 2);
    fx_refused(f, "Cart.Tag", "{id: cart-1, tags: [green, green, pink]}",
               "Cart.Tag refused: policy Label.Claim (item 2 of 3) refused: Label 'green' already "
               "exists");
    assert_false(fx_load(f, "Label", "green", &rec));
    assert_int_equal(fx_count(f, "Label"), 2);
    assert_int_equal(fx_count(f, "Claimed"), 2);
    assert_int_equal(fx_count(f, "Tagged"), 1);
    fx_ok(f, "Cart.Tag", "{id: cart-1, tags: [green]}");
    assert_int_equal(fx_count(f, "Label"), 3);
    fx_close(f);
}

/* ---- scale ---- */

enum { SCENARIO_MAX_OPTS = 8 };

/* ts with durability off when its store has that option, in opts: for the
 * scenarios of many thousand commands, which test what the store holds and
 * not what a power loss leaves, and would otherwise wait for as many
 * fsyncs. */
static inline target_spec scenario_unsynced(const target_spec *ts,
                                            target_opt_value opts[SCENARIO_MAX_OPTS])
{
    target_spec out = *ts;
    if (!target_spec_option(ts, "durability"))
        return out;
    assert_true(ts->nopts < SCENARIO_MAX_OPTS);
    out.nopts = 0;
    for (size_t i = 0; i < ts->nopts; i++)
        if (strcmp(ts->opts[i].name, "durability") != 0)
            opts[out.nopts++] = ts->opts[i];
    opts[out.nopts++] = (target_opt_value){.name = "durability", .s = "off"};
    out.opts = opts;
    return out;
}

static inline void scenario_store_grows_past_many_thousands_of_records(const target_spec *given)
{
    target_opt_value opts[SCENARIO_MAX_OPTS];
    target_spec ts = scenario_unsynced(given, opts);
    enum { N = 30000 };
    fx *f = fx_open(pizzas_spec, &ts);
    char args[128];
    for (int i = 0; i < N; i++) {
        snprintf(args, sizeof args, "{name: p%d, pizza: {price_cents: %d, size: small}}", i, i);
        fx_ok(f, "Order.CreatePizza", args);
    }
    assert_int_equal(fx_count(f, "Order"), N);
    assert_int_equal(fx_count(f, "PizzaCreated"), N);
    for (int i = 0; i < N; i += 7) {
        char key[32];
        snprintf(key, sizeof key, "p%d", i);
        value rec;
        assert_true(fx_load(f, "Order", key, &rec));
        assert_int_equal(fx_get(f, "Order", &rec, "pizza")->u.items[0].u.i, i);
    }
    fx_ok(f, "Order.AddTopping", "{name: p12345, topping: {name: Basil, amount: 3}}");
    fx_refused(f, "Order.CreatePizza", "{name: p29999, pizza: {price_cents: 1, size: small}}",
               "Order.CreatePizza refused: Order 'p29999' already exists");
    value rec;
    assert_false(fx_load(f, "Order", "p30000", &rec));
    fx_close(f);
}

static inline void scenario_int_identities_grow_too(const target_spec *given)
{
    target_opt_value opts[SCENARIO_MAX_OPTS];
    target_spec ts = scenario_unsynced(given, opts);
    enum { N = 20000 };
    fx *f = fx_open(audit_spec, &ts);
    char args[64];
    for (int i = 0; i < N; i++) {
        snprintf(args, sizeof args, "{id: %d}", i * 1024); /* same low bits */
        fx_ok(f, "Counter.Make", args);
    }
    assert_int_equal(fx_count(f, "Counter"), N);
    fx_ok(f, "Counter.Inc", "{id: 1024}");
    value rec;
    assert_true(fx_load_int(f, "Counter", 1024, &rec));
    assert_int_equal(fx_int(f, "Counter", &rec, "n"), 1);
    assert_false(fx_load_int(f, "Counter", 1, &rec));
    fx_close(f);
}

/* ---- deletes ---- */

/* clang-format off */
/* Documents in folders: Put creates (a policy counts it in its folder),
 * Update and Delete only at the stored version; Delete's policy uncounts
 * it, refused while the folder is locked. */
static const char documents_spec[] =
    "spec: 1\n"
    "domain: documents\n"
    "aggregates:\n"
    "  Folder:\n"
    "    identity: name\n"
    "    fields:\n"
    "      name: string\n"
    "      docs: {type: int, default: 0}\n"
    "      locked: {type: bool, default: false}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {name: string}}\n"
    "      Lock: {params: {name: string}, set: {locked: true}}\n"
    "      Count: {params: {name: string}, set: {docs: docs + 1}}\n"
    "      Uncount:\n"
    "        params: {name: string}\n"
    "        guards:\n"
    "          - {check: locked == false, refuse: the folder is locked}\n"
    "        set: {docs: docs - 1}\n"
    "  Doc:\n"
    "    identity: id\n"
    "    fields: {id: string, folder: string, text: string, version: int}\n"
    "    commands:\n"
    "      Put:\n"
    "        creates: true\n"
    "        params: {id: string, folder: string, text: string}\n"
    "        set: {folder: arg.folder, text: arg.text, version: 1}\n"
    "        emits: Put\n"
    "      Update:\n"
    "        params: {id: string, version: int, text: string}\n"
    "        guards:\n"
    "          - {check: arg.version == version, refuse: the version does not match}\n"
    "        set: {text: arg.text, version: version + 1}\n"
    "      Delete:\n"
    "        deletes: true\n"
    "        params: {id: string, version: int}\n"
    "        guards:\n"
    "          - {check: arg.version == version, refuse: the version does not match}\n"
    "        emits: {event: Deleted, payload: {id: arg.id, folder: folder}}\n"
    "policies:\n"
    "  - {when: Put, run: Folder.Count, args: {name: event.folder}}\n"
    "  - {when: Deleted, run: Folder.Uncount, args: {name: event.folder}}\n"
    "workload:\n"
    "  setup:\n"
    "    - Folder.Make: {name: inbox}\n"
    "  cycle:\n"
    "    - Doc.Put: {id: \"d-${n}\", folder: inbox, text: draft}\n"
    "    - Doc.Delete: {id: \"d-${n}\", version: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 2\n";
/* clang-format on */

static inline void folder_docs_is(fx *f, const char *folder, int64_t docs)
{
    value rec;
    assert_true(fx_load(f, "Folder", folder, &rec));
    assert_int_equal(fx_int(f, "Folder", &rec, "docs"), docs);
}

/* A refused Doc.Delete of 'a' (put in inbox as hello) left everything. */
static inline void doc_a_is_kept(fx *f)
{
    value rec;
    assert_true(fx_load(f, "Doc", "a", &rec));
    fx_assert_cstr(fx_get(f, "Doc", &rec, "text"), "hello");
    assert_int_equal(fx_count(f, "Doc"), 1);
    assert_int_equal(fx_count(f, "Deleted"), 0);
    folder_docs_is(f, "inbox", 1);
}

static inline void scenario_delete_removes_the_record_after_its_guards(const target_spec *ts)
{
    fx *f = fx_open(documents_spec, ts);
    fx_ok(f, "Folder.Make", "{name: inbox}");
    fx_ok(f, "Doc.Put", "{id: a, folder: inbox, text: hello}");
    fx_ok(f, "Doc.Update", "{id: a, version: 1, text: hello again}");
    folder_docs_is(f, "inbox", 1);
    fx_ok(f, "Doc.Delete", "{id: a, version: 2}");
    value rec;
    assert_false(fx_load(f, "Doc", "a", &rec));
    assert_int_equal(fx_count(f, "Doc"), 0);
    assert_int_equal(fx_count(f, "Deleted"), 1);
    folder_docs_is(f, "inbox", 0); /* the payload's folder was the deleted record's */
    fx_refused(f, "Doc.Update", "{id: a, version: 2, text: gone}",
               "Doc.Update refused: Doc 'a' does not exist");
    fx_refused(f, "Doc.Delete", "{id: a, version: 2}",
               "Doc.Delete refused: Doc 'a' does not exist");
    fx_close(f);
}

static inline void scenario_refused_delete_guard_keeps_the_record(const target_spec *ts)
{
    fx *f = fx_open(documents_spec, ts);
    fx_ok(f, "Folder.Make", "{name: inbox}");
    fx_ok(f, "Doc.Put", "{id: a, folder: inbox, text: hello}");
    fx_refused(f, "Doc.Delete", "{id: a, version: 7}",
               "Doc.Delete refused: the version does not match");
    doc_a_is_kept(f);
    fx_close(f);
}

static inline void scenario_deleted_identity_can_be_created_again(const target_spec *ts)
{
    fx *f = fx_open(documents_spec, ts);
    fx_ok(f, "Folder.Make", "{name: inbox}");
    fx_ok(f, "Folder.Make", "{name: outbox}");
    fx_ok(f, "Doc.Put", "{id: a, folder: inbox, text: first}");
    fx_ok(f, "Doc.Update", "{id: a, version: 1, text: first edited}");
    fx_ok(f, "Doc.Delete", "{id: a, version: 2}");
    fx_ok(f, "Doc.Put", "{id: a, folder: outbox, text: second}");
    value rec;
    assert_true(fx_load(f, "Doc", "a", &rec));
    fx_assert_cstr(fx_get(f, "Doc", &rec, "text"), "second");
    fx_assert_cstr(fx_get(f, "Doc", &rec, "folder"), "outbox");
    assert_int_equal(fx_int(f, "Doc", &rec, "version"), 1); /* a new record, not the old one */
    fx_refused(f, "Doc.Put", "{id: a, folder: inbox, text: third}",
               "Doc.Put refused: Doc 'a' already exists");
    assert_int_equal(fx_count(f, "Doc"), 1);
    assert_int_equal(fx_count(f, "Put"), 2);
    folder_docs_is(f, "inbox", 0);
    folder_docs_is(f, "outbox", 1);
    fx_ok(f, "Doc.Delete", "{id: a, version: 1}");
    fx_ok(f, "Doc.Put", "{id: a, folder: inbox, text: third}");
    assert_int_equal(fx_count(f, "Doc"), 1);
    assert_int_equal(fx_count(f, "Deleted"), 2);
    fx_close(f);
}

static inline void scenario_refused_policy_rolls_a_delete_back(const target_spec *ts)
{
    fx *f = fx_open(documents_spec, ts);
    fx_ok(f, "Folder.Make", "{name: inbox}");
    fx_ok(f, "Doc.Put", "{id: a, folder: inbox, text: hello}");
    fx_ok(f, "Folder.Lock", "{name: inbox}");
    fx_refused(f, "Doc.Delete", "{id: a, version: 1}",
               "Doc.Delete refused: policy Folder.Uncount refused: the folder is locked");
    doc_a_is_kept(f);
    /* the record is still there to update and delete */
    fx_ok(f, "Doc.Update", "{id: a, version: 1, text: kept}");
    fx_close(f);
}

/* Many records with the same hash tail, most deleted, some created again:
 * every one left is still found, every deleted one is absent, and the
 * counts are creates minus deletes. */
static inline void scenario_counts_after_deletes(const target_spec *given)
{
    target_opt_value opts[SCENARIO_MAX_OPTS];
    target_spec ts = scenario_unsynced(given, opts);
    enum { N = 600 };
    fx *f = fx_open(documents_spec, &ts);
    fx_ok(f, "Folder.Make", "{name: inbox}");
    char args[96], key[32];
    for (int i = 0; i < N; i++) {
        snprintf(args, sizeof args, "{id: d%d, folder: inbox, text: t%d}", i, i);
        fx_ok(f, "Doc.Put", args);
    }
    for (int i = 0; i < N; i++)
        if (i % 3 != 0) {
            snprintf(args, sizeof args, "{id: d%d, version: 1}", i);
            fx_ok(f, "Doc.Delete", args);
        }
    for (int i = 1; i < N; i += 3) {
        snprintf(args, sizeof args, "{id: d%d, folder: inbox, text: again%d}", i, i);
        fx_ok(f, "Doc.Put", args);
    }
    size_t left = 0;
    for (int i = 0; i < N; i++) {
        snprintf(key, sizeof key, "d%d", i);
        value rec;
        bool there = i % 3 != 2;
        assert_int_equal(fx_load(f, "Doc", key, &rec), there);
        if (!there)
            continue;
        left++;
        snprintf(args, sizeof args, i % 3 == 0 ? "t%d" : "again%d", i);
        fx_assert_cstr(fx_get(f, "Doc", &rec, "text"), args);
    }
    assert_int_equal(fx_count(f, "Doc"), left);
    assert_int_equal(fx_count(f, "Put"), N + N / 3);
    assert_int_equal(fx_count(f, "Deleted"), N - N / 3);
    folder_docs_is(f, "inbox", (int64_t)left);
    fx_close(f);
}

/* ---- values, refusals and names a SQL store could get wrong ---- */

/* clang-format off */

/* Values of every kind, nested, optional, and strings that would break SQL
 * if they were ever pasted into it. */
static const char values_spec[] =
    "spec: 1\n"
    "domain: values\n"
    "types:\n"
    "  Mood: {enum: [calm, stormy]}\n"
    "  Inner: {fields: {label: string, n: int, flag: bool, mood: Mood,\n"
    "                   note: {type: string, optional: true}}}\n"
    "aggregates:\n"
    "  Thing:\n"
    "    identity: id\n"
    "    fields:\n"
    "      id: string\n"
    "      text: string\n"
    "      n: int\n"
    "      flag: bool\n"
    "      mood: Mood\n"
    "      inner: Inner\n"
    "      items: {list: Inner}\n"
    "      tags: {list: string}\n"
    "      maybe: {type: string, optional: true}\n"
    "      count: {type: int, optional: true}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {id: string, text: string, n: int, flag: bool, mood: Mood, inner: Inner,\n"
    "                 tags: {list: string}}\n"
    "        set: {text: arg.text, n: arg.n, flag: arg.flag, mood: arg.mood, inner: arg.inner,\n"
    "              tags: arg.tags}\n"
    "        emits: Made\n"
    "      Push:\n"
    "        params: {id: string, item: Inner}\n"
    "        append: {items: arg.item}\n"
    "        set: {maybe: arg.item.label, count: len(items) + 1}\n"
    "        emits: Pushed\n"
    "workload:\n"
    "  cycle:\n"
    "    - Thing.Make: {id: \"t-${n}\", text: x, n: 1, flag: true, mood: calm,\n"
    "                   inner: {label: a, n: 1, flag: true, mood: calm}, tags: []}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";

/* A policy that refuses (too many loans), a read alias, a policy whose key
 * comes from the record (Return). */
static const char lending_spec[] =
    "spec: 1\n"
    "domain: lending\n"
    "aggregates:\n"
    "  Member:\n"
    "    identity: card\n"
    "    fields: {card: string, loans: {type: int, default: 0}, max_loans: int}\n"
    "    commands:\n"
    "      Join: {creates: true, params: {card: string, max_loans: int},\n"
    "             set: {max_loans: arg.max_loans}, emits: Joined}\n"
    "      CountLoan:\n"
    "        params: {card: string}\n"
    "        guards: [{check: loans < max_loans, refuse: too many loans}]\n"
    "        set: {loans: loans + 1}\n"
    "        emits: LoanCounted\n"
    "      CountReturn:\n"
    "        params: {card: string}\n"
    "        set: {loans: loans - 1}\n"
    "        emits: ReturnCounted\n"
    "  Copy:\n"
    "    identity: barcode\n"
    "    fields: {barcode: string, lent: {type: bool, default: false},\n"
    "             card: {type: string, default: ''}}\n"
    "    commands:\n"
    "      Acquire:\n"
    "        creates: true\n"
    "        params: {barcode: string, title: string}\n"
    "        guards: [{check: \"arg.title != ''\", refuse: a copy needs a title}]\n"
    "        emits: Acquired\n"
    "      Donate:                    # a create with a read: two round trips\n"
    "        creates: true\n"
    "        params: {barcode: string, card: string}\n"
    "        reads: {donor: {Member: arg.card}}\n"
    "        set: {card: arg.card}\n"
    "        emits: Donated\n"
    "      Lend:\n"
    "        params: {barcode: string, card: string}\n"
    "        reads: {reader: {Member: arg.card}}\n"
    "        guards: [{check: not lent, refuse: already lent}]\n"
    "        set: {lent: true, card: arg.card}\n"
    "        emits: Lent\n"
    "      Return:\n"
    "        params: {barcode: string}\n"
    "        guards: [{check: lent, refuse: not lent}]\n"
    "        set: {lent: false}\n"
    "        emits: {event: Returned, payload: {barcode: arg.barcode, card: card}}\n"
    "policies:\n"
    "  - {when: Lent, run: Member.CountLoan, args: {card: event.card}}\n"
    "  - {when: Returned, run: Member.CountReturn, args: {card: event.card}}\n"
    "workload:\n"
    "  setup:\n"
    "    - Member.Join: {card: M-1, max_loans: 1}\n"
    "  cycle:\n"
    "    - Copy.Acquire: {barcode: \"c-${n}\", title: T}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";

/* clang-format on */

/* Strings that would end a quoted SQL literal or identifier and run more. */
static const char *const nasty[] = {
    "'); DROP TABLE \"Thing\"; --",
    "Robert\"); DROP TABLE events; --",
    "x' OR '1'='1",
    "back\\slash \"quoted\" new\nline\ttab \x01 na\xc3\xafve \xe2\x98\x95 \xf0\x9d\x84\x9e",
    "",
};

/* A YAML double-quoted scalar of s. */
static inline void yaml_quote(const char *s, char *out, size_t size)
{
    size_t n = 0;
    out[n++] = '"';
    for (; *s && n + 8 < size; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            n += (size_t)snprintf(out + n, size - n, "\\%c", c);
        else if (c < 0x20)
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", c);
        else
            out[n++] = (char)c;
    }
    out[n++] = '"';
    out[n] = '\0';
}

static inline void scenario_values_of_every_kind_come_back_verbatim(const target_spec *ts)
{
    fx *f = fx_open(values_spec, ts);
    for (size_t k = 0; k < sizeof nasty / sizeof *nasty; k++) {
        char id[256], text[256], args[2048];
        char raw_id[128];
        snprintf(raw_id, sizeof raw_id, "%zu%s", k, nasty[k]);
        yaml_quote(raw_id, id, sizeof id);
        yaml_quote(nasty[k], text, sizeof text);
        snprintf(args, sizeof args,
                 "{id: %s, text: %s, n: %s, flag: %s, mood: stormy,"
                 " inner: {label: %s, n: -42, flag: false, mood: calm, note: %s}, tags: [%s, b]}",
                 id, text, k % 2 ? "9223372036854775807" : "-9223372036854775807",
                 k % 2 ? "true" : "false", text, text, text);
        fx_ok(f, "Thing.Make", args);
        snprintf(args, sizeof args, "{id: %s, item: {label: %s, n: 7, flag: true, mood: stormy}}",
                 id, text);
        fx_ok(f, "Thing.Push", args);

        value rec;
        assert_true(fx_load(f, "Thing", raw_id, &rec));
        size_t len = strlen(nasty[k]);
        fx_assert_str(fx_get(f, "Thing", &rec, "id"), raw_id, strlen(raw_id));
        fx_assert_str(fx_get(f, "Thing", &rec, "text"), nasty[k], len);
        assert_int_equal(fx_int(f, "Thing", &rec, "n"), k % 2 ? INT64_MAX : -INT64_MAX);
        const value *flag = fx_get(f, "Thing", &rec, "flag");
        assert_int_equal(flag->kind, VAL_BOOL);
        assert_int_equal(flag->u.b, k % 2 == 1);
        const value *mood = fx_get(f, "Thing", &rec, "mood");
        assert_int_equal(mood->kind, VAL_ENUM);
        assert_int_equal(mood->u.e, 1);
        const value *inner = fx_get(f, "Thing", &rec, "inner");
        assert_int_equal(inner->kind, VAL_STRUCT);
        fx_assert_str(&inner->u.items[0], nasty[k], len);
        assert_int_equal(inner->u.items[1].u.i, -42);
        assert_int_equal(inner->u.items[2].u.b, false);
        assert_int_equal(inner->u.items[3].u.e, 0);
        fx_assert_str(&inner->u.items[4], nasty[k], len);
        const value *items = fx_get(f, "Thing", &rec, "items");
        assert_int_equal(items->kind, VAL_LIST);
        assert_int_equal(items->len, 1);
        fx_assert_str(&items->u.items[0].u.items[0], nasty[k], len);
        assert_int_equal(items->u.items[0].u.items[4].kind, VAL_NONE); /* unset optional */
        const value *tags = fx_get(f, "Thing", &rec, "tags");
        assert_int_equal(tags->len, 2);
        fx_assert_str(&tags->u.items[0], nasty[k], len);
        fx_assert_str(fx_get(f, "Thing", &rec, "maybe"), nasty[k], len);
        assert_int_equal(fx_int(f, "Thing", &rec, "count"), 1);
    }
    /* the tables are all still there, holding exactly what was written */
    assert_int_equal(fx_count(f, "Thing"), sizeof nasty / sizeof *nasty);
    assert_int_equal(fx_count(f, "Made"), sizeof nasty / sizeof *nasty);
    assert_int_equal(fx_count(f, "Pushed"), sizeof nasty / sizeof *nasty);
    fx_close(f);
}

static inline void scenario_new_record_leaves_nested_optionals_unset(const target_spec *ts)
{
    fx *f = fx_open(values_spec, ts);
    fx_ok(f, "Thing.Make",
          "{id: a, text: t, n: 0, flag: true, mood: calm,"
          " inner: {label: l, n: 1, flag: true, mood: calm}, tags: []}");
    value rec;
    assert_true(fx_load(f, "Thing", "a", &rec));
    assert_int_equal(fx_get(f, "Thing", &rec, "maybe")->kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Thing", &rec, "count")->kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Thing", &rec, "inner")->u.items[4].kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Thing", &rec, "items")->kind, VAL_LIST);
    assert_int_equal(fx_get(f, "Thing", &rec, "items")->len, 0);
    assert_false(fx_load(f, "Thing", "b", &rec));
    fx_close(f);
}

/* The same refusals with the same messages on every store, whether the
 * runtime or the store itself (store_ops.checks_creates) finds that an
 * identity exists; and nothing of a refused command is kept, policies
 * included. */
static inline void scenario_refusals_roll_back_policies_included(const target_spec *ts)
{
    fx *f = fx_open(lending_spec, ts);
    fx_ok(f, "Member.Join", "{card: M-1, max_loans: 1}");
    fx_refused(f, "Member.Join", "{card: M-1, max_loans: 5}",
               "Member.Join refused: Member 'M-1' already exists");
    fx_ok(f, "Copy.Acquire", "{barcode: c-1, title: T}");
    fx_ok(f, "Copy.Acquire", "{barcode: c-2, title: T}");
    /* refused by its guard; but the identity exists, which comes first */
    fx_refused(f, "Copy.Acquire", "{barcode: c-1, title: ''}",
               "Copy.Acquire refused: Copy 'c-1' already exists");
    fx_refused(f, "Copy.Acquire", "{barcode: c-3, title: ''}",
               "Copy.Acquire refused: a copy needs a title");
    fx_refused(f, "Copy.Lend", "{barcode: c-9, card: M-1}",
               "Copy.Lend refused: Copy 'c-9' does not exist");
    /* a create with a read: refused by its key, and, when both fail, by its
     * key first */
    fx_refused(f, "Copy.Donate", "{barcode: c-1, card: M-1}",
               "Copy.Donate refused: Copy 'c-1' already exists");
    fx_refused(f, "Copy.Donate", "{barcode: c-1, card: M-9}",
               "Copy.Donate refused: Copy 'c-1' already exists");
    fx_refused(f, "Copy.Donate", "{barcode: c-7, card: M-9}",
               "Copy.Donate refused: Member 'M-9' does not exist (read as donor)");
    fx_refused(f, "Copy.Lend", "{barcode: c-1, card: M-9}",
               "Copy.Lend refused: Member 'M-9' does not exist (read as reader)");
    fx_ok(f, "Copy.Lend", "{barcode: c-1, card: M-1}");
    /* the policy refuses: the copy's own change and its event go too */
    fx_refused(f, "Copy.Lend", "{barcode: c-2, card: M-1}",
               "Copy.Lend refused: policy Member.CountLoan refused: too many loans");
    value rec;
    assert_true(fx_load(f, "Copy", "c-2", &rec));
    assert_false(fx_get(f, "Copy", &rec, "lent")->u.b);
    fx_assert_str(fx_get(f, "Copy", &rec, "card"), "", 0);
    assert_true(fx_load(f, "Member", "M-1", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "Lent"), 1);
    assert_int_equal(fx_count(f, "LoanCounted"), 1);
    assert_int_equal(fx_count(f, "Copy"), 2);
    assert_int_equal(fx_count(f, "Acquired"), 2);
    assert_int_equal(fx_count(f, "Joined"), 1);
    /* and the store still works after the refusals */
    fx_ok(f, "Copy.Return", "{barcode: c-1}");
    fx_ok(f, "Copy.Lend", "{barcode: c-2, card: M-1}");
    assert_true(fx_load(f, "Member", "M-1", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "ReturnCounted"), 1);
    assert_int_equal(fx_count(f, "Lent"), 2);
    fx_close(f);
}

/* Both bundled specs and every example run through the runner with
 * --targets naming this target's label, and verify: one result for each
 * entry of a spec that the label names (the entry with that label; else,
 * when no entry has it, every entry of the driver of that name), or one
 * plain entry when the spec lists none and the label is a driver's name. */
static inline void scenario_bundled_specs_and_examples_verify(const target_spec *ts)
{
    static const char *const paths[] = {
        "specs/pizzas.yaml",     "specs/banking.yaml",         "examples/inventory.yaml",
        "examples/library.yaml", "examples/tickets.yaml",      "examples/documents.yaml",
        "examples/cart.yaml",    "examples/pizza_status.yaml", NULL};
    const char *const only[] = {ts->label, NULL};
    fx_run fr;
    fx_run_specs(&fr, paths, only, 20);
    size_t want = 0;
    for (size_t i = 0; i < fr.nspecs; i++) {
        const workload *w = &fr.specs[i].p->work;
        size_t labelled = 0, by_name = 0;
        for (size_t t = 0; t < w->ntargets; t++) {
            labelled += !strcmp(w->targets[t].label, ts->label);
            by_name += !strcmp(w->targets[t].name, ts->label);
        }
        size_t named = labelled ? labelled : by_name;
        want += named ? named : target_find(ts->label) != NULL;
    }
    assert_true(want > 0);
    fx_assert_all_passed(&fr, want);
    fx_run_free(&fr);
}

/* Names that collide once case is ignored, a table named like the events
 * table, SQL keywords, a name longer than PostgreSQL's 63 bytes. */
static const char names_spec[] =
    "spec: 1\n"
    "domain: names\n"
    "aggregates:\n"
    "  events:\n"
    "    identity: select\n"
    "    fields: {select: string, from: int, Where: int, where: int,\n"
    "             a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x1: int,\n"
    "             a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x2: int}\n"
    "    commands:\n"
    "      Make:\n"
    "        creates: true\n"
    "        params: {select: string}\n"
    "        set: {from: 1, Where: 2, where: 3,\n"
    "              a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x1: 4,\n"
    "              a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x2: 5}\n"
    "        emits: Made\n"
    "      Bump:\n"
    "        params: {select: string}\n"
    "        set: {where: where + 1}\n"
    "        emits: Bumped\n"
    "  Events:\n"
    "    identity: id\n"
    "    fields: {id: int}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: int}, emits: Numbered}\n"
    "workload:\n"
    "  cycle:\n"
    "    - events.Make: {select: \"s-${n}\"}\n"
    "    - events.Bump: {select: \"s-${n}\"}\n"
    "    - Events.Make: {id: \"${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";

static inline void scenario_awkward_names_are_kept_apart(const target_spec *ts)
{
    fx *f = fx_open(names_spec, ts);
    for (int i = 0; i < 3; i++) {
        char a[64];
        snprintf(a, sizeof a, "{select: s-%d}", i);
        fx_ok(f, "events.Make", a);
        fx_ok(f, "events.Bump", a);
        snprintf(a, sizeof a, "{id: %d}", i);
        fx_ok(f, "Events.Make", a);
    }
    value rec;
    assert_true(fx_load(f, "events", "s-1", &rec));
    assert_int_equal(fx_int(f, "events", &rec, "from"), 1);
    assert_int_equal(fx_int(f, "events", &rec, "Where"), 2);
    assert_int_equal(fx_int(f, "events", &rec, "where"), 4);
    assert_int_equal(fx_int(f, "events", &rec,
                            "a_field_whose_name_is_longer_than_sixty_three_bytes_in_total_x2"),
                     5);
    assert_int_equal(fx_count(f, "events"), 3);
    assert_int_equal(fx_count(f, "Events"), 3);
    assert_int_equal(fx_count(f, "Made"), 3);
    assert_int_equal(fx_count(f, "Numbered"), 3);
    assert_int_equal(fx_count(f, "Bumped"), 3);
    fx_close(f);
}

/* ---- queries ---- */

/* clang-format off */
static const char query_shop_spec[] =
    "spec: 1\n"
    "domain: shop\n"
    "types:\n"
    "  Topping: {fields: {name: string, amount: int}}\n"
    "aggregates:\n"
    "  Customer:\n"
    "    identity: id\n"
    "    fields: {id: string, name: string, vip: {type: bool, default: false}}\n"
    "    commands:\n"
    "      Register: {creates: true, params: {id: string, name: string}, set: {name: arg.name},\n"
    "                 emits: Registered}\n"
    "  Order:\n"
    "    identity: name\n"
    "    fields:\n"
    "      name: string\n"
    "      customer: string\n"
    "      toppings: {list: Topping}\n"
    "      status: {enum: [available, sold], default: available}\n"
    "    commands:\n"
    "      Create:\n"
    "        creates: true\n"
    "        params: {name: string, customer: string}\n"
    "        set: {customer: arg.customer}\n"
    "        emits: Created\n"
    "      AddTopping: {params: {name: string, topping: Topping}, append: {toppings: arg.topping}}\n"
    "      Sell: {params: {name: string}, set: {status: sold}, emits: Sold}\n"
    "    queries:\n"
    "      Status:\n"
    "        params: {name: string}\n"
    "        returns: {status: status, toppings: len(toppings), items: toppings,\n"
    "                  label: \"name + '/' + customer\"}\n"
    "      Unsold:\n"
    "        params: {name: string}\n"
    "        guards: [{check: status == available, refuse: the pizza is sold}]\n"
    "        returns: {name: name}\n"
    "      ForCustomer:               # a read keyed by an argument: fetched with the record\n"
    "        params: {name: string, who: string}\n"
    "        reads: {buyer: {Customer: arg.who}}\n"
    "        returns: {buyer: buyer.name, mine: customer == arg.who}\n"
    "      Owner:                     # a read keyed by the record\n"
    "        params: {name: string}\n"
    "        reads: {owner: {Customer: customer}}\n"
    "        returns: {owner: owner.name, vip: owner.vip}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Order.Create: {name: \"o-${n}\", customer: c}\n"
    "    - Order.Status: {name: \"o-${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

static inline fx *open_shop(const target_spec *ts)
{
    fx *f = fx_open(query_shop_spec, ts);
    fx_ok(f, "Customer.Register", "{id: c-1, name: Chris}");
    fx_ok(f, "Order.Create", "{name: o-1, customer: c-1}");
    return f;
}

static inline void scenario_query_answers_from_the_committed_record(const target_spec *ts)
{
    fx *f = open_shop(ts);
    const value *a = fx_ask(f, "Order.Status", "{name: o-1}");
    assert_int_equal(a->kind, VAL_STRUCT);
    assert_int_equal(a->len, 4);
    assert_int_equal(fx_returned(f, "Order.Status", a, "status")->u.e, 0); /* available */
    assert_int_equal(fx_returned(f, "Order.Status", a, "toppings")->u.i, 0);
    assert_int_equal(fx_returned(f, "Order.Status", a, "items")->len, 0);
    fx_assert_cstr(fx_returned(f, "Order.Status", a, "label"), "o-1/c-1");
    fx_ok(f, "Order.AddTopping", "{name: o-1, topping: {name: Basil, amount: 3}}");
    fx_ok(f, "Order.AddTopping", "{name: o-1, topping: {name: Olive, amount: 2}}");
    fx_ok(f, "Order.Sell", "{name: o-1}");
    a = fx_ask(f, "Order.Status", "{name: o-1}");
    assert_int_equal(fx_returned(f, "Order.Status", a, "status")->u.e, 1); /* sold */
    assert_int_equal(fx_returned(f, "Order.Status", a, "toppings")->u.i, 2);
    const value *items = fx_returned(f, "Order.Status", a, "items");
    assert_int_equal(items->len, 2);
    fx_assert_cstr(&items->u.items[1].u.items[0], "Olive");
    assert_int_equal(items->u.items[1].u.items[1].u.i, 2);
    /* the same query again answers the same, from a fresh read */
    a = fx_ask(f, "Order.Status", "{name: o-1}");
    assert_int_equal(fx_returned(f, "Order.Status", a, "toppings")->u.i, 2);
    fx_close(f);
}

static inline void scenario_query_of_a_missing_record_refuses(const target_spec *ts)
{
    fx *f = open_shop(ts);
    fx_refused(f, "Order.Status", "{name: o-9}",
               "Order.Status refused: Order 'o-9' does not exist");
    const value *a = NULL;
    assert_int_equal(target_answer(f->t, &a), TARGET_ERROR);
    /* and the next one answers */
    a = fx_ask(f, "Order.Status", "{name: o-1}");
    assert_int_equal(fx_returned(f, "Order.Status", a, "toppings")->u.i, 0);
    fx_close(f);
}

static inline void scenario_query_guard_refuses_with_its_text(const target_spec *ts)
{
    fx *f = open_shop(ts);
    const value *a = fx_ask(f, "Order.Unsold", "{name: o-1}");
    fx_assert_cstr(fx_returned(f, "Order.Unsold", a, "name"), "o-1");
    fx_ok(f, "Order.Sell", "{name: o-1}");
    fx_refused(f, "Order.Unsold", "{name: o-1}", "Order.Unsold refused: the pizza is sold");
    fx_close(f);
}

static inline void scenario_query_reads_other_records(const target_spec *ts)
{
    fx *f = open_shop(ts);
    fx_ok(f, "Customer.Register", "{id: c-2, name: Sam}");
    const value *a = fx_ask(f, "Order.ForCustomer", "{name: o-1, who: c-2}");
    fx_assert_cstr(fx_returned(f, "Order.ForCustomer", a, "buyer"), "Sam");
    assert_false(fx_returned(f, "Order.ForCustomer", a, "mine")->u.b);
    a = fx_ask(f, "Order.ForCustomer", "{name: o-1, who: c-1}");
    assert_true(fx_returned(f, "Order.ForCustomer", a, "mine")->u.b);
    fx_refused(f, "Order.ForCustomer", "{name: o-1, who: c-9}",
               "Order.ForCustomer refused: Customer 'c-9' does not exist (read as buyer)");
    a = fx_ask(f, "Order.Owner", "{name: o-1}");
    fx_assert_cstr(fx_returned(f, "Order.Owner", a, "owner"), "Chris");
    assert_false(fx_returned(f, "Order.Owner", a, "vip")->u.b);
    fx_ok(f, "Order.Create", "{name: o-2, customer: c-9}");
    fx_refused(f, "Order.Owner", "{name: o-2}",
               "Order.Owner refused: Customer 'c-9' does not exist (read as owner)");
    fx_close(f);
}

static inline void scenario_query_writes_nothing(const target_spec *ts)
{
    fx *f = open_shop(ts);
    for (int i = 0; i < 50; i++) {
        fx_ask(f, "Order.Status", "{name: o-1}");
        fx_ask(f, "Order.Owner", "{name: o-1}");
        fx_refused(f, "Order.Status", "{name: o-9}",
                   "Order.Status refused: Order 'o-9' does not exist");
    }
    assert_int_equal(fx_count(f, "Order"), 1);
    assert_int_equal(fx_count(f, "Customer"), 1);
    assert_int_equal(fx_count(f, "Created"), 1);
    assert_int_equal(fx_count(f, "Registered"), 1);
    assert_int_equal(fx_count(f, "Sold"), 0);
    /* commands after queries run as before */
    fx_ok(f, "Order.Sell", "{name: o-1}");
    value rec;
    assert_true(fx_load(f, "Order", "o-1", &rec));
    assert_string_equal(fx_enum(f, "Order", &rec, "status"), "sold");
    assert_int_equal(fx_count(f, "Sold"), 1);
    fx_close(f);
}

/* ---- scans ---- */

/* clang-format off */
static const char scan_spec[] =
    "spec: 1\n"
    "domain: ranges\n"
    "aggregates:\n"
    "  User:\n"
    "    identity: key\n"
    "    fields: {key: string, n: int}\n"
    "    commands:\n"
    "      Insert: {creates: true, params: {key: string, n: int}, set: {n: arg.n}}\n"
    "      Bump: {params: {key: string}, set: {n: n + 100}}\n"
    "      Drop: {deletes: true, params: {key: string}}\n"
    "    queries:\n"
    "      Scan:\n"
    "        params: {key: string, count: int}\n"
    "        scan: {limit: count}\n"
    "        returns: {key: key, n: n, twice: n * 2}\n"
    "  Row:\n"
    "    identity: id\n"
    "    fields: {id: int, label: {type: string, optional: true}}\n"
    "    commands:\n"
    "      Add: {creates: true, params: {id: int}}\n"
    "      Remove: {deletes: true, params: {id: int}}\n"
    "    queries:\n"
    "      Scan: {params: {id: int, count: int}, scan: {limit: count}, returns: {id: id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - User.Insert: {key: \"u${n}\", n: 1}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

/* The identities a scan answered, "a b c" (the first returns field), and
 * checks each row's n and twice (User.Scan) agree. */
static inline const char *scan_keys(fx *f, const char *verb, const char *args, char *buf,
                                    size_t size)
{
    const value *a = fx_ask(f, verb, args);
    assert_int_equal(a->kind, VAL_LIST);
    size_t len = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < a->len; i++) {
        const value *row = &a->u.items[i];
        assert_int_equal(row->kind, VAL_STRUCT);
        const value *k = &row->u.items[0];
        if (k->kind == VAL_INT)
            len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, i ? " " : "", k->u.i);
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%.*s", i ? " " : "", (int)k->len,
                                    k->u.s);
        if (row->len == 3)
            assert_int_equal(row->u.items[2].u.i, 2 * row->u.items[1].u.i);
        assert_true(len < size);
    }
    return buf;
}

/* user1 user10 user2 user9 (by bytes), n the number in the name. */
static inline fx *open_ranges(const target_spec *ts)
{
    fx *f = fx_open(scan_spec, ts);
    fx_ok(f, "User.Insert", "{key: user9, n: 9}");
    fx_ok(f, "User.Insert", "{key: user10, n: 10}");
    fx_ok(f, "User.Insert", "{key: user1, n: 1}");
    fx_ok(f, "User.Insert", "{key: user2, n: 2}");
    return f;
}

static inline void scenario_scan_reads_in_identity_order_by_bytes(const target_spec *ts)
{
    fx *f = open_ranges(ts);
    char b[256];
    /* from an existing key, "user10" < "user2" < "user9" by bytes */
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user1, count: 3}", b, sizeof b),
                        "user1 user10 user2");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user10, count: 1}", b, sizeof b),
                        "user10");
    /* from a key between two: the next greater; a prefix comes first */
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user11, count: 5}", b, sizeof b),
                        "user2 user9");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user, count: 2}", b, sizeof b),
                        "user1 user10");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: \"\", count: 9}", b, sizeof b),
                        "user1 user10 user2 user9");
    /* past the end: no rows, and no refusal */
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user95, count: 5}", b, sizeof b), "");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: v, count: 5}", b, sizeof b), "");
    /* a limit larger than what is left */
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user2, count: 100}", b, sizeof b),
                        "user2 user9");
    /* the fields come with each row */
    const value *a = fx_ask(f, "User.Scan", "{key: user9, count: 1}");
    assert_int_equal(a->len, 1);
    assert_int_equal(a->u.items[0].u.items[1].u.i, 9);
    fx_close(f);
}

static inline void scenario_scan_orders_int_identities_by_value(const target_spec *ts)
{
    fx *f = fx_open(scan_spec, ts);
    static const char *const ids[] = {"{id: 10}", "{id: 9}", "{id: -3}", "{id: 100}", "{id: 0}"};
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        fx_ok(f, "Row.Add", ids[i]);
    char b[256];
    assert_string_equal(scan_keys(f, "Row.Scan", "{id: -100, count: 10}", b, sizeof b),
                        "-3 0 9 10 100");
    assert_string_equal(scan_keys(f, "Row.Scan", "{id: 9, count: 2}", b, sizeof b), "9 10");
    assert_string_equal(scan_keys(f, "Row.Scan", "{id: 11, count: 2}", b, sizeof b), "100");
    assert_string_equal(scan_keys(f, "Row.Scan", "{id: 101, count: 2}", b, sizeof b), "");
    fx_close(f);
}

static inline void scenario_scan_sees_creates_deletes_and_updates(const target_spec *ts)
{
    fx *f = open_ranges(ts);
    char b[256];
    fx_ok(f, "User.Drop", "{key: user10}");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user1, count: 3}", b, sizeof b),
                        "user1 user2 user9");
    /* a create in the same run, between two */
    fx_ok(f, "User.Insert", "{key: user15, n: 15}");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user1, count: 3}", b, sizeof b),
                        "user1 user15 user2");
    /* deleted and created again */
    fx_ok(f, "User.Insert", "{key: user10, n: 10}");
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user10, count: 2}", b, sizeof b),
                        "user10 user15");
    /* an update shows its new state; a refused create changes nothing */
    fx_ok(f, "User.Bump", "{key: user15}");
    fx_refused(f, "User.Insert", "{key: user2, n: 0}",
               "User.Insert refused: User 'user2' already exists");
    const value *a = fx_ask(f, "User.Scan", "{key: user15, count: 2}");
    assert_int_equal(a->len, 2);
    assert_int_equal(a->u.items[0].u.items[1].u.i, 115);
    assert_int_equal(a->u.items[1].u.items[1].u.i, 2);
    /* every record gone: nothing to scan */
    static const char *const keys[] = {"user1", "user10", "user15", "user2", "user9"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        char args[64];
        snprintf(args, sizeof args, "{key: %s}", keys[i]);
        fx_ok(f, "User.Drop", args);
    }
    assert_string_equal(scan_keys(f, "User.Scan", "{key: \"\", count: 9}", b, sizeof b), "");
    fx_close(f);
}

static inline void scenario_scan_limit_below_one_refuses(const target_spec *ts)
{
    fx *f = open_ranges(ts);
    fx_refused(f, "User.Scan", "{key: user1, count: 0}",
               "User.Scan refused: count: 0 is less than the minimum 1");
    fx_refused(f, "User.Scan", "{key: user1, count: -5}",
               "User.Scan refused: count: -5 is less than the minimum 1");
    const value *a = NULL;
    assert_int_equal(target_answer(f->t, &a), TARGET_ERROR);
    char b[64];
    assert_string_equal(scan_keys(f, "User.Scan", "{key: user9, count: 1}", b, sizeof b), "user9");
    fx_close(f);
}

static inline void scenario_scans_write_nothing(const target_spec *ts)
{
    fx *f = open_ranges(ts);
    for (int i = 0; i < 50; i++)
        assert_int_equal(fx_ask(f, "User.Scan", "{key: user, count: 3}")->len, 3);
    assert_int_equal(fx_count(f, "User"), 4);
    /* a command after scans runs as before */
    fx_ok(f, "User.Bump", "{key: user9}");
    value rec;
    assert_true(fx_load(f, "User", "user9", &rec));
    assert_int_equal(fx_int(f, "User", &rec, "n"), 109);
    fx_close(f);
}

/* A scan over many records, after many creates and deletes: every second
 * one is gone, and the walk returns the rest in order. */
static inline void scenario_scan_walks_many_records(const target_spec *ts)
{
    fx *f = fx_open(scan_spec, ts);
    char args[64];
    for (int i = 0; i < 2000; i++) {
        snprintf(args, sizeof args, "{id: %d}", (i * 7919) % 2000); /* not in order */
        fx_ok(f, "Row.Add", args);
    }
    const value *a = fx_ask(f, "Row.Scan", "{id: 1000, count: 100}");
    assert_int_equal(a->len, 100);
    for (uint32_t i = 0; i < a->len; i++)
        assert_int_equal(a->u.items[i].u.items[0].u.i, 1000 + (int64_t)i);
    for (int i = 0; i < 2000; i += 2) { /* every second one goes */
        snprintf(args, sizeof args, "{id: %d}", i);
        fx_ok(f, "Row.Remove", args);
    }
    a = fx_ask(f, "Row.Scan", "{id: 1000, count: 100}");
    assert_int_equal(a->len, 100);
    for (uint32_t i = 0; i < a->len; i++)
        assert_int_equal(a->u.items[i].u.items[0].u.i, 1001 + 2 * (int64_t)i);
    a = fx_ask(f, "Row.Scan", "{id: 1950, count: 100}");
    assert_int_equal(a->len, 25);
    assert_int_equal(fx_count(f, "Row"), 1000);
    fx_close(f);
}

/* ---- the table ---- */

typedef struct runtime_scenario {
    const char *name;
    void (*run)(const target_spec *ts);
} runtime_scenario;

#define RUNTIME_SCENARIO(name)                                                                     \
    {                                                                                              \
#name, scenario_##name                                                                     \
    }

static const runtime_scenario runtime_scenarios[] = {
    RUNTIME_SCENARIO(pizza_cycle_changes_the_record_and_counts_events),
    RUNTIME_SCENARIO(new_record_takes_defaults_and_leaves_optionals_unset),
    RUNTIME_SCENARIO(bad_argument_refuses_naming_the_parameter),
    RUNTIME_SCENARIO(constant_arguments_are_checked_once_and_the_rest_always),
    RUNTIME_SCENARIO(create_refuses_an_identity_that_exists),
    RUNTIME_SCENARIO(command_refuses_an_identity_that_does_not_exist),
    RUNTIME_SCENARIO(guard_refuses_with_its_text),
    RUNTIME_SCENARIO(guards_run_in_order_and_the_first_false_one_refuses),
    RUNTIME_SCENARIO(list_guard_bounds_toppings),
    RUNTIME_SCENARIO(read_of_a_missing_record_refuses_naming_the_alias),
    RUNTIME_SCENARIO(guard_reads_the_loaded_alias),
    RUNTIME_SCENARIO(pattern_constraint_refuses_a_bad_argument),
    RUNTIME_SCENARIO(append_builds_a_struct_from_expressions),
    RUNTIME_SCENARIO(field_constraint_refuses_the_new_state_naming_the_field),
    RUNTIME_SCENARIO(ensure_compares_the_new_state_with_old),
    RUNTIME_SCENARIO(refusal_keeps_nothing_of_the_command),
    RUNTIME_SCENARIO(effects_see_the_old_state),
    RUNTIME_SCENARIO(append_build_fills_defaults_and_leaves_optionals_unset),
    RUNTIME_SCENARIO(list_max_items_is_an_invariant),
    RUNTIME_SCENARIO(changed_fields_are_checked_in_the_same_words),
    RUNTIME_SCENARIO(creates_check_what_they_set_in_the_same_words),
    RUNTIME_SCENARIO(values_that_passed_are_refused_in_the_same_words),
    RUNTIME_SCENARIO(payload_expressions_see_the_new_and_old_states),
    RUNTIME_SCENARIO(int_overflow_refuses),
    RUNTIME_SCENARIO(division_by_zero_refuses),
    RUNTIME_SCENARIO(reading_an_unset_optional_refuses),
    RUNTIME_SCENARIO(policy_runs_in_the_same_dispatch),
    RUNTIME_SCENARIO(refused_policy_rolls_back_the_whole_dispatch),
    RUNTIME_SCENARIO(policy_on_a_missing_record_refuses_the_command),
    RUNTIME_SCENARIO(policy_sees_its_commands_uncommitted_write),
    RUNTIME_SCENARIO(policy_chain_of_depth_eight_runs),
    RUNTIME_SCENARIO(policy_chain_deeper_than_eight_refuses),
    RUNTIME_SCENARIO(rolled_back_create_can_be_created_again),
    RUNTIME_SCENARIO(for_each_runs_the_command_once_per_item),
    RUNTIME_SCENARIO(for_each_refusal_of_one_item_keeps_nothing),
    RUNTIME_SCENARIO(for_each_over_an_empty_list_runs_nothing),
    RUNTIME_SCENARIO(for_each_inside_a_policy_chain),
    RUNTIME_SCENARIO(for_each_item_may_be_a_scalar),
    RUNTIME_SCENARIO(delete_removes_the_record_after_its_guards),
    RUNTIME_SCENARIO(refused_delete_guard_keeps_the_record),
    RUNTIME_SCENARIO(deleted_identity_can_be_created_again),
    RUNTIME_SCENARIO(refused_policy_rolls_a_delete_back),
    RUNTIME_SCENARIO(counts_after_deletes),
    RUNTIME_SCENARIO(store_grows_past_many_thousands_of_records),
    RUNTIME_SCENARIO(int_identities_grow_too),
    RUNTIME_SCENARIO(values_of_every_kind_come_back_verbatim),
    RUNTIME_SCENARIO(new_record_leaves_nested_optionals_unset),
    RUNTIME_SCENARIO(refusals_roll_back_policies_included),
    RUNTIME_SCENARIO(bundled_specs_and_examples_verify),
    RUNTIME_SCENARIO(awkward_names_are_kept_apart),
    RUNTIME_SCENARIO(query_answers_from_the_committed_record),
    RUNTIME_SCENARIO(query_of_a_missing_record_refuses),
    RUNTIME_SCENARIO(query_guard_refuses_with_its_text),
    RUNTIME_SCENARIO(query_reads_other_records),
    RUNTIME_SCENARIO(query_writes_nothing),
    RUNTIME_SCENARIO(scan_reads_in_identity_order_by_bytes),
    RUNTIME_SCENARIO(scan_orders_int_identities_by_value),
    RUNTIME_SCENARIO(scan_sees_creates_deletes_and_updates),
    RUNTIME_SCENARIO(scan_limit_below_one_refuses),
    RUNTIME_SCENARIO(scans_write_nothing),
    RUNTIME_SCENARIO(scan_walks_many_records),
};

enum { RUNTIME_NSCENARIOS = sizeof runtime_scenarios / sizeof *runtime_scenarios };

/* One scenario on one target: a cmocka test's state. */
typedef struct runtime_case {
    const runtime_scenario *scenario;
    const target_spec *ts;
    char name[128]; /* "label: scenario", as cmocka prints it */
} runtime_case;

static inline void runtime_case_run(void **state)
{
    const runtime_case *c = *state;
    c->scenario->run(c->ts);
}

/* Runs the whole table on the target ts as one cmocka group named for its
 * label, each scenario a test named "label: scenario". Returns the number
 * of scenarios that failed. */
static inline int runtime_scenarios_run(const target_spec *ts)
{
    runtime_case cases[RUNTIME_NSCENARIOS];
    struct CMUnitTest tests[RUNTIME_NSCENARIOS];
    for (size_t i = 0; i < RUNTIME_NSCENARIOS; i++) {
        cases[i].scenario = &runtime_scenarios[i];
        cases[i].ts = ts;
        snprintf(cases[i].name, sizeof cases[i].name, "%s: %s", ts->label,
                 runtime_scenarios[i].name);
        tests[i] = (struct CMUnitTest)cmocka_unit_test_prestate(runtime_case_run, &cases[i]);
        tests[i].name = cases[i].name;
    }
    char group[64];
    snprintf(group, sizeof group, "runtime scenarios on %s", ts->label);
    return cmocka_run_group_tests_name(group, tests, NULL, NULL);
}

#endif
