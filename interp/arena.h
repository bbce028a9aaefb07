/* arena.h: bump allocation for data that lives and dies together (a loaded
 * document, a compiled plan). Nothing is freed one by one. */
#ifndef BENCH_ARENA_H
#define BENCH_ARENA_H

#include <stddef.h>

typedef struct arena_block arena_block;

typedef struct arena {
    arena_block *head; /* newest block first */
    size_t used;       /* bytes handed out, for size limits */
} arena;

/* Zeroed memory from the arena, aligned for any type; aborts on exhaustion
 * of the process (out of memory is not a user error we can report). */
void *arena_alloc(arena *a, size_t size);
/* The same, not zeroed: for memory the caller fills at once (per-dispatch
 * scratch values). */
void *arena_alloc_raw(arena *a, size_t size);
/* A NUL-terminated copy of s[0..len). */
char *arena_strndup(arena *a, const char *s, size_t len);
char *arena_strdup(arena *a, const char *s);
/* printf into the arena. */
char *arena_printf(arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees every block; the arena is empty and reusable afterwards. */
void arena_free(arena *a);
/* Empties the arena for reuse (per-dispatch scratch memory). It keeps one
 * block, as large as all its blocks together, so once the arena has grown to
 * its working size it no longer calls malloc. Everything allocated before is
 * invalid afterwards. */
void arena_reset(arena *a);

#endif
