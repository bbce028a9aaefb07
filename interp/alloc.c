/* alloc.c: the allocation wrappers and their one out-of-memory handler. */
#include "alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

_Noreturn void bench_out_of_memory(void)
{
    /* write(2), not stdio: stdio may itself need memory for its buffer */
    static const char msg[] = "bench: out of memory\n";
    ssize_t rc = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)rc;
    exit(1);
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        bench_out_of_memory();
    return p;
}

void *xcalloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        bench_out_of_memory();
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        bench_out_of_memory();
    return p;
}

void *calloc_lines(size_t n, size_t size)
{
    if (size && n > (SIZE_MAX - ALLOC_LINE) / size)
        return NULL;
    size_t bytes = n * size;
    bytes = bytes ? bytes : 1;
    bytes = (bytes + ALLOC_LINE - 1) / ALLOC_LINE * ALLOC_LINE; /* aligned_alloc wants a multiple */
    void *p = aligned_alloc(ALLOC_LINE, bytes);
    return p ? memset(p, 0, bytes) : NULL;
}

void *xcalloc_lines(size_t n, size_t size)
{
    void *p = calloc_lines(n, size);
    if (!p)
        bench_out_of_memory();
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (!q)
        bench_out_of_memory();
    return q;
}

void *xreallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        bench_out_of_memory();
    return xrealloc(p, n * size);
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = xmalloc(len + 1);
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}
