/* pending.c: the targets specs may name but this build cannot run yet.
 * Each is a stub whose available() says so in one sentence, so the runner
 * skips it and the other targets still run; open() is never reached. */
#include <stdio.h>

#include "drivers.h"

static int pending_available(const target_spec *spec, char *why, size_t size)
{
    snprintf(why, size,
             "the %s target is not implemented in this version of bench yet; "
             "run the memory or null targets meanwhile",
             spec->name);
    return -1;
}

static int pending_open(const plan *p, const target_spec *spec, int run, target **out, char *err,
                        size_t size)
{
    *out = NULL;
    pending_available(spec, err, size);
    return TARGET_ERROR;
}

static int pending_dispatch(target *t, const command *cmd, const value *args)
{
    return TARGET_ERROR;
}

static void pending_close(target *t) {}

#define PENDING_DRIVER(id, label)                                                                  \
    const target_driver id = {                                                                     \
        .version = TARGET_DRIVER_VERSION,                                                          \
        .name = label,                                                                             \
        .about = "not implemented yet",                                                            \
        .available = pending_available,                                                            \
        .open = pending_open,                                                                      \
        .dispatch = pending_dispatch,                                                              \
        .close = pending_close,                                                                    \
    }

PENDING_DRIVER(sqlite_target_driver, "sqlite");
PENDING_DRIVER(postgres_target_driver, "postgres");
PENDING_DRIVER(process_target_driver, "process");
