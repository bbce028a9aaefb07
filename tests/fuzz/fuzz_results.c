/* fuzz_results.c: the result-file loader as `bench compare`, `gate` and
 * `report` use it: parsed, checked against the result schema, loaded into
 * the report model, written again as Markdown and JSON, and compared with
 * itself; and loaded from cJSON's tree of the same text, which must give the
 * same verdict and sentence as the loader's own parser. */
#include <cjson/cJSON.h>
#include <stdbool.h>
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
    char err[512], tree_err[512] = "";
    int rc = results_load_text("fuzz.json", text, size, &r, err, sizeof err);
    if (rc == 0) {
        report_markdown(r, sink);
        report_json(r, sink);
    }
    /* The same document as cJSON's tree (results_from_json, as `bench run`
     * hands its report to compare): where cJSON reads the text as the
     * loader's parse does, the loader's own parser (packed pairs and all)
     * must give the same verdict in the same words. */
    bool not_json = rc != 0 && (strstr(err, " is not valid JSON") || strstr(err, " is empty:") ||
                                strstr(err, " is nested too deep") || strstr(err, " NUL byte"));
    cJSON *root = !not_json ? cJSON_ParseWithOpts(text, NULL, true) : NULL;
    result_file *f = NULL;
    if (root) {
        int tree_rc = result_file_from_json("fuzz.json", root, &f, tree_err, sizeof tree_err);
        if (tree_rc != rc || (rc != 0 && strcmp(err, tree_err) != 0)) {
            fprintf(stderr, "the loader and cJSON's tree disagree:\n  %s\n  %s\n",
                    rc ? err : "(loaded)", tree_rc ? tree_err : "(loaded)");
            abort();
        }
    }
    if (f) {
        comparison *c = NULL;
        size_t n = 0;
        if (compare_results(f, f, &c, &n) == 0)
            free(c);
        result_file_free(f);
    }
    cJSON_Delete(root);
    results_free(r);
    free(text);
    return 0;
}
