/* serve.h: `bench serve SPEC`: the C runtime as a JSON-lines server
 * speaking schema/protocol.md on stdin and stdout, or (--listen, in
 * serve_listen.c) on many connections at once over one shared store, so
 * that the process target (and anything else) can drive it as it drives
 * any external runtime. */
#ifndef BENCH_SERVE_H
#define BENCH_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "endpoint.h"
#include "plan.h"
#include "store_driver.h"

typedef struct server server;

/* A server of p's domain on a fresh store of driver sd, opened with ts's
 * options (all lent; they outlive it). Returns 0, or -1 with the reason in
 * err and *out NULL. */
int serve_open(const plan *p, const store_driver *sd, const target_spec *ts, server **out,
               char *err, size_t size);
/* Closes the store (its scratch file or schema removed) and frees sv; NULL
 * is fine. */
void serve_close(server *sv);

/* Answers the request line s[0..n) (without its newline). The answer line,
 * newline included, is lent in *answer (*len bytes) until the next call. */
void serve_answer(server *sv, const char *line, size_t n, const char **answer, size_t *len);

/* For the reset request: others(ctx) says how many other connections
 * share the store (a reset is refused while there are any). Without it,
 * none. */
void serve_set_others(server *sv, size_t (*others)(void *ctx), void *ctx);

/* Answers every line read from in_fd on out_fd, each in one write, until
 * end of input or SIGTERM, SIGINT or SIGHUP (handled while it runs, the
 * caller's handlers put back after). Returns 0 at end of input or on a
 * signal, or -1 when reading or writing failed (errno says why). */
int serve_stdio(server *sv, int in_fd, int out_fd);

/* `bench serve --listen`: listens on e, opens the server as serve_open
 * does, prints the address on stderr and serves every connection until
 * SIGTERM, SIGINT or SIGHUP; then removes the socket file and closes the
 * store. Returns the exit status: EXIT_CLEAN after a signal, EXIT_FAILED
 * (with a line on stderr) when it cannot listen or open the store. */
int serve_listen(const plan *p, const store_driver *sd, const target_spec *ts, endpoint *e);

/* The longest request line served; a longer one is answered with an
 * error (its bytes are not kept), and the next line is served as usual. */
#define SERVE_LINE_MAX ((size_t)16 << 20)

/* Request lines as they arrive: zero-initialise, free with
 * serve_lines_free. */
typedef struct serve_lines {
    char *buf;
    size_t cap, start, end;
    size_t scanned; /* bytes from start already known to hold no newline */
} serve_lines;

/* The next whole line without its newline, lent in *line until the next
 * fill; false when none has arrived. */
bool serve_lines_next(serve_lines *lb, const char **line, size_t *len);
/* What is left after the last newline (a last line at end of input),
 * taken out; false when nothing is. */
bool serve_lines_rest(serve_lines *lb, const char **line, size_t *len);
/* One read(2) of fd after what is kept: the bytes read, 0 at end of input,
 * or -1 with errno (EAGAIN from a non-blocking fd, ENOMEM). */
ssize_t serve_lines_fill(serve_lines *lb, int fd);
/* The bytes kept and not yet taken as lines. */
static inline size_t serve_lines_pending(const serve_lines *lb)
{
    return lb->end - lb->start;
}
void serve_lines_free(serve_lines *lb);

#endif
