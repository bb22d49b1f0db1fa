/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * test_bench.c - numaring-bench from the outside: every queue runs and
 * verifies in every workload (prodcons, pairs, mixed), the result files have
 * the promised form, the .hgrm parses back into the summary's percentiles,
 * emulated cross-node runs move batches, numaring's latency by path adds
 * up and crosses where it should, broken queues are caught in every
 * workload, the symmetric workloads count and move on, --show-topology
 * tells the truth, --queue-mem places and counts the queue's pages, and
 * every bad input is one message, exit status 2 and no file.
 *
 * The binary is NUMARING_BENCH (default build/numaring-bench).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>

#include "bounds.h"
#include "hgrm.h"
#include "queue.h"

static const char *bench = "build/numaring-bench";
static char tmpdir[256];
static char topo2[256]; /* "0;1" from the allowed CPUs */
static char topo1[256]; /* "0,1": one emulated node of every allowed CPU */
static char topo1_env[300]; /* NUMARING_TOPOLOGY=<topo1> */
static int ncpus;

struct outcome {
	int status; /* exit status, or 128 + signal */
	char out[65536];
	char err[8192];
};

/* >= 0: the child's file size limit in bytes (SIGXFSZ ignored, so that a
 * write past it fails with EFBIG as a full disk fails with ENOSPC) */
static long child_fsize = -1;

/* Run bench with args (NULL-terminated); env: "NAME=value" or NULL. */
static void run_bench(struct outcome *r, const char *env, const char *const *args)
{
	int po[2], pe[2];
	const char *argv[64];
	int n = 0;
	argv[n++] = bench;
	for (int i = 0; args[i] && n < 63; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	assert_int_equal(pipe(po), 0);
	assert_int_equal(pipe(pe), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(po[1], 1);
		dup2(pe[1], 2);
		close(po[0]);
		close(pe[0]);
		if (env)
			putenv((char *)env);
		if (child_fsize >= 0) {
			struct rlimit rl = {(rlim_t)child_fsize, (rlim_t)child_fsize};
			signal(SIGXFSZ, SIG_IGN);
			setrlimit(RLIMIT_FSIZE, &rl);
		}
		execv(bench, (char *const *)argv);
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	size_t no = 0, ne = 0;
	int open_o = 1, open_e = 1;
	while (open_o || open_e) { /* small outputs: read alternately */
		if (open_o) {
			ssize_t k = read(po[0], r->out + no, sizeof r->out - 1 - no);
			if (k <= 0)
				open_o = 0;
			else
				no += (size_t)k;
		}
		if (open_e) {
			ssize_t k = read(pe[0], r->err + ne, sizeof r->err - 1 - ne);
			if (k <= 0)
				open_e = 0;
			else
				ne += (size_t)k;
		}
	}
	r->out[no] = r->err[ne] = '\0';
	close(po[0]);
	close(pe[0]);
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	size_t got = fread(buf, 1, (size_t)n, f);
	buf[got] = '\0';
	fclose(f);
	if (len)
		*len = got;
	return buf;
}

/* Split one CSV line (with "..." quoting) into fields; returns the count. */
static int csv_split(char *line, char **fields, int max)
{
	int n = 0;
	char *p = line, *w = line;
	while (n < max) {
		fields[n++] = w;
		int quoted = *p == '"';
		if (quoted)
			p++;
		for (;;) {
			if (quoted && *p == '"' && p[1] == '"') {
				*w++ = '"';
				p += 2;
			} else if (quoted && *p == '"') {
				quoted = 0;
				p++;
			} else if ((!quoted && (*p == ',' || *p == '\n')) || *p == '\0') {
				break;
			} else {
				*w++ = *p++;
			}
		}
		char end = *p;
		*w++ = '\0';
		if (end != ',')
			break;
		p++;
	}
	return n;
}

/* The summary of dir as header/value pairs; returns the column count. */
struct summary {
	char *text;
	char *names[128], *values[128];
	int n;
};

static void read_summary(const char *dir, struct summary *s)
{
	char path[512];
	snprintf(path, sizeof path, "%s/summary.csv", dir);
	s->text = slurp(path, NULL);
	assert_non_null(s->text);
	char *nl = strchr(s->text, '\n');
	assert_non_null(nl);
	*nl = '\0';
	char *row = nl + 1;
	char *end = strchr(row, '\n');
	assert_non_null(end);
	assert_string_equal(end + 1, ""); /* exactly one row */
	*end = '\0';
	s->n = csv_split(s->text, s->names, 128);
	int m = csv_split(row, s->values, 128);
	assert_int_equal(s->n, m);
}

static const char *field(const struct summary *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->names[i], name) == 0)
			return s->values[i];
	fail_msg("summary.csv has no column %s", name);
	return NULL;
}

static void fresh_dir(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "%s/%s", tmpdir, tag);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", buf);
	assert_int_equal(system(cmd), 0);
}

/* ---- tests ------------------------------------------------------------- */

static void help_lists_every_option_and_queue(void **state)
{
	(void)state;
	static struct outcome r;
	const char *args[] = {"--help", NULL};
	run_bench(&r, NULL, args);
	assert_int_equal(r.status, 0);
	const char *must[] = {"--queue", "--producers", "--consumers", "--duration", "--ops",
			      "--warmup", "--capacity", "--batch", "--bursts", "--lookup",
			      "--recheck", "--gate", "--backoff", "--topology", "--pin",
			      "--rate", "--out", "--verify", "--show-topology", "--probe",
			      "--item", "inline", "message", "--sample", "--calibrate", "--schema",
			      "default", "split", "rdpid", "perworker", "yield", "--counters", "--smt",
			      "siblings", "--accounting", "avx2", "scalar", "--workload", "prodcons",
			      "pairs", "mixed", "--threads", "--enqueue-share", "--work",
			      "--producer-work", "--consumer-work", "--seed", "ops_kind",
			      "--pause-spin", "--exp-cap", "--manifest", "--queue-mem", "first-touch",
			      "producers", "consumers", "interleave", "node:N", "queue_pages",
			      "--capacity-per-node", "--capacity-ops", "--load", "--load-probe",
			      "--linger", "--strip", "--drain-timeout", "--no-verify", "--quick",
			      "--quiet", "--version", "--help"};
	for (size_t i = 0; i < sizeof must / sizeof must[0]; i++)
		if (!strstr(r.out, must[i]))
			fail_msg("--help does not mention %s", must[i]);
	/* the ranges it states are the parser's (harness/bounds.h) */
	char range[96];
	snprintf(range, sizeof range, "threads of the run, 1..%.15g:", HB_THREADS_MAX);
	if (!strstr(r.out, range))
		fail_msg("--help does not say \"%s\"", range);
	snprintf(range, sizeof range, "local work between operations, 0..%.15g ns", HB_WORK_NS_MAX);
	if (!strstr(r.out, range))
		fail_msg("--help does not say \"%s\"", range);
	/* a long option's text starts on the line below it, at the column */
	if (!strstr(r.out, "\n  --capacity-per-node N\n                      numaring: N slots"))
		fail_msg("--help: --capacity-per-node's text is not below it");
	for (int i = 0; hq_all[i]; i++)
		if (!strstr(r.out, hq_all[i]->name))
			fail_msg("--help does not list queue %s", hq_all[i]->name);
}

struct bad_input {
	const char *env;
	const char *args[12];
	const char *message;
};

static void bad_input_exits_2_with_one_message_and_no_file(void **state)
{
	(void)state;
	static struct outcome r;
	char out[512], cpu_list[256], not_named[256];
	fresh_dir(out, sizeof out, "bad");
	snprintf(cpu_list, sizeof cpu_list, "%s", topo2);
	*strchr(cpu_list, ';') = '\0'; /* the first CPU alone: leaves one allowed CPU unnamed */
	snprintf(not_named, sizeof not_named, "%s", cpu_list);
	struct bad_input cases[] = {
		{NULL, {"--queue", "nope"}, "unknown queue \"nope\""},
		{NULL, {"--queue"}, "--queue needs a value"},
		{NULL, {"--producers", "0"}, "--producers needs a whole number"},
		{NULL, {"--producers", "-2"}, "--producers needs a whole number"},
		{NULL, {"--consumers", "two"}, "--consumers needs a whole number"},
		{NULL, {"--consumers", "99999"}, "--consumers needs a whole number"},
		{NULL, {"--duration", "0"}, "--duration needs a number above 0"},
		{NULL, {"--duration", "-1"}, "--duration needs a number"},
		{NULL, {"--duration", "nan"}, "--duration needs a number"},
		{NULL, {"--ops", "0"}, "--ops needs a whole number"},
		{NULL, {"--ops", "12x"}, "--ops needs a whole number"},
		{NULL, {"--warmup", "-0.5"}, "--warmup needs a number"},
		{NULL, {"--duration", "1", "--ops", "10"}, "alternatives"},
		{NULL, {"--capacity", "1000"}, "--capacity 1000 is not a power of two"},
		{NULL, {"--capacity", "1"}, "--capacity needs a whole number"},
		{NULL, {"--batch", "0"}, "--batch needs a whole number"},
		{NULL, {"--batch", "2048"}, "--batch 2048 is larger than --capacity 1024"},
		{NULL, {"--lookup", "fast"}, "unknown --lookup \"fast\""},
		{NULL, {"--recheck", "0"}, "--recheck needs a whole number"},
		{NULL, {"--gate", "global"}, "unknown --gate \"global\""},
		{NULL, {"--backoff", "sleep"}, "unknown --backoff \"sleep\""},
		{NULL, {"--pin", "diagonal"}, "unknown --pin \"diagonal\""},
		{NULL, {"--pin", "0-1", "--producers", "2", "--consumers", "2"}, "names 2 CPUs for 4 threads"},
		{NULL, {"--pin", "99999"}, "CPU number too large"},
		{NULL, {"--pin", "0,1000"}, "CPU 1000, which this run may not use"},
		{NULL, {"--rate", "0"}, "--rate needs a number above 0"},
		{NULL, {"--topology", ""}, "empty topology string"},
		{NULL, {"--topology", "0;0"}, "CPU 0 is named in two nodes"},
		{NULL, {"--topology", "0-1000"}, "may not use"},
		{NULL, {"--topology", "3-1"}, "reversed range"},
		{NULL, {"--topology", not_named}, "does not name CPU"},
		{"NUMARING_TOPOLOGY=0;;1", {"--ops", "10"}, "NUMARING_TOPOLOGY"},
		{NULL, {"--out", "/proc/numaring-cannot-write"}, "is not writable"},
		{NULL, {"--bogus"}, "unknown option \"--bogus\""},
		{NULL, {"stray"}, "unexpected argument \"stray\""},
		{NULL, {"--quick"}, "--quick goes with --probe"},
		{NULL, {"--probe"}, "--probe needs --out"},
		{NULL, {"--drain-timeout", "0"}, "--drain-timeout needs a number above 0"},
		{"NUMARING_CLOCK=sundial", {"--ops", "10"}, "NUMARING_CLOCK"},
		{NULL, {"--item", "pointer"}, "unknown --item \"pointer\""},
		{NULL, {"--accounting", "wide"}, "unknown --accounting \"wide\""},
		{NULL, {"--strip", "clock"}, "--strip clock: unknown \"clock\""},
		{NULL, {"--strip", "publish,"}, "--strip publish,: unknown \"\""},
		{NULL, {"--strip", "window", "--workload", "pairs"}, "needs --workload prodcons"},
		{NULL, {"--strip", "window", "--item", "message"}, "needs --item inline"},
		{NULL, {"--strip", "accounting", "--queue", "moodycamel"}, "needs a bounded queue"},
		{NULL, {"--strip", "publish", "--rate", "1000"}, "needs a closed loop"},
		{NULL, {"--strip", "publish", "--producer-work", "50"}, "needs no work"},
		{NULL, {"--strip", "publish", "--ops", "1000"}, "needs --duration, not --ops"},
		{NULL, {"--sample", "3"}, "--sample 3 is not a power of two"},
		{NULL, {"--sample", "0"}, "--sample needs a whole number"},
		{NULL, {"--sample", "2097152"}, "--sample needs a whole number"},
		{NULL, {"--calibrate", "-1"}, "--calibrate needs a number"},
		{NULL, {"--calibrate", "soon"}, "--calibrate needs a number"},
		{NULL, {"--load", "0"}, "--load needs a number above 0"},
		{NULL, {"--load", "1.5"}, "--load needs a number above 0 and at most 1"},
		{NULL, {"--load", "0.5", "--rate", "1000"}, "--rate and --load are alternatives"},
		{NULL, {"--load-probe", "0"}, "--load-probe needs a number above 0"},
		{NULL, {"--capacity-ops", "1000"}, "--capacity-ops goes with --load"},
		{NULL, {"--load", "0.5", "--capacity-ops", "0"}, "--capacity-ops needs a number above 0"},
		{NULL, {"--capacity-ops", "-5", "--load", "0.5"}, "--capacity-ops needs a number above 0"},
		{NULL, {"--load", "0.5", "--capacity-ops", "fast"}, "--capacity-ops needs a number"},
		{NULL, {"--load", "0.5", "--capacity-ops", "inf"}, "--capacity-ops needs a number"},
		{NULL, {"--load", "0.5", "--capacity-ops"}, "--capacity-ops needs a value"},
		{NULL, {"--rate", "1000", "--capacity-ops", "1000"}, "--capacity-ops goes with --load"},
		{NULL, {"--probe", "--counters"}, "--counters goes with a run, not with --probe"},
		{NULL, {"--show-topology", "--counters"}, "--counters goes with a run"},
		{NULL, {"--smt", "all"}, "unknown --smt \"all\" (cores, siblings)"},
		{NULL, {"--smt"}, "--smt needs a value"},
		{NULL, {"--workload", "ring"}, "unknown --workload \"ring\" (prodcons, pairs, mixed)"},
		{NULL, {"--workload"}, "--workload needs a value"},
		{NULL, {"--workload", "pairs", "--threads", "0"}, "--threads needs a whole number"},
		{NULL, {"--workload", "mixed", "--threads", "two"}, "--threads needs a whole number"},
		{NULL, {"--workload", "pairs", "--threads", "1025"}, "--threads needs a whole number"},
		{NULL, {"--threads", "1"}, "--threads 1 with --workload prodcons"},
		{NULL, {"--threads", "4", "--producers", "2"}, "--threads and --producers/--consumers are alternatives"},
		{NULL, {"--consumers", "2", "--workload", "pairs"}, "--producers and --consumers go with --workload prodcons"},
		{NULL, {"--work", "-5"}, "--work needs a whole number from 0 to 10000000"},
		{NULL, {"--workload", "pairs", "--work", "1us"}, "--work needs a whole number"},
		{NULL, {"--work", "10000001"}, "--work needs a whole number"},
		{NULL, {"--work", "150-50"}, "--work 150-50: the minimum is above the maximum"},
		{NULL, {"--work", "50-"}, "--work needs a whole number"},
		{NULL, {"--work", "a-150"}, "--work needs a whole number"},
		{NULL, {"--work", "50-150", "--producer-work", "20"}, "--work's minimum 50 ns is above --producer-work 20"},
		{NULL, {"--producer-work", "fast"}, "--producer-work needs a whole number"},
		{NULL, {"--consumer-work", "-1"}, "--consumer-work needs a whole number"},
		{NULL, {"--workload", "mixed", "--producer-work", "100"}, "--producer-work goes with --workload prodcons"},
		{NULL, {"--consumer-work", "100", "--workload", "pairs"}, "--consumer-work goes with --workload prodcons"},
		{NULL, {"--workload", "mixed", "--enqueue-share", "0"}, "--enqueue-share needs a number above 0 and below 1"},
		{NULL, {"--workload", "mixed", "--enqueue-share", "1"}, "--enqueue-share needs a number above 0 and below 1"},
		{NULL, {"--workload", "mixed", "--enqueue-share", "nan"}, "--enqueue-share needs a number"},
		{NULL, {"--workload", "mixed", "--enqueue-share", "half"}, "--enqueue-share needs a number"},
		{NULL, {"--workload", "pairs", "--enqueue-share", "0.3"}, "--enqueue-share goes with --workload mixed"},
		{NULL, {"--enqueue-share", "0.3"}, "--enqueue-share goes with --workload mixed"},
		{NULL, {"--workload", "pairs", "--pin", "split"}, "--pin split puts producers and consumers on nodes of their own"},
		{NULL, {"--workload", "mixed", "--pin", "nodes:0/1"}, "--pin nodes:0/1 puts producers and consumers on nodes of their own"},
		{NULL, {"--pin", "nodes:0"}, "--pin nodes:0: expected nodes:P/C"},
		{NULL, {"--pin", "nodes:0/1x"}, "--pin nodes:0/1x: expected nodes:P/C"},
		{NULL, {"--pin", "nodes:-1/0"}, "--pin nodes:-1/0: expected nodes:P/C"},
		{NULL, {"--pin", "nodes:0/999"}, "--pin nodes:0/999: expected nodes:P/C"},
		{NULL, {"--topology", "0;1", "--pin", "nodes:0/2"}, "node 2 has no CPU in this run"},
		{NULL, {"--pin", "split", "--workload", "mixed"}, "mixed has no sides"},
		{NULL, {"--workload", "mixed", "--load", "0.5"}, "--load goes with --workload prodcons"},
		{NULL, {"--workload", "pairs", "--threads", "3", "--pin", "0-1"}, "names 2 CPUs for 3 threads"},
		{NULL, {"--seed", "-1"}, "--seed needs a whole number"},
		{NULL, {"--pause-spin", "0"}, "--pause-spin needs a whole number from 1 to 65536"},
		{NULL, {"--pause-spin", "65537"}, "--pause-spin needs a whole number from 1 to 65536"},
		{NULL, {"--exp-cap", "100"}, "--exp-cap 100 is not a power of two"},
		{NULL, {"--exp-cap", "131072"}, "--exp-cap needs a whole number from 1 to 65536"},
		{NULL, {"--queue-mem", "nearest"}, "unknown --queue-mem \"nearest\" (first-touch, producers"},
		{NULL, {"--queue-mem"}, "--queue-mem needs a value"},
		{NULL, {"--queue-mem", "node:"}, "--queue-mem node:N needs a whole number from 0 to 255"},
		{NULL, {"--queue-mem", "node:x"}, "--queue-mem node:N needs a whole number from 0 to 255"},
		{NULL, {"--queue-mem", "node:256"}, "--queue-mem node:N needs a whole number from 0 to 255"},
		{NULL, {"--queue-mem", "node:-1"}, "--queue-mem node:N needs a whole number"},
		{NULL, {"--queue-mem", "node:200"}, "this machine has no node 200 with memory"},
		{NULL, {"--queue-mem", "producers", "--pin", "none"}, "which --pin none leaves to the scheduler"},
		{NULL, {"--pin", "none", "--queue-mem", "consumers"}, "--queue-mem consumers puts the queue on the node of the consumers' CPUs"},
		{NULL, {"--queue", "xenium-ramalhete", "--item", "inline"}, "--queue xenium-ramalhete takes message items only (give --item message): xenium's ramalhete_queue takes pointers: it throws on NULL and keeps a mark in bit 63"},
		{NULL, {"--queue", "xenium-kfifo", "--item", "inline"}, "--queue xenium-kfifo takes message items only (give --item message): xenium's kirsch_kfifo_queue takes pointers: it throws on NULL and keeps a 16-bit tag in bits 48-63"},
		{NULL, {"--queue", "xenium-kfifo"}, "--queue xenium-kfifo takes message items only"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *args[20];
		int n = 0;
		/* common options first, so that a case's missing value stays missing */
		if (!(cases[i].args[0] && (strcmp(cases[i].args[0], "--out") == 0 ||
					   strcmp(cases[i].args[0], "--probe") == 0))) {
			args[n++] = "--out";
			args[n++] = out;
		}
		args[n++] = "--warmup";
		args[n++] = "0";
		for (int k = 0; cases[i].args[k]; k++)
			args[n++] = cases[i].args[k];
		args[n] = NULL;
		if (ncpus < 2 && strstr(cases[i].message, "does not name"))
			continue;
		run_bench(&r, cases[i].env, args);
		if (r.status != 2)
			fail_msg("case %zu (%s): exit %d, expected 2; stderr: %s", i, cases[i].message,
				 r.status, r.err);
		if (!strstr(r.err, cases[i].message))
			fail_msg("case %zu: stderr \"%s\" lacks \"%s\"", i, r.err, cases[i].message);
		/* one message: one line, naming the program */
		if (strncmp(r.err, "numaring-bench: ", 16) != 0 || strchr(r.err, '\n') != r.err + strlen(r.err) - 1)
			fail_msg("case %zu: not one message line: \"%s\"", i, r.err);
		int entries = count_entries(out);
		if (entries > 0)
			fail_msg("case %zu left %d file(s) in --out", i, entries);
	}
}

/* The .hgrm rows hold the cumulative count at each value they list; the
 * value at percentile p (the first value whose cumulative count reaches
 * rank = ceil(p/100 * total)) must lie after the last row below that rank
 * and at or before the first row that reaches it. */
static void check_percentile_in_rows(const struct hdr_hgrm *g, double p, double value)
{
	/* shave a few ulps: 99.9/100*1000 is 999.0000000000001 in doubles */
	double exact = p / 100.0 * (double)g->total_count;
	int64_t rank = (int64_t)ceil(exact - exact * 1e-12);
	if (rank < 1)
		rank = 1;
	double below = -1, at = -1;
	for (size_t i = 0; i < g->nrows; i++) {
		if (g->rows[i].total_count < rank)
			below = g->rows[i].value;
		else if (at < 0)
			at = g->rows[i].value;
	}
	if (!(value > below && value <= at + 0.5))
		fail_msg("p%g = %.0f in summary.csv, but the .hgrm rows put it in (%.0f, %.0f]", p,
			 value, below, at);
}

static const char *const path_cols[] = {"latency_local_p50_ns",	"latency_local_p99_ns",
					 "latency_local_count",	"latency_transfer_p50_ns",
					 "latency_transfer_p99_ns", "latency_transfer_count",
					 "latency_held_p50_ns",	"latency_held_p99_ns",
					 "latency_held_count"};

/*
 * Latency by path in a run's folder: a queue without paths leaves the nine
 * latency_<path>_* cells empty and writes no latency-path.csv. A queue with
 * paths: the counts add up to latency_count, a path has percentiles where it
 * has items (p50 <= p99 <= max), and latency-path.csv holds each path's
 * rows in queue.h's order, under latency.csv's header with `path` first,
 * each path's last row (percentile 1) counting its items.
 */
static void check_paths(const char *dir, const struct summary *s, const struct hq_ops *o)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/latency-path.csv", dir);
	if (!o->dequeue_paths) {
		for (size_t i = 0; i < sizeof path_cols / sizeof path_cols[0]; i++)
			assert_string_equal(field(s, path_cols[i]), "");
		assert_int_equal(access(path, F_OK), -1);
		return;
	}
	long long sum = 0, last_total[HQ_PATH_COUNT_] = {0};
	for (int p = 0; p < HQ_PATH_COUNT_; p++) {
		const char *count = field(s, path_cols[3 * p + 2]);
		assert_true(*count != '\0');
		long long n = atoll(count);
		sum += n;
		if (n == 0) {
			assert_string_equal(field(s, path_cols[3 * p]), "");
			assert_string_equal(field(s, path_cols[3 * p + 1]), "");
		} else {
			double p50 = atof(field(s, path_cols[3 * p]));
			double p99 = atof(field(s, path_cols[3 * p + 1]));
			assert_true(p50 >= 0 && p50 <= p99);
			assert_true(p99 <= atof(field(s, "max_ns")) + 0.5);
		}
	}
	assert_int_equal(sum, atoll(field(s, "latency_count")));
	char *text = slurp(path, NULL);
	assert_non_null(text);
	const char *header = "path,value_ns,percentile,total_count,one_over_one_minus_percentile\n";
	assert_memory_equal(text, header, strlen(header));
	int at = 0; /* the path of the rows so far: they come in queue.h's order */
	for (char *save = NULL, *line = strtok_r(text + strlen(header), "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[8];
		int nf = csv_split(line, f, 8);
		assert_int_equal(nf, 5);
		int p = 0;
		while (p < HQ_PATH_COUNT_ && strcmp(f[0], hq_path_name((enum hq_path)p)))
			p++;
		if (p == HQ_PATH_COUNT_)
			fail_msg("latency-path.csv: unknown path \"%s\"", f[0]);
		assert_true(p >= at);
		at = p;
		last_total[p] = atoll(f[3]);
	}
	for (int p = 0; p < HQ_PATH_COUNT_; p++)
		assert_int_equal(last_total[p], atoll(field(s, path_cols[3 * p + 2])));
	free(text);
}

static void check_result_dir(const char *dir, const char *queue)
{
	struct summary s;
	char path[1024];
	read_summary(dir, &s);
	assert_string_equal(s.names[0], "queue");
	assert_string_equal(field(&s, "queue"), queue);
	const struct hq_ops *o = hq_find(queue);
	assert_non_null(o);
	assert_string_equal(field(&s, "verify"), o->moves_data ? "ok" : "n/a");
	if (!(atof(field(&s, "throughput_ops_per_s")) > 0))
		fail_msg("%s: throughput_ops_per_s \"%s\" in %s/summary.csv (enqueued %s, "
			 "dequeued %s, duration_s %s)", queue, field(&s, "throughput_ops_per_s"), dir,
			 field(&s, "enqueued"), field(&s, "dequeued"), field(&s, "duration_s"));
	/* the harness's own ceiling, except for the queues that move nothing */
	if (!o->moves_data)
		assert_string_equal(field(&s, "harness_ops_per_s"), "");
	else
		assert_true(atof(field(&s, "harness_ops_per_s")) > 0);
	if (strcmp(queue, "faa") != 0) {
		/* the .hgrm parses back into the summary's percentiles */
		size_t len;
		snprintf(path, sizeof path, "%s/latency.hgrm", dir);
		char *text = slurp(path, &len);
		assert_non_null(text);
		struct hdr_hgrm g;
		char err[256];
		if (hdr_parse_hgrm(text, len, &g, err, sizeof err) != 0)
			fail_msg("%s: %s", path, err);
		assert_int_equal(g.total_count, atoll(field(&s, "latency_count")));
		if (g.total_count == 0) {
			/* no item sent inside the window reached a consumer (a convoy
			 * of a peer under oversubscription): no percentiles, said so */
			assert_string_equal(field(&s, "p50_ns"), "");
		} else {
			check_percentile_in_rows(&g, 50, atof(field(&s, "p50_ns")));
			check_percentile_in_rows(&g, 90, atof(field(&s, "p90_ns")));
			check_percentile_in_rows(&g, 99, atof(field(&s, "p99_ns")));
			check_percentile_in_rows(&g, 99.9, atof(field(&s, "p999_ns")));
			assert_true(fabs(g.max - atof(field(&s, "max_ns"))) < 1.0);
		}
		hdr_hgrm_free(&g);
		free(text);
		snprintf(path, sizeof path, "%s/latency.csv", dir);
		text = slurp(path, NULL);
		assert_non_null(text);
		assert_memory_equal(text, "value_ns,percentile,total_count,one_over_one_minus_percentile\n", 62);
		free(text);
	}
	snprintf(path, sizeof path, "%s/meta.json", dir);
	char *meta = slurp(path, NULL);
	assert_non_null(meta);
	const char *keys[] = {"\"host\"", "\"cpu_model\"", "\"kernel\"", "\"libc\"", "\"compiler\"",
			      "\"git_commit\"", "\"command_line\"", "\"start_time_utc\"",
			      "\"topology\"", "\"overhead_ns\"", "\"items\"", "\"harness\"",
			      "\"virtualization\": {\"kind\": \"", "\"timings_meaningful\": ",
			      !o->moves_data ? "\"not_measured\"" : "\"ceiling_ops_per_s\""};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!strstr(meta, keys[i]))
			fail_msg("meta.json lacks %s", keys[i]);
	free(meta);
	check_paths(dir, &s, o);
	free(s.text);
	/* and latency-path.csv for a queue with paths */
	assert_int_equal(count_entries(dir), o->dequeue_paths ? 5 : 4);
}

/* producers, consumers, open-loop rate, duration (NULL: --ops). 2P2C and
 * 4P4C are more threads than CPUs on a 2-CPU machine: ck and rte can fall
 * into a convoy when a preempted producer holds a claimed slot (minutes for
 * 30000 items), so those shapes are timed, not counted, and the small
 * capacity keeps the drain short. make test runs shapes 0 and 3 (counted
 * 1P1C, open-loop 2P2C); make test-slow adds 1 and 2 (closed-loop 2P2C in
 * bursts, 4P4C). */
static const char *const every_queue_shapes[][4] = {{"1", "1", NULL, NULL},
						    {"2", "2", NULL, "0.2"},
						    {"4", "4", NULL, "0.3"},
						    {"2", "2", "200000", "0.2"}};

/* Every queue of the manifest (but the broken fault-* ones) in the shapes
 * whose indexes are listed in shapes (n of them): exit 0 and a result folder
 * that check_result_dir accepts. */
static void every_queue_in_shapes(const int *shapes, int n_shapes)
{
	static struct outcome r;
	for (int q = 0; hq_all[q]; q++) {
		if (hq_all[q]->test_only) /* broken on purpose: see fault_is_caught */
			continue;
		for (int j = 0; j < n_shapes; j++) {
			int k = shapes[j];
			const char *const *shape = every_queue_shapes[k];
			char dir[400], tag[64];
			snprintf(tag, sizeof tag, "run-%s-%d", hq_all[q]->name, k);
			fresh_dir(dir, sizeof dir, tag);
			const char *args[24] = {"--queue", hq_all[q]->name, "--producers",
						shape[0], "--consumers", shape[1],
						"--warmup", "0.05", "--capacity", "64", "--batch", "8",
						"--out", dir, "--quiet"};
			int n = 15;
			if (shape[2]) { /* open loop */
				args[n++] = "--rate";
				args[n++] = shape[2];
			}
			if (shape[3]) {
				args[n++] = "--duration";
				args[n++] = shape[3];
			} else if (!hq_all[q]->moves_data) {
				/* --ops ends a window of a queue that moves nothing
				 * once its producers have sent: a fraction of a
				 * millisecond, in which a consumer the scheduler left
				 * out dequeues nothing, and the throughput (the slower
				 * side's) is 0. A window of time instead. */
				args[n++] = "--duration";
				args[n++] = "0.05";
			} else {
				args[n++] = "--ops";
				args[n++] = "30000";
			}
			if (k == 1) /* bursts where the queue has them */
				args[n++] = "--bursts";
			/* both item modes: shapes 1 and 3 hand over messages (all
			 * four where the queue takes message items only) */
			args[n++] = "--item";
			args[n++] = k % 2 || hq_all[q]->message_only ? "message" : "inline";
			args[n] = NULL;
			run_bench(&r, NULL, args);
			if (r.status != 0)
				fail_msg("%s shape %d: exit %d: %s", hq_all[q]->name, k, r.status, r.err);
			check_result_dir(dir, hq_all[q]->name);
		}
	}
}

static void every_queue_runs_and_verifies(void **state)
{
	(void)state;
	const int shapes[] = {0, 3};
	every_queue_in_shapes(shapes, 2);
}

/* make test-slow: the closed-loop 2P2C bursts and the 4P4C shape */
static void every_queue_runs_and_verifies_oversubscribed(void **state)
{
	(void)state;
	const int shapes[] = {1, 2};
	every_queue_in_shapes(shapes, 2);
}

/* a field of s as a number (0 for an empty cell) */
static double num(const struct summary *s, const char *name)
{
	return atof(field(s, name));
}

static int near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fabs(b) + 1.0;
}

/* Every queue in the symmetric workloads, pairs and mixed, at 2 threads
 * (numaring's backoff exp, as the check runs it): inline single
 * operations and messages in bursts. The queues that move data verify
 * exactly (each thread is a producer), faa and null are measured only, and
 * the row says what it counted: operations, each thread a producer and a
 * consumer, mixed's share, prefill and seed. In pairs every thread does one
 * dequeue per enqueue, failed or not: with single operations the attempts
 * of the two kinds differ only by what the final drain dequeued. */
static void symmetric_workloads_run_and_verify(void **state)
{
	(void)state;
	static struct outcome r;
	const char *workloads[] = {"pairs", "mixed"};
	for (int q = 0; hq_all[q]; q++) {
		if (hq_all[q]->test_only) /* broken on purpose: see fault_is_caught */
			continue;
		for (int w = 0; w < 2; w++)
			for (int k = 0; k < 2; k++) {
				char dir[400], tag[96], path[512];
				struct summary s;
				snprintf(tag, sizeof tag, "sym-%s-%s-%d", hq_all[q]->name, workloads[w], k);
				fresh_dir(dir, sizeof dir, tag);
				const char *args[32] = {"--queue", hq_all[q]->name, "--workload",
							workloads[w], "--threads", "2", "--backoff", "exp",
							"--duration", "0.1", "--warmup", "0.02", "--capacity",
							"64", "--batch", "8", "--calibrate", "0.05", "--out",
							dir, "--quiet", "--item",
							k || hq_all[q]->message_only ? "message" : "inline",
							k ? "--bursts" : NULL, NULL};
				run_bench(&r, NULL, args);
				if (r.status != 0)
					fail_msg("%s: exit %d: %s", tag, r.status, r.err);
				check_result_dir(dir, hq_all[q]->name);
				read_summary(dir, &s);
				assert_string_equal(field(&s, "workload"), workloads[w]);
				assert_string_equal(field(&s, "threads"), "2");
				assert_string_equal(field(&s, "producers"), "2");
				assert_string_equal(field(&s, "consumers"), "2");
				assert_string_equal(field(&s, "ops_kind"), "operations");
				double ops = num(&s, "ops"), d = num(&s, "duration_s");
				if (!(ops > 0) || !near(num(&s, "throughput_ops_per_s"), ops / d, 1e-3) ||
				    !near(num(&s, "enqueue_ops_per_s") + num(&s, "dequeue_ops_per_s"),
					  ops / d, 1e-3))
					fail_msg("%s: ops %.0f in %.6f s, throughput %s, enqueues %s/s + "
						 "dequeues %s/s: not operations per second", tag, ops, d,
						 field(&s, "throughput_ops_per_s"),
						 field(&s, "enqueue_ops_per_s"), field(&s, "dequeue_ops_per_s"));
				assert_string_equal(field(&s, "work_ns"), "0");
				assert_string_equal(field(&s, "producer_work_ns"), "");
				assert_string_equal(field(&s, "work_loops_per_ns"), "");
				double prefill = num(&s, "prefill");
				if (w == 1) {
					assert_string_equal(field(&s, "enqueue_share"), "0.5");
					assert_string_equal(field(&s, "seed"), "1");
					/* half of 64 slots (ck's ring holds 63) */
					if (prefill < 31 || prefill > 32)
						fail_msg("%s: prefill %.0f, expected half of 64", tag, prefill);
				} else {
					assert_string_equal(field(&s, "enqueue_share"), "");
					assert_string_equal(field(&s, "prefill"), "");
					assert_string_equal(field(&s, "seed"), "");
				}
				/* fairness: fewest / most operations of a thread, in (0, 1] */
				double fair = num(&s, "fairness");
				if (!(fair > 0 && fair <= 1))
					fail_msg("%s: fairness %s, expected a ratio in (0, 1]", tag,
						 field(&s, "fairness"));
				if (w == 0 && k == 0) {
					double enq = num(&s, "enqueued") - prefill + num(&s, "full_retries") +
						     num(&s, "window_waits");
					double deq = num(&s, "dequeued") + num(&s, "empty_polls");
					/* the drain takes at most what is in flight */
					if (deq < enq || deq > enq + 128)
						fail_msg("%s: %.0f enqueue attempts, %.0f dequeue attempts: "
							 "pairs does one of each", tag, enq, deq);
				}
				free(s.text);
				snprintf(path, sizeof path, "%s/meta.json", dir);
				char *meta = slurp(path, NULL);
				assert_non_null(meta);
				char want[128];
				snprintf(want, sizeof want, "\"workload\": {\"name\": \"%s\", \"threads\": 2",
					 workloads[w]);
				if (!strstr(meta, want) || !strstr(meta, "\"role\": \"thread\"") ||
				    strstr(meta, "\"role\": \"producer\""))
					fail_msg("%s: meta.json lacks %s or its threads' role", tag, want);
				free(meta);
			}
	}
}

/* mixed draws each operation: with --enqueue-share F the share of enqueue
 * attempts among all attempts is F, also in a queue of 4 slots that is
 * full or empty most of the time (an operation that fails is counted once
 * and not retried, so a full queue does not add enqueue attempts); the
 * walk meets both ends. --work slows every thread down to its drawn work,
 * calibrated and recorded; --producer-work and --consumer-work put a 1P1C
 * run in either regime; --rate paces a symmetric run's enqueues, and --ops
 * counts its items. */
static void workload_choices_work_and_pace(void **state)
{
	(void)state;
	static struct outcome r;
	char dir[400];
	struct summary s;
	const char *shares[] = {"0.2", "0.8"};
	for (int i = 0; i < 2; i++) {
		fresh_dir(dir, sizeof dir, "share");
		const char *args[] = {"--queue", "flat", "--workload", "mixed", "--threads", "2",
				      "--enqueue-share", shares[i], "--capacity", "4", "--batch", "1",
				      "--duration", "0.2", "--warmup", "0", "--calibrate", "0",
				      "--seed", "7", "--out", dir, "--quiet", NULL};
		run_bench(&r, NULL, args);
		if (r.status != 0)
			fail_msg("--enqueue-share %s: exit %d: %s", shares[i], r.status, r.err);
		read_summary(dir, &s);
		double enq = num(&s, "enqueued") - num(&s, "prefill") + num(&s, "full_retries");
		double deq = num(&s, "dequeued") + num(&s, "empty_polls");
		double share = enq / (enq + deq);
		if (fabs(share - atof(shares[i])) > 0.01)
			fail_msg("--enqueue-share %s: %.0f enqueue and %.0f dequeue attempts, a share "
				 "of %.4f", shares[i], enq, deq, share);
		if (!(num(&s, "full_retries") > 0) || !(num(&s, "empty_polls") > 0))
			fail_msg("--enqueue-share %s, 4 slots: full %s times, empty %s times",
				 shares[i], field(&s, "full_retries"), field(&s, "empty_polls"));
		assert_string_equal(field(&s, "prefill"), "2");
		assert_string_equal(field(&s, "seed"), "7");
		assert_string_equal(field(&s, "verify"), "ok");
		free(s.text);
	}

	/* pairs with 0..20 us of work per operation: at most 2 x 100000
	 * operations per second, where the flat ring alone does millions */
	fresh_dir(dir, sizeof dir, "work");
	const char *work[] = {"--queue", "flat", "--workload", "pairs", "--threads", "2",
			      "--work", "20000", "--duration", "0.2", "--warmup", "0",
			      "--calibrate", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, work);
	if (r.status != 0)
		fail_msg("--work: exit %d: %s", r.status, r.err);
	read_summary(dir, &s);
	if (!(num(&s, "throughput_ops_per_s") > 0 && num(&s, "throughput_ops_per_s") < 300000))
		fail_msg("--work 20000: %s operations/s: the work was not done",
			 field(&s, "throughput_ops_per_s"));
	assert_string_equal(field(&s, "work_ns"), "20000");
	assert_true(num(&s, "work_loops_per_ns") > 0);
	const double uniform_rate = num(&s, "throughput_ops_per_s");
	assert_string_equal(field(&s, "seed"), "1");
	free(s.text);
	char path[512];
	snprintf(path, sizeof path, "%s/meta.json", dir);
	char *meta = slurp(path, NULL);
	assert_non_null(meta);
	assert_non_null(strstr(meta, "\"calibration\": {\"loops_per_ns\": "));
	free(meta);

	/* --work MIN-MAX: every operation does at least MIN, so 2 threads of
	 * 19..20 us each make about half the operations of 0..20 us (as
	 * above): the bound is a ratio to that run, 0.75, between the two, so
	 * that a work loop calibrated on a busy CPU (a few tens of percent
	 * off, the same for both runs) does not fail it and a lost floor does.
	 * Three runs of each, interleaved: the fastest uniform run against
	 * the slowest floor run, so that another process taking a CPU during
	 * a uniform run (which only slows it) does not fail it either. */
	double uniform_best = uniform_rate, floor_slowest = 0;
	for (int k = 0; k < 3; k++) {
		if (k > 0) {
			fresh_dir(dir, sizeof dir, "work");
			run_bench(&r, NULL, work);
			if (r.status != 0)
				fail_msg("--work: exit %d: %s", r.status, r.err);
			read_summary(dir, &s);
			if (num(&s, "throughput_ops_per_s") > uniform_best)
				uniform_best = num(&s, "throughput_ops_per_s");
			free(s.text);
		}
		fresh_dir(dir, sizeof dir, "workmin");
		const char *workmin[] = {"--queue", "flat", "--workload", "pairs", "--threads", "2",
					 "--work", "19000-20000", "--duration", "0.2", "--warmup", "0",
					 "--calibrate", "0", "--out", dir, "--quiet", NULL};
		run_bench(&r, NULL, workmin);
		if (r.status != 0)
			fail_msg("--work 19000-20000: exit %d: %s", r.status, r.err);
		read_summary(dir, &s);
		assert_true(num(&s, "throughput_ops_per_s") > 0);
		if (k == 0 || num(&s, "throughput_ops_per_s") < floor_slowest)
			floor_slowest = num(&s, "throughput_ops_per_s");
		assert_string_equal(field(&s, "work_ns"), "20000");
		assert_string_equal(field(&s, "work_min_ns"), "19000");
		free(s.text);
	}
	if (!(floor_slowest < 0.75 * uniform_best))
		fail_msg("--work 19000-20000: %.1f operations/s at the slowest of 3 runs against "
			 "%.1f with --work 20000 at the fastest: the floor was not kept",
			 floor_slowest, uniform_best);

	/* 1P1C regimes: a slower producer leaves the consumer polling an empty
	 * ring, a slower consumer leaves the producer facing a full one */
	const char *sides[] = {"--producer-work", "--consumer-work"};
	for (int i = 0; i < 2; i++) {
		fresh_dir(dir, sizeof dir, "regime");
		const char *args[] = {"--queue", "flat", sides[i], "5000", "--capacity", "64",
				      "--duration", "0.2", "--warmup", "0", "--calibrate", "0",
				      "--out", dir, "--quiet", NULL};
		run_bench(&r, NULL, args);
		if (r.status != 0)
			fail_msg("%s: exit %d: %s", sides[i], r.status, r.err);
		read_summary(dir, &s);
		assert_string_equal(field(&s, "workload"), "prodcons");
		assert_string_equal(field(&s, "ops_kind"), "items");
		assert_string_equal(field(&s, i ? "consumer_work_ns" : "producer_work_ns"), "5000");
		assert_string_equal(field(&s, i ? "producer_work_ns" : "consumer_work_ns"), "0");
		/* the faster side waits on every item the slower one handles: more
		 * polls than items (a count of the other kind can be as large: the
		 * consumers also poll an empty ring through the drain) */
		double full = num(&s, "full_retries"), empty = num(&s, "empty_polls");
		double items = num(&s, "dequeued");
		if (i == 0 ? !(empty > items) : !(full > items))
			fail_msg("%s 5000: %.0f full retries, %.0f empty polls, %.0f items", sides[i],
				 full, empty, items);
		free(s.text);
	}

	/* --rate: the enqueues' pace, every item timed */
	fresh_dir(dir, sizeof dir, "sym-rate");
	const char *rate[] = {"--queue", "flat", "--workload", "pairs", "--threads", "2", "--rate",
			      "100000", "--duration", "0.2", "--warmup", "0", "--calibrate", "0",
			      "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, rate);
	if (r.status != 0)
		fail_msg("pairs --rate: exit %d: %s", r.status, r.err);
	read_summary(dir, &s);
	double enq_rate = num(&s, "enqueue_ops_per_s");
	if (enq_rate < 50000 || enq_rate > 110000)
		fail_msg("pairs --rate 100000: %.0f enqueues/s", enq_rate);
	assert_string_equal(field(&s, "sample"), "1");
	assert_true(num(&s, "latency_count") > 5000);
	free(s.text);

	/* --ops: the threads enqueue the window's items in shares, and the
	 * window closes when that many have gone through */
	fresh_dir(dir, sizeof dir, "sym-ops");
	const char *ops[] = {"--queue", "flat", "--workload", "mixed", "--threads", "2", "--ops",
			     "200000", "--warmup", "0", "--calibrate", "0", "--out", dir, "--quiet",
			     NULL};
	run_bench(&r, NULL, ops);
	if (r.status != 0)
		fail_msg("mixed --ops: exit %d: %s", r.status, r.err);
	read_summary(dir, &s);
	assert_true(num(&s, "dequeued") >= 200000);
	assert_true(num(&s, "ops") > 200000); /* those, and the window's enqueues */
	assert_true(num(&s, "enqueued") <= 200000 + num(&s, "prefill"));
	assert_string_equal(field(&s, "verify"), "ok");
	free(s.text);
}

static void emulated_split_moves_batches_for_every_gate_and_backoff(void **state)
{
	(void)state;
	static struct outcome r;
	if (ncpus < 2)
		skip();
	const char *gates[] = {"shared", "pernode", "perworker"};
	const char *backoffs[] = {"none", "pause", "exp", "yield"};
	for (int g = 0; g < 3; g++)
		for (int b = 0; b < 4; b++) {
			char dir[400], tag[64];
			snprintf(tag, sizeof tag, "split-%s-%s", gates[g], backoffs[b]);
			fresh_dir(dir, sizeof dir, tag);
			const char *args[] = {"--topology", topo2, "--pin", "split", "--gate",
					      gates[g], "--backoff", backoffs[b], "--ops", "20000",
					      "--warmup", "0", "--capacity", "64", "--batch", "8",
					      "--producers", "2", "--consumers", "2", "--out", dir,
					      "--quiet", NULL};
			run_bench(&r, NULL, args);
			if (r.status != 0)
				fail_msg("%s/%s: exit %d: %s", gates[g], backoffs[b], r.status, r.err);
			struct summary s;
			read_summary(dir, &s);
			assert_string_equal(field(&s, "topology_kind"), "emulated");
			assert_string_equal(field(&s, "verify"), "ok");
			assert_true(atoll(field(&s, "batches_out")) + atoll(field(&s, "batches_in")) > 0);
			assert_true(atoll(field(&s, "items_in")) > 0);
			free(s.text);
		}
}

/* Latency by path (issue 31): numaring's timed items by the path their
 * dequeue served them from, local ring, cross-node transfer or held, each
 * path a histogram of its own (check_paths: the counts add up to the
 * overall count, latency-path.csv agrees with the summary). On two emulated
 * nodes with producers and consumers apart (--pin split) items cross, and
 * some come by transfer, in every item mode, single and burst, prodcons
 * and mixed; on one node with compact pinning all are local; another
 * queue's columns are empty and it writes no latency-path.csv. */
static void latency_by_path(void **state)
{
	(void)state;
	static struct outcome r;
	struct summary s;
	char dir[400];
	const struct hq_ops *nr = hq_find("numaring"), *flat = hq_find("flat");
	assert_non_null(nr);
	assert_non_null(nr->dequeue_paths);
	assert_non_null(flat);
	assert_null(flat->dequeue_paths);
	if (ncpus >= 2) {
		/* [item, bursts, workload]: every item timed (--sample 1), so that
		 * each transfer inside the window shows */
		const char *runs[][3] = {{"inline", "", "prodcons"},
					 {"message", "--bursts", "prodcons"},
					 {"inline", "--bursts", "mixed"}};
		for (int k = 0; k < 3; k++) {
			char tag[64];
			snprintf(tag, sizeof tag, "paths-split-%d", k);
			fresh_dir(dir, sizeof dir, tag);
			int mixed = strcmp(runs[k][2], "mixed") == 0;
			const char *args[32] = {"--queue", "numaring", "--topology", topo2,
						"--pin", mixed ? "scatter" : "split", "--item",
						runs[k][0], "--workload", runs[k][2], "--ops", "20000",
						"--warmup", "0", "--capacity", "64", "--batch", "8",
						"--sample", "1", "--out", dir, "--quiet"};
			int n = 23;
			if (mixed) {
				args[n++] = "--threads";
				args[n++] = "2";
			} else {
				args[n++] = "--producers";
				args[n++] = "1";
				args[n++] = "--consumers";
				args[n++] = "1";
			}
			if (*runs[k][1])
				args[n++] = runs[k][1];
			args[n] = NULL;
			run_bench(&r, NULL, args);
			if (r.status != 0)
				fail_msg("%s %s %s: exit %d: %s", runs[k][0], runs[k][1], runs[k][2],
					 r.status, r.err);
			read_summary(dir, &s);
			assert_string_equal(field(&s, "verify"), "ok");
			assert_true(atoll(field(&s, "latency_count")) > 0);
			check_paths(dir, &s, nr);
			/* mixed: each thread dequeues its own node's ring first, and
			 * may find it full of its own items all run long */
			if (!mixed && atoll(field(&s, "latency_transfer_count")) == 0)
				fail_msg("%s %s: no timed item came by transfer on split nodes (%s "
					 "transfers in)",
					 runs[k][0], runs[k][1], field(&s, "batches_in"));
			free(s.text);
		}
	}
	/* one node, compact: nothing crosses, nothing is held */
	fresh_dir(dir, sizeof dir, "paths-one");
	const char *one[] = {"--queue", "numaring", "--topology", topo1, "--pin", "compact",
			     "--producers", "1", "--consumers", "1", "--ops", "20000", "--warmup",
			     "0", "--capacity", "64", "--batch", "8", "--sample", "1", "--out", dir,
			     "--quiet", NULL};
	run_bench(&r, NULL, one);
	if (r.status != 0)
		fail_msg("one node: exit %d: %s", r.status, r.err);
	read_summary(dir, &s);
	check_paths(dir, &s, nr);
	assert_true(atoll(field(&s, "latency_count")) > 0);
	assert_string_equal(field(&s, "latency_local_count"), field(&s, "latency_count"));
	assert_string_equal(field(&s, "latency_transfer_count"), "0");
	assert_string_equal(field(&s, "latency_held_count"), "0");
	assert_string_equal(field(&s, "latency_local_p50_ns"), field(&s, "p50_ns"));
	free(s.text);
	/* another queue: empty cells, no file */
	fresh_dir(dir, sizeof dir, "paths-flat");
	const char *other[] = {"--queue", "flat", "--producers", "1", "--consumers", "1",
			       "--ops", "20000", "--warmup", "0", "--capacity", "64", "--sample", "1",
			       "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, other);
	if (r.status != 0)
		fail_msg("flat: exit %d: %s", r.status, r.err);
	read_summary(dir, &s);
	assert_true(atoll(field(&s, "latency_count")) > 0);
	check_paths(dir, &s, flat);
	free(s.text);
}

/* Results that cannot be written (the disk fills up): exit 3, one message,
 * nothing left behind, for a run and for the probe. */
static void results_that_cannot_be_written_exit_3(void **state)
{
	(void)state;
	static struct outcome r;
	char dir[400];
	fresh_dir(dir, sizeof dir, "full");
	const char *run[] = {"--ops", "2000", "--warmup", "0", "--out", dir, NULL};
	child_fsize = 64; /* every result file is larger */
	run_bench(&r, NULL, run);
	child_fsize = -1;
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "numaring-bench: cannot write"));
	assert_non_null(strstr(r.err, "File too large"));
	assert_int_equal(count_entries(dir), 0);
	const char *probe[] = {"--probe", "--quick", "--out", dir, NULL};
	child_fsize = 64;
	run_bench(&r, NULL, probe);
	child_fsize = -1;
	assert_int_equal(r.status, 3);
	assert_non_null(strstr(r.err, "File too large"));
	assert_int_equal(count_entries(dir), 0);
}

/* Pinning that crowds threads on one CPU while others idle is announced;
 * pinning that uses every CPU is not. */
static void crowded_pinning_is_announced(void **state)
{
	(void)state;
	static struct outcome r;
	if (ncpus != 2)
		skip(); /* the emulated nodes "a;b" have one CPU each only here */
	char dir[400];
	fresh_dir(dir, sizeof dir, "crowded");
	const char *scatter[] = {"--topology", topo2, "--pin", "scatter", "--ops", "2000",
				 "--warmup", "0", "--capacity", "64", "--batch", "8",
				 "--out", dir, NULL};
	run_bench(&r, NULL, scatter);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.err, "note: --pin scatter puts two or more threads on CPU"));
	const char *compact[] = {"--topology", topo2, "--pin", "compact", "--ops", "2000",
				 "--warmup", "0", "--capacity", "64", "--batch", "8",
				 "--out", dir, NULL};
	run_bench(&r, NULL, compact);
	assert_int_equal(r.status, 0);
	assert_null(strstr(r.err, "note:"));
}

/* A queue that loses, duplicates or corrupts one item in a million is
 * caught in both item modes: exit 1, a message naming the producer, and no
 * result written. */
/* A broken queue's run, again (up to three runs in all) while it exits 0:
 * on a machine loaded enough to stall its threads past --drain-timeout the
 * run ends before the millionth item, where the fault strikes; a check that
 * misses the fault exits 0 every time and still fails the test. */
static void run_faulty(struct outcome *r, const char *const *args)
{
	const char *out = NULL; /* a run that exited 0 wrote its result there */
	for (int k = 0; args[k]; k++)
		if (!strcmp(args[k], "--out") && args[k + 1])
			out = args[k + 1];
	for (int attempt = 0; attempt < 3; attempt++) {
		if (attempt > 0 && out) {
			/* the next run must write nothing of its own: clear
			 * what the one that missed the fault left */
			char cmd[600];
			snprintf(cmd, sizeof cmd, "rm -rf '%s'", out);
			assert_int_equal(system(cmd), 0);
		}
		run_bench(r, NULL, args);
		if (r->status != 0)
			return;
	}
}

/* The broken queues and what stderr says of each; the item kinds they run with */
static const char *const fault_queues[][2] = {
	{"fault-drop", "lost"},
	{"fault-dup", "duplicate"},
	{"fault-corrupt", "checksum differs"},
	{"fault-reorder", "arrived after a later item of its producer"}};
static const char *const fault_item_kinds[] = {"inline", "message"};

/* One fault (fault_queues[f]) caught in every way a consumer accounts:
 * single operations with inline values and with messages, and bursts of
 * inline values through the loops' own pass (--accounting auto: inline);
 * a corruption and a reordering also through each called width (item_sum.h),
 * whose checksum and order word must name them as the inline pass does (a
 * loss or a duplicate changes the count, which no width computes). */
static void fault_is_caught(int f)
{
	static struct outcome r;
	const char *widths[] = {"auto", "scalar", "vector"};
	int runs = f == 2 || f == 3 ? 2 + 3 : 2 + 1;
	for (int i = 0; i < runs; i++) {
		int bursts = i >= 2;
		const char *kind = bursts ? "inline" : fault_item_kinds[i];
		char dir[400], tag[64];
		snprintf(tag, sizeof tag, "%s-%s%s%s", fault_queues[f][0], kind,
			 bursts ? "-bursts-" : "", bursts ? widths[i - 2] : "");
		fresh_dir(dir, sizeof dir, tag);
		/* 1.5 million items: the fault strikes at the millionth */
		const char *args[] = {"--queue", fault_queues[f][0], "--item", kind, "--accounting",
				      bursts ? widths[i - 2] : "auto", "--ops", "1500000",
				      "--warmup", "0", "--calibrate", "0", "--drain-timeout",
				      /* a drop is found when the drain times out: a short one */
				      f == 0 ? "0.3" : "1",
				      "--out", dir, "--quiet", bursts ? "--bursts" : NULL, NULL};
		run_faulty(&r, args);
		if (r.status != 1)
			fail_msg("%s: exit %d, expected 1; stderr: %s", tag, r.status, r.err);
		/* fault-reorder loses nothing: the order check names it */
		if (f < 3 && !strstr(r.err, "verify failed: producer 0 sent"))
			fail_msg("%s: the message does not name the producer: %s", tag, r.err);
		const char *what = fault_queues[f][1];
		/* a duplicated message is caught by its state, an inline
		 * duplicate by the count */
		if (f == 1 && strcmp(kind, "inline") == 0)
			what = "duplicated";
		if (!strstr(r.err, what))
			fail_msg("%s: stderr lacks \"%s\": %s", tag, what, r.err);
		assert_true(count_entries(dir) <= 0);
	}
}

static void fault_drop_is_caught(void **state)
{
	(void)state;
	fault_is_caught(0);
}

static void fault_dup_is_caught(void **state)
{
	(void)state;
	fault_is_caught(1);
}

static void fault_corrupt_is_caught(void **state)
{
	(void)state;
	fault_is_caught(2);
}

static void fault_reorder_is_caught(void **state)
{
	(void)state;
	fault_is_caught(3);
}

/* The fault queues below a million items are sound: the check itself raises
 * no false alarm. */
static void faults_below_their_period_pass(void **state)
{
	(void)state;
	static struct outcome r;
	char dir[400];
	fresh_dir(dir, sizeof dir, "fault-none");
	const char *ok[] = {"--queue", "fault-corrupt", "--item", "message", "--ops", "200000",
			    "--warmup", "0", "--calibrate", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, ok);
	if (r.status != 0)
		fail_msg("fault-corrupt below its period: exit %d: %s", r.status, r.err);
	fresh_dir(dir, sizeof dir, "fault-none-mixed");
	const char *ok_mixed[] = {"--queue", "fault-corrupt", "--workload", "mixed", "--item",
				  "message", "--ops", "400000", "--warmup", "0", "--calibrate", "0",
				  "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, ok_mixed);
	if (r.status != 0)
		fail_msg("fault-corrupt below its period, mixed: exit %d: %s", r.status, r.err);
	/* bursts in order pass the order word of the loops' own pass */
	fresh_dir(dir, sizeof dir, "fault-none-bursts");
	const char *ok_bursts[] = {"--queue", "fault-reorder", "--bursts", "--ops", "400000",
				   "--warmup", "0", "--calibrate", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, ok_bursts);
	if (r.status != 0)
		fail_msg("fault-reorder below its period, bursts: exit %d: %s", r.status, r.err);
}

/* make test-slow: fault_is_caught's faults in the symmetric workloads */
static void faults_are_caught_in_pairs_and_mixed(void **state)
{
	(void)state;
	static struct outcome r;
	/* each thread is a producer, and its millionth enqueue is broken (2.5
	 * million items: 1.25 million each) */
	const char *workloads[] = {"pairs", "mixed"};
	for (int w = 0; w < 2; w++)
		for (int f = 0; f < 4; f++)
			for (int i = 0; i < 2; i++) {
				char dir[400], tag[64];
				snprintf(tag, sizeof tag, "%s-%s-%s", fault_queues[f][0], workloads[w],
					 fault_item_kinds[i]);
				fresh_dir(dir, sizeof dir, tag);
				const char *args[] = {"--queue", fault_queues[f][0], "--workload",
						      workloads[w], "--threads", "2", "--item",
						      fault_item_kinds[i], "--ops",
						      "2500000", "--warmup", "0", "--calibrate", "0",
						      "--drain-timeout", "1", "--out", dir, "--quiet", NULL};
				run_faulty(&r, args);
				const char *what = f == 1 && i == 0 ? "duplicated"
						   : f == 3	   ? "arrived after a later item"
								   : fault_queues[f][1];
				if (r.status != 1 || !strstr(r.err, "verify failed: ") ||
				    !strstr(r.err, what))
					fail_msg("%s: exit %d, expected 1 and \"%s\": %s", tag, r.status,
						 what, r.err);
				assert_true(count_entries(dir) <= 0);
			}
}

/* The order check (item.h) on every item: every queue that keeps each
 * producer's order enforces it and shows no inversion, in every workload and
 * item mode (message items alone where the queue takes only those), closed
 * and open loop, its timed items' latency still recorded;
 * numaring and sharded with batches crossing emulated nodes count
 * inversions without failing (their stated order is per node); on one node
 * they enforce it too. The k-relaxed queue (xenium-kfifo) counts them
 * without failing on one node too, its runs sound. */
static void order_is_checked_on_every_item(void **state)
{
	(void)state;
	static struct outcome r;
	const char *queues[] = {"numaring", "flat", "ck", "rte", "moodycamel", "boost", "tbb",
				"scq", "xenium-ms", "xenium-ramalhete", "sharded", "urcu", "mutex"};
	const char *shapes[][6] = {{"--producers", "2", "--consumers", "2", NULL, NULL},
				   {"--workload", "mixed", "--threads", "3", NULL, NULL},
				   {"--producers", "1", "--consumers", "1", "--rate", "200000"}};
	for (unsigned q = 0; q < sizeof queues / sizeof *queues; q++)
		for (int sh = 0; sh < 3; sh++) {
			char dir[400], tag[64];
			const char *item = (q + (unsigned)sh) % 2 || hq_find(queues[q])->message_only
						   ? "message" : "inline";
			snprintf(tag, sizeof tag, "order-%s-%d", queues[q], sh);
			fresh_dir(dir, sizeof dir, tag);
			/* no calibration run: the order is what is checked */
			const char *args[20] = {"--queue", queues[q], "--item", item, "--duration",
						"0.15", "--warmup", "0.02", "--calibrate", "0",
						"--out", dir, "--quiet"};
			int n = 13;
			for (int k = 0; k < 6 && shapes[sh][k]; k++)
				args[n++] = shapes[sh][k];
			run_bench(&r, topo1_env, args); /* one node: every queue enforces */
			if (r.status != 0)
				fail_msg("%s: exit %d: %s", tag, r.status, r.err);
			struct summary s;
			read_summary(dir, &s);
			if (strcmp(field(&s, "ordering_enforced"), "1") ||
			    num(&s, "inversions_per_million") != 0 ||
			    strcmp(field(&s, "max_backward_step"), "0") ||
			    strcmp(field(&s, "verify"), "ok"))
				fail_msg("%s: enforced %s, inversions %s, step %s, verify %s", tag,
					 field(&s, "ordering_enforced"),
					 field(&s, "inversions_per_million"),
					 field(&s, "max_backward_step"), field(&s, "verify"));
			/* timed items' send times were found (their age); open loop
			 * times every item, so some fall in the window whatever
			 * the load of the machine */
			if ((sh == 2 && !(num(&s, "latency_count") > 0)) ||
			    !(num(&s, "max_item_age_ns") > 0))
				fail_msg("%s: no timed item recorded (latency_count %s, max age %s)",
					 tag, field(&s, "latency_count"), field(&s, "max_item_age_ns"));
			free(s.text);
		}
	/* batches cross emulated nodes: inversions counted, the run sound */
	int seen = !strchr(topo2, ';'); /* one allowed CPU: no second node */
	for (int attempt = 0; attempt < 3 && !seen; attempt++) {
		char dir[400], env[300];
		snprintf(env, sizeof env, "NUMARING_TOPOLOGY=%s", topo2);
		fresh_dir(dir, sizeof dir, "order-numaring-split");
		const char *args[] = {"--queue", "numaring", "--producers", "2", "--consumers", "2",
				      "--pin", "split", "--capacity", "64", "--batch", "8",
				      "--duration", "0.3", "--warmup", "0.02", "--out", dir, "--quiet",
				      NULL};
		run_bench(&r, env, args);
		if (r.status != 0)
			fail_msg("numaring split: exit %d: %s", r.status, r.err);
		struct summary s;
		read_summary(dir, &s);
		assert_string_equal(field(&s, "ordering"), "per-node");
		assert_string_equal(field(&s, "ordering_enforced"), "0");
		assert_string_equal(field(&s, "verify"), "ok");
		seen = num(&s, "inversions_per_million") > 0;
		free(s.text);
	}
	if (!seen)
		fail_msg("numaring across emulated nodes showed no inversion in 3 runs");
	/* numaring on one node: enforced */
	char dir[400];
	fresh_dir(dir, sizeof dir, "order-numaring-one");
	const char *one[] = {"--queue", "numaring", "--producers", "1", "--consumers", "1",
			     "--duration", "0.1", "--warmup", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, topo1_env, one);
	assert_int_equal(r.status, 0);
	struct summary s;
	read_summary(dir, &s);
	assert_string_equal(field(&s, "ordering_enforced"), "1");
	free(s.text);
	/* the k-FIFO on one node: counted, never enforced; the run sound
	 * whatever it counts (its inversions depend on the schedule) */
	fresh_dir(dir, sizeof dir, "order-kfifo");
	const char *kfifo[] = {"--queue", "xenium-kfifo", "--item", "message", "--producers", "2",
			       "--consumers", "2", "--duration", "0.15", "--warmup", "0.02",
			       "--out", dir, "--quiet", NULL};
	run_bench(&r, topo1, kfifo);
	if (r.status != 0)
		fail_msg("xenium-kfifo: exit %d: %s", r.status, r.err);
	read_summary(dir, &s);
	assert_string_equal(field(&s, "ordering"), "k-relaxed");
	assert_string_equal(field(&s, "ordering_enforced"), "0");
	assert_string_equal(field(&s, "verify"), "ok");
	free(s.text);
}

/* --strip (make bench-fidelity's table of where the time goes): each set of
 * removed costs runs, in single operations and bursts, says so in meta.json
 * and still verifies (totals where the tallies are stripped: verify
 * "count"), and a lost item is still caught with the tallies gone. */
static void stripped_runs_say_so_and_still_verify(void **state)
{
	(void)state;
	static struct outcome r;
	const char *sets[] = {"publish", "window", "accounting", "publish,window,accounting"};
	for (int i = 0; i < 4; i++)
		for (int b = 0; b < 2; b++) {
			char dir[400], tag[64], meta[480], want[96];
			snprintf(tag, sizeof tag, "strip-%d-%d", i, b);
			fresh_dir(dir, sizeof dir, tag);
			const char *args[] = {"--queue", "flat", "--strip", sets[i], "--duration",
					      "0.1", "--warmup", "0", "--out", dir, "--quiet",
					      b ? "--bursts" : NULL, NULL};
			run_bench(&r, NULL, args);
			if (r.status != 0)
				fail_msg("--strip %s%s: exit %d: %s", sets[i], b ? " --bursts" : "",
					 r.status, r.err);
			struct summary s;
			read_summary(dir, &s);
			assert_string_equal(field(&s, "verify"), i >= 2 ? "count" : "ok");
			assert_true(num(&s, "throughput_ops_per_s") > 0);
			free(s.text);
			snprintf(meta, sizeof meta, "%s/meta.json", dir);
			char *text = slurp(meta, NULL);
			assert_non_null(text);
			snprintf(want, sizeof want, "\"stripped\": {\"costs\": \"%s\"", sets[i]);
			if (!strstr(text, want))
				fail_msg("%s lacks %s", meta, want);
			free(text);
		}
	/* a plain run's meta.json has no "stripped" at all */
	char dir[400], meta[480];
	fresh_dir(dir, sizeof dir, "strip-none");
	const char *plain[] = {"--queue", "flat", "--duration", "0.1", "--warmup", "0",
			       "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, plain);
	assert_int_equal(r.status, 0);
	snprintf(meta, sizeof meta, "%s/meta.json", dir);
	char *text = slurp(meta, NULL);
	assert_non_null(text);
	assert_null(strstr(text, "\"stripped\""));
	free(text);
	/* fault-drop loses items at the millionth: counted totals catch it */
	fresh_dir(dir, sizeof dir, "strip-drop");
	const char *drop[] = {"--queue", "fault-drop", "--strip", "accounting", "--duration",
			      "1", "--warmup", "0", "--drain-timeout", "1", "--out", dir,
			      "--quiet", NULL};
	run_faulty(&r, drop);
	if (r.status != 1 || !strstr(r.err, "verify failed: the producers sent"))
		fail_msg("fault-drop --strip accounting: exit %d, expected 1: %s", r.status, r.err);
}

/* --manifest names every queue, and summary.csv's columns as --schema does,
 * in its order (scripts/tests/test_manifest.py reads the rest). */
static void manifest_names_the_queues_and_the_schema(void **state)
{
	(void)state;
	static struct outcome m, sc;
	const char *manifest[] = {"--manifest", NULL};
	run_bench(&m, NULL, manifest);
	assert_int_equal(m.status, 0);
	assert_memory_equal(m.out, "{\n", 2);
	char want[256];
	for (int i = 0; hq_all[i]; i++) {
		snprintf(want, sizeof want, "{\"name\": \"%s\", ", hq_all[i]->name);
		if (!strstr(m.out, want))
			fail_msg("--manifest does not list queue %s", hq_all[i]->name);
	}
	const char *schema[] = {"--schema", NULL};
	run_bench(&sc, NULL, schema);
	assert_int_equal(sc.status, 0);
	const char *at = strstr(m.out, "\"summary_columns\": [");
	assert_non_null(at);
	const char *line = strchr(sc.out, '\n') + 1;
	int k = 0;
	for (; *line; k++) {
		size_t len = strcspn(line, ",");
		const char *type = line + len + 1;
		snprintf(want, sizeof want, "{\"name\": \"%.*s\", \"type\": \"%.*s\", ", (int)len,
			 line, (int)strcspn(type, ","), type);
		const char *found = strstr(at, want);
		if (!found)
			fail_msg("--manifest's summary_columns lack --schema's column %d, %s", k, want);
		at = found + 1;
		line = strchr(line, '\n');
		assert_non_null(line);
		line++;
	}
	assert_true(k > 0);
}

/* Timed items are one in --sample; --schema lists summary.csv's columns in
 * the order a run writes them; --calibrate 0 says why there is no ceiling. */
static void sampling_schema_and_calibration(void **state)
{
	(void)state;
	static struct outcome r;
	char dir[400];
	struct summary s;
	fresh_dir(dir, sizeof dir, "sample");
	const char *args[] = {"--queue", "flat", "--ops", "256000", "--warmup", "0", "--sample", "64",
			      "--calibrate", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, args);
	assert_int_equal(r.status, 0);
	read_summary(dir, &s);
	long long timed = atoll(field(&s, "latency_count"));
	if (timed < 1 || timed > 256000 / 64 + 1)
		fail_msg("latency_count %lld for 256000 items, one in 64 timed", timed);
	assert_string_equal(field(&s, "sample"), "64");
	assert_string_equal(field(&s, "item"), "inline");
	assert_string_equal(field(&s, "harness_ops_per_s"), "");
	char path[512];
	snprintf(path, sizeof path, "%s/meta.json", dir);
	char *meta = slurp(path, NULL);
	assert_non_null(meta);
	assert_non_null(strstr(meta, "\"not_measured\": \"--calibrate 0\""));
	free(meta);

	const char *schema[] = {"--schema", NULL};
	run_bench(&r, NULL, schema);
	assert_int_equal(r.status, 0);
	assert_memory_equal(r.out, "column,type,description\n", 24);
	/* the first field of each schema line is the next column of the header */
	const char *line = strchr(r.out, '\n') + 1;
	int k = 0;
	for (; *line; k++) {
		size_t len = strcspn(line, ",");
		assert_true(k < s.n);
		if (strlen(s.names[k]) != len || strncmp(line, s.names[k], len) != 0)
			fail_msg("--schema column %d is %.*s, summary.csv has %s", k, (int)len, line,
				 s.names[k]);
		const char *type = line + len + 1;
		assert_true(strncmp(type, "str,", 4) == 0 || strncmp(type, "int,", 4) == 0 ||
			    strncmp(type, "float,", 6) == 0);
		line = strchr(line, '\n');
		assert_non_null(line);
		line++;
	}
	assert_int_equal(k, s.n);
	free(s.text);

	/* --load: open loop at a fraction of the capacity measured first */
	fresh_dir(dir, sizeof dir, "load");
	const char *load[] = {"--load", "0.25", "--load-probe", "0.1", "--duration", "0.2",
			      "--warmup", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, load);
	assert_int_equal(r.status, 0);
	read_summary(dir, &s);
	double cap = atof(field(&s, "capacity_ops_per_s")), rate = atof(field(&s, "rate"));
	assert_true(cap > 0);
	assert_true(fabs(rate - 0.25 * cap) <= 1.0 + 1e-6 * cap);
	assert_string_equal(field(&s, "load"), "0.25");
	assert_string_equal(field(&s, "sample"), "1");
	assert_true(atof(field(&s, "inflight")) >= 0);
	free(s.text);

	/* --load with --capacity-ops: the capacity given, no capacity run; the
	 * offered rate is the load's fraction of it, as written */
	fresh_dir(dir, sizeof dir, "load-given");
	const char *given[] = {"--load", "0.25", "--capacity-ops", "400000", "--duration", "0.2",
			       "--warmup", "0", "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, given);
	assert_int_equal(r.status, 0);
	read_summary(dir, &s);
	assert_string_equal(field(&s, "capacity_ops_per_s"), "400000.0");
	assert_string_equal(field(&s, "rate"), "100000");
	assert_string_equal(field(&s, "load"), "0.25");
	free(s.text);

	/* open loop: every item timed unless told otherwise */
	fresh_dir(dir, sizeof dir, "sample-open");
	const char *open_loop[] = {"--rate", "100000", "--duration", "0.2", "--warmup", "0",
				   "--out", dir, "--quiet", NULL};
	run_bench(&r, NULL, open_loop);
	assert_int_equal(r.status, 0);
	read_summary(dir, &s);
	assert_string_equal(field(&s, "sample"), "1");
	assert_true(atoll(field(&s, "latency_count")) > 10000);
	free(s.text);
}

/* errno of perf_event_open for one of --counters' events on this thread
 * (counters.c opens them so: software events with the kernel, hardware ones
 * in user space), 0 if it opens: what the harness must find too. */
static int perf_open_errno(uint32_t type, uint64_t config)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.disabled = 1;
	a.exclude_kernel = type == PERF_TYPE_HARDWARE;
	a.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* --counters fills each counter's column with a per-item figure where this
 * machine can count it, and leaves it empty with the reason in meta.json
 * where it cannot (here: the software events count; a VM without a PMU
 * says so for the hardware ones); without --counters every column is empty
 * and meta.json says "not requested". */
static void counters_over_the_window(void **state)
{
	(void)state;
	static struct outcome r;
	static const struct {
		const char *name;
		uint32_t type;
		uint64_t config;
	} ev[] = {
		{"context_switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
		{"cpu_migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
		{"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
		{"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
		{"llc_misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
	};
	int pmu = access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
		  access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0;
	for (int with = 0; with < 2; with++) {
		char dir[400], path[512], want[512];
		struct summary s;
		fresh_dir(dir, sizeof dir, with ? "counters" : "no-counters");
		const char *args[] = {"--producers", "1", "--consumers", "1", "--duration", "0.2",
				      "--warmup", "0", "--calibrate", "0", "--out", dir, "--quiet",
				      with ? "--counters" : NULL, NULL};
		run_bench(&r, NULL, args);
		if (r.status != 0)
			fail_msg("--counters=%d: exit %d: %s", with, r.status, r.err);
		read_summary(dir, &s);
		snprintf(path, sizeof path, "%s/meta.json", dir);
		char *meta = slurp(path, NULL);
		assert_non_null(meta);
		snprintf(want, sizeof want, "\"counters\": {\"requested\": %s", with ? "true" : "false");
		if (!strstr(meta, want))
			fail_msg("meta.json lacks %s", want);
		assert_true(atoll(field(&s, "ops")) > 0);
		for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
			const char *v = field(&s, ev[i].name);
			int e = perf_open_errno(ev[i].type, ev[i].config);
			if (with && !e) {
				char *end;
				double x = strtod(v, &end);
				if (!*v || *end || !(x >= 0))
					fail_msg("%s = \"%s\": expected a number >= 0", ev[i].name, v);
				snprintf(want, sizeof want, "\"%s\": {\"measured\": true", ev[i].name);
			} else {
				if (*v)
					fail_msg("%s = \"%s\" where it was not counted", ev[i].name, v);
				if (with)
					snprintf(want, sizeof want, "\"why_not\": \"%s: %s", ev[i].name,
						 strerror(e));
				else
					snprintf(want, sizeof want, "\"why_not\": \"not requested (--counters)\"");
			}
			if (!strstr(meta, want))
				fail_msg("meta.json lacks %s", want);
			/* a machine without a PMU (most VMs) is named as the reason */
			if (with && ev[i].type == PERF_TYPE_HARDWARE && !pmu && e == ENOENT &&
			    !strstr(meta, "no hardware PMU"))
				fail_msg("meta.json does not say that there is no hardware PMU");
		}
		free(meta);
		free(s.text);
	}
}

/* The integer after "key": in the text from p, or -1 for null / absent. */
static long json_int_after(const char *p, const char *key)
{
	const char *k = p ? strstr(p, key) : NULL;
	if (!k)
		return -1;
	k += strlen(key);
	while (*k == ' ' || *k == ':')
		k++;
	return strncmp(k, "null", 4) == 0 ? -1 : strtol(k, NULL, 10);
}

/* One run with the given environment (HWLOC_SYNTHETIC: the cores hwloc
 * reports) and arguments; its summary's threads_per_core and smt_shared,
 * and meta.json's text. */
static char *placed_run(const char *env, const char *const *args, const char *tag,
			char *tpc, char *shared, size_t len)
{
	static struct outcome r;
	char dir[400];
	const char *a[24];
	int n = 0;
	fresh_dir(dir, sizeof dir, tag);
	for (int i = 0; args[i]; i++)
		a[n++] = args[i];
	const char *common[] = {"--ops", "2000", "--warmup", "0", "--calibrate", "0",
				"--capacity", "64", "--batch", "8", "--out", dir, NULL};
	for (int i = 0; common[i]; i++)
		a[n++] = common[i];
	a[n] = NULL;
	run_bench(&r, env, a);
	if (r.status != 0)
		fail_msg("%s: exit %d: %s", tag, r.status, r.err);
	struct summary s;
	read_summary(dir, &s);
	snprintf(tpc, len, "%s", field(&s, "threads_per_core"));
	snprintf(shared, len, "%s", field(&s, "smt_shared"));
	free(s.text);
	char path[512];
	snprintf(path, sizeof path, "%s/meta.json", dir);
	char *meta = slurp(path, NULL);
	assert_non_null(meta);
	return meta;
}

/* Each run times one line's trip between its first producer's and first
 * consumer's CPUs just before and just after its window (pingpong.h): a
 * number where the two threads have two CPUs, an empty cell (and null in
 * meta.json) where they share one or are not pinned. */
static void hand_over_distance_is_recorded(void **state)
{
	(void)state;
	static struct outcome r;
	struct summary s;
	char dir[400], path[512];
	if (ncpus < 2)
		skip();
	const char *cases[][3] = {{"compact", "1", "hand-over-pinned"},
				  {"none", "0", "hand-over-unpinned"}};
	for (int k = 0; k < 2; k++) {
		fresh_dir(dir, sizeof dir, cases[k][2]);
		const char *a[] = {"--queue", "flat", "--pin", cases[k][0], "--ops", "2000",
				   "--warmup", "0", "--calibrate", "0", "--capacity", "64",
				   "--out", dir, NULL};
		run_bench(&r, NULL, a);
		if (r.status != 0)
			fail_msg("%s: exit %d: %s", cases[k][2], r.status, r.err);
		read_summary(dir, &s);
		snprintf(path, sizeof path, "%s/meta.json", dir);
		char *meta = slurp(path, NULL);
		assert_non_null(meta);
		const char *ho = strstr(meta, "\"hand_over\"");
		assert_non_null(ho);
		const char *cols[] = {"c2c_one_way_before_ns", "c2c_one_way_after_ns"};
		for (int c = 0; c < 2; c++) {
			const char *v = field(&s, cols[c]);
			if (cases[k][1][0] == '1') {
				/* a trip between two CPUs: more than nothing, less than
				 * the 20 ms the measurement waits at most */
				double ns = atof(v);
				if (!(ns > 0 && ns < 20e6))
					fail_msg("%s: %s = '%s', expected ns in (0, 2e7)",
						 cases[k][2], cols[c], v);
			} else if (*v) {
				fail_msg("%s: %s = '%s' for threads not pinned, expected empty",
					 cases[k][2], cols[c], v);
			}
		}
		if (cases[k][1][0] == '0')
			assert_non_null(strstr(ho, "\"one_way_before_ns\": null"));
		free(meta);
		free(s.text);
	}
}

/* Where the threads and the main thread ran, and how they shared cores, is
 * in summary.csv and meta.json. This host's own cores first; then hosts
 * whose CPUs are hyperthread pairs, as hwloc describes them
 * (HWLOC_SYNTHETIC), over the same CPUs: --smt cores keeps threads off a
 * sibling while there is a core, --smt siblings uses them, and emulated
 * nodes over one core's hyperthreads are recorded as sharing it. */
/* meta.json of dir (the caller frees it). */
static char *read_meta(const char *dir)
{
	char path[512];
	snprintf(path, sizeof path, "%s/meta.json", dir);
	char *meta = slurp(path, NULL);
	assert_non_null(meta);
	return meta;
}

/* One short run of queue q with --queue-mem policy, more args after it
 * (NULL-terminated, at most 6); its summary into s (free s->text). */
static void queue_mem_run(const char *q, const char *policy, const char *const *more,
			  const char *tag, char *dir, size_t dirlen, struct summary *s)
{
	static struct outcome r;
	fresh_dir(dir, dirlen, tag);
	const char *args[26] = {"--queue", q, "--queue-mem", policy, "--duration", "0.02",
				"--warmup", "0", "--calibrate", "0", "--capacity", "64",
				"--batch", "8", "--out", dir, "--quiet"};
	int n = 17;
	if (hq_find(q)->message_only) { /* the item kind it takes */
		args[n++] = "--item";
		args[n++] = "message";
	}
	for (int i = 0; more && more[i] && n < 25; i++)
		args[n++] = more[i];
	args[n] = NULL;
	run_bench(&r, NULL, args);
	if (r.status != 0)
		fail_msg("%s --queue-mem %s: exit %d: %s", q, policy, r.status, r.err);
	read_summary(dir, s);
	assert_string_equal(field(s, "queue_mem"), policy);
}

/* "0:12;1:0" into pages per node; returns how many nodes it names. */
static int parse_queue_pages(const char *v, long long *on, int max)
{
	int n = 0;
	memset(on, 0, (size_t)max * sizeof *on);
	for (const char *p = v; *p;) {
		char *end;
		long node = strtol(p, &end, 10);
		if (end == p || *end != ':' || node < 0 || node >= max)
			fail_msg("queue_pages \"%s\" is not node:pages;...", v);
		on[node] = strtoll(end + 1, &end, 10);
		n++;
		if (*end == ';')
			end++;
		else if (*end)
			fail_msg("queue_pages \"%s\" is not node:pages;...", v);
		p = end;
	}
	return n;
}

/* --queue-mem: every queue runs under every policy on emulated nodes, where
 * nothing is placed and the record says so; on this machine's real nodes,
 * node:0 puts every page the run counts of a queue the policy reaches on
 * node 0 (numaring and sharded keep their rings per node: on a one-node
 * machine node 0 too). */
static void queue_memory_is_placed_and_counted(void **state)
{
	(void)state;
	const char *policies[] = {"first-touch", "producers", "consumers", "interleave", "node:0"};
	char dir[400], tag[96];
	struct summary s;
	for (int q = 0; hq_all[q]; q++) {
		if (hq_all[q]->test_only)
			continue;
		for (size_t p = 0; p < sizeof policies / sizeof policies[0]; p++) {
			const char *emulated[] = {"--topology", topo2, NULL};
			snprintf(tag, sizeof tag, "qmem-emu-%s-%zu", hq_all[q]->name, p);
			queue_mem_run(hq_all[q]->name, policies[p], emulated, tag, dir, sizeof dir, &s);
			assert_string_equal(field(&s, "queue_pages"), "not placed");
			char *meta = read_meta(dir);
			const char *qm = strstr(meta, "\"queue_memory\"");
			assert_non_null(qm);
			assert_non_null(strstr(qm, "\"placed\": false"));
			assert_non_null(strstr(qm, "\"pages\": null"));
			free(meta);
			free(s.text);
		}
		/* real nodes: the machine's own */
		long long on[256];
		snprintf(tag, sizeof tag, "qmem-real-%s", hq_all[q]->name);
		queue_mem_run(hq_all[q]->name, "node:0", NULL, tag, dir, sizeof dir, &s);
		const char *pages = field(&s, "queue_pages");
		int named = parse_queue_pages(pages, on, 256);
		int own = strcmp(hq_all[q]->memory, "per-node") == 0;
		if (on[0] <= 0)
			fail_msg("%s --queue-mem node:0: no page counted on node 0 (\"%s\")",
				 hq_all[q]->name, pages);
		for (int n = 1; n < 256 && (!own || named == 1); n++)
			if (on[n])
				fail_msg("%s --queue-mem node:0: %lld pages on node %d (\"%s\")",
					 hq_all[q]->name, on[n], n, pages);
		char *meta = read_meta(dir);
		const char *qm = strstr(meta, "\"queue_memory\"");
		assert_non_null(qm);
		assert_non_null(strstr(qm, own ? "\"placed\": false" : "\"placed\": true, \"mode\": \"bind\", \"nodes\": [0]"));
		free(meta);
		free(s.text);
	}
}

static void placement_is_recorded(void **state)
{
	(void)state;
	char tpc[32], shared[32], synth[64], one_node[256];
	if (ncpus < 2)
		skip();
	/* this host: two threads on two cores (any host with 2 cores or more) */
	const char *plain[] = {"--pin", "compact", NULL};
	char *meta = placed_run(NULL, plain, "place-host", tpc, shared, sizeof tpc);
	assert_string_equal(tpc, "1");
	assert_string_equal(shared, "0");
	const char *th = strstr(meta, "\"threads\"");
	assert_non_null(th);
	assert_true(json_int_after(th, "\"core\"") >= 0);
	assert_true(json_int_after(th, "\"node\"") >= 0);
	assert_non_null(strstr(meta, "\"memory_node\""));
	const char *mt = strstr(meta, "\"main_thread\"");
	assert_non_null(mt);
	long p0 = json_int_after(th, "\"cpu\""), c0 = json_int_after(strstr(th, "consumer"), "\"cpu\"");
	long main_cpu = json_int_after(mt, "\"cpu\"");
	if (ncpus > 2) { /* a CPU is left: the main thread has it to itself */
		assert_true(main_cpu >= 0 && main_cpu != p0 && main_cpu != c0);
		assert_non_null(strstr(mt, "\"pinned\": true"));
	} else {
		assert_int_equal(main_cpu, -1);
		assert_non_null(strstr(mt, "none is left for the main thread"));
	}
	assert_non_null(strstr(meta, "\"policy\": \"cores\""));
	free(meta);

	/* synthetic hyperthread pairs need the allowed CPUs to be 0..n-1, as
	 * hwloc numbers a synthetic host's CPUs */
	cpu_set_t s;
	sched_getaffinity(0, sizeof s, &s);
	for (int c = 0; c < ncpus; c++)
		if (!CPU_ISSET(c, &s))
			skip();
	if (ncpus % 2)
		skip();
	snprintf(synth, sizeof synth, "HWLOC_SYNTHETIC=core:%d pu:2", ncpus / 2);
	snprintf(one_node, sizeof one_node, "0-%d", ncpus - 1);
	/* --smt siblings: P0 and C0 on core 0's two hyperthreads */
	const char *sib[] = {"--topology", one_node, "--pin", "compact", "--smt", "siblings", NULL};
	meta = placed_run(synth, sib, "place-siblings", tpc, shared, sizeof tpc);
	assert_string_equal(tpc, "2");
	assert_string_equal(shared, "1");
	assert_non_null(strstr(meta, "\"threads_per_core_host\": 2"));
	free(meta);
	/* --smt cores: two cores if there are two; else both on core 0's first CPU */
	const char *cores[] = {"--topology", one_node, "--pin", "compact", NULL};
	meta = placed_run(synth, cores, "place-cores", tpc, shared, sizeof tpc);
	assert_string_equal(tpc, ncpus >= 4 ? "1" : "2");
	assert_string_equal(shared, "0");
	free(meta);
	/* emulated nodes "0;1-..": CPU 1 is CPU 0's sibling, and split says so */
	const char *split[] = {"--topology", topo2, "--pin", "split", NULL};
	meta = placed_run(synth, split, "place-split", tpc, shared, sizeof tpc);
	assert_string_equal(shared, "1");
	free(meta);
}

static void show_topology_is_right(void **state)
{
	(void)state;
	static struct outcome r;
	const char *args[] = {"--show-topology", NULL};
	run_bench(&r, "NUMARING_TOPOLOGY=", args);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"topology\": \"real\""));
	assert_non_null(strstr(r.out, "\"rseq_node_id\""));
	/* whether the timings of this machine mean anything (a QEMU TCG guest's do
	 * not): the kind, one of the names the harness gives */
	const char *v = strstr(r.out, "\"virtualization\": {\"kind\": \"");
	assert_non_null(v);
	v += strlen("\"virtualization\": {\"kind\": \"");
	int known = 0;
	for (const char *const *k = (const char *const[]){"none", "qemu-tcg", "kvm", "vmware",
							  "hyperv", "xen", "qemu", "other", NULL};
	     *k; k++)
		known |= strncmp(v, *k, strlen(*k)) == 0 && v[strlen(*k)] == '"';
	assert_true(known);
	assert_non_null(strstr(r.out, strncmp(v, "qemu-tcg\"", 9) == 0
					  ? "\"timings_meaningful\": false"
					  : "\"timings_meaningful\": true"));
	/* as many nodes as the kernel shows */
	int nodes = 0;
	for (int k = 0; k < 1024; k++) {
		char p[128];
		snprintf(p, sizeof p, "/sys/devices/system/node/node%d", k);
		if (access(p, F_OK) == 0)
			nodes++;
	}
	int listed = 0;
	for (const char *p = r.out; (p = strstr(p, "\"index\":")); p++)
		listed++;
	if (nodes > 0)
		assert_int_equal(listed, nodes);

	if (ncpus < 2)
		return;
	const char *args2[] = {"--show-topology", "--topology", topo2, NULL};
	run_bench(&r, NULL, args2);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "\"topology\": \"emulated\""));
	listed = 0;
	for (const char *p = r.out; (p = strstr(p, "\"index\":")); p++)
		listed++;
	assert_int_equal(listed, 2);
	assert_non_null(strstr(r.out, "\"memory_node\": -1"));
}

int main(int argc, char **argv)
{
	/* make test runs the first group; make test-slow runs test_bench --slow,
	 * the runs that take the longest (docs/testing.md) */
	int slow = argc == 2 && !strcmp(argv[1], "--slow");
	if (argc > 1 && !slow) {
		fprintf(stderr, "usage: test_bench [--slow]\n");
		return 2;
	}
	const char *b = getenv("NUMARING_BENCH");
	if (b && *b)
		bench = b;
	if (access(bench, X_OK) != 0) {
		fprintf(stderr, "test_bench: %s is not an executable (build it first)\n", bench);
		return 1;
	}
	cpu_set_t s;
	sched_getaffinity(0, sizeof s, &s);
	ncpus = CPU_COUNT(&s);
	int first = -1, second = -1;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s)) {
			if (first < 0)
				first = c;
			else if (second < 0)
				second = c;
		}
	if (ncpus >= 2) {
		/* two emulated nodes covering every allowed CPU */
		snprintf(topo2, sizeof topo2, "%d;", first);
		for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &s) && c != first)
				snprintf(topo2 + strlen(topo2), sizeof topo2 - strlen(topo2), "%s%d",
					 k++ ? "," : "", c);
	} else {
		snprintf(topo2, sizeof topo2, "%d", first);
	}
	for (int c = 0, k = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &s))
			snprintf(topo1 + strlen(topo1), sizeof topo1 - strlen(topo1), "%s%d",
				 k++ ? "," : "", c);
	snprintf(topo1_env, sizeof topo1_env, "NUMARING_TOPOLOGY=%s", topo1);
	snprintf(tmpdir, sizeof tmpdir, "/tmp/numaring-test-bench.%d", (int)getpid());
	mkdir(tmpdir, 0755);
	unsetenv("NUMARING_TOPOLOGY");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(help_lists_every_option_and_queue),
		cmocka_unit_test(bad_input_exits_2_with_one_message_and_no_file),
		cmocka_unit_test(every_queue_runs_and_verifies),
		cmocka_unit_test(symmetric_workloads_run_and_verify),
		cmocka_unit_test(workload_choices_work_and_pace),
		cmocka_unit_test(emulated_split_moves_batches_for_every_gate_and_backoff),
		cmocka_unit_test(latency_by_path),
		cmocka_unit_test(results_that_cannot_be_written_exit_3),
		cmocka_unit_test(crowded_pinning_is_announced),
		cmocka_unit_test(show_topology_is_right),
		cmocka_unit_test(fault_drop_is_caught),
		cmocka_unit_test(fault_dup_is_caught),
		cmocka_unit_test(fault_corrupt_is_caught),
		cmocka_unit_test(fault_reorder_is_caught),
		cmocka_unit_test(faults_below_their_period_pass),
		cmocka_unit_test(stripped_runs_say_so_and_still_verify),
		cmocka_unit_test(order_is_checked_on_every_item),
		cmocka_unit_test(sampling_schema_and_calibration),
		cmocka_unit_test(manifest_names_the_queues_and_the_schema),
		cmocka_unit_test(counters_over_the_window),
		cmocka_unit_test(placement_is_recorded),
		cmocka_unit_test(queue_memory_is_placed_and_counted),
		cmocka_unit_test(hand_over_distance_is_recorded),
	};
	const struct CMUnitTest slow_tests[] = {
		cmocka_unit_test(every_queue_runs_and_verifies_oversubscribed),
		cmocka_unit_test(faults_are_caught_in_pairs_and_mixed),
	};
	int rc = slow ? cmocka_run_group_tests_name("numaring-bench (slow)", slow_tests, NULL, NULL)
		      : cmocka_run_group_tests_name("numaring-bench", tests, NULL, NULL);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "test_bench: could not remove %s\n", tmpdir);
	return rc;
}
