/* test_verify.c: verify by state (DESIGN section 11) against real children
 * over real pipes and the real stores. Runtimes that misbehave
 * (tests/fixtures/liar_runtime.py: one that stores nothing and lies in its
 * counts, one that drops every 10th purchase and lies, one that loses
 * every 10th topping, one that answers {"ok":true,THIS IS NOT JSON}, one
 * that writes a late second line, one that names an event wrongly) each
 * fail the run with the reason; the honest ones (examples/pizzas_runtime.py,
 * bench serve, the fixture without a fault) pass at the state level, and
 * memory, sqlite and postgres pass at every level on the bundled specs. */
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

#include "bench_spawn.h"
#include "process.h"
#include "runner.h"
#include "spec.h"

#define LIAR "tests/fixtures/liar_runtime.py"

static struct {
    char dir[64];
    char spec[128];
    spec s;
} scratch;

static int scratch_teardown(void **state)
{
    (void)state;
    if (scratch.s.p || scratch.s.dc)
        spec_close(&scratch.s);
    if (scratch.dir[0])
        spawn_remove_dir(scratch.dir);
    memset(&scratch, 0, sizeof scratch);
    return 0;
}

static const plan *open_spec(const char *path)
{
    diag_list d = {0};
    spec_status st = spec_open(path, &d, &scratch.s);
    for (size_t i = 0; st != SPEC_OK && i < d.count; i++)
        print_error("%s:%d:%d: %s\n", d.items[i].file, d.items[i].line, d.items[i].col,
                    d.items[i].message);
    diag_list_free(&d);
    assert_int_equal(st, SPEC_OK);
    return scratch.s.p;
}

/* specs/pizzas.yaml with one target: the line given. */
static const plan *pizzas_with(const char *entry)
{
    snprintf(scratch.dir, sizeof scratch.dir, "/tmp/test_verify.XXXXXX");
    assert_non_null(mkdtemp(scratch.dir));
    snprintf(scratch.spec, sizeof scratch.spec, "%s/spec.yaml", scratch.dir);
    FILE *in = fopen("specs/pizzas.yaml", "r");
    assert_non_null(in);
    static char text[1 << 16];
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    text[n] = '\0';
    char *cut = strstr(text, "\n  targets:");
    assert_non_null(cut);
    cut[1] = '\0';
    FILE *f = fopen(scratch.spec, "w");
    assert_non_null(f);
    fprintf(f, "%s  targets:\n    - %s\n", text, entry);
    assert_int_equal(fclose(f), 0);
    return open_spec(scratch.spec);
}

static bool python_here(void)
{
    return system("command -v python3 >/dev/null 2>&1") == 0;
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("'%s' does not contain '%s'", text, part);
}

static run_options options(verify_level level)
{
    return (run_options){.iterations = 60, .warmup = 5, .runs = 1, .quiet = true, .verify = level};
}

static int run(const plan *p, const run_options *o, report *r)
{
    const plan *plans[] = {p};
    return runner_run(plans, 1, o, r);
}

/* ---- runtimes that pass ---- */

static void passes(const char *entry, verify_level level, const char *reached)
{
    const plan *p = pizzas_with(entry);
    run_options o = options(level);
    report r = {0};
    int rc = run(p, &o, &r);
    assert_int_equal(r.nresults, 1);
    const target_result *tr = &r.results[0];
    if (tr->failed)
        fail_msg("%s", tr->reason);
    assert_int_equal(rc, 0);
    assert_int_equal(tr->verify, VERIFY_PASS);
    assert_non_null(tr->verify_level);
    assert_string_equal(tr->verify_level, reached);
    report_free(&r);
}

static void test_bench_serve_passes_state_verify(void **state)
{
    (void)state;
    passes("process", VERIFY_LEVEL_STATE, "state");
}

static void test_bench_serve_passes_full_verify(void **state)
{
    (void)state;
    passes("process", VERIFY_LEVEL_FULL, "full");
}

static void test_python_runtime_passes_state_verify(void **state)
{
    (void)state;
    if (!python_here())
        skip();
    passes("process: {command: [python3, examples/pizzas_runtime.py]}", VERIFY_LEVEL_STATE,
           "state");
}

static void test_the_honest_fixture_passes_state_verify(void **state)
{
    (void)state;
    if (!python_here())
        skip();
    passes("process: {command: [python3, " LIAR ", honest]}", VERIFY_LEVEL_STATE, "state");
}

/* The default reads a sample of the records; a runtime without the record
 * request is verified by its counts only, and the result says so. */
static void test_the_default_reads_a_sample(void **state)
{
    (void)state;
    passes("memory", VERIFY_LEVEL_DEFAULT, "sample");
}

static void test_a_runtime_without_the_record_request_reaches_counts(void **state)
{
    (void)state;
    if (!python_here())
        skip();
    passes("process: {command: [python3, examples/pizzas_runtime.py, --no-record]}",
           VERIFY_LEVEL_STATE, "counts");
}

/* Every store on every bundled spec, at every level. */
static void test_the_stores_pass_verify_on_the_bundled_specs(void **state)
{
    (void)state;
    static const char *const specs[] = {"specs/pizzas.yaml",       "specs/banking.yaml",
                                        "examples/inventory.yaml", "examples/library.yaml",
                                        "examples/tickets.yaml",   "examples/cart.yaml"};
    static const char *const stores[] = {"memory", "sqlite", "postgres"};
    bool pg = getenv("BENCH_PG_SCRATCH") != NULL;
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        const plan *p = open_spec(specs[i]);
        for (verify_level lv = VERIFY_LEVEL_COUNTS; lv <= VERIFY_LEVEL_FULL; lv++) {
            run_options o = options(lv);
            o.iterations = lv == VERIFY_LEVEL_FULL ? 30 : 10;
            o.only = stores;
            o.nonly = pg ? 3 : 2;
            report r = {0};
            int rc = run(p, &o, &r);
            for (size_t k = 0; k < r.nresults; k++) {
                const target_result *tr = &r.results[k];
                if (tr->failed)
                    fail_msg("%s on %s: %s", specs[i], tr->label, tr->reason);
                assert_int_equal(tr->verify, VERIFY_PASS);
                assert_string_equal(tr->verify_level, lv == VERIFY_LEVEL_COUNTS  ? "sample"
                                                      : lv == VERIFY_LEVEL_STATE ? "state"
                                                                                 : "full");
            }
            assert_int_equal(rc, 0);
            assert_int_equal(r.nskipped, 0);
            /* postgres also names the spec's postgres entries (postgres-rls) */
            assert_true(r.nresults >= o.nonly * p->work.nprefill);
            report_free(&r);
        }
        spec_close(&scratch.s);
        memset(&scratch.s, 0, sizeof scratch.s);
    }
    if (!pg)
        print_message("postgres left out: no scratch PostgreSQL server (make test starts one)\n");
}

/* ---- runtimes that lie ---- */

/* The run of the fixture in mode fails; its reason holds where (the step
 * and cycle, or NULL) and reason. */
static void fails(const char *mode, verify_level level, const char *where, const char *reason)
{
    if (!python_here())
        skip();
    char entry[256];
    snprintf(entry, sizeof entry, "process: {command: [python3, " LIAR ", %s]}", mode);
    const plan *p = pizzas_with(entry);
    run_options o = options(level);
    report r = {0};
    assert_int_equal(run(p, &o, &r), 1);
    assert_int_equal(r.nresults, 1);
    const target_result *tr = &r.results[0];
    assert_true(tr->failed);
    if (where)
        assert_contains(tr->reason, where);
    assert_contains(tr->reason, reason);
    report_free(&r);
}

static void test_a_runtime_that_stores_nothing_fails_verify(void **state)
{
    (void)state;
    fails("nothing", VERIFY_LEVEL_STATE, NULL,
          "verify failed: run 1: Order 'pizza-0' is missing; the commands left it in the shadow");
}

static void test_a_runtime_that_stores_nothing_fails_the_default_verify(void **state)
{
    (void)state;
    fails("nothing", VERIFY_LEVEL_DEFAULT, NULL, "is missing; the commands left it in the shadow");
}

static void test_a_runtime_that_drops_writes_fails_verify(void **state)
{
    (void)state;
    fails("drop", VERIFY_LEVEL_STATE, NULL,
          "verify failed: run 1: Order 'pizza-9' differs from what the commands left: field "
          "customer_name is unset, the shadow \"Chris\"");
}

static void test_a_runtime_that_loses_part_of_a_record_fails_verify(void **state)
{
    (void)state;
    fails("topping", VERIFY_LEVEL_STATE, NULL,
          "verify failed: run 1: Order 'pizza-4' differs from what the commands left: field "
          "toppings has 1 item, the shadow 2");
}

/* The 7th command (warmup cycle 1, the second AddTopping) gets it. */
static void test_an_answer_that_is_not_json_fails_the_run_quoted(void **state)
{
    (void)state;
    fails("garbage", VERIFY_LEVEL_COUNTS, "run 1, warmup cycle 1, Order.AddTopping (",
          "python3 answered something that is not a protocol line: '{\"ok\":true,THIS IS NOT "
          "JSON}'");
}

/* A second copy of the 5th answer (warmup cycle 1, CreatePizza): the very
 * next request fails. */
static void test_a_late_second_line_fails_the_run_at_once_quoted(void **state)
{
    (void)state;
    fails("late", VERIFY_LEVEL_COUNTS, "run 1, warmup cycle 1, Order.AddTopping (",
          "python3 wrote more than one line for one request: '{\"ok\":true,\"events\":[{"
          "\"name\":\"ToppingAdded\"");
}

static void test_a_wrong_event_name_fails_the_run_with_both_lists(void **state)
{
    (void)state;
    fails("event", VERIFY_LEVEL_COUNTS, "run 1, warmup cycle 0, Order.Purchase (",
          "python3 answered Order.Purchase with the events [PizzaSold]; the command emits "
          "[PizzaPurchased]");
}

int main(void)
{
    process_target_set_self(spawn_bench_path()); /* bench serve: the real one, not this test */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_bench_serve_passes_state_verify, scratch_teardown),
        cmocka_unit_test_teardown(test_bench_serve_passes_full_verify, scratch_teardown),
        cmocka_unit_test_teardown(test_python_runtime_passes_state_verify, scratch_teardown),
        cmocka_unit_test_teardown(test_the_honest_fixture_passes_state_verify, scratch_teardown),
        cmocka_unit_test_teardown(test_the_default_reads_a_sample, scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_without_the_record_request_reaches_counts,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_the_stores_pass_verify_on_the_bundled_specs,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_that_stores_nothing_fails_verify,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_that_stores_nothing_fails_the_default_verify,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_that_drops_writes_fails_verify, scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_that_loses_part_of_a_record_fails_verify,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_an_answer_that_is_not_json_fails_the_run_quoted,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_late_second_line_fails_the_run_at_once_quoted,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_wrong_event_name_fails_the_run_with_both_lists,
                                  scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
