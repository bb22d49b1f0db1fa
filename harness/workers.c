/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workers.c - the producer and consumer threads of one prodcons run
 * (run.h); the symmetric workloads' threads are workload.c's.
 *
 * Each loop is written once and specialised, by constant arguments to an
 * always-inline body, for the item mode (inline values or messages), for
 * single or burst operations and for local work between operations
 * (--producer-work, --consumer-work), so that the per-item path of a run
 * carries no test of what kind of run it is. The per-item steps are
 * workers_pvt.h's, shared with workload.c.
 *
 * Per item, a producer: makes the value (item.h), enqueues it, and
 * publishes its count with a relaxed store to a line of its own; it adds
 * to its checksum only the timed items, whose values depend on the clock
 * (the others are a function of the count, summed after the run). The clock is read only for a timed item (one in
 * `sample`), once per operation that carries one. A consumer: dequeues,
 * tallies each value under the producer it names (count and checksum),
 * reads the clock once per dequeue that brought a timed item and records
 * those (by path too, for a queue that says which path each came by:
 * record_timed), and publishes its count. The main thread measures
 * throughput from those counts at the start and end of the window: no
 * worker reads the clock to decide whether an item is in the window. With work, a producer
 * does a drawn length of it after each enqueue operation, a consumer after
 * each dequeue that brought items (work.h).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "run.h"
#include "workers_pvt.h"

/* ---- producers ---------------------------------------------------------- */

/* Unbounded queues hold whatever producers send: keep the items in flight
 * (sent by all, not yet received by any) below the run's window. How many
 * more this producer may send before it looks again: its share of the room,
 * 0 when there is none. Reads every producer's and consumer's count (a few
 * lines), once per share. */
uint64_t hb_inflight_room(struct hb_run *run)
{
	uint64_t sent = 0, received = 0;
	/* Relaxed: an estimate; the counts only grow, so a stale one errs on
	 * the side of less room (received) or is caught at the next look. */
	for (unsigned i = 0; i < run->nc; i++)
		received += atomic_load_explicit(&run->cons[i].received, memory_order_relaxed);
	for (unsigned i = 0; i < run->np; i++)
		sent += atomic_load_explicit(&run->prod[i].sent, memory_order_relaxed);
	uint64_t inflight = sent > received ? sent - received : 0;
	return inflight >= run->window ? 0 : (run->window - inflight) / run->np;
}

uint64_t hb_wait_until(struct hb_run *run, uint64_t when)
{
	uint32_t polls = 0;
	uint64_t now = hc_now();
	while (now < when) {
		if (hb_phase(run) >= PH_STOP_PRODUCERS)
			return 0;
		hb_idle_poll(&polls);
		now = hc_now();
	}
	return now;
}

/* strip: enum hb_strip bits, a constant of each variant (--strip, a
 * fidelity diagnostic: hb_parse allows it only where the steps it removes
 * are not needed, so that the plain variants carry no test of it). */
static ALWAYS_INLINE void produce(struct hb_producer *p, void *h, enum hb_item_kind kind,
				  int bursts, int work, unsigned strip)
{
	struct hb_run *run = p->run;
	const struct hq_ops *ops = run->ops;
	const uint64_t interval = run->interval, work_max = run->producer_work_loops;
	const uint64_t work_min = run->work_min_loops;
	const unsigned burst = bursts ? run->burst_enq : 1;
	const int counted = run->quota_total != 0;
	uint64_t seq = 0, limit = ops->bounded || kind == HB_ITEM_MESSAGE ? UINT64_MAX : 0;
	uint64_t next_send = hc_now(), rng = p->rng;
	void *items[HB_MAX_BURST];

	if (interval)
		publish_t0(p, seq, next_send);
	for (uint64_t iter = 0;; iter++) {
		int ph = PH_MEASURE; /* stripped window: no count of what the window held */
		if (!(strip & HB_STRIP_WINDOW) || (iter & 63) == 0) {
			ph = hb_phase(run);
			if (ph >= PH_STOP_PRODUCERS)
				break;
		}
		unsigned n = burst;
		if (strip & HB_STRIP_WINDOW)
			; /* bounded, closed loop, no --ops: nothing to check */
		else if (counted && ph == PH_MEASURE) {
			if (p->sent_measured >= p->quota)
				break;
			if (p->quota - p->sent_measured < n)
				n = (unsigned)(p->quota - p->sent_measured);
		}
		if (!(strip & HB_STRIP_WINDOW) && seq + n > limit) {
			uint64_t room = hb_inflight_room(run);
			if (room < n) {
				uint32_t polls = 0;
				p->window_waits++;
				hb_idle_poll(&polls);
				continue;
			}
			limit = seq + room;
		}
		uint64_t now = 0;
		if (interval) { /* open loop: wait for the first item's intended time */
			if (!(now = hb_wait_until(run, next_send)))
				break;
		}

		unsigned made = make_items(p, seq, n, kind, 1, interval, &now, items);

		/* enqueue them */
		unsigned done = 0;
		uint32_t polls = 0;
		int stopped = made < n;
		while (done < made) {
			if (bursts)
				done += ops->enqueue_burst(h, items + done, made - done);
			else if (ops->enqueue(h, items[done]) == 0)
				done++;
			if (done < made) {
				p->full_retries++;
				if (hb_phase(run) >= PH_STOP_PRODUCERS) {
					stopped = 1;
					break;
				}
				hb_idle_poll(&polls);
			}
		}
		unsent_free(done, made, kind, items);
		seq += done;
		if (interval)
			next_send += done * interval;
		if (!(strip & HB_STRIP_WINDOW) && ph == PH_MEASURE)
			p->sent_measured += done;
		/* Relaxed: a count for the main thread's window and for
		 * hb_inflight_room; the final value is read after pthread_join. */
		if (!(strip & HB_STRIP_PUBLISH))
			atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
		if (stopped)
			break;
		if (work)
			hb_work(&rng, work_min, work_max);
	}
	/* Relaxed: read after pthread_join (stripped publish: its only store) */
	atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
}

/* One function per variant (item mode, bursts, work), each with its own
 * loop: hb_producer_main calls the run's. */
#define PRODUCER(name, kind, b, w, s)                                           \
	static __attribute__((noinline)) void name(struct hb_producer *p, void *h) \
	{                                                                       \
		produce(p, h, kind, b, w, s);                                   \
	}
PRODUCER(produce_inline, HB_ITEM_INLINE, 0, 0, 0)
PRODUCER(produce_inline_bursts, HB_ITEM_INLINE, 1, 0, 0)
PRODUCER(produce_message, HB_ITEM_MESSAGE, 0, 0, 0)
PRODUCER(produce_message_bursts, HB_ITEM_MESSAGE, 1, 0, 0)
PRODUCER(produce_inline_work, HB_ITEM_INLINE, 0, 1, 0)
PRODUCER(produce_inline_bursts_work, HB_ITEM_INLINE, 1, 1, 0)
PRODUCER(produce_message_work, HB_ITEM_MESSAGE, 0, 1, 0)
PRODUCER(produce_message_bursts_work, HB_ITEM_MESSAGE, 1, 1, 0)
/* --strip's variants: inline items, no work (hb_parse) */
PRODUCER(produce_strip_p, HB_ITEM_INLINE, 0, 0, HB_STRIP_PUBLISH)
PRODUCER(produce_strip_p_bursts, HB_ITEM_INLINE, 1, 0, HB_STRIP_PUBLISH)
PRODUCER(produce_strip_w, HB_ITEM_INLINE, 0, 0, HB_STRIP_WINDOW)
PRODUCER(produce_strip_w_bursts, HB_ITEM_INLINE, 1, 0, HB_STRIP_WINDOW)
PRODUCER(produce_strip_pw, HB_ITEM_INLINE, 0, 0, HB_STRIP_PUBLISH | HB_STRIP_WINDOW)
PRODUCER(produce_strip_pw_bursts, HB_ITEM_INLINE, 1, 0, HB_STRIP_PUBLISH | HB_STRIP_WINDOW)
#undef PRODUCER

/* [strip's publish and window bits - 1][bursts] */
static void (*const stripped_producers[3][2])(struct hb_producer *, void *) = {
	{produce_strip_p, produce_strip_p_bursts},
	{produce_strip_w, produce_strip_w_bursts},
	{produce_strip_pw, produce_strip_pw_bursts},
};

/* [work][message][bursts] */
static void (*const producers[2][2][2])(struct hb_producer *, void *) = {
	{{produce_inline, produce_inline_bursts}, {produce_message, produce_message_bursts}},
	{{produce_inline_work, produce_inline_bursts_work},
	 {produce_message_work, produce_message_bursts_work}},
};

void *hb_producer_main(void *arg)
{
	struct hb_producer *p = arg;
	struct hb_run *run = p->run;
	struct hb_qmem_thread qt = {0};
	void *h;

	hb_pin_self(p->cpu, &p->pin_errno);
	/* pinned first: the pool and the stamps are placed by this thread's
	 * first touch */
	int stamps_node;
	if (run->item == HB_ITEM_MESSAGE &&
	    !(p->pool = hb_local_alloc(run->window * sizeof *p->pool, &p->mem_node))) {
		snprintf(p->err, sizeof p->err, "out of memory for its message pool");
		h = NULL;
	} else if (!(p->stamps = hb_local_alloc(hb_stamp_bytes(run), &stamps_node))) {
		snprintf(p->err, sizeof p->err, "out of memory for its stamp ring");
		h = NULL;
	} else {
		hb_qmem_worker_enter(run, NULL, &qt);
		h = run->ops->thread_init(run->q, p->err, sizeof p->err);
	}
	if (!h)
		hb_set_phase(run, PH_ABORT);
	if (run->measured && run->o->counters) /* on itself, disabled: main enables them */
		hb_counters_open(&p->ctr);
	pthread_barrier_wait(&run->barrier);
	if (!h)
		return NULL;
	while (hb_phase(run) == PH_START)
		hb_cpu_relax();
	unsigned ps = run->strip & (HB_STRIP_PUBLISH | HB_STRIP_WINDOW);
	if (ps)
		stripped_producers[ps - 1][run->burst_enq > 1](p, h);
	else
		producers[run->producer_work_loops > 0][run->item == HB_ITEM_MESSAGE]
			 [run->burst_enq > 1](p, h);
	if (run->ops->thread_stats) {
		run->ops->thread_stats(h, &p->st);
		p->have_stats = 1;
	}
	run->ops->thread_fini(run->q, h);
	hb_qmem_leave(&qt);
	/* Release: the main thread that sees done also sees sent. */
	atomic_store_explicit(&p->done, 1, memory_order_release);
	return NULL;
}

/* ---- consumers ---------------------------------------------------------- */

/* Every page of a histogram's counts written now (hdr_reset zeroes them):
 * calloc left them untouched, and each would otherwise be faulted in by the
 * first latency that lands in it, inside the measured window and ever more
 * of them as the run's latencies spread (under oversubscription, for
 * minutes: make soak saw the process's RSS grow 85% in a minute). Written
 * by the pinned consumer, the pages come from its node. */
static int consumer_hist(struct hdr_hist **h)
{
	if (hdr_init(1, HB_HIST_MAX, HB_HIST_DIGITS, h) != 0)
		return -1;
	hdr_reset(*h);
	return 0;
}

int hb_consumer_hists(struct hb_run *run, struct hb_consumer *c)
{
	if (consumer_hist(&c->hist) != 0)
		return -1;
	if (!run->ops->dequeue_paths)
		return 0;
	/* freed by hb_run_free, whatever was made of them */
	if (!(c->path_hist = calloc(HQ_PATH_COUNT_, sizeof *c->path_hist)))
		return -1;
	for (int p = 0; p < HQ_PATH_COUNT_; p++)
		if (consumer_hist(&c->path_hist[p]) != 0)
			return -1;
	return 0;
}

/* The path of item i of a dequeue whose paths are ps (queue.h);
 * HQ_PATH_COUNT_ if none says so. */
static enum hq_path path_of(const struct hq_paths *ps, unsigned i)
{
	for (int p = 0; p < HQ_PATH_COUNT_; p++)
		if (i - ps->first[p] < ps->count[p]) /* unsigned: below first wraps */
			return (enum hq_path)p;
	return HQ_PATH_COUNT_;
}

/* record_timed's by-path part: the queue says which path each item of the
 * handle's last dequeue came by, asked once per dequeue (after the clock
 * read, so that asking is no part of the latency); where it cannot tell,
 * the items count in the overall histogram only. */
enum hq_path hb_timed_path(struct hb_consumer *c, unsigned got, unsigned i, struct hq_paths *ps,
			   int *known)
{
	if (*known < 0)
		*known = c->run->ops->dequeue_paths(c->handle, got, ps) == 0;
	return *known ? path_of(ps, i) : HQ_PATH_COUNT_;
}

static ALWAYS_INLINE void consume(struct hb_consumer *c, void *h, enum hb_item_kind kind,
				  int bursts, int account, int work)
{
	struct hb_run *run = c->run;
	const struct hq_ops *ops = run->ops;
	const unsigned burst = bursts ? run->burst_deq : 1;
	const uint64_t work_max = run->consumer_work_loops, work_min = run->work_min_loops;
	/* nothing travels and nothing is made up (faa): stop with the producers */
	const int stop_early = !ops->moves_data;
	hb_item_sum_fn *const item_sum = run->item_sum;
	void *items[HB_MAX_BURST];
	uint64_t total = 0, rng = c->rng;
	uint32_t polls = 0;

	for (;;) {
		unsigned got;
		if (bursts)
			got = ops->dequeue_burst(h, items, burst);
		else
			got = ops->dequeue(h, &items[0]) == 0;
		if (got == 0) {
			int ph = hb_phase(run);
			if (ph >= PH_STOP_CONSUMERS || (stop_early && ph >= PH_STOP_PRODUCERS))
				break;
			c->empty_polls++;
			hb_idle_poll(&polls);
			continue;
		}
		polls = 0;
		if (account)
			take(c, items, got, kind, item_sum);
		total += got;
		/* Relaxed: a count for the main thread's window; the final value
		 * is read after pthread_join. */
		atomic_store_explicit(&c->received, total, memory_order_relaxed);
		if (stop_early && hb_phase(run) >= PH_STOP_PRODUCERS)
			break;
		if (work)
			hb_work(&rng, work_min, work_max);
	}
}

/* One function per variant (item mode or no accounting, bursts, work). */
#define CONSUMER(name, kind, b, a, w)                                           \
	static __attribute__((noinline)) void name(struct hb_consumer *c, void *h) \
	{                                                                       \
		consume(c, h, kind, b, a, w);                                   \
	}
CONSUMER(consume_inline, HB_ITEM_INLINE, 0, 1, 0)
CONSUMER(consume_inline_bursts, HB_ITEM_INLINE, 1, 1, 0)
CONSUMER(consume_message, HB_ITEM_MESSAGE, 0, 1, 0)
CONSUMER(consume_message_bursts, HB_ITEM_MESSAGE, 1, 1, 0)
CONSUMER(consume_counted, HB_ITEM_INLINE, 0, 0, 0)
CONSUMER(consume_counted_bursts, HB_ITEM_INLINE, 1, 0, 0)
CONSUMER(consume_inline_work, HB_ITEM_INLINE, 0, 1, 1)
CONSUMER(consume_inline_bursts_work, HB_ITEM_INLINE, 1, 1, 1)
CONSUMER(consume_message_work, HB_ITEM_MESSAGE, 0, 1, 1)
CONSUMER(consume_message_bursts_work, HB_ITEM_MESSAGE, 1, 1, 1)
CONSUMER(consume_counted_work, HB_ITEM_INLINE, 0, 0, 1)
CONSUMER(consume_counted_bursts_work, HB_ITEM_INLINE, 1, 0, 1)
#undef CONSUMER

/* [work][inline, message, counted (faa's: nothing to account for)][bursts] */
static void (*const consumers[2][3][2])(struct hb_consumer *, void *) = {
	{{consume_inline, consume_inline_bursts},
	 {consume_message, consume_message_bursts},
	 {consume_counted, consume_counted_bursts}},
	{{consume_inline_work, consume_inline_bursts_work},
	 {consume_message_work, consume_message_bursts_work},
	 {consume_counted_work, consume_counted_bursts_work}},
};

void *hb_consumer_main(void *arg)
{
	struct hb_consumer *c = arg;
	struct hb_run *run = c->run;
	struct hb_qmem_thread qt = {0};
	void *h;

	hb_pin_self(c->cpu, &c->pin_errno);
	/* pinned first: tallies and histogram are placed by this thread's
	 * first touch (the histogram is a fresh mapping: bench.c's mallopt) */
	if (!(c->tally = hb_local_alloc(hb_tally_bytes(run), &c->mem_node)) ||
	    hb_consumer_hists(run, c) != 0) {
		snprintf(c->err, sizeof c->err, "out of memory for its tallies and histograms");
		h = NULL;
	} else {
		c->dups = (uint64_t *)(c->tally + run->np);
		hb_qmem_worker_enter(run, c->hist, &qt);
		h = run->ops->thread_init(run->q, c->err, sizeof c->err);
	}
	c->handle = h; /* for the queue's paths (record_timed) */
	if (!h)
		hb_set_phase(run, PH_ABORT);
	if (run->measured && run->o->counters) /* on itself, disabled: main enables them */
		hb_counters_open(&c->ctr);
	pthread_barrier_wait(&run->barrier);
	if (!h)
		return NULL;
	/* faa's items are no items: count them, account for nothing */
	int account = (run->ops->moves_data || run->ops->fabricates) &&
		      !(run->strip & HB_STRIP_ACCOUNTING); /* stripped: only counted */
	int mode = !account ? 2 : run->item == HB_ITEM_MESSAGE;
	consumers[run->consumer_work_loops > 0][mode][run->burst_deq > 1](c, h);
	if (run->ops->thread_stats) {
		run->ops->thread_stats(h, &c->st);
		c->have_stats = 1;
	}
	run->ops->thread_fini(run->q, h);
	hb_qmem_leave(&qt);
	return NULL;
}
