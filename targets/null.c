/* null.c: the null target accepts every command and query and does nothing, so a run
 * on it measures the harness's own cost (the floor every report shows). It
 * cannot count, so verify is n/a. */
#include <stdlib.h>

#include "alloc.h"
#include "target.h"

static int null_open(const target_driver *self, const plan *p, const target_spec *spec, int run,
                     target **out, char *err, size_t size)
{
    (void)p, (void)run;
    *out = NULL;
    target *t = calloc_lines(1, sizeof *t); /* each client's thread writes its own */
    if (!t) {
        snprintf(err, size, "null: out of memory");
        return TARGET_ERROR;
    }
    t->driver = self;
    t->spec = spec;
    *out = t;
    return TARGET_OK;
}

static int null_dispatch(target *t, const command *cmd, const value *args)
{
    (void)t, (void)cmd, (void)args;
    return TARGET_OK;
}

/* It runs every query and judges none: there is no answer to check. */
static int null_answer(target *t, const value **out)
{
    (void)t;
    *out = NULL;
    return TARGET_UNSUPPORTED;
}

/* A client's session: another null target (it holds nothing to share). */
static int null_session(target *t, int client, target **out, char *err, size_t size)
{
    (void)client;
    return null_open(t->driver, NULL, t->spec, 0, out, err, size);
}

static void null_close(target *t)
{
    free(t);
}

const target_driver null_target_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "null",
    .about = "accepts every command and does nothing: the harness's own cost",
    .caps = TARGET_CAN_QUERY | TARGET_CAN_SCAN | TARGET_CAN_SESSIONS | TARGET_ACCEPTS_ALL |
            TARGET_HARNESS,
    .open = null_open,
    .session = null_session,
    .dispatch = null_dispatch,
    .answer = null_answer,
    .close = null_close,
};
