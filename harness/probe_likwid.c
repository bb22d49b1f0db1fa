/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * probe_likwid.c - likwid-bench for the probe's bandwidth rows: where it
 * is, its memory domains (`likwid-bench -p`), and one `-t load` run read
 * back (hp_likwid_load, hp_likwid_domains: probe.h). It runs as a child
 * process with its output captured and a time limit; the probe never
 * links likwid.
 */
#define _GNU_SOURCE
#include "probe_pvt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <numa.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "errors.h"

extern char **environ;

#define LIKWID_LOAD_TIMEOUT_MS	   60000 /* one -t load run ("ran over 60 s") */
#define LIKWID_TOPOLOGY_TIMEOUT_MS 20000 /* -p */

/* Run argv with stdout and stderr into buf (NUL-terminated, truncated at
 * cap-1), at most timeout_ms. Returns 0 with *status, or -errno. */
static int run_capture(const char *path, char *const argv[], char *buf, size_t cap, int timeout_ms,
		       int *status)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -errno;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 2);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	pid_t pid;
	int e = strchr(path, '/') ? posix_spawn(&pid, path, &fa, NULL, argv, environ)
				  : posix_spawnp(&pid, path, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (e) {
		close(fds[0]);
		return -e;
	}
	size_t len = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int timed_out = 0;
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long el = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (el >= timeout_ms) {
			timed_out = 1;
			break;
		}
		struct pollfd pf = {fds[0], POLLIN, 0};
		int r = poll(&pf, 1, (int)(timeout_ms - el));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			timed_out = r == 0;
			break;
		}
		char tmp[4096];
		ssize_t got = read(fds[0], tmp, sizeof tmp);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		size_t keep = (size_t)got < cap - 1 - len ? (size_t)got : cap - 1 - len;
		memcpy(buf + len, tmp, keep);
		len += keep;
	}
	buf[len] = '\0';
	close(fds[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return timed_out ? -ETIMEDOUT : 0;
}

int hp_likwid_load(const char *likwid_bench, unsigned cpu_dom, unsigned mem_dom, size_t bytes,
		   double seconds, double *gbs, int *hwthread, char *err, size_t errlen)
{
	char w[96], s[32];
	snprintf(w, sizeof w, "M%u:%zukB:1-0:M%u", cpu_dom, bytes >> 10, mem_dom);
	snprintf(s, sizeof s, "%g", seconds);
	char *argv[] = {(char *)likwid_bench, "-s", s, "-t", "load", "-w", w, NULL};
	size_t cap = 1 << 16;
	char *out = malloc(cap);
	if (!out) {
		hb_err(err, errlen, "probe: out of memory for likwid-bench's output");
		return -ENOMEM;
	}
	int status = 0;
	int rc = run_capture(likwid_bench, argv, out, cap, LIKWID_LOAD_TIMEOUT_MS, &status);
	if (rc) {
		hb_err(err, errlen, "probe: likwid-bench -t load -w %s: %s", w,
		       rc == -ETIMEDOUT ? "ran over 60 s" : strerror(-rc));
		free(out);
		return rc;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		hb_err(err, errlen, "probe: likwid-bench -t load -w %s failed (status %d)", w,
		       status);
		free(out);
		return -EIO;
	}
	const char *m = strstr(out, "MByte/s:");
	const char *h = strstr(out, "Global Thread 0 running on hwthread ");
	double mbs = m ? strtod(m + strlen("MByte/s:"), NULL) : 0.0;
	if (!m || !h || !(mbs > 0.0) || !isfinite(mbs)) {
		hb_err(err, errlen, "probe: likwid-bench -t load -w %s printed no bandwidth", w);
		free(out);
		return -EIO;
	}
	*gbs = mbs / 1000.0;
	*hwthread = atoi(h + strlen("Global Thread 0 running on hwthread "));
	free(out);
	return 0;
}

int hp_likwid_domains(const char *text, cpu_set_t *dom, int maxdom)
{
	int n = 0;
	for (int k = 0; k < maxdom; k++)
		CPU_ZERO(&dom[k]);
	for (const char *l = text; l && *l;) {
		const char *eol = strchr(l, '\n');
		const char *tag = strstr(l, "Tag M");
		if (tag && (!eol || tag < eol)) {
			char *end;
			long k = strtol(tag + 5, &end, 10);
			if (end != tag + 5 && *end == ':' && k >= 0 && k < maxdom) {
				const char *c = end + 1;
				for (;;) {
					while (*c == ' ' || *c == '\t')
						c++;
					if (*c < '0' || *c > '9')
						break;
					long cpu = strtol(c, &end, 10);
					if (cpu >= 0 && cpu < NUMARING_MAX_CPUS)
						CPU_SET((size_t)cpu, &dom[k]);
					c = end;
				}
				if (k + 1 > n)
					n = (int)(k + 1);
			}
		}
		l = eol ? eol + 1 : NULL;
	}
	return n;
}

int hp_likwid_memory_domains(const char *likwid_bench, cpu_set_t *dom, int maxdom)
{
	size_t cap = 1 << 16;
	char *out = malloc(cap);
	char *argv[] = {(char *)likwid_bench, "-p", NULL};
	int status = 0, n = 0;
	if (out &&
	    run_capture(likwid_bench, argv, out, cap, LIKWID_TOPOLOGY_TIMEOUT_MS, &status) == 0 &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 0)
		n = hp_likwid_domains(out, dom, maxdom);
	free(out);
	return n;
}

int hp_find_likwid(const struct hp_opts *o, char *path, size_t len, char *err, size_t errlen)
{
	path[0] = '\0';
	if (o && o->likwid_bench) {
		if (!o->likwid_bench[0])
			return 0;
		if (access(o->likwid_bench, X_OK) < 0) {
			int e = errno;
			hb_err(err, errlen, "probe: likwid-bench %s is not executable: %s",
			       o->likwid_bench, strerror(e));
			return -e;
		}
		snprintf(path, len, "%s", o->likwid_bench);
		return 0;
	}
	const char *env = getenv("PATH");
	if (!env)
		return 0;
	while (*env) {
		const char *c = strchr(env, ':');
		size_t n = c ? (size_t)(c - env) : strlen(env);
		if (n && n + sizeof "/likwid-bench" < len) {
			snprintf(path, len, "%.*s/likwid-bench", (int)n, env);
			if (access(path, X_OK) == 0)
				return 0;
		}
		path[0] = '\0';
		env += n + (c ? 1 : 0);
	}
	return 0;
}

int hp_likwid_dom_of_os_node(const cpu_set_t *dom, int ndom, int os)
{
	for (int k = 0; k < ndom; k++)
		for (int c = 0; c < NUMARING_MAX_CPUS; c++)
			if (CPU_ISSET(c, &dom[k]) && numa_node_of_cpu(c) == os)
				return k;
	return -1;
}
