/* step_inst.h: a step ready to dispatch, shared by the runner's timing loop
 * and lint's dry run: its own copy of the argument values, with each
 * template's slot pointing at a buffer sized for its longest expansion, so
 * that filling in ${n} and ${run} never allocates. */
#ifndef BENCH_STEP_INST_H
#define BENCH_STEP_INST_H

#include <stdint.h>

#include "arena.h"
#include "plan.h"

typedef struct step_inst {
    const step *st;
    value args;    /* a deep copy of st->args; the templates' values are filled in */
    value **slots; /* one per template: the value inside args it fills */
    char **bufs;   /* one per template: max_len + 1 bytes for its expansion */
    int verb;      /* the runner's index into its per-verb histograms */
} step_inst;

/* Prepares si for st (lent; it must outlive si), everything in arena a. */
void step_inst_init(arena *a, step_inst *si, const step *st);
/* n instances, one per step, in arena a. */
step_inst *step_insts_new(arena *a, const step *steps, size_t n);
/* Fills the templates for cycle n of run `run` (from 1); never allocates. */
void step_inst_expand(step_inst *si, uint64_t n, int run);

#endif
