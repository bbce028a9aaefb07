/* merge.h: the result files of the shards of one run (bench run --shard
 * i/N) merged into one result (DESIGN section 12). Histograms are added
 * bucket by bucket and every figure is computed again from them, as the
 * runner computes it from its own: the merge of N shards reports what one
 * run over the union of their commands reports. */
#ifndef BENCH_MERGE_H
#define BENCH_MERGE_H

#include <stddef.h>

#include "results.h"

/* Merges in[0..n) (lent, loaded by results_load; names[i] is what messages
 * call in[i]) into *out, the caller's to merge_free. Refuses, with one
 * sentence in err[size] naming the files, inputs that are not shards,
 * shards of different specs (SHA-256), seeds, layouts (settings, targets,
 * result rows, runs, verbs) or bench versions, a shard given twice, and
 * shards missing. Returns 0, or -1 with *out NULL. *out lends strings of
 * in, which must outlive it. */
int merge_results(const report *const *in, const char *const *names, size_t n, report **out,
                  char *err, size_t size);
void merge_free(report *r);

#endif
