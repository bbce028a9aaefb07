/* serve.h: `bench serve SPEC`: the C runtime as a JSON-lines server on
 * stdin and stdout, speaking schema/protocol.md, so that the process target
 * (and anything else) can drive it as it drives any external runtime. */
#ifndef BENCH_SERVE_H
#define BENCH_SERVE_H

#include "plan.h"
#include "store.h"

/* Answers one line for every request line read from in_fd, writing it to
 * out_fd in one write, until end of input. p and s are lent. Returns 0 at
 * end of input, or -1 when reading or writing failed (errno says why). */
int serve_run(const plan *p, store *s, int in_fd, int out_fd);

#endif
