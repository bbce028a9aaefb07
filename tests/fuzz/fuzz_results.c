/* fuzz_results.c: the result-file loader as `bench compare`, `gate` and
 * `report` use it: parsed, checked against the result schema, loaded into
 * the report model, written again as Markdown and JSON, and compared with
 * itself. */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report.h"
#include "results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *sink;
    if (!sink)
        sink = fopen("/dev/null", "w");
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    report *r = NULL;
    char err[512];
    if (results_load_text("fuzz.json", text, size, &r, err, sizeof err) == 0) {
        report_markdown(r, sink);
        report_json(r, sink);
        cJSON *root = cJSON_ParseWithLength(text, size);
        result_file *f = NULL;
        if (root && result_file_from_json("fuzz.json", root, &f, err, sizeof err) == 0) {
            comparison *c = NULL;
            size_t n = 0;
            if (compare_results(f, f, &c, &n) == 0)
                free(c);
            result_file_free(f);
        }
        cJSON_Delete(root);
    }
    results_free(r);
    free(text);
    return 0;
}
