/* endpoint.c: unix:PATH and tcp:127.0.0.1:PORT, parsed, connected to and
 * listened on. */
#define _GNU_SOURCE /* SOCK_CLOEXEC, SOCK_NONBLOCK */
#include "endpoint.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

enum { ENDPOINT_BACKLOG = 128 };

static int parse_port(const char *s, uint16_t *out)
{
    unsigned long v = 0;
    if (!*s || strlen(s) > 5)
        return -1;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        v = v * 10 + (unsigned long)(*c - '0');
    }
    if (v > 65535)
        return -1;
    *out = (uint16_t)v;
    return 0;
}

int endpoint_parse(const char *text, endpoint *out, char *why, size_t size)
{
    *out = (endpoint){0};
    if (!strncmp(text, "unix:", 5)) {
        const char *path = text + 5;
        if (!*path) {
            snprintf(why, size, "unix: names no socket file; give unix:PATH");
            return -1;
        }
        if (strlen(path) > ENDPOINT_PATH_MAX) {
            snprintf(why, size,
                     "the socket path %.200s is longer than the %d bytes a unix socket address "
                     "holds",
                     path, ENDPOINT_PATH_MAX);
            return -1;
        }
        out->kind = ENDPOINT_UNIX;
        memcpy(out->path, path, strlen(path) + 1);
        return 0;
    }
    if (strncmp(text, "tcp:", 4) != 0) {
        snprintf(why, size, "'%.200s' is not unix:PATH or tcp:127.0.0.1:PORT", text);
        return -1;
    }
    const char *host = text + 4, *colon = strrchr(host, ':');
    if (!colon) {
        snprintf(why, size, "%.200s has no port; give tcp:127.0.0.1:PORT", text);
        return -1;
    }
    size_t hlen = (size_t)(colon - host);
    if (hlen != 9 || (memcmp(host, "127.0.0.1", 9) != 0 && memcmp(host, "localhost", 9) != 0)) {
        snprintf(why, size,
                 "%.200s is not on loopback: bench serves and connects on 127.0.0.1 only; give "
                 "tcp:127.0.0.1:PORT",
                 text);
        return -1;
    }
    out->kind = ENDPOINT_TCP;
    if (parse_port(colon + 1, &out->port) < 0) {
        snprintf(why, size, "'%.20s' is not a port (0 to 65535)", colon + 1);
        return -1;
    }
    return 0;
}

void endpoint_format(const endpoint *e, char *buf, size_t size)
{
    if (e->kind == ENDPOINT_UNIX)
        snprintf(buf, size, "unix:%s", e->path);
    else
        snprintf(buf, size, "tcp:127.0.0.1:%u", (unsigned)e->port);
}

/* The socket address of e, in *ss; returns its length. */
static socklen_t address_of(const endpoint *e, struct sockaddr_storage *ss)
{
    memset(ss, 0, sizeof *ss);
    if (e->kind == ENDPOINT_UNIX) {
        struct sockaddr_un *un = (struct sockaddr_un *)ss;
        un->sun_family = AF_UNIX;
        memcpy(un->sun_path, e->path, strlen(e->path) + 1);
        return (socklen_t)sizeof *un;
    }
    struct sockaddr_in *in = (struct sockaddr_in *)ss;
    in->sin_family = AF_INET;
    in->sin_port = htons(e->port);
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return (socklen_t)sizeof *in;
}

static int new_socket(const endpoint *e, int flags)
{
    return socket(e->kind == ENDPOINT_UNIX ? AF_UNIX : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags,
                  0);
}

int endpoint_connect(const endpoint *e)
{
    struct sockaddr_storage ss;
    socklen_t len = address_of(e, &ss);
    int fd = new_socket(e, 0);
    if (fd < 0)
        return -1;
    int rc;
    while ((rc = connect(fd, (struct sockaddr *)&ss, len)) < 0 && errno == EINTR)
        ;
    if (rc < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    if (e->kind == ENDPOINT_TCP) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    return fd;
}

/* A socket file already at e's path: removed when stale, else refused. */
static int clear_path(const endpoint *e, char *why, size_t size)
{
    struct stat st;
    if (lstat(e->path, &st) < 0) {
        if (errno == ENOENT)
            return 0;
        snprintf(why, size, "cannot look at %s: %s", e->path, strerror(errno));
        return -1;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(why, size, "%s exists and is not a socket; remove it or choose another path",
                 e->path);
        return -1;
    }
    int fd = endpoint_connect(e);
    if (fd >= 0) {
        close(fd);
        snprintf(why, size, "a server is listening on unix:%s already", e->path);
        return -1;
    }
    if (errno != ECONNREFUSED) {
        snprintf(why, size, "cannot tell whether unix:%s is in use: %s", e->path, strerror(errno));
        return -1;
    }
    if (unlink(e->path) < 0 && errno != ENOENT) { /* stale: nothing accepts on it */
        snprintf(why, size, "cannot remove the stale socket %s: %s", e->path, strerror(errno));
        return -1;
    }
    return 0;
}

int endpoint_listen(endpoint *e, char *why, size_t size)
{
    char name[ENDPOINT_PATH_MAX + 32];
    endpoint_format(e, name, sizeof name);
    if (e->kind == ENDPOINT_UNIX && clear_path(e, why, size) < 0)
        return -1;
    int fd = new_socket(e, SOCK_NONBLOCK);
    if (fd < 0) {
        snprintf(why, size, "cannot make a socket for %s: %s", name, strerror(errno));
        return -1;
    }
    int one = 1;
    if (e->kind == ENDPOINT_TCP)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_storage ss;
    socklen_t len = address_of(e, &ss);
    struct stat st;
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, ENDPOINT_BACKLOG) < 0) {
        snprintf(why, size, "cannot listen on %s: %s", name, strerror(errno));
        close(fd);
        return -1;
    }
    if (e->kind == ENDPOINT_UNIX && lstat(e->path, &st) == 0) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
    }
    if (e->kind == ENDPOINT_TCP) {
        len = sizeof ss;
        if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
            e->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
    }
    return fd;
}

void endpoint_remove(const endpoint *e)
{
    struct stat st;
    if (e->kind == ENDPOINT_UNIX && e->ino && lstat(e->path, &st) == 0 && st.st_dev == e->dev &&
        st.st_ino == e->ino)
        unlink(e->path);
}
