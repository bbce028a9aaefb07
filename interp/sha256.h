/* sha256.h: SHA-256 (FIPS 180-4), for the spec hashes a report records. */
#ifndef BENCH_SHA256_H
#define BENCH_SHA256_H

#include <stddef.h>

/* Writes the 64 lowercase hex digits of SHA-256(data) and a NUL into hex. */
void sha256_hex(const void *data, size_t len, char hex[65]);

#endif
