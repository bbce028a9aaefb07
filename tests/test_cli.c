/* test_cli.c: the command line as users see it, a table of (arguments,
 * exit status, what stdout and stderr must contain) run against the real
 * bench binary through bench_spawn.h. "@" at the start of an argument or an
 * expected text stands for a scratch directory made for the run, which holds
 * a bad spec, a spec with only warnings and whatever a row writes; it is also
 * $TMPDIR, where bench run puts a fallback file; "%" stands for the source
 * directory (the test's working directory). The table has a row for
 * every exit status of every command (cli_table.c's table of exit statuses). */
#define _XOPEN_SOURCE 700 /* posix_openpt, the live line's terminal */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_spawn.h"
#include "diag.h"

static char scratch[64];  /* the "@" directory */
static char srcdir[4096]; /* the "%" directory */

/* ---- running the binary ---- */

/* "@/x" becomes "<scratch>/x", "%/x" "<srcdir>/x"; the caller frees. */
static char *expand(const char *s)
{
    size_t n = strlen(scratch) + strlen(srcdir) + strlen(s) + 1;
    char *r = malloc(n);
    assert_non_null(r);
    if (s[0] == '@')
        snprintf(r, n, "%s%s", scratch, s + 1);
    else if (s[0] == '%')
        snprintf(r, n, "%s%s", srcdir, s + 1);
    else
        snprintf(r, n, "%s", s);
    return r;
}

/* Runs bench with args (NULL-terminated, "@" expanded) as opt says. */
static spawn_output run_bench(const char *const *args, const spawn_options *opt)
{
    size_t n = 0;
    while (args[n])
        n++;
    char **argv = calloc(n + 2, sizeof *argv);
    assert_non_null(argv);
    argv[0] = strdup(spawn_bench_path());
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = expand(args[i]);
    spawn_output o = spawn_run_with(argv, opt);
    for (size_t i = 0; i < n + 1; i++)
        free(argv[i]);
    free(argv);
    return o;
}

/* ---- the scratch directory ---- */

static const char bad_spec[] = "spec: 1\n"
                               "domain: kiosk\n"
                               "aggregates:\n"
                               "  Ticket:\n"
                               "    identity: id\n"
                               "    fields: {id: string}\n"
                               "    commands:\n"
                               "      Print: {creates: true, params: {id: string}}\n"
                               "workload:\n"
                               "  cycle:\n"
                               "    - Ticket.Prnt: {id: \"t-${n}\"}\n";

/* Legal, but with no warmup: a warning only. */
static const char warn_spec[] = "spec: 1\n"
                                "domain: kiosk\n"
                                "aggregates:\n"
                                "  Ticket:\n"
                                "    identity: id\n"
                                "    fields: {id: string}\n"
                                "    commands:\n"
                                "      Print: {creates: true, params: {id: string}}\n"
                                "workload:\n"
                                "  cycle:\n"
                                "    - Ticket.Print: {id: \"t-${n}\"}\n"
                                "  warmup: 0\n"
                                "  targets: [memory, null]\n";

/* A query step whose expected answer holds for cycles 0 to 6 only. */
static const char query_spec[] = "spec: 1\n"
                                 "domain: counter\n"
                                 "aggregates:\n"
                                 "  Counter:\n"
                                 "    identity: id\n"
                                 "    fields: {id: int}\n"
                                 "    commands:\n"
                                 "      Make: {creates: true, params: {id: int}}\n"
                                 "    queries:\n"
                                 "      Small: {params: {id: int}, returns: {small: id < 7}}\n"
                                 "workload:\n"
                                 "  cycle:\n"
                                 "    - Counter.Make: {id: \"${n}\"}\n"
                                 "    - Counter.Small: {id: \"${n}\"}\n"
                                 "      expect: {returns: {small: true}}\n"
                                 "  targets: [memory, sqlite]\n";

/* A scan from 7 finds nothing until cycle 7 makes the record 7. */
static const char scan_spec[] =
    "spec: 1\n"
    "domain: counter\n"
    "aggregates:\n"
    "  Counter:\n"
    "    identity: id\n"
    "    fields: {id: int}\n"
    "    commands:\n"
    "      Make: {creates: true, params: {id: int}}\n"
    "    queries:\n"
    "      From: {params: {id: int, count: int}, scan: {limit: count},\n"
    "             returns: {id: id}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Counter.Make: {id: \"${n}\"}\n"
    "    - Counter.From: {id: 7, count: 3}\n"
    "      expect: {rows: 0}\n"
    "  targets: [memory, sqlite]\n";

/* Two entries of each of two targets: memory's first labelled with the
 * target's name, null's both labelled otherwise (--targets's rule). */
static const char labels_spec[] = "spec: 1\n"
                                  "domain: kiosk\n"
                                  "aggregates:\n"
                                  "  Ticket:\n"
                                  "    identity: id\n"
                                  "    fields: {id: string}\n"
                                  "    commands:\n"
                                  "      Print: {creates: true, params: {id: string}}\n"
                                  "workload:\n"
                                  "  cycle:\n"
                                  "    - Ticket.Print: {id: \"t-${n}\"}\n"
                                  "  warmup: 0\n"
                                  "  iterations: 5\n"
                                  "  runs: 1\n"
                                  "  targets:\n"
                                  "    - memory\n"
                                  "    - memory: {label: lean, reserve: false}\n"
                                  "    - null: {label: first}\n"
                                  "    - null: {label: second}\n";

static void write_scratch(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static int make_scratch(void **state)
{
    snprintf(scratch, sizeof scratch, "/tmp/bench-test-cli-XXXXXX");
    if (!mkdtemp(scratch))
        return -1;
    write_scratch("bad.yaml", bad_spec);
    write_scratch("warn.yaml", warn_spec);
    write_scratch("query.yaml", query_spec);
    write_scratch("scan.yaml", scan_spec);
    write_scratch("labels.yaml", labels_spec);
    setenv("TMPDIR", scratch, 1); /* where a fallback file goes */
    return 0;
}

static int remove_scratch(void **state)
{
    spawn_remove_dir(scratch);
    return 0;
}

/* ---- checks beyond a substring ---- */

static cJSON *parse_json(const char *text)
{
    cJSON *root = cJSON_Parse(text);
    if (!root)
        fail_msg("not JSON: %.300s", text);
    return root;
}

/* The labels of a run's JSON report's rows, in order, comma-separated. */
static void assert_ran(const spawn_output *o, const char *labels)
{
    cJSON *root = parse_json(o->out);
    const cJSON *r;
    char got[256] = "";
    cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(root, "results"))
    {
        size_t n = strlen(got);
        snprintf(got + n, sizeof got - n, "%s%s", n ? "," : "",
                 cJSON_GetObjectItemCaseSensitive(r, "label")->valuestring);
    }
    assert_string_equal(got, labels);
    cJSON_Delete(root);
}

static void ran_memory_alone(const spawn_output *o)
{
    assert_ran(o, "memory");
}

static void ran_both_memories(const spawn_output *o)
{
    assert_ran(o, "memory,lean");
}

static void ran_both_nulls(const spawn_output *o)
{
    assert_ran(o, "first,second");
}

static void lint_json_has_one_error(const spawn_output *o)
{
    cJSON *root = parse_json(o->out);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(root, "errors")->valueint, 1);
    const cJSON *diags = cJSON_GetObjectItemCaseSensitive(root, "diagnostics");
    assert_int_equal(cJSON_GetArraySize(diags), 1);
    const cJSON *g = cJSON_GetArrayItem(diags, 0);
    char *path = expand("@/bad.yaml");
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(g, "file")->valuestring, path);
    free(path);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(g, "line")->valueint, 11);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(g, "col")->valueint, 7);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(g, "severity")->valuestring, "error");
    cJSON_Delete(root);
}

/* The first diagnostic of a lint JSON output has the path want. */
static void assert_first_path(const spawn_output *o, const char *want)
{
    cJSON *root = parse_json(o->out);
    const cJSON *g = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "diagnostics"), 0);
    assert_non_null(g);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(g, "path")->valuestring, want);
    cJSON_Delete(root);
}

/* The one error of bad.yaml carries the path to the step's verb. */
static void lint_json_carries_the_path(const spawn_output *o)
{
    assert_first_path(o, "workload.cycle[0].Ticket.Prnt");
}

/* A schema error deep in a corpus spec carries its path too. */
static void lint_json_carries_a_schema_path(const spawn_output *o)
{
    assert_first_path(o, "aggregates.Appointment.commands.Book.emit");
}

static void lint_json_is_clean(const spawn_output *o)
{
    cJSON *root = parse_json(o->out);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(root, "errors")->valueint, 0);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "diagnostics")), 0);
    cJSON_Delete(root);
}

static void plan_json_has_totals(const spawn_output *o)
{
    cJSON *root = parse_json(o->out);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(root, "domain")->valuestring, "pizzas");
    const cJSON *totals = cJSON_GetObjectItemCaseSensitive(root, "totals");
    assert_int_equal(cJSON_GetArraySize(totals), 1);
    const cJSON *t = cJSON_GetArrayItem(totals, 0);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(t, "commands_per_cycle")->valueint, 4);
    cJSON_Delete(root);
}

static void targets_lists_memory_and_null(const spawn_output *o)
{
    assert_true(strncmp(o->out, "memory ", 7) == 0);
    assert_non_null(strstr(o->out, "\nnull "));
}

static void check_run_json(const char *text)
{
    cJSON *root = parse_json(text);
    const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
    assert_int_equal(cJSON_GetArraySize(results), 2);
    const char *labels[2] = {0};
    for (int i = 0; i < 2; i++) {
        const cJSON *r = cJSON_GetArrayItem(results, i);
        labels[i] = cJSON_GetObjectItemCaseSensitive(r, "label")->valuestring;
        assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(r, "runs")), 2);
    }
    assert_true((!strcmp(labels[0], "memory") && !strcmp(labels[1], "null")) ||
                (!strcmp(labels[0], "null") && !strcmp(labels[1], "memory")));
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(root, "failed")), 0);
    cJSON_Delete(root);
}

/* 20 pinned runs of one quiet command, as the report shows them: every run
 * has a status, a flagged run says why, and the row is unstable exactly
 * when a run is. Whether none is flagged is a timing goal: under the
 * sanitizer build and a shared machine's load a 2,000-cycle run's tenths
 * and modes move, so tests/perf/pinned_stable.py checks it on the release
 * build (make bench). */
static void pinned_runs_say_their_status(const spawn_output *o)
{
    cJSON *root = parse_json(o->out);
    const cJSON *env = cJSON_GetObjectItemCaseSensitive(root, "environment");
    double load =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(env, "load_average_before"), 0)
            ->valuedouble;
    int cores = (int)cJSON_GetObjectItemCaseSensitive(env, "cores")->valuedouble;
    const cJSON *r = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "results"), 0);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(r, "runs"), *run;
    assert_int_equal(cJSON_GetArraySize(runs), 20);
    int flagged = 0;
    cJSON_ArrayForEach(run, runs)
    {
        const char *status = cJSON_GetObjectItemCaseSensitive(run, "status")->valuestring;
        if (!strcmp(status, "ok"))
            continue;
        const char *why = cJSON_GetObjectItemCaseSensitive(run, "unstable_reason")->valuestring;
        assert_string_equal(status, "unstable");
        assert_true(why && *why);
        flagged++;
    }
    if (flagged)
        print_message("%d of 20 pinned runs flagged under load %.2f on %d cores\n", flagged, load,
                      cores);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(r, "status")->valuestring,
                        flagged ? "unstable" : "ok");
    cJSON_Delete(root);
}

static void run_json_has_two_results(const spawn_output *o)
{
    check_run_json(o->out);
}

static void run_csv_has_a_header_and_two_rows(const spawn_output *o)
{
    assert_true(strncmp(o->out, "domain,target,label,", 20) == 0);
    size_t lines = 0;
    for (const char *p = o->out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 3);
}

static void run_output_file_holds_the_report(const spawn_output *o)
{
    assert_int_equal(o->out_len, 0); /* the report went to the file */
    char path[128];
    snprintf(path, sizeof path, "%s/report.json", scratch);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = '\0';
    check_run_json(text);
    free(text);
}

/* ---- output files: symlinks, FIFOs, devices, stdout, the fallback ---- */

static char *read_whole(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot read %s", path);
    char *text = calloc(1, 1 << 20);
    assert_non_null(text);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    fclose(f);
    text[n] = '\0';
    return text;
}

static char *scratch_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", scratch, name);
    return path;
}

static void check_run_json_file(const char *name)
{
    char *text = read_whole(scratch_path(name));
    check_run_json(text);
    free(text);
}

/* A symlink to an old file: the link stays, its target gets the report. */
static void make_link(void)
{
    write_scratch("target.json", "old\n");
    unlink(scratch_path("link.json"));
    assert_int_equal(symlink("target.json", scratch_path("link.json")), 0);
}

static void link_kept_target_written(const spawn_output *o)
{
    struct stat st;
    assert_int_equal(lstat(scratch_path("link.json"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    check_run_json_file("target.json");
}

/* A FIFO with a reader: a child process that copies what it reads to
 * fifo.out. */
static pid_t fifo_reader;

static void make_fifo(void)
{
    unlink(scratch_path("fifo"));
    assert_int_equal(mkfifo(scratch_path("fifo"), 0600), 0);
    char out[256];
    snprintf(out, sizeof out, "%s", scratch_path("fifo.out"));
    fifo_reader = fork();
    assert_true(fifo_reader >= 0);
    if (fifo_reader == 0) {
        FILE *in = fopen(scratch_path("fifo"), "r"), *copy = fopen(out, "w");
        char buf[4096];
        size_t n;
        while (in && copy && (n = fread(buf, 1, sizeof buf, in)) > 0)
            fwrite(buf, 1, n, copy);
        _exit(in && copy && fclose(copy) == 0 ? 0 : 1);
    }
}

static void fifo_kept_reader_got_the_report(const spawn_output *o)
{
    int ws;
    assert_int_equal(waitpid(fifo_reader, &ws, 0), fifo_reader);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    struct stat st;
    assert_int_equal(lstat(scratch_path("fifo"), &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    check_run_json_file("fifo.out");
}

static bool is_char_device(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

static void dev_null_still_a_device(const spawn_output *o)
{
    assert_true(is_char_device("/dev/null"));
}

/* The report to /dev/full: the failure is reported, the results are in the
 * fallback file the message names, and /dev/full is still a device. */
static void fallback_holds_the_report(const spawn_output *o)
{
    assert_true(is_char_device("/dev/full"));
    const char *at = strstr(o->err, "The results are saved in ");
    assert_non_null(at);
    at += strlen("The results are saved in ");
    const char *end = strstr(at, " instead.");
    assert_non_null(end);
    char path[512];
    snprintf(path, sizeof path, "%.*s", (int)(end - at), at);
    char *text = read_whole(path);
    check_run_json(text);
    free(text);
    assert_int_equal(unlink(path), 0);
}

static void dev_full_still_a_device(const spawn_output *o)
{
    assert_true(is_char_device("/dev/full"));
}

/* --output - is stdout, and no file named '-' appears. */
static void no_file_named_dash(const spawn_output *o)
{
    check_run_json(o->out);
    assert_int_not_equal(access("-", F_OK), 0);
}

static char *pizzas_text; /* the spec fed on stdin; read in main */

static void old_samples(void)
{
    write_scratch("samples.csv", "old samples\n");
}

/* A FIFO nobody writes to, where a spec is expected. */
static void make_unfed_fifo(void)
{
    unlink(scratch_path("unfed.yaml"));
    assert_int_equal(mkfifo(scratch_path("unfed.yaml"), 0600), 0);
}

/* A spec with 100,000 unknown keys (2 MB): a caret line found by a rescan
 * of the text per diagnostic made its lint take minutes. */
static void make_many_keys(void)
{
    FILE *f = fopen(scratch_path("keys.yaml"), "w");
    assert_non_null(f);
    fputs(pizzas_text, f);
    for (int i = 0; i < 100000; i++)
        fprintf(f, "zz_unknown_%d: 1\n", i);
    assert_int_equal(fclose(f), 0);
}

/* A spec whose first line is 500,000 bytes long. */
static void make_wide_spec(void)
{
    FILE *f = fopen(scratch_path("wide.yaml"), "w");
    assert_non_null(f);
    fputs("bogus: [", f);
    for (int i = 0; i < 250000; i++)
        fputs("1,", f);
    fputs("1]\n", f);
    fputs(pizzas_text, f);
    assert_int_equal(fclose(f), 0);
}

/* A cycle of 5,000 steps at the most cycles a spec may ask for: 2 * 10^15
 * cycles make 10^19 records, more than 2^63. */
static void make_overflowing_plan(void)
{
    FILE *f = fopen(scratch_path("totals.yaml"), "w");
    assert_non_null(f);
    fputs("spec: 1\ndomain: kiosk\naggregates:\n  Ticket:\n    identity: id\n"
          "    fields: {id: string}\n    commands:\n"
          "      Print: {creates: true, params: {id: string}}\n"
          "workload:\n  warmup: 1000000000000000\n  iterations: 1000000000000000\n  cycle:\n",
          f);
    for (int i = 0; i < 5000; i++)
        fprintf(f, "    - Ticket.Print: {id: \"t-${n}-%d\"}\n", i);
    assert_int_equal(fclose(f), 0);
}

/* The caret line under the 500,000-byte line is cut to a window. */
static void caret_line_is_cut(const spawn_output *o)
{
    const char *source = strchr(o->out, '\n') + 1;
    const char *end = strchr(source, '\n');
    assert_true(end - source < 2 * DIAG_SOURCE_WINDOW);
    assert_true(strncmp(end - 3, "…", 3) == 0);
}

/* Samples written atomically: the file holds them, no temporary is left. */
static void samples_written_no_temporary(const spawn_output *o)
{
    char *text = read_whole(scratch_path("samples.csv"));
    assert_true(strncmp(text, "domain,label,run,verb,cycle,nanoseconds\n", 40) == 0);
    free(text);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '^\\.samples\\.csv\\.'", scratch);
    assert_int_not_equal(system(cmd), 0);
    check_run_json_file("with-samples.json");
}

/* A run refused before it started leaves an old samples file alone. */
static void old_samples_untouched(const spawn_output *o)
{
    char *text = read_whole(scratch_path("samples.csv"));
    assert_string_equal(text, "old samples\n");
    free(text);
}

/* Every run failed: the samples file describes this invocation, as the
 * report does, and holds only the header. */
static void samples_header_only(const spawn_output *o)
{
    char *text = read_whole(scratch_path("samples.csv"));
    assert_string_equal(text, "domain,label,run,verb,cycle,nanoseconds\n");
    free(text);
}

/* What a killed sqlite run leaves in TMPDIR (the scratch directory here):
 * its directory with a lock file nobody holds. */
static void make_dead_scratch(void)
{
    mkdir(scratch_path("bench-sqlite-dead01"), 0700);
    write_scratch("bench-sqlite-dead01/owner.lock", "");
    write_scratch("bench-sqlite-dead01/pizzas.db", "");
}

static void dead_scratch_gone(const spawn_output *o)
{
    assert_int_not_equal(access(scratch_path("bench-sqlite-dead01"), F_OK), 0);
}

/* A run stopped by SIGHUP removed its sqlite scratch directory (TMPDIR is
 * the scratch directory here). */
static void no_sqlite_scratch_left(const spawn_output *o)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -q '^bench-sqlite-'", scratch);
    assert_int_not_equal(system(cmd), 0);
    cJSON *root = parse_json(o->out);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "interrupted")));
    cJSON_Delete(root);
}

static void interrupted_report(const spawn_output *o)
{
    cJSON *root = parse_json(o->out);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(root, "interrupted")));
    cJSON_Delete(root);
}

static void page_written(const spawn_output *o)
{
    char *text = read_whole(scratch_path("page.html"));
    assert_non_null(strstr(text, "<html"));
    free(text);
}

/* --targets null --targets memory ran both. */
static void both_targets_ran(const spawn_output *o)
{
    assert_non_null(strstr(o->out, "| tickets | null@5"));
    assert_non_null(strstr(o->out, "| tickets | memory@7"));
}

/* --clients 1,2: a row per number of clients, each with its own label. */
static void both_client_levels_ran(const spawn_output *o)
{
    assert_non_null(strstr(o->out, "| pizzas | memory c=1 |"));
    assert_non_null(strstr(o->out, "| pizzas | memory c=2 |"));
}

/* bench --man @: a page per command and bench.1, each from its help. */
static void man_pages_written(const spawn_output *o)
{
    char *top = read_whole(scratch_path("bench.1"));
    assert_non_null(strstr(top, ".TH BENCH 1 "));
    assert_non_null(strstr(top, ".BR bench\\-run (1),\n"));
    free(top);
    char *run = read_whole(scratch_path("bench-run.1"));
    assert_non_null(strstr(run, ".SH NAME\nbench\\-run \\- run specs against their targets"));
    assert_non_null(strstr(run, ".TP\n\\fB\\-\\-iterations\\fR \\fIN\\fR\ntimed cycles per run\n"));
    assert_non_null(strstr(run, ".SH \"EXIT STATUS\"\n.TP\n.B 0\neverything ran"));
    free(run);
}

static const char pizzas_path[] = "specs/pizzas.yaml";

/* ---- the table ---- */

#define ARGS(...)                                                                                  \
    (const char *const[])                                                                          \
    {                                                                                              \
        __VA_ARGS__, NULL                                                                          \
    }

/* FLAG twice with value V: refused before anything is read. */
#define TWICE(cmd, flag, v)                                                                        \
    {                                                                                              \
        .args = ARGS(cmd, flag, v, flag, v, "specs/pizzas.yaml"), .status = 2,                     \
        .err = "bench " cmd ": " flag " given twice\n", .out_empty = true                          \
    }

typedef struct cli_case {
    const char *const *args;
    int status;
    const char *out; /* a substring of stdout, or NULL */
    const char *err; /* a substring of stderr, or NULL */
    bool out_empty;  /* stdout must be empty */
    void (*check)(const spawn_output *o);
    void (*setup)(void);     /* before the run, in the scratch directory */
    const char *stdin_text;  /* fed on stdin, or NULL for /dev/null */
    const char *stdout_path; /* stdout opened on this file instead of a pipe */
    int sigint_after_ms;     /* SIGINT after this long, if nonzero */
    int signo;               /* sent instead of SIGINT, if nonzero */
    bool needs_dev_full;     /* skipped where /dev/full is not a character device */
    bool stdin_pizzas;       /* stdin_text is specs/pizzas.yaml */
    const char *cwd;         /* its working directory ("@" expanded); NULL: the source's */
    int memory_mb;           /* run with this little memory: ulimit -v, or under ASan
                                its allocator's limit (ASan cannot start under ulimit -v) */
    int nofile;              /* run under ulimit -n this, if nonzero */
} cli_case;

/* The sqlite line names the scratch file (its directory is random) and the
 * limit. */
static void sqlite_names_the_file_limit(const spawn_output *o)
{
    const char *line = strstr(o->err, "sqlite: cannot open the scratch database ");
    assert_non_null(line);
    const char *end = strchr(line, '\n');
    assert_non_null(end);
    static const char tail[] = "/pizzas.db: too many open files (ulimit -n is 5)";
    size_t n = sizeof tail - 1;
    if ((size_t)(end - line) < n || strncmp(end - n, tail, n) != 0)
        fail_msg("want a line ending in '%s', got: %.*s", tail, (int)(end - line), line);
}

/* The flags of a short run on the memory target. */
#define SHORT_RUN "--quiet", "--targets", "memory,null", "--iterations", "20", "--runs", "2"

static const cli_case cases[] = {
    /* the top level */
    {.args = ARGS("--help"), .status = 0, .out = "usage: bench [--version] [--help] COMMAND"},
    {.args = ARGS("-h"), .status = 0, .out = "commands:"},
    {.args = ARGS("--version"), .status = 0, .out = "bench " BENCH_VERSION " (commit "},
    {.args = (const char *const[]){NULL}, .status = 2, .err = "usage: bench", .out_empty = true},
    {.args = ARGS("lnt"),
     .status = 2,
     .err = "bench: 'lnt' is not a command; did you mean 'lint'?",
     .out_empty = true},
    {.args = ARGS("frobnicate"),
     .status = 2,
     .err = "'frobnicate' is not a command (see 'bench --help')",
     .out_empty = true},
    {.args = ARGS("help"), .status = 0, .out = "usage: bench"},
    {.args = ARGS("help", "lint"),
     .status = 0,
     .out = "usage: bench lint [--format text|json|github] [--strict] FILE..."},
    {.args = ARGS("help", "nosuch"), .status = 2, .err = "'nosuch' is not a command"},
    /* the one table of exit statuses, in --help and in each command's */
    {.args = ARGS("--help"),
     .status = 0,
     .out = "exit status:\n    0  the command did what it was asked\n"},
    {.args = ARGS("--help"), .status = 0, .out = "\n    3  an output could not be written"},
    {.args = ARGS("--help"), .status = 0, .out = "\n  130  interrupted"},
    {.args = ARGS("plan", "--help"),
     .status = 0,
     .out = "exit status:\n    0  the plan is printed"},
    {.args = ARGS("run", "--help"),
     .status = 0,
     .out = "    3  the results or the samples could not be written after the runs"},
    {.args = ARGS("targets", "--help"), .status = 0, .out = "exit status:\n    0  listed"},
    {.args = ARGS("schema", "--help"), .status = 0, .out = "exit status:\n    0  printed"},
    {.args = ARGS("serve", "--help"), .status = 0, .out = "exit status:\n    0  stdin ended"},
    {.args = ARGS("compare", "--help"), .status = 0, .out = "exit status:\n    0  compared"},
    {.args = ARGS("gate", "--help"), .status = 0, .out = "exit status:\n    0  passed"},
    {.args = ARGS("report", "--help"),
     .status = 0,
     .out = "    3  the page (or the report) could not be written"},
    /* lint */
    {.args = ARGS("lint", "--help"),
     .status = 0,
     .out = "exit status:\n    0  every spec is clean (warnings allowed without --strict)\n"
            "    1  a spec has errors (with --strict, warnings too)\n"
            "    2  usage error, or a spec cannot be read\n"
            "    3  stdout could not be written\n"},
    {.args = ARGS("lint", "specs/pizzas.yaml", "specs/banking.yaml", "examples/library.yaml",
                  "examples/inventory.yaml", "examples/tickets.yaml", "examples/pizza_status.yaml"),
     .status = 0,
     .out_empty = true},
    {.args = ARGS("lint", "@/bad.yaml"),
     .status = 1,
     .out = "@/bad.yaml:11:7: error: unknown command 'Ticket.Prnt' (did you mean 'Ticket.Print'?)\n"
            "      - Ticket.Prnt: {id: \"t-${n}\"}\n"
            "        ^\n"},
    {.args = ARGS("lint", "specs/pizzas.yaml", "@/bad.yaml"),
     .status = 1,
     .out = "@/bad.yaml:11:7: error:"},
    {.args = ARGS("lint", "--format", "github", "@/bad.yaml"),
     .status = 1,
     .out = "::error file=@/bad.yaml,line=11,col=7::unknown command 'Ticket.Prnt' (did you mean "
            "'Ticket.Print'?)\n"},
    {.args = ARGS("lint", "--format", "json", "@/bad.yaml", "specs/pizzas.yaml"),
     .status = 1,
     .out = "\"diagnostics\"",
     .check = lint_json_has_one_error},
    {.args = ARGS("lint", "--format", "json", "@/bad.yaml"),
     .status = 1,
     .out = "\"path\"",
     .check = lint_json_carries_the_path},
    {.args = ARGS("lint", "--format", "json", "tests/lint/schema_unknown_key_did_you_mean.yaml"),
     .status = 1,
     .out = "\"path\"",
     .check = lint_json_carries_a_schema_path},
    {.args = ARGS("lint", "--format=json", "specs/pizzas.yaml"),
     .status = 0,
     .check = lint_json_is_clean},
    {.args = ARGS("lint", "--format", "bogus", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench lint: unknown format 'bogus'; use text, json or github",
     .out_empty = true},
    {.args = ARGS("lint", "--bogus", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench lint: unknown option '--bogus'",
     .out_empty = true},
    /* "cannot open" is not a finding about a spec: it goes to stderr */
    {.args = ARGS("lint", "@/missing.yaml"),
     .status = 2,
     .err = "@/missing.yaml: error: cannot open",
     .out_empty = true},
    {.args = ARGS("lint", "@/bad.yaml", "@/missing.yaml"),
     .status = 2,
     .out = "@/bad.yaml:11:7: error:",
     .err = "@/missing.yaml: error: cannot open"},
    {.args = ARGS("lint", "--format", "json", "@/missing.yaml"),
     .status = 2,
     .out = "\"errors\":\t0",
     .err = "cannot open"},
    /* '-' is stdin */
    {.args = ARGS("lint", "-"), .status = 0, .stdin_pizzas = true, .out_empty = true},
    {.args = ARGS("lint", "-"),
     .status = 1,
     .stdin_text = bad_spec,
     .out = "<stdin>:11:7: error: unknown command 'Ticket.Prnt'"},
    {.args = ARGS("lint", "--format", "json", "-"),
     .status = 1,
     .stdin_text = bad_spec,
     .out = "\"file\":\t\"<stdin>\""},
    {.args = ARGS("lint", "@/bad.yaml"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "bench lint: cannot write to stdout: No space left on device\n",
     .check = dev_full_still_a_device},
    {.args = ARGS("lint"), .status = 2, .err = "bench lint: no spec given", .out_empty = true},
    {.args = ARGS("lint", "@/warn.yaml"),
     .status = 0,
     .out = "@/warn.yaml:12:11: warning: no warmup"},
    {.args = ARGS("lint", "--strict", "@/warn.yaml"), .status = 1, .out = "warning: no warmup"},
    {.args = ARGS("lint", "@/warn.yaml", "--strict"), .status = 1, .out = "warning: no warmup"},
    /* plan */
    {.args = ARGS("plan", "--help"),
     .status = 0,
     .out = "usage: bench plan [--format text|json] [--trace N [--seed N]] SPEC"},
    {.args = ARGS("plan", "specs/pizzas.yaml"), .status = 0, .out = "totals"},
    {.args = ARGS("plan", "--trace", "2", "specs/pizzas.yaml"),
     .status = 0,
     .out = "trace: pizzas, run 1, seed 1, on the memory store\n"
            "cycle 0 (warmup): cycle\n"
            "  Order.CreatePizza {name: \"pizza-0\", pizza: {price_cents: 1200, size: large}}  "
            "ok\n"},
    {.args = ARGS("plan", "--trace", "1", "--format", "json", "specs/banking.yaml"),
     .status = 0,
     .out = "\"phase\":\t\"setup\""},
    {.args = ARGS("plan", "--seed", "4", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench plan: --seed is for --trace",
     .out_empty = true},
    {.args = ARGS("plan", "--trace", "0", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench plan: --trace needs a whole number of at least 1, not '0'",
     .out_empty = true},
    {.args = ARGS("plan", "specs/banking.yaml"), .status = 0, .out = "Account.Debit"},
    {.args = ARGS("plan", "examples/pizza_status.yaml"),
     .status = 0,
     .out = "    query Order.Status\n"
            "      param name: string, identity\n"
            "      returns status: enum [available, sold] = status\n"
            "      returns toppings: int = len(toppings)\n"
            "workload\n"},
    {.args = ARGS("plan", "tests/fixtures/ranges.yaml"),
     .status = 0,
     .out = "    query User.Scan\n"
            "      param key: string, identity\n"
            "      param count: int\n"
            "      scan from key on, in identity order, at most count records; returns each:\n"
            "      returns key: string = key\n"},
    {.args = ARGS("plan", "--trace", "2", "tests/fixtures/ranges.yaml"),
     .status = 0,
     .out = "  User.Scan {key: \"user\", count: 2}  ok; 1 row\n"
            "cycle 1 (warmup): cycle\n"
            "  User.Insert {key: \"user1\", n: 1}  ok\n"
            "  User.Scan {key: \"user\", count: 2}  ok; 2 rows\n"},
    {.args = ARGS("plan", "--format", "json", "tests/fixtures/ranges.yaml"),
     .status = 0,
     .out = "\"scan\":\t{\n\t\t\t\t\t\t\"from\":\t\"key\",\n\t\t\t\t\t\t\"limit\":\t\"count\"\n"},
    {.args = ARGS("plan", "--format", "json", "specs/pizzas.yaml"),
     .status = 0,
     .check = plan_json_has_totals},
    {.args = ARGS("plan", "@/bad.yaml"),
     .status = 1,
     .err = "@/bad.yaml:11:7: error: unknown command",
     .out_empty = true},
    {.args = ARGS("plan", "specs/pizzas.yaml", "specs/banking.yaml"),
     .status = 2,
     .err = "bench plan: give exactly one spec",
     .out_empty = true},
    {.args = ARGS("plan"),
     .status = 2,
     .err = "bench plan: give exactly one spec",
     .out_empty = true},
    {.args = ARGS("plan", "--format", "github", "specs/pizzas.yaml"),
     .status = 2,
     .err = "unknown format 'github'; use text or json",
     .out_empty = true},
    {.args = ARGS("plan", "@/missing.yaml"), .status = 2, .err = "cannot open", .out_empty = true},
    /* hostile input: sizes and counts past what bench can hold are refused
       where they are written, and what is not a file is not waited on */
    {.args = ARGS("plan", "@/totals.yaml"),
     .status = 0,
     .setup = make_overflowing_plan,
     .out = "totals per run: more than 2^63 (the spec's cycles times its commands or records per "
            "cycle)\n"},
    {.args = ARGS("lint", "@/unfed.yaml"),
     .status = 2,
     .setup = make_unfed_fifo,
     .err = "@/unfed.yaml: error: @/unfed.yaml is not a regular file (a FIFO)\n",
     .out_empty = true},
    {.args = ARGS("run", "--targets", "null", "@/unfed.yaml"),
     .status = 2,
     .setup = make_unfed_fifo,
     .err = "@/unfed.yaml: error: @/unfed.yaml is not a regular file (a FIFO)\n",
     .out_empty = true},
    {.args = ARGS("lint", "@"),
     .status = 2,
     .err = "@: error: @ is not a regular file (a directory)\n",
     .out_empty = true},
    {.args = ARGS("lint", "@/keys.yaml"),
     .status = 1,
     .setup = make_many_keys,
     .out = "@/keys.yaml:100065:1: error: unknown key 'zz_unknown_99999'; expected one of: spec, "
            "domain, about, types, aggregates, policies, workload\n  zz_unknown_99999: 1\n  ^\n"},
    {.args = ARGS("lint", "@/wide.yaml"),
     .status = 1,
     .setup = make_wide_spec,
     .out = "@/wide.yaml:1:1: error: unknown key 'bogus'",
     .check = caret_line_is_cut},
    {.args = ARGS("lint", "--format", "json", "@/keys.yaml"),
     .status = 1,
     .setup = make_many_keys,
     .memory_mb = 16,
     .err = "bench: out of memory\n",
     .out_empty = true},
    {.args =
         ARGS("run", "--targets", "null", "--iterations", "1000000000000001", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --iterations needs a whole number from 1 to 1000000000000000, not "
            "'1000000000000001'\n",
     .out_empty = true},
    {.args = ARGS("run", "--targets", "null", "--iterations", "4611686018427387904", "--samples",
                  "@/samples.csv", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --iterations needs a whole number from 1 to 1000000000000000",
     .setup = old_samples,
     .check = old_samples_untouched},
    {.args =
         ARGS("run", "--targets", "null", "--warmup", "9223372036854775807", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --warmup needs a whole number from 0 to 1000000000000000"},
    {.args =
         ARGS("run", "--targets", "null", "--prefill", "0,1000000000000001", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --prefill needs a whole number from 0 to 1000000000000000"},
    {.args = ARGS("run", "--targets", "null", "--runs", "100000000000", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --runs needs a whole number from 1 to 10000, not '100000000000'\n"},
    {.args =
         ARGS("run", "--targets", "null", "--progress", "100000000000000000", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --progress needs a whole number from 1 to 86400"},
    {.args = ARGS("run", "--quiet", "--targets", "null", "--iterations", "1000000000000000",
                  "--samples", "@/samples.csv", "specs/pizzas.yaml"),
     .status = 1,
     .memory_mb = 256,
     .out = "- null: out of memory: --samples keeps every timed latency in memory, and "
            "1000000000000000 cycles of up to 4 commands need 9.6e+07 GB\n"},
    /* too few file descriptors: the limit is named, not "unable to open database file" */
    {.args = ARGS("run", "--targets", "sqlite", "--iterations", "10", "--runs", "1", "--format",
                  "json", "--output", "/dev/null", "specs/pizzas.yaml"),
     .status = 1,
     .nofile = 5,
     .err = "pizzas sqlite run 1 failed: run 1: sqlite: cannot open the scratch database ",
     .check = sqlite_names_the_file_limit},
    {.args = ARGS("run", "--targets", "process", "--iterations", "10", "--runs", "1", "--format",
                  "json", "--output", "/dev/null", "specs/pizzas.yaml"),
     .status = 1,
     .nofile = 5,
     .err = "pizzas process run 1 failed: run 1: cannot make pipes for bench serve: too many open "
            "files (ulimit -n is 5)\n"},
    {.args =
         ARGS("run", "--targets", "process", "--iterations", "10", "--runs", "1", "--format",
              "json", "--output", "/dev/null", "--samples", "@/samples.csv", "specs/pizzas.yaml"),
     .status = 1,
     .nofile = 6,
     .setup = old_samples,
     .err = "bench run: @/samples.csv holds only the CSV header: no timed pass finished\n",
     .check = samples_header_only},
    {.args = ARGS("plan", "specs/pizzas.yaml"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "bench plan: cannot write to stdout"},
    /* a query's answer that differs from the step's expect fails the run, after the clock */
    {.args = ARGS("run", "@/query.yaml", "--warmup", "0", "--iterations", "20", "--runs", "1"),
     .status = 1,
     .err = "counter memory run 1 failed: run 1, timed cycle 7, Counter.Small (@/query.yaml:14): "
            "returned small false, the step expects true\n"
            "counter sqlite run 1 failed: run 1, timed cycle 7, Counter.Small (@/query.yaml:14): "
            "returned small false, the step expects true\n",
     .out = "Failed:\n- memory: run 1, timed cycle 7, Counter.Small (@/query.yaml:14): returned "
            "small false, the step expects true\n"},
    /* and a scan's row count */
    {.args = ARGS("run", "@/scan.yaml", "--warmup", "0", "--iterations", "20", "--runs", "1"),
     .status = 1,
     .err = "counter memory run 1 failed: run 1, timed cycle 7, Counter.From (@/scan.yaml:15): "
            "answered 1 row, the step expects 0\n"
            "counter sqlite run 1 failed: run 1, timed cycle 7, Counter.From (@/scan.yaml:15): "
            "answered 1 row, the step expects 0\n"},
    /* targets */
    {.args = ARGS("targets"), .status = 0, .check = targets_lists_memory_and_null},
    {.args = ARGS("targets", "--help"), .status = 0, .out = "usage: bench targets"},
    {.args = ARGS("targets", "extra"),
     .status = 2,
     .err = "bench targets: takes no arguments",
     .out_empty = true},
    {.args = ARGS("targets"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "bench targets: cannot write to stdout"},
    /* schema */
    {.args = ARGS("schema"), .status = 0, .out = "\"$schema\""},
    {.args = ARGS("schema", "specs/pizzas.yaml"), .status = 0, .out = "\"Order.CreatePizza\":\t{"},
    {.args = ARGS("schema", "specs/pizzas.yaml", "extra"),
     .status = 2,
     .err = "bench schema: give at most one spec",
     .out_empty = true},
    {.args = ARGS("schema", "--spec"),
     .status = 2,
     .err = "bench schema: unknown option '--spec'",
     .out_empty = true},
    {.args = ARGS("schema", "@/bad.yaml"),
     .status = 1,
     .err = "@/bad.yaml:11:7: error: unknown command 'Ticket.Prnt' (did you mean 'Ticket.Print'?)",
     .out_empty = true},
    {.args = ARGS("schema", "@/missing.yaml"),
     .status = 2,
     .err = "@/missing.yaml",
     .out_empty = true},
    {.args = ARGS("schema"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "bench schema: cannot write to stdout"},
    /* serve (tests/test_serve.c speaks the protocol) */
    {.args = ARGS("serve", "specs/pizzas.yaml"), .status = 0, .out_empty = true},
    {.args = ARGS("serve", "@/bad.yaml"),
     .status = 1,
     .err = "@/bad.yaml:11:7: error: unknown command",
     .out_empty = true},
    {.args = ARGS("serve", "@/missing.yaml"), .status = 2, .err = "cannot open", .out_empty = true},
    {.args = ARGS("serve"),
     .status = 2,
     .err = "bench serve: give exactly one spec",
     .out_empty = true},
    /* compare, gate, report (tests/test_gate_cli.c has the verdicts) */
    {.args = ARGS("compare", "baselines/memory.json", "baselines/memory.json"),
     .status = 0,
     .out = "## bench compare"},
    {.args = ARGS("compare", "baselines/memory.json"),
     .status = 2,
     .err = "give two result files",
     .out_empty = true},
    {.args = ARGS("compare", "baselines/memory.json", "@/missing.json"),
     .status = 2,
     .err = "@/missing.json",
     .out_empty = true},
    {.args = ARGS("compare", "baselines/memory.json", "baselines/memory.json"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "cannot write to stdout"},
    {.args = ARGS("gate", "baselines/memory.json", "baselines/memory.json"),
     .status = 0,
     .out = "gate: ok:"},
    {.args = ARGS("gate", "--metric", "pizzas.nosuch.p50_us", "baselines/memory.json",
                  "baselines/memory.json"),
     .status = 1,
     .out = "gate: failed: 1 of 1 metrics"},
    {.args = ARGS("gate", "--threshold", "lots", "baselines/memory.json", "baselines/memory.json"),
     .status = 2,
     .err = "--threshold takes a percentage",
     .out_empty = true},
    {.args = ARGS("gate", "baselines/memory.json", "baselines/memory.json"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "cannot write to stdout"},
    {.args = ARGS("report", "baselines/memory.json", "--html", "@/page.html"),
     .status = 0,
     .out_empty = true,
     .check = page_written},
    {.args = ARGS("report", "baselines/memory.json", "--html", "-"), .status = 0, .out = "<html"},
    {.args = ARGS("report", "baselines/memory.json", "--html", "@/nodir/page.html"),
     .status = 2,
     .err = "bench report: cannot write @/nodir/page.html: the directory @/nodir does not exist.",
     .out_empty = true},
    {.args = ARGS("report", "@/missing.json", "--html", "@/page.html"),
     .status = 2,
     .err = "@/missing.json",
     .out_empty = true},
    {.args = ARGS("report", "baselines/memory.json"),
     .status = 2,
     .err = "give the page to write with --html FILE, or --format",
     .out_empty = true},
    {.args = ARGS("report", "baselines/memory.json", "--format", "csv"),
     .status = 0,
     .out = "domain,target,label,prefill,"},
    {.args = ARGS("report", "baselines/memory.json", "--format", "markdown"),
     .status = 0,
     .out = "| pizzas | memory | "},
    {.args = ARGS("report", "baselines/memory.json", "--format", "html"),
     .status = 2,
     .err = "bench report: unknown format 'html' (use markdown, json or csv)",
     .out_empty = true},
    {.args = ARGS("report", "baselines/memory.json", "--format", "csv", "--html", "@/page.html"),
     .status = 2,
     .err = "--format prints to stdout: give it without --html and --baseline",
     .out_empty = true},
    {.args = ARGS("report", "baselines/memory.json", "--html", "@/page.html", "--baseline",
                  "baselines/memory.json"),
     .status = 0,
     .out_empty = true,
     .check = page_written},
    {.args = ARGS("report", "baselines/memory.json", "--html", "@/page.html", "--baseline",
                  "@/missing.json"),
     .status = 2,
     .err = "@/missing.json",
     .out_empty = true},
    {.args = ARGS("report", "baselines/memory.json", "--format", "markdown"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "bench report: cannot write to stdout"},
    /* as root, the rename used to replace /dev/full by a regular file */
    {.args = ARGS("report", "baselines/memory.json", "--html", "/dev/full"),
     .status = 3,
     .needs_dev_full = true,
     .err = "to /dev/full: No space left on device.",
     .check = dev_full_still_a_device},
    /* run: usage and spec errors */
    {.args = ARGS("run", "--help"), .status = 0, .out = "usage: bench run [options] SPEC..."},
    {.args = ARGS("run"), .status = 2, .err = "bench run: no spec given", .out_empty = true},
    /* verify levels: what was read back is said beside the pass */
    {.args = ARGS("run", "--quiet", "--targets", "memory", "--iterations", "20", "--runs", "1",
                  "--verify", "state", "specs/pizzas.yaml"),
     .status = 0,
     .out = "memory pass (every record)"},
    {.args = ARGS("run", "--quiet", "--targets", "memory", "--iterations", "20", "--runs", "1",
                  "specs/pizzas.yaml"),
     .status = 0,
     .out = "memory pass (counts and a sample of records)"},
    {.args = ARGS("run", "--verify", "most", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --verify is one of counts, state, full, not 'most'"},
    {.args = ARGS("run", "--bogus", "specs/pizzas.yaml"),
     .status = 2,
     .err = "'--bogus'",
     .out_empty = true},
    {.args = ARGS("run", "--iterations", "0", "specs/pizzas.yaml"),
     .status = 2,
     .err = "--iterations needs a whole number from 1 to 1000000000000000, not '0'",
     .out_empty = true},
    {.args = ARGS("run", "--iterations", "ten", "specs/pizzas.yaml"),
     .status = 2,
     .err = "--iterations needs a whole number from 1 to 1000000000000000, not 'ten'",
     .out_empty = true},
    {.args = ARGS("run", "--runs", "0", "specs/pizzas.yaml"),
     .status = 2,
     .err = "--runs needs a whole number",
     .out_empty = true},
    {.args = ARGS("run", "--warmup", "-1", "specs/pizzas.yaml"),
     .status = 2,
     .err = "--warmup needs a whole number",
     .out_empty = true},
    {.args = ARGS("run", "--format", "xml", "specs/pizzas.yaml"),
     .status = 2,
     .err = "unknown format 'xml'; use markdown, json or csv",
     .out_empty = true},
    {.args = ARGS("run", "--targets", "nosuch", "specs/pizzas.yaml"),
     .status = 2,
     .err = "--targets names 'nosuch'",
     .out_empty = true},
    /* --targets: a label picks its entry alone, a target name that is no
       entry's label every entry of that target */
    {.args = ARGS("run", "--quiet", "--format", "json", "--targets", "memory", "@/labels.yaml"),
     .status = 0,
     .check = ran_memory_alone},
    {.args =
         ARGS("run", "--quiet", "--format", "json", "--targets", "lean,memory", "@/labels.yaml"),
     .status = 0,
     .check = ran_both_memories},
    {.args = ARGS("run", "--quiet", "--format", "json", "--targets", "null", "@/labels.yaml"),
     .status = 0,
     .check = ran_both_nulls},
    /* an invalid spec is 1 in every command (it was 2 in run) */
    {.args = ARGS("run", "@/bad.yaml"),
     .status = 1,
     .err = "@/bad.yaml:11:7: error: unknown command",
     .out_empty = true},
    {.args = ARGS("run", "@/missing.yaml"), .status = 2, .err = "cannot open", .out_empty = true},
    {.args = ARGS("run", "@/missing.yaml", "@/bad.yaml"),
     .status = 2,
     .err = "cannot open",
     .out_empty = true},
    /* run: outputs checked before the first run (no progress line: nothing ran) */
    {.args = ARGS("run", "--targets", "memory", "--iterations", "20", "--output",
                  "@/nodir/report.json", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: cannot write @/nodir/report.json: the directory @/nodir does not exist. "
            "Nothing was run.\n",
     .out_empty = true},
    {.args = ARGS("run", "--targets", "memory", "--iterations", "20", "--samples",
                  "@/nodir/samples.csv", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: cannot write @/nodir/samples.csv: the directory @/nodir does not exist.",
     .out_empty = true},
    {.args = ARGS("run", SHORT_RUN, "--output", "@", "specs/pizzas.yaml"),
     .status = 2,
     .err = "is a directory",
     .out_empty = true},
    {.args = ARGS("run", SHORT_RUN, "--samples", "-", "specs/pizzas.yaml"),
     .status = 2,
     .err = "--samples - and the report would both go to stdout",
     .out_empty = true},
    {.args = ARGS("run", SHORT_RUN, "--samples", "@/samples.csv", "@/bad.yaml"),
     .status = 1,
     .setup = old_samples,
     .check = old_samples_untouched},
    /* run: where the report goes */
    {.args =
         ARGS("run", SHORT_RUN, "--format", "json", "--output", "@/link.json", "specs/pizzas.yaml"),
     .status = 0,
     .out_empty = true,
     .setup = make_link,
     .check = link_kept_target_written},
    {.args = ARGS("run", SHORT_RUN, "--format", "json", "--output", "@/fifo", "specs/pizzas.yaml"),
     .status = 0,
     .out_empty = true,
     .setup = make_fifo,
     .check = fifo_kept_reader_got_the_report},
    {.args = ARGS("run", SHORT_RUN, "--output", "/dev/null", "specs/pizzas.yaml"),
     .status = 0,
     .out_empty = true,
     .check = dev_null_still_a_device},
    {.args = ARGS("run", SHORT_RUN, "--format", "json", "--output", "-", "specs/pizzas.yaml"),
     .status = 0,
     .check = no_file_named_dash},
    {.args =
         ARGS("run", SHORT_RUN, "--format", "json", "--output", "/dev/full", "specs/pizzas.yaml"),
     .status = 3,
     .needs_dev_full = true,
     .err = " to /dev/full: No space left on device. The results are saved in @/bench-results-",
     .check = fallback_holds_the_report},
    {.args = ARGS("run", SHORT_RUN, "--format", "json", "specs/pizzas.yaml"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = " to stdout: No space left on device. The results are saved in @/bench-results-",
     .check = fallback_holds_the_report},
    {.args = ARGS("run", SHORT_RUN, "--format", "json", "--output", "@/with-samples.json",
                  "--samples", "@/samples.csv", "specs/pizzas.yaml"),
     .status = 0,
     .setup = old_samples,
     .check = samples_written_no_temporary},
    {.args =
         ARGS("run", SHORT_RUN, "--output", "@/report.md", "--samples", "-", "specs/pizzas.yaml"),
     .status = 0,
     .out = "domain,label,run,verb,cycle,nanoseconds\npizzas,"},
    {.args = ARGS("run", SHORT_RUN, "--samples", "/dev/full", "--output", "@/report.md",
                  "specs/pizzas.yaml"),
     .status = 3,
     .needs_dev_full = true,
     .err = "bench run: the samples were not written: cannot write the file to /dev/full: No space "
            "left on device.",
     .check = dev_full_still_a_device},
    /* run: interrupted, what finished is still written */
    {.args = ARGS("run", "--quiet", "--targets", "memory", "--iterations", "100000000", "--runs",
                  "1", "--format", "json", "specs/pizzas.yaml"),
     .status = 130,
     .sigint_after_ms = 1500,
     .check = interrupted_report},
    /* a closed terminal stops a run as Ctrl-C does: its scratch store goes */
    {.args = ARGS("run", "--quiet", "--targets", "sqlite", "--iterations", "100000000", "--runs",
                  "1", "--format", "json", "specs/pizzas.yaml"),
     .status = 130,
     .sigint_after_ms = 1500,
     .signo = SIGHUP,
     .check = no_sqlite_scratch_left},
    /* clean: what killed runs left */
    {.args = ARGS("clean", "--help"), .status = 0, .out = "exit status:\n    0  cleaned"},
    {.args = ARGS("clean", "--store", "sqlite"),
     .status = 0,
     .setup = make_dead_scratch,
     .out = "sqlite: removed 1 scratch directory of killed runs under @\n",
     .check = dead_scratch_gone},
    {.args = ARGS("clean", "--store", "postgres", "--dsn", "host=/nonexistent"),
     .status = 1,
     .err = "bench clean: postgres: connection to server on socket \"/nonexistent/.s.PGSQL."},
    {.args = ARGS("clean", "--store", "mysql"),
     .status = 2,
     .err = "bench clean: --store is sqlite or postgres, not 'mysql'",
     .out_empty = true},
    {.args = ARGS("clean", "extra"), .status = 2, .err = "takes no arguments, not 'extra'"},
    {.args = ARGS("clean", "--store", "sqlite"),
     .status = 3,
     .stdout_path = "/dev/full",
     .needs_dev_full = true,
     .err = "bench clean: cannot write to stdout"},
    /* run: real runs on the in-process targets */
    {.args = ARGS("run", "specs/pizzas.yaml", "--targets", "memory,null", "--iterations", "50",
                  "--warmup", "5", "--runs", "2", "--format", "json"),
     .status = 0,
     .check = run_json_has_two_results},
    {.args = ARGS("run", "specs/pizzas.yaml", "--targets", "memory,null", "--iterations", "50",
                  "--warmup", "5", "--runs", "2", "--format", "csv", "--quiet"),
     .status = 0,
     .check = run_csv_has_a_header_and_two_rows},
    {.args = ARGS("run", "--quiet", "--iterations", "20", "--warmup", "0", "--runs", "2",
                  "--format", "json", "--output", "@/report.json", "@/warn.yaml"),
     .status = 0,
     .check = run_output_file_holds_the_report},
    {.args = ARGS("run", "--quiet", "--targets", "memory", "--iterations", "20", "--runs", "1",
                  "examples/tickets.yaml"),
     .status = 0,
     .out = "| tickets | memory"},
    /* nothing ran: exit 1 with one sentence */
    {.args = ARGS("run", "specs/pizzas.yaml", "--targets", "process", "--process-cmd",
                  "/no/such/runtime", "--quiet"),
     .status = 1,
     .err = "bench run: nothing ran: every target was skipped\n"},
    {.args = ARGS("run", "specs/pizzas.yaml", "--targets", "process", "--process-cmd",
                  "/no/such/runtime"),
     .status = 1,
     .err = "bench run: nothing ran: every target was skipped (see above)\n"},
    /* stability: 20 pinned runs of one quiet command are not flagged */
    {.args = ARGS("run", "specs/pizzas.yaml", "--targets", "memory", "--cpu", "0", "--runs", "20",
                  "--iterations", "2000", "--format", "json", "--quiet"),
     .status = 0,
     .check = pinned_runs_say_their_status},
    /* a flag with a value given twice is refused, naming it; --targets adds up */
    TWICE("run", "--iterations", "5"),
    TWICE("run", "--warmup", "5"),
    TWICE("run", "--runs", "2"),
    TWICE("run", "--prefill", "10"),
    TWICE("run", "--format", "json"),
    TWICE("run", "--output", "@/twice.md"),
    TWICE("run", "--samples", "@/twice.csv"),
    TWICE("run", "--label", "a"),
    TWICE("run", "--cpu", "0"),
    TWICE("run", "--progress", "1"),
    TWICE("run", "--process-cmd", "python3"),
    TWICE("run", "--verify", "state"),
    TWICE("run", "--seed", "3"),
    TWICE("run", "--duration", "1s"),
    TWICE("run", "--rate", "100"),
    TWICE("run", "--interval", "1s"),
    TWICE("run", "--hlog", "@/twice.hlog"),
    TWICE("lint", "--format", "json"),
    TWICE("plan", "--format", "json"),
    TWICE("plan", "--trace", "2"),
    TWICE("plan", "--seed", "2"),
    TWICE("compare", "--format", "json"),
    TWICE("gate", "--threshold", "5"),
    TWICE("gate", "--pairs", "2"),
    TWICE("report", "--html", "@/twice.html"),
    TWICE("report", "--baseline", "@/twice.json"),
    TWICE("report", "--format", "markdown"),
    TWICE("clean", "--store", "sqlite"),
    TWICE("clean", "--dsn", "host=/nonexistent"),
    TWICE("serve", "--store", "memory"),
    TWICE("serve", "--listen", "unix:@/twice.sock"),
    {.args = ARGS("lint", "-f", "json", "--format=text", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench lint: --format given twice\n",
     .out_empty = true},
    /* the first one's buffers are freed too (ASan's leak check fails the run otherwise) */
    {.args = ARGS("run", "--quiet", "--targets", "null", "--targets", "memory", "--prefill", "5,7",
                  "--iterations", "20", "--runs", "1", "examples/tickets.yaml"),
     .status = 0,
     .check = both_targets_ran},
    /* one row per prefill size, so each size once */
    {.args = ARGS("run", "--prefill", "10,20,10", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --prefill lists 10 twice\n",
     .out_empty = true},
    /* --rate R1,R2,..: a sweep, one row per rate, so each rate once */
    {.args = ARGS("run", "--rate", "100,200,100", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --rate lists 100 twice\n",
     .out_empty = true},
    {.args = ARGS("run", "--rate", "100,0", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --rate needs a number of cycles per second above 0, not '0'\n",
     .out_empty = true},
    {.args = ARGS("run", "--rate", ",", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --rate needs a number of cycles per second above 0, not ','\n",
     .out_empty = true},
    /* --clients N1,N2,..: a sweep, one row per number, so each number once */
    {.args = ARGS("run", "--quiet", "--targets", "memory", "--clients", "1,2", "--iterations", "20",
                  "--runs", "1", "specs/pizzas.yaml"),
     .status = 0,
     .check = both_client_levels_ran},
    {.args = ARGS("run", "--clients", "1,2,1", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --clients lists 1 twice\n",
     .out_empty = true},
    {.args = ARGS("run", "--clients", "2,0", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --clients needs a whole number from 1 to 10000, not '0'\n",
     .out_empty = true},
    {.args = ARGS("run", "--rate", "100,200", "--clients", "1,2", "specs/pizzas.yaml"),
     .status = 2,
     .err = "bench run: --rate and --clients each list several: two sweeps, and one runs at a "
            "time\n",
     .out_empty = true},
    {.args = ARGS("run", "--clients", "1,2", "tests/fixtures/rate_sweep.yaml"),
     .status = 2,
     .err = "bench run: --clients with several numbers is a sweep, and "
            "tests/fixtures/rate_sweep.yaml's arrival rate is a list, another: one sweep at a "
            "time (add --rate R)\n",
     .out_empty = true},
    {.args = ARGS("run", "--quiet", "--clients", "1,2", "--rate", "1000", "--iterations", "20",
                  "--runs", "1", "tests/fixtures/rate_sweep.yaml"),
     .status = 0,
     .out = "| rates | memory c=2 (open loop) |"},
    /* one sweep at a time: the spec sweeps clients */
    {.args =
         ARGS("run", "--rate", "100,200", "tests/lint/clients_per_client_identity_not_unique.yaml"),
     .status = 2,
     .err = "bench run: --rate with several rates is a sweep, and "
            "tests/lint/clients_per_client_identity_not_unique.yaml's clients is a list, another: "
            "one sweep at a time (add --clients N)\n",
     .out_empty = true},
    {.args = ARGS("lint", "tests/lint/prefill_size_twice.yaml"),
     .status = 1,
     .out = "tests/lint/prefill_size_twice.yaml:11:25: error: prefill lists 100 twice\n"},
    /* a command's ./ path is beside the spec: the spec runs from anywhere */
    {.args = ARGS("run", "--quiet", "--targets", "python", "--iterations", "20", "--runs", "1",
                  "%/examples/pizzeria.yaml"),
     .cwd = "@",
     .status = 0,
     .out = "| pizzeria | python"},
    {.args = ARGS("plan", "%/examples/pizzeria.yaml"),
     .cwd = "/",
     .status = 0,
     .out = "/examples/pizzas_runtime.py, reset"},
    {.args = ARGS("plan", "pizzeria.yaml"),
     .cwd = "%/examples",
     .status = 0,
     .out = "command python3 ./pizzas_runtime.py, reset"},
    /* the manual pages, from the help */
    {.args = ARGS("--man", "@"), .status = 0, .out_empty = true, .check = man_pages_written},
    {.args = ARGS("--man"),
     .status = 2,
     .err = "bench: --man takes the directory to write the pages into\n"},
    {.args = ARGS("--man", "@/nodir"),
     .status = 2,
     .err = "bench: cannot write @/nodir/bench-lint.1"},
};

/* Replaces every "@" in want by the scratch path; the caller frees. */
static char *expand_all(const char *want)
{
    size_t cap = strlen(want) * (strlen(scratch) + 1) + 1;
    char *r = malloc(cap), *w = r;
    for (const char *p = want; *p; p++) {
        if (*p == '@') {
            strcpy(w, scratch);
            w += strlen(scratch);
        } else {
            *w++ = *p;
        }
    }
    *w = '\0';
    return r;
}

static void describe_args(const cli_case *c, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "bench");
    for (size_t i = 0; c->args[i] && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, " %s", c->args[i]);
}

static char failure[32768]; /* the reason a row failed, written before cleaning up */

/* Notes in failure when want (with "@" expanded) is not in haystack. */
static bool has_substring(const char *what, const char *haystack, const char *want, const char *cmd)
{
    if (!want || failure[0])
        return true;
    char *w = expand_all(want);
    bool found = strstr(haystack, w) != NULL;
    if (!found)
        snprintf(failure, sizeof failure, "%s: %s lacks:\n%s\n--- it was:\n%s", cmd, what, w,
                 haystack);
    free(w);
    return found;
}

static bool sanitized(void)
{
    return strstr(BENCH_SANITIZERS, "address") != NULL;
}

/* Under ASan, allocations over mb fail (returning NULL, as malloc does
 * under ulimit -v): set for the next run_bench. */
static void limit_memory(int mb, const char *asan_options)
{
    if (!sanitized())
        return;
    char opts[512];
    snprintf(opts, sizeof opts, "%s%sallocator_may_return_null=1:max_allocation_size_mb=%d",
             asan_options ? asan_options : "", asan_options ? ":" : "", mb);
    setenv("ASAN_OPTIONS", opts, 1);
}

/* run_bench under `ulimit -v` (an uninstrumented build). */
/* bench under `ulimit FLAG VALUE` (-v KB, -n files). */
static spawn_output run_bench_limited(const char *const *args, const char *flag, long value,
                                      const spawn_options *opt)
{
    size_t n = 0;
    while (args[n])
        n++;
    char **argv = calloc(n + 6, sizeof *argv), script[128];
    assert_non_null(argv);
    snprintf(script, sizeof script, "ulimit %s %ld && exec \"$0\" \"$@\"", flag, value);
    argv[0] = strdup("/bin/sh");
    argv[1] = strdup("-c");
    argv[2] = strdup(script);
    argv[3] = strdup(spawn_bench_path());
    for (size_t i = 0; i < n; i++)
        argv[i + 4] = expand(args[i]);
    spawn_output o = spawn_run_with(argv, opt);
    for (size_t i = 0; i < n + 4; i++)
        free(argv[i]);
    free(argv);
    return o;
}

/* Whether a sanitizer reported something in err; allocations that failed
 * under a memory limit are not reports (bench then says out of memory). */
static bool sanitizer_report(const char *err, bool limited)
{
    static const char failed[] = "WARNING: AddressSanitizer failed to allocate";
    for (const char *p = err; (p = strstr(p, "Sanitizer")) != NULL; p++) {
        const char *w = p - (sizeof "WARNING: Address" - 1);
        if (!limited || w < err || strncmp(w, failed, sizeof failed - 1) != 0)
            return true;
    }
    return false;
}

static void test_cli_case(void **state)
{
    const cli_case *c = *state;
    char cmd[512];
    describe_args(c, cmd, sizeof cmd);
    if (c->needs_dev_full && !is_char_device("/dev/full")) {
        print_message("skipped: /dev/full is not a character device here\n");
        skip();
    }
    if (c->setup)
        c->setup();
    char *cwd = c->cwd ? expand(c->cwd) : NULL;
    spawn_options opt = {.stdin_text = c->stdin_pizzas ? pizzas_text : c->stdin_text,
                         .stdout_path = c->stdout_path,
                         .signal = c->sigint_after_ms ? (c->signo ? c->signo : SIGINT) : 0,
                         .signal_after_ms = c->sigint_after_ms,
                         .cwd = cwd};
    char *asan_options = getenv("ASAN_OPTIONS") ? strdup(getenv("ASAN_OPTIONS")) : NULL;
    if (c->memory_mb)
        limit_memory(c->memory_mb, asan_options);
    spawn_output o = c->memory_mb && !sanitized()
                         ? run_bench_limited(c->args, "-v", c->memory_mb * 1024L, &opt)
                     : c->nofile ? run_bench_limited(c->args, "-n", c->nofile, &opt)
                                 : run_bench(c->args, &opt);
    free(cwd);
    if (asan_options)
        setenv("ASAN_OPTIONS", asan_options, 1);
    else
        unsetenv("ASAN_OPTIONS");
    free(asan_options);
    failure[0] = '\0';
    if (sanitizer_report(o.err, c->memory_mb != 0))
        snprintf(failure, sizeof failure, "%s: a sanitizer reported:\n%s", cmd, o.err);
    else if (o.status != c->status)
        snprintf(failure, sizeof failure,
                 "%s: exit status %d, want %d\n--- stdout:\n%s\n--- stderr:\n%s", cmd, o.status,
                 c->status, o.out, o.err);
    has_substring("stdout", o.out, c->out, cmd);
    has_substring("stderr", o.err, c->err, cmd);
    if (!failure[0] && c->out_empty && o.out_len != 0)
        snprintf(failure, sizeof failure, "%s: stdout should be empty, was:\n%s", cmd, o.out);
    if (failure[0]) {
        spawn_output_free(&o);
        fail_msg("%s", failure);
    }
    if (c->check)
        c->check(&o);
    spawn_output_free(&o);
}

/* On a terminal, a timed pass shows a live line with its rate and how long
 * is left: bench's stderr is a pseudo-terminal here, read to its end. */
static void test_live_line_shows_rate_and_eta(void **state)
{
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    assert_true(master >= 0);
    assert_int_equal(grantpt(master), 0);
    assert_int_equal(unlockpt(master), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, ptsname(master), O_RDWR | O_NOCTTY, 0);
    posix_spawn_file_actions_addclose(&fa, master);
    char *argv[] = {(char *)spawn_bench_path(),
                    "run",
                    "--targets",
                    "memory",
                    "--duration",
                    "2s",
                    "--runs",
                    "1",
                    "--format",
                    "json",
                    "specs/pizzas.yaml",
                    NULL};
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    char *text = NULL, buf[4096];
    size_t len = 0;
    ssize_t got;
    while ((got = read(master, buf, sizeof buf)) > 0 || (got < 0 && errno == EINTR))
        if (got > 0)
            spawn_append(&text, &len, buf, (size_t)got);
    close(master); /* EIO: every writer of the terminal is gone */
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    assert_non_null(text);
    if (!strstr(text, " commands/s, p50 ") || !strstr(text, "% done, ETA "))
        fail_msg("no live line with a rate and an ETA in:\n%s", text);
    free(text);
}

static void test_cli_table_has_enough_rows(void **state)
{
    assert_true(sizeof cases / sizeof *cases >= 25);
}

int main(void)
{
    if (!getcwd(srcdir, sizeof srcdir))
        return 1;
    FILE *f = fopen(pizzas_path, "r");
    pizzas_text = calloc(1, 1 << 20);
    if (!f || !pizzas_text)
        return 1;
    fread(pizzas_text, 1, (1 << 20) - 1, f);
    fclose(f);
    enum { NCASES = sizeof cases / sizeof *cases };
    static char names[NCASES][256];
    struct CMUnitTest tests[NCASES + 2];
    tests[0] = (struct CMUnitTest){"table has enough rows", test_cli_table_has_enough_rows, NULL,
                                   NULL, NULL};
    tests[1] = (struct CMUnitTest){"live line shows rate and ETA",
                                   test_live_line_shows_rate_and_eta, NULL, NULL, NULL};
    for (size_t i = 0; i < NCASES; i++) {
        describe_args(&cases[i], names[i], sizeof names[i]);
        tests[i + 2] = (struct CMUnitTest){names[i], test_cli_case, NULL, NULL, (void *)&cases[i]};
    }
    return _cmocka_run_group_tests("cli", tests, NCASES + 2, make_scratch, remove_scratch);
}
