/* spec.h: the front half of the pipeline in one call: load the YAML, check
 * it against the embedded schema, compile it into a plan, and lint's passes
 * over that plan. */
#ifndef BENCH_SPEC_H
#define BENCH_SPEC_H

#include "diag.h"
#include "load.h"
#include "plan.h"

typedef enum spec_status {
    SPEC_OK = 0,
    SPEC_INVALID = 1, /* diagnostics say why */
    SPEC_IO = 2,      /* the file could not be read */
} spec_status;

typedef struct spec {
    doc *dc; /* the loaded text, for caret lines; owned by p once p exists */
    plan *p; /* NULL unless it compiled (lint may still have refused it) */
} spec;

/* Loads and checks path. Diagnostics (errors and warnings) go to d. Whatever
 * the status, spec_close(out) releases what was made. */
spec_status spec_open(const char *path, diag_list *d, spec *out);
void spec_close(spec *s);
/* spec_open, then lint's dry run (setup and two cycles on the runtime over
 * a memory store); this is what `bench lint` checks. */
spec_status spec_check(const char *path, diag_list *d, spec *out);
/* spec_check on text (len bytes, lent) that name stands for: the fuzzers'
 * way in, and the same checks. */
spec_status spec_check_text(const char *name, const char *text, size_t len, diag_list *d,
                            spec *out);

/* The embedded schema, parsed once; NULL only if the build embedded a broken
 * file (a test guards against it). Lent: do not free. */
const struct cJSON *spec_schema(void);
/* The schema of p's domain (spec_schema.c): spec_schema() with a step's keys
 * the domain's verbs, each with its parameters (types, which are required),
 * and a policy's when and run the domain's events and commands. The caller's,
 * to cJSON_Delete; NULL when out of memory. */
struct cJSON *spec_schema_for(const plan *p);

#endif
