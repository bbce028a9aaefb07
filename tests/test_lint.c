/* test_lint.c: lint's passes over the compiled plan (policy cycles and
 * depth, the workload warnings) and its dry run on the runtime over a memory
 * store, on specs written in the test and on the bundled ones. The lint
 * corpus (test_lint_corpus.c) checks the messages end to end. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonschema.h"
#include "lint.h"
#include "load.h"
#include "spec.h"

/* A spec compiled from text, with what loading and compiling reported. */
typedef struct linted {
    doc *dc; /* the caller's until plan_compile succeeds */
    plan *p; /* NULL when it did not compile */
    diag_list d;
} linted;

static linted compile_text(const char *yaml)
{
    linted l = {0};
    assert_int_equal(load_string("t.yaml", yaml, strlen(yaml), &l.dc, &l.d), LOAD_OK);
    assert_true(jschema_validate(spec_schema(), l.dc->root, &l.d));
    if (plan_compile(l.dc, &l.d, &l.p) < 0)
        fail_msg("t.yaml does not compile: %s", l.d.count ? l.d.items[0].message : "?");
    l.dc = NULL; /* the plan owns it now */
    return l;
}

static void release(linted *l)
{
    plan_free(l->p);
    doc_free(l->dc);
    diag_list_free(&l->d);
}

/* ---- the dry run ---- */

static const char ghost_yaml[] = "spec: 1\n"
                                 "domain: ghost\n"
                                 "aggregates:\n"
                                 "  Item:\n"
                                 "    identity: id\n"
                                 "    fields:\n"
                                 "      id: string\n"
                                 "      n: {type: int, default: 0}\n"
                                 "    commands:\n"
                                 "      Make: {creates: true, params: {id: string}, emits: Made}\n"
                                 "      Bump: {params: {id: string}, set: {n: n + 1}, emits: "
                                 "Bumped}\n"
                                 "workload:\n"
                                 "%s"
                                 "  targets: [memory]\n";

/* A spec template (one %s) filled in and compiled. */
static linted compile_filled(const char *format, const char *fill)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, format, fill);
    return compile_text(yaml);
}

/* A workload, the step the dry run names (in setup or the cycle) and its message. */
typedef struct dry_case {
    const char *steps;
    bool in_setup;
    size_t step;
    const char *message;
} dry_case;

static const dry_case dry_cases[] = {
    /* a step on a record nothing created */
    {"  cycle:\n"
     "    - Item.Make: {id: \"i-${n}\"}\n"
     "    - Item.Bump: {id: ghost}\n",
     false, 1, "in cycle 0, Item.Bump refused: Item 'ghost' does not exist"},
    /* the same in setup */
    {"  setup:\n"
     "    - Item.Bump: {id: ghost}\n"
     "  cycle:\n"
     "    - Item.Make: {id: \"i-${n}\"}\n",
     true, 0, "in setup, Item.Bump refused: Item 'ghost' does not exist"},
    /* an expect: refused step that succeeds */
    {"  cycle:\n"
     "    - Item.Make: {id: \"i-${n}\"}\n"
     "    - Item.Make: {id: \"j-${n}\"}\n"
     "      expect: refused\n",
     false, 1, "in cycle 0, the step succeeded, but it expects a refusal"},
    /* the second cycle runs with ${n} = 1 and ${run} still 1 */
    {"  cycle:\n"
     "    - Item.Make: {id: \"i-${n}\"}\n"
     "    - Item.Bump: {id: i-0}\n"
     "    - Item.Make: {id: \"k-${run}\"}\n",
     false, 2, "in cycle 1, Item.Make refused: Item 'k-1' already exists"},
};

static void test_lint_dry_run_reports_the_first_unexpected_outcome(void **state)
{
    for (size_t i = 0; i < sizeof dry_cases / sizeof *dry_cases; i++) {
        const dry_case *c = &dry_cases[i];
        linted l = compile_filled(ghost_yaml, c->steps);
        assert_int_equal(lint_dry_run(l.p, &l.d), -1);
        assert_int_equal(l.d.count, 1);
        assert_int_equal(l.d.errors, 1);
        const step *st =
            c->in_setup ? &l.p->work.setup[c->step] : &l.p->work.flows[0].steps[c->step];
        assert_string_equal(l.d.items[0].file, "t.yaml");
        assert_int_equal(l.d.items[0].line, st->at->line);
        char want[512];
        snprintf(want, sizeof want, "dry run on the memory target: %s", c->message);
        assert_string_equal(l.d.items[0].message, want);
        release(&l);
    }
}

static void test_lint_dry_run_expected_refusals_pass(void **state)
{
    linted l = compile_filled(ghost_yaml, "  cycle:\n"
                                          "    - Item.Make: {id: \"i-${n}\"}\n"
                                          "    - Item.Make: {id: \"i-${n}\"}\n"
                                          "      expect: refused\n");
    assert_int_equal(lint_dry_run(l.p, &l.d), 0);
    assert_int_equal(l.d.count, 0);
    release(&l);
}

static void test_lint_dry_run_of_the_bundled_specs_reports_nothing(void **state)
{
    const char *paths[] = {"specs/pizzas.yaml",       "specs/banking.yaml",
                           "examples/tickets.yaml",   "examples/library.yaml",
                           "examples/inventory.yaml", "examples/cart.yaml"};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        diag_list d = {0};
        spec s;
        assert_int_equal(spec_open(paths[i], &d, &s), SPEC_OK);
        assert_int_equal(lint_dry_run(s.p, &d), 0);
        assert_int_equal(d.errors, 0);
        diag_list_free(&d);
        spec_close(&s);
    }
}

/* ---- policies ---- */

/* An aggregate whose commands Fill and Count emit Filled and Counted. */
static const char bin_yaml[] = "spec: 1\n"
                               "domain: bins\n"
                               "aggregates:\n"
                               "  Bin:\n"
                               "    identity: id\n"
                               "    fields: {id: string, items: {type: int, default: 0}}\n"
                               "    commands:\n"
                               "      Make: {creates: true, params: {id: string}}\n"
                               "      Fill: {params: {id: string}, set: {items: items + 1}, "
                               "emits: Filled}\n"
                               "      Count: {params: {id: string}, emits: Counted}\n"
                               "policies:\n"
                               "%s"
                               "workload:\n"
                               "  cycle:\n"
                               "    - Bin.Make: {id: \"b-${n}\"}\n"
                               "    - Bin.Fill: {id: \"b-${n}\"}\n";

static void test_lint_policies_refuses_a_cycle(void **state)
{
    linted l =
        compile_filled(bin_yaml, "  - {when: Filled, run: Bin.Count, args: {id: event.id}}\n"
                                 "  - {when: Counted, run: Bin.Fill, args: {id: event.id}}\n");
    assert_int_equal(lint_policies(l.p, &l.d), -1);
    assert_int_equal(l.d.errors, 1);
    assert_int_equal(l.d.items[0].line, l.p->policies[0].at->line);
    assert_string_equal(l.d.items[0].message, "policies form a cycle: Filled -> Counted -> Filled");
    release(&l);
}

static void test_lint_policies_passes_a_chain(void **state)
{
    linted l =
        compile_filled(bin_yaml, "  - {when: Filled, run: Bin.Count, args: {id: event.id}}\n");
    assert_int_equal(lint_policies(l.p, &l.d), 0);
    assert_int_equal(l.d.count, 0);
    release(&l);
}

static void test_compile_counts_a_cycle_with_fan_out_in_linear_time(void **state)
{
    /* ten policies each way: counting every path to depth 8 would take
       10^9 steps; the compiler counts each event once and lint refuses it */
    char policies[2048] = "";
    for (int i = 0; i < 10; i++) {
        strcat(policies, "  - {when: Filled, run: Bin.Count, args: {id: event.id}}\n");
        strcat(policies, "  - {when: Counted, run: Bin.Fill, args: {id: event.id}}\n");
    }
    linted l = compile_filled(bin_yaml, policies);
    assert_int_equal(lint_policies(l.p, &l.d), -1);
    release(&l);
}

/* A for_each policy is a policy like any other for cycles and depth: S0
 * emits E0 with a list of ids, a for_each policy on each E<i> runs S<i+1>
 * once per id; `last` is the last S, `cycle` makes it emit E0 again. */
static linted chain_of_for_each(int last, bool cycle)
{
    char yaml[8192];
    size_t n = (size_t)snprintf(yaml, sizeof yaml,
                                "spec: 1\n"
                                "domain: fan\n"
                                "aggregates:\n"
                                "  F:\n"
                                "    identity: id\n"
                                "    fields: {id: string, ids: {list: string}}\n"
                                "    commands:\n"
                                "      Make: {creates: true, params: {id: string}}\n");
    for (int i = 0; i <= last; i++)
        n += (size_t)snprintf(yaml + n, sizeof yaml - n,
                              "      S%d: {params: {id: string}, emits: {event: E%d, payload: "
                              "{ids: ids}}}\n",
                              i, i < last || !cycle ? i : 0);
    n += (size_t)snprintf(yaml + n, sizeof yaml - n, "policies:\n");
    for (int i = 0; i < last; i++)
        n += (size_t)snprintf(
            yaml + n, sizeof yaml - n,
            "  - {when: E%d, for_each: event.ids, run: F.S%d, args: {id: item}}\n", i, i + 1);
    snprintf(yaml + n, sizeof yaml - n,
             "workload:\n"
             "  cycle:\n"
             "    - F.Make: {id: \"f-${n}\"}\n");
    return compile_text(yaml);
}

static void test_lint_policies_follow_for_each_policies(void **state)
{
    linted l = chain_of_for_each(8, false); /* S0 -> S1 ... -> S8: 8 policies */
    assert_int_equal(lint_policies(l.p, &l.d), 0);
    assert_int_equal(l.d.count, 0);
    release(&l);

    l = chain_of_for_each(9, false);
    assert_int_equal(lint_policies(l.p, &l.d), -1);
    assert_int_equal(l.d.errors, 1);
    assert_string_equal(l.d.items[0].message,
                        "policies chain deeper than 8 starting from event 'E0'");
    release(&l);

    l = chain_of_for_each(2, true); /* S2 emits E0 again */
    assert_int_equal(lint_policies(l.p, &l.d), -1);
    assert_int_equal(l.d.errors, 1);
    assert_int_equal(l.d.items[0].line, l.p->policies[0].at->line);
    assert_string_equal(l.d.items[0].message, "policies form a cycle: E0 -> E1 -> E0");
    release(&l);
}

/* ---- warnings ---- */

static void test_lint_warns_on_no_warmup_and_one_run(void **state)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, bin_yaml, "  []\n");
    strcat(yaml, "  warmup: 0\n"
                 "  runs: 1\n");
    linted l = compile_text(yaml);
    lint_workload_warnings(l.p->source->root, &l.d);
    assert_int_equal(l.d.errors, 0);
    assert_int_equal(l.d.warnings, 2);
    diag_sort(&l.d);
    assert_int_equal(l.d.items[0].severity, DIAG_WARNING);
    assert_string_equal(l.d.items[0].message,
                        "no warmup: the first timed commands pay for cold caches");
    assert_int_equal(l.d.items[0].col, 11);
    assert_string_equal(l.d.items[1].message,
                        "one run: the report cannot show a range across runs");
    assert_int_equal(l.d.items[1].line, l.d.items[0].line + 1);
    assert_int_equal(l.d.items[1].col, 9);
    release(&l);
}

static void test_lint_warnings_come_with_compile_errors(void **state)
{
    /* spec_open reports them even when the spec does not compile */
    char path[] = "/tmp/test_lint.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    char yaml[4096];
    snprintf(yaml, sizeof yaml, bin_yaml, "  []\n");
    fprintf(f, "%s    - Bin.Shut: {id: x}\n  warmup: 0\n", yaml);
    fclose(f);
    diag_list d = {0};
    spec s;
    assert_int_equal(spec_open(path, &d, &s), SPEC_INVALID);
    assert_int_equal(d.errors, 1);
    assert_int_equal(d.warnings, 1);
    spec_close(&s);
    diag_list_free(&d);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lint_dry_run_reports_the_first_unexpected_outcome),
        cmocka_unit_test(test_lint_dry_run_expected_refusals_pass),
        cmocka_unit_test(test_lint_dry_run_of_the_bundled_specs_reports_nothing),
        cmocka_unit_test(test_lint_policies_refuses_a_cycle),
        cmocka_unit_test(test_lint_policies_passes_a_chain),
        cmocka_unit_test(test_lint_policies_follow_for_each_policies),
        cmocka_unit_test(test_compile_counts_a_cycle_with_fan_out_in_linear_time),
        cmocka_unit_test(test_lint_warns_on_no_warmup_and_one_run),
        cmocka_unit_test(test_lint_warnings_come_with_compile_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
