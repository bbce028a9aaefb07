/* arrival.h: the open loop's schedule (DESIGN section 10): each cycle's
 * intended start, computed from the beginning of the timed pass and never
 * from the previous answer, as wrk2 and pgbench -R do, so that a stall is
 * charged to every cycle it delays (no coordinated omission). Poisson
 * arrivals (exponential gaps, pgbench -R's) or evenly spaced ones (wrk2's
 * constant rate), from their own generator: the command stream does not
 * change with the schedule. */
#ifndef BENCH_ARRIVAL_H
#define BENCH_ARRIVAL_H

#include <stdint.h>

#include "draw.h"

typedef enum arrival_process {
    ARRIVAL_NONE = 0, /* closed loop: a cycle starts when the previous one ends */
    ARRIVAL_POISSON,
    ARRIVAL_UNIFORM,
} arrival_process;

/* arrival: {rate: R, process: P, max_lag: D} as compiled. */
typedef struct arrival_spec {
    arrival_process process;
    double rate;         /* cycles per second, all clients together */
    uint64_t max_lag_ns; /* a cycle that would start later than this behind its intended
                            start is dropped (pgbench -L); 0: never */
} arrival_spec;

typedef struct arrival {
    arrival_process process;
    double gap_ns; /* the mean gap */
    double next;   /* the next intended start, ns from the pass's start */
    rng r;
} arrival;

/* A schedule for run `run` (from 1) with seed. */
void arrival_init(arrival *a, const arrival_spec *spec, uint64_t seed, int run);
/* The schedule of client `client` (from 0) of `clients`: rate / clients
 * from a stream of its own (client 0's is arrival_init's), uniform ones
 * staggered so that all of them together are evenly spaced. */
void arrival_init_client(arrival *a, const arrival_spec *spec, uint64_t seed, int run, int client,
                         int clients);
/* The next cycle's intended start, in ns from the start of the pass; each
 * call moves one cycle on. */
uint64_t arrival_next(arrival *a);
/* How many of the cycles from the next one on are due before `end` (ns
 * from the start of the pass); the schedule moves past them. Evenly spaced
 * ones are counted; Poisson ones are drawn one by one up to ten million,
 * and past that the time left times the rate is added (over such a
 * stretch the count is within a small fraction of that mean), so that a
 * long duration left at a high rate costs no more than that. */
uint64_t arrival_count_before(arrival *a, uint64_t end);
/* Waits until the monotonic clock reads at least `at` ns: sleeps while it
 * is far, then spins, so a cycle starts within a few µs of its time. */
void arrival_wait_until(uint64_t at);

/* A duration as a spec or a flag writes it: a number followed by ns, us,
 * ms, s, m or h ("30s", "1.5s", "250ms"), or a bare number of seconds.
 * Returns 0 with the ns in *ns (at least 1), or -1 when s is not one. */
int duration_parse(const char *s, uint64_t *ns);

#endif
