/* test_scale.c: past one machine (DESIGN section 12), run as users run it:
 * shards of one run as separate bench processes at once (--shard i/N), on
 * the memory store each and on one named schema of the scratch PostgreSQL
 * (bench setup, --no-setup), merged with bench merge; every merged figure
 * is checked against the union of the shards' --samples (nearest rank,
 * within the histogram's 1/2048), verify --results against the shared
 * schema, and bench merge's refusals as a table of (files, exit status,
 * sentence). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_spawn.h"
#include "target.h"

enum { SHARDS = 4 };

static char scratch[64];
static char spec_path[128]; /* pizzas.yaml without its fenced postgres target */
static bool have_pg;
static char schema[64];

static char *path_in(const char *name)
{
    char *p = malloc(strlen(scratch) + strlen(name) + 2);
    assert_non_null(p);
    sprintf(p, "%s/%s", scratch, name);
    return p;
}

/* Runs bench with args ("@x" is the scratch file x) and returns its output. */
static spawn_output bench(const char *const *args)
{
    size_t n = 0;
    while (args[n])
        n++;
    char **argv = calloc(n + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = strdup(spawn_bench_path());
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = args[i][0] == '@' ? path_in(args[i] + 1) : strdup(args[i]);
    spawn_output o = spawn_run(argv);
    for (size_t i = 0; i <= n; i++)
        free(argv[i]);
    free(argv);
    return o;
}

#define BENCH(...) bench((const char *const[]){__VA_ARGS__, NULL})

static void expect(spawn_output o, int status)
{
    if (o.status != status)
        fail_msg("bench exited %d, not %d: %s%s", o.status, status, o.out, o.err);
    spawn_output_free(&o);
}

/* The shards of one run as separate processes started together; each
 * writes @PREFIXi.json and @PREFIXi.csv. extra: more bench run arguments. */
static void run_shards(const char *prefix, const char *driver, const char *const *extra)
{
    pid_t pids[SHARDS];
    for (int i = 0; i < SHARDS; i++) {
        char shard[16], out[128], samples[128], log[128];
        snprintf(shard, sizeof shard, "%d/%d", i, SHARDS);
        snprintf(out, sizeof out, "%s/%s%d.json", scratch, prefix, i);
        snprintf(samples, sizeof samples, "%s/%s%d.csv", scratch, prefix, i);
        snprintf(log, sizeof log, "%s/%s%d.log", scratch, prefix, i);
        const char *argv[40] = {spawn_bench_path(),
                                "run",
                                spec_path,
                                "--targets",
                                driver,
                                "--iterations",
                                "200",
                                "--warmup",
                                "20",
                                "--prefill",
                                "40",
                                "--shard",
                                shard,
                                "--format",
                                "json",
                                "--output",
                                out,
                                "--samples",
                                samples,
                                "--quiet"};
        size_t n = 20;
        for (size_t k = 0; extra && extra[k]; k++)
            argv[n++] = extra[k];
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_addopen(&fa, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        assert_int_equal(posix_spawn(&pids[i], argv[0], &fa, NULL, (char *const *)argv, environ),
                         0);
        posix_spawn_file_actions_destroy(&fa);
    }
    for (int i = 0; i < SHARDS; i++) {
        int st;
        assert_int_equal(waitpid(pids[i], &st, 0), pids[i]);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            char log[128], text[2048] = "";
            snprintf(log, sizeof log, "%s/%s%d.%s", scratch, prefix, i,
                     WIFEXITED(st) && WEXITSTATUS(st) == 1 ? "json" : "log");
            FILE *f = fopen(log, "r");
            if (f) {
                text[fread(text, 1, sizeof text - 1, f)] = '\0';
                fclose(f);
            }
            fail_msg("shard %d exited %d: %s", i, WIFEXITED(st) ? WEXITSTATUS(st) : -1, text);
        }
    }
}

/* ---- the union of the samples -------------------------------------------- */

typedef struct sample {
    int shard, run;
    char verb[64];
    uint64_t cycle, ns;
} sample;

typedef struct samples {
    sample *v;
    size_t n;
} samples;

static void read_samples(const char *prefix, samples *s)
{
    for (int i = 0; i < SHARDS; i++) {
        char name[64];
        snprintf(name, sizeof name, "%s%d.csv", prefix, i);
        char *path = path_in(name);
        FILE *f = fopen(path, "r");
        free(path);
        assert_non_null(f);
        char line[512];
        assert_non_null(fgets(line, sizeof line, f)); /* the header */
        while (fgets(line, sizeof line, f)) {
            s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
            assert_non_null(s->v);
            sample *x = &s->v[s->n++];
            x->shard = i;
            char domain[64], label[64];
            assert_int_equal(sscanf(line, "%63[^,],%63[^,],%d,%63[^,],%" SCNu64 ",%" SCNu64, domain,
                                    label, &x->run, x->verb, &x->cycle, &x->ns),
                             6);
        }
        fclose(f);
    }
}

static int by_ns(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The latencies of run `run` (and of verb, unless NULL), sorted. */
static uint64_t *latencies(const samples *s, int run, const char *verb, size_t *n)
{
    uint64_t *v = calloc(s->n + 1, sizeof *v);
    assert_non_null(v);
    *n = 0;
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].run == run && (!verb || !strcmp(verb, s->v[i].verb)))
            v[(*n)++] = s->v[i].ns;
    qsort(v, *n, sizeof *v, by_ns);
    return v;
}

/* The nearest-rank q-quantile of v[0..n), sorted. */
static double nearest_rank(const uint64_t *v, size_t n, double q)
{
    size_t rank = (size_t)ceil(q * (double)n - 1e-9);
    rank = rank < 1 ? 1 : rank;
    return (double)v[rank - 1];
}

static double field_ns(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsNumber(v));
    return v->valuedouble * 1000.0;
}

/* Within the histogram's precision: 1/2048 of the value, and the 1 ns the
 * JSON's three decimals of µs round to. */
static void assert_close(const char *what, double got, double want)
{
    if (fabs(got - want) > want / 2048.0 + 1.0)
        fail_msg("%s: the merge says %.0f ns, the samples' union %.0f ns", what, got, want);
}

static cJSON *load_json(const char *name)
{
    char *path = path_in(name);
    FILE *f = fopen(path, "r");
    free(path);
    assert_non_null(f);
    static char text[1 << 22];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    return root;
}

/* Every figure of the merged @merged against the union of @prefix*.csv. */
static void check_merge_against_samples(const char *prefix, const char *merged)
{
    samples s = {0};
    read_samples(prefix, &s);
    cJSON *root = load_json(merged);
    const cJSON *result = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "results"), 0);
    const cJSON *run;
    int runs = 0;
    cJSON_ArrayForEach(run, cJSON_GetObjectItem(result, "runs"))
    {
        int r = (int)cJSON_GetObjectItem(run, "run")->valuedouble;
        size_t n;
        uint64_t *v = latencies(&s, r, NULL, &n);
        assert_true(n > 0);
        assert_int_equal((size_t)cJSON_GetObjectItem(run, "commands")->valuedouble, n);
        /* every shard's cycle numbers are its own */
        for (size_t i = 0; i < s.n; i++)
            for (size_t k = i + 1; k < s.n; k++)
                if (s.v[i].run == r && s.v[k].run == r && s.v[i].cycle == s.v[k].cycle &&
                    s.v[i].shard != s.v[k].shard)
                    fail_msg("shards %d and %d both ran cycle %" PRIu64, s.v[i].shard, s.v[k].shard,
                             s.v[i].cycle);
        assert_close("min", field_ns(run, "min_us"), (double)v[0]);
        assert_close("max", field_ns(run, "max_us"), (double)v[n - 1]);
        static const struct {
            const char *key;
            double q;
        } qs[] = {{"p50_us", 0.5},
                  {"p90_us", 0.9},
                  {"p95_us", 0.95},
                  {"p99_us", 0.99},
                  {"p999_us", 0.999}};
        for (size_t i = 0; i < sizeof qs / sizeof *qs; i++)
            assert_close(qs[i].key, field_ns(run, qs[i].key), nearest_rank(v, n, qs[i].q));
        double sum = 0;
        for (size_t i = 0; i < n; i++)
            sum += (double)v[i];
        assert_close("mean", field_ns(run, "mean_us"), sum / (double)n);
        free(v);
        const cJSON *verb;
        cJSON_ArrayForEach(verb, cJSON_GetObjectItem(run, "by_verb"))
        {
            uint64_t *vv = latencies(&s, r, verb->string, &n);
            assert_int_equal((size_t)cJSON_GetObjectItem(verb, "count")->valuedouble, n);
            assert_close(verb->string, field_ns(verb, "p50_us"), nearest_rank(vv, n, 0.5));
            assert_close(verb->string, field_ns(verb, "p99_us"), nearest_rank(vv, n, 0.99));
            free(vv);
        }
        runs++;
    }
    assert_true(runs > 0);
    const cJSON *shard = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "config"), "shard");
    assert_int_equal((int)cJSON_GetObjectItem(shard, "count")->valuedouble, SHARDS);
    assert_true(cJSON_IsNumber(cJSON_GetObjectItem(shard, "start_skew_s")));
    cJSON_Delete(root);
    free(s.v);
}

/* ---- the tests ----------------------------------------------------------- */

static void test_merge_of_memory_shards_equals_the_union_of_their_samples(void **state)
{
    (void)state;
    run_shards("m", "memory", (const char *const[]){"--runs", "2", NULL});
    expect(BENCH("merge", "@m0.json", "@m1.json", "@m2.json", "@m3.json", "--output", "@m.json"),
           0);
    check_merge_against_samples("m", "m.json");
    /* the merge is a result that compare, gate and report read */
    expect(BENCH("compare", "@m0.json", "@m.json"), 0);
    expect(BENCH("report", "@m.json", "--format", "markdown"), 0);
    expect(BENCH("gate", "@m.json", "@m.json"), 0);
}

typedef struct merge_case {
    const char *name;
    const char *args[8];
    int status;
    const char *err; /* what stderr holds; "@" is the scratch directory */
} merge_case;

static void run_cases(const merge_case *cases, size_t n, const char *cmd);

static const merge_case merge_cases[] = {
    {"three of four shards",
     {"@m0.json", "@m1.json", "@m2.json"},
     2,
     "bench merge: shard 3/4 missing: 3 of 4 shards given\n"},
    {"two of four shards",
     {"@m1.json", "@m2.json"},
     2,
     "bench merge: shards 0/4, 3/4 missing: 2 of 4 shards given\n"},
    {"a shard twice",
     {"@m0.json", "@m1.json", "@m2.json", "@m2.json", "@m3.json"},
     2,
     "bench merge: shard 2/4 is given twice: @/m2.json and @/m2.json\n"},
    {"shards of two specs",
     {"@m0.json", "@m1.json", "@m2.json", "@b3.json"},
     2,
     "bench merge: @/m0.json and @/b3.json ran different specs: @/pizzas.yaml has SHA-256 "},
    {"shards of two seeds",
     {"@m0.json", "@m1.json", "@m2.json", "@s3.json"},
     2,
     "bench merge: @/m0.json and @/s3.json ran with different seeds (--seed)\n"},
    {"shards of two layouts",
     {"@m0.json", "@m1.json", "@m2.json", "@i3.json"},
     2,
     "bench merge: @/m0.json and @/i3.json have different layouts: their iterations differ\n"},
    {"not a shard",
     {"@one.json"},
     2,
     "bench merge: @/one.json is not a shard's result: it was not run with bench run --shard\n"},
    {"a merge is not a shard",
     {"@m.json", "@m1.json"},
     2,
     "bench merge: @/m.json is a merge of 4 shards, not a shard: merge the shards\n"},
    {"no files", {NULL}, 2, "bench merge: give the shards' result files to merge\n"},
};

static void test_merge_refusals_name_the_problem(void **state)
{
    (void)state;
    /* a shard of another spec, another seed, other settings, and a plain run */
    const char *spec_b = "specs/banking.yaml";
    expect(BENCH("run", spec_b, "--targets", "memory", "--iterations", "20", "--shard", "3/4",
                 "--format", "json", "--output", "@b3.json", "--quiet"),
           0);
    expect(BENCH("run", spec_path, "--targets", "memory", "--iterations", "200", "--warmup", "20",
                 "--prefill", "40", "--runs", "2", "--seed", "7", "--shard", "3/4", "--format",
                 "json", "--output", "@s3.json", "--quiet"),
           0);
    expect(BENCH("run", spec_path, "--targets", "memory", "--iterations", "100", "--warmup", "20",
                 "--prefill", "40", "--runs", "2", "--shard", "3/4", "--format", "json", "--output",
                 "@i3.json", "--quiet"),
           0);
    expect(BENCH("run", spec_path, "--targets", "memory", "--iterations", "20", "--format", "json",
                 "--output", "@one.json", "--quiet"),
           0);
    run_cases(merge_cases, sizeof merge_cases / sizeof *merge_cases, "merge");
}

/* bench run's, setup's and verify's own refusals: exit 2 and a sentence. */
static const merge_case flag_cases[] = {
    {"shard past the last",
     {"run", "specs/pizzas.yaml", "--shard", "4/4"},
     2,
     "bench run: --shard needs I/N, shard I (from 0) of N shards, 0 <= I < N <= 10000, not "
     "'4/4'\n"},
    {"shard without a count",
     {"run", "specs/pizzas.yaml", "--shard", "1"},
     2,
     "bench run: --shard needs I/N, shard I (from 0) of N shards, 0 <= I < N <= 10000, not "
     "'1'\n"},
    {"start-at not a time",
     {"run", "specs/pizzas.yaml", "--start-at", "yesterday"},
     2,
     "bench run: --start-at needs seconds since the epoch or a UTC time such as "
     "2026-12-01T18:00:00Z, not 'yesterday'\n"},
    {"no-setup without a store",
     {"run", "specs/pizzas.yaml", "--no-setup"},
     2,
     "bench run: --no-setup needs the store bench setup made: give --schema NAME or --store-file "
     "PATH\n"},
    {"no-setup with runs",
     {"run", "specs/pizzas.yaml", "--schema", "x", "--no-setup", "--runs", "3"},
     2,
     "bench run: --no-setup takes one run: a shared store is not a fresh boot, so --runs 3 would "
     "run on what run 1 left\n"},
    {"schema not a name",
     {"run", "specs/pizzas.yaml", "--schema", "Bad-Name"},
     2,
     "bench run: --schema: a schema name is lowercase letters, digits and _, starting with a "
     "letter or _, at most 63 characters, not 'Bad-Name'\n"},
    {"setup without a store",
     {"setup", "specs/pizzas.yaml"},
     2,
     "bench setup: give the store: --schema NAME (postgres) or --store-file PATH (sqlite)\n"},
    {"setup of a file that exists",
     {"setup", "specs/pizzas.yaml", "--store-file", "@m0.json"},
     1,
     "bench setup: sqlite: @/m0.json exists already (bench teardown removes it)\n"},
    {"teardown of no file",
     {"teardown", "specs/pizzas.yaml", "--store-file", "@none.db"},
     1,
     "bench teardown: sqlite: there is no @/none.db\n"},
    {"verify without results",
     {"verify", "specs/pizzas.yaml"},
     2,
     "bench verify: give --results, the merged result of the shards\n"},
    {"verify of a merge without a named store",
     {"verify", "specs/pizzas.yaml", "--results", "@m.json"},
     2,
     "bench verify: @/m.json did not run on a named store (bench run --schema or --store-file): "
     "each run verified its own\n"},
};

static void run_cases(const merge_case *cases, size_t n, const char *cmd)
{
    for (size_t i = 0; i < n; i++) {
        const merge_case *c = &cases[i];
        const char *args[12] = {cmd};
        size_t k = cmd ? 1 : 0;
        for (size_t j = 0; c->args[j]; j++)
            args[k++] = c->args[j];
        spawn_output o = bench(args);
        char want[1024] = "";
        for (const char *p = c->err; *p; p++) /* "@" is the scratch directory */
            snprintf(want + strlen(want), sizeof want - strlen(want), *p == '@' ? "%s" : "%.1s",
                     *p == '@' ? scratch : p);
        if (o.status != c->status || strncmp(o.err, want, strlen(want)) != 0)
            fail_msg("%s: exit %d, stderr: %s (wanted %d and %s)", c->name, o.status, o.err,
                     c->status, want);
        spawn_output_free(&o);
    }
}

static void test_flag_refusals_name_the_problem(void **state)
{
    (void)state;
    run_cases(flag_cases, sizeof flag_cases / sizeof *flag_cases, NULL);
}

static void test_shards_on_one_postgres_schema_merge_and_verify(void **state)
{
    (void)state;
    if (!have_pg) {
        printf("test_scale: the postgres part is skipped: no PostgreSQL server is reachable\n");
        return;
    }
    snprintf(schema, sizeof schema, "bench_scale_%ld", (long)getpid());
    expect(BENCH("setup", spec_path, "--targets", "postgres", "--schema", schema), 0);
    /* a second setup of the same schema is refused */
    spawn_output o = BENCH("setup", spec_path, "--targets", "postgres", "--schema", schema);
    assert_int_equal(o.status, 1);
    assert_non_null(strstr(o.err, "exists already in the database bench"));
    spawn_output_free(&o);
    run_shards("p", "postgres", (const char *const[]){"--schema", schema, "--no-setup", NULL});
    expect(BENCH("merge", "@p0.json", "@p1.json", "@p2.json", "@p3.json", "--output", "@p.json"),
           0);
    check_merge_against_samples("p", "p.json");
    o = BENCH("verify", spec_path, "--results", "@p.json");
    if (o.status != 0 || !strstr(o.out, "postgres: pass: "))
        fail_msg("verify: exit %d: %s%s", o.status, o.out, o.err);
    spawn_output_free(&o);
    /* a schema set up afresh does not hold what the shards left */
    expect(BENCH("teardown", spec_path, "--targets", "postgres", "--schema", schema), 0);
    expect(BENCH("setup", spec_path, "--targets", "postgres", "--schema", schema), 0);
    o = BENCH("verify", spec_path, "--results", "@p.json");
    if (o.status != 1 || !strstr(o.out, "postgres: fail: "))
        fail_msg("verify of a fresh schema: exit %d: %s%s", o.status, o.out, o.err);
    spawn_output_free(&o);
    expect(BENCH("teardown", spec_path, "--targets", "postgres", "--schema", schema), 0);
    o = BENCH("verify", spec_path, "--results", "@p.json");
    assert_int_equal(o.status, 1);
    assert_non_null(strstr(o.err, "make it with bench setup"));
    spawn_output_free(&o);
    schema[0] = '\0';
}

static int make_scratch(void **state)
{
    (void)state;
    snprintf(scratch, sizeof scratch, "/tmp/bench-scale-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    /* a named schema takes no fence: the copy leaves postgres-rls out */
    snprintf(spec_path, sizeof spec_path, "%s/pizzas.yaml", scratch);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "grep -v 'label: postgres-rls' specs/pizzas.yaml > '%s'", spec_path);
    return system(cmd) == 0 ? 0 : -1;
}

static int remove_scratch(void **state)
{
    (void)state;
    if (schema[0]) { /* a failed test's schema */
        spawn_output o = BENCH("teardown", spec_path, "--targets", "postgres", "--schema", schema);
        spawn_output_free(&o);
    }
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
    static const target_spec pg = {.name = "postgres", .label = "postgres"};
    char why[1024];
    const target_driver *drv = target_find("postgres");
    have_pg = drv && target_available(drv, &pg, why, sizeof why) == 0;
    if (!have_pg && getenv("BENCH_PG_SCRATCH")) {
        fprintf(stderr, "test_scale: make test started a server, but %s\n", why);
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_of_memory_shards_equals_the_union_of_their_samples),
        cmocka_unit_test(test_merge_refusals_name_the_problem),
        cmocka_unit_test(test_flag_refusals_name_the_problem),
        cmocka_unit_test(test_shards_on_one_postgres_schema_merge_and_verify),
    };
    return cmocka_run_group_tests(tests, make_scratch, remove_scratch);
}
