/* results.h: what `bench run` measured, the hand-off from the runner to the
 * reports (Markdown, JSON, CSV), and what a result file reads back as for
 * compare, gate and the HTML report (results_load): one model. Field names
 * follow schema/result.schema.json, the one source of the JSON's names. */
#ifndef BENCH_RESULTS_H
#define BENCH_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "intervals.h"
#include "stats.h"

enum { RESULT_SCHEMA_VERSION = 1 };

typedef struct verb_result {
    const char *verb;         /* "Order.AddTopping" */
    uint64_t count;           /* timed dispatches */
    uint64_t refused;         /* of which refused on purpose (expect: refused) */
    uint64_t refused_counted; /* of which refused and counted (on_refusal: count) */
    double p50_ns, p99_ns;
    double round_trips_per_command; /* NAN unless the target counts round trips */
    bool scan;                      /* the verb is a scan on a target that answers (not null):
                                       rows_returned counts */
    uint64_t rows_returned;         /* a scan's: rows its timed dispatches answered */
    uint64_t retries;               /* tries after the first (a target's retry option) */
    uint64_t failed;   /* conflicts after the retry option's last try: not in count or the
                          latencies, each its cycle abandoned */
    hist_buckets hist; /* a shard's (--shard) or a merge's: the verb's timed latencies, for
                          bench merge; empty (n 0) otherwise */
} verb_result;

/* One flow of a mix in one run's timed pass. */
typedef struct flow_result {
    const char *flow;
    int64_t weight;
    double requested_share;   /* its weight over the sum of the weights */
    uint64_t cycles;          /* timed cycles that ran it */
    double achieved_share;    /* cycles over the run's timed cycles */
    uint64_t skipped;         /* timed cycles in which it could not run (an empty pool) */
    uint64_t refused_counted; /* refusals of its on_refusal: count steps */
    uint64_t failed;          /* its cycles abandoned after a conflict (verb_result.failed) */
} flow_result;

/* One client of a run with several (DESIGN section 10). */
typedef struct client_result {
    int client;              /* from 0, as ${client} */
    uint64_t commands;       /* its timed commands */
    double wall_seconds;     /* from its start to its end */
    double throughput_per_s; /* commands over wall_seconds */
} client_result;

typedef struct run_result {
    int run;            /* 1-based */
    run_figures fig;    /* latencies in ns; NAN where absent */
    verb_result *verbs; /* one per distinct verb of the flows, in order of first step */
    size_t nverbs;
    flow_result *flows; /* one per flow, in the spec's order (a cycle is one flow) */
    size_t nflows;
    double goodput_per_s;          /* timed commands that succeeded per second (NAN: unknown) */
    hist all;                      /* every timed latency of the run */
    double roundtrip_floor_p50_ns; /* NAN unless the target has a floor probe (after the pass) */
    double roundtrip_floor_before_p50_ns; /* the same probe before the timed pass */
    double round_trips_per_command;       /* NAN unless the target counts round trips */
    bool unstable;                        /* stats_stability flagged it */
    bool open_loop;                       /* arrival: see the open loop's figures below */
    char unstable_reason[512];            /* why, or "" */
    interval *intervals;                  /* the timed pass over time (intervals.h), in order */
    size_t nintervals;
    double start_epoch_s; /* when the timed pass began, seconds since the epoch */
    /* the open loop (arrival): the figures above are response times (end
       minus intended start); service is end minus actual start, lag actual
       minus intended start of each cycle */
    double offered_rate, achieved_rate; /* cycles per second */
    uint64_t offered, completed, late, dropped;
    uint64_t not_started; /* due before the duration ended, not started when it did */
    double service_p50_ns, service_p99_ns, lag_p50_ns, lag_p99_ns, lag_max_ns;
    /* several clients: the figures above are every client's merged, and
       throughput is the commands over first start to last end; NULL and 0
       with one client */
    client_result *clients;
    size_t nclients;
    int threads;          /* that drove them */
    double fairness;      /* Jain's index of their throughputs: 1 when all are equal */
    double stop_spread_s; /* the last client's end minus the first's */
    uint64_t lock_waits;  /* times a client waited for another's lock (SQLite's busy waits) */
    uint64_t page_faults; /* the process's minor page faults during the timed pass */
    /* a shard's (--shard) or a merge's: each tenth's latencies, for bench
       merge; empty (n 0) otherwise */
    hist_buckets tenth_hist[STATS_TENTHS];
} run_result;

/* What the commands that succeeded added to the store, over every run of a
 * result: records of an aggregate type, or events of a name. A shard's (or a
 * merge's) file holds them, for bench verify --results. */
typedef struct tally {
    const char *name; /* the aggregate type or event name */
    bool event;
    int64_t n;
} tally;

typedef enum verify_status {
    VERIFY_PASS,
    VERIFY_FAIL,
    VERIFY_NA, /* the target cannot count: never reported as a pass */
} verify_status;

typedef struct target_result {
    const char *domain;
    const char *target; /* the driver */
    const char *label;  /* the row's name */
    int64_t prefill;
    const char *durability; /* "full", "normal", "off", or NULL where it does not apply */
    run_result *runs;       /* the runs that finished */
    size_t nruns;
    run_figures median; /* median of each figure across runs */
    double throughput_lo, throughput_hi;
    verify_status verify;
    char verify_detail[256]; /* what did not match, when it failed */
    /* How far verify got in every run: "counts" (the counts only: the
     * target cannot read records back), "sample" (the counts and a sample
     * of records), "state" (every record), "full" (every record, and the
     * counts against the shadow's); NULL when it checked nothing (n/a). */
    const char *verify_level;
    bool failed;
    char reason[1024]; /* why it failed (the run, the step, the cycle) */
    int failed_run;    /* the run that failed (1-based), 0 when none did or it is unknown */
    bool unstable;     /* some run is unstable */
    char unstable_reason[1024]; /* "run 2: ...; run 3: ...", or "" */
    char placement[256];        /* CPUs bench (and a child) ran on, and why, or "" */
    /* a sweep (workload clients: [..], or arrival rate: [..]): the target
       entry's own label and this row's level (clients, or a rate in cycles/s,
       the other 0); NULL and 0 otherwise */
    const char *sweep_of;
    int64_t sweep_clients;
    double sweep_rate;
    tally *tallies; /* a shard's or a merge's (NULL otherwise): aggregates, then events */
    size_t ntallies;
    bool tallies_exact; /* false when a command's effect on the counts is not known */
} target_result;

/* A result's status as every format names it: "failed" over "unstable" over
 * "ok". */
const char *results_status_name(const target_result *t);
/* A run's: "unstable" or "ok". */
const char *results_run_status_name(const run_result *run);

typedef struct label_reason {
    char label[128];
    char reason[1024];
} label_reason;

typedef struct environment {
    char cpu_model[256];
    int cores;
    uint64_t memory_bytes;
    char os[256];
    char kernel[256];
    char clock_source[64];
    char affinity[256]; /* CPU list in force, e.g. "0-1" */
    char compiler[128];
    char build_type[64];
    char build_flags[256]; /* sanitizers, optimisation */
    char libraries[512];   /* "libyaml 0.2.5, SQLite 3.40.1, libpq 15, PCRE2 10.42, cJSON 1.7.15" */
    char postgres[256];    /* server version and settings, or "" */
    char version[64];      /* bench version */
    char commit[64];
    double load_before[3], load_after[3];
    char label[256]; /* --label */
    char date[64];   /* ISO 8601 UTC of the start */
} environment;

typedef struct spec_config {
    const char *path;
    char sha256[65];
} spec_config;

/* bench run --shard i/N (DESIGN section 12), and a merge of shards. */
typedef struct shard_info {
    int64_t index;     /* from 0; -1 in a merge of every shard */
    int64_t count;     /* shards in all; 0: not a shard */
    char host[256];    /* the machine it ran on ("" in a merge) */
    double start_at;   /* --start-at, seconds since the epoch; NAN without it */
    double started_s;  /* when its first run began, seconds since the epoch */
    double lateness_s; /* started_s - start_at; NAN without --start-at */
    double skew_s;     /* a merge's: the latest shard's start minus the earliest's; NAN else */
} shard_info;

typedef struct run_config {
    spec_config *specs;
    size_t nspecs;
    int64_t warmup, iterations, runs; /* as in force (flags override the spec) */
    double duration_s;                /* the timed pass's duration in force, or 0: iterations */
    double rate;                      /* --rate or the first spec's arrival rate, or 0 */
    int64_t clients;                  /* --clients or the first spec's clients (0: unknown) */
    int64_t threads;                  /* --threads, or 0: the CPUs in force */
    int64_t *prefill;
    size_t nprefill;
    const char **targets; /* labels, in order */
    size_t ntargets;
    bool samples;    /* --samples was on */
    const char *cpu; /* --cpu as given, or NULL */
    bool seed_given; /* --seed was given: seed replaced each spec's workload.seed */
    uint64_t seed;
    shard_info shard;  /* count 0 unless --shard (or a merge) */
    const char *store; /* --schema or --store-file: a named store, or NULL */
    bool no_setup;     /* --no-setup: the named store was set up before */
} run_config;

typedef struct report {
    environment env;
    run_config config;
    target_result *results;
    size_t nresults;
    double harness_floor_p50_ns; /* from a short null pass; NAN if not measured */
    /* the null pass's wall time over its commands: what the harness costs
     * per command (clock reads, expansion, recording, the loop); NAN if not
     * measured */
    double harness_cost_ns_per_command;
    label_reason *skipped;
    size_t nskipped;
    label_reason *failed;
    size_t nfailed;
    char **owned; /* strings the runner made for the results (a sweep's labels), freed with it */
    size_t nowned;
    bool interrupted;
} report;

struct cJSON;

/* Reads the JSON result file at path, parses it, validates it against the
 * embedded schema/result.schema.json and fills a report from it. Returns 0
 * and *out (the caller's to results_free), or -1 and *out NULL with one
 * sentence in err[size] naming the file and what is wrong with it
 * (unreadable, not JSON and where, or the first schema violation with its
 * JSON path).
 *
 * The loaded report owns its strings and arrays. Latencies read back as the
 * whole ns the JSON's µs figures were written from; each run's histogram
 * holds the file's buckets with the run's exact min and max, so
 * hist_percentile on it gives what it gave on the runner's (its mean and
 * standard deviation are those of the bucket values: use the figures). A
 * median is the file's; its tenths, which the file does not hold, are the
 * median across runs as the runner computes them. Strings longer than a
 * fixed field of the model (environment, reasons) are cut short. */
int results_load(const char *path, report **out, char *err, size_t size);
/* As results_load, for the text of a file: text[len] must be a NUL (lent;
 * name is what messages call it). */
int results_load_text(const char *name, const char *text, size_t len, report **out, char *err,
                      size_t size);
/* As results_load, for a document already in memory (lent; name is what
 * messages call it). */
int results_from_json(const char *name, const struct cJSON *root, report **out, char *err,
                      size_t size);
/* Frees a report of results_load or results_from_json (NULL is fine). Not for
 * the runner's reports, whose strings are lent by plans (report_free). */
void results_free(report *r);

/* The target cell of a result: its label, "@N" when prefill > 0, and the
 * durability in parentheses when there is one ("sqlite@1000 (normal)"). */
void results_target_cell(const target_result *t, char *buf, size_t n);

/* "pass", "fail" or "n/a", as every format names a verify status. */
const char *results_verify_name(verify_status v);

/* What a verify level read back, for people: "counts", "counts and a
 * sample of records", "every record", "every record and the counts"; NULL
 * for NULL (nothing was checked) or an unknown level. */
const char *results_verify_level_text(const char *level);

#endif
