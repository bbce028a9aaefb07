/* clock.h: the clock of the closed loop's timed pass. A read of
 * CLOCK_MONOTONIC through the vDSO is an ordered TSC read plus the
 * kernel's conversion, about 20-45 ns here, twice for every command. Where
 * the kernel itself counts time with the TSC (its clocksource is tsc and the
 * CPU's TSC is invariant: constant rate, never stopped, in step across
 * CPUs), the timed loop reads the TSC directly instead: rdtsc before the
 * dispatch, rdtscp after it (rdtscp waits until every earlier instruction,
 * the dispatch's, has executed), each turned into ns with a rate measured
 * once against CLOCK_MONOTONIC (5 ms, within a few parts per million).
 * Elsewhere, and for the open loop, which waits on CLOCK_MONOTONIC, reads
 * are clock_gettime's. Both give monotonic ns; only differences between two
 * reads of the same clock mean anything. */
#ifndef BENCH_CLOCK_H
#define BENCH_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define CLOCK_HAS_TSC 1
#else
#define CLOCK_HAS_TSC 0
#endif

/* The TSC's conversion, set once by clock_fast_init. */
typedef struct clock_tsc {
    bool on;       /* the fast reads use the TSC */
    uint64_t mult; /* ns per tick in 32.32 fixed point */
    uint64_t tsc0; /* a tick count and the CLOCK_MONOTONIC ns it was read at */
    uint64_t ns0;
} clock_tsc;

extern clock_tsc clock_fast;

/* Decides, once per process (any thread, any number of calls), whether the
 * fast reads use the TSC, and measures its rate. */
void clock_fast_init(void);
/* Whether they do (after clock_fast_init): for the report. */
bool clock_fast_is_tsc(void);
/* For tests: the fast reads use clock_gettime from now on. */
void clock_fast_disable(void);

static inline uint64_t clock_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A tick count as ns of the fast clock. */
static inline uint64_t clock_tsc_ns(const clock_tsc *c, uint64_t tsc)
{
    return c->ns0 + (uint64_t)(((unsigned __int128)(tsc - c->tsc0) * c->mult) >> 32);
}

/* The fast clock before a dispatch (and for the pass's own marks). */
static inline uint64_t clock_fast_start(void)
{
#if CLOCK_HAS_TSC
    if (clock_fast.on)
        return clock_tsc_ns(&clock_fast, __rdtsc());
#endif
    return clock_mono_ns();
}

/* The fast clock after a dispatch: it waits for the dispatch to finish. */
static inline uint64_t clock_fast_stop(void)
{
#if CLOCK_HAS_TSC
    if (clock_fast.on) {
        unsigned cpu;
        return clock_tsc_ns(&clock_fast, __rdtscp(&cpu));
    }
#endif
    return clock_mono_ns();
}

#endif
