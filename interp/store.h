/* store.h: where the runtime keeps records and events. The memory target
 * implements it in process; sqlite and postgres on their engines. Every
 * call happens inside one dispatch, between begin and commit or rollback.
 * Values handed to a store are lent: a store copies what it keeps. Values a
 * store hands back stay valid until the next commit or rollback. */
#ifndef BENCH_STORE_H
#define BENCH_STORE_H

#include "plan.h"

typedef struct store store;

typedef struct store_ops {
    int (*begin)(store *s);
    /* 1 and the record in *out when found, 0 when absent, -1 on error. */
    int (*load)(store *s, const aggregate *agg, const value *key, value *out);
    /* Writes the record's new state (created: it did not exist before). */
    int (*save)(store *s, const aggregate *agg, const value *key, const value *state,
                bool created);
    int (*append_event)(store *s, const event_def *ev, const aggregate *agg, const value *key,
                        const value *payload);
    int (*commit)(store *s);
    int (*rollback)(store *s);
    /* Counts for verify, indexed like the plan's aggregates and events. */
    int (*count)(store *s, uint64_t *aggs, uint64_t *events);
} store_ops;

struct store {
    const store_ops *ops;
    char error[512]; /* set when a call returns -1 */
};

#endif
