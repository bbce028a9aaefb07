/* lint.h: lint's meaning checks that are passes over a compiled plan, and
 * its dry run (DESIGN section 3). The compiler checks what it must to build
 * the plan (names, types, references, constants); what can only be judged
 * of the whole is here. Every finding goes to a diag_list at the address
 * of what the spec wrote. */
#ifndef BENCH_LINT_H
#define BENCH_LINT_H

#include "diag.h"
#include "node.h"
#include "plan.h"

/* A policy that runs a query (an error at its run), then policies that
 * form a cycle, or chain more than PLAN_POLICY_MAX_DEPTH policies from one
 * event: one error, at the first policy of the event where it is found.
 * Returns 0, or -1 when it appended an error. */
int lint_policies(const plan *p, diag_list *d);
/* Also, after the policies: every `expect: {refused: TEXT}` step names a
 * refusal its command can produce (a guard's or ensure's refuse text, its
 * policies' commands', transitively, or a built-in refusal of the runtime's
 * shape, such as "Order <id> does not exist"); an error at TEXT otherwise. */

/* The text of a refusal message: without the "Verb refused: " and
 * "policy Verb refused: " (for_each: "policy Verb (item K of N) refused: ")
 * prefixes the runtime puts before it (a message without them, such as a
 * process target's, is its own text). */
const char *lint_refusal_text(const char *message);
/* The step's expected refusal text for cycle n of run `run`: ${n} and
 * ${run} filled in as in the arguments, in buf. */
const char *lint_expected_text(const step *st, uint64_t n, int run, char *buf, size_t size);
/* Whether a refusal with message satisfies the step's expectation in cycle
 * n of run `run`: any refusal when it names no text, else exactly that text. */
bool lint_refusal_matches(const step *st, const char *message, uint64_t n, int run);
/* Whether a query step's answer (NULL: none came) has every field its
 * expect: {returns: ...} names equal to the constant written; a step that
 * checks no answer matches anything. When not, why says which field, in
 * the order written: "returned status available, the step expects sold". */
/* A scan step's expect: {rows: N}: the answer (a list) holds N rows, or
 * "answered 3 rows, the step expects 5". */
bool lint_answer_matches(const step *st, const value *answer, char *why, size_t size);
/* Warnings about a legal but suspect workload (no warmup, one run), read
 * from the schema-checked document root, so that they come with the errors
 * of a spec that does not compile too. */
void lint_workload_warnings(const node *root, diag_list *d);
/* The dry run: setup, then cycles 0 and 1 (${run} = 1) dispatched by the C
 * runtime on an in-process memory store. Appends the first unexpected
 * refusal, store error, or success of an `expect: refused` step, at the
 * address of the step that caused it. Returns 0 when clean (or when the
 * store cannot be made), -1 when it appended an error. */
int lint_dry_run(const plan *p, diag_list *d);

#endif
