/* hlog.c: HdrHistogram's interval log, written from bench's histograms.
 *
 * The format is HdrHistogram's own (github.com/HdrHistogram/HdrHistogram,
 * src/main/java/org/HdrHistogram): the lines as HistogramLogWriter.java
 * writes them (log format 1.3); the histogram as
 * AbstractHistogram.encodeIntoCompressedByteBuffer, encodeIntoByteBuffer and
 * fillBufferFromCountsArray encode it (V2); the counts as ZigZagEncoding.java
 * writes them. Checked against the readers: HistogramLogReader.java and
 * HistogramLogScanner.java there, HdrHistogram_c's src/hdr_histogram_log.c,
 * and hdr-histogram-js's src/HistogramLogReader.ts and
 * src/JsHistogram.encoding.ts (the peer tests/test_hlog.c runs). */
#include "hlog.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "alloc.h"

/* AbstractHistogram's V2 cookies; 0x10 in the word-size nibble says the
 * counts are ZigZag LEB128 (getEncodingCookie, getCompressedEncodingCookie). */
#define HLOG_ENCODING_COOKIE (UINT32_C(0x1c849303) | 0x10)
#define HLOG_COMPRESSED_COOKIE (UINT32_C(0x1c849304) | 0x10)
/* ENCODING_HEADER_SIZE: cookie, payload length, normalizing index offset,
 * significant digits (4-byte ints), lowest discernible and highest trackable
 * value (8-byte longs), integer-to-double ratio (an 8-byte double); all
 * big-endian, as Java's ByteBuffer. */
#define HLOG_HEADER_SIZE 40
/* The compressed form's cookie and deflated length, before the zlib stream. */
#define HLOG_COMPRESSED_HEADER_SIZE 8
/* LEB128-64b9B: a 64-bit value takes 9 bytes at most. */
#define HLOG_VARINT_MAX 9

/* The HdrHistogram the log describes: lowest discernible value 1, highest
 * trackable HIST_MAX_NS, 3 significant digits. AbstractHistogram.init: 2 *
 * 10^3 needs 11 bits, so a bucket has 2^11 sub-buckets (half of them, 2^10,
 * above its first), the unit magnitude is 0 and the leading-zero base is
 * 64 - 0 - 11 = 53. */
#define HDR_SIG_DIGITS 3
#define HDR_SUB_HALF_MAGNITUDE 10
#define HDR_SUB_BUCKET_MASK UINT64_C(2047)
#define HDR_LEADING_ZERO_BASE 53

#define HLOG_VERSION "1.3"
/* HdrHistogram_c reads header lines into 128 bytes: "#[", a comment, "]\n"
 * and the NUL must fit. */
#define HLOG_COMMENT_MAX 120

/* countsArrayIndex: getBucketIndex and getSubBucketIndex, then the bucket's
 * base index plus the sub-bucket's offset in the bucket's upper half.
 * bench's hist.h has the same layout, so this is hist_index today; going
 * through the bucket's value keeps the log right if hist.h changes. */
static size_t hdr_index(uint64_t v)
{
    unsigned bucket = HDR_LEADING_ZERO_BASE - (unsigned)__builtin_clzll(v | HDR_SUB_BUCKET_MASK);
    size_t base = (size_t)(bucket + 1) << HDR_SUB_HALF_MAGNITUDE;
    return base + (size_t)(v >> bucket) - ((size_t)1 << HDR_SUB_HALF_MAGNITUDE);
}

static void put_be32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (24 - 8 * i));
}

static void put_be64(uint8_t *p, uint64_t v)
{
    put_be32(p, (uint32_t)(v >> 32));
    put_be32(p + 4, (uint32_t)v);
}

/* ZigZagEncoding.putLong: ZigZag, then 7 bits a byte, low first, the top bit
 * saying another follows; the 9th byte holds the last 8 bits whole. Returns
 * the bytes written. */
static size_t put_zigzag(uint8_t *p, int64_t v)
{
    uint64_t z = v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1;
    size_t n = 0;
    while (n < HLOG_VARINT_MAX - 1 && z >> 7) {
        p[n++] = (uint8_t)(z | 0x80);
        z >>= 7;
    }
    p[n++] = (uint8_t)z;
    return n;
}

/* k empty indexes: nothing, one count of 0, or a run written as -k. */
static size_t put_zeros(uint8_t *p, size_t k)
{
    return k == 0 ? 0 : put_zigzag(p, k == 1 ? 0 : -(int64_t)k);
}

/* fillBufferFromCountsArray over the HdrHistogram counts of h: each bench
 * bucket's count at the index of its midpoint, the array ending at the last
 * non-empty index (a single 0 when h is empty, as Java writes for max 0).
 * p has room for 2 varints a bucket and one more. Returns the bytes written. */
static size_t put_counts(uint8_t *p, const hist *h)
{
    size_t len = 0, next = 0, at = 0; /* next: the first index not yet written */
    uint64_t pending = 0;             /* the count at index at, not yet written */
    hist_iter it = hist_iter_start(h);
    while (hist_iter_next(&it)) {
        size_t i = hdr_index(it.mid);
        if (pending && i != at) {
            len += put_zigzag(p + len, (int64_t)pending);
            next = at + 1;
            pending = 0;
        }
        if (!pending) {
            len += put_zeros(p + len, i - next);
            at = i;
        }
        pending += it.count;
    }
    return len + put_zigzag(p + len, (int64_t)pending);
}

/* encodeIntoByteBuffer: the V2 header, then the counts. Returns the new
 * buffer (the caller's to free) and its length in *len. */
static uint8_t *encode_raw(const hist *h, size_t *len)
{
    size_t buckets = 0;
    hist_iter it = hist_iter_start(h);
    while (hist_iter_next(&it))
        buckets++;
    uint8_t *raw = xmalloc(HLOG_HEADER_SIZE + (2 * buckets + 1) * HLOG_VARINT_MAX);
    size_t payload = put_counts(raw + HLOG_HEADER_SIZE, h);
    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof ratio_bits);
    put_be32(raw, HLOG_ENCODING_COOKIE);
    put_be32(raw + 4, (uint32_t)payload);
    put_be32(raw + 8, 0); /* normalizing index offset: none */
    put_be32(raw + 12, HDR_SIG_DIGITS);
    put_be64(raw + 16, 1); /* lowest discernible value */
    put_be64(raw + 24, HIST_MAX_NS);
    put_be64(raw + 32, ratio_bits);
    *len = HLOG_HEADER_SIZE + payload;
    return raw;
}

static char *base64(const uint8_t *p, size_t n)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *s = xmalloc((n + 2) / 3 * 4 + 1), *o = s;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t w = (uint32_t)p[i] << 16;
        w |= i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0;
        w |= i + 2 < n ? (uint32_t)p[i + 2] : 0;
        *o++ = digits[w >> 18 & 63];
        *o++ = digits[w >> 12 & 63];
        *o++ = i + 1 < n ? digits[w >> 6 & 63] : '=';
        *o++ = i + 2 < n ? digits[w & 63] : '=';
    }
    *o = '\0';
    return s;
}

/* encodeIntoCompressedByteBuffer: the compressed cookie, the length of the
 * zlib stream (Java's Deflater wraps deflate in zlib's format), the stream;
 * HistogramLogWriter compresses at BEST_COMPRESSION. */
int hlog_encode(const hist *h, char **b64, bench_error *e)
{
    size_t raw_len;
    uint8_t *raw = encode_raw(h, &raw_len);
    uLongf z_len = compressBound(raw_len);
    uint8_t *z = xmalloc(HLOG_COMPRESSED_HEADER_SIZE + z_len);
    int rc = compress2(z + HLOG_COMPRESSED_HEADER_SIZE, &z_len, raw, raw_len, Z_BEST_COMPRESSION);
    free(raw);
    *b64 = NULL;
    if (rc != Z_OK) {
        free(z);
        return err_set(e, "histogram log: zlib cannot compress a histogram: %s", zError(rc));
    }
    put_be32(z, HLOG_COMPRESSED_COOKIE);
    put_be32(z + 4, (uint32_t)z_len);
    *b64 = base64(z, HLOG_COMPRESSED_HEADER_SIZE + z_len);
    free(z);
    return 0;
}

bool hlog_tag_valid(const char *tag)
{
    if (!*tag)
        return false;
    for (const unsigned char *c = (const unsigned char *)tag; *c; c++)
        if (*c <= ' ' || *c == 0x7f || *c == ',' || *c == '=')
            return false;
    return true;
}

/* Writes are buffered: the error, if any, shows at the flush. */
static int flush(FILE *out, bench_error *e)
{
    if (fflush(out) != 0 || ferror(out))
        return err_set(e, "cannot write the histogram log: %s", strerror(errno));
    return 0;
}

int hlog_begin(FILE *out, double start_epoch_s, const char *comment, bench_error *e)
{
    if (!isfinite(start_epoch_s) || start_epoch_s < 0 || start_epoch_s > 1e15)
        return err_set(e, "histogram log: %g is not a start time in seconds since the epoch",
                       start_epoch_s);
    if (comment && (strlen(comment) > HLOG_COMMENT_MAX || strpbrk(comment, "\r\n]")))
        return err_set(e,
                       "histogram log: a comment must be one line of at most %d characters "
                       "without ']'",
                       HLOG_COMMENT_MAX);
    /* Date.toString's form ("EEE MMM dd HH:mm:ss zzz yyyy"), in UTC, of the
     * second the %.3f below rounds to; readers ignore it. */
    time_t t = (time_t)floor(start_epoch_s + 0.0005);
    struct tm tm;
    char date[64];
    if (!gmtime_r(&t, &tm) || !strftime(date, sizeof date, "%a %b %d %H:%M:%S UTC %Y", &tm))
        return err_set(e, "histogram log: cannot format the start time %.3f", start_epoch_s);
    if (comment)
        fprintf(out, "#[%s]\n", comment);
    fprintf(out, "#[Histogram log format version " HLOG_VERSION "]\n");
    fprintf(out, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_epoch_s, date);
    fprintf(out, "#[BaseTime: %.3f (seconds since epoch)]\n", start_epoch_s);
    fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_"
          "Histogram\"\n",
          out);
    return flush(out, e);
}

int hlog_interval(FILE *out, const char *tag, double start_s, double length_s, const hist *h,
                  bench_error *e)
{
    if (tag && !hlog_tag_valid(tag))
        return err_set(e,
                       "histogram log: the tag \"%s\" must be non-empty, without ',', '=' or "
                       "white space",
                       tag);
    if (!isfinite(start_s) || !isfinite(length_s))
        return err_set(e, "histogram log: an interval's start and length must be finite");
    char *b64;
    if (hlog_encode(h, &b64, e) < 0)
        return -1;
    if (tag)
        fprintf(out, "Tag=%s,", tag);
    /* The max in ms: HistogramLogWriter's default maxValueUnitRatio for ns. */
    fprintf(out, "%.3f,%.3f,%.3f,%s\n", start_s, length_s, (double)hist_max(h) / 1e6, b64);
    free(b64);
    return flush(out, e);
}
