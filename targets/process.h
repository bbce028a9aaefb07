/* process.h: what the process target (process.c) shows beyond the driver
 * interface, for tests. */
#ifndef BENCH_PROCESS_H
#define BENCH_PROCESS_H

#include <sys/types.h>

#include "target.h"

/* The pid of an open process target's child (also after it exited; the
 * child is reaped by target_close), so tests can check that it is gone. */
pid_t process_target_pid(const target *t);

/* The program the default command (`bench serve SPEC`) starts. NULL (the
 * default) means this executable, from /proc/self/exe; tests, whose own
 * executable is not bench, set the bench binary's path. The string is lent
 * and must outlive every run. */
void process_target_set_self(const char *path);

#endif
