/* TEMP STUB (replaced by the draw branch) */
#ifndef BENCH_DRAW_H
#define BENCH_DRAW_H
#include <stddef.h>
#include <stdint.h>
typedef struct rng {
    uint64_t s[4];
} rng;
void rng_seed(rng *r, uint64_t seed, uint64_t stream);
uint64_t rng_next(rng *r);
double rng_double(rng *r);
uint64_t rng_below(rng *r, uint64_t n);
int64_t rng_range(rng *r, int64_t lo, int64_t hi);
typedef enum dist_kind {
    DIST_UNIFORM,
    DIST_ZIPF,
    DIST_LATEST,
    DIST_HOTSPOT,
    DIST_OLDEST,
    DIST_NEWEST
} dist_kind;
typedef struct dist_spec {
    dist_kind kind;
    double theta;
    double hot_fraction, hot_probability;
} dist_spec;
int dist_parse(const char *s, size_t len, dist_spec *out, size_t *err_at, char *why, size_t size);
const char *dist_text(const dist_spec *d, char *buf, size_t size);
typedef struct dist_state {
    dist_spec spec;
} dist_state;
void dist_init(dist_state *st, const dist_spec *spec);
uint64_t dist_draw(dist_state *st, rng *r, uint64_t n);
#endif
