/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * workers.c - the producer and consumer threads of one prodcons run
 * (run.h); the symmetric workloads' threads are workload.c's.
 *
 * The loops themselves are loops_body.h's, compiled once per queue family
 * (loops.c): each thread here runs its run's variant of its queue's family
 * (hb_loops_of), after its setup and before its teardown.
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
#include "loops.h"
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
		hb_loops_of(run->ops)->stripped[ps - 1][run->burst_enq > 1](p, h);
	else
		hb_loops_of(run->ops)->producers[run->producer_work_loops > 0]
						[run->item == HB_ITEM_MESSAGE][run->burst_enq > 1](p, h);
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
	hb_loops_of(run->ops)->consumers[run->consumer_work_loops > 0][mode]
					[run->burst_deq > 1](c, h);
	hb_timed_flush(c); /* the timed items whose stamps it had not read yet */
	if (run->ops->thread_stats) {
		run->ops->thread_stats(h, &c->st);
		c->have_stats = 1;
	}
	run->ops->thread_fini(run->q, h);
	hb_qmem_leave(&qt);
	return NULL;
}
