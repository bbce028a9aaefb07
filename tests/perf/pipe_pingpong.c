/* pipe_pingpong.c: the peer the process target is measured against: a raw
 * C round trip over two pipes with nothing else in it. The parent writes a
 * request line of the size of a pizzas request; a forked child reads it
 * with a blocking read(2) and writes back an answer line of the size of a
 * pizzas answer; the parent reads it with a blocking read(2). The parent
 * times each round trip with the runner's two clock reads (clock.h: the TSC
 * where the runner reads it, else CLOCK_MONOTONIC), into the same
 * histogram, and prints the p50 and the round trips per second over the
 * whole timed loop. Placement is whatever the caller set (taskset); the
 * child inherits it. A benchmark, not a test.
 *
 * usage: perf_pipe_pingpong [ROUND_TRIPS [RUNS]]   (default 200000 3)
 * prints one line per run and a last line "median p50_us X round_trips_per_s Y". */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "hist.h"
#include "line_io.h"

/* As bench writes them for cycle 123456 of specs/pizzas.yaml. */
static const char request[] =
    "{\"verb\":\"Order.AddTopping\",\"args\":{\"name\":\"pizza-123456\",\"topping\":"
    "\"Basil\",\"amount\":3}}\n";
static const char answer[] =
    "{\"ok\":true,\"events\":[{\"name\":\"ToppingAdded\",\"payload\":{\"name\":\"pizza-123456\","
    "\"topping\":\"Basil\",\"amount\":3}}]}\n";

static void echo_child(int in, int out)
{
    char buf[4096];
    while (read_line(in, buf, sizeof buf) == 0)
        if (write_all(out, answer, sizeof answer - 1) < 0)
            break;
    _exit(0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    long trips = argc > 1 ? atol(argv[1]) : 200000;
    int runs = argc > 2 ? atoi(argv[2]) : 3;
    if (trips < 1 || runs < 1 || runs > 100) {
        fprintf(stderr, "usage: %s [ROUND_TRIPS [RUNS]]\n", argv[0]);
        return 2;
    }
    double p50s[100], rates[100];
    clock_fast_init();
    for (int r = 0; r < runs; r++) {
        int to_child[2], to_parent[2];
        if (pipe(to_child) < 0 || pipe(to_parent) < 0) {
            perror("pipe");
            return 1;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(to_child[1]);
            close(to_parent[0]);
            echo_child(to_child[0], to_parent[1]);
        }
        close(to_child[0]);
        close(to_parent[1]);
        hist h;
        if (hist_init(&h) < 0)
            return 1;
        char buf[4096];
        /* a warmup as the runner's (untimed) */
        for (long i = 0; i < trips / 10; i++)
            if (write_all(to_child[1], request, sizeof request - 1) < 0 ||
                read_line(to_parent[0], buf, sizeof buf) < 0)
                return 1;
        uint64_t start = clock_fast_start();
        for (long i = 0; i < trips; i++) {
            uint64_t t0 = clock_fast_start();
            if (write_all(to_child[1], request, sizeof request - 1) < 0 ||
                read_line(to_parent[0], buf, sizeof buf) < 0) {
                fprintf(stderr, "the echo child went away\n");
                return 1;
            }
            hist_record(&h, clock_fast_stop() - t0);
        }
        double wall = (double)(clock_fast_start() - start) / 1e9;
        close(to_child[1]);
        close(to_parent[0]);
        waitpid(pid, NULL, 0);
        p50s[r] = (double)hist_percentile(&h, 0.5) / 1000.0;
        rates[r] = (double)trips / wall;
        printf("run %d: %ld round trips of %zu+%zu bytes, p50 %.3f us, p99 %.3f us, %.0f round "
               "trips/s\n",
               r + 1, trips, sizeof request - 1, sizeof answer - 1, p50s[r],
               (double)hist_percentile(&h, 0.99) / 1000.0, rates[r]);
        hist_free(&h);
    }
    printf("median p50_us %.3f round_trips_per_s %.0f\n", median(p50s, runs), median(rates, runs));
    return 0;
}
