/* store.h: where the runtime keeps records and events. A store is one file
 * (targets/store_<name>.c) that declares itself in a store_driver and is
 * listed once in targets/registry.c; the registry makes each store a target
 * that runs the C runtime on it (runtime_target.c), and `bench serve
 * --store` finds stores there too. Every
 * call happens inside one dispatch, between begin and commit or rollback
 * (load may also be called outside one: it reads what is committed).
 * Values handed to a store are lent: a store copies what it keeps. Values a
 * store hands back stay valid until the next commit or rollback.
 *
 * Three optional members let a store that talks to a server batch its round
 * trips (see the postgres target); a store that leaves them unset (memory)
 * is driven exactly as before. */
#ifndef BENCH_STORE_H
#define BENCH_STORE_H

#include "error.h"
#include "plan.h"
#include "target.h"

typedef struct store store;

/* save and commit of a store that sets checks_creates return this when a
 * created record's identity already exists; nothing of the transaction is
 * kept, and the caller rolls back as after a refusal. */
enum { STORE_CONFLICT = 1 };

typedef struct store_ops {
    int (*begin)(store *s);
    /* 1 and the record in *out when found, 0 when absent, -1 on error. */
    int (*load)(store *s, const aggregate *agg, const value *key, value *out);
    /* Writes the record's new state (created: it did not exist before). */
    int (*save)(store *s, const aggregate *agg, const value *key, const value *state, bool created);
    int (*append_event)(store *s, const event_def *ev, const aggregate *agg, const value *key,
                        const value *payload);
    int (*commit)(store *s);
    int (*rollback)(store *s);
    /* Counts for verify, indexed like the plan's aggregates and events. */
    int (*count)(store *s, uint64_t *aggs, uint64_t *events);
    /* Optional (NULL): a hint, inside a transaction, that load(agg, key)
     * follows, so that the store can fetch it together with the other
     * hinted reads in one round trip. Returns 0, or -1 on error. */
    int (*prefetch)(store *s, const aggregate *agg, const value *key);
    /* Optional (NULL), used only with prefetch: a hint that load(agg, K)
     * follows, where K is field from_field of the record (from, from_key)
     * as the transaction sees it now (the caller knows the field does not
     * change before that load), so that the store can fetch the record
     * with the other hinted reads without knowing K. Returns 0, or -1 on
     * error. */
    int (*prefetch_via)(store *s, const aggregate *agg, const aggregate *from,
                        const value *from_key, int from_field);
    /* True when the store checks a created identity itself, with its write
     * (an INSERT that the primary key refuses): the runtime then does not
     * load the record of a dispatched creates command first, and save or
     * commit returns STORE_CONFLICT when the identity exists. */
    bool checks_creates;
} store_ops;

struct store {
    const store_ops *ops;
    const struct store_driver *driver; /* set by store_open */
    char error[BENCH_ERROR_MAX];       /* set when a call returns -1 */
    uint64_t *round_trips;             /* where a store that talks to a server adds each round
                                          trip it makes (NULL: nobody counts them) */
};

/* Bumped whenever store_driver changes shape. */
enum { STORE_DRIVER_VERSION = 1 };

/* A store declares itself like a target does (its name is the target's),
 * and opens a fresh store per run. */
typedef struct store_driver {
    int version; /* STORE_DRIVER_VERSION */
    const char *name;
    const char *about;
    const target_option *options;
    size_t noptions;
    unsigned caps; /* target_capability bits beyond what the runtime target has */
    /* Optional (NULL: always): as target_driver.available. */
    int (*available)(const target_spec *spec, char *why, size_t size);
    /* A fresh, empty store for one run of plan p (lent; it outlives the
     * store) with spec's options (lent likewise). Returns 0, or -1 with the
     * reason in err and *out NULL. */
    int (*open)(const plan *p, const target_spec *spec, int run, store **out, char *err,
                size_t size);
    /* Releases everything the store made (its scratch file or schema,
     * unless the spec says keep). */
    void (*close)(store *s);
    /* Optional (NULL): as target_driver.environment. */
    int (*environment)(char *server, size_t server_size, char *library, size_t library_size);
} store_driver;

/* The options the SQL stores share, as rows of their option tables; how
 * says what the level or the keeping means for that store. */
#define STORE_OPTION_DURABILITY(how)                                                               \
    {                                                                                              \
        .name = "durability", .type = TARGET_OPT_ENUM, .dflt = "full",                             \
        .values = (const char *const[]){"full", "normal", "off", NULL},                            \
        .about = "what a committed command survives: full power loss, normal a crash of the "      \
                 "process, off nothing promised (" how ")"                                         \
    }
#define STORE_OPTION_KEEP(what)                                                                    \
    {                                                                                              \
        .name = "keep", .type = TARGET_OPT_BOOL, .dflt = "false",                                  \
        .about = "keep " what " after the run for inspection instead of removing it"               \
    }

/* Every store built in, in the registry's order. */
const store_driver *const *store_all(size_t *n);
/* The store named name, or NULL. */
const store_driver *store_find(const char *name);
/* The in-process store (the first listed): what lint's dry run and `bench
 * serve` use unless told otherwise. */
const store_driver *store_default(void);
/* The names of every store, comma-separated ("memory, sqlite, postgres"). */
const char *store_names(void);

/* Opens a store of driver d for one run of p with spec's options (NULL:
 * the defaults). Returns 0, or -1 with the reason in err and *out NULL.
 * Close it with store_close (NULL is fine). */
int store_open(const store_driver *d, const plan *p, const target_spec *spec, int run, store **out,
               char *err, size_t size);
void store_close(store *s);

#endif
