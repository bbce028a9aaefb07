/* sql_fixture.h: what runtime_scenarios.h and the SQL stores' own tests
 * share beyond plan_fixture.h (a plan, an open target, commands dispatched,
 * records loaded back): round trips counted per dispatch, and whole `bench
 * run`s through the runner. Include after cmocka.h. */
#ifndef BENCH_TESTS_SQL_FIXTURE_H
#define BENCH_TESTS_SQL_FIXTURE_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan_fixture.h"
#include "runner.h"
#include "spec.h"

/* Round trips one dispatch took (for targets that count them). */
static inline uint64_t fx_trips(fx *f, const char *name, const char *args)
{
    uint64_t before = f->t->round_trips;
    fx_ok(f, name, args);
    return f->t->round_trips - before;
}

/* ---- whole runs ---- */

typedef struct fx_run {
    spec specs[8];
    size_t nspecs;
    report r;
    int rc;
} fx_run;

/* Runs specs (paths, NULL-terminated) on the targets named in only
 * (comma-free labels or driver names, NULL-terminated), with few cycles. */
static inline void fx_run_specs(fx_run *fr, const char *const *paths, const char *const *only,
                                int64_t iterations)
{
    memset(fr, 0, sizeof *fr);
    const plan *plans[8];
    for (size_t i = 0; paths[i]; i++) {
        diag_list d = {0};
        if (spec_open(paths[i], &d, &fr->specs[i]) != SPEC_OK)
            fail_msg("%s does not compile", paths[i]);
        diag_list_free(&d);
        plans[fr->nspecs++] = fr->specs[i].p;
    }
    size_t nonly = 0;
    while (only[nonly])
        nonly++;
    run_options o = {.only = only,
                     .nonly = nonly,
                     .iterations = iterations,
                     .warmup = 3,
                     .runs = 1,
                     .quiet = true};
    fr->rc = runner_run(plans, fr->nspecs, &o, &fr->r);
}

static inline void fx_run_free(fx_run *fr)
{
    report_free(&fr->r);
    for (size_t i = 0; i < fr->nspecs; i++)
        spec_close(&fr->specs[i]);
}

/* Every result ran, verified, and nothing failed or was skipped. */
static inline void fx_assert_all_passed(const fx_run *fr, size_t want_results)
{
    for (size_t i = 0; i < fr->r.nfailed; i++)
        fprintf(stderr, "failed %s: %s\n", fr->r.failed[i].label, fr->r.failed[i].reason);
    for (size_t i = 0; i < fr->r.nskipped; i++)
        fprintf(stderr, "skipped %s: %s\n", fr->r.skipped[i].label, fr->r.skipped[i].reason);
    assert_int_equal(fr->rc, 0);
    assert_int_equal(fr->r.nfailed, 0);
    assert_int_equal(fr->r.nskipped, 0);
    assert_int_equal(fr->r.nresults, want_results);
    for (size_t i = 0; i < fr->r.nresults; i++) {
        if (fr->r.results[i].verify != VERIFY_PASS)
            fail_msg("%s %s: verify %d %s", fr->r.results[i].domain, fr->r.results[i].label,
                     fr->r.results[i].verify, fr->r.results[i].verify_detail);
        assert_int_equal(fr->r.results[i].nruns, 1);
    }
}

#endif
