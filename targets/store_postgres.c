/* store_postgres.c: the PostgreSQL store, through libpq (loaded when first
 * needed, see pq_dl.h); the postgres target is the C runtime on it.
 *
 * Each run connects to the database `bench` (created if missing, left in
 * place) with libpq's environment or the dsn option, creates a schema
 * bench_<pid>_<random> with the tables from sqlgen, prepares every
 * statement, and drops the schema when it closes, whatever happened before
 * (the runner closes a target after a failure and after Ctrl-C too).
 *
 * A command is one transaction whose statements go in libpq pipeline mode,
 * so that it costs as few round trips as its data flow allows. The
 * transaction is the extended query protocol's implicit one: it begins with
 * the first statement and ends at the next sync, committed, or rolled back
 * as a whole if a statement failed; no BEGIN or COMMIT is sent.
 *   - the store answers loads from a per-transaction cache of the records
 *     it has read or written, and sends nothing for a write until commit;
 *   - the runtime hints (prefetch) every record it will load before the
 *     guards: the command's own and each read whose key comes from the
 *     arguments. The first load sends all hinted SELECTs and a flush
 *     request (not a sync), so the rows come back and the transaction
 *     stays open: round trip one. Commit sends every INSERT, UPDATE and
 *     DELETE (in the order the runtime made them) and the event rows with
 *     the sync: round trip two. A refusal after round
 *     trip one sends ROLLBACK with the sync;
 *   - a dispatched creates command is not loaded first (checks_creates):
 *     its INSERT is refused by the primary key when the identity exists.
 *     So a command that needs no read before its guards takes one round
 *     trip.
 *   - a query opens no transaction and writes nothing: after read_begin,
 *     its hinted SELECTs (its record, and each read whose key comes from
 *     the arguments) go with its first load and a sync, one round trip
 *     whose implicit transaction only reads and ends at that sync; a read
 *     keyed by the record costs one more. A scan is likewise one SELECT
 *     ... WHERE id >= $1 ORDER BY id LIMIT $2 and a sync (the key column
 *     of a string identity is COLLATE "C": bytes order it, as elsewhere).
 * The hints include the record each policy of the command's event loads
 * when its key is an argument, or a field of the command's stored record
 * (prefetch_via: one SELECT joins the two, prepared in the pipeline on its
 * first use). A policy command that loads any other record not yet read
 * costs one more round trip per such load (docs/targets.md).
 * The store counts its round trips in store.round_trips.
 *
 * Option fence: rls runs the commands as the role bench_fenced (created if
 * missing, left in place) with row-level security enabled and forced on
 * every table, a read policy and write policies that check the role. */
#include "store_postgres.h"

#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "array.h"
#include "json_line.h"
#include "pq_dl.h"
#include "runtime.h"
#include "sqlgen.h"
#include "store_driver.h"
#include "value.h"

enum {
    PG_ERROR_MAX = BENCH_ERROR_MAX,
    PG_SCHEMA_MAX = 64,
    PG_CONNECT_TIMEOUT_S = 2, /* as connect_timeout below */
};

static const pq_api *pq;

/* ---- what the report's environment says ---- */

static char env_server[256];
static char env_libpq[64];

static int postgres_environment(char *server, size_t server_size, char *libpq, size_t libpq_size)
{
    snprintf(server, server_size, "%s", env_server);
    snprintf(libpq, libpq_size, "%s", env_libpq);
    return env_server[0] ? 0 : -1;
}

/* ---- connections ---- */

/* libpq's message on one line: its line breaks become "; ", other runs of
 * white space one space. */
static void one_line(const char *msg, char *out, size_t size)
{
    size_t n = 0;
    int gap = 0; /* 0 none, 1 a space, 2 a line break */
    for (const char *c = msg ? msg : ""; *c && n + 1 < size; c++) {
        if (*c == '\n' || *c == '\r') {
            gap = n > 0 ? 2 : 0;
            continue;
        }
        if (*c == '\t' || *c == ' ') {
            gap = gap ? gap : n > 0;
            continue;
        }
        if (gap == 2 && n + 3 < size) {
            out[n++] = ';';
            out[n++] = ' ';
        } else if (gap == 1 && n + 2 < size) {
            out[n++] = ' ';
        }
        gap = 0;
        out[n++] = *c;
    }
    out[n] = '\0';
}

/* What a failure says when the connection is gone (the server stopped,
 * crashed or restarted): libpq's own words ("server closed the connection
 * unexpectedly", "no connection to the server") do not say that the server
 * went away, and in pipeline mode the failure may show only as a missing
 * sync. */
#define PG_LOST "the connection to the server was lost (the server stopped or restarted)"

/* PG_LOST and the first line of detail (libpq's or the server's), into out. */
static void lost_text(const char *detail, char *out, size_t size)
{
    char first[200];
    one_line(detail, first, sizeof first);
    first[strcspn(first, ";")] = '\0'; /* one_line's "; " between lines */
    snprintf(out, size, PG_LOST "%s%.200s", first[0] ? ": " : "", first);
}

/* A failure's text on connection c: lost_text when the connection is gone,
 * otherwise msg on one line. A write that failed (EPIPE) leaves the
 * connection reading as open until libpq reads the end of the socket. */
static void failure_text(PGconn *c, const char *msg, char *out, size_t size)
{
    char copy[PG_ERROR_MAX]; /* msg may be libpq's buffer, which reading changes */
    snprintf(copy, sizeof copy, "%s", msg);
    if (c && pq->status(c) != CONNECTION_BAD)
        pq->consumeInput(c);
    if (c && pq->status(c) == CONNECTION_BAD)
        lost_text(copy, out, size);
    else
        one_line(copy, out, size);
}

typedef struct conn_params {
    const char *kw[6];
    const char *val[6];
} conn_params;

/* The dsn (or libpq's environment when NULL), with dbname overriding the
 * database when not NULL, a 2-second connect timeout and our name. */
static void params_for(conn_params *cp, const char *dsn, const char *dbname)
{
    size_t n = 0;
    if (dsn && *dsn) {
        cp->kw[n] = "dbname"; /* the first dbname is expanded as a connection string */
        cp->val[n++] = dsn;
    }
    if (dbname) {
        cp->kw[n] = "dbname";
        cp->val[n++] = dbname;
    }
    cp->kw[n] = "connect_timeout";
    cp->val[n++] = "2";
    cp->kw[n] = "application_name";
    cp->val[n++] = "bench";
    cp->kw[n] = NULL;
    cp->val[n] = NULL;
}

static void quiet_notices(void *arg, const char *message) {}

/* A connection, or NULL with libpq's message (one line) in err. */
static PGconn *connect_to(const char *dsn, const char *dbname, char *err, size_t size)
{
    conn_params cp;
    params_for(&cp, dsn, dbname);
    PGconn *c = pq->connectdbParams(cp.kw, cp.val, 1);
    if (c && pq->status(c) == CONNECTION_OK) {
        pq->setNoticeProcessor(c, quiet_notices, NULL);
        return c;
    }
    one_line(c ? pq->errorMessage(c) : "out of memory", err, size);
    if (c)
        pq->finish(c);
    return NULL;
}

/* A connection to the user's own database, or to postgres, or template1:
 * somewhere to create the database bench from. */
static PGconn *connect_maintenance(const char *dsn, char *err, size_t size)
{
    static const char *const dbs[] = {NULL, "postgres", "template1"};
    char ignored[PG_ERROR_MAX];
    for (size_t i = 0; i < sizeof dbs / sizeof *dbs; i++) {
        PGconn *c = connect_to(dsn, dbs[i], i ? ignored : err, i ? sizeof ignored : size);
        if (c)
            return c;
    }
    return NULL;
}

/* Runs sql (one or more statements) outside pipeline mode. Returns 0, or -1
 * with the server's message in err. */
static int exec_sql(PGconn *c, const char *sql, char *err, size_t size)
{
    PGresult *r = pq->exec(c, sql);
    ExecStatusType st = r ? pq->resultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
        pq->clear(r);
        return 0;
    }
    failure_text(c, r ? pq->resultErrorMessage(r) : pq->errorMessage(c), err, size);
    if (r)
        pq->clear(r);
    return -1;
}

/* The SQLSTATE of a failed result, or "". */
static const char *sqlstate(const PGresult *r)
{
    const char *s = r ? pq->resultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
    return s ? s : "";
}

/* Creates the database bench when it is missing. Another bench creating it
 * at the same moment is not an error. */
static int ensure_database(const char *dsn, char *err, size_t size)
{
    PGconn *c = connect_maintenance(dsn, err, size);
    if (!c)
        return -1;
    PGresult *r = pq->exec(c, "SELECT 1 FROM pg_database WHERE datname = 'bench'");
    bool exists = r && pq->resultStatus(r) == PGRES_TUPLES_OK && pq->ntuples(r) == 1;
    if (r)
        pq->clear(r);
    int rc = 0;
    if (!exists) {
        r = pq->exec(c, "CREATE DATABASE bench");
        const char *state = sqlstate(r);
        if (!r || (pq->resultStatus(r) != PGRES_COMMAND_OK && strcmp(state, "42P04") != 0 &&
                   strcmp(state, "23505") != 0)) {
            char msg[PG_ERROR_MAX];
            failure_text(c, r ? pq->resultErrorMessage(r) : pq->errorMessage(c), msg, sizeof msg);
            snprintf(err, size, "cannot create the database bench (%s)", msg);
            rc = -1;
        }
        if (r)
            pq->clear(r);
    }
    pq->finish(c);
    return rc;
}

/* A connection to the database bench, creating it when missing. */
static PGconn *connect_bench(const char *dsn, char *err, size_t size)
{
    PGconn *c = connect_to(dsn, "bench", err, size);
    if (c)
        return c;
    if (ensure_database(dsn, err, size) < 0)
        return NULL;
    return connect_to(dsn, "bench", err, size);
}

static void version_text(int v, char *out, size_t size)
{
    if (v >= 100000)
        snprintf(out, size, "%d.%d", v / 10000, v % 10000);
    else
        snprintf(out, size, "%d.%d.%d", v / 10000, v / 100 % 100, v % 100);
}

/* The first connection records what the report's environment says. */
static void note_environment(PGconn *c)
{
    if (env_server[0])
        return;
    char lib[32];
    version_text(pq->libVersion(), lib, sizeof lib);
    snprintf(env_libpq, sizeof env_libpq, "libpq %s", lib);
    PGresult *r = pq->exec(c, "SELECT current_setting('server_version'), current_setting('fsync'), "
                              "current_setting('synchronous_commit'), "
                              "current_setting('shared_buffers')");
    if (r && pq->resultStatus(r) == PGRES_TUPLES_OK && pq->ntuples(r) == 1)
        snprintf(env_server, sizeof env_server,
                 "%.60s; fsync %.10s, synchronous_commit %.20s, shared_buffers %.20s",
                 pq->getvalue(r, 0, 0), pq->getvalue(r, 0, 1), pq->getvalue(r, 0, 2),
                 pq->getvalue(r, 0, 3));
    if (r)
        pq->clear(r);
}

/* ---- availability ---- */

typedef struct avail_entry {
    char dsn[256];
    int rc;
    char why[PG_ERROR_MAX + 256];
} avail_entry;

/* Asking costs a connection (up to 2 s with no server), and the runner asks
 * once per spec and target entry: the answer per dsn is kept. */
static avail_entry avail_cache[8];
static size_t navail;

static void unreachable(const char *msg, char *why, size_t size)
{
    snprintf(
        why, size,
        "no PostgreSQL server is reachable (%s); start one, or point PGHOST, PGPORT and PGUSER "
        "at one (or give the target a dsn)",
        msg);
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int check_server(const char *dsn, char *why, size_t size)
{
    char msg[PG_ERROR_MAX];
    double start = seconds();
    PGconn *c = connect_to(dsn, "bench", msg, sizeof msg);
    if (c) {
        pq->finish(c);
        return 0;
    }
    /* a connection that timed out had no answer: asking again would wait
     * another 2 seconds for the same */
    bool timed_out = seconds() - start >= PG_CONNECT_TIMEOUT_S - 0.1;
    conn_params cp;
    params_for(&cp, dsn, "bench");
    if (timed_out || pq->pingParams(cp.kw, cp.val, 1) != PQPING_OK) {
        unreachable(msg, why, size);
        return -1;
    }
    /* a server answers: bench may just not exist yet */
    char msg2[PG_ERROR_MAX];
    c = connect_maintenance(dsn, msg2, sizeof msg2);
    if (c) {
        pq->finish(c);
        return 0;
    }
    snprintf(why, size,
             "the PostgreSQL server refused the connection (%s); point PGUSER and PGPASSWORD (or "
             "the target's dsn) at a role that may connect and create the database bench",
             msg);
    return -1;
}

static int postgres_available(const target_spec *spec, char *why, size_t size)
{
    if (!pq && !(pq = pq_load(why, size)))
        return -1;
    const char *dsn = target_opt_str(spec, "dsn");
    if (!dsn)
        dsn = "";
    for (size_t i = 0; i < navail; i++)
        if (!strcmp(avail_cache[i].dsn, dsn)) {
            snprintf(why, size, "%s", avail_cache[i].why);
            return avail_cache[i].rc;
        }
    char reason[sizeof avail_cache[0].why] = "";
    int rc = check_server(*dsn ? dsn : NULL, reason, sizeof reason);
    if (navail < sizeof avail_cache / sizeof *avail_cache &&
        strlen(dsn) < sizeof avail_cache[0].dsn) {
        avail_entry *e = &avail_cache[navail++];
        snprintf(e->dsn, sizeof e->dsn, "%s", dsn);
        e->rc = rc;
        snprintf(e->why, sizeof e->why, "%s", reason);
    }
    snprintf(why, size, "%s", reason);
    return rc;
}

/* ---- the store ---- */

typedef enum op_kind {
    OP_SELECT,
    OP_INSERT,
    OP_UPDATE,
    OP_DELETE,
    OP_EVENT,
    OP_PREPARE, /* a via statement, prepared with the first use */
    OP_VIA,     /* a record whose key is a field of another (prefetch_via) */
    OP_SCAN,    /* a scan's SELECT, its rows into pg_store.scan */
} op_kind;

/* A statement waiting for the next sync. */
typedef struct pg_op {
    op_kind kind;
    int table; /* aggregate index (not OP_EVENT) */
    int rec;   /* OP_SELECT: the cache entry it fills */
    int via;   /* OP_PREPARE, OP_VIA: the statement in pg_store.vias */
    int nparams;
    const char **params; /* text, in the transaction's arena; NULL is SQL NULL */
} pg_op;

typedef enum rec_state {
    REC_PENDING, /* its SELECT is queued */
    REC_ABSENT,
    REC_PRESENT,
} rec_state;

/* A record the transaction has read or written. */
typedef struct pg_rec {
    int table;
    value key; /* in the arena */
    rec_state state;
    value val; /* REC_PRESENT: in the arena */
} pg_rec;

typedef struct stmt_names {
    char select[32], insert[32], update[32], remove[32];
    char scan[32];        /* "" unless the plan scans the aggregate */
    char select_lock[40]; /* SELECT ... FOR UPDATE: with several clients, in a transaction */
} stmt_names;

/* A statement of prefetch_via: table's record keyed by field `field` of a
 * record of table `from` (sqlgen_select_via). */
typedef struct via_stmt {
    int table, from, field;
    const char *sql; /* in the schema's arena */
    bool prepared;
    char name[32];
} via_stmt;

typedef struct pg_store {
    store base;
    const plan *p;
    sql_schema *sql;
    PGconn *conn;
    stmt_names *names;     /* per table */
    arena mem;             /* per transaction: parameters, cached records */
    jline json;            /* JSON text of the parameter being written */
    pg_op *reads, *writes; /* queued SELECTs; queued INSERTs, UPDATEs, DELETEs and events */
    size_t nreads, nwrites, reads_cap, writes_cap;
    pg_rec *recs;
    size_t nrecs, recs_cap;
    via_stmt *vias;
    size_t nvias, vias_cap;
    value scan; /* the last scan's answer, in mem */
    bool in_txn;
    bool reading;     /* after read_begin, until begin: a query's loads share the cache */
    bool begun;       /* the server holds this transaction open (statements sent, no sync yet) */
    int unread_syncs; /* syncs sent by rollback whose results are still to read */
    bool pipeline;
    bool lock_reads; /* several clients: a command's loads lock their rows (FOR UPDATE) */
    bool retryable;  /* the last failure was a serialization failure or a deadlock */
} pg_store;

static int store_error(pg_store *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int store_error(pg_store *g, const char *fmt, ...)
{
    int n = snprintf(g->base.error, sizeof g->base.error, "postgres: ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->base.error + n, sizeof g->base.error - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static int oom(pg_store *g)
{
    return store_error(g, "out of memory");
}

static int find_rec(const pg_store *g, int table, const value *key)
{
    for (size_t i = 0; i < g->nrecs; i++)
        if (g->recs[i].table == table && value_equal(&g->recs[i].key, key))
            return (int)i;
    return -1;
}

static int add_rec(pg_store *g, int table, const value *key, rec_state state)
{
    if (array_reserve((void **)&g->recs, &g->recs_cap, g->nrecs, sizeof *g->recs) < 0)
        return oom(g);
    g->recs[g->nrecs] = (pg_rec){.table = table, .key = value_copy(&g->mem, key), .state = state};
    return (int)g->nrecs++;
}

/* ---- parameters ---- */

/* v as a text parameter in the arena (NULL for an unset optional). */
static int param_text(pg_store *g, const ty *t, const value *v, const char **out)
{
    char num[24];
    switch (v->kind) {
    case VAL_NONE: *out = NULL; return 0;
    case VAL_INT:
        snprintf(num, sizeof num, "%" PRId64, v->u.i);
        *out = arena_strdup(&g->mem, num);
        return 0;
    case VAL_BOOL: *out = v->u.b ? "true" : "false"; return 0;
    case VAL_ENUM: *out = t->values[v->u.e]; return 0;
    case VAL_STRING:
        if (v->len && memchr(v->u.s, '\0', v->len))
            return store_error(g, "a string with a NUL byte cannot be stored in PostgreSQL text");
        *out = arena_strndup(&g->mem, v->len ? v->u.s : "", v->len);
        return 0;
    case VAL_STRUCT:
    case VAL_LIST: break;
    }
    g->json.len = 0;
    json_put_stored(&g->json, t, v);
    *out = arena_strndup(&g->mem, g->json.data, g->json.len);
    return 0;
}

static pg_op *queue(pg_store *g, bool write, op_kind kind, int table, int nparams)
{
    pg_op **list = write ? &g->writes : &g->reads;
    size_t *n = write ? &g->nwrites : &g->nreads, *cap = write ? &g->writes_cap : &g->reads_cap;
    if (array_reserve((void **)list, cap, *n, sizeof **list) < 0)
        return NULL;
    pg_op *op = &(*list)[(*n)++];
    *op = (pg_op){.kind = kind, .table = table, .nparams = nparams};
    op->params = arena_alloc(&g->mem, ((size_t)nparams + 1) * sizeof *op->params);
    return op;
}

/* ---- one sync: sending and reading back ---- */

static const char *stmt_of(const pg_store *g, const pg_op *op)
{
    switch (op->kind) {
    case OP_SELECT:
        return g->lock_reads && !g->reading ? g->names[op->table].select_lock
                                            : g->names[op->table].select;
    case OP_INSERT: return g->names[op->table].insert;
    case OP_UPDATE: return g->names[op->table].update;
    case OP_DELETE: return g->names[op->table].remove;
    case OP_SCAN: return g->names[op->table].scan;
    case OP_PREPARE:
    case OP_VIA: return g->vias[op->via].name;
    case OP_EVENT: break;
    }
    return "event";
}

/* Queues one statement in libpq's buffer; a failure leaves the pipeline in
 * an unknown state, so the connection is given up (close drops the schema
 * on a new one). */
static int send_stmt(pg_store *g, const pg_op *op)
{
    const char *name = stmt_of(g, op);
    if (op->kind == OP_PREPARE) {
        if (pq->sendPrepare(g->conn, name, g->vias[op->via].sql, 0, NULL))
            return 0;
    } else if (pq->sendQueryPrepared(g->conn, name, op->nparams, op->params, NULL, NULL, 0)) {
        return 0;
    }
    char msg[PG_ERROR_MAX];
    failure_text(g->conn, pq->errorMessage(g->conn), msg, sizeof msg);
    g->pipeline = false;
    return store_error(g, "sending %s: %s", name, msg);
}

/* What reading a sync's results found. */
typedef struct outcome {
    int status; /* 0, STORE_CONFLICT or -1 */
    bool lost;  /* the connection stopped answering */
    bool retry; /* the failure was 40001 (serialization) or 40P01 (deadlock) */
    char first[PG_ERROR_MAX];
} outcome;

/* Row `row` of r from column first on, the record's fields but its
 * identity as select returns them, into items (zeroed, as many as the
 * state's fields; the identity's is left). */
static int decode_row(pg_store *g, const aggregate *agg, PGresult *r, int row, int first,
                      value *items)
{
    const ty *t = agg->state;
    int col = 0;
    for (size_t i = 0; i < t->nfields; i++) {
        const field *f = &t->fields[i];
        if ((int)i == agg->identity)
            continue;
        int c = first + col++;
        if (pq->getisnull(r, row, c))
            continue; /* zeroed: VAL_NONE */
        const char *text = pq->getvalue(r, row, c);
        size_t len = (size_t)pq->getlength(r, row, c);
        value *v = &items[i];
        char why[256] = "";
        bool ok = true;
        switch (f->type->kind) {
        case TY_INT: {
            char *end;
            *v = (value){.kind = VAL_INT, .u.i = strtoll(text, &end, 10)};
            ok = *end == '\0';
            break;
        }
        case TY_BOOL: *v = (value){.kind = VAL_BOOL, .u.b = text[0] == 't'}; break;
        case TY_STRING:
            *v = (value){
                .kind = VAL_STRING, .len = (uint32_t)len, .u.s = arena_strndup(&g->mem, text, len)};
            break;
        case TY_ENUM:
            *v = (value){.kind = VAL_ENUM, .u.e = ty_enum_index(f->type, text, len)};
            ok = v->u.e >= 0;
            break;
        case TY_STRUCT:
        case TY_LIST:
            ok = json_decode_stored(text, len, f->type, f->name, &g->mem, v, why, sizeof why) == 0;
            break;
        }
        if (!ok)
            return store_error(g,
                               "the column of field %s holds '%.100s', which is not a value of "
                               "its type%s%s",
                               f->name, text, why[0] ? ": " : "", why);
    }
    return 0;
}

/* Row 0 of r from column first on, the record's fields but its identity
 * as select returns them, as cache entry rec. */
static int fill_rec(pg_store *g, int at, PGresult *r, int first)
{
    pg_rec *rec = &g->recs[at];
    const aggregate *agg = &g->p->aggs[rec->table];
    const ty *t = agg->state;
    value *items = arena_alloc(&g->mem, (t->nfields + 1) * sizeof *items);
    if (decode_row(g, agg, r, 0, first, items) < 0)
        return -1;
    items[agg->identity] = rec->key;
    rec->state = REC_PRESENT;
    rec->val = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    return 0;
}

/* A SELECT's row as the cached record. */
static int take_row(pg_store *g, const pg_op *op, PGresult *r)
{
    if (pq->ntuples(r) == 0) {
        g->recs[op->rec].state = REC_ABSENT;
        return 0;
    }
    return fill_rec(g, op->rec, r, 0);
}

/* An identity as PostgreSQL's text of it: an int's digits, or the string. */
static int key_of_text(const ty *t, const char *text, size_t len, arena *a, value *out)
{
    if (t->kind != TY_INT) {
        *out =
            (value){.kind = VAL_STRING, .len = (uint32_t)len, .u.s = arena_strndup(a, text, len)};
        return 0;
    }
    char *end;
    *out = (value){.kind = VAL_INT, .u.i = strtoll(text, &end, 10)};
    return *end == '\0' ? 0 : -1;
}

/* A scan's rows: the identity, then the other fields, each a record of the
 * answer (g->scan). */
static int take_scan(pg_store *g, const pg_op *op, PGresult *r)
{
    const aggregate *agg = &g->p->aggs[op->table];
    const ty *t = agg->state;
    int n = pq->ntuples(r);
    value *rows = arena_alloc(&g->mem, ((size_t)n + 1) * sizeof *rows);
    for (int row = 0; row < n; row++) {
        value *items = arena_alloc(&g->mem, (t->nfields + 1) * sizeof *items);
        const char *text = pq->getvalue(r, row, 0);
        if (key_of_text(t->fields[agg->identity].type, text, (size_t)pq->getlength(r, row, 0),
                        &g->mem, &items[agg->identity]) < 0)
            return store_error(g, "a scan of %s answered the identity '%.100s'", agg->name, text);
        if (decode_row(g, agg, r, row, 1, items) < 0)
            return -1;
        rows[row] = (value){.kind = VAL_STRUCT, .len = (uint32_t)t->nfields, .u.items = items};
    }
    g->scan = (value){.kind = VAL_LIST, .len = (uint32_t)n, .u.items = rows};
    return 0;
}

/* A via statement's row: the key K found in the other record, then the
 * record K or NULLs. The record K, present or absent, joins the cache
 * unless the transaction already knows it (it may have written it). No row:
 * the other record is absent, and its own load says so. */
static int take_via_row(pg_store *g, const pg_op *op, PGresult *r)
{
    if (pq->ntuples(r) == 0 || pq->getisnull(r, 0, 0))
        return 0;
    const aggregate *agg = &g->p->aggs[op->table];
    const char *text = pq->getvalue(r, 0, 0);
    value key = {.kind = VAL_STRING, .len = (uint32_t)pq->getlength(r, 0, 0), .u.s = text};
    if (agg->state->fields[agg->identity].type->kind == TY_INT) {
        char *end;
        key = (value){.kind = VAL_INT, .u.i = strtoll(text, &end, 10)};
        if (*end != '\0')
            return 0; /* not a key: the load finds out */
    }
    if (find_rec(g, op->table, &key) >= 0)
        return 0;
    int at = add_rec(g, op->table, &key, REC_ABSENT);
    if (at < 0)
        return -1;
    return pq->getisnull(r, 0, 1) ? 0 : fill_rec(g, at, r, 2);
}

/* The sync's results stopped making sense: the connection is given up.
 * When it is gone, the text says so, with the server's last word (57P01
 * "terminating connection due to administrator command", kept from an
 * earlier statement) or libpq's; otherwise it is what. */
static void lose(pg_store *g, outcome *o, const char *what)
{
    bool had = o->status != 0 && o->first[0];
    o->lost = true;
    o->status = -1;
    /* a server stopped at once can leave libpq with no result before it has
       read the end of the socket: reading what is there tells the two apart */
    if (pq->status(g->conn) != CONNECTION_BAD)
        pq->consumeInput(g->conn);
    if (pq->status(g->conn) == CONNECTION_BAD) {
        char detail[PG_ERROR_MAX];
        snprintf(detail, sizeof detail, "%s", had ? o->first : pq->errorMessage(g->conn));
        lost_text(detail, o->first, sizeof o->first);
    } else {
        snprintf(o->first, sizeof o->first, "%s", what);
    }
}

/* Whether a failure r (PGRES_FATAL_ERROR) ends the session: the server's
 * 57P01..57P03 (shutting down or restarting), or a connection libpq found
 * closed. An error of libpq's own (no SQLSTATE) can come from a write that
 * failed (EPIPE) while the connection still reads as open: reading what is
 * there finds the end of the socket and tells the two apart. */
static bool ends_session(pg_store *g, const PGresult *r)
{
    const char *state = sqlstate(r);
    if (!strncmp(state, "57P0", 4) || pq->status(g->conn) == CONNECTION_BAD)
        return true;
    if (state[0])
        return false;
    pq->consumeInput(g->conn);
    return pq->status(g->conn) == CONNECTION_BAD;
}

/* Reads the results of one statement. */
static void take(pg_store *g, const pg_op *op, outcome *o)
{
    if (o->lost)
        return;
    PGresult *r = pq->getResult(g->conn);
    if (!r) {
        lose(g, o, "the server stopped answering");
        return;
    }
    ExecStatusType st = pq->resultStatus(r);
    if (st == PGRES_FATAL_ERROR && ends_session(g, r)) {
        o->lost = true;
        o->status = -1;
        lost_text(pq->resultErrorMessage(r), o->first, sizeof o->first);
        pq->clear(r);
        return;
    }
    if (st == PGRES_FATAL_ERROR) {
        if (o->status == 0) {
            bool dup = !strcmp(sqlstate(r), "23505") && op->kind == OP_INSERT;
            o->status = dup ? STORE_CONFLICT : -1;
            o->retry = !strcmp(sqlstate(r), "40001") || !strcmp(sqlstate(r), "40P01");
            one_line(pq->resultErrorMessage(r), o->first, sizeof o->first);
        }
    } else if (st == PGRES_TUPLES_OK &&
               (op->kind == OP_SELECT || op->kind == OP_VIA || op->kind == OP_SCAN)) {
        int rc = o->status != 0          ? 0
                 : op->kind == OP_SELECT ? take_row(g, op, r)
                 : op->kind == OP_VIA    ? take_via_row(g, op, r)
                                         : take_scan(g, op, r);
        if (rc < 0) {
            o->status = -1;
            snprintf(o->first, sizeof o->first, "%s", g->base.error + strlen("postgres: "));
        }
    } else if (st == PGRES_COMMAND_OK && op->kind == OP_PREPARE) {
        g->vias[op->via].prepared = true;
    } else if (st == PGRES_COMMAND_OK && (op->kind == OP_UPDATE || op->kind == OP_DELETE)) {
        if (o->status == 0 && strcmp(pq->cmdTuples(r), "1") != 0) {
            o->status = -1;
            snprintf(o->first, sizeof o->first, "the %s record to %s is not there",
                     g->p->aggs[op->table].name, op->kind == OP_UPDATE ? "update" : "delete");
        }
    } else if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK && st != PGRES_PIPELINE_ABORTED) {
        if (o->status == 0) {
            o->status = -1;
            snprintf(o->first, sizeof o->first, "unexpected result %d", (int)st);
        }
    }
    pq->clear(r);
    r = pq->getResult(g->conn); /* the NULL that ends a statement's results */
    if (r) {
        pq->clear(r);
        lose(g, o, "more results than statements");
    }
}

/* Waits for the sync's own result. */
static void take_sync(pg_store *g, outcome *o)
{
    if (o->lost)
        return;
    PGresult *r = pq->getResult(g->conn);
    if (r && pq->resultStatus(r) == PGRES_PIPELINE_SYNC) {
        pq->clear(r);
        return;
    }
    if (r)
        pq->clear(r);
    lose(g, o, "the pipeline lost its sync");
}

static int sync_failed(pg_store *g, outcome *o, const char *what)
{
    if (o->lost)
        g->pipeline = false; /* close reconnects to drop the schema */
    g->retryable = o->retry && !o->lost;
    store_error(g, "%s: %s", what, o->first); /* the text, should a conflict be an error */
    return o->status == STORE_CONFLICT ? STORE_CONFLICT : -1;
}

/* Reads the results of the syncs rollback sent without waiting. */
static int drain(pg_store *g)
{
    for (; g->unread_syncs > 0; g->unread_syncs--) {
        outcome o = {0};
        take_sync(g, &o);
        if (o.status != 0)
            return sync_failed(g, &o, "ending a refused transaction");
    }
    return 0;
}

/* Sends what is queued and reads it back: one round trip. The transaction
 * is the implicit one of the extended query protocol: it begins with the
 * first statement and ends at the next sync, committed, or rolled back as a
 * whole when a statement fails. A flush that is not final sends the queued
 * SELECTs with a flush request instead of a sync, so their rows come back
 * while the transaction stays open; writes wait for the final flush (safe,
 * as a SELECT is only queued for a record the transaction has not
 * written). A final flush sends everything and the sync that commits.
 * Returns 0, STORE_CONFLICT or -1. */
static int flush(pg_store *g, bool final)
{
    size_t nwrites = final ? g->nwrites : 0;
    for (size_t i = 0; i < g->nreads; i++)
        if (send_stmt(g, &g->reads[i]) < 0)
            return -1;
    for (size_t i = 0; i < nwrites; i++)
        if (send_stmt(g, &g->writes[i]) < 0)
            return -1;
    bool sent = final ? pq->pipelineSync(g->conn) == 1
                      : pq->sendFlushRequest(g->conn) == 1 && pq->flush(g->conn) == 0;
    if (!sent) {
        char msg[PG_ERROR_MAX];
        failure_text(g->conn, pq->errorMessage(g->conn), msg, sizeof msg);
        g->pipeline = false;
        return store_error(g, "sending statements: %s", msg);
    }
    if (g->base.round_trips)
        (*g->base.round_trips)++;
    /* the server holds the transaction open until a sync, even after an error */
    g->begun = !final;
    if (drain(g) < 0) /* their answers come before these */
        return -1;
    outcome o = {0};
    for (size_t i = 0; i < g->nreads; i++)
        take(g, &g->reads[i], &o);
    for (size_t i = 0; i < nwrites; i++)
        take(g, &g->writes[i], &o);
    if (final)
        take_sync(g, &o);
    g->nreads = 0;
    if (final)
        g->nwrites = 0;
    return o.status == 0 ? 0 : sync_failed(g, &o, final ? "committing" : "loading");
}

/* ---- store ops ---- */

static int pg_begin(store *s)
{
    pg_store *g = (pg_store *)s;
    arena_reset(&g->mem);
    g->nreads = g->nwrites = g->nrecs = 0;
    g->in_txn = true;
    g->reading = false;
    g->begun = false;
    g->retryable = false;
    return 0;
}

/* A query: its hinted SELECTs go with its first load and a sync, one round
 * trip that leaves nothing open; later loads of hinted records come from
 * the cache, which lives until the next begin or read_begin. */
static int pg_read_begin(store *s)
{
    pg_store *g = (pg_store *)s;
    if (g->in_txn)
        return store_error(g, "a query's reads begin inside a transaction");
    arena_reset(&g->mem);
    g->nreads = g->nwrites = g->nrecs = 0;
    g->reading = true;
    return 0;
}

static int pg_prefetch(store *s, const aggregate *agg, const value *key)
{
    pg_store *g = (pg_store *)s;
    if (find_rec(g, (int)agg->index, key) >= 0)
        return 0;
    int rec = add_rec(g, (int)agg->index, key, REC_PENDING);
    if (rec < 0)
        return -1;
    pg_op *op = queue(g, false, OP_SELECT, (int)agg->index, 1);
    if (!op)
        return oom(g);
    op->rec = rec;
    return param_text(g, agg->state->fields[agg->identity].type, key, &op->params[0]);
}

/* The via statement for (agg, from, field), added unprepared when new. */
static int find_via(pg_store *g, int table, int from, int from_field)
{
    for (size_t i = 0; i < g->nvias; i++)
        if (g->vias[i].table == table && g->vias[i].from == from && g->vias[i].field == from_field)
            return (int)i;
    if (array_reserve((void **)&g->vias, &g->vias_cap, g->nvias, sizeof *g->vias) < 0)
        return oom(g);
    via_stmt *v = &g->vias[g->nvias];
    *v = (via_stmt){
        .table = table,
        .from = from,
        .field = from_field,
        .sql = sqlgen_select_via(g->sql, &g->p->aggs[table], &g->p->aggs[from], from_field)};
    snprintf(v->name, sizeof v->name, "via_%zu", g->nvias);
    return (int)g->nvias++;
}

/* Queues the via statement, and its PREPARE first when it is not prepared
 * and no PREPARE of it is queued already (a discarded one never ran). */
static int queue_via(pg_store *g, int via, const ty *from_id, const value *from_key)
{
    bool queued = g->vias[via].prepared;
    for (size_t i = 0; !queued && i < g->nreads; i++)
        queued = g->reads[i].kind == OP_PREPARE && g->reads[i].via == via;
    pg_op *op = queued ? NULL : queue(g, false, OP_PREPARE, g->vias[via].table, 0);
    if (!queued && !op)
        return oom(g);
    if (op)
        op->via = via;
    op = queue(g, false, OP_VIA, g->vias[via].table, 1);
    if (!op)
        return oom(g);
    op->via = via;
    return param_text(g, from_id, from_key, &op->params[0]);
}

static int pg_prefetch_via(store *s, const aggregate *agg, const aggregate *from,
                           const value *from_key, int from_field)
{
    pg_store *g = (pg_store *)s;
    ty_kind id = agg->state->fields[agg->identity].type->kind;
    if (id != from->state->fields[from_field].type->kind || (id != TY_INT && id != TY_STRING))
        return 0; /* the columns may not compare: the load fetches it */
    int i = find_rec(g, (int)from->index, from_key);
    if (i >= 0 && g->recs[i].state == REC_ABSENT)
        return 0;
    if (i >= 0 && g->recs[i].state == REC_PRESENT) {
        const value *k = &g->recs[i].val.u.items[from_field];
        return k->kind == VAL_NONE ? 0 : pg_prefetch(s, agg, k);
    }
    int via = find_via(g, (int)agg->index, (int)from->index, from_field);
    if (via < 0)
        return -1;
    return queue_via(g, via, from->state->fields[from->identity].type, from_key);
}

static int pg_load(store *s, const aggregate *agg, const value *key, value *out)
{
    pg_store *g = (pg_store *)s;
    if (!g->pipeline)
        return store_error(g, "the connection is no longer usable");
    bool outside = !g->in_txn;
    if (outside && !g->reading) /* a read of what is committed: one implicit transaction */
        g->nrecs = g->nreads = g->nwrites = 0;
    int i = find_rec(g, (int)agg->index, key);
    if (i < 0) {
        if (pg_prefetch(s, agg, key) < 0)
            return -1;
        i = (int)g->nrecs - 1;
    }
    if (g->recs[i].state == REC_PENDING && flush(g, outside) != 0)
        return -1;
    if (g->recs[i].state == REC_PENDING)
        return store_error(g, "a load found no answer");
    if (g->recs[i].state == REC_ABSENT)
        return 0;
    *out = g->recs[i].val;
    return 1;
}

/* A scan: its SELECT and a sync, one round trip whose implicit
 * transaction only reads and ends at the sync. */
static int pg_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    pg_store *g = (pg_store *)s;
    if (!g->pipeline)
        return store_error(g, "the connection is no longer usable");
    if (g->in_txn)
        return store_error(g, "a scan inside a transaction");
    if (!g->names[agg->index].scan[0])
        return store_error(g, "%s has no scan statement", agg->name);
    g->nreads = g->nwrites = 0;
    pg_op *op = queue(g, false, OP_SCAN, (int)agg->index, 2);
    if (!op)
        return oom(g);
    char num[24];
    snprintf(num, sizeof num, "%" PRId64, limit);
    op->params[1] = arena_strdup(&g->mem, num);
    if (param_text(g, agg->state->fields[agg->identity].type, from, &op->params[0]) < 0)
        return -1;
    g->scan = (value){.kind = VAL_LIST};
    if (flush(g, true) != 0)
        return -1;
    *out = g->scan;
    return 0;
}

static int pg_save(store *s, const aggregate *agg, const value *key, const value *state,
                   bool created)
{
    pg_store *g = (pg_store *)s;
    const ty *t = agg->state;
    pg_op *op = queue(g, true, created ? OP_INSERT : OP_UPDATE, (int)agg->index, (int)t->nfields);
    if (!op)
        return oom(g);
    for (size_t i = 0; i < t->nfields; i++)
        if (param_text(g, t->fields[i].type, &state->u.items[i], &op->params[i]) < 0)
            return -1;
    int i = find_rec(g, (int)agg->index, key);
    if (i < 0 && (i = add_rec(g, (int)agg->index, key, REC_PRESENT)) < 0)
        return -1;
    g->recs[i].state = REC_PRESENT;
    g->recs[i].val = value_copy(&g->mem, state);
    return 0;
}

/* Queued with the writes, so it costs no round trip of its own; the cache
 * knows the record as absent from now on. */
static int pg_remove(store *s, const aggregate *agg, const value *key)
{
    pg_store *g = (pg_store *)s;
    pg_op *op = queue(g, true, OP_DELETE, (int)agg->index, 1);
    if (!op)
        return oom(g);
    if (param_text(g, agg->state->fields[agg->identity].type, key, &op->params[0]) < 0)
        return -1;
    int i = find_rec(g, (int)agg->index, key);
    if (i < 0 && (i = add_rec(g, (int)agg->index, key, REC_ABSENT)) < 0)
        return -1;
    g->recs[i].state = REC_ABSENT;
    return 0;
}

static int pg_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                           const value *payload)
{
    pg_store *g = (pg_store *)s;
    pg_op *op = queue(g, true, OP_EVENT, -1, 4);
    if (!op)
        return oom(g);
    op->params[0] = agg->name;
    op->params[2] = ev->name;
    return param_text(g, agg->state->fields[agg->identity].type, key, &op->params[1]) < 0 ||
                   param_text(g, ev->payload, payload, &op->params[3]) < 0
               ? -1
               : 0;
}

static int pg_commit(store *s)
{
    pg_store *g = (pg_store *)s;
    if (!g->pipeline)
        return store_error(g, "the connection is no longer usable");
    int rc = flush(g, true);
    if (rc == 0)
        g->in_txn = false;
    return rc;
}

static int pg_rollback(store *s)
{
    pg_store *g = (pg_store *)s;
    bool open = g->begun;
    g->nreads = g->nwrites = g->nrecs = 0;
    g->in_txn = false;
    g->begun = false;
    if (!g->pipeline)
        return 0; /* close gives up on this connection */
    if (!open)
        return 0; /* nothing was sent, or a sync already ended the transaction */
    /* The open transaction has only run SELECTs (writes go with the final
     * sync), so ending it with a sync loses nothing a ROLLBACK would undo,
     * and a failed one ends at the sync anyway. Nothing waits for it: the
     * next flush reads its result before its own. */
    if (!pq->pipelineSync(g->conn)) {
        g->pipeline = false;
        return store_error(g, "ending a refused transaction failed");
    }
    g->unread_syncs++;
    return 0;
}

static int set_pipeline(pg_store *g, bool on)
{
    if (g->pipeline == on)
        return 0;
    if (!on && drain(g) < 0)
        return -1;
    if (on ? !pq->enterPipelineMode(g->conn) : !pq->exitPipelineMode(g->conn)) {
        char msg[PG_ERROR_MAX];
        failure_text(g->conn, pq->errorMessage(g->conn), msg, sizeof msg);
        return store_error(g, "%s pipeline mode: %s", on ? "entering" : "leaving", msg);
    }
    g->pipeline = on;
    return 0;
}

static int pg_count(store *s, uint64_t *aggs, uint64_t *events)
{
    pg_store *g = (pg_store *)s;
    if (set_pipeline(g, false) < 0)
        return -1;
    char err[PG_ERROR_MAX];
    for (size_t i = 0; i < g->p->naggs; i++) {
        PGresult *r = pq->exec(g->conn, g->sql->tables[i].count);
        bool ok = r && pq->resultStatus(r) == PGRES_TUPLES_OK && pq->ntuples(r) == 1;
        if (ok)
            aggs[i] = strtoull(pq->getvalue(r, 0, 0), NULL, 10);
        else
            failure_text(g->conn, r ? pq->resultErrorMessage(r) : pq->errorMessage(g->conn), err,
                         sizeof err);
        if (r)
            pq->clear(r);
        if (!ok)
            return store_error(g, "counting records: %s", err);
    }
    for (size_t i = 0; i < g->p->nevents; i++)
        events[i] = 0;
    PGresult *r = pq->exec(g->conn, g->sql->count_events);
    if (!r || pq->resultStatus(r) != PGRES_TUPLES_OK) {
        failure_text(g->conn, r ? pq->resultErrorMessage(r) : pq->errorMessage(g->conn), err,
                     sizeof err);
        if (r)
            pq->clear(r);
        return store_error(g, "counting events: %s", err);
    }
    int rc = 0;
    for (int row = 0; row < pq->ntuples(r) && rc == 0; row++) {
        const char *name = pq->getvalue(r, row, 0);
        size_t i = 0;
        while (i < g->p->nevents && strcmp(g->p->events[i].name, name) != 0)
            i++;
        if (i == g->p->nevents)
            rc = store_error(g,
                             "the events table holds an event '%.100s' that the plan does not "
                             "have",
                             name);
        else
            events[i] = strtoull(pq->getvalue(r, row, 1), NULL, 10);
    }
    pq->clear(r);
    return rc < 0 ? rc : set_pipeline(g, true);
}

static const store_ops postgres_store_ops = {
    .begin = pg_begin,
    .load = pg_load,
    .save = pg_save,
    .remove = pg_remove,
    .append_event = pg_append_event,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .count = pg_count,
    .prefetch = pg_prefetch,
    .prefetch_via = pg_prefetch_via,
    .checks_creates = true,
    .read_begin = pg_read_begin,
    .scan = pg_scan,
};

/* ---- the driver ---- */

/* One run's store: the store, and what the run made on the server. */
typedef struct pg_run {
    pg_store store;             /* first: a store * is a pg_run * */
    const char *isolation;      /* SET SESSION CHARACTERISTICS ... of the isolation option */
    char schema[PG_SCHEMA_MAX]; /* "" until it exists */
    bool fenced;
    bool keep;
    bool named;       /* the schema option: bench setup's schema, never dropped here */
    bool synchronous; /* durability full: synchronous_commit on */
    char label[128];  /* the target's label, for messages */
    char *dsn;        /* the dsn option (malloc'd), or NULL */
} pg_run;

const char *postgres_store_schema(store *s)
{
    return ((pg_run *)s)->schema;
}

int postgres_store_query(store *s, const char *sql, char *out, size_t size)
{
    pg_store *g = (pg_store *)s;
    if (set_pipeline(g, false) < 0) {
        snprintf(out, size, "%s", g->base.error);
        return -1;
    }
    PGresult *r = pq->exec(g->conn, sql);
    bool ok = r && pq->resultStatus(r) == PGRES_TUPLES_OK && pq->ntuples(r) == 1;
    if (ok)
        snprintf(out, size, "%s", pq->getvalue(r, 0, 0));
    else
        failure_text(g->conn, r ? pq->resultErrorMessage(r) : pq->errorMessage(g->conn), out, size);
    if (r)
        pq->clear(r);
    return set_pipeline(g, true) == 0 && ok ? 0 : -1;
}

/* A growable SQL script for the set-up statements. */
typedef struct script {
    char *buf;
    size_t len, cap;
} script;

static void add(script *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(script *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        abort(); /* a programmer error: a format vsnprintf cannot encode */
    if (s->len + (size_t)n + 1 > s->cap) {
        size_t cap = s->cap ? s->cap : 1024;
        while (cap < s->len + (size_t)n + 1)
            cap *= 2;
        char *more = xrealloc(s->buf, cap);
        s->buf = more;
        s->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
    va_end(ap);
    s->len += (size_t)n;
}

static int random_suffix(char *out, size_t size)
{
    uint32_t r;
    if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
        return -1;
    snprintf(out, size, "%08x", r);
    return 0;
}

/* The fence: the role, its grants, row-level security and the policies,
 * then the session becomes the role. */
static void fence_script(const pg_store *g, const char *schema, script *sc)
{
    add(sc, "GRANT USAGE ON SCHEMA \"%s\" TO bench_fenced;\n", schema);
    add(sc,
        "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \"%s\" TO bench_fenced;\n",
        schema);
    add(sc, "GRANT USAGE ON ALL SEQUENCES IN SCHEMA \"%s\" TO bench_fenced;\n", schema);
    for (size_t i = 0; i <= g->sql->ntables; i++) {
        const char *t = i < g->sql->ntables ? g->sql->tables[i].name : g->sql->events;
        add(sc, "ALTER TABLE \"%s\".\"%s\" ENABLE ROW LEVEL SECURITY;\n", schema, t);
        add(sc, "ALTER TABLE \"%s\".\"%s\" FORCE ROW LEVEL SECURITY;\n", schema, t);
        add(sc,
            "CREATE POLICY bench_read ON \"%s\".\"%s\" FOR SELECT TO bench_fenced "
            "USING (true);\n",
            schema, t);
        add(sc,
            "CREATE POLICY bench_insert ON \"%s\".\"%s\" FOR INSERT TO bench_fenced "
            "WITH CHECK (current_user = 'bench_fenced');\n",
            schema, t);
        add(sc,
            "CREATE POLICY bench_update ON \"%s\".\"%s\" FOR UPDATE TO bench_fenced "
            "USING (true) WITH CHECK (current_user = 'bench_fenced');\n",
            schema, t);
        add(sc,
            "CREATE POLICY bench_delete ON \"%s\".\"%s\" FOR DELETE TO bench_fenced "
            "USING (current_user = 'bench_fenced');\n",
            schema, t);
    }
    add(sc, "SET ROLE bench_fenced;\n");
}

/* bench_fenced exists and this session may become it. Two benches creating
 * it at once are not an error. */
static const char create_role[] =
    "DO $$BEGIN\n"
    "  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'bench_fenced') THEN\n"
    "    CREATE ROLE bench_fenced NOLOGIN;\n"
    "  END IF;\n"
    "EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;\n"
    "END$$;\n"
    "DO $$BEGIN\n"
    "  IF NOT pg_has_role('bench_fenced', 'MEMBER') THEN\n"
    "    EXECUTE format('GRANT bench_fenced TO %I', current_user);\n"
    "  END IF;\n"
    "END$$;";

/* Who owns a scratch schema: the session that made it holds the advisory
 * lock (PG_OWNER_CLASS, hashtext(name)) until it ends; a schema whose lock
 * is free lost its owner (SIGKILL, a crash, a lost server). A kept one is
 * commented PG_KEPT and is nobody's to drop. */
#define PG_OWNER_CLASS "1650814563" /* 'benc' */
#define PG_KEPT "bench: kept"

/* Drops the scratch schemas of owners that are gone on connection c, never
 * a live one's (try_advisory_lock fails while its owner holds it) nor a kept
 * one. One that cannot be dropped (another user's) is left as it is.
 * Returns how many were dropped, or -1 with the reason in err. */
static long drop_stale(PGconn *c, char *err, size_t size)
{
    PGresult *r =
        pq->exec(c, "SELECT nspname FROM pg_namespace "
                    "WHERE nspname ~ '^bench_[0-9]+_[0-9a-f]+$' "
                    "AND obj_description(oid, 'pg_namespace') IS DISTINCT FROM '" PG_KEPT "'");
    if (!r || pq->resultStatus(r) != PGRES_TUPLES_OK) {
        failure_text(c, r ? pq->resultErrorMessage(r) : pq->errorMessage(c), err, size);
        if (r)
            pq->clear(r);
        return -1;
    }
    long dropped = 0;
    for (int i = 0; i < pq->ntuples(r); i++) {
        const char *name = pq->getvalue(r, i, 0); /* the pattern keeps it a plain identifier */
        char sql[256], why[PG_ERROR_MAX];
        snprintf(sql, sizeof sql,
                 "SELECT 1 WHERE pg_try_advisory_lock(" PG_OWNER_CLASS ", hashtext('%s'))", name);
        PGresult *l = pq->exec(c, sql);
        bool stale = l && pq->resultStatus(l) == PGRES_TUPLES_OK && pq->ntuples(l) == 1;
        if (l)
            pq->clear(l);
        if (!stale)
            continue;
        snprintf(sql, sizeof sql, "DROP SCHEMA \"%s\" CASCADE", name);
        dropped += exec_sql(c, sql, why, sizeof why) == 0;
        snprintf(sql, sizeof sql, "SELECT pg_advisory_unlock(" PG_OWNER_CLASS ", hashtext('%s'))",
                 name);
        exec_sql(c, sql, why, sizeof why);
    }
    pq->clear(r);
    return dropped;
}

long postgres_drop_stale_schemas(const char *dsn, char *err, size_t size)
{
    if (!pq && !(pq = pq_load(err, size)))
        return -1;
    PGconn *c = connect_bench(dsn && *dsn ? dsn : NULL, err, size);
    if (!c)
        return -1;
    long n = drop_stale(c, err, size);
    pq->finish(c);
    return n;
}

/* ---- named schemas (bench setup, teardown; DESIGN section 12) ---- */

/* Whether the schema name exists on c: 1, 0, or -1 with the reason. */
static int schema_exists(PGconn *c, const char *name, char *err, size_t size)
{
    const char *params[] = {name};
    PGresult *r = pq->execParams(c, "SELECT 1 FROM pg_namespace WHERE nspname = $1", 1, NULL,
                                 params, NULL, NULL, 0);
    if (!r || pq->resultStatus(r) != PGRES_TUPLES_OK) {
        failure_text(c, r ? pq->resultErrorMessage(r) : pq->errorMessage(c), err, size);
        if (r)
            pq->clear(r);
        return -1;
    }
    int n = pq->ntuples(r);
    pq->clear(r);
    return n > 0;
}

/* A connection to the database bench for a named schema's command, and
 * whether the schema exists. Returns the connection, or NULL with err. */
static PGconn *named_connect(const char *dsn, const char *name, int *exists, char *err, size_t size)
{
    if (!pq && !(pq = pq_load(err, size)))
        return NULL;
    PGconn *c = connect_bench(dsn && *dsn ? dsn : NULL, err, size);
    if (!c) {
        err_prefix_buf(err, size, "postgres: cannot connect to the database bench: ");
        return NULL;
    }
    char why[PG_ERROR_MAX];
    if ((*exists = schema_exists(c, name, why, sizeof why)) < 0) {
        snprintf(err, size, "postgres: cannot look for the schema %s: %s", name, why);
        pq->finish(c);
        return NULL;
    }
    return c;
}

int postgres_named_create(const char *dsn, const plan *p, const char *name, char *err, size_t size)
{
    int exists;
    PGconn *c = named_connect(dsn, name, &exists, err, size);
    if (!c)
        return -1;
    char why[PG_ERROR_MAX];
    sql_schema *sql = NULL;
    int rc = -1;
    if (exists)
        snprintf(err, size,
                 "postgres: the schema %s exists already in the database bench (bench teardown "
                 "removes it)",
                 name);
    else if (sqlgen_schema(p, SQL_POSTGRES, name, &sql, why, sizeof why) < 0)
        snprintf(err, size, "postgres: %s", why);
    else {
        script sc = {0};
        add(&sc, "CREATE SCHEMA \"%s\";\n", name);
        /* kept: no stale-schema cleanup ever takes it for a killed run's */
        add(&sc, "COMMENT ON SCHEMA \"%s\" IS '" PG_KEPT "';\n", name);
        for (size_t i = 0; i < sql->ntables; i++)
            add(&sc, "%s;\n", sql->tables[i].create);
        add(&sc, "%s;\n", sql->create_events);
        rc = exec_sql(c, sc.buf, why, sizeof why);
        free(sc.buf);
        if (rc < 0)
            snprintf(err, size, "postgres: cannot create the schema %s: %s", name, why);
    }
    sqlgen_free(sql);
    pq->finish(c);
    return rc;
}

int postgres_named_drop(const char *dsn, const char *name, char *err, size_t size)
{
    int exists;
    PGconn *c = named_connect(dsn, name, &exists, err, size);
    if (!c)
        return -1;
    char sql[160], why[PG_ERROR_MAX];
    int rc = -1;
    snprintf(sql, sizeof sql, "DROP SCHEMA \"%s\" CASCADE", name);
    if (!exists)
        snprintf(err, size, "postgres: there is no schema %s in the database bench", name);
    else if ((rc = exec_sql(c, sql, why, sizeof why)) < 0)
        snprintf(err, size, "postgres: cannot drop the schema %s: %s", name, why);
    pq->finish(c);
    return rc;
}

/* The schema option: bench setup's schema, used as it is. */
static int use_named_schema(pg_run *pt, const char *name, char *err, size_t size)
{
    pg_store *g = &pt->store;
    if (pt->fenced) {
        snprintf(err, size,
                 "postgres: a named schema (--schema) takes no fence: bench setup makes no "
                 "row-level-security policies; leave this target out with --targets");
        return -1;
    }
    char why[PG_ERROR_MAX];
    int exists = schema_exists(g->conn, name, why, sizeof why);
    if (exists <= 0) {
        if (exists < 0)
            snprintf(err, size, "postgres: cannot look for the schema %s: %s", name, why);
        else
            snprintf(err, size,
                     "postgres: there is no schema %s in the database bench: make it with bench "
                     "setup",
                     name);
        return -1;
    }
    if (sqlgen_schema(g->p, SQL_POSTGRES, name, &g->sql, why, sizeof why) < 0) {
        snprintf(err, size, "postgres: %s", why);
        return -1;
    }
    char sql[256];
    snprintf(sql, sizeof sql, "SET synchronous_commit TO %s; %s", pt->synchronous ? "on" : "off",
             pt->isolation);
    if (exec_sql(g->conn, sql, why, sizeof why) < 0) {
        snprintf(err, size, "postgres: %s", why);
        return -1;
    }
    snprintf(pt->schema, sizeof pt->schema, "%s", name);
    pt->named = true;
    return 0;
}

/* The schema, its tables and (with the fence) its policies. */
static int create_schema(pg_run *pt, char *err, size_t size)
{
    pg_store *g = &pt->store;
    char rnd[16];
    if (random_suffix(rnd, sizeof rnd) < 0) {
        snprintf(err, size, "postgres: no random bytes for the schema's name");
        return -1;
    }
    char name[PG_SCHEMA_MAX];
    snprintf(name, sizeof name, "bench_%ld_%s", (long)getpid(), rnd);
    char why[PG_ERROR_MAX];
    if (sqlgen_schema(g->p, SQL_POSTGRES, name, &g->sql, why, sizeof why) < 0) {
        snprintf(err, size, "postgres: %s", why);
        return -1;
    }
    if (pt->fenced && exec_sql(g->conn, create_role, why, sizeof why) < 0) {
        snprintf(err, size, "postgres: cannot set up the role bench_fenced: %s", why);
        return -1;
    }
    if (drop_stale(g->conn, why, sizeof why) < 0) {
        snprintf(err, size, "postgres: cannot drop the schemas of killed runs: %s", why);
        return -1;
    }
    script sc = {0};
    add(&sc, "SET synchronous_commit TO %s;\n", pt->synchronous ? "on" : "off");
    /* held by this session from before the schema exists: never taken for stale */
    add(&sc, "SELECT pg_advisory_lock(" PG_OWNER_CLASS ", hashtext('%s'));\n", name);
    add(&sc, "%s;\n", pt->isolation);
    add(&sc, "CREATE SCHEMA \"%s\";\n", name);
    for (size_t i = 0; i < g->sql->ntables; i++)
        add(&sc, "%s;\n", g->sql->tables[i].create);
    add(&sc, "%s;\n", g->sql->create_events);
    if (pt->fenced)
        fence_script(g, name, &sc);
    /* one simple query: one implicit transaction, so a failure leaves nothing */
    int rc = exec_sql(g->conn, sc.buf, why, sizeof why);
    free(sc.buf);
    if (rc < 0) {
        snprintf(err, size, "postgres: cannot create the schema %s: %s", name, why);
        return -1;
    }
    snprintf(pt->schema, sizeof pt->schema, "%s", name);
    return 0;
}

static int prepare_one(pg_store *g, const char *name, const char *sql, char *err, size_t size)
{
    PGresult *r = pq->prepare(g->conn, name, sql, 0, NULL);
    bool ok = r && pq->resultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) {
        char msg[PG_ERROR_MAX];
        failure_text(g->conn, r ? pq->resultErrorMessage(r) : pq->errorMessage(g->conn), msg,
                     sizeof msg);
        snprintf(err, size, "postgres: preparing %.200s: %s", sql, msg);
    }
    if (r)
        pq->clear(r);
    return ok ? 0 : -1;
}

static int prepare_all(pg_store *g, char *err, size_t size)
{
    g->names = calloc(g->p->naggs + 1, sizeof *g->names);
    if (!g->names) {
        snprintf(err, size, "postgres: out of memory");
        return -1;
    }
    for (size_t i = 0; i < g->p->naggs; i++) {
        stmt_names *n = &g->names[i];
        const sql_table *tb = &g->sql->tables[i];
        snprintf(n->select, sizeof n->select, "select_%zu", i);
        snprintf(n->insert, sizeof n->insert, "insert_%zu", i);
        snprintf(n->update, sizeof n->update, "update_%zu", i);
        snprintf(n->remove, sizeof n->remove, "delete_%zu", i);
        if (prepare_one(g, n->select, tb->select, err, size) < 0 ||
            prepare_one(g, n->insert, tb->insert, err, size) < 0 ||
            prepare_one(g, n->update, tb->update, err, size) < 0 ||
            prepare_one(g, n->remove, tb->remove, err, size) < 0)
            return -1;
        if (!plan_scans(g->p, &g->p->aggs[i]))
            continue;
        snprintf(n->scan, sizeof n->scan, "scan_%zu", i);
        if (prepare_one(g, n->scan, tb->scan, err, size) < 0)
            return -1;
    }
    if (prepare_one(g, "event", g->sql->insert_event, err, size) < 0)
        return -1;
    return 0;
}

/* Drops the run's schema, on this connection when it is still usable,
 * otherwise on a new one. */
static void drop_schema(pg_run *pt)
{
    pg_store *g = &pt->store;
    if (!pt->schema[0] || pt->named)
        return;
    char sql[160], why[PG_ERROR_MAX] = "";
    bool usable = g->conn && pq->status(g->conn) == CONNECTION_OK &&
                  (!g->pipeline || set_pipeline(g, false) == 0) &&
                  pq->transactionStatus(g->conn) == PQTRANS_IDLE;
    if (pt->keep) { /* marked, so that no later run takes it for a killed run's */
        snprintf(sql, sizeof sql, "RESET ROLE; COMMENT ON SCHEMA \"%s\" IS '" PG_KEPT "'",
                 pt->schema);
        if (!usable || exec_sql(g->conn, sql, why, sizeof why) < 0)
            fprintf(stderr, "%s: could not mark the schema %s as kept: %s\n", pt->label, pt->schema,
                    usable ? why : "the connection is lost");
        fprintf(stderr, "%s: kept the schema %s in the database bench\n", pt->label, pt->schema);
        return;
    }
    snprintf(sql, sizeof sql, "RESET ROLE; DROP SCHEMA \"%s\" CASCADE", pt->schema);
    if (usable && exec_sql(g->conn, sql, why, sizeof why) == 0)
        return;
    if (g->conn)
        pq->finish(g->conn);
    g->conn = connect_bench(pt->dsn, why, sizeof why);
    if (g->conn && exec_sql(g->conn, sql, why, sizeof why) == 0)
        return;
    fprintf(stderr,
            "%s: could not drop the schema %s in the database bench: %s (the next postgres run "
            "on this server drops it)\n",
            pt->label, pt->schema, why);
}

static void postgres_close(store *s)
{
    pg_run *pt = (pg_run *)s;
    pg_store *g = &pt->store;
    drop_schema(pt);
    if (g->conn)
        pq->finish(g->conn);
    sqlgen_free(g->sql);
    arena_free(&g->mem);
    jline_free(&g->json);
    free(g->names);
    free(g->vias);
    free(g->reads);
    free(g->writes);
    free(g->recs);
    free(pt->dsn);
    free(pt);
}

/* The isolation option as the statement that sets it for the session. */
static const char *isolation_sql(const char *level)
{
    if (level && !strcmp(level, "serializable"))
        return "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE";
    if (level && !strcmp(level, "repeatable_read"))
        return "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ";
    return "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED";
}

static bool postgres_retryable(const store *s)
{
    return ((const pg_store *)s)->retryable;
}

static int postgres_open(const plan *p, const target_spec *spec, int run, store **out, char *err,
                         size_t size)
{
    (void)run;
    *out = NULL;
    if (!pq && !(pq = pq_load(err, size)))
        return -1;
    pg_run *pt = calloc(1, sizeof *pt);
    const char *dsn = target_opt_str(spec, "dsn");
    if (!pt || (dsn && !(pt->dsn = strdup(dsn)))) {
        free(pt);
        snprintf(err, size, "postgres: out of memory");
        return -1;
    }
    pt->fenced = target_opt_str(spec, "fence") != NULL;
    pt->keep = target_opt_bool(spec, "keep");
    const char *durability = target_opt_str(spec, "durability");
    pt->synchronous = !durability || !strcmp(durability, "full");
    pt->isolation = isolation_sql(target_opt_str(spec, "isolation"));
    snprintf(pt->label, sizeof pt->label, "%s", spec->label);
    pg_store *g = &pt->store;
    g->base.ops = &postgres_store_ops;
    g->p = p;
    g->conn = connect_bench(pt->dsn, err, size);
    if (!g->conn) {
        err_prefix_buf(err, size, "postgres: cannot connect to the database bench: ");
        postgres_close(&g->base);
        return -1;
    }
    note_environment(g->conn);
    const char *named = target_opt_str(spec, "schema");
    int rc = named ? use_named_schema(pt, named, err, size) : create_schema(pt, err, size);
    if (rc == 0)
        rc = prepare_all(g, err, size);
    if (rc == 0 && (rc = set_pipeline(g, true)) < 0)
        snprintf(err, size, "%s", g->base.error);
    if (rc < 0) {
        postgres_close(&g->base);
        return -1;
    }
    *out = &g->base;
    return 0;
}

/* Several clients: a command locks the rows it loads (SELECT ... FOR
 * UPDATE), so that under read committed two clients' read-modify-writes of
 * one record run one after the other and no update is lost. One client
 * never locks (nothing else writes). A query's reads do not lock. */
static int lock_reads(pg_store *g, char *err, size_t size)
{
    if (set_pipeline(g, false) < 0) {
        snprintf(err, size, "%s", g->base.error);
        return -1;
    }
    for (size_t i = 0; i < g->p->naggs; i++) {
        stmt_names *n = &g->names[i];
        char sql[PG_ERROR_MAX * 4];
        snprintf(n->select_lock, sizeof n->select_lock, "select_lock_%zu", i);
        if (snprintf(sql, sizeof sql, "%s FOR UPDATE", g->sql->tables[i].select) >=
                (int)sizeof sql ||
            prepare_one(g, n->select_lock, sql, err, size) < 0)
            return -1;
    }
    g->lock_reads = true;
    if (set_pipeline(g, true) < 0) {
        snprintf(err, size, "%s", g->base.error);
        return -1;
    }
    return 0;
}

/* A session for another client: a connection of its own to the run's
 * schema, with the same settings (synchronous_commit, the fence's role). */
static int postgres_session(store *s, store **out, char *err, size_t size)
{
    const pg_run *owner = (const pg_run *)s;
    *out = NULL;
    pg_run *pt = calloc(1, sizeof *pt);
    if (!pt || (owner->dsn && !(pt->dsn = strdup(owner->dsn)))) {
        free(pt);
        snprintf(err, size, "postgres: out of memory");
        return -1;
    }
    snprintf(pt->label, sizeof pt->label, "%s", owner->label); /* schema stays "": not dropped */
    pt->isolation = owner->isolation;
    pg_store *g = &pt->store;
    g->base.ops = &postgres_store_ops;
    g->p = owner->store.p;
    char why[PG_ERROR_MAX];
    int rc = -1;
    if (!(g->conn = connect_bench(pt->dsn, err, size)))
        err_prefix_buf(err, size, "postgres: cannot connect to the database bench: ");
    else if (sqlgen_schema(g->p, SQL_POSTGRES, owner->schema, &g->sql, why, sizeof why) < 0)
        snprintf(err, size, "postgres: %s", why);
    else {
        char sql[128];
        snprintf(sql, sizeof sql, "SET synchronous_commit TO %s; %s;%s",
                 owner->synchronous ? "on" : "off", owner->isolation,
                 owner->fenced ? " SET ROLE bench_fenced;" : "");
        if (exec_sql(g->conn, sql, why, sizeof why) < 0)
            snprintf(err, size, "postgres: %s", why);
        else if ((rc = prepare_all(g, err, size)) == 0 && (rc = set_pipeline(g, true)) < 0)
            snprintf(err, size, "%s", g->base.error);
    }
    pg_store *og = (pg_store *)s;
    if (rc == 0 && !og->lock_reads)
        rc = lock_reads(og, err, size);
    if (rc == 0)
        rc = lock_reads(g, err, size);
    if (rc < 0) {
        postgres_close(&g->base);
        return -1;
    }
    *out = &g->base;
    return 0;
}

/* A named schema: a plain lowercase identifier, never one of the scratch
 * schemas' names. */
static int check_schema_name(const char *text, char *why, size_t size)
{
    size_t n = strlen(text);
    bool ok = n > 0 && n < PG_SCHEMA_MAX && ((text[0] >= 'a' && text[0] <= 'z') || text[0] == '_');
    for (size_t i = 0; ok && i < n; i++)
        ok = (text[i] >= 'a' && text[i] <= 'z') || (text[i] >= '0' && text[i] <= '9') ||
             text[i] == '_';
    if (!ok) {
        snprintf(why, size,
                 "a schema name is lowercase letters, digits and _, starting with a letter or _, "
                 "at most %d characters, not '%s'",
                 PG_SCHEMA_MAX - 1, text);
        return -1;
    }
    return 0;
}

int postgres_check_schema_name(const char *text, char *why, size_t size)
{
    return check_schema_name(text, why, size);
}

static const target_option postgres_options[] = {
    {.name = "dsn",
     .type = TARGET_OPT_STRING,
     .about = "a libpq connection string; default libpq's environment (PGHOST, PGPORT, PGUSER, "
              "PGPASSWORD)"},
    STORE_OPTION_DURABILITY("PostgreSQL's synchronous_commit: on for full, off otherwise"),
    {.name = "fence",
     .type = TARGET_OPT_ENUM,
     .values = (const char *const[]){"rls", NULL},
     .about = "rls runs the commands as the role bench_fenced under row-level-security write "
              "policies"},
    STORE_OPTION_KEEP("the run's schema"),
    {.name = "schema",
     .type = TARGET_OPT_STRING,
     .check = check_schema_name,
     .excludes = "fence",
     .about = "a named schema in the database bench that bench setup made (--schema): runs use "
              "it as it is and leave it; bench teardown drops it"},
    {.name = "isolation",
     .type = TARGET_OPT_ENUM,
     .dflt = "read_committed",
     .values = (const char *const[]){"read_committed", "repeatable_read", "serializable", NULL},
     .about = "the transactions' isolation level (with several clients a command's loads are "
              "SELECT ... FOR UPDATE at every level)"},
    {.name = "retry",
     .type = TARGET_OPT_TRIES,
     .min = 1,
     .about = "try a command that fails with a serialization failure (40001) or a deadlock "
              "(40P01) again with the same arguments, up to max_tries in all; its latency spans "
              "every try"},
};

const store_driver postgres_store_driver = {
    .version = STORE_DRIVER_VERSION,
    .name = "postgres",
    .about = "the C runtime on PostgreSQL through libpq: a schema per run in the database bench, "
             "one pipelined transaction per command",
    .options = postgres_options,
    .noptions = sizeof postgres_options / sizeof *postgres_options,
    .caps = TARGET_CAN_SCAN,
    .available = postgres_available,
    .open = postgres_open,
    .close = postgres_close,
    .environment = postgres_environment,
    .session = postgres_session,
    .session_close = postgres_close,
    .retryable = postgres_retryable,
};
