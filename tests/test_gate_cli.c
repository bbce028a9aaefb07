/* test_gate_cli.c: `bench compare`, `bench gate` and `bench report` as users
 * see them: a table of (arguments, exit status, what stdout and stderr must
 * contain, what stdout must not) against the real binary, with the crafted
 * result files of tests/fixtures/results/ and a scratch directory ("@" at the
 * start of an argument) made with mkdtemp. Then prefill sweeps end to end:
 * `bench run --prefill` and a spec's `prefill: [..]` give one row per size,
 * named @N in Markdown, in JSON and in metric names. And `bench gate --ab`
 * with the real binary as A and as B. Runs from the repository root. */
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
#include <sys/stat.h>

#include "bench_spawn.h"

#define F "tests/fixtures/results/"

static char scratch[64];

/* "@/x" becomes "<scratch>/x"; the caller frees. */
static char *expand(const char *s)
{
    size_t n = strlen(scratch) + strlen(s) + 1;
    char *r = malloc(n);
    assert_non_null(r);
    snprintf(r, n, "%s%s", s[0] == '@' ? scratch : "", s[0] == '@' ? s + 1 : s);
    return r;
}

/* Runs bench with args (NULL-terminated, "@" expanded). */
static spawn_output bench(const char *const *args)
{
    size_t n = 0;
    while (args[n])
        n++;
    char **argv = calloc(n + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = expand(spawn_bench_path());
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = expand(args[i]);
    spawn_output o = spawn_run(argv);
    for (size_t i = 0; i <= n; i++)
        free(argv[i]);
    free(argv);
    return o;
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

static void write_text(const char *name, const char *text)
{
    char *path = expand(name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    free(path);
}

/* ---- the table ---------------------------------------------------------------- */

#define MAXA 16
typedef struct row {
    const char *name;
    const char *args[MAXA];
    int status;
    const char *out_has[6];
    const char *err_has[4];
    const char *out_lacks[3];
} row;

static const row rows[] = {
    /* 30% worse over 5 and 5 disjoint runs (p = 0.0079) is a regression at 10% ... */
    {.name = "gate: one metric 30% worse over 5 runs fails at 10% and is named",
     .args = {"gate", "--threshold", "10", F "base5.json", F "worse30x5.json", NULL},
     .status = 1,
     .out_has = {"REGRESSION         pizzas.memory.throughput_per_s", "1,000,000 -> 700,000",
                 "-30.0%  worse beyond 10%; p=0.0079 with 5 and 5 runs",
                 "ok (within noise)  pizzas.memory.p50_us",
                 "gate: failed: 1 of 27 metrics: 1 regressed beyond 10%, 0 missing"},
     .out_lacks = {"FAIL"}},
    /* ... passes at 40, and says it is worse ... */
    {.name = "gate: the same pair passes at 40%",
     .args = {"gate", "--threshold", "40", F "base5.json", F "worse30x5.json", NULL},
     .status = 0,
     .out_has = {"ok (worse)         pizzas.memory.throughput_per_s", "within 40%; p=0.0079",
                 "gate: ok: 27 metrics, no regression beyond 40% (26 within noise, 1 worse "
                 "within it)"},
     .out_lacks = {"FAIL", "REGRESSION"}},
    {.name = "gate: 30% worse passes at 30.5 and a % sign is allowed",
     .args = {"gate", "--threshold", "30.5%", F "base5.json", F "worse30x5.json", NULL},
     .status = 0,
     .out_has = {"gate: ok"}},
    /* ... but with 3 and 3 runs no change can be called, and the line says why ... */
    {.name = "gate: 3 runs a side are within noise, never FAIL, with the reason",
     .args = {"gate", "--threshold", "10", F "base.json", F "worse30.json", NULL},
     .status = 0,
     .out_has = {"ok (within noise)  pizzas.memory.throughput_per_s",
                 "-30.0%  not significant: p=0.1 with 3 and 3 runs; p < 0.05 needs 4 and 4 runs "
                 "or more",
                 "gate: ok: 27 metrics, no regression beyond 10% (27 within noise"},
     .out_lacks = {"FAIL", "REGRESSION"}},
    /* ... the issue's -4.6% with overlapping ranges is within noise ... */
    {.name = "gate: -4.6% with overlapping ranges is ok (within noise)",
     .args = {"gate", "--threshold", "1", F "base5.json", F "noise5.json", NULL},
     .status = 0,
     .out_has = {"ok (within noise)  pizzas.memory.throughput_per_s", "-4.6%  ranges overlap"},
     .out_lacks = {"FAIL", "REGRESSION"}},
    /* ... a missing metric fails ... */
    {.name = "gate: metrics missing from the current file fail",
     .args = {"gate", F "base.json", F "missing.json", NULL},
     .status = 1,
     .out_has = {"missing            pizzas.sqlite.p50_us", "missing from the current file",
                 "note: " F "missing.json: sqlite was skipped: no SQLite here",
                 "gate: failed: 9 of 27 metrics: 0 regressed beyond 10%, 9 missing"}},
    {.name = "gate: a named metric missing from one file fails",
     .args = {"gate", "--metric", "pizzas.sqlite.p99_us", F "base.json", F "missing.json", NULL},
     .status = 1,
     .out_has = {"missing            pizzas.sqlite.p99_us", "gate: failed: 1 of 1 metrics"}},
    {.name = "gate: a named metric in neither file fails",
     .args = {"gate", "--metric", "pizzas.nope.p50_us", F "base.json", F "base.json", NULL},
     .status = 1,
     .out_has = {"missing            pizzas.nope.p50_us", "in neither file"}},
    {.name = "gate: a glob that matches nothing fails",
     .args = {"gate", "--metric", "*.nope", F "base.json", F "base.json", NULL},
     .status = 1,
     .out_has = {"matches no metric of the base file"}},
    /* ... and a truncated file gives exit 2 and a sentence */
    {.name = "gate: a truncated file is exit 2 with a sentence",
     .args = {"gate", F "base.json", F "truncated.json", NULL},
     .status = 2,
     .err_has = {"bench gate: " F "truncated.json is not valid JSON: it ends at line",
                 "(a truncated file?)"},
     .out_lacks = {"REGRESSION"}},
    {.name = "gate: --metric chooses what is gated",
     .args = {"gate", "--threshold", "10", "--metric", "pizzas.memory.p50_us", "--metric",
              "banking.memory@1000.throughput_per_s", F "base5.json", F "worse30x5.json", NULL},
     .status = 0,
     .out_has = {"pizzas.memory.p50_us", "banking.memory@1000.throughput_per_s",
                 "gate: ok: 2 metrics"},
     .out_lacks = {"pizzas.memory.throughput_per_s"}},
    {.name = "gate: a glob gates every matching metric of the base file",
     .args = {"gate", "--threshold", "10", "--metric", "*.throughput_per_s", "--metric", "*.p50_us",
              F "base5.json", F "worse30x5.json", NULL},
     .status = 1,
     .out_has = {"REGRESSION         pizzas.memory.throughput_per_s",
                 "gate: failed: 1 of 6 metrics"},
     .out_lacks = {"p99_us"}},
    {.name = "gate: NAME=PCT gives a metric its own threshold",
     .args = {"gate", "--threshold", "10", "--metric", "*.throughput_per_s=40", "--metric",
              "pizzas.memory.p50_us", F "base5.json", F "worse30x5.json", NULL},
     .status = 0,
     .out_has = {"ok (worse)         pizzas.memory.throughput_per_s", "-30.0%  within 40%",
                 "gate: ok: 4 metrics, no regression beyond their thresholds"}},
    {.name = "gate: NAME=PCT is tighter than --threshold",
     .args = {"gate", "--threshold", "50", "--metric", "pizzas.memory.throughput_per_s=20",
              F "base5.json", F "worse30x5.json", NULL},
     .status = 1,
     .out_has = {"worse beyond 20%",
                 "gate: failed: 1 of 1 metrics: 1 regressed beyond 20%, 0 missing"}},
    {.name = "gate: NAME=PCT needs a percentage",
     .args = {"gate", "--metric", "pizzas.memory.p50_us=fast", F "base.json", F "base.json", NULL},
     .status = 2,
     .err_has = {"--metric NAME=PCT needs a percentage of 0 or more after '=', not 'fast'"}},
    {.name = "gate: better never fails",
     .args = {"gate", "--threshold", "0", F "worse30x5.json", F "base5.json", NULL},
     .status = 0,
     .out_has = {"ok (better)        pizzas.memory.throughput_per_s", "+42.9%"}},
    {.name = "gate: a schema violation is exit 2 naming the path",
     .args = {"gate", F "base.json", "@/invalid.json", NULL},
     .status = 2,
     .err_has = {"invalid.json is not a valid bench result file: at results[0].median.p50_us: "}},
    {.name = "gate: an empty file is exit 2",
     .args = {"gate", "@/empty.json", F "base.json", NULL},
     .status = 2,
     .err_has = {"empty.json is empty: not a bench result file."}},
    {.name = "gate: a missing file is exit 2",
     .args = {"gate", F "base.json", "@/nope.json", NULL},
     .status = 2,
     .err_has = {"cannot read ", "nope.json: No such file or directory."}},
    {.name = "gate: a directory is exit 2",
     .args = {"gate", F "base.json", "@", NULL},
     .status = 2,
     .err_has = {"cannot read"}},
    {.name = "gate: a bad threshold is a usage error",
     .args = {"gate", "--threshold", "-5", F "base.json", F "base.json", NULL},
     .status = 2,
     .err_has = {"--threshold takes a percentage of 0 or more, not '-5'"}},
    {.name = "gate: one file is a usage error",
     .args = {"gate", F "base.json", NULL},
     .status = 2,
     .err_has = {"give two result files"}},
    {.name = "gate: the machines differ: a warning",
     .args = {"gate", F "base.json", F "othermachine.json", NULL},
     .status = 0,
     .out_has = {"warning: the machines differ", "warning: the spec specs/pizzas.yaml differs"}},
    {.name = "gate --help",
     .args = {"gate", "--help", NULL},
     .status = 0,
     .out_has = {"usage: bench gate", "--threshold PCT", "--ab", "--pairs N"}},
    {.name = "gate: --pairs without --ab is a usage error",
     .args = {"gate", "--pairs", "4", F "base.json", F "base.json", NULL},
     .status = 2,
     .err_has = {"--pairs and '--' RUN_ARGS go with --ab"}},
    {.name = "gate --ab needs two binaries and '--'",
     .args = {"gate", "--ab", "bench", NULL},
     .status = 2,
     .err_has = {"--ab takes two binaries and the run's arguments: BIN_A BIN_B -- RUN_ARGS..."}},
    {.name = "gate --ab: a bad --pairs",
     .args = {"gate", "--ab", "--pairs", "0", "a", "b", "--", "x", NULL},
     .status = 2,
     .err_has = {"--pairs takes a whole number from 1 to 1000, not '0'"}},
    {.name = "gate --ab: a binary that does not exist is exit 2",
     .args = {"gate", "--ab", "--pairs", "1", "@/no-such-bench", "@/no-such-bench", "--",
              "specs/pizzas.yaml", NULL},
     .status = 2,
     .err_has = {"cannot run A (", "no-such-bench): No such file or directory"}},

    {.name = "compare: a Markdown table with the verdicts",
     .args = {"compare", F "base.json", F "worse30.json", NULL},
     .status = 0,
     .out_has =
         {"| metric | base | current | change | p | verdict |",
          "| pizzas.memory.throughput_per_s | 1,000,000 | 700,000 | -30.0% | 0.1 | within noise "
          "(not significant: p=0.1 with 3 and 3 runs; p < 0.05 needs 4 and 4 runs or more) |",
          "| pizzas.memory.p50_us | 1.000 | 1.000 | +0.0% | 1 | within noise (ranges overlap) |",
          "| banking.memory@1000.p99_us | 5.000 | 5.000 | +0.0% | 1 | within noise (ranges "
          "overlap) |",
          "27 metrics: 0 better, 0 worse, 27 within noise, 0 only in base, 0 only in current.",
          "p is the exact two-sided Mann-Whitney U test over the runs"},
     .out_lacks = {"**Warning"}},
    {.name = "compare: 5 and 5 disjoint runs are called worse, with p",
     .args = {"compare", F "base5.json", F "worse30x5.json", NULL},
     .status = 0,
     .out_has =
         {"| pizzas.memory.throughput_per_s | 1,000,000 | 700,000 | -30.0% | 0.0079 | worse |",
          "27 metrics: 0 better, 1 worse, 26 within noise"}},
    {.name = "compare: the issue's -4.6% is within noise: the ranges overlap",
     .args = {"compare", F "base5.json", F "noise5.json", NULL},
     .status = 0,
     .out_has =
         {"| pizzas.memory.throughput_per_s | 1,000,000 | 954,000 | -4.6% | 0.056 | within noise "
          "(ranges overlap) |"}},
    {.name = "compare: metrics in one file only are listed as such",
     .args = {"compare", F "missing.json", F "base.json", NULL},
     .status = 0,
     .out_has =
         {"| pizzas.sqlite.throughput_per_s | missing | 50,000 | n/a | n/a | only in current |",
          "0 only in base, 9 only in current", "Notes:", "sqlite was skipped"}},
    {.name = "compare: a bold warning when the machines and specs differ",
     .args = {"compare", F "base.json", F "othermachine.json", NULL},
     .status = 0,
     .out_has =
         {"**Warning: the machines differ: cpu_model 'Example CPU @ 3.00GHz' in base, 'Other CPU "
          "@ 2.00GHz' in current; cores 2 in base, 8 in current;",
          "**Warning: the spec specs/pizzas.yaml differs between the files (SHA-256 aaaaaaaaaaaa "
          "in "
          "base, cccccccccccc in current)"}},
    {.name = "compare: JSON",
     .args = {"compare", "--format", "json", F "base5.json", F "worse30x5.json", NULL},
     .status = 0,
     .out_has = {"\"metric\":\t\"pizzas.memory.throughput_per_s\"", "\"verdict\":\t\"worse\"",
                 "\"better\":\t\"higher\"", "\"change_pct\":\t-30", "\"ranges_overlap\":\tfalse",
                 "\"test\":\t\"Mann-Whitney U (exact, two-sided)\""}},
    {.name = "compare: a truncated file is exit 2",
     .args = {"compare", F "truncated.json", F "base.json", NULL},
     .status = 2,
     .err_has = {"bench compare: " F "truncated.json is not valid JSON"}},
    {.name = "compare: an unknown format",
     .args = {"compare", "--format", "html", F "base.json", F "base.json", NULL},
     .status = 2,
     .err_has = {"unknown format 'html'; use markdown or json"}},

    {.name = "report: writes the page",
     .args = {"report", F "base.json", "--html", "@/page.html", NULL},
     .status = 0},
    {.name = "report: --html is required",
     .args = {"report", F "base.json", NULL},
     .status = 2,
     .err_has = {"give the page to write with --html FILE"}},
    {.name = "report: an invalid file is exit 2 and no page",
     .args = {"report", F "truncated.json", "--html", "@/bad.html", NULL},
     .status = 2,
     .err_has = {"is not valid JSON"}},
    {.name = "report: an unwritable page is exit 2",
     .args = {"report", F "base.json", "--html", "@/no/such/dir/page.html", NULL},
     .status = 2,
     .err_has = {"cannot write"}},
    {.name = "bench --help lists the commands",
     .args = {"--help", NULL},
     .status = 0,
     .out_has = {"  compare  ", "  gate     ", "  report   "}},
};

static int make_scratch(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/bench-test-gate-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    write_text("@/empty.json", "");
    /* base.json with a string where a latency belongs */
    char *text = read_text(F "base.json");
    char *at = strstr(text, "\"median\": {");
    assert_non_null(at);
    at = strstr(at, "\"p50_us\": ");
    assert_non_null(at);
    at += strlen("\"p50_us\": ");
    size_t len = strcspn(at, ",");
    char *bad = malloc(strlen(text) + 16);
    assert_non_null(bad);
    snprintf(bad, strlen(text) + 16, "%.*s\"fast\"%s", (int)(at - text), text, at + len);
    write_text("@/invalid.json", bad);
    free(bad);
    free(text);
    return 0;
}

static int remove_scratch(void **state)
{
    (void)state;
    spawn_remove_dir(scratch);
    return 0;
}

static void check_row(const row *r)
{
    spawn_output o = bench(r->args);
    bool ok = o.status == r->status;
    for (size_t i = 0; ok && i < 6 && r->out_has[i]; i++)
        ok = strstr(o.out, r->out_has[i]) != NULL;
    for (size_t i = 0; ok && i < 4 && r->err_has[i]; i++) {
        char *want = expand(r->err_has[i]);
        ok = strstr(o.err, want) != NULL;
        free(want);
    }
    for (size_t i = 0; ok && i < 3 && r->out_lacks[i]; i++)
        ok = strstr(o.out, r->out_lacks[i]) == NULL;
    if (!ok) {
        print_error("row '%s': exit %d (want %d)\n--- stdout ---\n%s\n--- stderr ---\n%s\n",
                    r->name, o.status, r->status, o.out, o.err);
        spawn_output_free(&o);
        fail_msg("row '%s' failed", r->name);
    }
    spawn_output_free(&o);
}

static void test_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        check_row(&rows[i]);
    /* the page was written, and nothing was left behind by the failures */
    struct stat st;
    char *page = expand("@/page.html");
    assert_int_equal(stat(page, &st), 0);
    assert_true(st.st_size > 1000);
    free(page);
    char *bad = expand("@/bad.html");
    assert_int_not_equal(stat(bad, &st), 0);
    free(bad);
}

/* ---- gate --ab: the real binary as A and as B --------------------------------- */

static size_t scratch_entries(const char *prefix)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls %s | grep -c '^%s' || true", scratch, prefix);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = 0;
    assert_int_equal(fscanf(p, "%zu", &n), 1);
    pclose(p);
    return n;
}

static void test_gate_ab_pairs_two_runs_of_the_real_binary(void **state)
{
    (void)state;
    const char *bin = spawn_bench_path();
    assert_int_equal(setenv("TMPDIR", scratch, 1), 0);
    const char *args[] = {"gate",      "--ab",     "--pairs",
                          "2",         "--metric", "pizzas.memory.throughput_per_s",
                          "--metric",  "*.p50_us", bin,
                          bin,         "--",       "specs/pizzas.yaml",
                          "--targets", "memory",   "--iterations",
                          "50",        "--runs",   "1",
                          NULL};
    spawn_output o = bench(args);
    bool ok = o.status == 0 && strstr(o.out, "gate --ab: 2 pairs, A B A B") &&
              strstr(o.out, "note: with 2 pairs no change can be called at p < 0.05") &&
              strstr(o.out, "pizzas.memory.throughput_per_s") &&
              strstr(o.out, "pizzas.memory.p50_us") && strstr(o.out, "B/A per pair: ") &&
              strstr(o.out, "(median ") && strstr(o.out, "gate: ok: 2 metrics") &&
              !strstr(o.out, "REGRESSION");
    /* two ratios on each B/A line */
    const char *line = strstr(o.out, "B/A per pair: ");
    double r1 = 0, r2 = 0;
    ok = ok && line && sscanf(line, "B/A per pair: %lf %lf", &r1, &r2) == 2 && r1 > 0 && r2 > 0;
    if (!ok)
        fail_msg("gate --ab: exit %d\n--- stdout ---\n%s\n--- stderr ---\n%s", o.status, o.out,
                 o.err);
    spawn_output_free(&o);
    /* the temporary files and their directory are gone */
    assert_int_equal(scratch_entries("bench-gate-ab-"), 0);

    /* a B that fails is exit 1, named, and leaves nothing behind */
    const char *failing[] = {
        "gate",      "--ab",   "--pairs",      "2",  bin, "/bin/false", "--", "specs/pizzas.yaml",
        "--targets", "memory", "--iterations", "50", NULL};
    o = bench(failing);
    ok = o.status == 1 && strstr(o.err, "pair 1: B (/bin/false run) exited with status 1");
    if (!ok)
        fail_msg("failing B: exit %d\n%s", o.status, o.err);
    spawn_output_free(&o);
    assert_int_equal(scratch_entries("bench-gate-ab-"), 0);

    /* RUN_ARGS that bench run refuses: exit 2 */
    const char *bad[] = {"gate", "--ab", "--pairs", "1", bin, bin, "--", "--no-such-flag", NULL};
    o = bench(bad);
    ok = o.status == 2 && strstr(o.err, "a usage error: check RUN_ARGS");
    if (!ok)
        fail_msg("bad RUN_ARGS: exit %d\n%s", o.status, o.err);
    spawn_output_free(&o);
    assert_int_equal(unsetenv("TMPDIR"), 0);
}

/* ---- prefill sweeps, end to end ------------------------------------------------- */

static const cJSON *get(const cJSON *o, const char *k)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
    if (!v)
        fail_msg("no \"%s\" in the JSON", k);
    return v;
}

/* The prefill of each result of a JSON report, in order. */
static size_t prefills_of(const char *path, int64_t *out, size_t max)
{
    char *text = read_text(path);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    size_t n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, get(root, "results"))
    {
        assert_true(n < max);
        assert_string_equal(cJSON_GetStringValue(get(r, "label")), "memory");
        out[n++] = (int64_t)get(r, "prefill")->valuedouble;
    }
    cJSON_Delete(root);
    return n;
}

static void test_prefill_flag_gives_one_row_per_size(void **state)
{
    (void)state;
    const char *json_args[] = {
        "run",     "specs/pizzas.yaml", "--targets", "memory",   "--prefill",
        "0,200",   "--iterations",      "50",        "--runs",   "1",
        "--quiet", "--format",          "json",      "--output", "@/sweep.json",
        NULL};
    spawn_output o = bench(json_args);
    if (o.status != 0)
        fail_msg("bench run failed (%d): %s", o.status, o.err);
    spawn_output_free(&o);
    char *path = expand("@/sweep.json");
    int64_t p[8];
    assert_int_equal(prefills_of(path, p, 8), 2);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 200);
    free(path);

    /* the metric names carry @N for N > 0 */
    const char *cmp[] = {"compare", "@/sweep.json", "@/sweep.json", NULL};
    o = bench(cmp);
    assert_int_equal(o.status, 0);
    assert_non_null(strstr(o.out, "| pizzas.memory.p50_us |"));
    assert_non_null(strstr(o.out, "| pizzas.memory@200.p50_us |"));
    assert_non_null(strstr(o.out, "| pizzas.memory@200.throughput_per_s |"));
    assert_null(strstr(o.out, "@0."));
    spawn_output_free(&o);

    /* Markdown: one row per size, labelled @N */
    const char *md_args[] = {"run",          "specs/pizzas.yaml",
                             "--targets",    "memory",
                             "--prefill",    "0,200",
                             "--iterations", "50",
                             "--runs",       "1",
                             "--quiet",      NULL};
    o = bench(md_args);
    assert_int_equal(o.status, 0);
    /* a row may carry "(unstable)" after its label on a busy machine */
    assert_non_null(strstr(o.out, "| pizzas | memory |") || strstr(o.out, "| pizzas | memory ("));
    assert_non_null(strstr(o.out, "| pizzas | memory@200 "));
    assert_non_null(strstr(o.out, "prefill 0 and 200 cycles"));
    spawn_output_free(&o);
}

/* --rate R1,R2: a sweep of rates end to end: one row per rate in the JSON,
 * each offered as asked, and compare and gate read its metric names. */
static void test_rate_flag_gives_one_row_per_rate(void **state)
{
    (void)state;
    const char *json_args[] = {
        "run",       "specs/pizzas.yaml", "--targets", "memory",   "--rate",
        "2000,4000", "--iterations",      "60",        "--runs",   "1",
        "--quiet",   "--format",          "json",      "--output", "@/rates.json",
        NULL};
    spawn_output o = bench(json_args);
    if (o.status != 0)
        fail_msg("bench run failed (%d): %s", o.status, o.err);
    spawn_output_free(&o);
    char *path = expand("@/rates.json");
    char *text = read_text(path);
    free(path);
    cJSON *root = cJSON_Parse(text);
    free(text);
    assert_non_null(root);
    const char *labels[] = {"memory r=2000", "memory r=4000"};
    const double rates[] = {2000, 4000};
    size_t n = 0;
    const cJSON *r;
    cJSON_ArrayForEach(r, get(root, "results"))
    {
        assert_true(n < 2);
        assert_string_equal(cJSON_GetStringValue(get(r, "label")), labels[n]);
        assert_true(get(get(r, "sweep"), "rate")->valuedouble == rates[n]);
        const cJSON *run = cJSON_GetArrayItem(get(r, "runs"), 0);
        assert_true(get(get(run, "open_loop"), "offered_rate")->valuedouble == rates[n]);
        n++;
    }
    assert_int_equal(n, 2);
    cJSON_Delete(root);

    const char *cmp[] = {"compare", "@/rates.json", "@/rates.json", NULL};
    o = bench(cmp);
    assert_int_equal(o.status, 0);
    assert_non_null(strstr(o.out, "| pizzas.memory r=2000.p99_us |"));
    assert_non_null(strstr(o.out, "| pizzas.memory r=4000.throughput_per_s |"));
    spawn_output_free(&o);
    const char *gate[] = {"gate", "--threshold", "10", "@/rates.json", "@/rates.json", NULL};
    o = bench(gate);
    if (o.status != 0)
        fail_msg("bench gate failed (%d): %s%s", o.status, o.out, o.err);
    assert_non_null(strstr(o.out, "memory r=4000"));
    spawn_output_free(&o);
    /* the page read back from the file draws the capacity curve, points marked r=R */
    const char *page[] = {"report", "@/rates.json", "--html", "@/rates.html", NULL};
    o = bench(page);
    assert_int_equal(o.status, 0);
    spawn_output_free(&o);
    path = expand("@/rates.html");
    char *html = read_text(path);
    free(path);
    assert_non_null(strstr(html, "<svg id=\"chart-capacity\""));
    assert_non_null(strstr(html, ">r=2k</text>"));
    assert_non_null(strstr(html, ">r=4k</text>"));
    free(html);
}

static void test_spec_prefill_list_gives_one_row_per_size(void **state)
{
    (void)state;
    char *spec = read_text("specs/pizzas.yaml");
    const char *key = "\n  warmup:";
    char *at = strstr(spec, key);
    assert_non_null(at);
    size_t len = strlen(spec) + 64;
    char *swept = malloc(len);
    assert_non_null(swept);
    snprintf(swept, len, "%.*s\n  prefill: [0, 100, 300]%s", (int)(at - spec), spec, at);
    write_text("@/swept.yaml", swept);
    free(swept);
    free(spec);
    const char *args[] = {
        "run", "@/swept.yaml", "--targets", "memory", "--iterations", "50",           "--runs",
        "1",   "--quiet",      "--format",  "json",   "--output",     "@/swept.json", NULL};
    spawn_output o = bench(args);
    if (o.status != 0)
        fail_msg("bench run failed (%d): %s", o.status, o.err);
    spawn_output_free(&o);
    char *path = expand("@/swept.json");
    int64_t p[8];
    assert_int_equal(prefills_of(path, p, 8), 3);
    assert_int_equal(p[0], 0);
    assert_int_equal(p[1], 100);
    assert_int_equal(p[2], 300);
    free(path);
    const char *gate[] = {"gate",         "--metric", "pizzas.memory@300.p50_us",
                          "--threshold",  "1000",     "@/swept.json",
                          "@/swept.json", NULL};
    o = bench(gate);
    assert_int_equal(o.status, 0);
    assert_non_null(strstr(o.out, "pizzas.memory@300.p50_us"));
    spawn_output_free(&o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_gate_ab_pairs_two_runs_of_the_real_binary),
        cmocka_unit_test(test_prefill_flag_gives_one_row_per_size),
        cmocka_unit_test(test_rate_flag_gives_one_row_per_rate),
        cmocka_unit_test(test_spec_prefill_list_gives_one_row_per_size),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
