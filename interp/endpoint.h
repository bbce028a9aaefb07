/* endpoint.h: where a JSON-lines server listens and where the process
 * target connects: unix:PATH (a socket file) or tcp:127.0.0.1:PORT. TCP is
 * loopback only, both ways: bench serves nothing to the network. */
#ifndef BENCH_ENDPOINT_H
#define BENCH_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum { ENDPOINT_PATH_MAX = 107 }; /* the bytes of a path sun_path holds before its NUL */

typedef enum endpoint_kind {
    ENDPOINT_UNIX,
    ENDPOINT_TCP,
} endpoint_kind;

typedef struct endpoint {
    endpoint_kind kind;
    char path[ENDPOINT_PATH_MAX + 1]; /* UNIX: the socket file */
    uint16_t port;                    /* TCP, on 127.0.0.1: 0 when listening picks a free one */
    dev_t dev;                        /* UNIX, once listening: the socket file made, so that */
    ino_t ino;                        /* endpoint_remove removes that one and no other */
} endpoint;

/* Parses "unix:PATH", "tcp:127.0.0.1:PORT" or "tcp:localhost:PORT" (PORT 0
 * to 65535) into *out. Returns 0, or -1 with one sentence in why. */
int endpoint_parse(const char *text, endpoint *out, char *why, size_t size);

/* The endpoint as text, "unix:PATH" or "tcp:127.0.0.1:PORT", into buf. */
void endpoint_format(const endpoint *e, char *buf, size_t size);

/* A connected stream socket (blocking, close-on-exec, TCP_NODELAY), or -1
 * with errno set. */
int endpoint_connect(const endpoint *e);

/* A listening socket (non-blocking, close-on-exec). A unix socket file
 * that is already there is replaced when it is stale (nothing accepts on
 * it) and refused when a server is listening on it or it is not a socket;
 * a TCP port 0 becomes the port the system picked. Returns the fd, or -1
 * with one sentence in why. */
int endpoint_listen(endpoint *e, char *why, size_t size);

/* Removes the socket file endpoint_listen made, if it is still that file. */
void endpoint_remove(const endpoint *e);

#endif
