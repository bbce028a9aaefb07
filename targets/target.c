/* target.c: helpers shared by the drivers. */
#include "target.h"

#include <stdarg.h>
#include <stdio.h>

#include "runtime.h"
#include "store.h"

int target_fail(target *t, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->message, sizeof t->message, fmt, ap);
    va_end(ap);
    return status;
}

int target_runtime_dispatch(target *t, runtime *rt, const command *cmd, const value *args)
{
    runtime_status st = runtime_dispatch(rt, cmd, args);
    if (st == RUNTIME_OK)
        return TARGET_OK;
    return target_fail(t, st == RUNTIME_REFUSED ? TARGET_REFUSED : TARGET_ERROR, "%s",
                       runtime_message(rt));
}

int target_store_count(target *t, store *s, uint64_t *aggs, uint64_t *events)
{
    if (s->ops->count(s, aggs, events) < 0)
        return target_fail(t, TARGET_ERROR, "%s", s->error);
    return TARGET_OK;
}
