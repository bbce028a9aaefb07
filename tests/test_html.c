/* test_html.c: `bench report --html`. The page of a real run is checked as
 * text (self-contained, three accessible charts with one mark per result),
 * then opened in headless Chromium by tests/html_check.py, which checks in
 * the loaded DOM and in a screenshot that every chart is drawn; without
 * Chromium that part is skipped and says so. Pages of crafted files cover
 * prefill sizes, failed results and runs too short for tenths. Runs from the
 * repository root. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_spawn.h"
#include "report_html.h"
#include "results.h"

static char scratch[64];
static char page_path[128], json_path[128];

static size_t count(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static char *read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    char *text = NULL;
    size_t len = 0;
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        spawn_append(&text, &len, buf, got);
    fclose(f);
    return text ? text : calloc(1, 1);
}

static spawn_output bench(const char *const *args)
{
    char *argv[32] = {(char *)spawn_bench_path()};
    size_t n = 1;
    for (; args[n - 1]; n++)
        argv[n] = (char *)args[n - 1];
    argv[n] = NULL;
    return spawn_run(argv);
}

/* A real report: memory and null on both bundled specs, kept short. */
static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/bench-test-html-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    snprintf(json_path, sizeof json_path, "%s/result.json", scratch);
    snprintf(page_path, sizeof page_path, "%s/report.html", scratch);
    const char *run[] = {"run",
                         "specs/pizzas.yaml",
                         "specs/banking.yaml",
                         "--targets",
                         "memory,null",
                         "--iterations",
                         "300",
                         "--runs",
                         "2",
                         "--quiet",
                         "--format",
                         "json",
                         "--output",
                         json_path,
                         NULL};
    spawn_output o = bench(run);
    int rc = o.status;
    if (rc != 0)
        fprintf(stderr, "bench run failed (%d): %s\n", o.status, o.err);
    spawn_output_free(&o);
    const char *report_args[] = {"report", json_path, "--html", page_path, NULL};
    o = bench(report_args);
    if (o.status != 0)
        fprintf(stderr, "bench report failed (%d): %s\n", o.status, o.err);
    rc |= o.status;
    spawn_output_free(&o);
    return rc ? -1 : 0;
}

static int teardown(void **state)
{
    (void)state;
    spawn_remove_dir(scratch);
    return 0;
}

/* The page of a crafted document, rendered in-process. */
static char *page_of(const cJSON *json)
{
    report *r;
    char err[512];
    if (results_from_json("crafted.json", json, &r, err, sizeof err) != 0)
        fail_msg("%s", err);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(report_html(r, "crafted.json", out), 0);
    assert_int_equal(fclose(out), 0);
    results_free(r);
    return text;
}

static cJSON *fixture(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "tests/fixtures/results/%s", name);
    char *text = read_text(path);
    cJSON *json = cJSON_Parse(text);
    free(text);
    assert_non_null(json);
    return json;
}

/* ---- the page of a real run, as text -------------------------------------------- */

static void test_page_has_three_accessible_charts_one_mark_per_result(void **state)
{
    (void)state;
    char *html = read_text(page_path);
    static const char *const ids[] = {"chart-throughput", "chart-latency", "chart-drift"};
    for (size_t i = 0; i < 3; i++) {
        char want[128];
        snprintf(want, sizeof want, "<svg id=\"%s\" class=\"chart\" role=\"img\"", ids[i]);
        assert_non_null(strstr(html, want));
        snprintf(want, sizeof want, "<title id=\"%s-title\">", ids[i]);
        assert_non_null(strstr(html, want));
    }
    assert_int_equal(count(html, "<section"), 5); /* results, 3 charts, environment */
    assert_int_equal(count(html, "<rect class=\"bar\""), 4);
    assert_int_equal(count(html, "<line class=\"range\""), 4 * 3);
    assert_int_equal(count(html, "<path class=\"series\""), 4);
    assert_int_equal(count(html, "<g class=\"panel\""), 4);
    assert_int_equal(count(html, "<path class=\"line p50\""), 4);
    assert_int_equal(count(html, "<path class=\"line p99\""), 4);
    assert_non_null(strstr(html, "data-metric=\"pizzas.memory.throughput_per_s\""));
    assert_non_null(strstr(html, "data-metric=\"banking.null.throughput_per_s\""));
    assert_non_null(strstr(html, "banking · memory"));
    free(html);
}

static void test_page_is_self_contained(void **state)
{
    (void)state;
    char *html = read_text(page_path);
    assert_null(strstr(html, "<script"));
    assert_null(strstr(html, "<link"));
    assert_null(strstr(html, " src="));
    assert_null(strstr(html, "url("));
    assert_null(strstr(html, "@import"));
    assert_null(strstr(html, "https:"));
    /* the only URL is the SVG namespace, which is a name, not a fetch */
    assert_int_equal(count(html, "http://"), count(html, "xmlns=\"http://www.w3.org/2000/svg\""));
    assert_non_null(strstr(html, "<style>"));
    free(html);
}

/* ---- crafted pages -------------------------------------------------------------------- */

static void test_prefill_sizes_are_named_and_failed_results_listed(void **state)
{
    (void)state;
    cJSON *json = fixture("base.json");
    cJSON *r1 = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 1);
    cJSON_ReplaceItemInObject(r1, "failed", cJSON_CreateTrue());
    cJSON_ReplaceItemInObject(r1, "reason", cJSON_CreateString("run 2: the <store> went away"));
    char *html = page_of(json);
    assert_non_null(strstr(html, "banking · memory@1000"));
    assert_non_null(strstr(html, "data-metric=\"banking.memory@1000.throughput_per_s\""));
    assert_int_equal(count(html, "<rect class=\"bar\""), 2);
    assert_non_null(strstr(html, "pizzas · sqlite: not drawn, run 2: the &lt;store&gt; went away"));
    free(html);
    cJSON_Delete(json);
}

static void test_runs_too_short_for_tenths_say_so(void **state)
{
    (void)state;
    cJSON *json = fixture("base.json");
    const cJSON *r;
    cJSON_ArrayForEach(r, cJSON_GetObjectItem(json, "results"))
    {
        const cJSON *run;
        cJSON_ArrayForEach(run, cJSON_GetObjectItem(r, "runs"))
        {
            cJSON *tenths = cJSON_GetObjectItem(run, "tenths");
            for (int t = 1; t < 10; t++) {
                cJSON *tenth = cJSON_GetArrayItem(tenths, t);
                cJSON_ReplaceItemInObject(tenth, "p50_us", cJSON_CreateNull());
                cJSON_ReplaceItemInObject(tenth, "p99_us", cJSON_CreateNull());
            }
        }
    }
    char *html = page_of(json);
    assert_int_equal(count(html, "fewer than ten timed cycles: no tenths to draw"), 3);
    assert_int_equal(count(html, "<rect class=\"bar\""), 3);
    free(html);
    cJSON_Delete(json);
}

static void test_results_without_runs_are_not_drawn(void **state)
{
    (void)state;
    cJSON *json = fixture("base.json");
    cJSON_ReplaceItemInObject(json, "results", cJSON_CreateArray());
    char *html = page_of(json);
    assert_non_null(strstr(html, "<svg id=\"chart-throughput\""));
    assert_int_equal(count(html, "<rect class=\"bar\""), 0);
    assert_int_equal(count(html, "<path class=\"series\""), 0);
    free(html);
    cJSON_Delete(json);
}

/* ---- the page in a browser -------------------------------------------------------------- */

static void test_chromium_draws_every_chart(void **state)
{
    (void)state;
    char shot[160];
    snprintf(shot, sizeof shot, "%s/report.png", scratch);
    char *argv[] = {"/usr/bin/env", "python3", "tests/html_check.py", page_path, scratch, "4",
                    shot,           NULL};
    spawn_output o = spawn_run(argv);
    if (o.status == 77 || o.status == 127) {
        print_message("skipped: %s", o.status == 127 ? "python3 is not installed\n" : o.out);
        spawn_output_free(&o);
        skip();
    }
    if (o.status != 0) {
        print_error("html_check.py (%d):\n%s\n%s\n", o.status, o.out, o.err);
        spawn_output_free(&o);
        fail_msg("the page is not drawn as it should be");
    }
    print_message("%s", o.out);
    spawn_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_has_three_accessible_charts_one_mark_per_result),
        cmocka_unit_test(test_page_is_self_contained),
        cmocka_unit_test(test_prefill_sizes_are_named_and_failed_results_listed),
        cmocka_unit_test(test_runs_too_short_for_tenths_say_so),
        cmocka_unit_test(test_results_without_runs_are_not_drawn),
        cmocka_unit_test(test_chromium_draws_every_chart),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
