/* serve_listen.c: `bench serve --listen`: one server, one store, many
 * connections. One thread polls the listening socket and every connection;
 * each request line is answered to completion before the next is taken, so
 * dispatches never overlap and the shared store needs no lock: requests
 * from different connections are served one at a time, in the order they
 * are read, and a slow request delays the others.
 *
 * Each connection speaks the stdin/stdout protocol: its answers come in
 * the order of its requests, a line that is not a request gets one refusal
 * and the connection goes on, and the end of a connection (even mid-line)
 * ends only that connection. A connection is dropped, with a line on
 * stderr, when it sends a line longer than LISTEN_LINE_MAX, or sends a
 * request while more than LISTEN_UNREAD_MAX bytes of its answers are still
 * unread: a client that never reads costs that much memory and nobody any
 * waiting.
 *
 * SIGTERM, SIGINT and SIGHUP are blocked except inside ppoll(2), so one
 * arriving while the store opens or a request runs stops the loop at its
 * next turn, and the socket file and the store are always cleaned up. */
#define _GNU_SOURCE /* ppoll, accept4 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "json_line.h"
#include "serve.h"

enum {
    LISTEN_MAX_CONNS = 256,      /* more wait in the listening socket's backlog */
    LISTEN_LINE_MAX = 16 << 20,  /* a request line longer than this drops its connection */
    LISTEN_UNREAD_MAX = 1 << 20, /* answers a client may leave unread and still send */
};

typedef struct conn {
    int fd;
    unsigned id; /* 1, 2, ... in the order accepted, for stderr lines */
    serve_lines in;
    jline out;     /* answers not yet sent, from out_at */
    size_t out_at; /* bytes of out already sent */
    bool eof;      /* its requests have ended */
    bool gone;     /* to be closed at the end of the turn */
} conn;

typedef struct listener {
    server *sv;
    int fd;
    bool tcp;
    conn *conns;
    size_t n, cap;
    size_t current; /* the connection being answered */
    unsigned ids;
    struct pollfd *pfds; /* [0] the listening socket, then one per connection */
} listener;

static volatile sig_atomic_t stop_signal;

static void on_stop(int sig)
{
    stop_signal = sig;
}

static size_t unsent(const conn *c)
{
    return c->out.len - c->out_at;
}

static void drop(conn *c, const char *why)
{
    fprintf(stderr, "bench serve: connection %u dropped: %s\n", c->id, why);
    c->gone = true;
}

/* Sends what the socket takes now; the rest waits for POLLOUT. A client
 * that has gone (EPIPE, ECONNRESET) ends its connection. */
static void flush(conn *c)
{
    while (unsent(c)) {
        ssize_t w = send(c->fd, c->out.data + c->out_at, unsent(c), MSG_NOSIGNAL);
        if (w > 0) {
            c->out_at += (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else {
            if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
                c->gone = true;
            return;
        }
    }
    c->out.len = c->out_at = 0;
}

static void answer_line(listener *l, conn *c, const char *line, size_t n)
{
    if (unsent(c) > LISTEN_UNREAD_MAX) {
        drop(c, "it sent a request with more than 1 MiB of its answers unread");
        return;
    }
    const char *answer;
    size_t len;
    serve_answer(l->sv, line, n, &answer, &len);
    jline_put(&c->out, answer, len);
    flush(c);
}

/* One read of c's requests, and the answers to every whole line. */
static void take_requests(listener *l, conn *c)
{
    ssize_t got = serve_lines_fill(&c->in, c->fd);
    if (got < 0) {
        if (errno == ENOMEM)
            drop(c, "out of memory for its request line");
        else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            c->gone = true; /* reset by the client */
        return;
    }
    const char *line;
    size_t n;
    while (!c->gone && serve_lines_next(&c->in, &line, &n))
        answer_line(l, c, line, n);
    if (got == 0) {
        c->eof = true;
        if (!c->gone && serve_lines_rest(&c->in, &line, &n)) /* as at the end of stdin */
            answer_line(l, c, line, n);
    } else if (serve_lines_pending(&c->in) > LISTEN_LINE_MAX) {
        drop(c, "it sent a request line longer than 16 MiB");
    }
}

/* The other connections still open, for the reset request. One whose
 * client has closed it but whose end this loop has not read yet (a run
 * that just ended) does not count: a peek sees its end. */
static size_t others_open(void *ctx)
{
    listener *l = ctx;
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) {
        conn *c = &l->conns[i];
        if (i == l->current || c->gone || c->eof)
            continue;
        char b;
        ssize_t r = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
        if (r > 0 || (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)))
            n++;
    }
    return n;
}

static void accept_all(listener *l)
{
    while (l->n < LISTEN_MAX_CONNS) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                fprintf(stderr, "bench serve: cannot accept a connection: %s\n", strerror(errno));
            return;
        }
        if (l->tcp) {
            int one = 1;
            setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        }
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 8;
            conn *more = realloc(l->conns, cap * sizeof *more);
            struct pollfd *pfds = more ? realloc(l->pfds, (cap + 1) * sizeof *pfds) : NULL;
            if (more)
                l->conns = more;
            if (!pfds) {
                fprintf(stderr, "bench serve: out of memory for a connection\n");
                close(fd);
                return;
            }
            l->pfds = pfds;
            l->cap = cap;
        }
        l->conns[l->n++] = (conn){.fd = fd, .id = ++l->ids};
    }
}

static void conn_close(conn *c)
{
    close(c->fd);
    serve_lines_free(&c->in);
    jline_free(&c->out);
}

/* Closes the connections that are gone, or ended with nothing left to send. */
static void sweep(listener *l)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        conn *c = &l->conns[i];
        if (c->gone || (c->eof && !unsent(c)))
            conn_close(c);
        else
            l->conns[k++] = *c;
    }
    l->n = k;
}

/* One turn: poll, then read from and write to every connection ready. */
static int turn(listener *l, const sigset_t *during)
{
    l->pfds[0] = (struct pollfd){.fd = l->n < LISTEN_MAX_CONNS ? l->fd : -1, .events = POLLIN};
    for (size_t i = 0; i < l->n; i++) {
        const conn *c = &l->conns[i];
        short ev = (short)((c->eof ? 0 : POLLIN) | (unsent(c) ? POLLOUT : 0));
        l->pfds[i + 1] = (struct pollfd){.fd = c->fd, .events = ev};
    }
    if (ppoll(l->pfds, l->n + 1, NULL, during) < 0)
        return errno == EINTR ? 0 : -1;
    size_t polled = l->n;
    for (size_t i = 0; i < polled; i++) {
        conn *c = &l->conns[i];
        short re = l->pfds[i + 1].revents;
        l->current = i;
        if (!c->eof && (re & (POLLIN | POLLHUP | POLLERR)))
            take_requests(l, c);
        if (!c->gone && unsent(c) && (re & (POLLOUT | POLLHUP | POLLERR)))
            flush(c);
    }
    l->current = (size_t)-1;
    if (l->pfds[0].revents & POLLIN)
        accept_all(l);
    sweep(l);
    return 0;
}

static int loop(listener *l, const sigset_t *during)
{
    l->pfds = malloc(sizeof *l->pfds);
    if (!l->pfds) {
        errno = ENOMEM;
        return -1;
    }
    serve_set_others(l->sv, others_open, l);
    int rc = 0;
    while (rc == 0 && !stop_signal)
        rc = turn(l, during);
    int saved = errno;
    for (size_t i = 0; i < l->n; i++)
        conn_close(&l->conns[i]);
    free(l->conns);
    free(l->pfds);
    errno = saved;
    return rc;
}

int serve_listen(const plan *p, const store_driver *sd, const target_spec *ts, endpoint *e)
{
    static const int stops[] = {SIGTERM, SIGINT, SIGHUP};
    struct sigaction sa = {.sa_handler = on_stop}, old[3];
    sigset_t block, saved, during;
    sigemptyset(&sa.sa_mask);
    sigemptyset(&block);
    for (int i = 0; i < 3; i++) {
        sigaddset(&block, stops[i]);
        sigaction(stops[i], &sa, &old[i]);
    }
    stop_signal = 0;
    sigprocmask(SIG_BLOCK, &block, &saved);
    during = saved;
    for (int i = 0; i < 3; i++)
        sigdelset(&during, stops[i]);

    char err[1024], name[ENDPOINT_PATH_MAX + 32];
    int rc = EXIT_CLEAN;
    server *sv = NULL;
    int fd = endpoint_listen(e, err, sizeof err);
    if (fd < 0 || serve_open(p, sd, ts, &sv, err, sizeof err) < 0) {
        fprintf(stderr, "bench serve: %s\n", err);
        rc = EXIT_FAILED;
    } else {
        endpoint_format(e, name, sizeof name);
        fprintf(stderr, "bench serve: listening on %s\n", name);
        listener l = {.sv = sv, .fd = fd, .tcp = e->kind == ENDPOINT_TCP};
        if (loop(&l, &during) < 0) {
            fprintf(stderr, "bench serve: %s\n", strerror(errno));
            rc = EXIT_FAILED;
        }
    }
    if (fd >= 0)
        close(fd);
    endpoint_remove(e);
    serve_close(sv);
    sigprocmask(SIG_SETMASK, &saved, NULL);
    for (int i = 0; i < 3; i++)
        sigaction(stops[i], &old[i], NULL);
    return rc;
}
