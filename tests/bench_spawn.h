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
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

/* Runs argv (argv[0] a path; NULL-terminated) with stdin from /dev/null. */
static inline spawn_output spawn_run(char *const *argv)
{
    spawn_output o = {.out = calloc(1, 1), .err = calloc(1, 1)};
    assert_non_null(o.out);
    assert_non_null(o.err);
    int out_pipe[2], err_pipe[2];
    assert_int_equal(pipe(out_pipe), 0);
    assert_int_equal(pipe(err_pipe), 0);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_pipe[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
    posix_spawn_file_actions_addclose(&fa, out_pipe[0]);
    posix_spawn_file_actions_addclose(&fa, err_pipe[0]);
    posix_spawn_file_actions_addclose(&fa, out_pipe[1]);
    posix_spawn_file_actions_addclose(&fa, err_pipe[1]);
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out_pipe[1]);
    close(err_pipe[1]);
    if (rc != 0) {
        close(out_pipe[0]);
        close(err_pipe[0]);
        fail_msg("cannot run %s: %s (build bench first)", argv[0], strerror(rc));
    }
    struct pollfd fds[2] = {{.fd = out_pipe[0], .events = POLLIN},
                            {.fd = err_pipe[0], .events = POLLIN}};
    int open_fds = 2;
    char buf[8192];
    while (open_fds > 0) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            fail_msg("poll: %s", strerror(errno));
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
    int ws;
    while (waitpid(pid, &ws, 0) < 0)
        assert_int_equal(errno, EINTR);
    o.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    return o;
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
