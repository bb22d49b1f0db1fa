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
 *   5. Histograms are merged; summary.csv, latency.hgrm, latency.csv and
 *      meta.json are written whole into --out (report.c).
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
#include "probe.h"
#include "queue.h"
#include "run.h"
#include "version.h"

#ifndef NUMARING_GIT
#define NUMARING_GIT "unknown"
#endif

static uint64_t pow2ceil(uint64_t v)
{
	uint64_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - floor(s)) * 1e9)};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static uint64_t total_sent(const struct hb_run *run)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < run->np; i++)
		n += atomic_load_explicit(&run->prod[i].sent, memory_order_relaxed);
	return n;
}

static uint64_t total_received(const struct hb_run *run)
{
	uint64_t n = 0;
	for (unsigned i = 0; i < run->nc; i++)
		n += atomic_load_explicit(&run->cons[i].received, memory_order_relaxed);
	return n;
}

static int producers_done(const struct hb_run *run)
{
	for (unsigned i = 0; i < run->np; i++)
		/* Acquire: pairs with the producer's release of done. */
		if (!atomic_load_explicit(&run->prod[i].done, memory_order_acquire))
			return 0;
	return 1;
}

/* What one run of a queue is asked to do. */
struct hb_plan {
	const struct hq_ops *queue;
	const struct hq_params *params;
	const struct hb_placement *place;
	double warmup_s, duration_s; /* duration 0: until `items` went through */
	uint64_t items;
	double rate; /* open loop: items/s over all producers; 0 closed loop */
	const struct hb_work_calibration *work; /* the work loop's speed (--work) */
};

/* ---- one run of one queue ------------------------------------------------- */

/* Allocate the run's threads' state. Returns 0, or 1 after a message. */
static int run_alloc(struct hb_run *run, const struct hb_plan *pl, size_t holds)
{
	const struct hb_options *o = run->o;
	unsigned n = run->nthreads;
	/* message mode: a producer reuses a message only after its consumer
	 * released it, so its pool must outlast what the queue can hold;
	 * unbounded queues: the bound of items in flight */
	uint64_t window = holds ? pow2ceil(holds + (uint64_t)o->batch * n + 64)
				: pow2ceil(o->capacity > 2 * (uint64_t)o->batch * run->np
						   ? o->capacity
						   : 2 * (uint64_t)o->batch * run->np);
	if (o->bursts && window < 2 * (uint64_t)o->batch)
		window = pow2ceil(2 * (uint64_t)o->batch);
	run->window = window;
	if (!(run->prod = aligned_alloc(HB_LINE, run->np * sizeof *run->prod)) ||
	    !(run->cons = aligned_alloc(HB_LINE, run->nc * sizeof *run->cons))) {
		hb_say("out of memory for %u threads", n);
		return 1;
	}
	memset(run->prod, 0, run->np * sizeof *run->prod);
	memset(run->cons, 0, run->nc * sizeof *run->cons);
	for (unsigned i = 0; i < run->np; i++) {
		struct hb_producer *p = &run->prod[i];
		p->run = run;
		p->id = i;
		p->cpu = pl->place->cpu[i];
		p->mem_node = -1;
		p->quota = pl->items / run->np + (i < pl->items % run->np);
		p->rng = hb_rng_seed(o->seed, i);
	}
	for (unsigned i = 0; i < run->nc; i++) {
		struct hb_consumer *c = &run->cons[i];
		c->run = run;
		c->id = i;
		/* symmetric: consumer i is thread i, producer i's thread */
		c->cpu = pl->place->cpu[run->workload == HB_WORKLOAD_PRODCONS ? run->np + i : i];
		c->mem_node = -1;
		c->rng = hb_rng_seed(o->seed, HB_STREAM_CONSUMERS + i);
	}
	/* the message pools, tallies and histograms are each thread's own:
	 * it allocates them once pinned (workers.c), on its node */
	run->main_cpu = pl->place->main_cpu;
	return 0;
}

/* Stop and join every thread that was started; free everything. */
static void run_free(struct hb_run *run)
{
	if (run->prod || run->cons)
		hb_set_phase(run, PH_STOP_CONSUMERS);
	for (unsigned i = 0; run->prod && i < run->np; i++) {
		if (run->prod[i].started)
			pthread_join(run->prod[i].th, NULL);
		hb_local_free(run->prod[i].pool, run->window * sizeof *run->prod[i].pool);
	}
	for (unsigned i = 0; run->cons && i < run->nc; i++) {
		if (run->cons[i].started)
			pthread_join(run->cons[i].th, NULL);
		hdr_free(run->cons[i].hist);
		hb_local_free(run->cons[i].tally, hb_tally_bytes(run));
	}
	if (run->main_pinned) /* back to every CPU: the next run creates its queue */
		pthread_setaffinity_np(pthread_self(), sizeof run->main_mask, &run->main_mask);
	hb_counters_release(run);
	if (run->barrier_ready)
		pthread_barrier_destroy(&run->barrier);
	if (run->q)
		run->ops->destroy(run->q);
	free(run->prod);
	free(run->cons);
	memset(run, 0, sizeof *run);
}

/* Start the threads; they wait at the barrier with the main thread.
 * Returns 0, or 1 after a message. */
static int run_start(struct hb_run *run)
{
	const int symmetric = run->workload != HB_WORKLOAD_PRODCONS;
	unsigned n = run->nthreads;
	if (pthread_barrier_init(&run->barrier, NULL, n + 1) != 0) {
		hb_say("cannot make the start barrier");
		return 1;
	}
	run->barrier_ready = 1;
	atomic_store(&run->t_start, UINT64_MAX);
	atomic_store(&run->t_end, UINT64_MAX);
	atomic_store(&run->phase, PH_START);
	for (unsigned i = 0; i < n; i++) {
		int is_p = i < run->np;
		struct hb_producer *p = is_p ? &run->prod[i] : NULL;
		struct hb_consumer *c = is_p ? NULL : &run->cons[i - run->np];
		int e = symmetric ? pthread_create(&p->th, NULL, hb_symmetric_main, p)
			: is_p	  ? pthread_create(&p->th, NULL, hb_producer_main, p)
				  : pthread_create(&c->th, NULL, hb_consumer_main, c);
		if (e) {
			/* the barrier can never open: no thread may wait at it */
			hb_say("cannot start thread %u of %u: %s", i, n, strerror(e));
			exit(1);
		}
		if (is_p)
			p->started = 1;
		else
			c->started = 1;
	}
	/* The main thread to its own CPU, now that the queue exists (its
	 * creation reads the creating thread's allowed CPUs) and the workers,
	 * which inherit the mask, have started. */
	if (run->main_cpu >= 0 &&
	    pthread_getaffinity_np(pthread_self(), sizeof run->main_mask, &run->main_mask) == 0) {
		hb_pin_self(run->main_cpu, &run->main_pin_errno);
		run->main_pinned = run->main_pin_errno == 0;
	}
	pthread_barrier_wait(&run->barrier);
	if (hb_phase(run) == PH_ABORT) {
		for (unsigned i = 0; i < run->np; i++)
			if (run->prod[i].err[0])
				hb_say("%s %u: %s", symmetric ? "thread" : "producer", i,
				       run->prod[i].err);
		for (unsigned i = 0; i < run->nc; i++)
			if (run->cons[i].err[0])
				hb_say("consumer %u: %s", i, run->cons[i].err);
		return 1;
	}
	return 0;
}

/* Warm-up, measured window, stop, drain, join. Fills the rates of m. */
static void run_measure(struct hb_run *run, const struct hb_plan *pl, struct hb_measure *m)
{
	const int moves = run->ops->moves_data;
	const int symmetric = run->workload != HB_WORKLOAD_PRODCONS;
	hb_set_phase(run, PH_WARMUP);
	if (pl->warmup_s > 0)
		sleep_s(pl->warmup_s);
	if (run->measured) /* counters on, just before the window (counters.c) */
		hb_window_open(run);
	uint64_t s0 = total_sent(run), r0 = total_received(run);
	uint64_t t_start = hc_now();
	atomic_store_explicit(&run->t_start, t_start, memory_order_relaxed);
	hb_set_phase(run, PH_MEASURE); /* release: publishes t_start */
	uint64_t t_end, s1, r1;
	if (!pl->items) {
		sleep_s(pl->duration_s);
	} else {
		/* until `items` went through (moves) or were sent (faa, null); a
		 * run in which nothing arrives for --drain-timeout has lost items
		 * (a producer may wait forever for a lost message to come back):
		 * it ends there, and verification says what is missing */
		uint64_t seen = r0, progress = t_start;
		for (;;) {
			uint64_t got = total_received(run), now = hc_now();
			if (moves ? got - r0 >= pl->items : producers_done(run))
				break;
			if (got != seen) {
				seen = got;
				progress = now;
			} else if (hc_to_ns(now - progress) > run->o->drain_timeout_s * 1e9) {
				break;
			}
			sleep_s(50e-6);
		}
	}
	t_end = hc_now();
	s1 = total_sent(run);
	r1 = total_received(run);
	if (run->measured)
		hb_window_close(run);
	run->main_ran_on = sched_getcpu();
	atomic_store_explicit(&run->t_end, t_end, memory_order_relaxed);
	hb_set_phase(run, PH_STOP_PRODUCERS);
	if (!symmetric) {
		for (unsigned i = 0; i < run->np; i++) {
			pthread_join(run->prod[i].th, NULL);
			run->prod[i].started = 0;
		}
	} else {
		/* every thread stopped enqueuing (its sent is final) and drains;
		 * it cannot be held up by the others: none waits for room */
		while (!producers_done(run))
			sleep_s(100e-6);
	}
	/* drain: consumers go on until everything sent has arrived */
	uint64_t sent = total_sent(run);
	double waited = 0;
	while (moves && total_received(run) < sent && waited < run->o->drain_timeout_s) {
		sleep_s(0.001);
		waited += 0.001;
	}
	hb_set_phase(run, PH_STOP_CONSUMERS);
	for (unsigned i = 0; symmetric && i < run->np; i++) {
		pthread_join(run->prod[i].th, NULL);
		run->prod[i].started = 0;
	}
	for (unsigned i = 0; !symmetric && i < run->nc; i++) {
		pthread_join(run->cons[i].th, NULL);
		run->cons[i].started = 0;
	}
	m->duration_s = hc_to_ns(t_end - t_start) / 1e9;
	if (m->duration_s <= 0)
		m->duration_s = 1e-9;
	m->enqueue_rate = (double)(s1 - s0) / m->duration_s;
	m->dequeue_rate = (double)(r1 - r0) / m->duration_s;
	if (symmetric) { /* operations: the enqueues and dequeues that succeeded */
		m->ops = (s1 - s0) + (r1 - r0);
		m->throughput = (double)m->ops / m->duration_s;
	} else if (moves) {
		m->ops = r1 - r0;
		m->throughput = m->dequeue_rate;
	} else { /* nothing travels: the slower side is what a queue could pass */
		m->ops = s1 - s0 < r1 - r0 ? s1 - s0 : r1 - r0;
		m->throughput = m->enqueue_rate < m->dequeue_rate ? m->enqueue_rate : m->dequeue_rate;
	}
}

/* The checksum of what producer pid sent: its timed values' (which it
 * summed itself) and the untimed ones, a function of the count: sequences
 * 0..sent-1 but those that are multiples of the sample. */
static uint64_t expected_sum(const struct hb_run *run, const struct hb_producer *p,
			     uint64_t sent)
{
	uint64_t sum = p->timed_sum;
	for (uint64_t s = 0; s < sent; s++)
		if (s & run->sample_mask)
			sum += hb_item_mix(hb_item_untimed(p->id, s));
	return sum;
}

/* Every producer's items accounted for (item.h); one line per producer
 * that is not, on stderr when `say`. Fills lost/dup/corrupt/bad of m. */
static void run_verify(const struct hb_run *run, struct hb_measure *m, int say)
{
	for (unsigned c = 0; c < run->nc; c++)
		m->bad += run->cons[c].bad;
	for (unsigned i = 0; i < run->np; i++) {
		const struct hb_producer *p = &run->prod[i];
		uint64_t got = 0, sum = 0, dups = 0;
		uint64_t sent = atomic_load_explicit(&p->sent, memory_order_relaxed);
		for (unsigned c = 0; c < run->nc; c++) {
			got += run->cons[c].tally[i].count;
			sum += run->cons[c].tally[i].sum;
			dups += run->cons[c].dups[i];
		}
		uint64_t want = expected_sum(run, p, sent);
		if (got == sent && sum == want && dups == 0)
			continue;
		if (got < sent)
			m->lost += sent - got;
		else
			m->dup += got - sent;
		m->dup += dups;
		if (got == sent && sum != want)
			m->corrupt++;
		if (!say)
			continue;
		char lost[64] = "", dup[80] = "";
		if (got < sent)
			snprintf(lost, sizeof lost, ": %llu lost",
				 (unsigned long long)(sent - got));
		else if (got > sent)
			snprintf(lost, sizeof lost, ": %llu duplicated or from another producer",
				 (unsigned long long)(got - sent));
		if (dups)
			snprintf(dup, sizeof dup,
				 "; %llu of its messages arrived when not in flight (duplicates)",
				 (unsigned long long)dups);
		const char *differs = sum == want   ? ""
				      : got == sent ? "a value was corrupted, or one of its items "
						      "was replaced by another"
						    : "the values are not the ones it sent";
		hb_say("verify failed: producer %u sent %llu items, the consumers received %llu in "
		       "its name%s%s%s%s",
		       i, (unsigned long long)sent, (unsigned long long)got, lost, dup,
		       *differs ? "; its checksum differs: " : "", differs);
	}
	if (say && m->bad)
		hb_say("verify failed: %llu items named no producer of this run (corrupted values)",
		       (unsigned long long)m->bad);
}

/* numaring-bench runs at most this many threads of one role (options.c) */
#define HB_MAX_THREADS_FAIR 1024u

/* min / max of n per-thread counts; -1 where there is none or the most is 0. */
static double min_over_max(const uint64_t *v, unsigned n)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned i = 0; i < n; i++) {
		lo = v[i] < lo ? v[i] : lo;
		hi = v[i] > hi ? v[i] : hi;
	}
	return n && hi ? (double)lo / (double)hi : -1.0;
}

/* Fairness: how evenly the threads got their operations done (F4: a backoff
 * can buy throughput by starving a thread). Symmetric workloads: thread i's
 * enqueues + dequeues; prodcons: each role apart (a producer and a consumer
 * do different work), the lower of the two. */
static double run_fairness(const struct hb_run *run)
{
	uint64_t v[HB_MAX_THREADS_FAIR];
	unsigned np = run->np < HB_MAX_THREADS_FAIR ? run->np : HB_MAX_THREADS_FAIR;
	unsigned nc = run->nc < HB_MAX_THREADS_FAIR ? run->nc : HB_MAX_THREADS_FAIR;
	/* Relaxed: the threads have been joined; their counts are final. */
	if (run->workload != HB_WORKLOAD_PRODCONS) {
		np = np < nc ? np : nc; /* thread i is producer i and consumer i */
		for (unsigned i = 0; i < np; i++)
			v[i] = atomic_load_explicit(&run->prod[i].sent, memory_order_relaxed) +
			       atomic_load_explicit(&run->cons[i].received, memory_order_relaxed);
		return min_over_max(v, np);
	}
	for (unsigned i = 0; i < np; i++)
		v[i] = atomic_load_explicit(&run->prod[i].sent, memory_order_relaxed);
	double fp = min_over_max(v, np);
	for (unsigned i = 0; i < nc; i++)
		v[i] = atomic_load_explicit(&run->cons[i].received, memory_order_relaxed);
	double fc = min_over_max(v, nc);
	return fp < 0 ? fc : fc < 0 ? fp : (fp < fc ? fp : fc);
}

/* Merge what the threads counted into m and hist. */
static void run_collect(const struct hb_run *run, struct hb_measure *m, struct hdr_hist *hist)
{
	m->fairness = run_fairness(run);
	for (unsigned i = 0; i < run->nc; i++) {
		const struct hb_consumer *c = &run->cons[i];
		if (hist)
			hdr_add(hist, c->hist);
		m->dequeued += atomic_load_explicit(&c->received, memory_order_relaxed);
		m->empty_polls += c->empty_polls;
		for (int s = 0; c->have_stats && s < HQ_STAT_COUNT_; s++)
			m->st.v[s] += c->st.v[s];
		/* a symmetric thread pinned itself as producer i */
		if (c->cpu >= 0 && c->pin_errno && run->workload == HB_WORKLOAD_PRODCONS)
			m->pin_failures++;
	}
	for (unsigned i = 0; i < run->np; i++) {
		const struct hb_producer *p = &run->prod[i];
		m->enqueued += atomic_load_explicit(&p->sent, memory_order_relaxed);
		m->full_retries += p->full_retries;
		m->window_waits += p->window_waits;
		m->prefilled += p->prefilled;
		for (int s = 0; p->have_stats && s < HQ_STAT_COUNT_; s++)
			m->st.v[s] += p->st.v[s];
		if (p->cpu >= 0 && p->pin_errno)
			m->pin_failures++;
	}
}

/* Set the run up for queue pl->ops. Returns 0, 1 or 2 after a message. */
static int run_setup(struct hb_run *run, const struct hb_options *o, const struct hb_plan *pl)
{
	char err[HB_ERRLEN] = "";
	memset(run, 0, sizeof *run);
	run->o = o;
	run->ops = pl->queue;
	run->workload = o->workload;
	run->np = o->producers; /* symmetric: both are --threads */
	run->nc = o->consumers;
	run->nthreads = o->threads;
	if (o->workload == HB_WORKLOAD_MIXED) /* below it: an enqueue, with probability share */
		run->enqueue_threshold = (uint64_t)ldexp(o->enqueue_share, 64);
	run->work_loops = hb_work_loops(pl->work, o->work_ns);
	run->producer_work_loops = hb_work_loops(pl->work, o->producer_work_ns);
	run->consumer_work_loops = hb_work_loops(pl->work, o->consumer_work_ns);
	/* faa carries no items: it runs its operations on values alone */
	run->item = pl->queue->moves_data || pl->queue->fabricates ? o->item : HB_ITEM_INLINE;
	run->sample_mask = o->sample - 1;
	run->item_sum = hb_item_sum_select(o->accounting); /* checked by hb_parse */
	run->burst_enq = o->bursts && pl->queue->enqueue_burst ? o->batch : 1;
	run->burst_deq = o->bursts && pl->queue->dequeue_burst ? o->batch : 1;
	run->quota_total = pl->items;
	if (pl->rate > 0) {
		run->interval = hc_from_ns(1e9 / (pl->rate / o->producers));
		if (run->interval == 0)
			run->interval = 1;
	}
	struct hq_params params = *pl->params;
	params.item = run->item;
	if (!(run->q = pl->queue->create(&params, err, sizeof err))) {
		hb_say("cannot create queue %s: %s", pl->queue->name, err);
		return 2;
	}
	size_t holds = !pl->queue->bounded ? 0
		       : pl->queue->holds  ? pl->queue->holds(run->q)
					   : o->capacity;
	int rc = run_alloc(run, pl, holds);
	/* mixed starts half full: half what it holds, or half the in-flight
	 * bound of an unbounded queue (the window, run_alloc's) */
	if (o->workload == HB_WORKLOAD_MIXED)
		run->prefill = (holds ? holds : run->window) / 2;
	return rc;
}

/* The harness's own ceiling: the null queue, same threads and items. */
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
	if ((rc = run_setup(&run, o, &pl)) == 0 && (rc = run_start(&run)) == 0)
		run_measure(&run, &pl, &m);
	run_free(&run);
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
static int measure_capacity(const struct hb_options *o, const struct hq_params *params,
			    const struct hb_placement *place, const struct hb_work_calibration *work,
			    double *capacity)
{
	struct hb_run run;
	struct hb_measure m;
	struct hq_setting set[8];
	struct hq_params p = *params;
	unsigned n = 0;
	int rc;
	for (unsigned i = 0; i < params->nsettings && n < 8; i++)
		if (strcmp(params->settings[i].name, "gate") != 0)
			set[n++] = params->settings[i];
	if (hq_takes(o->queue, "gate") && n < 8)
		set[n++] = (struct hq_setting){"gate", "perworker"};
	p.settings = set;
	p.nsettings = n;
	struct hb_plan pl = {o->queue, &p, place, 0.1, o->load_probe_s, 0, 0, work};
	memset(&m, 0, sizeof m);
	if ((rc = run_setup(&run, o, &pl)) == 0 && (rc = run_start(&run)) == 0)
		run_measure(&run, &pl, &m);
	run_free(&run);
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

static int do_run(const struct hb_options *o)
{
	struct numaring_topology *t = calloc(1, sizeof *t);
	unsigned n = o->threads; /* producers + consumers, or a symmetric workload's */
	int *cpus = calloc(n, sizeof *cpus);
	struct hb_cpumap *cpumap = calloc(1, sizeof *cpumap);
	struct hb_placement place = {cpus, -1};
	struct hdr_hist *hist = NULL;
	struct hb_run run;
	struct hb_measure m;
	struct hb_calibration cal;
	struct hb_work_calibration work;
	struct hb_report rep;
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
		{"backoff", numaring_backoff_name(o->backoff)},
		{"linger", linger},
		{"pause-spin", pause_spin},
		{"exp-cap", exp_cap},
		{"topology", o->topology},
	};
	struct hq_params params = {
		.capacity = o->capacity,
		.batch = o->batch,
		.threads = n,
		.item = o->item,
		.sample = o->sample,
		.settings = settings,
		.nsettings = o->topology ? 8 : 7,
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

	/* 4. the measured run */
	struct hb_plan pl = {o->queue, &params, &place, o->warmup_s, o->duration_s, o->ops, rate, &work};
	if ((rc = run_setup(&run, o, &pl)) != 0)
		goto out;
	run.measured = 1; /* its window, only, gets --counters and likwid's markers */
	if ((rc = run_start(&run)) != 0)
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
	if (*rep.lookup_in_force && strcmp(rep.lookup_in_force, numaring_lookup_name(o->lookup)))
		/* loud even with --quiet: the run measures another mode than asked */
		hb_say("note: --lookup %s is not available here (%s): %s runs instead; "
		       "summary.csv's lookup_in_force says so",
		       numaring_lookup_name(o->lookup),
		       o->lookup == NUMARING_LOOKUP_RSEQ
			   ? "the kernel keeps no rseq node_id before Linux 6.3, or libc "
			     "registered no rseq area"
			   : "the CPU has no rdpid instruction",
		       rep.lookup_in_force);
	run_measure(&run, &pl, &m);

	/* 4. verify, 5. report */
	run_collect(&run, &m, hist);
	hb_counters_collect(&run, o->counters, &m.ctr);
	int checked = o->queue->moves_data && o->verify;
	if (checked)
		run_verify(&run, &m, 1);
	int failed = o->queue->moves_data && (m.lost || m.dup || m.corrupt || m.bad);
	m.verify = !o->queue->moves_data ? "n/a" : !o->verify ? "off" : failed ? "failed" : "ok";
	m.latency_count = hdr_total_count(hist);
	if (m.latency_count > 0) {
		m.p50 = hdr_value_at_percentile(hist, 50);
		m.p90 = hdr_value_at_percentile(hist, 90);
		m.p99 = hdr_value_at_percentile(hist, 99);
		m.p999 = hdr_value_at_percentile(hist, 99.9);
		m.max = hdr_max(hist);
		m.mean = hdr_mean(hist);
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
	if (!o->quiet)
		print_line(o, &rep, &m);
	if (checked && failed)
		rc = 1;
	else if (o->out)
		rc = hb_write_results(&rep, hist);
out:
	run_free(&run);
	hdr_free(hist);
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
