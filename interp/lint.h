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

/* Policies that form a cycle, or chain more than PLAN_POLICY_MAX_DEPTH
 * policies from one event: one error, at the first policy of the event
 * where it is found. Returns 0, or -1 when it appended an error. */
int lint_policies(const plan *p, diag_list *d);
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
