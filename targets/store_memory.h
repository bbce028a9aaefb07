/* store_memory.h: the in-process store behind the memory target (hash
 * tables per aggregate type, an event log), for tests that drive a store
 * directly; everything else finds it through the registry (store.h). */
#ifndef BENCH_MEMORY_H
#define BENCH_MEMORY_H

#include "plan.h"
#include "store.h"

/* An empty store for plan p (lent; it must outlive the store). Returns 0, or
 * -1 when out of memory with *out NULL. The store is the caller's, to free
 * with memory_store_free. Its calls return -1 only when out of memory, or
 * when a write, commit or rollback comes outside begin..commit/rollback
 * (load also works outside one, reading what is committed). */
int memory_store_new(const plan *p, store **out);
void memory_store_free(store *s);
/* The stripe whose lock guards the records of key in s (for tests: which
 * keys two sessions can hold at once). */
size_t memory_store_stripe(const store *s, const value *key);

/* What a store (or a session, for its own pool and log) took of memory,
 * for tests of the reserve (store_driver.reserve): chunks malloc'd for the
 * pool and the log, the reserved room left in each, and the slots of
 * aggregate agg's tables (all stripes), with whether one is growing. */
typedef struct memory_room {
    size_t pool_malloced, pool_spare; /* chunks; bytes */
    size_t log_malloced, log_spare;   /* chunks; bytes */
    size_t slots;
    bool growing; /* a table moving to a larger one, or one readied to grow into */
} memory_room;
void memory_store_room(const store *s, size_t agg, memory_room *out);

/* Calls fn for each event in the log of s (a session's own until it is
 * closed, then the store's), in the order written: its event and aggregate
 * indexes, key and payload as the log keeps them, lent. Stops at the first
 * nonzero return, and returns it (else 0). For tests: nothing else reads
 * the log back. */
typedef int (*memory_event_fn)(void *ctx, size_t event, size_t agg, const value *key,
                               const value *payload);
int memory_store_events(const store *s, memory_event_fn fn, void *ctx);

#endif
