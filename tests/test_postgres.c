/* test_postgres.c: the postgres store against a real server (make test
 * starts a scratch one; see scripts/pg-scratch.sh). The whole table of
 * runtime_scenarios.h, plain and fenced (the bundled specs and the
 * examples verify, refusals roll back with the memory runtime's messages,
 * values come back verbatim ...), leaving no schema behind; and what is
 * PostgreSQL's own: a command costs at most two round trips (one when it
 * reads nothing before its guards), a query one and no write (the
 * statistics say so over 1000 of them), a policy's record whose key is a
 * stored field included; the run's schema is gone after success, after a
 * failure and after SIGINT; the fence really runs as bench_fenced under
 * forced row-level security; durability sets synchronous_commit; an
 * unreachable server is a skip with one sentence; libpq is not linked into
 * bench.
 *
 * Without a reachable server the whole file is skipped with a sentence,
 * unless BENCH_PG_SCRATCH says make test started one: then it fails. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pq_dl.h"
#include "runtime_scenarios.h"
#include "store_postgres.h"

#ifndef BENCH_BINARY
#define BENCH_BINARY "build/dev/bench"
#endif

extern char **environ;

static const target_spec pg_plain = {.name = "postgres", .label = "postgres"};
static const target_opt_value fence_rls[] = {{.name = "fence", .s = "rls"}};
static const target_spec pg_fenced = {
    .name = "postgres", .label = "postgres-rls", .opts = fence_rls, .nopts = 1};

static const pq_api *pq;

/* ---- a connection of the test's own, to look at the catalogs ---- */

static void quiet(void *arg, const char *message) {}

static PGconn *admin(void)
{
    static const char *const kw[] = {"dbname", NULL};
    static const char *const val[] = {"bench", NULL};
    PGconn *c = pq->connectdbParams(kw, val, 0);
    if (pq->status(c) != CONNECTION_OK)
        fail_msg("cannot connect to bench: %s", pq->errorMessage(c));
    pq->setNoticeProcessor(c, quiet, NULL);
    return c;
}

/* The one value sql returns, as a long. */
static long query_long(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static long query_long(const char *fmt, ...)
{
    char sql[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    PGconn *c = admin();
    PGresult *r = pq->exec(c, sql);
    if (pq->resultStatus(r) != PGRES_TUPLES_OK || pq->ntuples(r) != 1)
        fail_msg("%s: %s", sql, pq->resultErrorMessage(r));
    long v = strtol(pq->getvalue(r, 0, 0), NULL, 10);
    pq->clear(r);
    pq->finish(c);
    return v;
}

/* Schemas this process (or pid) has left in the database bench. */
static long schemas_of(long pid)
{
    return query_long("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'bench\\_%ld\\_%%'",
                      pid);
}

static void target_query(fx *f, const char *sql, const char *want)
{
    char out[512];
    if (postgres_store_query(runtime_target_store(f->t), sql, out, sizeof out) != 0)
        fail_msg("%s: %s", sql, out);
    assert_string_equal(out, want);
}

static char *write_temp_spec(const char *yaml)
{
    static char path[64];
    snprintf(path, sizeof path, "/tmp/bench-test-pg-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    return path;
}

/* ---- after the scenarios ---- */

/* Every scenario's target, and every run of the bundled specs, dropped its
 * schema. */
static void test_postgres_scenarios_leave_no_schema(void **state)
{
    assert_int_equal(schemas_of(getpid()), 0);
}

/* ---- round trips ---- */

static void test_postgres_round_trips_per_command(void **state)
{
    const target_spec *specs[] = {&pg_plain, &pg_fenced};
    for (size_t k = 0; k < 2; k++) {
        fx *f = fx_open(lending_spec, specs[k]);
        /* a create that reads nothing before its guards: one */
        assert_int_equal(fx_trips(f, "Member.Join", "{card: M-1, max_loans: 2}"), 1);
        assert_int_equal(fx_trips(f, "Copy.Acquire", "{barcode: c-1, title: T}"), 1);
        /* its record and its read in the first, its policy's record (already
         * read) from the cache, all writes with the commit: two */
        assert_int_equal(fx_trips(f, "Copy.Lend", "{barcode: c-1, card: M-1}"), 2);
        /* its policy's key is the record's stored card: fetched with the
         * record in the first (docs/targets.md) */
        assert_int_equal(fx_trips(f, "Copy.Return", "{barcode: c-1}"), 2);
        /* a create refused by its key costs the same as one that succeeds */
        uint64_t before = f->t->round_trips;
        fx_refused(f, "Copy.Acquire", "{barcode: c-1, title: T}",
                   "Copy.Acquire refused: Copy 'c-1' already exists");
        assert_int_equal(f->t->round_trips - before, 1);
        fx_close(f);
    }
}

/* A for_each policy's records are not hinted (docs/targets.md): each item
 * whose record the transaction does not hold yet loads it on its own. */
static void test_postgres_for_each_loads_each_items_record_once(void **state)
{
    static const char *const lines[] = {"a:1", "b:1", "a:1", NULL};
    fx *f = shop_with_cart(&pg_plain, lines);
    /* the cart; a, b (a again from the cache); the tally once, for its three
       bumps; the commit */
    assert_int_equal(fx_trips(f, "Cart.Checkout", "{id: cart-1}"), 5);
    product_is(f, "a", 8, 2);
    fx_close(f);
}

static void test_postgres_bundled_commands_take_at_most_two_round_trips(void **state)
{
    static const char *const paths[] = {"specs/pizzas.yaml", "specs/banking.yaml", NULL};
    static const char *const only[] = {"postgres", "postgres-rls", NULL};
    fx_run fr;
    fx_run_specs(&fr, paths, only, 30);
    fx_assert_all_passed(&fr, 4);
    for (size_t i = 0; i < fr.r.nresults; i++) {
        const run_result *run = &fr.r.results[i].runs[0];
        assert_true(run->round_trips_per_command >= 1 && run->round_trips_per_command <= 2);
        for (size_t v = 0; v < run->nverbs; v++) {
            const verb_result *vr = &run->verbs[v];
            double want = strstr(vr->verb, "Create") ? 1 : 2;
            if (vr->round_trips_per_command != want)
                fail_msg("%s %s: %.3f round trips per command, want %.0f", fr.r.results[i].label,
                         vr->verb, vr->round_trips_per_command, want);
        }
    }
    fx_run_free(&fr);
}

/* One run of path on postgres, verified: nverbs verbs, each two round trips
 * a dispatch but those whose verb holds a word of one (NULL-terminated). */
static void trips_per_verb(const char *path, size_t nverbs, const char *const *one)
{
    const char *const paths[] = {path, NULL};
    static const char *const only[] = {"postgres", NULL};
    fx_run fr;
    fx_run_specs(&fr, paths, only, 30);
    fx_assert_all_passed(&fr, 1);
    const run_result *run = &fr.r.results[0].runs[0];
    assert_int_equal(run->nverbs, nverbs);
    for (size_t v = 0; v < run->nverbs; v++) {
        const verb_result *vr = &run->verbs[v];
        double want = 2;
        for (size_t k = 0; one[k]; k++)
            want = strstr(vr->verb, one[k]) ? 1 : want;
        if (vr->round_trips_per_command != want)
            fail_msg("%s: %.3f round trips per command, want %.0f", vr->verb,
                     vr->round_trips_per_command, want);
    }
    fx_run_free(&fr);
}

static void test_postgres_library_takes_at_most_two_round_trips(void **state)
{
    static const char *const one[] = {"Acquire", NULL}; /* Lend and Return: two */
    trips_per_verb("examples/library.yaml", 3, one);
}

/* clang-format off */
static const char returns_spec[] =
    "spec: 1\n"
    "domain: returns\n"
    "aggregates:\n"
    "  Member:\n"
    "    identity: card\n"
    "    fields: {card: string, loans: {type: int, default: 0}}\n"
    "    commands:\n"
    "      Join: {creates: true, params: {card: string}, emits: Joined}\n"
    "      CountLoan: {params: {card: string}, set: {loans: loans + 1}, emits: LoanCounted}\n"
    "      CountReturn:\n"
    "        params: {card: string}\n"
    "        guards: [{check: loans > 0, refuse: the member has no loans}]\n"
    "        set: {loans: loans - 1}\n"
    "        emits: ReturnCounted\n"
    "  Copy:\n"
    "    identity: barcode\n"
    "    fields: {barcode: string, lent: {type: bool, default: false},\n"
    "             borrower: {type: string, default: ''}}\n"
    "    commands:\n"
    "      Acquire: {creates: true, params: {barcode: string}, emits: Acquired}\n"
    "      Mark:                      # lent without counting the loan\n"
    "        params: {barcode: string, card: string}\n"
    "        set: {lent: true, borrower: arg.card}\n"
    "        emits: Marked\n"
    "      Hand:                      # its payload's card is a field it sets\n"
    "        params: {barcode: string, card: string}\n"
    "        set: {lent: true, borrower: arg.card}\n"
    "        emits: {event: Handed, payload: {card: borrower}}\n"
    "      Return:\n"
    "        params: {barcode: string}\n"
    "        guards: [{check: lent, refuse: not lent}]\n"
    "        set: {lent: false}\n"
    "        emits: {event: Returned, payload: {barcode: arg.barcode, card: borrower}}\n"
    "      ReturnOld:\n"
    "        params: {barcode: string}\n"
    "        guards: [{check: lent, refuse: not lent}]\n"
    "        set: {lent: false, borrower: \"''\"}\n"
    "        emits: {event: ReturnedOld, payload: {card: old.borrower}}\n"
    "policies:\n"
    "  - {when: Handed, run: Member.CountLoan, args: {card: event.card}}\n"
    "  - {when: Returned, run: Member.CountReturn, args: {card: event.card}}\n"
    "  - {when: ReturnedOld, run: Member.CountReturn, args: {card: event.card}}\n"
    "workload:\n"
    "  cycle:\n"
    "    - Copy.Acquire: {barcode: \"c-${n}\"}\n"
    "  warmup: 1\n"
    "  iterations: 1\n"
    "  runs: 1\n";
/* clang-format on */

/* The round trips of a refused dispatch. */
static uint64_t refused_trips(fx *f, const char *name, const char *args, const char *message)
{
    uint64_t before = f->t->round_trips;
    fx_refused(f, name, args, message);
    return f->t->round_trips - before;
}

static void test_postgres_policy_keys_from_the_record_come_with_round_trip_one(void **state)
{
    const target_spec *specs[] = {&pg_plain, &pg_fenced};
    for (size_t k = 0; k < 2; k++) {
        fx *f = fx_open(returns_spec, specs[k]);
        fx_ok(f, "Member.Join", "{card: M-1}");
        fx_ok(f, "Copy.Acquire", "{barcode: c-1}");
        fx_ok(f, "Copy.Acquire", "{barcode: c-2}");
        /* a key from a field the command sets is loaded when the policy
         * runs: one more round trip */
        assert_int_equal(fx_trips(f, "Copy.Hand", "{barcode: c-1, card: M-1}"), 3);
        /* the stored borrower (bare, or old.) is fetched with the copy */
        assert_int_equal(fx_trips(f, "Copy.Return", "{barcode: c-1}"), 2);
        assert_int_equal(fx_trips(f, "Copy.Hand", "{barcode: c-1, card: M-1}"), 3);
        assert_int_equal(fx_trips(f, "Copy.ReturnOld", "{barcode: c-1}"), 2);
        value m;
        assert_true(fx_load(f, "Member", "M-1", &m));
        assert_int_equal(fx_int(f, "Member", &m, "loans"), 0);

        /* the policy's guard refuses after round trip one: all rolls back */
        fx_ok(f, "Copy.Mark", "{barcode: c-2, card: M-1}");
        assert_int_equal(refused_trips(f, "Copy.Return", "{barcode: c-2}",
                                       "Copy.Return refused: policy Member.CountReturn refused: "
                                       "the member has no loans"),
                         1);
        /* a borrower with no record is known absent from round trip one */
        fx_ok(f, "Copy.Mark", "{barcode: c-1, card: M-9}");
        assert_int_equal(refused_trips(f, "Copy.ReturnOld", "{barcode: c-1}",
                                       "Copy.ReturnOld refused: policy Member.CountReturn "
                                       "refused: Member 'M-9' does not exist"),
                         1);
        value c;
        assert_true(fx_load(f, "Copy", "c-2", &c));
        assert_true(fx_get(f, "Copy", &c, "lent")->u.b);
        assert_true(fx_load(f, "Copy", "c-1", &c));
        fx_assert_str(fx_get(f, "Copy", &c, "borrower"), "M-9", 3);
        assert_int_equal(fx_count(f, "Returned"), 1);
        assert_int_equal(fx_count(f, "ReturnedOld"), 1);
        assert_int_equal(fx_count(f, "ReturnCounted"), 2);
        /* the connection is clean, and the prepared statement still serves */
        fx_ok(f, "Member.Join", "{card: M-9}");
        fx_ok(f, "Copy.Hand", "{barcode: c-2, card: M-9}");
        assert_int_equal(fx_trips(f, "Copy.Return", "{barcode: c-2}"), 2);
        assert_true(fx_load(f, "Member", "M-9", &m));
        assert_int_equal(fx_int(f, "Member", &m, "loans"), 0);
        fx_close(f);
    }
}

static void test_postgres_create_with_a_read_refused_by_its_key_rolls_back(void **state)
{
    const target_spec *specs[] = {&pg_plain, &pg_fenced};
    for (size_t k = 0; k < 2; k++) {
        fx *f = fx_open(lending_spec, specs[k]);
        fx_ok(f, "Member.Join", "{card: M-1, max_loans: 2}");
        assert_int_equal(fx_trips(f, "Copy.Donate", "{barcode: c-1, card: M-1}"), 2);
        /* the read opened the transaction; the INSERT fails with the sync
         * that would have committed it, which rolls it all back: no more
         * round trips than a success */
        uint64_t before = f->t->round_trips;
        fx_refused(f, "Copy.Donate", "{barcode: c-1, card: M-1}",
                   "Copy.Donate refused: Copy 'c-1' already exists");
        assert_int_equal(f->t->round_trips - before, 2);
        /* refused by a missing read after round trip one: the sync that ends
         * the transaction is not waited for; one more round trip sees
         * whether the identity exists, which it does not */
        before = f->t->round_trips;
        fx_refused(f, "Copy.Donate", "{barcode: c-5, card: M-9}",
                   "Copy.Donate refused: Member 'M-9' does not exist (read as donor)");
        assert_int_equal(f->t->round_trips - before, 2);
        fx_refused(f, "Copy.Lend", "{barcode: c-1, card: M-9}",
                   "Copy.Lend refused: Member 'M-9' does not exist (read as reader)");
        assert_int_equal(f->t->round_trips - before, 3);
        /* the connection is clean for the next commands */
        assert_int_equal(fx_trips(f, "Copy.Donate", "{barcode: c-2, card: M-1}"), 2);
        fx_ok(f, "Copy.Lend", "{barcode: c-2, card: M-1}");
        assert_int_equal(fx_count(f, "Copy"), 2);
        assert_int_equal(fx_count(f, "Donated"), 2);
        assert_int_equal(fx_count(f, "LoanCounted"), 1);
        fx_close(f);
    }
}

/* ---- queries ---- */

/* Rows the run's tables have had inserted, updated and deleted, as the
 * statistics say once the store's own backend has flushed its counters
 * (on PostgreSQL 15 a backend reports them at most once a second, unless
 * told to at its next chance). */
static long rows_written(fx *f)
{
    store *s = runtime_target_store(f->t);
    char out[512];
    if (postgres_store_query(s, "SELECT pg_stat_force_next_flush()", out, sizeof out) != 0)
        fail_msg("pg_stat_force_next_flush: %s", out);
    return query_long("SELECT coalesce(sum(n_tup_ins + n_tup_upd + n_tup_del), 0) "
                      "FROM pg_stat_user_tables WHERE schemaname = '%s'",
                      postgres_store_schema(s));
}

/* The round trips of n dispatches of a query that succeeds. */
static uint64_t query_trips(fx *f, const char *name, const char *args, int n)
{
    uint64_t before = f->t->round_trips;
    for (int i = 0; i < n; i++)
        fx_ask(f, name, args);
    return f->t->round_trips - before;
}

/* A query is one SELECT round trip and writes nothing: 1000 of them leave
 * the tables' insert, update and delete counters where they were (which
 * the creates before them did move). */
static void test_postgres_a_query_is_one_round_trip_and_writes_nothing(void **state)
{
    fx *f = open_shop(&pg_plain);
    long before = rows_written(f);
    assert_true(before >= 2); /* the customer and the order: the counters do count */
    assert_int_equal(query_trips(f, "Order.Status", "{name: o-1}", 1000), 1000);
    /* a read keyed by an argument comes in the same round trip */
    assert_int_equal(query_trips(f, "Order.ForCustomer", "{name: o-1, who: c-1}", 100), 100);
    /* a refusal costs the same */
    uint64_t trips = f->t->round_trips;
    fx_refused(f, "Order.Status", "{name: o-9}",
               "Order.Status refused: Order 'o-9' does not exist");
    assert_int_equal(f->t->round_trips - trips, 1);
    assert_int_equal(rows_written(f), before);
    /* nothing was left open: a command goes on as ever, and is counted */
    assert_int_equal(fx_trips(f, "Order.Sell", "{name: o-1}"), 2);
    assert_int_equal(rows_written(f), before + 2); /* the update and its event */
    fx_close(f);
}

/* A scan is one round trip whatever it reads and writes nothing: 1000
 * scans of up to 100 records leave the counters where they were; a string
 * identity's key column orders by bytes (COLLATE "C") as the other stores
 * do, whatever the database's default. */
static void test_postgres_a_scan_is_one_round_trip_and_writes_nothing(void **state)
{
    fx *f = fx_open(scan_spec, &pg_plain);
    char args[64];
    for (int i = 0; i < 300; i++) {
        snprintf(args, sizeof args, "{key: user%d, n: %d}", i, i);
        fx_ok(f, "User.Insert", args);
    }
    long before = rows_written(f);
    assert_true(before >= 300);
    uint64_t trips = f->t->round_trips;
    uint64_t rows = 0;
    for (int i = 0; i < 1000; i++) {
        snprintf(args, sizeof args, "{key: user%d, count: %d}", (i * 37) % 300, 1 + i % 100);
        rows += fx_ask(f, "User.Scan", args)->len;
    }
    assert_int_equal(f->t->round_trips - trips, 1000);
    assert_true(rows > 1000);
    /* past the end and a refusal: one and none */
    trips = f->t->round_trips;
    assert_int_equal(fx_ask(f, "User.Scan", "{key: z, count: 5}")->len, 0);
    assert_int_equal(f->t->round_trips - trips, 1);
    fx_refused(f, "User.Scan", "{key: a, count: 0}",
               "User.Scan refused: count: 0 is less than the minimum 1");
    assert_int_equal(f->t->round_trips - trips, 1);
    assert_int_equal(rows_written(f), before);
    char sql[512];
    snprintf(sql, sizeof sql,
             "SELECT collation_name FROM information_schema.columns WHERE table_schema = '%s' "
             "AND table_name = 'User' AND column_name = 'key'",
             postgres_store_schema(runtime_target_store(f->t)));
    target_query(f, sql, "C");
    /* nothing was left open: a command goes on as ever */
    assert_int_equal(fx_trips(f, "User.Bump", "{key: user7}"), 2);
    assert_int_equal(rows_written(f), before + 1);
    fx_close(f);
}

/* In a run, the report says so too: examples/pizza_status.yaml's query
 * takes one round trip per dispatch, its commands as ever. */
static void test_postgres_a_run_reports_one_round_trip_per_query(void **state)
{
    static const char *const one[] = {"CreatePizza", "Status", NULL};
    trips_per_verb("examples/pizza_status.yaml", 4, one);
}

static void test_postgres_query_round_trips_under_the_fence(void **state)
{
    fx *f = open_shop(&pg_fenced);
    assert_int_equal(query_trips(f, "Order.Status", "{name: o-1}", 100), 100);
    assert_int_equal(query_trips(f, "Order.ForCustomer", "{name: o-1, who: c-1}", 10), 10);
    /* a read keyed by the record waits for the record: one more */
    assert_int_equal(query_trips(f, "Order.Owner", "{name: o-1}", 10), 20);
    fx_close(f);
}

/* ---- the schema's life ---- */

static void test_postgres_schema_is_named_for_the_run_and_dropped_at_close(void **state)
{
    fx *f = fx_open(values_spec, &pg_plain);
    char schema[64];
    snprintf(schema, sizeof schema, "%s", postgres_store_schema(runtime_target_store(f->t)));
    char prefix[32];
    snprintf(prefix, sizeof prefix, "bench_%ld_", (long)getpid());
    assert_int_equal(strncmp(schema, prefix, strlen(prefix)), 0);
    assert_int_equal(strlen(schema), strlen(prefix) + 8);
    assert_int_equal(query_long("SELECT count(*) FROM pg_namespace WHERE nspname = '%s'", schema),
                     1);
    assert_int_equal(query_long("SELECT count(*) FROM pg_tables WHERE schemaname = '%s'", schema),
                     2);
    fx_close(f);
    assert_int_equal(query_long("SELECT count(*) FROM pg_namespace WHERE nspname = '%s'", schema),
                     0);
}

static void test_postgres_keep_leaves_the_schema(void **state)
{
    static const target_opt_value keep[] = {{.name = "keep", .b = true}};
    target_spec ts = pg_plain;
    ts.opts = keep, ts.nopts = 1;
    fx *f = fx_open(values_spec, &ts);
    char schema[64];
    snprintf(schema, sizeof schema, "%s", postgres_store_schema(runtime_target_store(f->t)));
    fx_close(f);
    assert_int_equal(query_long("SELECT count(*) FROM pg_namespace WHERE nspname = '%s' AND "
                                "obj_description(oid, 'pg_namespace') = 'bench: kept'",
                                schema),
                     1); /* marked: no later run takes it for a killed run's */
    char sql[128];
    snprintf(sql, sizeof sql, "DROP SCHEMA \"%s\" CASCADE", schema);
    PGconn *c = admin();
    PGresult *r = pq->exec(c, sql);
    assert_int_equal(pq->resultStatus(r), PGRES_COMMAND_OK);
    pq->clear(r);
    pq->finish(c);
}

static void exec_on(PGconn *c, const char *sql)
{
    PGresult *r = pq->exec(c, sql);
    if (pq->resultStatus(r) != PGRES_COMMAND_OK && pq->resultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, pq->resultErrorMessage(r));
    pq->clear(r);
}

static long schemas_named(const char *name)
{
    return query_long("SELECT count(*) FROM pg_namespace WHERE nspname = '%s'", name);
}

/* A run killed before it could drop its schema leaves it without its
 * owner's advisory lock: the next postgres open drops it, and never the
 * schema of a live session (which holds its lock) or a kept one. */
static void test_postgres_open_drops_the_schemas_of_dead_owners_only(void **state)
{
    PGconn *c = admin();
    exec_on(c, "CREATE SCHEMA bench_1_dead01; CREATE TABLE bench_1_dead01.t (x int);"
               "CREATE SCHEMA bench_2_cafe01; COMMENT ON SCHEMA bench_2_cafe01 IS 'bench: kept'");
    pq->finish(c);
    PGconn *live = admin(); /* a live run's session */
    exec_on(live, "SELECT pg_advisory_lock(1650814563, hashtext('bench_3_beef01'));"
                  "CREATE SCHEMA bench_3_beef01");
    fx *f = fx_open(values_spec, &pg_plain);
    assert_int_equal(schemas_named("bench_1_dead01"), 0);
    assert_int_equal(schemas_named("bench_2_cafe01"), 1);
    assert_int_equal(schemas_named("bench_3_beef01"), 1);
    /* and the open store's own schema is a live one to the next open */
    char schema[64];
    snprintf(schema, sizeof schema, "%s", postgres_store_schema(runtime_target_store(f->t)));
    fx *g = fx_open(values_spec, &pg_plain);
    assert_int_equal(schemas_named(schema), 1);
    fx_close(g);
    fx_close(f);
    exec_on(live, "DROP SCHEMA bench_3_beef01; DROP SCHEMA bench_2_cafe01");
    pq->finish(live);
}

/* A run that fails mid-way (the second cycle creates a name that exists)
 * still drops its schema. */
static void test_postgres_schema_is_gone_after_a_failed_run(void **state)
{
    static const char yaml[] =
        "spec: 1\n"
        "domain: failing\n"
        "aggregates:\n"
        "  Thing:\n"
        "    identity: id\n"
        "    fields: {id: string}\n"
        "    commands:\n"
        "      Make: {creates: true, params: {id: string}, emits: Made}\n"
        "workload:\n"
        "  cycle:\n"
        "    - Thing.Make: {id: always-the-same}\n"
        "  warmup: 0\n"
        "  iterations: 5\n"
        "  runs: 1\n"
        "  targets: [postgres, {postgres: {label: postgres-rls, fence: rls}}]\n";
    const char *path = write_temp_spec(yaml);
    const char *const paths[] = {path, NULL};
    static const char *const only[] = {"postgres", "postgres-rls", NULL};
    fx_run fr;
    fx_run_specs(&fr, paths, only, 5);
    assert_int_equal(fr.rc, 1);
    assert_int_equal(fr.r.nfailed, 2);
    assert_non_null(strstr(fr.r.failed[0].reason, "Thing 'always-the-same' already exists"));
    fx_run_free(&fr);
    unlink(path);
    assert_int_equal(schemas_of(getpid()), 0);
}

/* Ctrl-C during the timed pass: bench stops at the next cycle, closes the
 * target, and the schema goes with it. */
static void test_postgres_schema_is_gone_after_sigint(void **state)
{
    const char *bench =
        getenv("BENCH_BINARY") && *getenv("BENCH_BINARY") ? getenv("BENCH_BINARY") : BENCH_BINARY;
    char *const argv[] = {(char *)bench, "run",          "specs/pizzas.yaml", "--targets",
                          "postgres",    "--iterations", "100000000",         "--runs",
                          "1",           "--quiet",      "--format",          "json",
                          NULL};
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    assert_int_equal(posix_spawn(&pid, bench, &fa, NULL, argv, environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    /* wait until the run's schema holds events: the timed pass is on */
    long events = 0;
    for (int i = 0; i < 200 && events < 1000; i++) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        if (schemas_of(pid) == 1)
            events = query_long("SELECT COALESCE(sum(n_tup_ins), 0) FROM pg_stat_user_tables "
                                "WHERE schemaname LIKE 'bench\\_%ld\\_%%' AND relname = 'events'",
                                (long)pid);
    }
    assert_int_equal(schemas_of(pid), 1);
    assert_int_equal(kill(pid, SIGINT), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 130);
    assert_int_equal(schemas_of(pid), 0);
}

/* ---- the fence and durability ---- */

static void test_postgres_fence_runs_as_bench_fenced_under_forced_rls(void **state)
{
    fx *f = fx_open(values_spec, &pg_fenced);
    const char *schema = postgres_store_schema(runtime_target_store(f->t));
    target_query(f, "SELECT current_user", "bench_fenced");
    assert_int_equal(query_long("SELECT count(*) FROM pg_class c JOIN pg_namespace n ON "
                                "n.oid = c.relnamespace WHERE n.nspname = '%s' AND c.relkind = 'r' "
                                "AND c.relrowsecurity AND c.relforcerowsecurity",
                                schema),
                     2);
    assert_int_equal(query_long("SELECT count(*) FROM pg_policies WHERE schemaname = '%s' AND "
                                "roles = '{bench_fenced}' AND cmd IN ('INSERT', 'UPDATE') AND "
                                "with_check = '(CURRENT_USER = ''bench_fenced''::name)'",
                                schema),
                     4);
    assert_int_equal(query_long("SELECT count(*) FROM pg_roles WHERE rolname = 'bench_fenced' "
                                "AND NOT rolsuper AND NOT rolbypassrls AND NOT rolcanlogin"),
                     1);
    fx_ok(f, "Thing.Make",
          "{id: a, text: t, n: 0, flag: true, mood: calm,"
          " inner: {label: l, n: 1, flag: true, mood: calm}, tags: []}");
    assert_int_equal(fx_count(f, "Thing"), 1);
    fx_close(f);
    /* the role is left in place, documented */
    assert_int_equal(query_long("SELECT count(*) FROM pg_roles WHERE rolname = 'bench_fenced'"), 1);
}

static void test_postgres_plain_target_runs_as_the_connecting_user(void **state)
{
    fx *f = fx_open(values_spec, &pg_plain);
    char out[128];
    assert_int_equal(postgres_store_query(runtime_target_store(f->t),
                                          "SELECT current_user = session_user", out, sizeof out),
                     0);
    assert_string_equal(out, "t");
    fx_close(f);
}

static void test_postgres_durability_sets_synchronous_commit(void **state)
{
    static const struct {
        const char *durability;
        const char *want;
    } cases[] = {{"full", "on"}, {"normal", "off"}, {"off", "off"}};
    for (size_t i = 0; i < 3; i++) {
        const target_opt_value d[] = {{.name = "durability", .s = cases[i].durability}};
        target_spec ts = pg_plain;
        ts.opts = d, ts.nopts = 1;
        fx *f = fx_open(values_spec, &ts);
        target_query(f, "SHOW synchronous_commit", cases[i].want);
        fx_close(f);
    }
}

static void test_postgres_environment_names_the_server_and_libpq(void **state)
{
    fx *f = fx_open(values_spec, &pg_plain);
    fx_close(f);
    char server[256], lib[64];
    const target_driver *drv = target_find("postgres");
    assert_non_null(drv->environment);
    assert_int_equal(drv->environment(drv, server, sizeof server, lib, sizeof lib), 0);
    assert_true(server[0] >= '1' && server[0] <= '9'); /* the version */
    assert_non_null(strstr(server, "; fsync "));
    assert_non_null(strstr(server, "synchronous_commit "));
    assert_non_null(strstr(server, "shared_buffers "));
    assert_int_equal(strncmp(lib, "libpq ", 6), 0);
}

/* ---- no server ---- */

static const char unreachable_prefix[] = "no PostgreSQL server is reachable (";
static const char unreachable_suffix[] =
    "); start one, or point PGHOST, PGPORT and PGUSER at one (or give the target a dsn)";

static void assert_skip_sentence(const char *why)
{
    if (strncmp(why, unreachable_prefix, strlen(unreachable_prefix)) != 0 ||
        strlen(why) < strlen(unreachable_suffix) ||
        strcmp(why + strlen(why) - strlen(unreachable_suffix), unreachable_suffix) != 0)
        fail_msg("not the skip sentence: %s", why);
    assert_null(strchr(why, '\n'));
}

static void test_postgres_unreachable_server_is_a_skip_with_one_sentence(void **state)
{
    const target_driver *drv = target_find("postgres");
    static const target_opt_value dsn[] = {{.name = "dsn", .s = "host=127.0.0.1 port=1"}};
    target_spec ts = pg_plain;
    ts.opts = dsn, ts.nopts = 1;
    char why[1024] = "";
    assert_int_equal(target_available(drv, &ts, why, sizeof why), -1);
    assert_skip_sentence(why);
    assert_non_null(strstr(why, "127.0.0.1"));

    /* the runner skips it and runs the others */
    static const char yaml[] = "spec: 1\n"
                               "domain: alone\n"
                               "aggregates:\n"
                               "  Thing:\n"
                               "    identity: id\n"
                               "    fields: {id: string}\n"
                               "    commands:\n"
                               "      Make: {creates: true, params: {id: string}, emits: Made}\n"
                               "workload:\n"
                               "  cycle:\n"
                               "    - Thing.Make: {id: \"t-${n}\"}\n"
                               "  warmup: 0\n"
                               "  iterations: 5\n"
                               "  runs: 1\n"
                               "  targets: [memory, {postgres: {dsn: 'host=127.0.0.1 port=1'}}]\n";
    const char *path = write_temp_spec(yaml);
    const char *const paths[] = {path, NULL};
    static const char *const only[] = {"memory", "postgres", NULL};
    fx_run fr;
    fx_run_specs(&fr, paths, only, 5);
    assert_int_equal(fr.rc, 0);
    assert_int_equal(fr.r.nresults, 1);
    assert_string_equal(fr.r.results[0].label, "memory");
    assert_int_equal(fr.r.nskipped, 1);
    assert_string_equal(fr.r.skipped[0].label, "postgres");
    assert_skip_sentence(fr.r.skipped[0].reason);
    fx_run_free(&fr);
    unlink(path);
}

/* The same through the environment: a socket directory with no server. */
static void test_postgres_unreachable_through_pghost_is_a_skip(void **state)
{
    const char *bench =
        getenv("BENCH_BINARY") && *getenv("BENCH_BINARY") ? getenv("BENCH_BINARY") : BENCH_BINARY;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "PGHOST=/nonexistent-bench-dir PGPORT=5432 '%s' run specs/pizzas.yaml --targets "
             "memory,postgres --iterations 5 --warmup 0 --runs 1 2>&1",
             bench);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[16384];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    assert_non_null(strstr(out, "skip postgres: no PostgreSQL server is reachable ("));
    assert_non_null(strstr(out, "| pizzas | memory"));
}

/* ---- start-up cost ---- */

static void test_postgres_libpq_is_not_linked_into_bench(void **state)
{
    const char *bench =
        getenv("BENCH_BINARY") && *getenv("BENCH_BINARY") ? getenv("BENCH_BINARY") : BENCH_BINARY;
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "ldd '%s'", bench);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[16384];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = '\0';
    pclose(p);
    assert_non_null(strstr(out, "libc.so"));
    assert_null(strstr(out, "libpq"));
}

int main(void)
{
    char why[1024] = "";
    const target_driver *drv = target_find("postgres");
    if (!drv || target_available(drv, &pg_plain, why, sizeof why) != 0) {
        if (getenv("BENCH_PG_SCRATCH")) {
            fprintf(stderr, "test_postgres: make test started a server, but %s\n", why);
            return 1;
        }
        printf("test_postgres: skipped, %s\n", why);
        return 0;
    }
    pq = pq_load(why, sizeof why);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_postgres_scenarios_leave_no_schema),
        cmocka_unit_test(test_postgres_a_query_is_one_round_trip_and_writes_nothing),
        cmocka_unit_test(test_postgres_a_scan_is_one_round_trip_and_writes_nothing),
        cmocka_unit_test(test_postgres_query_round_trips_under_the_fence),
        cmocka_unit_test(test_postgres_a_run_reports_one_round_trip_per_query),
        cmocka_unit_test(test_postgres_round_trips_per_command),
        cmocka_unit_test(test_postgres_for_each_loads_each_items_record_once),
        cmocka_unit_test(test_postgres_bundled_commands_take_at_most_two_round_trips),
        cmocka_unit_test(test_postgres_library_takes_at_most_two_round_trips),
        cmocka_unit_test(test_postgres_policy_keys_from_the_record_come_with_round_trip_one),
        cmocka_unit_test(test_postgres_create_with_a_read_refused_by_its_key_rolls_back),
        cmocka_unit_test(test_postgres_schema_is_named_for_the_run_and_dropped_at_close),
        cmocka_unit_test(test_postgres_keep_leaves_the_schema),
        cmocka_unit_test(test_postgres_open_drops_the_schemas_of_dead_owners_only),
        cmocka_unit_test(test_postgres_schema_is_gone_after_a_failed_run),
        cmocka_unit_test(test_postgres_schema_is_gone_after_sigint),
        cmocka_unit_test(test_postgres_fence_runs_as_bench_fenced_under_forced_rls),
        cmocka_unit_test(test_postgres_plain_target_runs_as_the_connecting_user),
        cmocka_unit_test(test_postgres_durability_sets_synchronous_commit),
        cmocka_unit_test(test_postgres_environment_names_the_server_and_libpq),
        cmocka_unit_test(test_postgres_unreachable_server_is_a_skip_with_one_sentence),
        cmocka_unit_test(test_postgres_unreachable_through_pghost_is_a_skip),
        cmocka_unit_test(test_postgres_libpq_is_not_linked_into_bench),
    };
    int failed = runtime_scenarios_run(&pg_plain) + runtime_scenarios_run(&pg_fenced);
    return failed + cmocka_run_group_tests_name("postgres store", tests, NULL, NULL);
}
