/* env.h: the machine and build a report's figures were taken on (the
 * `environment` of schema/result.schema.json). Collection never fails: what
 * cannot be read here is "unknown" (or NAN for a load average). */
#ifndef BENCH_ENV_H
#define BENCH_ENV_H

#include <stddef.h>

#include "results.h"

/* Fills every field of e from this machine and this build, except label and
 * postgres, which it leaves as they are (the CLI and the postgres target fill
 * them). load_after becomes NAN until env_load_after. date is now, in UTC. */
void env_collect(environment *e);
/* Records what a postgres target saw (postgres_environment in
 * targets/postgres.h): server is its version and settings, set as
 * e->postgres; libpq ("libpq 15.18") is appended to e->libraries. */
void env_add_postgres(environment *e, const char *server, const char *libpq);
/* Records the load average at the end of the run in e->load_after. */
void env_load_after(environment *e);
/* The CPUs this process may run on, as a list such as "0-1" or "0,2-5".
 * Returns 0, or -1 when the affinity cannot be read or does not fit in
 * buf[n] (buf then holds "unknown", or "" when that does not fit either). */
int env_affinity_string(char *buf, size_t n);
/* How many CPUs this process may run on now (1 when it cannot tell). */
int env_cpus_in_force(void);

/* The CPU mask env_pin_one replaced, for env_unpin. */
typedef struct env_pin {
    void *saved; /* a cpu_set_t of size bytes, or NULL */
    size_t size;
} env_pin;

/* Pins the calling thread, and the threads and children it starts from now
 * on, to one CPU: the highest-numbered one it may run on now (CPU 0 takes
 * most interrupts on many machines). Saves the mask in force in *pin.
 * Returns the CPU, or -1 with nothing changed (*pin then holds nothing). */
int env_pin_one(env_pin *pin);
/* Puts back the mask env_pin_one saved and frees it (nothing saved: no-op). */
void env_unpin(env_pin *pin);

#endif
