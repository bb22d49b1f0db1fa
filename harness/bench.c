/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bench.c - numaring-bench: run one configuration of NumaRing or a peer
 * queue and write one result (see options.c for the command line).
 *
 * The run, in steps:
 *   1. Check every input (options.c), find the topology and the CPU of each
 *      thread (placement.c).
 *   2. Calibrate (--calibrate): the same threads, placement and items
 *      through the null queue, whose operations share nothing: what the
 *      harness alone can do, recorded beside the result.
 *   3. The measured run: create the queue through its adapter (queue.h);
 *      start producers and consumers (workers.c), or the threads of a
 *      symmetric workload (workload.c), each pinned, waiting at a barrier.
 *      The main thread opens the warm-up, then the measured window
 *      (t_start), then closes it (t_end), reading every thread's count at
 *      both ends, and stops the producers (the enqueues).
 *   4. Consumers drain what is left; every producer's count and checksum
 *      must equal what the consumers tallied in its name (--verify; item.h
 *      says what that catches). In pairs and mixed, thread i is producer i
 *      and consumer i: the same check.
 *   5. Histograms are merged (and by path, for a queue that has paths);
 *      summary.csv, latency.hgrm, latency.csv, meta.json (and
 *      latency-path.csv) are written whole into --out (report.c).
 *
 * This file reads the command line and strings the runs together (steps 1,
 * 2, the capacity run of --load, 3-5); one run of one queue, from set-up to
 * verification, is run.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "errors.h"
#include "hdr.h"
#include "manifest.h"
#include "numaring.h"
#include "numaring_lab.h"
#include "options.h"
#include "output.h"
#include "pingpong.h"
#include "probe.h"
#include "queue.h"
#include "run.h"
#include "version.h"

#ifndef NUMARING_GIT
#define NUMARING_GIT "unknown"
#endif

_Static_assert(HB_MAX_BURST == 4096, "--help says 4096 is the most --bursts takes (options.c)");

/* The harness's own ceiling: the null queue, same threads and items. */
/* The order check's verdict (item.h): checked where items travelled and
 * every consumer accounted for them; enforced where the queue's stated
 * guarantee keeps each producer's order: "fifo" and "per-producer" always,
 * "per-node" where the run's topology has one node with CPUs (every item
 * goes through that node's ring, which is FIFO; with more, batches move
 * between rings and held items come back newest first: counted only).
 * "k-relaxed" never: a k-FIFO queue lets an item out up to k - 1 places
 * early, one producer's later items before its earlier ones included, so
 * its inversions are counted only (max_backward_step shows the reach). An
 * inversion in an enforced run fails it, as a lost item does. */
static void order_verdict(const struct hb_options *o, const struct numaring_topology *t,
			  struct hb_measure *m)
{
	const char *g = o->queue->ordering;
	unsigned cpu_nodes = 0;
	for (unsigned i = 0; i < t->nnodes; i++)
		cpu_nodes += numaring_cpuset_count(&t->cpus[i]) > 0;
	m->ordering_checked = o->queue->moves_data && !(o->strip & HB_STRIP_ACCOUNTING);
	m->ordering_enforced = m->ordering_checked &&
			       (!strcmp(g, "fifo") || !strcmp(g, "per-producer") ||
				(!strcmp(g, "per-node") && cpu_nodes == 1));
	m->ordering_failed = m->ordering_enforced && m->inversions > 0;
	if (m->ordering_failed)
		hb_say("verify failed: %llu item%s arrived after a later item of %s producer "
		       "(the largest step back: %llu sequence numbers), which %s's stated order "
		       "(%s) rules out",
		       (unsigned long long)m->inversions, m->inversions == 1 ? "" : "s",
		       m->inversions == 1 ? "its" : "their", (unsigned long long)m->max_step,
		       o->queue->name, g);
}

static int calibrate(const struct hb_options *o, const struct hq_params *params,
		     const struct hb_placement *place, const struct hb_work_calibration *work,
		     struct hb_calibration *cal)
{
	struct hb_run run;
	struct hb_measure m;
	struct hb_plan pl = {hq_find("null"), params, place, 0.02, o->calibrate_s, 0, 0, work};
	int rc;
	memset(cal, 0, sizeof *cal);
	if (o->calibrate_s <= 0) {
		cal->why_not = "--calibrate 0";
		return 0;
	}
	if (o->strip) { /* the null queue moves nothing: a stripped run has no partner */
		cal->why_not = "--strip (a diagnostic run)";
		return 0;
	}
	if (o->queue->fabricates) {
		cal->why_not = "the queue under test is the null queue";
		return 0;
	}
	if (!o->queue->moves_data) {
		/* faa's consumers account for nothing: the null queue's run,
		 * whose consumers do, is no ceiling for it */
		cal->why_not = "the queue moves no items, so the harness does not account for any";
		return 0;
	}
	memset(&m, 0, sizeof m);
	if ((rc = hb_run_setup(&run, o, &pl)) == 0 && (rc = hb_run_start(&run)) == 0)
		hb_run_measure(&run, &pl, &m);
	hb_run_free(&run);
	if (rc)
		return rc;
	cal->done = 1;
	cal->seconds = m.duration_s;
	cal->enqueue_rate = m.enqueue_rate;
	cal->dequeue_rate = m.dequeue_rate;
	cal->ceiling = m.throughput;
	if (hb_symmetric(o)) { /* thread time per operation, either kind */
		cal->producer_ns = cal->consumer_ns =
			m.throughput > 0 ? 1e9 * o->threads / m.throughput : 0;
	} else {
		cal->producer_ns = m.enqueue_rate > 0 ? 1e9 * o->producers / m.enqueue_rate : 0;
		cal->consumer_ns = m.dequeue_rate > 0 ? 1e9 * o->consumers / m.dequeue_rate : 0;
	}
	return 0;
}

/*
 * --load: the capacity the offered load is a fraction of. The same queue,
 * threads, placement and items in closed loop, with numaring's gate set to
 * per-worker (the fix, so that the load is the same fraction for every
 * gate of one sweep), for a short run. Returns 0, or 1/2 after a message.
 */
/* The queue's settings run() names (numaring's, by name: queue.h), the
 * capacity run's copy of them included */
#define HB_QUEUE_SETTINGS 7

static int measure_capacity(const struct hb_options *o, const struct hq_params *params,
			    const struct hb_placement *place, const struct hb_work_calibration *work,
			    double *capacity)
{
	struct hb_run run;
	struct hb_measure m;
	struct hq_setting set[HB_QUEUE_SETTINGS];
	struct hq_params p = *params;
	unsigned n = 0;
	int rc;
	for (unsigned i = 0; i < params->nsettings && n < HB_QUEUE_SETTINGS; i++)
		if (strcmp(params->settings[i].name, "gate") != 0)
			set[n++] = params->settings[i];
	if (hq_takes(o->queue, "gate") && n < HB_QUEUE_SETTINGS)
		set[n++] = (struct hq_setting){"gate", "perworker"};
	p.settings = set;
	p.nsettings = n;
	struct hb_plan pl = {o->queue, &p, place, 0.1, o->load_probe_s, 0, 0, work};
	memset(&m, 0, sizeof m);
	if ((rc = hb_run_setup(&run, o, &pl)) == 0 && (rc = hb_run_start(&run)) == 0)
		hb_run_measure(&run, &pl, &m);
	hb_run_free(&run);
	*capacity = m.throughput;
	return rc;
}

static void print_line(const struct hb_options *o, const struct hb_report *rep,
		       const struct hb_measure *m)
{
	if (hb_symmetric(o))
		printf("%s %s %uT", o->queue->name, hb_workload_name(o->workload), o->threads);
	else
		printf("%s %uP%uC", o->queue->name, o->producers, o->consumers);
	printf(" %s items", hb_item_name(rep->run->item));
	if (hq_takes(o->queue, "lookup"))
		printf(" lookup=%s gate=%s backoff=%s", rep->lookup_in_force,
		       numaring_gate_name(o->gate), numaring_backoff_name(o->backoff));
	if (hb_symmetric(o) && o->work_ns)
		printf(" work=%llu ns", (unsigned long long)o->work_ns);
	else if (o->producer_work_ns || o->consumer_work_ns)
		printf(" work=%llu/%llu ns", (unsigned long long)o->producer_work_ns,
		       (unsigned long long)o->consumer_work_ns);
	printf(" batch=%u cap=%zu%s [%s, %u node%s]: %.3f M%s/s", o->batch, o->capacity,
	       o->bursts ? " bursts" : "", rep->t->emulated ? "emulated" : "real", rep->t->nnodes,
	       rep->t->nnodes == 1 ? "" : "s", m->throughput / 1e6,
	       hb_symmetric(o) ? " operations" : "ops");
	if (rep->cal->done)
		printf(" (harness alone %.3f)", rep->cal->ceiling / 1e6);
	if (m->latency_count)
		printf(", p50 %lld ns, p99 %lld ns, p99.9 %lld ns, max %lld ns", (long long)m->p50,
		       (long long)m->p99, (long long)m->p999, (long long)m->max);
	printf("; verify %s (%llu items)\n", m->verify, (unsigned long long)m->dequeued);
}

/* The two CPUs whose hand-over distance a run records: the first
 * producer's and the first consumer's (threads 0 and 1 of a symmetric
 * workload); -1 where there are not two threads. */
static void hand_over_cpus(const struct hb_options *o, const int *cpus, int out[2])
{
	unsigned second = hb_symmetric(o) ? 1 : o->producers;
	out[0] = out[1] = -1;
	if (o->threads >= 2 && second < o->threads) {
		out[0] = cpus[0];
		out[1] = cpus[second];
	}
}

/* One way, ns, between the two CPUs; -1 where it cannot be timed: a CPU not
 * pinned, both threads on one CPU, or no answer within 20 ms (the CPUs
 * taken by others). A few thousand line trips, outside the measured window. */
static double hand_over_ns(const int cpu[2])
{
	double ns;
	if (cpu[0] < 0 || cpu[1] < 0 || cpu[0] == cpu[1])
		return -1;
	return hb_one_way_ns(cpu[0], cpu[1], 20.0, &ns) == 0 ? ns : -1;
}

static int do_run(const struct hb_options *o)
{
	struct numaring_topology *t = calloc(1, sizeof *t);
	unsigned n = o->threads; /* producers + consumers, or a symmetric workload's */
	int *cpus = calloc(n, sizeof *cpus);
	struct hb_cpumap *cpumap = calloc(1, sizeof *cpumap);
	struct hb_placement place = {cpus, -1};
	struct hdr_hist *hist = NULL;
	/* latency by path, where the queue has paths (queue.h) */
	struct hdr_hist *path_hist[HQ_PATH_COUNT_] = {NULL};
	int paths = o->queue->dequeue_paths != NULL;
	struct hb_run run;
	struct hb_measure m;
	struct hb_calibration cal;
	struct hb_work_calibration work;
	struct hb_report rep;
	struct hb_qmem qmem;
	char err[NUMARING_ERRLEN], recheck[32], linger[32], pause_spin[16], exp_cap[16];
	int rc = 0;

	memset(&run, 0, sizeof run);
	memset(&m, 0, sizeof m);
	memset(&rep, 0, sizeof rep);
	time_t now_t = time(NULL);
	struct tm tmv;
	gmtime_r(&now_t, &tmv);
	strftime(rep.start_time, sizeof rep.start_time, "%Y-%m-%dT%H:%M:%SZ", &tmv);
	gethostname(rep.host, sizeof rep.host - 1);
	if (!t || !cpus || !cpumap || hdr_init(1, HB_HIST_MAX, HB_HIST_DIGITS, &hist) != 0) {
		hb_say("out of memory");
		rc = 1;
		goto out;
	}
	for (int p = 0; paths && p < HQ_PATH_COUNT_; p++)
		if (hdr_init(1, HB_HIST_MAX, HB_HIST_DIGITS, &path_hist[p]) != 0) {
			hb_say("out of memory");
			rc = 1;
			goto out;
		}

	/* 1. inputs, topology, placement */
	if (numaring_topology_get(o->topology, t, err, sizeof err) < 0) {
		hb_say("%s", err);
		rc = 2;
		goto out;
	}
	if (hb_cpumap_discover(t, cpumap, err, sizeof err) < 0) {
		hb_say("cannot find the cores: %s", err);
		rc = 1;
		goto out;
	}
	if ((rc = hb_plan_cpus(o, cpumap, &place)) != 0)
		goto out;
	/* where the queues' memory goes (--queue-mem), for every run of this
	 * invocation: the calibration's and the capacity run's queues too */
	if ((rc = hb_qmem_plan(o, t, cpus, &qmem)) != 0)
		goto out;
	hb_qmem_use(&qmem);
	if (!o->quiet)
		hb_warn_crowding(o, t, cpus);
	if (o->out && (rc = hb_dir_writable(o->out)) < 0) {
		hb_say("--out %s is not writable: %s", o->out, strerror(-rc));
		rc = 2;
		goto out;
	}
	if (o->bursts && o->batch > HB_MAX_BURST) {
		hb_say("--bursts with --batch above %d is not supported", HB_MAX_BURST);
		rc = 2;
		goto out;
	}
	if (o->producers > HB_ITEM_MAX_PRODUCERS) {
		hb_say("at most %u producers", HB_ITEM_MAX_PRODUCERS);
		rc = 2;
		goto out;
	}
	if (hc_init() < 0) {
		hb_say("NUMARING_CLOCK=\"%s\": expected tsc or gettime", getenv("NUMARING_CLOCK"));
		rc = 2;
		goto out;
	}
	hb_topology_spec(o, t, rep.topo_spec, sizeof rep.topo_spec);
	/* the work loop's speed, once, before any thread runs (work.h) */
	memset(&work, 0, sizeof work);
	if (o->work_ns || o->producer_work_ns || o->consumer_work_ns)
		hb_work_calibrate(&work);

	/* the queue's own settings, by name (queue.h) */
	snprintf(recheck, sizeof recheck, "%u", o->recheck);
	snprintf(linger, sizeof linger, "%u", o->linger_us);
	snprintf(pause_spin, sizeof pause_spin, "%u", o->pause_spin);
	snprintf(exp_cap, sizeof exp_cap, "%u", o->exp_cap);
	struct hq_setting settings[] = {
		{"lookup", numaring_lookup_name(o->lookup)},
		{"recheck", recheck},
		{"gate", numaring_gate_name(o->gate)},
		{"linger", linger},
		{"pause-spin", pause_spin},
		{"exp-cap", exp_cap},
		{"topology", o->topology}, /* NULL: not given (no --topology) */
	};
	_Static_assert(sizeof settings / sizeof settings[0] == HB_QUEUE_SETTINGS,
		       "HB_QUEUE_SETTINGS counts the settings of a run");
	/* the settings given, in the table's order: a NULL value is one not
	 * given (topology without --topology) */
	unsigned nsettings = 0;
	for (size_t i = 0; i < HB_QUEUE_SETTINGS; i++)
		if (settings[i].value)
			settings[nsettings++] = settings[i];
	struct hq_params params = {
		.capacity = o->capacity,
		.capacity_per_node = o->capacity_per_node,
		.batch = o->batch,
		.threads = n,
		.item = o->item,
		.sample = o->sample,
		.settings = settings,
		.nsettings = nsettings,
		.backoff = &o->backoff,
	};

	/* 2. the harness's own ceiling */
	if ((rc = calibrate(o, &params, &place, &work, &cal)) != 0)
		goto out;

	/* 3. --load: the capacity it is a fraction of, then the offered rate */
	double rate = o->rate;
	if (o->load > 0) {
		/* --capacity-ops: the capacity given (one probe shared by the runs
		 * that must offer the same rate), no capacity run of our own */
		if (o->capacity_ops > 0)
			m.capacity = o->capacity_ops;
		else if ((rc = measure_capacity(o, &params, &place, &work, &m.capacity)) != 0)
			goto out;
		rate = o->load * m.capacity;
		if (rate <= 0) {
			hb_say("--load: the capacity run moved no item");
			rc = 1;
			goto out;
		}
	}
	m.offered_rate = rate;

	/* the hand-over distance between the run's two first CPUs, just before
	 * the run (pingpong.h); again just after it */
	hand_over_cpus(o, cpus, m.c2c_cpu);
	m.c2c_before_ns = hand_over_ns(m.c2c_cpu);

	/* 4. the measured run */
	struct hb_plan pl = {o->queue, &params, &place, o->warmup_s, o->duration_s, o->ops, rate, &work};
	if ((rc = hb_run_setup(&run, o, &pl)) != 0)
		goto out;
	run.measured = 1; /* its window, only, gets --counters and likwid's markers */
	if ((rc = hb_run_start(&run)) != 0)
		goto out;
	const char *in_force =
		o->queue->setting_in_force ? o->queue->setting_in_force(run.q, "lookup") : NULL;
	rep.lookup_in_force = !hq_takes(o->queue, "lookup") ? ""
			      : in_force			 ? in_force
							 : numaring_lookup_name(o->lookup);
	/* the spin lengths the backoffs use (production's constants unless --pause-spin,
	 * --exp-cap): recorded, so that a backoff compares in time across hosts */
	const char *ps = o->queue->setting_in_force && hq_takes(o->queue, "pause-spin")
				 ? o->queue->setting_in_force(run.q, "pause-spin") : NULL;
	snprintf(rep.pause_spin_in_force, sizeof rep.pause_spin_in_force, "%s", ps ? ps : "");
	const char *ec = o->queue->setting_in_force && hq_takes(o->queue, "exp-cap")
				 ? o->queue->setting_in_force(run.q, "exp-cap") : NULL;
	snprintf(rep.exp_cap_in_force, sizeof rep.exp_cap_in_force, "%s", ec ? ec : "");
	if (*rep.lookup_in_force && o->lookup != NUMARING_LOOKUP_AUTO &&
	    strcmp(rep.lookup_in_force, numaring_lookup_name(o->lookup)))
		/* loud even with --quiet: the run measures another mode than asked */
		hb_say("note: --lookup %s is not available here (%s): %s runs instead; "
		       "summary.csv's lookup_in_force says so",
		       numaring_lookup_name(o->lookup),
		       o->lookup == NUMARING_LOOKUP_RSEQ
			   ? "the kernel keeps no rseq node_id before Linux 6.3, or libc "
			     "registered no rseq area"
			   : "the CPU has no rdpid instruction",
		       rep.lookup_in_force);
	hb_run_measure(&run, &pl, &m);

	/* 4. verify, 5. report */
	hb_run_collect(&run, &m, hist, paths ? path_hist : NULL);
	m.c2c_after_ns = hand_over_ns(m.c2c_cpu);
	hb_counters_collect(&run, o->counters, &m.ctr);
	int checked = o->queue->moves_data && o->verify;
	int counted_only = (o->strip & HB_STRIP_ACCOUNTING) != 0; /* no tallies to check */
	if (checked && counted_only)
		hb_run_verify_totals(&run, &m, 1);
	else if (checked)
		hb_run_verify(&run, &m, 1);
	order_verdict(o, t, &m);
	int failed = o->queue->moves_data &&
		     (m.lost || m.dup || m.corrupt || m.bad || m.ordering_failed);
	m.verify = !o->queue->moves_data ? "n/a"
		   : !o->verify		 ? "off"
		   : failed		 ? "failed"
		   : counted_only	 ? "count"
					 : "ok";
	m.latency_count = hdr_total_count(hist);
	if (m.latency_count > 0) {
		m.p50 = hdr_value_at_percentile(hist, 50);
		m.p90 = hdr_value_at_percentile(hist, 90);
		m.p99 = hdr_value_at_percentile(hist, 99);
		m.p999 = hdr_value_at_percentile(hist, 99.9);
		m.max = hdr_max(hist);
		m.mean = hdr_mean(hist);
	}
	m.paths = paths;
	for (int p = 0; paths && p < HQ_PATH_COUNT_; p++) {
		m.path_count[p] = hdr_total_count(path_hist[p]);
		if (m.path_count[p] > 0) {
			m.path_p50[p] = hdr_value_at_percentile(path_hist[p], 50);
			m.path_p99[p] = hdr_value_at_percentile(path_hist[p], 99);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		int is_p = i < o->producers; /* every thread of a symmetric workload */
		int cpu = cpus[i];
		int e = is_p ? run.prod[i].pin_errno : run.cons[i - o->producers].pin_errno;
		if (cpu >= 0 && e)
			hb_say("warning: %s %u could not be pinned to CPU %d: %s",
			       hb_symmetric(o) ? "thread"
			       : is_p	       ? "producer"
					       : "consumer",
			       is_p ? i : i - o->producers, cpu, strerror(e));
	}
	rep.o = o;
	rep.t = t;
	rep.cpus = cpus;
	rep.cpumap = cpumap;
	rep.place = &place;
	hb_sharing_of(cpumap, cpus, n, &rep.sharing);
	rep.run = &run;
	rep.m = &m;
	rep.cal = &cal;
	rep.work = &work;
	rep.qmem = hb_qmem_in_use();
	if (!o->quiet)
		print_line(o, &rep, &m);
	if (checked && failed)
		rc = 1;
	else if (o->out)
		rc = hb_write_results(&rep, hist, paths ? path_hist : NULL);
out:
	hb_run_free(&run);
	hdr_free(hist);
	for (int p = 0; p < HQ_PATH_COUNT_; p++)
		hdr_free(path_hist[p]);
	free(cpus);
	free(cpumap);
	free(t);
	return rc;
}

static int do_probe(const struct hb_options *o)
{
	struct numaring_topology *t = calloc(1, sizeof *t);
	char err[NUMARING_ERRLEN];
	struct hp_opts po;
	int rc = 2;
	if (!t)
		return 1;
	if (!o->out) {
		hb_usage_error("--probe needs --out DIR (where probe.csv goes)");
		goto out;
	}
	if (numaring_topology_get(o->topology, t, err, sizeof err) < 0) {
		hb_say("%s", err);
		goto out;
	}
	if ((rc = hb_dir_writable(o->out)) < 0) {
		hb_say("--out %s is not writable: %s", o->out, strerror(-rc));
		rc = 2;
		goto out;
	}
	if (hc_init() < 0) {
		hb_say("NUMARING_CLOCK=\"%s\": expected tsc or gettime", getenv("NUMARING_CLOCK"));
		rc = 2;
		goto out;
	}
	memset(&po, 0, sizeof po);
	po.quick = o->quick;
	po.progress = o->quiet ? NULL : stderr;
	rc = hp_probe_run(t, o->out, &po, err, sizeof err);
	if (rc < 0) {
		hb_say("probe failed: %s", err);
		/* the folder cannot take the file: full, read-only, over quota */
		rc = rc == -ENOSPC || rc == -EFBIG || rc == -EROFS || rc == -EDQUOT
			     ? HB_EXIT_CANNOT_WRITE
			     : 1;
		goto out;
	}
	if (!o->quiet)
		printf("probe written to %s/probe.csv\n", o->out);
	rc = 0;
out:
	free(t);
	return rc;
}

int main(int argc, char **argv)
{
	struct hb_options o;
	/* A fixed threshold: glibc otherwise raises it to the size of the
	 * last mapping freed, and a histogram of the measured run would come
	 * from memory a thread of the calibration run touched on its node;
	 * above it every allocation is a fresh mapping, first touched by the
	 * thread that allocates it (workers.c). */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	int rc = hb_parse(argc, argv, &o);
	if (rc)
		return rc;
	switch (o.mode) {
	case HB_HELP:
		hb_usage(stdout);
		return 0;
	case HB_VERSION:
		printf("numaring-bench %d.%d (git %s)\n", NUMARING_VERSION_MAJOR,
		       NUMARING_VERSION_MINOR, NUMARING_GIT);
		return 0;
	case HB_SCHEMA:
		hb_print_schema(stdout);
		return 0;
	case HB_MANIFEST:
		hb_print_manifest(stdout);
		return 0;
	case HB_SHOW_TOPOLOGY:
		return hb_show_topology(&o);
	case HB_PROBE:
		return do_probe(&o);
	case HB_RUN:
	default:
		return do_run(&o);
	}
}
