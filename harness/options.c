/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * options.c - parse and check numaring-bench's command line.
 *
 * The parser is a table, one row per option (opt_rows, below): its name,
 * whether it takes a value, the handler that takes it, for the generic
 * handlers the field and its bounds.h entry, and its --help text (hb_usage
 * prints the rows in order, a range it states taken from the same bounds
 * the parser checks). Handlers are a few lines each; the combinations no
 * single option decides are checked after the loop, in the order of the
 * settle_* functions. The name tables (workloads, pins, --strip) live
 * beside it, so that what the help promises and what the parser enforces
 * are read together.
 */
#define _GNU_SOURCE
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bounds.h"
#include "errors.h"
#include "numaring_topology.h"
#include "qmem.h"

static const char *const workload_names[HB_WORKLOAD_COUNT_] = {
	[HB_WORKLOAD_PRODCONS] = "prodcons",
	[HB_WORKLOAD_PAIRS] = "pairs",
	[HB_WORKLOAD_MIXED] = "mixed",
};

const char *hb_workload_name(enum hb_workload w)
{
	return (unsigned)w < HB_WORKLOAD_COUNT_ ? workload_names[w] : "?";
}

int hb_workload_parse(const char *s, enum hb_workload *out)
{
	for (int w = 0; w < HB_WORKLOAD_COUNT_; w++)
		if (strcmp(s, workload_names[w]) == 0) {
			*out = (enum hb_workload)w;
			return 0;
		}
	return -1;
}

static const char *const pin_names[HB_PIN_COUNT_] = {
	[HB_PIN_COMPACT] = "compact", [HB_PIN_SCATTER] = "scatter", [HB_PIN_SPLIT] = "split",
	[HB_PIN_NONE] = "none",       [HB_PIN_LIST] = "list", [HB_PIN_NODES] = "nodes",
};

const char *hb_pin_name(enum hb_pin p)
{
	return (unsigned)p < HB_PIN_COUNT_ ? pin_names[p] : "?";
}

static const char *const smt_names[HB_SMT_COUNT_] = {
	[HB_SMT_CORES] = "cores",
	[HB_SMT_SIBLINGS] = "siblings",
};

const char *hb_smt_name(enum hb_smt s)
{
	return (unsigned)s < HB_SMT_COUNT_ ? smt_names[s] : "?";
}

static const char *const item_names[HB_ITEM_COUNT_] = {
	[HB_ITEM_INLINE] = "inline",
	[HB_ITEM_MESSAGE] = "message",
};

const char *hb_item_name(enum hb_item_kind k)
{
	return (unsigned)k < HB_ITEM_COUNT_ ? item_names[k] : "?";
}

int hb_item_parse(const char *s, enum hb_item_kind *out)
{
	for (int k = 0; k < HB_ITEM_COUNT_; k++)
		if (strcmp(s, item_names[k]) == 0) {
			*out = (enum hb_item_kind)k;
			return 0;
		}
	return -1;
}

/* A whole decimal number in [min, max]. */
static int parse_count(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return hb_usage_error("%s needs a whole number from %llu to %llu, not \"%s\"", opt,
				      (unsigned long long)min, (unsigned long long)max, s ? s : "");
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return hb_usage_error("%s needs a whole number from %llu to %llu, not \"%s\"", opt,
				      (unsigned long long)min, (unsigned long long)max, s);
	*out = v;
	return 0;
}

/* A number of seconds (or a rate, a share) between min and max; min itself
 * allowed if min_in, max itself if max_in (HB_RLIM: the option's bounds.h
 * entry). */
static int parse_real(const char *opt, const char *s, double min, double max, int min_in,
		      int max_in, double *out)
{
	char *end;
	if (!s || !*s || *s == ' ')
		return hb_usage_error("%s needs a number, not \"%s\"", opt, s ? s : "");
	errno = 0;
	double v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v > max || v < min || (v == min && !min_in) ||
	    (v == max && !max_in))
		return hb_usage_error("%s needs a number %s %g and %s %g, not \"%s\"", opt,
				      min_in ? "from" : "above", min, max_in ? "at most" : "below",
				      max, s);
	*out = v;
	return 0;
}

/* --queue's lines after its own: every queue a run can name, then the
 * broken ones the harness's own tests use */
static void usage_queues(FILE *out)
{
	int width = 10; /* the longest name's */
	for (int i = 0; hq_all[i]; i++)
		if (!hq_all[i]->test_only && (int)strlen(hq_all[i]->name) > width)
			width = (int)strlen(hq_all[i]->name);
	for (int i = 0; hq_all[i]; i++)
		if (!hq_all[i]->test_only)
			fprintf(out, "                        %-*s %s\n", width, hq_all[i]->name,
				hq_all[i]->description);
	fprintf(out, "                      for the harness's own tests:\n");
	for (int i = 0; hq_all[i]; i++)
		if (hq_all[i]->test_only)
			fprintf(out, "                        %-13s %s\n", hq_all[i]->name,
				hq_all[i]->description + strlen("test only: "));
}

static const char *const strip_names[] = {"publish", "window", "accounting"};

int hb_strip_parse(const char *s, unsigned *out, const char **bad)
{
	unsigned bits = 0;
	for (const char *w = s;; w++) {
		size_t n = strcspn(w, ",");
		unsigned i = 0;
		while (i < 3 && !(strlen(strip_names[i]) == n && !strncmp(w, strip_names[i], n)))
			i++;
		if (i == 3) {
			*bad = w;
			return -1;
		}
		bits |= 1u << i;
		w += n;
		if (!*w)
			break;
	}
	*out = bits;
	return 0;
}

void hb_strip_names(unsigned strip, char *buf, size_t len)
{
	size_t at = 0;
	buf[0] = 0;
	for (unsigned i = 0; i < 3; i++)
		if (strip & (1u << i) && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? "," : "",
					       strip_names[i]);
}

/* --queue-mem's value into o (first-touch, producers, consumers,
 * interleave, node:N). 0, or 2 after one message. Whether node N exists and
 * has memory is the run's to check (hb_qmem_plan): the parser has no machine. */
static int parse_queue_mem(const char *s, struct hb_options *o)
{
	uint64_t v;
	for (int p = 0; p < HB_QMEM_COUNT_; p++)
		if (p != HB_QMEM_NODE && strcmp(s, hb_qmem_policy_name((enum hb_qmem_policy)p)) == 0) {
			o->queue_mem = (enum hb_qmem_policy)p;
			return 0;
		}
	if (strncmp(s, "node:", 5) != 0)
		return hb_usage_error("unknown --queue-mem \"%s\" (first-touch, producers, consumers, "
				      "interleave, node:N)",
				      s);
	int rc = parse_count("--queue-mem node:N", s + 5, 0, HB_QMEM_MAX_NODES - 1, &v);
	if (rc)
		return rc;
	o->queue_mem = HB_QMEM_NODE;
	o->queue_mem_node = (int)v;
	return 0;
}

/*
 * The command line, one row per option. A row names the option, whether it
 * takes a value, the handler that takes it and what the generic handlers need:
 * take_whole and take_real read the option's bounds from bounds.h (lim) and
 * write the field at `off` (`size` bytes: an unsigned or a 64-bit count);
 * take_set stores `value` in an int field (or the mode). `given` are the
 * bits hb_parse records for the checks of combinations after the loop,
 * where the options may come in any order.
 */
enum {
	G_DURATION = 1 << 0, G_OPS = 1 << 1, G_SAMPLE = 1 << 2, G_CAPACITY = 1 << 3,
	G_SIDES = 1 << 4, G_THREADS = 1 << 5, G_SHARE = 1 << 6, G_PWORK = 1 << 7,
	G_CWORK = 1 << 8,
};

struct opt_row;
/* 0, 2 after one message (hb_usage_error), or STOP: the mode needs no more */
typedef int (*opt_take)(struct hb_options *o, const struct opt_row *r, const char *arg,
			unsigned given);
#define STOP (-1)

struct opt_row {
	const char *name; /* without "--" */
	int arg;          /* no_argument or required_argument */
	opt_take take;
	int lim;          /* HB_LIM_* (take_whole, take_real) */
	size_t off;       /* the field the generic handlers write */
	unsigned size;    /* take_whole: its size in bytes */
	int value;        /* take_set, take_mode: what is stored */
	unsigned given;   /* G_* recorded when the option was taken */
	/* --help (hb_usage), in the rows' order: */
	const char *section; /* the heading above this row, NULL: none */
	const char *meta;    /* what follows --name: " N", " SEC"; NULL: nothing */
	const char *help;    /* the lines beside it, '\n' between; "%X": the maximum of
				its limit (lim), as the parser checks it. NULL: not
				listed (said in another option's lines) */
	void (*more)(FILE *out); /* lines printed after the text (the queues) */
};

#define FIELD(f) offsetof(struct hb_options, f), sizeof(((struct hb_options *)0)->f)

/* "--name" of a row, for messages */
static const char *flag_of(const struct opt_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "--%s", r->name);
	return buf;
}

static int take_whole(struct hb_options *o, const struct opt_row *r, const char *arg,
		      unsigned given)
{
	const struct hb_limit *l = &hb_limits[r->lim];
	char flag[48];
	uint64_t v;
	int rc;
	(void)given;
	if ((rc = parse_count(flag_of(r, flag, sizeof flag), arg, (uint64_t)l->min,
			      (uint64_t)l->max, &v)))
		return rc;
	if (l->pow2 && (v & (v - 1)))
		return hb_usage_error("%s %llu is not a power of two", flag, (unsigned long long)v);
	if (r->size == sizeof(uint64_t)) {
		memcpy((char *)o + r->off, &v, sizeof v);
	} else {
		unsigned u = (unsigned)v; /* bounds.h keeps these below UINT32_MAX + 1 */
		memcpy((char *)o + r->off, &u, sizeof u);
	}
	return 0;
}

static int take_real(struct hb_options *o, const struct opt_row *r, const char *arg,
		     unsigned given)
{
	const struct hb_limit *l = &hb_limits[r->lim];
	char flag[48];
	(void)given;
	return parse_real(flag_of(r, flag, sizeof flag), arg, l->min, l->max, l->min_in,
			  l->max_in, (double *)(void *)((char *)o + r->off));
}

static int take_set(struct hb_options *o, const struct opt_row *r, const char *arg,
		    unsigned given)
{
	(void)arg, (void)given;
	memcpy((char *)o + r->off, &r->value, sizeof r->value);
	return 0;
}

/* --show-topology, --probe set the mode and parse on; --schema, --manifest,
 * --help, --version answer alone: the rest of the line is not looked at */
static int take_mode(struct hb_options *o, const struct opt_row *r, const char *arg,
		     unsigned given)
{
	(void)arg, (void)given;
	o->mode = (enum hb_mode)r->value;
	return o->mode == HB_SHOW_TOPOLOGY || o->mode == HB_PROBE ? 0 : STOP;
}

static int take_queue(struct hb_options *o, const struct opt_row *r, const char *arg,
		      unsigned given)
{
	(void)r, (void)given;
	if (!(o->queue = hq_find(arg)))
		return hb_usage_error("unknown queue \"%s\"", arg);
	return 0;
}

static int take_workload(struct hb_options *o, const struct opt_row *r, const char *arg,
			 unsigned given)
{
	(void)r, (void)given;
	if (hb_workload_parse(arg, &o->workload) < 0)
		return hb_usage_error("unknown --workload \"%s\" (prodcons, pairs, mixed)", arg);
	return 0;
}

/* NS (0..NS) or MIN-MAX: the field's random delay with a floor */
static int take_work(struct hb_options *o, const struct opt_row *r, const char *arg,
		     unsigned given)
{
	char lo[32];
	const char *dash = strchr(arg, '-');
	int rc;
	(void)r, (void)given;
	o->work_min_ns = 0;
	if (!dash || dash == arg)
		return parse_count("--work", arg, HB_LIM(work), &o->work_ns);
	if ((size_t)(dash - arg) >= sizeof lo)
		return hb_usage_error("--work needs NS or MIN-MAX, not \"%s\"", arg);
	memcpy(lo, arg, (size_t)(dash - arg));
	lo[dash - arg] = '\0';
	if ((rc = parse_count("--work", lo, HB_LIM(work), &o->work_min_ns)) ||
	    (rc = parse_count("--work", dash + 1, HB_LIM(work), &o->work_ns)))
		return rc;
	if (o->work_min_ns > o->work_ns)
		return hb_usage_error("--work %s: the minimum is above the maximum", arg);
	return 0;
}

/* --capacity (the whole queue) or --capacity-per-node (numaring's per ring):
 * one of them, a power of two */
static int take_capacity(struct hb_options *o, const struct opt_row *r, const char *arg,
			 unsigned given)
{
	int per_node = r->value;
	int rc;
	if ((given & G_CAPACITY) && per_node != o->capacity_per_node)
		return hb_usage_error("--capacity and --capacity-per-node are alternatives; "
				      "give one");
	if ((rc = take_whole(o, r, arg, given)))
		return rc;
	o->capacity_per_node = per_node;
	return 0;
}

static int take_item(struct hb_options *o, const struct opt_row *r, const char *arg,
		     unsigned given)
{
	(void)r, (void)given;
	if (hb_item_parse(arg, &o->item) < 0)
		return hb_usage_error("unknown --item \"%s\" (inline, message)", arg);
	return 0;
}

static int take_accounting(struct hb_options *o, const struct opt_row *r, const char *arg,
			   unsigned given)
{
	(void)r, (void)given;
	if (hb_accounting_parse(arg, &o->accounting) < 0)
		return hb_usage_error(
		    "unknown --accounting \"%s\" (auto, inline, scalar, vector, avx2)", arg);
	if (!hb_accounting_available(o->accounting))
		return hb_usage_error("--accounting %s: this CPU (or build) has no AVX2; use "
				      "auto, inline or vector",
				      arg);
	return 0;
}

static int take_strip(struct hb_options *o, const struct opt_row *r, const char *arg,
		      unsigned given)
{
	const char *bad = NULL;
	(void)r, (void)given;
	if (hb_strip_parse(arg, &o->strip, &bad) < 0)
		return hb_usage_error("--strip %s: unknown \"%.*s\" (publish, window, accounting, "
				      "comma-separated)",
				      arg, (int)strcspn(bad, ","), bad);
	return 0;
}

static int take_lookup(struct hb_options *o, const struct opt_row *r, const char *arg,
		       unsigned given)
{
	(void)r, (void)given;
	if (numaring_lookup_parse(arg, &o->lookup) < 0)
		return hb_usage_error("unknown --lookup \"%s\" (libnuma, syscall, table, cached, "
				      "rseq, rdpid, none, auto)",
				      arg);
	return 0;
}

static int take_gate(struct hb_options *o, const struct opt_row *r, const char *arg,
		     unsigned given)
{
	(void)r, (void)given;
	if (numaring_gate_parse(arg, &o->gate) < 0)
		return hb_usage_error("unknown --gate \"%s\" (shared, pernode, perworker)", arg);
	return 0;
}

static int take_backoff(struct hb_options *o, const struct opt_row *r, const char *arg,
			unsigned given)
{
	(void)r, (void)given;
	if (numaring_backoff_parse(arg, &o->backoff) < 0)
		return hb_usage_error("unknown --backoff \"%s\" (none, pause, exp, yield, adaptive)",
				      arg);
	return 0;
}

static int take_topology(struct hb_options *o, const struct opt_row *r, const char *arg,
			 unsigned given)
{
	(void)r, (void)given;
	o->topology = arg; /* checked where it is read (numaring_topology_parse) */
	return 0;
}

static int take_out(struct hb_options *o, const struct opt_row *r, const char *arg,
		    unsigned given)
{
	(void)r, (void)given;
	if (!arg[0])
		return hb_usage_error("--out needs a directory");
	o->out = arg;
	return 0;
}

/* --pin nodes:P/C: the producers' and the consumers' nodes */
static int take_pin_nodes(struct hb_options *o, const char *arg)
{
	unsigned a, b;
	int used = 0;
	if (sscanf(arg + 6, "%u/%u%n", &a, &b, &used) != 2 || arg[6 + used] ||
	    !strchr("0123456789", arg[6]) || a >= NUMARING_MAX_NODES || b >= NUMARING_MAX_NODES)
		return hb_usage_error("--pin %s: expected nodes:P/C, the producers' and the "
				      "consumers' node numbers (0..%d), e.g. nodes:0/1",
				      arg, NUMARING_MAX_NODES - 1);
	o->pin = HB_PIN_NODES;
	o->pin_nodes[0] = a;
	o->pin_nodes[1] = b;
	o->pin_list = arg;
	return 0;
}

/* --pin: a placement by name, nodes:P/C, or a cpulist */
static int take_pin(struct hb_options *o, const struct opt_row *r, const char *arg,
		    unsigned given)
{
	char err[NUMARING_ERRLEN];
	(void)r, (void)given;
	for (int p = 0; p < HB_PIN_COUNT_; p++)
		if (p != HB_PIN_LIST && p != HB_PIN_NODES && strcmp(arg, pin_names[p]) == 0) {
			o->pin = (enum hb_pin)p;
			return 0;
		}
	if (!strncmp(arg, "nodes:", 6))
		return take_pin_nodes(o, arg);
	if (!arg[0] || !strchr("0123456789", arg[0]))
		return hb_usage_error("unknown --pin \"%s\" (compact, scatter, split, none, "
				      "nodes:P/C, or a cpulist such as 0-3,8)",
				      arg);
	if (numaring_cpulist_parse(arg, strlen(arg), &o->pin_cpus, err, sizeof err) < 0)
		return hb_usage_error("--pin: %s", err);
	o->pin = HB_PIN_LIST;
	o->pin_list = arg;
	return 0;
}

static int take_smt(struct hb_options *o, const struct opt_row *r, const char *arg,
		    unsigned given)
{
	(void)r, (void)given;
	for (int m = 0; m < HB_SMT_COUNT_; m++)
		if (strcmp(arg, smt_names[m]) == 0) {
			o->smt = (enum hb_smt)m;
			return 0;
		}
	return hb_usage_error("unknown --smt \"%s\" (cores, siblings)", arg);
}

static int take_queue_mem(struct hb_options *o, const struct opt_row *r, const char *arg,
			  unsigned given)
{
	(void)r, (void)given;
	return parse_queue_mem(arg, o);
}

#define REQ required_argument
#define NOARG no_argument
/* The rows' parser fields, then their help: section, argument, text[, more] */
#define WHOLE(n, id, f, g, ...) {n, REQ, take_whole, HB_LIM_##id, FIELD(f), 0, g, __VA_ARGS__}
#define REAL(n, id, f, g, ...) {n, REQ, take_real, HB_LIM_##id, FIELD(f), 0, g, __VA_ARGS__}
#define SET(n, f, v, ...) {n, NOARG, take_set, 0, FIELD(f), v, 0, __VA_ARGS__}
#define MODE(n, m, ...) {n, NOARG, take_mode, 0, 0, 0, m, 0, __VA_ARGS__}
#define TAKE(n, fn, ...) {n, REQ, fn, 0, 0, 0, 0, 0, __VA_ARGS__}

static const struct opt_row opt_rows[] = {
	TAKE("queue", take_queue, "queue under test", " NAME",
	    "the queue (default numaring):", usage_queues),
	TAKE("workload", take_workload, "workload", " W",
	    "what the threads do (default prodcons):\n"
	    "  prodcons  producer threads enqueue, consumer threads dequeue\n"
	    "  pairs     every thread enqueues, then dequeues, and again\n"
	    "            (Michael and Scott's enqueue-dequeue pairs)\n"
	    "  mixed     every thread enqueues or dequeues at random\n"
	    "            (--enqueue-share), drawn from a generator of its own\n"
	    "            (--seed); the queue is filled to half of what it\n"
	    "            holds before the start (an unbounded queue: half the\n"
	    "            in-flight bound), with items verified like the others\n"
	    "pairs and mixed: an enqueue that finds the queue full or a dequeue\n"
	    "that finds it empty is counted (full_retries, empty_polls; an\n"
	    "unbounded queue's enqueue beyond the in-flight bound: window_waits)\n"
	    "and the thread goes on to its next operation. Every thread is a\n"
	    "producer and a consumer: summary.csv's producers and consumers both\n"
	    "say --threads; ops and throughput_ops_per_s count operations\n"
	    "(enqueues + dequeues that succeeded), and ops_kind says so"),
	WHOLE("threads", threads, threads, G_THREADS, NULL, " N",
	    "threads of the run, 1..%X: pairs and mixed run N threads that each\n"
	    "enqueue and dequeue (default 2); prodcons splits N half and half,\n"
	    "ceil(N/2) producers and floor(N/2) consumers (N >= 2). Not with\n"
	    "--producers/--consumers"),
	WHOLE("producers", producers, producers, G_SIDES, NULL, " N",
	    "prodcons: producer threads, 1..%X (default 1)"),
	WHOLE("consumers", consumers, consumers, G_SIDES, NULL, " N",
	    "prodcons: consumer threads, 1..%X (default 1)"),
	REAL("enqueue-share", enqueue_share, enqueue_share, G_SHARE, NULL, " F",
	    "mixed: the probability that an operation is an enqueue, 0 < F < 1\n"
	    "(default 0.5)"),
	{"work", REQ, take_work, HB_LIM_work, 0, 0, 0, 0, NULL, " NS|MIN-MAX",
	    "local work between operations, 0..%X ns (default 0: none): a busy\n"
	    "loop, calibrated to ns at the start (meta.json's work), whose\n"
	    "length is drawn uniformly from 0..NS ns (MIN..MAX ns) for each\n"
	    "operation (pairs, mixed: after every operation, failed or not).\n"
	    "prodcons: on both sides, unless one of the next two sets a side's\n"
	    "bound (MIN stays every working side's floor)"},
	WHOLE("producer-work", producer_work, producer_work_ns, G_PWORK, NULL, " NS",
	    "prodcons: a producer's work after each enqueue operation"),
	WHOLE("consumer-work", consumer_work, consumer_work_ns, G_CWORK, NULL, " NS",
	    "prodcons: a consumer's work after each dequeue that brought items\n"
	    "(a faster consumer keeps a 1P1C queue near empty, a faster producer\n"
	    "keeps it full)"),
	WHOLE("seed", seed, seed, 0, NULL, " N",
	    "seed of the per-thread generators, 0..2^53 (default 1): a thread's\n"
	    "draws are the same in every run with the same seed"),
	REAL("duration", duration, duration_s, G_DURATION, "load", " SEC",
	    "measure for SEC seconds after the warm-up (default 2)"),
	WHOLE("ops", ops, ops, G_OPS, NULL, " N",
	    "or: measure until N items have gone through (not with --duration);\n"
	    "pairs and mixed: each thread enqueues its share of N in the window,\n"
	    "then only dequeues"),
	REAL("warmup", warmup, warmup_s, 0, NULL, " SEC",
	    "run SEC seconds before measuring, 0 allowed (default 0.5)"),
	REAL("rate", rate, rate, 0, NULL, " OPS",
	    "open loop: OPS items per second in all, split evenly over the\n"
	    "producers (pairs, mixed: the enqueues, over the threads); latency is\n"
	    "measured from each item's intended send time (coordinated omission\n"
	    "corrected), whoever dequeues it. Default: closed loop."),
	REAL("load", load, load, 0, NULL, " F",
	    "open loop at F (0 < F <= 1) of the capacity, measured first unless\n"
	    "--capacity-ops gives it: the same run in closed loop for\n"
	    "--load-probe SEC (default 0.3) with numaring's gate per-worker;\n"
	    "written as load and capacity_ops_per_s. Not with --rate;\n"
	    "prodcons only"),
	REAL("capacity-ops", capacity_ops, capacity_ops, 0, NULL, " R",
	    "with --load: take R items/s (above 0) as the capacity instead of\n"
	    "measuring it: no capacity run (--load-probe is unused), the\n"
	    "offered rate is F x R, and capacity_ops_per_s says R. For runs\n"
	    "that must offer the same rate (scripts/experiments.py gives\n"
	    "every gate of a round the capacity one probe measured)"),
	SET("bursts", bursts, 1, NULL, NULL,
	    "use burst operations of --batch items where the queue has them,\n"
	    "--batch at most 4096 (default: single operations)"),
	TAKE("item", take_item, NULL, " KIND",
	    "inline: each item is a value carrying its producer and a sequence\n"
	    "number (or a send time), so nothing but the queue's own lines moves\n"
	    "(default); message: a pointer to a message of the producer's pool,\n"
	    "whose line travels to the consumer and back (the payload case).\n"
	    "Queues that take pointers only (xenium-ramalhete, xenium-kfifo:\n"
	    "the manifest's items) run with message items alone"),
	WHOLE("sample", sample, sample, G_SAMPLE, NULL, " N",
	    "every N-th item of a producer is timed (its send time kept);\n"
	    "the clock stays off the others. A power of two, 1..1048576\n"
	    "(default 256; with --bursts 256 x --batch, rounded up to a power\n"
	    "of two, at most 1048576: one timed burst in 256; 1 with --rate\n"
	    "or --load)"),
	TAKE("accounting", take_accounting, NULL, " W",
	    "how a consumer accounts for a burst of inline items (count,\n"
	    "checksum and order in one pass; harness/item_sum.h): inline\n"
	    "(compiled into the loop: 4 values at a time with AVX2, else 2),\n"
	    "scalar (one value at a time), vector (2) or avx2 (4; CPUs with\n"
	    "AVX2), each a call per burst; auto: inline (default). The same\n"
	    "checks at every width (bench_peers --accounting compares them)"),
	TAKE("strip", take_strip, NULL, " LIST",
	    "a diagnostic of the harness's own cost (make bench-fidelity's\n"
	    "table of where the time goes), not a measurement of a queue:\n"
	    "removes, comma-separated: publish (a producer's count stored\n"
	    "per operation: once at its end), window (a producer's phase,\n"
	    "quota and window checks per operation: the phase read every\n"
	    "64), accounting (a consumer's tallies and checksums: items\n"
	    "counted, the run verifies totals, verify \"count\"). Closed-loop\n"
	    "prodcons of inline items through a bounded queue, no work,\n"
	    "no --ops; meta.json records it"),
	{"capacity", REQ, take_capacity, HB_LIM_capacity, FIELD(capacity), 0, G_CAPACITY,
	    "queue shape", " N",
	    "slots of the whole queue, a power of two >= 2, for every queue\n"
	    "(default 1024): numaring splits them among its rings (one per\n"
	    "node), each share rounded down to a power of two; queue_slots\n"
	    "in summary.csv is what the queue holds (ck: N - 1)"},
	{"capacity-per-node", REQ, take_capacity, HB_LIM_capacity, FIELD(capacity), 1, G_CAPACITY,
	    NULL, " N",
	    "numaring: N slots in each node's ring (the others: N in all)"},
	WHOLE("batch", batch, batch, 0, NULL, " N",
	    "items per cross-node transfer (numaring) and burst size, 1..capacity\n"
	    "(default 32)"),
	TAKE("lookup", take_lookup, "numaring's ablations (ignored by the other queues)", " MODE",
	    "libnuma | syscall | table | cached | rseq | rdpid | none | auto\n"
	    "(default auto, production's: none with one node of CPUs, else\n"
	    "rseq where the kernel keeps the node id, else cached;\n"
	    "summary.csv's lookup_in_force says which)"),
	WHOLE("recheck", recheck, recheck, 0, NULL, " N",
	    "cached: re-check the node every N operations (default 256)"),
	TAKE("gate", take_gate, NULL, " MODE",
	    "shared | pernode | perworker (default perworker)"),
	TAKE("backoff", take_backoff, NULL, " MODE",
	    "none | pause | exp | yield | adaptive (default adaptive, the\n"
	    "library's production default: ring/numaring.h says why)"),
	WHOLE("linger", linger, linger_us, 0, NULL, " US",
	    "a consumer whose ring is empty takes only a full batch from\n"
	    "another node until it has found nothing for US microseconds\n"
	    "(0..1000000; default 0: whatever there is)"),
	WHOLE("pause-spin", pause_spin, pause_spin, 0, NULL, " N",
	    "backoff pause: PAUSEs of the fixed spin, 1..65536 (default: the\n"
	    "library's production constant; meta.json and summary.csv\n"
	    "record the one in force)"),
	WHOLE("exp-cap", exp_cap, exp_cap, 0, NULL, " N",
	    "backoff exp and adaptive: the most PAUSEs of one backoff, a\n"
	    "power of two 1..65536 (default: the production constant)"),
	TAKE("topology", take_topology, "placement", " SPEC",
	    "emulated nodes, one cpulist per node: \"0-7;8-15\" ('-' = memory-only\n"
	    "node; optional distance matrix after '|'). Default: NUMARING_TOPOLOGY\n"
	    "if set, else the machine's (hwloc). Emulated results say so."),
	TAKE("pin", take_pin, NULL, " MODE|CPULIST",
	    "compact (fill a node, then the next; threads P0,C0,P1,C1..),\n"
	    "scatter (producers and consumers each round-robin over nodes:\n"
	    "Pi and Ci share a node),\n"
	    "split (producers on the first node, consumers on the last),\n"
	    "nodes:P/C (producers on node P, consumers on node C, each a\n"
	    "core in turn; P = C: P0,C0,P1,C1.. on that node's cores),\n"
	    "none, or a cpulist given to P0..Pn, C0..Cm in order (default compact).\n"
	    "pairs, mixed: compact fills a node's cores with threads T0, T1, ..\n"
	    "before the next node's, scatter gives thread i node i mod nodes,\n"
	    "a cpulist goes to T0..Tn in order; split and nodes:P/C are\n"
	    "refused (no sides)"),
	TAKE("smt", take_smt, NULL, " MODE",
	    "which hardware threads of a core the pin modes use (cores from\n"
	    "hwloc, also for an emulated topology's CPUs): cores (default):\n"
	    "one thread per core, on the core's first CPU, cores in node\n"
	    "order; more threads than cores share those CPUs (oversubscribed);\n"
	    "siblings: every CPU, a core's hyperthreads one after the other\n"
	    "(compact puts P0 and C0 on two hyperthreads of one core).\n"
	    "A CPU no thread uses, if any, runs the main thread.\n"
	    "summary.csv's threads_per_core and smt_shared and meta.json's\n"
	    "threads (cpu, core, node) say where the threads ran"),
	TAKE("queue-mem", take_queue_mem, NULL, " POLICY",
	    "where the queue's memory goes (default first-touch):\n"
	    "  first-touch  where the creating thread's first touch puts it,\n"
	    "               and what the queue allocates as it runs where\n"
	    "               the working thread's does (as without the option)\n"
	    "  producers    the node of the first producer's CPU\n"
	    "  consumers    the node of the first consumer's CPU (pairs,\n"
	    "               mixed: both are thread 0's)\n"
	    "  interleave   page by page over the run's nodes\n"
	    "  node:N       OS node N, which must have memory\n"
	    "What a queue makes at creation comes from the harness's allocator,\n"
	    "bound to the nodes (mbind), or from a library's fresh mapping made\n"
	    "under the creating thread's memory policy; what it allocates as it\n"
	    "runs follows each worker's memory policy (set_mempolicy) and, where\n"
	    "its adapter routes it, the allocator. numaring and sharded place a\n"
	    "ring per node themselves and keep it. Emulated nodes place nothing.\n"
	    "summary.csv's queue_pages counts the queue's pages per node at the\n"
	    "end of the measured window (\"0:12;1:0\"; \"not placed\" on emulated\n"
	    "nodes); meta.json's queue_memory says what is counted and what not"),
	REAL("calibrate", calibrate, calibrate_s, 0, "the harness's own ceiling", " SEC",
	    "before the measured run, run the null queue (operations that share\n"
	    "nothing) with the same threads, placement and items for SEC seconds:\n"
	    "what the harness alone can do (harness_ops_per_s); 0: skip.\n"
	    "Not for faa, whose items are not accounted for (default 0.1)"),
	TAKE("out", take_out, "results", " DIR",
	    "write summary.csv, latency.hgrm, latency.csv, meta.json into DIR\n"
	    "(created if missing; each file written whole); probe.csv for --probe"),
	SET("verify", verify, 1, NULL, NULL,
	    "fail (exit 1) if any item was lost or duplicated (default: on)"),
	SET("no-verify", verify, 0, NULL, NULL,
	    "do not check"),
	REAL("drain-timeout", drain_timeout, drain_timeout_s, 0, NULL, " SEC",
	    "how long consumers may take to drain after the producers stop\n"
	    "(with --ops: how long the run may go without an item arriving)\n"
	    "before items count as lost (default 10)"),
	SET("counters", counters, 1, NULL, NULL,
	    "count over the measured window, on every producer and consumer\n"
	    "thread: context switches and CPU migrations (software events),\n"
	    "cycles, instructions and LLC misses (hardware, user space), with\n"
	    "perf_event_open counters each thread opens on itself and the main\n"
	    "thread enables and reads (no system call in the measured loop).\n"
	    "summary.csv gets each per item of ops; meta.json's counters says\n"
	    "what was measured or why not (no hardware PMU, as in most VMs;\n"
	    "kernel.perf_event_paranoid). Default: off, columns empty"),
	SET("quick", quick, 1, NULL, NULL,
	    "--probe: fewer round trips and batches, the built-in bandwidth loop\n"
	    "instead of likwid-bench (seconds, not minutes: tests, small hosts)"),
	SET("quiet", quiet, 1, NULL, NULL,
	    "no summary line on stdout, no probe progress or crowded-pinning\n"
	    "note on stderr; errors and warnings still print"),
	MODE("schema", HB_SCHEMA, NULL, NULL,
	    "print summary.csv's columns (column,type,description) and exit"),
	MODE("manifest", HB_MANIFEST, NULL, NULL,
	    "print every name the scripts need (queues and what each can do,\n"
	    "look-ups, gates, backoffs, workloads, probe rows, the options'\n"
	    "bounds, summary.csv's columns) as JSON and exit"),
	MODE("help", HB_HELP, NULL, ", --version",
	    ""),
	REAL("load-probe", load_probe, load_probe_s, 0, NULL, NULL, NULL),
	MODE("show-topology", HB_SHOW_TOPOLOGY, NULL, NULL, NULL),
	MODE("probe", HB_PROBE, NULL, NULL, NULL),
	MODE("version", HB_VERSION, NULL, NULL, NULL),
};

#define NOPTS (sizeof opt_rows / sizeof opt_rows[0])

/* The column --help's text starts at */
#define HELP_COL 22

/* One row of --help: "  --name META" and its text from HELP_COL on (on the
 * next line where the name reaches it), each further line under the first */
static void usage_row(FILE *out, const struct opt_row *r)
{
	char head[64];
	int n = snprintf(head, sizeof head, "  --%s%s", r->name, r->meta ? r->meta : "");
	if (r->section)
		fprintf(out, "\n%s\n", r->section);
	if (!*r->help) {
		fprintf(out, "%s\n", head);
		return;
	}
	if (n >= HELP_COL)
		fprintf(out, "%s\n%*s", head, HELP_COL, "");
	else
		fprintf(out, "%-*s", HELP_COL, head);
	for (const char *t = r->help; *t; t++) {
		if (t[0] == '%' && t[1] == 'X') {
			fprintf(out, "%.15g", hb_limits[r->lim].max);
			t++;
		} else {
			fputc(*t, out);
			if (*t == '\n')
				fprintf(out, "%*s", HELP_COL, "");
		}
	}
	fputc('\n', out);
	if (r->more)
		r->more(out);
}

void hb_usage(FILE *out)
{
	fputs(
		"usage: numaring-bench [options]           run one configuration, write one result\n"
		"       numaring-bench --show-topology     print the topology a run would use (JSON)\n"
		"       numaring-bench --probe [--quick] --out DIR\n"
		"                                          measure the host into DIR/probe.csv: core-to-core\n"
		"                                          latency, look-ups, PAUSE, fetch-and-add, bandwidth\n"
		"       numaring-bench --manifest          print every name the scripts need (JSON)\n",
		out);
	for (size_t i = 0; i < NOPTS; i++)
		if (opt_rows[i].help)
			usage_row(out, &opt_rows[i]);
	fputs(
		"\n"
		"exit status: 0 ok, 1 the run failed (lost items, a thread could not start), 2 bad input,\n"
		"             3 the results could not be written (disk full, read-only, ...): nothing left\n",
		out);
}
/* getopt's value of row i: above every character */
#define OPT_BASE 256

/* The defaults of a run: what hb_parse starts from. */
static void defaults(struct hb_options *o, int argc, char **argv)
{
	memset(o, 0, sizeof *o);
	o->mode = HB_RUN;
	o->queue = hq_find("numaring");
	o->workload = HB_WORKLOAD_PRODCONS;
	o->producers = o->consumers = 1;
	o->enqueue_share = 0.5;
	o->seed = 1;
	o->duration_s = 2.0;
	o->warmup_s = 0.5;
	o->capacity = 1024;
	o->batch = 32;
	/* production's look-up, so that a run of numaring measures the queue a
	 * program gets (and bench-fidelity's bare loop, numaring_create's) */
	o->lookup = NUMARING_LOOKUP_AUTO;
	o->recheck = 256;
	o->gate = NUMARING_GATE_PERWORKER;
	o->backoff = NUMARING_BACKOFF_DEFAULT;
	o->pin = HB_PIN_COMPACT;
	o->smt = HB_SMT_CORES;
	o->queue_mem = HB_QMEM_FIRST_TOUCH;
	o->verify = 1;
	o->drain_timeout_s = 10.0;
	o->item = HB_ITEM_INLINE;
	o->sample = 256;
	o->calibrate_s = 0.1;
	o->load_probe_s = 0.3;
	o->argc = argc;
	o->argv = argv;
}

/* What getopt's '?' and ':' mean, in one message. */
static int bad_option(char **argv)
{
	if (optopt >= OPT_BASE)
		return hb_usage_error("%s needs a value", argv[optind - 1]);
	if (optopt)
		return hb_usage_error("unknown option \"-%c\"", optopt);
	return hb_usage_error("unknown option \"%s\"", argv[optind - 1]);
}

/* prodcons: the sides from --threads or --producers/--consumers, each side's
 * work from --work where it has none of its own */
static int settle_prodcons(struct hb_options *o, unsigned given)
{
	if (given & G_THREADS) {
		if (o->threads < 2)
			return hb_usage_error("--threads %u with --workload prodcons: it splits the "
					      "threads into producers and consumers, and needs at "
					      "least 2",
					      o->threads);
		o->producers = (o->threads + 1) / 2;
		o->consumers = o->threads / 2;
	}
	o->threads = o->producers + o->consumers;
	if (!(given & G_PWORK))
		o->producer_work_ns = o->work_ns;
	if (!(given & G_CWORK))
		o->consumer_work_ns = o->work_ns;
	/* the floor applies to each side that works: it must fit under its bound */
	int p_low = o->producer_work_ns && o->producer_work_ns < o->work_min_ns;
	int c_low = o->consumer_work_ns && o->consumer_work_ns < o->work_min_ns;
	if (o->work_min_ns && (p_low || c_low))
		return hb_usage_error("--work's minimum %llu ns is above --%s-work %llu",
				      (unsigned long long)o->work_min_ns,
				      p_low ? "producer" : "consumer",
				      (unsigned long long)(p_low ? o->producer_work_ns
								 : o->consumer_work_ns));
	return 0;
}

/* pairs, mixed: --threads N threads, each a producer and a consumer */
static int settle_symmetric(struct hb_options *o, unsigned given)
{
	const char *wl = hb_workload_name(o->workload);
	if (given & G_SIDES)
		return hb_usage_error("--producers and --consumers go with --workload prodcons; %s "
				      "runs --threads N threads that each enqueue and dequeue",
				      wl);
	if (given & (G_PWORK | G_CWORK))
		return hb_usage_error("--%s-work goes with --workload prodcons; %s takes --work",
				      given & G_PWORK ? "producer" : "consumer", wl);
	if (o->pin == HB_PIN_SPLIT || o->pin == HB_PIN_NODES)
		return hb_usage_error("--pin %s puts producers and consumers on nodes of their "
				      "own; %s has no sides: use compact or scatter",
				      o->pin == HB_PIN_SPLIT ? "split" : o->pin_list, wl);
	if (o->load > 0)
		return hb_usage_error("--load goes with --workload prodcons; give %s an enqueue "
				      "rate (--rate)",
				      wl);
	if (!(given & G_THREADS))
		o->threads = 2;
	o->producers = o->consumers = o->threads;
	return 0;
}

/* The pace: --duration or --ops, --rate or --load, and the timed items'
 * sample that follows from them. */
static int settle_pace(struct hb_options *o, unsigned given)
{
	if ((given & G_DURATION) && (given & G_OPS))
		return hb_usage_error("--duration and --ops are alternatives; give one");
	if (given & G_OPS)
		o->duration_s = 0;
	if (o->rate > 0 && o->load > 0)
		return hb_usage_error("--rate and --load are alternatives; give one");
	if (o->capacity_ops > 0 && !(o->load > 0))
		return hb_usage_error("--capacity-ops goes with --load: it is the capacity the "
				      "load is a fraction of");
	if ((o->rate > 0 || o->load > 0) && !(given & G_SAMPLE))
		o->sample = 1; /* below saturation the clock costs little: time every item */
	else if (o->bursts && !(given & G_SAMPLE)) {
		/* One timed operation in 256, as with single operations: a burst's
		 * items travel together, and a burst holding a timed item costs
		 * what a timed single operation costs (two clock reads, a stamp,
		 * the consumer's second look); one in 256 items would time one
		 * burst of 32 in 8 and set the pace of a closed loop (issue 44). */
		unsigned long long s = 256;
		while (s < 256ull * o->batch && s < 1048576)
			s <<= 1;
		o->sample = (unsigned)s;
	}
	return 0;
}

/* --strip: a diagnostic of the plain run only; NULL where this run is one */
static const char *strip_refused(const struct hb_options *o, unsigned given)
{
	return hb_symmetric(o)				      ? "--workload prodcons"
	       : o->item != HB_ITEM_INLINE		      ? "--item inline"
	       : !o->queue->bounded || !o->queue->moves_data ? "a bounded queue that moves items"
	       : o->rate > 0 || o->load > 0		      ? "a closed loop (no --rate, --load)"
	       : o->producer_work_ns || o->consumer_work_ns ? "no work"
	       : given & G_OPS				      ? "--duration, not --ops"
							      : NULL;
}

/* What no single option decides: the queue and item, --strip, the batch,
 * the modes' own options and a cpulist's size. */
static int settle_rest(struct hb_options *o, unsigned given)
{
	const char *why;
	if (o->mode == HB_RUN && o->queue->message_only && o->item != HB_ITEM_MESSAGE)
		return hb_usage_error("--queue %s takes message items only (give --item message): %s",
				      o->queue->name, o->queue->message_only);
	if (o->strip && (why = strip_refused(o, given)))
		return hb_usage_error("--strip is a diagnostic of the plain run and needs %s", why);
	if (o->batch > o->capacity)
		return hb_usage_error("--batch %u is larger than %s %zu", o->batch,
				      o->capacity_per_node ? "--capacity-per-node" : "--capacity",
				      o->capacity);
	if (o->quick && o->mode != HB_PROBE)
		return hb_usage_error("--quick goes with --probe");
	if (o->counters && o->mode != HB_RUN)
		return hb_usage_error("--counters goes with a run, not with --%s",
				      o->mode == HB_PROBE ? "probe" : "show-topology");
	unsigned named = (unsigned)CPU_COUNT(&o->pin_cpus);
	if (o->pin == HB_PIN_LIST && named < o->threads && hb_symmetric(o))
		return hb_usage_error("--pin %s names %u CPUs for %u threads", o->pin_list, named,
				      o->threads);
	if (o->pin == HB_PIN_LIST && named < o->threads)
		return hb_usage_error("--pin %s names %u CPUs for %u threads (%u producers + %u "
				      "consumers)",
				      o->pin_list, named, o->threads, o->producers, o->consumers);
	return 0;
}

int hb_parse(int argc, char **argv, struct hb_options *o)
{
	static struct option long_opts[NOPTS + 1];
	unsigned given = 0;
	int rc;

	for (size_t i = 0; i < NOPTS; i++)
		long_opts[i] = (struct option){opt_rows[i].name, opt_rows[i].arg, NULL,
					       OPT_BASE + (int)i};
	defaults(o, argc, argv);
	opterr = 0;
	optind = 1;
	for (int c; (c = getopt_long(argc, argv, "", long_opts, NULL)) != -1;) {
		if (c < OPT_BASE || c >= OPT_BASE + (int)NOPTS)
			return bad_option(argv);
		const struct opt_row *r = &opt_rows[c - OPT_BASE];
		rc = r->take(o, r, optarg, given);
		if (rc == STOP)
			return 0;
		if (rc)
			return rc;
		given |= r->given;
	}
	if (optind < argc)
		return hb_usage_error("unexpected argument \"%s\"", argv[optind]);
	if ((given & G_THREADS) && (given & G_SIDES))
		return hb_usage_error("--threads and --producers/--consumers are alternatives; "
				      "give one");
	if (hb_symmetric(o) ? (rc = settle_symmetric(o, given)) : (rc = settle_prodcons(o, given)))
		return rc;
	if ((given & G_SHARE) && o->workload != HB_WORKLOAD_MIXED)
		return hb_usage_error("--enqueue-share goes with --workload mixed, not %s",
				      hb_workload_name(o->workload));
	if ((rc = settle_pace(o, given)) || (rc = settle_rest(o, given)))
		return rc;
	return 0;
}
