/* arrival.c: the open loop's schedule (arrival.h). */
#include "arrival.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Sleeping ends this far before the intended start; the rest is spun, as
 * the kernel's wake-up is late by tens of µs. */
enum { SPIN_NS = 80000 };

void arrival_init(arrival *a, const arrival_spec *spec, uint64_t seed, int run)
{
    a->process = spec->process;
    a->gap_ns = spec->rate > 0 ? 1e9 / spec->rate : 0;
    a->next = 0;
    /* a stream of its own: the schedule never moves the command stream */
    rng_seed(&a->r, seed ^ UINT64_C(0x9e3779b97f4a7c15), (uint64_t)run);
}

void arrival_init_client(arrival *a, const arrival_spec *spec, uint64_t seed, int run, int client,
                         int clients)
{
    arrival_init(a, spec, seed, run);
    if (clients <= 1)
        return;
    a->gap_ns *= clients; /* rate / clients each: together they offer the rate */
    if (client > 0)
        rng_seed(&a->r, seed ^ UINT64_C(0x9e3779b97f4a7c15),
                 (uint64_t)run | (uint64_t)client << 32);
    if (a->process == ARRIVAL_UNIFORM) /* staggered: evenly spaced all together */
        a->next = a->gap_ns * client / clients;
}

uint64_t arrival_next(arrival *a)
{
    uint64_t at = (uint64_t)a->next;
    double gap = a->gap_ns;
    if (a->process == ARRIVAL_POISSON) /* exponential: -ln(1 - u) times the mean */
        gap = -log1p(-rng_double(&a->r)) * a->gap_ns;
    a->next += gap;
    return at;
}

uint64_t arrival_count_before(arrival *a, uint64_t end)
{
    enum { DRAWS_MAX = 10000000 };
    uint64_t n = 0;
    if (!(a->gap_ns > 0)) /* no rate: nothing is ever due */
        return 0;
    if (a->process != ARRIVAL_POISSON) {
        if (a->next < (double)end) {
            n = (uint64_t)ceil(((double)end - a->next) / a->gap_ns);
            a->next += (double)n * a->gap_ns;
        }
        return n;
    }
    while (a->next < (double)end && n < DRAWS_MAX) {
        arrival_next(a);
        n++;
    }
    if (a->next < (double)end) { /* the mean of the rest */
        uint64_t rest = (uint64_t)(((double)end - a->next) / a->gap_ns);
        n += rest;
        a->next += (double)rest * a->gap_ns;
    }
    return n;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void arrival_wait_until(uint64_t at)
{
    uint64_t now = mono_ns();
    if (now >= at)
        return;
    if (now + SPIN_NS < at) {
        uint64_t wake = at - SPIN_NS;
        struct timespec ts = {.tv_sec = (time_t)(wake / 1000000000u),
                              .tv_nsec = (long)(wake % 1000000000u)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0)
            ; /* a signal: sleep on (the runner checks its flag between cycles) */
    }
    while (mono_ns() < at)
        ;
}

int duration_parse(const char *s, uint64_t *ns)
{
    static const struct {
        const char *unit;
        double ns;
    } units[] = {{"ns", 1},   {"us", 1e3},   {"ms", 1e6}, {"s", 1e9},
                 {"m", 60e9}, {"h", 3600e9}, {"", 1e9}};
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v > 0) || !isfinite(v) || s[0] == '-' || s[0] == '+')
        return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (!strcmp(end, units[i].unit)) {
            double total = v * units[i].ns;
            if (total < 1 || total > 1e18)
                return -1;
            *ns = (uint64_t)total;
            return 0;
        }
    return -1;
}
