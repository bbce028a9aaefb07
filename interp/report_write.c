/* report_write.c: the table of report formats, and writing a file (a report,
 * a page, samples) so that path holds either the old file or the whole new
 * one, never a partial file, even if bench dies mid-write. A symlink is
 * followed (its target is replaced, the link stays); a FIFO or a device is
 * written in place, never replaced; "-" is stdout. */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "error.h"

const report_format report_formats[] = {
    {"markdown", "md", report_markdown},
    {"json", "json", report_json},
    {"csv", "csv", report_csv},
    {NULL, NULL, NULL},
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

/* path's directory, with no trailing slash ("." for a bare name); the
 * caller frees. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    if (slash == path)
        return xstrdup("/");
    size_t n = (size_t)(slash - path);
    char *dir = xmalloc(n + 1);
    memcpy(dir, path, n);
    dir[n] = '\0';
    return dir;
}

/* The file that writing path changes: a symlink's final target (which may not
 * exist yet: a link to a new file), else path itself. The caller frees;
 * NULL with a sentence in err when a link cannot be followed. */
static char *resolve_target(const char *path, char *err, size_t size)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISLNK(st.st_mode))
        return xstrdup(path);
    char *real = realpath(path, NULL);
    if (real)
        return real;
    int e = errno;
    /* a dangling link: follow it one step to the file it would create */
    char target[PATH_MAX];
    ssize_t n = e == ENOENT ? readlink(path, target, sizeof target - 1) : -1;
    if (n < 0) {
        err_set_buf(err, size, "cannot follow the symbolic link %s: %s.", path,
                    strerror(e == ENOENT ? errno : e));
        return NULL;
    }
    target[n] = '\0';
    if (target[0] == '/')
        return xstrdup(target);
    char *dir = dir_of(path);
    size_t len = strlen(dir) + strlen(target) + 2;
    char *joined = xmalloc(len);
    snprintf(joined, len, "%s/%s", dir, target);
    free(dir);
    return joined;
}

/* The mkstemp template of a temporary beside target: DIR/.NAME.XXXXXX; the
 * caller frees. */
static char *temp_template(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dirlen = slash ? (size_t)(slash - target) + 1 : 0; /* with the slash */
    size_t n = strlen(target) + sizeof "..XXXXXX";
    char *tmp = xmalloc(n);
    snprintf(tmp, n, "%.*s.%s.XXXXXX", (int)dirlen, target, target + dirlen);
    return tmp;
}

/* Whether the temporary beside target can be made: made and removed at once,
 * which tells what access() cannot (root in /proc, a read-only mount). */
static int probe_dir(const char *path, const char *target, char *err, size_t size)
{
    char *probe = temp_template(target);
    int fd = mkstemp(probe), rc = 0;
    if (fd < 0) {
        char *dir = dir_of(target);
        rc = err_set_buf(err, size, "cannot write %s: cannot make files in %s: %s.", path, dir,
                         strerror(errno));
        free(dir);
    } else {
        close(fd);
        unlink(probe);
    }
    free(probe);
    return rc;
}

int output_check(const char *path, char *err, size_t size)
{
    if (!path || !*path)
        return err_set_buf(err, size, "no output path was given.");
    if (!strcmp(path, "-"))
        return 0;
    char *target = resolve_target(path, err, size);
    if (!target)
        return -1;
    int rc = 0;
    struct stat st;
    char *dir = NULL;
    if (stat(target, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            rc = err_set_buf(err, size, "cannot write %s: it is a directory.", path);
        else if (access(target, W_OK) != 0)
            rc = err_set_buf(err, size, "cannot write %s: %s.", path, strerror(errno));
        else if (S_ISREG(st.st_mode))
            rc = probe_dir(path, target, err, size);
    } else if (errno != ENOENT) {
        rc = err_set_buf(err, size, "cannot write %s: %s.", path, strerror(errno));
    } else if (target[strlen(target) - 1] == '/') {
        rc = err_set_buf(err, size, "cannot write %s: it names a directory.", path);
    } else {
        dir = dir_of(target);
        if (stat(dir, &st) != 0)
            rc = err_set_buf(err, size, "cannot write %s: the directory %s %s.", path, dir,
                             errno == ENOENT ? "does not exist" : strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            rc = err_set_buf(err, size, "cannot write %s: %s is not a directory.", path, dir);
        else
            rc = probe_dir(path, target, err, size);
    }
    free(dir);
    free(target);
    return rc;
}

/* A file that is there and is not a regular one (a FIFO, a device, a
 * socket): written in place, never replaced. */
static int open_in_place(const char *path, const char *target, atomic_file *af, char *err,
                         size_t size)
{
    int fd = open(target, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return err_set_buf(err, size, "cannot open %s for writing: %s.", path, strerror(errno));
    if (!(af->f = fdopen(fd, "w"))) {
        close(fd);
        return err_set_buf(err, size, "cannot open %s for writing: %s.", path, strerror(errno));
    }
    return 0;
}

/* A regular file or a new one: a temporary beside it, renamed over it. */
static int open_temporary(const char *path, const char *target, const struct stat *old,
                          atomic_file *af, char *err, size_t size)
{
    if (target[strlen(target) - 1] == '/')
        return err_set_buf(err, size, "cannot write %s: it names a directory.", path);
    af->tmp = temp_template(target);
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        char *dir = dir_of(target);
        err_set_buf(err, size, "cannot write %s: no temporary file can be made in %s: %s.", path,
                    dir, strerror(errno));
        free(dir);
        free(af->tmp);
        af->tmp = NULL;
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = old ? old->st_mode & 07777 : 0666 & ~mask;
    if (fchmod(fd, mode) != 0 || !(af->f = fdopen(fd, "w"))) {
        err_set_buf(err, size, "cannot prepare %s: %s.", af->tmp, strerror(errno));
        close(fd);
        unlink(af->tmp);
        free(af->tmp);
        af->tmp = NULL;
        return -1;
    }
    return 0;
}

int atomic_file_open(const char *path, atomic_file *af, char *err, size_t size)
{
    *af = (atomic_file){0};
    if (!path || !*path)
        return err_set_buf(err, size, "no output path was given.");
    if (!strcmp(path, "-")) {
        af->f = stdout;
        af->path = xstrdup(path);
        return 0;
    }
    char *target = resolve_target(path, err, size);
    if (!target)
        return -1;
    struct stat st;
    bool exists = stat(target, &st) == 0;
    int rc;
    if (exists && S_ISDIR(st.st_mode))
        rc = err_set_buf(err, size, "cannot write %s: it is a directory.", path);
    else if (exists && !S_ISREG(st.st_mode))
        rc = open_in_place(path, target, af, err, size);
    else
        rc = open_temporary(path, target, exists ? &st : NULL, af, err, size);
    if (rc != 0) {
        free(target);
        return -1;
    }
    af->path = xstrdup(path);
    af->target = target;
    return 0;
}

/* The sentence for a failed write to af, from errno; what names the content. */
static int write_failed(const atomic_file *af, const char *what, int e, char *err, size_t size)
{
    if (af->f == stdout)
        return err_set_buf(err, size, "cannot write %s to stdout%s%s.", what, e ? ": " : "",
                           e ? strerror(e) : "");
    return err_set_buf(err, size, "cannot write %s to %s%s%s.", what, af->tmp ? af->tmp : af->path,
                       e ? ": " : "", e ? strerror(e) : "");
}

int atomic_file_commit(atomic_file *af, char *err, size_t size)
{
    int rc = 0;
    errno = 0;
    if (fflush(af->f) != 0 || ferror(af->f))
        rc = write_failed(af, "the file", errno, err, size);
    else if (af->tmp && fsync(fileno(af->f)) != 0)
        rc = err_set_buf(err, size, "cannot flush %s to disk: %s.", af->tmp, strerror(errno));
    if (af->f != stdout) {
        int closed = fclose(af->f);
        if (closed != 0 && rc == 0)
            rc = write_failed(af, "the file", errno, err, size);
    }
    af->f = NULL;
    if (rc == 0 && af->tmp) {
        if (rename(af->tmp, af->target) != 0) {
            rc = err_set_buf(err, size, "cannot rename %s to %s: %s.", af->tmp, af->target,
                             strerror(errno));
        } else {
            char *dir = dir_of(af->target);
            sync_dir(dir);
            free(dir);
            free(af->tmp);
            af->tmp = NULL;
        }
    }
    atomic_file_abort(af);
    return rc;
}

void atomic_file_abort(atomic_file *af)
{
    if (af->f && af->f != stdout)
        fclose(af->f);
    if (af->tmp)
        unlink(af->tmp);
    free(af->tmp);
    free(af->target);
    free(af->path);
    *af = (atomic_file){0};
}

int write_atomic(const char *path, int (*writer)(FILE *out, const void *ctx), const void *ctx,
                 char *err, size_t size)
{
    atomic_file af;
    if (atomic_file_open(path, &af, err, size) != 0)
        return -1;
    errno = 0;
    if (writer(af.f, ctx) != 0) {
        write_failed(&af, "the report", errno, err, size);
        atomic_file_abort(&af);
        return -1;
    }
    return atomic_file_commit(&af, err, size);
}

int write_fallback(const char *ext, int (*writer)(FILE *out, const void *ctx), const void *ctx,
                   char *path, size_t path_size, char *err, size_t size)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir || access(dir, W_OK | X_OK) != 0)
        dir = "/tmp";
    char stamp[32] = "0";
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm))
        strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    int n = snprintf(path, path_size, "%s%sbench-results-%ld-%s.%s", dir,
                     dir[strlen(dir) - 1] == '/' ? "" : "/", (long)getpid(), stamp, ext);
    if (n < 0 || (size_t)n >= path_size)
        return err_set_buf(err, size, "the fallback path in %s is too long.", dir);
    return write_atomic(path, writer, ctx, err, size);
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

int report_write_fallback(const char *ext, int (*writer)(const report *, FILE *), const report *r,
                          char *path, size_t path_size, char *err, size_t size)
{
    report_writer w = {writer, r};
    return write_fallback(ext, write_report, &w, path, path_size, err, size);
}
