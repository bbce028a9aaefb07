/* num.c: the number texts and roundings that the result files, the reports
 * and the messages below them share. */
#include "num.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void num_text_double(double v, char *buf, size_t n)
{
    if (n == 0)
        return;
    if (!isfinite(v)) {
        buf[0] = '\0';
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, n, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

double num_us_of_ns(double ns)
{
    return round(ns) / 1000.0;
}
