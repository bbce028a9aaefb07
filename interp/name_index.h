/* name_index.h: an index from names to things, so that looking a name up costs
 * the same however many names a spec declares (lint and compile stay linear
 * in the spec's size). Open addressing over a table sized once for the
 * most names it will hold, in an arena; the keys and values are lent. */
#ifndef BENCH_NAME_INDEX_H
#define BENCH_NAME_INDEX_H

#include <stddef.h>

#include "arena.h"

typedef struct name_index {
    const char **keys; /* NULL: an empty slot */
    void **vals;
    size_t mask; /* slots - 1; the slots are a power of two, at least twice the most */
} name_index;

/* An empty index for at most `most` names, in a. */
void name_index_init(name_index *ix, arena *a, size_t most);
/* Adds key -> val; a key already there keeps its first value. The caller
 * never adds more than `most` distinct keys. */
void name_index_put(name_index *ix, const char *key, void *val);
/* The value of key, or NULL. */
void *name_index_get(const name_index *ix, const char *key);

#endif
