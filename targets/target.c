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

/* ---- option values with the driver known (no registry needed) ---- */

const target_option *target_driver_option(const target_driver *d, const char *name)
{
    for (size_t i = 0; d && i < d->noptions; i++)
        if (!strcmp(d->options[i].name, name))
            return &d->options[i];
    return NULL;
}

const target_opt_value *target_opt_given(const target_spec *ts, const char *name)
{
    for (size_t i = ts->nopts; i-- > 0;) /* the last one given wins */
        if (!strcmp(ts->opts[i].name, name))
            return &ts->opts[i];
    return NULL;
}

int64_t target_driver_opt_int(const target_driver *d, const target_spec *ts, const char *name,
                              int64_t fallback)
{
    const target_opt_value *v = target_opt_given(ts, name);
    if (v)
        return v->i;
    const target_option *o = target_driver_option(d, name);
    return o && o->dflt ? strtoll(o->dflt, NULL, 10) : fallback;
}
