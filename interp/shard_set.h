/* shard_set.h: whether inputs are every shard of one run, each once (bench
 * merge of the shards' result files, and of their interval logs). */
#ifndef BENCH_SHARD_SET_H
#define BENCH_SHARD_SET_H

#include <stddef.h>
#include <stdint.h>

typedef struct shard_ref {
    int64_t index, count; /* bench run --shard index/count: index from 0 */
    const char *name;     /* the input's path, for the sentence */
} shard_ref;

/* 0 when refs[0..n) (n >= 1) are shards 0..count-1 of one count, each
 * once. Otherwise -1, and one sentence in err[size] naming the inputs: a
 * shard of another count than the first, a shard past the last, a shard
 * given twice, or the shards missing. */
int shard_set_check(const shard_ref *refs, size_t n, char *err, size_t size);

#endif
