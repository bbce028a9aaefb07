/* mix.h: the command stream of one run (DESIGN section 9): which flow each
 * cycle runs, the values its `with` binds, the draws its templates make and
 * the pools they draw from. Everything random comes from one generator
 * seeded with the workload's seed (or --seed) and the run number, so the
 * same spec, seed and outcomes give the same stream on every target: the
 * runner's timed pass, its shadow, lint's dry run and `bench plan --trace`
 * all read the stream from here. All of it happens outside the timed
 * region: mix_begin and mix_expand before a step's first clock read,
 * mix_done after its second. */
#ifndef BENCH_MIX_H
#define BENCH_MIX_H

#include <stdbool.h>
#include <stdint.h>

#include "error.h"
#include "plan.h"
#include "step_inst.h"

typedef struct mix mix;

/* A stream for run `run` (from 1) of p with seed. Returns NULL when out of
 * memory. */
mix *mix_new(const plan *p, int run, uint64_t seed);
/* The stream of client `client` (from 0) of a run with several clients:
 * client 0's is mix_new's; another's comes from its own generator, derived
 * from the seed, the run and the client. With pools_of (another client's
 * stream, which outlives this one) the client draws from and adds to that
 * stream's pools, under a lock the two share (keys: shared); without, it
 * has pools of its own. NULL when out of memory. */
mix *mix_new_client(const plan *p, int run, uint64_t seed, int client, mix *pools_of);
void mix_free(mix *m);

/* The setup steps, ready to dispatch (setup has no templates). */
step_inst *mix_setup(mix *m, size_t *n);
/* The instances of flow f's steps (the runner numbers their verbs). */
step_inst *mix_flow_steps(mix *m, size_t f, size_t *n);

/* Starts cycle n: draws its flow by weight among the flows that can run
 * (prefill: the prefill flow when the workload names one) and binds the
 * flow's `with`. Returns the flow's index, or -1 with why set when no flow
 * can run (the sentence names the empty pools). */
int mix_begin(mix *m, uint64_t n, bool prefill, bench_error *why);
/* Starts cycle n with flow f, whether the weights would draw it or not
 * (lint's dry run walks every flow). -1 with why when f cannot run. */
int mix_begin_flow(mix *m, uint64_t n, size_t f, bench_error *why);
/* Fills si's templates for the cycle begun (its draws happen here). Returns
 * 0, or -1 with why set when a pool it draws from is empty. */
int mix_expand(mix *m, step_inst *si, bench_error *why);
/* After si's dispatch: on success its record joins its `into` pool. */
void mix_done(mix *m, const step_inst *si, bool ok);

/* Per flow: cycles drawn, and cycles in which it could not run (an empty
 * pool) though its weight let it, since mix_new or mix_reset_counts. */
uint64_t mix_drawn(const mix *m, size_t f);
uint64_t mix_skipped(const mix *m, size_t f);
void mix_reset_counts(mix *m);
/* Records in pool i now. */
size_t mix_pool_size(const mix *m, size_t i);

#endif
