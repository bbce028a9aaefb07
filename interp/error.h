/* error.h: one error object, filled once where a failure happens and passed
 * up. A caller that knows more adds context in front with err_prefix
 * ("run 2, timed cycle 7, Order.Purchase (spec.yaml:12): ") instead of
 * copying the message into a buffer of its own: the message is cut only
 * where the whole text exceeds the object's capacity, at its end, never
 * again at each level.
 *
 * Interfaces that take a (char *err, size_t size) pair (target and store
 * open) are handed e.msg and sizeof e.msg; err_prefix_buf works on such a
 * pair. */
#ifndef BENCH_ERROR_H
#define BENCH_ERROR_H

#include <stdarg.h>
#include <stddef.h>

/* The capacity of every message buffer on an error path (a target's
 * message, a store's error, a result's reason), so that passing one up
 * never cuts it shorter. */
enum { BENCH_ERROR_MAX = 1024 };

typedef struct bench_error {
    char msg[BENCH_ERROR_MAX]; /* one line; "" when no error was set */
} bench_error;

/* Replaces the message, printf-style. Returns -1, for `return err_set(...)`. */
int err_set(bench_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Puts the formatted text in front of the message. Returns -1. */
int err_prefix(bench_error *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* err_set on a (buf, size) pair (buf may be NULL: nothing is written). */
int err_set_buf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* err_prefix on a (buf, size) pair holding a NUL-terminated message. */
int err_prefix_buf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int err_vprefix_buf(char *buf, size_t size, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* strerror(e), except that EMFILE names the limit that was met: "too many
 * open files (ulimit -n is 5)". Written into buf, which is returned. */
const char *err_errno_text(int e, char *buf, size_t size);

#endif
