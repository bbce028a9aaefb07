/* array.h: growing a malloc'd array one element at a time, by doubling. */
#ifndef BENCH_ARRAY_H
#define BENCH_ARRAY_H

#include <stdlib.h>

/* Makes room in *items (of elem bytes each, *cap allocated, count used) for
 * one more, doubling the allocation when full. Returns 0, or -1 when out of
 * memory (*items and *cap are then unchanged). */
static inline int array_reserve(void **items, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *more = realloc(*items, ncap * elem);
    if (!more)
        return -1;
    *items = more;
    *cap = ncap;
    return 0;
}

#endif
