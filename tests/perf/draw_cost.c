/* draw_cost.c: what one dist_draw costs, per distribution, over a pool of
 * 1,000,000 items, fixed and (for latest) moving by ±1 every draw as a pool
 * does; rng_next alone for comparison. Prints ns per draw. A benchmark, not
 * a test. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "draw.h"

#define DRAWS 20000000
#define POOL 1000000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ns per draw from text's distribution; wobble moves n by ±1 each draw. */
static int run(const char *text, int wobble, uint64_t *sink)
{
    dist_spec spec;
    char why[256];
    if (dist_parse(text, strlen(text), &spec, NULL, why, sizeof why) != 0) {
        fprintf(stderr, "draw_cost: %s: %s\n", text, why);
        return 1;
    }
    dist_state st;
    dist_init(&st, &spec);
    rng r;
    rng_seed(&r, 1, 0);
    uint64_t sum = 0;
    double t0 = now_ns();
    for (long i = 0; i < DRAWS; i++)
        sum += dist_draw(&st, &r, POOL + (uint64_t)(wobble & i));
    double ns = (now_ns() - t0) / DRAWS;
    printf("%-18s%-12s %6.2f ns/draw\n", text, wobble ? " n +-1" : "", ns);
    *sink += sum;
    return 0;
}

static void run_rng(uint64_t *sink)
{
    rng r;
    rng_seed(&r, 1, 0);
    uint64_t sum = 0;
    double t0 = now_ns();
    for (long i = 0; i < DRAWS; i++)
        sum += rng_next(&r);
    printf("%-30s %6.2f ns/draw\n", "rng_next", (now_ns() - t0) / DRAWS);
    *sink += sum;
}

int main(void)
{
    static const char *const texts[] = {"uniform",           "zipf",   "zipf(0.8)", "latest",
                                        "hotspot(0.2, 0.8)", "oldest", "newest"};
    uint64_t sink = 0;
    run_rng(&sink);
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++)
        if (run(texts[i], 0, &sink) != 0)
            return 1;
    if (run("latest", 1, &sink) != 0)
        return 1;
    printf("(sink %" PRIu64 ")\n", sink & 1);
    return 0;
}
