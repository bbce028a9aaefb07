/* test_util.h: small helpers several tests share; include after cmocka.h. */
#ifndef BENCH_TESTS_UTIL_H
#define BENCH_TESTS_UTIL_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole file at path, NUL-terminated, the caller's to free; fails the
 * test when it cannot be read. Paths are relative to the repository root,
 * where ctest runs the tests. */
static inline char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s: %s (tests run from the repository root)", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)len + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)len, f), (size_t)len);
    text[len] = '\0';
    fclose(f);
    return text;
}

/* xorshift64*: the tests' pseudo-random numbers; a fixed seed in *state
 * (not 0) gives every run the same sequence. */
static inline uint64_t test_rng_next(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * UINT64_C(2685821657736338717);
}

#endif
