/* store_driver.h: how a store declares itself (DESIGN section 8). A store
 * is one file (targets/store_<name>.c) with a store_driver, listed once in
 * targets/registry.c; the registry makes each store a target that runs the
 * C runtime on it (runtime_target.c), and `bench serve --store` and lint's
 * dry run find stores there too. */
#ifndef BENCH_STORE_DRIVER_H
#define BENCH_STORE_DRIVER_H

#include "store.h"
#include "target.h"

/* Bumped whenever store_driver changes shape. */
enum { STORE_DRIVER_VERSION = 3 };

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
    /* Optional (NULL: one client only): a session on the open store s for
     * another client, usable from another thread at the same time as s
     * and the other sessions (a connection to the same file or schema, or a
     * view of a shared in-process store). The first call readies s itself
     * for sharing. Returns 0, or -1 with the reason in err and *out NULL.
     * A session is closed with session_close, before s is closed. */
    int (*session)(store *s, store **out, char *err, size_t size);
    void (*session_close)(store *s);
    /* With session: the store itself is not safe beside its sessions (it
     * has no lock of its own), so the first client takes a session too and
     * the store serves only what runs alone (setup's, verify's reads). */
    bool session_for_all;
    /* Optional (NULL: never): true when the last call that failed on s
     * failed for a reason that another try of the same command may not
     * meet (a serialization failure, a deadlock); the target's retry option
     * then dispatches it again. */
    bool (*retryable)(const store *s);
    /* Optional (NULL: none): times s waited for another session's lock
     * (SQLite's busy waits), since it opened. */
    uint64_t (*lock_waits)(const store *s);
    /* Optional (NULL: nothing to make ready): as target_driver.reserve, on
     * the store or session a client dispatches through. Returns 0, or -1
     * with the reason in s->error when s is unusable. */
    int (*reserve)(store *s, uint64_t done, uint64_t cycles);
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
