/* alloc.h: the one allocation policy. Running out of memory is not an error
 * bench recovers from: each wrapper below either returns memory or calls
 * bench_out_of_memory, which prints one line and exits with status 1 (never
 * abort(): a core dump and exit status 134 with no message tells the user
 * nothing). Code whose contract is to report "out of memory" as an error
 * value (a store's open) may still call malloc itself. */
#ifndef BENCH_ALLOC_H
#define BENCH_ALLOC_H

#include <stddef.h>

/* Prints "bench: out of memory" to stderr and exits with status 1. */
_Noreturn void bench_out_of_memory(void);

/* malloc, never NULL (a zero size allocates one byte). */
void *xmalloc(size_t size);
/* calloc of n items of size bytes, never NULL; n * size overflowing is out
 * of memory. */
void *xcalloc(size_t n, size_t size);
/* The cache line: memory one thread writes while another thread touches its
 * neighbour should not share one (false sharing: the line moves between the
 * CPUs at every write). */
enum { ALLOC_LINE = 64 };
/* calloc for memory one thread writes while other threads run: zeroed, it
 * starts on a cache line and fills its last one, so no other allocation
 * shares a line with it. Freed with free(). NULL when out of memory (for
 * code that reports it); xcalloc_lines never returns NULL. */
void *calloc_lines(size_t n, size_t size);
void *xcalloc_lines(size_t n, size_t size);
/* realloc, never NULL: returns the new block (p is then invalid). */
void *xrealloc(void *p, size_t size);
/* realloc to n items of size bytes, overflow-checked like xcalloc. */
void *xreallocarray(void *p, size_t n, size_t size);
/* strdup, never NULL; s must not be NULL. */
char *xstrdup(const char *s);
/* A copy of the first n bytes of s (fewer at a NUL), NUL-terminated. */
char *xstrndup(const char *s, size_t n);

#endif
