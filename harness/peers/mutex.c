/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mutex.c - the floor: a bounded ring (array + free-running head/tail)
 * guarded by one pthread mutex (glibc, default type). Every operation takes
 * the lock; a burst takes it once for all its items. Holds exactly
 * `capacity` items (a power of two).
 */
#include <pthread.h>
#include <stdint.h>

#include "peers.h"

struct mq {
	pthread_mutex_t lock;
	uint64_t head, tail; /* under lock; tail - head = items inside */
	uint64_t mask;
	void **slots;
};

static void *mq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct mq *q;

	if (!hq_pow2(p->capacity)) {
		hb_err(err, errlen, "mutex: capacity %zu is not a power of two >= 2", p->capacity);
		return NULL;
	}
	q = hq_alloc(sizeof *q);
	if (q)
		q->slots = hq_alloc(p->capacity * sizeof(void *));
	if (!q || !q->slots) {
		hq_free(q);
		hb_err(err, errlen, "mutex: out of memory for %zu slots", p->capacity);
		return NULL;
	}
	pthread_mutex_init(&q->lock, NULL);
	q->mask = p->capacity - 1;
	return q;
}

static void mq_destroy(void *qv)
{
	struct mq *q = qv;
	pthread_mutex_destroy(&q->lock);
	hq_free(q->slots);
	hq_free(q);
}

static unsigned mq_enqueue_burst(void *h, void *const *items, unsigned n)
{
	struct mq *q = h;
	unsigned k;
	pthread_mutex_lock(&q->lock);
	for (k = 0; k < n && q->tail - q->head <= q->mask; k++)
		q->slots[q->tail++ & q->mask] = items[k];
	pthread_mutex_unlock(&q->lock);
	return k;
}

static unsigned mq_dequeue_burst(void *h, void **items, unsigned n)
{
	struct mq *q = h;
	unsigned k;
	pthread_mutex_lock(&q->lock);
	for (k = 0; k < n && q->head != q->tail; k++)
		items[k] = q->slots[q->head++ & q->mask];
	pthread_mutex_unlock(&q->lock);
	return k;
}

static int mq_enqueue(void *h, void *item)
{
	return mq_enqueue_burst(h, &item, 1) != 1;
}

static int mq_dequeue(void *h, void **item)
{
	return mq_dequeue_burst(h, item, 1) != 1;
}

const struct hq_ops hq_mutex = {
	.name = "mutex",
	.description = "bounded ring under one pthread mutex (the floor)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "exact",
	.memory = "creation",
	.create = mq_create,
	.destroy = mq_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = mq_enqueue,
	.dequeue = mq_dequeue,
	.enqueue_burst = mq_enqueue_burst,
	.dequeue_burst = mq_dequeue_burst,
};
