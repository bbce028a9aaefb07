/* store.h: where the runtime keeps records and events: the interface the
 * runtime needs, which each store in targets/ implements (a store declares
 * itself in a store_driver, targets/store_driver.h). Every
 * call happens inside one dispatch, between begin and commit or rollback
 * (load may also be called outside one: it reads what is committed).
 * Values handed to a store are lent: a store copies what it keeps. Values a
 * store hands back stay valid until the next commit or rollback.
 *
 * A query writes nothing and opens no transaction: the runtime calls
 * read_begin (when the store has it), then prefetch and load, all outside
 * a transaction; they read what is committed, and what they hand back
 * stays valid until the next read_begin or begin.
 *
 * Three optional members let a store that talks to a server batch its round
 * trips (see the postgres target); a store that leaves them unset (memory)
 * is driven exactly as before. Three more (direct_find, direct_write,
 * direct_release) let a store carry out a command that writes only its own
 * record without a transaction: they make a sequence of their own, outside
 * begin and commit (see direct_find). */
#ifndef BENCH_STORE_H
#define BENCH_STORE_H

#include "error.h"
#include "plan.h"

typedef struct store store;

/* One change of a record's field, for update: the field (an index into
 * agg->state's fields) set to v, or v appended to the list it holds (an
 * unset optional list is []). v is lent, as everything handed to a store. */
typedef struct store_change {
    int field;
    bool append;
    value v;
} store_change;

/* The direct path (store_ops.direct_find, direct_write, direct_release):
 * where a record a direct_find located is, in the store's own words; the
 * caller keeps it between that find and the write. */
typedef struct store_ref {
    uint64_t word[5];
} store_ref;

/* Room a direct_find makes in a list field of the record it finds: for n
 * more items past the list's length. */
typedef struct store_room {
    int field;
    uint32_t n;
} store_room;

typedef enum store_write_kind {
    STORE_WRITE_UPDATE, /* the changes, in order, to the record found */
    STORE_WRITE_CREATE, /* a new record of state where the find found none */
    STORE_WRITE_REMOVE, /* the record found goes */
} store_write_kind;

/* Everything one command writes (direct_write): its record's change and its
 * event. Every value is lent, as everything handed to a store. */
typedef struct store_write {
    store_write_kind kind;
    const aggregate *agg;
    const value *key;            /* the key the find was given */
    const store_ref *ref;        /* what that find set */
    const store_change *changes; /* STORE_WRITE_UPDATE */
    size_t nchanges;             /* STORE_WRITE_UPDATE */
    const value *state;          /* STORE_WRITE_CREATE: laid out as agg->state */
    const event_def *event;      /* NULL: none */
    const value *payload;        /* the event's */
    /* the payload's field that is the key itself (the same value), or -1
       when the caller does not say (the store looks) */
    int key_field;
    /* bit i: the payload's field i (i < 64), and all it points to, stays as
       it is for as long as the store lives (a step's constant argument, on
       the runner's path), so the store may keep that field as it is handed
       rather than a copy of it */
    uint64_t lasting;
} store_write;

/* save and commit of a store that sets checks_creates return this when a
 * created record's identity already exists; nothing of the transaction is
 * kept, and the caller rolls back as after a refusal. */
enum { STORE_CONFLICT = 1 };

typedef struct store_ops {
    int (*begin)(store *s);
    /* 1 and the record in *out when found, 0 when absent, -1 on error. */
    int (*load)(store *s, const aggregate *agg, const value *key, value *out);
    /* Writes the record's new state (created: it did not exist before). A
     * store may write it into the record that load lent, in place: what
     * that load handed back then holds the new fields (what the old ones
     * pointed at stays valid until commit or rollback). */
    int (*save)(store *s, const aggregate *agg, const value *key, const value *state, bool created);
    /* Removes the record, which the transaction has loaded (it exists): a
     * later load in the transaction finds it absent, commit applies the
     * removal, rollback undoes it; the identity may be created again. */
    int (*remove)(store *s, const aggregate *agg, const value *key);
    int (*append_event)(store *s, const event_def *ev, const aggregate *agg, const value *key,
                        const value *payload);
    int (*commit)(store *s);
    int (*rollback)(store *s);
    /* Counts for verify, indexed like the plan's aggregates and events. */
    int (*count)(store *s, uint64_t *aggs, uint64_t *events);
    /* Optional (NULL): a hint, inside a transaction or after read_begin,
     * that load(agg, key) follows, so that the store can fetch it together
     * with the other hinted reads in one round trip. Returns 0, or -1 on
     * error. */
    int (*prefetch)(store *s, const aggregate *agg, const value *key);
    /* Optional (NULL), used only with prefetch: a hint that load(agg, K)
     * follows, where K is field from_field of the record (from, from_key)
     * as the transaction sees it now (the caller knows the field does not
     * change before that load), so that the store can fetch the record
     * with the other hinted reads without knowing K. Returns 0, or -1 on
     * error. */
    int (*prefetch_via)(store *s, const aggregate *agg, const aggregate *from,
                        const value *from_key, int from_field);
    /* True when the store checks a created identity itself, with its write
     * (an INSERT that the primary key refuses): the runtime then does not
     * load the record of a dispatched creates command first, and save or
     * commit returns STORE_CONFLICT when the identity exists. */
    bool checks_creates;
    /* Optional (NULL: loads outside a transaction need nothing): a query's
     * reads begin, outside any transaction. What earlier loads outside a
     * transaction handed back may be released; the hints and loads that
     * follow read what is committed, and a store that batches fetches the
     * hinted records with the first load, ending what it opened on the
     * server there (nothing is written, nothing is left open). Returns 0,
     * or -1 on error. */
    int (*read_begin)(store *s);
    /* Optional (NULL: the store cannot scan): a scan query's read, after
     * read_begin, outside any transaction. The committed records of agg
     * whose identity is >= from (ints by value; strings by their bytes, as
     * memcmp, a prefix before what it begins), in identity order, at most
     * limit (>= 1) of them: *out is a VAL_LIST of records (VAL_STRUCTs laid
     * out as agg->state), lent until the next read_begin or begin. A store
     * that talks to a server makes one round trip. Returns 0, or -1 on
     * error. */
    int (*scan)(store *s, const aggregate *agg, const value *from, int64_t limit, value *out);
    /* Optional (NULL: the caller builds the whole new state and saves it):
     * applies n changes, in order, to the record of key that this
     * transaction has just loaded (key is the same value, at the same
     * address, as in that load; the record exists), in place. What the
     * load handed back then holds the new fields: a caller that needs the
     * old state keeps a shallow copy of its fields before the call; what
     * those fields pointed at stays valid until commit or rollback, which
     * undoes the changes. *state is the record's new state, lent as a
     * load's. The work is in the changes, not in the record: an append
     * costs the same on a list of 10 items as on one of 16,000. Returns 0,
     * or -1 on error. */
    int (*update)(store *s, const aggregate *agg, const value *key, const store_change *changes,
                  size_t n, value *state);
    /* The direct path, optional (NULL: the runtime always opens a
     * transaction). For a command that writes only its own record and whose
     * event runs no policy, the runtime checks everything before anything is
     * written, so nothing ever needs undoing: it finds the command's record
     * (and those its reads load) with direct_find, then writes all at once
     * with direct_write, or nothing with direct_release. One of the two ends
     * every sequence of finds, failed ones included, and no other call comes
     * between.
     *
     * direct_find: 1 with the record's state in *state when found, 0 when
     * absent (the ref then says where it would go), -1 on error. Each list
     * field of room gets room for n more items past its length, in its own
     * block (the items before keep their values; the block may move): until
     * the write or the release, the caller may write those n items as its
     * scratch (the state's field shows the list's length, its items the
     * block). What it hands back is lent until the write or the release,
     * and nobody else changes the records found meanwhile (a store with
     * sessions holds their locks). */
    int (*direct_find)(store *s, const aggregate *agg, const value *key, const store_room *room,
                       size_t nroom, store_ref *ref, value *state);
    /* Optional: a hint, before a sequence's first find, that it will end
     * with a direct_find of key in agg after the runtime's checks and its
     * reads' finds (a create's: its absence is checked last, just before
     * the write, and reported first), so the store may start bringing in
     * where that record would lie meanwhile. key is the same value, at the
     * same address, in that find. Nothing else changes. */
    void (*direct_prefetch)(store *s, const aggregate *agg, const value *key);
    /* Writes w (its record's change, then its event) and ends the sequence.
     * What the changes replace is freed after the write, so a change or the
     * payload may point into the record as it was. An append copies its
     * value into the room its find made. Returns 0, or -1 on error (nothing
     * is kept then, but for room made). */
    int (*direct_write)(store *s, const store_write *w);
    /* Ends the sequence writing nothing. */
    void (*direct_release)(store *s);
} store_ops;

struct store {
    const store_ops *ops;
    const struct store_driver *driver; /* set by store_open */
    char error[BENCH_ERROR_MAX];       /* set when a call returns -1 */
    uint64_t *round_trips;             /* where a store that talks to a server adds each round
                                          trip it makes (NULL: nobody counts them) */
};

#endif
