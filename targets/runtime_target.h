/* runtime_target.h: the driver that runs the C runtime on a store, for the
 * registry. */
#ifndef BENCH_RUNTIME_TARGET_H
#define BENCH_RUNTIME_TARGET_H

#include "store_driver.h"
#include "target.h"

/* Fills out with the target of store sd: sd's name, about line and options,
 * the runtime's capabilities plus sd's. out must outlive every run. */
void runtime_target_driver(const store_driver *sd, target_driver *out);

#endif
