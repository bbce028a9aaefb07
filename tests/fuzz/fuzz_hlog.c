/* fuzz_hlog.c: HdrHistogram interval logs as bench merge --logs reads them
 * (the shards' --hlog files, from other machines). The first byte chooses:
 *   odd:  the rest is an uncompressed V2 histogram (cookie, header, counts),
 *         which the harness deflates, frames and base64-encodes as a log
 *         would hold it, so that the decoder behind zlib is reached; a
 *         histogram that decodes is encoded again (hlog_encode) and must
 *         decode to the same samples;
 *   even: the rest is one log, or two split at the first NUL byte, merged
 *         whole (hlog_merge_files: the lines, the header, the tags, the
 *         shards, each payload) into a scratch file. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "error.h"
#include "hist.h"
#include "hlog.h"
#include "hlog_merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *base64_of(const uint8_t *p, size_t n)
{
    static const char d[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = malloc(4 * (n / 3 + 1) + 1), *o = s;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *o++ = d[w >> 18 & 63];
        *o++ = d[w >> 12 & 63];
        *o++ = i + 1 < n ? d[w >> 6 & 63] : '=';
        *o++ = i + 2 < n ? d[w & 63] : '=';
    }
    *o = '\0';
    return s;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void payload(hist *h, hist *again, const uint8_t *raw, size_t n)
{
    uLongf zlen = compressBound(n);
    uint8_t *z = malloc(8 + zlen);
    if (compress2(z + 8, &zlen, raw, n, 1) != Z_OK) {
        free(z);
        return;
    }
    put_be32(z, UINT32_C(0x1c849304) | 0x10);
    put_be32(z + 4, (uint32_t)zlen);
    char *b64 = base64_of(z, 8 + zlen);
    free(z);
    bench_error e = {{0}};
    int digits;
    hist_reset(h);
    if (hlog_decode(b64, strlen(b64), h, &digits, &e) == 0) {
        char *back = NULL;
        if (hlog_encode(h, &back, &e) == 0) {
            hist_reset(again);
            if (hlog_decode(back, strlen(back), again, &digits, &e) != 0 ||
                hist_count(again) != hist_count(h) ||
                memcmp(again->counts, h->counts, HIST_BUCKETS * sizeof *h->counts) != 0) {
                fprintf(stderr, "a decoded histogram did not decode the same again: %s\n", e.msg);
                abort();
            }
        }
        free(back);
    }
    free(b64);
}

/* A file of the bytes, as /proc/self/fd/N in path; -1 when it cannot be made. */
static int file_of(const uint8_t *p, size_t n, char *path, size_t size)
{
    int fd = memfd_create("fuzz_hlog", 0);
    if (fd < 0)
        return -1;
    if (n && write(fd, p, n) != (ssize_t)n) {
        close(fd);
        return -1;
    }
    snprintf(path, size, "/proc/self/fd/%d", fd);
    return fd;
}

static void logs(const uint8_t *p, size_t n)
{
    static char out[64];
    if (!out[0])
        snprintf(out, sizeof out, "/tmp/fuzz_hlog.%d.out", (int)getpid());
    const uint8_t *nul = memchr(p, 0, n);
    size_t first = nul ? (size_t)(nul - p) : n;
    char a[64], b[64];
    int fa = file_of(p, first, a, sizeof a), fb = -1;
    if (fa < 0)
        return;
    if (nul)
        fb = file_of(nul + 1, n - first - 1, b, sizeof b);
    const char *paths[2] = {a, b};
    char err[1024];
    hlog_merge_files(paths, fb >= 0 ? 2 : 1, out, err, sizeof err);
    close(fa);
    if (fb >= 0)
        close(fb);
    unlink(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static hist h, again;
    static bool ready;
    if (!ready) {
        if (hist_init(&h) < 0 || hist_init(&again) < 0)
            abort();
        ready = true;
    }
    if (size == 0)
        return 0;
    if (data[0] & 1)
        payload(&h, &again, data + 1, size - 1);
    else
        logs(data + 1, size - 1);
    return 0;
}
