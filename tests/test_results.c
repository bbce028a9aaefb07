/* test_results.c: result files read back into the results.h model. A report
 * built by hand is written by report_json and loaded by results_load: every
 * figure, string and histogram comes back (latencies as the whole ns the
 * JSON carries), and writing the loaded report gives the same bytes. Bad
 * files are refused with their sentence. Runs from the repository root. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "results.h"
#include "runner.h"
#include "stats.h"

/* ---- a report built by hand --------------------------------------------- */

/* One run over `cycles` cycles whose latencies spread over several octaves
 * (so buckets are wide), with two verbs. */
static void make_run(run_result *run, int number, uint64_t base_ns, uint64_t cycles)
{
    hist tenths[STATS_TENTHS], verbs[2];
    assert_int_equal(hist_init(&run->all), 0);
    for (int i = 0; i < STATS_TENTHS; i++)
        assert_int_equal(hist_init(&tenths[i]), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(hist_init(&verbs[i]), 0);
    double total = 0;
    for (uint64_t k = 0; k < cycles; k++) {
        uint64_t ns = base_ns + (k % 13) * base_ns / 3 + (k * 7919) % 997 + (uint64_t)number;
        hist_record(&run->all, ns);
        hist_record(&tenths[stats_tenth_of(k, cycles)], ns);
        hist_record(&verbs[k % 2], ns);
        total += (double)ns * 1.0001;
    }
    run->run = number;
    stats_figures_from(&run->all, tenths, cycles, total / 1e9, &run->fig);
    run->nverbs = 2;
    run->verbs = calloc(2, sizeof *run->verbs);
    assert_non_null(run->verbs);
    static const char *const names[] = {"Order.CreatePizza", "Order.AddTopping"};
    for (int i = 0; i < 2; i++) {
        run->verbs[i] = (verb_result){.verb = names[i],
                                      .count = hist_count(&verbs[i]),
                                      .refused = (uint64_t)i * 3,
                                      .p50_ns = (double)hist_percentile(&verbs[i], 0.5),
                                      .p99_ns = (double)hist_percentile(&verbs[i], 0.99),
                                      .round_trips_per_command = i ? 2.5 : NAN};
        hist_free(&verbs[i]);
    }
    run->roundtrip_floor_p50_ns = 1234.4 + number;
    run->round_trips_per_command = 1.0 / 3.0;
    for (int i = 0; i < STATS_TENTHS; i++)
        hist_free(&tenths[i]);
}

static void make_result(target_result *t, const char *domain, const char *label, const char *dur,
                        int64_t prefill, uint64_t base_ns)
{
    *t = (target_result){.domain = domain,
                         .target = "sqlite",
                         .label = label,
                         .prefill = prefill,
                         .durability = dur,
                         .nruns = 3,
                         .verify = VERIFY_PASS};
    t->runs = calloc(3, sizeof *t->runs);
    assert_non_null(t->runs);
    run_figures figs[3];
    for (int i = 0; i < 3; i++) {
        make_run(&t->runs[i], i + 1, base_ns, 400);
        figs[i] = t->runs[i].fig;
    }
    stats_figures_median(figs, 3, &t->median);
    stats_throughput_range(figs, 3, &t->throughput_lo, &t->throughput_hi);
}

static spec_config specs_cfg[] = {{.path = "specs/pizzas.yaml"}, {.path = "specs/banking.yaml"}};
static int64_t prefills[] = {0, 1000};
static const char *targets_cfg[] = {"sqlite", "memory"};

static void sample_report(report *r)
{
    *r = (report){0};
    environment *e = &r->env;
    snprintf(e->cpu_model, sizeof e->cpu_model, "Test CPU @ 3.00GHz");
    e->cores = 4;
    e->memory_bytes = UINT64_C(16) << 30;
    snprintf(e->os, sizeof e->os, "Debian GNU/Linux 12 (bookworm)");
    snprintf(e->kernel, sizeof e->kernel, "Linux 6.1.0 x86_64");
    snprintf(e->clock_source, sizeof e->clock_source, "tsc");
    snprintf(e->affinity, sizeof e->affinity, "0-1");
    snprintf(e->compiler, sizeof e->compiler, "gcc 12.2.0");
    snprintf(e->build_type, sizeof e->build_type, "Release");
    snprintf(e->build_flags, sizeof e->build_flags, "-O2, sanitizers off");
    snprintf(e->libraries, sizeof e->libraries, "libyaml 0.2.5, SQLite 3.40.1");
    snprintf(e->postgres, sizeof e->postgres, "PostgreSQL 15.5, fsync on");
    snprintf(e->version, sizeof e->version, "0.1.0");
    snprintf(e->commit, sizeof e->commit, "0123456789ab");
    snprintf(e->label, sizeof e->label, "nightly \"quoted\"");
    snprintf(e->date, sizeof e->date, "2025-01-01T00:00:00Z");
    for (int i = 0; i < 3; i++) {
        e->load_before[i] = 0.25 * (i + 1);
        e->load_after[i] = i == 2 ? NAN : 0.1 * (i + 1);
    }
    memset(specs_cfg[0].sha256, 'a', 64);
    memset(specs_cfg[1].sha256, 'b', 64);
    r->config = (run_config){.specs = specs_cfg,
                             .nspecs = 2,
                             .warmup = 10,
                             .iterations = 400,
                             .runs = 3,
                             .prefill = prefills,
                             .nprefill = 2,
                             .targets = targets_cfg,
                             .ntargets = 2,
                             .samples = true,
                             .cpu = "0-1"};
    r->harness_floor_p50_ns = 51.5;
    r->nresults = 3;
    r->results = calloc(3, sizeof *r->results);
    assert_non_null(r->results);
    make_result(&r->results[0], "pizzas", "sqlite", "normal", 0, 1500);
    make_result(&r->results[1], "banking", "sqlite", "full", 1000, 40000);
    make_result(&r->results[2], "banking", "memory", NULL, 0, 700);
    r->results[1].verify = VERIFY_FAIL;
    snprintf(r->results[1].verify_detail, sizeof r->results[1].verify_detail,
             "account 7: balance 10 != 12");
    r->results[2].verify = VERIFY_NA;
    r->results[2].failed = true;
    snprintf(r->results[2].reason, sizeof r->results[2].reason, "run 2: the store went away");
    r->nskipped = r->nfailed = 1;
    r->skipped = calloc(1, sizeof *r->skipped);
    r->failed = calloc(1, sizeof *r->failed);
    assert_non_null(r->skipped);
    assert_non_null(r->failed);
    snprintf(r->skipped[0].label, sizeof r->skipped[0].label, "postgres");
    snprintf(r->skipped[0].reason, sizeof r->skipped[0].reason, "no server: set PGHOST");
    snprintf(r->failed[0].label, sizeof r->failed[0].label, "memory");
    snprintf(r->failed[0].reason, sizeof r->failed[0].reason, "run 2: the store went away");
    r->interrupted = true;
}

static char *json_text(const report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(report_json(r, out), 0);
    assert_int_equal(fclose(out), 0);
    return text;
}

/* Writes text to a temporary file; the caller unlinks path. */
static void write_temp(char *path, const char *text, size_t len)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
}

/* ---- comparing the model ------------------------------------------------- */

/* A latency comes back as the whole ns the JSON's µs figure holds. */
static void assert_ns(double loaded, double original)
{
    if (isnan(original))
        assert_true(isnan(loaded));
    else
        assert_true(loaded == round(original));
}

/* Any other double comes back exactly (NAN as NAN). */
static void assert_same(double loaded, double original)
{
    if (isnan(original))
        assert_true(isnan(loaded));
    else
        assert_true(loaded == original);
}

static void assert_figures(const run_figures *l, const run_figures *o, bool tenths)
{
    assert_int_equal(l->commands, o->commands);
    assert_same(l->wall_seconds, o->wall_seconds);
    assert_same(l->throughput_per_s, o->throughput_per_s);
    const double *ln[] = {&l->min_ns,  &l->p50_ns, &l->p90_ns,  &l->p95_ns,   &l->p99_ns,
                          &l->p999_ns, &l->max_ns, &l->mean_ns, &l->stddev_ns};
    const double *on[] = {&o->min_ns,  &o->p50_ns, &o->p90_ns,  &o->p95_ns,   &o->p99_ns,
                          &o->p999_ns, &o->max_ns, &o->mean_ns, &o->stddev_ns};
    for (size_t i = 0; i < sizeof ln / sizeof ln[0]; i++)
        assert_ns(*ln[i], *on[i]);
    assert_same(l->drift, o->drift);
    for (int t = 0; tenths && t < STATS_TENTHS; t++) {
        assert_ns(l->tenths[t].p50_ns, o->tenths[t].p50_ns);
        assert_ns(l->tenths[t].p99_ns, o->tenths[t].p99_ns);
    }
}

/* The same buckets, counts and extremes, so every percentile is the same. */
static void assert_histogram(const hist *l, const hist *o)
{
    assert_int_equal(hist_count(l), hist_count(o));
    assert_int_equal(hist_min(l), hist_min(o));
    assert_int_equal(hist_max(l), hist_max(o));
    hist_iter a = hist_iter_start(l), b = hist_iter_start(o);
    while (hist_iter_next(&b)) {
        assert_true(hist_iter_next(&a));
        assert_int_equal(a.lo, b.lo);
        assert_int_equal(a.count, b.count);
        assert_int_equal(a.mid, b.mid);
    }
    assert_false(hist_iter_next(&a));
    for (int k = 0; k <= 1000; k++)
        assert_int_equal(hist_percentile(l, k / 1000.0), hist_percentile(o, k / 1000.0));
}

static void assert_run(const run_result *l, const run_result *o)
{
    assert_int_equal(l->run, o->run);
    assert_figures(&l->fig, &o->fig, true);
    assert_int_equal(l->nverbs, o->nverbs);
    for (size_t i = 0; i < o->nverbs; i++) {
        assert_string_equal(l->verbs[i].verb, o->verbs[i].verb);
        assert_int_equal(l->verbs[i].count, o->verbs[i].count);
        assert_int_equal(l->verbs[i].refused, o->verbs[i].refused);
        assert_ns(l->verbs[i].p50_ns, o->verbs[i].p50_ns);
        assert_ns(l->verbs[i].p99_ns, o->verbs[i].p99_ns);
        assert_same(l->verbs[i].round_trips_per_command, o->verbs[i].round_trips_per_command);
    }
    assert_histogram(&l->all, &o->all);
    assert_ns(l->roundtrip_floor_p50_ns, o->roundtrip_floor_p50_ns);
    assert_same(l->round_trips_per_command, o->round_trips_per_command);
}

static void assert_result(const target_result *l, const target_result *o)
{
    assert_string_equal(l->domain, o->domain);
    assert_string_equal(l->target, o->target);
    assert_string_equal(l->label, o->label);
    assert_int_equal(l->prefill, o->prefill);
    if (o->durability)
        assert_string_equal(l->durability, o->durability);
    else
        assert_null(l->durability);
    assert_int_equal(l->nruns, o->nruns);
    for (size_t i = 0; i < o->nruns; i++)
        assert_run(&l->runs[i], &o->runs[i]);
    assert_figures(&l->median, &o->median, false);
    assert_same(l->throughput_lo, o->throughput_lo);
    assert_same(l->throughput_hi, o->throughput_hi);
    assert_int_equal(l->verify, o->verify);
    assert_string_equal(l->verify_detail, o->verify_detail);
    assert_int_equal(l->failed, o->failed);
    assert_string_equal(l->reason, o->reason);
}

static void assert_report(const report *l, const report *o)
{
    const environment *le = &l->env, *oe = &o->env;
    assert_string_equal(le->cpu_model, oe->cpu_model);
    assert_int_equal(le->cores, oe->cores);
    assert_int_equal(le->memory_bytes, oe->memory_bytes);
    assert_string_equal(le->os, oe->os);
    assert_string_equal(le->kernel, oe->kernel);
    assert_string_equal(le->clock_source, oe->clock_source);
    assert_string_equal(le->affinity, oe->affinity);
    assert_string_equal(le->compiler, oe->compiler);
    assert_string_equal(le->build_type, oe->build_type);
    assert_string_equal(le->build_flags, oe->build_flags);
    assert_string_equal(le->libraries, oe->libraries);
    assert_string_equal(le->postgres, oe->postgres);
    assert_string_equal(le->version, oe->version);
    assert_string_equal(le->commit, oe->commit);
    assert_string_equal(le->label, oe->label);
    assert_string_equal(le->date, oe->date);
    for (int i = 0; i < 3; i++) {
        assert_same(le->load_before[i], oe->load_before[i]);
        assert_same(le->load_after[i], oe->load_after[i]);
    }
    const run_config *lc = &l->config, *oc = &o->config;
    assert_int_equal(lc->nspecs, oc->nspecs);
    for (size_t i = 0; i < oc->nspecs; i++) {
        assert_string_equal(lc->specs[i].path, oc->specs[i].path);
        assert_string_equal(lc->specs[i].sha256, oc->specs[i].sha256);
    }
    assert_int_equal(lc->warmup, oc->warmup);
    assert_int_equal(lc->iterations, oc->iterations);
    assert_int_equal(lc->runs, oc->runs);
    assert_int_equal(lc->nprefill, oc->nprefill);
    for (size_t i = 0; i < oc->nprefill; i++)
        assert_int_equal(lc->prefill[i], oc->prefill[i]);
    assert_int_equal(lc->ntargets, oc->ntargets);
    for (size_t i = 0; i < oc->ntargets; i++)
        assert_string_equal(lc->targets[i], oc->targets[i]);
    assert_int_equal(lc->samples, oc->samples);
    assert_string_equal(lc->cpu, oc->cpu);
    assert_int_equal(l->nresults, o->nresults);
    for (size_t i = 0; i < o->nresults; i++)
        assert_result(&l->results[i], &o->results[i]);
    assert_ns(l->harness_floor_p50_ns, o->harness_floor_p50_ns);
    assert_int_equal(l->nskipped, o->nskipped);
    assert_int_equal(l->nfailed, o->nfailed);
    for (size_t i = 0; i < o->nskipped; i++) {
        assert_string_equal(l->skipped[i].label, o->skipped[i].label);
        assert_string_equal(l->skipped[i].reason, o->skipped[i].reason);
    }
    for (size_t i = 0; i < o->nfailed; i++) {
        assert_string_equal(l->failed[i].label, o->failed[i].label);
        assert_string_equal(l->failed[i].reason, o->failed[i].reason);
    }
    assert_int_equal(l->interrupted, o->interrupted);
}

/* ---- round trip ---------------------------------------------------------- */

/* text written to a file and loaded back. */
static report *load_written(const char *text)
{
    char path[] = "/tmp/bench-results-XXXXXX";
    write_temp(path, text, strlen(text));
    report *loaded = NULL;
    char err[1024] = "";
    if (results_load(path, &loaded, err, sizeof err) != 0)
        fail_msg("results_load: %s", err);
    unlink(path);
    return loaded;
}

/* Written again, loaded is the same file as text; frees the three. */
static void written_again_is_same(report *loaded, char *text, report *r)
{
    char *again = json_text(loaded);
    assert_string_equal(again, text);
    free(again);
    free(text);
    results_free(loaded);
    report_free(r);
}

static void test_a_written_report_reads_back_with_every_figure(void **state)
{
    (void)state;
    report r;
    sample_report(&r);
    char *text = json_text(&r);
    report *loaded = load_written(text);
    assert_report(loaded, &r);
    /* the loaded median's tenths are the runs' medians, as the runner's */
    for (int t = 0; t < STATS_TENTHS; t++)
        assert_ns(loaded->results[0].median.tenths[t].p50_ns, r.results[0].median.tenths[t].p50_ns);
    /* and written again, it is the same file */
    written_again_is_same(loaded, text, &r);
}

static void test_a_document_in_memory_loads_alike(void **state)
{
    (void)state;
    report r;
    sample_report(&r);
    cJSON *json = report_to_cjson(&r);
    assert_non_null(json);
    report *loaded;
    char err[1024] = "";
    if (results_from_json("tree.json", json, &loaded, err, sizeof err) != 0)
        fail_msg("results_from_json: %s", err);
    assert_report(loaded, &r);
    cJSON_Delete(json);
    results_free(loaded);
    report_free(&r);
    results_free(NULL);
}

/* A long run's file: thousands of intervals, each with its own histogram
 * (what makes real result files hundreds of MB). Every interval and bucket
 * comes back in order, and written again it is the same file. The time and
 * memory that takes are make bench's (tests/perf/large_result.sh). */
static void test_a_file_with_many_intervals_reads_back_whole(void **state)
{
    (void)state;
    enum { NINTERVALS = 3000, NBUCKETS = 60 };
    report r;
    sample_report(&r);
    run_result *run = &r.results[0].runs[0];
    run->intervals = calloc(NINTERVALS, sizeof *run->intervals);
    assert_non_null(run->intervals);
    run->nintervals = NINTERVALS;
    run->start_epoch_s = 1700000000.5;
    for (size_t i = 0; i < NINTERVALS; i++) {
        interval *iv = &run->intervals[i];
        iv->start_ns = i * UINT64_C(250000000);
        iv->length_ns = UINT64_C(250000000);
        iv->all.mid = calloc(NBUCKETS, sizeof *iv->all.mid);
        iv->all.count = calloc(NBUCKETS, sizeof *iv->all.count);
        assert_true(iv->all.mid && iv->all.count);
        for (size_t k = 0; k < NBUCKETS; k++) {
            iv->all.mid[k] = 100 + 10 * k + i % 7;
            iv->all.count[k] = 1 + (i * k) % 11;
            iv->all.total += iv->all.count[k];
        }
        iv->all.n = NBUCKETS;
        iv->all.min = iv->all.mid[0];
        iv->all.max = iv->all.mid[NBUCKETS - 1];
        iv->commands = iv->all.total;
        iv->p50_ns = (double)iv->all.mid[NBUCKETS / 2];
        iv->p90_ns = iv->p99_ns = iv->max_ns = (double)iv->all.max;
    }
    char *text = json_text(&r);
    report *loaded = load_written(text);
    const run_result *back = &loaded->results[0].runs[0];
    assert_int_equal(back->nintervals, NINTERVALS);
    for (size_t i = 0; i < NINTERVALS; i++) {
        const hist_buckets *a = &back->intervals[i].all, *b = &run->intervals[i].all;
        assert_int_equal(back->intervals[i].start_ns, run->intervals[i].start_ns);
        assert_int_equal(back->intervals[i].commands, run->intervals[i].commands);
        assert_int_equal(a->n, b->n);
        assert_int_equal(a->total, b->total);
        assert_memory_equal(a->mid, b->mid, b->n * sizeof *b->mid);
        assert_memory_equal(a->count, b->count, b->n * sizeof *b->count);
    }
    written_again_is_same(loaded, text, &r);
}

/* ---- bad files ----------------------------------------------------------- */

static void test_a_bad_file_gives_its_sentence(void **state)
{
    (void)state;
    report *loaded = (report *)1;
    char err[1024];
    assert_int_equal(
        results_load("tests/fixtures/results/truncated.json", &loaded, err, sizeof err), -1);
    assert_null(loaded);
    assert_non_null(strstr(err, "truncated.json is not valid JSON"));
    assert_non_null(strstr(err, "(a truncated file?)"));

    assert_int_equal(results_load("tests/fixtures/results/nope.json", &loaded, err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "cannot read tests/fixtures/results/nope.json"));

    report r;
    sample_report(&r);
    cJSON *json = report_to_cjson(&r);
    report_free(&r);
    cJSON *run = cJSON_GetArrayItem(
        cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 1), "runs"),
        0);
    cJSON_ReplaceItemInObject(run, "histogram", cJSON_CreateString("none"));
    char *text = cJSON_Print(json);
    cJSON_Delete(json);
    char path[] = "/tmp/bench-results-XXXXXX";
    write_temp(path, text, strlen(text));
    free(text);
    assert_int_equal(results_load(path, &loaded, err, sizeof err), -1);
    unlink(path);
    assert_null(loaded);
    assert_non_null(
        strstr(err, "is not a valid bench result file: at results[1].runs[0].histogram"));
}

/* A bad bucket in a histogram, which the loader holds as packed pairs, is
 * refused as when every pair was a node (results_from_json's cJSON tree):
 * the same sentence, at the same JSON path. */
static void test_a_bad_bucket_reads_as_from_a_cjson_tree(void **state)
{
    (void)state;
    report r;
    sample_report(&r);
    cJSON *json = report_to_cjson(&r);
    report_free(&r);
    cJSON *buckets = cJSON_GetObjectItem(
        cJSON_GetArrayItem(cJSON_GetObjectItem(
                               cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 1), "runs"),
                           0),
        "histogram");
    assert_true(cJSON_GetArraySize(buckets) > 6);
    static const char *const wanted[] = {
        "t.json is not a valid bench result file: at results[1].runs[0].histogram[2][0]: 0 is "
        "less than the minimum 1.",
        "t.json is not a valid bench result file: at results[1].runs[0].histogram[2][0]: 0 is "
        "less than the minimum 1 (and more).",
        "t.json is not a valid bench result file: at results[1].runs[0].histogram[2][0]: 0 is "
        "less than the minimum 1 (and more).",
    };
    for (size_t k = 0; k < 3; k++) {
        if (k == 0) /* a value of 0 */
            cJSON_ReplaceItemInArray(cJSON_GetArrayItem(buckets, 2), 0, cJSON_CreateNumber(0));
        else if (k == 1) /* and a count of 0 further on */
            cJSON_ReplaceItemInArray(cJSON_GetArrayItem(buckets, 5), 1, cJSON_CreateNumber(0));
        else /* and a triple: the list is not packed */
            cJSON_AddItemToArray(cJSON_GetArrayItem(buckets, 6), cJSON_CreateNumber(3));
        char *text = cJSON_PrintUnformatted(json);
        report *loaded = (report *)1;
        char packed[1024], tree[1024];
        assert_int_equal(
            results_load_text("t.json", text, strlen(text), &loaded, packed, sizeof packed), -1);
        assert_null(loaded);
        assert_int_equal(results_from_json("t.json", json, &loaded, tree, sizeof tree), -1);
        assert_string_equal(packed, tree);
        assert_string_equal(packed, wanted[k]);
        free(text);
    }
    cJSON_Delete(json);
}

/* Numbers past every integer's range where the schema asks only for an
 * integer (a bucket, a count, an interval's start, the seed, a prefill, a
 * tally): the file loads, each held at its range's end, and no conversion
 * is undefined (UBSan stops the test otherwise; fuzz_results found the
 * bucket). */
static void test_numbers_past_an_integers_range_are_held_at_its_end(void **state)
{
    (void)state;
    report r;
    sample_report(&r);
    cJSON *json = report_to_cjson(&r);
    report_free(&r);
    cJSON *result = cJSON_GetArrayItem(cJSON_GetObjectItem(json, "results"), 0);
    cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(result, "runs"), 0);
    cJSON *iv = cJSON_CreateObject();
    cJSON_AddNumberToObject(iv, "start_s", 4e30);
    cJSON_AddNumberToObject(iv, "length_s", 0.25);
    cJSON_AddNumberToObject(iv, "commands", 4e30);
    cJSON_AddNumberToObject(iv, "p50_us", 1);
    cJSON_AddNumberToObject(iv, "p90_us", 1);
    cJSON_AddNumberToObject(iv, "p99_us", 1);
    cJSON_AddNumberToObject(iv, "max_us", 1);
    cJSON *buckets = cJSON_AddArrayToObject(iv, "histogram");
    const double pairs[][2] = {{1000, 4e30}, {4e30, 1}};
    for (size_t i = 0; i < 2; i++)
        cJSON_AddItemToArray(buckets, cJSON_CreateDoubleArray(pairs[i], 2));
    cJSON *list = cJSON_CreateArray();
    cJSON_AddItemToArray(list, iv);
    /* and an interval of one key: every key of an interval is optional
       (fuzz_results: a missing histogram was read through NULL) */
    cJSON *bare = cJSON_CreateObject();
    cJSON_AddNumberToObject(bare, "p50_us", 1);
    cJSON_AddItemToArray(list, bare);
    cJSON_ReplaceItemInObject(run, "intervals", list);
    cJSON_ReplaceItemInArray(cJSON_GetArrayItem(cJSON_GetObjectItem(run, "histogram"), 0), 1,
                             cJSON_CreateNumber(4e30));
    cJSON *config = cJSON_GetObjectItem(json, "config");
    cJSON_ReplaceItemInObject(config, "seed", cJSON_CreateNumber(4e30));
    char *text = cJSON_PrintUnformatted(json);
    cJSON_Delete(json);
    report *loaded = NULL;
    char err[1024] = "";
    int rc = results_load_text("big.json", text, strlen(text), &loaded, err, sizeof err);
    free(text);
    if (rc != 0)
        fail_msg("%s", err);
    const run_result *back = &loaded->results[0].runs[0];
    assert_int_equal(back->nintervals, 2);
    assert_int_equal(back->intervals[1].all.n, 0);
    assert_true(back->intervals[0].start_ns == UINT64_MAX);
    assert_true(back->intervals[0].commands == (uint64_t)INT64_MAX);
    assert_int_equal(back->intervals[0].all.n, 2);
    assert_true(back->intervals[0].all.count[0] == UINT64_MAX);
    assert_true(back->intervals[0].all.mid[1] == UINT64_MAX);
    assert_true(loaded->config.seed == UINT64_MAX);
    results_free(loaded);
}

/* A file nested deeper than cJSON's limit is refused as too deep, at the
 * place where it passes the limit, not as text JSON does not allow. */
static void test_a_file_nested_too_deep_says_so(void **state)
{
    (void)state;
    size_t depth = 100000;
    char *text = malloc(2 * depth + 8), *p = text;
    p += sprintf(p, "{\"a\":");
    for (size_t i = 0; i < depth; i++)
        *p++ = '[';
    for (size_t i = 0; i < depth; i++)
        *p++ = ']';
    *p++ = '}';
    *p = '\0';
    report *loaded = (report *)1;
    char err[1024];
    assert_int_equal(
        results_load_text("deep.json", text, (size_t)(p - text), &loaded, err, sizeof err), -1);
    assert_null(loaded);
    assert_string_equal(err, "deep.json is nested too deep: at line 1, column 1005 arrays and "
                             "objects are more than 1000 levels deep, the most bench reads.");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_written_report_reads_back_with_every_figure),
        cmocka_unit_test(test_a_document_in_memory_loads_alike),
        cmocka_unit_test(test_a_file_with_many_intervals_reads_back_whole),
        cmocka_unit_test(test_a_bad_file_gives_its_sentence),
        cmocka_unit_test(test_a_file_nested_too_deep_says_so),
        cmocka_unit_test(test_numbers_past_an_integers_range_are_held_at_its_end),
        cmocka_unit_test(test_a_bad_bucket_reads_as_from_a_cjson_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
