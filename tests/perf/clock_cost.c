/* clock_cost.c: what the timed loop's two clock reads cost on this CPU,
 * with nothing between them. It runs the reads interp/runner.c makes around
 * every command (clock_fast_start, then clock_fast_stop: rdtsc and rdtscp
 * turned into ns where the kernel counts time with the TSC, else two
 * clock_gettime) back to back, BATCHES batches of 1,000,000 pairs, and
 * prints the wall time a pair takes (the median batch and the fastest), and
 * a clock_gettime(CLOCK_MONOTONIC) alone the same way. A command of the null
 * target costs at least the pair: harness_cost.py prints this beside the
 * harness goal, so a host whose clock reads are slow shows as such.
 * Placement is the caller's (taskset). A benchmark, not a test.
 *
 * usage: perf_clock_cost [BATCHES]   (default 9) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "clock.h"

enum { PAIRS = 1000000, BATCHES_MAX = 101 };

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int batches = argc > 1 ? atoi(argv[1]) : 9;
    if (batches < 1 || batches > BATCHES_MAX) {
        fprintf(stderr, "usage: perf_clock_cost [BATCHES 1..%d]\n", BATCHES_MAX);
        return 2;
    }
    clock_fast_init();
    double pair[BATCHES_MAX], mono[BATCHES_MAX];
    volatile uint64_t sink = 0; /* keeps the reads */
    for (int b = 0; b < batches; b++) {
        uint64_t t0 = clock_mono_ns(), acc = 0;
        for (int i = 0; i < PAIRS; i++) {
            uint64_t start = clock_fast_start();
            acc += clock_fast_stop() - start;
        }
        uint64_t t1 = clock_mono_ns();
        for (int i = 0; i < PAIRS; i++)
            acc += clock_mono_ns();
        uint64_t t2 = clock_mono_ns();
        sink += acc;
        pair[b] = (double)(t1 - t0) / PAIRS;
        mono[b] = (double)(t2 - t1) / PAIRS;
    }
    qsort(pair, (size_t)batches, sizeof *pair, by_value);
    qsort(mono, (size_t)batches, sizeof *mono, by_value);
    printf("{\"clock\": \"%s\", \"pair_ns\": %.2f, \"pair_min_ns\": %.2f, "
           "\"clock_gettime_ns\": %.2f, \"clock_gettime_min_ns\": %.2f, \"batches\": %d}\n",
           clock_fast_is_tsc() ? "tsc" : "clock_gettime", pair[batches / 2], pair[0],
           mono[batches / 2], mono[0], batches);
    return 0;
}
