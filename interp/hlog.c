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
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* next_in as a pointer to const: the input is lent. */
#define ZLIB_CONST
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

/* ---- decoding (bench merge --logs) ------------------------------------------------- */

/* AbstractHistogram.getCookieBase: the word-size nibble masked out. */
#define HLOG_COOKIE_BASE(c) ((c) & ~UINT32_C(0xf0))

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static uint64_t get_be64(const uint8_t *p)
{
    return (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Standard base64 with '=' padding, as java.util.Base64 writes it. Returns
 * the bytes (the caller's to free) and their number in *n, or NULL. */
static uint8_t *unbase64(const char *s, size_t len, size_t *n)
{
    size_t pad = 0;
    while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
        pad++;
    if (len == 0 || len % 4 != 0)
        return NULL;
    uint8_t *out = xmalloc(len / 4 * 3);
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t w = 0;
        for (size_t k = 0; k < 4; k++) {
            int v = i + k >= len - pad ? 0 : b64_value(s[i + k]);
            if (v < 0) {
                free(out);
                return NULL;
            }
            w = w << 6 | (uint32_t)v;
        }
        out[o++] = (uint8_t)(w >> 16);
        out[o++] = (uint8_t)(w >> 8);
        out[o++] = (uint8_t)w;
    }
    *n = o - pad;
    return out;
}

/* The layout AbstractHistogram.init derives from the header. */
typedef struct hdr_layout {
    unsigned half_mag; /* subBucketHalfCountMagnitude */
    unsigned unit_mag; /* unitMagnitude */
    size_t length;     /* countsArrayLength */
} hdr_layout;

static int layout_of(int digits, uint64_t lowest, uint64_t highest, hdr_layout *l, bench_error *e)
{
    if (digits < 0 || digits > 5)
        return err_set(e, "the histogram has %d significant digits, not 0 to 5", digits);
    if (lowest < 1 || highest > (uint64_t)INT64_MAX || highest < 2 * lowest)
        return err_set(
            e, "the histogram's range %" PRIu64 " to %" PRIu64 " is not one HdrHistogram allows",
            lowest, highest);
    uint64_t single = 2;
    for (int i = 0; i < digits; i++)
        single *= 10;
    unsigned count_mag = 0;
    while ((UINT64_C(1) << count_mag) < single)
        count_mag++;
    l->half_mag = (count_mag > 1 ? count_mag : 1) - 1;
    l->unit_mag = 63u - (unsigned)__builtin_clzll(lowest);
    if (l->unit_mag + l->half_mag > 61)
        return err_set(e, "the histogram's lowest value %" PRIu64 " is too large for %d digits",
                       lowest, digits);
    /* getBucketsNeededToCoverValue, then getLengthForNumberOfBuckets. */
    uint64_t smallest = (UINT64_C(2) << l->half_mag) << l->unit_mag;
    size_t buckets = 1;
    while (smallest <= highest) {
        if (smallest > (uint64_t)INT64_MAX / 2) {
            buckets++;
            break;
        }
        smallest <<= 1;
        buckets++;
    }
    l->length = (buckets + 1) << l->half_mag;
    return 0;
}

/* valueFromIndex: the lowest value counted at index i (i < l->length). */
static uint64_t value_at(const hdr_layout *l, size_t i)
{
    long bucket = (long)(i >> l->half_mag) - 1;
    uint64_t half = UINT64_C(1) << l->half_mag;
    uint64_t sub = (i & (half - 1)) + half;
    if (bucket < 0) {
        sub -= half;
        bucket = 0;
    }
    unsigned shift = (unsigned)bucket + l->unit_mag;
    return shift + l->half_mag + 1 > 63 ? UINT64_MAX : sub << shift;
}

/* ZigZagEncoding.getLong from p[*at..end): false when it runs past end. */
static bool get_zigzag(const uint8_t *p, size_t end, size_t *at, int64_t *v)
{
    uint64_t z = 0;
    for (unsigned k = 0;; k++) {
        if (*at >= end)
            return false;
        uint8_t b = p[(*at)++];
        if (k == HLOG_VARINT_MAX - 1) {
            z |= (uint64_t)b << 56;
            break;
        }
        z |= (uint64_t)(b & 0x7f) << (7 * k);
        if (!(b & 0x80))
            break;
    }
    *v = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
    return true;
}

/* fillCountsArrayFromSourceBuffer: counts, and runs of zeros as negatives. */
static int add_counts(const uint8_t *p, size_t n, const hdr_layout *l, hist *h, bench_error *e)
{
    size_t at = 0, i = 0;
    while (at < n) {
        int64_t v;
        if (!get_zigzag(p, n, &at, &v))
            return err_set(e, "a count of the histogram runs past the end of its payload");
        if (v < 0) {
            uint64_t zeros = (uint64_t)0 - (uint64_t)v;
            if (zeros > l->length - i)
                return err_set(e,
                               "a run of %" PRIu64 " empty counts goes past the histogram's "
                               "%zu counts",
                               zeros, l->length);
            i += (size_t)zeros;
            continue;
        }
        if (i >= l->length)
            return err_set(e, "the histogram has more than the %zu counts its header declares",
                           l->length);
        if ((uint64_t)v > HLOG_COUNT_MAX - hist_count(h))
            return err_set(e, "the histograms of one interval hold more than 2^40 samples");
        hist_record_n(h, value_at(l, i), (uint64_t)v);
        i++;
    }
    return 0;
}

/* Inflates exactly want bytes into out from z (the stream continues after
 * them unless last). */
static int inflate_exact(z_stream *z, uint8_t *out, size_t want, bool last, bench_error *e)
{
    uint8_t spare;
    z->next_out = want ? out : &spare;
    z->avail_out = want ? (uInt)want : 0;
    while (z->avail_out > 0) {
        int rc = inflate(z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END || rc == Z_BUF_ERROR)
            break;
        if (rc != Z_OK)
            return err_set(e, "the histogram's zlib stream is damaged: %s",
                           z->msg ? z->msg : zError(rc));
    }
    if (z->avail_out > 0)
        return err_set(e, "the histogram's zlib stream ends %zu bytes short of its %s",
                       (size_t)z->avail_out, last ? "payload length" : "header");
    if (!last)
        return 0;
    /* Nothing may follow the payload: one more byte must find the end. */
    z->next_out = &spare;
    z->avail_out = 1;
    int rc = inflate(z, Z_FINISH);
    if (rc == Z_STREAM_END && z->avail_out == 1 && z->avail_in == 0)
        return 0;
    if (rc == Z_STREAM_END && z->avail_out == 1)
        return err_set(e, "%zu bytes follow the histogram's zlib stream", (size_t)z->avail_in);
    if (z->avail_out == 0)
        return err_set(e, "the histogram's zlib stream holds more than its payload length");
    return err_set(e, "the histogram's zlib stream is damaged: %s",
                   z->msg ? z->msg : "it does not end");
}

/* decodeFromCompressedByteBuffer, then decodeFromByteBuffer (V2 only). */
static int decode_bytes(const uint8_t *p, size_t n, hist *h, int *digits, bench_error *e)
{
    if (n < HLOG_COMPRESSED_HEADER_SIZE)
        return err_set(e, "the histogram is %zu bytes, shorter than its 8-byte header", n);
    uint32_t cookie = get_be32(p), zlen = get_be32(p + 4);
    if (HLOG_COOKIE_BASE(cookie) != HLOG_COOKIE_BASE(HLOG_COMPRESSED_COOKIE))
        return err_set(
            e, "the histogram's cookie 0x%08" PRIx32 " is not HdrHistogram's compressed V2 cookie",
            cookie);
    if (zlen != n - HLOG_COMPRESSED_HEADER_SIZE)
        return err_set(e, "the histogram says %" PRIu32 " compressed bytes but holds %zu", zlen,
                       n - HLOG_COMPRESSED_HEADER_SIZE);
    z_stream z = {.next_in = p + HLOG_COMPRESSED_HEADER_SIZE, .avail_in = zlen};
    if (inflateInit(&z) != Z_OK)
        return err_set(e, "zlib cannot start inflating: %s", z.msg ? z.msg : "out of memory");
    uint8_t head[HLOG_HEADER_SIZE];
    uint8_t *payload = NULL;
    int rc = inflate_exact(&z, head, sizeof head, false, e);
    if (rc == 0) {
        uint32_t inner = get_be32(head), len = get_be32(head + 4);
        uint32_t offset = get_be32(head + 8);
        hdr_layout l = {0};
        *digits = (int)get_be32(head + 12);
        if (HLOG_COOKIE_BASE(inner) != HLOG_COOKIE_BASE(HLOG_ENCODING_COOKIE))
            rc = err_set(e, "the histogram's encoding cookie 0x%08" PRIx32 " is not V2", inner);
        else if (len > HLOG_PAYLOAD_MAX)
            rc = err_set(e,
                         "the histogram's payload of %" PRIu32 " bytes is more than the %" PRIu32
                         " bench reads",
                         len, HLOG_PAYLOAD_MAX);
        else if (offset != 0)
            rc = err_set(e,
                         "the histogram has a normalizing index offset (%" PRIu32
                         "), which bench does not read",
                         offset);
        else if ((rc = layout_of((int)get_be32(head + 12), get_be64(head + 16), get_be64(head + 24),
                                 &l, e)) == 0) {
            payload = xmalloc(len ? len : 1);
            rc = inflate_exact(&z, payload, len, true, e);
            if (rc == 0)
                rc = add_counts(payload, len, &l, h, e);
        }
    }
    inflateEnd(&z);
    free(payload);
    return rc;
}

int hlog_decode(const char *b64, size_t len, hist *h, int *digits, bench_error *e)
{
    size_t n;
    uint8_t *p = unbase64(b64, len, &n);
    if (!p)
        return err_set(e, "the histogram is not base64");
    int rc = decode_bytes(p, n, h, digits, e);
    free(p);
    return rc;
}
