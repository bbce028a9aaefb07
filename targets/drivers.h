/* drivers.h: the drivers and stores built into this binary. Each is
 * defined in its own file (targets/<name>.c, targets/store_<name>.c) and
 * listed once in targets/registry.c; nothing else names them (everything
 * else goes through target_find and store_find). */
#ifndef BENCH_DRIVERS_H
#define BENCH_DRIVERS_H

#include "store.h"
#include "target.h"

extern const target_driver null_target_driver;
extern const target_driver process_target_driver;

extern const store_driver memory_store_driver;
extern const store_driver sqlite_store_driver;
extern const store_driver postgres_store_driver;

#endif
