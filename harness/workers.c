/*
 * workers.c - the producer and consumer threads of one run (run.h).
 *
 * Each loop is written once and specialised, by constant arguments to an
 * always-inline body, for the item mode (inline values or messages) and for
 * single or burst operations, so that the per-item path of a run carries no
 * test of what kind of run it is.
 *
 * Per item, a producer: makes the value (item.h), enqueues it, and
 * publishes its count with a relaxed store to a line of its own; it adds
 * to its checksum only the timed items, whose values depend on the clock
 * (the others are a function of the count, summed after the run). The clock is read only for a timed item (one in
 * `sample`), once per operation that carries one. A consumer: dequeues,
 * tallies each value under the producer it names (count and checksum),
 * reads the clock once per dequeue that brought a timed item and records
 * those, and publishes its count. The main thread measures throughput from
 * those counts at the start and end of the window: no worker reads the
 * clock to decide whether an item is in the window.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "run.h"

#define HB_WAIT_YIELD_POLLS 1024u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/* Polite spin while waiting for room, an item or a free message: PAUSE, and
 * now and then the CPU for whoever we wait for (more threads than CPUs). */
static inline void idle_poll(uint32_t *polls)
{
	if (++*polls % HB_WAIT_YIELD_POLLS == 0)
		sched_yield();
	else
		cpu_relax();
}

#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ---- producers ---------------------------------------------------------- */

/* The next free message of the pool for sequence seq, or NULL if the run
 * stopped first. */
static ALWAYS_INLINE struct hb_msg *next_msg(struct hb_producer *p, uint64_t seq)
{
	struct hb_run *run = p->run;
	struct hb_msg *m = &p->pool[seq & (run->window - 1)];
	uint32_t polls = 0;
	/* Acquire: pairs with the consumer's release exchange of state, so its
	 * reads of the message happen before we overwrite it. */
	while (atomic_load_explicit(&m->state, memory_order_acquire) != 0) {
		p->window_waits++;
		if (hb_phase(run) >= PH_STOP_PRODUCERS)
			return NULL;
		idle_poll(&polls);
	}
	return m;
}

/* Unbounded queues hold whatever producers send: keep the items in flight
 * (sent by all, not yet received by any) below the run's window. How many
 * more this producer may send before it looks again: its share of the room,
 * 0 when there is none. Reads every producer's and consumer's count (a few
 * lines), once per share. */
static uint64_t inflight_room(struct hb_run *run)
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

/* Wait until the clock reaches `when` (open loop). Returns the time, or 0
 * if the run stopped first. */
static uint64_t wait_until(struct hb_run *run, uint64_t when)
{
	uint32_t polls = 0;
	uint64_t now = hc_now();
	while (now < when) {
		if (hb_phase(run) >= PH_STOP_PRODUCERS)
			return 0;
		idle_poll(&polls);
		now = hc_now();
	}
	return now;
}

static ALWAYS_INLINE void produce(struct hb_producer *p, void *h, enum hb_item_kind kind,
				  int bursts)
{
	struct hb_run *run = p->run;
	const struct hq_ops *ops = run->ops;
	const uint64_t smask = run->sample_mask, pid = p->id, interval = run->interval;
	const unsigned burst = bursts ? run->burst_enq : 1;
	const int counted = run->quota_total != 0;
	uint64_t seq = 0, timed_sum = 0, limit = ops->bounded || kind == HB_ITEM_MESSAGE ? UINT64_MAX : 0;
	uint64_t next_send = hc_now();
	void *items[HB_MAX_BURST];
	uint64_t vals[HB_MAX_BURST];

	for (;;) {
		int ph = hb_phase(run);
		if (ph >= PH_STOP_PRODUCERS)
			break;
		unsigned n = burst;
		if (counted && ph == PH_MEASURE) {
			if (p->sent_measured >= p->quota)
				break;
			if (p->quota - p->sent_measured < n)
				n = (unsigned)(p->quota - p->sent_measured);
		}
		if (seq + n > limit) {
			uint64_t room = inflight_room(run);
			if (room < n) {
				uint32_t polls = 0;
				p->window_waits++;
				idle_poll(&polls);
				continue;
			}
			limit = seq + room;
		}
		uint64_t now = 0;
		if (interval) { /* open loop: wait for the first item's intended time */
			if (!(now = wait_until(run, next_send)))
				break;
		}

		/* make n items */
		unsigned made = 0;
		for (; made < n; made++) {
			uint64_t s = seq + made, v;
			if ((s & smask) == 0) {
				if (interval)
					v = hb_item_timed(pid, next_send + made * interval);
				else
					v = hb_item_timed(pid, now ? now : (now = hc_now()));
			} else {
				v = hb_item_untimed(pid, s);
			}
			if (kind == HB_ITEM_MESSAGE) {
				struct hb_msg *m = next_msg(p, s);
				if (!m)
					break;
				m->value = v;
				/* Relaxed: the queue's own release/acquire hands
				 * the message over together with its value. */
				atomic_store_explicit(&m->state, 1, memory_order_relaxed);
				items[made] = m;
				vals[made] = v;
			} else {
				items[made] = (void *)(uintptr_t)v;
			}
		}

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
				idle_poll(&polls);
			}
		}
		/* the timed items' values are known only here; the untimed ones
		 * follow from the count (run_verify adds them up after the run) */
		for (uint64_t s = (seq + smask) & ~smask; s < seq + done; s += smask + 1)
			timed_sum += hb_item_mix(kind == HB_ITEM_MESSAGE ? vals[s - seq]
									: (uintptr_t)items[s - seq]);
		if (kind == HB_ITEM_MESSAGE) /* never sent: free again */
			for (unsigned i = done; i < made; i++)
				atomic_store_explicit(&((struct hb_msg *)items[i])->state, 0,
						      memory_order_relaxed);
		seq += done;
		if (interval)
			next_send += done * interval;
		if (ph == PH_MEASURE)
			p->sent_measured += done;
		/* Relaxed: a count for the main thread's window and for
		 * inflight_room; the final value is read after pthread_join. */
		atomic_store_explicit(&p->sent, seq, memory_order_relaxed);
		if (stopped)
			break;
	}
	p->timed_sum = timed_sum;
}

void *hb_producer_main(void *arg)
{
	struct hb_producer *p = arg;
	struct hb_run *run = p->run;
	void *h;

	hb_pin_self(p->cpu, &p->pin_errno);
	/* pinned first: the pool is placed by this thread's first touch */
	if (run->item == HB_ITEM_MESSAGE &&
	    !(p->pool = hb_local_alloc(run->window * sizeof *p->pool, &p->mem_node))) {
		snprintf(p->err, sizeof p->err, "out of memory for its message pool");
		h = NULL;
	} else {
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
		cpu_relax();
	int bursts = run->burst_enq > 1;
	if (run->item == HB_ITEM_MESSAGE)
		bursts ? produce(p, h, HB_ITEM_MESSAGE, 1) : produce(p, h, HB_ITEM_MESSAGE, 0);
	else
		bursts ? produce(p, h, HB_ITEM_INLINE, 1) : produce(p, h, HB_ITEM_INLINE, 0);
	if (run->ops->thread_stats) {
		run->ops->thread_stats(h, &p->st);
		p->have_stats = 1;
	}
	run->ops->thread_fini(run->q, h);
	/* Release: the main thread that sees done also sees sent. */
	atomic_store_explicit(&p->done, 1, memory_order_release);
	return NULL;
}

/* ---- consumers ---------------------------------------------------------- */

/* The timed items among items[0..got): latency from their send time, if
 * that fell inside the measured window. One clock read for all of them. */
static void record_timed(struct hb_consumer *c, void **items, unsigned got)
{
	struct hb_run *run = c->run;
	uint64_t now = hc_now();
	/* Relaxed: published by the phase acquire before these items could be
	 * sent, or still UINT64_MAX. */
	uint64_t t0 = atomic_load_explicit(&run->t_start, memory_order_relaxed);
	uint64_t t1 = atomic_load_explicit(&run->t_end, memory_order_relaxed);
	for (unsigned i = 0; i < got; i++) {
		uint64_t v = (uint64_t)(uintptr_t)items[i];
		if (!(v & HB_ITEM_TIMED))
			continue;
		uint64_t t = hb_item_send_time(v, now);
		if (t >= t0 && t <= t1)
			hdr_record(c->hist, (int64_t)hc_to_ns(now - t));
	}
}

/* Account for `got` items (item.h): tallies, the histogram and the bad
 * counters say what arrived.
 *
 * Inline items first take a path without a branch per item: the OR and the
 * AND of all values show whether they name one producer (the usual case of
 * a burst) and whether any is timed, computed with the premix sum several
 * values at a time (item_sum.h, --accounting); then one tally update covers them all
 * and only a burst with a timed item is looked at again. Anything else
 * (several producers, a bad producer field, messages) goes item by item,
 * summing the run of one producer's items in registers: a tally updated in
 * memory per item would chain every addition through a store and a load. */
static ALWAYS_INLINE void take(struct hb_consumer *c, void **items, unsigned got,
			       enum hb_item_kind kind, hb_item_sum_fn *item_sum)
{
	struct hb_run *run = c->run;
	const unsigned np = run->np;
	const uint64_t producer_field = HB_ITEM_PRODUCER_MASK << HB_ITEM_PRODUCER_SHIFT;
	if (kind == HB_ITEM_INLINE) {
		/* OR, AND and premix sum as wide as --accounting says
		 * (item_sum.h); one multiplication per burst, below */
		struct hb_item_sums s;
		item_sum(items, got, &s);
		unsigned pr = hb_item_producer(s.any);
		if (((s.any ^ s.all) & producer_field) == 0 && pr < np) {
			c->tally[pr].count += got;
			c->tally[pr].sum += hb_item_mix_sum(s.premix);
			if (s.any & HB_ITEM_TIMED)
				record_timed(c, items, got);
			return;
		}
	}

	unsigned cur = np; /* the producer of the run being summed; np: none */
	uint64_t count = 0, sum = 0, timed = 0;
	for (unsigned i = 0; i < got; i++) {
		uint64_t v;
		if (kind == HB_ITEM_MESSAGE) {
			struct hb_msg *m = items[i];
			v = m->value;
			/* Release: pairs with the producer's acquire in next_msg
			 * (our read of the value comes first); acquire: the state
			 * must be 1 (in flight), anything else is a duplicate. */
			if (atomic_exchange_explicit(&m->state, 0, memory_order_acq_rel) != 1) {
				unsigned pr = hb_item_producer(v);
				if (pr < np)
					c->dups[pr]++;
				else
					c->bad++;
				items[i] = NULL; /* not timed: record_timed skips it */
				continue;
			}
			items[i] = (void *)(uintptr_t)v; /* record_timed reads values */
		} else {
			v = (uint64_t)(uintptr_t)items[i];
		}
		unsigned pr = hb_item_producer(v);
		if (pr != cur) {
			if (cur < np) {
				c->tally[cur].count += count;
				c->tally[cur].sum += hb_item_mix_sum(sum);
			}
			count = sum = 0;
			cur = pr;
			if (pr >= np) {
				c->bad++;
				items[i] = NULL;
				continue;
			}
		}
		count++;
		sum += hb_item_premix(v); /* sum: of premixes, multiplied at the flush */
		timed |= v;
	}
	if (cur < np) {
		c->tally[cur].count += count;
		c->tally[cur].sum += hb_item_mix_sum(sum);
	}
	if (timed & HB_ITEM_TIMED)
		record_timed(c, items, got);
}

static ALWAYS_INLINE void consume(struct hb_consumer *c, void *h, enum hb_item_kind kind,
				  int bursts, int account)
{
	struct hb_run *run = c->run;
	const struct hq_ops *ops = run->ops;
	const unsigned burst = bursts ? run->burst_deq : 1;
	/* nothing travels and nothing is made up (faa): stop with the producers */
	const int stop_early = !ops->moves_data;
	hb_item_sum_fn *const item_sum = run->item_sum;
	void *items[HB_MAX_BURST];
	uint64_t total = 0;
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
			idle_poll(&polls);
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
	}
}

void *hb_consumer_main(void *arg)
{
	struct hb_consumer *c = arg;
	struct hb_run *run = c->run;
	void *h;

	hb_pin_self(c->cpu, &c->pin_errno);
	/* pinned first: tallies and histogram are placed by this thread's
	 * first touch (the histogram is a fresh mapping: bench.c's mallopt) */
	if (!(c->tally = hb_local_alloc(hb_tally_bytes(run), &c->mem_node)) ||
	    hdr_init(1, HB_HIST_MAX, HB_HIST_DIGITS, &c->hist) != 0) {
		snprintf(c->err, sizeof c->err, "out of memory for its tallies and histogram");
		h = NULL;
	} else {
		c->dups = (uint64_t *)(c->tally + run->np);
		h = run->ops->thread_init(run->q, c->err, sizeof c->err);
	}
	if (!h)
		hb_set_phase(run, PH_ABORT);
	if (run->measured && run->o->counters) /* on itself, disabled: main enables them */
		hb_counters_open(&c->ctr);
	pthread_barrier_wait(&run->barrier);
	if (!h)
		return NULL;
	int bursts = run->burst_deq > 1;
	/* faa's items are no items: count them, account for nothing */
	int account = run->ops->moves_data || run->ops->fabricates;
	if (!account)
		bursts ? consume(c, h, HB_ITEM_INLINE, 1, 0) : consume(c, h, HB_ITEM_INLINE, 0, 0);
	else if (run->item == HB_ITEM_MESSAGE)
		bursts ? consume(c, h, HB_ITEM_MESSAGE, 1, 1) : consume(c, h, HB_ITEM_MESSAGE, 0, 1);
	else
		bursts ? consume(c, h, HB_ITEM_INLINE, 1, 1) : consume(c, h, HB_ITEM_INLINE, 0, 1);
	if (run->ops->thread_stats) {
		run->ops->thread_stats(h, &c->st);
		c->have_stats = 1;
	}
	run->ops->thread_fini(run->q, h);
	return NULL;
}
