/* registry.c: every driver built into this binary, by the name specs use,
 * in the order `bench targets` lists them. */
#include <string.h>

#include "drivers.h"

/* A driver that cannot run here (postgres without a server or without
 * libpq) says so in available(), so the runner skips it with a sentence. */
static const target_driver *const drivers[] = {
    &memory_target_driver,   &null_target_driver,    &sqlite_target_driver,
    &postgres_target_driver, &process_target_driver,
};

const target_driver *target_find(const char *name)
{
    for (size_t i = 0; i < sizeof drivers / sizeof *drivers; i++)
        if (!strcmp(drivers[i]->name, name))
            return drivers[i];
    return NULL;
}

const target_driver *const *target_all(size_t *n)
{
    *n = sizeof drivers / sizeof *drivers;
    return drivers;
}
