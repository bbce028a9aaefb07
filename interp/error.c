/* error.c: the error object's operations. */
#include "error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

int err_set(bench_error *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    (void)vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

int err_set_buf(char *buf, size_t size, const char *fmt, ...)
{
    if (buf && size > 0) {
        va_list ap;
        va_start(ap, fmt);
        (void)vsnprintf(buf, size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int err_vprefix_buf(char *buf, size_t size, const char *fmt, va_list ap)
{
    if (!size)
        return -1;
    char head[BENCH_ERROR_MAX];
    int n = vsnprintf(head, sizeof head, fmt, ap);
    size_t hlen = n < 0 ? 0 : strnlen(head, sizeof head - 1);
    if (hlen > size - 1)
        hlen = size - 1;
    size_t mlen = strnlen(buf, size - 1);
    size_t keep = mlen < size - 1 - hlen ? mlen : size - 1 - hlen; /* cut only at the end */
    memmove(buf + hlen, buf, keep);
    memcpy(buf, head, hlen);
    buf[hlen + keep] = '\0';
    return -1;
}

int err_prefix_buf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vprefix_buf(buf, size, fmt, ap);
    va_end(ap);
    return -1;
}

int err_prefix(bench_error *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vprefix_buf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

const char *err_errno_text(int e, char *buf, size_t size)
{
    struct rlimit rl;
    if (e == EMFILE && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        (void)snprintf(buf, size, "too many open files (ulimit -n is %llu)",
                       (unsigned long long)rl.rlim_cur);
    else
        (void)snprintf(buf, size, "%s", strerror(e));
    return buf;
}
