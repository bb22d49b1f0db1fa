/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * options.c - parse and check numaring-bench's command line.
 *
 * Why this file is long: --help's text (a third of it) and one check with one
 * message per option and per combination it refuses live beside the parser,
 * so that what the help promises and what the parser enforces are read
 * together; the name tables (workloads, pins, --strip) are here for the same
 * reason.
 */
#define _GNU_SOURCE
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
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

void hb_usage(FILE *out)
{
	fprintf(out,
		"usage: numaring-bench [options]           run one configuration, write one result\n"
		"       numaring-bench --show-topology     print the topology a run would use (JSON)\n"
		"       numaring-bench --probe [--quick] --out DIR\n"
		"                                          measure the host into DIR/probe.csv: core-to-core\n"
		"                                          latency, look-ups, PAUSE, fetch-and-add, bandwidth\n"
		"       numaring-bench --manifest          print every name the scripts need (JSON)\n"
		"\n"
		"queue under test\n"
		"  --queue NAME        the queue (default numaring):\n");
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
	fprintf(out,
		"\n"
		"workload\n"
		"  --workload W        what the threads do (default prodcons):\n"
		"                        prodcons  producer threads enqueue, consumer threads dequeue\n"
		"                        pairs     every thread enqueues, then dequeues, and again\n"
		"                                  (Michael and Scott's enqueue-dequeue pairs)\n"
		"                        mixed     every thread enqueues or dequeues at random\n"
		"                                  (--enqueue-share), drawn from a generator of its own\n"
		"                                  (--seed); the queue is filled to half of what it\n"
		"                                  holds before the start (an unbounded queue: half the\n"
		"                                  in-flight bound), with items verified like the others\n"
		"                      pairs and mixed: an enqueue that finds the queue full or a dequeue\n"
		"                      that finds it empty is counted (full_retries, empty_polls; an\n"
		"                      unbounded queue's enqueue beyond the in-flight bound: window_waits)\n"
		"                      and the thread goes on to its next operation. Every thread is a\n"
		"                      producer and a consumer: summary.csv's producers and consumers both\n"
		"                      say --threads; ops and throughput_ops_per_s count operations\n"
		"                      (enqueues + dequeues that succeeded), and ops_kind says so\n"
		"  --threads N         threads of the run, 1..%d: pairs and mixed run N threads that each\n"
		"                      enqueue and dequeue (default 2); prodcons splits N half and half,\n"
		"                      ceil(N/2) producers and floor(N/2) consumers (N >= 2). Not with\n"
		"                      --producers/--consumers\n"
		"  --producers N       prodcons: producer threads, 1..%d (default 1)\n"
		"  --consumers N       prodcons: consumer threads, 1..%d (default 1)\n"
		"  --enqueue-share F   mixed: the probability that an operation is an enqueue, 0 < F < 1\n"
		"                      (default 0.5)\n"
		"  --work NS|MIN-MAX   local work between operations, 0..%u ns (default 0: none): a busy\n"
		"                      loop, calibrated to ns at the start (meta.json's work), whose\n"
		"                      length is drawn uniformly from 0..NS ns (MIN..MAX ns) for each\n"
		"                      operation (pairs, mixed: after every operation, failed or not).\n"
		"                      prodcons: on both sides, unless one of the next two sets a side's\n"
		"                      bound (MIN stays every working side's floor)\n"
		"  --producer-work NS  prodcons: a producer's work after each enqueue operation\n"
		"  --consumer-work NS  prodcons: a consumer's work after each dequeue that brought items\n"
		"                      (a faster consumer keeps a 1P1C queue near empty, a faster producer\n"
		"                      keeps it full)\n"
		"  --seed N            seed of the per-thread generators, 0..2^53 (default 1): a thread's\n"
		"                      draws are the same in every run with the same seed\n"
		"\n"
		"load\n"
		"  --duration SEC      measure for SEC seconds after the warm-up (default 2)\n"
		"  --ops N             or: measure until N items have gone through (not with --duration);\n"
		"                      pairs and mixed: each thread enqueues its share of N in the window,\n"
		"                      then only dequeues\n"
		"  --warmup SEC        run SEC seconds before measuring, 0 allowed (default 0.5)\n"
		"  --rate OPS          open loop: OPS items per second in all, split evenly over the\n"
		"                      producers (pairs, mixed: the enqueues, over the threads); latency is\n"
		"                      measured from each item's intended send time (coordinated omission\n"
		"                      corrected), whoever dequeues it. Default: closed loop.\n"
		"  --load F            open loop at F (0 < F <= 1) of the capacity, measured first unless\n"
		"                      --capacity-ops gives it: the same run in closed loop for\n"
		"                      --load-probe SEC (default 0.3) with numaring's gate per-worker;\n"
		"                      written as load and capacity_ops_per_s. Not with --rate;\n"
		"                      prodcons only\n"
		"  --capacity-ops R    with --load: take R items/s (above 0) as the capacity instead of\n"
		"                      measuring it: no capacity run (--load-probe is unused), the\n"
		"                      offered rate is F x R, and capacity_ops_per_s says R. For runs\n"
		"                      that must offer the same rate (scripts/experiments.py gives\n"
		"                      every gate of a round the capacity one probe measured)\n"
		"  --bursts            use burst operations of --batch items where the queue has them,\n"
		"                      --batch at most 4096 (default: single operations)\n"
		"  --item KIND         inline: each item is a value carrying its producer and a sequence\n"
		"                      number (or a send time), so nothing but the queue's own lines moves\n"
		"                      (default); message: a pointer to a message of the producer's pool,\n"
		"                      whose line travels to the consumer and back (the payload case).\n"
		"                      Queues that take pointers only (xenium-ramalhete, xenium-kfifo:\n"
		"                      the manifest's items) run with message items alone\n"
		"  --sample N          every N-th item of a producer is timed (its send time kept);\n"
		"                      the clock stays off the others. A power of two, 1..1048576\n"
		"                      (default 256; with --bursts 256 x --batch, rounded up to a power\n"
		"                      of two, at most 1048576: one timed burst in 256; 1 with --rate\n"
		"                      or --load)\n"
		"  --accounting W      how a consumer accounts for a burst of inline items (count,\n"
		"                      checksum and order in one pass; harness/item_sum.h): inline\n"
		"                      (compiled into the loop: 4 values at a time with AVX2, else 2),\n"
		"                      scalar (one value at a time), vector (2) or avx2 (4; CPUs with\n"
		"                      AVX2), each a call per burst; auto: inline (default). The same\n"
		"                      checks at every width (bench_peers --accounting compares them)\n"
		"  --strip LIST        a diagnostic of the harness's own cost (make bench-fidelity's\n"
		"                      table of where the time goes), not a measurement of a queue:\n"
		"                      removes, comma-separated: publish (a producer's count stored\n"
		"                      per operation: once at its end), window (a producer's phase,\n"
		"                      quota and window checks per operation: the phase read every\n"
		"                      64), accounting (a consumer's tallies and checksums: items\n"
		"                      counted, the run verifies totals, verify \"count\"). Closed-loop\n"
		"                      prodcons of inline items through a bounded queue, no work,\n"
		"                      no --ops; meta.json records it\n"
		"\n"
		"queue shape\n"
		"  --capacity N        slots of the whole queue, a power of two >= 2, for every queue\n"
		"                      (default 1024): numaring splits them among its rings (one per\n"
		"                      node), each share rounded down to a power of two; queue_slots\n"
		"                      in summary.csv is what the queue holds (ck: N - 1)\n"
		"  --capacity-per-node N\n"
		"                      numaring: N slots in each node's ring (the others: N in all)\n"
		"  --batch N           items per cross-node transfer (numaring) and burst size, 1..capacity\n"
		"                      (default 32)\n"
		"\n"
		"numaring's ablations (ignored by the other queues)\n"
		"  --lookup MODE       libnuma | syscall | table | cached | rseq | rdpid | none | auto\n"
		"                      (default auto, production's: none with one node of CPUs, else\n"
		"                      rseq where the kernel keeps the node id, else cached;\n"
		"                      summary.csv's lookup_in_force says which)\n"
		"  --recheck N         cached: re-check the node every N operations (default 256)\n"
		"  --gate MODE         shared | pernode | perworker (default perworker)\n"
		"  --backoff MODE      none | pause | exp | yield | adaptive (default adaptive, the\n"
		"                      library's production default: ring/numaring.h says why)\n"
		"  --linger US         a consumer whose ring is empty takes only a full batch from\n"
		"                      another node until it has found nothing for US microseconds\n"
		"                      (0..1000000; default 0: whatever there is)\n"
		"  --pause-spin N      backoff pause: PAUSEs of the fixed spin, 1..65536 (default: the\n"
		"                      library's production constant; meta.json and summary.csv\n"
		"                      record the one in force)\n"
		"  --exp-cap N         backoff exp and adaptive: the most PAUSEs of one backoff, a\n"
		"                      power of two 1..65536 (default: the production constant)\n"
		"\n"
		"placement\n"
		"  --topology SPEC     emulated nodes, one cpulist per node: \"0-7;8-15\" ('-' = memory-only\n"
		"                      node; optional distance matrix after '|'). Default: NUMARING_TOPOLOGY\n"
		"                      if set, else the machine's (hwloc). Emulated results say so.\n"
		"  --pin MODE|CPULIST  compact (fill a node, then the next; threads P0,C0,P1,C1..),\n"
		"                      scatter (producers and consumers each round-robin over nodes:\n"
		"                      Pi and Ci share a node),\n"
		"                      split (producers on the first node, consumers on the last),\n"
		"                      nodes:P/C (producers on node P, consumers on node C, each a\n"
		"                      core in turn; P = C: P0,C0,P1,C1.. on that node's cores),\n"
		"                      none, or a cpulist given to P0..Pn, C0..Cm in order (default compact).\n"
		"                      pairs, mixed: compact fills a node's cores with threads T0, T1, ..\n"
		"                      before the next node's, scatter gives thread i node i mod nodes,\n"
		"                      a cpulist goes to T0..Tn in order; split and nodes:P/C are\n"
		"                      refused (no sides)\n"
		"  --smt MODE          which hardware threads of a core the pin modes use (cores from\n"
		"                      hwloc, also for an emulated topology's CPUs): cores (default):\n"
		"                      one thread per core, on the core's first CPU, cores in node\n"
		"                      order; more threads than cores share those CPUs (oversubscribed);\n"
		"                      siblings: every CPU, a core's hyperthreads one after the other\n"
		"                      (compact puts P0 and C0 on two hyperthreads of one core).\n"
		"                      A CPU no thread uses, if any, runs the main thread.\n"
		"                      summary.csv's threads_per_core and smt_shared and meta.json's\n"
		"                      threads (cpu, core, node) say where the threads ran\n"
		"  --queue-mem POLICY  where the queue's memory goes (default first-touch):\n"
		"                        first-touch  where the creating thread's first touch puts it,\n"
		"                                     and what the queue allocates as it runs where\n"
		"                                     the working thread's does (as without the option)\n"
		"                        producers    the node of the first producer's CPU\n"
		"                        consumers    the node of the first consumer's CPU (pairs,\n"
		"                                     mixed: both are thread 0's)\n"
		"                        interleave   page by page over the run's nodes\n"
		"                        node:N       OS node N, which must have memory\n"
		"                      What a queue makes at creation comes from the harness's allocator,\n"
		"                      bound to the nodes (mbind), or from a library's fresh mapping made\n"
		"                      under the creating thread's memory policy; what it allocates as it\n"
		"                      runs follows each worker's memory policy (set_mempolicy) and, where\n"
		"                      its adapter routes it, the allocator. numaring and sharded place a\n"
		"                      ring per node themselves and keep it. Emulated nodes place nothing.\n"
		"                      summary.csv's queue_pages counts the queue's pages per node at the\n"
		"                      end of the measured window (\"0:12;1:0\"; \"not placed\" on emulated\n"
		"                      nodes); meta.json's queue_memory says what is counted and what not\n"
		"\n"
		"the harness's own ceiling\n"
		"  --calibrate SEC     before the measured run, run the null queue (operations that share\n"
		"                      nothing) with the same threads, placement and items for SEC seconds:\n"
		"                      what the harness alone can do (harness_ops_per_s); 0: skip.\n"
		"                      Not for faa, whose items are not accounted for (default 0.1)\n"
		"\n"
		"results\n"
		"  --out DIR           write summary.csv, latency.hgrm, latency.csv, meta.json into DIR\n"
		"                      (created if missing; each file written whole); probe.csv for --probe\n"
		"  --verify            fail (exit 1) if any item was lost or duplicated (default: on)\n"
		"  --no-verify         do not check\n"
		"  --drain-timeout SEC how long consumers may take to drain after the producers stop\n"
		"                      (with --ops: how long the run may go without an item arriving)\n"
		"                      before items count as lost (default 10)\n"
		"  --counters          count over the measured window, on every producer and consumer\n"
		"                      thread: context switches and CPU migrations (software events),\n"
		"                      cycles, instructions and LLC misses (hardware, user space), with\n"
		"                      perf_event_open counters each thread opens on itself and the main\n"
		"                      thread enables and reads (no system call in the measured loop).\n"
		"                      summary.csv gets each per item of ops; meta.json's counters says\n"
		"                      what was measured or why not (no hardware PMU, as in most VMs;\n"
		"                      kernel.perf_event_paranoid). Default: off, columns empty\n"
		"  --quick             --probe: fewer round trips and batches, the built-in bandwidth loop\n"
		"                      instead of likwid-bench (seconds, not minutes: tests, small hosts)\n"
		"  --quiet             no summary line on stdout, no probe progress or crowded-pinning\n"
		"                      note on stderr; errors and warnings still print\n"
		"  --schema            print summary.csv's columns (column,type,description) and exit\n"
		"  --manifest          print every name the scripts need (queues and what each can do,\n"
		"                      look-ups, gates, backoffs, workloads, probe rows, the options'\n"
		"                      bounds, summary.csv's columns) as JSON and exit\n"
		"  --help, --version\n"
		"\n"
		"exit status: 0 ok, 1 the run failed (lost items, a thread could not start), 2 bad input,\n"
		"             3 the results could not be written (disk full, read-only, ...): nothing left\n",
		(unsigned)HB_THREADS_MAX, (unsigned)HB_THREADS_MAX, (unsigned)HB_THREADS_MAX,
		(unsigned)HB_WORK_NS_MAX);
}

enum {
	OPT_QUEUE = 256, OPT_PRODUCERS, OPT_CONSUMERS, OPT_DURATION, OPT_OPS, OPT_WARMUP,
	OPT_CAPACITY, OPT_CAPACITY_PER_NODE, OPT_BATCH, OPT_BURSTS, OPT_LOOKUP, OPT_RECHECK, OPT_GATE, OPT_BACKOFF,
	OPT_TOPOLOGY, OPT_PIN, OPT_RATE, OPT_OUT, OPT_VERIFY, OPT_NO_VERIFY, OPT_DRAIN,
	OPT_SHOW, OPT_PROBE, OPT_QUICK, OPT_QUIET, OPT_HELP, OPT_VERSION, OPT_ITEM, OPT_SAMPLE,
	OPT_CALIBRATE, OPT_SCHEMA, OPT_LOAD, OPT_LOAD_PROBE, OPT_LINGER, OPT_COUNTERS, OPT_SMT,
	OPT_ACCOUNTING, OPT_WORKLOAD, OPT_THREADS, OPT_ENQUEUE_SHARE, OPT_WORK, OPT_PRODUCER_WORK,
	OPT_CONSUMER_WORK, OPT_SEED, OPT_PAUSE_SPIN, OPT_EXP_CAP, OPT_CAPACITY_OPS, OPT_MANIFEST,
	OPT_STRIP, OPT_QUEUE_MEM,
};

static const struct option long_opts[] = {
	{"queue", required_argument, NULL, OPT_QUEUE},
	{"producers", required_argument, NULL, OPT_PRODUCERS},
	{"consumers", required_argument, NULL, OPT_CONSUMERS},
	{"duration", required_argument, NULL, OPT_DURATION},
	{"ops", required_argument, NULL, OPT_OPS},
	{"warmup", required_argument, NULL, OPT_WARMUP},
	{"capacity", required_argument, NULL, OPT_CAPACITY},
	{"capacity-per-node", required_argument, NULL, OPT_CAPACITY_PER_NODE},
	{"batch", required_argument, NULL, OPT_BATCH},
	{"bursts", no_argument, NULL, OPT_BURSTS},
	{"lookup", required_argument, NULL, OPT_LOOKUP},
	{"recheck", required_argument, NULL, OPT_RECHECK},
	{"gate", required_argument, NULL, OPT_GATE},
	{"backoff", required_argument, NULL, OPT_BACKOFF},
	{"topology", required_argument, NULL, OPT_TOPOLOGY},
	{"pin", required_argument, NULL, OPT_PIN},
	{"rate", required_argument, NULL, OPT_RATE},
	{"out", required_argument, NULL, OPT_OUT},
	{"verify", no_argument, NULL, OPT_VERIFY},
	{"no-verify", no_argument, NULL, OPT_NO_VERIFY},
	{"drain-timeout", required_argument, NULL, OPT_DRAIN},
	{"show-topology", no_argument, NULL, OPT_SHOW},
	{"probe", no_argument, NULL, OPT_PROBE},
	{"quick", no_argument, NULL, OPT_QUICK},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"help", no_argument, NULL, OPT_HELP},
	{"version", no_argument, NULL, OPT_VERSION},
	{"item", required_argument, NULL, OPT_ITEM},
	{"sample", required_argument, NULL, OPT_SAMPLE},
	{"calibrate", required_argument, NULL, OPT_CALIBRATE},
	{"schema", no_argument, NULL, OPT_SCHEMA},
	{"manifest", no_argument, NULL, OPT_MANIFEST},
	{"load", required_argument, NULL, OPT_LOAD},
	{"load-probe", required_argument, NULL, OPT_LOAD_PROBE},
	{"capacity-ops", required_argument, NULL, OPT_CAPACITY_OPS},
	{"linger", required_argument, NULL, OPT_LINGER},
	{"pause-spin", required_argument, NULL, OPT_PAUSE_SPIN},
	{"exp-cap", required_argument, NULL, OPT_EXP_CAP},
	{"counters", no_argument, NULL, OPT_COUNTERS},
	{"smt", required_argument, NULL, OPT_SMT},
	{"queue-mem", required_argument, NULL, OPT_QUEUE_MEM},
	{"accounting", required_argument, NULL, OPT_ACCOUNTING},
	{"strip", required_argument, NULL, OPT_STRIP},
	{"workload", required_argument, NULL, OPT_WORKLOAD},
	{"threads", required_argument, NULL, OPT_THREADS},
	{"enqueue-share", required_argument, NULL, OPT_ENQUEUE_SHARE},
	{"work", required_argument, NULL, OPT_WORK},
	{"producer-work", required_argument, NULL, OPT_PRODUCER_WORK},
	{"consumer-work", required_argument, NULL, OPT_CONSUMER_WORK},
	{"seed", required_argument, NULL, OPT_SEED},
	{NULL, 0, NULL, 0},
};

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

int hb_parse(int argc, char **argv, struct hb_options *o)
{
	uint64_t v;
	int rc, duration_given = 0, ops_given = 0, sample_given = 0, capacity_given = 0;
	/* what was given, for the checks of combinations after the loop: the
	 * options may come in any order */
	int sides_given = 0, threads_given = 0, share_given = 0, pwork_given = 0, cwork_given = 0;
	char err[NUMARING_ERRLEN];

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

	opterr = 0;
	optind = 1;
	for (;;) {
		int c = getopt_long(argc, argv, "", long_opts, NULL);
		if (c == -1)
			break;
		switch (c) {
		case OPT_QUEUE:
			if (!(o->queue = hq_find(optarg)))
				return hb_usage_error("unknown queue \"%s\"", optarg);
			break;
		case OPT_PRODUCERS:
			if ((rc = parse_count("--producers", optarg, HB_LIM(producers), &v)))
				return rc;
			o->producers = (unsigned)v;
			sides_given = 1;
			break;
		case OPT_CONSUMERS:
			if ((rc = parse_count("--consumers", optarg, HB_LIM(consumers), &v)))
				return rc;
			o->consumers = (unsigned)v;
			sides_given = 1;
			break;
		case OPT_WORKLOAD:
			if (hb_workload_parse(optarg, &o->workload) < 0)
				return hb_usage_error(
				    "unknown --workload \"%s\" (prodcons, pairs, mixed)", optarg);
			break;
		case OPT_THREADS:
			if ((rc = parse_count("--threads", optarg, HB_LIM(threads), &v)))
				return rc;
			o->threads = (unsigned)v;
			threads_given = 1;
			break;
		case OPT_ENQUEUE_SHARE:
			if ((rc = parse_real("--enqueue-share", optarg, HB_RLIM(enqueue_share),
					      &o->enqueue_share)))
				return rc;
			share_given = 1;
			break;
		case OPT_WORK: {
			/* NS (0..NS) or MIN-MAX: the field's random delay with a floor */
			char lo[32];
			const char *dash = strchr(optarg, '-');
			o->work_min_ns = 0;
			if (dash && dash != optarg) {
				if ((size_t)(dash - optarg) >= sizeof lo)
					return hb_usage_error("--work needs NS or MIN-MAX, not \"%s\"",
							      optarg);
				memcpy(lo, optarg, (size_t)(dash - optarg));
				lo[dash - optarg] = '\0';
				if ((rc = parse_count("--work", lo, HB_LIM(work), &o->work_min_ns)) ||
				    (rc = parse_count("--work", dash + 1, HB_LIM(work), &o->work_ns)))
					return rc;
				if (o->work_min_ns > o->work_ns)
					return hb_usage_error("--work %s: the minimum is above the maximum",
							      optarg);
			} else if ((rc = parse_count("--work", optarg, HB_LIM(work), &o->work_ns)))
				return rc;
			break;
		}
		case OPT_PRODUCER_WORK:
			if ((rc = parse_count("--producer-work", optarg, HB_LIM(producer_work),
					      &o->producer_work_ns)))
				return rc;
			pwork_given = 1;
			break;
		case OPT_CONSUMER_WORK:
			if ((rc = parse_count("--consumer-work", optarg, HB_LIM(consumer_work),
					      &o->consumer_work_ns)))
				return rc;
			cwork_given = 1;
			break;
		case OPT_SEED:
			if ((rc = parse_count("--seed", optarg, HB_LIM(seed), &o->seed)))
				return rc;
			break;
		case OPT_DURATION:
			if ((rc = parse_real("--duration", optarg, HB_RLIM(duration), &o->duration_s)))
				return rc;
			duration_given = 1;
			break;
		case OPT_OPS:
			if ((rc = parse_count("--ops", optarg, HB_LIM(ops), &o->ops)))
				return rc;
			ops_given = 1;
			break;
		case OPT_WARMUP:
			if ((rc = parse_real("--warmup", optarg, HB_RLIM(warmup), &o->warmup_s)))
				return rc;
			break;
		case OPT_CAPACITY:
		case OPT_CAPACITY_PER_NODE: {
			const char *flag = c == OPT_CAPACITY ? "--capacity" : "--capacity-per-node";
			if (capacity_given && (c == OPT_CAPACITY_PER_NODE) != o->capacity_per_node)
				return hb_usage_error("--capacity and --capacity-per-node are "
						      "alternatives; give one");
			if ((rc = parse_count(flag, optarg, HB_LIM(capacity), &v)))
				return rc;
			if (v & (v - 1))
				return hb_usage_error("%s %llu is not a power of two", flag,
						      (unsigned long long)v);
			o->capacity = (size_t)v;
			o->capacity_per_node = c == OPT_CAPACITY_PER_NODE;
			capacity_given = 1;
			break;
		}
		case OPT_BATCH:
			if ((rc = parse_count("--batch", optarg, HB_LIM(batch), &v)))
				return rc;
			o->batch = (unsigned)v;
			break;
		case OPT_BURSTS:
			o->bursts = 1;
			break;
		case OPT_ITEM:
			if (hb_item_parse(optarg, &o->item) < 0)
				return hb_usage_error("unknown --item \"%s\" (inline, message)",
						      optarg);
			break;
		case OPT_ACCOUNTING:
			if (hb_accounting_parse(optarg, &o->accounting) < 0)
				return hb_usage_error(
				    "unknown --accounting \"%s\" (auto, inline, scalar, vector, avx2)",
				    optarg);
			if (!hb_accounting_available(o->accounting))
				return hb_usage_error("--accounting %s: this CPU (or build) has no "
						      "AVX2; use auto, inline or vector",
						      optarg);
			break;
		case OPT_STRIP: {
			const char *bad = NULL;
			if (hb_strip_parse(optarg, &o->strip, &bad) < 0)
				return hb_usage_error("--strip %s: unknown \"%.*s\" (publish, window, "
						      "accounting, comma-separated)",
						      optarg, (int)strcspn(bad, ","), bad);
			break;
		}
		case OPT_SAMPLE:
			if ((rc = parse_count("--sample", optarg, HB_LIM(sample), &v)))
				return rc;
			if (v & (v - 1))
				return hb_usage_error("--sample %llu is not a power of two",
						      (unsigned long long)v);
			o->sample = (unsigned)v;
			sample_given = 1;
			break;
		case OPT_CALIBRATE:
			if ((rc = parse_real("--calibrate", optarg, HB_RLIM(calibrate), &o->calibrate_s)))
				return rc;
			break;
		case OPT_SCHEMA:
			o->mode = HB_SCHEMA;
			return 0;
		case OPT_MANIFEST:
			o->mode = HB_MANIFEST;
			return 0;
		case OPT_LOAD:
			if ((rc = parse_real("--load", optarg, HB_RLIM(load), &o->load)))
				return rc;
			break;
		case OPT_LINGER:
			if ((rc = parse_count("--linger", optarg, HB_LIM(linger), &v)))
				return rc;
			o->linger_us = (unsigned)v;
			break;
		case OPT_PAUSE_SPIN:
			if ((rc = parse_count("--pause-spin", optarg, HB_LIM(pause_spin), &v)))
				return rc;
			o->pause_spin = (unsigned)v;
			break;
		case OPT_EXP_CAP:
			if ((rc = parse_count("--exp-cap", optarg, HB_LIM(exp_cap), &v)))
				return rc;
			if (v & (v - 1)) {
				hb_say("--exp-cap %s: not a power of two", optarg);
				return 2;
			}
			o->exp_cap = (unsigned)v;
			break;
		case OPT_COUNTERS:
			o->counters = 1;
			break;
		case OPT_LOAD_PROBE:
			if ((rc = parse_real("--load-probe", optarg, HB_RLIM(load_probe), &o->load_probe_s)))
				return rc;
			break;
		case OPT_CAPACITY_OPS:
			if ((rc = parse_real("--capacity-ops", optarg, HB_RLIM(capacity_ops),
					      &o->capacity_ops)))
				return rc;
			break;
		case OPT_LOOKUP:
			if (numaring_lookup_parse(optarg, &o->lookup) < 0)
				return hb_usage_error("unknown --lookup \"%s\" (libnuma, syscall, "
						      "table, cached, rseq, rdpid, none, auto)",
						      optarg);
			break;
		case OPT_RECHECK:
			if ((rc = parse_count("--recheck", optarg, HB_LIM(recheck), &v)))
				return rc;
			o->recheck = (unsigned)v;
			break;
		case OPT_GATE:
			if (numaring_gate_parse(optarg, &o->gate) < 0)
				return hb_usage_error(
				    "unknown --gate \"%s\" (shared, pernode, perworker)", optarg);
			break;
		case OPT_BACKOFF:
			if (numaring_backoff_parse(optarg, &o->backoff) < 0)
				return hb_usage_error(
				    "unknown --backoff \"%s\" (none, pause, exp, yield, adaptive)", optarg);
			break;
		case OPT_TOPOLOGY:
			o->topology = optarg;
			break;
		case OPT_PIN: {
			int found = 0;
			for (int p = 0; p < HB_PIN_COUNT_; p++)
				if (p != HB_PIN_LIST && p != HB_PIN_NODES &&
				    strcmp(optarg, pin_names[p]) == 0) {
					o->pin = (enum hb_pin)p;
					found = 1;
				}
			if (!found && !strncmp(optarg, "nodes:", 6)) {
				unsigned a, b;
				int used = 0;
				if (sscanf(optarg + 6, "%u/%u%n", &a, &b, &used) != 2 ||
				    optarg[6 + used] || !strchr("0123456789", optarg[6]) ||
				    a >= NUMARING_MAX_NODES || b >= NUMARING_MAX_NODES)
					return hb_usage_error(
					    "--pin %s: expected nodes:P/C, the producers' and the "
					    "consumers' node numbers (0..%d), e.g. nodes:0/1",
					    optarg, NUMARING_MAX_NODES - 1);
				o->pin = HB_PIN_NODES;
				o->pin_nodes[0] = a;
				o->pin_nodes[1] = b;
				o->pin_list = optarg;
				found = 1;
			}
			if (!found) {
				if (!optarg[0] || !strchr("0123456789", optarg[0]))
					return hb_usage_error(
					    "unknown --pin \"%s\" (compact, scatter, split, none, "
					    "nodes:P/C, or a cpulist such as 0-3,8)",
					    optarg);
				if (numaring_cpulist_parse(optarg, strlen(optarg), &o->pin_cpus, err,
						     sizeof err) < 0)
					return hb_usage_error("--pin: %s", err);
				o->pin = HB_PIN_LIST;
				o->pin_list = optarg;
			}
			break;
		}
		case OPT_SMT: {
			int found = 0;
			for (int m = 0; m < HB_SMT_COUNT_; m++)
				if (strcmp(optarg, smt_names[m]) == 0) {
					o->smt = (enum hb_smt)m;
					found = 1;
				}
			if (!found)
				return hb_usage_error("unknown --smt \"%s\" (cores, siblings)",
						      optarg);
			break;
		}
		case OPT_QUEUE_MEM:
			if ((rc = parse_queue_mem(optarg, o)))
				return rc;
			break;
		case OPT_RATE:
			if ((rc = parse_real("--rate", optarg, HB_RLIM(rate), &o->rate)))
				return rc;
			break;
		case OPT_OUT:
			if (!optarg[0])
				return hb_usage_error("--out needs a directory");
			o->out = optarg;
			break;
		case OPT_VERIFY:
			o->verify = 1;
			break;
		case OPT_NO_VERIFY:
			o->verify = 0;
			break;
		case OPT_DRAIN:
			if ((rc = parse_real("--drain-timeout", optarg, HB_RLIM(drain_timeout),
					     &o->drain_timeout_s)))
				return rc;
			break;
		case OPT_SHOW:
			o->mode = HB_SHOW_TOPOLOGY;
			break;
		case OPT_PROBE:
			o->mode = HB_PROBE;
			break;
		case OPT_QUICK:
			o->quick = 1;
			break;
		case OPT_QUIET:
			o->quiet = 1;
			break;
		case OPT_HELP:
			o->mode = HB_HELP;
			return 0;
		case OPT_VERSION:
			o->mode = HB_VERSION;
			return 0;
		case ':':
			return hb_usage_error("%s needs a value", argv[optind - 1]);
		case '?':
		default:
			if (optopt >= OPT_QUEUE)
				return hb_usage_error("%s needs a value", argv[optind - 1]);
			if (optopt)
				return hb_usage_error("unknown option \"-%c\"", optopt);
			return hb_usage_error("unknown option \"%s\"", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return hb_usage_error("unexpected argument \"%s\"", argv[optind]);
	/* the workload's threads and sides */
	const char *wl = hb_workload_name(o->workload);
	if (threads_given && sides_given)
		return hb_usage_error(
		    "--threads and --producers/--consumers are alternatives; give one");
	if (hb_symmetric(o)) {
		if (sides_given)
			return hb_usage_error(
			    "--producers and --consumers go with --workload prodcons; %s runs "
			    "--threads N threads that each enqueue and dequeue",
			    wl);
		if (pwork_given || cwork_given)
			return hb_usage_error(
			    "--%s-work goes with --workload prodcons; %s takes --work",
			    pwork_given ? "producer" : "consumer", wl);
		if (o->pin == HB_PIN_SPLIT || o->pin == HB_PIN_NODES)
			return hb_usage_error(
			    "--pin %s puts producers and consumers on nodes of their own; %s "
			    "has no sides: use compact or scatter",
			    o->pin == HB_PIN_SPLIT ? "split" : o->pin_list, wl);
		if (o->load > 0)
			return hb_usage_error(
			    "--load goes with --workload prodcons; give %s an enqueue rate "
			    "(--rate)",
			    wl);
		if (!threads_given)
			o->threads = 2;
		o->producers = o->consumers = o->threads;
	} else {
		if (threads_given) {
			if (o->threads < 2)
				return hb_usage_error(
				    "--threads %u with --workload prodcons: it splits the threads "
				    "into producers and consumers, and needs at least 2",
				    o->threads);
			o->producers = (o->threads + 1) / 2;
			o->consumers = o->threads / 2;
		}
		o->threads = o->producers + o->consumers;
		if (!pwork_given)
			o->producer_work_ns = o->work_ns;
		if (!cwork_given)
			o->consumer_work_ns = o->work_ns;
		/* the floor applies to each side that works: it must fit under its bound */
		if (o->work_min_ns && ((o->producer_work_ns && o->producer_work_ns < o->work_min_ns) ||
				       (o->consumer_work_ns && o->consumer_work_ns < o->work_min_ns)))
			return hb_usage_error("--work's minimum %llu ns is above --%s-work %llu",
					      (unsigned long long)o->work_min_ns,
					      o->producer_work_ns && o->producer_work_ns < o->work_min_ns
						      ? "producer" : "consumer",
					      (unsigned long long)(o->producer_work_ns &&
								   o->producer_work_ns < o->work_min_ns
							       ? o->producer_work_ns
							       : o->consumer_work_ns));
	}
	if (share_given && o->workload != HB_WORKLOAD_MIXED)
		return hb_usage_error("--enqueue-share goes with --workload mixed, not %s", wl);
	if (duration_given && ops_given)
		return hb_usage_error("--duration and --ops are alternatives; give one");
	if (ops_given)
		o->duration_s = 0;
	if (o->rate > 0 && o->load > 0)
		return hb_usage_error("--rate and --load are alternatives; give one");
	if (o->capacity_ops > 0 && !(o->load > 0))
		return hb_usage_error(
		    "--capacity-ops goes with --load: it is the capacity the load is a "
		    "fraction of");
	if ((o->rate > 0 || o->load > 0) && !sample_given)
		o->sample = 1; /* below saturation the clock costs little: time every item */
	else if (o->bursts && !sample_given) {
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
	if (o->mode == HB_RUN && o->queue->message_only && o->item != HB_ITEM_MESSAGE)
		return hb_usage_error("--queue %s takes message items only (give --item message): %s",
				      o->queue->name, o->queue->message_only);
	if (o->strip) {
		const char *why = hb_symmetric(o)			? "--workload prodcons"
				  : o->item != HB_ITEM_INLINE		? "--item inline"
				  : !o->queue->bounded || !o->queue->moves_data ? "a bounded queue that moves items"
				  : o->rate > 0 || o->load > 0		? "a closed loop (no --rate, --load)"
				  : o->producer_work_ns || o->consumer_work_ns ? "no work"
				  : ops_given				? "--duration, not --ops"
									: NULL;
		if (why)
			return hb_usage_error("--strip is a diagnostic of the plain run and needs %s",
					      why);
	}
	if (o->batch > o->capacity)
		return hb_usage_error("--batch %u is larger than %s %zu", o->batch,
				      o->capacity_per_node ? "--capacity-per-node" : "--capacity",
				      o->capacity);
	if (o->quick && o->mode != HB_PROBE)
		return hb_usage_error("--quick goes with --probe");
	if (o->counters && o->mode != HB_RUN)
		return hb_usage_error("--counters goes with a run, not with --%s",
				      o->mode == HB_PROBE ? "probe" : "show-topology");
	if (o->pin == HB_PIN_LIST) {
		unsigned named = (unsigned)CPU_COUNT(&o->pin_cpus);
		if (named < o->threads && hb_symmetric(o))
			return hb_usage_error("--pin %s names %u CPUs for %u threads", o->pin_list,
					      named, o->threads);
		if (named < o->threads)
			return hb_usage_error(
			    "--pin %s names %u CPUs for %u threads (%u producers + %u consumers)",
			    o->pin_list, named, o->threads, o->producers, o->consumers);
	}
	return 0;
}
