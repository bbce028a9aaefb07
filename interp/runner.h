/* runner.h: runs compiled plans against targets with one timing loop and
 * fills a report (DESIGN section 5). Per run: open, setup, prefill, warmup
 * (untimed), timed cycles, verify, floor probe, close. Runs are interleaved
 * across targets, and every run is a fresh boot. */
#ifndef BENCH_RUNNER_H
#define BENCH_RUNNER_H

#include <signal.h>
#include <stdio.h>

#include "diag.h"
#include "plan.h"
#include "results.h"

typedef struct run_options {
    const char *const *only; /* labels or driver names to run (NULL: all the spec lists) */
    size_t nonly;
    int64_t iterations, warmup, runs; /* -1: as the spec says */
    const int64_t *prefill;           /* NULL: as the spec says */
    size_t nprefill;
    const char *process_cmd; /* --process-cmd: overrides a process target's command */
    FILE *samples;           /* --samples: raw latencies as CSV, or NULL */
    bool quiet;              /* no progress lines */
    bool keep;               /* --keep: sqlite and postgres keep their scratch stores */
    double progress_seconds; /* > 0: a progress line every so often, as pgbench -P */
    bool live;               /* a progress line redrawn in place (stderr is a terminal) */
    uint64_t floor_cycles;   /* cycles of the harness-floor null pass (0: none) */
    /* Finds the driver for a spec's target name; NULL: target_find. A seam for
     * tests (a fake target that counts calls); the harness floor always
     * uses the built-in null driver. */
    const struct target_driver *(*driver_for)(const char *name);
} run_options;

/* Set by the SIGINT handler; the runner stops at the next cycle boundary. */
extern volatile sig_atomic_t runner_interrupted;

/* Runs every plan and appends to r (results, skipped, failed, harness floor,
 * interrupted). r->config must already describe the settings. Returns 0
 * when everything ran (skips allowed), 1 when a run or a verify failed,
 * 130 when interrupted. All memory the report points at lives in r and is
 * released by report_free. */
int runner_run(const plan *const *plans, size_t nplans, const run_options *o, report *r);
void report_free(report *r);

#endif
