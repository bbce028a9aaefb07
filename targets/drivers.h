/* drivers.h: the drivers built into this binary. Each is defined in its own
 * targets/<name>.c and listed once in targets/registry.c; nothing else
 * names them (the runner goes through target_find). */
#ifndef BENCH_DRIVERS_H
#define BENCH_DRIVERS_H

#include "target.h"

extern const target_driver memory_target_driver;
extern const target_driver null_target_driver;
extern const target_driver sqlite_target_driver;
extern const target_driver postgres_target_driver;
extern const target_driver process_target_driver;

#endif
