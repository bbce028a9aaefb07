/* runtime.h: dispatch of a compiled command against a store, with the
 * semantics of DESIGN section 2: arguments checked, record found (or its
 * absence checked), reads loaded, guards in order, effects computed on the
 * old state and applied at once, invariants and ensure on the new state,
 * the event appended, policies run in the same dispatch and transaction.
 * A refusal rolls everything back. */
#ifndef BENCH_RUNTIME_H
#define BENCH_RUNTIME_H

#include <stdint.h>

#include "plan.h"
#include "store.h"

typedef struct runtime runtime;

typedef enum runtime_status {
    RUNTIME_OK = 0,
    RUNTIME_REFUSED = 1, /* a normal outcome; runtime_message says why */
    RUNTIME_ERROR = -1,  /* the store failed; runtime_message says how */
} runtime_status;

/* A runtime for plan p over store s (both lent; they must outlive it).
 * Returns 0, or -1 when out of memory. */
int runtime_new(const plan *p, store *s, runtime **out);
void runtime_free(runtime *rt);
/* Carries out cmd with args (a VAL_STRUCT laid out as cmd->params). A
 * query (cmd->query) loads its record and reads outside any transaction,
 * runs its guards and computes its answer; it writes nothing. */
runtime_status runtime_dispatch(runtime *rt, const command *cmd, const value *args);
/* runtime_dispatch, told what the caller checked already: bit i of checked
 * says field i of args (i < 64) passed its type and constraints and is not
 * checked again (a step's constant arguments, checked once when its
 * instance is built: step_inst.h). The other fields are checked as ever,
 * with the same refusals; 0 checks every field, as runtime_dispatch. */
runtime_status runtime_dispatch_checked(runtime *rt, const command *cmd, const value *args,
                                        uint64_t checked);
/* The caller's promise, from now on: every field a dispatch's checked mask
 * marks stays as it is, with all it points to, for as long as the store
 * lives (a step's constants, which live for the run: target.h), so the
 * store may keep such a field of an event's payload as it is handed
 * instead of copying it (store_write.lasting). Off until called. */
void runtime_keep_constants(runtime *rt);
/* Whether cmd takes the store's direct path (store.h, direct_find): it
 * writes only its own record, its event runs no policy, and the store has
 * the path; else it runs in a transaction. For tests and reports. */
bool runtime_is_direct(const runtime *rt, const command *cmd);
/* How many of cmd's ensures the direct path evaluates: those its effects
 * do not make true (expr_ensure_implied); cmd->nensures off the direct
 * path. For tests. */
size_t runtime_direct_ensures(const runtime *rt, const command *cmd);
/* The answer of the last dispatch when it was a query that succeeded (a
 * VAL_STRUCT laid out as its returns; a scan's: a VAL_LIST of them, as
 * cmd->rows), else NULL. Lent; valid until the next dispatch. */
const value *runtime_answer(const runtime *rt);
/* The last refusal or error, one line, e.g. "Order.Purchase refused: the
 * pizza is already sold". Lent; valid until the next dispatch. */
const char *runtime_message(const runtime *rt);

#endif
