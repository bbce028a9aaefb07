/* pool.h: a pool as a run holds it (DESIGN section 9): a set of identities
 * in the order they joined, where the k-th of those still in it is found
 * in O(log n) (a Fenwick tree over the slots still live), an identity is
 * found by hash (a pool is a set: joining twice keeps the first place), and
 * taking one from anywhere keeps the order of the rest. Strings are copied
 * into the pool's arena and stay valid until pool_free. */
#ifndef BENCH_POOL_H
#define BENCH_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "value.h"

typedef struct pool {
    value *items;   /* in join order, taken ones included until compaction */
    uint8_t *taken; /* per item */
    uint32_t *tree; /* Fenwick tree of live items over cap slots, 1-based */
    size_t n, cap, live;
    uint32_t *hash; /* open addressing: item index + 1; 0 empty; UINT32_MAX a tombstone */
    size_t nhash, hash_used;
    arena strs;
} pool;

void pool_init(pool *pl);
void pool_free(pool *pl);
/* Adds id (an int or a string, copied) at the end. Returns false when it is
 * in the pool already (it keeps its place). */
bool pool_add(pool *pl, const value *id);
static inline size_t pool_live(const pool *pl)
{
    return pl->live;
}
/* The k-th identity still in the pool (k < pool_live), 0 the oldest; its
 * strings stay valid until pool_free. */
value pool_at(const pool *pl, size_t k);
/* Removes the k-th identity still in the pool and returns it. */
value pool_take(pool *pl, size_t k);
/* Whether id is in the pool. */
bool pool_has(const pool *pl, const value *id);

#endif
