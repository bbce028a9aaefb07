/* target.h: one interface for every target a plan runs against. A driver
 * fills a target_driver in its own file (targets/<name>.c) and registers it
 * in targets/registry.c under the name specs use. The runner calls the
 * wrappers below and never knows which driver it has.
 *
 * A driver's private state embeds `target` as its first member, so the
 * runner's `target *` converts to the driver's struct. */
#ifndef BENCH_TARGET_H
#define BENCH_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

enum { TARGET_DRIVER_VERSION = 1 };

typedef enum target_status {
    TARGET_OK = 0,
    TARGET_REFUSED = 1,      /* a refusal: a normal result; the message is in t->message */
    TARGET_ERROR = -1,       /* the target failed; the reason is in t->message */
    TARGET_UNSUPPORTED = -2, /* an optional capability the driver lacks */
} target_status;

enum { TARGET_MESSAGE_MAX = 1024 };

typedef struct target_driver target_driver;

typedef struct target {
    const target_driver *driver;
    const target_spec *spec;
    char message[TARGET_MESSAGE_MAX]; /* the last refusal or error, one line */
    uint64_t round_trips;             /* for drivers that count them (postgres) */
} target;

struct target_driver {
    int version; /* TARGET_DRIVER_VERSION */
    const char *name;
    const char *about; /* one line for `bench targets` */
    /* Can this target run here with these options? Returns 0, or -1 with one
     * sentence in why saying what is missing and how to fix it. */
    int (*available)(const target_spec *spec, char *why, size_t size);
    /* A fresh boot for one run: a new store or a new process. On failure
     * returns TARGET_ERROR with the reason in err and *out NULL. */
    int (*open)(const plan *p, const target_spec *spec, int run, target **out, char *err,
                size_t size);
    /* Optional (NULL): called before the first clock read with the command
     * about to be dispatched, for work that is the harness's and not the
     * target's (e.g. encoding the request line of a process target). The
     * dispatch that follows gets the same cmd and args. Returns TARGET_OK
     * or TARGET_ERROR. */
    int (*prepare)(target *t, const command *cmd, const value *args);
    /* Carries out one command. Between the runner's two clock reads: all the
     * target's own work happens here. */
    int (*dispatch)(target *t, const command *cmd, const value *args);
    /* Optional (NULL): aggregates per type and events per name now held,
     * indexed like the plan's aggregates and events. */
    int (*count)(target *t, uint64_t *aggs, uint64_t *events);
    /* Optional (NULL): one round trip the target refuses at once ({} for a
     * process), for the round-trip floor. */
    int (*probe)(target *t);
    /* Ends the run; always releases everything (files, schemas, children). */
    void (*close)(target *t);
    /* True for a target that accepts every command without judging it (null):
     * the runner does not hold it to the steps' expected outcomes. */
    bool accepts_all;
};

/* The registry: every driver built in, in a stable order. */
const target_driver *target_find(const char *name);
const target_driver *const *target_all(size_t *n);

/* Wrappers the runner uses. */
static inline int target_dispatch(target *t, const command *cmd, const value *args)
{
    return t->driver->dispatch(t, cmd, args);
}

static inline int target_prepare(target *t, const command *cmd, const value *args)
{
    return t->driver->prepare ? t->driver->prepare(t, cmd, args) : TARGET_OK;
}

/* TARGET_UNSUPPORTED when the driver cannot count (verify is then n/a). */
static inline int target_count(target *t, uint64_t *aggs, uint64_t *events)
{
    return t->driver->count ? t->driver->count(t, aggs, events) : TARGET_UNSUPPORTED;
}

static inline int target_probe(target *t)
{
    return t->driver->probe ? t->driver->probe(t) : TARGET_UNSUPPORTED;
}

static inline void target_close(target *t)
{
    if (t)
        t->driver->close(t);
}

/* Sets t->message printf-style and returns status, for drivers. */
int target_fail(target *t, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* For the targets that run the C runtime on a store (memory, sqlite,
 * postgres): one dispatch, with the runtime's outcome turned into a target
 * status and its message copied into t->message. */
struct runtime;
struct store;
int target_runtime_dispatch(target *t, struct runtime *rt, const command *cmd, const value *args);
/* The store's counts for verify; a store error becomes TARGET_ERROR. */
int target_store_count(target *t, struct store *s, uint64_t *aggs, uint64_t *events);

#endif
