/* null.c: the null target accepts every command and does nothing, so a run
 * on it measures the harness's own cost (the floor every report shows). It
 * cannot count, so verify is n/a. */
#include <stdlib.h>

#include "drivers.h"

static int null_available(const target_spec *spec, char *why, size_t size)
{
    return 0;
}

static int null_open(const plan *p, const target_spec *spec, int run, target **out, char *err,
                     size_t size)
{
    *out = NULL;
    target *t = calloc(1, sizeof *t);
    if (!t) {
        snprintf(err, size, "null: out of memory");
        return TARGET_ERROR;
    }
    t->driver = &null_target_driver;
    t->spec = spec;
    *out = t;
    return TARGET_OK;
}

static int null_dispatch(target *t, const command *cmd, const value *args)
{
    return TARGET_OK;
}

static void null_close(target *t)
{
    free(t);
}

const target_driver null_target_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "null",
    .about = "accepts every command and does nothing: the harness's own cost",
    .available = null_available,
    .open = null_open,
    .dispatch = null_dispatch,
    .count = NULL,
    .probe = NULL,
    .close = null_close,
    .accepts_all = true,
};
