#include "arena.h"

#include "alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arena_block {
    arena_block *next;
    size_t size, used;
    max_align_t data[]; /* flexible, aligned */
};

enum { ARENA_MIN_BLOCK = 64 * 1024 };

void *arena_alloc_raw(arena *a, size_t size)
{
    size_t align = _Alignof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    if (size == 0)
        size = align;
    arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t bsize = size > ARENA_MIN_BLOCK ? size : ARENA_MIN_BLOCK;
        b = xmalloc(sizeof *b + bsize);
        b->size = bsize;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    a->used += size;
    return p;
}

void *arena_alloc(arena *a, size_t size)
{
    size_t align = _Alignof(max_align_t);
    size = (size + align - 1) & ~(align - 1);
    return memset(arena_alloc_raw(a, size), 0, size ? size : align);
}

char *arena_strndup(arena *a, const char *s, size_t len)
{
    char *p = arena_alloc(a, len + 1);
    memcpy(p, s, len);
    p[len] = '\0';
    return p;
}

char *arena_strdup(arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_printf(arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void arena_free(arena *a)
{
    arena_block *b = a->head;
    while (b) {
        arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = 0;
}

void arena_reset(arena *a)
{
    arena_block *head = a->head;
    a->used = 0;
    if (!head)
        return;
    if (!head->next) {
        head->used = 0;
        return;
    }
    /* several blocks: the last use outgrew one, so keep one block that holds
     * it all and the next use of the same size needs no malloc */
    size_t total = 0;
    for (arena_block *b = head; b; b = b->next)
        total += b->size;
    arena_free(a);
    arena_block *b = xmalloc(sizeof *b + total);
    b->size = total;
    b->used = 0;
    b->next = NULL;
    a->head = b;
}
