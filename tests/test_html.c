/* test_html.c: `bench report --html`. The page of a real run (both bundled
 * specs on memory, sqlite and null, at two prefill sizes: twelve rows, a
 * sweep, targets three orders of magnitude apart) is checked as text
 * (self-contained, accessible charts with one mark per result, a colour per
 * row, the cost chart, the verbs table), and with a baseline; then opened in
 * headless Chromium by tests/html_check.py, which checks in the loaded DOM and
 * in a screenshot that every chart is drawn, that every bar is at least 10
 * pixels wide and that no two rows share a colour; without Chromium that part
 * is skipped and says so. Pages of crafted files cover prefill sizes, failed
 * results, runs too short for tenths, many rows and a baseline's deltas. Runs
 * from the repository root. */
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
static char page_path[128], json_path[128], base_page_path[128];

enum { NRESULTS = 12 }; /* 2 specs x (memory, sqlite, null) x prefill 0 and 50 */

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

/* A real report: memory, sqlite and null on both bundled specs at two prefill
 * sizes, kept short; its page, and its page against a fixture as baseline. */
static int setup(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/bench-test-html-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    snprintf(json_path, sizeof json_path, "%s/result.json", scratch);
    snprintf(page_path, sizeof page_path, "%s/report.html", scratch);
    snprintf(base_page_path, sizeof base_page_path, "%s/report-base.html", scratch);
    const char *run[] = {"run",
                         "specs/pizzas.yaml",
                         "specs/banking.yaml",
                         "--targets",
                         "memory,sqlite,null",
                         "--prefill",
                         "0,50",
                         "--iterations",
                         "200",
                         "--warmup",
                         "20",
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
    const char *base_args[] = {"report",     json_path,
                               "--html",     base_page_path,
                               "--baseline", "tests/fixtures/results/base.json",
                               NULL};
    o = bench(base_args);
    if (o.status != 0)
        fprintf(stderr, "bench report --baseline failed (%d): %s\n", o.status, o.err);
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

/* How often needle occurs inside the <svg id="id"> of html. */
static size_t count_in_chart(const char *html, const char *id, const char *needle)
{
    char open[64];
    snprintf(open, sizeof open, "<svg id=\"%s\"", id);
    const char *from = strstr(html, open);
    assert_non_null(from);
    const char *to = strstr(from, "</svg>");
    assert_non_null(to);
    size_t n = 0;
    for (const char *p = strstr(from, needle); p && p < to; p = strstr(p + 1, needle))
        n++;
    return n;
}

/* The fill of every <rect class="bar">, in order, into fills[max]; returns how many. */
static size_t bar_fills(const char *html, char (*fills)[8], size_t max)
{
    size_t n = 0;
    for (const char *p = strstr(html, "<rect class=\"bar\""); p && n < max;
         p = strstr(p + 1, "<rect class=\"bar\"")) {
        const char *f = strstr(p, "fill=\"#");
        assert_non_null(f);
        snprintf(fills[n++], sizeof fills[0], "%.7s", f + 6);
    }
    return n;
}

static void assert_distinct(char (*fills)[8], size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (!strcmp(fills[i], fills[j]))
                fail_msg("bars %zu and %zu share the colour %s", i, j, fills[i]);
}

static void test_page_has_accessible_charts_one_mark_per_result(void **state)
{
    (void)state;
    char *html = read_text(page_path);
    static const char *const ids[] = {"chart-throughput", "chart-latency", "chart-cost",
                                      "chart-drift"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        char want[128];
        snprintf(want, sizeof want, "<svg id=\"%s\" class=\"chart\" role=\"img\"", ids[i]);
        assert_non_null(strstr(html, want));
        snprintf(want, sizeof want, "<title id=\"%s-title\">", ids[i]);
        assert_non_null(strstr(html, want));
    }
    /* results, throughput, latency, cost, drift, verbs, environment; and
       over time when a run lasted two intervals (sqlite may, on a slow disk) */
    assert_int_equal(count(html, "<section"), 7 + (strstr(html, "<section id=\"time\">") != NULL));
    assert_int_equal(count(html, "<rect class=\"bar\""), NRESULTS);
    assert_int_equal(count(html, "<line class=\"range\""), NRESULTS * 3);
    assert_int_equal(count_in_chart(html, "chart-latency", "<path class=\"series\""), NRESULTS);
    assert_int_equal(count(html, "<g class=\"panel\""), NRESULTS);
    assert_int_equal(count(html, "<path class=\"line p50\""), NRESULTS);
    assert_int_equal(count(html, "<path class=\"line p99\""), NRESULTS);
    assert_null(strstr(html, "class=\"baseline\""));
    assert_non_null(strstr(html, "data-metric=\"pizzas.memory.throughput_per_s\""));
    assert_non_null(strstr(html, "data-metric=\"banking.null@50.throughput_per_s\""));
    assert_non_null(strstr(html, "banking · memory@50"));
    assert_non_null(strstr(html, "commands per second (log scale, higher is better)"));
    /* the cost chart: a p50 and a p99 line per target and domain, a point
       for each figure of each result */
    assert_int_equal(count(html, "<path class=\"series cost p50\""), 6);
    assert_int_equal(count(html, "<path class=\"series cost p99\""), 6);
    assert_int_equal(count(html, "<circle class=\"point\" data-metric="), 2 * NRESULTS);
    /* the verbs: three per spec's cycle, for each result */
    assert_int_equal(count(html, "<td><code>Order.AddTopping</code></td>"), NRESULTS / 2);
    assert_int_equal(count(html, "<td><code>Account.Debit</code></td>"), NRESULTS / 2);
    char fills[NRESULTS + 1][8];
    assert_int_equal(bar_fills(html, fills, NRESULTS + 1), NRESULTS);
    assert_distinct(fills, NRESULTS);
    free(html);
}

/* Against a fixture's pizzas.memory and pizzas.sqlite: a tick on those two
 * bars, and a row of deltas for each result of either file. */
static void test_page_with_a_baseline_has_its_deltas(void **state)
{
    (void)state;
    char *html = read_text(base_page_path);
    assert_non_null(strstr(html, "<section id=\"baseline\">"));
    assert_non_null(strstr(html, "Base: <code>tests/fixtures/results/base.json</code>"));
    assert_int_equal(count(html, "<line class=\"baseline\""), 2);
    assert_non_null(strstr(html, "<line class=\"baseline\" "
                                 "data-metric=\"pizzas.memory.throughput_per_s\""));
    /* a row per result of either file: 12 here, and the fixture's
       banking.memory@1000, only in base */
    const char *table = strstr(html, "<table id=\"baseline-table\">");
    assert_non_null(table);
    const char *end = strstr(table, "</table>");
    size_t rows = 0;
    for (const char *p = strstr(table, "<tr><td><code>"); p && p < end;
         p = strstr(p + 1, "<tr><td><code>"))
        rows++;
    assert_int_equal(rows, NRESULTS + 1);
    assert_non_null(strstr(table, "<tr><td><code>banking.memory@1000</code></td>"));
    assert_non_null(strstr(table, "data-metric=\"pizzas.memory.throughput_per_s\">"));
    assert_non_null(strstr(html, "<details><summary>Every metric ("));
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

/* A mix with skips and counted refusals: the flows table, and the rows with
 * refusals marked in both tables. */
static void test_flows_and_refusals_are_listed(void **state)
{
    (void)state;
    cJSON *json = fixture("base.json");
    cJSON *result = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 0);
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItem(result, "runs"))
    {
        cJSON *verb = cJSON_GetObjectItem(cJSON_GetObjectItem(run, "by_verb"), "Order.CreatePizza");
        cJSON_ReplaceItemInObject(verb, "refused", cJSON_CreateNumber(7));
        cJSON *flows = cJSON_CreateObject();
        cJSON *buy = cJSON_AddObjectToObject(flows, "buy"),
              *browse = cJSON_AddObjectToObject(flows, "browse");
        cJSON_AddNumberToObject(buy, "weight", 3);
        cJSON_AddNumberToObject(buy, "requested_share", 0.75);
        cJSON_AddNumberToObject(buy, "cycles", 600);
        cJSON_AddNumberToObject(buy, "achieved_share", 0.6);
        cJSON_AddNumberToObject(buy, "skipped", 40);
        cJSON_AddNumberToObject(buy, "refused_counted", 5);
        cJSON_AddNumberToObject(browse, "weight", 1);
        cJSON_AddNumberToObject(browse, "requested_share", 0.25);
        cJSON_AddNumberToObject(browse, "cycles", 400);
        cJSON_AddNumberToObject(browse, "achieved_share", 0.4);
        cJSON_AddNumberToObject(browse, "skipped", 0);
        cJSON_AddItemToObject((cJSON *)run, "by_flow", flows);
    }
    char *html = page_of(json);
    int nruns = cJSON_GetArraySize(cJSON_GetObjectItem(result, "runs"));
    char want[256];
    snprintf(want, sizeof want,
             "<td>buy</td><td class=\"n\">3</td><td class=\"n\">75.0%%</td><td "
             "class=\"n\">60.0%%</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td "
             "class=\"n\">%d</td></tr>",
             600 * nruns, 40 * nruns, 5 * nruns);
    assert_non_null(strstr(html, "<table id=\"flows\">"));
    assert_non_null(strstr(html, want));
    assert_non_null(strstr(html, "<td>browse</td><td class=\"n\">1</td>"));
    /* marked: the flow that counted refusals, the verb that was refused */
    assert_int_equal(count(html, "<tr class=\"refused\">"), 2);
    snprintf(want, sizeof want,
             "<td><code>Order.CreatePizza</code></td><td class=\"n\">%d</td><td "
             "class=\"n\">%d</td>",
             10000 * nruns, 7 * nruns);
    assert_non_null(strstr(html, want));
    free(html);
    cJSON_Delete(json);
}

/* Thirty rows: nine targets (past the six hues of Okabe-Ito), up to four
 * prefill sizes each: every bar a colour of its own. */
static void test_many_rows_each_have_a_colour_of_their_own(void **state)
{
    (void)state;
    cJSON *json = fixture("base.json");
    cJSON *results = cJSON_GetObjectItem(json, "results");
    cJSON *first = cJSON_Duplicate(cJSON_GetArrayItem(results, 0), true);
    cJSON_ReplaceItemInObject(json, "results", cJSON_CreateArray());
    results = cJSON_GetObjectItem(json, "results");
    enum { ROWS = 30 };
    for (int i = 0; i < ROWS; i++) {
        cJSON *r = cJSON_Duplicate(first, true);
        char label[16];
        snprintf(label, sizeof label, "t%d", i % 9);
        cJSON_ReplaceItemInObject(r, "label", cJSON_CreateString(label));
        cJSON_ReplaceItemInObject(r, "prefill", cJSON_CreateNumber((double)(i / 9) * 1000));
        cJSON_AddItemToArray(results, r);
    }
    cJSON_Delete(first);
    char *html = page_of(json);
    char fills[ROWS + 1][8];
    assert_int_equal(bar_fills(html, fills, ROWS + 1), ROWS);
    assert_distinct(fills, ROWS);
    free(html);
    cJSON_Delete(json);
}

/* ---- the page in a browser -------------------------------------------------------------- */

static void check_in_chromium(const char *page, const char *shot_name, const char *flag2)
{
    char shot[160], n[16];
    snprintf(shot, sizeof shot, "%s/%s", scratch, shot_name);
    snprintf(n, sizeof n, "%d", NRESULTS);
    char *argv[] = {"/usr/bin/env", "python3", "tests/html_check.py", (char *)page, scratch, n,
                    shot,           "--sweep", (char *)flag2,         NULL};
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

static void test_chromium_draws_every_chart(void **state)
{
    (void)state;
    check_in_chromium(page_path, "report.png", NULL);
}

static void test_chromium_draws_the_baseline(void **state)
{
    (void)state;
    check_in_chromium(base_page_path, "report-base.png", "--baseline");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_has_accessible_charts_one_mark_per_result),
        cmocka_unit_test(test_page_with_a_baseline_has_its_deltas),
        cmocka_unit_test(test_page_is_self_contained),
        cmocka_unit_test(test_prefill_sizes_are_named_and_failed_results_listed),
        cmocka_unit_test(test_runs_too_short_for_tenths_say_so),
        cmocka_unit_test(test_results_without_runs_are_not_drawn),
        cmocka_unit_test(test_many_rows_each_have_a_colour_of_their_own),
        cmocka_unit_test(test_flows_and_refusals_are_listed),
        cmocka_unit_test(test_chromium_draws_every_chart),
        cmocka_unit_test(test_chromium_draws_the_baseline),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
