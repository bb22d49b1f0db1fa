/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * null.c - the harness's own ceiling: a "queue" whose operations share
 * nothing, so that its throughput at each thread count and placement is
 * what the harness alone can do (numaring-bench runs it briefly before every
 * measured run: --calibrate).
 *
 * enqueue accepts an item and forgets it; in message mode it releases the
 * message at once, as its consumer would, so the producer's pool never runs
 * dry. dequeue makes an item up from the calling thread's own state, of the
 * run's kind: a value of producer 0 with the next sequence number, every
 * `sample`-th one timed with the clock read here (once per `sample` items,
 * as a producer would); in message mode a pointer to one of the thread's
 * own messages carrying that value. The consumer then does all of its
 * per-item work (decoding, tallies, checksum, the exchange of a message's
 * state, the histogram) on items that no other thread touched. Nothing
 * travels, so there is nothing to verify (moves_data 0).
 */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "clock.h"
#include "peers.h"

struct null_thread {
	alignas(HQ_LINE) uint64_t seq;
	uint64_t sample_mask; /* sample - 1 (a power of two) */
	uint64_t msg_mask;    /* messages - 1 */
	enum hb_item_kind kind;
	struct hb_msg *msgs;  /* message mode: the thread's own, more than a burst */
};

struct nullq {
	enum hb_item_kind kind;
	unsigned sample, batch;
};

static void *null_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct nullq *q = hq_alloc(sizeof *q);
	if (!q)
		return hb_err(err, errlen, "null: out of memory"), NULL;
	if (p->sample == 0 || (p->sample & (p->sample - 1))) {
		hq_free(q);
		return hb_err(err, errlen, "null: sample %u is not a power of two", p->sample),
		       NULL;
	}
	q->kind = p->item;
	q->sample = p->sample;
	q->batch = p->batch;
	return q;
}

static void null_destroy(void *q)
{
	hq_free(q);
}

static void *null_thread_init(void *qv, char *err, size_t errlen)
{
	struct nullq *q = qv;
	struct null_thread *t = hq_thread_alloc(sizeof *t);
	uint64_t n = 64;
	if (!t)
		return hb_err(err, errlen, "null: out of memory for a thread handle"), NULL;
	while (n < 2 * (uint64_t)q->batch) /* a burst never returns one message twice */
		n <<= 1;
	t->kind = q->kind;
	t->sample_mask = q->sample - 1;
	t->msg_mask = n - 1;
	if (q->kind == HB_ITEM_MESSAGE && !(t->msgs = hq_thread_alloc(n * sizeof *t->msgs))) {
		free(t);
		return hb_err(err, errlen, "null: out of memory for %llu messages",
			      (unsigned long long)n),
		       NULL;
	}
	return t;
}

static void null_thread_fini(void *q, void *h)
{
	struct null_thread *t = h;
	(void)q;
	free(t->msgs);
	free(t);
}

static inline void null_forget(struct null_thread *t, void *item)
{
	/* Release: as a consumer's exchange (item.h); the producer's acquire of
	 * the state orders its next writes to the message after this. */
	if (t->kind == HB_ITEM_MESSAGE)
		atomic_store_explicit(&((struct hb_msg *)item)->state, 0, memory_order_release);
}

static inline void *null_make(struct null_thread *t)
{
	uint64_t s = t->seq++;
	/* producer 0's values in order (item.h); the timed ones carry no send
	 * time (record_timed skips made-up items) but cost the consumer's
	 * clock read as a real one would */
	uint64_t v = hb_item_value(0, s, t->sample_mask);
	if (t->kind != HB_ITEM_MESSAGE)
		return (void *)(uintptr_t)v;
	struct hb_msg *m = &t->msgs[s & t->msg_mask];
	m->value = v;
	/* Relaxed: only this thread ever touches its own messages. */
	atomic_store_explicit(&m->state, 1, memory_order_relaxed);
	return m;
}

static int null_enqueue(void *h, void *item)
{
	null_forget(h, item);
	return 0;
}

static int null_dequeue(void *h, void **item)
{
	*item = null_make(h);
	return 0;
}

static unsigned null_enqueue_burst(void *h, void *const *items, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		null_forget(h, items[i]);
	return n;
}

static unsigned null_dequeue_burst(void *h, void **items, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		items[i] = null_make(h);
	return n;
}

const struct hq_ops hq_null = {
	.name = "null",
	.description = "not a queue: operations that share nothing, the harness's own ceiling",
	.bounded = 0,
	.moves_data = 0,
	.ordering = "n/a",
	.capacity_kind = "unbounded",
	.memory = "creation",
	.uncounted = "each thread's own made-up messages (message items), placed by its first touch",
	.fabricates = 1,
	.create = null_create,
	.destroy = null_destroy,
	.thread_init = null_thread_init,
	.thread_fini = null_thread_fini,
	.enqueue = null_enqueue,
	.dequeue = null_dequeue,
	.enqueue_burst = null_enqueue_burst,
	.dequeue_burst = null_dequeue_burst,
};
