/* test_report.c: the JSON report against schema/result.schema.json, the
 * Markdown table cell by cell against the JSON, the CSV, the rounding
 * helpers, and the atomic write. Runs from the repository root. */
/* cmocka.h needs these first, in this order. */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "test_util.h"
/* clang-format on */

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arena.h"
#include "diag.h"
#include "env.h"
#include "hist.h"
#include "jsonschema.h"
#include "report.h"
#include "results.h"
#include "stats.h"

#define SCHEMA_PATH "schema/result.schema.json"

/* ---- helpers ------------------------------------------------------------ */

/* What writer prints for r, as a string the caller frees. Not inlined: GCC's
 * -Wdangling-pointer then mistakes the result for the address of `text`. */
__attribute__((noinline)) static char *render(int (*writer)(const report *, FILE *),
                                              const report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(writer(r, f), 0);
    assert_int_equal(fclose(f), 0);
    return text;
}

static cJSON *load_schema(void)
{
    char *text = read_file(SCHEMA_PATH);
    cJSON *schema = cJSON_Parse(text);
    free(text);
    if (!schema)
        fail_msg("%s does not parse as JSON", SCHEMA_PATH);
    return schema;
}

/* Validates json against the result schema; prints the diagnostics when the
 * answer is not the expected one. */
static bool validates(const cJSON *json, bool expected)
{
    cJSON *schema = load_schema();
    arena a = {0};
    diag_list d = {0};
    node *instance = jschema_node_from_cjson(&a, json, "report.json");
    bool ok = jschema_validate(schema, instance, &d);
    for (size_t i = 0; ok != expected && i < d.count; i++)
        print_message("schema: %s\n", d.items[i].message);
    diag_list_free(&d);
    arena_free(&a);
    cJSON_Delete(schema);
    return ok;
}

static cJSON *item(const cJSON *o, const char *key)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!v)
        fail_msg("no \"%s\" in the JSON", key);
    return v;
}

/* A JSON figure: NAN for null. */
static double fig(const cJSON *o, const char *key)
{
    cJSON *v = item(o, key);
    if (cJSON_IsNull(v))
        return NAN;
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble;
}

/* ---- the fixture: a report built by hand ---------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t rng_next(void) /* xorshift64*, fixed seed */
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static const char *const pizza_distinct[] = {"Order.CreatePizza", "Order.AddTopping",
                                             "Order.Purchase"};
static const char *const bank_distinct[] = {"Account.Open", "Account.Credit", "Account.Debit"};

typedef struct shape {
    const char *domain, *target, *label, *durability;
    int64_t prefill;
    size_t nruns;
    uint64_t cycles;
    uint64_t base_ns; /* typical latency */
    double growth_ns; /* added per cycle: drift above 1 */
    double floor_ns;  /* round-trip floor, or NAN */
    double trips;     /* round trips per command, or NAN */
    verify_status verify;
} shape;

/* One run: latencies drawn around base_ns, recorded as the runner does into
 * the run's histogram, its tenths' and its verbs'. */
static void make_run(run_result *run, int number, const shape *s)
{
    bool bank = strcmp(s->domain, "banking") == 0;
    const char *const *distinct = bank ? bank_distinct : pizza_distinct;
    hist tenths[STATS_TENTHS], per_verb[3];
    assert_int_equal(hist_init(&run->all), 0);
    for (int i = 0; i < STATS_TENTHS; i++)
        assert_int_equal(hist_init(&tenths[i]), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(hist_init(&per_verb[i]), 0);
    double total_ns = 0;
    for (uint64_t k = 0; k < s->cycles; k++) {
        unsigned t = stats_tenth_of(k, s->cycles);
        for (int v = 0; v < 4; v++) {
            uint64_t ns = s->base_ns + rng_next() % (s->base_ns / 2 + 1) +
                          (uint64_t)(s->growth_ns * (double)k) + (uint64_t)v * 37;
            if (rng_next() % 97 == 0)
                ns *= 8; /* a pause */
            hist_record(&run->all, ns);
            hist_record(&tenths[t], ns);
            hist_record(&per_verb[v == 3 ? 2 : v > 0], ns);
            total_ns += (double)ns;
        }
    }
    run->run = number;
    stats_figures_from(&run->all, tenths, s->cycles * 4, total_ns * 1.07 / 1e9, &run->fig);
    run->nverbs = 3;
    run->verbs = calloc(3, sizeof *run->verbs);
    assert_non_null(run->verbs);
    for (int i = 0; i < 3; i++) {
        run->verbs[i] = (verb_result){
            .verb = distinct[i],
            .count = hist_count(&per_verb[i]),
            .p50_ns = (double)hist_percentile(&per_verb[i], 0.5),
            .p99_ns = (double)hist_percentile(&per_verb[i], 0.99),
        };
        hist_free(&per_verb[i]);
    }
    for (int i = 0; i < STATS_TENTHS; i++)
        hist_free(&tenths[i]);
    run->roundtrip_floor_p50_ns = isnan(s->floor_ns) ? NAN : s->floor_ns + number * 101.3;
    run->round_trips_per_command = s->trips;
}

static void make_result(target_result *t, const shape *s)
{
    *t = (target_result){
        .domain = s->domain,
        .target = s->target,
        .label = s->label,
        .prefill = s->prefill,
        .durability = s->durability,
        .nruns = s->nruns,
        .verify = s->verify,
    };
    t->runs = calloc(s->nruns ? s->nruns : 1, sizeof *t->runs);
    assert_non_null(t->runs);
    run_figures figs[8];
    for (size_t i = 0; i < s->nruns; i++) {
        make_run(&t->runs[i], (int)i + 1, s);
        figs[i] = t->runs[i].fig;
    }
    stats_figures_median(figs, s->nruns, &t->median);
    stats_throughput_range(figs, s->nruns, &t->throughput_lo, &t->throughput_hi);
}

static const shape shapes[] = {
    {"pizzas", "memory", "memory", NULL, 0, 3, 250, 2100, 0.4, NAN, NAN, VERIFY_PASS},
    {"pizzas", "null", "null", NULL, 0, 3, 250, 90, 0, NAN, NAN, VERIFY_NA},
    {"pizzas", "sqlite", "sqlite", "normal", 1000, 3, 250, 41000, 2.5, NAN, NAN, VERIFY_PASS},
    {"pizzas", "process", "process", NULL, 0, 3, 250, 14500, 0, 9012.4, 1.0, VERIFY_PASS},
    /* five cycles: a histogram of a few samples, empty tenths, no drift */
    {"banking", "memory", "memory", NULL, 0, 1, 5, 3000, 0, NAN, NAN, VERIFY_PASS},
    {"banking", "sqlite", "sqlite", "full", 0, 1, 250, 61000, 0, NAN, NAN, VERIFY_FAIL},
};
enum { NSHAPES = sizeof shapes / sizeof shapes[0] };

typedef struct fixture {
    report r;
    target_result results[NSHAPES];
    spec_config specs[2];
    int64_t prefill[2];
    const char *targets[5];
    label_reason skipped[1], failed[1];
} fixture;

static void fill_environment(environment *e)
{
    *e = (environment){
        .cores = 2,
        .memory_bytes = UINT64_C(8363700224),
        .load_before = {0.52, 0.4, 0.35},
        .load_after = {0.8, 0.45, 0.36},
    };
    snprintf(e->cpu_model, sizeof e->cpu_model, "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz");
    snprintf(e->os, sizeof e->os, "Debian GNU/Linux 12 (bookworm)");
    snprintf(e->kernel, sizeof e->kernel, "Linux 6.1.0-18-amd64 x86_64");
    snprintf(e->clock_source, sizeof e->clock_source, "tsc");
    snprintf(e->affinity, sizeof e->affinity, "0-1");
    snprintf(e->compiler, sizeof e->compiler, "gcc 12.2.0");
    snprintf(e->build_type, sizeof e->build_type, "Release");
    snprintf(e->build_flags, sizeof e->build_flags, "optimised, assertions off, sanitizers off");
    snprintf(e->libraries, sizeof e->libraries,
             "libyaml 0.2.5, SQLite 3.40.1, libpq 15.10, PCRE2 10.42, cJSON 1.7.15");
    snprintf(e->postgres, sizeof e->postgres,
             "PostgreSQL 15.10, fsync on, synchronous_commit on, shared_buffers 128MB");
    snprintf(e->version, sizeof e->version, "0.1.0");
    snprintf(e->commit, sizeof e->commit, "0123456789ab");
    snprintf(e->label, sizeof e->label, "laptop, quiet");
    snprintf(e->date, sizeof e->date, "2026-09-26T10:00:00Z");
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    report *r = &fx->r;
    fill_environment(&r->env);
    fx->specs[0] = (spec_config){.path = "specs/pizzas.yaml"};
    fx->specs[1] = (spec_config){.path = "specs/banking.yaml"};
    memset(fx->specs[0].sha256, 'a', 64);
    memset(fx->specs[1].sha256, '7', 64);
    fx->prefill[0] = 0;
    fx->prefill[1] = 1000;
    fx->targets[0] = "memory";
    fx->targets[1] = "null";
    fx->targets[2] = "sqlite";
    fx->targets[3] = "process";
    fx->targets[4] = "postgres";
    r->config = (run_config){
        .specs = fx->specs,
        .nspecs = 2,
        .warmup = 200,
        .iterations = 250,
        .runs = 3,
        .prefill = fx->prefill,
        .nprefill = 2,
        .targets = fx->targets,
        .ntargets = 5,
        .cpu = "0-1",
    };
    for (size_t i = 0; i < NSHAPES; i++)
        make_result(&fx->results[i], &shapes[i]);
    /* edge values for the Markdown rounding: a tie of each kind */
    fx->results[0].median.p50_ns = 999950.0;         /* -> 1,000.0 */
    fx->results[0].median.p99_ns = 1476949.6;        /* 1476950 ns -> 1,477.0 */
    fx->results[0].median.throughput_per_s = 2576.5; /* -> 2,577 */
    target_result *bad = &fx->results[5];
    bad->failed = true;
    snprintf(bad->reason, sizeof bad->reason,
             "run 2, cycle 17, step 4 (Account.Debit): refused: the balance does not cover it");
    snprintf(bad->verify_detail, sizeof bad->verify_detail,
             "Account: 1,199 aggregates, expected 1,200");
    bad->failed_run = 2;
    bad->verify = VERIFY_FAIL;
    /* the process row: run 2 unstable, pinned by default */
    target_result *proc = &fx->results[3];
    proc->runs[1].unstable = true;
    snprintf(proc->runs[1].unstable_reason, sizeof proc->runs[1].unstable_reason,
             "tenths' p50 spread 6.000 to 57.20 us (9.5x)");
    proc->unstable = true;
    snprintf(proc->unstable_reason, sizeof proc->unstable_reason,
             "run 2: tenths' p50 spread 6.000 to 57.20 us (9.5x)");
    snprintf(proc->placement, sizeof proc->placement,
             "bench and its child on CPU 1 (the process target's default; --cpu overrides)");
    for (size_t k = 0; k < proc->nruns; k++)
        proc->runs[k].roundtrip_floor_before_p50_ns = 9000;
    r->results = fx->results;
    r->nresults = NSHAPES;
    r->harness_floor_p50_ns = 104.4;
    r->harness_cost_ns_per_command = 85.26;
    snprintf(fx->skipped[0].label, sizeof fx->skipped[0].label, "postgres");
    snprintf(fx->skipped[0].reason, sizeof fx->skipped[0].reason,
             "no PostgreSQL server is reachable (connection refused); start one, or point "
             "PGHOST, PGPORT and PGUSER at one");
    snprintf(fx->failed[0].label, sizeof fx->failed[0].label, "sqlite");
    snprintf(fx->failed[0].reason, sizeof fx->failed[0].reason, "%s", bad->reason);
    r->skipped = fx->skipped;
    r->nskipped = 1;
    r->failed = fx->failed;
    r->nfailed = 1;
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    for (size_t i = 0; i < NSHAPES; i++) {
        for (size_t j = 0; j < fx->results[i].nruns; j++) {
            hist_free(&fx->results[i].runs[j].all);
            free(fx->results[i].runs[j].verbs);
        }
        free(fx->results[i].runs);
    }
    free(fx);
    return 0;
}

static const report *the_report(void **state)
{
    return &((fixture *)*state)->r;
}

static cJSON *json_of(const report *r)
{
    char *text = render(report_json, r);
    cJSON *json = cJSON_Parse(text);
    if (!json)
        fail_msg("report_json printed text that does not parse:\n%s", text);
    free(text);
    return json;
}

/* ---- the schema ----------------------------------------------------------- */

/* Every property has a description; every object with properties is closed. */
static void check_schema_object(const cJSON *s, const char *where)
{
    if (!cJSON_IsObject(s))
        return;
    const cJSON *props = cJSON_GetObjectItemCaseSensitive(s, "properties");
    if (props) {
        const cJSON *ap = cJSON_GetObjectItemCaseSensitive(s, "additionalProperties");
        if (!cJSON_IsFalse(ap))
            fail_msg("%s: an object with properties must say additionalProperties: false", where);
        const cJSON *p;
        cJSON_ArrayForEach(p, props)
        {
            if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(p, "description")))
                fail_msg("%s.%s has no description", where, p->string);
        }
    }
    const cJSON *child;
    cJSON_ArrayForEach(child, s)
    {
        char next[512];
        snprintf(next, sizeof next, "%s/%s", where, child->string ? child->string : "[]");
        if (cJSON_IsObject(child))
            check_schema_object(child, next);
        else if (cJSON_IsArray(child)) {
            const cJSON *x;
            cJSON_ArrayForEach(x, child) check_schema_object(x, next);
        }
    }
}

static void test_report_schema_parses_and_describes_every_field(void **state)
{
    cJSON *schema = load_schema();
    assert_string_equal(cJSON_GetStringValue(item(schema, "$schema")),
                        "http://json-schema.org/draft-07/schema#");
    assert_int_equal((int)cJSON_GetNumberValue(
                         item(item(item(schema, "properties"), "schema_version"), "const")),
                     RESULT_SCHEMA_VERSION);
    check_schema_object(schema, "#");
    cJSON_Delete(schema);
}

/* ---- JSON ------------------------------------------------------------------ */

static void test_report_json_validates_against_schema(void **state)
{
    cJSON *json = json_of(the_report(state));
    assert_true(validates(json, true));
    cJSON_Delete(json);
}

static void test_report_json_with_collected_environment_validates(void **state)
{
    report r = *the_report(state);
    env_collect(&r.env);
    env_load_after(&r.env);
    r.interrupted = true;
    cJSON *json = json_of(&r);
    assert_true(validates(json, true));
    assert_true(cJSON_IsTrue(item(json, "interrupted")));
    cJSON_Delete(json);
}

static void test_report_schema_rejects_unknown_and_missing_fields(void **state)
{
    cJSON *json = json_of(the_report(state));
    cJSON *run = cJSON_GetArrayItem(item(cJSON_GetArrayItem(item(json, "results"), 0), "runs"), 0);
    cJSON_AddNumberToObject(run, "p50_ms", 1.0);
    assert_false(validates(json, false));
    cJSON_DeleteItemFromObjectCaseSensitive(run, "p50_ms");
    assert_true(validates(json, true));
    cJSON_DeleteItemFromObjectCaseSensitive(run, "drift");
    assert_false(validates(json, false));
    cJSON_Delete(json);
}

static void test_report_json_equals_report_to_cjson(void **state)
{
    cJSON *printed = json_of(the_report(state));
    cJSON *tree = report_to_cjson(the_report(state));
    assert_non_null(tree);
    assert_true(cJSON_Compare(printed, tree, true));
    /* the tree holds real numbers, not raw texts */
    cJSON *median = item(cJSON_GetArrayItem(item(tree, "results"), 0), "median");
    assert_true(cJSON_IsNumber(item(median, "p50_us")));
    assert_true(cJSON_IsNumber(item(median, "throughput_per_s")));
    cJSON_Delete(tree);
    cJSON_Delete(printed);
}

/* Every "..._us": value is null or digits, a point and exactly three digits. */
static void test_report_json_latencies_have_three_decimals(void **state)
{
    char *text = render(report_json, the_report(state));
    size_t seen = 0;
    for (const char *p = strstr(text, "_us\":"); p; p = strstr(p + 1, "_us\":")) {
        const char *v = p + 5;
        v += strspn(v, " \t");
        size_t len = strcspn(v, ",}]\n\r \t");
        char token[64];
        assert_true(len < sizeof token);
        memcpy(token, v, len);
        token[len] = '\0';
        seen++;
        if (strcmp(token, "null") == 0)
            continue;
        size_t digits = strspn(token, "0123456789");
        if (!(digits > 0 && token[digits] == '.' && strlen(token + digits + 1) == 3 &&
              strspn(token + digits + 1, "0123456789") == 3))
            fail_msg("latency printed as %s, not with three decimals", token);
    }
    assert_true(seen > 100);
    free(text);
}

static void test_report_json_figures(void **state)
{
    const report *r = the_report(state);
    cJSON *json = json_of(r);
    assert_int_equal((int)fig(json, "schema_version"), 1);
    assert_true(fabs(fig(json, "harness_floor_p50_us") - 0.104) < 1e-12);
    cJSON *results = item(json, "results");
    assert_int_equal(cJSON_GetArraySize(results), NSHAPES);
    for (int i = 0; i < NSHAPES; i++) {
        const target_result *t = &r->results[i];
        cJSON *res = cJSON_GetArrayItem(results, i);
        cJSON *median = item(res, "median");
        /* latencies: round(ns) / 1000; other doubles read back exactly */
        assert_true(fig(median, "p50_us") == round(t->median.p50_ns) / 1000.0);
        assert_true(fig(median, "mean_us") == round(t->median.mean_ns) / 1000.0);
        assert_true(fig(median, "throughput_per_s") == t->median.throughput_per_s);
        assert_true(fig(median, "wall_seconds") == t->median.wall_seconds);
        assert_true(fig(item(res, "throughput_range"), "min") == t->throughput_lo);
        if (isnan(t->median.drift))
            assert_true(cJSON_IsNull(item(median, "drift")));
        else
            assert_true(fig(median, "drift") == t->median.drift);
        if (t->durability)
            assert_string_equal(cJSON_GetStringValue(item(res, "durability")), t->durability);
        else
            assert_true(cJSON_IsNull(item(res, "durability")));
        cJSON *runs = item(res, "runs");
        assert_int_equal(cJSON_GetArraySize(runs), (int)t->nruns);
        for (size_t j = 0; j < t->nruns; j++) {
            const run_result *run = &t->runs[j];
            cJSON *jr = cJSON_GetArrayItem(runs, (int)j);
            assert_int_equal((int)fig(jr, "run"), run->run);
            assert_int_equal((uint64_t)fig(jr, "commands"), run->fig.commands);
            assert_int_equal(cJSON_GetArraySize(item(jr, "tenths")), STATS_TENTHS);
            /* the histogram: midpoints ascending, counts adding up */
            uint64_t total = 0;
            double last = 0;
            cJSON *pair;
            cJSON_ArrayForEach(pair, item(jr, "histogram"))
            {
                assert_int_equal(cJSON_GetArraySize(pair), 2);
                double value = cJSON_GetArrayItem(pair, 0)->valuedouble;
                assert_true(value > last);
                last = value;
                total += (uint64_t)cJSON_GetArrayItem(pair, 1)->valuedouble;
            }
            assert_int_equal(total, hist_count(&run->all));
            cJSON *verbs = item(jr, "by_verb");
            assert_int_equal(cJSON_GetArraySize(verbs), (int)run->nverbs);
            for (size_t v = 0; v < run->nverbs; v++) {
                cJSON *jv = item(verbs, run->verbs[v].verb);
                assert_int_equal((uint64_t)fig(jv, "count"), run->verbs[v].count);
                assert_true(fig(jv, "p99_us") == round(run->verbs[v].p99_ns) / 1000.0);
            }
        }
    }
    /* the few-sample run: empty tenths are null, drift is null */
    cJSON *few = cJSON_GetArrayItem(item(cJSON_GetArrayItem(results, 4), "runs"), 0);
    assert_true(cJSON_IsNull(item(few, "drift")));
    assert_false(cJSON_IsNull(item(cJSON_GetArrayItem(item(few, "tenths"), 0), "p50_us")));
    assert_true(cJSON_IsNull(item(cJSON_GetArrayItem(item(few, "tenths"), 9), "p99_us")));
    assert_true(cJSON_GetArraySize(item(few, "histogram")) <= 20);
    /* the round-trip floor: per run, and the median across runs */
    cJSON *proc = cJSON_GetArrayItem(results, 3);
    assert_true(fabs(fig(item(proc, "median"), "roundtrip_floor_p50_us") - 9.215) < 1e-12);
    assert_true(fig(item(proc, "median"), "round_trips_per_command") == 1.0);
    assert_true(cJSON_IsNull(
        item(item(cJSON_GetArrayItem(results, 0), "median"), "roundtrip_floor_p50_us")));
    /* verify, failure, skips */
    assert_string_equal(cJSON_GetStringValue(item(cJSON_GetArrayItem(results, 0), "verify")),
                        "pass");
    assert_string_equal(cJSON_GetStringValue(item(cJSON_GetArrayItem(results, 1), "verify")),
                        "n/a");
    cJSON *bad = cJSON_GetArrayItem(results, 5);
    assert_string_equal(cJSON_GetStringValue(item(bad, "verify")), "fail");
    assert_true(cJSON_IsTrue(item(bad, "failed")));
    assert_string_equal(cJSON_GetStringValue(item(bad, "reason")), r->results[5].reason);
    assert_true(cJSON_IsNull(item(cJSON_GetArrayItem(results, 0), "reason")));
    assert_true(cJSON_IsNull(item(cJSON_GetArrayItem(results, 0), "verify_detail")));
    assert_string_equal(
        cJSON_GetStringValue(item(cJSON_GetArrayItem(item(json, "skipped"), 0), "label")),
        "postgres");
    assert_int_equal(cJSON_GetArraySize(item(json, "failed")), 1);
    assert_true(cJSON_IsFalse(item(json, "interrupted")));
    cJSON *env = item(json, "environment");
    assert_string_equal(cJSON_GetStringValue(item(env, "cpu_affinity")), "0-1");
    assert_true(fig(env, "memory_bytes") == 8363700224.0);
    assert_true(cJSON_GetArrayItem(item(env, "load_average_before"), 0)->valuedouble == 0.52);
    cJSON_Delete(json);
}

/* ---- Markdown --------------------------------------------------------------- */

/* Splits "| a | b |" into cells; returns how many. */
static int split_row(char *line, char **cells, int max)
{
    size_t len = strlen(line);
    assert_true(len >= 4 && strncmp(line, "| ", 2) == 0 && strcmp(line + len - 2, " |") == 0);
    line[len - 2] = '\0';
    char *p = line + 2;
    int n = 0;
    for (;;) {
        char *sep = strstr(p, " | ");
        assert_true(n < max);
        cells[n++] = p;
        if (!sep)
            break;
        *sep = '\0';
        p = sep + 3;
    }
    return n;
}

static void expect_cell(const char *got, const char *want, int row, const char *column)
{
    if (strcmp(got, want) != 0)
        fail_msg("row %d, %s: the Markdown says \"%s\", the JSON rounds to \"%s\"", row, column,
                 got, want);
}

static void test_report_markdown_cells_equal_json_figures(void **state)
{
    const report *r = the_report(state);
    cJSON *json = json_of(r);
    char *md = render(report_markdown, r);
    const char *header =
        "| domain | target | commands/s | range across runs | p50 (us) | p99 (us) | drift |\n"
        "|---|---|---:|---:|---:|---:|---:|\n";
    char *table = strstr(md, header);
    assert_non_null(table);
    char *line = table + strlen(header);
    int row = 0;
    while (strncmp(line, "| ", 2) == 0) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        char *cells[16];
        assert_int_equal(split_row(line, cells, 16), 7);
        cJSON *res = cJSON_GetArrayItem(item(json, "results"), row);
        assert_non_null(res);
        cJSON *median = item(res, "median"), *range = item(res, "throughput_range");
        bool failed = cJSON_IsTrue(item(res, "failed"));
        bool unstable = !strcmp(cJSON_GetStringValue(item(res, "status")), "unstable");

        char want[256], lo[64], hi[64];
        expect_cell(cells[0], cJSON_GetStringValue(item(res, "domain")), row, "domain");
        int len = snprintf(want, sizeof want, "%s", cJSON_GetStringValue(item(res, "label")));
        if (fig(res, "prefill") > 0)
            len += snprintf(want + len, sizeof want - (size_t)len, "@%.0f", fig(res, "prefill"));
        if (cJSON_IsString(item(res, "durability")))
            len += snprintf(want + len, sizeof want - (size_t)len, " (%s)",
                            cJSON_GetStringValue(item(res, "durability")));
        if (unstable)
            snprintf(want + len, sizeof want - (size_t)len, " (unstable)");
        expect_cell(cells[1], want, row, "target");
        if (failed) { /* a failed row shows no figures: the runs that finished are not it */
            expect_cell(cells[2], "failed", row, "commands/s");
            snprintf(want, sizeof want, "in run %.0f", fig(res, "failed_run"));
            expect_cell(cells[3], want, row, "range across runs");
            for (int k = 4; k < 7; k++)
                expect_cell(cells[k], "n/a", row, "figures");
            row++;
            line = end + 1;
            continue;
        }
        report_fmt_throughput(fig(median, "throughput_per_s"), want, sizeof want);
        expect_cell(cells[2], want, row, "commands/s");
        report_fmt_throughput(fig(range, "min"), lo, sizeof lo);
        report_fmt_throughput(fig(range, "max"), hi, sizeof hi);
        snprintf(want, sizeof want, "%s to %s", lo, hi);
        expect_cell(cells[3], want, row, "range across runs");
        report_fmt_us(fig(median, "p50_us") * 1000, want, sizeof want);
        expect_cell(cells[4], want, row, "p50 (us)");
        report_fmt_us(fig(median, "p99_us") * 1000, want, sizeof want);
        expect_cell(cells[5], want, row, "p99 (us)");
        report_fmt_drift(fig(median, "drift"), want, sizeof want);
        expect_cell(cells[6], want, row, "drift");
        row++;
        line = end + 1;
    }
    assert_int_equal(row, NSHAPES);
    cJSON_Delete(json);
    free(md);
}

static void test_report_markdown_rounds_ties_as_documented(void **state)
{
    char *md = render(report_markdown, the_report(state));
    assert_non_null(strstr(md, "| pizzas | memory | 2,577 | "));
    assert_non_null(strstr(md, " | 1,000.0 | 1,477.0 | "));
    assert_non_null(strstr(md, "| pizzas | sqlite@1000 (normal) | "));
    /* the few-sample row has no drift */
    assert_non_null(strstr(md, "| banking | memory | "));
    char *few = strstr(md, "| banking | memory | ");
    size_t row_len = strcspn(few, "\n");
    assert_true(row_len > 7 && strncmp(few + row_len - 7, "| n/a |", 7) == 0);
    free(md);
}

static void test_report_markdown_layout(void **state)
{
    const report *r = the_report(state);
    char *md = render(report_markdown, r);
    static const char *const lines[] = {
        "- CPU: Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz\n- Cores: 2\n- Memory: 7.8 GiB\n"
        "- OS: Debian GNU/Linux 12 (bookworm)\n- Kernel: Linux 6.1.0-18-amd64 x86_64\n"
        "- Clock source: tsc\n- CPU affinity: 0-1\n- Compiler: gcc 12.2.0\n"
        "- Build: Release (optimised, assertions off, sanitizers off)\n"
        "- Libraries: libyaml 0.2.5, SQLite 3.40.1, libpq 15.10, PCRE2 10.42, cJSON 1.7.15\n"
        "- PostgreSQL: PostgreSQL 15.10, fsync on, synchronous_commit on, shared_buffers 128MB\n"
        "- bench: 0.1.0, commit 0123456789ab\n"
        "- Load average (1, 5, 15 min): 0.52, 0.40, 0.35 before → 0.80, 0.45, 0.36 after\n"
        "- Label: laptop, quiet\n- Date: 2026-09-26T10:00:00Z\n\n",
        "\nWarmup 200 cycles, 250 timed cycles per run, 3 runs per target, prefill 0 and 1,000 "
        "cycles; latencies are nearest-rank percentiles of every timed command, medians across "
        "runs. Placement: --cpu 0-1.\n\n| domain |",
        "\n\nVerify (pizzas): memory pass, null n/a, sqlite@1000 (normal) pass, process pass.\n"
        "Verify (banking): memory pass, sqlite (full) fail (Account: 1,199 aggregates, expected "
        "1,200).\n",
        "1,200).\nUnstable: process (pizzas): run 2: tenths' p50 spread 6.000 to 57.20 us (9.5x).\n"
        "Placement (pizzas): process: bench and its child on CPU 1 (the process target's default; "
        "--cpu overrides).\n\n",
        "\nHarness floor (null target, p50): 0.104 us; harness cost (null target, wall time per "
        "command): 85.3 ns.\n"
        "Round-trip floor (p50) for process (pizzas): 9.215 us.\n",
        "\n\nSkipped:\n- postgres: no PostgreSQL server is reachable (connection refused); start "
        "one, or point PGHOST, PGPORT and PGUSER at one\n",
        "\n\nFailed:\n- sqlite: run 2, cycle 17, step 4 (Account.Debit): refused: the balance "
        "does not cover it\n",
    };
    assert_true(strncmp(md, lines[0], strlen(lines[0])) == 0);
    for (size_t i = 1; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(md, lines[i]))
            fail_msg("the Markdown lacks:\n%s\nin:\n%s", lines[i], md);
    assert_null(strstr(md, "Interrupted"));
    free(md);

    report copy = *r;
    copy.interrupted = true;
    copy.nskipped = copy.nfailed = 0;
    copy.config.samples = true;
    copy.config.cpu = NULL;
    copy.config.nprefill = 1;
    copy.config.warmup = 1;
    copy.config.runs = 1;
    copy.env.postgres[0] = '\0';
    copy.env.label[0] = '\0';
    copy.harness_floor_p50_ns = NAN;
    md = render(report_markdown, &copy);
    assert_non_null(strstr(md, "\nWarmup 1 cycle, 250 timed cycles per run, 1 run per target, "
                               "prefill 0; latencies are nearest-rank percentiles of every timed "
                               "command, medians across runs. Raw samples were recorded "
                               "(--samples).\n"));
    assert_non_null(strstr(md, "\nHarness floor (null target, p50): n/a; harness cost (null "
                               "target, wall time per command): 85.3 ns.\n"));
    assert_non_null(strstr(md, "\n\nInterrupted: the runs that finished are reported.\n"));
    assert_null(strstr(md, "Skipped:"));
    assert_null(strstr(md, "Failed:"));
    assert_null(strstr(md, "- PostgreSQL:"));
    assert_null(strstr(md, "- Label:"));
    free(md);
}

/* ---- CSV -------------------------------------------------------------------- */

static void test_report_csv_header_and_rows(void **state)
{
    const report *r = the_report(state);
    cJSON *json = json_of(r);
    char *csv = render(report_csv, r);
    static const char header[] =
        "domain,target,label,prefill,durability,runs,commands_per_s,throughput_min,"
        "throughput_max,p50_us,p90_us,p99_us,p999_us,max_us,mean_us,drift,verify,verify_level,"
        "status,"
        "failed_run,status_reason,placement,harness_floor_p50_us,harness_cost_ns_per_command,"
        "goodput_per_s,flow_shares,clients,threads,fairness,stop_spread_s,retries,lock_waits,"
        "failed\n";
    assert_true(strncmp(csv, header, strlen(header)) == 0);
    char *line = csv + strlen(header);
    int row = 0;
    static const char *const us_fields[] = {"p50_us",  "p90_us", "p99_us",
                                            "p999_us", "max_us", "mean_us"};
    while (*line) {
        char *end = strchr(line, '\n');
        assert_non_null(end);
        *end = '\0';
        char *f[32];
        int n = 0;
        for (char *p = line; n < 18; p++) { /* no figure needs quotes; f[18] is the rest */
            f[n++] = p;
            p = strchr(p, ',');
            assert_non_null(p);
            *p = '\0';
        }
        f[18] = f[17] + strlen(f[17]) + 1;
        cJSON *res = cJSON_GetArrayItem(item(json, "results"), row);
        cJSON *median = item(res, "median");
        assert_string_equal(f[0], cJSON_GetStringValue(item(res, "domain")));
        assert_string_equal(f[1], cJSON_GetStringValue(item(res, "target")));
        assert_string_equal(f[2], cJSON_GetStringValue(item(res, "label")));
        assert_true(strtod(f[3], NULL) == fig(res, "prefill"));
        assert_string_equal(f[4], cJSON_IsNull(item(res, "durability"))
                                      ? ""
                                      : cJSON_GetStringValue(item(res, "durability")));
        assert_int_equal(atoi(f[5]), cJSON_GetArraySize(item(res, "runs")));
        assert_true(strtod(f[6], NULL) == fig(median, "throughput_per_s"));
        assert_true(strtod(f[7], NULL) == fig(item(res, "throughput_range"), "min"));
        assert_true(strtod(f[8], NULL) == fig(item(res, "throughput_range"), "max"));
        for (int k = 0; k < 6; k++) {
            const char *dot = strchr(f[9 + k], '.');
            assert_true(dot && strlen(dot + 1) == 3);
            assert_true(strtod(f[9 + k], NULL) == fig(median, us_fields[k]));
        }
        if (isnan(fig(median, "drift")))
            assert_string_equal(f[15], "");
        else
            assert_true(strtod(f[15], NULL) == fig(median, "drift"));
        assert_string_equal(f[16], cJSON_GetStringValue(item(res, "verify")));
        const cJSON *level = item(res, "verify_level");
        assert_string_equal(f[17], cJSON_IsString(level) ? cJSON_GetStringValue(level) : "");
        const char *status = cJSON_GetStringValue(item(res, "status"));
        assert_true(strncmp(f[18], status, strlen(status)) == 0 && f[18][strlen(status)] == ',');
        /* the harness floor and cost, then goodput and the flows' shares; one client */
        assert_non_null(strstr(f[18], ",0.104,85.26,"));
        assert_non_null(strstr(f[18], ",1,1,,"));
        row++;
        line = end + 1;
    }
    assert_int_equal(row, NSHAPES);
    free(csv);
    cJSON_Delete(json);
}

static void test_report_csv_quotes_and_markdown_escapes(void **state)
{
    const report *r = the_report(state);
    target_result odd = r->results[1];
    odd.label = "say \"hi\", then|go";
    odd.domain = "pizzas";
    report copy = *r;
    copy.results = &odd;
    copy.nresults = 1;
    char *csv = render(report_csv, &copy);
    assert_non_null(strstr(csv, "\npizzas,null,\"say \"\"hi\"\", then|go\",0,,3,"));
    free(csv);
    char *md = render(report_markdown, &copy);
    assert_non_null(strstr(md, "\n| pizzas | say \"hi\", then\\|go | "));
    free(md);
    cJSON *json = json_of(&copy);
    assert_true(validates(json, true));
    cJSON_Delete(json);
}

static void test_report_result_without_runs_has_no_figures(void **state)
{
    const report *r = the_report(state);
    target_result none = r->results[5]; /* failed in its first run: nothing finished */
    none.nruns = 0;
    memset(&none.median, 0, sizeof none.median); /* what a zeroed struct holds */
    none.throughput_lo = none.throughput_hi = 0;
    report copy = *r;
    copy.results = &none;
    copy.nresults = 1;
    cJSON *json = json_of(&copy);
    assert_true(validates(json, true));
    cJSON *res = cJSON_GetArrayItem(item(json, "results"), 0);
    assert_int_equal(cJSON_GetArraySize(item(res, "runs")), 0);
    assert_true(cJSON_IsNull(item(item(res, "median"), "p50_us")));
    assert_true(cJSON_IsNull(item(item(res, "median"), "throughput_per_s")));
    assert_true(cJSON_IsNull(item(item(res, "throughput_range"), "max")));
    assert_int_equal((int)fig(item(res, "median"), "commands"), 0);
    cJSON_Delete(json);
    char *md = render(report_markdown, &copy);
    assert_non_null(
        strstr(md, "\n| banking | sqlite (full) | failed | in run 2 | n/a | n/a | n/a |\n"));
    free(md);
    char *csv = render(report_csv, &copy);
    assert_non_null(strstr(csv, "\nbanking,sqlite,sqlite,0,full,0,,,,,,,,,,,fail,,failed,2,\"run "
                                "2, cycle 17, step 4 (Account.Debit): refused: the balance does "
                                "not cover it\",,0.104,85.26,,,1,1,,,0,0,0\n"));
    free(csv);
}

/* A result that failed in run 2 (run 1 finished) shows failed everywhere,
 * never beside a verify pass; an unstable one says so with the reason. */
static void test_report_failed_in_run_2_and_unstable_show_in_every_format(void **state)
{
    const report *r = the_report(state);
    cJSON *json = json_of(r);
    cJSON *results = item(json, "results");
    cJSON *bad = cJSON_GetArrayItem(results, 5);
    assert_int_equal(cJSON_GetArraySize(item(bad, "runs")), 1);
    assert_true(cJSON_IsTrue(item(bad, "failed")));
    assert_string_equal(cJSON_GetStringValue(item(bad, "status")), "failed");
    assert_true(fig(bad, "failed_run") == 2);
    assert_string_not_equal(cJSON_GetStringValue(item(bad, "verify")), "pass");
    cJSON *proc = cJSON_GetArrayItem(results, 3);
    assert_string_equal(cJSON_GetStringValue(item(proc, "status")), "unstable");
    assert_true(cJSON_IsTrue(item(proc, "unstable")));
    assert_string_equal(cJSON_GetStringValue(item(proc, "unstable_reason")),
                        "run 2: tenths' p50 spread 6.000 to 57.20 us (9.5x)");
    cJSON *runs = item(proc, "runs");
    assert_string_equal(cJSON_GetStringValue(item(cJSON_GetArrayItem(runs, 0), "status")), "ok");
    assert_true(cJSON_IsNull(item(cJSON_GetArrayItem(runs, 0), "unstable_reason")));
    assert_string_equal(cJSON_GetStringValue(item(cJSON_GetArrayItem(runs, 1), "status")),
                        "unstable");
    assert_true(fig(cJSON_GetArrayItem(runs, 1), "roundtrip_floor_before_p50_us") == 9.0);
    assert_string_equal(cJSON_GetStringValue(item(proc, "placement")),
                        "bench and its child on CPU 1 (the process target's default; --cpu "
                        "overrides)");
    assert_string_equal(cJSON_GetStringValue(item(cJSON_GetArrayItem(results, 0), "status")), "ok");
    assert_true(fig(json, "harness_cost_ns_per_command") == 85.26);
    cJSON_Delete(json);

    char *md = render(report_markdown, r);
    assert_non_null(
        strstr(md, "\n| banking | sqlite (full) | failed | in run 2 | n/a | n/a | n/a |\n"));
    assert_non_null(strstr(md, "\n| pizzas | process (unstable) | "));
    free(md);
    char *csv = render(report_csv, r);
    assert_non_null(strstr(csv, ",fail,,failed,2,\"run 2, cycle 17, step 4 (Account.Debit): "));
    assert_non_null(strstr(csv, ",pass,,unstable,,run 2: tenths' p50 spread 6.000 to 57.20 us "
                                "(9.5x),bench and its child on CPU 1 (the process target's "
                                "default; --cpu overrides),0.104,85.26,"));
    assert_non_null(strstr(csv, ",pass,,ok,,,,0.104,85.26,"));
    free(csv);
}

/* ---- rounding helpers --------------------------------------------------------- */

typedef struct fmt_case {
    double in;
    const char *want;
} fmt_case;

static void check_cases(void (*fmt)(double, char *, size_t), const fmt_case *c, size_t n,
                        const char *name)
{
    for (size_t i = 0; i < n; i++) {
        char buf[64];
        memset(buf, 'x', sizeof buf);
        fmt(c[i].in, buf, sizeof buf);
        if (strcmp(buf, c[i].want) != 0)
            fail_msg("%s(%.17g) = \"%s\", want \"%s\"", name, c[i].in, buf, c[i].want);
    }
}

static void test_report_fmt_throughput_rounds_halves_away(void **state)
{
    static const fmt_case cases[] = {
        {0, "0"},           {0.4, "0"},
        {0.5, "1"},         {-0.3, "0"},
        {999.49, "999"},    {999.5, "1,000"},
        {2576.5, "2,577"},  {53849.5, "53,850"},
        {1e6, "1,000,000"}, {1e9, "1,000,000,000"},
        {NAN, "n/a"},       {INFINITY, "n/a"},
    };
    check_cases(report_fmt_throughput, cases, sizeof cases / sizeof cases[0],
                "report_fmt_throughput");
}

static void test_report_fmt_us_keeps_three_significant_digits(void **state)
{
    static const fmt_case cases[] = {
        {0, "0.000"},
        {0.0004, "0.000"},
        {49.4, "0.049"},   /* 49 ns */
        {49.5, "0.050"},   /* 50 ns: a whole ns first, as the JSON's 0.050 */
        {449.6, "0.450"},  /* 450 ns */
        {9999.4, "9.999"}, /* below 10 us: to the ns */
        {9999.5, "10.00"}, /* 10000 ns: two decimals from 10 us */
        {12345, "12.35"},  /* 12345 ns: halves up to 10 ns */
        {99994, "99.99"},
        {99995, "100.0"}, /* from 100 us: one decimal */
        {302000, "302.0"},
        {1476949.6, "1,477.0"}, /* 1476950 ns */
        {999949.4, "999.9"},
        {999950, "1,000.0"},         /* 999.95 us: halves up */
        {1e9, "1,000,000.0"},        /* one second */
        {3600e9, "3,600,000,000.0"}, /* the histogram's ceiling, one hour */
        {NAN, "n/a"},
        {-INFINITY, "n/a"},
    };
    check_cases(report_fmt_us, cases, sizeof cases / sizeof cases[0], "report_fmt_us");
}

static void test_report_fmt_drift_two_decimals(void **state)
{
    static const fmt_case cases[] = {
        {0, "0.00"},
        {1, "1.00"},
        {1.1071, "1.11"},
        {0.944, "0.94"},
        {1.675, "1.68"}, /* 1.67500000000000004441 */
        {1.005, "1.00"}, /* 1.00499999999999989342: the exact binary value decides */
        {0.125, "0.12"}, /* an exact tie: to even, as printf */
        {1e9, "1,000,000,000.00"},
        {NAN, "n/a"},
    };
    check_cases(report_fmt_drift, cases, sizeof cases / sizeof cases[0], "report_fmt_drift");
}

static void test_report_fmt_json_texts(void **state)
{
    static const fmt_case us3[] = {
        {0, "0.000"},     {0.4, "0.000"},          {0.5, "0.001"},
        {999.5, "1.000"}, {1476950.4, "1476.950"}, {3600e9, "3600000000.000"},
        {NAN, ""},
    };
    check_cases(report_fmt_us3, us3, sizeof us3 / sizeof us3[0], "report_fmt_us3");
    static const fmt_case dbl[] = {
        {0, "0"},
        {0.1, "0.1"},
        {2576.5, "2576.5"},
        {1.0 / 3, "0.3333333333333333"},
        {0.1 + 0.2, "0.30000000000000004"},
        {1e21, "1e+21"},
        {NAN, ""},
        {INFINITY, ""},
    };
    check_cases(num_text_double, dbl, sizeof dbl / sizeof dbl[0], "num_text_double");
    char buf[5];
    report_fmt_throughput(1e9, buf, sizeof buf); /* truncated, terminated */
    assert_string_equal(buf, "1,00");
}

/* ---- atomic write ----------------------------------------------------------- */

static char *make_tmpdir(void)
{
    char *dir = strdup("/tmp/bench-report-XXXXXX");
    assert_non_null(dir);
    assert_non_null(mkdtemp(dir));
    return dir;
}

/* The names in dir other than . and .., as "a b " in directory order. */
static int count_entries(const char *dir, char *names, size_t n)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int count = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        count++;
        strncat(names, e->d_name, n - strlen(names) - 1);
        strncat(names, " ", n - strlen(names) - 1);
    }
    closedir(d);
    return count;
}

static void remove_tree(char *dir)
{
    char names[1024], path[512];
    count_entries(dir, names, sizeof names);
    for (char *name = strtok(names, " "); name; name = strtok(NULL, " ")) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        unlink(path);
    }
    rmdir(dir);
    free(dir);
}

static void test_report_write_atomic_replaces_the_file(void **state)
{
    const report *r = the_report(state);
    char *dir = make_tmpdir();
    char path[512], err[256] = "", names[1024];
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    assert_int_equal(report_write_atomic(path, report_json, r, err, sizeof err), 0);
    assert_string_equal(err, "");
    char *got = read_file(path), *want = render(report_json, r);
    assert_string_equal(got, want);
    free(got);
    free(want);
    assert_int_equal(count_entries(dir, names, sizeof names), 1);
    assert_string_equal(names, "out.json ");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    mode_t mask = umask(0);
    umask(mask);
    assert_int_equal(st.st_mode & 0777, 0666 & ~mask);

    /* a relative path writes in the working directory */
    char cwd[512];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    assert_int_equal(report_write_atomic("out.csv", report_csv, r, err, sizeof err), 0);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(count_entries(dir, names, sizeof names), 2);
    remove_tree(dir);
}

static int failing_writer(const report *r, FILE *out)
{
    fputs("{\"half\": ", out);
    return -1;
}

static void test_report_write_atomic_failure_keeps_the_old_file(void **state)
{
    char *dir = make_tmpdir();
    char path[512], err[256] = "", names[1024];
    snprintf(path, sizeof path, "%s/out.json", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("old", f);
    fclose(f);
    assert_int_equal(report_write_atomic(path, failing_writer, the_report(state), err, sizeof err),
                     -1);
    assert_non_null(strstr(err, "cannot write the report"));
    assert_int_equal(err[strlen(err) - 1], '.');
    char *got = read_file(path);
    assert_string_equal(got, "old");
    free(got);
    assert_int_equal(count_entries(dir, names, sizeof names), 1);
    remove_tree(dir);
}

static void expect_unwritable(const report *r, const char *path)
{
    char err[512] = "";
    struct stat st;
    assert_int_equal(report_write_atomic(path, report_json, r, err, sizeof err), -1);
    if (!(strlen(err) > 20 && err[strlen(err) - 1] == '.' && strstr(err, path)))
        fail_msg("no sentence naming %s: \"%s\"", path, err);
    assert_int_not_equal(stat(path, &st), 0);
}

static void test_report_write_atomic_unwritable_directory(void **state)
{
    const report *r = the_report(state);
    expect_unwritable(r, "/nonexistent-bench-dir/out.json");
    expect_unwritable(r, "/proc/bench-out.json"); /* unwritable even for root */
    if (geteuid() != 0) {                         /* root ignores directory modes */
        char *dir = make_tmpdir();
        char path[512], names[1024];
        snprintf(path, sizeof path, "%s/out.json", dir);
        assert_int_equal(chmod(dir, 0555), 0);
        expect_unwritable(r, path);
        assert_int_equal(chmod(dir, 0755), 0);
        assert_int_equal(count_entries(dir, names, sizeof names), 0);
        remove_tree(dir);
    }
    char err[64] = "";
    assert_int_equal(report_write_atomic("", report_json, r, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    assert_int_equal(report_write_atomic("/tmp/", report_json, r, NULL, 0), -1);
}

int main(void)
{
#define T(f) cmocka_unit_test(f)
    const struct CMUnitTest tests[] = {
        T(test_report_schema_parses_and_describes_every_field),
        T(test_report_json_validates_against_schema),
        T(test_report_json_with_collected_environment_validates),
        T(test_report_schema_rejects_unknown_and_missing_fields),
        T(test_report_json_equals_report_to_cjson),
        T(test_report_json_latencies_have_three_decimals),
        T(test_report_json_figures),
        T(test_report_markdown_cells_equal_json_figures),
        T(test_report_markdown_rounds_ties_as_documented),
        T(test_report_markdown_layout),
        T(test_report_csv_header_and_rows),
        T(test_report_csv_quotes_and_markdown_escapes),
        T(test_report_failed_in_run_2_and_unstable_show_in_every_format),
        T(test_report_result_without_runs_has_no_figures),
        T(test_report_fmt_throughput_rounds_halves_away),
        T(test_report_fmt_us_keeps_three_significant_digits),
        T(test_report_fmt_drift_two_decimals),
        T(test_report_fmt_json_texts),
        T(test_report_write_atomic_replaces_the_file),
        T(test_report_write_atomic_failure_keeps_the_old_file),
        T(test_report_write_atomic_unwritable_directory),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
