/* serve_spawn.h: `bench serve --listen` started from a test (its pid, its
 * stderr, the address it printed) and connections to it, for test_serve.c
 * and test_process.c. Every wait has a deadline, so a server that does not
 * answer fails the test instead of hanging it, and a server is always
 * reaped. Include after cmocka.h and bench_spawn.h. */
#ifndef BENCH_TESTS_SERVE_SPAWN_H
#define BENCH_TESTS_SERVE_SPAWN_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>

typedef struct listening {
    pid_t pid;      /* 0 once it has ended */
    int err;        /* its stderr, our read end */
    char addr[512]; /* as it printed it: unix:PATH or tcp:127.0.0.1:PORT */
    char *log;      /* once it has ended: what it wrote on stderr after that line (malloc'd) */
    int status;     /* once it has ended: its exit status, or 128 + signal */
} listening;

/* Reads l->err to its end (up to 10 s) into l->log and reaps the server. */
static inline void listen_collect(listening *l)
{
    size_t len = 0;
    char buf[4096];
    free(l->log);
    l->log = calloc(1, 1);
    assert_non_null(l->log);
    for (;;) {
        struct pollfd pf = {.fd = l->err, .events = POLLIN};
        if (poll(&pf, 1, 10000) != 1)
            break;
        ssize_t n = read(l->err, buf, sizeof buf);
        if (n <= 0)
            break;
        spawn_append(&l->log, &len, buf, (size_t)n);
    }
    close(l->err);
    int ws = 0;
    for (int i = 0; i < 1000 && waitpid(l->pid, &ws, WNOHANG) == 0; i++)
        usleep(10000);
    if (waitpid(l->pid, NULL, WNOHANG) == 0) { /* still running: do not leave it */
        kill(l->pid, SIGKILL);
        waitpid(l->pid, NULL, 0);
        fail_msg("bench serve --listen did not end");
    }
    l->status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    l->pid = 0;
}

/* Starts `bench serve --listen addr [--store STORE] spec` and waits up to
 * 10 s for its line "bench serve: listening on ADDR". True once it
 * listens; false when it ended first (l->status and l->log say how). */
static inline bool listen_start(listening *l, const char *store_name, const char *addr,
                                const char *spec)
{
    *l = (listening){0};
    int errp[2];
    assert_int_equal(pipe(errp), 0);
    l->pid = fork();
    assert_true(l->pid >= 0);
    if (l->pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(errp[1], 2);
        close(errp[0]), close(errp[1]);
        const char *b = spawn_bench_path();
        if (store_name)
            execl(b, b, "serve", "--listen", addr, "--store", store_name, spec, (char *)NULL);
        else
            execl(b, b, "serve", "--listen", addr, spec, (char *)NULL);
        _exit(127);
    }
    close(errp[1]);
    l->err = errp[0];
    static const char want[] = "bench serve: listening on ";
    char line[512];
    size_t len = 0;
    while (len < sizeof line - 1) { /* byte by byte: nothing after the line is taken */
        struct pollfd pf = {.fd = l->err, .events = POLLIN};
        if (poll(&pf, 1, 10000) != 1 || read(l->err, line + len, 1) != 1)
            break;
        if (line[len++] == '\n')
            break;
    }
    line[len] = '\0';
    if (len && line[len - 1] == '\n' && !strncmp(line, want, sizeof want - 1)) {
        line[len - 1] = '\0';
        snprintf(l->addr, sizeof l->addr, "%s", line + sizeof want - 1);
        return true;
    }
    listen_collect(l);
    size_t loglen = strlen(l->log);
    char *whole = malloc(len + loglen + 1);
    assert_non_null(whole);
    memcpy(whole, line, len);
    memcpy(whole + len, l->log, loglen + 1);
    free(l->log);
    l->log = whole;
    return false;
}

/* Sends sig (SIGTERM, SIGINT), then collects the server as listen_collect
 * does. Returns its exit status. */
static inline int listen_stop(listening *l, int sig)
{
    assert_true(l->pid > 0);
    kill(l->pid, sig);
    listen_collect(l);
    return l->status;
}

static inline void listen_free(listening *l)
{
    if (l->pid > 0)
        listen_stop(l, SIGKILL);
    free(l->log);
    l->log = NULL;
}

/* A socket connected to addr (unix:PATH or tcp:127.0.0.1:PORT), or -1 with
 * errno set. */
static inline int listen_connect(const char *addr)
{
    struct sockaddr_un un = {.sun_family = AF_UNIX};
    struct sockaddr_in in = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct sockaddr *sa;
    socklen_t len;
    if (!strncmp(addr, "unix:", 5)) {
        assert_true(strlen(addr + 5) < sizeof un.sun_path);
        memcpy(un.sun_path, addr + 5, strlen(addr + 5) + 1);
        sa = (struct sockaddr *)&un, len = sizeof un;
    } else {
        const char *colon = strrchr(addr, ':');
        assert_non_null(colon);
        in.sin_port = htons((uint16_t)atoi(colon + 1));
        sa = (struct sockaddr *)&in, len = sizeof in;
    }
    int fd = socket(sa->sa_family, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    if (connect(fd, sa, len) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

#endif
