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
    int64_t clients;                  /* --clients; -1 (or 0): as the spec says */
    const int64_t *client_levels;     /* --clients N1,N2,..: a sweep of clients (clients is
                                         the first); NULL: none */
    size_t nclient_levels;
    int64_t threads;        /* --threads; 0: the CPUs in force, at most the clients */
    const int64_t *prefill; /* NULL: as the spec says */
    size_t nprefill;
    const char *process_cmd; /* --process-cmd: the command of every target that takes one */
    FILE *samples;           /* --samples: raw latencies as CSV, or NULL */
    bool quiet;              /* no progress lines */
    bool keep;               /* --keep: every target with a keep option keeps its store */
    double progress_seconds; /* > 0: a progress line every so often, as pgbench -P */
    bool live;               /* a progress line redrawn in place (stderr is a terminal) */
    uint64_t floor_cycles;   /* cycles of the harness-floor null pass (0: none) */
    verify_level verify;     /* --verify; VERIFY_LEVEL_DEFAULT: as the spec says */
    uint64_t duration_ns;    /* --duration; 0: as the spec says */
    double rate;             /* --rate: the open loop's cycles per second; 0: as the spec says */
    const double *rates;     /* --rate R1,R2,..: a sweep of rates (rate is the first); NULL: none */
    size_t nrates;
    uint64_t interval_ns; /* --interval; 0: 1 s (or --progress's seconds) */
    bool seed_given;      /* --seed: seed replaces each spec's workload.seed */
    uint64_t seed;
    /* --shard i/N (DESIGN section 12): cycle numbers, random streams and
       the arrival rate are shard i's share of N; results keep the verbs' and
       tenths' histograms and the tallies, for bench merge and verify.
       shard_count 0: not sharded */
    int64_t shard_index, shard_count;
    double start_at; /* --start-at: the first timed pass waits for this epoch second; 0 none */
    bool no_setup;   /* --no-setup: the store is named and set up (bench setup): no
                        setup steps, and verify is bench verify --results' */
    bool setup_only; /* bench setup: the setup steps only (no prefill, no timed pass) */
    const char *store_schema; /* --schema: the schema option of every target that has one */
    const char *store_file;   /* --store-file: the file option of every target that has one */
    /* Finds the driver for a spec's target name; NULL: target_find. A seam for
     * tests (a fake target that counts calls); the harness floor always
     * uses the built-in null driver. */
    const struct target_driver *(*driver_for)(const char *name);
} run_options;

/* The target entries a run of p considers, in order: the spec's (those
 * --targets names by label or driver name, or all of them), then each
 * driver --targets names that the spec does not list, with its defaults;
 * --keep and --process-cmd applied to the targets whose drivers declare a
 * keep or command option. This is the one place --targets is applied. The
 * array is the caller's, to free() (one block, the options inside). */
target_spec *runner_targets(const plan *p, const run_options *o, size_t *n);
/* True when name is what --targets may name: a label or driver of some
 * plan's targets, or a driver built in. */
bool runner_target_known(const plan *const *plans, size_t nplans, const char *name);

/* Set by the SIGINT handler; the runner stops at the next cycle boundary. */
extern volatile sig_atomic_t runner_interrupted;

/* Runs every plan and appends to r (results, skipped, failed, harness floor
 * and cost, interrupted). r->config must already describe the settings (its
 * cpu says whether --cpu chose the placement: without it, targets with
 * TARGET_ONE_CPU run with bench and their child pinned to one CPU). Returns
 * 0 when everything ran (skips allowed), 1 when a run or a verify failed or
 * nothing ran (runner_nothing_ran), 130 when interrupted. All memory the
 * report points at lives in r and is released by report_free. */
int runner_run(const plan *const *plans, size_t nplans, const run_options *o, report *r);
/* True when r holds no finished run: every target was skipped, or every one
 * failed before a run of it finished. why[size] (may be NULL) then says
 * which, as the end of "nothing ran: ...". */
bool runner_nothing_ran(const report *r, char *why, size_t size);
void report_free(report *r);

#endif
