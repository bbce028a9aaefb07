/* cli_man.c: a command's --help text as its manual page (roff, man(7)).
 * The help is the one source: every --help has the same layout, which this
 * reads back, so a page cannot say what --help does not.
 *
 *   usage: bench CMD ...        SYNOPSIS (with the lines indented under it)
 *   text at column 0            DESCRIPTION paragraphs; "word:" alone heads
 *                               a section (the top level's "commands:")
 *     TERM   text               an item (.TP): an option or a command
 *            more text          its continuation
 *
 * then EXIT STATUS from cli_table.c's table and SEE ALSO. */
#include "cli_man.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cli_table.h"

/* Text as roff: a backslash is \e, a minus \- (so that flags copy as
 * typed), and a line never starts with a control character. */
static void put_text(FILE *out, const char *s, size_t n, bool line_start)
{
    for (size_t i = 0; i < n; i++) {
        if (line_start && (s[i] == '.' || s[i] == '\''))
            fputs("\\&", out);
        line_start = false;
        if (s[i] == '\\')
            fputs("\\e", out);
        else if (s[i] == '-')
            fputs("\\-", out);
        else
            fputc(s[i], out);
    }
}

/* An item's term: flags bold, metavariables (NAME, N[,N..]) italic, a
 * command name (the top level's list) bold. */
static void put_term(FILE *out, const char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        size_t w = i;
        while (w < n && s[w] != ' ' && s[w] != ',')
            w++;
        if (w > i) {
            fputs(isupper((unsigned char)s[i]) ? "\\fI" : "\\fB", out);
            put_text(out, s + i, w - i, false);
            fputs("\\fR", out);
        }
        for (i = w; i < n && (s[i] == ' ' || s[i] == ','); i++)
            fputc(s[i], out);
    }
    fputc('\n', out);
}

static size_t indent_of(const char *line, size_t n)
{
    size_t k = 0;
    while (k < n && line[k] == ' ')
        k++;
    return k;
}

/* A column-0 line that is one lowercase word and a colon: a section. */
static bool is_heading(const char *line, size_t n)
{
    if (n < 2 || line[n - 1] != ':')
        return false;
    for (size_t i = 0; i + 1 < n; i++)
        if (!islower((unsigned char)line[i]) && line[i] != ' ')
            return false;
    return true;
}

static void put_upper(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(toupper((unsigned char)s[i]), out);
}

static void put_exit_statuses(FILE *out, const char *cmd)
{
    fputs(".SH \"EXIT STATUS\"\n", out);
    int status;
    const char *meaning;
    for (size_t i = 0; cli_exit_code(cmd, i, &status, &meaning); i++) {
        fprintf(out, ".TP\n.B %d\n", status);
        for (const char *p = meaning; *p;) { /* the table's line breaks: roff fills */
            size_t n = strcspn(p, "\n");
            put_text(out, p, n, true);
            fputc('\n', out);
            p += n + (p[n] == '\n');
        }
    }
}

static void put_see_also(FILE *out, const char *cmd)
{
    fputs(".SH \"SEE ALSO\"\n", out);
    if (cmd) {
        fputs(".BR bench (1)\n", out);
        return;
    }
    const char *name, *summary;
    for (size_t i = 0; cli_command(i, &name, &summary); i++)
        fprintf(out, ".BR bench\\-%s (1)%s\n", name,
                cli_command(i + 1, &name, &summary) ? "," : "");
}

void cli_man_write(FILE *out, const char *cmd, const char *usage)
{
    const char *summary = "check, plan and run workload specs against targets", *name;
    for (size_t i = 0; cmd && cli_command(i, &name, &summary) && strcmp(name, cmd) != 0; i++)
        ;
    fputs(".TH BENCH", out);
    if (cmd) {
        fputc('-', out);
        put_upper(out, cmd, strlen(cmd));
    }
    fprintf(out, " 1 \"\" \"bench %s\" \"bench manual\"\n.nh\n.SH NAME\nbench%s%s \\- ",
            BENCH_VERSION, cmd ? "\\-" : "", cmd ? cmd : "");
    put_text(out, summary, strlen(summary), false);
    fputs("\n.SH SYNOPSIS\n.nf\n", out);
    const char *p = usage;
    bool synopsis = true, item = false, para = false;
    while (*p) {
        size_t n = strcspn(p, "\n");
        const char *line = p;
        p += n + (p[n] == '\n');
        size_t ind = indent_of(line, n);
        if (synopsis) {
            if (n > 0) { /* "usage: " off the first line, as much off the rest */
                size_t skip = strncmp(line, "usage: ", 7) == 0 ? 7 : ind < 7 ? ind : 7;
                put_text(out, line + skip, n - skip, true);
                fputc('\n', out);
                continue;
            }
            fputs(".fi\n.SH DESCRIPTION\n", out);
            synopsis = false;
        } else if (n == 0) {
            para = item = false;
        } else if (ind == 0 && is_heading(line, n)) {
            fputs(".SH ", out);
            put_upper(out, line, n - 1);
            fputc('\n', out);
        } else if (ind == 2) { /* an item: TERM, two spaces, its text */
            const char *gap = strstr(line + 2, "  ");
            size_t term = gap && gap < line + n ? (size_t)(gap - line) - 2 : n - 2;
            fputs(".TP\n", out);
            put_term(out, line + 2, term);
            size_t text = 2 + term + indent_of(line + 2 + term, n - 2 - term);
            if (text < n) {
                put_text(out, line + text, n - text, true);
                fputc('\n', out);
            }
            item = true;
        } else if (ind > 2 && item) {
            put_text(out, line + ind, n - ind, true);
            fputc('\n', out);
        } else {
            if (!para)
                fputs(".PP\n", out);
            put_text(out, line + ind, n - ind, true);
            fputc('\n', out);
            para = true;
        }
    }
    if (synopsis)
        fputs(".fi\n", out);
    put_exit_statuses(out, cmd);
    put_see_also(out, cmd);
}
