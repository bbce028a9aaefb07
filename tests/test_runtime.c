/* test_runtime.c: dispatch semantics (DESIGN section 2) through the memory
 * target, on small domains compiled from YAML written here. Arguments are
 * written as YAML flow mappings and converted by type without checking
 * constraints, so the runtime's own checks are what refuse them. A store
 * that logs them shows which records the runtime hints before it loads. */
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
#include "plan_fixture.h"
#include "runtime.h"
#include "store_memory.h"

/* ---- fixture: plan_fixture.h on the memory target ---- */

static const target_spec memory_ts = {.name = "memory", .label = "memory"};

static fx *fx_memory(const char *yaml)
{
    return fx_open(yaml, &memory_ts, runtime_target_store);
}

static bool load_int(fx *f, const char *name, int64_t key, value *out)
{
    value k = {.kind = VAL_INT, .u.i = key};
    return fx_load_key(f, name, &k, out);
}

static const char *get_enum(fx *f, const char *agg, const value *rec, const char *name)
{
    const value *v = fx_get(f, agg, rec, name);
    assert_int_equal(v->kind, VAL_ENUM);
    const ty *t = fx_agg(f, agg)->state;
    return t->fields[ty_field_index(t, name)].type->values[v->u.e];
}

static void assert_str(const value *v, const char *s)
{
    fx_assert_str(v, s, strlen(s));
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
    fx_ok(f, "Order.CreatePizza", args);
}

static void test_pizza_cycle_changes_the_record_and_counts_events(void **state)
{
    fx *f = fx_memory(pizzas);
    create_pizza(f, "pizza-1");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Olive, amount: 2}}");
    fx_ok(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1200}");

    value rec;
    assert_true(fx_load(f, "Order", "pizza-1", &rec));
    assert_string_equal(get_enum(f, "Order", &rec, "status"), "sold");
    assert_str(fx_get(f, "Order", &rec, "customer_name"), "Chris");
    const value *tops = fx_get(f, "Order", &rec, "toppings");
    assert_int_equal(tops->len, 2);
    assert_str(&tops->u.items[0].u.items[0], "Basil");
    assert_str(&tops->u.items[1].u.items[0], "Olive");
    assert_int_equal(tops->u.items[1].u.items[1].u.i, 2);
    const value *pizza = fx_get(f, "Order", &rec, "pizza");
    assert_int_equal(pizza->u.items[0].u.i, 1200);

    assert_int_equal(fx_count(f, "Order"), 1);
    assert_int_equal(fx_count(f, "PizzaCreated"), 1);
    assert_int_equal(fx_count(f, "ToppingAdded"), 2);
    assert_int_equal(fx_count(f, "PizzaPurchased"), 1);
    fx_close(f);
}

static void test_new_record_takes_defaults_and_leaves_optionals_unset(void **state)
{
    fx *f = fx_memory(pizzas);
    create_pizza(f, "pizza-1");
    value rec;
    assert_true(fx_load(f, "Order", "pizza-1", &rec));
    assert_str(fx_get(f, "Order", &rec, "name"), "pizza-1");
    assert_string_equal(get_enum(f, "Order", &rec, "status"), "available");
    assert_int_equal(fx_get(f, "Order", &rec, "customer_name")->kind, VAL_NONE);
    assert_int_equal(fx_get(f, "Order", &rec, "toppings")->kind, VAL_LIST);
    assert_int_equal(fx_get(f, "Order", &rec, "toppings")->len, 0);
    fx_close(f);
}

static void test_bad_argument_refuses_naming_the_parameter(void **state)
{
    fx *f = fx_memory(pizzas);
    create_pizza(f, "pizza-1");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: -5}",
               "Order.Purchase refused: amount: -5 is less than the minimum 0");
    fx_refused(f, "Order.CreatePizza", "{name: pizza-2, pizza: {price_cents: -1, size: large}}",
               "Order.CreatePizza refused: pizza.price_cents: -1 is less than the minimum 0");
    assert_int_equal(fx_count(f, "Order"), 1);
    fx_close(f);
}

static void test_create_refuses_an_identity_that_exists(void **state)
{
    fx *f = fx_memory(pizzas);
    create_pizza(f, "pizza-3");
    fx_refused(f, "Order.CreatePizza", "{name: pizza-3, pizza: {price_cents: 1, size: small}}",
               "Order.CreatePizza refused: Order 'pizza-3' already exists");
    value rec;
    assert_true(fx_load(f, "Order", "pizza-3", &rec));
    assert_int_equal(fx_get(f, "Order", &rec, "pizza")->u.items[0].u.i, 1200);
    assert_int_equal(fx_count(f, "PizzaCreated"), 1);
    fx_close(f);
}

static void test_command_refuses_an_identity_that_does_not_exist(void **state)
{
    fx *f = fx_memory(pizzas);
    fx_refused(f, "Order.AddTopping", "{name: pizza-9, topping: {name: Basil, amount: 3}}",
               "Order.AddTopping refused: Order 'pizza-9' does not exist");
    assert_int_equal(fx_count(f, "Order"), 0);
    assert_int_equal(fx_count(f, "ToppingAdded"), 0);
    fx_close(f);
}

static void test_guard_refuses_with_its_text(void **state)
{
    fx *f = fx_memory(pizzas);
    create_pizza(f, "pizza-1");
    fx_ok(f, "Order.AddTopping", "{name: pizza-1, topping: {name: Basil, amount: 3}}");
    fx_ok(f, "Order.Purchase", "{name: pizza-1, customer_name: Chris, amount: 1200}");
    fx_refused(f, "Order.Purchase", "{name: pizza-1, customer_name: Dana, amount: 1500}",
               "Order.Purchase refused: the pizza is already sold");
    value rec;
    assert_true(fx_load(f, "Order", "pizza-1", &rec));
    assert_str(fx_get(f, "Order", &rec, "customer_name"), "Chris");
    assert_int_equal(fx_count(f, "PizzaPurchased"), 1);
    fx_close(f);
}

static void test_guards_run_in_order_and_the_first_false_one_refuses(void **state)
{
    fx *f = fx_memory(pizzas);
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

static void test_list_guard_bounds_toppings(void **state)
{
    fx *f = fx_memory(pizzas);
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

static void test_read_of_a_missing_record_refuses_naming_the_alias(void **state)
{
    fx *f = fx_memory(banking);
    fx_ok(f, "Customer.Register", ada);
    fx_refused(f, "Account.Open", "{number: acct-1, customer: CUST-0002, daily_limit: 100}",
               "Account.Open refused: Customer 'CUST-0002' does not exist (read as owner)");
    assert_int_equal(fx_count(f, "Account"), 0);
    fx_ok(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 100}");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_string_equal(get_enum(f, "Account", &rec, "customer_status"), "active");
    fx_close(f);
}

static void test_guard_reads_the_loaded_alias(void **state)
{
    fx *f = fx_memory(banking);
    fx_ok(f, "Customer.Register", ada);
    fx_ok(f, "Customer.Suspend", "{reference: CUST-0001}");
    fx_refused(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 100}",
               "Account.Open refused: the customer is not active");
    fx_close(f);
}

static void test_pattern_constraint_refuses_a_bad_argument(void **state)
{
    fx *f = fx_memory(banking);
    fx_refused(f, "Customer.Register",
               "{reference: CUST-0001, name: {given: Ada, family: Lovelace}, email: not-an-email}",
               "Customer.Register refused: email: 'not-an-email' does not match the pattern "
               "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$");
    assert_int_equal(fx_count(f, "Customer"), 0);
    fx_close(f);
}

static void open_account(fx *f)
{
    fx_ok(f, "Customer.Register", ada);
    fx_ok(f, "Account.Open", "{number: acct-1, customer: CUST-0001, daily_limit: 50000}");
}

static void test_append_builds_a_struct_from_expressions(void **state)
{
    fx *f = fx_memory(banking);
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
    assert_str(&debit->u.items[2], "Groceries");
    assert_int_equal(debit->u.items[3].u.e, 1); /* debit */
    assert_int_equal(fx_count(f, "AccountCredited"), 2);
    assert_int_equal(fx_count(f, "AccountDebited"), 1);
    fx_close(f);
}

static void test_field_constraint_refuses_the_new_state_naming_the_field(void **state)
{
    fx *f = fx_memory(banking);
    open_account(f);
    fx_ok(f, "Account.Credit", "{number: acct-1, amount: 100, narrative: Deposit}");
    fx_refused(f, "Account.Overdraw", "{number: acct-1, amount: 105}",
               "Account.Overdraw refused: balance: -5 is less than the minimum 0");
    value rec;
    assert_true(fx_load(f, "Account", "acct-1", &rec));
    assert_int_equal(fx_int(f, "Account", &rec, "balance"), 100);
    fx_close(f);
}

static void test_ensure_compares_the_new_state_with_old(void **state)
{
    fx *f = fx_memory(banking);
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

static void test_refusal_keeps_nothing_of_the_command(void **state)
{
    fx *f = fx_memory(banking);
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

static void test_effects_see_the_old_state(void **state)
{
    fx *f = fx_memory(misc);
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
    assert_str(&note->u.items[1], "tagged");
    assert_int_equal(note->u.items[2].u.e, 0); /* plain */
    assert_str(&note->u.items[3], "red");
    fx_close(f);
}

static void test_append_build_fills_defaults_and_leaves_optionals_unset(void **state)
{
    fx *f = fx_memory(misc);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    const value *notes = fx_get(f, "Pair", &rec, "notes");
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
    fx *f = fx_memory(misc);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    fx_refused(f, "Pair.Jot", "{id: x}",
               "Pair.Jot refused: notes: 3 item(s), more than the maximum 2");
    assert_int_equal(fx_count(f, "Jotted"), 2);
    assert_int_equal(fx_count(f, "Log"), 2);
    fx_close(f);
}

static void test_payload_expressions_see_the_new_and_old_states(void **state)
{
    fx *f = fx_memory(misc);
    fx_ok(f, "Pair.Make", "{id: x, a: 7, b: 2}");
    fx_ok(f, "Pair.Jot", "{id: x}");
    value rec;
    assert_true(load_int(f, "Log", 1, &rec));
    assert_str(fx_get(f, "Log", &rec, "id"), "x");
    assert_int_equal(fx_int(f, "Log", &rec, "before"), 0);
    assert_int_equal(fx_int(f, "Log", &rec, "a"), 7);
    fx_close(f);
}

static void test_int_overflow_refuses(void **state)
{
    fx *f = fx_memory(misc);
    fx_ok(f, "Pair.Make", "{id: x, a: 9223372036854775806, b: 0}");
    fx_ok(f, "Pair.Add", "{id: x, by: 1}");
    fx_refused(f, "Pair.Add", "{id: x, by: 1}",
               "Pair.Add refused: integer overflow in \"a + arg.by\"");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    assert_int_equal(fx_int(f, "Pair", &rec, "a"), INT64_MAX);
    fx_close(f);
}

static void test_division_by_zero_refuses(void **state)
{
    fx *f = fx_memory(misc);
    fx_ok(f, "Pair.Make", "{id: x, a: 7, b: 0}");
    fx_ok(f, "Pair.Divide", "{id: x, by: -2}");
    fx_refused(f, "Pair.Divide", "{id: x, by: 0}",
               "Pair.Divide refused: division by zero in \"a / arg.by\"");
    value rec;
    assert_true(fx_load(f, "Pair", "x", &rec));
    assert_int_equal(fx_int(f, "Pair", &rec, "a"), -3); /* C truncation */
    fx_close(f);
}

static void test_reading_an_unset_optional_refuses(void **state)
{
    fx *f = fx_memory(misc);
    fx_ok(f, "Pair.Make", "{id: x, a: 1, b: 2}");
    fx_refused(f, "Pair.Greet", "{id: x}",
               "Pair.Greet refused: an optional field is not set in \"nick == 'bob'\"");
    fx_close(f);
}

/* ---- policies ---- */

static void library_setup(fx *f, int max_loans)
{
    char args[64];
    snprintf(args, sizeof args, "{card: M-0001, max_loans: %d}", max_loans);
    fx_ok(f, "Member.Join", args);
}

static void test_policy_runs_in_the_same_dispatch(void **state)
{
    fx *f = fx_memory(library);
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

static void test_refused_policy_rolls_back_the_whole_dispatch(void **state)
{
    fx *f = fx_memory(library);
    library_setup(f, 1);
    fx_ok(f, "Copy.Acquire", "{barcode: c-1}");
    fx_ok(f, "Copy.Acquire", "{barcode: c-2}");
    fx_ok(f, "Copy.Lend", "{barcode: c-1, card: M-0001}");
    fx_refused(f, "Copy.Lend", "{barcode: c-2, card: M-0001}",
               "Copy.Lend refused: policy Member.CountLoan refused: at most max_loans loans");
    value rec;
    assert_true(fx_load(f, "Copy", "c-2", &rec));
    assert_string_equal(get_enum(f, "Copy", &rec, "status"), "on_shelf");
    assert_str(fx_get(f, "Copy", &rec, "borrower"), "");
    assert_true(fx_load(f, "Member", "M-0001", &rec));
    assert_int_equal(fx_int(f, "Member", &rec, "loans"), 1);
    assert_int_equal(fx_count(f, "CopyLent"), 1);
    assert_int_equal(fx_count(f, "LoanCounted"), 1);
    fx_close(f);
}

static void test_policy_on_a_missing_record_refuses_the_command(void **state)
{
    fx *f = fx_memory(library);
    fx_ok(f, "Copy.Acquire", "{barcode: c-1}");
    fx_refused(f, "Copy.Lend", "{barcode: c-1, card: M-0404}",
               "Copy.Lend refused: policy Member.CountLoan refused: Member 'M-0404' does not "
               "exist");
    value rec;
    assert_true(fx_load(f, "Copy", "c-1", &rec));
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
    fx *f = fx_memory(audit);
    fx_ok(f, "Counter.Make", "{id: 7}");
    fx_ok(f, "Counter.Inc", "{id: 7}");
    fx_ok(f, "Counter.Inc", "{id: 7}");
    value rec;
    assert_true(load_int(f, "Counter", 7, &rec));
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
    fx *f = fx_memory(chain);
    fx_ok(f, "C.Make", "{id: x}");
    fx_ok(f, "C.S0", "{id: x}");
    value rec;
    assert_true(fx_load(f, "C", "x", &rec));
    assert_int_equal(fx_int(f, "C", &rec, "n"), 9);
    assert_int_equal(fx_count(f, "E7"), 1);
    fx_close(f);
}

static void test_policy_chain_deeper_than_eight_refuses(void **state)
{
    fx *f = fx_memory(chain);
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
    fx *f = fx_memory(tagging);
    fx_ok(f, "Item.Create", "{id: a, tag: red}");
    fx_refused(f, "Item.Create", "{id: b, tag: red}",
               "Item.Create refused: policy Tag.Claim refused: Tag 'red' already exists");
    value rec;
    assert_false(fx_load(f, "Item", "b", &rec));
    assert_int_equal(fx_count(f, "Item"), 1);
    assert_int_equal(fx_count(f, "Created"), 1);
    fx_ok(f, "Item.Create", "{id: b, tag: blue}");
    assert_true(fx_load(f, "Item", "b", &rec));
    assert_str(fx_get(f, "Item", &rec, "tag"), "blue");
    assert_int_equal(fx_count(f, "Item"), 2);
    assert_int_equal(fx_count(f, "Tag"), 2);
    assert_int_equal(fx_count(f, "Claimed"), 2);
    fx_close(f);
}

/* ---- scale ---- */

static void test_store_grows_past_many_thousands_of_records(void **state)
{
    enum { N = 30000 };
    fx *f = fx_memory(pizzas);
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

static void test_int_identities_grow_too(void **state)
{
    enum { N = 20000 };
    fx *f = fx_memory(audit);
    char args[64];
    for (int i = 0; i < N; i++) {
        snprintf(args, sizeof args, "{id: %d}", i * 1024); /* same low bits */
        fx_ok(f, "Counter.Make", args);
    }
    assert_int_equal(fx_count(f, "Counter"), N);
    fx_ok(f, "Counter.Inc", "{id: 1024}");
    value rec;
    assert_true(load_int(f, "Counter", 1024, &rec));
    assert_int_equal(fx_int(f, "Counter", &rec, "n"), 1);
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
    plan *p = fx_compile(pizzas);
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
    "  - {on: Acquired, run: Member.Bump, args: {card: event.card}}\n"
    "  - {on: Poked, run: Member.Bump, args: {card: event.card}}\n"
    "  - {on: Mixed, run: Member.Bump, args: {card: event.card}}\n"
    "  - {on: Mixed, run: Member.Bump, args: {card: event.other}}\n"
    "  - {on: Dropped, run: Member.Bump, args: {card: event.card}}\n"
    "  - {on: Taken, run: Member.Bump, args: {card: event.card}}\n"
    "  - {on: Given, run: Member.Bump, args: {card: event.card}}\n"
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
    plan *p = fx_compile(pizzas);
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
        cmocka_unit_test(test_policy_keys_known_before_the_command_are_hinted),
        cmocka_unit_test(test_registry_lists_memory_and_null),
        cmocka_unit_test(test_null_target_accepts_everything_and_cannot_count),
        cmocka_unit_test(test_target_fail_sets_the_message_and_returns_the_status),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
