/* hiccup.c: how long this machine takes the CPU away from a program that
 * asks nothing of it. It reads CLOCK_MONOTONIC in a tight loop for SECONDS
 * and notes every gap between two reads: with nothing in the way a gap is
 * tens of nanoseconds, so a long one is time the program did not run (an
 * interrupt, another thread, the hypervisor running something else). It
 * prints the longest gap, how many were over 20, 50 and 100 us and over 1
 * ms, the involuntary context switches meanwhile (the guest's scheduler
 * preempted it), and the CPU time the host took from this virtual machine
 * (/proc/stat's steal, all CPUs). The gaps no store can avoid: a latency
 * benchmark's max on this machine is at least this loop's over as long a
 * time. Placement is the caller's (taskset). A benchmark, not a test; the
 * idea is jHiccup's, the code this project's.
 *
 * usage: perf_hiccup [SECONDS]   (default 5) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Every CPU's steal time so far, in clock ticks (0 when unknown). */
static unsigned long long steal_ticks(void)
{
    unsigned long long v[8] = {0};
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return 0;
    int n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                   &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    return n == 8 ? v[7] : 0;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? strtod(argv[1], NULL) : 5;
    if (!(seconds > 0 && seconds <= 3600)) {
        fprintf(stderr, "usage: perf_hiccup [SECONDS]   (SECONDS above 0, at most 3600)\n");
        return 2;
    }
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    unsigned long long steal0 = steal_ticks();
    uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), prev = start;
    uint64_t longest = 0;
    long over20 = 0, over50 = 0, over100 = 0, over1000 = 0;
    while (prev < end) {
        uint64_t t = now_ns(), gap = t - prev;
        prev = t;
        longest = gap > longest ? gap : longest;
        over20 += gap > 20000;
        over50 += gap > 50000;
        over100 += gap > 100000;
        over1000 += gap > 1000000;
    }
    getrusage(RUSAGE_SELF, &after);
    long tick = sysconf(_SC_CLK_TCK);
    printf(
        "a loop that only reads the clock, %.1f s: longest gap %.1f us; %ld gaps over 20 us, %ld "
        "over 50 us, %ld over 100 us, %ld over 1 ms; %ld involuntary context switches; the "
        "host took %.2f s of CPU from this machine meanwhile (steal)\n",
        seconds, (double)longest / 1000.0, over20, over50, over100, over1000,
        after.ru_nivcsw - before.ru_nivcsw,
        tick > 0 ? (double)(steal_ticks() - steal0) / (double)tick : 0.0);
    return 0;
}
