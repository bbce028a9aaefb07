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

#endif
