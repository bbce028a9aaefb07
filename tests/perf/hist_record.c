/* hist_record.c: what one hist_record costs. Records 100,000,000 xorshift
 * values and prints ns per record, for latencies spread over 1 ns..1 ms (the
 * usual case: about 10,000 buckets in use) and over the whole range to an
 * hour (every bucket, so cache misses show). The generator alone is timed
 * too, since it runs inside the loop. A benchmark, not a test. */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "hist.h"

#define RECORDS 100000000

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* ns per generated value, summed so the loop is not optimised away. */
static double time_generator(uint64_t mask, uint64_t *sink)
{
    uint64_t s = 88172645463325252u, sum = 0;
    double t0 = now_ns();
    for (long i = 0; i < RECORDS; i++)
        sum += xorshift(&s) & mask;
    *sink += sum;
    return (now_ns() - t0) / RECORDS;
}

/* ns per generated and recorded value, into h. */
static double time_record(hist *h, uint64_t mask)
{
    uint64_t s = 88172645463325252u;
    double t0 = now_ns();
    for (long i = 0; i < RECORDS; i++)
        hist_record(h, xorshift(&s) & mask);
    return (now_ns() - t0) / RECORDS;
}

static int run(const char *label, uint64_t mask)
{
    hist h;
    uint64_t sink = 0;
    if (hist_init(&h) != 0) {
        fprintf(stderr, "hist_record: out of memory\n");
        return 1;
    }
    double gen = time_generator(mask, &sink);
    double rec = time_record(&h, mask);
    printf("%-22s %.2f ns/record (generator %.2f, record alone %.2f); p50 %" PRIu64 " ns, %" PRIu64
           " clamped, sink %" PRIu64 "\n",
           label, rec, gen, rec - gen, hist_percentile(&h, 0.5), h.clamped, sink & 1);
    hist_free(&h);
    return 0;
}

int main(void)
{
    if (run("values 0..1 ms:", (UINT64_C(1) << 20) - 1) != 0)
        return 1;
    return run("values 0..1.2 hours:", (UINT64_C(1) << 42) - 1);
}
