/* store_memory.c: the in-process store (the memory target is the C runtime
 * on it).
 *
 * Records live in one open-addressing hash table per aggregate type, keyed
 * by identity (linear probing; a removal shifts the records after it back,
 * so there are no tombstones and a probe stops at the first empty slot).
 * A table grows without a stall: at 3/4 load it maps one twice as large,
 * and from then on every insert moves a few slots of the old one across
 * (MIGRATE_STEP, releasing the old table's pages as it goes), so the old
 * one is empty long before the new one fills; meanwhile a lookup tries the
 * new table, then what is left of the old one. The new one was mapped at
 * 5/8 load and written a page an insert since, so that none of its slots
 * is first read from the kernel's zero page (table_prepare).
 *
 * A record is deep-owned: its header (key, state, the state's fields in
 * one block) and every string, struct and list inside it are allocations
 * of the store's pool (size classes of 16 bytes to 4 KB with free lists,
 * carved from 64 KB chunks; larger ones malloc'd), a list with room for
 * the next power of two of items. So a transaction changes records in
 * place: update sets a field (the new value copied in) or appends to a
 * list (usually into room it has: no copy of the list), and notes in an
 * undo log what it replaced. Commit frees what the log kept; rollback
 * walks the log backwards, restoring each field, taking created records
 * out again and putting removed ones back. No record is copied whole, and
 * in steady state nothing calls malloc. A load within a transaction sees
 * the transaction's own writes because they are in the table. Events are
 * deep-copied into a chunked log (but for the fields of a payload that the
 * caller says outlive the store, store_write.lasting: those the log keeps
 * as they are handed); a rollback truncates the log back to where the
 * transaction began. Nothing in the log is freed but whole chunks.
 *
 * The last load remembers what it found (the key's address, its hash, the
 * record or the empty slot), so the write that follows it in the same
 * transaction hashes and probes nothing again.
 *
 * Before a timed pass the runner says how many cycles are to come
 * (store_driver.reserve): the pool, the log and the tables then make ready,
 * mapped with their pages in, the room those cycles will take, measured
 * from what the cycles before took ("reserved room", below), so that no
 * timed command is the first to write a page.
 *
 * An aggregate the plan scans also has an ordered index over its records'
 * identities: a skip list (Pugh 1990; a node rises one more level with
 * probability 1/4) whose nodes point at the records, linked when a record
 * is created and unlinked when it is removed (relinked by a rollback). A
 * scan is a seek and a walk, O(log n + limit), outside any transaction, so
 * it sees what is committed. Nothing of this exists for the other
 * aggregates.
 *
 * Many clients share one store through sessions (store_driver.session),
 * client 0 included (the store itself then serves setup and verify alone,
 * and never locks). Each session has its own transaction state (undo log,
 * last lookup), its own pool (a block may be freed onto any pool's free
 * lists: every chunk lives until the store is freed, a closed session's
 * handed to the store), its own part of the event log and its own counts of
 * committed events (count adds them up). What they share are the records,
 * and those are guarded by stripes: each aggregate's table is split into
 * 1 << stripe_bits tables by the top bits of the key's hash, one lock per
 * stripe (a spinning flag: stripe_lock) guarding that table of every
 * aggregate and the records in it. A
 * transaction takes the stripe of each key it loads, saves, updates or
 * removes when it first touches it and holds it to commit or rollback (two
 * phases), so it sees only what is committed and nobody sees what it has
 * not committed. It waits for a stripe only when it holds none, so no cycle
 * of waits can form (every waiter in a cycle would hold one); a second
 * stripe is tried once, and the call fails if another client holds it.
 * So the stripes are fine (64) only for a plan whose every transaction
 * touches one record (no command reads another or runs a policy, nothing
 * is scanned: one_record_per_txn); any other plan gets one stripe, which
 * every transaction then takes at its first touch: the transactions of all
 * clients run one at a time, as with one store-wide lock. A load outside a
 * transaction (a query) takes the key's stripe for the lookup and copies
 * the record out; a scan or a count takes every stripe, in order, holding
 * nothing else. That locking is part of what a run with several clients
 * measures. One client never shares the store: no lock, no atomic. */
#include "store_memory.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "alloc.h"
#include "array.h"
#include "bytes.h"
#include "runtime.h"
#include "store_driver.h"
#include "value.h"

enum {
    LOG_CHUNK = 256 * 1024, /* bytes per event-log chunk (more for a larger event) */
    TABLE_MIN = 64,         /* slots in a table's first allocation */
    MIGRATE_STEP = 8,       /* old slots an insert moves while a table grows (the old table
                               holds twice as many slots as the inserts it takes to fill the
                               new one to 3/4, less the records it holds: 8 is ample) */
    POOL_FINE = 32,         /* classes of 16, 32, 48, ..., 512 bytes */
    POOL_FINE_MAX = 16 * POOL_FINE,
    POOL_CLASSES = 35, /* then 1024, 2048 and 4096 */
    POOL_MAX = 1024 << (POOL_CLASSES - 1 - POOL_FINE),
    POOL_CHUNK = 64 * 1024,
    RELEASE_PAGES = 16, /* a growing table gives back its old one's pages 64 KB at a time */
    TOUCH_STEP = 4096,  /* a page: what one insert writes of the table to come */
};

/* ---- the pool: small blocks by size class, freed onto free lists ----
 *
 * Up to 512 bytes the classes are 16 bytes apart, so that a block takes
 * what its size rounded up to 16 does, no more (a record of eight fields,
 * 168 bytes, takes 176 where a class of the next power of two took 256),
 * and a block freed goes back to the class its size is taken from; above,
 * powers of two. */

typedef struct pool {
    void *free[POOL_CLASSES]; /* each free block starts with the next one's address */
    char *at, *end;           /* the current chunk's unused part */
    void **chunks;            /* the malloc'd ones */
    size_t nchunks, chunks_cap;
    size_t taken;            /* chunks begun in all, malloc'd or reserved */
    char *spare, *spare_end; /* reserved room (memory_reserve), a chunk at a time */
    /* blocks over POOL_MAX (malloc'd) this pool allocated less those it
       freed: one pool may free another's (two clients, one record), so
       only the sum over the store's pools counts them */
    int64_t large;
} pool;

/* The class a block of n bytes is taken from and freed to (0 for 0). */
static inline unsigned pool_class(size_t n)
{
    if (n <= POOL_FINE_MAX)
        return (unsigned)((n + 15) >> 4) - (n != 0);
    return (unsigned)(64 - __builtin_clzll((unsigned long long)n - 1)) - 10 + POOL_FINE;
}

/* The bytes of a block of class c. */
static inline size_t pool_class_bytes(unsigned c)
{
    return c < POOL_FINE ? (size_t)(c + 1) * 16 : (size_t)1024 << (c - POOL_FINE);
}

/* A new chunk for the pool (the rest of the current one is left: under 4
 * KB), from the reserve while it lasts. */
static __attribute__((noinline)) void pool_refill(pool *p)
{
    if ((size_t)(p->spare_end - p->spare) >= POOL_CHUNK) {
        p->at = p->spare;
        p->end = p->spare += POOL_CHUNK;
    } else {
        if (p->nchunks == p->chunks_cap) {
            p->chunks_cap = p->chunks_cap ? p->chunks_cap * 2 : 16;
            p->chunks = xreallocarray(p->chunks, p->chunks_cap, sizeof *p->chunks);
        }
        p->at = p->chunks[p->nchunks++] = xmalloc(POOL_CHUNK);
        p->end = p->at + POOL_CHUNK;
    }
    p->taken++;
}

/* A block of size class c, its bytes (pool_class_bytes(c)). */
static inline void *pool_get(pool *p, unsigned c, size_t size)
{
    void *b = p->free[c];
    if (b) {
        memcpy(&p->free[c], b, sizeof(void *));
        return b;
    }
    if ((size_t)(p->end - p->at) < size)
        pool_refill(p);
    b = p->at;
    p->at += size;
    return b;
}

static inline void *pool_alloc(pool *p, size_t n)
{
    if (n <= POOL_FINE_MAX) { /* a fine class: n rounded up to 16 */
        size_t size = n <= 16 ? 16 : (n + 15) & ~(size_t)15;
        return pool_get(p, (unsigned)(size >> 4) - 1, size);
    }
    if (n > POOL_MAX) {
        p->large++;
        return xmalloc(n);
    }
    unsigned c = pool_class(n);
    return pool_get(p, c, pool_class_bytes(c));
}

/* Frees b, of n bytes as allocated. */
static inline void pool_free(pool *p, void *b, size_t n)
{
    if (!b)
        return;
    if (n > POOL_MAX) {
        p->large--;
        free(b);
        return;
    }
    unsigned c = pool_class(n);
    memcpy(b, &p->free[c], sizeof(void *));
    p->free[c] = b;
}

static void pool_release(pool *p)
{
    for (size_t i = 0; i < p->nchunks; i++)
        free(p->chunks[i]);
    free(p->chunks);
    *p = (pool){0};
}

/* ---- values the store owns ---- */

/* Items a list of n has room for: the next power of two. */
static size_t list_room(uint32_t n)
{
    return n <= 1 ? n : (size_t)1 << (64 - __builtin_clzll((unsigned long long)n - 1));
}

static size_t items_bytes(const value *v)
{
    return (v->kind == VAL_LIST ? list_room(v->len) : v->len) * sizeof(value);
}

/* Frees what v points at (v itself is the caller's). */
static void own_free(pool *p, const value *v)
{
    if (v->kind == VAL_STRING && v->len) {
        pool_free(p, (void *)v->u.s, v->len);
    } else if ((v->kind == VAL_STRUCT || v->kind == VAL_LIST) && v->len) {
        for (uint32_t i = 0; i < v->len; i++)
            own_free(p, &v->u.items[i]);
        pool_free(p, v->u.items, items_bytes(v));
    }
}

/* *dst becomes a deep copy of src owned by the store. */
static void own_copy(pool *p, value *dst, const value *src)
{
    *dst = *src;
    if (src->kind == VAL_STRING && src->len) {
        char *s = pool_alloc(p, src->len);
        bytes_copy(s, src->u.s, src->len);
        dst->u.s = s;
    } else if ((src->kind == VAL_STRUCT || src->kind == VAL_LIST) && src->len) {
        dst->u.items = pool_alloc(p, items_bytes(src));
        for (uint32_t i = 0; i < src->len; i++)
            own_copy(p, &dst->u.items[i], &src->u.items[i]);
    } else if (src->kind == VAL_STRING || src->kind == VAL_STRUCT || src->kind == VAL_LIST) {
        dst->u.s = ""; /* empty: nothing owned (a string, struct or list of none) */
        if (src->kind != VAL_STRING)
            dst->u.items = NULL;
    }
}

/* ---- layouts: how a type's values are copied, worked out once per store ----
 *
 * own_copy walks a value by the kinds it finds. The direct path's writes
 * know the type beforehand (the store has the plan): a field that holds no
 * memory is copied with the record's items and nothing more; a string
 * field gets its bytes; a struct with no list inside (a ledger entry and
 * its amount, a payload) is copied by its tree plan: each struct one block
 * of its size class and one memcpy of its items, then its string fields
 * and its struct fields. Anything else is walked. */

enum { TREE_DEPTH = 8 }; /* structs inside structs a tree plan follows */

/* A struct of at most 64 fields with no list anywhere inside. */
typedef struct tree_plan tree_plan;
struct tree_plan {
    uint32_t n;       /* fields */
    uint64_t strings; /* bit i: field i is a string */
    uint64_t structs; /* bit i: field i is a struct, of plan sub[i] */
    unsigned cls;     /* the pool class of its items; POOL_CLASSES: over POOL_MAX */
    size_t block;     /* the bytes of a block of that class */
    size_t arrays;    /* bytes of its items and its structs' (all of them set), nested */
    const tree_plan **sub;
};

typedef enum own_how {
    OWN_NOTHING, /* an int, bool or enum: the 16 bytes are the value */
    OWN_STRING,
    OWN_TREE, /* a struct with no list inside: tree_plan */
    OWN_WALK, /* own_copy */
} own_how;

/* How to copy a value of one type (a field's, or a list field's items'). */
typedef struct layout {
    own_how how;
    const tree_plan *tree; /* OWN_TREE */
} layout;

/* The tree plan of t, in a (NULL: not a struct, or too large or deep, or
 * with a list inside; or out of memory). */
static const tree_plan *tree_plan_of(arena *a, const ty *t, int depth)
{
    if (!t || t->kind != TY_STRUCT || !t->nfields || t->nfields > 64 || depth > TREE_DEPTH)
        return NULL;
    tree_plan *tp = arena_alloc(a, sizeof *tp);
    const tree_plan **sub = arena_alloc(a, t->nfields * sizeof *sub);
    if (!tp || !sub)
        return NULL;
    *tp = (tree_plan){.n = (uint32_t)t->nfields, .sub = sub};
    for (size_t i = 0; i < t->nfields; i++) {
        const ty *ft = t->fields[i].type;
        if (ft->kind == TY_LIST)
            return NULL;
        if (ft->kind == TY_STRING)
            tp->strings |= UINT64_C(1) << i;
        if (ft->kind == TY_STRUCT && !(sub[i] = tree_plan_of(a, ft, depth + 1)))
            return NULL;
        if (ft->kind == TY_STRUCT)
            tp->structs |= UINT64_C(1) << i;
    }
    size_t bytes = t->nfields * sizeof(value);
    tp->arrays = bytes;
    for (uint64_t m = tp->structs; m; m &= m - 1)
        tp->arrays += sub[__builtin_ctzll(m)]->arrays;
    tp->cls = bytes <= POOL_MAX ? pool_class(bytes) : POOL_CLASSES;
    tp->block = tp->cls < POOL_CLASSES ? pool_class_bytes(tp->cls) : 0;
    return tp;
}

static layout layout_of(arena *a, const ty *t)
{
    if (!t)
        return (layout){.how = OWN_WALK};
    switch (t->kind) {
    case TY_INT:
    case TY_BOOL:
    case TY_ENUM: return (layout){.how = OWN_NOTHING};
    case TY_STRING: return (layout){.how = OWN_STRING};
    case TY_STRUCT: {
        const tree_plan *tp = tree_plan_of(a, t, 0);
        return tp ? (layout){.how = OWN_TREE, .tree = tp} : (layout){.how = OWN_WALK};
    }
    case TY_LIST: break;
    }
    return (layout){.how = OWN_WALK};
}

/* A string's bytes into the pool (v is the caller's copy of the value). */
static inline void own_bytes(pool *p, value *v)
{
    if (!v->len) {
        v->u.s = "";
        return;
    }
    char *b = pool_alloc(p, v->len);
    bytes_copy(b, v->u.s, v->len);
    v->u.s = b;
}

/* *dst becomes a copy of the struct src (of plan tp) owned by the store;
 * dst may be src. */
static void own_tree(pool *p, value *dst, const value *src, const tree_plan *tp)
{
    value *items = tp->cls < POOL_CLASSES ? pool_get(p, tp->cls, tp->block)
                                          : pool_alloc(p, (size_t)tp->n * sizeof *items);
    values_copy(items, src->u.items, tp->n);
    *dst = *src;
    dst->u.items = items;
    for (uint64_t m = tp->strings; m; m &= m - 1) {
        value *v = &items[__builtin_ctzll(m)];
        if (v->kind == VAL_STRING)
            own_bytes(p, v);
    }
    for (uint64_t m = tp->structs; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        value *v = &items[i];
        if (v->kind == VAL_STRUCT && v->len == tp->sub[i]->n)
            own_tree(p, v, v, tp->sub[i]);
        else
            own_copy(p, v, v);
    }
}

/* own_copy of src, a value of the type whose layout is lo. */
static inline void own_by(pool *p, value *dst, const value *src, const layout *lo)
{
    if (lo->how == OWN_NOTHING || (lo->how == OWN_STRING && src->kind == VAL_STRING)) {
        *dst = *src;
        if (lo->how == OWN_STRING)
            own_bytes(p, dst);
    } else if (lo->how == OWN_TREE && src->kind == VAL_STRUCT && src->len == lo->tree->n) {
        own_tree(p, dst, src, lo->tree);
    } else {
        own_copy(p, dst, src);
    }
}

/* An aggregate's layouts: per field of its state, the field's and (for a
 * list) its items'. */
typedef struct agg_layout {
    layout *field, *item;
    uint64_t owned; /* bit f: field f holds memory (not OWN_NOTHING); with at most 64 fields */
    bool by_mask;   /* owned says it all */
} agg_layout;

/* ---- keys ---- */

static uint64_t mix64(uint64_t h)
{
    /* murmur3's finaliser: FNV-1a alone leaves the low bits, which pick the
     * slot, poorly mixed for keys that differ only at the end */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return h;
}

/* The bytes of s from i to its end (1 to 7 of them) as one word, zero
 * padded, without a call: the last eight bytes of a longer string shifted,
 * or two loads that overlap (4 to 7 bytes), or three bytes. */
static uint64_t tail_word(const char *s, uint32_t len, uint32_t i)
{
    uint32_t rem = len - i;
    const unsigned char *p = (const unsigned char *)s + i;
    if (len >= 8) {
        uint64_t w;
        memcpy(&w, s + len - 8, sizeof w);
        return w >> (8 - rem) * 8;
    }
    if (rem >= 4) {
        uint32_t a, b;
        memcpy(&a, p, sizeof a);
        memcpy(&b, p + rem - 4, sizeof b);
        return a | (uint64_t)b << (rem - 4) * 8;
    }
    return p[0] | (uint64_t)p[rem / 2] << rem / 2 * 8 | (uint64_t)p[rem - 1] << (rem - 1) * 8;
}

/* A string key eight bytes a step (FNV-1a's multiply on words, the tail
 * zero-padded, the length folded in so that padding cannot collide), then
 * mixed. */
static inline __attribute__((always_inline)) uint64_t key_hash(const value *k)
{
    if (k->kind != VAL_STRING)
        return mix64((uint64_t)k->u.i);
    uint64_t h = 0xcbf29ce484222325ULL ^ k->len;
    uint32_t i = 0;
    for (; i + 8 <= k->len; i += 8) {
        uint64_t w;
        memcpy(&w, k->u.s + i, sizeof w);
        h = (h ^ w) * 0x100000001b3ULL;
    }
    if (i < k->len)
        h = (h ^ tail_word(k->u.s, k->len, i)) * 0x100000001b3ULL;
    return mix64(h);
}

/* The same value, not a copy: the same kind, length and payload (a
 * string's or list's at the same address). */
static bool value_same(const value *a, const value *b)
{
    switch (a->kind) {
    case VAL_STRING: return b->kind == VAL_STRING && a->len == b->len && a->u.s == b->u.s;
    case VAL_STRUCT:
    case VAL_LIST: return b->kind == a->kind && a->len == b->len && a->u.items == b->u.items;
    default: return value_equal(a, b); /* a scalar, or unset */
    }
}

static bool key_equal(const value *a, const value *b)
{
    if (a->kind == VAL_STRING)
        return b->kind == VAL_STRING && a->len == b->len && bytes_equal(a->u.s, b->u.s, a->len);
    return a->kind == b->kind && a->u.i == b->u.i;
}

/* ---- records ---- */

typedef struct skip_node skip_node;

/* One record: this header, then its state's fields. */
typedef struct record {
    value key;
    value state;     /* a VAL_STRUCT whose items follow the header */
    skip_node *node; /* its node in the ordered index, when the aggregate has one */
} record;

static size_t record_bytes(uint32_t nfields)
{
    return sizeof(record) + nfields * sizeof(value);
}

static record *record_new(pool *p, const value *key, const value *state)
{
    record *r = pool_alloc(p, record_bytes(state->len));
    own_copy(p, &r->key, key);
    r->state = (value){.kind = VAL_STRUCT, .len = state->len, .u.items = (value *)(r + 1)};
    for (uint32_t i = 0; i < state->len; i++)
        own_copy(p, &r->state.u.items[i], &state->u.items[i]);
    r->node = NULL;
    return r;
}

/* record_new by the layouts of the state's fields (NULL: own_copy's walk). */
static record *record_new_by(pool *p, const value *key, const value *state, const agg_layout *al)
{
    if (!al || !al->field)
        return record_new(p, key, state);
    record *r = pool_alloc(p, record_bytes(state->len));
    r->key = *key;
    if (key->kind == VAL_STRING)
        own_bytes(p, &r->key);
    value *items = (value *)(r + 1);
    r->state = (value){.kind = VAL_STRUCT, .len = state->len, .u.items = items};
    values_copy(items, state->u.items, state->len);
    if (al->by_mask) {
        uint64_t all = state->len < 64 ? (UINT64_C(1) << state->len) - 1 : ~UINT64_C(0);
        for (uint64_t m = al->owned & all; m; m &= m - 1) {
            unsigned i = (unsigned)__builtin_ctzll(m);
            own_by(p, &items[i], &state->u.items[i], &al->field[i]);
        }
    } else {
        for (uint32_t i = 0; i < state->len; i++)
            if (al->field[i].how != OWN_NOTHING)
                own_by(p, &items[i], &state->u.items[i], &al->field[i]);
    }
    r->node = NULL;
    return r;
}

static void record_free(pool *p, record *r)
{
    own_free(p, &r->key);
    for (uint32_t i = 0; i < r->state.len; i++)
        own_free(p, &r->state.u.items[i]);
    pool_free(p, r, record_bytes(r->state.len));
}

/* ---- tables ---- */

typedef struct slot {
    uint64_t hash;
    record *rec; /* NULL: empty; TOMB: removed while its table was being emptied */
} slot;

static record tomb_record;
#define TOMB (&tomb_record)

enum { LINE = 64 }; /* a cache line: what two clients' tables and stripes do not share */

typedef struct table {
    _Alignas(LINE) slot *slots;
    size_t cap;   /* a power of two, or 0 before the first insert */
    size_t count; /* records, in both tables while growing */
    /* while growing: the old table, emptied from the front; slots before
       moved have gone to the new one, and its pages before released are
       given back */
    slot *old;
    size_t old_cap, moved, released;
    /* from 5/8 load: the table it grows into next, mapped ahead and written
       a page an insert (pages before `ready` are), so that no slot of it is
       ever read from an untouched page: such a read maps the kernel's zero
       page, and the first write after it replaces that mapping, which
       interrupts every other CPU running the process to flush its TLB */
    slot *next;
    size_t ready;
    uint64_t version; /* changes whenever a slot may have moved */
} table;

/* Tables are mapped, not malloc'd: fresh pages come zeroed when first
 * touched (no memset of a large table inside one insert), and giving one
 * back costs what was not already released. A table's pages are written
 * before it is used (table_prepare), each by one insert. */
static slot *slots_map(size_t cap)
{
    void *m =
        mmap(NULL, cap * sizeof(slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

static void slots_unmap(slot *s, size_t cap)
{
    if (s)
        munmap(s, cap * sizeof(slot));
}

/* The slot of key in the current table: its record's, or the empty one
 * where it would go. */
static inline __attribute__((always_inline)) slot *table_slot(const table *t, uint64_t hash,
                                                              const value *key)
{
    size_t mask = t->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        slot *sl = &t->slots[i];
        if (!sl->rec || (sl->hash == hash && key_equal(&sl->rec->key, key)))
            return sl;
    }
}

/* The slot of key in what is left of the old table, or NULL. A record
 * still there sits at or after `moved`, reached from its home through
 * slots that were full, so a probe skips the moved front. */
static slot *old_slot(const table *t, uint64_t hash, const value *key)
{
    size_t mask = t->old_cap - 1, i = hash & mask;
    for (size_t n = 0; n < t->old_cap; n++, i = (i + 1) & mask) {
        if (i < t->moved) {
            n += t->moved - i - 1;
            i = t->moved - 1;
            continue;
        }
        slot *sl = &t->old[i];
        if (!sl->rec)
            return NULL;
        if (sl->rec != TOMB && sl->hash == hash && key_equal(&sl->rec->key, key))
            return sl;
    }
    return NULL;
}

/* The record of key, with the slot it is in (the empty slot of the current
 * table where it would go when absent). */
static inline __attribute__((always_inline)) record *table_find(const table *t, uint64_t hash,
                                                                const value *key, slot **where)
{
    *where = NULL;
    if (!t->cap)
        return NULL;
    slot *sl = table_slot(t, hash, key);
    *where = sl;
    if (sl->rec || !t->old)
        return sl->rec;
    slot *o = old_slot(t, hash, key);
    if (!o)
        return NULL;
    *where = o;
    return o->rec;
}

/* Moves up to MIGRATE_STEP slots of the old table into the current one,
 * giving back the old table's pages it has finished with. */
static void table_migrate(table *t)
{
    for (int k = 0; k < MIGRATE_STEP && t->moved < t->old_cap; k++, t->moved++) {
        slot *o = &t->old[t->moved];
        if (o->rec && o->rec != TOMB)
            *table_slot(t, o->hash, &o->rec->key) = *o;
    }
    t->version++;
    if (t->moved == t->old_cap) {
        slots_unmap(t->old, t->old_cap);
        t->old = NULL;
        t->old_cap = t->moved = t->released = 0;
        return;
    }
    /* RELEASE_PAGES at a time: while several clients run, each madvise
       interrupts the CPUs of the others to flush their TLBs (a page at a
       time was 1,912 calls in a 2-client run of 200,000 cycles each; 4 now) */
    size_t page = (size_t)sysconf(_SC_PAGESIZE) / sizeof(slot), batch = page * RELEASE_PAGES;
    if (t->moved - t->released >= batch) {
        size_t n = (t->moved - t->released) / page * page;
        madvise(t->old + t->released, n * sizeof(slot), MADV_DONTNEED);
        t->released += n;
    }
}

/* Readies the table t grows into next, one step an insert: from 5/8 load
 * it is mapped, and each insert writes one more of its pages (a write
 * fault gives a page of its own at once, where a read first maps the zero
 * page). Its 2 * cap slots fill cap * 2 * sizeof(slot) / page pages, a
 * page for every 128 slots of t, and the cap / 8 inserts from 5/8 to 3/4
 * load are 16 times as many: it is ready long before it is needed (when
 * it is not, by removals, the rest is faulted in as it is used). */
static void table_prepare(table *t)
{
    if (!t->next) {
        if (!t->cap || t->count * 8 < t->cap * 5)
            return;
        t->next = slots_map(t->cap * 2);
        t->ready = 0;
        if (!t->next)
            return; /* out of memory: table_room maps it when it must */
    }
    if (t->ready < t->cap * 2 * sizeof(slot)) {
        ((volatile char *)t->next)[t->ready] = 0;
        t->ready += TOUCH_STEP;
    }
}

/* Makes room for one more record: at 3/4 load a table twice as large
 * (mapped ahead by table_prepare) becomes the current one (the old one is
 * emptied by later inserts); a table still growing first finishes (not
 * reached at MIGRATE_STEP: it is empty long before). Returns 0, or -1 when
 * out of memory. */
static int table_room(table *t)
{
    if (t->cap && (t->count + 1) * 4 <= t->cap * 3)
        return 0;
    while (t->old)
        table_migrate(t);
    size_t cap = t->cap ? t->cap * 2 : TABLE_MIN;
    slot *slots = t->next ? t->next : slots_map(cap);
    if (slots && !t->next)
        ((volatile char *)slots)[0] = 0; /* not readied (the first): its first page at least */
    t->next = NULL;
    if (!slots)
        return -1;
    t->old = t->slots;
    t->old_cap = t->cap;
    t->moved = t->released = 0;
    t->slots = slots;
    t->cap = cap;
    t->version++;
    if (!t->old_cap)
        t->old = NULL;
    return 0;
}

/* Puts rec (absent from the table, which has room) into the empty slot sl
 * of the current table, then moves a step of a growing table along. */
static void table_insert(table *t, slot *sl, uint64_t hash, record *rec)
{
    *sl = (slot){.hash = hash, .rec = rec};
    t->count++;
    t->version++;
    if (t->old)
        table_migrate(t);
    table_prepare(t);
}

/* Takes the record in slot sl out: in the current table the records after
 * it in its probe run move back into the gap when their home slot allows
 * (backward-shift deletion), so every probe still finds its key before an
 * empty slot; in the old one it leaves a tombstone, which nothing is ever
 * inserted over. */
static void table_remove(table *t, slot *sl)
{
    t->count--;
    t->version++;
    uintptr_t at = (uintptr_t)sl, old = (uintptr_t)t->old;
    if (t->old && at >= old && at < old + t->old_cap * sizeof(slot)) {
        sl->rec = TOMB;
        return;
    }
    size_t mask = t->cap - 1, gap = (size_t)(sl - t->slots);
    for (size_t i = (gap + 1) & mask; t->slots[i].rec; i = (i + 1) & mask) {
        size_t home = t->slots[i].hash & mask;
        /* the record at i may fill the gap when its home is not in (gap, i] */
        bool stays = gap <= i ? (home > gap && home <= i) : (home > gap || home <= i);
        if (stays)
            continue;
        t->slots[gap] = t->slots[i];
        gap = i;
    }
    t->slots[gap] = (slot){0};
}

/* Unmaps t, freeing its records one by one when records_too (else their
 * pool's chunks go whole, with nothing malloc'd apart in them). */
static void table_free(pool *p, table *t, bool records_too)
{
    for (size_t i = 0; records_too && i < t->cap; i++)
        if (t->slots[i].rec)
            record_free(p, t->slots[i].rec);
    for (size_t i = t->moved; records_too && i < t->old_cap; i++)
        if (t->old[i].rec && t->old[i].rec != TOMB)
            record_free(p, t->old[i].rec);
    slots_unmap(t->slots, t->cap);
    slots_unmap(t->old, t->old_cap);
    slots_unmap(t->next, t->cap * 2);
}

/* ---- the ordered index ---- */

enum { SKIP_LEVELS = 32 }; /* enough for 4^32 records */

struct skip_node {
    const record *rec; /* the committed record, in its table */
    int levels;
    skip_node *next[]; /* levels of them */
};

/* The ordered index of a scanned aggregate. */
typedef struct skip_list {
    skip_node *head; /* SKIP_LEVELS next pointers, no record */
    int levels;      /* levels in use */
    uint64_t rng;    /* xorshift64 state for node levels */
} skip_list;

/* Identities in scan order: ints by value, strings by bytes (a prefix
 * first), as SQLite's BINARY and PostgreSQL's COLLATE "C" order them. */
static int key_compare(const value *a, const value *b)
{
    if (a->kind != VAL_STRING)
        return (a->u.i > b->u.i) - (a->u.i < b->u.i);
    uint32_t n = a->len < b->len ? a->len : b->len;
    int c = n ? memcmp(a->u.s, b->u.s, n) : 0;
    return c ? c : (a->len > b->len) - (a->len < b->len);
}

static skip_list *skip_new(void)
{
    skip_list *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->head = calloc(1, sizeof *l->head + SKIP_LEVELS * sizeof(skip_node *));
    if (!l->head) {
        free(l);
        return NULL;
    }
    l->head->levels = SKIP_LEVELS;
    l->levels = 1;
    l->rng = 0x9e3779b97f4a7c15ULL;
    return l;
}

static void skip_free(skip_list *l)
{
    if (!l)
        return;
    for (skip_node *n = l->head; n;) {
        skip_node *next = n->next[0];
        free(n);
        n = next;
    }
    free(l);
}

/* A node of a random height: one level, and one more with probability 1/4
 * each time. */
static skip_node *skip_node_new(skip_list *l)
{
    l->rng ^= l->rng << 13;
    l->rng ^= l->rng >> 7;
    l->rng ^= l->rng << 17;
    int levels = 1;
    for (uint64_t r = l->rng; levels < SKIP_LEVELS && (r & 3) == 0; r >>= 2)
        levels++;
    skip_node *n = calloc(1, sizeof *n + (size_t)levels * sizeof(skip_node *));
    if (n)
        n->levels = levels;
    return n;
}

/* The last node before key at each level (into before), and the first node
 * whose key is >= key (NULL: none). */
static skip_node *skip_seek(const skip_list *l, const value *key, skip_node **before)
{
    skip_node *x = l->head;
    for (int i = l->levels - 1; i >= 0; i--) {
        while (x->next[i] && key_compare(&x->next[i]->rec->key, key) < 0)
            x = x->next[i];
        if (before)
            before[i] = x;
    }
    return x->next[0];
}

/* Links n (whose rec is set; its key is not in the list). */
static void skip_insert(skip_list *l, skip_node *n)
{
    skip_node *before[SKIP_LEVELS];
    for (int i = 0; i < SKIP_LEVELS; i++) /* the levels above those in use start at the head */
        before[i] = l->head;
    skip_seek(l, &n->rec->key, before);
    if (n->levels > l->levels)
        l->levels = n->levels;
    for (int i = 0; i < n->levels; i++) {
        n->next[i] = before[i]->next[i];
        before[i]->next[i] = n;
    }
}

/* The node of key, or NULL. */
static skip_node *skip_find(const skip_list *l, const value *key, skip_node **before)
{
    skip_node *n = skip_seek(l, key, before);
    return n && key_compare(&n->rec->key, key) == 0 ? n : NULL;
}

/* Unlinks the node of key (which is linked) and returns it. */
static skip_node *skip_unlink(skip_list *l, const value *key)
{
    skip_node *before[SKIP_LEVELS];
    skip_node *n = skip_find(l, key, before);
    if (!n)
        return NULL;
    for (int i = 0; i < n->levels; i++)
        before[i]->next[i] = n->next[i];
    while (l->levels > 1 && !l->head->next[l->levels - 1])
        l->levels--;
    return n;
}

/* ---- the store ---- */

/* What a transaction changed, undone by rollback, finished by commit. */
typedef enum undo_kind {
    UNDO_SET,    /* field `field` of rec held old: rollback frees the new value and puts
                    old back; commit frees old */
    UNDO_APPEND, /* an item was appended to field `field` of rec, which held old (a list
                    or unset): rollback frees the item and, when the list moved, the new
                    items; commit frees the old items when it moved */
    UNDO_CREATE, /* rec was inserted into t: rollback takes it out and frees it */
    UNDO_REMOVE, /* rec was taken out of t: rollback puts it back; commit frees it */
} undo_kind;

typedef struct undo {
    undo_kind kind;
    uint32_t field;
    size_t agg;
    table *t;
    uint64_t hash;
    record *rec;
    value old;
    bool moved; /* UNDO_APPEND: the list's items moved to a larger block */
} undo;

typedef struct log_chunk {
    size_t size, used;
    bool reserved; /* carved from a reserved mapping, not malloc'd */
    max_align_t data[];
} log_chunk;

/* One event in the log: this head of 16 bytes, then what the event holds.
 * A tree entry (log_append_tree): the key's value when it is not a field of
 * the payload, then the payload's items (and its copied structs'), then the
 * strings' bytes; the payload's own value is not kept (a struct of n items,
 * the ones after the head), nor the key's when it is the payload's field
 * `key`. A full entry (key LOG_FULL, log_append): the key's value and the
 * payload's, then what they hold. size: from the head to the end of the
 * entry's bytes (the next entry starts at the next 16-byte boundary). Only
 * memory_store_events reads it back. */
typedef struct log_entry {
    uint32_t event, agg;
    uint32_t size;
    int16_t key; /* the payload's field that is the key, or LOG_KEY_APART or LOG_FULL */
    uint16_t n;  /* a tree entry: the payload's fields */
} log_entry;

enum { LOG_KEY_APART = -1, LOG_FULL = -2 };

/* What the last load found, for the write after it (see update). */
enum { LOOKUP_KEY_BYTES = 64 }; /* a longer string key is looked up again */

typedef struct lookup {
    const value *key; /* the key's address, and the key as it was then, its bytes too */
    value seen;
    char bytes[LOOKUP_KEY_BYTES];
    size_t agg;
    table *t;
    uint64_t hash, version; /* the table's version then */
    record *rec;            /* NULL: absent */
    slot *where;            /* its slot, or the empty slot where it would go */
} lookup;

/* A region memory_reserve mapped and wrote ahead. */
typedef struct mapping {
    void *at;
    size_t size;
} mapping;

/* What one caller of the store owns: its transaction, the pool it
 * allocates from, its part of the event log and the events it committed.
 * The store has one (setup, verify and a single client use it); each
 * session has its own. */
typedef struct txn {
    char *error; /* the caller's store error buffer */
    bool locks;  /* a session's: takes the stripes it touches */
    bool in_txn;
    uint64_t held; /* the stripes it holds, a bit each */
    pool pool;     /* what it allocates; anyone's blocks may come back to its free lists */
    undo *undos;
    size_t nundos, undos_cap;
    lookup last;
    uint32_t *txn_events; /* event indexes appended by the open transaction */
    size_t ntxn_events, txn_events_cap;
    uint64_t *events; /* committed events per event index */
    log_chunk **chunks;
    size_t nchunks, chunks_cap;
    size_t mark_chunks, mark_used;   /* the log's end when the transaction began */
    char *log_spare, *log_spare_end; /* reserved room for log chunks (memory_reserve) */
    mapping *maps; /* what memory_reserve mapped, unmapped when the store is freed */
    size_t nmaps, maps_cap;
    value *rows; /* a scan's answer: the records' states, lent from their blocks */
    size_t rows_cap;
    value *olds; /* a direct write's: what its sets replaced, freed after it */
    size_t olds_cap;
    /* the key a direct_prefetch hashed, by its address, for the find of it
       that follows in the same sequence (NULL: none) */
    const value *hinted;
    uint64_t hinted_hash;
} txn;

typedef struct memory_store memory_store;

/* One client's view of a shared store. */
typedef struct mem_session {
    store base;
    memory_store *m;
    txn x;
    arena copies; /* records loads outside a transaction copied out */
    struct mem_session *prev, *next;
} mem_session;

enum { STRIPE_BITS_FINE = 6 }; /* 64 stripes when every transaction touches one record */

/* A stripe's lock: a flag taken with one atomic exchange and given back
 * with a store, since a transaction holds it for one command's work, a
 * fraction of a microsecond (a mutex's unlock costs another atomic: with
 * two clients on pizzas, 1.53x one client's throughput with mutexes,
 * 1.68x with this, tests/perf/clients.py); a waiter spins, yielding its
 * CPU every 64 turns, so that a holder it preempted gets to finish. */
typedef struct stripe {
    _Alignas(LINE) atomic_int held;
} stripe;

/* stripe_lock's wait, out of line: the callers' path stays short. */
static __attribute__((noinline)) void stripe_wait(stripe *s)
{
    unsigned spins = 0;
    do {
        while (atomic_load_explicit(&s->held, memory_order_relaxed))
            if (++spins % 64 == 0)
                sched_yield();
    } while (atomic_exchange_explicit(&s->held, 1, memory_order_acquire));
}

static inline void stripe_lock(stripe *s)
{
    if (atomic_exchange_explicit(&s->held, 1, memory_order_acquire))
        stripe_wait(s);
}

static bool stripe_trylock(stripe *s)
{
    return !atomic_load_explicit(&s->held, memory_order_relaxed) &&
           !atomic_exchange_explicit(&s->held, 1, memory_order_acquire);
}

static void stripe_unlock(stripe *s)
{
    atomic_store_explicit(&s->held, 0, memory_order_release);
}

struct memory_store {
    store base;
    const plan *p;
    unsigned stripe_bits; /* the tables of an aggregate, and the stripes: 1 << stripe_bits */
    table *tables;        /* per aggregate index, then per stripe */
    skip_list **index; /* per aggregate index: its ordered index when the plan scans it, or NULL */
    txn own;
    bool shared;                  /* sessions exist: each takes the stripes it touches */
    stripe *stripes;              /* 1 << stripe_bits, a cache line each */
    pthread_mutex_t mu;           /* guards the session list and what closed sessions hand over */
    mem_session *sessions;        /* the open ones */
    agg_layout *layouts;          /* per aggregate index (field NULL: a plan without types) */
    const tree_plan **event_tree; /* per event index: its payload's, or NULL */
    arena plans;                  /* where the layouts' tree plans live */
    bool reserve;                 /* the reserve option: memory_reserve maps ahead */
    uint64_t reserve_done, reserve_cycles; /* every reserve's so far, for the tables */
};

static size_t nstripes(const memory_store *m)
{
    return (size_t)1 << m->stripe_bits;
}

/* The stripe of a hash: its top bits (a slot is picked by the low ones). */
static size_t stripe_of(const memory_store *m, uint64_t hash)
{
    return m->stripe_bits ? (size_t)(hash >> (64 - m->stripe_bits)) : 0;
}

/* The table of agg that holds key of this hash: the one of its stripe. */
static table *table_of(memory_store *m, size_t agg, uint64_t hash)
{
    return &m->tables[agg << m->stripe_bits | stripe_of(m, hash)];
}

/* Takes the stripe of hash for the open transaction of a session, unless it
 * holds it. Waiting is only safe holding nothing (a cycle of waits needs
 * every waiter to hold something): the plans the fine stripes are chosen
 * for touch one record per transaction, and one stripe serves them all
 * otherwise, so the trylock of a second stripe does not fail in practice;
 * when it does, the call fails rather than risk a deadlock. */
static __attribute__((noinline)) int touch_stripe(memory_store *m, txn *x, uint64_t hash)
{
    size_t s = stripe_of(m, hash);
    uint64_t bit = (uint64_t)1 << s;
    if (x->held & bit)
        return 0;
    if (!x->held) {
        stripe_lock(&m->stripes[s]);
    } else if (!stripe_trylock(&m->stripes[s])) {
        snprintf(x->error, BENCH_ERROR_MAX,
                 "memory store: a transaction of several records met another client's");
        return -1;
    }
    x->held |= bit;
    return 0;
}

/* touch_stripe, when x locks at all (a session's; the store's own never
 * does): the path of one client stays short. */
static inline int touch(memory_store *m, txn *x, uint64_t hash)
{
    return x->locks ? touch_stripe(m, x, hash) : 0;
}

static __attribute__((noinline)) void release_held(memory_store *m, txn *x)
{
    for (uint64_t h = x->held; h; h &= h - 1)
        stripe_unlock(&m->stripes[__builtin_ctzll(h)]);
    x->held = 0;
}

static inline void release(memory_store *m, txn *x)
{
    x->hinted = NULL; /* a hint lasts one sequence at most */
    if (x->held)
        release_held(m, x);
}

static void lock_all(memory_store *m)
{
    for (size_t s = 0; s < nstripes(m); s++)
        stripe_lock(&m->stripes[s]);
}

static void unlock_all(memory_store *m)
{
    for (size_t s = nstripes(m); s-- > 0;)
        stripe_unlock(&m->stripes[s]);
}

static int oom(txn *x)
{
    snprintf(x->error, BENCH_ERROR_MAX, "out of memory");
    return -1;
}

static int no_txn(txn *x, const char *call)
{
    snprintf(x->error, BENCH_ERROR_MAX, "memory store: %s outside a transaction", call);
    return -1;
}

/* ---- the event log: deep copies in chunks (the lasting fields kept) ---- */

/* Where an entry's arrays and bytes go: the rest of the current chunk. */
typedef struct cursor {
    char *at, *end;
} cursor;

static void *cursor_take(cursor *c, size_t n, size_t align)
{
    size_t pad = (align - (uintptr_t)c->at % align) % align, left = (size_t)(c->end - c->at);
    if (left < pad || left - pad < n)
        return NULL;
    char *p = c->at + pad;
    c->at = p + n;
    return p;
}

/* A struct or list none of whose items is a struct or list (an event's
 * payload, most often): its items in one array with their strings' bytes
 * right after, taken at once and the array copied whole. 1: copied; 0: the
 * chunk has no room; -1: not flat (copy_into goes item by item). */
static int copy_flat(value *dst, const value *src, cursor *c)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < src->len; i++) {
        const value *v = &src->u.items[i];
        if (v->kind == VAL_STRUCT || v->kind == VAL_LIST)
            return -1;
        if (v->kind == VAL_STRING)
            bytes += v->len;
    }
    size_t array = (size_t)src->len * sizeof(value);
    value *items = cursor_take(c, array + bytes, _Alignof(value));
    if (!items)
        return 0;
    memcpy(items, src->u.items, array);
    char *b = (char *)items + array;
    for (uint32_t i = 0; i < src->len; i++) {
        value *v = &items[i];
        if (v->kind != VAL_STRING)
            continue;
        bytes_copy(b, v->u.s, v->len);
        v->u.s = b;
        b += v->len;
    }
    *dst = *src;
    dst->u.items = items;
    return 1;
}

/* *dst becomes a copy of src in the chunk, in one pass; false when the
 * chunk has no room left for it (the caller starts a larger chunk). */
static bool copy_into(value *dst, const value *src, cursor *c)
{
    if ((src->kind == VAL_STRUCT || src->kind == VAL_LIST) && src->len) {
        int flat = copy_flat(dst, src, c);
        if (flat >= 0)
            return flat == 1;
    }
    *dst = *src;
    if (src->kind == VAL_STRING) {
        char *b = cursor_take(c, src->len, 1);
        if (!b)
            return false;
        bytes_copy(b, src->u.s, src->len);
        dst->u.s = b;
    } else if (src->kind == VAL_STRUCT || src->kind == VAL_LIST) {
        value *items = cursor_take(c, (size_t)src->len * sizeof *items, _Alignof(value));
        if (!items)
            return false;
        dst->u.items = items;
        for (uint32_t i = 0; i < src->len; i++)
            if (!copy_into(&items[i], &src->u.items[i], c))
                return false;
    }
    return true;
}

/* The most bytes copy_into takes for v: its arrays, its bytes, and the
 * padding before each array. */
static size_t copy_bound(const value *v)
{
    if (v->kind == VAL_STRING)
        return v->len;
    if (v->kind != VAL_STRUCT && v->kind != VAL_LIST)
        return 0;
    size_t n = (size_t)v->len * sizeof(value) + _Alignof(value);
    for (uint32_t i = 0; i < v->len; i++)
        n += copy_bound(&v->u.items[i]);
    return n;
}

/* The field of the payload that is the key itself (the identity argument,
 * the very string): the entry's key then shares its copy. -1: none. */
static int key_in_payload(const value *key, const value *payload)
{
    if (key->kind != VAL_STRING || payload->kind != VAL_STRUCT)
        return -1;
    for (uint32_t i = 0; i < payload->len; i++)
        if (value_same(&payload->u.items[i], key))
            return (int)i;
    return -1;
}

/* A new chunk of at least need bytes (LOG_CHUNK, or more for a larger
 * event) as the log's current one. */
static log_chunk *log_chunk_new(txn *x, size_t need)
{
    size_t size = need > LOG_CHUNK ? need : LOG_CHUNK;
    if (array_reserve((void **)&x->chunks, &x->chunks_cap, x->nchunks, sizeof *x->chunks) < 0)
        return NULL;
    log_chunk *ch;
    bool reserved =
        size == LOG_CHUNK && (size_t)(x->log_spare_end - x->log_spare) >= sizeof *ch + LOG_CHUNK;
    if (reserved) {
        ch = (log_chunk *)x->log_spare;
        x->log_spare += sizeof *ch + LOG_CHUNK;
    } else if (!(ch = malloc(sizeof *ch + size))) {
        return NULL;
    }
    ch->size = size;
    ch->used = 0;
    ch->reserved = reserved;
    x->chunks[x->nchunks++] = ch;
    return ch;
}

/* The bytes a copy of the struct v (of plan tp) takes: its items' arrays
 * (in *arrays) and its strings' bytes (in *bytes). */
static inline void tree_size(const value *v, const tree_plan *tp, size_t *arrays, size_t *bytes);

static __attribute__((noinline)) void tree_size_sub(const value *v, const tree_plan *tp,
                                                    size_t *arrays, size_t *bytes)
{
    tree_size(v, tp, arrays, bytes);
}

static inline void tree_size(const value *v, const tree_plan *tp, size_t *arrays, size_t *bytes)
{
    *arrays += (size_t)tp->n * sizeof(value);
    for (uint64_t m = tp->strings; m; m &= m - 1) {
        const value *f = &v->u.items[__builtin_ctzll(m)];
        *bytes += f->kind == VAL_STRING ? f->len : 0;
    }
    for (uint64_t m = tp->structs; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        const value *f = &v->u.items[i];
        if (f->kind == VAL_STRUCT)
            tree_size_sub(f, tp->sub[i], arrays, bytes);
    }
}

/* *dst becomes a copy of the struct src (of plan tp): its arrays from *arr
 * on, its bytes from *b up to end (both moved past what it takes); dst may
 * be src. The fields in keep (store_write.lasting) are kept as they are,
 * not copied. False when its bytes do not fit before end (what it wrote is
 * then the caller's to drop). */
static inline bool tree_copy(value *dst, const value *src, const tree_plan *tp, uint64_t keep,
                             value **arr, char **b, const char *end);

static __attribute__((noinline)) bool tree_copy_sub(value *v, const tree_plan *tp, value **arr,
                                                    char **b, const char *end)
{
    return tree_copy(v, v, tp, 0, arr, b, end);
}

static inline bool tree_copy(value *dst, const value *src, const tree_plan *tp, uint64_t keep,
                             value **arr, char **b, const char *end)
{
    value *items = *arr;
    *arr += tp->n;
    values_copy(items, src->u.items, tp->n);
    *dst = *src;
    dst->u.items = items;
    for (uint64_t m = tp->strings & ~keep; m; m &= m - 1) {
        value *v = &items[__builtin_ctzll(m)];
        if (v->kind != VAL_STRING)
            continue;
        if (v->len > (size_t)(end - *b))
            return false;
        bytes_copy(*b, v->u.s, v->len);
        v->u.s = *b;
        *b += v->len;
    }
    for (uint64_t m = tp->structs & ~keep; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        if (items[i].kind == VAL_STRUCT && !tree_copy_sub(&items[i], tp->sub[i], arr, b, end))
            return false;
    }
    return true;
}

enum { LOG_HEAD = (sizeof(log_entry) + 15) / 16 * 16 };

/* The room for the arrays of a copy of a struct of plan tp that keeps the
 * fields in keep as they are: every struct's but the kept ones'. */
static inline size_t arrays_copied(const tree_plan *tp, uint64_t keep)
{
    size_t n = tp->arrays;
    for (uint64_t m = tp->structs & keep; m; m &= m - 1)
        n -= tp->sub[__builtin_ctzll(m)]->arrays;
    return n;
}

/* The bytes before a tree entry's arrays: the head, and the key's value
 * when it is not one of the payload's fields. */
static inline size_t log_tree_head(int key_field)
{
    return LOG_HEAD + (key_field < 0 ? sizeof(value) : 0);
}

/* The entry of log_append_tree at base, its bytes up to end: the key's
 * value when apart, the payload's arrays (room for every struct in it that
 * is copied), then its strings' and, when apart, the key's bytes; the
 * fields in keep are kept as they are (arrays is arrays_copied's). Returns
 * where its bytes end, or NULL when they do not fit (what it wrote is
 * dropped: the chunk's used is not moved). */
static char *log_tree_at(char *base, const char *end, uint32_t event, uint32_t agg,
                         const value *key, const value *payload, const tree_plan *tp, int key_field,
                         uint64_t keep, size_t arrays)
{
    log_entry *e = (log_entry *)(void *)base;
    value *arr = (value *)(void *)(base + log_tree_head(key_field)), copy;
    char *b = (char *)arr + arrays;
    if (!tree_copy(&copy, payload, tp, keep, &arr, &b, end))
        return NULL;
    if (key_field < 0) {
        value *apart = (value *)(void *)(base + LOG_HEAD);
        *apart = *key;
        if (key->kind == VAL_STRING) {
            if (key->len > (size_t)(end - b))
                return NULL;
            bytes_copy(b, key->u.s, key->len);
            apart->u.s = b;
            b += key->len;
        }
    }
    *e = (log_entry){.event = event,
                     .agg = agg,
                     .size = (uint32_t)(b - base),
                     .key = (int16_t)(key_field < 0 ? LOG_KEY_APART : key_field),
                     .n = (uint16_t)tp->n};
    return b;
}

/* log_append of a payload that is a struct of tree plan tp, whose field
 * key_field is the key itself (-1: none), in one block (log_tree_at): in
 * the log's current chunk when it fits, found as it is copied; else in a
 * new chunk made for its size, measured then. */
static int log_append_tree(txn *x, uint32_t event, uint32_t agg, const value *key,
                           const value *payload, const tree_plan *tp, int key_field, uint64_t keep)
{
    log_chunk *ch = x->nchunks ? x->chunks[x->nchunks - 1] : NULL;
    size_t at = ch ? (ch->used + 15) & ~(size_t)15 : 0;
    size_t arrays = keep ? arrays_copied(tp, keep) : tp->arrays;
    size_t head = log_tree_head(key_field);
    char *end;
    if (ch && at <= ch->size && ch->size - at >= head + arrays &&
        (end = log_tree_at((char *)ch->data + at, (char *)ch->data + ch->size, event, agg, key,
                           payload, tp, key_field, keep, arrays))) {
        ch->used = (size_t)(end - (char *)ch->data);
        return 0;
    }
    /* the bytes of every string, the kept ones' too: a bound */
    size_t all_arrays = 0, bytes = 0;
    tree_size(payload, tp, &all_arrays, &bytes);
    (void)all_arrays; /* the entry takes room for every struct copied: arrays */
    bool key_apart = key_field < 0 && key->kind == VAL_STRING;
    size_t need = head + arrays + bytes + (key_apart ? key->len : 0);
    if (need > UINT32_MAX || !(ch = log_chunk_new(x, need))) /* an entry's size is 32 bits */
        return oom(x);
    end = log_tree_at((char *)ch->data, (char *)ch->data + ch->size, event, agg, key, payload, tp,
                      key_field, keep, arrays);
    ch->used = (size_t)(end - (char *)ch->data); /* it fits: the chunk was made for it */
    return 0;
}

/* Copies the event into the log's current chunk in one pass, as a full
 * entry (log_entry); an event that does not fit there goes whole into a
 * new chunk made large enough. */
static int log_append(txn *x, uint32_t event, uint32_t agg, const value *key, const value *payload)
{
    int shared = key_in_payload(key, payload);
    log_chunk *ch = x->nchunks ? x->chunks[x->nchunks - 1] : NULL;
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!ch || attempt) { /* measured only then: an entry is at most its chunk's size */
            size_t need = LOG_HEAD + 2 * sizeof(value) + _Alignof(max_align_t) +
                          copy_bound(payload) + (shared < 0 ? copy_bound(key) : 0);
            if (need > UINT32_MAX || !(ch = log_chunk_new(x, need))) /* a size is 32 bits */
                return oom(x);
        }
        cursor c = {.at = (char *)ch->data + ch->used, .end = (char *)ch->data + ch->size};
        log_entry *e = cursor_take(&c, LOG_HEAD + 2 * sizeof(value), _Alignof(max_align_t));
        if (!e)
            continue;
        value *kv = (value *)(void *)((char *)e + LOG_HEAD), *pv = kv + 1;
        if (!copy_into(pv, payload, &c))
            continue;
        if (shared >= 0)
            *kv = pv->u.items[shared];
        else if (!copy_into(kv, key, &c))
            continue;
        *e = (log_entry){
            .event = event, .agg = agg, .size = (uint32_t)(c.at - (char *)e), .key = LOG_FULL};
        ch->used = (size_t)(c.at - (char *)ch->data);
        return 0;
    }
    return oom(x); /* not reached: the new chunk holds the bound */
}

/* Frees a chunk of the log: a malloc'd one to malloc; a reserved one stays
 * mapped (with its reserve), and when it was the last carved its room goes
 * back to the reserve. */
static void log_chunk_free(txn *x, log_chunk *ch)
{
    if (!ch->reserved)
        free(ch);
    else if ((char *)ch + sizeof *ch + ch->size == x->log_spare) /* the last carved */
        x->log_spare = (char *)ch;
}

/* Drops what the open transaction appended to the log. */
static void log_truncate(txn *x)
{
    while (x->nchunks > x->mark_chunks)
        log_chunk_free(x, x->chunks[--x->nchunks]);
    if (x->nchunks)
        x->chunks[x->nchunks - 1]->used = x->mark_used;
}

/* ---- store ops, on a caller's transaction ---- */

static int tx_begin(txn *x)
{
    if (x->in_txn) {
        snprintf(x->error, BENCH_ERROR_MAX, "memory store: begin inside a transaction");
        return -1;
    }
    x->in_txn = true;
    x->nundos = 0;
    x->ntxn_events = 0;
    x->last.key = NULL;
    x->mark_chunks = x->nchunks;
    x->mark_used = x->nchunks ? x->chunks[x->nchunks - 1]->used : 0;
    return 0;
}

/* Inside a transaction the stripe is taken here; outside one a session
 * takes it around the call. */
static int tx_load(memory_store *m, txn *x, const aggregate *agg, const value *key, value *out)
{
    uint64_t hash = key_hash(key);
    if (x->in_txn && touch(m, x, hash) < 0)
        return -1;
    table *t = table_of(m, agg->index, hash);
    slot *where;
    record *r = table_find(t, hash, key, &where);
    lookup *l = &x->last;
    l->key = NULL;
    if (key->kind != VAL_STRING || key->len <= LOOKUP_KEY_BYTES) {
        l->key = key;
        l->seen = *key;
        if (key->kind == VAL_STRING && key->len)
            bytes_copy(l->bytes, key->u.s, key->len);
        l->agg = agg->index;
        l->t = t;
        l->hash = hash;
        l->version = t->version;
        l->rec = r;
        l->where = where;
    }
    if (!r)
        return 0;
    *out = r->state;
    return 1;
}

/* The record of key (NULL: absent), its hash, its table and its slot: as
 * the last load found them when it was of this key (at this address, with
 * the same bytes) and no slot of the table has moved since (its stripe is
 * held since that load); else looked up, its stripe taken. Returns -1 when
 * the stripe cannot be taken. */
static int find(memory_store *m, txn *x, const aggregate *agg, const value *key, uint64_t *hash,
                table **t, slot **where, record **rec)
{
    const lookup *l = &x->last;
    if (l->key == key && l->agg == agg->index && l->version == l->t->version &&
        value_same(&l->seen, key) &&
        (key->kind != VAL_STRING || bytes_equal(l->bytes, key->u.s, key->len))) {
        *hash = l->hash;
        *t = l->t;
        *where = l->where;
        *rec = l->rec;
        return 0;
    }
    *hash = key_hash(key);
    if (touch(m, x, *hash) < 0)
        return -1;
    *t = table_of(m, agg->index, *hash);
    *rec = table_find(*t, *hash, key, where);
    return 0;
}

/* Room for one more undo entry; the entry itself is pushed after the change
 * it describes, which then cannot fail. */
static int undo_room(txn *x)
{
    return array_reserve((void **)&x->undos, &x->undos_cap, x->nundos, sizeof *x->undos) < 0
               ? oom(x)
               : 0;
}

static void set_field(txn *x, record *r, uint32_t f, const value *v)
{
    value *fv = &r->state.u.items[f];
    x->undos[x->nundos++] = (undo){.kind = UNDO_SET, .field = f, .rec = r, .old = *fv};
    own_copy(&x->pool, fv, v);
}

/* Appends a copy of v to the list in field f of r, into the room the list
 * has, or into a block twice as large when it is full (the old block is
 * kept until commit: what a load handed back still points at it). */
static void append_item(txn *x, record *r, uint32_t f, const value *v)
{
    value *l = &r->state.u.items[f];
    uint32_t n = l->kind == VAL_LIST ? l->len : 0; /* an unset optional list is [] */
    value *items = n ? l->u.items : NULL;
    bool full = list_room(n) == n;
    if (full) {
        value *bigger = pool_alloc(&x->pool, list_room(n + 1) * sizeof *bigger);
        if (n)
            memcpy(bigger, items, n * sizeof *items);
        items = bigger;
    }
    x->undos[x->nundos++] =
        (undo){.kind = UNDO_APPEND, .field = f, .rec = r, .old = *l, .moved = full};
    own_copy(&x->pool, &items[n], v);
    *l = (value){.kind = VAL_LIST, .len = n + 1, .u.items = items};
}

/* A new record of key in the empty slot `where` of its table t (when still
 * valid) and in the ordered index. */
static int create(memory_store *m, txn *x, const aggregate *agg, const value *key,
                  const value *state, uint64_t hash, table *t, slot *where)
{
    uint64_t version = t->version;
    if (undo_room(x) < 0 || table_room(t) < 0)
        return oom(x);
    if (!where || t->version != version)
        where = table_slot(t, hash, key);
    skip_list *ix = m->index[agg->index];
    skip_node *nd = ix ? skip_node_new(ix) : NULL;
    if (ix && !nd)
        return oom(x);
    record *r = record_new(&x->pool, key, state);
    if (nd) {
        nd->rec = r;
        r->node = nd;
        skip_insert(ix, nd);
    }
    x->undos[x->nundos++] =
        (undo){.kind = UNDO_CREATE, .agg = agg->index, .t = t, .hash = hash, .rec = r};
    table_insert(t, where, hash, r);
    return 0;
}

static int tx_save(memory_store *m, txn *x, const aggregate *agg, const value *key,
                   const value *state)
{
    if (!x->in_txn)
        return no_txn(x, "save");
    uint64_t hash;
    table *t;
    slot *where;
    record *r;
    if (find(m, x, agg, key, &hash, &t, &where, &r) < 0)
        return -1;
    if (!r)
        return create(m, x, agg, key, state, hash, t, where);
    /* a whole new state: each field that is not the very value the record
       holds (as a load handed it back) is set */
    for (uint32_t i = 0; i < state->len && i < r->state.len; i++) {
        if (value_same(&r->state.u.items[i], &state->u.items[i]))
            continue;
        if (undo_room(x) < 0)
            return -1;
        set_field(x, r, i, &state->u.items[i]);
    }
    return 0;
}

static int tx_update(memory_store *m, txn *x, const aggregate *agg, const value *key,
                     const store_change *changes, size_t n, value *state)
{
    if (!x->in_txn)
        return no_txn(x, "update");
    uint64_t hash;
    table *t;
    slot *where;
    record *r;
    if (find(m, x, agg, key, &hash, &t, &where, &r) < 0)
        return -1;
    if (!r) {
        snprintf(x->error, BENCH_ERROR_MAX, "memory store: update of a record that does not exist");
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        if (undo_room(x) < 0)
            return -1;
        if (changes[i].append)
            append_item(x, r, (uint32_t)changes[i].field, &changes[i].v);
        else
            set_field(x, r, (uint32_t)changes[i].field, &changes[i].v);
    }
    *state = r->state;
    return 0;
}

static int tx_remove(memory_store *m, txn *x, const aggregate *agg, const value *key)
{
    if (!x->in_txn)
        return no_txn(x, "remove");
    uint64_t hash;
    table *t;
    slot *where;
    record *r;
    if (find(m, x, agg, key, &hash, &t, &where, &r) < 0)
        return -1;
    if (!r)
        return 0;
    if (undo_room(x) < 0)
        return -1;
    if (r->node)
        skip_unlink(m->index[agg->index], &r->key); /* r keeps it for a rollback */
    table_remove(t, where);
    x->undos[x->nundos++] =
        (undo){.kind = UNDO_REMOVE, .agg = agg->index, .t = t, .hash = hash, .rec = r};
    return 0;
}

static int tx_append_event(txn *x, const event_def *ev, const aggregate *agg, const value *key,
                           const value *payload)
{
    if (!x->in_txn)
        return no_txn(x, "append_event");
    if (array_reserve((void **)&x->txn_events, &x->txn_events_cap, x->ntxn_events,
                      sizeof *x->txn_events) < 0)
        return oom(x);
    if (log_append(x, (uint32_t)ev->index, (uint32_t)agg->index, key, payload) < 0)
        return -1;
    x->txn_events[x->ntxn_events++] = (uint32_t)ev->index;
    return 0;
}

/* Undoes one change of the open transaction (the newest not yet undone). */
static void undo_one(memory_store *m, txn *x, const undo *u)
{
    record *r = u->rec;
    table *t = u->t;
    switch (u->kind) {
    case UNDO_SET:
        own_free(&x->pool, &r->state.u.items[u->field]);
        r->state.u.items[u->field] = u->old;
        return;
    case UNDO_APPEND: {
        value *l = &r->state.u.items[u->field];
        own_free(&x->pool, &l->u.items[l->len - 1]);
        if (u->moved)
            pool_free(&x->pool, l->u.items, list_room(l->len) * sizeof(value));
        *l = u->old;
        return;
    }
    case UNDO_CREATE: {
        slot *where;
        if (table_find(t, u->hash, &r->key, &where))
            table_remove(t, where);
        if (r->node)
            free(skip_unlink(m->index[u->agg], &r->key));
        record_free(&x->pool, r);
        return;
    }
    case UNDO_REMOVE:
        /* the table held it this transaction: it has room */
        table_insert(t, table_slot(t, u->hash, &r->key), u->hash, r);
        if (r->node)
            skip_insert(m->index[u->agg], r->node);
        return;
    }
}

/* Frees what one change of the committed transaction replaced. */
static void finish_one(txn *x, const undo *u)
{
    switch (u->kind) {
    case UNDO_SET: own_free(&x->pool, &u->old); return;
    case UNDO_APPEND:
        if (u->moved && u->old.kind == VAL_LIST && u->old.len)
            pool_free(&x->pool, u->old.u.items, list_room(u->old.len) * sizeof(value));
        return;
    case UNDO_CREATE: return;
    case UNDO_REMOVE:
        free(u->rec->node);
        record_free(&x->pool, u->rec);
        return;
    }
}

static int tx_rollback(memory_store *m, txn *x)
{
    if (!x->in_txn)
        return no_txn(x, "rollback");
    while (x->nundos)
        undo_one(m, x, &x->undos[--x->nundos]);
    log_truncate(x);
    x->ntxn_events = 0;
    x->last.key = NULL;
    x->in_txn = false;
    release(m, x);
    return 0;
}

static int tx_commit(memory_store *m, txn *x)
{
    if (!x->in_txn)
        return no_txn(x, "commit");
    for (size_t i = 0; i < x->nundos; i++)
        finish_one(x, &x->undos[i]);
    x->nundos = 0;
    for (size_t i = 0; i < x->ntxn_events; i++)
        x->events[x->txn_events[i]]++;
    x->ntxn_events = 0;
    x->last.key = NULL;
    x->in_txn = false;
    release(m, x);
    return 0;
}

/* ---- the direct path: every check before the one write (store.h) ----
 *
 * A direct_find locates a record as a load does (its stripe taken for a
 * session) and makes room in the lists the command appends to; the write
 * then copies the changes in and the event into the log, and frees what
 * the sets replaced; the release takes nothing back but the stripes, since
 * nothing was written. So no undo log, no lookup kept for the write, and
 * no transaction: the runtime takes this path for the commands that write
 * only their own record and run no policy (runtime.c). A create's find
 * comes after the runtime's checks, told ahead by direct_prefetch (the
 * store's own caller only): the slot where its probe starts is asked of
 * the cache then, so that a table larger than the cache costs the checks'
 * time rather than a stall after them, and its key's hash is kept for the
 * find. */

/* What a direct_find leaves in its store_ref. */
typedef struct direct_ref {
    uint64_t hash, version; /* the table's version then */
    table *t;
    slot *where; /* the record's slot, or the empty one where it would go */
    record *rec; /* NULL: absent */
} direct_ref;

_Static_assert(sizeof(direct_ref) <= sizeof(store_ref), "a direct_ref fits in a store_ref");

/* Room in the list l for n more items past its length, in a block of the
 * list's size class (the items move when it is full); an unset optional
 * list is left unset (the caller's appended items are its whole view). */
static void list_make_room(pool *p, value *l, uint32_t n)
{
    /* one more item: a list is full when its length is a power of two (or 0) */
    if (l->kind != VAL_LIST ||
        (n == 1 ? (l->len & (l->len - 1)) != 0 : list_room(l->len) >= (size_t)l->len + n))
        return;
    value *bigger = pool_alloc(p, list_room(l->len + n) * sizeof *bigger);
    if (l->len) {
        memcpy(bigger, l->u.items, l->len * sizeof *bigger);
        pool_free(p, l->u.items, list_room(l->len) * sizeof(value));
    }
    l->u.items = bigger;
}

static int tx_direct_find(memory_store *m, txn *x, const aggregate *agg, const value *key,
                          const store_room *room, size_t nroom, store_ref *ref, value *state)
{
    uint64_t hash;
    if (key == x->hinted) { /* the find the hint was for: the same key, its hash */
        hash = x->hinted_hash;
        x->hinted = NULL;
    } else {
        hash = key_hash(key);
    }
    if (touch(m, x, hash) < 0)
        return -1;
    direct_ref d = {.hash = hash, .t = table_of(m, agg->index, hash)};
    d.rec = table_find(d.t, hash, key, &d.where);
    d.version = d.t->version;
    memcpy(ref, &d, sizeof d);
    if (!d.rec)
        return 0;
    for (size_t i = 0; i < nroom; i++)
        list_make_room(&x->pool, &d.rec->state.u.items[room[i].field], room[i].n);
    *state = d.rec->state;
    return 1;
}

/* Room in x->olds for n values. Returns 0, or -1 when out of memory. */
static int olds_room(txn *x, size_t n)
{
    while (x->olds_cap < n)
        if (array_reserve((void **)&x->olds, &x->olds_cap, x->olds_cap, sizeof *x->olds) < 0)
            return oom(x);
    return 0;
}

/* The changes of w to the record r, in order: a set's new value copied in
 * (the old one kept in x->olds, to free once every change is copied, since
 * a change may point into it), an append's item copied into the room the
 * find made (into a new list, for an unset one). */
static void direct_changes(txn *x, record *r, const store_write *w, const agg_layout *al)
{
    static const layout walk = {.how = OWN_WALK};
    for (size_t i = 0; i < w->nchanges; i++) {
        const store_change *c = &w->changes[i];
        value *fv = &r->state.u.items[c->field];
        if (!c->append) {
            x->olds[i] = *fv;
            own_by(&x->pool, fv, &c->v, al->field ? &al->field[c->field] : &walk);
            continue;
        }
        x->olds[i] = (value){.kind = VAL_NONE};
        if (fv->kind != VAL_LIST)
            *fv = (value){.kind = VAL_LIST};
        list_make_room(&x->pool, fv, 1);
        own_by(&x->pool, &fv->u.items[fv->len], &c->v, al->item ? &al->item[c->field] : &walk);
        fv->len++;
    }
    for (size_t i = 0; i < w->nchanges; i++)
        own_free(&x->pool, &x->olds[i]);
}

/* The slot of the record d found, or of the empty one where it goes: as
 * the find left it unless a slot of its table has moved since. */
static slot *direct_where(const direct_ref *d, const value *key)
{
    if (d->t->version == d->version)
        return d->where;
    slot *where;
    (void)table_find(d->t, d->hash, key, &where);
    return where;
}

static int tx_direct_write(memory_store *m, txn *x, const store_write *w)
{
    direct_ref d;
    memcpy(&d, w->ref, sizeof d);
    skip_list *ix = m->index[w->agg->index];
    skip_node *nd = NULL;
    int rc = -1;
    /* what may fail comes first, so that a failure keeps nothing: the
       room, then the event (whose payload may point into what the changes
       replace) */
    if (w->kind == STORE_WRITE_UPDATE && olds_room(x, w->nchanges) < 0)
        goto done;
    if (w->kind == STORE_WRITE_CREATE &&
        (table_room(d.t) < 0 || (ix && !(nd = skip_node_new(ix))))) {
        oom(x);
        goto done;
    }
    if (w->event) {
        uint32_t ev = (uint32_t)w->event->index, agg = (uint32_t)w->agg->index;
        const tree_plan *tp = m->event_tree[ev];
        int logged = tp && w->payload->kind == VAL_STRUCT && w->payload->len == tp->n
                         ? log_append_tree(x, ev, agg, w->key, w->payload, tp,
                                           w->key_field >= 0 ? w->key_field
                                                             : key_in_payload(w->key, w->payload),
                                           w->lasting)
                         : log_append(x, ev, agg, w->key, w->payload);
        if (logged < 0) {
            free(nd);
            goto done;
        }
    }
    const agg_layout *al = &m->layouts[w->agg->index];
    switch (w->kind) {
    case STORE_WRITE_UPDATE: direct_changes(x, d.rec, w, al); break;
    case STORE_WRITE_CREATE: {
        record *r = record_new_by(&x->pool, w->key, w->state, al);
        if (nd) {
            nd->rec = r;
            r->node = nd;
            skip_insert(ix, nd);
        }
        table_insert(d.t, direct_where(&d, w->key), d.hash, r);
        break;
    }
    case STORE_WRITE_REMOVE:
        if (d.rec->node)
            free(skip_unlink(ix, &d.rec->key));
        table_remove(d.t, direct_where(&d, w->key));
        record_free(&x->pool, d.rec);
        break;
    }
    if (w->event)
        x->events[w->event->index]++;
    rc = 0;
done:
    release(m, x);
    return rc;
}

/* Every table's records, and the events the store's callers committed (the
 * closed sessions' handed over to the store's own). */
static int tx_count(memory_store *m, uint64_t *aggs, uint64_t *events)
{
    for (size_t i = 0; i < m->p->naggs; i++) {
        aggs[i] = 0;
        for (size_t s = 0; s < nstripes(m); s++)
            aggs[i] += m->tables[i << m->stripe_bits | s].count;
    }
    if (m->shared)
        pthread_mutex_lock(&m->mu);
    for (size_t i = 0; i < m->p->nevents; i++) {
        events[i] = m->own.events[i];
        for (const mem_session *ms = m->sessions; ms; ms = ms->next)
            events[i] += ms->x.events[i];
    }
    if (m->shared)
        pthread_mutex_unlock(&m->mu);
    return 0;
}

/* A seek in the ordered index and a walk of at most limit nodes. */
static int tx_scan(memory_store *m, txn *x, const aggregate *agg, const value *from, int64_t limit,
                   value *out)
{
    const skip_list *ix = m->index[agg->index];
    if (!ix) {
        snprintf(x->error, BENCH_ERROR_MAX, "memory store: %s is not indexed for scans", agg->name);
        return -1;
    }
    uint32_t n = 0;
    for (const skip_node *nd = skip_seek(ix, from, NULL); nd && n < limit; nd = nd->next[0]) {
        if (array_reserve((void **)&x->rows, &x->rows_cap, n, sizeof *x->rows) < 0)
            return oom(x);
        x->rows[n++] = nd->rec->state;
    }
    *out = (value){.kind = VAL_LIST, .len = n, .u.items = x->rows};
    return 0;
}

/* ---- the store's own ops: one caller, no lock ---- */

static int mem_begin(store *s)
{
    return tx_begin(&((memory_store *)s)->own);
}

static int mem_load(store *s, const aggregate *agg, const value *key, value *out)
{
    memory_store *m = (memory_store *)s;
    return tx_load(m, &m->own, agg, key, out);
}

static int mem_save(store *s, const aggregate *agg, const value *key, const value *state,
                    bool created)
{
    memory_store *m = (memory_store *)s;
    (void)created; /* whether the record exists is what the table says */
    return tx_save(m, &m->own, agg, key, state);
}

static int mem_update(store *s, const aggregate *agg, const value *key, const store_change *changes,
                      size_t n, value *state)
{
    memory_store *m = (memory_store *)s;
    return tx_update(m, &m->own, agg, key, changes, n, state);
}

static int mem_remove(store *s, const aggregate *agg, const value *key)
{
    memory_store *m = (memory_store *)s;
    return tx_remove(m, &m->own, agg, key);
}

static int mem_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                            const value *payload)
{
    return tx_append_event(&((memory_store *)s)->own, ev, agg, key, payload);
}

static int mem_commit(store *s)
{
    memory_store *m = (memory_store *)s;
    return tx_commit(m, &m->own);
}

static int mem_rollback(store *s)
{
    memory_store *m = (memory_store *)s;
    return tx_rollback(m, &m->own);
}

static int mem_count(store *s, uint64_t *aggs, uint64_t *events)
{
    return tx_count((memory_store *)s, aggs, events);
}

static int mem_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    memory_store *m = (memory_store *)s;
    return tx_scan(m, &m->own, agg, from, limit, out);
}

static int mem_direct_find(store *s, const aggregate *agg, const value *key, const store_room *room,
                           size_t nroom, store_ref *ref, value *state)
{
    memory_store *m = (memory_store *)s;
    return tx_direct_find(m, &m->own, agg, key, room, nroom, ref, state);
}

/* direct_prefetch: the line of the slot where key's probe starts, asked
 * of the cache now, and the hash kept for the find (the store's own
 * caller only: a session would read its table without the stripe). */
static void mem_direct_prefetch(store *s, const aggregate *agg, const value *key)
{
    memory_store *m = (memory_store *)s;
    txn *x = &m->own;
    if (m->shared) /* sessions may be growing a table: the find alone reads it */
        return;
    uint64_t hash = key_hash(key);
    const table *t = table_of(m, agg->index, hash);
    if (t->cap)
        __builtin_prefetch(&t->slots[hash & (t->cap - 1)]);
    x->hinted = key;
    x->hinted_hash = hash;
}

static int mem_direct_write(store *s, const store_write *w)
{
    memory_store *m = (memory_store *)s;
    return tx_direct_write(m, &m->own, w);
}

static void mem_direct_release(store *s)
{
    memory_store *m = (memory_store *)s;
    release(m, &m->own);
}

static const store_ops memory_store_ops = {
    .begin = mem_begin,
    .load = mem_load,
    .save = mem_save,
    .remove = mem_remove,
    .append_event = mem_append_event,
    .commit = mem_commit,
    .rollback = mem_rollback,
    .count = mem_count,
    .scan = mem_scan,
    .update = mem_update,
    .direct_find = mem_direct_find,
    .direct_prefetch = mem_direct_prefetch,
    .direct_write = mem_direct_write,
    .direct_release = mem_direct_release,
};

/* Whether every transaction of p touches one record: no command reads
 * another record or has an event that runs a policy, and nothing is
 * scanned (a scan would need every stripe). Then sessions lock the stripe
 * of that record; otherwise one stripe serves all. */
static bool one_record_per_txn(const plan *p)
{
    for (size_t a = 0; a < p->naggs; a++)
        if (plan_scans(p, &p->aggs[a]))
            return false;
    for (size_t i = 0; i < p->ncommands; i++) {
        const command *c = p->commands[i];
        if (!c->query && (c->nreads || (c->event && c->event->npolicies)))
            return false;
    }
    return true;
}

/* The layouts of every aggregate's fields and every event's payload (a
 * plan made by hand without types gets none: everything is walked). */
static int layouts_make(memory_store *m)
{
    const plan *p = m->p;
    m->layouts = calloc(p->naggs ? p->naggs : 1, sizeof *m->layouts);
    m->event_tree = calloc(p->nevents ? p->nevents : 1, sizeof *m->event_tree);
    if (!m->layouts || !m->event_tree)
        return -1;
    for (size_t a = 0; a < p->naggs; a++) {
        const ty *st = p->aggs[a].state;
        if (!st || !st->nfields)
            continue;
        agg_layout *al = &m->layouts[a];
        al->field = calloc(st->nfields, sizeof *al->field);
        al->item = calloc(st->nfields, sizeof *al->item);
        if (!al->field || !al->item)
            return -1;
        for (size_t f = 0; f < st->nfields; f++) {
            const ty *ft = st->fields[f].type;
            al->field[f] = layout_of(&m->plans, ft);
            al->item[f] =
                ft->kind == TY_LIST ? layout_of(&m->plans, ft->elem) : (layout){.how = OWN_WALK};
            if (f < 64 && al->field[f].how != OWN_NOTHING)
                al->owned |= UINT64_C(1) << f;
        }
        al->by_mask = st->nfields <= 64;
    }
    for (size_t e = 0; e < p->nevents; e++)
        m->event_tree[e] = tree_plan_of(&m->plans, p->events[e].payload, 0);
    return 0;
}

static void layouts_free(memory_store *m)
{
    for (size_t a = 0; m->layouts && a < m->p->naggs; a++) {
        free(m->layouts[a].field);
        free(m->layouts[a].item);
    }
    free(m->layouts);
    free((void *)m->event_tree);
    arena_free(&m->plans);
}

static int txn_init(txn *x, const plan *p, char *error)
{
    x->error = error;
    x->events = calloc_lines(p->nevents ? p->nevents : 1, sizeof *x->events); /* per commit */
    return x->events ? 0 : -1;
}

static void txn_free(txn *x)
{
    for (size_t i = 0; i < x->nchunks; i++)
        log_chunk_free(x, x->chunks[i]);
    free(x->chunks);
    pool_release(&x->pool);
    for (size_t i = 0; i < x->nmaps; i++)
        munmap(x->maps[i].at, x->maps[i].size);
    free(x->maps);
    free(x->rows);
    free(x->events);
    free(x->undos);
    free(x->txn_events);
    free(x->olds);
}

int memory_store_new(const plan *p, store **out)
{
    *out = NULL;
    memory_store *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->base.ops = &memory_store_ops;
    m->p = p;
    m->reserve = true;
    m->stripe_bits = one_record_per_txn(p) ? STRIPE_BITS_FINE : 0;
    size_t ntables = (p->naggs ? p->naggs : 1) << m->stripe_bits;
    m->tables = aligned_alloc(LINE, ntables * sizeof *m->tables);
    if (m->tables)
        memset(m->tables, 0, ntables * sizeof *m->tables);
    m->index = calloc(p->naggs ? p->naggs : 1, sizeof *m->index);
    if (!m->tables || !m->index || txn_init(&m->own, p, m->base.error) < 0) {
        memory_store_free(&m->base);
        return -1;
    }
    for (size_t a = 0; a < p->naggs; a++)
        if (plan_scans(p, &p->aggs[a]) && !(m->index[a] = skip_new())) {
            memory_store_free(&m->base);
            return -1;
        }
    if (layouts_make(m) < 0) {
        memory_store_free(&m->base);
        return -1;
    }
    *out = &m->base;
    return 0;
}

void memory_store_free(store *s)
{
    if (!s)
        return;
    memory_store *m = (memory_store *)s;
    if (m->own.in_txn)
        mem_rollback(s);
    if (m->shared) {
        free(m->stripes);
        pthread_mutex_destroy(&m->mu);
    }
    /* the records' blocks are the pool's, which goes whole with its
       chunks: they are walked only when one of them may be malloc'd apart
       (a block over POOL_MAX still live, or a session left open) */
    bool walk = m->own.pool.large != 0 || m->sessions;
    for (size_t a = 0; m->tables && a < (m->p->naggs << m->stripe_bits); a++)
        table_free(&m->own.pool, &m->tables[a], walk);
    for (size_t a = 0; m->index && a < m->p->naggs; a++)
        skip_free(m->index[a]);
    txn_free(&m->own);
    layouts_free(m);
    free(m->index);
    free(m->tables);
    free(m);
}

size_t memory_store_stripe(const store *s, const value *key)
{
    return stripe_of((const memory_store *)s, key_hash(key));
}

/* ---- reserved room: what the timed cycles will take, ready before them ----
 *
 * A process's fresh page costs a page fault when first written, and on a
 * virtual machine that fault may wait for the host: microseconds at best,
 * hundreds of them at worst (tests/perf/page_touch.c measures it). A
 * store that grows takes fresh pages all the time, so left alone its
 * timed commands would pay the machine's faults as they go. Before the
 * timed pass (store_driver.reserve, untimed) the store measures what the
 * cycles so far took of its pool and its log, and maps and writes ahead
 * as much again for the cycles to come (an eighth more): MAP_POPULATE
 * faults the pages in at once, several times faster than first writes one
 * by one, and then the store writes a byte of every page (touch_pages),
 * because on some virtual machines the host maps a page for the guest's
 * process only at its first access, whatever the guest kernel did: a
 * populated page read or written the first time cost 4.5 us on a PVM guest
 * (2026-12-07), where one already touched costs 26 ns. Each table is grown at once to hold what the
 * cycles will leave in it below 5/8 load, so neither its growth nor the readying of the next one
 * (table_prepare) comes during the pass. The reserve is a measure, not a promise: a pass that takes
 * more than the cycles before it took goes on to malloc, and a table on to grow, as without one; it
 * takes at most half the memory the kernel has free. The memory target's
 * option reserve: false leaves it out (the pass then pays the faults). */

/* Notes a mapping of x's, to unmap when x is freed. */
static int map_keep(txn *x, void *at, size_t size)
{
    if (array_reserve((void **)&x->maps, &x->maps_cap, x->nmaps, sizeof *x->maps) < 0)
        return -1;
    x->maps[x->nmaps++] = (mapping){.at = at, .size = size};
    return 0;
}

/* Writes a zero to the first byte of every page of the fresh (zeroed)
 * mapping at..at+size, so that its first access in the timed pass finds the
 * page mapped all the way down (the reserve's comment above says why). */
static void touch_pages(void *at, size_t size)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < size; i += page)
        ((volatile char *)at)[i] = 0;
}

/* size bytes mapped with every page faulted in and touched, kept by x;
 * NULL when the kernel gives none. */
static char *map_ready(txn *x, size_t size)
{
    void *at =
        mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (at == MAP_FAILED)
        return NULL;
    touch_pages(at, size);
    if (map_keep(x, at, size) < 0) {
        munmap(at, size);
        return NULL;
    }
    return at;
}

/* Half of what the kernel has free: the most one reserve takes. */
static size_t reserve_budget(void)
{
    long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages / 2 * (size_t)page : 0;
}

/* Bytes for `cycles` more cycles at what `done` took `used` bytes for, an
 * eighth more, less what is ready already; 0 when nothing is known. */
static size_t room_for(size_t used, uint64_t done, uint64_t cycles, size_t ready)
{
    if (!done || !cycles)
        return 0;
    double want = (double)used / (double)done * (double)cycles * 1.125;
    return want > (double)ready ? (want < 1e18 ? (size_t)want - ready : (size_t)1e18) : 0;
}

/* Makes t hold `records` records below 5/8 load: a table of that size at
 * once, mapped with its pages in, the records moved across (and a table
 * still growing finished). Unchanged when it is large enough already, or
 * when the kernel gives no memory. */
static void table_reserve(table *t, size_t records)
{
    size_t cap = t->cap ? t->cap : TABLE_MIN;
    while (cap * 5 <= records * 8 && cap < ((size_t)1 << 40))
        cap *= 2;
    if (cap <= t->cap)
        return;
    void *m = mmap(NULL, cap * sizeof(slot), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (m == MAP_FAILED)
        return;
    touch_pages(m, cap * sizeof(slot));
    slot *slots = m;
    size_t mask = cap - 1;
    for (int side = 0; side < 2; side++) {
        slot *from = side ? t->old : t->slots;
        size_t lo = side ? t->moved : 0, hi = side ? t->old_cap : t->cap;
        for (size_t i = lo; from && i < hi; i++) {
            if (!from[i].rec || from[i].rec == TOMB)
                continue;
            size_t j = from[i].hash & mask;
            while (slots[j].rec)
                j = (j + 1) & mask;
            slots[j] = from[i];
        }
    }
    slots_unmap(t->slots, t->cap);
    slots_unmap(t->old, t->old_cap);
    slots_unmap(t->next, t->cap * 2);
    t->slots = slots;
    t->cap = cap;
    t->old = t->next = NULL;
    t->old_cap = t->moved = t->released = t->ready = 0;
    t->version++;
}

/* The bytes of x's log chunks in use. */
static size_t log_used(const txn *x)
{
    size_t n = 0;
    for (size_t i = 0; i < x->nchunks; i++)
        n += x->chunks[i]->used;
    return n;
}

/* x's pool and log: room for `cycles` more at what `done` took. */
static void txn_reserve(txn *x, uint64_t done, uint64_t cycles)
{
    pool *p = &x->pool;
    size_t pool_used = p->taken * POOL_CHUNK - (size_t)(p->end - p->at);
    size_t log_room =
        x->nchunks ? x->chunks[x->nchunks - 1]->size - x->chunks[x->nchunks - 1]->used : 0;
    /* what an earlier reserve left is not counted: the new room replaces it
       (it stays mapped, unused, until the store is freed) */
    size_t want_pool = room_for(pool_used, done, cycles, (size_t)(p->end - p->at));
    size_t want_log = room_for(log_used(x), done, cycles, log_room);
    size_t budget = reserve_budget();
    if (want_pool + want_log > budget) { /* each its share of what there is */
        double scale = (double)budget / ((double)want_pool + (double)want_log);
        want_pool = (size_t)((double)want_pool * scale);
        want_log = (size_t)((double)want_log * scale);
    }
    size_t chunk = sizeof(log_chunk) + LOG_CHUNK;
    size_t npool = (want_pool + POOL_CHUNK - 1) / POOL_CHUNK, nlog = (want_log + chunk - 1) / chunk;
    char *at;
    if (npool && (at = map_ready(x, npool * POOL_CHUNK))) {
        p->spare = at;
        p->spare_end = at + npool * POOL_CHUNK;
    }
    if (nlog && (at = map_ready(x, nlog * chunk))) {
        x->log_spare = at;
        x->log_spare_end = at + nlog * chunk;
    }
}

/* The tables: every aggregate's records now, and as many more again as the
 * cycles of every client's reserve so far left per cycle they did (by the
 * plan's count per cycle when none ran yet). */
static void tables_reserve(memory_store *m)
{
    const plan *p = m->p;
    size_t n = nstripes(m);
    for (size_t a = 0; a < p->naggs; a++) {
        double now = 0;
        for (size_t st = 0; st < n; st++)
            now += (double)m->tables[a << m->stripe_bits | st].count;
        double per_cycle = m->reserve_done                         ? now / (double)m->reserve_done
                           : p->cycle_aggs && p->cycle_aggs[a] > 0 ? (double)p->cycle_aggs[a]
                                                                   : 0;
        double records = (now + per_cycle * (double)m->reserve_cycles * 1.125) / (double)n;
        if (records * 16 * (double)n > (double)reserve_budget()) /* 16 bytes a slot, at most */
            continue;
        for (size_t st = 0; st < n; st++)
            table_reserve(&m->tables[a << m->stripe_bits | st], (size_t)records + 64);
    }
}

/* store_driver.reserve, on the store or one of its sessions: called before
 * the timed pass, with no other client running. */
static int memory_reserve(store *s, uint64_t done, uint64_t cycles)
{
    bool own = s->ops == &memory_store_ops;
    memory_store *m = own ? (memory_store *)s : ((mem_session *)s)->m;
    if (!m->reserve)
        return 0;
    txn_reserve(own ? &m->own : &((mem_session *)s)->x, done, cycles);
    m->reserve_done += done;
    m->reserve_cycles += cycles;
    tables_reserve(m);
    return 0;
}

void memory_store_room(const store *s, size_t agg, memory_room *out)
{
    bool own = s->ops == &memory_store_ops;
    const memory_store *m = own ? (const memory_store *)s : ((const mem_session *)s)->m;
    const txn *x = own ? &m->own : &((const mem_session *)s)->x;
    *out = (memory_room){.pool_malloced = x->pool.nchunks,
                         .pool_spare = (size_t)(x->pool.spare_end - x->pool.spare),
                         .log_spare = (size_t)(x->log_spare_end - x->log_spare)};
    for (size_t i = 0; i < x->nchunks; i++)
        out->log_malloced += !x->chunks[i]->reserved;
    for (size_t st = 0; st < nstripes(m); st++) {
        const table *t = &m->tables[agg << m->stripe_bits | st];
        out->slots += t->cap;
        out->growing = out->growing || t->old || t->next;
    }
}

/* ---- sessions: many clients on one store ---- */

static int ses_begin(store *s)
{
    mem_session *ms = (mem_session *)s;
    arena_reset(&ms->copies);
    return tx_begin(&ms->x);
}

static int ses_read_begin(store *s)
{
    arena_reset(&((mem_session *)s)->copies);
    return 0;
}

/* Outside a transaction (a query) the lookup takes the key's stripe, holding
 * nothing else, and the record is copied out, since another client's commit
 * may free the block. */
static int ses_load(store *s, const aggregate *agg, const value *key, value *out)
{
    mem_session *ms = (mem_session *)s;
    memory_store *m = ms->m;
    if (ms->x.in_txn)
        return tx_load(m, &ms->x, agg, key, out);
    size_t at = stripe_of(m, key_hash(key));
    stripe_lock(&m->stripes[at]);
    int rc = tx_load(m, &ms->x, agg, key, out);
    if (rc == 1)
        *out = value_copy(&ms->copies, out);
    ms->x.last.key = NULL;
    stripe_unlock(&m->stripes[at]);
    return rc;
}

static int ses_save(store *s, const aggregate *agg, const value *key, const value *state,
                    bool created)
{
    mem_session *ms = (mem_session *)s;
    (void)created;
    return tx_save(ms->m, &ms->x, agg, key, state);
}

static int ses_update(store *s, const aggregate *agg, const value *key, const store_change *changes,
                      size_t n, value *state)
{
    mem_session *ms = (mem_session *)s;
    return tx_update(ms->m, &ms->x, agg, key, changes, n, state);
}

static int ses_remove(store *s, const aggregate *agg, const value *key)
{
    mem_session *ms = (mem_session *)s;
    return tx_remove(ms->m, &ms->x, agg, key);
}

static int ses_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                            const value *payload)
{
    return tx_append_event(&((mem_session *)s)->x, ev, agg, key, payload);
}

static int ses_commit(store *s)
{
    mem_session *ms = (mem_session *)s;
    return tx_commit(ms->m, &ms->x);
}

static int ses_rollback(store *s)
{
    mem_session *ms = (mem_session *)s;
    return tx_rollback(ms->m, &ms->x);
}

/* A scan outside a transaction, as a query's load: under every stripe (the
 * plans that scan have one), and the rows copied out, since another
 * client's commit may free their blocks. */
static int ses_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    mem_session *ms = (mem_session *)s;
    lock_all(ms->m);
    value rows;
    int rc = tx_scan(ms->m, &ms->x, agg, from, limit, &rows);
    if (rc == 0)
        *out = value_copy(&ms->copies, &rows);
    unlock_all(ms->m);
    return rc;
}

static int ses_count(store *s, uint64_t *aggs, uint64_t *events)
{
    mem_session *ms = (mem_session *)s;
    lock_all(ms->m);
    int rc = tx_count(ms->m, aggs, events);
    unlock_all(ms->m);
    return rc;
}

static int ses_direct_find(store *s, const aggregate *agg, const value *key, const store_room *room,
                           size_t nroom, store_ref *ref, value *state)
{
    mem_session *ms = (mem_session *)s;
    return tx_direct_find(ms->m, &ms->x, agg, key, room, nroom, ref, state);
}

static int ses_direct_write(store *s, const store_write *w)
{
    mem_session *ms = (mem_session *)s;
    return tx_direct_write(ms->m, &ms->x, w);
}

static void ses_direct_release(store *s)
{
    mem_session *ms = (mem_session *)s;
    release(ms->m, &ms->x);
}

static const store_ops memory_session_ops = {
    .begin = ses_begin,
    .load = ses_load,
    .save = ses_save,
    .remove = ses_remove,
    .append_event = ses_append_event,
    .commit = ses_commit,
    .rollback = ses_rollback,
    .count = ses_count,
    .read_begin = ses_read_begin,
    .scan = ses_scan,
    .update = ses_update,
    .direct_find = ses_direct_find,
    .direct_write = ses_direct_write,
    .direct_release = ses_direct_release,
};

static int memory_session(store *s, store **out, char *err, size_t size)
{
    memory_store *m = (memory_store *)s;
    *out = NULL;
    if (!m->shared) { /* sessions lock from now on; the store itself is for one thread */
        m->stripes = aligned_alloc(LINE, nstripes(m) * sizeof *m->stripes);
        if (!m->stripes) {
            snprintf(err, size, "memory: out of memory");
            return -1;
        }
        for (size_t i = 0; i < nstripes(m); i++)
            atomic_init(&m->stripes[i].held, 0);
        pthread_mutex_init(&m->mu, NULL);
        m->shared = true;
    }
    mem_session *ms = calloc_lines(1, sizeof *ms); /* its client's thread writes it */
    if (!ms || txn_init(&ms->x, m->p, ms->base.error) < 0) {
        free(ms);
        snprintf(err, size, "memory: out of memory");
        return -1;
    }
    ms->base.ops = &memory_session_ops;
    ms->m = m;
    ms->x.locks = true;
    pthread_mutex_lock(&m->mu);
    ms->next = m->sessions;
    if (m->sessions)
        m->sessions->prev = ms;
    m->sessions = ms;
    pthread_mutex_unlock(&m->mu);
    *out = &ms->base;
    return 0;
}

/* Moves n chunk pointers onto the end of *to (len, room cap). */
static void hand_over(void ***to, size_t *len, size_t *cap, void *const *from, size_t n)
{
    if (*len + n > *cap) {
        *cap = *len + n > 2 * *cap ? *len + n : 2 * *cap;
        *to = xreallocarray(*to, *cap, sizeof **to);
    }
    if (n)
        memcpy(*to + *len, from, n * sizeof *from);
    *len += n;
}

/* The records a session allocated stay in the store, and so do the events
 * it logged: its pool's chunks, its log and its event counts go to the
 * store's own. */
static void memory_session_close(store *s)
{
    mem_session *ms = (mem_session *)s;
    memory_store *m = ms->m;
    txn *x = &ms->x;
    if (x->in_txn)
        tx_rollback(m, x);
    pthread_mutex_lock(&m->mu);
    if (ms->prev)
        ms->prev->next = ms->next;
    else
        m->sessions = ms->next;
    if (ms->next)
        ms->next->prev = ms->prev;
    for (size_t i = 0; i < m->p->nevents; i++)
        m->own.events[i] += x->events[i];
    hand_over(&m->own.pool.chunks, &m->own.pool.nchunks, &m->own.pool.chunks_cap, x->pool.chunks,
              x->pool.nchunks);
    x->pool.nchunks = 0;
    m->own.pool.large += x->pool.large;
    x->pool.large = 0;
    for (size_t i = 0; i < x->nchunks; i++) {
        if (m->own.nchunks == m->own.chunks_cap) {
            m->own.chunks_cap = m->own.chunks_cap ? 2 * m->own.chunks_cap : 16;
            m->own.chunks = xreallocarray(m->own.chunks, m->own.chunks_cap, sizeof *m->own.chunks);
        }
        m->own.chunks[m->own.nchunks++] = x->chunks[i];
    }
    x->nchunks = 0;
    for (size_t i = 0; i < x->nmaps; i++) /* its reserved room holds some of those */
        if (map_keep(&m->own, x->maps[i].at, x->maps[i].size) < 0)
            munmap(x->maps[i].at, x->maps[i].size); /* not reached but out of memory */
    x->nmaps = 0;
    pthread_mutex_unlock(&m->mu);
    txn_free(x);
    arena_free(&ms->copies);
    free(ms);
}

/* ---- the driver ---- */

static int memory_open(const plan *p, const target_spec *spec, int run, store **out, char *err,
                       size_t size)
{
    (void)run;
    if (memory_store_new(p, out) == 0) {
        ((memory_store *)*out)->reserve = !spec || target_opt_bool(spec, "reserve");
        return 0;
    }
    snprintf(err, size, "memory: out of memory");
    return -1;
}

static const target_option memory_options[] = {
    {.name = "reserve",
     .type = TARGET_OPT_BOOL,
     .dflt = "true",
     .about = "before the timed pass, map and fault in the memory its records and events will "
              "take (measured from the cycles before it), so that no timed command pays the "
              "kernel's first touch of a page; false: the pass pays those page faults as it grows"},
};

const store_driver memory_store_driver = {
    .version = STORE_DRIVER_VERSION,
    .name = "memory",
    .about = "the C runtime on an in-process store (hash table per aggregate type, skip list per "
             "scanned one, event log)",
    .options = memory_options,
    .noptions = sizeof memory_options / sizeof *memory_options,
    .caps = TARGET_CAN_SCAN,
    .open = memory_open,
    .close = memory_store_free,
    .session = memory_session,
    .session_close = memory_session_close,
    .session_for_all = true,
    .reserve = memory_reserve,
};

int memory_store_events(const store *s, memory_event_fn fn, void *ctx)
{
    /* a session by its calls; a store may have had some of its own taken
       out (a test's) */
    const txn *x = s->ops == &memory_session_ops ? &((const mem_session *)s)->x
                                                 : &((const memory_store *)s)->own;
    for (size_t i = 0; i < x->nchunks; i++) {
        const log_chunk *ch = x->chunks[i];
        for (size_t at = 0; at < ch->used;) {
            const log_entry *e = (const log_entry *)(const void *)((const char *)ch->data + at);
            const value *after = (const value *)(const void *)((const char *)e + LOG_HEAD);
            value key, payload;
            if (e->key == LOG_FULL) {
                key = after[0];
                payload = after[1];
            } else {
                if (e->key == LOG_KEY_APART)
                    key = *after++;
                payload = (value){.kind = VAL_STRUCT, .len = e->n, .u.items = (value *)after};
                if (e->key >= 0)
                    key = payload.u.items[e->key];
            }
            int rc = fn(ctx, e->event, e->agg, &key, &payload);
            if (rc)
                return rc;
            at = (at + e->size + 15) & ~(size_t)15;
        }
    }
    return 0;
}
