/* cli_clean.c: `bench clean`: removes what runs killed outright (SIGKILL, a
 * crash) left behind, as every run's open of the store does first: the
 * sqlite scratch directories under TMPDIR whose owner's lock is free, the
 * postgres scratch schemas whose owner's advisory lock is free. A live
 * run's are never touched, nor kept ones. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "store_postgres.h"
#include "store_sqlite.h"

static const char usage_clean[] =
    "usage: bench clean [--store sqlite|postgres] [--dsn DSN]\n"
    "\n"
    "Removes the scratch stores of runs that were killed outright (SIGKILL, a\n"
    "crash): sqlite directories under $TMPDIR and postgres schemas in the\n"
    "database bench whose owner is gone. A live run's and kept ones stay.\n"
    "Every run does the same for its store before it starts.\n"
    "\n"
    "  --store NAME   only this store (default: both; a postgres server that\n"
    "                 cannot be reached is then skipped with a line)\n"
    "  --dsn DSN      the postgres connection (default: libpq's environment)\n"
    "  -h, --help     show this help\n";

int cli_clean(int argc, char **argv)
{
    static const struct option opts[] = {{"store", required_argument, NULL, 's'},
                                         {"dsn", required_argument, NULL, 'd'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const char *only = NULL, *dsn = NULL;
    int c;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (cli_once("clean", "--store", &seen, 0))
                return EXIT_USAGE;
            only = optarg;
            break;
        case 'd':
            if (cli_once("clean", "--dsn", &seen, 1))
                return EXIT_USAGE;
            dsn = optarg;
            break;
        case 'h': return cli_help("clean", usage_clean);
        case ':': return cli_usage_error("clean", "%s needs a value", argv[optind - 1]);
        default: return cli_usage_error("clean", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("clean", "takes no arguments, not '%s'", argv[optind]);
    if (only && strcmp(only, "sqlite") != 0 && strcmp(only, "postgres") != 0)
        return cli_usage_error("clean", "--store is sqlite or postgres, not '%s'", only);
    int rc = EXIT_CLEAN;
    if (!only || !strcmp(only, "sqlite")) {
        const char *tmp = getenv("TMPDIR");
        tmp = tmp && *tmp ? tmp : "/tmp";
        size_t n = sqlite_remove_stale_scratch(tmp);
        printf("sqlite: removed %zu scratch director%s of killed runs under %s\n", n,
               n == 1 ? "y" : "ies", tmp);
    }
    if (!only || !strcmp(only, "postgres")) {
        char err[512] = "";
        long n = postgres_drop_stale_schemas(dsn, err, sizeof err);
        if (n >= 0) {
            printf("postgres: dropped %ld scratch schema%s of killed runs\n", n, n == 1 ? "" : "s");
        } else if (only) {
            fprintf(stderr, "bench clean: postgres: %s\n", err);
            rc = EXIT_FAILED;
        } else {
            printf("postgres: skipped: %s\n", err);
        }
    }
    return rc;
}
