/* test_mix.c: pools (pool.c) against a plain array that does the same by
 * brute force, and the command stream (mix.c): weights, empty pools, take
 * and pick, bindings, and that a seed and the outcomes decide it all. */
#include <inttypes.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "draw.h"
#include "mix.h"
#include "plan_fixture.h"
#include "pool.h"

/* ---- pools ---- */

static value int_id(int64_t i)
{
    return (value){.kind = VAL_INT, .u.i = i};
}

static void test_pool_keeps_join_order_and_is_a_set(void **state)
{
    (void)state;
    pool pl;
    pool_init(&pl);
    char name[16];
    for (int i = 0; i < 5; i++) {
        snprintf(name, sizeof name, "o-%d", i);
        value v = {.kind = VAL_STRING, .u.s = name, .len = (uint32_t)strlen(name)};
        assert_true(pool_add(&pl, &v));
    }
    value again = {.kind = VAL_STRING, .u.s = "o-2", .len = 3};
    assert_false(pool_add(&pl, &again)); /* a set: it keeps its place */
    assert_int_equal(pool_live(&pl), 5);
    value v = pool_at(&pl, 2);
    assert_int_equal(v.len, 3);
    assert_memory_equal(v.u.s, "o-2", 3);
    v = pool_take(&pl, 0); /* the oldest */
    assert_memory_equal(v.u.s, "o-0", 3);
    v = pool_take(&pl, 1); /* o-2, now second */
    assert_memory_equal(v.u.s, "o-2", 3);
    assert_false(pool_has(&pl, &again));
    assert_true(pool_add(&pl, &again)); /* taken, it may join again, at the end */
    v = pool_at(&pl, pool_live(&pl) - 1);
    assert_memory_equal(v.u.s, "o-2", 3);
    assert_memory_equal(pool_at(&pl, 0).u.s, "o-1", 3);
    pool_free(&pl);
}

/* 200,000 random adds and takes, compared after each with an array that
 * keeps the same identities in order: the tree's k-th, the hash's set and
 * compaction agree with brute force. */
static void test_pool_matches_a_plain_array(void **state)
{
    (void)state;
    pool pl;
    pool_init(&pl);
    enum { OPS = 200000, CAP = 200000 };
    int64_t *ref = malloc(CAP * sizeof *ref);
    size_t n = 0;
    rng r;
    rng_seed(&r, 42, 0);
    int64_t next = 0;
    for (int op = 0; op < OPS; op++) {
        uint64_t what = rng_below(&r, 100);
        if (what < 52 || n == 0) { /* grow a little faster than shrink */
            int64_t id = what < 2 && n ? ref[rng_below(&r, n)] : next++;
            value v = int_id(id);
            bool fresh = true;
            for (size_t i = 0; i < n && fresh && what < 2; i++)
                fresh = ref[i] != id;
            assert_int_equal(pool_add(&pl, &v), fresh);
            if (fresh)
                ref[n++] = id;
        } else {
            size_t k = (size_t)rng_below(&r, n);
            value v = pool_take(&pl, k);
            assert_int_equal(v.u.i, ref[k]);
            memmove(ref + k, ref + k + 1, (n - k - 1) * sizeof *ref);
            n--;
        }
        assert_int_equal(pool_live(&pl), n);
        if (op % 997 == 0 && n) {
            size_t k = (size_t)rng_below(&r, n);
            assert_int_equal(pool_at(&pl, k).u.i, ref[k]);
            assert_int_equal(pool_at(&pl, n - 1).u.i, ref[n - 1]);
        }
    }
    for (size_t k = 0; k < n; k++)
        assert_int_equal(pool_at(&pl, k).u.i, ref[k]);
    free(ref);
    pool_free(&pl);
}

/* ---- the stream ---- */

static const char domain[] =
    "spec: 1\n"
    "domain: shop\n"
    "aggregates:\n"
    "  Order:\n"
    "    identity: id\n"
    "    fields: {id: string, n: int, done: bool}\n"
    "    commands:\n"
    "      Place: {creates: true, params: {id: string}, set: {n: 0, done: false}}\n"
    "      Touch: {params: {id: string, by: int}, set: {n: n + arg.by}}\n"
    "      Finish:\n"
    "        params: {id: string}\n"
    "        guards: [{check: not done, refuse: already done}]\n"
    "        set: {done: true}\n";

static plan *compile_workload(const char *work)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml, "%s%s", domain, work);
    return fx_compile(yaml);
}

static const char weighted[] =
    "workload:\n"
    "  seed: 9\n"
    "  mix:\n"
    "    place:\n"
    "      weight: 1\n"
    "      steps: [{Order.Place: {id: \"o-${n}\"}, into: open}]\n"
    "    touch:\n"
    "      weight: 6\n"
    "      with: {o: \"${pick(open, uniform)}\"}\n"
    "      steps: [{Order.Touch: {id: \"${o}\", by: \"${uniform(1, 3)}\"}}]\n"
    "    finish:\n"
    "      weight: 3\n"
    "      with: {o: \"${take(open, oldest)}\"}\n"
    "      steps: [{Order.Finish: {id: \"${o}\"}, into: done}]\n";

/* Runs `cycles` cycles, every step succeeding, and returns a hash of the
 * stream (flows and arguments). */
static uint64_t run_stream(const plan *p, mix *m, uint64_t cycles, uint64_t *per_flow)
{
    uint64_t h = 1469598103934665603ull;
    for (uint64_t n = 0; n < cycles; n++) {
        bench_error why = {{0}};
        int f = mix_begin(m, n, false, &why);
        assert_true(f >= 0);
        per_flow[f]++;
        h = (h ^ (uint64_t)f) * 1099511628211ull;
        size_t ns;
        step_inst *steps = mix_flow_steps(m, (size_t)f, &ns);
        for (size_t s = 0; s < ns; s++) {
            assert_int_equal(mix_expand(m, &steps[s], &why), 0);
            const value *id = &steps[s].args.u.items[0];
            for (uint32_t i = 0; i < id->len; i++)
                h = (h ^ (unsigned char)id->u.s[i]) * 1099511628211ull;
            if (p->work.flows[f].steps[s].cmd->params->nfields > 1)
                h = (h ^ (uint64_t)steps[s].args.u.items[1].u.i) * 1099511628211ull;
            mix_done(m, &steps[s], true);
        }
    }
    return h;
}

static void test_mix_shares_follow_the_weights(void **state)
{
    (void)state;
    plan *p = compile_workload(weighted);
    mix *m = mix_new(p, 1, p->work.seed);
    uint64_t per[3] = {0};
    enum { CYCLES = 100000 };
    run_stream(p, m, CYCLES, per);
    /* place can always run; touch and finish need an open order, and
       finish takes one each time (three times as often as place adds
       one): the pool is often empty, those cycles skip touch and finish
       and run place. The draws are counted per flow, the skips too. */
    uint64_t all = per[0] + per[1] + per[2];
    assert_int_equal(all, CYCLES);
    for (int f = 0; f < 3; f++)
        assert_int_equal(mix_drawn(m, (size_t)f), per[f]);
    /* a pool that finish drains is empty at times: the skips are counted */
    assert_true(mix_skipped(m, 2) > 0);
    assert_int_equal(mix_skipped(m, 1), mix_skipped(m, 2)); /* both need one open order */
    assert_int_equal(mix_skipped(m, 0), 0);
    /* every cycle that is not a skip draws by weight: place gets 1/10 of
       those, plus every skipped cycle */
    double expected = 0.1 * (double)(CYCLES - mix_skipped(m, 2)) + (double)mix_skipped(m, 2);
    assert_true(fabs((double)per[0] - expected) < 0.02 * CYCLES);
    mix_free(m);
    plan_free(p);
}

static const char no_pools[] = "workload:\n"
                               "  mix:\n"
                               "    a: {weight: 1, steps: [{Order.Place: {id: \"a-${n}\"}}]}\n"
                               "    b: {weight: 3, steps: [{Order.Place: {id: \"b-${n}\"}}]}\n"
                               "    off: {weight: 0, steps: [{Order.Place: {id: \"c-${n}\"}}]}\n";

static void test_mix_without_pools_draws_each_flow_by_weight(void **state)
{
    (void)state;
    plan *p = compile_workload(no_pools);
    mix *m = mix_new(p, 1, 1);
    uint64_t per[3] = {0};
    enum { CYCLES = 200000 };
    run_stream(p, m, CYCLES, per);
    double share_b = (double)per[1] / CYCLES;
    /* binomial: sd = sqrt(.75 * .25 / 200000) = 0.00097; 5 sd */
    assert_true(share_b > 0.75 - 0.005 && share_b < 0.75 + 0.005);
    assert_int_equal(per[2], 0); /* weight 0: never */
    assert_int_equal(mix_skipped(m, 2), 0);
    mix_free(m);
    plan_free(p);
}

static void test_mix_same_seed_same_stream_other_seed_other_stream(void **state)
{
    (void)state;
    plan *p = compile_workload(weighted);
    uint64_t per[3] = {0};
    mix *a = mix_new(p, 1, 9), *b = mix_new(p, 1, 9), *c = mix_new(p, 1, 10), *d = mix_new(p, 2, 9);
    uint64_t ha = run_stream(p, a, 5000, per), hb = run_stream(p, b, 5000, per);
    uint64_t hc = run_stream(p, c, 5000, per), hd = run_stream(p, d, 5000, per);
    assert_true(ha == hb);
    assert_true(ha != hc); /* another seed */
    assert_true(ha != hd); /* another run */
    mix_free(a);
    mix_free(b);
    mix_free(c);
    mix_free(d);
    plan_free(p);
}

/* take(open, oldest) is a queue: finish sees the orders in the order they
 * were placed, each once; a refused step adds nothing to its pool. */
static void test_mix_take_oldest_is_fifo_and_refusals_add_nothing(void **state)
{
    (void)state;
    plan *p = compile_workload(weighted);
    mix *m = mix_new(p, 1, 3);
    int64_t last = -1;
    size_t finished = 0;
    for (uint64_t n = 0; n < 3000; n++) {
        bench_error why = {{0}};
        int f = mix_begin(m, n, false, &why);
        assert_true(f >= 0);
        size_t ns;
        step_inst *steps = mix_flow_steps(m, (size_t)f, &ns);
        assert_int_equal(mix_expand(m, &steps[0], &why), 0);
        if (f == 2) {
            int64_t placed = strtoll(steps[0].args.u.items[0].u.s + 2, NULL, 10);
            assert_true(placed > last);
            last = placed;
            finished++;
        }
        /* every other place is refused: it never joins the pool */
        mix_done(m, &steps[0], f != 0 || n % 2 == 0);
    }
    assert_true(finished > 100);
    assert_true(last % 2 == 0);
    assert_int_equal(mix_pool_size(m, 1), finished); /* into: done */
    mix_free(m);
    plan_free(p);
}

static const char stuck[] = "workload:\n"
                            "  mix:\n"
                            "    touch:\n"
                            "      with: {o: \"${pick(open)}\"}\n"
                            "      steps: [{Order.Touch: {id: \"${o}\", by: 1}}]\n"
                            "    finish:\n"
                            "      with: {o: \"${take(open)}\"}\n"
                            "      steps: [{Order.Finish: {id: \"${o}\"}, into: open}]\n";

static void test_mix_no_flow_can_run_names_the_pool(void **state)
{
    (void)state;
    plan *p = compile_workload(stuck);
    mix *m = mix_new(p, 1, 1);
    bench_error why = {{0}};
    assert_int_equal(mix_begin(m, 4, false, &why), -1);
    assert_string_equal(why.msg,
                        "cycle 4: no flow can run: too few records in pool 'open' (0 held)");
    assert_int_equal(mix_begin_flow(m, 5, 1, &why), -1);
    assert_string_equal(why.msg,
                        "cycle 5: flow finish cannot run: too few records in pool 'open' (0 held)");
    mix_free(m);
    plan_free(p);
}

static const char prefill_flow[] =
    "workload:\n"
    "  prefill: {cycles: 10, flow: load}\n"
    "  mix:\n"
    "    load: {weight: 0, steps: [{Order.Place: {id: \"o-${n}\"}, into: open}]}\n"
    "    touch:\n"
    "      with: {o: \"${pick(open, newest)}\", k: \"x${uniform(5, 5)}-${o}\"}\n"
    "      steps: [{Order.Touch: {id: \"${k}\", by: \"${uniform(-2, 2)}\"}}]\n";

static void test_mix_prefill_flow_and_bindings(void **state)
{
    (void)state;
    plan *p = compile_workload(prefill_flow);
    assert_int_equal(p->work.prefill_flow, 0);
    assert_null(p->totals); /* a mix: the plan cannot say what a run leaves */
    mix *m = mix_new(p, 1, 1);
    bench_error why = {{0}};
    for (uint64_t n = 0; n < 10; n++) {
        assert_int_equal(mix_begin(m, n, true, &why), 0); /* weight 0, but the prefill flow */
        size_t ns;
        step_inst *steps = mix_flow_steps(m, 0, &ns);
        assert_int_equal(mix_expand(m, &steps[0], &why), 0);
        mix_done(m, &steps[0], true);
    }
    assert_int_equal(mix_begin(m, 10, false, &why), 1);
    size_t ns;
    step_inst *steps = mix_flow_steps(m, 1, &ns);
    assert_int_equal(mix_expand(m, &steps[0], &why), 0);
    const value *id = &steps[0].args.u.items[0];
    assert_int_equal(id->len, strlen("x5-o-9"));
    assert_memory_equal(id->u.s, "x5-o-9", id->len);
    int64_t by = steps[0].args.u.items[1].u.i;
    assert_true(by >= -2 && by <= 2);
    mix_free(m);
    plan_free(p);
}

/* Numbers in a text template are written in decimal, a sign for the
 * negative ones, whatever their number of digits (put_int writes two a
 * step). */
static void test_mix_writes_numbers_in_text(void **state)
{
    (void)state;
    static const struct {
        const char *draw, *want;
    } cases[] = {
        {"0, 0", "x0"},
        {"7, 7", "x7"},
        {"10, 10", "x10"},
        {"99, 99", "x99"},
        {"100, 100", "x100"},
        {"12345, 12345", "x12345"},
        {"9876543210, 9876543210", "x9876543210"},
        {"-1, -1", "x-1"},
        {"-100, -100", "x-100"},
        {"-123457, -123457", "x-123457"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char work[512];
        snprintf(work, sizeof work,
                 "workload:\n"
                 "  cycle: [{Order.Place: {id: \"x${uniform(%s)}\"}}]\n",
                 cases[i].draw);
        plan *p = compile_workload(work);
        mix *m = mix_new(p, 1, 1);
        bench_error why = {{0}};
        assert_int_equal(mix_begin(m, 0, false, &why), 0);
        size_t ns;
        step_inst *steps = mix_flow_steps(m, 0, &ns);
        assert_int_equal(mix_expand(m, &steps[0], &why), 0);
        const value *id = &steps[0].args.u.items[0];
        assert_int_equal(id->len, strlen(cases[i].want));
        assert_memory_equal(id->u.s, cases[i].want, id->len);
        mix_free(m);
        plan_free(p);
    }
}

/* ${n} of one cycle after another is counted up from the last text, over
 * every carry (9 -> 10, 999 -> 1000), and written anew after a jump; each
 * the decimal text of its n. */
static void test_mix_counts_n_up_across_its_digits(void **state)
{
    (void)state;
    plan *p = compile_workload("workload:\n"
                               "  cycle: [{Order.Place: {id: \"k${n}\"}}]\n");
    mix *m = mix_new(p, 1, 1);
    bench_error why = {{0}};
    size_t ns;
    step_inst *steps = mix_flow_steps(m, 0, &ns);
    static const uint64_t from[] = {0, 95, 995, 99995, 999999999999999995u, 5, 4};
    for (size_t r = 0; r < sizeof from / sizeof *from; r++)
        for (uint64_t n = from[r]; n < from[r] + 10; n++) {
            char want[32];
            snprintf(want, sizeof want, "k%" PRIu64, n);
            assert_int_equal(mix_begin(m, n, false, &why), 0);
            assert_int_equal(mix_expand(m, &steps[0], &why), 0);
            const value *id = &steps[0].args.u.items[0];
            assert_int_equal(id->len, strlen(want));
            assert_memory_equal(id->u.s, want, id->len);
        }
    mix_free(m);
    plan_free(p);
}

/* The text of step s's argument i after its expansion. */
static void assert_arg(mix *m, step_inst *steps, size_t s, size_t i, const char *want)
{
    bench_error why = {{0}};
    assert_int_equal(mix_expand(m, &steps[s], &why), 0);
    const value *v = &steps[s].args.u.items[i];
    assert_int_equal(v->kind, VAL_STRING);
    assert_int_equal(v->len, strlen(want));
    assert_memory_equal(v->u.s, want, v->len);
}

/* Templates of the same text and ${n} alone are written once a cycle and
 * shared (the later steps' values point at the first's bytes); another
 * text, or one with ${run}, is written on its own; each cycle gets its own
 * number, whichever step comes first. */
static void test_mix_shares_one_expansion_of_a_text_a_cycle(void **state)
{
    (void)state;
    plan *p = compile_workload("workload:\n"
                               "  cycle:\n"
                               "    - Order.Place: {id: \"o-${n}\"}\n"
                               "    - Order.Touch: {id: \"o-${n}\", by: 1}\n"
                               "    - Order.Touch: {id: \"p-${n}\", by: 1}\n"
                               "    - Order.Touch: {id: \"o-${n}-${run}\", by: 1}\n"
                               "    - Order.Finish: {id: \"o-${n}\"}\n");
    mix *m = mix_new(p, 3, 1);
    bench_error why = {{0}};
    size_t ns;
    step_inst *steps = mix_flow_steps(m, 0, &ns);
    assert_int_equal(ns, 5);
    for (uint64_t n = 41; n < 44; n++) {
        char o[32], pn[32], run[32];
        snprintf(o, sizeof o, "o-%" PRIu64, n);
        snprintf(pn, sizeof pn, "p-%" PRIu64, n);
        snprintf(run, sizeof run, "o-%" PRIu64 "-3", n);
        assert_int_equal(mix_begin(m, n, false, &why), 0);
        size_t first = n == 42 ? 1 : 0; /* in cycle 42 the second step comes first */
        assert_arg(m, steps, first, 0, o);
        assert_arg(m, steps, 1 - first, 0, o);
        assert_arg(m, steps, 2, 0, pn);
        assert_arg(m, steps, 3, 0, run);
        assert_arg(m, steps, 4, 0, o);
        const char *shared = steps[first].args.u.items[0].u.s;
        assert_ptr_equal(steps[1 - first].args.u.items[0].u.s, shared);
        assert_ptr_equal(steps[4].args.u.items[0].u.s, shared);
        assert_ptr_not_equal(steps[2].args.u.items[0].u.s, shared);
        assert_ptr_not_equal(steps[3].args.u.items[0].u.s, shared);
    }
    mix_free(m);
    plan_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mix_writes_numbers_in_text),
        cmocka_unit_test(test_mix_counts_n_up_across_its_digits),
        cmocka_unit_test(test_mix_shares_one_expansion_of_a_text_a_cycle),
        cmocka_unit_test(test_pool_keeps_join_order_and_is_a_set),
        cmocka_unit_test(test_pool_matches_a_plain_array),
        cmocka_unit_test(test_mix_shares_follow_the_weights),
        cmocka_unit_test(test_mix_without_pools_draws_each_flow_by_weight),
        cmocka_unit_test(test_mix_same_seed_same_stream_other_seed_other_stream),
        cmocka_unit_test(test_mix_take_oldest_is_fifo_and_refusals_add_nothing),
        cmocka_unit_test(test_mix_no_flow_can_run_names_the_pool),
        cmocka_unit_test(test_mix_prefill_flow_and_bindings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
