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
 * It also counts the local timer interrupts this CPU took meanwhile
 * (/proc/interrupts, LOC): the kernel's tick, which on a virtual machine
 * can itself cost tens of microseconds. A second line gives the gaps'
 * shape (gap_shape): their rate, their most common length and what they
 * last past 20 us, which bounds an open loop's lag (see there).
 *
 * With RATE and SERVICE_NS it then replays an open loop on the time the
 * loop had: cycles intended every 1/RATE s (a constant rate), each taking
 * SERVICE_NS of the CPU, one after another, the CPU gone in every gap the
 * loop saw (above 1 us). A cycle starts at its intended time, or when the
 * one before it ends, or when the CPU comes back, whichever is last; its
 * lag is that start less its intended time (pgbench -R's). It prints that
 * lag's p50 and p99: what an open loop at that rate and service time lags
 * on this CPU at this time from the machine's gaps alone, whatever runs it.
 *
 * usage: perf_hiccup [SECONDS [RATE SERVICE_NS]]   (default 5) */
#define _GNU_SOURCE
#include <math.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

/* A gap is a stretch the loop did not run: from one clock read to the
 * next, when over GAP_MIN_NS (a read is tens of nanoseconds). */
enum { GAP_MIN_NS = 1000 };

typedef struct away {
    uint64_t from, to;
} away;

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

/* The local timer interrupts CPU cpu has taken (/proc/interrupts' LOC
 * line), or -1 when unknown. */
static long long timer_interrupts(int cpu)
{
    FILE *f = fopen("/proc/interrupts", "r");
    if (!f)
        return -1;
    char line[8192];
    long long n = -1;
    while (fgets(line, sizeof line, f)) {
        char *p = line;
        while (*p == ' ')
            p++;
        if (strncmp(p, "LOC:", 4) != 0)
            continue;
        p += 4;
        for (int c = 0; c <= cpu; c++) {
            char *end;
            long long v = strtoll(p, &end, 10);
            if (end == p)
                break;
            if (c == cpu)
                n = v;
            p = end;
        }
        break;
    }
    fclose(f);
    return n;
}

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The nearest-rank percentile q of the n sorted values. */
static double rank(const uint64_t *v, size_t n, double q)
{
    size_t r = (size_t)ceil(q * (double)n);
    return (double)v[r ? r - 1 : 0];
}

/* The open loop replayed on the gaps g[0..ng) of [start, end): prints its
 * lag's p50 and p99 (see the top of the file). */
static void replay(const away *g, size_t ng, uint64_t start, uint64_t end, double rate,
                   double service_ns)
{
    double period = 1e9 / rate;
    size_t n = (size_t)((double)(end - start) / period);
    uint64_t *lag = malloc((n ? n : 1) * sizeof *lag);
    if (!lag) {
        fprintf(stderr, "perf_hiccup: out of memory\n");
        exit(1);
    }
    size_t gi = 0;
    double finish = (double)start;
    for (size_t k = 0; k < n; k++) {
        double intended = (double)start + (double)k * period;
        double at = intended > finish ? intended : finish;
        while (gi < ng && (double)g[gi].to <= at)
            gi++;
        if (gi < ng && (double)g[gi].from <= at)
            at = (double)g[gi++].to; /* the CPU was away: the cycle starts when it is back */
        lag[k] = (uint64_t)(at - intended);
        finish = at + service_ns;
        for (size_t j = gi; j < ng && (double)g[j].from < finish; j++)
            finish += (double)(g[j].to - g[j].from); /* a gap inside the cycle lengthens it */
    }
    qsort(lag, n, sizeof *lag, by_value);
    printf("an open loop at %.0f cycles/s of %.0f ns each (%.2f of the CPU), replayed on the "
           "time this loop had: lag p50 %.3f us, p99 %.3f us over %zu cycles\n",
           rate, service_ns, rate * service_ns / 1e9, n ? rank(lag, n, 0.5) / 1000.0 : NAN,
           n ? rank(lag, n, 0.99) / 1000.0 : NAN, n);
    free(lag);
}

/* The shape of the gaps g[0..ng) over `seconds`, on a line of its own:
 * how many over 10 us a second; the length most of them have, to the
 * microsecond, and how many a second are within 2 us of it (an
 * interruption that comes at a fixed rate shows as such a peak); and the
 * time the gaps last past 20 us, a second. An open loop at half its
 * capacity starts about 2(G - L)/T of its cycles more than L late after a
 * gap of G (T its period: the backlog drains at half a cycle a period), so
 * the share of its cycles over 20 us late is about twice that time: a lag
 * p99 under 20 us needs it under 5 ms a second, whatever runs the loop. */
static void gap_shape(const away *g, size_t ng, double seconds)
{
    enum { BINS = 1000 }; /* 1 us each; longer gaps in the last */
    static long bins[BINS];
    long over10 = 0;
    double past20 = 0;
    for (size_t i = 0; i < ng; i++) {
        uint64_t us = (g[i].to - g[i].from) / 1000;
        if (us < 10)
            continue;
        over10++;
        bins[us < BINS ? us : BINS - 1]++;
        past20 += us >= 20 ? (double)(g[i].to - g[i].from) - 20000.0 : 0;
    }
    size_t mode = 10;
    for (size_t b = 10; b < BINS - 1; b++)
        mode = bins[b] > bins[mode] ? b : mode;
    long near = 0;
    for (size_t b = mode >= 12 ? mode - 2 : 10; b <= mode + 2; b++)
        near += bins[b];
    printf("its gaps over 10 us: %.0f a second, the most %zu us long (%.0f a second within 2 us of "
           "that); past 20 us the gaps lasted %.2f ms a second (an open loop at half its capacity "
           "starts about twice that share of its cycles over 20 us late: a lag p99 under 20 us "
           "needs under 5 ms)\n",
           (double)over10 / seconds, mode, (double)near / seconds, past20 / 1e6 / seconds);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? strtod(argv[1], NULL) : 5;
    double rate = argc > 3 ? strtod(argv[2], NULL) : 0;
    double service_ns = argc > 3 ? strtod(argv[3], NULL) : 0;
    if (!(seconds > 0 && seconds <= 3600) || argc == 3 || argc > 4 ||
        (argc == 4 && !(rate > 0 && rate <= 1e9 && service_ns >= 0 && service_ns < 1e9))) {
        fprintf(stderr, "usage: perf_hiccup [SECONDS [RATE SERVICE_NS]]   (SECONDS above 0, at "
                        "most 3600; RATE cycles/s above 0; SERVICE_NS at least 0)\n");
        return 2;
    }
    size_t ng = 0, cap = 1 << 16;
    away *gaps = malloc(cap * sizeof *gaps);
    if (!gaps) {
        fprintf(stderr, "perf_hiccup: out of memory\n");
        return 1;
    }
    int cpu = sched_getcpu();
    long long loc0 = timer_interrupts(cpu);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    unsigned long long steal0 = steal_ticks();
    uint64_t start = now_ns(), end = start + (uint64_t)(seconds * 1e9), prev = start;
    uint64_t longest = 0;
    long over20 = 0, over50 = 0, over100 = 0, over1000 = 0;
    while (prev < end) {
        uint64_t t = now_ns(), gap = t - prev;
        if (gap > GAP_MIN_NS) {
            if (ng == cap) {
                away *more = realloc(gaps, 2 * cap * sizeof *gaps);
                if (!more) {
                    fprintf(stderr, "perf_hiccup: out of memory\n");
                    return 1;
                }
                gaps = more;
                cap *= 2;
            }
            gaps[ng++] = (away){prev, t};
        }
        prev = t;
        longest = gap > longest ? gap : longest;
        over20 += gap > 20000;
        over50 += gap > 50000;
        over100 += gap > 100000;
        over1000 += gap > 1000000;
    }
    getrusage(RUSAGE_SELF, &after);
    long long loc1 = timer_interrupts(cpu);
    long tick = sysconf(_SC_CLK_TCK);
    char timers[96] = "";
    if (loc0 >= 0 && loc1 >= loc0 && sched_getcpu() == cpu)
        snprintf(timers, sizeof timers, "; %lld local timer interrupts on CPU %d", loc1 - loc0,
                 cpu);
    printf(
        "a loop that only reads the clock, %.1f s: longest gap %.1f us; %ld gaps over 20 us, %ld "
        "over 50 us, %ld over 100 us, %ld over 1 ms%s; %ld involuntary context switches; the "
        "host took %.2f s of CPU from this machine meanwhile (steal)\n",
        seconds, (double)longest / 1000.0, over20, over50, over100, over1000, timers,
        after.ru_nivcsw - before.ru_nivcsw,
        tick > 0 ? (double)(steal_ticks() - steal0) / (double)tick : 0.0);
    gap_shape(gaps, ng, (double)(prev - start) / 1e9);
    if (argc == 4)
        replay(gaps, ng, start, prev, rate, service_ns);
    free(gaps);
    return 0;
}
