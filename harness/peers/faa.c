/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * faa.c - not a queue: the ceiling of every fetch-and-add based queue
 * (LCRQ, wCQ, ...), whose operations each cost at least one FAA on a shared
 * index. enqueue = one FAA on `tail`, dequeue = one FAA on `head`, each
 * counter on its own line pair; nothing is stored or moved (moves_data 0).
 * Enqueue always succeeds; dequeue always "succeeds" with item NULL. A burst
 * of n is one FAA of n, the ceiling of a queue that claims n slots at once.
 * Relaxed: the FAA is all that is measured (on x86 every order compiles to
 * the same lock xadd).
 */
#include <stdalign.h>
#include <stdatomic.h>
#include <stdint.h>

#include "peers.h"

struct faaq {
	alignas(HQ_LINE) _Atomic uint64_t tail;
	alignas(HQ_LINE) _Atomic uint64_t head;
};

static void *faa_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct faaq *q = hq_alloc(sizeof *q);
	(void)p;
	if (!q)
		hb_err(err, errlen, "faa: out of memory");
	return q;
}

static void faa_destroy(void *q)
{
	hq_free(q);
}

static int faa_enqueue(void *h, void *item)
{
	struct faaq *q = h;
	(void)item;
	atomic_fetch_add_explicit(&q->tail, 1, memory_order_relaxed);
	return 0;
}

static int faa_dequeue(void *h, void **item)
{
	struct faaq *q = h;
	atomic_fetch_add_explicit(&q->head, 1, memory_order_relaxed);
	*item = NULL;
	return 0;
}

static unsigned faa_enqueue_burst(void *h, void *const *items, unsigned n)
{
	struct faaq *q = h;
	(void)items;
	atomic_fetch_add_explicit(&q->tail, n, memory_order_relaxed);
	return n;
}

static unsigned faa_dequeue_burst(void *h, void **items, unsigned n)
{
	struct faaq *q = h;
	atomic_fetch_add_explicit(&q->head, n, memory_order_relaxed);
	memset(items, 0, n * sizeof *items);
	return n;
}

const struct hq_ops hq_faa = {
	.name = "faa",
	.description = "not a queue: one fetch-and-add per operation, the ceiling of FAA-based queues",
	.bounded = 0,
	.moves_data = 0,
	.ordering = "n/a",
	.capacity_kind = "unbounded",
	.memory = "creation",
	.create = faa_create,
	.destroy = faa_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = faa_enqueue,
	.dequeue = faa_dequeue,
	.enqueue_burst = faa_enqueue_burst,
	.dequeue_burst = faa_dequeue_burst,
};
