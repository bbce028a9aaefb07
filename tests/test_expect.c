/* test_expect.c: a step's expectations of refusals. `expect: {refused:
 * TEXT}` (lint proves the command can refuse with TEXT, the dry run and
 * the runner hold each refusal to it) and `on_refusal: count` (a refusal is
 * counted, not an abort). The lint corpus checks the error messages end to
 * end (tests/lint/expect_refused_text_unknown.yaml and its neighbours). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonschema.h"
#include "lint.h"
#include "load.h"
#include "runner.h"
#include "spec.h"

/* A spec compiled from text, with what loading, compiling and lint reported. */
typedef struct linted {
    plan *p;
    diag_list d;
} linted;

/* Compiles yaml and runs lint's plan passes; rc is theirs. */
static linted compile_text(const char *yaml, int *rc)
{
    linted l = {0};
    doc *dc = NULL;
    assert_int_equal(load_string("t.yaml", yaml, strlen(yaml), &dc, &l.d), LOAD_OK);
    if (!jschema_validate(spec_schema(), dc->root, &l.d))
        fail_msg("t.yaml is not valid: %s", l.d.count ? l.d.items[0].message : "?");
    if (plan_compile(dc, &l.d, &l.p) < 0)
        fail_msg("t.yaml does not compile: %s", l.d.count ? l.d.items[0].message : "?");
    *rc = lint_policies(l.p, &l.d);
    return l;
}

static void release(linted *l)
{
    plan_free(l->p);
    diag_list_free(&l->d);
}

/* Purchase refuses with its own guard and ensure, and, through the policy
 * on Purchased, with Stock.Take's guard. One %s: the setup's stock, one %s:
 * the cycle's last step's lines. */
static const char pizza_yaml[] = "spec: 1\n"
                                 "domain: pizzeria\n"
                                 "aggregates:\n"
                                 "  Stock:\n"
                                 "    identity: sku\n"
                                 "    fields:\n"
                                 "      sku: string\n"
                                 "      count: {type: int, min: 0, default: 0}\n"
                                 "    commands:\n"
                                 "      Fill:\n"
                                 "        creates: true\n"
                                 "        params: {sku: string, count: int}\n"
                                 "        set: {count: arg.count}\n"
                                 "      Take:\n"
                                 "        params: {sku: string}\n"
                                 "        guards:\n"
                                 "          - {check: count > 0, refuse: not enough stock}\n"
                                 "        set: {count: count - 1}\n"
                                 "  Order:\n"
                                 "    identity: name\n"
                                 "    fields:\n"
                                 "      name: string\n"
                                 "      sku: string\n"
                                 "    commands:\n"
                                 "      Purchase:\n"
                                 "        creates: true\n"
                                 "        params: {name: string, sku: string}\n"
                                 "        guards:\n"
                                 "          - {check: len(arg.name) > 0, refuse: a pizza needs a "
                                 "name}\n"
                                 "        set: {sku: arg.sku}\n"
                                 "        emits: Purchased\n"
                                 "policies:\n"
                                 "  - when: Purchased\n"
                                 "    run: Stock.Take\n"
                                 "    args: {sku: event.sku}\n"
                                 "workload:\n"
                                 "  setup:\n"
                                 "    - Stock.Fill: {sku: margherita, count: %s}\n"
                                 "  cycle:\n"
                                 "%s"
                                 "  warmup: 2\n"
                                 "  runs: 1\n"
                                 "  targets: [memory]\n";

static linted pizza(const char *stock, const char *cycle, int *rc)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, pizza_yaml, stock, cycle);
    return compile_text(yaml, rc);
}

/* Checkout's for_each policy takes one of a stock per line, refusing with
 * Stock.Take's guard. One %s: the cycle's steps after a cart with two lines
 * of margherita, whose stock is 1. */
static const char cart_yaml[] = "spec: 1\n"
                                "domain: carts\n"
                                "aggregates:\n"
                                "  Stock:\n"
                                "    identity: sku\n"
                                "    fields: {sku: string, count: {type: int, min: 0}}\n"
                                "    commands:\n"
                                "      Fill: {creates: true, params: {sku: string, count: int},\n"
                                "             set: {count: arg.count}}\n"
                                "      Take:\n"
                                "        params: {sku: string}\n"
                                "        guards:\n"
                                "          - {check: count > 0, refuse: not enough stock}\n"
                                "        set: {count: count - 1}\n"
                                "  Cart:\n"
                                "    identity: id\n"
                                "    fields: {id: string, skus: {list: string}}\n"
                                "    commands:\n"
                                "      Open: {creates: true, params: {id: string}}\n"
                                "      Add: {params: {id: string, sku: string}, append: {skus: "
                                "arg.sku}}\n"
                                "      Checkout:\n"
                                "        params: {id: string}\n"
                                "        guards:\n"
                                "          - {check: len(skus) > 0, refuse: the cart is empty}\n"
                                "        emits: {event: CheckedOut, payload: {skus: skus}}\n"
                                "policies:\n"
                                "  - {when: CheckedOut, for_each: event.skus, run: Stock.Take,\n"
                                "     args: {sku: item}}\n"
                                "workload:\n"
                                "  setup:\n"
                                "    - Stock.Fill: {sku: margherita, count: 1}\n"
                                "  cycle:\n"
                                "    - Cart.Open: {id: \"c-${n}\"}\n"
                                "    - Cart.Add: {id: \"c-${n}\", sku: margherita}\n"
                                "    - Cart.Add: {id: \"c-${n}\", sku: margherita}\n"
                                "%s"
                                "  warmup: 2\n"
                                "  runs: 1\n"
                                "  targets: [memory]\n";

static linted cart(const char *steps, int *rc)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, cart_yaml, steps);
    return compile_text(yaml, rc);
}

/* Lint refused step `at`'s expected text with exactly message, at the text. */
static void assert_cannot_refuse(const linted *l, int rc, size_t at, const char *message)
{
    assert_int_equal(rc, -1);
    assert_int_equal(l->d.errors, 1);
    assert_int_equal(l->d.items[0].line, l->p->work.flows[0].steps[at].expect_text_at->line);
    assert_string_equal(l->d.items[0].message, message);
}

/* ---- 1. what lint accepts ---- */

static void test_a_text_a_policy_refuses_with_passes_lint_and_the_dry_run(void **state)
{
    int rc;
    linted l = pizza("0",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      expect: {refused: not enough stock}\n",
                     &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(lint_dry_run(l.p, &l.d), 0);
    assert_int_equal(l.d.errors, 0);
    assert_string_equal(l.p->work.flows[0].steps[0].expect_text, "not enough stock");
    assert_true(l.p->work.flows[0].steps[0].expect_refused);
    release(&l);
}

/* The second item's Take refuses and takes the first one's along, so every
 * cycle finds the stock at 1 again. */
static void test_a_text_a_for_each_policy_refuses_with_passes_lint_and_the_run(void **state)
{
    int rc;
    linted l = cart("    - Cart.Checkout: {id: \"c-${n}\"}\n"
                    "      expect: {refused: not enough stock}\n",
                    &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(lint_dry_run(l.p, &l.d), 0);
    assert_int_equal(l.d.errors, 0);
    run_options o = {.iterations = 5, .warmup = -1, .runs = -1, .quiet = true};
    const plan *plans[] = {l.p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_false(r.results[0].failed);
    const verb_result *checkout = &r.results[0].runs[0].verbs[2]; /* Open, Add, Checkout */
    assert_string_equal(checkout->verb, "Cart.Checkout");
    assert_int_equal(checkout->refused, 5);
    report_free(&r);
    release(&l);

    l = cart("    - Cart.Checkout: {id: \"c-${n}\"}\n"
             "      expect: {refused: out of stock}\n",
             &rc);
    assert_cannot_refuse(
        &l, rc, 3,
        "Cart.Checkout cannot refuse with 'out of stock'; it can refuse with: 'the "
        "cart is empty', 'not enough stock', 'Cart <id> does not exist', 'Stock "
        "<id> does not exist', or a field constraint's or an expression's message");
    release(&l);
}

static void test_a_built_in_refusal_passes_by_its_shape_with_templates_filled_in(void **state)
{
    int rc;
    linted l = pizza("100",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      expect: {refused: \"Order 'p-${n}' already exists\"}\n",
                     &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(lint_dry_run(l.p, &l.d), 0);
    assert_int_equal(l.d.errors, 0);
    char buf[64];
    assert_string_equal(lint_expected_text(&l.p->work.flows[0].steps[1], 12, 3, buf, sizeof buf),
                        "Order 'p-12' already exists");
    release(&l);
}

static void test_a_text_nothing_refuses_with_is_an_error_at_the_text(void **state)
{
    int rc;
    linted l = pizza("0",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      expect: {refused: \"Stock 'x' is gone\"}\n",
                     &rc);
    assert_cannot_refuse(&l, rc, 0,
                         "Order.Purchase cannot refuse with 'Stock 'x' is gone'; it can refuse "
                         "with: 'a pizza needs a name', 'not enough stock', 'Order <id> already "
                         "exists', 'Stock <id> does not exist', or a field constraint's or an "
                         "expression's message");
    release(&l);
}

static void test_plain_expect_refused_accepts_any_refusal(void **state)
{
    int rc;
    linted l = pizza("0",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      expect: refused\n",
                     &rc);
    assert_int_equal(rc, 0);
    assert_null(l.p->work.flows[0].steps[0].expect_text);
    assert_int_equal(lint_dry_run(l.p, &l.d), 0);
    assert_true(lint_refusal_matches(&l.p->work.flows[0].steps[0], "anything at all", 0, 1));
    release(&l);
}

static void test_the_refusal_text_drops_the_runtime_prefixes(void **state)
{
    assert_string_equal(lint_refusal_text("Order.Purchase refused: policy Stock.Take refused: "
                                          "not enough stock"),
                        "not enough stock");
    assert_string_equal(lint_refusal_text("Order.Purchase refused: a pizza needs a name"),
                        "a pizza needs a name");
    /* a process runtime's own text, and a policy's word that is not a prefix */
    assert_string_equal(lint_refusal_text("not enough stock"), "not enough stock");
    assert_string_equal(lint_refusal_text("Order.Purchase refused: policy violated"),
                        "policy violated");
    /* a for_each policy's item, at any depth of the chain */
    assert_string_equal(lint_refusal_text("Cart.Checkout refused: policy Stock.Take (item 2 of 3) "
                                          "refused: not enough stock"),
                        "not enough stock");
    assert_string_equal(lint_refusal_text("Cart.Submit refused: policy Cart.Checkout refused: "
                                          "policy Stock.Take (item 12 of 40) refused: no"),
                        "no");
    /* only a whole item counts: these are texts of Cart.Checkout's */
    assert_string_equal(lint_refusal_text("Cart.Checkout refused: policy Stock.Take (item 2 of) "
                                          "refused: no"),
                        "policy Stock.Take (item 2 of) refused: no");
    assert_string_equal(lint_refusal_text("Cart.Checkout (item 1 of 2) refused: no"),
                        "Cart.Checkout (item 1 of 2) refused: no");
}

/* ---- 2. what a run holds a refusal to ---- */

static run_options options(void)
{
    return (run_options){.iterations = 5, .warmup = -1, .runs = -1, .quiet = true};
}

static void test_a_refusal_with_another_text_fails_the_run(void **state)
{
    int rc;
    linted l = pizza("0",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      expect: {refused: a pizza needs a name}\n",
                     &rc);
    assert_int_equal(rc, 0);
    run_options o = options();
    const plan *plans[] = {l.p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 1);
    assert_int_equal(r.nresults, 1);
    assert_true(r.results[0].failed);
    char want[512];
    snprintf(want, sizeof want,
             "run 1, warmup cycle 0, Order.Purchase (t.yaml:%d): refused with 'not enough "
             "stock', but the step expects 'a pizza needs a name'",
             l.p->work.flows[0].steps[0].at->line);
    assert_string_equal(r.results[0].reason, want);
    report_free(&r);
    release(&l);
}

static void test_a_refusal_with_the_text_passes_the_run(void **state)
{
    int rc;
    linted l = pizza("0",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      expect: {refused: not enough stock}\n",
                     &rc);
    run_options o = options();
    const plan *plans[] = {l.p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_false(r.results[0].failed);
    const run_result *rr = &r.results[0].runs[0];
    assert_int_equal(rr->verbs[0].refused, 5);
    report_free(&r);
    release(&l);
}

/* ---- 3. on_refusal: count ---- */

static void test_counted_refusals_do_not_abort_and_goodput_leaves_them_out(void **state)
{
    int rc;
    /* 3 in stock: the purchases of cycles 0 to 2 succeed, the rest are refused */
    linted l = pizza("3",
                     "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n"
                     "      on_refusal: count\n",
                     &rc);
    assert_int_equal(rc, 0);
    assert_true(l.p->work.flows[0].steps[0].count_refusals);
    assert_int_equal(lint_dry_run(l.p, &l.d), 0);
    run_options o = options();
    o.warmup = 0;
    o.iterations = 10;
    const plan *plans[] = {l.p};
    report r = {0};
    int ran = runner_run(plans, 1, &o, &r);
    const target_result *t = &r.results[0];
    if (t->failed)
        fail_msg("%s", t->reason);
    assert_int_equal(ran, 0);
    const run_result *rr = &t->runs[0];
    assert_int_equal(rr->verbs[0].count, 10);
    assert_int_equal(rr->verbs[0].refused, 0);
    assert_int_equal(rr->verbs[0].refused_counted, 7);
    assert_true(rr->goodput_per_s > 0);
    assert_true(fabs(rr->goodput_per_s - rr->fig.throughput_per_s * 3 / 10) <
                1e-6 * rr->fig.throughput_per_s);
    report_free(&r);
    release(&l);
}

static void test_a_counted_step_must_be_in_the_cycle(void **state)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, pizza_yaml,
             "1}\n      on_refusal: count\n    - Stock.Fill: {sku: x, count: 1",
             "    - Order.Purchase: {name: \"p-${n}\", sku: margherita}\n");
    doc *dc = NULL;
    diag_list d = {0};
    assert_int_equal(load_string("t.yaml", yaml, strlen(yaml), &dc, &d), LOAD_OK);
    assert_true(jschema_validate(spec_schema(), dc->root, &d));
    plan *p = NULL;
    assert_int_equal(plan_compile(dc, &d, &p), -1);
    assert_string_equal(d.items[0].message, "on_refusal: count is for cycle steps, not setup");
    doc_free(dc);
    diag_list_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_text_a_policy_refuses_with_passes_lint_and_the_dry_run),
        cmocka_unit_test(test_a_text_a_for_each_policy_refuses_with_passes_lint_and_the_run),
        cmocka_unit_test(test_a_built_in_refusal_passes_by_its_shape_with_templates_filled_in),
        cmocka_unit_test(test_a_text_nothing_refuses_with_is_an_error_at_the_text),
        cmocka_unit_test(test_plain_expect_refused_accepts_any_refusal),
        cmocka_unit_test(test_the_refusal_text_drops_the_runtime_prefixes),
        cmocka_unit_test(test_a_refusal_with_another_text_fails_the_run),
        cmocka_unit_test(test_a_refusal_with_the_text_passes_the_run),
        cmocka_unit_test(test_counted_refusals_do_not_abort_and_goodput_leaves_them_out),
        cmocka_unit_test(test_a_counted_step_must_be_in_the_cycle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
