/* utf8.h: UTF-8 text measured in code points, the unit of columns, of
 * min_length/max_length and of len(); the one encoding rule for strings;
 * and text from outside made safe to print. */
#ifndef BENCH_UTF8_H
#define BENCH_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Number of code points in s[0..len) (invalid bytes count one each). */
size_t utf8_length(const char *s, size_t len);

/* The rule every string value keeps, in a spec, on the protocol and in
 * every store: valid UTF-8 (RFC 3629: no overlong forms, no surrogates,
 * nothing past U+10FFFF) without NUL. UTF8_RULE is the refusal's words. */
#define UTF8_RULE "a string must be valid UTF-8 without NUL (\\u0000) characters"
bool utf8_keeps_rule(const char *s, size_t len);

/* Copies s[0..len), text a runtime or a child wrote, into out[size] (NUL
 * terminated, cut at a whole character) so that a terminal, a report and
 * JSON can carry it: control characters (C0, DEL, C1) become "\u001b"
 * and the like, bytes that are not UTF-8 become U+FFFD. Returns out. */
char *utf8_sanitize(char *out, size_t size, const char *s, size_t len);

#endif
