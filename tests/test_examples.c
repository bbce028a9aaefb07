/* test_examples.c: every spec under examples/ (and its subdirectories) runs
 * briefly through `bench run` on every target that runs the C runtime or
 * speaks the protocol: memory, sqlite, postgres (when the scratch server of
 * `make test` is there) and process (`bench serve`, and every other process
 * entry the spec lists, such as the Python runtime). Each run must pass verify at
 * `--verify state` (every record read back equals the shadow's), and the
 * timed command streams (verb and cycle of every timed command, from
 * --samples) must be the same on every target: the same spec and seed give
 * the same stream, and verify gives the same final state. The rows each
 * run's scans answered (rows_returned per scan verb) must be the same on
 * every target too, so a store that scans wrongly fails here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <dirent.h>

#include "bench_spawn.h"

enum { MAX_SPECS = 64, MAX_LABELS = 8 };

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    size_t got = fread(s, 1, (size_t)n, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .yaml files in examples/ and in its subdirectories, sorted. */
static size_t list_specs(char **out)
{
    size_t n = 0;
    const char *dirs[MAX_SPECS] = {"examples"};
    char subdirs[MAX_SPECS][512];
    size_t ndirs = 1;
    for (size_t d = 0; d < ndirs; d++) {
        DIR *dir = opendir(dirs[d]);
        assert_non_null(dir);
        struct dirent *e;
        while ((e = readdir(dir)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[512];
            snprintf(path, sizeof path, "%s/%s", dirs[d], e->d_name);
            size_t len = strlen(e->d_name);
            if (len > 5 && !strcmp(e->d_name + len - 5, ".yaml") && n < MAX_SPECS)
                out[n++] = strdup(path);
            else if (d == 0 && e->d_type == DT_DIR && ndirs < MAX_SPECS) {
                snprintf(subdirs[ndirs], sizeof subdirs[ndirs], "%s", path);
                dirs[ndirs] = subdirs[ndirs];
                ndirs++;
            }
        }
        closedir(dir);
    }
    qsort(out, n, sizeof *out, by_name);
    return n;
}

/* The timed stream of one label in the samples CSV: "verb cycle\n" per
 * command, in order, malloc'd. */
static char *stream_of(const char *csv, const char *label)
{
    char *out = NULL;
    size_t len = 0;
    const char *line = csv;
    while (line && *line) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        char row[512];
        snprintf(row, sizeof row, "%.*s", (int)(n < sizeof row ? n : sizeof row - 1), line);
        char *field[6] = {0};
        char *save = NULL;
        char *tok = strtok_r(row, ",", &save);
        for (int i = 0; tok && i < 6; i++, tok = strtok_r(NULL, ",", &save))
            field[i] = tok;
        if (field[5] && !strcmp(field[1], label)) {
            char item[256];
            int w = snprintf(item, sizeof item, "%s %s\n", field[3], field[4]);
            spawn_append(&out, &len, item, (size_t)w);
        }
        line = end ? end + 1 : NULL;
    }
    return out ? out : strdup("");
}

/* What the scans of one result answered: "run verb rows\n" for each scan
 * verb (rows_returned) of each run, malloc'd; "" without scans. */
static char *rows_of(const cJSON *result)
{
    char *out = NULL;
    size_t len = 0;
    const cJSON *run, *verb;
    cJSON_ArrayForEach(run, cJSON_GetObjectItem(result, "runs"))
    {
        cJSON_ArrayForEach(verb, cJSON_GetObjectItem(run, "by_verb"))
        {
            const cJSON *rows = cJSON_GetObjectItem(verb, "rows_returned");
            if (!rows)
                continue;
            char item[256];
            int w = snprintf(item, sizeof item, "%d %s %.0f\n",
                             (int)cJSON_GetNumberValue(cJSON_GetObjectItem(run, "run")),
                             verb->string, cJSON_GetNumberValue(rows));
            spawn_append(&out, &len, item, (size_t)w);
        }
    }
    return out ? out : strdup("");
}

static void run_example(const char *spec, const char *dir)
{
    char targets[128], json[512], samples[512];
    /* a driver's name runs every entry of it the spec lists (pizzeria's python too) */
    snprintf(targets, sizeof targets, "memory,sqlite,postgres,process");
    snprintf(json, sizeof json, "%s/r.json", dir);
    snprintf(samples, sizeof samples, "%s/s.csv", dir);
    char *argv[] = {(char *)spawn_bench_path(),
                    "run",
                    (char *)spec,
                    "--targets",
                    targets,
                    "--iterations",
                    "60",
                    "--warmup",
                    "20",
                    "--runs",
                    "1",
                    "--verify",
                    "state",
                    "--quiet",
                    "--format",
                    "json",
                    "--output",
                    json,
                    "--samples",
                    samples,
                    NULL};
    spawn_output o = spawn_run(argv);
    if (o.status != 0 || strstr(o.err, "Sanitizer"))
        fail_msg("%s: exit %d\n%s", spec, o.status, o.err);
    char *text = slurp(json), *csv = slurp(samples);
    assert_non_null(text);
    assert_non_null(csv);
    cJSON *root = cJSON_Parse(text);
    assert_non_null(root);
    const cJSON *results = cJSON_GetObjectItem(root, "results"), *r;
    const char *labels[MAX_LABELS];
    size_t nlabels = 0;
    char *rows = NULL; /* the first result's scans: every target's must answer as many */
    cJSON_ArrayForEach(r, results)
    {
        const char *label = cJSON_GetStringValue(cJSON_GetObjectItem(r, "label"));
        const char *verify = cJSON_GetStringValue(cJSON_GetObjectItem(r, "verify"));
        const char *status = cJSON_GetStringValue(cJSON_GetObjectItem(r, "status"));
        if (!verify || strcmp(verify, "pass") || !status || !strcmp(status, "failed"))
            fail_msg("%s on %s: verify %s, status %s: %s", spec, label, verify, status,
                     cJSON_GetStringValue(cJSON_GetObjectItem(r, "status_reason")));
        if (nlabels < MAX_LABELS)
            labels[nlabels++] = label;
        char *these = rows_of(r);
        if (rows && strcmp(rows, these) != 0)
            fail_msg("%s: the scans on %s answered\n%sbut on %s\n%s", spec, label, these, labels[0],
                     rows);
        if (rows)
            free(these);
        else
            rows = these;
    }
    /* each driver ran (postgres is skipped only without the scratch server) */
    static const char *const drivers[] = {"memory", "sqlite", "process", "postgres"};
    for (size_t d = 0; d < 4; d++) {
        bool ran = d == 3 && !getenv("BENCH_PG_SCRATCH");
        cJSON_ArrayForEach(r, results)
        {
            ran =
                ran || !strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(r, "target")), drivers[d]);
        }
        if (!ran)
            fail_msg("%s: the %s target did not run\n%s", spec, drivers[d], o.err);
    }
    char *first = stream_of(csv, labels[0]);
    assert_true(strlen(first) > 0);
    for (size_t i = 1; i < nlabels; i++) {
        char *other = stream_of(csv, labels[i]);
        if (strcmp(first, other) != 0)
            fail_msg("%s: the command stream on %s differs from %s's", spec, labels[i], labels[0]);
        free(other);
    }
    size_t commands = 0;
    for (const char *c = first; *c; c++)
        commands += *c == '\n';
    print_message("%s: %zu targets, the same %zu-command stream, verify state passes%s%.*s\n", spec,
                  nlabels, commands, *rows ? "; scans answer the same rows: " : "",
                  (int)strcspn(rows, "\n"), rows);
    free(rows);
    free(first);
    cJSON_Delete(root);
    free(text);
    free(csv);
    spawn_output_free(&o);
}

static char scratch[] = "/tmp/bench-examples-XXXXXX";

static int make_scratch(void **state)
{
    (void)state;
    return mkdtemp(scratch) ? 0 : -1;
}

static int drop_scratch(void **state)
{
    (void)state;
    spawn_remove_dir(scratch);
    return 0;
}

static void test_every_example_runs_the_same_stream_on_every_target(void **state)
{
    (void)state;
    char *specs[MAX_SPECS];
    size_t n = list_specs(specs);
    for (size_t i = 0; i < n; i++)
        run_example(specs[i], scratch);
    for (size_t i = 0; i < n; i++)
        free(specs[i]);
    assert_true(n >= 15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_example_runs_the_same_stream_on_every_target),
    };
    return cmocka_run_group_tests(tests, make_scratch, drop_scratch);
}
