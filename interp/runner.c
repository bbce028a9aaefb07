/* runner.c: the one timing loop. Everything a command needs from the
 * harness (its arguments expanded from the templates) is ready before the
 * first clock read; between the two reads there is only the target's
 * dispatch. Recording happens after the second read, into fixed
 * histograms, so harness memory does not grow with iterations. */
#define _GNU_SOURCE /* sched_getaffinity, pthread_setaffinity_np */
#include "runner.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "arena.h"
#include "clock.h"
#include "env.h"
#include "intervals.h"
#include "lint.h"
#include "mix.h"
#include "runtime.h"
#include "step_inst.h"
#include "store_driver.h"
#include "target.h"
#include "value.h"

volatile sig_atomic_t runner_interrupted;

/* All the state of one run, in one struct, so several could run side by side. */
typedef struct run_state {
    /* on cache lines of its own: several clients' threads write theirs at once */
    _Alignas(ALLOC_LINE) const plan *p;
    const target_spec *ts;
    const target_driver *drv;
    target *t;
    int run;
    int flow; /* the flow of the cycle begun */
    int64_t prefill, warmup, iterations;
    uint64_t seed;
    arena mem;
    mix *mx; /* the command stream: flows, bindings, draws, pools */
    hist all, tenths[STATS_TENTHS];
    hist *verbs; /* per distinct verb of the cycle */
    const char **verb_names;
    uint64_t *verb_refused;
    uint64_t *verb_counted; /* refusals of on_refusal: count steps */
    uint64_t *verb_trips;   /* round trips per verb in the timed pass */
    uint64_t *verb_rows;    /* rows the scans of a verb answered in the timed pass */
    uint64_t *verb_retries; /* tries after the first per verb (the target's retry option) */
    size_t *verb_cmds;      /* per verb: its command's index */
    uint64_t lock_waits;    /* every session's waits for another's lock, after the pass */
    uint64_t *flow_counted; /* refusals of on_refusal: count steps, per flow */
    uint64_t *verb_failed;  /* conflicts after the target's last try (TARGET_FAILED), per verb */
    uint64_t *flow_failed;  /* the cycles they abandoned, per flow */
    uint64_t failed_cycles; /* their sum: timed cycles that did not run to their end */
    struct abandoned *abandoned; /* one client: where each abandoned cycle stopped, in order,
                                    so the shadow replays only what succeeded */
    size_t nabandoned, abandoned_cap;
    size_t nverbs;
    uint64_t timed_commands, timed_cycles;
    double rate;       /* the open loop's rate in force (a sweep's level, --rate), or 0 */
    uint64_t intended; /* the open loop's intended start of the cycle under way */
    uint64_t offered, late, dropped;
    uint64_t not_started; /* due before the duration ended, not started when it did */
    double start_epoch_s;
    hist service, lag; /* the open loop's, beside the response times in all */
    intervals iv;
    int64_t *seen; /* what the commands seen to succeed added: records, then events */
    /* successes per command not yet added to seen (seen_fold): a count on
       the timed path, the records and events they add after it */
    uint64_t *ok_cmds;
    struct sample *samples, *next_sample; /* --samples: one per timed command */
    size_t samples_cap;
    bench_error failure; /* why the run failed, set once where it failed */
    /* several clients: this state is client `client`'s; client 0's (the
       lead's) holds the others in peers and, after the pass, everything
       merged */
    struct run_state *peers;              /* clients 1 .. nclients - 1 */
    uint64_t start_ns, end_ns, settle_ns; /* this client's pass */
    int client, nclients, threads;
    int shard, nshards; /* --shard i/N (nshards 0 without it) */
    bool no_setup;      /* --no-setup: the named store holds the setup already */
    bool setup_only;    /* bench setup: the setup steps only */
    bool open_loop;
    bool seen_unknown; /* one of the commands seen ran a for_each policy: seen is not exact */
    shard_info *sh;    /* the report's, where --start-at's lateness goes */
} run_state;

/* A timed cycle abandoned at step st (TARGET_FAILED): st and the rest of
 * the cycle did not run. */
typedef struct abandoned {
    uint64_t n;
    const step *st;
} abandoned;

/* One timed latency, for --samples. */
typedef struct sample {
    uint64_t ns, cycle;
    const char *verb;
} sample;

/* The failure goes into the results model whole. */
_Static_assert(sizeof(((target_result *)0)->reason) >= sizeof(((bench_error *)0)->msg),
               "a target result's reason holds a whole failure");
_Static_assert(sizeof(((label_reason *)0)->reason) >= sizeof(((bench_error *)0)->msg),
               "a failed label's reason holds a whole failure");

/* The wall clock, for the start of a timed pass in a --hlog file. */
static double epoch_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The clock of a timed pass: the open loop waits on CLOCK_MONOTONIC
 * (arrival.c), so it reads that; the closed loop the fast clock (clock.h). */
static inline uint64_t pass_now(bool open)
{
    return open ? clock_mono_ns() : clock_fast_start();
}

/* ---- one run ---- */

/* A dispatch outside the timed pass: prepare and dispatch together. */
static int untimed_dispatch(target *t, const step_inst *si)
{
    int rc = target_prepare_checked(t, si->st->cmd, &si->args, si->checked);
    if (rc == TARGET_OK)
        rc = target_dispatch_checked(t, si->st->cmd, &si->args, si->checked);
    if (rc != TARGET_ERROR && target_settle(t, si->st->cmd) != TARGET_OK)
        rc = TARGET_ERROR;
    return rc;
}

static void fail_step(run_state *rs, const step_inst *si, const char *phase, int64_t n,
                      const char *what)
{
    const step *st = si->st;
    if (n >= 0)
        err_set(&rs->failure, "run %d, %s cycle %" PRId64 ", %s (%s:%d): %s", rs->run, phase, n,
                st->cmd->verb, st->at->file, st->at->line, what);
    else
        err_set(&rs->failure, "run %d, %s, %s (%s:%d): %s", rs->run, phase, st->cmd->verb,
                st->at->file, st->at->line, what);
}

/* A query step's answer against its expect: {returns: ...} (lint.c). */
static int check_answer(run_state *rs, const step_inst *si, const char *phase, int64_t n)
{
    const value *answer = NULL;
    char why[TARGET_MESSAGE_MAX];
    if (!step_checks_answer(si->st))
        return 0;
    if (target_answer(rs->t, &answer) == TARGET_ERROR)
        snprintf(why, sizeof why, "%s", rs->t->message);
    else if (lint_answer_matches(si->st, answer, why, sizeof why))
        return 0;
    fail_step(rs, si, phase, n, why);
    return -1;
}

/* Checks a dispatch's outcome against the step's expectation. */
static int check_outcome(run_state *rs, const step_inst *si, int rc, const char *phase, int64_t n)
{
    if ((rs->drv->caps & TARGET_ACCEPTS_ALL) && rc != TARGET_ERROR)
        return 0;
    if (rc == TARGET_OK && !si->st->expect_refused)
        return check_answer(rs, si, phase, n);
    if (rc == TARGET_REFUSED && si->st->count_refusals)
        return 0;
    uint64_t cyc = n >= 0 ? (uint64_t)n : 0;
    if (rc == TARGET_REFUSED && si->st->expect_refused &&
        lint_refusal_matches(si->st, rs->t->message, cyc, rs->run))
        return 0;
    if (rc == TARGET_OK)
        fail_step(rs, si, phase, n, "succeeded, but the step expects a refusal");
    else if (rc == TARGET_REFUSED && si->st->expect_refused) {
        char what[TARGET_MESSAGE_MAX + 1280], want[1024];
        snprintf(what, sizeof what, "refused with '%s', but the step expects '%s'",
                 lint_refusal_text(rs->t->message),
                 lint_expected_text(si->st, cyc, rs->run, want, sizeof want));
        fail_step(rs, si, phase, n, what);
    } else if (rc == TARGET_REFUSED)
        fail_step(rs, si, phase, n, rs->t->message);
    else
        fail_step(rs, si, phase, n, rs->t->message[0] ? rs->t->message : "the target failed");
    return -1;
}

/* After a dispatch: its record joins its pool, and what it added to the
 * store joins the tally verify holds the target to. */
static void note_outcome(run_state *rs, const step_inst *si, int rc)
{
    bool ok = rc == TARGET_OK;
    if (!ok)
        return;
    if (si->st->into >= 0) /* what mix_done does with a success, without its call otherwise */
        mix_done(rs->mx, si, ok);
    rs->ok_cmds[si->st->cmd->index]++;
}

/* Adds to rs->seen what the successes note_outcome counted since the last
 * fold added: each command's records and events (cmd_delta) times its
 * successes. Before anything reads seen. */
static void seen_fold(run_state *rs)
{
    const plan *p = rs->p;
    for (size_t c = 0; c < p->ncommands; c++) {
        uint64_t k = rs->ok_cmds[c];
        if (!k)
            continue;
        const cmd_delta *d = &p->cmd_delta[c];
        for (size_t i = 0; i < d->n; i++)
            rs->seen[d->at[i]] += d->by[i] * (int64_t)k;
        rs->seen_unknown = rs->seen_unknown || p->commands[c]->counts_unknown;
        rs->ok_cmds[c] = 0;
    }
}

/* Begins cycle n: its flow and bindings. Returns the flow's steps, or NULL
 * with rs->failure set. */
static step_inst *begin_cycle(run_state *rs, uint64_t n, const char *phase, bool prefill,
                              size_t *nsteps)
{
    int f = mix_begin(rs->mx, n, prefill, &rs->failure);
    if (f < 0) {
        err_prefix(&rs->failure, "run %d, %s ", rs->run, phase);
        return NULL;
    }
    rs->flow = f;
    return mix_flow_steps(rs->mx, (size_t)f, nsteps);
}

static int expand_step(run_state *rs, step_inst *si, const char *phase)
{
    if (mix_expand(rs->mx, si, &rs->failure) == 0)
        return 0;
    return err_prefix(&rs->failure, "run %d, %s %s (%s:%d): ", rs->run, phase, si->st->cmd->verb,
                      si->st->at->file, si->st->at->line);
}

/* --shard: a client's place among every client of every shard, and how
 * many there are in all; its cycle numbers are every all-th from its place
 * on, its random stream is the place's, so shards never share either. */
static uint64_t client_place(const run_state *rs)
{
    return (uint64_t)rs->shard * (uint64_t)(rs->nclients > 1 ? rs->nclients : 1) +
           (uint64_t)rs->client;
}

static uint64_t clients_all(const run_state *rs)
{
    return (uint64_t)(rs->nshards > 1 ? rs->nshards : 1) *
           (uint64_t)(rs->nclients > 1 ? rs->nclients : 1);
}

/* Cycles from .. from + count - 1 that are this client's: every one with
 * one client (of one shard), else every clients_all-th from its place on. */
static int untimed_cycles(run_state *rs, uint64_t from, uint64_t count, const char *phase)
{
    bool prefill = !strcmp(phase, "prefill");
    uint64_t stride = clients_all(rs);
    for (uint64_t n = from + client_place(rs); n < from + count; n += stride) {
        if (runner_interrupted)
            return -1;
        size_t nsteps;
        step_inst *steps = begin_cycle(rs, n, phase, prefill, &nsteps);
        if (!steps)
            return -1;
        for (size_t s = 0; s < nsteps; s++) {
            step_inst *si = &steps[s];
            if (expand_step(rs, si, phase) < 0)
                return -1;
            int rc = untimed_dispatch(rs->t, si);
            if (check_outcome(rs, si, rc, phase, (int64_t)n) < 0)
                return -1;
            note_outcome(rs, si, rc);
        }
    }
    return 0;
}

/* The cycles of untimed_cycles(rs, from, count) that are this client's. */
static uint64_t untimed_share(const run_state *rs, uint64_t count)
{
    uint64_t place = client_place(rs), stride = clients_all(rs);
    return count > place ? (count - place + stride - 1) / stride : 0;
}

static int run_setup(run_state *rs)
{
    size_t n;
    step_inst *setup = mix_setup(rs->mx, &n);
    for (size_t s = 0; s < n; s++) {
        step_inst *si = &setup[s];
        int rc = untimed_dispatch(rs->t, si);
        if (check_outcome(rs, si, rc, "setup", -1) < 0)
            return -1;
        note_outcome(rs, si, rc);
    }
    return 0;
}

/* --no-setup: bench setup ran the setup steps on the named store; their
 * records join the pools as if they had run here, without a dispatch. */
static int replay_setup(run_state *rs)
{
    size_t n;
    step_inst *setup = mix_setup(rs->mx, &n);
    for (size_t s = 0; s < n; s++)
        mix_done(rs->mx, &setup[s], true);
    return 0;
}

enum { LIVE_EVERY_MS = 250 };

/* The live line on a terminal, redrawn in place every LIVE_EVERY_MS: the
 * commands so far, their rate, p50, and the share of the pass done with
 * the time left (of the duration, else of `cycles` at the rate so far). */
static void progress_live(run_state *rs, uint64_t start, uint64_t now, uint64_t duration_ns,
                          uint64_t cycles)
{
    double secs = (double)(now - start) / 1e9;
    double done = duration_ns ? secs * 1e9 / (double)duration_ns
                  : cycles    ? (double)rs->timed_cycles / (double)cycles
                              : 0;
    done = done > 1 ? 1 : done;
    fprintf(stderr,
            "\r\033[K  %s %s run %d: %" PRIu64 " commands, %.0f commands/s, p50 %.3f us, "
            "%.0f%% done, ETA %.0f s",
            rs->p->domain, rs->ts->label, rs->run, rs->timed_commands,
            secs > 0 ? (double)rs->timed_commands / secs : 0.0,
            (double)hist_percentile_of(rs->tenths, STATS_TENTHS, 0.5) / 1000.0, done * 100,
            done > 0 ? secs / done - secs : 0.0);
}

/* --progress: one line per interval closed, as pgbench -P: its end, rate,
 * p50 and p99. */
static void progress_interval(run_state *rs)
{
    const interval *it = &rs->iv.items[rs->iv.n - 1];
    double secs = (double)it->length_ns / 1e9;
    fprintf(stderr, "  %s %s run %d: %.1f s, %.0f commands/s, p50 %.3f us, p99 %.3f us\n",
            rs->p->domain, rs->ts->label, rs->run, (double)(it->start_ns + it->length_ns) / 1e9,
            secs > 0 ? (double)it->commands / secs : 0.0, it->p50_ns / 1000.0, it->p99_ns / 1000.0);
}

/* Room for one more --samples entry (grown outside the timed region). */
static void sample_room(run_state *rs)
{
    size_t used = (size_t)(rs->next_sample - rs->samples);
    if (used < rs->samples_cap)
        return;
    rs->samples_cap = rs->samples_cap ? rs->samples_cap * 2 : 1024;
    rs->samples = xrealloc(rs->samples, rs->samples_cap * sizeof *rs->samples);
    rs->next_sample = rs->samples + used;
}

/* After a timed pass: the run's histogram, which the loop leaves to its
 * tenths (each command is in exactly one), so as to record one fewer. */
static void all_of_tenths(run_state *rs)
{
    for (int i = 0; i < STATS_TENTHS; i++)
        hist_merge(&rs->all, &rs->tenths[i]);
}

/* How the timed pass runs: closed or open loop, cycles or a duration. */
typedef struct pass_plan {
    bool open;
    arrival arr;
    uint64_t max_lag_ns;
    uint64_t duration_ns; /* 0: `cycles` cycles (offered ones, in the open loop) */
    uint64_t cycles;
    uint64_t span_ns; /* what the tenths divide: the duration, or the schedule's length
                         (0: by cycle count, the closed loop's) */
} pass_plan;

static pass_plan pass_plan_of(const run_state *rs, const run_options *o)
{
    const workload *w = &rs->p->work;
    pass_plan pp = {.cycles = (uint64_t)rs->iterations};
    pp.duration_ns = o->duration_ns ? o->duration_ns : w->duration_ns;
    arrival_spec spec = w->arrival;
    if (rs->rate > 0) {
        spec.rate = rs->rate;
        spec.process = spec.process ? spec.process : ARRIVAL_POISSON;
    }
    pp.open = spec.process != ARRIVAL_NONE;
    pp.max_lag_ns = spec.max_lag_ns;
    if (pp.open)
        arrival_init_client(&pp.arr, &spec, rs->seed, rs->run, (int)client_place(rs),
                            (int)clients_all(rs)); /* a shard: 1/N of the rate */
    pp.span_ns = pp.duration_ns ? pp.duration_ns
                 : pp.open && spec.rate > 0
                     ? (uint64_t)((double)pp.cycles * (double)clients_all(rs) / spec.rate * 1e9)
                     : 0;
    return pp;
}

/* A conflict after the target's last try (TARGET_FAILED): counted for its
 * verb and flow, kept out of the latencies (as pgbench keeps failed
 * transactions out of its), and the rest of cycle n is not run: *rc = 1
 * tells the pass to go on with the next cycle. Returns t1. */
static uint64_t abandon_cycle(run_state *rs, const step_inst *si, uint64_t n, uint64_t t1, int *rc)
{
    rs->verb_failed[si->verb]++;
    rs->flow_failed[rs->flow]++;
    rs->failed_cycles++;
    note_outcome(rs, si, TARGET_FAILED);
    if (rs->nclients <= 1) { /* only one client's stream is replayed by a shadow */
        if (rs->nabandoned == rs->abandoned_cap) {
            rs->abandoned_cap = rs->abandoned_cap ? 2 * rs->abandoned_cap : 16;
            rs->abandoned = xrealloc(rs->abandoned, rs->abandoned_cap * sizeof *rs->abandoned);
        }
        rs->abandoned[rs->nabandoned++] = (abandoned){.n = n, .st = si->st};
    }
    *rc = 1;
    return t1;
}

/* One dispatch of the timed pass: prepare, the two clock reads, then
 * everything that is not the target's. `from` is when its latency starts
 * in the open loop (the intended start, or the end of the cycle's
 * previous step). Inlined into each loop with `open` a constant, so the
 * closed loop carries nothing of the open loop's. Returns the second clock
 * read, or 0 with rc set to -1. */
static inline __attribute__((always_inline)) uint64_t
timed_step(run_state *rs, step_inst *si, uint64_t n, unsigned tenth, uint64_t from, bool first,
           bool settles, uint64_t *settle_ns, int *rc, bool open)
{
    if (expand_step(rs, si, "timed") < 0) {
        *rc = -1;
        return 0;
    }
    if (target_prepare_checked(rs->t, si->st->cmd, &si->args, si->checked) != TARGET_OK) {
        *rc = check_outcome(rs, si, TARGET_ERROR, "timed", (int64_t)n);
        return 0;
    }
    uint64_t trips = rs->t->round_trips;
    uint64_t t0 = open ? clock_mono_ns() : clock_fast_start();
    int drc = target_dispatch_checked(rs->t, si->st->cmd, &si->args, si->checked);
    uint64_t t1 = open ? clock_mono_ns() : clock_fast_stop();
    rs->verb_trips[si->verb] += rs->t->round_trips - trips;
    uint64_t ns = open ? t1 - from : t1 - t0; /* the open loop's response time */
    if (drc == TARGET_FAILED)
        return abandon_cycle(rs, si, n, t1, rc);
    hist_sample hs = hist_sample_of(ns);
    /* the run's histogram is the tenths' merge (all_of_tenths), each verb's
       its intervals' (fold_verbs) */
    hist_add(&rs->tenths[tenth], &hs);
    intervals_add(&rs->iv, (size_t)si->verb, &hs);
    if (open) {
        hist_record(&rs->service, t1 - t0);
        if (first) /* the cycle's first step: how late it started */
            hist_record(&rs->lag, t0 > from ? t0 - from : 0);
    }
    rs->timed_commands++;
    if (rs->next_sample) {
        sample_room(rs);
        *rs->next_sample++ = (sample){.ns = ns, .cycle = n, .verb = si->st->cmd->verb};
    }
    if (settles && drc != TARGET_ERROR) { /* untimed: out of the wall time too */
        uint64_t s0 = pass_now(open);
        if (target_settle(rs->t, si->st->cmd) != TARGET_OK)
            drc = TARGET_ERROR;
        *settle_ns += pass_now(open) - s0;
    }
    if (drc != TARGET_OK || si->st->expect_refused || step_checks_answer(si->st)) {
        *rc = check_outcome(rs, si, drc, "timed", (int64_t)n);
        if (drc == TARGET_REFUSED) /* null accepts them: not refused */
            (si->st->count_refusals ? rs->verb_counted : rs->verb_refused)[si->verb]++;
        if (drc == TARGET_REFUSED && si->st->count_refusals)
            rs->flow_counted[rs->flow]++;
    }
    note_outcome(rs, si, drc);
    const value *answer;
    /* untimed, after the second clock read; null answers nothing */
    if (drc == TARGET_OK && si->st->cmd->scan && !(rs->drv->caps & TARGET_ACCEPTS_ALL) &&
        target_answer(rs->t, &answer) == TARGET_OK)
        rs->verb_rows[si->verb] += answer->len;
    return t1;
}

/* The tenth of the pass a cycle starting at `now` (or numbered k) is in. */
static unsigned tenth_of(const pass_plan *pp, uint64_t start, uint64_t now, uint64_t k,
                         unsigned *tenth, uint64_t *next_tenth)
{
    if (pp->span_ns) {
        uint64_t t = now > start ? (now - start) * STATS_TENTHS / pp->span_ns : 0;
        return (unsigned)(t < STATS_TENTHS ? t : STATS_TENTHS - 1);
    }
    if (k == *next_tenth && *tenth < STATS_TENTHS - 1)
        *next_tenth = stats_tenth_start(++*tenth + 1, pp->cycles);
    return *tenth;
}

/* The open loop with a duration, at its end (after the pass's last clock
 * read: untimed): the cycles of schedule arr still due before the
 * deadline, which will never start, are offered and not started (start,
 * the pass's, and deadline are clock readings in ns). */
static void not_started_after(run_state *rs, arrival *arr, uint64_t start, uint64_t deadline)
{
    uint64_t n = arrival_count_before(arr, deadline - start);
    rs->offered += n;
    rs->not_started += n;
}

/* The timed pass's loop, inlined once per mode (`open` a constant). */
static inline __attribute__((always_inline)) int timed_loop(run_state *rs, const run_options *o,
                                                            pass_plan *pp, bool live,
                                                            double *wall_seconds, bool open)
{
    uint64_t first = (uint64_t)rs->prefill + (uint64_t)rs->warmup * clients_all(rs);
    unsigned tenth = 0;
    uint64_t next_tenth = stats_tenth_start(1, pp->cycles);
    int rc = 0;
    bool settles = target_settles(rs->t);
    uint64_t settle_ns = 0;
    rs->start_epoch_s = epoch_seconds();
    uint64_t start = pass_now(open);
    intervals_restart(&rs->iv, start);
    uint64_t deadline = start + pp->duration_ns;
    uint64_t live_next = start + (uint64_t)LIVE_EVERY_MS * 1000000u;
    bool time_up = false; /* the open loop's duration ended with cycles due */
    for (uint64_t k = 0; rc == 0; k++) {
        if (!pp->duration_ns && k >= pp->cycles)
            break; /* all done: an interrupt now stops before the next run */
        if (runner_interrupted) {
            rc = -1;
            break;
        }
        /* a closed loop of so many cycles needs no clock here */
        uint64_t now = open || pp->duration_ns ? pass_now(open) : 0;
        if (open) {
            rs->intended = start + arrival_next(&pp->arr);
            if (pp->duration_ns && rs->intended >= deadline)
                break;
            rs->offered++;
            if (pp->duration_ns && now >= deadline) { /* behind when the time is up */
                rs->not_started++;
                time_up = true;
                break;
            }
            if (pp->max_lag_ns && now > rs->intended + pp->max_lag_ns) {
                rs->dropped++; /* too late to start: pgbench -L skips it */
                continue;
            }
            if (now < rs->intended) /* late: the clock was just read, start at once */
                arrival_wait_until(rs->intended);
            now = rs->intended;
        } else if (pp->duration_ns && now >= deadline) {
            break;
        }
        unsigned t = tenth_of(pp, start, now, k, &tenth, &next_tenth);
        uint64_t n = first + rs->timed_cycles * clients_all(rs) + client_place(rs);
        size_t nsteps;
        step_inst *steps = begin_cycle(rs, n, "timed", false, &nsteps);
        if (!steps) {
            rc = -1;
            break;
        }
        uint64_t from = open ? rs->intended : 0, end = 0;
        for (size_t s = 0; s < nsteps && rc == 0; s++) {
            end = timed_step(rs, &steps[s], n, t, from, s == 0, settles, &settle_ns, &rc, open);
            from = open ? end : 0;
            if (rc == 0 && intervals_tick(&rs->iv, end) && o->progress_seconds > 0)
                progress_interval(rs);
            if (rc == 0 && live && end >= live_next) {
                progress_live(rs, start, end, pp->duration_ns, pp->cycles);
                live_next = end + (uint64_t)LIVE_EVERY_MS * 1000000u;
            }
        }
        if (rc > 0) /* abandoned after a conflict (abandon_cycle): counted, and on */
            rc = 0;
        if (rc == 0) {
            rs->timed_cycles++;
            if (open && pp->max_lag_ns && end - rs->intended > pp->max_lag_ns)
                rs->late++;
        }
    }
    uint64_t stop = pass_now(open);
    if (time_up)
        not_started_after(rs, &pp->arr, start, deadline);
    intervals_finish(&rs->iv, stop);
    all_of_tenths(rs);
    *wall_seconds = (double)(stop - start - settle_ns) / 1e9;
    if (live)
        fputs("\r\033[K", stderr); /* the run's own line replaces the live one */
    return rc;
}

/* The timed pass. Returns 0, or -1 with rs->failure set (or on interrupt). */
static int timed_pass(run_state *rs, const run_options *o, double *wall_seconds)
{
    pass_plan pp = pass_plan_of(rs, o);
    rs->open_loop = pp.open;
    /* --progress prints each interval as it closes; without it, a terminal
       gets a live line */
    bool live = !(o->progress_seconds > 0) && o->live && !o->quiet;
    uint64_t every = o->interval_ns            ? o->interval_ns
                     : o->progress_seconds > 0 ? (uint64_t)(o->progress_seconds * 1e9)
                                               : 1000000000u;
    mix_reset_counts(rs->mx); /* the flows' shares are the timed pass's */
    if (intervals_init(&rs->iv, every, 0, rs->nverbs) < 0) /* before the clock starts */
        return err_set(&rs->failure, "run %d: out of memory", rs->run);
    rs->iv.fold_verbs = rs->verbs;
    /* each loop its own machine code: the closed one tests nothing of the open one's */
    return pp.open ? timed_loop(rs, o, &pp, live, wall_seconds, true)
                   : timed_loop(rs, o, &pp, live, wall_seconds, false);
}

/* ---- many clients (DESIGN section 10) ---- */

/* Client c's state: the lead's own for 0, else its peer's. */
static run_state *client_state(run_state *rs, int c)
{
    return c == 0 ? rs : &rs->peers[c - 1];
}

/* One client's timed pass, run a cycle at a time by the thread that drives
 * it (timed_pass's loop, taken apart so that a thread can take its clients
 * in turn). */
typedef struct client_pass {
    _Alignas(ALLOC_LINE) run_state *rs; /* its own cache lines: its thread writes it */
    pass_plan pp;
    uint64_t first, k, deadline, next_at; /* next_at: the open loop's next intended start */
    unsigned tenth;
    uint64_t next_tenth;
    bool settles, done;
    int rc;
} client_pass;

static void client_start(client_pass *cp, uint64_t start)
{
    run_state *rs = cp->rs;
    rs->start_ns = rs->end_ns = start;
    intervals_restart(&rs->iv, start);
    cp->deadline = start + cp->pp.duration_ns;
    if (cp->pp.open)
        cp->next_at = start + arrival_next(&cp->pp.arr);
}

static void client_stop(client_pass *cp, int rc)
{
    cp->rc = rc;
    cp->done = true;
    cp->rs->end_ns = pass_now(cp->pp.open);
    intervals_finish(&cp->rs->iv, cp->rs->end_ns);
    all_of_tenths(cp->rs);
}

/* One turn of client cp: a cycle, a dropped cycle, or its end. Its cycle
 * numbers are first + k * nclients + its number, unique across clients. */
static void client_turn(client_pass *cp)
{
    run_state *rs = cp->rs;
    const pass_plan *pp = &cp->pp;
    if (!pp->duration_ns && cp->k >= pp->cycles)
        return client_stop(cp, 0);
    if (runner_interrupted)
        return client_stop(cp, -1);
    uint64_t now = pp->open || pp->duration_ns ? pass_now(pp->open) : 0;
    if (pp->open) {
        rs->intended = cp->next_at;
        if (pp->duration_ns && rs->intended >= cp->deadline)
            return client_stop(cp, 0);
        rs->offered++;
        if (pp->duration_ns && now >= cp->deadline) { /* behind when the time is up */
            rs->not_started++;
            client_stop(cp, 0);
            not_started_after(rs, &cp->pp.arr, rs->start_ns, cp->deadline);
            return;
        }
        cp->next_at = rs->start_ns + arrival_next(&cp->pp.arr);
        if (pp->max_lag_ns && now > rs->intended + pp->max_lag_ns) {
            rs->dropped++;
            cp->k++;
            return;
        }
        if (now < rs->intended)
            arrival_wait_until(rs->intended);
        now = rs->intended;
    } else if (pp->duration_ns && now >= cp->deadline) {
        return client_stop(cp, 0);
    }
    unsigned t = tenth_of(pp, rs->start_ns, now, cp->k, &cp->tenth, &cp->next_tenth);
    cp->k++;
    uint64_t n = cp->first + rs->timed_cycles * clients_all(rs) + client_place(rs);
    size_t nsteps;
    step_inst *steps = begin_cycle(rs, n, "timed", false, &nsteps);
    if (!steps)
        return client_stop(cp, -1);
    int rc = 0;
    uint64_t from = pp->open ? rs->intended : 0, end = 0;
    for (size_t s = 0; s < nsteps && rc == 0; s++) {
        end = pp->open ? timed_step(rs, &steps[s], n, t, from, s == 0, cp->settles, &rs->settle_ns,
                                    &rc, true)
                       : timed_step(rs, &steps[s], n, t, 0, s == 0, cp->settles, &rs->settle_ns,
                                    &rc, false);
        from = pp->open ? end : 0;
        if (rc == 0)
            intervals_tick(&rs->iv, end);
    }
    if (rc < 0) /* rc 1: abandoned after a conflict (abandon_cycle), and on */
        return client_stop(cp, rc);
    rs->timed_cycles++;
    if (pp->open && pp->max_lag_ns && end - rs->intended > pp->max_lag_ns)
        rs->late++;
}

/* The start barrier: every thread waits until all are ready, then all go
 * at once (or none, when one could not be started). */
typedef struct start_gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int ready;
    bool open, abort;
} start_gate;

/* Waits at the gate; false when the pass is called off. */
static bool gate_wait(start_gate *g)
{
    pthread_mutex_lock(&g->mu);
    g->ready++;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    bool go = !g->abort;
    pthread_mutex_unlock(&g->mu);
    return go;
}

/* Opens the gate once `threads` wait at it (abort: at once, calling it off). */
static void gate_open(start_gate *g, int threads, bool abort)
{
    pthread_mutex_lock(&g->mu);
    while (!abort && g->ready < threads)
        pthread_cond_wait(&g->cv, &g->mu);
    g->open = true;
    g->abort = abort;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* What one thread drives: every nthreads-th client from its number on. */
typedef struct driver_thread {
    pthread_t id;
    client_pass *cps; /* every client's */
    int from, step, nclients;
    int cpu; /* the CPU it is pinned to (pin_threads), or -1 */
    start_gate *gate;
} driver_thread;

/* With as many threads as CPUs in force, each thread is pinned to a CPU of
 * its own, unless the target has a child to share them with (TARGET_ONE_CPU
 * places that pair). Left to the scheduler, the threads start on the CPU
 * that created them, and a kernel that packs tasks onto few CPUs (this
 * machine's: both threads read one CPU at every sample for over a second,
 * docs/benchmarks.md) runs two clients on one CPU. */
static bool pin_threads(const target_driver *drv, int threads)
{
    return threads > 1 && threads == env_cpus_in_force() && !(drv->caps & TARGET_ONE_CPU);
}

/* The CPUs in force, in order, into cpus[0 .. n - 1]; how many it found. */
static int cpus_in_force(int *cpus, int n)
{
    cpu_set_t set;
    int found = 0;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 0;
    for (int c = 0; c < CPU_SETSIZE && found < n; c++)
        if (CPU_ISSET(c, &set))
            cpus[found++] = c;
    return found;
}

/* A thread's clients take turns, one cycle each (closed loop), or in the
 * order of their next intended starts (open loop): a thread has one
 * command in flight at a time, so T threads keep at most T in flight. */
static void *drive_clients(void *arg)
{
    driver_thread *th = arg;
    if (th->cpu >= 0) { /* untimed, before the gate: a pin that fails leaves it unpinned */
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(th->cpu, &one);
        pthread_setaffinity_np(pthread_self(), sizeof one, &one);
    }
    if (!gate_wait(th->gate)) /* every client starts together */
        return NULL;
    uint64_t start = pass_now(th->cps[th->from].pp.open); /* one mode for every client */
    int active = 0;
    for (int c = th->from; c < th->nclients; c += th->step, active++)
        client_start(&th->cps[c], start);
    while (active > 0) {
        client_pass *next = NULL;
        for (int c = th->from; c < th->nclients; c += th->step) {
            client_pass *cp = &th->cps[c];
            if (cp->done)
                continue;
            if (!cp->pp.open) {
                client_turn(cp);
                active -= cp->done;
            } else if (!next || cp->next_at < next->next_at) {
                next = cp;
            }
        }
        if (next) {
            client_turn(next);
            active -= next->done;
        }
    }
    return NULL;
}

/* A peer's figures into the lead's: histograms bucket by bucket, counts
 * summed. */
static void merge_client(run_state *rs, run_state *peer)
{
    const plan *p = rs->p;
    hist_merge(&rs->all, &peer->all);
    for (int i = 0; i < STATS_TENTHS; i++)
        hist_merge(&rs->tenths[i], &peer->tenths[i]);
    for (size_t v = 0; v < rs->nverbs; v++) {
        hist_merge(&rs->verbs[v], &peer->verbs[v]);
        rs->verb_refused[v] += peer->verb_refused[v];
        rs->verb_counted[v] += peer->verb_counted[v];
        rs->verb_trips[v] += peer->verb_trips[v];
        rs->verb_rows[v] += peer->verb_rows[v];
        rs->verb_failed[v] += peer->verb_failed[v];
    }
    for (size_t f = 0; f < p->work.nflows; f++) {
        rs->flow_counted[f] += peer->flow_counted[f];
        rs->flow_failed[f] += peer->flow_failed[f];
    }
    rs->failed_cycles += peer->failed_cycles;
    hist_merge(&rs->service, &peer->service);
    hist_merge(&rs->lag, &peer->lag);
    intervals_merge(&rs->iv, &peer->iv);
    rs->timed_commands += peer->timed_commands;
    rs->timed_cycles += peer->timed_cycles;
    rs->offered += peer->offered;
    rs->late += peer->late;
    rs->dropped += peer->dropped;
    rs->not_started += peer->not_started;
    seen_fold(peer);
    for (size_t i = 0; i < p->naggs + p->nevents; i++)
        rs->seen[i] += peer->seen[i];
    rs->seen_unknown = rs->seen_unknown || peer->seen_unknown;
}

/* The timed pass of several clients: each its own pass plan and figures,
 * driven by T threads that start together after a barrier; the figures
 * are merged into the lead's once every thread has finished (nothing is
 * shared on the timed path but the target's own store). Wall time is first
 * start to last end. Returns 0, or -1 with rs->failure set. */
static int timed_pass_many(run_state *rs, const run_options *o, double *wall_seconds)
{
    int nc = rs->nclients;
    int nt = o->threads > 0 ? (int)o->threads : env_cpus_in_force();
    nt = nt < nc ? nt : nc;
    rs->threads = nt;
    uint64_t every = o->interval_ns            ? o->interval_ns
                     : o->progress_seconds > 0 ? (uint64_t)(o->progress_seconds * 1e9)
                                               : 1000000000u;
    client_pass *cps = xcalloc_lines((size_t)nc, sizeof *cps);
    driver_thread *ths = xcalloc((size_t)nt, sizeof *ths);
    int rc = 0;
    for (int c = 0; c < nc && rc == 0; c++) {
        run_state *cs = client_state(rs, c);
        client_pass *cp = &cps[c];
        cp->rs = cs;
        cp->pp = pass_plan_of(cs, o);
        cp->first = (uint64_t)cs->prefill + (uint64_t)cs->warmup * clients_all(cs);
        cp->next_tenth = stats_tenth_start(1, cp->pp.cycles);
        cp->settles = target_settles(cs->t);
        cs->open_loop = cp->pp.open;
        mix_reset_counts(cs->mx);
        if (intervals_init(&cs->iv, every, 0, cs->nverbs) < 0)
            rc = err_set(&rs->failure, "run %d: out of memory", rs->run);
        cs->iv.fold_verbs = cs->verbs;
    }
    start_gate gate = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    rs->start_epoch_s = epoch_seconds();
    int *cpus = xcalloc((size_t)nt, sizeof *cpus);
    bool pin = pin_threads(rs->drv, nt) && cpus_in_force(cpus, nt) == nt;
    int started = 0;
    for (int i = 0; i < nt && rc == 0; i++) {
        ths[i] = (driver_thread){.cps = cps,
                                 .from = i,
                                 .step = nt,
                                 .nclients = nc,
                                 .cpu = pin ? cpus[i] : -1,
                                 .gate = &gate};
        if (pthread_create(&ths[i].id, NULL, drive_clients, &ths[i]) != 0)
            rc = err_set(&rs->failure, "run %d: cannot start a thread for the clients", rs->run);
        else
            started++;
    }
    gate_open(&gate, started, rc != 0);
    for (int i = 0; i < started; i++)
        pthread_join(ths[i].id, NULL);
    pthread_mutex_destroy(&gate.mu);
    pthread_cond_destroy(&gate.cv);
    uint64_t first_start = UINT64_MAX, last_end = 0, settle = 0;
    for (int c = 0; c < nc && rc == 0; c++) {
        run_state *cs = client_state(rs, c);
        first_start = cs->start_ns < first_start ? cs->start_ns : first_start;
        last_end = cs->end_ns > last_end ? cs->end_ns : last_end;
        settle += cs->settle_ns;
        if (cps[c].rc != 0 && rc == 0) {
            rc = -1;
            if (c > 0)
                rs->failure = cs->failure;
        }
    }
    if (rc == 0) {
        uint64_t span = last_end - first_start, mean_settle = settle / (uint64_t)nc;
        *wall_seconds = (double)(span > mean_settle ? span - mean_settle : span) / 1e9;
        for (int c = 1; c < nc; c++)
            merge_client(rs, client_state(rs, c));
    }
    free(cpus);
    free(ths);
    free(cps);
    return rc;
}

/* ---- the shadow: the C runtime on a memory store, fed the same commands ---- */

/* The identity of a record the shadow created. */
typedef struct shadow_key {
    const aggregate *agg;
    value key;
} shadow_key;

/* A store in front of the shadow's memory store that notes the identity of
 * every record a committed command created, so verify knows which records
 * to read back. */
typedef struct shadow {
    store base;
    store_ops ops;
    store *inner;
    runtime *rt;
    mix *mx;   /* its own copy of the command stream */
    arena mem; /* the keys */
    shadow_key *keys;
    size_t nkeys, committed, cap; /* keys past committed: the open transaction's */
} shadow;

static int sh_begin(store *s)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->begin(sh->inner);
}

static int sh_load(store *s, const aggregate *agg, const value *key, value *out)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->load(sh->inner, agg, key, out);
}

static int sh_save(store *s, const aggregate *agg, const value *key, const value *state,
                   bool created)
{
    shadow *sh = (shadow *)s;
    if (created) {
        if (sh->nkeys == sh->cap) {
            sh->cap = sh->cap ? sh->cap * 2 : 256;
            sh->keys = xrealloc(sh->keys, sh->cap * sizeof *sh->keys);
        }
        sh->keys[sh->nkeys++] = (shadow_key){.agg = agg, .key = value_copy(&sh->mem, key)};
    }
    return sh->inner->ops->save(sh->inner, agg, key, state, created);
}

static int sh_remove(store *s, const aggregate *agg, const value *key)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->remove(sh->inner, agg, key);
}

static int sh_append_event(store *s, const event_def *ev, const aggregate *agg, const value *key,
                           const value *payload)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->append_event(sh->inner, ev, agg, key, payload);
}

static int sh_commit(store *s)
{
    shadow *sh = (shadow *)s;
    int rc = sh->inner->ops->commit(sh->inner);
    if (rc == 0)
        sh->committed = sh->nkeys;
    return rc;
}

static int sh_rollback(store *s)
{
    shadow *sh = (shadow *)s;
    sh->nkeys = sh->committed;
    return sh->inner->ops->rollback(sh->inner);
}

static int sh_count(store *s, uint64_t *aggs, uint64_t *events)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->count(sh->inner, aggs, events);
}

static int sh_scan(store *s, const aggregate *agg, const value *from, int64_t limit, value *out)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->scan(sh->inner, agg, from, limit, out);
}

static int sh_update(store *s, const aggregate *agg, const value *key, const store_change *changes,
                     size_t n, value *state)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->update(sh->inner, agg, key, changes, n, state);
}

static int sh_direct_find(store *s, const aggregate *agg, const value *key, const store_room *room,
                          size_t nroom, store_ref *ref, value *state)
{
    shadow *sh = (shadow *)s;
    return sh->inner->ops->direct_find(sh->inner, agg, key, room, nroom, ref, state);
}

/* A direct write is its own commit: a created record's identity is noted
 * as committed once the write holds. */
static int sh_direct_write(store *s, const store_write *w)
{
    shadow *sh = (shadow *)s;
    int rc = sh->inner->ops->direct_write(sh->inner, w);
    if (rc == 0 && w->kind == STORE_WRITE_CREATE) {
        if (sh->nkeys == sh->cap) {
            sh->cap = sh->cap ? sh->cap * 2 : 256;
            sh->keys = xrealloc(sh->keys, sh->cap * sizeof *sh->keys);
        }
        sh->keys[sh->nkeys++] = (shadow_key){.agg = w->agg, .key = value_copy(&sh->mem, w->key)};
        sh->committed = sh->nkeys;
    }
    return rc;
}

static void sh_direct_release(store *s)
{
    shadow *sh = (shadow *)s;
    sh->inner->ops->direct_release(sh->inner);
}

static void shadow_free(shadow *sh)
{
    mix_free(sh->mx);
    runtime_free(sh->rt);
    store_close(sh->inner);
    free(sh->keys);
    arena_free(&sh->mem);
}

/* One shadow dispatch, held to the step's expectation, as the target was. */
static int shadow_step(run_state *rs, shadow *sh, const step_inst *si, const char *where)
{
    runtime_status st = runtime_dispatch_checked(sh->rt, si->st->cmd, &si->args, si->checked);
    bool refused = st == RUNTIME_REFUSED;
    if (sh->mx)
        mix_done(sh->mx, si, st == RUNTIME_OK);
    if (st != RUNTIME_ERROR && (refused == si->st->expect_refused || si->st->count_refusals))
        return 0;
    if (st == RUNTIME_ERROR)
        err_set(&rs->failure, "run %d, verify: the shadow failed at %s, %s: %s", rs->run, where,
                si->st->cmd->verb, runtime_message(sh->rt));
    else if (refused)
        err_set(&rs->failure,
                "run %d, verify: the C runtime refuses %s at %s, which the target carried out: %s",
                rs->run, si->st->cmd->verb, where, runtime_message(sh->rt));
    else
        err_set(&rs->failure,
                "run %d, verify: the C runtime carries out %s at %s, which the target refused",
                rs->run, si->st->cmd->verb, where);
    return -1;
}

/* Replays the run's whole command stream (setup, prefill, warmup, timed:
 * deterministic in the seed, the run number and the outcomes, which the
 * shadow's must match) into a fresh shadow, after the pass. Returns 0, or
 * -1 with rs->failure set. */
static int shadow_replay(run_state *rs, shadow *sh)
{
    const plan *p = rs->p;
    bench_error *e = &rs->failure;
    if (store_open(store_default(), p, NULL, rs->run, &sh->inner, e->msg, sizeof e->msg) < 0)
        return err_prefix(e, "run %d, verify: the shadow: ", rs->run);
    sh->ops = (store_ops){.begin = sh_begin,
                          .load = sh_load,
                          .save = sh_save,
                          .remove = sh_remove,
                          .append_event = sh_append_event,
                          .commit = sh_commit,
                          .rollback = sh_rollback,
                          .count = sh_count,
                          .checks_creates = sh->inner->ops->checks_creates,
                          .scan = sh->inner->ops->scan ? sh_scan : NULL,
                          .update = sh->inner->ops->update ? sh_update : NULL};
    if (sh->inner->ops->direct_find) { /* the shadow takes the path the memory target takes */
        sh->ops.direct_find = sh_direct_find;
        sh->ops.direct_write = sh_direct_write;
        sh->ops.direct_release = sh_direct_release;
    }
    sh->base.ops = &sh->ops;
    /* a shard's cycles are its own numbers from its own stream */
    uint64_t place = client_place(rs), stride = clients_all(rs);
    if (runtime_new(p, &sh->base, &sh->rt) < 0 ||
        !(sh->mx = mix_new_client(p, rs->run, rs->seed, (int)place, NULL)))
        return err_set(e, "run %d, verify: the shadow: out of memory", rs->run);
    size_t nsetup;
    step_inst *setup = mix_setup(sh->mx, &nsetup);
    for (size_t s = 0; s < nsetup; s++)
        if (shadow_step(rs, sh, &setup[s], "setup") < 0)
            return -1;
    /* prefill, warmup and the timed cycles, each phase's from its start */
    uint64_t pre = (uint64_t)rs->prefill, warm = pre + (uint64_t)rs->warmup * stride;
    uint64_t bounds[][2] = {{0, pre}, {pre, warm}, {warm, warm + rs->timed_cycles * stride}};
    size_t ab = 0; /* the next abandoned cycle */
    char where[48];
    for (size_t ph = 0; ph < 3; ph++)
        for (uint64_t n = bounds[ph][0] + place; n < bounds[ph][1]; n += stride) {
            if (runner_interrupted)
                return -1;
            int f = mix_begin(sh->mx, n, ph == 0, e);
            if (f < 0)
                return err_prefix(e, "run %d, verify: the shadow's ", rs->run);
            size_t nsteps;
            step_inst *steps = mix_flow_steps(sh->mx, (size_t)f, &nsteps);
            snprintf(where, sizeof where, "cycle %" PRIu64, n);
            for (size_t s = 0; s < nsteps; s++) {
                if (mix_expand(sh->mx, &steps[s], e) < 0)
                    return err_prefix(e, "run %d, verify: the shadow's ", rs->run);
                if (ab < rs->nabandoned && rs->abandoned[ab].n == n &&
                    rs->abandoned[ab].st == steps[s].st) { /* rolled back, and the cycle ended */
                    mix_done(sh->mx, &steps[s], false);
                    ab++;
                    break;
                }
                if (shadow_step(rs, sh, &steps[s], where) < 0)
                    return -1;
            }
        }
    return 0;
}

/* "Order 'pizza-7'": a record by its aggregate and identity. */
static void record_name(const aggregate *agg, const value *key, char *out, size_t size)
{
    char k[64];
    if (key->kind == VAL_STRING)
        snprintf(k, sizeof k, "%.*s", (int)(key->len < 60 ? key->len : 60), key->u.s);
    else
        value_flow_text(agg->state->fields[agg->identity].type, key, k, sizeof k);
    snprintf(out, size, "%s '%s'", agg->name, k);
}

/* The first field of got that differs from want, said in out; false when
 * they are equal. */
static bool first_difference(const ty *state, const value *got, const value *want, char *out,
                             size_t size)
{
    for (size_t i = 0; i < state->nfields; i++) {
        const field *f = &state->fields[i];
        const value *g = &got->u.items[i], *w = &want->u.items[i];
        if (value_equal(g, w))
            continue;
        char gt[48], wt[48];
        if (g->kind == VAL_LIST && w->kind == VAL_LIST && g->len != w->len) {
            snprintf(out, size, "field %s has %u item%s, the shadow %u", f->name, g->len,
                     g->len == 1 ? "" : "s", w->len);
            return true;
        }
        if (g->kind == VAL_LIST && w->kind == VAL_LIST) {
            size_t k = 0;
            while (k < g->len && value_equal(&g->u.items[k], &w->u.items[k]))
                k++;
            value_flow_text(f->type->elem, &g->u.items[k], gt, sizeof gt);
            value_flow_text(f->type->elem, &w->u.items[k], wt, sizeof wt);
            /* cut to fit, as verify_detail is */
            if (snprintf(out, size, "field %s item %zu is %s, the shadow %s", f->name, k, gt, wt) <
                0)
                out[0] = '\0';
            return true;
        }
        if (g->kind == VAL_NONE)
            snprintf(gt, sizeof gt, "unset");
        else
            value_flow_text(f->type, g, gt, sizeof gt);
        if (w->kind == VAL_NONE)
            snprintf(wt, sizeof wt, "unset");
        else
            value_flow_text(f->type, w, wt, sizeof wt);
        snprintf(out, size, "field %s is %s, the shadow %s", f->name, gt, wt);
        return true;
    }
    return false;
}

enum { VERIFY_SAMPLE = 100 };

/* Reads back the shadow's records from the target (every one, or a sample
 * spread evenly over them) and compares them field by field. Returns 1
 * when every record read matched, 0 when the target cannot read records
 * back, -1 on a difference (in tr->verify_detail) or an error (in
 * rs->failure). */
static int compare_records(run_state *rs, shadow *sh, bool every, target_result *tr)
{
    size_t n = sh->committed;
    size_t take = every || n <= VERIFY_SAMPLE ? n : VERIFY_SAMPLE;
    arena a = {0};
    int out = 1;
    for (size_t i = 0; out == 1 && i < take; i++) {
        const shadow_key *k = &sh->keys[take == n ? i : i * n / take];
        value want, got;
        arena_reset(&a);
        /* absent: a command deleted it, so the target must not have it */
        int have = sh->inner->ops->load(sh->inner, k->agg, &k->key, &want);
        if (have < 0) {
            err_set(&rs->failure, "run %d, verify: the shadow lost a record: %s", rs->run,
                    sh->inner->error);
            out = -1;
            break;
        }
        int rc = target_read(rs->t, k->agg, &k->key, &a, &got);
        char name[80], diff[128];
        if (rc == TARGET_UNSUPPORTED) {
            out = 0;
        } else if (rc >= 0 && !have) {
            if (rc == 1) {
                record_name(k->agg, &k->key, name, sizeof name);
                snprintf(tr->verify_detail, sizeof tr->verify_detail,
                         "run %d: %s is still there; the commands deleted it", rs->run, name);
                out = -1;
            }
        } else if (rc < 0) {
            record_name(k->agg, &k->key, name, sizeof name);
            err_set(&rs->failure, "run %d, verify: reading %s back: %s", rs->run, name,
                    rs->t->message);
            out = -1;
        } else if (rc == 0 || first_difference(k->agg->state, &got, &want, diff, sizeof diff)) {
            record_name(k->agg, &k->key, name, sizeof name);
            if (rc == 0)
                snprintf(tr->verify_detail, sizeof tr->verify_detail,
                         "run %d: %s is missing; the commands left it in the shadow", rs->run,
                         name);
            else
                snprintf(tr->verify_detail, sizeof tr->verify_detail,
                         "run %d: %s differs from what the commands left: %s", rs->run, name, diff);
            out = -1;
        }
    }
    arena_free(&a);
    return out;
}

/* verify: full: the target's counts (aggs, events) against the shadow's. */
static int compare_counts(run_state *rs, shadow *sh, const uint64_t *aggs, const uint64_t *events,
                          target_result *tr)
{
    const plan *p = rs->p;
    uint64_t *mine = xcalloc(p->naggs + p->nevents + 1, sizeof *mine);
    int out = 0;
    if (sh->inner->ops->count(sh->inner, mine, mine + p->naggs) < 0) {
        err_set(&rs->failure, "run %d, verify: the shadow cannot count: %s", rs->run,
                sh->inner->error);
        out = -1;
    }
    for (size_t i = 0; out == 0 && i < p->naggs + p->nevents; i++) {
        bool agg = i < p->naggs;
        uint64_t have = agg ? aggs[i] : events[i - p->naggs];
        if (have != mine[i]) {
            snprintf(tr->verify_detail, sizeof tr->verify_detail,
                     "run %d: the target holds %" PRIu64 " %s%s, the shadow %" PRIu64, rs->run,
                     have, agg ? p->aggs[i].name : p->events[i - p->naggs].name,
                     agg ? "" : " events", mine[i]);
            out = -1;
        }
    }
    free(mine);
    return out;
}

/* The counts against what the runner saw succeed (creates minus deletes
 * per type, events per name, policies included). Returns 1 when they
 * match, 0 when the target cannot count, 2 when it counted but the tally is
 * not exact (a for_each policy ran: the shadow's counts decide), -1 on a
 * difference or an error. */
/* The target's counts, summed over the sessions that hold a store of their
 * own (several clients on children of their own): a TARGET_ status. */
static int count_all(run_state *rs, uint64_t *aggs, uint64_t *events)
{
    const plan *p = rs->p;
    int rc = target_count(rs->t, aggs, events);
    uint64_t *more = NULL;
    for (int c = 1; rc == TARGET_OK && c < rs->nclients; c++) {
        target *t = rs->peers[c - 1].t;
        if (!t->own_store)
            continue;
        more = more ? more : xcalloc(p->naggs + p->nevents + 1, sizeof *more);
        if ((rc = target_count(t, more, more + p->naggs)) != TARGET_OK) {
            memcpy(rs->t->message, t->message, sizeof rs->t->message);
            err_prefix_buf(rs->t->message, sizeof rs->t->message, "client %d: ", c);
            break;
        }
        for (size_t i = 0; i < p->naggs; i++)
            aggs[i] += more[i];
        for (size_t i = 0; i < p->nevents; i++)
            events[i] += more[p->naggs + i];
    }
    free(more);
    return rc;
}

static int verify_counts(run_state *rs, uint64_t *aggs, uint64_t *events, target_result *tr)
{
    const plan *p = rs->p;
    int rc = count_all(rs, aggs, events);
    if (rc == TARGET_UNSUPPORTED)
        return 0;
    if (rc != TARGET_OK) {
        err_set(&rs->failure, "run %d, verify: %s", rs->run, rs->t->message);
        return -1;
    }
    seen_fold(rs);
    if (rs->seen_unknown)
        return 2;
    for (size_t i = 0; i < p->naggs + p->nevents; i++) {
        bool agg = i < p->naggs;
        uint64_t have = agg ? aggs[i] : events[i - p->naggs];
        int64_t want = rs->seen[i] > 0 ? rs->seen[i] : 0;
        if (have == (uint64_t)want)
            continue;
        snprintf(tr->verify_detail, sizeof tr->verify_detail,
                 "run %d: the store holds %" PRIu64
                 " %s%s, the commands that succeeded left %" PRId64,
                 rs->run, have, agg ? p->aggs[i].name : p->events[i - p->naggs].name,
                 agg ? "" : " events", want);
        return -1;
    }
    return 1;
}

/* The levels reached, from least to most: what target_result names. */
static const char *const level_names[] = {NULL, "counts", "sample", "state", "full"};

static int level_rank(const char *name)
{
    for (int i = 1; i < 5; i++)
        if (name && !strcmp(name, level_names[i]))
            return i;
    return 0;
}

/* Verify (DESIGN sections 5 and 11): the counts against the plan's, then
 * the records read back against the shadow's, as far as the level asks
 * and the target can. Records what was reached in tr. */
static int verify(run_state *rs, const run_options *o, target_result *tr)
{
    const plan *p = rs->p;
    verify_level want = o->verify        ? o->verify
                        : p->work.verify ? p->work.verify
                                         : VERIFY_LEVEL_COUNTS;
    uint64_t *aggs = xcalloc(p->naggs + 1, sizeof *aggs);
    uint64_t *events = xcalloc(p->nevents + 1, sizeof *events);
    int counted = verify_counts(rs, aggs, events, tr);
    int read = 0, out = counted < 0 ? -1 : 0;
    shadow sh = {0};
    /* several clients interleave in an order no shadow can replay: the
       counts against what every client saw succeed are what verify holds */
    if (out == 0 && (rs->drv->caps & TARGET_CAN_READ_BACK) && !target_accepts_all(rs->t) &&
        rs->nclients <= 1) {
        bool every = want >= VERIFY_LEVEL_STATE;
        if (shadow_replay(rs, &sh) < 0)
            out = -1;
        if (out == 0 && (read = compare_records(rs, &sh, every, tr)) < 0)
            out = -1;
        if (out == 0 && read == 1 && (want == VERIFY_LEVEL_FULL || counted == 2) && counted >= 1 &&
            compare_counts(rs, &sh, aggs, events, tr) < 0)
            out = -1;
    }
    if (counted == 2) /* held to the shadow's counts, or to nothing */
        counted = read == 1 ? 1 : 0;
    shadow_free(&sh);
    free(aggs);
    free(events);
    if (out < 0) {
        tr->verify = VERIFY_FAIL;
        if (tr->verify_detail[0] && !rs->failure.msg[0])
            err_set(&rs->failure, "verify failed: %s", tr->verify_detail);
        return -1;
    }
    int level = read == 1      ? (want == VERIFY_LEVEL_COUNTS                 ? 2
                                  : want == VERIFY_LEVEL_FULL && counted == 1 ? 4
                                                                              : 3)
                : counted == 1 ? 1
                               : 0;
    /* the least any run reached */
    if (tr->nruns == 0 || level < level_rank(tr->verify_level))
        tr->verify_level = level_names[level];
    if (level > 0 && tr->verify != VERIFY_FAIL)
        tr->verify = VERIFY_PASS;
    return 0;
}

enum { FLOOR_PROBES = 500 };

/* The round-trip floor: the p50 of 500 requests the target refuses at once,
 * into *p50 (NAN for a target without a probe). Returns 0, or -1 with
 * rs->failure set when a probe failed or was not refused: a floor that
 * cannot be measured fails the run rather than go missing. */
static int floor_probe(run_state *rs, const char *when, double *p50)
{
    *p50 = NAN;
    hist h;
    if (hist_init(&h) < 0)
        return err_set(&rs->failure, "run %d, floor probe %s the timed pass: out of memory",
                       rs->run, when);
    int rc = TARGET_REFUSED;
    int answered = 0;
    for (; answered < FLOOR_PROBES; answered++) {
        uint64_t t0 = clock_fast_start();
        rc = target_probe(rs->t);
        uint64_t t1 = clock_fast_stop();
        if (rc != TARGET_REFUSED)
            break;
        hist_record(&h, t1 - t0);
    }
    int out = 0;
    if (answered == FLOOR_PROBES)
        *p50 = (double)hist_percentile(&h, 0.5);
    else if (rc == TARGET_UNSUPPORTED && answered == 0)
        out = 0; /* no probe: no floor */
    else
        out = err_set(&rs->failure, "run %d, floor probe %s the timed pass (%d of %d refused): %s",
                      rs->run, when, answered, FLOOR_PROBES,
                      rc == TARGET_OK     ? "the target accepted the probe instead of "
                                            "refusing it"
                      : rs->t->message[0] ? rs->t->message
                                          : "the target failed");
    hist_free(&h);
    return out;
}

/* The verb of every step of every flow gets its index in the per-verb
 * figures, in order of first appearance. */
static void number_verbs(run_state *rs)
{
    const workload *w = &rs->p->work;
    size_t total = 0;
    for (size_t f = 0; f < w->nflows; f++)
        total += w->flows[f].nsteps;
    rs->verb_names = arena_alloc(&rs->mem, (total + 1) * sizeof *rs->verb_names);
    rs->verb_cmds = arena_alloc(&rs->mem, (total + 1) * sizeof *rs->verb_cmds);
    for (size_t f = 0; f < w->nflows; f++) {
        size_t n;
        step_inst *steps = mix_flow_steps(rs->mx, f, &n);
        for (size_t i = 0; i < n; i++) {
            size_t v = 0;
            while (v < rs->nverbs && strcmp(rs->verb_names[v], steps[i].st->cmd->verb) != 0)
                v++;
            if (v == rs->nverbs) {
                rs->verb_cmds[rs->nverbs] = steps[i].st->cmd->index;
                rs->verb_names[rs->nverbs++] = steps[i].st->cmd->verb;
            }
            steps[i].verb = (int)v;
        }
    }
}

/* pools_of: the stream whose pools a client shares (keys: shared), or NULL. */
static int state_init_client(run_state *rs, mix *pools_of)
{
    const plan *p = rs->p;
    if (!(rs->mx = mix_new_client(p, rs->run, rs->seed, (int)client_place(rs), pools_of)))
        return -1;
    number_verbs(rs);
    rs->seen = arena_alloc(&rs->mem, (p->naggs + p->nevents + 1) * sizeof *rs->seen);
    rs->ok_cmds = arena_alloc(&rs->mem, (p->ncommands + 1) * sizeof *rs->ok_cmds);
    rs->verbs = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verbs);
    rs->verb_refused = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verb_refused);
    rs->verb_counted = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verb_counted);
    rs->verb_trips = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verb_trips);
    rs->verb_rows = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verb_rows);
    rs->verb_retries = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verb_retries);
    rs->flow_counted = arena_alloc(&rs->mem, p->work.nflows * sizeof *rs->flow_counted);
    rs->verb_failed = arena_alloc(&rs->mem, (rs->nverbs + 1) * sizeof *rs->verb_failed);
    rs->flow_failed = arena_alloc(&rs->mem, p->work.nflows * sizeof *rs->flow_failed);
    if (hist_init(&rs->all) < 0 || hist_init(&rs->service) < 0 || hist_init(&rs->lag) < 0)
        return -1;
    for (int i = 0; i < STATS_TENTHS; i++)
        if (hist_init(&rs->tenths[i]) < 0)
            return -1;
    for (size_t i = 0; i < rs->nverbs; i++)
        if (hist_init(&rs->verbs[i]) < 0)
            return -1;
    return 0;
}

static int state_init(run_state *rs)
{
    if (state_init_client(rs, NULL) < 0)
        return -1;
    if (rs->nclients <= 1)
        return 0;
    rs->peers = xcalloc_lines((size_t)rs->nclients - 1, sizeof *rs->peers);
    for (int c = 1; c < rs->nclients; c++) {
        run_state *peer = &rs->peers[c - 1];
        *peer = (run_state){.p = rs->p,
                            .ts = rs->ts,
                            .drv = rs->drv,
                            .run = rs->run,
                            .prefill = rs->prefill,
                            .warmup = rs->warmup,
                            .iterations = rs->iterations,
                            .seed = rs->seed,
                            .rate = rs->rate,
                            .client = c,
                            .nclients = rs->nclients,
                            .shard = rs->shard,
                            .nshards = rs->nshards};
        if (state_init_client(peer, rs->p->work.shared_keys ? rs->mx : NULL) < 0)
            return -1;
    }
    return 0;
}

static void state_free_one(run_state *rs);

static void state_free(run_state *rs)
{
    for (int c = rs->nclients - 1; rs->peers && c >= 1; c--) /* before the lead: its pools */
        state_free_one(&rs->peers[c - 1]);
    free(rs->peers);
    rs->peers = NULL;
    state_free_one(rs);
}

static void state_free_one(run_state *rs)
{
    hist_free(&rs->all);
    for (int i = 0; i < STATS_TENTHS; i++)
        hist_free(&rs->tenths[i]);
    for (size_t i = 0; rs->verbs && i < rs->nverbs; i++)
        hist_free(&rs->verbs[i]);
    free(rs->samples);
    free(rs->abandoned);
    hist_free(&rs->service);
    hist_free(&rs->lag);
    intervals_free(&rs->iv);
    mix_free(rs->mx);
    arena_free(&rs->mem);
}

static void write_samples(run_state *rs, FILE *out)
{
    for (const sample *s = rs->samples; s < rs->next_sample; s++)
        fprintf(out, "%s,%s,%d,%s,%" PRIu64 ",%" PRIu64 "\n", rs->p->domain, rs->ts->label, rs->run,
                s->verb, s->cycle, s->ns);
}

/* The flows' requested and achieved shares in the timed pass. */
static void collect_flows(run_state *rs, run_result *rr)
{
    const workload *w = &rs->p->work;
    int64_t total = 0;
    for (size_t f = 0; f < w->nflows; f++)
        total += w->flows[f].weight;
    rr->flows = xcalloc(w->nflows, sizeof *rr->flows);
    rr->nflows = w->nflows;
    for (size_t f = 0; f < w->nflows; f++) {
        flow_result *fr = &rr->flows[f];
        fr->flow = w->flows[f].name;
        fr->weight = w->flows[f].weight;
        fr->requested_share = total > 0 ? (double)fr->weight / (double)total : NAN;
        for (int c = 0; c < (rs->nclients > 1 ? rs->nclients : 1); c++) {
            const mix *m = c == 0 ? rs->mx : rs->peers[c - 1].mx;
            fr->cycles += mix_drawn(m, f);
            fr->skipped += mix_skipped(m, f);
        }
        fr->refused_counted = rs->flow_counted[f];
        fr->failed = rs->flow_failed[f];
        fr->achieved_share =
            rs->timed_cycles > 0 ? (double)fr->cycles / (double)rs->timed_cycles : NAN;
    }
}

/* Flags the run unstable (stats_stability) from its figures, the
 * histograms of its verbs and its floors. */
static void judge_run(const run_state *rs, run_result *rr)
{
    stability_input in = {.fig = &rr->fig,
                          .modal = rs->verbs,
                          .names = rs->verb_names,
                          .nmodal = rs->nverbs,
                          .floor_before_ns = rr->roundtrip_floor_before_p50_ns,
                          .floor_after_ns = rr->roundtrip_floor_p50_ns};
    rr->unstable = stats_stability(&in, rr->unstable_reason, sizeof rr->unstable_reason);
}

/* The open loop's counts and its service and lag figures. */
static void collect_open_loop(const run_state *rs, run_result *rr, double wall)
{
    rr->open_loop = rs->open_loop;
    rr->service_p50_ns = rr->service_p99_ns = rr->lag_p50_ns = rr->lag_p99_ns = NAN;
    rr->lag_max_ns = rr->offered_rate = rr->achieved_rate = NAN;
    if (!rs->open_loop)
        return;
    rr->offered = rs->offered;
    rr->completed = rs->timed_cycles - rs->failed_cycles; /* abandoned ones did not complete */
    rr->late = rs->late;
    rr->dropped = rs->dropped;
    rr->not_started = rs->not_started;
    bool any = hist_count(&rs->service) > 0;
    rr->service_p50_ns = any ? (double)hist_percentile(&rs->service, 0.5) : NAN;
    rr->service_p99_ns = any ? (double)hist_percentile(&rs->service, 0.99) : NAN;
    any = hist_count(&rs->lag) > 0;
    rr->lag_p50_ns = any ? (double)hist_percentile(&rs->lag, 0.5) : NAN;
    rr->lag_p99_ns = any ? (double)hist_percentile(&rs->lag, 0.99) : NAN;
    rr->lag_max_ns = any ? (double)hist_max(&rs->lag) : NAN;
    const workload *w = &rs->p->work;
    double rate = rs->rate > 0 ? rs->rate : w->arrival.rate;
    rr->offered_rate = rate / (double)(rs->nshards > 1 ? rs->nshards : 1); /* a shard's share */
    rr->achieved_rate = wall > 0 ? (double)rr->completed / wall : NAN;
}

/* Several clients: each one's throughput, Jain's fairness index over them
 * ((sum x)^2 / (n sum x^2)) and the stop spread (last end minus first). */
static void collect_clients(const run_state *rs, run_result *rr)
{
    rr->fairness = rr->stop_spread_s = NAN;
    if (rs->nclients <= 1)
        return;
    rr->nclients = (size_t)rs->nclients;
    rr->threads = rs->threads;
    rr->clients = xcalloc(rr->nclients, sizeof *rr->clients);
    double sum = 0, sumsq = 0;
    uint64_t first_end = UINT64_MAX, last_end = 0;
    for (int c = 0; c < rs->nclients; c++) {
        const run_state *cs = c == 0 ? rs : &rs->peers[c - 1];
        client_result *cr = &rr->clients[c];
        uint64_t span = cs->end_ns - cs->start_ns;
        span = span > cs->settle_ns ? span - cs->settle_ns : span;
        /* the lead's counts are everyone's by now: its own are the rest's
           subtracted */
        uint64_t commands = cs->timed_commands;
        if (c == 0)
            for (int k = 1; k < rs->nclients; k++)
                commands -= rs->peers[k - 1].timed_commands;
        cr->client = c;
        cr->commands = commands;
        cr->wall_seconds = (double)span / 1e9;
        cr->throughput_per_s = span ? (double)commands / cr->wall_seconds : NAN;
        sum += cr->throughput_per_s;
        sumsq += cr->throughput_per_s * cr->throughput_per_s;
        first_end = cs->end_ns < first_end ? cs->end_ns : first_end;
        last_end = cs->end_ns > last_end ? cs->end_ns : last_end;
    }
    rr->fairness = sumsq > 0 ? sum * sum / ((double)rs->nclients * sumsq) : NAN;
    rr->stop_spread_s = (double)(last_end - first_end) / 1e9;
}

/* Turns a finished run's histograms into its figures, owned by tr; the
 * page faults are the process's during the timed pass. */
static void collect_run(run_state *rs, target_result *tr, double wall, const double floor_ns[2],
                        uint64_t round_trips, uint64_t page_faults)
{
    run_result *rr = &tr->runs[tr->nruns++];
    memset(rr, 0, sizeof *rr);
    rr->run = rs->run;
    uint64_t commands = rs->timed_commands;
    stats_figures_from(&rs->all, rs->tenths, commands, wall, &rr->fig);
    if (rs->timed_cycles < STATS_TENTHS)
        rr->fig.drift = NAN;
    rr->verbs = xcalloc(rs->nverbs ? rs->nverbs : 1, sizeof *rr->verbs);
    rr->nverbs = rs->nverbs;
    uint64_t refusals = 0;
    for (size_t i = 0; i < rs->nverbs; i++) {
        verb_result *vr = &rr->verbs[i];
        vr->verb = rs->verb_names[i];
        vr->count = hist_count(&rs->verbs[i]);
        vr->refused = rs->verb_refused[i];
        vr->refused_counted = rs->verb_counted[i];
        refusals += vr->refused + vr->refused_counted;
        vr->p50_ns = vr->count ? (double)hist_percentile(&rs->verbs[i], 0.5) : NAN;
        vr->p99_ns = vr->count ? (double)hist_percentile(&rs->verbs[i], 0.99) : NAN;
        vr->round_trips_per_command =
            round_trips && vr->count ? (double)rs->verb_trips[i] / (double)vr->count : NAN;
        /* null accepts every scan and answers none: it has no rows to count */
        vr->scan = plan_find_verb(rs->p, vr->verb)->scan && !(rs->drv->caps & TARGET_ACCEPTS_ALL);
        vr->rows_returned = rs->verb_rows[i];
        vr->retries = rs->verb_retries[i];
        vr->failed = rs->verb_failed[i];
    }
    rr->goodput_per_s = wall > 0 ? (double)(commands - refusals) / wall : NAN;
    collect_flows(rs, rr);
    /* the run's histogram moves into the result; the state gets a fresh one */
    rr->all = rs->all;
    memset(&rs->all, 0, sizeof rs->all);
    rr->roundtrip_floor_before_p50_ns = floor_ns[0];
    rr->roundtrip_floor_p50_ns = floor_ns[1];
    rr->round_trips_per_command = round_trips ? (double)round_trips / (double)commands : NAN;
    rr->intervals = intervals_take(&rs->iv, &rr->nintervals);
    rr->start_epoch_s = rs->start_epoch_s;
    collect_open_loop(rs, rr, wall);
    collect_clients(rs, rr);
    rr->lock_waits = rs->lock_waits;
    rr->page_faults = page_faults;
    judge_run(rs, rr);
}

/* The samples buffer of one client (rs) for --samples: room for its timed
 * cycles of the longest flow (its iterations; for a duration, the estimate
 * `to_come` of cycles_to_come when there is one, but no more than a
 * quarter of the memory the machine has: a pass that takes more grows it,
 * sample_room), its pages written now, as hist_init's are, so that the
 * timed pass takes no page fault for them. Returns 0, or -1 with *e set
 * when the size overflows or cannot be had. */
static int samples_init(run_state *rs, const run_options *o, uint64_t to_come, bench_error *e)
{
    size_t most = 1, bytes; /* steps in the longest flow */
    for (size_t f = 0; f < rs->p->work.nflows; f++)
        most = rs->p->work.flows[f].nsteps > most ? rs->p->work.flows[f].nsteps : most;
    uint64_t cycles = (uint64_t)(rs->iterations ? rs->iterations : 1);
    if ((o->duration_ns || rs->p->work.duration_ns) && to_come) {
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        double quarter = pages > 0 && page > 0 ? (double)pages * (double)page / 4 : 0;
        double most_cycles = quarter / ((double)most * sizeof *rs->samples);
        cycles = quarter > 0 && (double)to_come > most_cycles ? (uint64_t)most_cycles : to_come;
        cycles = cycles ? cycles : 1;
    }
    if (__builtin_mul_overflow((size_t)cycles, most, &rs->samples_cap) ||
        __builtin_mul_overflow(rs->samples_cap, sizeof *rs->samples, &bytes) ||
        !(rs->samples = malloc(bytes)))
        return err_set(e,
                       "out of memory: --samples keeps every timed latency in memory, "
                       "and %" PRIu64 " cycles of up to %zu commands need %.3g GB",
                       cycles, most, (double)cycles * (double)most * sizeof *rs->samples / 1e9);
    memset(rs->samples, 0, bytes);
    rs->next_sample = rs->samples;
    return 0;
}

/* Several clients: a session on the lead's target for each other client.
 * Returns 0, or -1 with rs->failure set. */
static int open_sessions(run_state *rs)
{
    bench_error *e = &rs->failure;
    for (int c = 1; c < rs->nclients; c++) {
        run_state *peer = &rs->peers[c - 1];
        if (target_session(rs->t, c, &peer->t, e->msg, sizeof e->msg) != TARGET_OK) {
            if (!e->msg[0])
                err_set(e, "the target gave no session");
            return err_prefix(e, "run %d, client %d's session: ", rs->run, c);
        }
    }
    return 0;
}

/* What the target's sessions counted of themselves, read before they
 * close: retries per verb (over the whole run: outside the timed pass a
 * command is tried as often) and lock waits. */
static void session_counts(run_state *rs)
{
    for (int c = 0; c < (rs->nclients > 1 ? rs->nclients : 1); c++) {
        target *t = client_state(rs, c)->t;
        rs->lock_waits += runtime_target_lock_waits(t);
        for (size_t v = 0; t->retries && v < rs->nverbs; v++)
            rs->verb_retries[v] += t->retries[rs->verb_cmds[v]];
    }
}

static void close_sessions(run_state *rs)
{
    for (int c = rs->nclients - 1; rs->peers && c >= 1; c--) {
        target_close(rs->peers[c - 1].t);
        rs->peers[c - 1].t = NULL;
    }
}

/* Everything before the timed pass, for every client: setup (once, and
 * once more on each session with a store of its own), prefill (shared out
 * among the clients), warmup (each client's own). */
static int untimed_phases(run_state *rs)
{
    int nc = rs->nclients > 1 ? rs->nclients : 1;
    int rc = rs->no_setup ? replay_setup(rs) : run_setup(rs);
    for (int c = 1; c < nc && rc == 0 && !rs->no_setup; c++)
        if (rs->peers[c - 1].t->own_store)
            rc = run_setup(&rs->peers[c - 1]);
    for (int c = 0; c < nc && rc == 0 && !rs->setup_only; c++)
        rc = untimed_cycles(client_state(rs, c), 0, (uint64_t)rs->prefill, "prefill");
    for (int c = 0; c < nc && rc == 0 && !rs->setup_only; c++)
        rc = untimed_cycles(client_state(rs, c), (uint64_t)rs->prefill,
                            (uint64_t)rs->warmup * clients_all(rs), "warmup");
    for (int c = 1; c < nc && rc != 0; c++) /* a client's failure is the run's */
        if (rs->peers[c - 1].failure.msg[0] && !rs->failure.msg[0])
            rs->failure = rs->peers[c - 1].failure;
    return rc;
}

/* How many times the untimed cycles' pace a duration's reserve allows for:
 * they are slower than the timed ones, since they pay the faults the
 * reserve spares the pass (on the AMD EPYC host of docs/benchmarks.md,
 * pizzas' warmup of 1,000 cycles ran 2.1 times slower than its timed
 * cycles, one of 10,000 3.6 times, one of 200, mostly setup, 6 times), and
 * room left over costs memory and the time to make it ready, room short
 * the faults it was for. */
enum { PACE_MARGIN = 4 };

/* The cycles the timed pass will ask of one client: its iterations, or
 * for a duration as many as it can run in it, by the pace of the untimed
 * cycles before it (pace: cycles a second, 0 when there were none), and
 * for the open loop no more than its share of the rate over it (the
 * rate's alone when the pace is not known; 0 for a closed loop then). */
static uint64_t cycles_to_come(const run_state *rs, const run_options *o, double pace)
{
    const workload *w = &rs->p->work;
    uint64_t duration_ns = o->duration_ns ? o->duration_ns : w->duration_ns;
    if (!duration_ns)
        return (uint64_t)rs->iterations;
    double seconds = (double)duration_ns / 1e9;
    double rate = rs->rate > 0                         ? rs->rate
                  : w->arrival.process != ARRIVAL_NONE ? w->arrival.rate
                                                       : 0;
    double n = rate / (double)clients_all(rs) * seconds;
    double can = pace * PACE_MARGIN * seconds;
    if (can > 0 && (rate <= 0 || can < n))
        n = can;
    return n > 0 && n < 1e15 ? (uint64_t)n + 1 : 0;
}

/* Every client's target makes ready, untimed, the room its timed cycles
 * will take (target_reserve); pace is the untimed cycles' (cycles_to_come).
 * Returns 0, or -1 with rs->failure set. */
static int reserve_room(run_state *rs, const run_options *o, double pace)
{
    for (int c = 0; c < (rs->nclients > 1 ? rs->nclients : 1); c++) {
        run_state *cs = client_state(rs, c);
        uint64_t done = untimed_share(cs, (uint64_t)cs->prefill) +
                        untimed_share(cs, (uint64_t)cs->warmup * clients_all(cs));
        if (target_reserve(cs->t, done, cycles_to_come(cs, o, pace)) != TARGET_OK)
            return err_set(&rs->failure, "run %d, client %d: %s", rs->run, c, cs->t->message);
    }
    return 0;
}

/* bench setup: the store is ready; the tallies say what setup and
 * prefill put in it. */
static int setup_done(run_state *rs, target_result *tr)
{
    (void)rs;
    tr->verify = VERIFY_NA;
    snprintf(tr->verify_detail, sizeof tr->verify_detail, "bench setup does not verify");
    return 0;
}

/* --no-setup: other shards write the same store, so its counts are held to
 * every shard's tallies together, by bench verify --results after the merge. */
static int verify_later(target_result *tr)
{
    tr->verify = VERIFY_NA;
    snprintf(tr->verify_detail, sizeof tr->verify_detail,
             "a shard of a shared store: bench verify --results checks it after bench merge");
    return 0;
}

/* --start-at: the first run's timed pass waits for the instant (untimed);
 * how late it began is recorded either way. */
static int start_when_asked(run_state *rs, const run_options *o)
{
    if (rs->run != 1 || !rs->sh || rs->sh->started_s > 0)
        return 0;
    if (o->start_at > 0) {
        double now = epoch_seconds();
        if (now < o->start_at) {
            double wait = o->start_at - now;
            struct timespec ts = {.tv_sec = (time_t)wait,
                                  .tv_nsec = (long)((wait - floor(wait)) * 1e9)};
            while (nanosleep(&ts, &ts) < 0 && errno == EINTR && !runner_interrupted)
                ;
            if (runner_interrupted)
                return -1;
        }
    }
    rs->sh->started_s = epoch_seconds();
    rs->sh->start_at = o->start_at > 0 ? o->start_at : NAN;
    rs->sh->lateness_s = o->start_at > 0 ? rs->sh->started_s - o->start_at : NAN;
    return 0;
}

/* A shard's extras, for bench merge and verify: its verbs' and tenths'
 * histograms, and what its commands added to the store (over every run). */
static void collect_shard(run_state *rs, run_result *rr, target_result *tr)
{
    for (size_t i = 0; i < rr->nverbs; i++)
        hist_buckets_of(&rs->verbs[i], &rr->verbs[i].hist);
    for (int t = 0; t < STATS_TENTHS; t++)
        hist_buckets_of(&rs->tenths[t], &rr->tenth_hist[t]);
    const plan *p = rs->p;
    if (!tr->tallies) {
        tr->ntallies = p->naggs + p->nevents;
        tr->tallies = xcalloc(tr->ntallies + 1, sizeof *tr->tallies);
        tr->tallies_exact = true;
        for (size_t i = 0; i < tr->ntallies; i++)
            tr->tallies[i] =
                (tally){.name = i < p->naggs ? p->aggs[i].name : p->events[i - p->naggs].name,
                        .event = i >= p->naggs};
    }
    seen_fold(rs);
    for (size_t i = 0; i < tr->ntallies; i++)
        tr->tallies[i].n += rs->seen[i];
    tr->tallies_exact = tr->tallies_exact && !rs->seen_unknown;
}

/* The process's minor page faults so far, every thread's (a first write to
 * a fresh page is one): read around the timed pass, outside its clock. */
static uint64_t minor_faults(void)
{
    struct rusage ru;
    return getrusage(RUSAGE_SELF, &ru) == 0 && ru.ru_minflt > 0 ? (uint64_t)ru.ru_minflt : 0;
}

/* One fresh boot of one target. Returns 0, or -1 with rs->failure set. */
static int run_once(run_state *rs, const run_options *o, target_result *tr)
{
    bench_error *e = &rs->failure;
    e->msg[0] = '\0';
    if (target_open(rs->drv, rs->p, rs->ts, rs->run, &rs->t, e->msg, sizeof e->msg) != TARGET_OK) {
        if (!e->msg[0])
            err_set(e, "the target did not open");
        return err_prefix(e, "run %d: ", rs->run);
    }
    int rc = rs->nclients > 1 ? open_sessions(rs) : 0;
    double wall = 0;
    double floor_ns[2] = {NAN, NAN}; /* before and after the timed pass */
    /* the untimed cycles' pace: all clients' cycles of prefill and warmup,
       one client after another, over the time setup, prefill and warmup
       took */
    uint64_t u0 = clock_mono_ns();
    if (rc == 0)
        rc = untimed_phases(rs);
    double untimed_s = (double)(clock_mono_ns() - u0) / 1e9;
    uint64_t untimed = (uint64_t)rs->prefill + (uint64_t)rs->warmup * clients_all(rs);
    double pace = untimed && untimed_s > 0 ? (double)untimed / untimed_s : 0;
    if (rc == 0 && !o->setup_only)
        rc = reserve_room(rs, o, pace);
    for (int c = 0;
         rc == 0 && o->samples && !o->setup_only && c < (rs->nclients > 1 ? rs->nclients : 1); c++)
        rc = samples_init(client_state(rs, c), o, cycles_to_come(client_state(rs, c), o, pace), e);
    if (rc == 0 && o->setup_only)
        rc = setup_done(rs, tr);
    else if (rc == 0)
        rc = floor_probe(rs, "before", &floor_ns[0]);
    if (rc == 0 && !o->setup_only)
        rc = start_when_asked(rs, o);
    uint64_t faults = 0; /* the process's during the timed pass */
    if (rc == 0 && !o->setup_only) {
        faults = minor_faults();
        rc = rs->nclients > 1 ? timed_pass_many(rs, o, &wall) : timed_pass(rs, o, &wall);
        faults = minor_faults() - faults;
    }
    if (rc == 0 && !o->setup_only)
        rc = rs->no_setup ? verify_later(tr) : verify(rs, o, tr);
    if (rc == 0 && !o->setup_only)
        rc = floor_probe(rs, "after", &floor_ns[1]);
    uint64_t trips = 0; /* of the timed dispatches only */
    for (size_t i = 0; i < rs->nverbs; i++)
        trips += rs->verb_trips[i];
    if (rc == 0)
        session_counts(rs);
    close_sessions(rs);
    target_close(rs->t);
    rs->t = NULL;
    if (rc == 0) {
        collect_run(rs, tr, wall, floor_ns, trips, faults);
        if (o->shard_count > 0 || o->setup_only)
            collect_shard(rs, &tr->runs[tr->nruns - 1], tr);
        if (o->samples)
            for (int c = 0; c < (rs->nclients > 1 ? rs->nclients : 1); c++)
                write_samples(client_state(rs, c), o->samples);
    }
    return rc;
}

/* ---- the whole invocation ---- */

static const target_driver *driver_of(const run_options *o, const target_spec *ts)
{
    return o->driver_for ? o->driver_for(ts->name) : target_spec_driver(ts);
}

/* --targets names a target entry by its label or by its driver's name. */
static bool names_entry(const char *name, const target_spec *ts)
{
    return !strcmp(name, ts->label) || !strcmp(name, ts->name);
}

/* Whether the --targets item picks the entry ts of w: an item that is an
 * entry's label picks that entry alone (`postgres` is the entry labelled
 * postgres, not also `postgres: {label: postgres-rls}`), as bench setup's
 * does; any other picks every entry of the target it names. */
static bool picks(const char *item, const target_spec *ts, const workload *w)
{
    if (!strcmp(item, ts->label))
        return true;
    if (strcmp(item, ts->name) != 0)
        return false;
    for (size_t i = 0; i < w->ntargets; i++)
        if (!strcmp(item, w->targets[i].label))
            return false; /* a label: that entry's alone */
    return true;
}

static bool wanted(const run_options *o, const workload *w, const target_spec *ts)
{
    if (!o->only)
        return true;
    for (size_t i = 0; i < o->nonly; i++)
        if (picks(o->only[i], ts, w))
            return true;
    return false;
}

static void add_reason(label_reason **list, size_t *n, const char *label, const char *reason)
{
    *list = xrealloc(*list, (*n + 1) * sizeof **list);
    label_reason *lr = &(*list)[(*n)++];
    snprintf(lr->label, sizeof lr->label, "%s", label);
    snprintf(lr->reason, sizeof lr->reason, "%s", reason);
}

/* The result's unstable flag and reasons from its runs', and a verify that
 * cannot pass when a run failed (its verdict covers runs that did not
 * finish). */
static void judge_result(target_result *tr)
{
    size_t len = 0;
    for (size_t i = 0; i < tr->nruns; i++) {
        const run_result *rr = &tr->runs[i];
        if (!rr->unstable || len + 1 >= sizeof tr->unstable_reason)
            continue;
        tr->unstable = true;
        int w = snprintf(tr->unstable_reason + len, sizeof tr->unstable_reason - len,
                         "%srun %d: %s", len ? "; " : "", rr->run, rr->unstable_reason);
        len = w < 0 ? len : len + (size_t)w;
    }
    if (tr->failed && tr->verify == VERIFY_PASS)
        tr->verify = VERIFY_NA;
}

static void finish_result(target_result *tr)
{
    judge_result(tr);
    if (tr->nruns == 0) {
        run_figures none;
        stats_figures_median(NULL, 0, &none);
        tr->median = none;
        tr->throughput_lo = tr->throughput_hi = NAN;
        return;
    }
    run_figures *figs = xmalloc(tr->nruns * sizeof *figs);
    for (size_t i = 0; i < tr->nruns; i++)
        figs[i] = tr->runs[i].fig;
    stats_figures_median(figs, tr->nruns, &tr->median);
    stats_throughput_range(figs, tr->nruns, &tr->throughput_lo, &tr->throughput_hi);
    free(figs);
}

static void progress_run(const run_options *o, const run_state *rs, const target_result *tr,
                         int64_t runs)
{
    if (o->quiet || tr->nruns == 0)
        return;
    const run_figures *f = &tr->runs[tr->nruns - 1].fig;
    char at[32] = "";
    if (rs->prefill)
        snprintf(at, sizeof at, "@%" PRId64, rs->prefill);
    const run_result *rr = &tr->runs[tr->nruns - 1];
    fprintf(stderr, "%s %s%s run %d/%" PRId64 ": %.0f commands/s, p50 %.3f us, p99 %.3f us%s%s\n",
            rs->p->domain, tr->label, at, rs->run, runs, f->throughput_per_s, f->p50_ns / 1000.0,
            f->p99_ns / 1000.0, rr->unstable ? "; unstable: " : "", rr->unstable_reason);
}

typedef struct slot {
    const plan *p;
    const target_spec *ts;
    const target_driver *drv;
    target_result *tr;
    int64_t prefill;
    int64_t clients;   /* in force for this slot */
    double rate;       /* a sweep's rate for this slot; 0: --rate's or the spec's */
    const char *label; /* the row's: the entry's, or a sweep's "LABEL c=N" or "LABEL r=R"
                          (owned by r) */
    bool sweep;
    bool skipped;
} slot;

static int64_t or_default(int64_t flag, int64_t spec)
{
    return flag >= 0 ? flag : spec;
}

/* The clients in force: --clients, else the spec's (at least 1). */
static int64_t clients_of(const plan *p, const run_options *o)
{
    int64_t n = o->clients > 0 ? o->clients : p->work.clients;
    return n > 1 ? n : 1;
}

/* Places one run: a target that talks to a child over a pipe
 * (TARGET_ONE_CPU) gets bench and the child pinned to one CPU unless --cpu
 * chose (the mask goes back with env_unpin); every result records the
 * placement in force, and whether the clients' threads are pinned a CPU
 * each (pin_threads). */
static void place_run(const slot *sl, const report *r, int clients, int threads, env_pin *pin)
{
    /* several clients are spread over the CPUs in force, not pinned to one */
    bool one_cpu = (sl->drv->caps & TARGET_ONE_CPU) != 0 && clients <= 1;
    const char *server = target_opt_str(sl->ts, "connect");
    char who[112];
    if (server) /* no child: the server runs where it was started */
        snprintf(who, sizeof who, "bench (the server at %.48s runs where it was started)", server);
    else
        snprintf(who, sizeof who, "%s",
                 (sl->drv->caps & TARGET_ONE_CPU)
                     ? (clients > 1 ? "bench and its children" : "bench and its child")
                     : "bench");
    char *out = sl->tr->placement;
    size_t size = sizeof sl->tr->placement;
    int cpu = one_cpu && !r->config.cpu ? env_pin_one(pin) : -1;
    if (cpu >= 0) {
        snprintf(out, size, "%s on CPU %d (the %s target's default; --cpu overrides)", who, cpu,
                 sl->drv->name);
        return;
    }
    char cpus[128];
    env_affinity_string(cpus, sizeof cpus);
    bool pinned = clients > 1 && pin_threads(sl->drv, threads);
    int w = snprintf(out, size, "%s on CPU%s %s%s%s", who, strpbrk(cpus, ",-") ? "s" : "", cpus,
                     pinned ? ", each client thread pinned to one" : "",
                     r->config.cpu ? " (--cpu)"
                     : one_cpu     ? " (pinning to one CPU failed)"
                                   : "");
    if (w < 0 || (size_t)w >= size) /* cut short, it still says where it ran */
        out[size - 1] = '\0';
}

/* One run of one slot. Returns 0, or -1 when the slot failed (recorded). */
static int run_slot(slot *sl, const run_options *o, int run, int64_t runs, report *r)
{
    run_state rs = {.p = sl->p, .ts = sl->ts, .drv = sl->drv, .run = run, .prefill = sl->prefill};
    rs.seed = o->seed_given ? o->seed : sl->p->work.seed;
    rs.warmup = or_default(o->warmup, sl->p->work.warmup);
    rs.iterations = or_default(o->iterations, sl->p->work.iterations);
    rs.nclients = (int)sl->clients;
    rs.rate = sl->rate > 0 ? sl->rate : o->rate;
    rs.shard = (int)o->shard_index;
    rs.nshards = (int)o->shard_count;
    /* --no-setup is for the targets on the named store; the rest boot fresh */
    rs.no_setup =
        o->no_setup && (target_opt_str(sl->ts, "schema") || target_opt_str(sl->ts, "file"));
    rs.setup_only = o->setup_only;
    rs.sh = &r->config.shard;
    env_pin pin = {0};
    int threads = o->threads > 0 ? (int)o->threads : env_cpus_in_force();
    place_run(sl, r, rs.nclients, threads < rs.nclients ? threads : rs.nclients, &pin);
    int rc = state_init(&rs);
    if (rc == 0)
        rc = run_once(&rs, o, sl->tr);
    env_unpin(&pin);
    if (rc < 0 && !runner_interrupted) {
        sl->tr->failed = true;
        sl->tr->failed_run = run;
        snprintf(sl->tr->reason, sizeof sl->tr->reason, "%s",
                 rs.failure.msg[0] ? rs.failure.msg : "out of memory");
        add_reason(&r->failed, &r->nfailed, sl->label, sl->tr->reason);
        if (!o->quiet)
            fprintf(stderr, "%s %s run %d failed: %s\n", sl->p->domain, sl->label, run,
                    sl->tr->reason);
    } else if (rc == 0) { /* an interrupted run did not finish: no line */
        progress_run(o, &rs, sl->tr, runs);
    }
    state_free(&rs);
    return rc;
}

/* The harness floor: a null pass's p50 into r->harness_floor_p50_ns and its
 * wall time per command (what the loop around a dispatch costs) into
 * r->harness_cost_ns_per_command; both NAN when not measured. */
static void harness_floor(const plan *p, const run_options *o, report *r)
{
    r->harness_floor_p50_ns = r->harness_cost_ns_per_command = NAN;
    const target_driver *drv = target_harness();
    if (!p || !drv || o->floor_cycles == 0)
        return;
    const target_spec ts = {.name = drv->name, .label = drv->name, .driver = drv};
    run_state rs = {.p = p,
                    .seed = p->work.seed,
                    .ts = &ts,
                    .drv = drv,
                    .run = 1,
                    .warmup = 100,
                    .iterations = (int64_t)o->floor_cycles};
    target_result tr = {0};
    run_result rr = {0};
    tr.runs = &rr;
    run_options quiet = {.iterations = -1, .warmup = -1, .runs = -1};
    if (state_init(&rs) == 0 && run_once(&rs, &quiet, &tr) == 0) {
        r->harness_floor_p50_ns = rr.fig.p50_ns;
        if (rr.fig.commands > 0 && rr.fig.wall_seconds > 0)
            r->harness_cost_ns_per_command = rr.fig.wall_seconds * 1e9 / (double)rr.fig.commands;
        hist_free(&rr.all);
        free(rr.verbs);
        free(rr.flows);
        free(rr.clients);
        intervals_items_free(rr.intervals, rr.nintervals);
    }
    state_free(&rs);
}

static bool already_skipped(const report *r, const char *label)
{
    for (size_t i = 0; i < r->nskipped; i++)
        if (!strcmp(r->skipped[i].label, label))
            return true;
    return false;
}

/* --process-cmd split on spaces into argv, in mem (words + 1 pointers, then
 * the text). Returns the argv, or NULL when the command has no word. */
static const char **split_command(const char *cmd, void *mem)
{
    const char **argv = mem;
    size_t words = 0;
    for (const char *s = cmd; *s; s++)
        words += *s != ' ' && (s == cmd || s[-1] == ' ');
    char *text = strcpy((char *)(argv + words + 1), cmd);
    size_t k = 0;
    for (char *tok = strtok(text, " "); tok; tok = strtok(NULL, " "))
        argv[k++] = tok;
    argv[k] = NULL;
    return k ? argv : NULL;
}

/* Sets option name of ts (which has room for one more) to v, if ts's driver
 * declares it with the type given. */
static void override(target_spec *ts, target_opt_value *opts, const char *name,
                     target_option_type type, target_opt_value v)
{
    const target_option *o = target_spec_option(ts, name);
    if (!o || o->type != type)
        return;
    v.name = o->name;
    opts[ts->nopts++] = v; /* the last one given wins */
}

target_spec *runner_targets(const plan *p, const run_options *o, size_t *n)
{
    const workload *w = &p->work;
    size_t cap = w->ntargets + o->nonly + 1;
    size_t nopts = 0;
    for (size_t i = 0; i < w->ntargets; i++)
        nopts += w->targets[i].nopts;
    nopts += 4 * cap; /* room for --keep, --process-cmd, --schema and --store-file on each */
    size_t cmd_size = o->process_cmd ? (strlen(o->process_cmd) / 2 + 2) * sizeof(char *) +
                                           strlen(o->process_cmd) + 1
                                     : 0;
    /* the options and the --process-cmd argv live in the same block, freed with it */
    target_spec *all = xcalloc(1, cap * sizeof *all + nopts * sizeof(target_opt_value) + cmd_size);
    target_opt_value *opts = (target_opt_value *)(all + cap);
    const char **cmd_argv = o->process_cmd ? split_command(o->process_cmd, opts + nopts) : NULL;
    *n = 0;
    for (size_t i = 0; i < w->ntargets; i++)
        if (wanted(o, w, &w->targets[i]))
            all[(*n)++] = w->targets[i];
    for (size_t i = 0; i < o->nonly; i++) {
        bool listed = false;
        for (size_t t = 0; t < w->ntargets && !listed; t++)
            listed = names_entry(o->only[i], &w->targets[t]);
        for (size_t t = 0; t < *n && !listed; t++)
            listed = names_entry(o->only[i], &all[t]);
        const target_driver *drv =
            o->driver_for ? o->driver_for(o->only[i]) : target_find(o->only[i]);
        if (!listed && drv)
            all[(*n)++] = (target_spec){.name = drv->name, .label = drv->name, .driver = drv};
    }
    for (size_t i = 0; i < *n; i++) {
        target_spec *ts = &all[i];
        if (ts->nopts)
            memcpy(opts, ts->opts, ts->nopts * sizeof *opts);
        ts->opts = opts;
        if (o->keep)
            override(ts, opts, "keep", TARGET_OPT_BOOL, (target_opt_value){.b = true});
        if (cmd_argv)
            override(ts, opts, "command", TARGET_OPT_ARGV, (target_opt_value){.argv = cmd_argv});
        /* a fenced target keeps a scratch schema: bench setup makes no policies */
        if (o->store_schema && !target_opt_given(ts, "fence"))
            override(ts, opts, "schema", TARGET_OPT_STRING,
                     (target_opt_value){.s = o->store_schema});
        if (o->store_file)
            override(ts, opts, "file", TARGET_OPT_STRING, (target_opt_value){.s = o->store_file});
        opts += ts->nopts;
    }
    return all;
}

bool runner_target_known(const plan *const *plans, size_t nplans, const char *name)
{
    for (size_t i = 0; i < nplans; i++)
        for (size_t t = 0; t < plans[i]->work.ntargets; t++)
            if (names_entry(name, &plans[i]->work.targets[t]))
                return true;
    return target_find(name) != NULL;
}

/* The levels a plan's rows run at: a sweep of clients (--clients
 * N1,N2,.., or workload clients: [..] unless --clients chose one), a sweep
 * of rates (--rate R1,R2,.., or arrival rate: [..] unless --rate chose
 * one), or one level. The compiler and the CLI let only one of them be a
 * sweep. */
typedef struct sweep_levels {
    const int64_t *clients; /* a sweep of clients, or NULL */
    const double *rates;    /* a sweep of rates, or NULL */
    size_t n;               /* levels: 1 without a sweep */
} sweep_levels;

static sweep_levels sweep_levels_of(const plan *p, const run_options *o)
{
    const workload *w = &p->work;
    if (o->nclient_levels > 1)
        return (sweep_levels){.clients = o->client_levels, .n = o->nclient_levels};
    if (o->clients <= 0 && w->nclient_levels > 1)
        return (sweep_levels){.clients = w->client_levels, .n = w->nclient_levels};
    if (o->nrates > 1)
        return (sweep_levels){.rates = o->rates, .n = o->nrates};
    if (!(o->rate > 0) && w->nrate_levels > 1)
        return (sweep_levels){.rates = w->rate_levels, .n = w->nrate_levels};
    return (sweep_levels){.n = 1};
}

/* Slot sl at level l of sw: its clients, rate and row label. */
static void slot_level(slot *sl, const sweep_levels *sw, size_t l, int64_t clients, report *r)
{
    sl->clients = sw->clients ? sw->clients[l] : clients;
    sl->clients = sl->clients > 1 ? sl->clients : 1;
    sl->rate = sw->rates ? sw->rates[l] : 0;
    sl->sweep = sw->clients || sw->rates;
    sl->label = sl->ts->label;
    if (!sl->sweep)
        return;
    char label[160];
    if (sw->clients)
        snprintf(label, sizeof label, "%s c=%" PRId64, sl->ts->label, sw->clients[l]);
    else
        snprintf(label, sizeof label, "%s r=%.15g", sl->ts->label, sw->rates[l]);
    r->owned = xrealloc(r->owned, (r->nowned + 1) * sizeof *r->owned);
    sl->label = r->owned[r->nowned++] = xstrdup(label);
}

static size_t plan_slots(const plan *p, const run_options *o, const target_spec *targets,
                         size_t ntargets, slot *out, report *r)
{
    size_t n = 0;
    const workload *w = &p->work;
    const int64_t *prefill = o->prefill ? o->prefill : w->prefill;
    size_t nprefill = o->prefill ? o->nprefill : w->nprefill;
    sweep_levels sw = sweep_levels_of(p, o);
    for (size_t k = 0; k < nprefill; k++)
        for (size_t l = 0; l < sw.n; l++)
            for (size_t i = 0; i < ntargets; i++) {
                const target_spec *ts = &targets[i];
                slot *sl = &out[n++];
                *sl = (slot){.p = p, .ts = ts, .drv = driver_of(o, ts), .prefill = prefill[k]};
                slot_level(sl, &sw, l, clients_of(p, o), r);
                char why[1024] = "";
                if (!sl->drv)
                    snprintf(why, sizeof why, "the %s target is not built into this bench",
                             ts->name);
                else if (sl->clients > 1 && !(sl->drv->caps & TARGET_CAN_SESSIONS))
                    snprintf(why, sizeof why,
                             "the %s target has no sessions for several clients; run it with "
                             "clients: 1",
                             ts->name);
                else if (target_runs_plan(sl->drv, p, why, sizeof why) &&
                         target_available(sl->drv, ts, why, sizeof why) != 0 && !why[0])
                    snprintf(why, sizeof why, "the %s target cannot run here", ts->name);
                if (why[0] && k == 0 && l == 0 && !already_skipped(r, ts->label)) {
                    add_reason(&r->skipped, &r->nskipped, ts->label, why);
                    if (!o->quiet)
                        fprintf(stderr, "skip %s: %s\n", ts->label, why);
                }
                sl->skipped = why[0] != '\0';
            }
    return n;
}

int runner_run(const plan *const *plans, size_t nplans, const run_options *o, report *r)
{
    int status = 0;
    clock_fast_init(); /* once, 5 ms, before the first timed pass */
    harness_floor(nplans ? plans[0] : NULL, o, r);
    for (size_t pi = 0; pi < nplans && !runner_interrupted; pi++) {
        const plan *p = plans[pi];
        size_t ntargets;
        target_spec *targets = runner_targets(p, o, &ntargets);
        size_t cap =
            (o->prefill ? o->nprefill : p->work.nprefill) * ntargets * sweep_levels_of(p, o).n;
        slot *slots = xcalloc(cap ? cap : 1, sizeof *slots);
        size_t n = plan_slots(p, o, targets, ntargets, slots, r);
        int64_t runs = or_default(o->runs, p->work.runs);
        size_t base = r->nresults;
        r->results = xrealloc(r->results, (r->nresults + n + 1) * sizeof *r->results);
        for (size_t i = 0; i < n; i++) {
            if (slots[i].skipped)
                continue;
            target_result *tr = &r->results[r->nresults++];
            memset(tr, 0, sizeof *tr);
            tr->domain = p->domain;
            tr->target = slots[i].ts->name;
            tr->label = slots[i].label;
            tr->sweep_of = slots[i].sweep ? slots[i].ts->label : NULL;
            tr->sweep_clients = slots[i].sweep && !(slots[i].rate > 0) ? slots[i].clients : 0;
            tr->sweep_rate = slots[i].sweep ? slots[i].rate : 0;
            tr->prefill = slots[i].prefill;
            tr->durability = target_opt_str(slots[i].ts, "durability");
            tr->verify = VERIFY_NA;
            tr->runs = xcalloc((size_t)(runs > 0 ? runs : 1), sizeof *tr->runs);
            slots[i].tr = tr;
        }
        /* interleaved: run 1 of every slot, then run 2 ... */
        for (int64_t run = 1; run <= runs && !runner_interrupted; run++)
            for (size_t i = 0; i < n && !runner_interrupted; i++) {
                slot *sl = &slots[i];
                if (sl->skipped || sl->tr->failed)
                    continue;
                run_slot(sl, o, (int)run, runs, r);
            }
        for (size_t i = base; i < r->nresults; i++) {
            finish_result(&r->results[i]);
            if (r->results[i].failed)
                status = 1;
        }
        free(slots);
        free(targets); /* results point at the plan's strings or the drivers', not into it */
    }
    if (runner_interrupted) {
        r->interrupted = true;
        return 130;
    }
    return runner_nothing_ran(r, NULL, 0) ? 1 : status;
}

bool runner_nothing_ran(const report *r, char *why, size_t size)
{
    for (size_t i = 0; i < r->nresults; i++)
        if (r->results[i].nruns > 0)
            return false;
    if (why && size)
        snprintf(why, size, "%s",
                 r->nresults == 0 ? "every target was skipped"
                                  : "every target failed before a run of it finished");
    return true;
}

void report_free(report *r)
{
    for (size_t i = 0; i < r->nresults; i++) {
        target_result *tr = &r->results[i];
        for (size_t k = 0; k < tr->nruns; k++) {
            run_result *rr = &tr->runs[k];
            hist_free(&rr->all);
            for (size_t v = 0; v < rr->nverbs; v++)
                hist_buckets_free(&rr->verbs[v].hist);
            for (int t = 0; t < STATS_TENTHS; t++)
                hist_buckets_free(&rr->tenth_hist[t]);
            free(tr->runs[k].verbs);
            free(tr->runs[k].flows);
            free(tr->runs[k].clients);
            intervals_items_free(tr->runs[k].intervals, tr->runs[k].nintervals);
        }
        free(tr->runs);
        free(tr->tallies);
    }
    free(r->results);
    free(r->skipped);
    free(r->failed);
    for (size_t i = 0; i < r->nowned; i++)
        free(r->owned[i]);
    free(r->owned);
    r->owned = NULL;
    r->nowned = 0;
    r->results = NULL;
    r->skipped = r->failed = NULL;
    r->nresults = r->nskipped = r->nfailed = 0;
}
