/* page_touch.c: what this machine charges for memory a process touches for
 * the first time, with nothing else in the way: it maps MB megabytes of
 * fresh anonymous memory and writes one byte to each page in turn, timing
 * every write with CLOCK_MONOTONIC, and prints the slowest write, how many
 * took over 50 and over 100 us, and the involuntary context switches
 * meanwhile (writes that were slow without one were not preempted: the
 * page fault itself was slow). The memory target's max-latency benchmark
 * at 2,000,000 records grows the store by about 1.8 GB, so each of its
 * commands that first touches a page pays this; this is the floor of that
 * max on this machine, whatever the store does. Placement is the caller's
 * (taskset). A benchmark, not a test.
 *
 * It then does the same over a mapping made with MAP_POPULATE, as the
 * memory store's reserve maps its room, and prints the mean first write
 * there against the mean second write: where the host backs a page only at
 * the process's first access, MAP_POPULATE does not make it ready, and the
 * store must touch each page itself (store_memory.c, touch_pages).
 *
 * usage: perf_page_touch [MB]   (default 1024) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

int main(int argc, char **argv)
{
    long mb = argc > 1 ? strtol(argv[1], NULL, 10) : 1024;
    if (mb <= 0 || mb > 65536) {
        fprintf(stderr, "usage: perf_page_touch [MB]   (MB from 1 to 65536)\n");
        return 2;
    }
    size_t bytes = (size_t)mb << 20, page = 4096;
    volatile char *p =
        mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        perror("perf_page_touch: mmap");
        return 1;
    }
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    uint64_t slowest = 0;
    long over50 = 0, over100 = 0;
    for (size_t i = 0; i < bytes; i += page) {
        uint64_t a = now_ns();
        p[i] = 1;
        uint64_t d = now_ns() - a;
        slowest = d > slowest ? d : slowest;
        over50 += d > 50000;
        over100 += d > 100000;
    }
    getrusage(RUSAGE_SELF, &after);
    printf("first touch of %ld MB (%zu pages): slowest %.1f us, %ld over 50 us, %ld over 100 us; "
           "%ld involuntary context switches\n",
           mb, bytes / page, (double)slowest / 1000.0, over50, over100,
           after.ru_nivcsw - before.ru_nivcsw);
    munmap((void *)p, bytes);

    p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1,
             0);
    if (p == MAP_FAILED) {
        perror("perf_page_touch: mmap");
        return 1;
    }
    uint64_t pass_ns[2] = {0, 0};
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < bytes; i += page) {
            uint64_t a = now_ns();
            p[i] = 1;
            pass_ns[pass] += now_ns() - a;
        }
    printf("populated (MAP_POPULATE) %ld MB: first write %.0f ns a page, second %.0f ns (mean)\n",
           mb, (double)pass_ns[0] / (double)(bytes / page),
           (double)pass_ns[1] / (double)(bytes / page));
    munmap((void *)p, bytes);
    return 0;
}
