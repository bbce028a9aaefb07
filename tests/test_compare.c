/* test_compare.c: result files as metrics (names, ranges, what loading
 * refuses and why), verdicts with their direction and noise, the gate's
 * rule (a change is called when the run ranges are disjoint and the
 * Mann-Whitney test agrees; pairs by the signed-rank test), globs, and the
 * warnings about specs, machines and builds. Reports
 * are built by hand and put through report_to_cjson, so the names are those
 * `bench run --format json` writes. Runs from the repository root. */
/* cmocka.h needs these first, in this order. */
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
#include <unistd.h>

#include "compare.h"
#include "report.h"
#include "results.h"
#include "runner.h"
#include "stats.h"
#include "test_util.h"

#define FIXTURES "tests/fixtures/results/"

/* ---- a report built by hand --------------------------------------------- */

/* One run whose latencies are base_ns and a few multiples, over `cycles`
 * cycles of one command each. */
static void make_run(run_result *run, int number, uint64_t base_ns, uint64_t cycles)
{
    hist tenths[STATS_TENTHS];
    assert_int_equal(hist_init(&run->all), 0);
    for (int i = 0; i < STATS_TENTHS; i++)
        assert_int_equal(hist_init(&tenths[i]), 0);
    double total = 0;
    for (uint64_t k = 0; k < cycles; k++) {
        uint64_t ns = base_ns + (k % 7) * base_ns / 10 + (uint64_t)number * 3;
        hist_record(&run->all, ns);
        hist_record(&tenths[stats_tenth_of(k, cycles)], ns);
        total += (double)ns;
    }
    run->run = number;
    stats_figures_from(&run->all, tenths, cycles, total / 1e9, &run->fig);
    run->roundtrip_floor_p50_ns = NAN;
    run->round_trips_per_command = NAN;
    for (int i = 0; i < STATS_TENTHS; i++)
        hist_free(&tenths[i]);
}

static void make_result(target_result *t, const char *domain, const char *label, int64_t prefill,
                        uint64_t base_ns, uint64_t cycles)
{
    *t = (target_result){.domain = domain,
                         .target = label,
                         .label = label,
                         .prefill = prefill,
                         .nruns = 3,
                         .verify = VERIFY_PASS};
    t->runs = calloc(3, sizeof *t->runs);
    assert_non_null(t->runs);
    run_figures figs[3];
    for (int i = 0; i < 3; i++) {
        make_run(&t->runs[i], i + 1, base_ns, cycles);
        figs[i] = t->runs[i].fig;
    }
    stats_figures_median(figs, 3, &t->median);
    stats_throughput_range(figs, 3, &t->throughput_lo, &t->throughput_hi);
}

static spec_config specs_cfg[] = {{.path = "specs/pizzas.yaml"}, {.path = "specs/banking.yaml"}};
static int64_t prefills[] = {0, 1000};
static const char *targets_cfg[] = {"memory"};

/* pizzas.memory, banking.memory and banking.memory@1000 (too few cycles
 * for drift in the last, so it has no drift metric). */
static cJSON *sample_json(void)
{
    report r = {0};
    snprintf(r.env.cpu_model, sizeof r.env.cpu_model, "Test CPU");
    r.env.cores = 2;
    r.env.memory_bytes = UINT64_C(8) << 30;
    for (int i = 0; i < 3; i++)
        r.env.load_before[i] = r.env.load_after[i] = 0.5;
    memset(specs_cfg[0].sha256, 'a', 64);
    memset(specs_cfg[1].sha256, 'b', 64);
    r.config = (run_config){.specs = specs_cfg,
                            .nspecs = 2,
                            .warmup = 10,
                            .iterations = 100,
                            .runs = 3,
                            .prefill = prefills,
                            .nprefill = 2,
                            .targets = targets_cfg,
                            .ntargets = 1};
    r.harness_floor_p50_ns = 50;
    r.nresults = 3;
    r.results = calloc(3, sizeof *r.results);
    assert_non_null(r.results);
    make_result(&r.results[0], "pizzas", "memory", 0, 1000, 100);
    make_result(&r.results[1], "banking", "memory", 0, 2000, 100);
    make_result(&r.results[2], "banking", "memory", 1000, 3000, 5);
    cJSON *json = report_to_cjson(&r);
    assert_non_null(json);
    report_free(&r);
    return json;
}

static result_file *load_json(const cJSON *json)
{
    result_file *f = NULL;
    char err[1024] = "";
    if (result_file_from_json("sample.json", json, &f, err, sizeof err) != 0)
        fail_msg("load failed: %s", err);
    return f;
}

static result_file *load_fixture(const char *name)
{
    char path[256], err[1024] = "";
    snprintf(path, sizeof path, FIXTURES "%s", name);
    result_file *f = NULL;
    if (result_file_load(path, &f, err, sizeof err) != 0)
        fail_msg("cannot load %s: %s", path, err);
    return f;
}

/* The message result_file_load gives for a file holding text. */
static void load_error(const char *text, size_t len, char *err, size_t size)
{
    char path[] = "/tmp/bench-compare-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    result_file *f = (result_file *)1;
    assert_int_equal(result_file_load(path, &f, err, size), -1);
    assert_null(f);
    unlink(path);
}

/* ---- metric names -------------------------------------------------------- */

static void test_metric_names_follow_design_section_6(void **state)
{
    (void)state;
    cJSON *json = sample_json();
    result_file *f = load_json(json);
    /* 9 fields for each of the first two, 8 for the last (no drift) */
    assert_int_equal(f->nmetrics, 9 + 9 + 8);
    assert_string_equal(f->metrics[0].name, "pizzas.memory.throughput_per_s");
    assert_string_equal(f->metrics[8].name, "pizzas.memory.drift");
    assert_non_null(result_file_metric(f, "banking.memory.p999_us"));
    assert_non_null(result_file_metric(f, "banking.memory@1000.p99_us"));
    assert_null(result_file_metric(f, "banking.memory@1000.drift"));
    assert_null(result_file_metric(f, "banking.memory@0.p99_us"));
    for (size_t i = 0; compare_fields[i]; i++) {
        char name[128];
        snprintf(name, sizeof name, "pizzas.memory.%s", compare_fields[i]);
        const metric *m = result_file_metric(f, name);
        assert_non_null(m);
        assert_string_equal(m->field, compare_fields[i]);
        assert_int_equal(m->better, i == 0 ? METRIC_HIGHER_BETTER : METRIC_LOWER_BETTER);
    }
    result_file_free(f);
    cJSON_Delete(json);
}

static void test_metric_values_and_ranges_come_from_the_json(void **state)
{
    (void)state;
    cJSON *json = sample_json();
    result_file *f = load_json(json);
    const cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 0);
    const cJSON *median = cJSON_GetObjectItem(r0, "median");
    const cJSON *range = cJSON_GetObjectItem(r0, "throughput_range");
    const metric *t = result_file_metric(f, "pizzas.memory.throughput_per_s");
    assert_true(t->value == cJSON_GetObjectItem(median, "throughput_per_s")->valuedouble);
    assert_true(t->lo == cJSON_GetObjectItem(range, "min")->valuedouble);
    assert_true(t->hi == cJSON_GetObjectItem(range, "max")->valuedouble);
    /* a latency's range: the lowest and highest of that figure across runs[] */
    const metric *p = result_file_metric(f, "pizzas.memory.p50_us");
    double lo = INFINITY, hi = -INFINITY;
    const cJSON *run;
    cJSON_ArrayForEach(run, cJSON_GetObjectItem(r0, "runs"))
    {
        double v = cJSON_GetObjectItem(run, "p50_us")->valuedouble;
        lo = fmin(lo, v);
        hi = fmax(hi, v);
    }
    assert_true(p->lo == lo && p->hi == hi);
    assert_true(p->value >= lo && p->value <= hi);
    assert_true(p->value == cJSON_GetObjectItem(median, "p50_us")->valuedouble);
    result_file_free(f);
    cJSON_Delete(json);
}

static void test_failed_results_have_no_metrics_and_a_note(void **state)
{
    (void)state;
    cJSON *json = sample_json();
    cJSON *r1 = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 1);
    cJSON_ReplaceItemInObject(r1, "failed", cJSON_CreateTrue());
    cJSON_ReplaceItemInObject(r1, "reason", cJSON_CreateString("run 2: verify failed"));
    result_file *f = load_json(json);
    assert_null(result_file_metric(f, "banking.memory.p50_us"));
    assert_non_null(result_file_metric(f, "banking.memory@1000.p50_us"));
    assert_int_equal(f->nnotes, 1);
    assert_non_null(strstr(f->notes[0], "banking.memory failed"));
    assert_non_null(strstr(f->notes[0], "verify failed"));
    result_file_free(f);
    cJSON_Delete(json);
}

static void test_a_name_twice_keeps_the_first_and_says_so(void **state)
{
    (void)state;
    cJSON *json = sample_json();
    cJSON *results = cJSON_GetObjectItem(json, "results");
    cJSON_AddItemToArray(results, cJSON_Duplicate(cJSON_GetArrayItem(results, 0), true));
    result_file *f = load_json(json);
    assert_int_equal(f->nmetrics, 26);
    assert_true(f->nnotes >= 1);
    assert_non_null(strstr(f->notes[0], "pizzas.memory.throughput_per_s twice"));
    result_file_free(f);
    cJSON_Delete(json);
}

/* ---- loading refuses, with a sentence ----------------------------------------- */

static void test_a_truncated_file_is_refused_with_a_sentence(void **state)
{
    (void)state;
    char err[1024];
    result_file *f = NULL;
    assert_int_equal(result_file_load(FIXTURES "truncated.json", &f, err, sizeof err), -1);
    assert_null(f);
    assert_non_null(strstr(err, "truncated.json is not valid JSON"));
    assert_non_null(strstr(err, "truncated"));
    load_error("", 0, err, sizeof err);
    assert_non_null(strstr(err, "is empty"));
    load_error("{\"a\": 1} trailing", 17, err, sizeof err);
    assert_non_null(strstr(err, "line 1, column 10"));
    load_error("[1, 2]", 6, err, sizeof err);
    assert_non_null(strstr(err, "not an object"));
    load_error("{\"a\":\0}", 7, err, sizeof err);
    assert_non_null(strstr(err, "NUL byte"));
    assert_int_equal(result_file_load("tests/fixtures/results/nope.json", &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "cannot read tests/fixtures/results/nope.json"));
}

static void test_schema_violations_name_the_json_path(void **state)
{
    (void)state;
    char err[1024];
    result_file *f = NULL;
    cJSON *json = sample_json();
    cJSON *env = cJSON_GetObjectItem(json, "environment");
    cJSON_ReplaceItemInObject(env, "cores", cJSON_CreateString("two"));
    assert_int_equal(result_file_from_json("x.json", json, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "x.json is not a valid bench result file: at environment.cores"));
    cJSON_Delete(json);

    json = sample_json();
    cJSON *run = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 1), "runs"),
        2);
    cJSON_ReplaceItemInObject(run, "p99_us", cJSON_CreateString("fast"));
    assert_int_equal(result_file_from_json("x.json", json, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "at results[1].runs[2].p99_us"));
    cJSON_Delete(json);

    json = sample_json();
    cJSON_ReplaceItemInObject(json, "schema_version", cJSON_CreateNumber(2));
    assert_int_equal(result_file_from_json("x.json", json, &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "schema_version 2"));
    cJSON_Delete(json);
}

/* ---- verdicts ---------------------------------------------------------------- */

/* A metric with these per-run figures: median, range and runs from them
 * (runs lent from the caller's array). */
static metric m_runs(const char *name, metric_better better, double *runs, size_t n)
{
    metric m = {.name = (char *)name,
                .field = name,
                .value = stats_median(runs, n),
                .lo = INFINITY,
                .hi = -INFINITY,
                .better = better,
                .runs = runs,
                .nruns = n};
    for (size_t i = 0; i < n; i++) {
        m.lo = fmin(m.lo, runs[i]);
        m.hi = fmax(m.hi, runs[i]);
    }
    return m;
}

/* A metric with no runs, for the formatting. */
static metric m_of(const char *name, metric_better better, double v)
{
    return (metric){
        .name = (char *)name, .field = name, .value = v, .lo = NAN, .hi = NAN, .better = better};
}

/* Two one-metric files, compared. */
static comparison compare_pair(metric b, metric c)
{
    result_file fb = {.path = "b", .metrics = &b, .nmetrics = 1};
    result_file fc = {.path = "c", .metrics = &c, .nmetrics = 1};
    comparison *v;
    size_t n;
    assert_int_equal(compare_results(&fb, &fc, &v, &n), 0);
    assert_int_equal(n, 1);
    static const metric gone = {.name = "gone"};
    comparison out = *v;
    out.base = out.cur = &gone; /* the metrics were on this stack */
    free(v);
    return out;
}

static const metric_better H = METRIC_HIGHER_BETTER, L = METRIC_LOWER_BETTER;

static void test_verdicts_know_the_direction(void **state)
{
    (void)state;
    /* five runs a side, ranges apart: p = 2/252, called */
    double t0[] = {990, 995, 1000, 1005, 1010}, t1[] = {1190, 1195, 1200, 1205, 1210};
    double t2[] = {690, 695, 700, 705, 710};
    comparison c = compare_pair(m_runs("t", H, t0, 5), m_runs("t", H, t1, 5));
    assert_int_equal(c.v, VERDICT_BETTER);
    assert_true(fabs(c.change_pct - 20) < 1e-9);
    assert_true(c.worse_pct == 0);
    assert_true(fabs(c.p - 2.0 / 252) < 1e-12);
    c = compare_pair(m_runs("t", H, t0, 5), m_runs("t", H, t2, 5));
    assert_int_equal(c.v, VERDICT_WORSE);
    assert_int_equal(c.why, NOISE_NONE);
    assert_true(fabs(c.change_pct + 30) < 1e-9);
    assert_true(fabs(c.worse_pct - 30) < 1e-9);
    /* latency up: worse; down: better */
    double p0[] = {9.9, 9.95, 10, 10.05, 10.1}, p1[] = {12.9, 12.95, 13, 13.05, 13.1};
    c = compare_pair(m_runs("p", L, p0, 5), m_runs("p", L, p1, 5));
    assert_int_equal(c.v, VERDICT_WORSE);
    assert_true(fabs(c.worse_pct - 30) < 1e-9);
    c = compare_pair(m_runs("p", L, p1, 5), m_runs("p", L, p0, 5));
    assert_int_equal(c.v, VERDICT_BETTER);
    assert_true(c.worse_pct == 0);
    char why[160];
    comparison_reason(&c, why, sizeof why);
    assert_string_equal(why, "p=0.0079 with 5 and 5 runs");
}

static void test_overlapping_ranges_are_within_noise(void **state)
{
    (void)state;
    /* the issue's -4.6% from 2 runs: the ranges overlap */
    double b[] = {1000, 1040}, c1[] = {950, 1001};
    comparison c = compare_pair(m_runs("t", H, b, 2), m_runs("t", H, c1, 2));
    assert_int_equal(c.v, VERDICT_NOISE);
    assert_int_equal(c.why, NOISE_OVERLAP);
    assert_true(c.overlap);
    assert_true(c.worse_pct > 4 && c.worse_pct < 5);
    assert_false(gate_fails(&c, 1));
    char why[160];
    comparison_reason(&c, why, sizeof why);
    assert_string_equal(why, "ranges overlap");
    /* touching ends overlap, even with many runs */
    double p0[] = {9, 9.5, 10, 10.5, 11}, p1[] = {11, 11.5, 12, 12.5, 13};
    c = compare_pair(m_runs("p", L, p0, 5), m_runs("p", L, p1, 5));
    assert_int_equal(c.v, VERDICT_NOISE);
    assert_int_equal(c.why, NOISE_OVERLAP);
    /* equal values are within noise */
    c = compare_pair(m_runs("p", L, p0, 5), m_runs("p", L, p0, 5));
    assert_int_equal(c.v, VERDICT_NOISE);
    /* no runs: nothing to test, never called */
    c = compare_pair(m_of("p", L, 10), m_of("p", L, 20));
    assert_int_equal(c.v, VERDICT_NOISE);
    assert_int_equal(c.why, NOISE_NO_RUNS);
    assert_false(c.overlap);
}

static void test_disjoint_ranges_need_a_significant_test(void **state)
{
    (void)state;
    /* 3 and 3 runs, apart by 30%: p = 0.1 at best, so within noise, and why */
    double b[] = {980, 1000, 1020}, w[] = {690, 700, 710};
    comparison c = compare_pair(m_runs("t", H, b, 3), m_runs("t", H, w, 3));
    assert_false(c.overlap);
    assert_int_equal(c.v, VERDICT_NOISE);
    assert_int_equal(c.why, NOISE_NOT_SIGNIFICANT);
    assert_true(fabs(c.p - 0.1) < 1e-12);
    assert_false(gate_fails(&c, 10));
    char why[160];
    comparison_reason(&c, why, sizeof why);
    assert_string_equal(why,
                        "not significant: p=0.1 with 3 and 3 runs; p < 0.05 needs 4 and 4 runs "
                        "or more");
    /* 3 and 4: 0.057, still not; 4 and 4: 0.029, called */
    double w4[] = {690, 700, 705, 710}, b4[] = {980, 990, 1000, 1020};
    c = compare_pair(m_runs("t", H, b, 3), m_runs("t", H, w4, 4));
    assert_int_equal(c.why, NOISE_NOT_SIGNIFICANT);
    c = compare_pair(m_runs("t", H, b4, 4), m_runs("t", H, w4, 4));
    assert_int_equal(c.v, VERDICT_WORSE);
    assert_true(gate_fails(&c, 10));
    assert_false(gate_fails(&c, 40));
    assert_int_equal(compare_runs_needed(), 4);
    assert_int_equal(compare_pairs_needed(), 6);
}

static void test_a_zero_base_has_no_percentage(void **state)
{
    (void)state;
    double z[] = {0, 0, 0, 0}, one[] = {1, 1, 1, 1}, five[] = {5, 5, 5, 5};
    comparison c = compare_pair(m_runs("p", L, z, 4), m_runs("p", L, one, 4));
    assert_true(isnan(c.change_pct));
    assert_true(isinf(c.worse_pct));
    assert_int_equal(c.v, VERDICT_WORSE);
    c = compare_pair(m_runs("t", H, z, 4), m_runs("t", H, five, 4));
    assert_int_equal(c.v, VERDICT_BETTER);
    assert_true(c.worse_pct == 0);
}

static void test_metrics_in_one_file_only_are_listed_as_such(void **state)
{
    (void)state;
    result_file *base = load_fixture("base.json"), *cur = load_fixture("missing.json");
    comparison *v;
    size_t n;
    assert_int_equal(compare_results(base, cur, &v, &n), 0);
    assert_int_equal(n, base->nmetrics);
    size_t only_base = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i].v == VERDICT_ONLY_BASE) {
            only_base++;
            assert_non_null(strstr(v[i].name, "pizzas.sqlite."));
            assert_null(v[i].cur);
            assert_true(gate_fails(&v[i], 1000));
        }
    assert_int_equal(only_base, 9);
    free(v);
    /* the other way round: only in current, listed after base's metrics */
    assert_int_equal(compare_results(cur, base, &v, &n), 0);
    assert_int_equal(n, base->nmetrics);
    assert_int_equal(v[n - 1].v, VERDICT_ONLY_CURRENT);
    assert_string_equal(v[n - 9].name, "pizzas.sqlite.throughput_per_s");
    free(v);
    result_file_free(base);
    result_file_free(cur);
}

/* ---- the gate ---------------------------------------------------------------- */

static void test_gate_fails_beyond_the_threshold_in_the_bad_direction(void **state)
{
    (void)state;
    result_file *base = load_fixture("base5.json"), *cur = load_fixture("worse30x5.json");
    comparison *v;
    size_t n;
    assert_int_equal(compare_results(base, cur, &v, &n), 0);
    size_t fails10 = 0, fails40 = 0;
    for (size_t i = 0; i < n; i++) {
        if (gate_fails(&v[i], 10)) {
            fails10++;
            assert_string_equal(v[i].name, "pizzas.memory.throughput_per_s");
            assert_int_equal(v[i].v, VERDICT_WORSE);
        }
        fails40 += gate_fails(&v[i], 40);
    }
    assert_int_equal(fails10, 1);
    assert_int_equal(fails40, 0);
    free(v);
    /* better by 30% never fails */
    assert_int_equal(compare_results(cur, base, &v, &n), 0);
    for (size_t i = 0; i < n; i++)
        assert_false(gate_fails(&v[i], 0));
    free(v);
    result_file_free(base);
    result_file_free(cur);
}

static void test_gate_never_fails_within_noise(void **state)
{
    (void)state;
    /* 60% worse by the medians, but the runs overlap: not a regression */
    double b[] = {5, 10, 20}, c1[] = {8, 16, 25};
    comparison c = compare_pair(m_runs("p", L, b, 3), m_runs("p", L, c1, 3));
    assert_int_equal(c.v, VERDICT_NOISE);
    assert_true(c.overlap);
    assert_true(c.worse_pct > 50);
    assert_false(gate_fails(&c, 50));
    assert_false(gate_fails(&c, 0));
}

/* ---- paired (interleaved A/B) ------------------------------------------------- */

/* A one-metric file of one run whose figure is v. */
static result_file *one_run_file(double *v, metric_better better)
{
    result_file *f = calloc(1, sizeof *f);
    metric *m = calloc(1, sizeof *m);
    assert_non_null(f);
    assert_non_null(m);
    *m = m_runs("x.y.throughput_per_s", better, v, 1);
    f->metrics = m;
    f->nmetrics = 1;
    return f;
}

static void free_one_run_files(result_file **f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(f[i]->metrics);
        free(f[i]);
    }
}

static void test_paired_ratios_and_the_signed_rank_test(void **state)
{
    (void)state;
    /* B 20% slower than A in every pair, whatever A's level: called */
    double av[8] = {100, 140, 90, 120, 100, 130, 95, 110}, bv[8];
    result_file *a[8], *b[8];
    for (size_t i = 0; i < 8; i++) {
        bv[i] = av[i] * 0.8;
        a[i] = one_run_file(&av[i], H);
        b[i] = one_run_file(&bv[i], H);
    }
    paired *p;
    size_t n;
    assert_int_equal(compare_paired(a, b, 8, &p, &n), 0);
    assert_int_equal(n, 1);
    assert_true(p[0].c.paired);
    assert_int_equal(p[0].npairs, 8);
    for (size_t i = 0; i < 8; i++)
        assert_true(fabs(p[0].ratios[i] - 0.8) < 1e-12);
    assert_true(fabs(p[0].median_ratio - 0.8) < 1e-12);
    assert_true(fabs(p[0].c.change_pct + 20) < 1e-9);
    assert_true(fabs(p[0].c.p - 2.0 / 256) < 1e-12);
    assert_int_equal(p[0].c.v, VERDICT_WORSE);
    assert_true(gate_fails(&p[0].c, 10));
    assert_false(gate_fails(&p[0].c, 25));
    /* A's levels spread 90 to 140, so the unpaired ranges overlap */
    assert_true(p[0].c.overlap);
    char why[160];
    comparison_reason(&p[0].c, why, sizeof why);
    assert_string_equal(why, "p=0.0078 over 8 pairs");
    paired_free(p, n);

    /* 5 pairs: never significant, and the reason says what it takes */
    assert_int_equal(compare_paired(a, b, 5, &p, &n), 0);
    assert_int_equal(p[0].c.v, VERDICT_NOISE);
    assert_int_equal(p[0].c.why, NOISE_NOT_SIGNIFICANT);
    comparison_reason(&p[0].c, why, sizeof why);
    assert_string_equal(why,
                        "not significant: p=0.062 over 5 pairs; p < 0.05 needs 6 pairs or more");
    paired_free(p, n);

    /* one pair the other way among 8 still calls it; equal pairs are left out */
    bv[3] = av[3] * 1.01;
    bv[5] = av[5];
    free_one_run_files(b, 8);
    for (size_t i = 0; i < 8; i++)
        b[i] = one_run_file(&bv[i], H);
    assert_int_equal(compare_paired(a, b, 8, &p, &n), 0);
    assert_int_equal(p[0].c.v, VERDICT_WORSE);
    comparison_reason(&p[0].c, why, sizeof why);
    assert_string_equal(why, "p=0.031 over 7 pairs (1 equal, left out)");
    paired_free(p, n);
    free_one_run_files(a, 8);
    free_one_run_files(b, 8);
}

static void test_paired_metric_missing_from_one_side(void **state)
{
    (void)state;
    double v[2] = {100, 100};
    result_file *a[2] = {one_run_file(&v[0], H), one_run_file(&v[1], H)};
    result_file *b[2] = {one_run_file(&v[0], H), one_run_file(&v[1], H)};
    b[1]->nmetrics = 0; /* B's second run lacks it */
    paired *p;
    size_t n;
    assert_int_equal(compare_paired(a, b, 2, &p, &n), 0);
    assert_int_equal(p[0].c.v, VERDICT_ONLY_BASE);
    assert_null(p[0].c.cur);
    assert_true(gate_fails(&p[0].c, 1000));
    paired_free(p, n);
    free_one_run_files(a, 2);
    free_one_run_files(b, 2);
}

static void test_metric_globs(void **state)
{
    (void)state;
    assert_true(metric_matches("pizzas.memory.p50_us", "pizzas.memory.p50_us"));
    assert_false(metric_matches("pizzas.memory.p50_us", "pizzas.memory.p50_us2"));
    assert_true(metric_matches("*.throughput_per_s", "banking.memory@1000.throughput_per_s"));
    assert_true(metric_matches("pizzas.*.p50_us", "pizzas.sqlite.p50_us"));
    assert_false(metric_matches("pizzas.*.p50_us", "banking.sqlite.p50_us"));
    assert_true(metric_matches("*.p9?_us", "a.b.p95_us"));
    assert_false(metric_matches("*.p9?_us", "a.b.p999_us"));
}

static void test_metric_format_rounds_as_the_reports_do(void **state)
{
    (void)state;
    char buf[64];
    metric t = m_of("x.y.throughput_per_s", METRIC_HIGHER_BETTER, 1462458.6);
    metric_format(&t, buf, sizeof buf);
    assert_string_equal(buf, "1,462,459");
    metric p = m_of("p50_us", METRIC_LOWER_BETTER, 1476.95);
    metric_format(&p, buf, sizeof buf);
    assert_string_equal(buf, "1,477.0");
    p.value = 0.45;
    metric_format(&p, buf, sizeof buf);
    assert_string_equal(buf, "0.450");
    metric d = m_of("drift", METRIC_LOWER_BETTER, 1.1071);
    metric_format(&d, buf, sizeof buf);
    assert_string_equal(buf, "1.11");
    metric_format(NULL, buf, sizeof buf);
    assert_string_equal(buf, "missing");
}

/* ---- warnings ---------------------------------------------------------------- */

static void test_warnings_name_what_differs(void **state)
{
    (void)state;
    result_file *base = load_fixture("base.json"), *other = load_fixture("othermachine.json");
    char **w;
    assert_int_equal(compare_warnings(base, base, &w), 0);
    assert_null(w);
    int n = compare_warnings(base, other, &w);
    assert_int_equal(n, 2);
    assert_non_null(strstr(w[0], "the spec specs/pizzas.yaml differs"));
    assert_non_null(strstr(w[1], "the machines differ"));
    assert_non_null(strstr(w[1], "cores 2 in base, 8 in current"));
    assert_non_null(strstr(w[1], "Other CPU"));
    for (int i = 0; i < n; i++)
        free(w[i]);
    free(w);
    result_file_free(other);

    /* memory within 1% is the same machine; another build is not */
    char *text = read_file(FIXTURES "base.json");
    cJSON *json = cJSON_Parse(text);
    free(text);
    assert_non_null(json);
    cJSON *env = cJSON_GetObjectItem(json, "environment");
    double mem = cJSON_GetObjectItem(env, "memory_bytes")->valuedouble;
    cJSON_ReplaceItemInObject(env, "memory_bytes", cJSON_CreateNumber(floor(mem * 0.995)));
    cJSON_ReplaceItemInObject(env, "build_type", cJSON_CreateString("Debug"));
    other = load_json(json);
    n = compare_warnings(base, other, &w);
    assert_int_equal(n, 1);
    assert_non_null(strstr(w[0], "the builds differ: build_type Release in base, Debug"));
    free(w[0]);
    free(w);
    result_file_free(other);
    cJSON_Delete(json);
    result_file_free(base);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metric_names_follow_design_section_6),
        cmocka_unit_test(test_metric_values_and_ranges_come_from_the_json),
        cmocka_unit_test(test_failed_results_have_no_metrics_and_a_note),
        cmocka_unit_test(test_a_name_twice_keeps_the_first_and_says_so),
        cmocka_unit_test(test_a_truncated_file_is_refused_with_a_sentence),
        cmocka_unit_test(test_schema_violations_name_the_json_path),
        cmocka_unit_test(test_verdicts_know_the_direction),
        cmocka_unit_test(test_overlapping_ranges_are_within_noise),
        cmocka_unit_test(test_disjoint_ranges_need_a_significant_test),
        cmocka_unit_test(test_a_zero_base_has_no_percentage),
        cmocka_unit_test(test_metrics_in_one_file_only_are_listed_as_such),
        cmocka_unit_test(test_gate_fails_beyond_the_threshold_in_the_bad_direction),
        cmocka_unit_test(test_gate_never_fails_within_noise),
        cmocka_unit_test(test_paired_ratios_and_the_signed_rank_test),
        cmocka_unit_test(test_paired_metric_missing_from_one_side),
        cmocka_unit_test(test_metric_globs),
        cmocka_unit_test(test_metric_format_rounds_as_the_reports_do),
        cmocka_unit_test(test_warnings_name_what_differs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
