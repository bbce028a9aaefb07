/* test_report_saved.c: `bench report RESULT.json --format markdown|csv`
 * prints a saved result as the run printed it. A real run (specs/pizzas.yaml
 * and specs/banking.yaml on the memory and null targets, two prefill sizes,
 * in-process through runner_run, as bench run does) is rendered by
 * report_markdown and report_csv, saved by report_json, and the real bench
 * binary's `bench report` of that file must print the same bytes: the one
 * results model (interp/results.c) loses nothing a report shows. Runs from
 * the repository root. */
/* cmocka.h needs these first, in this order. */
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

#include "bench_spawn.h"
#include "env.h"
#include "report.h"
#include "runner.h"
#include "sha256.h"
#include "spec.h"

static char scratch[64], json_path[128];
static char *markdown, *csv; /* as the run printed them */

static char *render(int (*writer)(const report *, FILE *), const report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(writer(r, out), 0);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* What bench run does around runner_run: the environment, the settings in
 * force, the run; then the three reports of that one report. */
static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/bench-test-saved-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    snprintf(json_path, sizeof json_path, "%s/result.json", scratch);
    static const char *const paths[] = {"specs/pizzas.yaml", "specs/banking.yaml"};
    enum { NSPECS = 2 };
    spec specs[NSPECS];
    const plan *plans[NSPECS];
    for (size_t i = 0; i < NSPECS; i++) {
        diag_list d = {0};
        if (spec_open(paths[i], &d, &specs[i]) != SPEC_OK)
            return -1;
        diag_list_free(&d);
        plans[i] = specs[i].p;
    }
    static const char *const only[] = {"memory", "null"};
    static const int64_t prefill[] = {0, 30};
    run_options o = {.only = only,
                     .nonly = 2,
                     .iterations = 200,
                     .warmup = 20,
                     .runs = 2,
                     .prefill = prefill,
                     .nprefill = 2,
                     .quiet = true,
                     .floor_cycles = 200};
    report r = {0};
    env_collect(&r.env);
    snprintf(r.env.label, sizeof r.env.label, "saved");
    spec_config sc[NSPECS];
    for (size_t i = 0; i < NSPECS; i++) {
        sc[i].path = paths[i];
        sha256_hex(specs[i].p->source->source, specs[i].p->source->len, sc[i].sha256);
    }
    r.config = (run_config){.specs = sc,
                            .nspecs = NSPECS,
                            .warmup = 20,
                            .iterations = 200,
                            .runs = 2,
                            .prefill = (int64_t *)prefill,
                            .nprefill = 2,
                            .targets = (const char **)only,
                            .ntargets = 2};
    int rc = runner_run(plans, NSPECS, &o, &r);
    env_load_after(&r.env);
    markdown = render(report_markdown, &r);
    csv = render(report_csv, &r);
    FILE *f = fopen(json_path, "wb");
    if (!f || report_json(&r, f) != 0 || fclose(f) != 0)
        rc = -1;
    r.config.specs = NULL; /* lent from this frame */
    r.config.targets = NULL;
    r.config.prefill = NULL;
    report_free(&r);
    for (size_t i = 0; i < NSPECS; i++)
        spec_close(&specs[i]);
    return rc == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(markdown);
    free(csv);
    spawn_remove_dir(scratch);
    return 0;
}

static void expect_same(const char *format, const char *printed)
{
    char *argv[] = {
        (char *)spawn_bench_path(), "report", json_path, "--format", (char *)format, NULL};
    spawn_output o = spawn_run(argv);
    if (o.status != 0)
        fail_msg("bench report --format %s (%d): %s", format, o.status, o.err);
    if (strcmp(o.out, printed) != 0) {
        size_t at = 0;
        while (o.out[at] && o.out[at] == printed[at])
            at++;
        size_t from = at > 200 ? at - 200 : 0;
        fail_msg("bench report --format %s differs from the run's at byte %zu:\n--- the run "
                 "printed:\n%.400s\n--- bench report printed:\n%.400s",
                 format, at, printed + from, o.out + from);
    }
    spawn_output_free(&o);
}

static void test_saved_result_prints_as_the_run_did_in_markdown(void **state)
{
    (void)state;
    assert_non_null(strstr(markdown, "| pizzas | memory@30")); /* " (unstable)" may follow */
    expect_same("markdown", markdown);
}

static void test_saved_result_prints_as_the_run_did_in_csv(void **state)
{
    (void)state;
    expect_same("csv", csv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_saved_result_prints_as_the_run_did_in_markdown),
        cmocka_unit_test(test_saved_result_prints_as_the_run_did_in_csv),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
