/* env.c: what the report says about the machine and the build. Everything
 * read from /proc, /sys or /etc is optional: a missing file is "unknown". */
#define _GNU_SOURCE /* sched_getaffinity, CPU_ALLOC */
#include "env.h"

#include "clock.h"

#include <errno.h>
#include <math.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <yaml.h>
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>

/* CMake defines these; a build without it still compiles and says so. */
#ifndef BENCH_VERSION
#define BENCH_VERSION "unknown"
#endif
#ifndef BENCH_BUILD_TYPE
#define BENCH_BUILD_TYPE "unknown"
#endif
#ifndef BENCH_SANITIZERS
#if defined(__SANITIZE_ADDRESS__)
#define BENCH_SANITIZERS "address"
#else
#define BENCH_SANITIZERS "off"
#endif
#endif

#if defined(__clang__)
#define ENV_COMPILER __VERSION__ /* "Debian Clang 14.0.6" */
#elif defined(__GNUC__)
#define ENV_COMPILER "gcc " __VERSION__
#else
#define ENV_COMPILER "unknown"
#endif

#ifdef __OPTIMIZE__
#define ENV_OPTIMISED "optimised"
#else
#define ENV_OPTIMISED "not optimised"
#endif
#ifdef NDEBUG
#define ENV_ASSERTS "assertions off"
#else
#define ENV_ASSERTS "assertions on"
#endif

static const char unknown[] = "unknown";

/* Strips leading and trailing white space in place; returns s. */
static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
        s++;
    size_t len = strlen(s);
    while (len > 0 && strchr(" \t\r\n", s[len - 1]))
        s[--len] = '\0';
    return s;
}

static void set(char *dst, size_t n, const char *src)
{
    snprintf(dst, n, "%s", src && *src ? src : unknown);
}

/* The first line of path, trimmed, into buf[n]; "unknown" if unreadable. */
static void read_first_line(const char *path, char *buf, size_t n)
{
    char line[512] = "";
    FILE *f = fopen(path, "r");
    if (f) {
        if (!fgets(line, sizeof line, f))
            line[0] = '\0';
        fclose(f);
    }
    set(buf, n, trim(line));
}

/* The value of the first "key : value" line of /proc/cpuinfo whose key is the
 * earliest of keys that occurs (x86 says "model name", many ARM boards
 * "Hardware" or "Model"). */
static void cpu_model(char *buf, size_t n)
{
    static const char *const keys[] = {"model name", "Model", "Hardware", "cpu model", "cpu"};
    enum { NKEYS = sizeof keys / sizeof keys[0] };
    char found[NKEYS][256] = {{0}};
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[1024];
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (!colon)
                continue;
            *colon = '\0';
            const char *key = trim(line), *value = trim(colon + 1);
            for (size_t k = 0; k < NKEYS; k++)
                if (!found[k][0] && strcmp(key, keys[k]) == 0)
                    snprintf(found[k], sizeof found[k], "%s", value);
        }
        fclose(f);
    }
    for (size_t k = 0; k < NKEYS; k++)
        if (found[k][0]) {
            set(buf, n, found[k]);
            return;
        }
    set(buf, n, unknown);
}

static uint64_t memory_bytes(void)
{
    uint64_t kib = 0;
    FILE *f = fopen("/proc/meminfo", "r");
    if (f) {
        char line[256];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "MemTotal:", 9) == 0) {
                kib = strtoull(line + 9, NULL, 10);
                break;
            }
        fclose(f);
    }
    if (kib > 0)
        return kib * 1024;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}

/* PRETTY_NAME of os-release, unquoted. */
static void os_name(char *buf, size_t n, const struct utsname *u, bool have_uname)
{
    static const char *const paths[] = {"/etc/os-release", "/usr/lib/os-release"};
    for (size_t p = 0; p < 2; p++) {
        FILE *f = fopen(paths[p], "r");
        if (!f)
            continue;
        char line[512];
        bool found = false;
        while (!found && fgets(line, sizeof line, f)) {
            if (strncmp(line, "PRETTY_NAME=", 12) != 0)
                continue;
            char *v = trim(line + 12);
            size_t len = strlen(v);
            if (len >= 2 && (v[0] == '"' || v[0] == '\'') && v[len - 1] == v[0]) {
                v[len - 1] = '\0';
                v++;
            }
            if (*v) {
                set(buf, n, v);
                found = true;
            }
        }
        fclose(f);
        if (found)
            return;
    }
    set(buf, n, have_uname ? u->sysname : unknown);
}

static void library_versions(char *buf, size_t n)
{
    char pcre[64] = "unknown";
    if (pcre2_config(PCRE2_CONFIG_VERSION, NULL) <= (int)sizeof pcre)
        pcre2_config(PCRE2_CONFIG_VERSION, pcre);
    pcre[strcspn(pcre, " ")] = '\0'; /* "10.42 2022-12-11": the date is noise here */
    /* libpq is not named here: the postgres target loads it (dlopen) only when
     * it runs, since loading it with its TLS and Kerberos libraries would cost
     * every bench command milliseconds of start-up; env_add_postgres adds it */
    snprintf(buf, n, "libyaml %s, SQLite %s, PCRE2 %s, cJSON %s", yaml_get_version_string(),
             sqlite3_libversion(), pcre, cJSON_Version());
}

static void load_average(double load[3])
{
    double got[3];
    int k = getloadavg(got, 3);
    for (int i = 0; i < 3; i++)
        load[i] = i < k ? got[i] : NAN;
}

/* Appends "a" or "a-b" to buf[n] at *len; false when it does not fit. */
static bool append_range(char *buf, size_t n, size_t *len, int a, int b)
{
    int w = a == b ? snprintf(buf + *len, n - *len, "%s%d", *len ? "," : "", a)
                   : snprintf(buf + *len, n - *len, "%s%d-%d", *len ? "," : "", a, b);
    if (w < 0 || (size_t)w >= n - *len)
        return false;
    *len += (size_t)w;
    return true;
}

/* The calling thread's CPU mask, allocated (CPU_FREE), with its size in
 * bytes and CPUs; NULL when it cannot be read. */
static cpu_set_t *current_mask(size_t *setsize, int *ncpus)
{
    int n = 1024;
    for (;;) { /* the kernel's mask may be wider than the default set */
        cpu_set_t *cpus = CPU_ALLOC(n);
        if (!cpus)
            return NULL;
        *setsize = CPU_ALLOC_SIZE(n);
        if (sched_getaffinity(0, *setsize, cpus) == 0) {
            *ncpus = n;
            return cpus;
        }
        CPU_FREE(cpus);
        if (errno != EINVAL || n >= (1 << 22))
            return NULL;
        n *= 2;
    }
}

int env_cpus_in_force(void)
{
    int ncpus = 0;
    size_t setsize = 0;
    cpu_set_t *cpus = current_mask(&setsize, &ncpus);
    int n = cpus ? CPU_COUNT_S(setsize, cpus) : 0;
    if (cpus)
        CPU_FREE(cpus);
    return n > 0 ? n : 1;
}

int env_affinity_string(char *buf, size_t n)
{
    if (n == 0)
        return -1;
    int ncpus = 0;
    size_t setsize = 0;
    cpu_set_t *cpus = current_mask(&setsize, &ncpus);
    size_t len = 0;
    bool ok = cpus != NULL;
    buf[0] = '\0';
    for (int i = 0; ok && i < ncpus; i++) {
        if (!CPU_ISSET_S((size_t)i, setsize, cpus))
            continue;
        int j = i;
        while (j + 1 < ncpus && CPU_ISSET_S((size_t)j + 1, setsize, cpus))
            j++;
        ok = append_range(buf, n, &len, i, j);
        i = j;
    }
    if (cpus)
        CPU_FREE(cpus);
    if (!ok || len == 0) {
        snprintf(buf, n, "%s", n > strlen(unknown) ? unknown : "");
        return -1;
    }
    return 0;
}

int env_pin_one(env_pin *pin)
{
    *pin = (env_pin){0};
    int ncpus = 0;
    size_t setsize = 0;
    cpu_set_t *cpus = current_mask(&setsize, &ncpus);
    if (!cpus)
        return -1;
    int cpu = ncpus;
    while (cpu-- > 0 && !CPU_ISSET_S((size_t)cpu, setsize, cpus))
        ;
    cpu_set_t *one = cpu >= 0 ? CPU_ALLOC(ncpus) : NULL;
    if (one) {
        CPU_ZERO_S(setsize, one);
        CPU_SET_S((size_t)cpu, setsize, one);
    }
    if (!one || sched_setaffinity(0, setsize, one) != 0) {
        if (one)
            CPU_FREE(one);
        CPU_FREE(cpus);
        return -1;
    }
    CPU_FREE(one);
    *pin = (env_pin){.saved = cpus, .size = setsize};
    return cpu;
}

void env_unpin(env_pin *pin)
{
    if (!pin->saved)
        return;
    (void)sched_setaffinity(0, pin->size, pin->saved);
    CPU_FREE(pin->saved);
    *pin = (env_pin){0};
}

void env_collect(environment *e)
{
    struct utsname u;
    bool have_uname = uname(&u) == 0;

    cpu_model(e->cpu_model, sizeof e->cpu_model);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    e->cores = cores > 0 ? (int)cores : 1;
    e->memory_bytes = memory_bytes();
    os_name(e->os, sizeof e->os, &u, have_uname);
    if (have_uname)
        snprintf(e->kernel, sizeof e->kernel, "%s %s %s", u.sysname, u.release, u.machine);
    else
        set(e->kernel, sizeof e->kernel, unknown);
    read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                    e->clock_source, sizeof e->clock_source);
    clock_fast_init(); /* once per process: what the closed loop's reads are */
    if (clock_fast_is_tsc()) {
        size_t used = strlen(e->clock_source);
        snprintf(e->clock_source + used, sizeof e->clock_source - used, "%s",
                 "; the closed loop reads the TSC directly");
    }
    env_affinity_string(e->affinity, sizeof e->affinity);
    set(e->compiler, sizeof e->compiler, ENV_COMPILER);
    set(e->build_type, sizeof e->build_type, BENCH_BUILD_TYPE);
    snprintf(e->build_flags, sizeof e->build_flags, "%s, %s, sanitizers %s", ENV_OPTIMISED,
             ENV_ASSERTS, BENCH_SANITIZERS);
    library_versions(e->libraries, sizeof e->libraries);
    set(e->version, sizeof e->version, BENCH_VERSION);
    set(e->commit, sizeof e->commit, bench_commit);
    load_average(e->load_before);
    for (int i = 0; i < 3; i++)
        e->load_after[i] = NAN;

    time_t now = time(NULL);
    struct tm tm;
    if (now != (time_t)-1 && gmtime_r(&now, &tm))
        strftime(e->date, sizeof e->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        set(e->date, sizeof e->date, unknown);
}

void env_add_postgres(environment *e, const char *server, const char *libpq)
{
    snprintf(e->postgres, sizeof e->postgres, "%s", server);
    size_t len = strlen(e->libraries);
    if (libpq && *libpq && !strstr(e->libraries, "libpq"))
        snprintf(e->libraries + len, sizeof e->libraries - len, ", %s", libpq);
}

void env_load_after(environment *e)
{
    load_average(e->load_after);
}
