/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_probe.c - the host probe (harness/probe*.c): what probe.csv holds on
 * the real topology and on an emulated one, and that a failure leaves no
 * file behind.
 *
 * The probe measures; these tests check the shape and the honesty of what
 * it writes (every pair measured, every value positive and finite, summaries
 * exactly where pairs exist, no remote bandwidth without real remote
 * memory), not the numbers themselves.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "clock.h"
#include "probe.h"

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define QUICK_LIMIT_S 60.0 /* instrumented: the time limit says nothing */
#else
#define QUICK_LIMIT_S 3.0 /* the probe's promise for --probe --quick */
#endif

#define HEADER "kind,cpu_a,cpu_b,node_a,node_b,value,spread,unit,method"

/* ---- a tiny CSV reader ------------------------------------------------------ */

struct trow {
	char f[9][64]; /* kind cpu_a cpu_b node_a node_b value spread unit method */
};

enum { F_KIND, F_CPU_A, F_CPU_B, F_NODE_A, F_NODE_B, F_VALUE, F_SPREAD, F_UNIT, F_METHOD };

struct table {
	char header[1024];
	struct trow *rows;
	size_t n;
};

/* Reads path; fails the test on a line that does not have 9 fields. */
static void read_table(const char *path, struct table *t)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	char line[1024];
	memset(t, 0, sizeof *t);
	assert_non_null(fgets(line, sizeof line, f));
	line[strcspn(line, "\n")] = '\0';
	snprintf(t->header, sizeof t->header, "%s", line);
	size_t cap = 0;
	while (fgets(line, sizeof line, f)) {
		size_t len = strcspn(line, "\n");
		assert_int_equal(line[len], '\n'); /* whole lines only */
		line[len] = '\0';
		if (t->n == cap) {
			cap = cap ? 2 * cap : 64;
			t->rows = realloc(t->rows, cap * sizeof *t->rows);
			assert_non_null(t->rows);
		}
		struct trow *r = &t->rows[t->n++];
		memset(r, 0, sizeof *r);
		int k = 0;
		const char *s = line;
		for (;;) {
			const char *c = strchr(s, ',');
			size_t n = c ? (size_t)(c - s) : strlen(s);
			assert_true(k < 9);
			assert_true(n < sizeof r->f[k]);
			memcpy(r->f[k], s, n);
			k++;
			if (!c)
				break;
			s = c + 1;
		}
		if (k != 9)
			fail_msg("row %zu has %d fields: %s", t->n, k, line);
	}
	fclose(f);
}

static void free_table(struct table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

static int field_int(const struct trow *r, int k)
{
	if (!r->f[k][0])
		return -1;
	char *end;
	long v = strtol(r->f[k], &end, 10);
	if (*end || v < 0)
		fail_msg("field %d '%s' of %s is not a count", k, r->f[k], r->f[F_KIND]);
	return (int)v;
}

static double field_num(const struct trow *r, int k)
{
	char *end;
	double v = strtod(r->f[k], &end);
	if (!r->f[k][0] || *end)
		fail_msg("field %d '%s' of %s/%s is not a number", k, r->f[k], r->f[F_KIND],
			 r->f[F_METHOD]);
	return v;
}

static size_t count_kind(const struct table *t, const char *kind)
{
	size_t n = 0;
	for (size_t i = 0; i < t->n; i++)
		n += strcmp(t->rows[i].f[F_KIND], kind) == 0;
	return n;
}

static const struct trow *find_row(const struct table *t, const char *kind, const char *method)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->rows[i].f[F_KIND], kind) == 0 &&
		    (!method || strcmp(t->rows[i].f[F_METHOD], method) == 0))
			return &t->rows[i];
	return NULL;
}

/* ---- helpers ------------------------------------------------------------------ */

static char *make_dir(void)
{
	char tmpl[] = "/tmp/test_probe.XXXXXX";
	char *d = mkdtemp(tmpl);
	assert_non_null(d);
	return strdup(d);
}

/* Names in dir other than . and ..; the first one into first (if any). */
static int dir_entries(const char *dir, char *first, size_t len)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	if (first)
		first[0] = '\0';
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n++ == 0 && first)
			snprintf(first, len, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

static void remove_dir(char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/probe.csv", dir);
	unlink(path);
	rmdir(path);
	rmdir(dir);
	free(dir);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int node_of(const struct numaring_topology *t, int cpu)
{
	for (unsigned k = 0; k < t->nnodes; k++)
		if (CPU_ISSET(cpu, &t->cpus[k]))
			return (int)k;
	return -1;
}

/* ---- the checks of one probe.csv ------------------------------------------------- */

static void check_table(const struct table *tb, const struct numaring_topology *t)
{
	assert_string_equal(tb->header, HEADER);

	int cpus[NUMARING_MAX_CPUS], ncpus = 0;
	for (int c = 0; c < NUMARING_MAX_CPUS; c++)
		if (node_of(t, c) >= 0)
			cpus[ncpus++] = c;
	int same_pairs = 0, other_pairs = 0;

	/* every row: known kind, numbers positive and finite where present */
	for (size_t i = 0; i < tb->n; i++) {
		const struct trow *r = &tb->rows[i];
		const char *kind = r->f[F_KIND];
		if (!strcmp(kind, "meta"))
			continue;
		assert_true(
		    !strcmp(kind, "c2c_rtt") || !strcmp(kind, "c2c_same_node") ||
		    !strcmp(kind, "c2c_other_node") || !strcmp(kind, "c2c_one_way_same_node") ||
		    !strcmp(kind, "c2c_one_way_other_node") || !strcmp(kind, "lookup_ns") ||
		    !strcmp(kind, "pause_ns") || !strcmp(kind, "handover_stamped_ns") ||
		    !strcmp(kind, "faa_contended_ns") ||
		    !strcmp(kind, "faa_uncontended_ns") ||
		    !strcmp(kind, "faa_contended_other_node_ns") ||
		    !strcmp(kind, "c2c_bw_same_node_gbs") ||
		    !strcmp(kind, "c2c_bw_other_node_gbs") ||
		    !strcmp(kind, "c2c_bw_mt_same_node_gbs") ||
		    !strcmp(kind, "c2c_bw_mt_other_node_gbs") || !strcmp(kind, "bw_local_gbs") ||
		    !strcmp(kind, "bw_remote_gbs") || !strcmp(kind, "bw_local_mt_gbs") ||
		    !strcmp(kind, "bw_remote_mt_gbs"));
		assert_true(r->f[F_METHOD][0] != '\0');
		assert_true(r->f[F_UNIT][0] != '\0');
		if (strstr(r->f[F_METHOD], "-unsupported")) {
			assert_string_equal(r->f[F_VALUE], "");
			continue;
		}
		double v = field_num(r, F_VALUE);
		if (!(isfinite(v) && v > 0))
			fail_msg("%s/%s: value %s is not positive and finite", kind, r->f[F_METHOD],
				 r->f[F_VALUE]);
		double s = field_num(r, F_SPREAD);
		assert_true(isfinite(s) && s >= 0);
		/* node ids: those of the topology the run used */
		int ca = field_int(r, F_CPU_A), cb = field_int(r, F_CPU_B);
		if (ca >= 0)
			assert_int_equal(field_int(r, F_NODE_A), node_of(t, ca));
		if (cb >= 0)
			assert_int_equal(field_int(r, F_NODE_B), node_of(t, cb));
	}

	/* c2c_rtt: every ordered pair of distinct CPUs, once (these tests run
	 * the quick probe, which samples above its own limit) */
	if (ncpus <= HP_QUICK_ALL_PAIRS_MAX_CPUS) {
		for (int i = 0; i < ncpus; i++)
			for (int j = 0; j < ncpus; j++) {
				if (i == j)
					continue;
				int found = 0;
				for (size_t k = 0; k < tb->n; k++) {
					const struct trow *r = &tb->rows[k];
					if (!strcmp(r->f[F_KIND], "c2c_rtt") &&
					    field_int(r, F_CPU_A) == cpus[i] &&
					    field_int(r, F_CPU_B) == cpus[j]) {
						found++;
						assert_string_equal(r->f[F_METHOD],
								    "pingpong-median");
						assert_string_equal(r->f[F_UNIT], "ns");
					}
				}
				if (found != 1)
					fail_msg("c2c_rtt %d -> %d found %d times", cpus[i],
						 cpus[j], found);
				if (node_of(t, cpus[i]) == node_of(t, cpus[j]))
					same_pairs++;
				else
					other_pairs++;
			}
		assert_int_equal(count_kind(tb, "c2c_rtt"), (size_t)(ncpus * (ncpus - 1)));
	} else {
		for (size_t k = 0; k < tb->n; k++) {
			const struct trow *r = &tb->rows[k];
			if (strcmp(r->f[F_KIND], "c2c_rtt"))
				continue;
			assert_string_equal(r->f[F_METHOD], "pingpong-median-sampled");
			if (field_int(r, F_NODE_A) == field_int(r, F_NODE_B))
				same_pairs++;
			else
				other_pairs++;
		}
		assert_true(same_pairs + other_pairs > 0);
	}

	/* summaries exactly where such pairs exist; one way = half the round trip */
	const char *sum[2] = {"c2c_same_node", "c2c_other_node"};
	const char *half[2] = {"c2c_one_way_same_node", "c2c_one_way_other_node"};
	int have[2] = {same_pairs > 0, other_pairs > 0};
	for (int k = 0; k < 2; k++) {
		assert_int_equal(count_kind(tb, sum[k]), (size_t)have[k]);
		assert_int_equal(count_kind(tb, half[k]), (size_t)have[k]);
		if (!have[k])
			continue;
		double rt = field_num(find_row(tb, sum[k], NULL), F_VALUE);
		double ow = field_num(find_row(tb, half[k], NULL), F_VALUE);
		assert_true(fabs(ow - rt / 2) <= 0.002);
	}

	/* look-ups: the three modes every Linux has, and a row for each other one */
	const char *modes[] = {"libnuma", "syscall", "table"};
	for (int k = 0; k < 3; k++) {
		const struct trow *r = find_row(tb, "lookup_ns", modes[k]);
		if (!r)
			fail_msg("no lookup_ns row for %s", modes[k]);
		assert_string_equal(r->f[F_CPU_A], "");
	}
	assert_true(find_row(tb, "lookup_ns", "rseq") ||
		    find_row(tb, "lookup_ns", "rseq-unsupported"));
	assert_true(find_row(tb, "lookup_ns", "rdpid") ||
		    find_row(tb, "lookup_ns", "rdpid-unsupported"));
	assert_int_equal(count_kind(tb, "lookup_ns"), 5);

	/* one PAUSE (the backoffs' unit): one row, on the first CPU, positive
	 * (checked above) where the architecture has the hint */
	assert_int_equal(count_kind(tb, "pause_ns"), 1);
	{
		const struct trow *r = find_row(tb, "pause_ns", NULL);
		assert_string_equal(r->f[F_UNIT], "ns");
#if defined(__x86_64__) || defined(__i386__)
		assert_string_equal(r->f[F_METHOD], "pause-loop-less-empty-loop");
#elif defined(__aarch64__)
		assert_string_equal(r->f[F_METHOD], "yield-loop-less-empty-loop");
#endif
		if (!strstr(r->f[F_METHOD], "-unsupported")) {
			assert_int_equal(field_int(r, F_CPU_A), cpus[0]);
			/* no PAUSE takes a microsecond, even exiting to a hypervisor */
			assert_true(field_num(r, F_VALUE) < 1000.0);
		}
	}

	/* fetch-and-add */
	assert_int_equal(count_kind(tb, "faa_uncontended_ns"), 1);
	assert_int_equal(count_kind(tb, "faa_contended_ns"), ncpus >= 2 ? 1 : 0);
	if (ncpus >= 2) {
		const struct trow *r = find_row(tb, "faa_contended_ns", NULL);
		assert_true(field_int(r, F_CPU_A) >= 0 && field_int(r, F_CPU_B) >= 0);
		assert_int_not_equal(field_int(r, F_CPU_A), field_int(r, F_CPU_B));
	}

	/* fetch-and-add on a line fought over from two nodes: exactly where there
	 * are CPUs on two nodes, on a pair across them */
	int nodes_with_cpus = 0, max_per_node = 0, first_node_cpus = 0;
	for (unsigned k = 0; k < t->nnodes; k++) {
		int n = 0;
		for (int i = 0; i < ncpus; i++)
			n += node_of(t, cpus[i]) == (int)k;
		nodes_with_cpus += n > 0;
		if (n > max_per_node)
			max_per_node = n;
		if ((int)k == node_of(t, cpus[0]))
			first_node_cpus = n;
	}
	assert_int_equal(count_kind(tb, "faa_contended_other_node_ns"), nodes_with_cpus >= 2);
	if (nodes_with_cpus >= 2) {
		const struct trow *r = find_row(tb, "faa_contended_other_node_ns", NULL);
		assert_string_equal(r->f[F_METHOD], "faa-2threads-median");
		assert_int_not_equal(field_int(r, F_NODE_A), field_int(r, F_NODE_B));
	}

	/* the hand-over as the harness times it: one row where a node has two
	 * CPUs, on two CPUs of one node, ns (positive: checked above) */
	assert_int_equal(count_kind(tb, "handover_stamped_ns"), max_per_node >= 2);
	if (max_per_node >= 2) {
		const struct trow *r = find_row(tb, "handover_stamped_ns", NULL);
		assert_string_equal(r->f[F_UNIT], "ns");
		assert_string_equal(r->f[F_METHOD], "stamp-poll-stamp-median");
		assert_int_not_equal(field_int(r, F_CPU_A), field_int(r, F_CPU_B));
		assert_int_equal(field_int(r, F_NODE_A), field_int(r, F_NODE_B));
	}

	/* cache-to-cache streaming: one pair within a node where a node has two
	 * CPUs, one across nodes where two nodes have CPUs; the sums of several
	 * pairs only where there are CPUs for two pairs; GB/s, writer != reader */
	assert_int_equal(count_kind(tb, "c2c_bw_same_node_gbs"), max_per_node >= 2);
	assert_int_equal(count_kind(tb, "c2c_bw_other_node_gbs"), nodes_with_cpus >= 2);
	assert_true(count_kind(tb, "c2c_bw_mt_same_node_gbs") <= (size_t)(max_per_node >= 4));
	assert_true(count_kind(tb, "c2c_bw_mt_other_node_gbs") <= (size_t)(nodes_with_cpus >= 2));
	const char *cs[4] = {"c2c_bw_same_node_gbs", "c2c_bw_other_node_gbs",
			     "c2c_bw_mt_same_node_gbs", "c2c_bw_mt_other_node_gbs"};
	for (int k = 0; k < 4; k++) {
		const struct trow *r = find_row(tb, cs[k], NULL);
		if (!r)
			continue;
		assert_string_equal(r->f[F_UNIT], "GB/s");
		assert_non_null(strstr(r->f[F_METHOD], "stream-"));
		assert_int_not_equal(field_int(r, F_CPU_A), field_int(r, F_CPU_B));
		int across = field_int(r, F_NODE_A) != field_int(r, F_NODE_B);
		assert_int_equal(across, k % 2 == 1);
		assert_int_equal(strstr(r->f[F_METHOD], "1pair") != NULL, k < 2);
	}

	/* many threads reading memory at once: one row per node with memory, at
	 * least one; as many threads as the node has CPUs (every CPU of an
	 * emulated topology: its nodes share one memory) */
	assert_true(count_kind(tb, "bw_local_mt_gbs") >= 1);
	for (size_t i = 0; i < tb->n; i++) {
		const struct trow *r = &tb->rows[i];
		if (strcmp(r->f[F_KIND], "bw_local_mt_gbs") &&
		    strcmp(r->f[F_KIND], "bw_remote_mt_gbs"))
			continue;
		assert_string_equal(r->f[F_UNIT], "GB/s");
		unsigned nthreads = 0;
		char where[32] = "";
		if (sscanf(r->f[F_METHOD], "builtin-read-%uthreads-%31s", &nthreads, where) != 2)
			fail_msg("%s: method %s", r->f[F_KIND], r->f[F_METHOD]);
		assert_true(nthreads >= 1 && (int)nthreads <= ncpus);
		if (t->emulated || t->nnodes < 2) {
			assert_string_equal(r->f[F_KIND], "bw_local_mt_gbs");
			assert_int_equal((int)nthreads, t->emulated ? ncpus : first_node_cpus);
		}
		if (t->emulated) {
			assert_string_equal(where, "unplaced");
			assert_string_equal(r->f[F_NODE_B], "");
		}
	}
	if (t->emulated || t->nnodes < 2)
		assert_int_equal(count_kind(tb, "bw_remote_mt_gbs"), 0);

	/* bandwidth: no remote memory without two real nodes */
	if (t->emulated || t->nnodes < 2) {
		assert_int_equal(count_kind(tb, "bw_remote_gbs"), 0);
		assert_int_equal(count_kind(tb, "bw_local_gbs"), 1);
		const struct trow *r = find_row(tb, "bw_local_gbs", NULL);
		assert_non_null(strstr(r->f[F_METHOD], "builtin-read"));
		assert_string_equal(r->f[F_UNIT], "GB/s");
		if (t->emulated) /* emulated nodes have no memory of their own */
			assert_string_equal(r->f[F_NODE_B], "");
	}

	/* meta */
	const struct trow *m = find_row(tb, "meta", "topology");
	assert_non_null(m);
	assert_string_equal(m->f[F_VALUE], t->emulated ? "emulated" : "real");
	m = find_row(tb, "meta", "clock");
	assert_non_null(m);
	assert_string_equal(m->f[F_VALUE], hc.source);
	m = find_row(tb, "meta", "timer_overhead_ns");
	assert_non_null(m);
	assert_true(field_num(m, F_VALUE) > 0);
}

/* Run the quick probe on t into a fresh directory and check it. */
static void probe_and_check(const struct numaring_topology *t, double max_s)
{
	char *dir = make_dir();
	char err[256] = "", path[512], first[256];
	struct hp_opts o = {.quick = 1, .progress = getenv("TEST_PROBE_VERBOSE") ? stderr : NULL};
	/* The promise is for a machine the probe has to itself: where other
	 * work competes for the CPUs (a build beside the tests), the probe's
	 * timed loops wait their turn, and the limit grows with the runnable
	 * threads per CPU seen before and after the run. */
	double load[2] = {0, 0};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	(void)getloadavg(&load[0], 1);
	double t0 = now_s();
	int rc = hp_probe_run(t, dir, &o, err, sizeof err);
	double el = now_s() - t0;
	(void)getloadavg(&load[1], 1);
	if (rc)
		fail_msg("hp_probe_run: %d %s", rc, err);
	double busy = fmax(load[0], load[1]) / (double)(ncpu > 0 ? ncpu : 1);
	double limit = max_s * fmax(1.0, busy);
	print_message("quick probe (%s topology, %u nodes): %.2f s (limit %.1f s at load %.1f "
		      "on %ld CPUs)\n", t->emulated ? "emulated" : "real", t->nnodes, el, limit,
		      fmax(load[0], load[1]), ncpu);
	if (el >= limit)
		fail_msg("quick probe took %.2f s (limit %.1f s)", el, limit);
	/* probe.csv and nothing else: no temporary file left */
	assert_int_equal(dir_entries(dir, first, sizeof first), 1);
	assert_string_equal(first, "probe.csv");
	snprintf(path, sizeof path, "%s/probe.csv", dir);
	struct table tb;
	read_table(path, &tb);
	check_table(&tb, t);
	free_table(&tb);
	remove_dir(dir);
}

/* ---- the tests ------------------------------------------------------------------------ */

static void test_real_topology(void **state)
{
	(void)state;
	struct numaring_topology t;
	char err[256];
	assert_int_equal(numaring_topology_get(NULL, &t, err, sizeof err), 0);
	assert_int_equal(t.emulated, 0);
	probe_and_check(&t, QUICK_LIMIT_S);
}

/* Two emulated nodes from the allowed CPUs ("0;1" on a 2-CPU machine). */
static void test_emulated_topology(void **state)
{
	(void)state;
	cpu_set_t allowed;
	assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
	int n = CPU_COUNT(&allowed);
	if (n < 2)
		skip();
	char spec[8192];
	size_t len = 0;
	for (int c = 0, k = 0; c < NUMARING_MAX_CPUS; c++) {
		if (!CPU_ISSET(c, &allowed))
			continue;
		const char *sep = k == 0 ? "" : k == n / 2 ? ";" : ",";
		len += (size_t)snprintf(spec + len, sizeof spec - len, "%s%d", sep, c);
		k++;
	}
	struct numaring_topology t;
	char err[256];
	if (numaring_topology_get(spec, &t, err, sizeof err))
		fail_msg("topology %s: %s", spec, err);
	assert_int_equal(t.emulated, 1);
	assert_int_equal(t.nnodes, 2);
	probe_and_check(&t, QUICK_LIMIT_S);

	/* and the summaries: "0;1" has pairs across nodes only */
	if (n == 2) {
		char *dir = make_dir(), path[512];
		struct hp_opts o = {.quick = 1, .rounds = 200};
		assert_int_equal(hp_probe_run(&t, dir, &o, err, sizeof err), 0);
		snprintf(path, sizeof path, "%s/probe.csv", dir);
		struct table tb;
		read_table(path, &tb);
		assert_int_equal(count_kind(&tb, "c2c_other_node"), 1);
		assert_int_equal(count_kind(&tb, "c2c_same_node"), 0);
		assert_int_equal(count_kind(&tb, "bw_remote_gbs"), 0);
		/* the new rows of the ceiling model: a line fought over and lines
		 * streamed across the two (emulated) nodes, nothing within one */
		assert_int_equal(count_kind(&tb, "faa_contended_other_node_ns"), 1);
		assert_int_equal(count_kind(&tb, "c2c_bw_other_node_gbs"), 1);
		assert_int_equal(count_kind(&tb, "c2c_bw_same_node_gbs"), 0);
		assert_non_null(find_row(&tb, "bw_local_mt_gbs", "builtin-read-2threads-unplaced"));
		const struct trow *r = find_row(&tb, "c2c_rtt", NULL);
		assert_string_not_equal(r->f[F_NODE_A], r->f[F_NODE_B]);
		free_table(&tb);
		remove_dir(dir);
	}
}

/* An output directory that cannot take the file: -errno, a sentence, no file. */
static void test_unwritable_outdir(void **state)
{
	(void)state;
	struct numaring_topology t;
	char err[256], path[512];
	assert_int_equal(numaring_topology_get(NULL, &t, err, sizeof err), 0);
	struct hp_opts o = {.quick = 1};
	char *dir = make_dir();

	/* does not exist */
	snprintf(path, sizeof path, "%s/missing", dir);
	err[0] = '\0';
	assert_int_equal(hp_probe_run(&t, path, &o, err, sizeof err), -ENOENT);
	assert_true(err[0] != '\0');

	/* a regular file, not a directory */
	snprintf(path, sizeof path, "%s/file", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	err[0] = '\0';
	assert_int_equal(hp_probe_run(&t, path, &o, err, sizeof err), -ENOTDIR);
	assert_true(err[0] != '\0');
	unlink(path);
	assert_int_equal(dir_entries(dir, NULL, 0), 0);

	/* a directory without write permission (root writes anyway: skipped) */
	if (geteuid() != 0) {
		snprintf(path, sizeof path, "%s/ro", dir);
		assert_int_equal(mkdir(path, 0555), 0);
		err[0] = '\0';
		assert_int_equal(hp_probe_run(&t, path, &o, err, sizeof err), -EACCES);
		assert_true(err[0] != '\0');
		assert_int_equal(dir_entries(path, NULL, 0), 0);
		rmdir(path);
	}
	remove_dir(dir);
}

/* A failure at the very end (probe.csv is a directory: the rename fails)
 * removes the temporary file: nothing is left but what was there. */
static void test_late_failure_leaves_nothing(void **state)
{
	(void)state;
	struct numaring_topology t;
	char err[256], path[512], first[256];
	assert_int_equal(numaring_topology_get(NULL, &t, err, sizeof err), 0);
	char *dir = make_dir();
	snprintf(path, sizeof path, "%s/probe.csv", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	struct hp_opts o = {.quick = 1, .rounds = 200};
	err[0] = '\0';
	int rc = hp_probe_run(&t, dir, &o, err, sizeof err);
	assert_true(rc < 0);
	assert_true(err[0] != '\0');
	assert_non_null(strstr(err, "rename"));
	assert_int_equal(dir_entries(dir, first, sizeof first), 1);
	assert_string_equal(first, "probe.csv");
	remove_dir(dir);
}

/* A CPU the process may not run on: the pinning failure is an error. */
static void test_pin_failure_is_an_error(void **state)
{
	(void)state;
	cpu_set_t allowed;
	assert_int_equal(sched_getaffinity(0, sizeof allowed, &allowed), 0);
	int first = -1, bad = -1;
	for (int c = 0; c < NUMARING_MAX_CPUS; c++)
		if (CPU_ISSET(c, &allowed) && first < 0)
			first = c;
	for (int c = NUMARING_MAX_CPUS - 1; c >= 0; c--)
		if (!CPU_ISSET(c, &allowed) && c != first) {
			bad = c;
			break;
		}
	assert_true(first >= 0 && bad >= 0);
	char err[256];
	/* an emulated topology "first;bad", built by hand: numaring_topology_get
	 * would refuse the CPU that is not allowed, which is the point here */
	struct numaring_topology t;
	memset(&t, 0, sizeof t);
	t.nnodes = 2;
	t.emulated = 1;
	CPU_SET(first, &t.cpus[0]);
	CPU_SET(bad, &t.cpus[1]);
	for (int n = 0; n < 2; n++) {
		t.os_node[n] = t.mem_node[n] = -1;
		for (int m = 0; m < 2; m++)
			t.dist[n][m] = n == m ? 10 : 20;
	}
	char *dir = make_dir();
	struct hp_opts o = {.quick = 1, .rounds = 200};
	err[0] = '\0';
	int rc = hp_probe_run(&t, dir, &o, err, sizeof err);
	assert_true(rc < 0);
	if (!strstr(err, "pin"))
		fail_msg("error does not say pinning failed: %s", err);
	assert_int_equal(dir_entries(dir, NULL, 0), 0);
	remove_dir(dir);
}

/* An older probe.csv is replaced whole. */
static void test_replaces_old_file(void **state)
{
	(void)state;
	struct numaring_topology t;
	char err[256], path[512];
	assert_int_equal(numaring_topology_get(NULL, &t, err, sizeof err), 0);
	char *dir = make_dir();
	snprintf(path, sizeof path, "%s/probe.csv", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("old,content\nthat,is,longer,than,nothing\n", f);
	fclose(f);
	struct hp_opts o = {.quick = 1, .rounds = 200};
	assert_int_equal(hp_probe_run(&t, dir, &o, err, sizeof err), 0);
	struct table tb;
	read_table(path, &tb);
	assert_string_equal(tb.header, HEADER);
	assert_int_equal(count_kind(&tb, "old"), 0);
	assert_int_equal(count_kind(&tb, "that"), 0);
	free_table(&tb);
	assert_int_equal(dir_entries(dir, NULL, 0), 1);
	remove_dir(dir);
}

/* likwid-bench named but absent: an error before anything is measured. */
static void test_missing_likwid_is_an_error(void **state)
{
	(void)state;
	struct numaring_topology t;
	char err[256];
	assert_int_equal(numaring_topology_get(NULL, &t, err, sizeof err), 0);
	char *dir = make_dir();
	struct hp_opts o = {.quick = 1, .likwid_bench = "/nonexistent/likwid-bench"};
	assert_int_equal(hp_probe_run(&t, dir, &o, err, sizeof err), -ENOENT);
	assert_non_null(strstr(err, "likwid-bench"));
	assert_int_equal(dir_entries(dir, NULL, 0), 0);
	remove_dir(dir);
}

/* likwid-bench -p output: memory domains M<k> and their CPUs. */
static void test_likwid_domains_parse(void **state)
{
	(void)state;
	static const char text[] = "Number of Domains 7\n"
				   "Domain 0:\n\tTag N: 0 1 2 3 4 5 6 7\n"
				   "Domain 1:\n\tTag S0: 0 1 2 3\n"
				   "Domain 2:\n\tTag S1: 4 5 6 7\n"
				   "Domain 3:\n\tTag C0: 0 1 2 3\n"
				   "Domain 4:\n\tTag M0: 0 1 2 3\n"
				   "Domain 5:\n\tTag M1: 4 5 6 7\n";
	cpu_set_t dom[4];
	assert_int_equal(hp_likwid_domains(text, dom, 4), 2);
	assert_int_equal(CPU_COUNT(&dom[0]), 4);
	assert_true(CPU_ISSET(0, &dom[0]) && CPU_ISSET(3, &dom[0]) && !CPU_ISSET(4, &dom[0]));
	assert_int_equal(CPU_COUNT(&dom[1]), 4);
	assert_true(CPU_ISSET(4, &dom[1]) && CPU_ISSET(7, &dom[1]));
	assert_int_equal(hp_likwid_domains("Tag N: 0 1\n", dom, 4), 0);
}

/* likwid-bench on PATH, into path; 0 if there is none. */
static int likwid_on_path(char *path, size_t len)
{
	const char *env = getenv("PATH");
	while (env && *env) {
		size_t n = strcspn(env, ":");
		snprintf(path, len, "%.*s/likwid-bench", (int)n, env);
		if (n && access(path, X_OK) == 0)
			return 1;
		env += n + (env[n] == ':');
	}
	return 0;
}

/* When likwid-bench is installed: one real run, M0 reading M0. */
static void test_likwid_run(void **state)
{
	(void)state;
	char lw[1024];
	if (!likwid_on_path(lw, sizeof lw))
		skip();
	double gbs = 0;
	int hw = -1;
	char err[256] = "";
	int rc = hp_likwid_load(lw, 0, 0, 32u << 20, 0.1, &gbs, &hw, err, sizeof err);
	if (rc)
		fail_msg("likwid-bench: %d %s", rc, err);
	assert_true(isfinite(gbs) && gbs > 0);
	assert_true(hw >= 0);
	assert_true(hp_likwid_load("/nonexistent/likwid-bench", 0, 0, 32u << 20, 0.1, &gbs, &hw,
				   err, sizeof err) < 0);
}

int main(void)
{
	unsetenv("NUMARING_TOPOLOGY"); /* the real topology means the machine's */
	if (hc_init() != 0) {
		fprintf(stderr, "test_probe: NUMARING_CLOCK must be tsc or gettime\n");
		return 1;
	}
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_real_topology),
	    cmocka_unit_test(test_emulated_topology),
	    cmocka_unit_test(test_unwritable_outdir),
	    cmocka_unit_test(test_late_failure_leaves_nothing),
	    cmocka_unit_test(test_pin_failure_is_an_error),
	    cmocka_unit_test(test_replaces_old_file),
	    cmocka_unit_test(test_missing_likwid_is_an_error),
	    cmocka_unit_test(test_likwid_domains_parse),
	    cmocka_unit_test(test_likwid_run),
	};
	return cmocka_run_group_tests_name("probe", tests, NULL, NULL);
}
