/* utf8.h: UTF-8 text measured in code points, the unit of columns, of
 * min_length/max_length and of len(). */
#ifndef BENCH_UTF8_H
#define BENCH_UTF8_H

#include <stddef.h>

/* Number of code points in s[0..len) (invalid bytes count one each). */
size_t utf8_length(const char *s, size_t len);

#endif
