/* target.c: what the drivers share: failure messages, capability names,
 * and opening and closing a store. */
#include "target.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_driver.h"

int target_fail(target *t, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->message, sizeof t->message, fmt, ap);
    va_end(ap);
    return status;
}

static const struct {
    unsigned bit;
    const char *name;
} capability_names[] = {
    {TARGET_CAN_COUNT, "count"},       {TARGET_CAN_READ_BACK, "read back"},
    {TARGET_CAN_PROBE, "floor probe"}, {TARGET_CAN_SESSIONS, "sessions"},
    {TARGET_CAN_QUERY, "queries"},     {TARGET_ACCEPTS_ALL, "accepts all"},
    {TARGET_HARNESS, "harness floor"}, {TARGET_ONE_CPU, "one CPU with its child"},
    {TARGET_CAN_SCAN, "scans"},
};

const char *target_capability_name(unsigned bit)
{
    for (size_t i = 0; i < sizeof capability_names / sizeof *capability_names; i++)
        if (capability_names[i].bit == bit)
            return capability_names[i].name;
    return NULL;
}

/* ---- stores ---- */

int store_open(const store_driver *d, const plan *p, const target_spec *spec, int run, store **out,
               char *err, size_t size)
{
    const target_spec dflt = {.name = d->name, .label = d->name};
    *out = NULL;
    if (d->open(p, spec ? spec : &dflt, run, out, err, size) < 0) {
        *out = NULL;
        return -1;
    }
    (*out)->driver = d;
    return 0;
}

void store_close(store *s)
{
    if (s)
        s->driver->close(s);
}
