/* hlog.h: HdrHistogram's interval log (the .hlog text format that
 * HistogramLogProcessor, HdrHistogram's HistogramLogReader and hdr-histogram-js
 * read): header lines, then one line per interval holding that interval's
 * histogram in HdrHistogram's V2 compressed encoding, base64.
 *
 * Units: the encoded histograms hold nanoseconds (lowest discernible value 1,
 * highest trackable HIST_MAX_NS, 3 significant digits), so a reader's
 * percentiles are in ns. The Interval_Max column is in milliseconds, the
 * default maxValueUnitRatio (1e6) of HdrHistogram's HistogramLogWriter for
 * ns data; readers ignore it and take the max from the histogram.
 *
 * Time stamps: hlog_begin writes the run's start as both StartTime and
 * BaseTime; interval start times are seconds since that start.
 *
 * Tags: an interval line may carry Tag=<tag>, which readers use to tell
 * several histograms apart in one log (one per verb, say). A verb name such
 * as Order.AddTopping is a valid tag as it is: dots are fine; a tag must not
 * be empty nor hold ',', '=', white space or control characters
 * (hlog_tag_valid). */
#ifndef BENCH_HLOG_H
#define BENCH_HLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "error.h"
#include "hist.h"

/* Writes the header: "#[comment]" when comment is not NULL (one line of at
 * most 120 characters, no ']': HdrHistogram_c reads header lines into 128
 * bytes), the format version, StartTime and BaseTime (start_epoch_s, seconds
 * since the epoch, in UTC) and the column legend; then flushes out. Returns
 * 0, or -1 with e set when writing fails (errno tells why) or an argument is
 * invalid. */
int hlog_begin(FILE *out, double start_epoch_s, const char *comment, bench_error *e);

/* Writes one interval line for h (lent), which holds what was recorded from
 * start_s to start_s + length_s, seconds since the log's start; tag NULL
 * writes no Tag= field. Flushes out. Returns 0, or -1 with e set when
 * writing fails, zlib fails, the tag is invalid or a time is not finite. */
int hlog_interval(FILE *out, const char *tag, double start_s, double length_s, const hist *h,
                  bench_error *e);

/* Whether tag may stand in a Tag= field (see the top of this file). */
bool hlog_tag_valid(const char *tag);

/* The base64 text of h's compressed V2 encoding, as an interval line holds
 * it, in *b64 (NUL-terminated, the caller's to free). Returns 0, or -1 with
 * e set when zlib fails (*b64 is then NULL). */
int hlog_encode(const hist *h, char **b64, bench_error *e);

/* The most samples one decoded histogram, or the sum hlog_decode adds into,
 * may hold: 2^40, so that the exact sums of hist.h cannot overflow (2^40
 * samples of an hour square to under 2^125). */
#define HLOG_COUNT_MAX (UINT64_C(1) << 40)
/* The longest uncompressed V2 payload hlog_decode accepts: bench's own
 * histograms need at most 33792 counts of 9 bytes (304 KiB). */
#define HLOG_PAYLOAD_MAX (UINT32_C(1) << 24)

/* Decodes an interval line's histogram, len bytes of base64 text at b64
 * (HdrHistogram's compressed V2 encoding, as hlog_encode writes it and
 * HistogramLogReader reads it), and adds its samples to h: each counts-array
 * index's count at the lowest value of that index, as HdrHistogram's own
 * add does (for a histogram of bench's layout, 1 ns to HIST_MAX_NS at 3
 * digits, that is h's bucket of the same index). Values above HIST_MAX_NS
 * are clamped as hist_record_n clamps them. *digits is the histogram's
 * significant digits. Every length read from the input is bounded: the
 * payload by HLOG_PAYLOAD_MAX, the indexes by the counts array its header
 * declares, the samples by HLOG_COUNT_MAX. Returns 0, or -1 with e set to a
 * phrase saying what is wrong (h may then hold part of the samples). */
int hlog_decode(const char *b64, size_t len, hist *h, int *digits, bench_error *e);

#endif
