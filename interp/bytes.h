/* bytes.h: short byte strings copied and compared without a call, for
 * the timed path (the store's keys and strings, the runner's templates):
 * the most such strings are 4 to 16 bytes. */
#ifndef BENCH_BYTES_H
#define BENCH_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* From w to 2w bytes (w 4 or 8) copied or compared as two words of w that
 * may overlap: the first w bytes and the last w. */
static inline void words_copy(char *dst, const char *src, size_t n, size_t w)
{
    char head[8], tail[8];
    memcpy(head, src, w);
    memcpy(tail, src + n - w, w);
    memcpy(dst, head, w);
    memcpy(dst + n - w, tail, w);
}

static inline bool words_equal(const char *a, const char *b, size_t n, size_t w)
{
    return memcmp(a, b, w) == 0 && memcmp(a + n - w, b + n - w, w) == 0;
}

/* memcpy of n bytes; short ones without a call. */
static inline void bytes_copy(char *dst, const char *src, size_t n)
{
    if (n >= 8 && n <= 16) {
        words_copy(dst, src, n, 8);
    } else if (n >= 4 && n < 8) {
        words_copy(dst, src, n, 4);
    } else if (n < 4) {
        for (size_t i = 0; i < n; i++)
            dst[i] = src[i];
    } else {
        memcpy(dst, src, n);
    }
}

/* memcmp(a, b, n) == 0; short ones without a call. */
static inline bool bytes_equal(const char *a, const char *b, size_t n)
{
    if (n >= 8 && n <= 16)
        return words_equal(a, b, n, 8);
    if (n >= 4 && n < 8)
        return words_equal(a, b, n, 4);
    if (n >= 4)
        return memcmp(a, b, n) == 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return false;
    return true;
}

#endif
