/* pool.c: the pools of a run (pool.h). */
#include "pool.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"

enum { POOL_TOMB = UINT32_MAX, POOL_MIN_CAP = 64 };

void pool_init(pool *pl)
{
    memset(pl, 0, sizeof *pl);
}

void pool_free(pool *pl)
{
    free(pl->items);
    free(pl->taken);
    free(pl->tree);
    free(pl->hash);
    arena_free(&pl->strs);
    memset(pl, 0, sizeof *pl);
}

static uint64_t id_hash(const value *v)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    const unsigned char *b =
        v->kind == VAL_STRING ? (const unsigned char *)v->u.s : (const unsigned char *)&v->u.i;
    size_t n = v->kind == VAL_STRING ? v->len : sizeof v->u.i;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static bool id_equal(const value *a, const value *b)
{
    if (a->kind != b->kind)
        return false;
    if (a->kind == VAL_STRING)
        return a->len == b->len && !memcmp(a->u.s, b->u.s, a->len);
    return a->u.i == b->u.i;
}

/* The hash slot of id, or the first free one on its probe (*found says). */
static size_t hash_find(const pool *pl, const value *id, bool *found)
{
    size_t mask = pl->nhash - 1, i = (size_t)id_hash(id) & mask, free_at = SIZE_MAX;
    for (;; i = (i + 1) & mask) {
        uint32_t h = pl->hash[i];
        if (h == 0) {
            *found = false;
            return free_at != SIZE_MAX ? free_at : i;
        }
        if (h == POOL_TOMB) {
            if (free_at == SIZE_MAX)
                free_at = i;
        } else if (!pl->taken[h - 1] && id_equal(&pl->items[h - 1], id)) {
            *found = true;
            return i;
        }
    }
}

static void tree_add(pool *pl, size_t at, int32_t d)
{
    for (size_t i = at + 1; i <= pl->cap; i += i & (~i + 1))
        pl->tree[i] = (uint32_t)((int64_t)pl->tree[i] + d);
}

/* Rebuilds the tree and the hash over items[0, n) with room for cap. */
static void rebuild(pool *pl)
{
    pl->tree = xrealloc(pl->tree, (pl->cap + 1) * sizeof *pl->tree);
    memset(pl->tree, 0, (pl->cap + 1) * sizeof *pl->tree);
    for (size_t i = 1; i <= pl->cap; i++) { /* in O(cap): each node passes its sum up */
        pl->tree[i] += i <= pl->n && !pl->taken[i - 1];
        size_t up = i + (i & (~i + 1));
        if (up <= pl->cap)
            pl->tree[up] += pl->tree[i];
    }
    pl->nhash = POOL_MIN_CAP;
    while (pl->nhash < 2 * pl->cap)
        pl->nhash *= 2;
    free(pl->hash);
    pl->hash = xcalloc(pl->nhash, sizeof *pl->hash);
    pl->hash_used = 0;
    for (size_t i = 0; i < pl->n; i++) {
        if (pl->taken[i])
            continue;
        bool found;
        pl->hash[hash_find(pl, &pl->items[i], &found)] = (uint32_t)(i + 1);
        pl->hash_used++;
    }
}

/* Drops the taken items (keeping the order of the rest) when they are the
 * majority, and makes room for one more. */
static void make_room(pool *pl)
{
    if (pl->n - pl->live > pl->live && pl->n >= POOL_MIN_CAP) {
        size_t k = 0;
        for (size_t i = 0; i < pl->n; i++)
            if (!pl->taken[i])
                pl->items[k++] = pl->items[i];
        memset(pl->taken, 0, pl->n);
        pl->n = k;
        rebuild(pl);
    }
    if (pl->n < pl->cap && pl->hash_used * 2 < pl->nhash)
        return;
    if (pl->n == pl->cap) {
        pl->cap = pl->cap ? pl->cap * 2 : POOL_MIN_CAP;
        pl->items = xrealloc(pl->items, pl->cap * sizeof *pl->items);
        pl->taken = xrealloc(pl->taken, pl->cap);
        memset(pl->taken + pl->n, 0, pl->cap - pl->n);
    }
    rebuild(pl);
}

bool pool_add(pool *pl, const value *id)
{
    if (pl->cap && pool_has(pl, id))
        return false;
    make_room(pl);
    value v = *id;
    if (v.kind == VAL_STRING)
        v.u.s = arena_strndup(&pl->strs, id->u.s, id->len);
    bool found;
    size_t h = hash_find(pl, &v, &found);
    pl->hash_used += pl->hash[h] == 0;
    pl->hash[h] = (uint32_t)(pl->n + 1);
    pl->items[pl->n] = v;
    pl->taken[pl->n] = 0;
    tree_add(pl, pl->n, 1);
    pl->n++;
    pl->live++;
    return true;
}

bool pool_has(const pool *pl, const value *id)
{
    if (!pl->nhash)
        return false;
    bool found;
    hash_find(pl, id, &found);
    return found;
}

/* The slot of the k-th live item: the Fenwick descent. */
static size_t slot_of(const pool *pl, size_t k)
{
    size_t pos = 0, step = 1;
    while (step * 2 <= pl->cap)
        step *= 2;
    for (; step; step /= 2)
        if (pos + step <= pl->cap && pl->tree[pos + step] <= k) {
            pos += step;
            k -= pl->tree[pos];
        }
    return pos; /* 0-based: tree slot pos + 1 */
}

value pool_at(const pool *pl, size_t k)
{
    return pl->items[slot_of(pl, k)];
}

value pool_take(pool *pl, size_t k)
{
    size_t at = slot_of(pl, k);
    value v = pl->items[at];
    bool found;
    size_t h = hash_find(pl, &v, &found);
    if (found)
        pl->hash[h] = POOL_TOMB; /* hash_used keeps counting it until a rebuild */
    pl->taken[at] = 1;
    tree_add(pl, at, -1);
    pl->live--;
    return v;
}
