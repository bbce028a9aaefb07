/* num.h: the number texts and roundings that the result files, the reports
 * and the messages below them share. */
#ifndef BENCH_NUM_H
#define BENCH_NUM_H

#include <stddef.h>

/* The shortest "%.15g".."%.17g" text of v that strtod reads back as exactly
 * v; "" when v is NAN or infinite (the JSON's own number texts). */
void num_text_double(double v, char *buf, size_t n);

/* The JSON's µs figure of a latency in ns as a double: round(ns) / 1000.0,
 * the number report_fmt_us3's text reads back as (NAN stays NAN). */
double num_us_of_ns(double ns);

#endif
