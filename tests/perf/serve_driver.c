/* serve_driver.c: `bench serve` driven by the least a driver can be, to
 * split the process target's distance from the pipe ping-pong in two. It
 * starts COMMAND as a child with its stdin and stdout on two pipes, as the
 * process target does, and writes it the pizzas cycle as bench writes it
 * (CreatePizza, AddTopping twice, Purchase; cycle n names pizza-<n>), each
 * request line formatted before the first clock read, then a blocking
 * write(2) and blocking read(2)s up to the answer's newline between the two
 * clock reads (clock.h, as perf_pipe_pingpong and the runner), and a look
 * at the answer's {"ok":true after. A tenth as many cycles go first,
 * untimed. It prints the p50 and the commands per second over the whole
 * timed loop, as perf_pipe_pingpong prints its round trips: with `bench
 * serve` as COMMAND, what is left between this and the ping-pong is bench
 * serve's share (its work, and a child that is a program of its own rather
 * than a fork), and what is left between this and the process target is
 * bench's side (the runner and the target). Placement is the caller's
 * (taskset); the child inherits it. A benchmark, not a test.
 *
 * usage: perf_serve_driver CYCLES COMMAND [ARG...]
 * prints "p50_us X commands_per_s Y". */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "clock.h"
#include "hist.h"
#include "line_io.h"

/* Step s of cycle n, as the process target writes it for specs/pizzas.yaml. */
static int request(char *buf, size_t size, long n, int s)
{
    if (s == 0)
        return snprintf(
            buf, size,
            "{\"verb\":\"Order.CreatePizza\",\"args\":{\"name\":\"pizza-%ld\",\"pizza\":"
            "{\"price_cents\":1200,\"size\":\"large\"}}}\n",
            n);
    if (s < 3)
        return snprintf(
            buf, size,
            "{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"pizza-%ld\",\"topping\":"
            "\"%s\",\"amount\":%d}}\n",
            n, s == 1 ? "Basil" : "Olive", s == 1 ? 3 : 2);
    return snprintf(
        buf, size,
        "{\"verb\":\"Order.Purchase\",\"args\":{\"name\":\"pizza-%ld\",\"customer_name\":"
        "\"Chris\",\"amount\":1200}}\n",
        n);
}

int main(int argc, char **argv)
{
    long cycles = argc > 2 ? atol(argv[1]) : 0;
    if (cycles < 10) {
        fprintf(stderr, "usage: %s CYCLES COMMAND [ARG...]   (CYCLES at least 10)\n", argv[0]);
        return 2;
    }
    int to_child[2], to_parent[2];
    if (pipe(to_child) < 0 || pipe(to_parent) < 0) {
        perror("perf_serve_driver: pipe");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("perf_serve_driver: fork");
        return 1;
    }
    if (pid == 0) {
        dup2(to_child[0], STDIN_FILENO);
        dup2(to_parent[1], STDOUT_FILENO);
        close(to_child[0]);
        close(to_child[1]);
        close(to_parent[0]);
        close(to_parent[1]);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "perf_serve_driver: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    close(to_child[0]);
    close(to_parent[1]);
    clock_fast_init();
    hist h;
    if (hist_init(&h) < 0)
        return 1;
    char req[512], answer[65536];
    long warm = cycles / 10;
    uint64_t start = 0;
    int rc = 0;
    for (long n = 0; n < warm + cycles && rc == 0; n++) {
        if (n == warm)
            start = clock_fast_start();
        for (int s = 0; s < 4; s++) {
            int len = request(req, sizeof req, n, s);
            uint64_t t0 = clock_fast_start();
            if (write_all(to_child[1], req, (size_t)len) < 0 ||
                read_line(to_parent[0], answer, sizeof answer) < 0) {
                fprintf(stderr, "perf_serve_driver: %s went away\n", argv[2]);
                rc = 1;
                break;
            }
            uint64_t t1 = clock_fast_stop();
            if (n >= warm)
                hist_record(&h, t1 - t0);
            if (strncmp(answer, "{\"ok\":true", 10) != 0) {
                char *nl = memchr(answer, '\n', sizeof answer);
                fprintf(stderr, "perf_serve_driver: refused: %.*s\n", (int)(nl ? nl - answer : 200),
                        answer);
                rc = 1;
                break;
            }
        }
    }
    double wall = (double)(clock_fast_start() - start) / 1e9;
    close(to_child[1]);
    close(to_parent[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (rc == 0)
        printf("p50_us %.3f commands_per_s %.0f\n", (double)hist_percentile(&h, 0.5) / 1000.0,
               (double)(cycles * 4) / wall);
    hist_free(&h);
    return rc;
}
