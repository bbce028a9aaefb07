/* bench_spawn.h: runs the real bench binary (or any program) from a test
 * and collects its exit status, stdout and stderr, reading both pipes to the
 * end before waiting so that a chatty child never blocks. Used by the tests
 * that run bench or a runtime as a user would (test_cli.c, test_gate_cli.c,
 * test_html.c, test_process.c, test_serve.c); include after cmocka.h. */
#ifndef BENCH_TESTS_SPAWN_H
#define BENCH_TESTS_SPAWN_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_BINARY
#define BENCH_BINARY "build/dev/bench"
#endif

extern char **environ;

typedef struct spawn_output {
    char *out, *err;
    size_t out_len, err_len;
    int status; /* the exit status, or 128 + signal */
} spawn_output;

/* BENCH_BINARY from the environment, else the one CMake built. */
static inline const char *spawn_bench_path(void)
{
    const char *env = getenv("BENCH_BINARY");
    return env && *env ? env : BENCH_BINARY;
}

static inline void spawn_append(char **buf, size_t *len, const char *data, size_t n)
{
    char *grown = realloc(*buf, *len + n + 1);
    assert_non_null(grown);
    *buf = grown;
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
}

/* How to run a child beyond its arguments; every field is optional. */
typedef struct spawn_options {
    const char *stdin_text;  /* fed to its stdin, which then closes; NULL: /dev/null */
    const char *stdout_path; /* its stdout opened on this file (such as /dev/full)
                                instead of a pipe; then out stays empty */
    int signal;              /* sent once, signal_after_ms after the start */
    int signal_after_ms;
    const char *cwd; /* its working directory; NULL: the test's (argv[0] must not
                        be relative then) */
} spawn_options;

static inline long spawn_elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* Runs argv (argv[0] a path; NULL-terminated) as opt says (NULL: stdin from
 * /dev/null, stdout and stderr collected). */
static inline spawn_output spawn_run_with(char *const *argv, const spawn_options *opt)
{
    static const spawn_options none = {0};
    if (!opt)
        opt = &none;
    spawn_output o = {.out = calloc(1, 1), .err = calloc(1, 1)};
    assert_non_null(o.out);
    assert_non_null(o.err);
    int out_pipe[2], err_pipe[2], in_pipe[2] = {-1, -1};
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    if (opt->stdin_text)
        assert_int_equal(pipe(in_pipe), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (opt->stdin_text)
        posix_spawn_file_actions_adddup2(&fa, in_pipe[0], 0);
    else
        posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (opt->stdout_path)
        posix_spawn_file_actions_addopen(&fa, 1, opt->stdout_path, O_WRONLY, 0);
    else
        posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
    posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
    posix_spawn_file_actions_addclose(&fa, out_pipe[1]);
    posix_spawn_file_actions_addclose(&fa, err_pipe[1]);
    if (opt->stdin_text) {
        posix_spawn_file_actions_addclose(&fa, in_pipe[0]);
        posix_spawn_file_actions_addclose(&fa, in_pipe[1]);
    }
    pid_t pid;
    int here = opt->cwd ? open(".", O_RDONLY | O_DIRECTORY) : -1; /* the child starts in cwd */
    if (opt->cwd)
        assert_int_equal(chdir(opt->cwd), 0);
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    if (here >= 0) {
        assert_int_equal(fchdir(here), 0);
        close(here);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (opt->stdin_text)
        close(in_pipe[0]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        if (opt->stdin_text)
            close(in_pipe[1]);
        fail_msg("cannot run %s: %s (build bench first)", argv[0], strerror(rc));
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    bool signalled = opt->signal == 0;
    const char *in = opt->stdin_text;
    size_t in_left = in ? strlen(in) : 0;
    if (in && in_left == 0) {
        close(in_pipe[1]);
        in_pipe[1] = -1;
    }
    /* [0] stdout, [1] stderr, [2] the child's stdin while text is left */
    struct pollfd fds[3] = {{.fd = out_pipe[0], .events = POLLIN},
                            {.fd = err_pipe[0], .events = POLLIN},
                            {.fd = in ? in_pipe[1] : -1, .events = POLLOUT}};
    int open_fds = 2;
    char buf[8192];
    void (*old_pipe)(int) = signal(SIGPIPE, SIG_IGN); /* a child that stops reading */
    while (open_fds > 0) {
        int timeout = -1;
        if (!signalled) {
            long left = opt->signal_after_ms - spawn_elapsed_ms(&start);
            if (left <= 0) {
                kill(pid, opt->signal);
                signalled = true;
            } else {
                timeout = (int)left;
            }
        }
        if (poll(fds, 3, timeout) < 0) {
            if (errno == EINTR)
                continue;
            fail_msg("poll: %s", strerror(errno));
        }
        if (fds[2].fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t put = write(fds[2].fd, in, in_left);
            if (put > 0) {
                in += put;
                in_left -= (size_t)put;
            }
            if ((put < 0 && errno != EINTR && errno != EAGAIN) || in_left == 0) {
                close(fds[2].fd);
                fds[2].fd = -1;
            }
        }
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got > 0) {
                if (i == 0)
                    spawn_append(&o.out, &o.out_len, buf, (size_t)got);
                else
                    spawn_append(&o.err, &o.err_len, buf, (size_t)got);
            } else if (got == 0 || errno != EINTR) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            }
        }
    }
    if (fds[2].fd >= 0)
        close(fds[2].fd);
    signal(SIGPIPE, old_pipe);
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        assert_int_equal(errno, EINTR);
    o.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return o;
}

/* Runs argv with stdin from /dev/null, collecting stdout and stderr. */
static inline spawn_output spawn_run(char *const *argv)
{
    return spawn_run_with(argv, NULL);
}

static inline void spawn_output_free(spawn_output *o)
{
    free(o->out);
    free(o->err);
    o->out = o->err = NULL;
}

/* Removes dir and everything in it (a scratch directory the test made). */
static inline void spawn_remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf -- '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
}

#endif
