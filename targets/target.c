/* target.c: helpers shared by the drivers. */
#include "target.h"

#include <stdarg.h>
#include <stdio.h>

int target_fail(target *t, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->message, sizeof t->message, fmt, ap);
    va_end(ap);
    return status;
}
