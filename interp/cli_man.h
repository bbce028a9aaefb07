/* cli_man.h: a command's --help text as its manual page. */
#ifndef BENCH_CLI_MAN_H
#define BENCH_CLI_MAN_H

#include <stdio.h>

/* Writes usage, the help text of cmd (NULL: the top level) in the layout
 * every --help uses, as the roff source of its manual page: bench-CMD(1),
 * or bench(1). bench --man DIR calls it through cli_help. */
void cli_man_write(FILE *out, const char *cmd, const char *usage);

#endif
