/* hlog_merge.h: bench merge --logs, the shards' interval logs (bench run
 * --hlog, hlog.h) merged into one. The k-th interval of a tag in every log
 * is added to the k-th of that tag in the others, as bench merge adds the
 * k-th interval of result files; the merged interval starts at the
 * earliest of theirs (in absolute time) and is as long as the longest. */
#ifndef BENCH_HLOG_MERGE_H
#define BENCH_HLOG_MERGE_H

#include <stddef.h>

/* Reads the interval logs paths[0..n) and writes their merge to output
 * ("-": stdout) atomically. Refuses, with one sentence in err[size] naming
 * the file and line: a file that is not an interval log, a line that is not
 * an interval, a payload that is not base64, zlib or V2, histograms of
 * different significant digits, logs of different tag sets and one file
 * given twice. Returns 0, -1 for a refusal or unreadable input, -2 when the
 * output could not be written. */
int hlog_merge_files(const char *const *paths, size_t n, const char *output, char *err,
                     size_t size);

#endif
