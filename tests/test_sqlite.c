/* test_sqlite.c: the sqlite store against the real SQLite: the whole table
 * of runtime_scenarios.h (the bundled specs and the examples verify,
 * refusals roll back with the memory runtime's messages, values of every
 * kind come back verbatim ...); and what is SQLite's own: the scratch file
 * is removed (or kept and named), and so is one a killed run left; durability sets `synchronous` in
 * WAL mode; lint refuses names that are not identifiers. */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime_scenarios.h"
#include "store_sqlite.h"

static const target_spec sqlite_full = {.name = "sqlite", .label = "sqlite"};

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

static void test_sqlite_scratch_file_is_removed_after_the_run(void **state)
{
    fx *f = fx_open(values_spec, &sqlite_full);
    char path[700], dir[700];
    snprintf(path, sizeof path, "%s", sqlite_store_path(runtime_target_store(f->t)));
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    assert_true(exists(path));
    assert_non_null(strstr(path, "/bench-sqlite-"));
    fx_close(f);
    assert_false(exists(path));
    assert_false(exists(dir));
}

static void test_sqlite_keep_leaves_the_file_in_place(void **state)
{
    static const target_opt_value keep[] = {{.name = "keep", .b = true}};
    target_spec ts = sqlite_full;
    ts.opts = keep, ts.nopts = 1;
    fx *f = fx_open(values_spec, &ts);
    fx_ok(f, "Thing.Make",
          "{id: a, text: t, n: 0, flag: true, mood: calm,"
          " inner: {label: l, n: 1, flag: true, mood: calm}, tags: []}");
    char path[700], dir[700];
    snprintf(path, sizeof path, "%s", sqlite_store_path(runtime_target_store(f->t)));
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    fx_close(f);
    assert_true(exists(path));
    char lock[800]; /* a kept database is no stale one */
    snprintf(lock, sizeof lock, "%s/" SQLITE_OWNER_LOCK, dir);
    assert_false(exists(lock));
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(
        sqlite3_prepare_v2(db, "SELECT text FROM \"Thing\" WHERE id = 'a'", -1, &st, NULL),
        SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "t");
    sqlite3_finalize(st);
    sqlite3_close(db);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* A scratch directory as a store leaves it in tmp: with its database, and
 * the owner's lock file when lock is true. */
static void fake_scratch(const char *tmp, const char *name, bool lock)
{
    char dir[600], file[700];
    snprintf(dir, sizeof dir, "%s/%s", tmp, name);
    assert_int_equal(mkdir(dir, 0700), 0);
    static const char *const files[] = {"pizzas.db", "pizzas.db-wal", SQLITE_OWNER_LOCK};
    for (size_t i = 0; i < (lock ? 3u : 2u); i++) {
        snprintf(file, sizeof file, "%s/%s", dir, files[i]);
        FILE *f = fopen(file, "w");
        assert_non_null(f);
        fclose(f);
    }
}

/* A run killed before it could remove its scratch directory leaves it with
 * a lock nobody holds: the next sqlite open removes it, and never the
 * directory of a live store (its lock is held) or a kept one (no lock). */
static void test_sqlite_open_removes_the_scratch_of_a_dead_owner_only(void **state)
{
    char tmp[] = "/tmp/bench-test-sqlite-XXXXXX", path[700];
    assert_non_null(mkdtemp(tmp));
    const char *old = getenv("TMPDIR");
    char *saved = old ? strdup(old) : NULL;
    setenv("TMPDIR", tmp, 1);
    fake_scratch(tmp, "bench-sqlite-dead01", true);
    fake_scratch(tmp, "bench-sqlite-live01", true);
    fake_scratch(tmp, "bench-sqlite-kept01", false);
    snprintf(path, sizeof path, "%s/bench-sqlite-live01/" SQLITE_OWNER_LOCK, tmp);
    int live = open(path, O_RDONLY); /* another open file: its flock excludes the store's */
    assert_true(live >= 0);
    assert_int_equal(flock(live, LOCK_EX | LOCK_NB), 0);
    fx *f = fx_open(values_spec, &sqlite_full);
    snprintf(path, sizeof path, "%s/bench-sqlite-dead01", tmp);
    assert_false(exists(path));
    snprintf(path, sizeof path, "%s/bench-sqlite-live01/pizzas.db", tmp);
    assert_true(exists(path));
    snprintf(path, sizeof path, "%s/bench-sqlite-kept01/pizzas.db", tmp);
    assert_true(exists(path));
    /* and this store's own directory, while it lives, is a live one */
    sqlite_remove_stale_scratch(tmp);
    assert_true(exists(sqlite_store_path(runtime_target_store(f->t))));
    fx_close(f);
    close(live);
    if (saved)
        setenv("TMPDIR", saved, 1);
    else
        unsetenv("TMPDIR");
    free(saved);
    char cmd[800];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
    assert_int_equal(system(cmd), 0);
}

static int64_t pragma_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void test_sqlite_durability_sets_synchronous_in_wal_mode(void **state)
{
    static const struct {
        const char *durability;
        int64_t synchronous; /* 2 FULL, 1 NORMAL, 0 OFF */
    } cases[] = {{"full", 2}, {"normal", 1}, {"off", 0}};
    for (size_t i = 0; i < 3; i++) {
        const target_opt_value d[] = {{.name = "durability", .s = cases[i].durability}};
        target_spec ts = sqlite_full;
        ts.opts = d, ts.nopts = 1;
        fx *f = fx_open(values_spec, &ts);
        sqlite3 *db = sqlite_store_db(runtime_target_store(f->t));
        assert_int_equal(pragma_int(db, "PRAGMA synchronous"), cases[i].synchronous);
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
        sqlite3_finalize(st);
        fx_close(f);
    }
}

/* A spec whose names would inject SQL if they were concatenated: lint
 * refuses every one of them, so no such name reaches a target. */
static void test_sqlite_names_that_would_inject_sql_are_refused_by_lint(void **state)
{
    static const char *const specs[] = {
        "spec: 1\ndomain: x\naggregates:\n  'Order\"; DROP TABLE events; --':\n    identity: id\n"
        "    fields: {id: string}\n    commands:\n      Make: {creates: true, params: {id: "
        "string}}\n"
        "workload:\n  cycle:\n    - Order.Make: {id: a}\n",
        "spec: 1\ndomain: x\naggregates:\n  Order:\n    identity: id\n"
        "    fields: {id: string, \"n) VALUES (1); DROP TABLE x; --\": int}\n"
        "    commands:\n      Make: {creates: true, params: {id: string}}\n"
        "workload:\n  cycle:\n    - Order.Make: {id: a}\n",
        "spec: 1\ndomain: x\naggregates:\n  Order:\n    identity: id\n"
        "    fields: {id: string}\n    commands:\n"
        "      Make: {creates: true, params: {id: string}, emits: \"Made'); DELETE FROM x; --\"}\n"
        "workload:\n  cycle:\n    - Order.Make: {id: a}\n",
    };
    for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
        char path[] = "/tmp/bench-test-inject-XXXXXX";
        int fd = mkstemp(path);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, specs[i], strlen(specs[i])), (ssize_t)strlen(specs[i]));
        close(fd);
        diag_list d = {0};
        spec sp = {0};
        assert_int_equal(spec_check(path, &d, &sp), SPEC_INVALID);
        bool pattern = false;
        for (size_t k = 0; k < d.count; k++)
            pattern |= strstr(d.items[k].message, "is not a name") ||
                       strstr(d.items[k].message, "[A-Za-z_][A-Za-z0-9_]*");
        if (!pattern)
            fail_msg("spec %zu: no identifier error (first: %s)", i,
                     d.count ? d.items[0].message : "none");
        spec_close(&sp);
        diag_list_free(&d);
        unlink(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sqlite_scratch_file_is_removed_after_the_run),
        cmocka_unit_test(test_sqlite_keep_leaves_the_file_in_place),
        cmocka_unit_test(test_sqlite_open_removes_the_scratch_of_a_dead_owner_only),
        cmocka_unit_test(test_sqlite_durability_sets_synchronous_in_wal_mode),
        cmocka_unit_test(test_sqlite_names_that_would_inject_sql_are_refused_by_lint),
    };
    int failed = runtime_scenarios_run(&sqlite_full);
    return failed + cmocka_run_group_tests_name("sqlite store", tests, NULL, NULL);
}
