/* test_memory.c: the in-process store on its own: transactions, deep
 * copies, the event log, table growth and removal, with a plan built by hand (the
 * store only needs the aggregate and event indexes). */
/* cmocka.h needs these first */
/* clang-format off */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
/* clang-format on */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_driver.h"
#include "store_memory.h"
#include "value.h"

/* Two aggregates (0: string keys, 1: int keys), two events. */
static aggregate aggs[2] = {{.name = "Order", .index = 0}, {.name = "Ticket", .index = 1}};
static event_def events[2] = {{.name = "Created", .index = 0}, {.name = "Changed", .index = 1}};
static plan the_plan = {.aggs = aggs, .naggs = 2, .events = events, .nevents = 2};

static value str(const char *s)
{
    return (value){.kind = VAL_STRING, .len = (uint32_t)strlen(s), .u.s = s};
}

static value num(int64_t i)
{
    return (value){.kind = VAL_INT, .u.i = i};
}

/* A record {key, n, note} laid out in items[3]. */
static value rec3(value items[3], value key, int64_t n, const char *note)
{
    items[0] = key;
    items[1] = num(n);
    items[2] = str(note);
    return (value){.kind = VAL_STRUCT, .len = 3, .u.items = items};
}

static store *open_store(void)
{
    store *s;
    assert_int_equal(memory_store_new(&the_plan, &s), 0);
    return s;
}

static void counts(store *s, uint64_t a[2], uint64_t e[2])
{
    assert_int_equal(s->ops->count(s, a, e), 0);
}

static void save_one(store *s, const aggregate *agg, value key, int64_t n, const char *note)
{
    value items[3];
    value st = rec3(items, key, n, note);
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->save(s, agg, &key, &st, true), 0);
    assert_int_equal(s->ops->commit(s), 0);
}

static void test_load_of_an_absent_record_finds_nothing(void **state)
{
    store *s = open_store();
    value key = str("a"), out;
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 0);
    assert_int_equal(s->ops->rollback(s), 0);
    memory_store_free(s);
}

static void test_commit_keeps_a_saved_record(void **state)
{
    store *s = open_store();
    save_one(s, &aggs[0], str("a"), 1, "first");
    value key = str("a"), out;
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.len, 3);
    assert_int_equal(out.u.items[1].u.i, 1);
    assert_memory_equal(out.u.items[2].u.s, "first", 5);
    assert_int_equal(s->ops->commit(s), 0);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], 1);
    assert_int_equal(a[1], 0);
    memory_store_free(s);
}

static void test_store_keeps_a_deep_copy(void **state)
{
    store *s = open_store();
    char note[] = "mutable";
    char name[] = "k";
    value items[3];
    value key = {.kind = VAL_STRING, .len = 1, .u.s = name};
    value st = rec3(items, key, 5, note);
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, true), 0);
    assert_int_equal(s->ops->commit(s), 0);
    note[0] = 'X';
    name[0] = 'z';
    items[1].u.i = 99;
    value k = str("k"), out;
    assert_int_equal(s->ops->load(s, &aggs[0], &k, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 5);
    assert_memory_equal(out.u.items[2].u.s, "mutable", 7);
    assert_memory_equal(out.u.items[0].u.s, "k", 1);
    memory_store_free(s);
}

static void test_transaction_sees_its_own_pending_writes(void **state)
{
    store *s = open_store();
    save_one(s, &aggs[0], str("a"), 1, "committed");
    value key = str("a"), out, items[3];
    assert_int_equal(s->ops->begin(s), 0);
    value st = rec3(items, key, 2, "pending");
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, false), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 2);
    value first = out, note = out.u.items[2];
    st = rec3(items, key, 3, "again");
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, false), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 3);
    /* written in place: what the load lent holds the new fields, and what
       the old ones pointed at is still valid until commit */
    assert_int_equal(first.u.items[1].u.i, 3);
    assert_memory_equal(note.u.s, "pending", 7);
    /* the same key in the other aggregate is another record */
    assert_int_equal(s->ops->load(s, &aggs[1], &key, &out), 0);
    assert_int_equal(s->ops->commit(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 3);
    assert_memory_equal(out.u.items[2].u.s, "again", 5);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], 1);
    memory_store_free(s);
}

static void test_rollback_discards_writes_and_events(void **state)
{
    store *s = open_store();
    save_one(s, &aggs[0], str("a"), 1, "kept");
    value key = str("a"), fresh = str("b"), out, items[3];
    assert_int_equal(s->ops->begin(s), 0);
    value st = rec3(items, key, 2, "dropped");
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, false), 0);
    st = rec3(items, fresh, 3, "dropped");
    assert_int_equal(s->ops->save(s, &aggs[0], &fresh, &st, true), 0);
    assert_int_equal(s->ops->append_event(s, &events[0], &aggs[0], &fresh, &st), 0);
    assert_int_equal(s->ops->rollback(s), 0);

    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 1);
    assert_int_equal(s->ops->load(s, &aggs[0], &fresh, &out), 0);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], 1);
    assert_int_equal(e[0], 0);

    /* and the rolled-back create can happen for real */
    save_one(s, &aggs[0], str("b"), 4, "now");
    counts(s, a, e);
    assert_int_equal(a[0], 2);
    memory_store_free(s);
}

static void test_events_are_counted_per_index_on_commit(void **state)
{
    store *s = open_store();
    value key = num(1), items[3];
    value payload = rec3(items, key, 1, "p");
    for (int i = 0; i < 5; i++) {
        assert_int_equal(s->ops->begin(s), 0);
        assert_int_equal(s->ops->append_event(s, &events[i % 2], &aggs[1], &key, &payload), 0);
        assert_int_equal(s->ops->append_event(s, &events[0], &aggs[1], &key, &payload), 0);
        uint64_t a[2], e[2];
        counts(s, a, e); /* nothing shows before commit */
        assert_int_equal(e[0] + e[1], (uint64_t)i * 2);
        assert_int_equal(s->ops->commit(s), 0);
    }
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(e[0], 8);
    assert_int_equal(e[1], 2);
    memory_store_free(s);
}

static void test_rollback_of_events_spanning_chunks(void **state)
{
    enum { BIG = 100 * 1024 };
    store *s = open_store();
    static char text[BIG];
    memset(text, 'x', sizeof text);
    value key = num(1), items[3];
    value payload = rec3(items, key, 1, "");
    items[2] = (value){.kind = VAL_STRING, .len = BIG, .u.s = text};
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->append_event(s, &events[1], &aggs[1], &key, &payload), 0);
    assert_int_equal(s->ops->commit(s), 0);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(s->ops->begin(s), 0);
        for (int i = 0; i < 10; i++) /* well past one chunk */
            assert_int_equal(s->ops->append_event(s, &events[1], &aggs[1], &key, &payload), 0);
        assert_int_equal(round == 2 ? s->ops->commit(s) : s->ops->rollback(s), 0);
    }
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(e[1], 11);
    memory_store_free(s);
}

/* An event larger than a log chunk, with its key the very string of its
 * payload (shared in the log), and one that meets a chunk's end part way
 * through its copy: each goes whole into a chunk of its own (ASan sees
 * any write past one). */
static void test_events_larger_than_a_chunk_and_across_its_end(void **state)
{
    enum { HUGE = 300 * 1024, PART = 40 * 1024 };
    store *s = open_store();
    static char text[HUGE];
    memset(text, 'y', sizeof text);
    value key = {.kind = VAL_STRING, .len = HUGE, .u.s = text}, items[3];
    value payload = rec3(items, key, 1, "note");
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->append_event(s, &events[0], &aggs[0], &key, &payload), 0);
    value part = {.kind = VAL_STRING, .len = PART, .u.s = text}, other = str("k");
    payload = rec3(items, num(2), 2, "");
    items[2] = part;
    for (int i = 0; i < 20; i++) /* 800 KB: across three chunks' ends */
        assert_int_equal(s->ops->append_event(s, &events[1], &aggs[0], &other, &payload), 0);
    assert_int_equal(s->ops->commit(s), 0);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(e[0], 1);
    assert_int_equal(e[1], 20);
    memory_store_free(s);
}

static void test_calls_outside_a_transaction_fail_with_a_message(void **state)
{
    store *s = open_store();
    value key = str("a"), items[3];
    value st = rec3(items, key, 1, "x");
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, true), -1);
    assert_non_null(strstr(s->error, "outside a transaction"));
    assert_int_equal(s->ops->commit(s), -1);
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->begin(s), -1);
    assert_non_null(strstr(s->error, "inside a transaction"));
    assert_int_equal(s->ops->rollback(s), 0);
    memory_store_free(s);
}

static void test_free_releases_an_open_transaction(void **state)
{
    store *s = open_store();
    value key = str("a"), items[3];
    value st = rec3(items, key, 1, "x");
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, true), 0);
    memory_store_free(s); /* leak detection checks the pending block went too */
}

static void test_tables_grow_past_a_hundred_thousand_records(void **state)
{
    enum { N = 100000 };
    store *s = open_store();
    char buf[32];
    for (int i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "order-%d", i);
        save_one(s, &aggs[0], str(buf), i, "s");
        save_one(s, &aggs[1], num((int64_t)i << 20), i, "i");
    }
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], N);
    assert_int_equal(a[1], N);
    for (int i = 0; i < N; i++) {
        value out;
        snprintf(buf, sizeof buf, "order-%d", i);
        value k = str(buf);
        assert_int_equal(s->ops->load(s, &aggs[0], &k, &out), 1);
        assert_int_equal(out.u.items[1].u.i, i);
        k = num((int64_t)i << 20);
        assert_int_equal(s->ops->load(s, &aggs[1], &k, &out), 1);
        assert_int_equal(out.u.items[1].u.i, i);
    }
    value missing = str("order-100000"), out;
    assert_int_equal(s->ops->load(s, &aggs[0], &missing, &out), 0);
    missing = num(1);
    assert_int_equal(s->ops->load(s, &aggs[1], &missing, &out), 0);
    /* replacing keeps the count */
    save_one(s, &aggs[0], str("order-5"), -5, "replaced");
    counts(s, a, e);
    assert_int_equal(a[0], N);
    memory_store_free(s);
}

static void remove_one(store *s, const aggregate *agg, value key)
{
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->remove(s, agg, &key), 0);
    assert_int_equal(s->ops->commit(s), 0);
}

static void test_removal_applies_at_commit_and_rollback_undoes_it(void **state)
{
    store *s = open_store();
    save_one(s, &aggs[0], str("a"), 1, "first");
    value key = str("a"), out;
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->remove(s, &aggs[0], &key), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 0); /* the transaction's view */
    assert_int_equal(s->ops->rollback(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    remove_one(s, &aggs[0], str("a"));
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 0);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], 0);
    /* created again, and saved then removed in one transaction */
    save_one(s, &aggs[0], str("a"), 2, "again");
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 2);
    value items[3];
    value st = rec3(items, key, 3, "gone");
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, false), 0);
    assert_int_equal(s->ops->remove(s, &aggs[0], &key), 0);
    assert_int_equal(s->ops->commit(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 0);
    counts(s, a, e);
    assert_int_equal(a[0], 0);
    memory_store_free(s);
}

/* Tables one record short of growing (47 in 64 slots) have long probe runs
 * that wrap around the end: removing their records one by one in a
 * scrambled order must leave every other one findable. */
static void test_removal_keeps_every_other_record_findable(void **state)
{
    enum { ROUNDS = 200, N = 47 };
    uint64_t x = 88172645463325252ULL; /* xorshift64 */
    for (int round = 0; round < ROUNDS; round++) {
        store *s = open_store();
        int order[N];
        bool gone[N] = {false};
        for (int i = 0; i < N; i++) {
            save_one(s, &aggs[1], num((int64_t)round * 1000 + i), i, "r");
            order[i] = i;
        }
        for (int i = N - 1; i > 0; i--) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int j = (int)(x % (uint64_t)(i + 1)), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        for (int r = 0; r < N; r++) {
            remove_one(s, &aggs[1], num((int64_t)round * 1000 + order[r]));
            gone[order[r]] = true;
            for (int i = 0; i < N; i++) {
                value k = num((int64_t)round * 1000 + i), out;
                assert_int_equal(s->ops->load(s, &aggs[1], &k, &out), !gone[i]);
                if (!gone[i])
                    assert_int_equal(out.u.items[1].u.i, i);
            }
            uint64_t a[2], e[2];
            counts(s, a, e);
            assert_int_equal(a[1], (uint64_t)(N - r - 1));
        }
        memory_store_free(s);
    }
}

static void test_keys_of_equal_bytes_but_other_kinds_differ(void **state)
{
    store *s = open_store();
    save_one(s, &aggs[0], str(""), 1, "empty");
    save_one(s, &aggs[0], str("0"), 2, "zero");
    value k = str(""), out;
    assert_int_equal(s->ops->load(s, &aggs[0], &k, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 1);
    k = num(0);
    assert_int_equal(s->ops->load(s, &aggs[0], &k, &out), 0);
    memory_store_free(s);
}

/* Keys of every length up to 40 that differ in one byte only, each byte in
 * turn: the hash reads a key's last bytes in overlapping words and the
 * comparison two words at a time up to 16 bytes, so a byte left out of
 * either would find one key for another. A load then a save of a key whose
 * bytes were changed at the same address is of the new key. */
static void test_keys_differing_in_any_one_byte_are_told_apart(void **state)
{
    store *s = open_store();
    enum { LONGEST = 40 };
    char keys[LONGEST + 1][LONGEST];
    for (int len = 1; len <= LONGEST; len++)
        for (int pos = 0; pos < len; pos++) {
            char *k = keys[pos];
            memset(k, 'a', (size_t)len);
            k[pos] = 'b';
            value key = {.kind = VAL_STRING, .len = (uint32_t)len, .u.s = k};
            save_one(s, &aggs[0], key, len * 100 + pos, "x");
        }
    for (int len = 1; len <= LONGEST; len++) {
        char k[LONGEST];
        memset(k, 'a', (size_t)len);
        value key = {.kind = VAL_STRING, .len = (uint32_t)len, .u.s = k}, out;
        assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 0); /* never saved */
        for (int pos = 0; pos < len; pos++) {
            k[pos] = 'b';
            assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
            if (out.u.items[1].u.i != len * 100 + pos)
                fail_msg("length %d, b at %d: found the record of %lld", len, pos,
                         (long long)out.u.items[1].u.i);
            assert_int_equal(out.u.items[0].len, len);
            assert_memory_equal(out.u.items[0].u.s, k, (size_t)len);
            k[pos] = 'a';
        }
    }
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], LONGEST * (LONGEST + 1) / 2);
    /* loaded, then the key's bytes changed where they lie, then saved */
    for (int len = 1; len <= LONGEST; len += 7) {
        char k[LONGEST];
        memset(k, 'a', (size_t)len);
        k[len - 1] = 'b';
        value key = {.kind = VAL_STRING, .len = (uint32_t)len, .u.s = k}, out, items[3];
        assert_int_equal(s->ops->begin(s), 0);
        assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
        k[len - 1] = 'c';
        value st = rec3(items, key, -len, "new");
        assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, true), 0);
        assert_int_equal(s->ops->commit(s), 0);
        assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
        assert_int_equal(out.u.items[1].u.i, -len);
        k[len - 1] = 'b';
        assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
        assert_int_equal(out.u.items[1].u.i, len * 100 + len - 1);
    }
    memory_store_free(s);
}

/* A string over the pool's largest class is malloc'd apart: the store's
 * end frees it (LeakSanitizer says so when not) while its records' pool
 * blocks go whole with their chunks, also when one session wrote the
 * large value and another replaced it, or a closed session left it. */
static void test_large_values_are_freed_with_the_store(void **state)
{
    enum { BIG = 10000 };
    static char big[BIG + 1];
    memset(big, 'x', BIG);
    /* kept to the end */
    store *s = open_store();
    save_one(s, &aggs[0], str("kept"), 1, big);
    save_one(s, &aggs[0], str("small"), 2, "note");
    memory_store_free(s);
    /* written large, then replaced by a small one: nothing large is left */
    s = open_store();
    save_one(s, &aggs[0], str("k"), 1, big);
    save_one(s, &aggs[0], str("k"), 2, "small now");
    value k = str("k"), out;
    assert_int_equal(s->ops->load(s, &aggs[0], &k, &out), 1);
    assert_int_equal(out.u.items[2].len, 9);
    memory_store_free(s);
    /* one session writes it, another replaces it, a third writes another */
    const store_driver *d = store_find("memory");
    s = open_store();
    store *a = NULL, *b = NULL, *c = NULL;
    char err[256];
    assert_int_equal(d->session(s, &a, err, sizeof err), 0);
    assert_int_equal(d->session(s, &b, err, sizeof err), 0);
    assert_int_equal(d->session(s, &c, err, sizeof err), 0);
    save_one(a, &aggs[0], str("k"), 1, big);
    save_one(b, &aggs[0], str("k"), 2, "small");
    save_one(c, &aggs[0], str("j"), 3, big);
    d->session_close(a);
    d->session_close(b);
    d->session_close(c);
    memory_store_free(s);
}

/* A record {key, list} for update: field 1 a list of ints. */
static value list_state(value items[2], value key)
{
    items[0] = key;
    items[1] = (value){.kind = VAL_LIST};
    return (value){.kind = VAL_STRUCT, .len = 2, .u.items = items};
}

static void test_update_appends_and_sets_in_place_and_rollback_undoes_them(void **state)
{
    store *s = open_store();
    value key = str("l"), items[2], out;
    value st = list_state(items, key);
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, true), 0);
    assert_int_equal(s->ops->commit(s), 0);
    /* 40 appends in one transaction, then rolled back: the list moves to
       larger blocks on the way (1, 2, 4, ... items), and comes back empty */
    for (int round = 0; round < 2; round++) {
        assert_int_equal(s->ops->begin(s), 0);
        assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
        value before = out.u.items[1];
        for (int i = 0; i < 40; i++) {
            store_change ch = {.field = 1, .append = true, .v = num(i)};
            assert_int_equal(s->ops->update(s, &aggs[0], &key, &ch, 1, &out), 0);
            assert_int_equal(out.u.items[1].len, (uint32_t)i + 1);
        }
        for (int i = 0; i < 40; i++)
            assert_int_equal(out.u.items[1].u.items[i].u.i, i);
        assert_int_equal(before.len, 0); /* a shallow copy taken before: the old list */
        assert_int_equal(round ? s->ops->commit(s) : s->ops->rollback(s), 0);
        assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
        assert_int_equal(out.u.items[1].len, round ? 40 : 0);
    }
    /* a set and an append in one update, then a rollback: the old list is
       back, at its old length, with its items */
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    value old_list = out.u.items[1];
    store_change two[2] = {{.field = 0, .v = str("renamed-but-not-the-key")},
                           {.field = 1, .append = true, .v = num(99)}};
    assert_int_equal(s->ops->update(s, &aggs[0], &key, two, 2, &out), 0);
    assert_int_equal(out.u.items[1].len, 41);
    assert_memory_equal(out.u.items[0].u.s, "renamed-but-not-the-key", 23);
    assert_int_equal(old_list.len, 40);
    assert_int_equal(old_list.u.items[39].u.i, 39); /* valid until commit or rollback */
    assert_int_equal(s->ops->rollback(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].len, 40);
    assert_memory_equal(out.u.items[0].u.s, "l", 1);
    /* a list set whole, then appended to and committed */
    value three[3] = {num(7), num(8), num(9)};
    store_change set = {.field = 1, .v = {.kind = VAL_LIST, .len = 3, .u.items = three}};
    store_change more = {.field = 1, .append = true, .v = num(10)};
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(s->ops->update(s, &aggs[0], &key, &set, 1, &out), 0);
    assert_int_equal(s->ops->update(s, &aggs[0], &key, &more, 1, &out), 0);
    assert_int_equal(s->ops->update(s, &aggs[0], &key, &more, 1, &out), 0);
    assert_int_equal(s->ops->commit(s), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].len, 5);
    assert_int_equal(out.u.items[1].u.items[2].u.i, 9);
    assert_int_equal(out.u.items[1].u.items[4].u.i, 10);
    /* an update of a record that is not there is an error, not a crash */
    value none = str("absent");
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->update(s, &aggs[0], &none, &more, 1, &out), -1);
    assert_non_null(strstr(s->error, "does not exist"));
    assert_int_equal(s->ops->rollback(s), 0);
    memory_store_free(s);
}

/* The direct path (store.h): a find makes room past a list's length that
 * the caller may write as scratch; a release keeps nothing of it; a write
 * creates, changes (a set may point into what it replaces, and the room
 * holds the appended item) or removes, with its event, at once. */
static void test_direct_path_writes_once_or_nothing(void **state)
{
    store *s = open_store();
    value key = str("d"), items[2], out;
    value st = list_state(items, key);
    store_ref ref;
    store_write w = {.agg = &aggs[0], .key = &key, .ref = &ref, .event = &events[0]};
    /* absent: a create where the find looked, with its event */
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 0);
    w.kind = STORE_WRITE_CREATE;
    w.state = &st;
    w.payload = &st;
    assert_int_equal(s->ops->direct_write(s, &w), 0);
    /* 40 appends, each through the room its find made (the list moves to
       larger blocks on the way); the item written there as scratch first */
    store_room room = {.field = 1, .n = 1};
    for (int i = 0; i < 40; i++) {
        assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, &room, 1, &ref, &out), 1);
        assert_int_equal(out.u.items[1].len, (uint32_t)i);
        out.u.items[1].u.items[i] = num(-1);
        store_change ch = {.field = 1, .append = true, .v = num(i)};
        w = (store_write){.kind = STORE_WRITE_UPDATE,
                          .agg = &aggs[0],
                          .key = &key,
                          .ref = &ref,
                          .changes = &ch,
                          .nchanges = 1,
                          .event = &events[1],
                          .payload = &ch.v};
        assert_int_equal(s->ops->direct_write(s, &w), 0);
    }
    /* a release after scratch in the room keeps the list as it was */
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, &room, 1, &ref, &out), 1);
    out.u.items[1].u.items[40] = str("scratch");
    s->ops->direct_release(s);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].len, 40);
    for (int i = 0; i < 40; i++)
        assert_int_equal(out.u.items[1].u.items[i].u.i, i);
    /* a set whose new value is the old one's tail: copied before it goes */
    store_change rename = {.field = 0, .v = str("a longer name than the key")};
    w = (store_write){.kind = STORE_WRITE_UPDATE,
                      .agg = &aggs[0],
                      .key = &key,
                      .ref = &ref,
                      .changes = &rename,
                      .nchanges = 1};
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 1);
    assert_int_equal(s->ops->direct_write(s, &w), 0);
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 1);
    value tail = out.u.items[0];
    tail.u.s += 9;
    tail.len -= 9;
    rename.v = tail;
    assert_int_equal(s->ops->direct_write(s, &w), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[0].len, 17);
    assert_memory_equal(out.u.items[0].u.s, "name than the key", 17);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], 1);
    assert_int_equal(e[0], 1);
    assert_int_equal(e[1], 40);
    /* a removal, with its event: the identity may come again */
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 1);
    w = (store_write){.kind = STORE_WRITE_REMOVE,
                      .agg = &aggs[0],
                      .key = &key,
                      .ref = &ref,
                      .event = &events[1],
                      .payload = &out};
    assert_int_equal(s->ops->direct_write(s, &w), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 0);
    counts(s, a, e);
    assert_int_equal(a[0], 0);
    assert_int_equal(e[1], 41);
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 0);
    s->ops->direct_release(s);
    memory_store_free(s);
}

/* direct_prefetch's hint is for the find of that key (at that address)
 * in the same sequence: a find of another key in between goes by its own,
 * and once the sequence ends the hint is gone, so the same address holding
 * another key later is hashed afresh. */
static void test_a_prefetch_hint_lasts_one_sequence(void **state)
{
    store *s = open_store();
    save_one(s, &aggs[0], str("first"), 1, "one");
    save_one(s, &aggs[0], str("second"), 2, "two");
    value key = str("first"), other = str("second"), out;
    store_ref ref;
    s->ops->direct_prefetch(s, &aggs[0], &key);
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &other, NULL, 0, &ref, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 2);
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 1);
    s->ops->direct_release(s);
    /* hinted, then released unfound: the same address, another key */
    s->ops->direct_prefetch(s, &aggs[0], &key);
    s->ops->direct_release(s);
    key = str("second");
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 2);
    s->ops->direct_release(s);
    /* a create found last, after its hint: absent, then written */
    key = str("third");
    s->ops->direct_prefetch(s, &aggs[0], &key);
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 0);
    value items[3];
    value st = rec3(items, key, 3, "three");
    store_write w = {
        .kind = STORE_WRITE_CREATE, .agg = &aggs[0], .key = &key, .ref = &ref, .state = &st};
    assert_int_equal(s->ops->direct_write(s, &w), 0);
    assert_int_equal(s->ops->load(s, &aggs[0], &key, &out), 1);
    assert_int_equal(out.u.items[1].u.i, 3);
    memory_store_free(s);
}

/* The payload of a Paid event: {name, amount: {cents, currency}, note}. */
static field money_f[2] = {{.name = "cents", .type = &ty_int},
                           {.name = "currency", .type = &ty_string}};
static const ty money = {.kind = TY_STRUCT, .fields = money_f, .nfields = 2};
static field paid_f[3] = {{.name = "name", .type = &ty_string},
                          {.name = "amount", .type = &money},
                          {.name = "note", .type = &ty_string}};
static const ty paid = {.kind = TY_STRUCT, .fields = paid_f, .nfields = 3};

/* What the log read back holds of each Paid event (test_log_keeps...). */
typedef struct paid_seen {
    size_t n;
    const value *handed; /* the payload the writes were given */
    bool bad;
} paid_seen;

/* Even writes said fields 1 and 2 last (store_write.lasting), odd ones
 * nothing: the log keeps those as handed, and copies everything else. */
static int paid_agrees(void *ctx, size_t event, size_t agg, const value *key, const value *payload)
{
    paid_seen *ps = ctx;
    const value *h = ps->handed->u.items, *got = payload->u.items;
    bool lasting = ps->n++ % 2 == 0;
    bool same = event == 0 && agg == 0 && payload->len == 3 && value_equal(payload, ps->handed) &&
                key->u.s == got[0].u.s && got[0].u.s != h[0].u.s;
    bool kept = got[1].u.items == h[1].u.items && got[2].u.s == h[2].u.s;
    bool copied = got[1].u.items != h[1].u.items && got[1].u.items[1].u.s != h[1].u.items[1].u.s &&
                  got[2].u.s != h[2].u.s;
    ps->bad = ps->bad || !same || (lasting ? !kept : !copied);
    return 0;
}

/* A payload's fields the caller says outlive the store (a step's constant
 * arguments) are kept in the log as they are handed: a struct's items and
 * a string's bytes by their pointers, the room for the struct not taken;
 * every other field is copied. Six thousand events cross the ends of the
 * log's chunks, so both ways of writing one (into the current chunk, and
 * into a new one made for it) are held to this. */
static void test_log_keeps_lasting_fields_as_handed(void **state)
{
    event_def evs[1] = {{.name = "Paid", .payload = &paid, .index = 0}};
    plan p = {.aggs = aggs, .naggs = 2, .events = evs, .nevents = 1};
    store *s;
    assert_int_equal(memory_store_new(&p, &s), 0);
    value key = str("account-1"), items[3], out, money_items[2] = {num(250), str("EUR")};
    value st = rec3(items, key, 0, "");
    value pay_items[3] = {
        key, {.kind = VAL_STRUCT, .len = 2, .u.items = money_items}, str("a note of some length")};
    value payload = {.kind = VAL_STRUCT, .len = 3, .u.items = pay_items};
    store_ref ref;
    assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 0);
    store_write w = {.kind = STORE_WRITE_CREATE,
                     .agg = &aggs[0],
                     .key = &key,
                     .ref = &ref,
                     .state = &st,
                     .event = &evs[0],
                     .payload = &payload,
                     .key_field = 0,
                     .lasting = 1u << 1 | 1u << 2};
    assert_int_equal(s->ops->direct_write(s, &w), 0);
    for (int i = 1; i < 6000; i++) {
        assert_int_equal(s->ops->direct_find(s, &aggs[0], &key, NULL, 0, &ref, &out), 1);
        w = (store_write){.kind = STORE_WRITE_UPDATE,
                          .agg = &aggs[0],
                          .key = &key,
                          .ref = &ref,
                          .event = &evs[0],
                          .payload = &payload,
                          .key_field = 0,
                          .lasting = i % 2 == 0 ? 1u << 1 | 1u << 2 : 0};
        assert_int_equal(s->ops->direct_write(s, &w), 0);
    }
    paid_seen ps = {.handed = &payload};
    assert_int_equal(memory_store_events(s, paid_agrees, &ps), 0);
    assert_int_equal(ps.n, 6000);
    assert_false(ps.bad);
    memory_store_free(s);
}

/* What test_every_log_entry_reads_back_as_written wrote, in order. */
typedef struct entry_want {
    size_t event, agg;
    value key, payload;
} entry_want;

typedef struct entries_seen {
    const entry_want *want;
    size_t n;
    bool bad;
} entries_seen;

static int entry_agrees(void *ctx, size_t event, size_t agg, const value *key, const value *payload)
{
    entries_seen *es = ctx;
    const entry_want *w = &es->want[es->n++];
    bool copied = key->kind != VAL_STRING || key->u.s != w->key.u.s;
    es->bad = es->bad || event != w->event || agg != w->agg || !value_equal(key, &w->key) ||
              !value_equal(payload, &w->payload) || !copied;
    return 0;
}

/* The direct path's write of agg's record key with event ev: a create of
 * state, or (state NULL) an update that changes nothing but the log; the
 * log's entry has the key log_key and the payload's field key_field is the
 * key (-1: none). */
static void direct_event(store *s, const aggregate *agg, const value *key, const value *state,
                         const value *log_key, const event_def *ev, const value *payload,
                         int key_field)
{
    store_ref ref;
    value out;
    assert_int_equal(s->ops->direct_find(s, agg, key, NULL, 0, &ref, &out), state ? 0 : 1);
    store_write w = {.kind = state ? STORE_WRITE_CREATE : STORE_WRITE_UPDATE,
                     .agg = agg,
                     .key = log_key,
                     .ref = &ref,
                     .state = state,
                     .event = ev,
                     .payload = payload,
                     .key_field = key_field};
    assert_int_equal(s->ops->direct_write(s, &w), 0);
}

/* The log keeps each event in one of three forms (log_entry): a tree
 * entry whose key is one of its payload's fields, a tree entry with its
 * key apart (a string or an int), and a full entry (a payload of no tree
 * plan, or one written by a transaction). Each reads back as it was
 * written, in order, the key copied, across the ends of the log's chunks. */
static void test_every_log_entry_reads_back_as_written(void **state)
{
    enum { ROUNDS = 1500, PER = 4 };
    event_def evs[2] = {{.name = "Paid", .payload = &paid, .index = 0},
                        {.name = "Noted", .index = 1}};
    plan p = {.aggs = aggs, .naggs = 2, .events = evs, .nevents = 2};
    store *s;
    assert_int_equal(memory_store_new(&p, &s), 0);
    entry_want *want = calloc(ROUNDS * PER, sizeof *want);
    char(*names)[24] = calloc(ROUNDS, sizeof *names);
    value(*items)[3] = calloc(ROUNDS * PER, sizeof *items);
    value(*money_items)[2] = calloc(ROUNDS, sizeof *money_items);
    assert_non_null(want);
    assert_non_null(names);
    assert_non_null(items);
    assert_non_null(money_items);
    size_t n = 0;
    for (int i = 0; i < ROUNDS; i++) {
        snprintf(names[i], sizeof names[i], "order-%d", i);
        value key = str(names[i]), ikey = num(1000000 + i), st_items[3];
        money_items[i][0] = num(i);
        money_items[i][1] = str("EUR");
        value *pi = items[n / PER * PER];
        pi[0] = key;
        pi[1] = (value){.kind = VAL_STRUCT, .len = 2, .u.items = money_items[i]};
        pi[2] = str(i % 3 ? "a note" : "");
        value payload = {.kind = VAL_STRUCT, .len = 3, .u.items = pi};
        value st = rec3(st_items, key, i, "kept");
        /* a tree entry, its key the payload's field 0 */
        direct_event(s, &aggs[0], &key, &st, &key, &evs[0], &payload, 0);
        want[n++] = (entry_want){0, 0, key, payload};
        /* a tree entry, its key (a string) apart */
        value other = str(i % 2 ? "another key" : "k");
        direct_event(s, &aggs[0], &key, NULL, &other, &evs[0], &payload, -1);
        want[n++] = (entry_want){0, 0, other, payload};
        /* a tree entry, its key an int, of the other aggregate */
        value ist_items[3];
        value ist = rec3(ist_items, ikey, i, "");
        direct_event(s, &aggs[1], &ikey, &ist, &ikey, &evs[0], &payload, -1);
        want[n++] = (entry_want){0, 1, ikey, payload};
        /* a full entry: an event of no payload type, by a transaction */
        value *ni = items[n];
        value noted = rec3(ni, key, -i, i % 2 ? "noted at some length, past a few words" : "n");
        assert_int_equal(s->ops->begin(s), 0);
        assert_int_equal(s->ops->append_event(s, &evs[1], &aggs[0], &key, &noted), 0);
        assert_int_equal(s->ops->commit(s), 0);
        want[n++] = (entry_want){1, 0, key, noted};
    }
    entries_seen es = {.want = want};
    assert_int_equal(memory_store_events(s, entry_agrees, &es), 0);
    assert_int_equal(es.n, ROUNDS * PER);
    assert_false(es.bad);
    memory_store_free(s);
    free(want);
    free(names);
    free(items);
    free(money_items);
}

/* A freed block goes back to the class its size is taken from: records
 * with notes of every length from 1 to past the fine classes' end (512
 * bytes), removed and made again, take no new memory once each length has
 * been made once. */
static void test_freed_blocks_are_taken_again_at_their_size(void **state)
{
    enum { LONGEST = 700, ROUNDS = 12 };
    store *s = open_store();
    char note[LONGEST];
    memset(note, 'n', sizeof note);
    memory_room first = {0}, room;
    for (int round = 0; round < ROUNDS; round++) {
        for (uint32_t len = 1; len <= LONGEST; len++) {
            value key = num(len), items[3];
            value st = rec3(items, key, round, "");
            items[2] = (value){.kind = VAL_STRING, .len = len, .u.s = note};
            assert_int_equal(s->ops->begin(s), 0);
            assert_int_equal(s->ops->save(s, &aggs[1], &key, &st, true), 0);
            assert_int_equal(s->ops->commit(s), 0);
            remove_one(s, &aggs[1], key);
        }
        memory_store_room(s, 1, &room);
        if (round == 0)
            first = room;
        assert_int_equal(room.pool_malloced, first.pool_malloced);
    }
    assert_true(first.pool_malloced > 0);
    memory_store_free(s);
}

/* While a table grows (its old slots moved a few per insert) every record
 * stays findable, removals from either table hold, and a rollback of a
 * removal or a create leaves it as it was. */
static void test_records_stay_findable_while_a_table_grows(void **state)
{
    enum { N = 3000 };
    store *s = open_store();
    bool there[N] = {false};
    for (int i = 0; i < N; i++) {
        save_one(s, &aggs[1], num(i), i, "g");
        there[i] = true;
        if (i % 3 == 2) { /* remove an older one, committed or rolled back */
            value k = num(i / 2);
            assert_int_equal(s->ops->begin(s), 0);
            if (there[i / 2])
                assert_int_equal(s->ops->remove(s, &aggs[1], &k), 0);
            value fresh = num(N + i), items[3];
            value st = rec3(items, fresh, -1, "dropped");
            assert_int_equal(s->ops->save(s, &aggs[1], &fresh, &st, true), 0);
            if (i % 2) {
                assert_int_equal(s->ops->rollback(s), 0);
            } else {
                assert_int_equal(s->ops->commit(s), 0);
                there[i / 2] = false;
                remove_one(s, &aggs[1], fresh);
            }
        }
        if (i % 97 == 0 || i == N - 1)
            for (int j = 0; j < N; j++) {
                value k = num(j), out;
                assert_int_equal(s->ops->load(s, &aggs[1], &k, &out), j <= i && there[j]);
                if (j <= i && there[j])
                    assert_int_equal(out.u.items[1].u.i, j);
            }
    }
    uint64_t a[2], e[2];
    counts(s, a, e);
    uint64_t want = 0;
    for (int i = 0; i < N; i++)
        want += there[i];
    assert_int_equal(a[1], want);
    memory_store_free(s);
}

/* One cycle of the reserve tests: a record of aggs[0] and an event. */
static void cycle(store *s, int i)
{
    char buf[32];
    snprintf(buf, sizeof buf, "order-%d", i);
    value key = str(buf), items[3];
    value st = rec3(items, key, i, "a note of some length");
    assert_int_equal(s->ops->begin(s), 0);
    assert_int_equal(s->ops->save(s, &aggs[0], &key, &st, true), 0);
    assert_int_equal(s->ops->append_event(s, &events[0], &aggs[0], &key, &st), 0);
    assert_int_equal(s->ops->commit(s), 0);
}

static void cycles(store *s, int from, int to)
{
    for (int i = from; i < to; i++)
        cycle(s, i);
}

static void assert_cycles_kept(store *s, int n)
{
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(a[0], n);
    assert_int_equal(e[0], n);
    char buf[32];
    for (int i = 0; i < n; i++) {
        snprintf(buf, sizeof buf, "order-%d", i);
        value k = str(buf), out;
        assert_int_equal(s->ops->load(s, &aggs[0], &k, &out), 1);
        assert_int_equal(out.u.items[1].u.i, i);
    }
}

/* After the reserve, the cycles it was told of take nothing from malloc and
 * grow no table: their pool blocks, log chunks and slots were made ready
 * (mapped, their pages in) from what the cycles before took; and the
 * records moved into the larger table are all still found. */
static void test_reserve_readies_room_for_the_cycles_to_come(void **state)
{
    enum { DONE = 1000, TO_COME = 30000 };
    const store_driver *d = store_find("memory");
    store *s = open_store();
    cycles(s, 0, DONE);
    memory_room before, ready, after;
    memory_store_room(s, 0, &before);
    assert_int_equal(d->reserve(s, DONE, TO_COME), 0);
    memory_store_room(s, 0, &ready);
    assert_true(ready.pool_spare > 0);
    assert_true(ready.log_spare > 0);
    assert_true(ready.slots * 5 > (DONE + TO_COME) * 8); /* below 5/8 load at the end */
    assert_false(ready.growing);
    assert_cycles_kept(s, DONE);
    cycles(s, DONE, DONE + TO_COME);
    memory_store_room(s, 0, &after);
    assert_int_equal(after.pool_malloced, before.pool_malloced);
    assert_int_equal(after.log_malloced, before.log_malloced);
    assert_int_equal(after.slots, ready.slots);
    assert_false(after.growing);
    assert_true(after.pool_spare < ready.pool_spare);
    assert_true(after.log_spare < ready.log_spare);
    assert_cycles_kept(s, DONE + TO_COME);
    /* more cycles than it was told of: malloc and growth take over */
    cycles(s, DONE + TO_COME, 3 * (DONE + TO_COME));
    assert_cycles_kept(s, 3 * (DONE + TO_COME));
    memory_store_free(s);
}

/* Nothing done yet, or nothing to come: nothing to measure by, so no room
 * is mapped (but the tables still take the plan's count per cycle: none
 * here). */
static void test_reserve_without_a_measure_maps_nothing(void **state)
{
    const store_driver *d = store_find("memory");
    store *s = open_store();
    memory_room room;
    assert_int_equal(d->reserve(s, 0, 1000), 0);
    memory_store_room(s, 0, &room);
    assert_int_equal(room.pool_spare, 0);
    assert_int_equal(room.log_spare, 0);
    cycles(s, 0, 100);
    assert_int_equal(d->reserve(s, 100, 0), 0);
    memory_store_room(s, 0, &room);
    assert_int_equal(room.pool_spare, 0);
    assert_int_equal(room.log_spare, 0);
    assert_cycles_kept(s, 100);
    memory_store_free(s);
}

/* A rollback that drops log chunks carved from the reserve gives their
 * room back (the log's last chunks are the reserve's last carved), and a
 * chunk of the reserve is never passed to free (ASan would see it). */
static void test_rollback_gives_reserved_log_chunks_back(void **state)
{
    enum { BIG = 100 * 1024 };
    const store_driver *d = store_find("memory");
    store *s = open_store();
    static char text[BIG];
    memset(text, 'z', sizeof text);
    value key = num(7), items[3];
    value payload = rec3(items, key, 1, "");
    items[2] = (value){.kind = VAL_STRING, .len = BIG, .u.s = text};
    for (int i = 0; i < 10; i++) { /* ten cycles of 100 KB events: about four chunks */
        assert_int_equal(s->ops->begin(s), 0);
        assert_int_equal(s->ops->append_event(s, &events[1], &aggs[1], &key, &payload), 0);
        assert_int_equal(s->ops->commit(s), 0);
    }
    assert_int_equal(d->reserve(s, 10, 100), 0);
    memory_room ready, after;
    memory_store_room(s, 1, &ready);
    assert_true(ready.log_spare > 5 * 256 * 1024);
    for (int round = 0; round < 3; round++) {
        assert_int_equal(s->ops->begin(s), 0);
        for (int i = 0; i < 10; i++) /* past the current chunk, into the reserve */
            assert_int_equal(s->ops->append_event(s, &events[1], &aggs[1], &key, &payload), 0);
        assert_int_equal(round == 2 ? s->ops->commit(s) : s->ops->rollback(s), 0);
        memory_store_room(s, 1, &after);
        assert_int_equal(after.log_malloced, ready.log_malloced);
        if (round < 2)
            assert_int_equal(after.log_spare, ready.log_spare);
    }
    assert_true(after.log_spare < ready.log_spare);
    uint64_t a[2], e[2];
    counts(s, a, e);
    assert_int_equal(e[1], 20);
    memory_store_free(s);
}

/* Each session reserves from its own cycles; the tables are sized for what
 * all of them will leave; a closed session's reserved room stays mapped
 * while the store holds the records in it (ASan: no use after unmap, no
 * leak). */
static void test_sessions_reserve_their_own_room(void **state)
{
    enum { DONE = 500, TO_COME = 5000 };
    const store_driver *d = store_find("memory");
    store *s = open_store(), *a = NULL, *b = NULL;
    char err[256];
    assert_int_equal(d->session(s, &a, err, sizeof err), 0);
    assert_int_equal(d->session(s, &b, err, sizeof err), 0);
    for (int i = 0; i < DONE; i++)
        cycle(i % 2 ? b : a, i);
    assert_int_equal(d->reserve(a, DONE / 2, TO_COME / 2), 0);
    assert_int_equal(d->reserve(b, DONE / 2, TO_COME / 2), 0);
    memory_room ra, rb;
    memory_store_room(a, 0, &ra);
    memory_store_room(b, 0, &rb);
    assert_true(ra.pool_spare > 0 && rb.pool_spare > 0);
    assert_true(ra.slots * 5 > (DONE + TO_COME) * 8);
    for (int i = DONE; i < DONE + TO_COME; i++)
        cycle(i % 2 ? b : a, i);
    memory_room after;
    memory_store_room(a, 0, &after);
    assert_int_equal(after.pool_malloced, ra.pool_malloced);
    assert_int_equal(after.slots, ra.slots);
    d->session_close(a);
    d->session_close(b);
    assert_cycles_kept(s, DONE + TO_COME);
    memory_store_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_of_an_absent_record_finds_nothing),
        cmocka_unit_test(test_commit_keeps_a_saved_record),
        cmocka_unit_test(test_store_keeps_a_deep_copy),
        cmocka_unit_test(test_transaction_sees_its_own_pending_writes),
        cmocka_unit_test(test_rollback_discards_writes_and_events),
        cmocka_unit_test(test_events_are_counted_per_index_on_commit),
        cmocka_unit_test(test_rollback_of_events_spanning_chunks),
        cmocka_unit_test(test_events_larger_than_a_chunk_and_across_its_end),
        cmocka_unit_test(test_calls_outside_a_transaction_fail_with_a_message),
        cmocka_unit_test(test_free_releases_an_open_transaction),
        cmocka_unit_test(test_tables_grow_past_a_hundred_thousand_records),
        cmocka_unit_test(test_keys_of_equal_bytes_but_other_kinds_differ),
        cmocka_unit_test(test_removal_applies_at_commit_and_rollback_undoes_it),
        cmocka_unit_test(test_removal_keeps_every_other_record_findable),
        cmocka_unit_test(test_update_appends_and_sets_in_place_and_rollback_undoes_them),
        cmocka_unit_test(test_direct_path_writes_once_or_nothing),
        cmocka_unit_test(test_log_keeps_lasting_fields_as_handed),
        cmocka_unit_test(test_every_log_entry_reads_back_as_written),
        cmocka_unit_test(test_freed_blocks_are_taken_again_at_their_size),
        cmocka_unit_test(test_a_prefetch_hint_lasts_one_sequence),
        cmocka_unit_test(test_records_stay_findable_while_a_table_grows),
        cmocka_unit_test(test_reserve_readies_room_for_the_cycles_to_come),
        cmocka_unit_test(test_reserve_without_a_measure_maps_nothing),
        cmocka_unit_test(test_rollback_gives_reserved_log_chunks_back),
        cmocka_unit_test(test_sessions_reserve_their_own_room),
        cmocka_unit_test(test_keys_differing_in_any_one_byte_are_told_apart),
        cmocka_unit_test(test_large_values_are_freed_with_the_store),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
