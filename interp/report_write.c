/* report_write.c: the table of report formats, and writing a file (a report,
 * a page) so that path holds either the old file or the whole new one, never
 * a partial file, even if bench dies mid-write. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const report_format report_formats[] = {
    {"markdown", report_markdown},
    {"json", report_json},
    {"csv", report_csv},
    {NULL, NULL},
};

const report_format *report_format_find(const char *name)
{
    for (const report_format *f = report_formats; f->name; f++)
        if (!strcmp(f->name, name))
            return f;
    return NULL;
}

void report_format_names(bool mark_default, char *buf, size_t n)
{
    size_t len = 0;
    if (n > 0)
        buf[0] = '\0';
    for (const report_format *f = report_formats; f->name && len < n; f++) {
        const char *sep = f == report_formats ? "" : f[1].name ? ", " : " or ";
        int w = snprintf(buf + len, n - len, "%s%s%s", sep, f->name,
                         mark_default && f == report_formats ? " (default)" : "");
        len += w > 0 ? (size_t)w : 0;
    }
}

static int fail(char *err, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t size, const char *fmt, ...)
{
    if (err && size > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, size, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Makes the rename itself durable; best effort, as some file systems cannot
 * sync a directory and the data is already safe. */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

int write_atomic(const char *path, int (*writer)(FILE *out, const void *ctx), const void *ctx,
                 char *err, size_t size)
{
    if (!path || !*path)
        return fail(err, size, "no output path was given.");
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0; /* with the slash */
    const char *base = path + dirlen;
    if (!*base)
        return fail(err, size, "cannot write the report to %s: it names a directory.", path);

    size_t tmpsize = strlen(path) + sizeof "/..XXXXXX";
    char *tmp = malloc(tmpsize);
    char *dir = malloc(dirlen + 2);
    if (!tmp || !dir) {
        free(tmp);
        free(dir);
        return fail(err, size, "cannot write the report to %s: out of memory.", path);
    }
    snprintf(tmp, tmpsize, "%.*s.%s.XXXXXX", (int)dirlen, path, base);
    if (dirlen)
        snprintf(dir, dirlen + 2, "%.*s", (int)dirlen, path);
    else
        snprintf(dir, dirlen + 2, ".");

    int rc = -1;
    FILE *f = NULL;
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fail(err, size, "cannot write %s: no temporary file can be made in %s: %s.", path, dir,
             strerror(errno));
        goto done;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0) {
        fail(err, size, "cannot set the mode of %s: %s.", tmp, strerror(errno));
        close(fd);
        goto remove;
    }
    f = fdopen(fd, "w");
    if (!f) {
        fail(err, size, "cannot open %s for writing: %s.", tmp, strerror(errno));
        close(fd);
        goto remove;
    }
    errno = 0;
    int wrc = writer(f, ctx);
    if (wrc != 0 || fflush(f) != 0 || ferror(f)) {
        int e = errno;
        fail(err, size, "cannot write the report to %s%s%s.", tmp, e ? ": " : "",
             e ? strerror(e) : "");
        goto remove;
    }
    if (fsync(fileno(f)) != 0) {
        fail(err, size, "cannot flush %s to disk: %s.", tmp, strerror(errno));
        goto remove;
    }
    int closed = fclose(f);
    f = NULL;
    if (closed != 0) {
        fail(err, size, "cannot close %s: %s.", tmp, strerror(errno));
        goto remove;
    }
    if (rename(tmp, path) != 0) {
        fail(err, size, "cannot rename %s to %s: %s.", tmp, path, strerror(errno));
        goto remove;
    }
    sync_dir(dir);
    rc = 0;
    goto done;

remove:
    if (f)
        fclose(f);
    unlink(tmp);
done:
    free(tmp);
    free(dir);
    return rc;
}

typedef struct report_writer {
    int (*writer)(const report *, FILE *);
    const report *r;
} report_writer;

static int write_report(FILE *out, const void *ctx)
{
    const report_writer *w = ctx;
    return w->writer(w->r, out);
}

int report_write_atomic(const char *path, int (*writer)(const report *, FILE *), const report *r,
                        char *err, size_t size)
{
    report_writer w = {writer, r};
    return write_atomic(path, write_report, &w, err, size);
}
