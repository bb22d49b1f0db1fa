/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * run.c - one run of one queue, the main thread's side (run.h): set up the
 * queue and the threads' state, start the threads at a barrier, open the
 * warm-up and the measured window and close them, stop and drain, then
 * verify what every producer sent against what the consumers tallied and
 * merge the threads' counts. The threads' side is workers.c (prodcons) and
 * workload.c (pairs, mixed); bench.c strings the runs of one invocation
 * together (calibration, capacity, the measured run).
 *
 * Every function that can fail prints its message (errors.h) and returns
 * the exit status it calls for: 1 the run failed, 2 bad input.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "errors.h"
#include "hdr.h"
#include "queue.h"
#include "run.h"

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
void hb_run_free(struct hb_run *run)
{
	if (run->prod || run->cons)
		hb_set_phase(run, PH_STOP_CONSUMERS);
	for (unsigned i = 0; run->prod && i < run->np; i++) {
		if (run->prod[i].started)
			pthread_join(run->prod[i].th, NULL);
		hb_local_free(run->prod[i].pool, run->window * sizeof *run->prod[i].pool);
		hb_local_free((void *)run->prod[i].stamps, hb_stamp_bytes(run));
	}
	for (unsigned i = 0; run->cons && i < run->nc; i++) {
		if (run->cons[i].started)
			pthread_join(run->cons[i].th, NULL);
		hdr_free(run->cons[i].hist);
		for (int p = 0; run->cons[i].path_hist && p < HQ_PATH_COUNT_; p++)
			hdr_free(run->cons[i].path_hist[p]);
		free(run->cons[i].path_hist);
		hb_local_free(run->cons[i].tally, hb_tally_bytes(run));
	}
	if (run->main_pinned) /* back to every CPU: the next run creates its queue */
		pthread_setaffinity_np(pthread_self(), sizeof run->main_mask, &run->main_mask);
	hb_counters_release(run);
	if (run->barrier_ready)
		pthread_barrier_destroy(&run->barrier);
	if (run->q)
		run->ops->destroy(run->q);
	if (run->ops) /* the allocator's chunks of it: a failed create's too */
		hb_qmem_release();
	free(run->prod);
	free(run->cons);
	memset(run, 0, sizeof *run);
}

/* Start the threads; they wait at the barrier with the main thread.
 * Returns 0, or 1 after a message. */
int hb_run_start(struct hb_run *run)
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
void hb_run_measure(struct hb_run *run, const struct hb_plan *pl, struct hb_measure *m)
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
	/* where the queue's pages are, with everything it allocated as it ran
	 * still in it: after the window (the look-up takes the allocator's
	 * lock) and before the stop (the threads' handles still attached) */
	if (run->measured)
		hb_qmem_count(run->ops, run->q, &m->qpages);
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
		m->throughput =
		    m->enqueue_rate < m->dequeue_rate ? m->enqueue_rate : m->dequeue_rate;
	}
}

/* The checksum of what producer p sent: its values are a function of the
 * count (item.h: sequences 0..sent-1), and their checksum telescopes. */
static uint64_t expected_sum(const struct hb_producer *p, uint64_t sent)
{
	return hb_item_check_run(p->id, 0, sent);
}

/* Every producer's items accounted for (item.h); one line per producer
 * that is not, on stderr when `say`. Fills lost/dup/corrupt/bad of m. */
void hb_run_verify(const struct hb_run *run, struct hb_measure *m, int say)
{
	for (unsigned c = 0; c < run->nc; c++)
		m->bad += run->cons[c].bad;
	for (unsigned i = 0; i < run->np; i++) {
		const struct hb_producer *p = &run->prod[i];
		uint64_t got = 0, sum = 0, dups = 0;
		uint64_t sent = atomic_load_explicit(&p->sent, memory_order_relaxed);
		for (unsigned c = 0; c < run->nc; c++) {
			got += hb_tally_count(&run->cons[c].tally[i]);
			sum += hb_tally_sum(&run->cons[c].tally[i], i);
			dups += run->cons[c].dups[i];
		}
		uint64_t want = expected_sum(p, sent);
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

/* --strip accounting: no tallies, only counts; what arrived in all against
 * what was sent in all (a lost item and a duplicate would cancel out: the
 * diagnostic says "count", never "ok"). */
void hb_run_verify_totals(const struct hb_run *run, struct hb_measure *m, int say)
{
	uint64_t sent = total_sent(run), got = total_received(run);
	if (got < sent)
		m->lost += sent - got;
	else
		m->dup += got - sent;
	if (say && got != sent)
		hb_say("verify failed: the producers sent %llu items, the consumers received %llu",
		       (unsigned long long)sent, (unsigned long long)got);
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

/* Merge what the threads counted into m, hist and path_hist[]. */
void hb_run_collect(const struct hb_run *run, struct hb_measure *m, struct hdr_hist *hist,
		    struct hdr_hist *const *path_hist)
{
	m->fairness = run_fairness(run);
	for (unsigned i = 0; i < run->nc; i++) {
		const struct hb_consumer *c = &run->cons[i];
		if (hist)
			hdr_add(hist, c->hist);
		/* a consumer has them where the queue has paths */
		for (int p = 0; path_hist && c->path_hist && p < HQ_PATH_COUNT_; p++)
			hdr_add(path_hist[p], c->path_hist[p]);
		m->dequeued += atomic_load_explicit(&c->received, memory_order_relaxed);
		m->empty_polls += c->empty_polls;
		m->inversions += c->inversions;
		m->max_step = c->max_step > m->max_step ? c->max_step : m->max_step;
		m->stamps_lost += c->stamps_lost;
		double age = hc_to_ns(c->max_age);
		m->max_age_ns = age > m->max_age_ns ? age : m->max_age_ns;
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
int hb_run_setup(struct hb_run *run, const struct hb_options *o, const struct hb_plan *pl)
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
	run->work_min_loops = hb_work_loops(pl->work, o->work_min_ns);
	/* faa carries no items: it runs its operations on values alone */
	run->item = pl->queue->moves_data || pl->queue->fabricates ? o->item : HB_ITEM_INLINE;
	run->sample_mask = o->sample - 1;
	run->item_sum = hb_item_sum_select(o->accounting); /* checked by hb_parse */
	run->strip = o->strip;
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
	/* the creating thread under --queue-mem's policy: what a library makes
	 * at creation in memory of its own (flat's ring, the C++ queues'
	 * insides) is placed too; a queue that places its rings per node
	 * itself is left alone */
	struct hb_qmem_thread qt = {0};
	int own = hb_qmem_own_placement(pl->queue);
	if (!own)
		hb_qmem_enter(&qt);
	run->q = pl->queue->create(&params, err, sizeof err);
	if (!own)
		hb_qmem_leave(&qt);
	run->qmem_threads = hb_qmem_in_use()->placing && hb_qmem_by_threads(pl->queue);
	if (!run->q) {
		hb_say("cannot create queue %s: %s", pl->queue->name, err);
		return 2;
	}
	size_t holds = !pl->queue->bounded ? 0
		       : pl->queue->holds  ? pl->queue->holds(run->q)
					   : o->capacity;
	run->holds = holds;
	int rc = run_alloc(run, pl, holds);
	/* mixed starts half full: half what it holds, or half the in-flight
	 * bound of an unbounded queue (the window, run_alloc's) */
	if (o->workload == HB_WORKLOAD_MIXED)
		run->prefill = (holds ? holds : run->window) / 2;
	/* A producer's stamp ring (item.h) holds the send times of twice the
	 * timed items that can be in flight (what the queue holds, the window,
	 * a batch in each worker's hands), so that a slot is overwritten only
	 * when its consumer was held off for that long: then the tag tells it,
	 * and the sample is dropped (stamps_lost). 64 to 2^20 slots. */
	uint64_t in_flight = holds + run->window + (uint64_t)o->batch * run->nthreads;
	run->sample_shift = (unsigned)__builtin_ctzll(o->sample);
	run->stamp_bits = 6;
	/* A worker that shares its CPU (or is not pinned) may be switched out
	 * while it holds timed items, and their producers lap the stamp ring
	 * meanwhile: such runs read each stamp at once (record_timed); the
	 * others HB_PENDING at a time. */
	run->pending_max = HB_PENDING;
	for (unsigned i = 0; i < run->nthreads && run->pending_max > 1; i++) {
		int cpu = pl->place->cpu[i];
		for (unsigned j = i + 1; j < run->nthreads && cpu >= 0; j++)
			if (pl->place->cpu[j] == cpu)
				cpu = -1;
		if (cpu < 0)
			run->pending_max = 1;
	}
	/* and the timed items each consumer holds before it reads their
	 * stamps (pending_max, record_timed) */
	uint64_t held = in_flight / o->sample + (uint64_t)run->nc * run->pending_max;
	while (run->stamp_bits < 20 && (UINT64_C(1) << run->stamp_bits) < 2 * held)
		run->stamp_bits++;
	run->stamp_mask = (UINT64_C(1) << run->stamp_bits) - 1;
	return rc;
}
