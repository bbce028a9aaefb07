/* cli_serve.c: `bench serve`: its options, the spec, then serve.c's loop
 * on stdin and stdout or serve_listen.c's on a socket. Apart from both, so
 * that serve_listen.c builds on serve.c and nothing in serve.c on it. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "endpoint.h"
#include "serve.h"
#include "spec.h"
#include "store_driver.h"
#include "target.h"

static const char usage_serve[] =
    "usage: bench serve [--store NAME] [--listen ADDR] SPEC\n"
    "\n"
    "Serves the spec's domain on the C runtime as a JSON-lines server: one\n"
    "request per line on stdin, one answer per line on stdout, until end of\n"
    "input (schema/protocol.md). The process target runs this by default.\n"
    "\n"
    "  --store NAME   where the runtime keeps records: one of the stores built in\n"
    "                 (bench targets lists them: the targets that run the C runtime);\n"
    "                 default the in-process one. The SQL stores use a scratch file\n"
    "                 or schema, removed at the end (also when SIGTERM, SIGINT or\n"
    "                 SIGHUP stops it)\n"
    "  --listen ADDR  serve many connections at once instead, on one shared store:\n"
    "                 ADDR is unix:PATH or tcp:127.0.0.1:PORT (loopback only; port 0\n"
    "                 picks a free one). The address is printed on stderr; stdin is\n"
    "                 not read; SIGTERM or SIGINT stops the server. Each connection\n"
    "                 speaks the same protocol; requests are answered one at a time\n"
    "                 (the process target's connect option talks to it)\n"
    "  -h, --help     show this help\n";

int cli_serve(int argc, char **argv)
{
    static const struct option opts[] = {{"store", required_argument, NULL, 's'},
                                         {"listen", required_argument, NULL, 'l'},
                                         {"help", no_argument, NULL, 'h'},
                                         {NULL, 0, NULL, 0}};
    const store_driver *sd = store_default();
    endpoint ep;
    bool listen = false;
    char why[512];
    int c;
    uint64_t seen = 0;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (cli_once("serve", "--store", &seen, 0))
                return EXIT_USAGE;
            if (!(sd = store_find(optarg)))
                return cli_usage_error("serve", "unknown store '%s'; the stores are %s", optarg,
                                       store_names());
            break;
        case 'l':
            if (cli_once("serve", "--listen", &seen, 1))
                return EXIT_USAGE;
            if (endpoint_parse(optarg, &ep, why, sizeof why) < 0)
                return cli_usage_error("serve", "--listen: %s", why);
            listen = true;
            break;
        case 'h': return cli_help("serve", usage_serve);
        default:
            return cli_usage_error("serve", "unknown option or missing value: '%s'",
                                   argv[optind - 1]);
        }
    }
    if (argc - optind != 1)
        return cli_usage_error("serve", "give exactly one spec");
    diag_list d = {0};
    spec sp;
    spec_status st = spec_open(argv[optind], &d, &sp);
    diag_sort(&d);
    cli_print_diags(&d, sp.dc, DIAG_FORMAT_TEXT, stderr);
    diag_list_free(&d);
    if (st != SPEC_OK) {
        spec_close(&sp);
        return st == SPEC_IO ? EXIT_USAGE : EXIT_FAILED;
    }
    /* the store as for one run of its target, with its defaults */
    const target_spec ts = {.name = sd->name, .label = sd->name};
    char err[1024] = "";
    int rc = EXIT_CLEAN;
    server *sv = NULL;
    if (listen) {
        rc = serve_listen(sp.p, sd, &ts, &ep);
    } else if (serve_open(sp.p, sd, &ts, &sv, err, sizeof err) < 0) {
        fprintf(stderr, "bench serve: %s\n", err);
        rc = EXIT_FAILED;
    } else {
        if (serve_stdio(sv, STDIN_FILENO, STDOUT_FILENO) < 0) {
            fprintf(stderr, "bench serve: %s\n", strerror(errno));
            rc = EXIT_FAILED;
        }
    }
    serve_close(sv);
    spec_close(&sp);
    return rc;
}
