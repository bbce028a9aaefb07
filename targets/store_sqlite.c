/* store_sqlite.c: the SQLite store (the sqlite target is the C runtime on
 * it).
 *
 * Each run gets a scratch database file in a new temporary directory
 * (removed by close unless the target's keep option is set), in WAL mode,
 * with `synchronous` set from the durability option (DESIGN section 5). The
 * tables come from sqlgen; every statement is prepared once when the run
 * opens. A command is one transaction (BEGIN ... COMMIT, policies inside
 * it); its statements run as the runtime calls the store, and a refusal
 * rolls the transaction back; a query is its SELECTs alone, in autocommit,
 * and a scan one SELECT ... WHERE id >= ?1 ORDER BY id LIMIT ?2, prepared
 * for the aggregates the plan scans.
 * A create is checked by its INSERT: the
 * primary key refuses an identity that exists (checks_creates); a deleted
 * record's row is gone, so its identity may be inserted again. */
#include "store_sqlite.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "error.h"
#include "json_line.h"
#include "runtime.h"
#include "sqlgen.h"
#include "store_driver.h"

typedef struct sq_table {
    sqlite3_stmt *select, *insert, *update, *remove;
    sqlite3_stmt *scan; /* only for an aggregate the plan scans */
} sq_table;

typedef struct sqlite_store {
    store base;
    const plan *p;
    sql_schema *sql;
    sqlite3 *db;
    sq_table *tables;
    sqlite3_stmt *begin, *commit, *rollback, *event;
    arena mem;  /* values handed back by load; reset at begin */
    jline json; /* JSON text of the statement being bound */
    size_t *at; /* per field: where its JSON starts in json */
    size_t max_fields;
    bool in_txn;
    bool shared;            /* other sessions write the same file: BEGIN IMMEDIATE, busy waits */
    uint64_t busy_waits;    /* times a BEGIN waited for another session's write lock */
    bool keep;              /* the keep option: the scratch file stays after the run */
    const char *durability; /* the option, lent by the spec */
    char label[128];        /* the target's label, for the message that keeps it */
    char dir[512];          /* the temporary directory, or "" */
    int owner;              /* its lock file, flock'ed while this store lives, or -1 */
    char path[600];         /* the database file in it */
} sqlite_store;

/* A file sqlite could not open for want of a descriptor (the database,
 * its -wal, -shm or journal file): the message names the limit, not
 * "unable to open database file" after whichever statement met it. */
static bool out_of_files(sqlite_store *q)
{
    if (!q->db || (sqlite3_extended_errcode(q->db) & 0xff) != SQLITE_CANTOPEN ||
        sqlite3_system_errno(q->db) != EMFILE)
        return false;
    char why[128];
    snprintf(q->base.error, sizeof q->base.error, "sqlite: cannot open the scratch database %s: %s",
             q->path, err_errno_text(EMFILE, why, sizeof why));
    return true;
}

static int fail(sqlite_store *q, const char *what)
{
    if (out_of_files(q))
        return -1;
    snprintf(q->base.error, sizeof q->base.error, "sqlite: %s: %s", what, sqlite3_errmsg(q->db));
    return -1;
}

static int oom(sqlite_store *q)
{
    snprintf(q->base.error, sizeof q->base.error, "sqlite: out of memory");
    return -1;
}

/* Runs a prepared statement that returns no rows. */
static int run(sqlite_store *q, sqlite3_stmt *st, const char *what)
{
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : fail(q, what);
}

static int bind_key(sqlite3_stmt *st, int idx, const value *key)
{
    if (key->kind == VAL_INT)
        return sqlite3_bind_int64(st, idx, key->u.i);
    return sqlite3_bind_text(st, idx, key->len ? key->u.s : "", (int)key->len, SQLITE_STATIC);
}

/* ---- values in and out of columns ---- */

/* Binds field value v of type t as parameter idx; a struct or list binds the
 * JSON text at json + at, already written. */
static int bind_value(sqlite_store *q, sqlite3_stmt *st, int idx, const ty *t, const value *v,
                      size_t at, size_t end)
{
    switch (v->kind) {
    case VAL_NONE: return sqlite3_bind_null(st, idx);
    case VAL_INT: return sqlite3_bind_int64(st, idx, v->u.i);
    case VAL_BOOL: return sqlite3_bind_int(st, idx, v->u.b);
    case VAL_STRING:
        return sqlite3_bind_text(st, idx, v->len ? v->u.s : "", (int)v->len, SQLITE_STATIC);
    case VAL_ENUM: return sqlite3_bind_text(st, idx, t->values[v->u.e], -1, SQLITE_STATIC);
    case VAL_STRUCT:
    case VAL_LIST: break;
    }
    return sqlite3_bind_text(st, idx, q->json.data + at, (int)(end - at), SQLITE_STATIC);
}

/* Binds a record's fields as parameters 1..n (insert and update). */
static int bind_state(sqlite_store *q, sqlite3_stmt *st, const ty *t, const value *state)
{
    q->json.len = 0;
    for (size_t i = 0; i < t->nfields; i++) {
        q->at[i] = q->json.len;
        const value *v = &state->u.items[i];
        if (v->kind == VAL_STRUCT || v->kind == VAL_LIST)
            json_put_stored(&q->json, t->fields[i].type, v);
    }
    q->at[t->nfields] = q->json.len;
    for (size_t i = 0; i < t->nfields; i++)
        if (bind_value(q, st, (int)i + 1, t->fields[i].type, &state->u.items[i], q->at[i],
                       q->at[i + 1]) != SQLITE_OK)
            return fail(q, "binding a value");
    return 0;
}

/* Column col of the current row as a value of field f, into the arena. */
static int column_value(sqlite_store *q, sqlite3_stmt *st, int col, const field *f, value *out)
{
    const ty *t = f->type;
    if (sqlite3_column_type(st, col) == SQLITE_NULL) {
        *out = (value){.kind = VAL_NONE};
        return 0;
    }
    if (t->kind == TY_INT) {
        *out = (value){.kind = VAL_INT, .u.i = sqlite3_column_int64(st, col)};
        return 0;
    }
    if (t->kind == TY_BOOL) {
        *out = (value){.kind = VAL_BOOL, .u.b = sqlite3_column_int(st, col) != 0};
        return 0;
    }
    const char *text = (const char *)sqlite3_column_text(st, col);
    size_t len = (size_t)sqlite3_column_bytes(st, col);
    if (!text)
        return oom(q);
    if (t->kind == TY_STRING) {
        *out = (value){
            .kind = VAL_STRING, .len = (uint32_t)len, .u.s = arena_strndup(&q->mem, text, len)};
        return 0;
    }
    char why[256] = "";
    if (t->kind == TY_ENUM) {
        int e = ty_enum_index(t, text, len);
        *out = (value){.kind = VAL_ENUM, .u.e = e};
        if (e >= 0)
            return 0;
    } else if (json_decode_stored(text, len, t, f->name, &q->mem, out, why, sizeof why) == 0) {
        return 0;
    }
    snprintf(q->base.error, sizeof q->base.error,
             "sqlite: the column of field %s holds '%.100s', which is not a value of its type%s%s",
             f->name, text, why[0] ? ": " : "", why);
    return -1;
}

/* ---- store ops ---- */

static int sq_begin(store *s)
{
    sqlite_store *q = (sqlite_store *)s;
    arena_reset(&q->mem);
    if (run(q, q->begin, "BEGIN") < 0)
        return -1;
    q->in_txn = true;
    return 0;
}

/* A query's loads run in autocommit, each SELECT its own read of what is
 * committed (WAL: no lock held between them); only the values handed back
 * need releasing. */
static int sq_read_begin(store *s)
{
    sqlite_store *q = (sqlite_store *)s;
    if (q->in_txn) {
        snprintf(s->error, sizeof s->error, "sqlite: a query's reads begin inside a transaction");
        return -1;
    }
    arena_reset(&q->mem);
    return 0;
}

static int sq_load(store *s, const aggregate *agg, const value *key, value *out)
{
    sqlite_store *q = (sqlite_store *)s;
    sqlite3_stmt *st = q->tables[agg->index].select;
    if (bind_key(st, 1, key) != SQLITE_OK)
        return fail(q, "binding a key");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) {
        sqlite3_reset(st);
        return 0;
    }
    if (rc != SQLITE_ROW) {
        sqlite3_reset(st);
        return fail(q, "loading a record");
    }
    const ty *t = agg->state;
    value *items = arena_alloc(&q->mem, (t->nfields + 1) * sizeof *items);
    int col = 0;
    for (size_t i = 0; i < t->nfields; i++) {
        if ((int)i == agg->identity) {
            items[i] = *key;
            if (key->kind == VAL_STRING)
                items[i].u.s = arena_strndup(&q->mem, key->u.s, key->len);
            continue;
        }
        if (column_value(q, st, col++, &t->fields[i], &items[i]) < 0) {
            sqlite3_reset(st);
            return -1;
        }
    }
    sqlite3_reset(st);
    *out = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    return 1;
}

/* The current row of a scan: the identity in column 0, then every other
 * field, as a record in the arena. */
static int scan_row(sqlite_store *q, sqlite3_stmt *st, const aggregate *agg, value *out)
{
    const ty *t = agg->state;
    value *items = arena_alloc(&q->mem, (t->nfields + 1) * sizeof *items);
    if (column_value(q, st, 0, &t->fields[agg->identity], &items[agg->identity]) < 0)
        return -1;
    int col = 1;
    for (size_t i = 0; i < t->nfields; i++)
        if ((int)i != agg->identity && column_value(q, st, col++, &t->fields[i], &items[i]) < 0)
            return -1;
    *out = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    return 0;
}

/* One SELECT in autocommit, as a query's loads: WHERE id >= ?1 ORDER BY id
 * LIMIT ?2, on the primary key's b-tree. */
static int sq_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    sqlite_store *q = (sqlite_store *)s;
    sqlite3_stmt *st = q->tables[agg->index].scan;
    if (!st) {
        snprintf(s->error, sizeof s->error, "sqlite: %s has no scan statement", agg->name);
        return -1;
    }
    if (bind_key(st, 1, from) != SQLITE_OK || sqlite3_bind_int64(st, 2, limit) != SQLITE_OK)
        return fail(q, "binding a scan");
    value *rows = NULL;
    size_t n = 0, cap = 0;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (n == cap) { /* in the arena: doubling leaves the old copies there until reset */
            size_t more = cap ? cap * 2 : 16;
            value *grown = arena_alloc(&q->mem, more * sizeof *grown);
            if (n)
                memcpy(grown, rows, n * sizeof *rows);
            rows = grown;
            cap = more;
        }
        if (scan_row(q, st, agg, &rows[n]) < 0) {
            sqlite3_reset(st);
            return -1;
        }
        n++;
    }
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail(q, "scanning records");
    *out = (value){.kind = VAL_LIST, .len = (uint32_t)n, .u.items = rows};
    return 0;
}

static int sq_save(store *s, const aggregate *agg, const value *key, const value *state,
                   bool created)
{
    sqlite_store *q = (sqlite_store *)s;
    sqlite3_stmt *st = created ? q->tables[agg->index].insert : q->tables[agg->index].update;
    if (bind_state(q, st, agg->state, state) < 0)
        return -1;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_CONSTRAINT_PRIMARYKEY && created) {
        fail(q, "inserting a record"); /* the text, should a conflict be an error */
        return STORE_CONFLICT;
    }
    if (rc != SQLITE_DONE)
        return fail(q, created ? "inserting a record" : "updating a record");
    if (!created && sqlite3_changes(q->db) != 1) {
        snprintf(s->error, sizeof s->error, "sqlite: the %s record to update is not there",
                 agg->name);
        return -1;
    }
    return 0;
}

static int sq_remove(store *s, const aggregate *agg, const value *key)
{
    sqlite_store *q = (sqlite_store *)s;
    sqlite3_stmt *st = q->tables[agg->index].remove;
    if (bind_key(st, 1, key) != SQLITE_OK)
        return fail(q, "binding a key");
    if (run(q, st, "deleting a record") < 0)
        return -1;
    if (sqlite3_changes(q->db) != 1) {
        snprintf(s->error, sizeof s->error, "sqlite: the %s record to delete is not there",
                 agg->name);
        return -1;
    }
    return 0;
}

static int sq_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                           const value *payload)
{
    sqlite_store *q = (sqlite_store *)s;
    sqlite3_stmt *st = q->event;
    q->json.len = 0;
    json_put_stored(&q->json, ev->payload, payload);
    char id[24];
    int rc = sqlite3_bind_text(st, 1, agg->name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK && key->kind == VAL_INT) {
        snprintf(id, sizeof id, "%" PRId64, key->u.i);
        rc = sqlite3_bind_text(st, 2, id, -1, SQLITE_STATIC);
    } else if (rc == SQLITE_OK) {
        rc = sqlite3_bind_text(st, 2, key->len ? key->u.s : "", (int)key->len, SQLITE_STATIC);
    }
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 3, ev->name, -1, SQLITE_STATIC);
    if (rc == SQLITE_OK)
        rc = sqlite3_bind_text(st, 4, q->json.data, (int)q->json.len, SQLITE_STATIC);
    if (rc != SQLITE_OK)
        return fail(q, "binding an event");
    return run(q, st, "appending an event");
}

static int sq_commit(store *s)
{
    sqlite_store *q = (sqlite_store *)s;
    if (run(q, q->commit, "COMMIT") < 0)
        return -1;
    q->in_txn = false;
    return 0;
}

static int sq_rollback(store *s)
{
    sqlite_store *q = (sqlite_store *)s;
    if (!q->in_txn)
        return 0;
    q->in_txn = false;
    if (sqlite3_get_autocommit(q->db)) /* SQLite already rolled it back */
        return 0;
    return run(q, q->rollback, "ROLLBACK");
}

static int sq_count(store *s, uint64_t *aggs, uint64_t *events)
{
    sqlite_store *q = (sqlite_store *)s;
    for (size_t i = 0; i < q->p->naggs; i++) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(q->db, q->sql->tables[i].count, -1, &st, NULL) != SQLITE_OK)
            return fail(q, "counting records");
        int rc = sqlite3_step(st);
        aggs[i] = rc == SQLITE_ROW ? (uint64_t)sqlite3_column_int64(st, 0) : 0;
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW)
            return fail(q, "counting records");
    }
    for (size_t i = 0; i < q->p->nevents; i++)
        events[i] = 0;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(q->db, q->sql->count_events, -1, &st, NULL) != SQLITE_OK)
        return fail(q, "counting events");
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(st, 0);
        size_t i = 0;
        while (name && i < q->p->nevents && strcmp(q->p->events[i].name, name) != 0)
            i++;
        if (!name || i == q->p->nevents) {
            snprintf(s->error, sizeof s->error,
                     "sqlite: the events table holds an event '%.100s' "
                     "that the plan does not have",
                     name ? name : "");
            sqlite3_finalize(st);
            return -1;
        }
        events[i] = (uint64_t)sqlite3_column_int64(st, 1);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : fail(q, "counting events");
}

static const store_ops sqlite_store_ops = {
    .begin = sq_begin,
    .load = sq_load,
    .save = sq_save,
    .remove = sq_remove,
    .append_event = sq_append_event,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .count = sq_count,
    .checks_creates = true,
    .read_begin = sq_read_begin,
    .scan = sq_scan,
};

/* ---- opening and closing ---- */

static void close_db(sqlite_store *q)
{
    for (size_t i = 0; q->tables && i < q->p->naggs; i++) {
        sqlite3_finalize(q->tables[i].select);
        sqlite3_finalize(q->tables[i].insert);
        sqlite3_finalize(q->tables[i].update);
        sqlite3_finalize(q->tables[i].remove);
        sqlite3_finalize(q->tables[i].scan);
    }
    sqlite3_finalize(q->begin);
    sqlite3_finalize(q->commit);
    sqlite3_finalize(q->rollback);
    sqlite3_finalize(q->event);
    sqlite3_close_v2(q->db);
    sqlgen_free(q->sql);
    arena_free(&q->mem);
    jline_free(&q->json);
    free(q->tables);
    free(q->at);
}

static int prepare(sqlite_store *q, const char *sql, sqlite3_stmt **out)
{
    if (sqlite3_prepare_v3(q->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL) != SQLITE_OK)
        return fail(q, "preparing a statement");
    return 0;
}

static int exec(sqlite_store *q, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) == SQLITE_OK)
        return 0;
    if (out_of_files(q)) {
        sqlite3_free(msg);
        return -1;
    }
    snprintf(q->base.error, sizeof q->base.error, "sqlite: %.200s: %s", sql,
             msg ? msg : sqlite3_errmsg(q->db));
    sqlite3_free(msg);
    return -1;
}

/* The durability levels of DESIGN section 5 as SQLite's synchronous. */
static const char *synchronous_of(const char *durability)
{
    if (!durability || !strcmp(durability, "full"))
        return "PRAGMA synchronous = FULL";
    if (!strcmp(durability, "normal"))
        return "PRAGMA synchronous = NORMAL";
    return "PRAGMA synchronous = OFF";
}

enum { BUSY_GIVE_UP_MS = 10000 }; /* a write lock not had by then fails the command */

/* Another session holds the write lock: wait a little and try again (each
 * wait counted), as sqlite3_busy_timeout would, giving up after
 * BUSY_GIVE_UP_MS. */
static int busy_wait(void *arg, int tries)
{
    sqlite_store *q = arg;
    q->busy_waits++;
    if (tries > 10 + BUSY_GIVE_UP_MS) /* past the first ten, each wait is 1 ms */
        return 0;
    int us = tries < 10 ? 20 << (tries / 2) : 1000; /* 20 us growing to 1 ms */
    struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)us * 1000};
    nanosleep(&ts, NULL);
    return 1;
}

/* Readies a connection for other sessions on the same file: a command
 * takes the write lock at BEGIN (BEGIN IMMEDIATE: two deferred transactions
 * that both read and then write would deadlock, one of them failing at
 * once), and a BEGIN that finds it held waits (busy_wait). */
static int share_db(sqlite_store *q)
{
    q->shared = true;
    sqlite3_busy_handler(q->db, busy_wait, q);
    sqlite3_finalize(q->begin);
    q->begin = NULL;
    return prepare(q, "BEGIN IMMEDIATE", &q->begin);
}

/* Opens the database at path and builds the schema (unless another
 * session has) and statements. */
static int open_db(sqlite_store *q, const char *path, const char *durability, bool create)
{
    q->base.ops = &sqlite_store_ops;
    char err[256];
    if (sqlgen_schema(q->p, SQL_SQLITE, NULL, &q->sql, err, sizeof err) < 0) {
        snprintf(q->base.error, sizeof q->base.error, "sqlite: %s", err);
        return -1;
    }
    if (sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK)
        return fail(q, "opening the database");
    sqlite3_extended_result_codes(q->db, 1);
    if (exec(q, "PRAGMA journal_mode = WAL") < 0 || exec(q, synchronous_of(durability)) < 0)
        return -1;
    if (create && exec(q, "BEGIN") < 0)
        return -1;
    for (size_t i = 0; create && i < q->p->naggs; i++)
        if (exec(q, q->sql->tables[i].create) < 0)
            return -1;
    if (create && (exec(q, q->sql->create_events) < 0 || exec(q, "COMMIT") < 0))
        return -1;
    q->tables = calloc(q->p->naggs + 1, sizeof *q->tables);
    for (size_t i = 0; i < q->p->naggs; i++)
        if (q->p->aggs[i].state->nfields > q->max_fields)
            q->max_fields = q->p->aggs[i].state->nfields;
    q->at = calloc(q->max_fields + 1, sizeof *q->at);
    if (!q->tables || !q->at)
        return oom(q);
    for (size_t i = 0; i < q->p->naggs; i++) {
        const sql_table *tb = &q->sql->tables[i];
        if (prepare(q, tb->select, &q->tables[i].select) < 0 ||
            prepare(q, tb->insert, &q->tables[i].insert) < 0 ||
            prepare(q, tb->update, &q->tables[i].update) < 0 ||
            prepare(q, tb->remove, &q->tables[i].remove) < 0 ||
            (plan_scans(q->p, &q->p->aggs[i]) && prepare(q, tb->scan, &q->tables[i].scan) < 0))
            return -1;
    }
    if (prepare(q, "BEGIN", &q->begin) < 0 || prepare(q, "COMMIT", &q->commit) < 0 ||
        prepare(q, "ROLLBACK", &q->rollback) < 0 || prepare(q, q->sql->insert_event, &q->event) < 0)
        return -1;
    return 0;
}

/* ---- the driver ---- */

const char *sqlite_store_path(store *s)
{
    return ((sqlite_store *)s)->path;
}

sqlite3 *sqlite_store_db(store *s)
{
    return ((sqlite_store *)s)->db;
}

/* Removes the database, its WAL and shared-memory files, the owner's lock
 * and the directory. */
static void remove_scratch(sqlite_store *q)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char file[640];
        snprintf(file, sizeof file, "%s%s", q->path, suffixes[i]);
        unlink(file);
    }
    char lock[600];
    snprintf(lock, sizeof lock, "%s/" SQLITE_OWNER_LOCK, q->dir);
    unlink(lock);
    rmdir(q->dir);
}

/* Removes the scratch directory dir of an owner that is gone, if it is one:
 * its lock file exists and nobody holds it (a live store holds it from
 * mkdtemp to close; a kept database has none). Only regular files. */
static bool remove_if_stale(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/" SQLITE_OWNER_LOCK, dir);
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    bool stale = flock(fd, LOCK_EX | LOCK_NB) == 0;
    if (stale) {
        DIR *d = opendir(dir);
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
                unlink(path);
        }
        if (d)
            closedir(d);
        rmdir(dir);
    }
    close(fd);
    return stale;
}

size_t sqlite_remove_stale_scratch(const char *tmp)
{
    size_t n = 0;
    DIR *d = opendir(tmp);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, "bench-sqlite-", 13) != 0)
            continue;
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", tmp, e->d_name);
        n += remove_if_stale(dir);
    }
    if (d)
        closedir(d);
    return n;
}

static void sqlite_close(store *s)
{
    sqlite_store *q = (sqlite_store *)s;
    close_db(q);
    if (q->dir[0]) {
        if (q->keep) {
            char lock[600]; /* kept: no lock file, so no later run takes it for stale */
            snprintf(lock, sizeof lock, "%s/" SQLITE_OWNER_LOCK, q->dir);
            unlink(lock);
            fprintf(stderr, "%s: kept the scratch database %s\n", q->label, q->path);
        } else {
            remove_scratch(q);
        }
    }
    if (q->owner >= 0)
        close(q->owner);
    free(q);
}

/* A file name from the domain: letters, digits, - and _ kept. */
static void file_name(const char *domain, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = domain; *c && n + 4 < size && n < 64; c++) {
        bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                  (*c >= '0' && *c <= '9') || *c == '-' || *c == '_';
        out[n++] = ok ? *c : '_';
    }
    snprintf(out + n, size - n, ".db");
}

/* ---- named files (bench setup, teardown; DESIGN section 12) ---- */

int sqlite_named_create(const plan *p, const char *path, char *err, size_t size)
{
    if (access(path, F_OK) == 0) {
        snprintf(err, size, "sqlite: %s exists already (bench teardown removes it)", path);
        return -1;
    }
    sqlite_store *q = calloc(1, sizeof *q);
    if (!q) {
        snprintf(err, size, "sqlite: out of memory");
        return -1;
    }
    q->p = p;
    q->owner = -1;
    snprintf(q->path, sizeof q->path, "%s", path);
    int rc = open_db(q, path, NULL, true);
    if (rc < 0)
        snprintf(err, size, "%s", q->base.error);
    sqlite_close(&q->base); /* dir is "": the file stays */
    return rc;
}

int sqlite_named_remove(const char *path, char *err, size_t size)
{
    if (access(path, F_OK) != 0) {
        snprintf(err, size, "sqlite: there is no %s", path);
        return -1;
    }
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        char file[1100];
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        if (unlink(file) < 0 && errno != ENOENT) {
            char why[128];
            snprintf(err, size, "sqlite: cannot remove %s: %s", file,
                     err_errno_text(errno, why, sizeof why));
            return -1;
        }
    }
    return 0;
}

/* The file option: bench setup's database, shared with other shards. */
static int open_named(sqlite_store *q, const char *path, char *err, size_t size)
{
    if (access(path, R_OK | W_OK) != 0) {
        char why[128];
        snprintf(err, size, "sqlite: cannot open %s: %s (make it with bench setup --store-file)",
                 path, err_errno_text(errno, why, sizeof why));
        return -1;
    }
    snprintf(q->path, sizeof q->path, "%s", path);
    /* other processes write it too: BEGIN IMMEDIATE and busy waits */
    if (open_db(q, q->path, q->durability, false) < 0 || share_db(q) < 0) {
        snprintf(err, size, "%s", q->base.error);
        return -1;
    }
    return 0;
}

static int sqlite_open(const plan *p, const target_spec *spec, int run, store **out, char *err,
                       size_t size)
{
    (void)run;
    *out = NULL;
    sqlite_store *q = calloc(1, sizeof *q);
    if (!q) {
        snprintf(err, size, "sqlite: out of memory");
        return -1;
    }
    q->p = p;
    q->keep = target_opt_bool(spec, "keep");
    q->durability = target_opt_str(spec, "durability");
    snprintf(q->label, sizeof q->label, "%s", spec->label);
    q->owner = -1;
    const char *named = target_opt_str(spec, "file");
    if (named) {
        if (open_named(q, named, err, size) < 0) {
            sqlite_close(&q->base);
            return -1;
        }
        *out = &q->base;
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    sqlite_remove_stale_scratch(tmp); /* left by a run that was killed */
    snprintf(q->dir, sizeof q->dir, "%s/bench-sqlite-XXXXXX", tmp);
    if (!mkdtemp(q->dir)) {
        snprintf(err, size, "sqlite: cannot create a scratch directory %s: %s", q->dir,
                 strerror(errno));
        q->dir[0] = '\0';
        sqlite_close(&q->base);
        return -1;
    }
    char lock[600];
    snprintf(lock, sizeof lock, "%s/" SQLITE_OWNER_LOCK, q->dir);
    q->owner = open(lock, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (q->owner < 0 || flock(q->owner, LOCK_EX | LOCK_NB) != 0) {
        char why[128];
        snprintf(err, size, "sqlite: cannot create %s: %s", lock,
                 err_errno_text(errno, why, sizeof why));
        sqlite_close(&q->base);
        return -1;
    }
    char name[80];
    file_name(p->domain, name, sizeof name);
    snprintf(q->path, sizeof q->path, "%s/%s", q->dir, name);
    if (open_db(q, q->path, target_opt_str(spec, "durability"), true) < 0) {
        snprintf(err, size, "%s", q->base.error);
        sqlite_close(&q->base);
        return -1;
    }
    *out = &q->base;
    return 0;
}

/* A session for another client: a connection of its own to the same file. */
static int sqlite_session(store *s, store **out, char *err, size_t size)
{
    sqlite_store *owner = (sqlite_store *)s;
    *out = NULL;
    if (!owner->shared && share_db(owner) < 0) {
        snprintf(err, size, "%s", owner->base.error);
        return -1;
    }
    sqlite_store *q = calloc(1, sizeof *q);
    if (!q) {
        snprintf(err, size, "sqlite: out of memory");
        return -1;
    }
    q->p = owner->p;
    q->owner = -1; /* the owner's store holds the scratch directory's lock */
    snprintf(q->path, sizeof q->path, "%s", owner->path); /* dir stays empty: nothing to remove */
    if (open_db(q, q->path, owner->durability, false) < 0 || share_db(q) < 0) {
        snprintf(err, size, "%s", q->base.error);
        sqlite_close(&q->base);
        return -1;
    }
    *out = &q->base;
    return 0;
}

static uint64_t sqlite_lock_waits(const store *s)
{
    return ((const sqlite_store *)s)->busy_waits;
}

static const target_option sqlite_options[] = {
    STORE_OPTION_DURABILITY("SQLite's synchronous: FULL, NORMAL (with WAL) or OFF"),
    STORE_OPTION_KEEP("the scratch database file"),
    {.name = "file",
     .type = TARGET_OPT_STRING,
     .about = "a database file that bench setup made (--store-file): runs use it as it is, "
              "shared with other processes, and leave it; bench teardown removes it"},
};

const store_driver sqlite_store_driver = {
    .version = STORE_DRIVER_VERSION,
    .name = "sqlite",
    .about = "the C runtime on SQLite: a table per aggregate, WAL, one transaction per command, "
             "a scratch file removed after the run",
    .options = sqlite_options,
    .noptions = sizeof sqlite_options / sizeof *sqlite_options,
    .caps = TARGET_CAN_SCAN,
    .open = sqlite_open,
    .close = sqlite_close,
    .session = sqlite_session,
    .session_close = sqlite_close,
    .lock_waits = sqlite_lock_waits,
};
