/* target.h: one interface for every target a plan runs against. A driver
 * declares itself (its name, one line about it, its options and its
 * capabilities) and fills the callbacks in its own file; targets/registry.c
 * lists it once. Everything outside targets/ learns what a target is from
 * that declaration: the schema check and lint take its options from it,
 * `bench targets` and `bench plan` print it, and the runner calls the
 * wrappers below without knowing which driver it has.
 *
 * A driver's private state embeds `target` as its first member, so the
 * runner's `target *` converts to the driver's struct. */
#ifndef BENCH_TARGET_H
#define BENCH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "plan.h"

/* Bumped whenever target_driver changes shape; the registry refuses a
 * driver built against another version. */
enum { TARGET_DRIVER_VERSION = 7 };

typedef enum target_status {
    TARGET_OK = 0,
    TARGET_REFUSED = 1,      /* a refusal: a normal result; the message is in t->message */
    TARGET_ERROR = -1,       /* the target failed; the reason is in t->message */
    TARGET_UNSUPPORTED = -2, /* an optional capability the driver lacks */
    TARGET_FAILED = 2, /* a conflict the target's retry option counts (a serialization failure,
                          a deadlock) after its last try: rolled back, counted, and the run
                          goes on without the rest of the cycle; the message is in t->message */
} target_status;

enum { TARGET_MESSAGE_MAX = BENCH_ERROR_MAX };

/* ---- what a driver declares ---- */

typedef enum target_option_type {
    TARGET_OPT_STRING, /* a non-empty string */
    TARGET_OPT_INT,    /* an integer, at least min */
    TARGET_OPT_BOOL,
    TARGET_OPT_ENUM,  /* one of values */
    TARGET_OPT_ARGV,  /* a non-empty list of strings: a command line */
    TARGET_OPT_VERBS, /* a mapping from the spec's verbs to strings */
    TARGET_OPT_TRIES, /* {max_tries: N}, N at least min: how often to try a command (in i) */
} target_option_type;

typedef struct target_option {
    const char *name;
    target_option_type type;
    const char *dflt;          /* the default, as text ("full", "5000", "false"), or NULL */
    const char *about;         /* one line: what it does */
    const char *const *values; /* TARGET_OPT_ENUM: the values, NULL-terminated */
    int64_t min;               /* TARGET_OPT_INT: the smallest value allowed */
    const char *excludes;      /* another option of the driver that cannot be given with it */
    /* Optional, TARGET_OPT_STRING only: what the value must be beyond a
     * string, checked when the spec is compiled. Returns 0, or -1 with one
     * sentence in why. */
    int (*check)(const char *text, char *why, size_t size);
} target_option;

/* What a target can do beyond dispatching; each bit matches a callback or a
 * property the registry checks at registration. */
typedef enum target_capability {
    TARGET_CAN_COUNT = 1 << 0,     /* counts aggregates and events (count) for verify */
    TARGET_CAN_READ_BACK = 1 << 1, /* reads records back from its store */
    TARGET_CAN_PROBE = 1 << 2,     /* a round trip refused at once, for the floor (probe) */
    TARGET_CAN_SESSIONS = 1 << 3,  /* one session per client, for many clients */
    TARGET_CAN_QUERY = 1 << 4,     /* read-only queries, with their answers (answer) */
    TARGET_ACCEPTS_ALL = 1 << 5,   /* accepts every command without judging it: the
                                      runner does not hold it to the steps' outcomes */
    TARGET_HARNESS = 1 << 6,       /* does nothing: its cost is the harness's own (the floor) */
    TARGET_ONE_CPU = 1 << 7,       /* talks to a child over a pipe: without --cpu the runner
                                      pins bench and the child to one CPU, where a round trip
                                      is fast and steady (across CPUs it is ten times slower,
                                      and the scheduler moves them mid-run) */
    TARGET_CAN_SCAN = 1 << 8,      /* range scans (a query with scan), answered as rows;
                                      needs TARGET_CAN_QUERY */
} target_capability;

/* One capability's name for `bench targets` ("count", "read back" ...), or
 * NULL for a bit that is not a capability. */
const char *target_capability_name(unsigned bit);

typedef struct target_driver target_driver;

typedef struct target {
    const target_driver *driver;
    const target_spec *spec;
    char message[TARGET_MESSAGE_MAX]; /* the last refusal or error, one line */
    uint64_t round_trips;             /* for drivers that count them (postgres) */
    bool own_store;    /* a session with a store of its own (a child per client), which
                          the runner sets up, counts and verifies on its own */
    uint64_t *retries; /* per command index: tries after the first, for a target with a
                          retry option in force (NULL: it never tries twice) */
    /* For the dispatch under way, set by target_dispatch (0) and
     * target_dispatch_checked, and for the prepare before it by
     * target_prepare (0) and target_prepare_checked: bit i says field i of
     * args (i < 64) passed its type and constraints already (a step's
     * constants, checked once when its instance was built), so a target
     * that checks arguments (the runtime's) need not check it again. Those
     * fields also keep their values, and all they point to, for as long as
     * the target is open (the run's step instances outlive it), so a target
     * may keep what it made of them by args' address (the process target
     * keeps their JSON) or keep them as they are (the runtime's memory
     * store, in its event log). Others ignore it. */
    uint64_t args_checked;
} target;

struct target_driver {
    int version; /* TARGET_DRIVER_VERSION */
    const char *name;
    const char *about; /* one line for `bench targets` */
    const target_option *options;
    size_t noptions;
    unsigned caps; /* target_capability bits */
    /* Can this target run here with these options? Returns 0, or -1 with one
     * sentence in why saying what is missing and how to fix it. */
    int (*available)(const target_driver *self, const target_spec *spec, char *why, size_t size);
    /* A fresh boot for one run: a new store or a new process. On failure
     * returns TARGET_ERROR with the reason in err and *out NULL. */
    int (*open)(const target_driver *self, const plan *p, const target_spec *spec, int run,
                target **out, char *err, size_t size);
    /* Optional (NULL): called before the first clock read with the command
     * about to be dispatched, for work that is the harness's and not the
     * target's (e.g. encoding the request line of a process target). The
     * dispatch that follows gets the same cmd and args. Returns TARGET_OK
     * or TARGET_ERROR. */
    int (*prepare)(target *t, const command *cmd, const value *args);
    /* Carries out one command. Between the runner's two clock reads: all the
     * target's own work happens here. */
    int (*dispatch)(target *t, const command *cmd, const value *args);
    /* With TARGET_CAN_COUNT: aggregates per type and events per name now
     * held, indexed like the plan's aggregates and events. */
    int (*count)(target *t, uint64_t *aggs, uint64_t *events);
    /* With TARGET_CAN_READ_BACK: the record of agg with identity key as the
     * target holds it now, for verify (after the pass, untimed). Returns 1
     * with the record in *out (its strings and lists in a, or lent by the
     * store until the next read), 0 when the target holds no such record,
     * TARGET_UNSUPPORTED when it turns out it cannot read records back (a
     * runtime without the record request), or TARGET_ERROR. */
    int (*read)(target *t, const aggregate *agg, const value *key, arena *a, value *out);
    /* Optional (NULL): called after each dispatch once the latency is
     * recorded, outside the timed region, for the checks that need not be
     * timed (a process target parses the whole answer line, compares its
     * events with the command's and looks for a line no request asked
     * for). Returns TARGET_OK, or TARGET_ERROR with the reason. */
    int (*settle)(target *t, const command *cmd);
    /* With TARGET_CAN_PROBE: one round trip the target refuses at once ({}
     * for a process), for the round-trip floor. */
    int (*probe)(target *t);
    /* With TARGET_CAN_QUERY: the answer of the last dispatch, a query that
     * succeeded, once settled (a VAL_STRUCT laid out as cmd->returns; a
     * scan's, with TARGET_CAN_SCAN, a VAL_LIST of them as cmd->rows), lent
     * in *out until the next dispatch. Returns TARGET_OK, TARGET_UNSUPPORTED
     * when the target gives no answers (null, which accepts every query
     * unjudged), or TARGET_ERROR with the reason in t->message. */
    int (*answer)(target *t, const value **out);
    /* With TARGET_CAN_SESSIONS: for a run with several clients, a session
     * for client `client` (from 1; client 0 uses t itself) on the open
     * target t: a connection to t's store, or a child of its own (then
     * own_store is set). The first call also readies t's store for many
     * sessions at once (locks, busy waits). Called before the timed pass;
     * each session is used by one thread at a time and closed with
     * target_close before t is. Returns TARGET_OK, or TARGET_ERROR with the
     * reason in err and *out NULL. */
    int (*session)(target *t, int client, target **out, char *err, size_t size);
    /* Optional (NULL): called on each client's target once its prefill and
     * warmup are done, before the timed pass, untimed: `done` cycles this
     * client has carried out (its share of prefill, its warmup) and `cycles`
     * the timed pass will ask of it (0 when a duration decides and no rate
     * says how many), so that the target can make ready before the first
     * clock read the room those cycles will take (the memory store maps and
     * writes it, so that no timed command is the first to touch a page).
     * Best effort: returns TARGET_OK, or TARGET_ERROR only for a failure
     * that leaves the target unusable. */
    int (*reserve)(target *t, uint64_t done, uint64_t cycles);
    /* Ends the run (or a session); always releases everything (files,
     * schemas, children). */
    void (*close)(target *t);
    /* Optional (NULL): what this target saw of the server it talks to, for
     * the report's environment: the server's version and settings, and the
     * client library's version. Returns 0, or -1 when it has not connected. */
    int (*environment)(const target_driver *self, char *server, size_t server_size, char *library,
                       size_t library_size);
    /* Optional: for the targets that run the C runtime on a store (set by
     * runtime_target.c), the store's driver. */
    const struct store_driver *store;
};

/* ---- the registry ---- */

/* Every driver built in and accepted, in a stable order (`bench targets`). */
const target_driver *const *target_all(size_t *n);
/* The driver named name, or NULL. */
const target_driver *target_find(const char *name);
/* The driver with TARGET_HARNESS (the harness floor's), or NULL. */
const target_driver *target_harness(void);
/* Drivers the registry refused (a wrong version, a malformed declaration),
 * with the reason; `bench targets` lists them. */
size_t target_refused(const char *const **names, const char *const **reasons);
/* Checks one declaration: the version, the name, the options, the
 * capabilities against the callbacks. Returns 0, or -1 with the reason. */
int target_driver_check(const target_driver *d, char *why, size_t size);
/* The names of every driver, comma-separated ("memory, null, ..."), lent. */
const char *target_names(void);
/* Whether driver d can run plan p at all, whatever its options: false with
 * one sentence in why ("the X target cannot run queries") when p declares
 * queries and d lacks TARGET_CAN_QUERY, or ("the X target cannot run
 * scans") scans and d lacks TARGET_CAN_SCAN. The runner skips such a
 * target. */
bool target_runs_plan(const target_driver *d, const plan *p, char *why, size_t size);

/* The JSON Schema (draft-07) of one entry of a workload's targets, made
 * from the drivers' declarations: the spec schema's definitions.target.
 * The caller's, to cJSON_Delete; NULL when out of memory. */
struct cJSON *target_schema(void);

/* ---- a target entry's options, as the driver declares them ---- */

/* The driver of a target entry: the one the compiler resolved, or the one
 * of its name. */
const target_driver *target_spec_driver(const target_spec *ts);
/* The declaration of option name of ts's driver, or NULL when it has none. */
const target_option *target_spec_option(const target_spec *ts, const char *name);
/* The same of driver d (NULL: none). target.c, as target_driver_opt_int:
 * with the driver known, no lookup in the registry. */
const target_option *target_driver_option(const target_driver *d, const char *name);
/* The value given in the spec, or NULL. */
const target_opt_value *target_opt_given(const target_spec *ts, const char *name);
/* An option's value in force: as given, else the declared default. A string
 * or enum option: NULL when neither exists (or the driver has no such
 * option); an int: fallback; a bool: false. */
const char *target_opt_str(const target_spec *ts, const char *name);
int64_t target_opt_int(const target_spec *ts, const char *name, int64_t fallback);
/* target_opt_int with d as ts's driver. */
int64_t target_driver_opt_int(const target_driver *d, const target_spec *ts, const char *name,
                              int64_t fallback);
bool target_opt_bool(const target_spec *ts, const char *name);
/* An argv option as given (NULL-terminated), or NULL. */
const char *const *target_opt_argv(const target_spec *ts, const char *name);
/* The value in force of option o of ts as text ("full", "5000", "a b c",
 * "X as Y, ..."), written into buf; returns buf, or NULL when it has none. */
const char *target_opt_text(const target_spec *ts, const target_option *o, char *buf, size_t n);

/* ---- wrappers the runner uses ---- */

static inline int target_available(const target_driver *d, const target_spec *ts, char *why,
                                   size_t size)
{
    return d->available ? d->available(d, ts, why, size) : 0;
}

static inline int target_open(const target_driver *d, const plan *p, const target_spec *ts, int run,
                              target **out, char *err, size_t size)
{
    return d->open(d, p, ts, run, out, err, size);
}

/* Every argument to be checked (bench serve, the process protocol, tests). */
static inline int target_dispatch(target *t, const command *cmd, const value *args)
{
    t->args_checked = 0;
    return t->driver->dispatch(t, cmd, args);
}

/* target_dispatch with the arguments the caller checked already (see
 * target.args_checked): the runner's, with a step instance's mask. */
static inline int target_dispatch_checked(target *t, const command *cmd, const value *args,
                                          uint64_t checked)
{
    t->args_checked = checked;
    return t->driver->dispatch(t, cmd, args);
}

static inline int target_prepare(target *t, const command *cmd, const value *args)
{
    t->args_checked = 0;
    return t->driver->prepare ? t->driver->prepare(t, cmd, args) : TARGET_OK;
}

/* target_prepare with the caller's mask of constant arguments that passed
 * their checks (see target.args_checked): the runner's, with a step
 * instance's. */
static inline int target_prepare_checked(target *t, const command *cmd, const value *args,
                                         uint64_t checked)
{
    t->args_checked = checked;
    return t->driver->prepare ? t->driver->prepare(t, cmd, args) : TARGET_OK;
}

/* TARGET_UNSUPPORTED when the driver cannot count (verify is then n/a). */
static inline int target_count(target *t, uint64_t *aggs, uint64_t *events)
{
    return t->driver->count ? t->driver->count(t, aggs, events) : TARGET_UNSUPPORTED;
}

/* TARGET_UNSUPPORTED when the driver cannot read records back. */
static inline int target_read(target *t, const aggregate *agg, const value *key, arena *a,
                              value *out)
{
    return t->driver->read ? t->driver->read(t, agg, key, a, out) : TARGET_UNSUPPORTED;
}

static inline bool target_settles(const target *t)
{
    return t->driver->settle != NULL;
}

static inline int target_settle(target *t, const command *cmd)
{
    return t->driver->settle ? t->driver->settle(t, cmd) : TARGET_OK;
}

static inline int target_probe(target *t)
{
    return t->driver->probe ? t->driver->probe(t) : TARGET_UNSUPPORTED;
}

/* TARGET_UNSUPPORTED when the driver runs no queries. */
static inline int target_answer(target *t, const value **out)
{
    return t->driver->answer ? t->driver->answer(t, out) : TARGET_UNSUPPORTED;
}

static inline int target_session(target *t, int client, target **out, char *err, size_t size)
{
    return t->driver->session(t, client, out, err, size);
}

static inline int target_reserve(target *t, uint64_t done, uint64_t cycles)
{
    return t->driver->reserve ? t->driver->reserve(t, done, cycles) : TARGET_OK;
}

static inline bool target_accepts_all(const target *t)
{
    return (t->driver->caps & TARGET_ACCEPTS_ALL) != 0;
}

static inline void target_close(target *t)
{
    if (t)
        t->driver->close(t);
}

/* Sets t->message printf-style and returns status, for drivers. */
int target_fail(target *t, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The store of an open target that runs the C runtime on a store (memory,
 * sqlite, postgres), lent until target_close; NULL for any other target. */
struct store *runtime_target_store(target *t);
/* Times the store of such a target waited for another session's lock
 * (SQLite's busy waits) since it opened; 0 for any other target. */
uint64_t runtime_target_lock_waits(target *t);

#endif
