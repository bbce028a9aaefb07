/* test_clients.c: many clients (DESIGN section 10) on the real stores: a
 * shared counter that 8 clients increment ends at exactly their
 * increments on memory, sqlite, postgres (when a server is reachable) and
 * bench serve --listen through the process target's connect (issue 11's
 * no-lost-update test); per-client figures and verify of a many-client
 * run; the same spec, seed and clients give the same per-client streams. */
#define _GNU_SOURCE /* sched_getaffinity */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_spawn.h"
#include "env.h"
#include "plan_fixture.h"
#include "report.h"
#include "report_html.h"
#include "results.h"
#include "runner.h"
#include "serve_spawn.h"
#include "store_driver.h"
#include "store_memory.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
enum { INCREMENTS = 1500 }; /* per client, under the sanitizers: the exact total still holds */
#else
enum { INCREMENTS = 10000 };
#endif
enum { CLIENTS = 8 };

static const char counter_head[] = "spec: 1\n"
                                   "domain: counter\n"
                                   "aggregates:\n"
                                   "  Counter:\n"
                                   "    identity: name\n"
                                   "    fields:\n"
                                   "      name: string\n"
                                   "      value: {type: int, default: 0}\n"
                                   "    commands:\n"
                                   "      Create:\n"
                                   "        creates: true\n"
                                   "        params: {name: string}\n"
                                   "        emits: Created\n"
                                   "      Increment:\n"
                                   "        params: {name: string}\n"
                                   "        set: {value: value + 1}\n"
                                   "        emits: Incremented\n"
                                   "workload:\n"
                                   "  keys: shared\n"
                                   "  setup:\n"
                                   "    - Counter.Create: {name: c}\n"
                                   "  cycle:\n"
                                   "    - Counter.Increment: {name: c}\n"
                                   "  warmup: 0\n"
                                   "  runs: 1\n";

/* The counter spec with clients, iterations and one target entry. */
static plan *counter_plan(int clients, int iterations, const char *entry)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s  clients: %d\n  iterations: %d\n  targets:\n    - %s\n",
             counter_head, clients, iterations, entry);
    return fx_compile(yaml);
}

/* A driver like the real one whose close first reads the counters back:
 * the final state, as the store holds it when the run ends (the sessions
 * close before the target that owns the store). Each read is a record of
 * an aggregate whose second field is its value. */
typedef struct counter_read {
    const aggregate *agg;
    const char *name;
    int64_t value;
} counter_read;

static target_driver wrapped;
static const target_driver *real;
static counter_read *reads;
static size_t nreads;

static void read_then_close(target *t)
{
    arena a = {0};
    for (size_t i = 0; i < nreads; i++) {
        value key = {
            .kind = VAL_STRING, .u.s = reads[i].name, .len = (uint32_t)strlen(reads[i].name)};
        value got;
        if (target_read(t, reads[i].agg, &key, &a, &got) == 1)
            reads[i].value = got.u.items[1].u.i;
    }
    arena_free(&a);
    real->close(t);
}

static const target_driver *wrap(const char *name)
{
    real = target_find(name);
    if (!real)
        return NULL;
    wrapped = *real;
    wrapped.close = read_then_close;
    return &wrapped;
}

static char *written(int (*writer)(const report *, FILE *), const report *r);
static int html_of(const report *r, FILE *out);

/* Runs p (one target, CLIENTS clients, each dispatching commands) and
 * checks that it passed verify and that each of the n counters read back
 * holds every increment. */
static void assert_exact(plan *p, report *r, counter_read *rd, size_t n, uint64_t commands)
{
    reads = rd;
    nreads = n;
    for (size_t i = 0; i < n; i++)
        rd[i].value = -1;
    run_options o = {.iterations = -1, .warmup = -1, .runs = -1, .quiet = true, .driver_for = wrap};
    const plan *plans[] = {p};
    int rc = runner_run(plans, 1, &o, r);
    if (r->nfailed)
        fail_msg("%s", r->failed[0].reason);
    assert_int_equal(rc, 0);
    assert_int_equal(r->nresults, 1);
    const target_result *tr = &r->results[0];
    assert_int_equal(tr->verify, VERIFY_PASS);
    assert_string_equal(tr->verify_level, "counts");
    assert_int_equal(tr->runs[0].nclients, CLIENTS);
    assert_int_equal(tr->runs[0].fig.commands, commands);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(rd[i].value, (int64_t)CLIENTS * INCREMENTS);
}

/* The counter spec's one counter, c. */
static void assert_no_lost_update(plan *p, report *r)
{
    counter_read c = {.agg = &p->aggs[0], .name = "c"};
    assert_exact(p, r, &c, 1, (uint64_t)CLIENTS * INCREMENTS);
}

static void run_counter(const char *entry)
{
    plan *p = counter_plan(CLIENTS, INCREMENTS, entry);
    report r = {0};
    assert_no_lost_update(p, &r);
    report_free(&r);
    plan_free(p);
}

static void test_clients_no_lost_update_on_memory(void **state)
{
    (void)state;
    run_counter("memory");
}

/* Two counters, each command one record: on memory each increment takes
 * the stripe of its counter only (the two are likely in different ones),
 * and both end exact. */
static void test_clients_no_lost_update_on_two_counters(void **state)
{
    (void)state;
    char yaml[4096];
    const char *cycle = strstr(counter_head, "  setup:");
    snprintf(yaml, sizeof yaml,
             "%.*s  setup:\n    - Counter.Create: {name: a}\n    - Counter.Create: {name: b}\n"
             "  cycle:\n    - Counter.Increment: {name: a}\n    - Counter.Increment: {name: b}\n"
             "  warmup: 0\n  runs: 1\n  clients: %d\n  iterations: %d\n  targets: [memory]\n",
             (int)(cycle - counter_head), counter_head, CLIENTS, INCREMENTS);
    plan *p = fx_compile(yaml);
    counter_read rd[] = {{.agg = &p->aggs[0], .name = "a"}, {.agg = &p->aggs[0], .name = "b"}};
    report r = {0};
    assert_exact(p, &r, rd, 2, (uint64_t)2 * CLIENTS * INCREMENTS);
    report_free(&r);
    plan_free(p);
}

/* A policy makes each increment a transaction of two records (the counter
 * and its total): memory then runs them one at a time on one stripe, and
 * the counters and the totals all end exact. */
static void test_clients_no_lost_update_across_two_records(void **state)
{
    (void)state;
    char yaml[8192];
    snprintf(
        yaml, sizeof yaml,
        "spec: 1\n"
        "domain: ledger\n"
        "aggregates:\n"
        "  Counter:\n"
        "    identity: name\n"
        "    fields: {name: string, value: {type: int, default: 0}}\n"
        "    commands:\n"
        "      Create: {creates: true, params: {name: string}}\n"
        "      Increment: {params: {name: string}, set: {value: value + 1}, emits: Incremented}\n"
        "  Total:\n"
        "    identity: name\n"
        "    fields: {name: string, value: {type: int, default: 0}}\n"
        "    commands:\n"
        "      Create: {creates: true, params: {name: string}}\n"
        "      Add: {params: {name: string}, set: {value: value + 1}}\n"
        "policies:\n"
        "  - {when: Incremented, run: Total.Add, args: {name: event.name}}\n"
        "workload:\n"
        "  keys: shared\n"
        "  setup:\n"
        "    - Counter.Create: {name: a}\n"
        "    - Counter.Create: {name: b}\n"
        "    - Total.Create: {name: a}\n"
        "    - Total.Create: {name: b}\n"
        "  cycle:\n"
        "    - Counter.Increment: {name: a}\n"
        "    - Counter.Increment: {name: b}\n"
        "  warmup: 0\n  runs: 1\n  clients: %d\n  iterations: %d\n  targets: [memory]\n",
        CLIENTS, INCREMENTS);
    plan *p = fx_compile(yaml);
    counter_read rd[] = {{.agg = &p->aggs[0], .name = "a"},
                         {.agg = &p->aggs[0], .name = "b"},
                         {.agg = &p->aggs[1], .name = "a"},
                         {.agg = &p->aggs[1], .name = "b"}};
    report r = {0};
    assert_exact(p, &r, rd, 4, (uint64_t)2 * CLIENTS * INCREMENTS);
    report_free(&r);
    plan_free(p);
}

/* A transaction that touches a second stripe while another client holds
 * it fails with a sentence instead of waiting (which could deadlock), and
 * rolls back; the other client's goes on. The counter spec gets the fine
 * stripes: one record per command. */
static void test_clients_memory_second_stripe_held_fails(void **state)
{
    (void)state;
    plan *p = counter_plan(2, 10, "memory");
    const store_driver *d = store_find("memory");
    store *s = NULL, *a = NULL, *b = NULL;
    char err[256];
    assert_int_equal(store_open(d, p, NULL, 0, &s, err, sizeof err), 0);
    assert_int_equal(d->session(s, &a, err, sizeof err), 0);
    assert_int_equal(d->session(s, &b, err, sizeof err), 0);
    value ka = {.kind = VAL_STRING, .u.s = "a", .len = 1}, kb = ka, got;
    char name[16];
    for (int i = 0; memory_store_stripe(s, &kb) == memory_store_stripe(s, &ka); i++) {
        snprintf(name, sizeof name, "b%d", i);
        kb = (value){.kind = VAL_STRING, .u.s = name, .len = (uint32_t)strlen(name)};
    }
    assert_int_equal(a->ops->begin(a), 0);
    assert_int_equal(a->ops->load(a, &p->aggs[0], &ka, &got), 0);
    assert_int_equal(b->ops->begin(b), 0);
    assert_int_equal(b->ops->load(b, &p->aggs[0], &kb, &got), 0);
    assert_int_equal(a->ops->load(a, &p->aggs[0], &kb, &got), -1);
    assert_string_equal(a->error,
                        "memory store: a transaction of several records met another client's");
    assert_int_equal(a->ops->rollback(a), 0);
    /* a's rollback released a's stripe: b's second one is free now */
    assert_int_equal(b->ops->load(b, &p->aggs[0], &ka, &got), 0);
    assert_int_equal(b->ops->commit(b), 0);
    d->session_close(a);
    d->session_close(b);
    store_close(s);
    plan_free(p);
}

static void test_clients_no_lost_update_on_sqlite(void **state)
{
    (void)state;
    run_counter("sqlite: {durability: off}");
}

static void test_clients_no_lost_update_on_postgres(void **state)
{
    (void)state;
    char why[512];
    const target_spec ts = {.name = "postgres", .label = "postgres"};
    const target_driver *drv = target_find("postgres");
    if (!drv || target_available(drv, &ts, why, sizeof why) != 0) {
        if (getenv("BENCH_PG_SCRATCH"))
            fail_msg("make test started a server, but %s", why);
        printf("test_clients: postgres skipped, %s\n", why);
        return;
    }
    run_counter("postgres: {durability: normal}");
}

/* Serializable PostgreSQL: the clients' increments conflict, the retry
 * option tries them again, the total stays exact and the retries are
 * reported per verb and in every format. */
static void test_clients_serializable_postgres_retries_and_says_so(void **state)
{
    (void)state;
    char why[512];
    const target_spec ts = {.name = "postgres", .label = "postgres"};
    const target_driver *drv = target_find("postgres");
    if (!drv || target_available(drv, &ts, why, sizeof why) != 0) {
        printf("test_clients: postgres skipped, %s\n", why);
        return;
    }
    plan *p = counter_plan(CLIENTS, INCREMENTS,
                           "postgres: {durability: normal, isolation: serializable, retry: "
                           "{max_tries: 100000}}");
    report r = {0};
    assert_no_lost_update(p, &r);
    const run_result *run = &r.results[0].runs[0];
    assert_int_equal(run->nverbs, 1);
    assert_true(run->verbs[0].retries > 0);
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    assert_int_equal(report_markdown(&r, f), 0);
    fclose(f);
    assert_non_null(strstr(md, "Contention: postgres (normal) (counter): "));
    assert_non_null(strstr(md, " retries (Counter.Increment "));
    free(md);
    cJSON *json = report_to_cjson(&r);
    const cJSON *verb = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(
                cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "results"), 0),
                    "runs"),
                0),
            "by_verb"),
        "Counter.Increment");
    assert_true(cJSON_GetObjectItemCaseSensitive(verb, "retries")->valuedouble ==
                (double)run->verbs[0].retries);
    cJSON_Delete(json);
    report_free(&r);
    plan_free(p);
}

/* Serializable PostgreSQL with retry: {max_tries: 1}: the clients'
 * conflicting increments fail on their only try; each is counted for its
 * verb and flow, its cycle abandoned, and the run goes on. Verify (counts,
 * with --verify state) passes, and the counter holds exactly the
 * increments that succeeded. */
static void test_clients_failures_after_retries_are_counted(void **state)
{
    (void)state;
    char why[512];
    const target_spec ts = {.name = "postgres", .label = "postgres"};
    const target_driver *drv = target_find("postgres");
    if (!drv || target_available(drv, &ts, why, sizeof why) != 0) {
        if (getenv("BENCH_PG_SCRATCH"))
            fail_msg("make test started a server, but %s", why);
        printf("test_clients: postgres skipped, %s\n", why);
        return;
    }
    plan *p = counter_plan(CLIENTS, INCREMENTS,
                           "postgres: {durability: normal, isolation: serializable, retry: "
                           "{max_tries: 1}}");
    counter_read c = {.agg = &p->aggs[0], .name = "c", .value = -1};
    reads = &c;
    nreads = 1;
    run_options o = {.iterations = -1,
                     .warmup = -1,
                     .runs = -1,
                     .quiet = true,
                     .verify = VERIFY_LEVEL_STATE,
                     .driver_for = wrap};
    const plan *plans[] = {p};
    report r = {0};
    int rc = runner_run(plans, 1, &o, &r);
    if (r.nfailed)
        fail_msg("%s", r.failed[0].reason);
    assert_int_equal(rc, 0);
    const target_result *tr = &r.results[0];
    const run_result *run = &tr->runs[0];
    assert_int_equal(tr->verify, VERIFY_PASS);
    assert_int_equal(run->nverbs, 1);
    uint64_t failed = run->verbs[0].failed;
    printf("test_clients: %" PRIu64 " increments succeeded, %" PRIu64 " failed\n",
           run->fig.commands, failed);
    assert_true(failed > 0);
    assert_int_equal(run->verbs[0].retries, 0); /* one try: none again */
    assert_int_equal(run->flows[0].failed, failed);
    assert_int_equal(run->fig.commands + failed, (uint64_t)CLIENTS * INCREMENTS);
    assert_int_equal(run->verbs[0].count, run->fig.commands);
    assert_int_equal(hist_count(&run->all), run->fig.commands); /* failures not in latency */
    assert_int_equal(c.value, (int64_t)run->fig.commands);
    char *md = written(report_markdown, &r);
    assert_non_null(strstr(md, "Failed after retries: postgres (normal) (counter): "));
    assert_non_null(strstr(md, " (Counter.Increment "));
    assert_non_null(strstr(md, ") failed on the last try, each rolled back, kept out of the "
                               "latencies and its cycle abandoned (all runs).\n"));
    free(md);
    char *csv = written(report_csv, &r);
    char tail[64];
    snprintf(tail, sizeof tail, ",%" PRIu64 "\n", failed);
    assert_non_null(strstr(csv, "retries,lock_waits,failed\n"));
    assert_non_null(strstr(csv, tail));
    free(csv);
    char *html = written(html_of, &r);
    assert_non_null(strstr(html, ") failed on the last try, each rolled back"));
    free(html);
    cJSON *json = report_to_cjson(&r);
    const cJSON *jrun = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "results"), 0), "runs"),
        0);
    const cJSON *verb = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(jrun, "by_verb"), "Counter.Increment");
    assert_true(cJSON_GetObjectItemCaseSensitive(verb, "failed")->valuedouble == (double)failed);
    cJSON_Delete(json);
    report_free(&r);
    plan_free(p);
}

/* A driver like memory that fails every 5th timed dispatch of one verb as
 * a conflict after the last try (TARGET_FAILED) without running it, as a
 * rolled-back transaction leaves the store. */
static target_driver conflicting;
static uint64_t dispatches;
static const char *conflict_verb;

static int conflict_dispatch(target *t, const command *cmd, const value *args)
{
    if (!strcmp(cmd->verb, conflict_verb) && ++dispatches % 5 == 0)
        return target_fail(t, TARGET_FAILED, "could not serialize access (after 1 try)");
    return target_find("memory")->dispatch(t, cmd, args);
}

static const target_driver *conflict_driver(const char *name)
{
    (void)name;
    conflicting = *target_find("memory");
    conflicting.dispatch = conflict_dispatch;
    return &conflicting;
}

/* One client on pizzas whose AddTopping conflicts now and then: each such
 * cycle stops there, the rest of it is not run, and the shadow replays only
 * what succeeded, so verify state (every record read back) passes. */
static void test_failed_cycles_are_abandoned_and_verify_holds(void **state)
{
    (void)state;
    char *text = read_file("specs/pizzas.yaml");
    plan *p = fx_compile(text);
    free(text);
    conflict_verb = "Order.AddTopping";
    dispatches = 0;
    run_options o = {.iterations = 300,
                     .warmup = 0,
                     .runs = 1,
                     .quiet = true,
                     .verify = VERIFY_LEVEL_STATE,
                     .only = (const char *const[]){"memory"},
                     .nonly = 1,
                     .driver_for = conflict_driver};
    const plan *plans[] = {p};
    report r = {0};
    int rc = runner_run(plans, 1, &o, &r);
    if (r.nfailed)
        fail_msg("%s", r.failed[0].reason);
    assert_int_equal(rc, 0);
    const target_result *tr = &r.results[0];
    assert_int_equal(tr->verify, VERIFY_PASS);
    assert_string_equal(tr->verify_level, "state");
    const run_result *run = &tr->runs[0];
    uint64_t failed = 0, abandoned = 0;
    for (size_t v = 0; v < run->nverbs; v++) {
        failed += run->verbs[v].failed;
        if (strcmp(run->verbs[v].verb, conflict_verb) != 0)
            assert_int_equal(run->verbs[v].failed, 0);
    }
    for (size_t f = 0; f < run->nflows; f++)
        abandoned += run->flows[f].failed;
    assert_true(failed > 0);
    assert_int_equal(abandoned, failed);
    report_free(&r);
    plan_free(p);
}

/* The null target, whose dispatch notes the CPUs the calling thread may
 * run on: each client thread's (pinned: one CPU, a bit in pinned_cpus);
 * the main thread's (setup, warmup) are not the pass's. */
static int pin_widest; /* the most CPUs a client thread could run on */
static unsigned long long pinned_cpus;
static pthread_t main_thread;
static int noting_dispatch(target *t, const command *cmd, const value *args)
{
    cpu_set_t set;
    if (!pthread_equal(pthread_self(), main_thread) &&
        sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        for (int seen = __atomic_load_n(&pin_widest, __ATOMIC_RELAXED); n > seen;)
            if (__atomic_compare_exchange_n(&pin_widest, &seen, n, false, __ATOMIC_RELAXED,
                                            __ATOMIC_RELAXED))
                break;
        for (int c = 0; n == 1 && c < 64; c++)
            if (CPU_ISSET(c, &set))
                __atomic_fetch_or(&pinned_cpus, 1ull << c, __ATOMIC_RELAXED);
    }
    return real->dispatch(t, cmd, args);
}

static const target_driver *wrap_noting(const char *name)
{
    real = target_find(name);
    wrapped = *real;
    wrapped.dispatch = noting_dispatch;
    return &wrapped;
}

/* As many driving threads as CPUs in force: each is pinned to a CPU of its
 * own (the scheduler here kept both on one CPU for much of a short pass),
 * and the placement says so; fewer threads (--threads 1) stay unpinned. */
static void test_clients_threads_pinned_a_cpu_each(void **state)
{
    (void)state;
    int ncpus = env_cpus_in_force();
    main_thread = pthread_self();
    for (int threads = 0; threads <= 1; threads++) { /* 0: as many as CPUs in force */
        pin_widest = 0;
        pinned_cpus = 0;
        plan *p = counter_plan(CLIENTS, 200, "null");
        run_options o = {.iterations = -1,
                         .warmup = -1,
                         .runs = -1,
                         .quiet = true,
                         .threads = threads,
                         .driver_for = wrap_noting};
        const plan *plans[] = {p};
        report r = {0};
        assert_int_equal(runner_run(plans, 1, &o, &r), 0);
        bool pins = threads == 0 && ncpus > 1 && ncpus <= CLIENTS && ncpus <= 64;
        const char *placement = r.results[0].placement;
        if (pins) {
            assert_int_equal(pin_widest, 1);
            assert_int_equal(__builtin_popcountll(pinned_cpus), ncpus); /* one each */
            assert_non_null(strstr(placement, ", each client thread pinned to one"));
        } else {
            assert_int_equal(pin_widest, ncpus);
            assert_null(strstr(placement, "pinned"));
        }
        report_free(&r);
        plan_free(p);
    }
}

static void test_clients_no_lost_update_through_serve_listen(void **state)
{
    (void)state;
    char dir[] = "/tmp/bench-clients-XXXXXX", sock[128], spec[128], entry[256];
    assert_non_null(mkdtemp(dir));
    snprintf(sock, sizeof sock, "unix:%s/s", dir);
    snprintf(spec, sizeof spec, "%s/counter.yaml", dir);
    FILE *f = fopen(spec, "w");
    assert_non_null(f);
    /* the server reads only the domain; warmup and runs as lint likes them */
    fprintf(f, "%.*s  warmup: 10\n  targets: [memory]\n",
            (int)(strstr(counter_head, "  warmup:") - counter_head), counter_head);
    fclose(f);
    listening l;
    assert_true(listen_start(&l, NULL, sock, spec));
    snprintf(entry, sizeof entry, "process: {connect: \"%.200s\"}", l.addr);
    plan *p = counter_plan(CLIENTS, INCREMENTS, entry);
    report r = {0};
    assert_no_lost_update(p, &r);
    assert_non_null(strstr(r.results[0].placement, "the server at unix:"));
    report_free(&r);
    plan_free(p);
    assert_int_equal(listen_stop(&l, SIGTERM), 0);
    listen_free(&l);
    unlink(spec);
    rmdir(dir);
}

/* Pizzas on memory with 4 clients on 2 threads: ${n} unique across clients
 * (no create is refused), verify passes on the summed tallies, and every
 * client's figures are there and add up. */
static void test_clients_per_client_figures_add_up(void **state)
{
    (void)state;
    char *text = read_file("specs/pizzas.yaml");
    plan *p = fx_compile(text);
    free(text);
    run_options o = {.iterations = 300,
                     .warmup = 10,
                     .runs = 1,
                     .clients = 4,
                     .threads = 2,
                     .quiet = true,
                     .only = (const char *const[]){"memory"},
                     .nonly = 1};
    const plan *plans[] = {p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    const run_result *run = &r.results[0].runs[0];
    assert_int_equal(r.results[0].verify, VERIFY_PASS);
    assert_int_equal(run->nclients, 4);
    assert_int_equal(run->threads, 2);
    uint64_t sum = 0;
    for (size_t c = 0; c < run->nclients; c++) {
        assert_int_equal(run->clients[c].client, (int)c);
        assert_int_equal(run->clients[c].commands, 300 * 4);
        assert_true(run->clients[c].throughput_per_s > 0);
        sum += run->clients[c].commands;
    }
    assert_int_equal(sum, run->fig.commands);
    assert_int_equal(hist_count(&run->all), run->fig.commands);
    assert_true(run->fairness > 0.25 && run->fairness <= 1.0 + 1e-9);
    assert_true(run->stop_spread_s >= 0);
    report_free(&r);
    plan_free(p);
}

/* clients: [1, 2] is a sweep: one row per level, labelled and marked as
 * such in the JSON, and the HTML report draws its capacity curve. */
static void test_clients_sweep_gives_a_row_per_level(void **state)
{
    (void)state;
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s  clients: [1, 2]\n  iterations: 50\n  targets: [memory]\n",
             counter_head);
    plan *p = fx_compile(yaml);
    run_options o = {.iterations = -1, .warmup = -1, .runs = -1, .quiet = true};
    const plan *plans[] = {p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_int_equal(r.nresults, 2);
    assert_string_equal(r.results[0].label, "memory c=1");
    assert_string_equal(r.results[1].label, "memory c=2");
    assert_string_equal(r.results[1].sweep_of, "memory");
    assert_int_equal(r.results[1].sweep_clients, 2);
    assert_int_equal(r.results[0].runs[0].fig.commands, 50);
    assert_int_equal(r.results[1].runs[0].fig.commands, 100);
    cJSON *json = report_to_cjson(&r);
    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "results"), 1), "sweep");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sweep, "of")),
                        "memory");
    cJSON_Delete(json);
    char *html = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&html, &len);
    assert_int_equal(report_html(&r, "sweep.json", f), 0);
    fclose(f);
    assert_non_null(strstr(html, "<svg id=\"chart-capacity\""));
    assert_non_null(strstr(html, ">c=2</text>"));
    free(html);
    report_free(&r);
    o.clients = 3; /* --clients picks one level: no sweep */
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_int_equal(r.nresults, 1);
    assert_string_equal(r.results[0].label, "memory");
    assert_null(r.results[0].sweep_of);
    report_free(&r);
    plan_free(p);
}

/* The text a report writer gives for r. */
static char *written(int (*writer)(const report *, FILE *), const report *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(writer(r, f), 0);
    fclose(f);
    return text;
}

static int html_of(const report *r, FILE *out)
{
    return report_html(r, "rates.json", out);
}

/* arrival: {rate: [R1, R2]} is a sweep: one row per rate, each offered at
 * its level, labelled "LABEL r=R" and marked as such in every format, and
 * the HTML report draws its capacity curve. */
static void test_rate_sweep_gives_a_row_per_level(void **state)
{
    (void)state;
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "%s  arrival: {rate: [2000, 4000.5], process: uniform}\n  iterations: 40\n"
             "  targets: [memory]\n",
             counter_head);
    plan *p = fx_compile(yaml);
    assert_int_equal(p->work.nrate_levels, 2);
    run_options o = {.iterations = -1, .warmup = -1, .runs = -1, .quiet = true};
    const plan *plans[] = {p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_int_equal(r.nresults, 2);
    const char *labels[] = {"memory r=2000", "memory r=4000.5"};
    const double rates[] = {2000, 4000.5};
    for (size_t i = 0; i < 2; i++) {
        const target_result *t = &r.results[i];
        assert_string_equal(t->label, labels[i]);
        assert_string_equal(t->sweep_of, "memory");
        assert_true(t->sweep_rate == rates[i]);
        assert_int_equal(t->sweep_clients, 0);
        assert_true(t->runs[0].open_loop);
        assert_true(t->runs[0].offered_rate == rates[i]);
        assert_int_equal(t->runs[0].offered, 40);
        assert_int_equal(t->runs[0].fig.commands, 40);
    }
    cJSON *json = report_to_cjson(&r);
    const cJSON *sweep = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "results"), 1), "sweep");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(sweep, "of")),
                        "memory");
    assert_true(cJSON_GetObjectItemCaseSensitive(sweep, "rate")->valuedouble == 4000.5);
    assert_null(cJSON_GetObjectItemCaseSensitive(sweep, "clients"));
    cJSON_Delete(json);
    char *md = written(report_markdown, &r);
    assert_non_null(strstr(md, "offered at 2000, 4000.5 cycles/s (a sweep, one row per rate; "
                               "open loop)"));
    assert_non_null(strstr(md, "| counter | memory r=2000 (open loop)"));
    assert_non_null(strstr(md, "| counter | memory r=4000.5 (open loop)"));
    assert_non_null(strstr(md, "Open loop: memory r=2000 (open loop) (counter): offered 2,000 "
                               "cycles/s"));
    free(md);
    char *csv = written(report_csv, &r);
    assert_non_null(strstr(csv, "\ncounter,memory,memory r=2000,0,"));
    assert_non_null(strstr(csv, "\ncounter,memory,memory r=4000.5,0,"));
    free(csv);
    char *html = written(html_of, &r);
    assert_non_null(strstr(html, "<svg id=\"chart-capacity\""));
    assert_non_null(strstr(html, ">r=2k</text>"));
    assert_non_null(strstr(html, ">r=4k</text>"));
    free(html);
    report_free(&r);
    o.rate = 3000; /* --rate R picks one level: no sweep */
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_int_equal(r.nresults, 1);
    assert_string_equal(r.results[0].label, "memory");
    assert_null(r.results[0].sweep_of);
    assert_true(r.results[0].runs[0].offered_rate == 3000);
    report_free(&r);
    const double flags[] = {1000, 1500, 2500};
    o.rates = flags; /* --rate 1000,1500,2500: the flag's sweep */
    o.nrates = 3;
    o.rate = flags[0];
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_int_equal(r.nresults, 3);
    assert_string_equal(r.results[2].label, "memory r=2500");
    assert_true(r.results[2].runs[0].offered_rate == 2500);
    report_free(&r);
    plan_free(p);
}

/* A rate no client reaches: the Markdown says the target fell behind and,
 * with one client, that this is one client's reach. */
static void test_rate_one_client_cannot_reach_says_so(void **state)
{
    (void)state;
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "%s  arrival: {rate: 100000000}\n  iterations: 200\n  targets: [memory]\n",
             counter_head);
    plan *p = fx_compile(yaml);
    run_options o = {.iterations = -1, .warmup = -1, .runs = -1, .quiet = true};
    const plan *plans[] = {p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    char *md = written(report_markdown, &r);
    assert_non_null(strstr(md, "Behind: memory (open loop) completed "));
    assert_non_null(strstr(md, "backlog. One client runs one cycle at a time: this is what one "
                               "client reaches here, and more clients may reach the rate "
                               "offered.\n"));
    free(md);
    report_free(&r);
    plan_free(p);
}

/* With a duration, the open loop stops starting cycles when the time is
 * up, as the closed loop does, with one client and with two: a target
 * behind its schedule does not run on to finish what was due. The cycles
 * due and not started are counted (offered is every cycle due: completed,
 * dropped and not started), the result file keeps them and the Markdown
 * says that the response times understate the backlog. */
static void test_open_loop_duration_ends_when_it_is_up(void **state)
{
    (void)state;
    for (int clients = 1; clients <= 2; clients++) {
        char yaml[4096];
        snprintf(yaml, sizeof yaml,
                 "%s  arrival: {rate: 100000000, process: uniform}\n  duration: 100ms\n"
                 "  clients: %d\n  targets: [memory]\n",
                 counter_head, clients);
        plan *p = fx_compile(yaml);
        run_options o = {.iterations = -1, .warmup = -1, .runs = -1, .quiet = true};
        const plan *plans[] = {p};
        report r = {0};
        assert_int_equal(runner_run(plans, 1, &o, &r), 0);
        const run_result *run = &r.results[0].runs[0];
        assert_true(run->open_loop);
        /* 10,000,000 due in 0.1 s, evenly spaced (each client's share
           staggered), far more than the memory store runs in that time */
        assert_true(run->offered >= 9999990 && run->offered <= 10000000);
        assert_true(run->completed > 0 && run->not_started > run->completed);
        assert_int_equal(run->offered, run->completed + run->dropped + run->not_started);
        assert_true(run->fig.wall_seconds >= 0.1 && run->fig.wall_seconds < 0.5);
        r.env.cores = 2; /* what a file needs that a run from a test leaves out */
        cJSON *json = report_to_cjson(&r);
        const cJSON *ol = cJSON_GetObjectItemCaseSensitive(
            cJSON_GetArrayItem(
                cJSON_GetObjectItemCaseSensitive(
                    cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(json, "results"), 0),
                    "runs"),
                0),
            "open_loop");
        assert_true(cJSON_GetObjectItemCaseSensitive(ol, "not_started")->valuedouble ==
                    (double)run->not_started);
        report *back = NULL;
        char err[256];
        if (results_from_json("back.json", json, &back, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_int_equal(back->results[0].runs[0].not_started, run->not_started);
        results_free(back);
        cJSON_Delete(json);
        char *md = written(report_markdown, &r);
        char want[160];
        snprintf(want, sizeof want, ", %" PRIu64 " not started when the duration ended (all runs).",
                 run->not_started);
        assert_non_null(strstr(md, want));
        snprintf(want, sizeof want,
                 " The %" PRIu64 " cycles not started when the duration ended have no response "
                 "time: the backlog was longer than these figures show.",
                 run->not_started);
        assert_non_null(strstr(md, want));
        free(md);
        report_free(&r);
        plan_free(p);
    }
}

/* A closed loop timed by a duration gets its room made ready before the
 * pass as one of so many iterations does (the memory store's reserve),
 * sized by the pace of the warmup, and so does the buffer of --samples:
 * the pass takes a few page faults, not one for every few kilobytes its
 * events and samples write. */
static void test_closed_loop_duration_has_its_room_made_ready(void **state)
{
    (void)state;
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s  duration: 300ms\n  targets: [memory]\n", counter_head);
    plan *p = fx_compile(yaml);
    /* and --samples' buffer is sized for the duration too */
    FILE *samples = tmpfile();
    assert_non_null(samples);
    run_options o = {
        .iterations = -1, .warmup = 5000, .runs = -1, .quiet = true, .samples = samples};
    const plan *plans[] = {p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    const run_result *run = &r.results[0].runs[0];
    print_message("closed loop of 300 ms: %" PRIu64 " commands, %" PRIu64 " page faults\n",
                  run->fig.commands, run->page_faults);
    /* without the room, one page fault every 40 commands or so (5,035 in
       214,212 commands under ASan); with it about 200, none of them the
       store's or the samples' */
    assert_true(run->fig.commands > 50000);
    assert_true(run->page_faults < 1000);
    fclose(samples);
    report_free(&r);
    plan_free(p);
}

/* A target without sessions is skipped with one sentence when clients > 1. */
static target_driver lone;

static const target_driver *lone_driver(const char *name)
{
    (void)name;
    lone = *target_find("memory");
    lone.caps &= ~(unsigned)TARGET_CAN_SESSIONS;
    lone.session = NULL;
    return &lone;
}

static void test_clients_need_sessions(void **state)
{
    (void)state;
    plan *p = counter_plan(2, 10, "memory");
    run_options o = {
        .iterations = -1, .warmup = -1, .runs = -1, .quiet = true, .driver_for = lone_driver};
    const plan *plans[] = {p};
    report r = {0};
    assert_int_equal(runner_run(plans, 1, &o, &r), 1); /* nothing ran */
    assert_int_equal(r.nskipped, 1);
    assert_string_equal(r.skipped[0].reason, "the memory target has no sessions for several "
                                             "clients; run it with clients: 1");
    o.clients = 1; /* --clients 1 runs it */
    report_free(&r);
    assert_int_equal(runner_run(plans, 1, &o, &r), 0);
    assert_int_equal(r.results[0].runs[0].nclients, 0);
    assert_true(isnan(r.results[0].runs[0].fairness));
    report_free(&r);
    char why[256];
    lone.caps |= TARGET_CAN_SESSIONS; /* claiming sessions without the callback */
    assert_int_equal(target_driver_check(&lone, why, sizeof why), -1);
    assert_string_equal(why, "the memory target's capabilities do not match its callbacks");
    plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clients_no_lost_update_on_memory),
        cmocka_unit_test(test_open_loop_duration_ends_when_it_is_up),
        cmocka_unit_test(test_closed_loop_duration_has_its_room_made_ready),
        cmocka_unit_test(test_clients_no_lost_update_on_two_counters),
        cmocka_unit_test(test_clients_no_lost_update_across_two_records),
        cmocka_unit_test(test_clients_memory_second_stripe_held_fails),
        cmocka_unit_test(test_clients_no_lost_update_on_sqlite),
        cmocka_unit_test(test_clients_no_lost_update_on_postgres),
        cmocka_unit_test(test_clients_serializable_postgres_retries_and_says_so),
        cmocka_unit_test(test_clients_failures_after_retries_are_counted),
        cmocka_unit_test(test_failed_cycles_are_abandoned_and_verify_holds),
        cmocka_unit_test(test_clients_no_lost_update_through_serve_listen),
        cmocka_unit_test(test_clients_threads_pinned_a_cpu_each),
        cmocka_unit_test(test_clients_per_client_figures_add_up),
        cmocka_unit_test(test_clients_sweep_gives_a_row_per_level),
        cmocka_unit_test(test_rate_sweep_gives_a_row_per_level),
        cmocka_unit_test(test_rate_one_client_cannot_reach_says_so),
        cmocka_unit_test(test_clients_need_sessions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
