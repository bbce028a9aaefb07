#include "utf8.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t utf8_length(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += ((unsigned char)s[i] & 0xC0) != 0x80; /* every byte but a continuation byte */
    return n;
}

/* The length of the well-formed sequence at s[0..len) and its code point
 * in *cp, or 0 when s does not start one. */
static size_t sequence(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n = c >= 0xC2 && c <= 0xDF   ? 2
               : c >= 0xE0 && c <= 0xEF ? 3
               : c >= 0xF0 && c <= 0xF4 ? 4
                                        : 0;
    if (n == 0 || n > len)
        return 0;
    uint32_t v = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3F);
    }
    static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
    if (v < least[n] || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

bool utf8_keeps_rule(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    while (p < end) {
        if (*p >= 0x01 && *p < 0x80) { /* ASCII but NUL: the common case */
            p++;
            continue;
        }
        uint32_t cp;
        size_t n = *p ? sequence(p, (size_t)(end - p), &cp) : 0;
        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

char *utf8_sanitize(char *out, size_t size, const char *s, size_t len)
{
    if (size == 0)
        return out;
    const unsigned char *p = (const unsigned char *)s, *end = p + len;
    size_t k = 0;
    while (p < end) {
        uint32_t cp;
        size_t n = sequence(p, (size_t)(end - p), &cp);
        char esc[8];
        const char *put = (const char *)p;
        size_t m = n;
        if (n == 0) { /* not UTF-8: one byte becomes U+FFFD */
            put = "\xEF\xBF\xBD";
            m = 3;
            n = 1;
        } else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) {
            snprintf(esc, sizeof esc, "\\u%04x", (unsigned)cp);
            put = esc;
            m = 6;
        }
        if (k + m >= size)
            break;
        memcpy(out + k, put, m);
        k += m;
        p += n;
    }
    out[k] = '\0';
    return out;
}
