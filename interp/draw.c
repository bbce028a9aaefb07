/* TEMP STUB */
#include "draw.h"
#include <stdio.h>
#include <string.h>
static uint64_t sm(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
void rng_seed(rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ (stream * 0x632be59bd9b4e019ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = sm(&x);
}
static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}
uint64_t rng_next(rng *r)
{
    uint64_t *s = r->s;
    uint64_t res = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return res;
}
double rng_double(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}
uint64_t rng_below(rng *r, uint64_t n)
{
    return rng_next(r) % n;
}
int64_t rng_range(rng *r, int64_t lo, int64_t hi)
{
    return lo + (int64_t)rng_below(r, (uint64_t)(hi - lo) + 1);
}
int dist_parse(const char *s, size_t len, dist_spec *out, size_t *err_at, char *why, size_t size)
{
    memset(out, 0, sizeof *out);
    out->theta = 0.99;
    static const char *n[] = {"uniform", "zipf", "latest", "hotspot", "oldest", "newest"};
    for (int i = 0; i < 6; i++)
        if (strlen(n[i]) == len && !memcmp(s, n[i], len)) {
            out->kind = (dist_kind)i;
            return 0;
        }
    *err_at = 0;
    snprintf(why, size, "unknown distribution '%.*s'", (int)len, s);
    return -1;
}
const char *dist_text(const dist_spec *d, char *buf, size_t size)
{
    static const char *n[] = {"uniform", "zipf", "latest", "hotspot", "oldest", "newest"};
    snprintf(buf, size, "%s", n[d->kind]);
    return buf;
}
void dist_init(dist_state *st, const dist_spec *spec)
{
    st->spec = *spec;
}
uint64_t dist_draw(dist_state *st, rng *r, uint64_t n)
{
    switch (st->spec.kind) {
    case DIST_OLDEST: return 0;
    case DIST_NEWEST: return n - 1;
    default: return rng_below(r, n);
    }
}
