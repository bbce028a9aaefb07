/* line_io.h: the blocking line reads and writes of the pipe peers
 * (perf_pipe_pingpong, perf_serve_driver): the least a side of a
 * JSON-lines round trip can do. */
#ifndef BENCH_PERF_LINE_IO_H
#define BENCH_PERF_LINE_IO_H

#include <errno.h>
#include <string.h>
#include <unistd.h>

static inline int write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reads up to a newline; -1 at end of input, an error or a full buffer.
 * Lines never straddle two round trips here: each side waits for the
 * other's whole line. */
static inline int read_line(int fd, char *buf, size_t size)
{
    size_t have = 0;
    for (;;) {
        ssize_t n = read(fd, buf + have, size - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        have += (size_t)n;
        if (memchr(buf + have - (size_t)n, '\n', (size_t)n))
            return 0;
        if (have == size)
            return -1;
    }
}

#endif
