/* store_memory.c: the in-process store (the memory target is the C runtime
 * on it).
 *
 * Records live in one open-addressing hash table per aggregate type, keyed
 * by identity (linear probing; the table doubles at 3/4 load; a removal
 * shifts the records after it back, so there are no tombstones and a probe
 * stops at the first empty slot). Each record is deep-copied into one
 * malloc'd block. A transaction buffers its writes (and removals, as a
 * block holding only the key) and applies them in order on commit
 * (freeing the blocks they replace), or frees them on rollback. Events are deep-copied into a
 * chunked log; a rollback truncates the log back to where the transaction began.
 *
 * Many clients share one store through sessions (store_driver.session),
 * client 0 included (the store itself then serves verify alone): a mutex
 * is taken at begin and released at commit or rollback, so the
 * transactions of all clients run one at a time, each seeing only what is
 * committed; a load outside a transaction (a query) takes it for the
 * lookup and copies the record out. That locking is part of what a run with
 * several clients measures. One client never shares the store: no lock. */
#include "store_memory.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "runtime.h"
#include "store_driver.h"
#include "value.h"

enum {
    LOG_CHUNK = 256 * 1024, /* bytes per event-log chunk (more for a larger event) */
    TABLE_MIN = 64,         /* slots in a table's first allocation */
};

/* One record: this header, then its value arrays, then its string bytes. */
typedef struct record {
    value key;
    value state;
} record;

typedef struct slot {
    uint64_t hash;
    record *rec; /* NULL: empty */
} slot;

typedef struct table {
    slot *slots;
    size_t cap; /* a power of two, or 0 before the first insert */
    size_t count;
} table;

/* A write of the open transaction, applied on commit. */
typedef struct pending {
    size_t agg;
    uint64_t hash;
    record *rec;  /* the new record; a removal's holds the key only */
    bool removed; /* the record goes */
} pending;

typedef struct log_chunk {
    size_t size, used;
    max_align_t data[];
} log_chunk;

/* One event in the log, followed by its value arrays and string bytes. */
typedef struct log_entry {
    uint32_t event, agg;
    value key, payload;
} log_entry;

typedef struct memory_store memory_store;

/* One client's view of a shared store. */
typedef struct mem_session {
    store base;
    memory_store *m;
    arena copies; /* records loads outside a transaction copied out */
    bool in_txn;
} mem_session;

struct memory_store {
    store base;
    const plan *p;
    table *tables;    /* per aggregate index */
    uint64_t *events; /* committed events per event index */
    bool in_txn;
    pending *writes;
    size_t nwrites, writes_cap;
    uint32_t *txn_events; /* event indexes appended by the open transaction */
    size_t ntxn_events, txn_events_cap;
    log_chunk **chunks;
    size_t nchunks, chunks_cap;
    size_t mark_chunks, mark_used; /* the log's end when the transaction began */
    bool shared;                   /* sessions exist: mu guards everything */
    pthread_mutex_t mu;
};

static int oom(memory_store *m)
{
    snprintf(m->base.error, sizeof m->base.error, "out of memory");
    return -1;
}

static int no_txn(memory_store *m, const char *call)
{
    snprintf(m->base.error, sizeof m->base.error, "memory store: %s outside a transaction", call);
    return -1;
}

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

static uint64_t key_hash(const value *k)
{
    if (k->kind != VAL_STRING)
        return mix64((uint64_t)k->u.i);
    uint64_t h = 0xcbf29ce484222325ULL;
    for (uint32_t i = 0; i < k->len; i++) {
        h ^= (unsigned char)k->u.s[i];
        h *= 0x100000001b3ULL;
    }
    return mix64(h);
}

/* ---- deep copies ---- */

typedef struct sizes {
    size_t values; /* value slots in nested arrays */
    size_t bytes;  /* string bytes */
} sizes;

static void measure(const value *v, sizes *sz)
{
    if (v->kind == VAL_STRING) {
        sz->bytes += v->len;
    } else if (v->kind == VAL_STRUCT || v->kind == VAL_LIST) {
        sz->values += v->len;
        for (uint32_t i = 0; i < v->len; i++)
            measure(&v->u.items[i], sz);
    }
}

typedef struct cursor {
    value *values;
    char *bytes;
} cursor;

static void copy_into(value *dst, const value *src, cursor *c)
{
    *dst = *src;
    if (src->kind == VAL_STRING) {
        if (src->len)
            memcpy(c->bytes, src->u.s, src->len);
        dst->u.s = c->bytes;
        c->bytes += src->len;
    } else if (src->kind == VAL_STRUCT || src->kind == VAL_LIST) {
        dst->u.items = c->values;
        c->values += src->len;
        for (uint32_t i = 0; i < src->len; i++)
            copy_into(&dst->u.items[i], &src->u.items[i], c);
    }
}

static record *record_new(const value *key, const value *state)
{
    sizes sz = {0};
    measure(key, &sz);
    measure(state, &sz);
    record *r = malloc(sizeof *r + sz.values * sizeof(value) + sz.bytes);
    if (!r)
        return NULL;
    cursor c = {.values = (value *)(r + 1)};
    c.bytes = (char *)(c.values + sz.values);
    copy_into(&r->key, key, &c);
    copy_into(&r->state, state, &c);
    return r;
}

/* ---- tables ---- */

static slot *table_slot(const table *t, uint64_t hash, const value *key)
{
    size_t mask = t->cap - 1;
    for (size_t i = hash & mask;; i = (i + 1) & mask) {
        slot *sl = &t->slots[i];
        if (!sl->rec || (sl->hash == hash && value_equal(&sl->rec->key, key)))
            return sl;
    }
}

static record *table_find(const table *t, uint64_t hash, const value *key)
{
    return t->cap ? table_slot(t, hash, key)->rec : NULL;
}

static int table_grow(table *t)
{
    size_t cap = t->cap ? t->cap * 2 : TABLE_MIN;
    slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    table bigger = {.slots = slots, .cap = cap, .count = t->count};
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].rec)
            *table_slot(&bigger, t->slots[i].hash, &t->slots[i].rec->key) = t->slots[i];
    free(t->slots);
    *t = bigger;
    return 0;
}

/* Inserts or replaces (freeing the replaced block). Never fails: commit
 * grows the table before it applies anything. */
static void table_put(table *t, uint64_t hash, record *rec)
{
    slot *sl = table_slot(t, hash, &rec->key);
    if (sl->rec)
        free(sl->rec);
    else
        t->count++;
    *sl = (slot){.hash = hash, .rec = rec};
}

/* Removes the record with key, if any, freeing its block: the records
 * after it in its probe run move back into the gap when their home slot
 * allows (backward-shift deletion), so every probe still finds its key
 * before an empty slot. */
static void table_remove(table *t, uint64_t hash, const value *key)
{
    if (!t->cap)
        return;
    slot *sl = table_slot(t, hash, key);
    if (!sl->rec)
        return;
    free(sl->rec);
    t->count--;
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

/* ---- the event log ---- */

static int log_append(memory_store *m, uint32_t event, uint32_t agg, const value *key,
                      const value *payload)
{
    sizes sz = {0};
    measure(key, &sz);
    measure(payload, &sz);
    size_t align = _Alignof(max_align_t);
    size_t need = sizeof(log_entry) + sz.values * sizeof(value) + sz.bytes;
    need = (need + align - 1) & ~(align - 1);
    log_chunk *ch = m->nchunks ? m->chunks[m->nchunks - 1] : NULL;
    if (!ch || ch->size - ch->used < need) {
        size_t size = need > LOG_CHUNK ? need : LOG_CHUNK;
        if (array_reserve((void **)&m->chunks, &m->chunks_cap, m->nchunks, sizeof *m->chunks) < 0)
            return oom(m);
        ch = malloc(sizeof *ch + size);
        if (!ch)
            return oom(m);
        ch->size = size;
        ch->used = 0;
        m->chunks[m->nchunks++] = ch;
    }
    log_entry *e = (log_entry *)((char *)ch->data + ch->used);
    ch->used += need;
    e->event = event;
    e->agg = agg;
    cursor c = {.values = (value *)(e + 1)};
    c.bytes = (char *)(c.values + sz.values);
    copy_into(&e->key, key, &c);
    copy_into(&e->payload, payload, &c);
    return 0;
}

/* Drops what the open transaction appended to the log. */
static void log_truncate(memory_store *m)
{
    while (m->nchunks > m->mark_chunks)
        free(m->chunks[--m->nchunks]);
    if (m->nchunks)
        m->chunks[m->nchunks - 1]->used = m->mark_used;
}

/* ---- store ops ---- */

static int mem_begin(store *s)
{
    memory_store *m = (memory_store *)s;
    if (m->in_txn) {
        snprintf(s->error, sizeof s->error, "memory store: begin inside a transaction");
        return -1;
    }
    m->in_txn = true;
    m->nwrites = 0;
    m->ntxn_events = 0;
    m->mark_chunks = m->nchunks;
    m->mark_used = m->nchunks ? m->chunks[m->nchunks - 1]->used : 0;
    return 0;
}

static int mem_load(store *s, const aggregate *agg, const value *key, value *out)
{
    memory_store *m = (memory_store *)s;
    uint64_t hash = key_hash(key);
    /* the transaction's own writes first, newest first: a policy may touch
     * the record its command just saved; a transaction writes a handful of
     * records, so a scan beats a second table */
    for (size_t i = m->nwrites; i-- > 0;) {
        const pending *w = &m->writes[i];
        if (w->agg == agg->index && w->hash == hash && value_equal(&w->rec->key, key)) {
            *out = w->rec->state;
            return !w->removed;
        }
    }
    const record *r = table_find(&m->tables[agg->index], hash, key);
    if (!r)
        return 0;
    *out = r->state;
    return 1;
}

static int mem_save(store *s, const aggregate *agg, const value *key, const value *state,
                    bool created)
{
    memory_store *m = (memory_store *)s;
    if (!m->in_txn)
        return no_txn(m, "save");
    if (array_reserve((void **)&m->writes, &m->writes_cap, m->nwrites, sizeof *m->writes) < 0)
        return oom(m);
    record *r = record_new(key, state);
    if (!r)
        return oom(m);
    m->writes[m->nwrites++] = (pending){.agg = agg->index, .hash = key_hash(key), .rec = r};
    return 0;
}

static int mem_remove(store *s, const aggregate *agg, const value *key)
{
    memory_store *m = (memory_store *)s;
    if (!m->in_txn)
        return no_txn(m, "remove");
    if (array_reserve((void **)&m->writes, &m->writes_cap, m->nwrites, sizeof *m->writes) < 0)
        return oom(m);
    value none = {.kind = VAL_NONE};
    record *r = record_new(key, &none);
    if (!r)
        return oom(m);
    m->writes[m->nwrites++] =
        (pending){.agg = agg->index, .hash = key_hash(key), .rec = r, .removed = true};
    return 0;
}

static int mem_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                            const value *payload)
{
    memory_store *m = (memory_store *)s;
    if (!m->in_txn)
        return no_txn(m, "append_event");
    if (array_reserve((void **)&m->txn_events, &m->txn_events_cap, m->ntxn_events,
                      sizeof *m->txn_events) < 0)
        return oom(m);
    if (log_append(m, (uint32_t)ev->index, (uint32_t)agg->index, key, payload) < 0)
        return -1;
    m->txn_events[m->ntxn_events++] = (uint32_t)ev->index;
    return 0;
}

static void discard_writes(memory_store *m)
{
    for (size_t i = 0; i < m->nwrites; i++)
        free(m->writes[i].rec);
    m->nwrites = 0;
}

static int mem_rollback(store *s)
{
    memory_store *m = (memory_store *)s;
    if (!m->in_txn)
        return no_txn(m, "rollback");
    discard_writes(m);
    log_truncate(m);
    m->ntxn_events = 0;
    m->in_txn = false;
    return 0;
}

static int mem_commit(store *s)
{
    memory_store *m = (memory_store *)s;
    if (!m->in_txn)
        return no_txn(m, "commit");
    /* grow first, so that applying cannot fail half-way: each write adds at
     * most one record, so a table takes as many more as the transaction has
     * writes to it (the last write to it counts them all). The work is in
     * the writes, whatever the number of aggregate types. */
    for (size_t i = 0; i < m->nwrites; i++) {
        size_t a = m->writes[i].agg, adds = 0;
        for (size_t k = 0; k <= i; k++)
            adds += m->writes[k].agg == a;
        table *t = &m->tables[a];
        while ((t->count + adds) * 4 >= t->cap * 3)
            if (table_grow(t) < 0) {
                mem_rollback(s);
                return oom(m);
            }
    }
    for (size_t i = 0; i < m->nwrites; i++) {
        const pending *w = &m->writes[i];
        if (!w->removed) {
            table_put(&m->tables[w->agg], w->hash, w->rec);
            continue;
        }
        table_remove(&m->tables[w->agg], w->hash, &w->rec->key);
        free(w->rec);
    }
    m->nwrites = 0;
    for (size_t i = 0; i < m->ntxn_events; i++)
        m->events[m->txn_events[i]]++;
    m->ntxn_events = 0;
    m->in_txn = false;
    return 0;
}

static int mem_count(store *s, uint64_t *aggs, uint64_t *events)
{
    memory_store *m = (memory_store *)s;
    for (size_t i = 0; i < m->p->naggs; i++)
        aggs[i] = m->tables[i].count;
    for (size_t i = 0; i < m->p->nevents; i++)
        events[i] = m->events[i];
    return 0;
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
};

int memory_store_new(const plan *p, store **out)
{
    *out = NULL;
    memory_store *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->base.ops = &memory_store_ops;
    m->p = p;
    m->tables = calloc(p->naggs ? p->naggs : 1, sizeof *m->tables);
    m->events = calloc(p->nevents ? p->nevents : 1, sizeof *m->events);
    if (!m->tables || !m->events) {
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
    discard_writes(m);
    if (m->shared)
        pthread_mutex_destroy(&m->mu);
    for (size_t a = 0; m->tables && a < m->p->naggs; a++) {
        table *t = &m->tables[a];
        for (size_t i = 0; i < t->cap; i++)
            free(t->slots[i].rec);
        free(t->slots);
    }
    for (size_t i = 0; i < m->nchunks; i++)
        free(m->chunks[i]);
    free(m->chunks);
    free(m->tables);
    free(m->events);
    free(m->writes);
    free(m->txn_events);
    free(m);
}

/* ---- sessions: many clients on one store ---- */

static int session_fail(mem_session *ms, int rc)
{
    if (rc < 0)
        memcpy(ms->base.error, ms->m->base.error, sizeof ms->base.error);
    return rc;
}

static int ses_begin(store *s)
{
    mem_session *ms = (mem_session *)s;
    pthread_mutex_lock(&ms->m->mu);
    arena_reset(&ms->copies);
    int rc = mem_begin(&ms->m->base);
    if (rc < 0) {
        pthread_mutex_unlock(&ms->m->mu);
        return session_fail(ms, rc);
    }
    ms->in_txn = true;
    return 0;
}

static int ses_read_begin(store *s)
{
    arena_reset(&((mem_session *)s)->copies);
    return 0;
}

/* In a transaction the lock is held; outside one (a query) the lookup takes
 * it and the record is copied out, since another client's commit may free
 * the block. */
static int ses_load(store *s, const aggregate *agg, const value *key, value *out)
{
    mem_session *ms = (mem_session *)s;
    if (ms->in_txn)
        return mem_load(&ms->m->base, agg, key, out);
    pthread_mutex_lock(&ms->m->mu);
    int rc = mem_load(&ms->m->base, agg, key, out);
    if (rc == 1)
        *out = value_copy(&ms->copies, out);
    pthread_mutex_unlock(&ms->m->mu);
    return rc;
}

static int ses_save(store *s, const aggregate *agg, const value *key, const value *state,
                    bool created)
{
    mem_session *ms = (mem_session *)s;
    return session_fail(ms, mem_save(&ms->m->base, agg, key, state, created));
}

static int ses_remove(store *s, const aggregate *agg, const value *key)
{
    mem_session *ms = (mem_session *)s;
    return session_fail(ms, mem_remove(&ms->m->base, agg, key));
}

static int ses_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                            const value *payload)
{
    mem_session *ms = (mem_session *)s;
    return session_fail(ms, mem_append_event(&ms->m->base, ev, agg, key, payload));
}

static int ses_end(store *s, int (*end)(store *))
{
    mem_session *ms = (mem_session *)s;
    if (!ms->in_txn)
        return end(&ms->m->base) < 0 ? session_fail(ms, -1) : 0;
    int rc = end(&ms->m->base);
    ms->in_txn = false;
    pthread_mutex_unlock(&ms->m->mu);
    return session_fail(ms, rc);
}

static int ses_commit(store *s)
{
    return ses_end(s, mem_commit);
}

static int ses_rollback(store *s)
{
    return ses_end(s, mem_rollback);
}

static int ses_count(store *s, uint64_t *aggs, uint64_t *events)
{
    mem_session *ms = (mem_session *)s;
    pthread_mutex_lock(&ms->m->mu);
    int rc = mem_count(&ms->m->base, aggs, events);
    pthread_mutex_unlock(&ms->m->mu);
    return rc;
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
};

static int memory_session(store *s, store **out, char *err, size_t size)
{
    memory_store *m = (memory_store *)s;
    *out = NULL;
    if (!m->shared) { /* sessions lock from now on; the store itself is for one thread */
        pthread_mutex_init(&m->mu, NULL);
        m->shared = true;
    }
    mem_session *ms = calloc(1, sizeof *ms);
    if (!ms) {
        snprintf(err, size, "memory: out of memory");
        return -1;
    }
    ms->base.ops = &memory_session_ops;
    ms->m = m;
    *out = &ms->base;
    return 0;
}

static void memory_session_close(store *s)
{
    mem_session *ms = (mem_session *)s;
    arena_free(&ms->copies);
    free(ms);
}

/* ---- the driver ---- */

static int memory_open(const plan *p, const target_spec *spec, int run, store **out, char *err,
                       size_t size)
{
    (void)spec, (void)run;
    if (memory_store_new(p, out) == 0)
        return 0;
    snprintf(err, size, "memory: out of memory");
    return -1;
}

const store_driver memory_store_driver = {
    .version = STORE_DRIVER_VERSION,
    .name = "memory",
    .about = "the C runtime on an in-process store (hash table per aggregate type, event log)",
    .open = memory_open,
    .close = memory_store_free,
    .session = memory_session,
    .session_close = memory_session_close,
    .session_for_all = true,
};
