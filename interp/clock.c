/* clock.c: deciding on the TSC and measuring its rate (the reads are
 * inline in clock.h). */
#include "clock.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#if CLOCK_HAS_TSC
#include <cpuid.h>
#endif

clock_tsc clock_fast;

static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

enum { CALIBRATE_NS = 5000000, BRACKET_TRIES = 8 };

#if CLOCK_HAS_TSC
/* CPUID 0x80000007, EDX bit 8: the TSC runs at a constant rate in every
 * power state; and 0x80000001, EDX bit 27: the CPU has rdtscp. */
static bool tsc_invariant(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return false;
    __get_cpuid(0x80000001u, &a, &b, &c, &d);
    if (!((d >> 27) & 1u))
        return false;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1u;
}

/* The kernel counts CLOCK_MONOTONIC with the TSC: it found it in step
 * across CPUs and stable (it moves off tsc when it is not). */
static bool kernel_uses_tsc(void)
{
    char name[64] = "";
    FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
    if (!f)
        return false;
    bool got = fgets(name, sizeof name, f) != NULL;
    fclose(f);
    return got && strcmp(name, "tsc\n") == 0;
}

/* A tick count and the CLOCK_MONOTONIC ns it was read at: the middle of
 * the narrowest of a few brackets of two clock_gettime reads. */
static void bracket(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < BRACKET_TRIES; i++) {
        uint64_t a = clock_mono_ns(), t = __rdtsc(), b = clock_mono_ns();
        if (b - a < best) {
            best = b - a;
            *tsc = t;
            *ns = a + (b - a) / 2;
        }
    }
}

static void calibrate(void)
{
    if (!tsc_invariant() || !kernel_uses_tsc())
        return;
    uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0;
    bracket(&t0, &n0);
    /* asleep, not spinning: a process that just spun 5 ms is the one the
       scheduler preempts next, in the short pass that follows */
    struct timespec ts = {.tv_nsec = CALIBRATE_NS};
    while (nanosleep(&ts, &ts) != 0)
        ;
    bracket(&t1, &n1);
    if (t1 <= t0 || n1 <= n0)
        return;
    uint64_t mult = ((n1 - n0) << 32) / (t1 - t0);
    /* between 100 MHz and 100 GHz, or something is wrong */
    if (mult > (UINT64_C(10) << 32) || mult < (UINT64_C(1) << 32) / 100)
        return;
    clock_fast = (clock_tsc){.on = true, .mult = mult, .tsc0 = t1, .ns0 = n1};
}
#else
static void calibrate(void) {}
#endif

void clock_fast_init(void)
{
    pthread_once(&clock_once, calibrate);
}

bool clock_fast_is_tsc(void)
{
    return clock_fast.on;
}

void clock_fast_disable(void)
{
    clock_fast_init();
    clock_fast.on = false;
}
