/* name_index.c: see name_index.h. FNV-1a over the key's bytes, linear probing. */
#include "name_index.h"

#include <stdint.h>
#include <string.h>

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211u;
    return (size_t)h;
}

void name_index_init(name_index *ix, arena *a, size_t most)
{
    size_t slots = 8;
    while (slots < 2 * most)
        slots *= 2;
    ix->keys = arena_alloc(a, slots * sizeof *ix->keys);
    ix->vals = arena_alloc(a, slots * sizeof *ix->vals);
    ix->mask = slots - 1;
}

void name_index_put(name_index *ix, const char *key, void *val)
{
    size_t i = hash(key) & ix->mask;
    while (ix->keys[i]) {
        if (!strcmp(ix->keys[i], key))
            return;
        i = (i + 1) & ix->mask;
    }
    ix->keys[i] = key;
    ix->vals[i] = val;
}

void *name_index_get(const name_index *ix, const char *key)
{
    if (!ix->keys)
        return NULL;
    for (size_t i = hash(key) & ix->mask; ix->keys[i]; i = (i + 1) & ix->mask)
        if (!strcmp(ix->keys[i], key))
            return ix->vals[i];
    return NULL;
}
