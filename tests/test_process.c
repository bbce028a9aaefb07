/* test_process.c: the process target against real children over real
 * pipes: `bench serve` on pizzas and banking (verify through the count
 * request, a finite round-trip floor), queries with their answers checked
 * (bench serve, the Python runtime, a runtime without queries, returns of
 * the wrong type), the Python runtime under examples/,
 * verb renames, a runtime without the count request (verify n/a), and the
 * children that misbehave: one that crashes, one that hangs (with a
 * grandchild), one that prints garbage. Each of those fails its run with
 * its last stderr line in the reason, and afterwards nothing it started is
 * left: no child of this process, running or unreaped, and no pid the
 * fixture recorded. Also --process-cmd, skips with a sentence, the driver
 * on its own, and `bench run` itself, interrupted and not. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_spawn.h"
#include "process.h"
#include "runner.h"
#include "serve_spawn.h"
#include "spec.h"

#define FIXTURE "tests/fixtures/bad_child.sh"

/* ---- what is left behind ---- */

/* Processes whose parent is this test, zombies included. */
static int children_left(void)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = '\0';
        char *paren = strrchr(buf, ')'); /* the command name may hold anything */
        int ppid;
        char state;
        if (paren && sscanf(paren + 1, " %c %d", &state, &ppid) == 2 && ppid == getpid())
            n++;
    }
    closedir(d);
    return n;
}

/* Every pid the fixture wrote to pidfile is gone (not even a zombie). */
static void assert_pids_gone(const char *pidfile, int at_least)
{
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    int pid, n = 0;
    while (fscanf(f, "%d", &pid) == 1) {
        n++;
        /* a grandchild is reaped by init, asynchronously: give it a moment */
        for (int i = 0; i < 200 && kill(pid, 0) == 0; i++)
            usleep(10000);
        if (kill(pid, 0) == 0 || errno != ESRCH)
            fail_msg("pid %d from %s is still there", pid, pidfile);
    }
    fclose(f);
    assert_true(n >= at_least);
}

/* ---- scratch specs ---- */

static struct {
    char dir[64];
    char spec[128];
    char pids[128];
    spec s;
    listening server; /* bench serve --listen, for connect */
} scratch;

static int scratch_teardown(void **state)
{
    listen_free(&scratch.server);
    if (scratch.s.p || scratch.s.dc)
        spec_close(&scratch.s);
    if (scratch.dir[0])
        spawn_remove_dir(scratch.dir);
    memset(&scratch, 0, sizeof scratch);
    return 0;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* A copy of base with its targets replaced; {PIDS} in targets becomes the
 * scratch pid file, {DIR} the scratch directory. Opens it into scratch.s
 * and returns its plan. */
static const plan *scratch_spec(const char *base, const char *targets)
{
    snprintf(scratch.dir, sizeof scratch.dir, "/tmp/test_process.XXXXXX");
    assert_non_null(mkdtemp(scratch.dir));
    snprintf(scratch.spec, sizeof scratch.spec, "%s/spec.yaml", scratch.dir);
    snprintf(scratch.pids, sizeof scratch.pids, "%s/pids", scratch.dir);
    char *text = read_file(base);
    char *cut = strstr(text, "\n  targets:");
    assert_non_null(cut);
    cut[1] = '\0';
    FILE *f = fopen(scratch.spec, "w");
    assert_non_null(f);
    fputs(text, f);
    fputs("  targets:\n", f);
    for (const char *t = targets; *t; t++) {
        if (!strncmp(t, "{PIDS}", 6)) {
            fputs(scratch.pids, f);
            t += 5;
        } else if (!strncmp(t, "{DIR}", 5)) {
            fputs(scratch.dir, f);
            t += 4;
        } else {
            fputc(*t, f);
        }
    }
    assert_int_equal(fclose(f), 0);
    diag_list d = {0};
    spec_status st = spec_open(scratch.spec, &d, &scratch.s);
    for (size_t i = 0; st != SPEC_OK && i < d.count; i++)
        print_error("%s:%d:%d: %s\n", d.items[i].file, d.items[i].line, d.items[i].col,
                    d.items[i].message);
    diag_list_free(&d);
    assert_int_equal(st, SPEC_OK);
    return scratch.s.p;
}

static run_options options(int64_t warmup, int64_t iterations, int64_t runs)
{
    return (run_options){.iterations = iterations, .warmup = warmup, .runs = runs, .quiet = true};
}

static int run(const plan *p, const run_options *o, report *r)
{
    const plan *plans[] = {p};
    return runner_run(plans, 1, o, r);
}

static const target_result *only_result(const report *r)
{
    assert_int_equal(r->nresults, 1);
    return &r->results[0];
}

static void assert_contains(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("'%s' does not contain '%s'", text, part);
}

static bool python_here(void)
{
    return system("command -v python3 >/dev/null 2>&1") == 0;
}

/* ---- runs that pass ---- */

/* Two runs of p's only target pass, verified, each with a floor. */
static void runs_and_verifies(const plan *p)
{
    size_t steps = p->work.flows[0].nsteps;
    run_options o = options(20, 200, 2);
    report r = {0};
    assert_int_equal(run(p, &o, &r), 0);
    const target_result *tr = only_result(&r);
    if (tr->failed)
        fail_msg("%s", tr->reason);
    assert_int_equal(tr->verify, VERIFY_PASS);
    assert_int_equal(tr->nruns, 2);
    for (size_t i = 0; i < tr->nruns; i++) {
        assert_int_equal(tr->runs[i].fig.commands, 200 * steps);
        double floor = tr->runs[i].roundtrip_floor_p50_ns;
        assert_true(isfinite(floor) && floor > 0);
    }
    report_free(&r);
}

static void passes_with_floor(const char *base, const char *targets)
{
    runs_and_verifies(scratch_spec(base, targets));
    assert_int_equal(children_left(), 0);
}

static void test_bench_serve_runs_pizzas_and_verifies(void **state)
{
    passes_with_floor("specs/pizzas.yaml", "    - process\n");
}

static void test_bench_serve_runs_banking_and_verifies(void **state)
{
    passes_with_floor("specs/banking.yaml", "    - process\n");
}

/* A for_each policy over the cart's lines, through bench serve. */
static void test_bench_serve_runs_cart_and_verifies(void **state)
{
    passes_with_floor("examples/cart.yaml", "    - process\n");
}

static void test_python_runtime_runs_pizzas_and_verifies(void **state)
{
    if (!python_here())
        skip();
    passes_with_floor("specs/pizzas.yaml", "    - process: {label: python, command: [python3, "
                                           "examples/pizzas_runtime.py]}\n");
}

static void test_python_runtime_with_qualified_verb_names(void **state)
{
    if (!python_here())
        skip();
    passes_with_floor("specs/pizzas.yaml",
                      "    - process:\n"
                      "        label: python\n"
                      "        command: [python3, examples/pizzas_runtime.py, --verb-prefix, "
                      "'Pizzas::']\n"
                      "        verbs: {Order.CreatePizza: 'Pizzas::Order.CreatePizza',\n"
                      "                Order.AddTopping: 'Pizzas::Order.AddTopping',\n"
                      "                Order.Purchase: 'Pizzas::Order.Purchase'}\n");
}

/* A spec with a query step that checks the answer: bench serve and the
 * Python runtime answer {"query": ...} lines, and the answers match. */
static void test_bench_serve_answers_queries_and_verifies(void **state)
{
    passes_with_floor("examples/pizza_status.yaml", "    - process\n");
}

static void test_python_runtime_answers_queries_and_verifies(void **state)
{
    if (!python_here())
        skip();
    passes_with_floor("examples/pizza_status.yaml",
                      "    - process: {label: python, command: [python3, "
                      "examples/pizzas_runtime.py]}\n");
}

/* The step where the first Order.Status of examples/pizza_status.yaml stands. */
static int first_query_line(void)
{
    for (size_t i = 0; i < scratch.s.p->work.flows[0].nsteps; i++)
        if (scratch.s.p->work.flows[0].steps[i].cmd->query)
            return scratch.s.p->work.flows[0].steps[i].at->line;
    fail_msg("no query step");
    return 0;
}

/* runs runs of p's only target, of 2 warmup and 20 timed cycles, of which
 * one fails: its result. */
static const target_result *run_fails(const plan *p, int64_t runs, report *r)
{
    run_options o = options(2, 20, runs);
    assert_int_equal(run(p, &o, r), 1);
    const target_result *tr = only_result(r);
    assert_true(tr->failed);
    return tr;
}

static void fails_at_the_first_query(const char *targets, const char *why)
{
    report r = {0};
    const target_result *tr = run_fails(scratch_spec("examples/pizza_status.yaml", targets), 1, &r);
    char want[1024];
    snprintf(want, sizeof want, "run 1, warmup cycle 0, Order.Status (%s:%d): %s", scratch.spec,
             first_query_line(), why);
    if (strncmp(tr->reason, want, strlen(want)) != 0)
        fail_msg("reason '%s'\n  does not start with '%s'", tr->reason, want);
    report_free(&r);
    assert_int_equal(children_left(), 0);
}

/* The seed framework's loop knows no query request: a spec without queries
 * runs on it as before (nothing new is sent; the seed runtime tests above),
 * and one with a query fails at the first query with the runtime's own
 * refusal of the line. */
static void test_a_runtime_without_queries_fails_at_the_first_query(void **state)
{
    if (!python_here())
        skip();
    fails_at_the_first_query("    - process: {verb_prefix: \"Pizzas::\", command: [python3, "
                             "tests/fixtures/hecks_runtime.py, pizzas]}\n",
                             "step needs verb, dry_run, snapshot, restore, or instances");
}

/* Returns of the wrong type fail the run, decoded after the clock stops. */
static void test_returns_that_are_not_the_querys_fail_the_run(void **state)
{
    if (!python_here())
        skip();
    fails_at_the_first_query("    - process: {command: [python3, tests/fixtures/liar_runtime.py, "
                             "returns]}\n",
                             "python3 answered Order.Status with returns that are not the query's: "
                             "toppings: expected an integer, got a string");
}

/* A scan answered wrongly fails the run at the first scan, decoded after
 * the clock stops: no rows array, rows of the wrong types, more rows than
 * the limit (tests/fixtures/ranges.yaml scans with count 2). */
static void test_scan_answers_that_are_not_the_scans_fail_the_run(void **state)
{
    static const struct {
        const char *answer, *why;
    } cases[] = {
        {"{\"ok\":true,\"returns\":{\"key\":\"user0\",\"n\":0}}",
         "sh answered the scan User.Scan without a rows array"},
        {"{\"ok\":true,\"rows\":[{\"key\":1,\"n\":0}]}",
         "sh answered User.Scan with rows that are not the scan's: [0].key: expected a string, got "
         "a number"},
        {"{\"ok\":true,\"rows\":[{\"key\":\"a\",\"n\":0},{\"key\":\"b\",\"n\":1},{"
         "\"key\":\"c\",\"n\":2}]}",
         "sh answered User.Scan with 3 rows; its limit was 2"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char targets[512];
        snprintf(targets, sizeof targets,
                 "    - process: {command: [/bin/sh, " FIXTURE ", scan, {PIDS}, '0', '%s']}\n",
                 cases[i].answer);
        report r = {0};
        const target_result *tr =
            run_fails(scratch_spec("tests/fixtures/ranges.yaml", targets), 1, &r);
        char want[1024];
        snprintf(want, sizeof want, "run 1, warmup cycle 0, User.Scan (%s:20): %s", scratch.spec,
                 cases[i].why);
        if (strncmp(tr->reason, want, strlen(want)) != 0)
            fail_msg("reason '%s'\n  does not start with '%s'", tr->reason, want);
        report_free(&r);
        assert_int_equal(children_left(), 0);
        scratch_teardown(NULL);
    }
}

/* The fixture answers only Pizzas::Order.* verbs: with the renames the run
 * passes; without them the first command is refused. */
static void test_verb_renames_reach_the_runtime(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml",
                                 "    - process:\n"
                                 "        command: [/bin/sh, " FIXTURE ", rename, {PIDS}]\n"
                                 "        verbs: {Order.CreatePizza: 'Pizzas::Order.CreatePizza',\n"
                                 "                Order.AddTopping: 'Pizzas::Order.AddTopping',\n"
                                 "                Order.Purchase: 'Pizzas::Order.Purchase'}\n"
                                 "    - process:\n"
                                 "        label: plain\n"
                                 "        command: [/bin/sh, " FIXTURE ", rename, {PIDS}]\n");
    run_options o = options(2, 20, 1);
    report r = {0};
    assert_int_equal(run(p, &o, &r), 1);
    assert_int_equal(r.nresults, 2);
    assert_false(r.results[0].failed);
    assert_int_equal(r.results[0].verify, VERIFY_NA); /* the fixture does not count */
    assert_true(r.results[1].failed);
    assert_contains(r.results[1].reason, "Order.CreatePizza");
    assert_contains(r.results[1].reason, "unknown verb");
    report_free(&r);
    assert_int_equal(children_left(), 0);
    assert_pids_gone(scratch.pids, 2);
}

static void test_a_runtime_without_the_count_request_verifies_na(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", "    - process: {command: [/bin/sh, " FIXTURE
                                                      ", count, {PIDS}]}\n");
    run_options o = options(2, 20, 1);
    report r = {0};
    assert_int_equal(run(p, &o, &r), 0);
    const target_result *tr = only_result(&r);
    assert_false(tr->failed);
    assert_int_equal(tr->verify, VERIFY_NA);
    assert_true(isfinite(tr->runs[0].roundtrip_floor_p50_ns));
    report_free(&r);
    assert_pids_gone(scratch.pids, 1);
}

/* The seed framework's --serve loop (tests/fixtures/hecks_runtime.py speaks
 * it): qualified verbs by the one-line verb_prefix, its value-object
 * argument shapes, no count and no record request, so verify by state reads
 * the records back from its {"instances":true} dump. */
static void seed_runtime_verifies_state(const char *base, const char *targets)
{
    if (!python_here())
        skip();
    const plan *p = scratch_spec(base, targets);
    run_options o = options(20, 200, 1);
    o.verify = VERIFY_LEVEL_STATE;
    report r = {0};
    assert_int_equal(run(p, &o, &r), 0);
    const target_result *tr = only_result(&r);
    if (tr->failed)
        fail_msg("%s", tr->reason);
    if (tr->verify != VERIFY_PASS)
        fail_msg("verify: %s", tr->verify_detail);
    assert_string_equal(tr->verify_level, "state");
    assert_true(isfinite(tr->runs[0].roundtrip_floor_p50_ns)); /* it refuses {} */
    report_free(&r);
    assert_int_equal(children_left(), 0);
}

static void test_seed_runtime_runs_pizzas_and_verifies_state(void **state)
{
    seed_runtime_verifies_state("specs/pizzas.yaml",
                                "    - process: {verb_prefix: \"Pizzas::\", command: [python3, "
                                "tests/fixtures/hecks_runtime.py, pizzas]}\n");
}

static void test_seed_runtime_runs_banking_and_verifies_state(void **state)
{
    seed_runtime_verifies_state("specs/banking.yaml",
                                "    - process: {verb_prefix: \"Banking::\", command: [python3, "
                                "tests/fixtures/hecks_runtime.py, banking]}\n");
}

/* ---- children that misbehave ---- */

static const target_result *fails(const char *targets, report *r, double *seconds)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", targets);
    run_options o = options(1, 10, 1);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(run(p, &o, r), 1);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    const target_result *tr = only_result(r);
    assert_true(tr->failed);
    assert_int_equal(r->nfailed, 1);
    assert_int_equal(children_left(), 0);
    return tr;
}

static void test_a_child_that_crashes_fails_the_run(void **state)
{
    report r = {0};
    double s;
    /* 4 warmup answers, then 2 timed, then it dies on the 7th request */
    const target_result *tr =
        fails("    - process: {command: [/bin/sh, " FIXTURE ", crash, {PIDS}, '6']}\n", &r, &s);
    assert_contains(tr->reason, "run 1, timed cycle 1, Order.AddTopping");
    assert_contains(tr->reason, "sh exited with status 3 without answering");
    assert_contains(tr->reason, "its stderr ended with: boom: simulated crash");
    report_free(&r);
    assert_pids_gone(scratch.pids, 1);
}

static void test_a_child_that_hangs_fails_the_run_after_its_timeout(void **state)
{
    report r = {0};
    double s;
    const target_result *tr = fails("    - process: {command: [/bin/sh, " FIXTURE
                                    ", hang, {PIDS}, '2'], timeout_ms: 300}\n",
                                    &r, &s);
    assert_contains(tr->reason, "run 1, warmup cycle 0, Order.AddTopping");
    assert_contains(tr->reason, "sh did not answer within 300 ms");
    assert_contains(tr->reason, "its stderr ended with: hanging now");
    assert_true(s < 3.0); /* the timeout, then SIGTERM: no grace for a broken child */
    report_free(&r);
    assert_pids_gone(scratch.pids, 2); /* the shell and its sleeping child */
}

/* Kills what a test's runtime started outside its process group (bench
 * cannot reach a new session), by the pids in its pid file. */
static void kill_detached(const char *pidfile)
{
    FILE *f = fopen(pidfile, "r");
    assert_non_null(f);
    int pid;
    while (fscanf(f, "%d", &pid) == 1)
        kill(pid, SIGKILL);
    fclose(f);
}

/* A runtime that exits while a grandchild in another session holds its
 * stdout: no end of file comes, and the run still fails at once. */
static void test_a_child_that_exits_leaving_its_stdout_open_fails_at_once(void **state)
{
    report r = {0};
    double s;
    const target_result *tr = fails("    - process: {command: [/bin/sh, " FIXTURE
                                    ", detach, {PIDS}, '2'], timeout_ms: 5000}\n",
                                    &r, &s);
    assert_contains(tr->reason, "sh exited with status 0 without answering (a process it started "
                                "still holds its stdout open)");
    assert_true(s < 3.0); /* not the 5 s timeout, nor the sleeper's hour */
    report_free(&r);
    kill_detached(scratch.pids);
}

/* A runtime that hangs while such a grandchild holds its stdout: killing
 * its group brings no end of file either; the timeout still holds. */
static void test_a_timeout_holds_while_a_grandchild_holds_the_pipe(void **state)
{
    report r = {0};
    double s;
    const target_result *tr = fails("    - process: {command: [/bin/sh, " FIXTURE
                                    ", detach-hang, {PIDS}, '2'], timeout_ms: 300}\n",
                                    &r, &s);
    assert_contains(tr->reason, "sh did not answer within 300 ms");
    assert_true(s < 3.0);
    report_free(&r);
    kill_detached(scratch.pids);
}

static void test_a_child_that_prints_garbage_fails_the_run(void **state)
{
    report r = {0};
    double s;
    const target_result *tr =
        fails("    - process: {command: [/bin/sh, " FIXTURE ", garbage, {PIDS}, '1']}\n", &r, &s);
    assert_contains(tr->reason, "run 1, warmup cycle 0, Order.AddTopping");
    assert_contains(tr->reason, "sh answered something that is not a protocol line: 'hello there'");
    assert_contains(tr->reason, "its stderr ended with: about to print garbage");
    report_free(&r);
    assert_pids_gone(scratch.pids, 1);
}

/* The first two targets of p are skipped with these reasons, and the
 * third, memory, runs. */
static void skips_two(const plan *p, const char *process_cmd, const char *why0, const char *why1)
{
    run_options o = options(1, 5, 1);
    o.process_cmd = process_cmd;
    report r = {0};
    assert_int_equal(run(p, &o, &r), 0);
    assert_int_equal(r.nskipped, 2);
    assert_string_equal(r.skipped[0].reason, why0);
    assert_string_equal(r.skipped[1].reason, why1);
    assert_string_equal(only_result(&r)->label, "memory");
    report_free(&r);
}

static void test_a_program_that_cannot_start_is_skipped_with_a_sentence(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml",
                                 "    - process: {label: a, command: [no-such-runtime-here]}\n"
                                 "    - process: {label: b, command: [/no/such/runtime]}\n"
                                 "    - memory\n");
    skips_two(p, NULL,
              "no-such-runtime-here is not installed here (not on PATH); install it or set the "
              "process target's command",
              "/no/such/runtime does not exist or is not executable here; fix the process "
              "target's command");
}

static void test_process_cmd_replaces_the_command(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", "    - process\n");
    char cmd[256];
    snprintf(cmd, sizeof cmd, "/bin/sh  " FIXTURE " count %s", scratch.pids);
    run_options o = options(1, 5, 1);
    o.process_cmd = cmd;
    report r = {0};
    assert_int_equal(run(p, &o, &r), 0);
    assert_int_equal(only_result(&r)->verify, VERIFY_NA); /* the fixture ran, not bench serve */
    report_free(&r);
    assert_pids_gone(scratch.pids, 1);
}

/* ---- the driver on its own ---- */

static void test_driver_round_trips_probe_count_and_close(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", "    - process\n");
    const target_driver *drv = target_find("process");
    char err[256] = "";
    target *t;
    assert_int_equal(target_available(drv, &p->work.targets[0], err, sizeof err), 0);
    assert_int_equal(target_open(drv, p, &p->work.targets[0], 1, &t, err, sizeof err), TARGET_OK);
    pid_t pid = process_target_pid(t);
    assert_true(pid > 0);
    const step *create = &p->work.flows[0].steps[0]; /* its template placeholder names pizza-0 */
    assert_int_equal(target_prepare(t, create->cmd, &create->args), TARGET_OK);
    assert_int_equal(target_dispatch(t, create->cmd, &create->args), TARGET_OK);
    assert_int_equal(target_dispatch(t, create->cmd, &create->args), TARGET_REFUSED);
    assert_string_equal(t->message, "Order.CreatePizza refused: Order 'pizza-0' already exists");
    assert_int_equal(target_probe(t), TARGET_REFUSED);
    assert_string_equal(t->message, "empty request");
    uint64_t aggs[1], events[3];
    assert_int_equal(target_count(t, aggs, events), TARGET_OK);
    assert_int_equal(aggs[0], 1);
    assert_int_equal(events[0], 1);
    assert_int_equal(events[1], 0);
    target_close(t);
    assert_int_equal(kill(pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    assert_int_equal(children_left(), 0);
}

/* A for_each policy whose command emits: a success answers that event once
 * per item, as many as the list holds, and the policies after it follow;
 * the driver takes every such answer. */
static void test_driver_takes_an_event_per_item_of_a_for_each(void **state)
{
    static const char yaml[] =
        "spec: 1\n"
        "domain: boxes\n"
        "aggregates:\n"
        "  Box:\n"
        "    identity: id\n"
        "    fields: {id: string, names: {list: string}}\n"
        "    commands:\n"
        "      Make: {creates: true, params: {id: string, names: {list: string}},\n"
        "             set: {names: arg.names}}\n"
        "      Pack:\n"
        "        params: {id: string}\n"
        "        emits: {event: Packed, payload: {id: arg.id, names: names}}\n"
        "      Note: {params: {id: string}, emits: Noted}\n"
        "  Label:\n"
        "    identity: name\n"
        "    fields: {name: string}\n"
        "    commands:\n"
        "      Claim: {creates: true, params: {name: string}, emits: Claimed}\n"
        "policies:\n"
        "  - {when: Packed, for_each: event.names, run: Label.Claim, args: {name: item}}\n"
        "  - {when: Packed, run: Box.Note, args: {id: event.id}}\n"
        "workload:\n"
        "  cycle:\n"
        "    - Box.Make: {id: b, names: [x, y, z]}\n"
        "    - Box.Pack: {id: b}\n"
        "    - Box.Make: {id: e, names: []}\n"
        "    - Box.Pack: {id: e}\n"
        "  targets:\n"
        "    - memory\n";
    char base[] = "/tmp/test_process_boxes.XXXXXX";
    int fd = mkstemp(base);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, yaml, sizeof yaml - 1), (ssize_t)(sizeof yaml - 1));
    close(fd);
    const plan *p = scratch_spec(base, "    - process\n");
    unlink(base);
    const target_driver *drv = target_find("process");
    char err[256] = "";
    target *t;
    assert_int_equal(target_open(drv, p, &p->work.targets[0], 1, &t, err, sizeof err), TARGET_OK);
    for (size_t i = 0; i < p->work.flows[0].nsteps; i++) {
        const step *st = &p->work.flows[0].steps[i];
        assert_int_equal(target_prepare(t, st->cmd, &st->args), TARGET_OK);
        assert_int_equal(target_dispatch(t, st->cmd, &st->args), TARGET_OK);
        if (target_settle(t, st->cmd) != TARGET_OK)
            fail_msg("step %zu: %s", i + 1, t->message);
    }
    uint64_t aggs[2], events[3]; /* Packed, Noted, Claimed */
    assert_int_equal(target_count(t, aggs, events), TARGET_OK);
    assert_int_equal(aggs[1], 3);
    assert_int_equal(events[0], 2);
    assert_int_equal(events[1], 2);
    assert_int_equal(events[2], 3);
    target_close(t);
    assert_int_equal(children_left(), 0);
}

/* ---- connect: a server that is already running ---- */

#define SERVED "    - process: {label: served, connect: \"unix:{DIR}/s.sock\"}\n"

/* bench serve --listen on store (NULL: memory), serving the scratch spec's
 * domain at unix:{DIR}/s.sock; its address in addr. */
static void serve_scratch(const char *store, char *addr, size_t size)
{
    snprintf(addr, size, "unix:%s/s.sock", scratch.dir);
    assert_true(listen_start(&scratch.server, store, addr, scratch.spec));
}

/* The server stops with 0 and wrote nothing but its address; nothing is
 * left of it. */
static void stop_scratch_server(void)
{
    assert_int_equal(listen_stop(&scratch.server, SIGTERM), 0);
    assert_string_equal(scratch.server.log, "");
    assert_int_equal(children_left(), 0);
}

/* Two runs against one server: each starts with a reset, so verify holds
 * the server to that run's commands, on the memory and the sqlite store. */
static void connect_runs_and_verifies(const char *store)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", SERVED);
    char addr[200];
    serve_scratch(store, addr, sizeof addr);
    runs_and_verifies(p);
    stop_scratch_server();
}

static void test_connect_runs_pizzas_against_bench_serve_listen(void **state)
{
    connect_runs_and_verifies(NULL);
}

static void test_connect_runs_pizzas_against_bench_serve_listen_on_sqlite(void **state)
{
    connect_runs_and_verifies("sqlite");
}

/* Without the reset the second run meets the first one's records: its
 * first create is refused (and were it not, verify's counts, which are
 * this run's, would not hold). */
static void test_connect_without_reset_meets_the_first_runs_records(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml",
                                 "    - process: {connect: \"unix:{DIR}/s.sock\", reset: false}\n");
    char addr[200];
    serve_scratch(NULL, addr, sizeof addr);
    report r = {0};
    const target_result *tr = run_fails(p, 2, &r);
    assert_int_equal(tr->failed_run, 2);
    char want[600];
    snprintf(want, sizeof want,
             "run 2, warmup cycle 0, Order.CreatePizza (%s:%d): Order.CreatePizza refused: Order "
             "'pizza-0' already exists",
             scratch.spec, p->work.flows[0].steps[0].at->line);
    assert_string_equal(tr->reason, want);
    report_free(&r);
    stop_scratch_server();
}

/* A run that cannot have the server to itself fails at once, in the
 * server's words. */
static void test_connect_fails_the_run_when_the_server_refuses_the_reset(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", SERVED);
    char addr[200];
    serve_scratch(NULL, addr, sizeof addr);
    int other = listen_connect(addr);
    assert_true(other >= 0);
    report r = {0};
    const target_result *tr = run_fails(p, 1, &r);
    char want[1024];
    snprintf(want, sizeof want,
             "run 1: the server at %s refused to reset its store (reset refused: another "
             "connection is "
             "open, and a reset would empty the store under it); each run needs the server to "
             "itself, or the process target's reset: false",
             addr);
    assert_string_equal(tr->reason, want);
    report_free(&r);
    close(other);
    stop_scratch_server();
}

/* Nothing to connect to: skipped, with the sentence. So is a connect
 * target that --process-cmd gives a command. */
static void test_connect_to_nothing_is_skipped_with_a_sentence(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml",
                                 "    - process: {label: a, connect: \"unix:{DIR}/none.sock\"}\n"
                                 "    - process: {label: b, connect: \"tcp:127.0.0.1:1\"}\n"
                                 "    - memory\n");
    char want[600];
    snprintf(want, sizeof want,
             "no server accepts connections at unix:%s/none.sock (No such file or directory); "
             "start one (bench serve SPEC --listen unix:%s/none.sock) or fix the process "
             "target's connect",
             scratch.dir, scratch.dir);
    skips_two(p, NULL, want,
              "no server accepts connections at tcp:127.0.0.1:1 (Connection refused); start one "
              "(bench serve SPEC --listen tcp:127.0.0.1:1) or fix the process target's connect");
    static const char both[] = "the process target takes command or connect, not both "
                               "(--process-cmd gives every process target a command)";
    skips_two(p, "/bin/true", both, both);
}

/* The driver over a connection: the same round trips as with a child; a
 * server that has gone, and one that never answers (the watchdog shuts the
 * connection down), fail with the reason. */
static void test_driver_over_a_connection(void **state)
{
    const plan *p = scratch_spec("specs/pizzas.yaml", SERVED);
    const target_driver *drv = target_find("process");
    const target_spec *ts = &p->work.targets[0];
    char addr[200], err[512] = "", want[512];
    serve_scratch(NULL, addr, sizeof addr);
    target *t;
    assert_int_equal(target_available(drv, ts, err, sizeof err), 0);
    assert_int_equal(target_open(drv, p, ts, 1, &t, err, sizeof err), TARGET_OK);
    assert_int_equal(process_target_pid(t), 0);
    const step *create = &p->work.flows[0].steps[0];
    assert_int_equal(target_prepare(t, create->cmd, &create->args), TARGET_OK);
    assert_int_equal(target_dispatch(t, create->cmd, &create->args), TARGET_OK);
    assert_int_equal(target_settle(t, create->cmd), TARGET_OK);
    assert_int_equal(target_dispatch(t, create->cmd, &create->args), TARGET_REFUSED);
    assert_string_equal(t->message, "Order.CreatePizza refused: Order 'pizza-0' already exists");
    assert_int_equal(target_probe(t), TARGET_REFUSED);
    uint64_t aggs[1], events[3];
    assert_int_equal(target_count(t, aggs, events), TARGET_OK);
    assert_int_equal(aggs[0], 1);
    assert_int_equal(listen_stop(&scratch.server, SIGTERM), 0);
    assert_int_equal(target_dispatch(t, create->cmd, &create->args), TARGET_ERROR);
    snprintf(want, sizeof want, "the server at %s closed the connection before reading the request",
             addr);
    assert_string_equal(t->message, want);
    target_close(t);

    /* a socket that accepts connections and never answers */
    char path[200];
    snprintf(path, sizeof path, "%s/s.sock", scratch.dir);
    unlink(path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    memcpy(un.sun_path, path, strlen(path) + 1);
    assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof un), 0);
    assert_int_equal(listen(fd, 4), 0);
    const target_opt_value silent[] = {{.name = "connect", .s = addr},
                                       {.name = "reset", .b = false},
                                       {.name = "timeout_ms", .i = 300}};
    const target_spec quiet = {.name = "process", .label = "quiet", .opts = silent, .nopts = 3};
    assert_int_equal(target_open(drv, p, &quiet, 1, &t, err, sizeof err), TARGET_OK);
    assert_int_equal(target_prepare(t, create->cmd, &create->args), TARGET_OK);
    assert_int_equal(target_dispatch(t, create->cmd, &create->args), TARGET_ERROR);
    snprintf(want, sizeof want, "the server at %s did not answer within 300 ms", addr);
    assert_string_equal(t->message, want);
    target_close(t);
    /* with the reset, open itself waits for the answer */
    const target_opt_value resetting[] = {{.name = "connect", .s = addr},
                                          {.name = "timeout_ms", .i = 300}};
    const target_spec eager = {.name = "process", .label = "eager", .opts = resetting, .nopts = 2};
    assert_int_equal(target_open(drv, p, &eager, 1, &t, err, sizeof err), TARGET_ERROR);
    assert_null(t);
    assert_string_equal(err, want);
    close(fd);
    unlink(path);
    assert_int_equal(children_left(), 0);
}

/* ---- bench run ---- */

static void test_bench_run_prints_both_rows_and_the_floor(void **state)
{
    char *argv[] = {(char *)spawn_bench_path(),
                    "run",
                    "specs/pizzas.yaml",
                    "--targets",
                    "memory,process,python",
                    "--iterations",
                    "50",
                    "--warmup",
                    "5",
                    "--runs",
                    "1",
                    NULL};
    spawn_output o = spawn_run(argv);
    if (o.status != 0)
        fail_msg("status %d: %s", o.status, o.err);
    assert_contains(o.out, "| pizzas | memory");  /* "(unstable)" may follow */
    assert_contains(o.out, "| pizzas | process"); /* "(unstable)" may follow */
    assert_contains(o.out, "Round-trip floor (p50) for process (pizzas): ");
    if (python_here())
        assert_contains(o.out, "| pizzas | python"); /* "(unstable)" may follow */
    spawn_output_free(&o);

    /* without python3 on PATH the external runtime's row is a skip sentence */
    const char *path = getenv("PATH");
    char *saved = path ? strdup(path) : NULL;
    setenv("PATH", "/nonexistent-bench-test", 1);
    o = spawn_run(argv);
    if (saved)
        setenv("PATH", saved, 1);
    free(saved);
    if (o.status != 0)
        fail_msg("status %d: %s", o.status, o.err);
    assert_contains(o.err, "skip python: python3 is not installed here (not on PATH); install it "
                           "or set the process target's command");
    assert_contains(o.out, "| pizzas | process"); /* "(unstable)" may follow */
    assert_contains(o.out, "- python: python3 is not installed here");
    spawn_output_free(&o);
}

/* The pids of processes whose command line holds needle. */
static int find_processes(const char *needle, pid_t *out, int max)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < max) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        for (size_t i = 0; i < len; i++)
            if (!buf[i])
                buf[i] = ' ';
        buf[len] = '\0';
        if (strstr(buf, needle) && strstr(buf, " serve "))
            out[n++] = atoi(e->d_name);
    }
    closedir(d);
    return n;
}

/* Starts `bench run` on the scratch spec for a long time and returns its
 * pid once its `bench serve` child is up (its pid in *serving). */
static pid_t start_long_run(pid_t *serving)
{
    pid_t bench = fork();
    assert_true(bench >= 0);
    if (bench == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execl(spawn_bench_path(), spawn_bench_path(), "run", scratch.spec, "--iterations",
              "100000000", "--runs", "1", "--quiet", (char *)NULL);
        _exit(127);
    }
    pid_t found[4];
    int n = 0;
    for (int i = 0; i < 1000 && n == 0; i++) {
        usleep(10000);
        n = find_processes(scratch.spec, found, 4);
    }
    if (n != 1) { /* never leave a run of 100,000,000 cycles behind */
        kill(bench, SIGKILL);
        waitpid(bench, NULL, 0);
        fail_msg("%d bench serve processes for %s, not 1", n, scratch.spec);
    }
    *serving = found[0];
    usleep(200000); /* into the timed pass */
    return bench;
}

static void assert_gone_soon(pid_t pid)
{
    for (int i = 0; i < 300 && kill(pid, 0) == 0; i++)
        usleep(10000);
    assert_int_equal(kill(pid, 0), -1);
    pid_t left[4];
    assert_int_equal(find_processes(scratch.spec, left, 4), 0);
}

/* Ctrl-C stops bench at the next cycle; the child it started goes too. */
static void test_an_interrupted_run_leaves_no_child(void **state)
{
    scratch_spec("specs/pizzas.yaml", "    - process\n");
    pid_t serving;
    pid_t bench = start_long_run(&serving);
    assert_int_equal(kill(bench, SIGINT), 0);
    int status;
    assert_int_equal(waitpid(bench, &status, 0), bench);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 130);
    assert_gone_soon(serving);
}

/* A bench killed outright takes its child with it (PR_SET_PDEATHSIG). */
static void test_a_killed_bench_takes_its_child_along(void **state)
{
    scratch_spec("specs/pizzas.yaml", "    - process\n");
    pid_t serving;
    pid_t bench = start_long_run(&serving);
    assert_int_equal(kill(bench, SIGKILL), 0);
    assert_int_equal(waitpid(bench, NULL, 0), bench);
    assert_gone_soon(serving); /* reparented to init, which reaps it */
}

int main(void)
{
    process_target_set_self(spawn_bench_path());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_bench_serve_runs_pizzas_and_verifies, scratch_teardown),
        cmocka_unit_test_teardown(test_bench_serve_runs_banking_and_verifies, scratch_teardown),
        cmocka_unit_test_teardown(test_bench_serve_runs_cart_and_verifies, scratch_teardown),
        cmocka_unit_test_teardown(test_python_runtime_runs_pizzas_and_verifies, scratch_teardown),
        cmocka_unit_test_teardown(test_python_runtime_with_qualified_verb_names, scratch_teardown),
        cmocka_unit_test_teardown(test_bench_serve_answers_queries_and_verifies, scratch_teardown),
        cmocka_unit_test_teardown(test_python_runtime_answers_queries_and_verifies,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_without_queries_fails_at_the_first_query,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_returns_that_are_not_the_querys_fail_the_run,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_scan_answers_that_are_not_the_scans_fail_the_run,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_verb_renames_reach_the_runtime, scratch_teardown),
        cmocka_unit_test_teardown(test_a_runtime_without_the_count_request_verifies_na,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_seed_runtime_runs_pizzas_and_verifies_state,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_seed_runtime_runs_banking_and_verifies_state,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_child_that_crashes_fails_the_run, scratch_teardown),
        cmocka_unit_test_teardown(test_a_child_that_hangs_fails_the_run_after_its_timeout,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_child_that_exits_leaving_its_stdout_open_fails_at_once,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_timeout_holds_while_a_grandchild_holds_the_pipe,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_a_child_that_prints_garbage_fails_the_run, scratch_teardown),
        cmocka_unit_test_teardown(test_a_program_that_cannot_start_is_skipped_with_a_sentence,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_process_cmd_replaces_the_command, scratch_teardown),
        cmocka_unit_test_teardown(test_driver_round_trips_probe_count_and_close, scratch_teardown),
        cmocka_unit_test_teardown(test_driver_takes_an_event_per_item_of_a_for_each,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_connect_runs_pizzas_against_bench_serve_listen,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_connect_runs_pizzas_against_bench_serve_listen_on_sqlite,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_connect_without_reset_meets_the_first_runs_records,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_connect_fails_the_run_when_the_server_refuses_the_reset,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_connect_to_nothing_is_skipped_with_a_sentence,
                                  scratch_teardown),
        cmocka_unit_test_teardown(test_driver_over_a_connection, scratch_teardown),
        cmocka_unit_test(test_bench_run_prints_both_rows_and_the_floor),
        cmocka_unit_test_teardown(test_an_interrupted_run_leaves_no_child, scratch_teardown),
        cmocka_unit_test_teardown(test_a_killed_bench_takes_its_child_along, scratch_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
