/* fuzz_spec.c: the spec front end (load, schema, meaning checks, compile,
 * lint's dry run) on any bytes, as `bench lint` takes a file; then the
 * diagnostics printed as text, which walks the source for caret lines. */
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    diag_list d = {0};
    spec s;
    spec_check_text("fuzz.yaml", (const char *)data, size, &d, &s);
    diag_sort(&d);
    diag_cursor src = s.dc ? diag_cursor_at(s.dc->source, s.dc->len) : (diag_cursor){0};
    for (size_t i = 0; i < d.count; i++)
        diag_print_text(sink, &d.items[i], s.dc ? &src : NULL);
    spec_close(&s);
    diag_list_free(&d);
    return 0;
}
