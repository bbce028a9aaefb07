/* process.c: the process target: any runtime that speaks schema/protocol.md
 * on its stdin and stdout, one JSON object per line, started fresh for
 * every run (default: `bench serve SPEC`, this very binary); or, with the
 * connect option, a server already running (`bench serve --listen`) that
 * the target connects to for every run and asks to reset its store.
 *
 * The child runs in its own process group (so a Ctrl-C at the terminal
 * reaches bench, which then closes the child in order, and so that close
 * can signal anything the child started), dies with bench (PR_SET_PDEATHSIG),
 * and is always reaped by close.
 *
 * The timed path is the raw pipe round trip and nothing more: a blocking
 * write(2) of the request line, blocking read(2)s until the answer's
 * newline, a look at its first bytes. What would otherwise cost a poll(2)
 * per command runs beside it in a watchdog thread per target: it keeps the
 * tail of the child's stderr (draining the pipe, so a chatty child never
 * blocks), and when one request has been outstanding for longer than the
 * timeout it kills the child's process group (or shuts a connection down),
 * which ends the blocked read with end of file; the main thread then
 * reports the timeout. The main thread marks a request outstanding with one
 * relaxed atomic store.
 *
 * Timing: prepare (before the first clock read) encodes the request line;
 * dispatch writes it, waits for the answer line and reads its ok. settle
 * (after the second read, untimed) holds the answer to the protocol: the
 * whole line must parse, the event names of a success must be those the
 * command and its policies emit, a query's returns must decode as the
 * query's (kept for the runner's expect: returns), and no further line may
 * be waiting.
 * After the pass, verify reads records back with the record request. */
#define _GNU_SOURCE /* pipe2, prctl */
#include "process.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alloc.h"
#include "endpoint.h"
#include "error.h"
#include "json_line.h"
#include "target.h"
#include "utf8.h"
#include "value.h"

/* per command, unless the spec says timeout_ms (the option's declared default) */
#define PROCESS_TIMEOUT_MS 5000
/* What the watchdog sends the reader to end a read or write that end of file
 * will not end (a grandchild in another session holding the pipe). */
#define PROCESS_WAKE_SIGNAL (SIGRTMIN + 1)
#define TEXT_OF(x) #x
#define TEXT(x) TEXT_OF(x)

enum {
    PROCESS_GRACE_MS = 2000,     /* after closing stdin, before SIGTERM */
    PROCESS_TERM_MS = 1000,      /* after SIGTERM, before SIGKILL */
    PROCESS_EXIT_MS = 1000,      /* a child that closed its stdout: time to see it exit */
    PROCESS_TAIL = 4096,         /* bytes of stderr kept */
    PROCESS_LINE_MAX = 64 << 20, /* an answer line longer than this is garbage */
    PROCESS_LATE_MS = 200,       /* after a wrong answer: how long a late line may take */
    PROCESS_KEPT = 64,           /* step instances whose constant arguments' JSON is kept */
};

static const char *self_override;

void process_target_set_self(const char *path)
{
    self_override = path;
}

typedef struct process_target {
    target base;
    const plan *p;
    char name[160]; /* for messages: "python3", "bench serve", "the server at unix:PATH" */
    pid_t pid;      /* the child, or 0 with connect */
    bool connected; /* connect: in_fd and out_fd are one socket to a server */
    bool reaped, exited, broken;
    bool answered;      /* the last dispatch answered a success, for settle */
    bool no_record;     /* the runtime refused the record request: read back from instances */
    bool no_instances;  /* it refused the instances request too: it cannot read back */
    bool has_answer;    /* answer holds the last query's returns (settle decoded them) */
    int64_t scan_limit; /* the last dispatch's limit, when it was a scan */
    cJSON *instances;   /* the store as {"instances":true} answered it, until the next command */
    value answer;       /* in answer_mem, until the next dispatch */
    arena answer_mem;
    int status; /* as waitpid reports it, once exited */
    int in_fd;  /* the child's stdin (our write end), or -1; with connect the socket */
    int out_fd; /* the child's stdout (our read end); with connect the socket */
    int err_fd; /* the child's stderr (our read end, non-blocking); -1 with connect */
    int timeout_ms;
    jline req;             /* the request line prepare encoded */
    const command *req_of; /* the command it is of (NULL: another line) */
    /* per step instance (args' address), the JSON of its constant arguments
       (target.args_checked), encoded once a run; PROCESS_KEPT at most */
    struct kept_args {
        const value *args;
        const command *cmd;
        json_kept k;
    } kept[PROCESS_KEPT];
    size_t nkept;
    jline prefixes; /* per command: {"verb":"...","args": */
    size_t *prefix_at, *prefix_len;
    jline emits; /* per command: the event names a success answers, "A, B" */
    jline got;   /* the event names of the answer settle checks */
    size_t *emits_at, *emits_len;
    bool *emits_head;         /* per command: emits is only the first names (a for_each policy's
                                 command emits once per item, and the list is the run's) */
    size_t last_at, last_len; /* the last success answer in rbuf, when answered */
    char *rbuf;               /* answer bytes read and not yet consumed */
    size_t rcap, rstart, rend;
    /* shared with the watchdog */
    pthread_t watchdog;
    bool watching;                    /* the thread runs (main thread only) */
    int stop[2];                      /* the watchdog's stop pipe: main writes, it polls */
    atomic_uint_fast64_t outstanding; /* the request in flight (a sequence number), or 0 */
    atomic_bool timed_out;            /* the watchdog killed the child for the timeout */
    atomic_bool child_ended;          /* the child exited while a request was outstanding */
    pthread_t reader;                 /* the thread that dispatches now (bind_reader), under mu */
    uint64_t seq;                     /* the last request number (main thread only) */
    pthread_mutex_t mu;               /* guards what follows, and every read of err_fd */
    bool err_end;                     /* stderr reached its end */
    char tail[PROCESS_TAIL];          /* the last bytes the child wrote on stderr */
    size_t tail_len;
} process_target;

pid_t process_target_pid(const target *t)
{
    return ((const process_target *)t)->pid;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* ---- finding the program ---- */

static int self_path(char *out, size_t size)
{
    if (self_override) {
        snprintf(out, size, "%s", self_override);
        return 0;
    }
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n <= 0)
        return -1;
    out[n] = '\0';
    return 0;
}

/* Whether argv0 names an executable: as a path when it has a slash,
 * otherwise on PATH (as execvp searches). */
static bool executable(const char *argv0)
{
    if (strchr(argv0, '/'))
        return access(argv0, X_OK) == 0;
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char buf[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *colon = strchr(p, ':');
        size_t len = colon ? (size_t)(colon - p) : strlen(p);
        int n = len ? snprintf(buf, sizeof buf, "%.*s/%s", (int)len, p, argv0)
                    : snprintf(buf, sizeof buf, "./%s", argv0);
        if (n > 0 && (size_t)n < sizeof buf && access(buf, X_OK) == 0)
            return true;
        if (!colon)
            return false;
        p = colon;
    }
}

/* The connect option's value as the compiler checks it: an endpoint, and
 * for TCP a port that is not 0. */
static int connect_check(const char *text, char *why, size_t size)
{
    endpoint e;
    if (endpoint_parse(text, &e, why, size) < 0)
        return -1;
    if (e.kind == ENDPOINT_TCP && e.port == 0) {
        snprintf(why, size,
                 "%.200s names no port: give the one the server listens on (bench serve "
                 "--listen prints it)",
                 text);
        return -1;
    }
    return 0;
}

/* The server spec connects to, in *e; -1 with one sentence in why when
 * spec also has a command (only --process-cmd can give it one: the
 * compiler refuses both in a spec) or the address is not one. */
static int connect_endpoint(const target_spec *spec, endpoint *e, char *why, size_t size)
{
    const char *const *argv = target_opt_argv(spec, "command");
    const char *text = target_opt_str(spec, "connect");
    if (argv && argv[0]) {
        snprintf(why, size,
                 "the process target takes command or connect, not both (--process-cmd gives "
                 "every process target a command)");
        return -1;
    }
    if (connect_check(text, why, size) < 0)
        return -1;
    return endpoint_parse(text, e, why, size);
}

static int connect_available(const target_spec *spec, char *why, size_t size)
{
    endpoint e;
    if (connect_endpoint(spec, &e, why, size) < 0)
        return -1;
    int fd = endpoint_connect(&e);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    char addr[ENDPOINT_PATH_MAX + 32];
    endpoint_format(&e, addr, sizeof addr);
    snprintf(why, size,
             "no server accepts connections at %s (%s); start one (bench serve SPEC --listen "
             "%s) or fix the process target's connect",
             addr, strerror(errno), addr);
    return -1;
}

static int process_available(const target_driver *drv, const target_spec *spec, char *why,
                             size_t size)
{
    (void)drv;
    if (target_opt_str(spec, "connect"))
        return connect_available(spec, why, size);
    const char *const *argv = target_opt_argv(spec, "command");
    if (!argv || !argv[0]) {
        char self[PATH_MAX];
        if (self_path(self, sizeof self) == 0 && access(self, X_OK) == 0)
            return 0;
        snprintf(why, size,
                 "bench cannot find its own executable to run `bench serve`; set the process "
                 "target's command");
        return -1;
    }
    const char *prog = argv[0];
    if (executable(prog))
        return 0;
    if (strchr(prog, '/'))
        snprintf(why, size,
                 "%s does not exist or is not executable here; fix the process target's command",
                 prog);
    else
        snprintf(why, size,
                 "%s is not installed here (not on PATH); install it or set the process target's "
                 "command",
                 prog);
    return -1;
}

/* ---- the child's stderr ---- */

static void tail_add(process_target *pt, const char *s, size_t n)
{
    if (n >= PROCESS_TAIL) {
        memcpy(pt->tail, s + n - PROCESS_TAIL, PROCESS_TAIL);
        pt->tail_len = PROCESS_TAIL;
        return;
    }
    if (pt->tail_len + n > PROCESS_TAIL) {
        size_t drop = pt->tail_len + n - PROCESS_TAIL;
        memmove(pt->tail, pt->tail + drop, pt->tail_len - drop);
        pt->tail_len -= drop;
    }
    memcpy(pt->tail + pt->tail_len, s, n);
    pt->tail_len += n;
}

/* Reads what stderr holds now into the tail. Either thread; takes mu. */
static void drain_stderr(process_target *pt)
{
    char buf[4096];
    pthread_mutex_lock(&pt->mu);
    while (!pt->err_end) {
        ssize_t n = read(pt->err_fd, buf, sizeof buf);
        if (n > 0) {
            tail_add(pt, buf, (size_t)n);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n == 0 || errno != EAGAIN)
            pt->err_end = true;
        break;
    }
    pthread_mutex_unlock(&pt->mu);
}

static bool stderr_ended(process_target *pt)
{
    pthread_mutex_lock(&pt->mu);
    bool end = pt->err_end;
    pthread_mutex_unlock(&pt->mu);
    return end;
}

/* Waits up to ms for stderr to reach its end (a child that exited). */
static void drain_stderr_until_end(process_target *pt, int ms)
{
    int64_t until = now_ms() + ms;
    drain_stderr(pt);
    while (!stderr_ended(pt) && now_ms() < until) {
        sleep_ms(1);
        drain_stderr(pt);
    }
}

/* Appends "; its stderr ended with: ..." (the last three lines) to msg. */
static void append_tail(process_target *pt, char *msg, size_t size)
{
    size_t used = strlen(msg);
    if (used >= size - 1)
        return;
    pthread_mutex_lock(&pt->mu);
    const char *lines[3];
    size_t lens[3], n = 0;
    size_t end = pt->tail_len;
    while (n < 3 && end > 0) {
        while (end > 0 && (pt->tail[end - 1] == '\n' || pt->tail[end - 1] == '\r'))
            end--;
        if (end == 0)
            break;
        size_t start = end;
        while (start > 0 && pt->tail[start - 1] != '\n')
            start--;
        lines[n] = pt->tail + start;
        lens[n++] = end - start;
        end = start;
    }
    if (n == 0) {
        pthread_mutex_unlock(&pt->mu);
        snprintf(msg + used, size - used, "; it wrote nothing on stderr");
        return;
    }
    int w = snprintf(msg + used, size - used, "; its stderr ended with: ");
    for (size_t i = n; i-- > 0 && w > 0 && used + (size_t)w < size;) {
        used += (size_t)w;
        char line[256]; /* the child's bytes, safe for a terminal and a report */
        utf8_sanitize(line, sizeof line, lines[i], lens[i] > 200 ? 200 : lens[i]);
        w = snprintf(msg + used, size - used, "%s%s", line, i ? " | " : "");
    }
    pthread_mutex_unlock(&pt->mu);
    for (char *c = msg; *c; c++) /* one line */
        if ((unsigned char)*c < 0x20)
            *c = ' ';
}

/* ---- the child's life ---- */

/* Waits up to ms for the child to exit, without reaping it (so that its
 * process group can still be signalled). True when it has exited. */
static bool exited_within(process_target *pt, int ms)
{
    if (pt->exited || pt->reaped)
        return true;
    int64_t until = now_ms() + ms;
    for (;;) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        int rc = waitid(P_PID, (id_t)pt->pid, &si, WEXITED | WNOHANG | WNOWAIT);
        if (rc == 0 && si.si_pid == pt->pid) {
            pt->exited = true;
            pt->status = si.si_code == CLD_EXITED ? si.si_status << 8 : si.si_status & 0x7f;
            return true;
        }
        if (rc < 0 && errno != EINTR) { /* not our child any more: nothing to wait for */
            pt->exited = pt->reaped = true;
            return true;
        }
        if (now_ms() >= until)
            return false;
        sleep_ms(1);
    }
}

/* Kills whatever is left in the child's process group, then reaps the child. */
static void reap(process_target *pt)
{
    if (pt->reaped)
        return;
    kill(-pt->pid, SIGKILL);
    int st;
    while (waitpid(pt->pid, &st, 0) < 0 && errno == EINTR)
        ;
    pt->status = st;
    pt->exited = pt->reaped = true;
}

static void describe_exit(process_target *pt, char *out, size_t size)
{
    int st = pt->status;
    if (WIFEXITED(st))
        snprintf(out, size, "exited with status %d", WEXITSTATUS(st));
    else if (WIFSIGNALED(st))
        snprintf(out, size, "was killed by signal %d (%s)", WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        snprintf(out, size, "ended");
}

/* Fails the run: the reason, the child's exit when known, its stderr. */
static int broken(process_target *pt, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int broken(process_target *pt, const char *fmt, ...)
{
    char msg[TARGET_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pt->broken = true;
    if (!pt->connected)
        append_tail(pt, msg, sizeof msg);
    return target_fail(&pt->base, TARGET_ERROR, "%s", msg);
}

/* The child closed its end (or the watchdog killed it), or the server
 * closed the connection: say how it ended. */
static int child_gone(process_target *pt, const char *doing)
{
    if (atomic_load(&pt->timed_out)) {
        drain_stderr_until_end(pt, 200);
        return broken(pt, "%s did not answer within %d ms", pt->name, pt->timeout_ms);
    }
    if (pt->connected)
        return broken(pt, "%s closed the connection %s", pt->name, doing);
    char how[160] = "closed its stdout and is still running";
    if (exited_within(pt, PROCESS_EXIT_MS))
        describe_exit(pt, how, sizeof how);
    drain_stderr_until_end(pt, 200);
    return broken(pt, "%s %s %s", pt->name, how, doing);
}

/* How a child that exited without closing its stdout left it: open in a
 * process it started, unless end of file is in fact there. */
static const char *held_open(const process_target *pt)
{
    struct pollfd pf = {.fd = pt->out_fd, .events = POLLIN};
    if (poll(&pf, 1, 0) == 1 && (pf.revents & POLLHUP))
        return "";
    return " (a process it started still holds its stdout open)";
}

/* child_gone for a child that exited while its stdout stays open. */
static int child_gone_held(process_target *pt, const char *doing)
{
    char how[200];
    snprintf(how, sizeof how, "%s%s", doing, held_open(pt));
    return child_gone(pt, how);
}

/* ---- the watchdog ---- */

/* How often the watchdog looks: a tenth of the timeout, within [1, 100] ms,
 * so a timeout fires at most that much late. */
static int watch_tick_ms(const process_target *pt)
{
    int tick = pt->timeout_ms / 10;
    return tick < 1 ? 1 : tick > 100 ? 100 : tick;
}

/* Whether the child has exited (not reaped: its group can still be signalled). */
static bool child_exited(const process_target *pt)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pt->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == pt->pid;
}

static void on_wake(int sig)
{
    (void)sig;
}

/* The handler of PROCESS_WAKE_SIGNAL: it does nothing but end the reader's
 * blocked read(2) or write(2) with EINTR (no SA_RESTART). */
static void wake_signal_install(void)
{
    static bool installed;
    if (installed)
        return;
    struct sigaction sa = {.sa_handler = on_wake};
    sigemptyset(&sa.sa_mask);
    sigaction(PROCESS_WAKE_SIGNAL, &sa, NULL);
    installed = true;
}

/* Whether the watchdog woke the reader: a timeout, or a child that exited
 * while something it started holds its pipes open. */
static bool woken(process_target *pt)
{
    return atomic_load(&pt->timed_out) || atomic_load(&pt->child_ended);
}

static void *watchdog_main(void *arg)
{
    process_target *pt = arg;
    int tick = watch_tick_ms(pt);
    uint64_t seen = 0;
    int64_t since = 0;
    for (;;) {
        struct pollfd pf[2] = {{.fd = pt->stop[0], .events = POLLIN},
                               {.fd = pt->err_fd, .events = POLLIN}};
        int rc = poll(pf, stderr_ended(pt) ? 1 : 2, tick);
        if (rc > 0 && pf[0].revents)
            return NULL;
        if (rc > 0 && pf[1].revents)
            drain_stderr(pt);
        uint64_t now_out = atomic_load_explicit(&pt->outstanding, memory_order_relaxed);
        if (now_out != 0 && !pt->connected && !atomic_load(&pt->child_ended) && child_exited(pt)) {
            /* what it started may still hold its pipes: end of file may never come */
            atomic_store(&pt->child_ended, true);
            kill(-pt->pid, SIGKILL);
        }
        if (now_out != 0 && (atomic_load(&pt->timed_out) || atomic_load(&pt->child_ended))) {
            pthread_mutex_lock(&pt->mu);
            pthread_t reader = pt->reader;
            pthread_mutex_unlock(&pt->mu);
            pthread_kill(reader, PROCESS_WAKE_SIGNAL); /* again each tick: no lost wake-up */
        }
        if (now_out == 0 || now_out != seen) {
            seen = now_out;
            since = now_ms();
        } else if (now_ms() - since >= pt->timeout_ms && !atomic_load(&pt->timed_out)) {
            /* the blocked read or write in the main thread ends at once */
            atomic_store(&pt->timed_out, true);
            if (pt->connected)
                shutdown(pt->in_fd, SHUT_RDWR);
            else
                kill(-pt->pid, SIGKILL);
        }
    }
}

static int watchdog_start(process_target *pt)
{
    if (pipe2(pt->stop, O_CLOEXEC) < 0)
        return -1;
    /* signals (Ctrl-C) go to the main thread, whose read they interrupt */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&pt->watchdog, NULL, watchdog_main, pt);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    pt->watching = true;
    return 0;
}

static void watchdog_stop(process_target *pt)
{
    if (pt->watching) {
        (void)!write(pt->stop[1], "x", 1);
        pthread_join(pt->watchdog, NULL);
        pt->watching = false;
    }
    for (int i = 0; i < 2; i++)
        if (pt->stop[i] >= 0)
            close(pt->stop[i]);
    pt->stop[0] = pt->stop[1] = -1;
}

/* ---- lines ---- */

static int send_line(process_target *pt, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(pt->in_fd, s, n);
        if (w > 0) {
            s += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR && !woken(pt))
            continue;
        if (w < 0 && (errno == EPIPE || errno == ECONNRESET || errno == EINTR)) {
            if (atomic_load(&pt->timed_out))
                return broken(pt, "%s did not read its input within %d ms", pt->name,
                              pt->timeout_ms);
            return child_gone(pt, "before reading the request");
        }
        return broken(pt, "writing to %s failed: %s", pt->name, strerror(errno));
    }
    return TARGET_OK;
}

/* Waits for one answer line; *line points into rbuf until the next call. */
static int recv_line(process_target *pt, const char **line, size_t *len)
{
    size_t scanned = pt->rstart;
    for (;;) {
        char *nl = memchr(pt->rbuf + scanned, '\n', pt->rend - scanned);
        if (nl) {
            *line = pt->rbuf + pt->rstart;
            *len = (size_t)(nl - *line);
            pt->rstart = (size_t)(nl - pt->rbuf) + 1;
            if (pt->rstart == pt->rend)
                pt->rstart = pt->rend = 0;
            return TARGET_OK;
        }
        scanned = pt->rend;
        if (pt->rend == pt->rcap) {
            if (pt->rstart > 0) {
                memmove(pt->rbuf, pt->rbuf + pt->rstart, pt->rend - pt->rstart);
                pt->rend -= pt->rstart;
                scanned -= pt->rstart;
                pt->rstart = 0;
            }
            if (pt->rend == pt->rcap) {
                if (pt->rcap >= PROCESS_LINE_MAX)
                    return broken(pt, "%s wrote an answer line longer than %d MiB", pt->name,
                                  PROCESS_LINE_MAX >> 20);
                char *more = realloc(pt->rbuf, pt->rcap * 2);
                if (!more)
                    return broken(pt, "out of memory reading from %s", pt->name);
                pt->rbuf = more;
                pt->rcap *= 2;
            }
        }
        ssize_t n = read(pt->out_fd, pt->rbuf + pt->rend, pt->rcap - pt->rend);
        if (n > 0)
            pt->rend += (size_t)n;
        else if (n == 0 || (n < 0 && errno == ECONNRESET))
            return child_gone(pt, pt->rend > pt->rstart ? "in the middle of an answer line"
                                                        : "without answering");
        else if (errno != EINTR)
            return broken(pt, "reading from %s failed: %s", pt->name, strerror(errno));
        else if (atomic_load(&pt->timed_out))
            return child_gone(pt, "");
        else if (atomic_load(&pt->child_ended))
            return child_gone_held(pt, pt->rend > pt->rstart ? "in the middle of an answer line"
                                                             : "without answering");
    }
}

/* A short, printable excerpt of a line for messages. */
static void excerpt(const char *s, size_t n, char *out, size_t size)
{
    utf8_sanitize(out, size > 4 ? size - 3 : size, s, n > 120 ? 120 : n);
    if (n > 120 && size > 4)
        strcat(out, "...");
}

static const char empty_answer[] = "{\"ok\":false,\"error\":\"empty request\"}";

/* The calling thread becomes the one the watchdog wakes: with several
 * clients, the thread that dispatches is not the one that opened the target
 * (sessions are opened before the pass), nor the one that verifies after. */
static void bind_reader(process_target *pt)
{
    pthread_t self = pthread_self();
    if (pthread_equal(self, pt->reader))
        return;
    pthread_mutex_lock(&pt->mu);
    pt->reader = self;
    pthread_mutex_unlock(&pt->mu);
}

/* One round trip from the thread bind_reader last bound (the timed path:
 * process_prepare binds, untimed): the line out, an answer line back, its
 * ok read. The answer line is lent in *line until the next round trip. */
static int round_trip_bound(process_target *pt, const char *req, size_t n, const char **line_out,
                            size_t *len_out)
{
    if (pt->broken)
        return TARGET_ERROR;
    atomic_store_explicit(&pt->outstanding, ++pt->seq, memory_order_relaxed);
    const char *line = NULL;
    size_t len = 0;
    int rc = send_line(pt, req, n);
    if (rc == TARGET_OK)
        rc = recv_line(pt, &line, &len);
    atomic_store_explicit(&pt->outstanding, 0, memory_order_relaxed);
    if (rc != TARGET_OK)
        return rc;
    if (line_out) {
        *line_out = line;
        *len_out = len;
    }
    if (pt->rend > pt->rstart) {
        char ex[160];
        excerpt(pt->rbuf + pt->rstart, pt->rend - pt->rstart, ex, sizeof ex);
        drain_stderr(pt);
        return broken(pt, "%s wrote more than one line for one request: '%s'", pt->name, ex);
    }
    /* the floor probe's answer, as bench serve writes it, without parsing */
    if (len == sizeof empty_answer - 1 && !memcmp(line, empty_answer, len)) {
        memcpy(pt->base.message, "empty request", sizeof "empty request");
        return TARGET_REFUSED;
    }
    int ok = json_answer_read(line, len, pt->base.message, sizeof pt->base.message);
    if (ok == 1)
        return TARGET_OK;
    if (ok == 0)
        return TARGET_REFUSED;
    char ex[160];
    excerpt(line, len, ex, sizeof ex);
    drain_stderr(pt);
    return broken(pt, "%s answered something that is not a protocol line: '%s'", pt->name, ex);
}

/* One round trip from any thread. */
static int round_trip(process_target *pt, const char *req, size_t n, const char **line_out,
                      size_t *len_out)
{
    bind_reader(pt);
    return round_trip_bound(pt, req, n, line_out, len_out);
}

/* A line no request asked for: bytes left after the answer, or (waiting up
 * to ms for them) arriving after it. Fails the run quoting them; TARGET_OK
 * when there are none (or the child closed its output: the next round
 * trip says how it ended). */
static int stray_line(process_target *pt, int ms)
{
    if (pt->rend == pt->rstart) {
        struct pollfd pf = {.fd = pt->out_fd, .events = POLLIN};
        int rc;
        while ((rc = poll(&pf, 1, ms)) < 0 && errno == EINTR)
            ;
        if (rc <= 0 || !(pf.revents & POLLIN) || pt->rend == pt->rcap)
            return TARGET_OK;
        ssize_t n;
        while ((n = read(pt->out_fd, pt->rbuf + pt->rend, pt->rcap - pt->rend)) < 0 &&
               errno == EINTR)
            ;
        if (n <= 0)
            return TARGET_OK;
        pt->rend += (size_t)n;
    }
    char ex[160];
    excerpt(pt->rbuf + pt->rstart, pt->rend - pt->rstart, ex, sizeof ex);
    drain_stderr(pt);
    return broken(pt, "%s wrote more than one line for one request: '%s'", pt->name, ex);
}

/* The whole line s[0..n) as JSON (nothing after the object but spaces), or
 * NULL when it is not one. The caller's, to cJSON_Delete. */
static cJSON *parse_whole(const char *s, size_t n)
{
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(s, n, &end, false);
    if (!cJSON_IsObject(root) || !cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(root, "ok"))) {
        cJSON_Delete(root);
        return NULL;
    }
    for (; end && end < s + n; end++)
        if (*end != ' ' && *end != '\t' && *end != '\r') {
            cJSON_Delete(root);
            return NULL;
        }
    return root;
}

static int not_protocol(process_target *pt, const char *line, size_t len)
{
    char ex[160];
    excerpt(line, len, ex, sizeof ex);
    drain_stderr(pt);
    return broken(pt, "%s answered something that is not a protocol line: '%s'", pt->name, ex);
}

/* The names of an answer's events, "A, B", into b; -1 when events is not an
 * array of objects with a name. */
static int event_names(const cJSON *events, jline *b)
{
    const cJSON *ev;
    if (!cJSON_IsArray(events))
        return -1;
    cJSON_ArrayForEach(ev, events)
    {
        const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(ev, "name"));
        if (!cJSON_IsObject(ev) || !name)
            return -1;
        if (b->len)
            jline_puts(b, ", ");
        jline_puts(b, name);
    }
    return 0;
}

/* A query's returns from its answer root, decoded as q->returns into
 * pt->answer (a scan's rows as q->rows); the run fails when they are
 * missing or are not the query's, or a scan answers more rows than its
 * limit. */
static int take_returns(process_target *pt, const command *q, const cJSON *root)
{
    const char *key = q->scan ? "rows" : "returns";
    const cJSON *ret = cJSON_GetObjectItemCaseSensitive(root, key);
    bool shaped = q->scan ? cJSON_IsArray(ret) : cJSON_IsObject(ret);
    char *text = shaped ? cJSON_PrintUnformatted(ret) : NULL;
    if (!text)
        return broken(pt, "%s answered the %s %s without a %s %s", pt->name,
                      q->scan ? "scan" : "query", q->verb, key, q->scan ? "array" : "object");
    const ty *t = q->scan ? q->rows : q->returns;
    char why[512];
    arena_reset(&pt->answer_mem);
    value got;
    int rc = json_decode(text, strlen(text), t, "", &pt->answer_mem, &got, why, sizeof why);
    if (rc == 0) {
        pt->answer = value_copy(&pt->answer_mem, &got); /* its strings point into text */
        rc = value_check(t, &pt->answer, "", why, sizeof why);
    }
    free(text);
    if (rc < 0)
        return broken(pt, "%s answered %s with %s that are not the %s's: %s", pt->name, q->verb,
                      key, q->scan ? "scan" : "query", why);
    if (q->scan && pt->answer.len > pt->scan_limit)
        return broken(pt, "%s answered %s with %" PRIu32 " rows; its limit was %" PRId64, pt->name,
                      q->verb, pt->answer.len, pt->scan_limit);
    pt->has_answer = true;
    return TARGET_OK;
}

/* A success answer in full: it parses, its events (when it gives them) are
 * the command's, and a query's returns are the query's. A command's answer
 * in the shape bench serve writes is read by json_answer_events; any other
 * line by cJSON. */
static int check_answer(process_target *pt, const command *cmd, const char *line, size_t len)
{
    jline *got = &pt->got;
    got->len = 0;
    /* the request's args, which bench serve echoes as a payload */
    size_t at = pt->prefix_len[cmd->index];
    const char *sent = pt->req_of == cmd && pt->req.len > at + 2 ? pt->req.data + at : NULL;
    bool events = !cmd->query &&
                  json_answer_events(line, len, got, sent, sent ? pt->req.len - at - 2 : 0) == 1;
    int bad = 0;
    if (!events) {
        cJSON *root = parse_whole(line, len);
        if (!root)
            return not_protocol(pt, line, len);
        if (cmd->query && take_returns(pt, cmd, root) != TARGET_OK) {
            cJSON_Delete(root);
            return TARGET_ERROR;
        }
        const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "events");
        events = list != NULL;
        bad = events ? event_names(list, got) : 0;
        cJSON_Delete(root);
    }
    const char *want = pt->emits.data + pt->emits_at[cmd->index];
    size_t want_len = pt->emits_len[cmd->index];
    bool head = pt->emits_head[cmd->index]; /* got must start with want, at a name */
    size_t cut = head && got->len > want_len && got->data[want_len] == ',' ? want_len : got->len;
    if (bad < 0)
        return not_protocol(pt, line, len);
    if (events && (cut != want_len || (want_len && memcmp(got->data, want, want_len) != 0))) {
        /* answers out of step with the requests show as one line too many */
        char msg[TARGET_MESSAGE_MAX];
        snprintf(msg, sizeof msg,
                 "%s answered %s with the events [%.*s]; the command emits [%.*s%s]", pt->name,
                 cmd->verb, (int)(got->len > 300 ? 300 : got->len), got->len ? got->data : "",
                 (int)want_len, want, head ? ", ..." : "");
        int rc = stray_line(pt, PROCESS_LATE_MS);
        return rc == TARGET_OK ? broken(pt, "%s", msg) : rc;
    }
    return TARGET_OK;
}

static int process_answer(target *t, const value **out)
{
    process_target *pt = (process_target *)t;
    *out = pt->has_answer ? &pt->answer : NULL;
    return *out ? TARGET_OK : target_fail(t, TARGET_ERROR, "the last dispatch gave no answer");
}

static int process_settle(target *t, const command *cmd)
{
    process_target *pt = (process_target *)t;
    if (pt->broken)
        return TARGET_ERROR;
    bool answered = pt->answered;
    pt->answered = false;
    int rc = stray_line(pt, 0);
    if (rc == TARGET_OK && answered)
        rc = check_answer(pt, cmd, pt->rbuf + pt->last_at, pt->last_len);
    return rc;
}

/* ---- the driver ---- */

static void process_close(target *t)
{
    process_target *pt = (process_target *)t;
    if (pt->connected)
        watchdog_stop(pt); /* first: it may shut the socket down */
    if (pt->in_fd >= 0)
        close(pt->in_fd); /* end of input: a well-behaved runtime exits now */
    if (pt->pid > 0 && !pt->reaped) {
        /* the watchdog still drains stderr meanwhile, so the child cannot block on it */
        if (!exited_within(pt, pt->broken ? 0 : PROCESS_GRACE_MS)) {
            kill(-pt->pid, SIGTERM);
            exited_within(pt, PROCESS_TERM_MS);
        }
    }
    watchdog_stop(pt); /* before reaping: it may signal the child's group */
    if (pt->pid > 0)
        reap(pt);
    if (pt->out_fd >= 0 && !pt->connected)
        close(pt->out_fd);
    if (pt->err_fd >= 0)
        close(pt->err_fd);
    pthread_mutex_destroy(&pt->mu);
    jline_free(&pt->req);
    for (size_t i = 0; i < pt->nkept; i++)
        json_kept_free(&pt->kept[i].k);
    jline_free(&pt->prefixes);
    free(pt->prefix_at);
    free(pt->prefix_len);
    jline_free(&pt->emits);
    jline_free(&pt->got);
    free(pt->emits_at);
    free(pt->emits_len);
    free(pt->emits_head);
    free(pt->rbuf);
    cJSON_Delete(pt->instances);
    arena_free(&pt->answer_mem);
    free(pt);
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void start_child(char *const *argv, int in, int out, int err, int status, pid_t parent)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) /* bench died before prctl took effect */
        _exit(127);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL); /* bench ignores it; an ignored signal survives exec */
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    /* move the pipe ends clear of 0..2 first, so no dup2 clobbers another */
    in = fcntl(in, F_DUPFD_CLOEXEC, 10);
    out = fcntl(out, F_DUPFD_CLOEXEC, 10);
    err = fcntl(err, F_DUPFD_CLOEXEC, 10);
    if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) {
        int e = errno;
        (void)!write(status, &e, sizeof e);
        _exit(127);
    }
    execvp(argv[0], argv);
    int e = errno;
    (void)!write(status, &e, sizeof e);
    _exit(127);
}

static void close_pair(int fds[2])
{
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
}

/* The request prefix of every command ({"verb":...,"args":) and query
 * ({"query":...,"args":), with the spec's verb renames. */
static void build_prefixes(process_target *pt, const target_spec *spec)
{
    const plan *p = pt->p;
    pt->prefix_at = xcalloc(p->ncommands + 1, sizeof *pt->prefix_at);
    pt->prefix_len = xcalloc(p->ncommands + 1, sizeof *pt->prefix_len);
    const target_opt_value *renames = target_opt_given(spec, "verbs");
    const char *prefix = target_opt_str(spec, "verb_prefix");
    jline name = {0};
    for (size_t i = 0; i < p->ncommands; i++) {
        const char *verb = p->commands[i]->verb;
        bool renamed = false;
        for (size_t k = 0; renames && k < renames->n; k++)
            if (!strcmp(renames->keys[k], verb)) {
                verb = renames->vals[k];
                renamed = true;
            }
        name.len = 0;
        if (prefix && !renamed) /* a rename is the whole name the runtime expects */
            jline_puts(&name, prefix);
        jline_puts(&name, verb);
        pt->prefix_at[i] = pt->prefixes.len;
        jline_puts(&pt->prefixes, p->commands[i]->query ? "{\"query\":" : "{\"verb\":");
        json_put_string(&pt->prefixes, name.data, name.len);
        jline_puts(&pt->prefixes, ",\"args\":");
        pt->prefix_len[i] = pt->prefixes.len - pt->prefix_at[i];
    }
    jline_free(&name);
}

/* The events a success of cmd emits, as the C runtime does: its own, then
 * each policy's command's, depth first. Up to a for_each policy whose
 * command emits: how often it does is the list's; returns false there. */
static bool put_emits(jline *b, size_t start, const command *cmd, int depth)
{
    const event_def *ev = cmd->event;
    if (!ev || depth > PLAN_POLICY_MAX_DEPTH)
        return true;
    if (b->len > start)
        jline_puts(b, ", ");
    jline_puts(b, ev->name);
    for (size_t i = 0; i < ev->npolicies; i++)
        if ((ev->policies[i]->for_each && ev->policies[i]->run->event) ||
            !put_emits(b, start, ev->policies[i]->run, depth + 1))
            return false;
    return true;
}

static void build_emits(process_target *pt)
{
    const plan *p = pt->p;
    pt->emits_at = xcalloc(p->ncommands + 1, sizeof *pt->emits_at);
    pt->emits_len = xcalloc(p->ncommands + 1, sizeof *pt->emits_len);
    pt->emits_head = xcalloc(p->ncommands + 1, sizeof *pt->emits_head);
    jline_reserve(&pt->emits, 1);
    for (size_t i = 0; i < p->ncommands; i++) {
        pt->emits_at[i] = pt->emits.len;
        pt->emits_head[i] = !put_emits(&pt->emits, pt->emits.len, p->commands[i], 0);
        pt->emits_len[i] = pt->emits.len - pt->emits_at[i];
    }
}

static void program_name(process_target *pt, const char *argv0, bool is_default)
{
    const char *slash = strrchr(argv0, '/');
    snprintf(pt->name, sizeof pt->name, "%s%s", slash ? slash + 1 : argv0,
             is_default ? " serve" : "");
}

/* Starts the runtime of spec (its command, or bench serve SPEC) as the
 * child, with pipes for its stdin, stdout and stderr. */
static int start_runtime(process_target *pt, const target_spec *spec, char *err, size_t size)
{
    char self[PATH_MAX];
    const char *def[4] = {self, "serve", pt->p->path, NULL};
    const char *const *given = target_opt_argv(spec, "command");
    const char *const *argv = given && given[0] ? given : def;
    if (argv == def && self_path(self, sizeof self) < 0) {
        snprintf(err, size, "bench cannot find its own executable to run `bench serve`");
        return TARGET_ERROR;
    }
    program_name(pt, argv[0], argv == def);

    int in[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1}, st[2] = {-1, -1};
    if (pipe2(in, O_CLOEXEC) < 0 || pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0 ||
        pipe2(st, O_CLOEXEC) < 0) {
        char why[128];
        snprintf(err, size, "cannot make pipes for %s: %s", pt->name,
                 err_errno_text(errno, why, sizeof why));
        close_pair(in), close_pair(outp), close_pair(errp), close_pair(st);
        return TARGET_ERROR;
    }
    fflush(NULL); /* nothing buffered may be written twice */
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        start_child((char *const *)argv, in[0], outp[1], errp[1], st[1], parent);
    int fork_errno = errno;
    close(in[0]), close(outp[1]), close(errp[1]), close(st[1]);
    pt->in_fd = in[1], pt->out_fd = outp[0], pt->err_fd = errp[0];
    if (pid < 0) {
        close(st[0]);
        snprintf(err, size, "cannot start %s: %s", pt->name, strerror(fork_errno));
        return TARGET_ERROR;
    }
    pt->pid = pid;
    setpgid(pid, pid); /* as the child does: whichever runs first */
    int exec_errno = 0;
    ssize_t n;
    while ((n = read(st[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(st[0]);
    if (n > 0) {
        snprintf(err, size, "cannot start %s: %s", argv[0], strerror(exec_errno));
        pt->broken = true;
        return TARGET_ERROR;
    }
    fcntl(pt->err_fd, F_SETFL, O_NONBLOCK);
    return TARGET_OK;
}

/* Connects to the server of the connect option. */
static int connect_server(process_target *pt, const target_spec *spec, char *err, size_t size)
{
    endpoint e;
    if (connect_endpoint(spec, &e, err, size) < 0)
        return TARGET_ERROR;
    char addr[ENDPOINT_PATH_MAX + 32];
    endpoint_format(&e, addr, sizeof addr);
    snprintf(pt->name, sizeof pt->name, "the server at %s", addr);
    int fd = endpoint_connect(&e);
    if (fd < 0) {
        char why[128];
        snprintf(err, size, "cannot connect to %s: %s", addr,
                 err_errno_text(errno, why, sizeof why));
        return TARGET_ERROR;
    }
    pt->connected = true;
    pt->in_fd = pt->out_fd = fd;
    pt->err_end = true; /* a server's stderr is not ours to keep */
    return TARGET_OK;
}

/* {"reset":true}: the server's store emptied, so that verify holds it to
 * this run's commands alone. */
static int reset_server(process_target *pt, char *err, size_t size)
{
    static const char req[] = "{\"reset\":true}\n";
    int rc = round_trip(pt, req, sizeof req - 1, NULL, NULL);
    if (rc == TARGET_OK)
        rc = stray_line(pt, 0);
    if (rc == TARGET_REFUSED)
        snprintf(err, size,
                 "%s refused to reset its store (%s); each run needs the server to itself, or the "
                 "process target's reset: false",
                 pt->name, pt->base.message);
    else if (rc != TARGET_OK)
        snprintf(err, size, "%s", pt->base.message);
    return rc == TARGET_OK ? TARGET_OK : TARGET_ERROR;
}

/* One child, or one connection to the server (asked to reset its store
 * when `reset`: the run's first connection only). */
static int open_one(const target_driver *drv, const plan *p, const target_spec *spec, bool reset,
                    target **out, char *err, size_t size)
{
    *out = NULL;
    static bool sigpipe_ignored;
    if (!sigpipe_ignored) { /* a child that exits must not kill bench with SIGPIPE */
        signal(SIGPIPE, SIG_IGN);
        sigpipe_ignored = true;
    }
    process_target *pt = calloc(1, sizeof *pt);
    if (!pt) {
        snprintf(err, size, "process: out of memory");
        return TARGET_ERROR;
    }
    pt->base.driver = drv;
    pt->base.spec = spec;
    pt->p = p;
    pt->in_fd = pt->out_fd = pt->err_fd = -1;
    pt->stop[0] = pt->stop[1] = -1;
    pthread_mutex_init(&pt->mu, NULL);
    pt->reader = pthread_self();
    wake_signal_install();
    int64_t timeout_ms = target_opt_int(spec, "timeout_ms", PROCESS_TIMEOUT_MS);
    pt->timeout_ms = timeout_ms > 0 && timeout_ms < INT_MAX ? (int)timeout_ms : PROCESS_TIMEOUT_MS;
    pt->rcap = (size_t)64 * 1024;
    pt->rbuf = xmalloc(pt->rcap);
    jline_reserve(&pt->req, 4096);
    build_prefixes(pt, spec);
    build_emits(pt);
    bool connect = target_opt_str(spec, "connect") != NULL;
    int rc = connect ? connect_server(pt, spec, err, size) : start_runtime(pt, spec, err, size);
    if (rc == TARGET_OK && watchdog_start(pt) < 0) {
        snprintf(err, size, "cannot start a watchdog thread for %s: %s", pt->name, strerror(errno));
        pt->broken = true;
        rc = TARGET_ERROR;
    }
    if (rc == TARGET_OK && connect && reset)
        rc = reset_server(pt, err, size);
    if (rc != TARGET_OK) {
        process_close(&pt->base);
        return TARGET_ERROR;
    }
    *out = &pt->base;
    return TARGET_OK;
}

static int process_open(const target_driver *drv, const plan *p, const target_spec *spec, int run,
                        target **out, char *err, size_t size)
{
    (void)run;
    return open_one(drv, p, spec, target_opt_bool(spec, "reset"), out, err, size);
}

/* A client's session: a child of its own (its own store, as the seed's
 * --serve has), or with connect another connection to the same server,
 * which only the run's first connection asked to reset. */
static int process_session(target *t, int client, target **out, char *err, size_t size)
{
    (void)client;
    process_target *owner = (process_target *)t;
    int rc = open_one(t->driver, owner->p, t->spec, false, out, err, size);
    if (rc == TARGET_OK)
        (*out)->own_store = !owner->connected;
    return rc;
}

/* The constant arguments' JSON kept for this step instance (its args'
 * address), made room for when new; NULL when the table is full. */
static json_kept *kept_for(process_target *pt, const command *cmd, const value *args)
{
    for (size_t i = 0; i < pt->nkept; i++)
        if (pt->kept[i].args == args && pt->kept[i].cmd == cmd)
            return &pt->kept[i].k;
    if (pt->nkept == PROCESS_KEPT)
        return NULL;
    pt->kept[pt->nkept] = (struct kept_args){.args = args, .cmd = cmd};
    return &pt->kept[pt->nkept++].k;
}

static int process_prepare(target *t, const command *cmd, const value *args)
{
    process_target *pt = (process_target *)t;
    bind_reader(pt);     /* the dispatch that follows is this thread's */
    if (pt->instances) { /* a command may change the store: read it afresh */
        cJSON_Delete(pt->instances);
        pt->instances = NULL;
    }
    pt->has_answer = false;
    pt->scan_limit = cmd->scan ? args->u.items[cmd->scan_limit].u.i : 0;
    jline *b = &pt->req;
    b->len = 0;
    pt->req_of = NULL;
    jline_put(b, pt->prefixes.data + pt->prefix_at[cmd->index], pt->prefix_len[cmd->index]);
    json_kept *k = t->args_checked ? kept_for(pt, cmd, args) : NULL;
    if (k)
        json_put_struct_kept(b, cmd->params, args, t->args_checked, k);
    else
        json_put_value(b, cmd->params, args);
    jline_put(b, "}\n", 2);
    pt->req_of = cmd;
    return TARGET_OK;
}

static int process_dispatch(target *t, const command *cmd, const value *args)
{
    (void)cmd, (void)args; /* prepare encoded them */
    process_target *pt = (process_target *)t;
    const char *line;
    size_t len;
    int rc = round_trip_bound(pt, pt->req.data, pt->req.len, &line, &len);
    if (rc == TARGET_OK) { /* settle reads the rest of it, untimed */
        pt->answered = true;
        pt->last_at = (size_t)(line - pt->rbuf);
        pt->last_len = len;
    }
    return rc;
}

/* The floor probe must be refused: a runtime that answers ok to {} is not
 * measuring a bare round trip, and its floor would mean nothing. */
static int process_probe(target *t)
{
    process_target *pt = (process_target *)t;
    int rc = round_trip(pt, "{}\n", 3, NULL, NULL);
    if (rc == TARGET_OK)
        return target_fail(t, TARGET_ERROR,
                           "%s answered ok to the floor probe {}, which the protocol says it "
                           "refuses at once",
                           pt->name);
    return rc;
}

/* The count of name in obj: 0 when absent; -1 when not a whole number. */
static int count_of(const cJSON *obj, const char *name, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    *out = 0;
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9e15 ||
        v->valuedouble != (double)(uint64_t)v->valuedouble)
        return -1;
    *out = (uint64_t)v->valuedouble;
    return 0;
}

static int process_count(target *t, uint64_t *aggs, uint64_t *events)
{
    process_target *pt = (process_target *)t;
    static const char req[] = "{\"count\":true}\n";
    const char *line;
    size_t len;
    int rc = round_trip(pt, req, sizeof req - 1, &line, &len);
    if (rc == TARGET_REFUSED) {
        err_prefix_buf(t->message, sizeof t->message,
                       "%s does not answer the count request: ", pt->name);
        return TARGET_UNSUPPORTED;
    }
    if (rc != TARGET_OK)
        return rc;
    cJSON *root = parse_whole(line, len);
    const cJSON *ag = cJSON_GetObjectItemCaseSensitive(root, "aggregates");
    const cJSON *ev = cJSON_GetObjectItemCaseSensitive(root, "events");
    const plan *p = pt->p;
    bool bad = !cJSON_IsObject(ag) || !cJSON_IsObject(ev);
    for (size_t i = 0; !bad && i < p->naggs; i++)
        bad = count_of(ag, p->aggs[i].name, &aggs[i]) < 0;
    for (size_t i = 0; !bad && i < p->nevents; i++)
        bad = count_of(ev, p->events[i].name, &events[i]) < 0;
    cJSON_Delete(root);
    if (bad) {
        char ex[160];
        excerpt(line, len, ex, sizeof ex);
        return broken(pt,
                      "%s answered the count request without aggregates and events as objects of "
                      "counts: '%s'",
                      pt->name, ex);
    }
    return stray_line(pt, 0);
}

/* ---- reading back from the instances dump ---- */

/* A record as the instances dump holds it, in the spec's shape: the fields
 * the spec declares (the runtime's store may hold more: those are left
 * out), and a value object where the spec declares a scalar read as its
 * first member ({"value":"pizza-1"}, {"cents":100,"currency":"USD"}). */
static cJSON *spec_shape(const ty *t, const cJSON *v)
{
    if (t->kind == TY_STRUCT && cJSON_IsObject(v)) {
        cJSON *o = cJSON_CreateObject();
        for (size_t i = 0; i < t->nfields; i++) {
            const cJSON *m = cJSON_GetObjectItemCaseSensitive(v, t->fields[i].name);
            if (m && !cJSON_IsNull(m))
                cJSON_AddItemToObject(o, t->fields[i].name, spec_shape(t->fields[i].type, m));
        }
        return o;
    }
    if (t->kind == TY_LIST && cJSON_IsArray(v)) {
        cJSON *l = cJSON_CreateArray();
        const cJSON *item;
        cJSON_ArrayForEach(item, v)
        {
            cJSON_AddItemToArray(l, spec_shape(t->elem, item));
        }
        return l;
    }
    while (t->kind != TY_STRUCT && t->kind != TY_LIST && cJSON_IsObject(v) && v->child)
        v = v->child;
    return cJSON_Duplicate(v, true);
}

/* Asks for the instances dump once per read-back pass (a command drops it). */
static int fetch_instances(process_target *pt)
{
    static const char req[] = "{\"instances\":true}\n";
    const char *line;
    size_t len;
    int rc = round_trip(pt, req, sizeof req - 1, &line, &len);
    if (rc == TARGET_OK && (rc = stray_line(pt, 0)) == TARGET_OK) {
        cJSON *root = parse_whole(line, len);
        if (!root)
            return not_protocol(pt, line, len);
        pt->instances = cJSON_DetachItemFromObjectCaseSensitive(root, "instances");
        cJSON_Delete(root);
        if (cJSON_IsObject(pt->instances))
            return TARGET_OK;
        cJSON_Delete(pt->instances);
        pt->instances = NULL;
        rc = TARGET_REFUSED;
        snprintf(pt->base.message, sizeof pt->base.message, "its answer has no instances object");
    }
    if (rc != TARGET_REFUSED)
        return rc;
    pt->no_instances = true;
    err_prefix_buf(pt->base.message, sizeof pt->base.message,
                   "%s answers neither the record request nor the instances request: ", pt->name);
    return TARGET_UNSUPPORTED;
}

/* Decodes a record's JSON text (malloc'd; freed here) as an agg record into
 * *out, in a. Returns 1, or TARGET_ERROR naming the request it answered. */
static int decode_record(process_target *pt, const aggregate *agg, char *text, const char *request,
                         arena *a, value *out)
{
    char why[512];
    value got;
    int drc = json_decode(text, strlen(text), agg->state, "", a, &got, why, sizeof why);
    if (drc == 0)
        *out = value_copy(a, &got); /* its strings point into text */
    free(text);
    if (drc < 0)
        return broken(pt, "%s answered the %s request with a record that is not an %s: %s",
                      pt->name, request, agg->name, why);
    return 1;
}

/* The instances form of the read back (the seed framework's --serve): the
 * dump is an object of "Domain::Aggregate#id" (or "Aggregate#id") to the
 * record. Returns as process_read does. */
static int read_instance(process_target *pt, const aggregate *agg, const value *key, arena *a,
                         value *out)
{
    if (pt->no_instances)
        return TARGET_UNSUPPORTED;
    if (!pt->instances) {
        int rc = fetch_instances(pt);
        if (rc != TARGET_OK)
            return rc;
    }
    jline id = {0};
    json_put_value(&id, agg->state->fields[agg->identity].type, key);
    jline_put(&id, "", 1);
    cJSON *idv = cJSON_Parse(id.data);
    jline want = {0};
    jline_puts(&want, agg->name);
    jline_puts(&want, "#");
    if (cJSON_IsString(idv))
        jline_puts(&want, idv->valuestring);
    else
        jline_put(&want, id.data, strlen(id.data));
    cJSON_Delete(idv);
    jline_free(&id);
    const cJSON *rec = NULL, *it;
    cJSON_ArrayForEach(it, pt->instances)
    {
        size_t n = strlen(it->string);
        if (n >= want.len && !memcmp(it->string + n - want.len, want.data, want.len) &&
            (n == want.len ||
             (n >= want.len + 2 && !memcmp(it->string + n - want.len - 2, "::", 2)))) {
            rec = it;
            break;
        }
    }
    jline_free(&want);
    if (!rec)
        return 0;
    cJSON *shaped = spec_shape(agg->state, rec);
    char *text = cJSON_PrintUnformatted(shaped);
    cJSON_Delete(shaped);
    if (!text)
        return broken(pt, "out of memory reading %s's instances", pt->name);
    return decode_record(pt, agg, text, "instances", a, out);
}

/* The record request: {"record":{"aggregate":"Order","id":...}}. */
static int process_read(target *t, const aggregate *agg, const value *key, arena *a, value *out)
{
    process_target *pt = (process_target *)t;
    if (pt->no_record)
        return read_instance(pt, agg, key, a, out);
    jline *b = &pt->req;
    b->len = 0;
    pt->req_of = NULL;
    jline_puts(b, "{\"record\":{\"aggregate\":");
    json_put_string(b, agg->name, strlen(agg->name));
    jline_puts(b, ",\"id\":");
    json_put_value(b, agg->state->fields[agg->identity].type, key);
    jline_put(b, "}}\n", 3);
    const char *line;
    size_t len;
    int rc = round_trip(pt, b->data, b->len, &line, &len);
    if (rc == TARGET_REFUSED && !strcmp(t->message, "no such record"))
        return stray_line(pt, 0) == TARGET_OK ? 0 : TARGET_ERROR;
    if (rc == TARGET_OK && (rc = stray_line(pt, 0)) == TARGET_OK) {
        cJSON *root = parse_whole(line, len);
        if (!root)
            return not_protocol(pt, line, len);
        const cJSON *rec = cJSON_GetObjectItemCaseSensitive(root, "record");
        char *text = cJSON_IsObject(rec) ? cJSON_PrintUnformatted(rec) : NULL;
        cJSON_Delete(root);
        if (text)
            return decode_record(pt, agg, text, "record", a, out);
        rc = TARGET_REFUSED; /* a success without a record: it does not know the request */
        snprintf(t->message, sizeof t->message, "its answer has no record");
    }
    if (rc != TARGET_REFUSED)
        return rc;
    pt->no_record = true;
    err_prefix_buf(t->message, sizeof t->message,
                   "%s does not answer the record request: ", pt->name);
    return read_instance(pt, agg, key, a, out);
}

static const target_option process_options[] = {
    {.name = "command",
     .type = TARGET_OPT_ARGV,
     .about = "the runtime to start, as argv; default bench serve SPEC"},
    {.name = "verbs",
     .type = TARGET_OPT_VERBS,
     .about = "verb renames: Aggregate.Command to the name the runtime expects"},
    {.name = "verb_prefix",
     .type = TARGET_OPT_STRING,
     .about = "put before every verb not renamed: \"Pizzas::\" sends Pizzas::Order.CreatePizza"},
    {.name = "connect",
     .type = TARGET_OPT_STRING,
     .excludes = "command",
     .check = connect_check,
     .about = "a running server to connect to instead of starting a child: unix:PATH or "
              "tcp:127.0.0.1:PORT (bench serve SPEC --listen ADDR is one)"},
    {.name = "reset",
     .type = TARGET_OPT_BOOL,
     .dflt = "true",
     .about = "with connect: ask the server to empty its store ({\"reset\":true}) as each run "
              "starts, so that verify holds it to that run's commands"},
    {.name = "timeout_ms",
     .type = TARGET_OPT_INT,
     .dflt = TEXT(PROCESS_TIMEOUT_MS),
     .min = 1,
     .about = "how long one command may take before the run fails, in milliseconds"},
};

const target_driver process_target_driver = {
    .version = TARGET_DRIVER_VERSION,
    .name = "process",
    .about = "any runtime speaking schema/protocol.md on stdin/stdout (default: bench serve "
             "SPEC), or a server it connects to",
    .options = process_options,
    .noptions = sizeof process_options / sizeof *process_options,
    .caps = TARGET_CAN_COUNT | TARGET_CAN_READ_BACK | TARGET_CAN_PROBE | TARGET_CAN_QUERY |
            TARGET_CAN_SCAN | TARGET_CAN_SESSIONS | TARGET_ONE_CPU,
    .available = process_available,
    .open = process_open,
    .prepare = process_prepare,
    .dispatch = process_dispatch,
    .count = process_count,
    .read = process_read,
    .settle = process_settle,
    .probe = process_probe,
    .answer = process_answer,
    .session = process_session,
    .close = process_close,
};
