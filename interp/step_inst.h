/* step_inst.h: a step ready to dispatch, shared by the runner's timing loop,
 * its shadow, lint's dry run and `bench plan --trace`: its own copy of the
 * argument values, with each template's slot pointing at a buffer sized for
 * its longest bounded expansion. Filling in ${n}, ${run} and ints never
 * allocates; a string drawn from a pool grows its buffer the first time it
 * is longer (mix.c fills them, before the first clock read). */
#ifndef BENCH_STEP_INST_H
#define BENCH_STEP_INST_H

#include <stdint.h>

#include "arena.h"
#include "plan.h"

typedef struct step_inst {
    const step *st;
    value args;    /* a deep copy of st->args; the templates' values are filled in */
    value **slots; /* one per template: the value inside args it fills */
    char **bufs;   /* one per template: its expansion, caps[i] bytes (malloc'd) */
    size_t *caps;
    /* one per template: its entry in the stream's table of expansions shared
     * by every template of the same text and ${n} only (mix.c), or -1 */
    int *memo;
    int verb; /* the runner's index into its per-verb histograms */
    /* bit i: argument i (i < 64) is constant (no template fills any of it)
     * and passed its type and constraints when the instance was built, so a
     * dispatch need not check it again (runtime_dispatch_checked); an
     * argument that fails keeps its bit clear and is refused on dispatch */
    uint64_t checked;
} step_inst;

/* Prepares si for st (its checked mask too) (lent; it must outlive si), in arena a; the buffers
 * are the caller's to release with step_inst_free. */
void step_inst_init(arena *a, step_inst *si, const step *st);
void step_inst_free(step_inst *si);
/* n instances, one per step, in arena a. */
step_inst *step_insts_new(arena *a, const step *steps, size_t n);
void step_insts_free(step_inst *si, size_t n);

#endif
