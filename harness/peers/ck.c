/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ck.c - Concurrency Kit's ck_ring (package libck-dev, <ck_ring.h>), the
 * pointer ring in its MPMC variant: ck_ring_enqueue_mpmc (CAS on p_head,
 * copy, then wait for earlier producers and publish p_tail) and
 * ck_ring_dequeue_mpmc (copy, then CAS on c_head). The MPMC variant is the
 * only one correct for several producers and consumers; ck offers no burst
 * in it, so the burst pointers are NULL and the harness loops.
 *
 * Capacity: ck_ring keeps one slot empty, so a ring of size s (a power of
 * two) holds s - 1 items, and holding exactly `capacity` (a power of two)
 * would need size 2 * capacity, holding 2 * capacity - 1. We keep the same
 * slot count as the other rings: size = capacity, which HOLDS capacity - 1.
 */
#include <ck_ring.h>
#include <limits.h>
#include <stdalign.h>

#include "peers.h"

struct ckq {
	alignas(HQ_LINE) struct ck_ring ring; /* ck's own layout: 64-byte padding */
	alignas(HQ_LINE) struct ck_ring_buffer buf[];
};

static void *ckq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct ckq *q;

	if (!hq_pow2(p->capacity) || p->capacity > UINT_MAX / 2 + 1) {
		hb_err(err, errlen, "ck: capacity %zu is not a power of two in [2, 2^31]",
		       p->capacity);
		return NULL;
	}
	q = hq_alloc(sizeof *q + p->capacity * sizeof q->buf[0]);
	if (!q) {
		hb_err(err, errlen, "ck: out of memory for %zu slots", p->capacity);
		return NULL;
	}
	ck_ring_init(&q->ring, (unsigned)p->capacity);
	return q;
}

static void ckq_destroy(void *q)
{
	hq_free(q);
}

/* ck_ring keeps one slot empty. */
static size_t ckq_holds(void *q)
{
	return ck_ring_capacity(&((struct ckq *)q)->ring) - 1;
}

static int ckq_enqueue(void *h, void *item)
{
	struct ckq *q = h;
	hq_tsan_release(q);
	return !ck_ring_enqueue_mpmc(&q->ring, q->buf, item);
}

static int ckq_dequeue(void *h, void **item)
{
	struct ckq *q = h;
	if (!ck_ring_dequeue_mpmc(&q->ring, q->buf, item))
		return 1;
	hq_tsan_acquire(q);
	return 0;
}

const struct hq_ops hq_ck = {
	.name = "ck",
	.description = "Concurrency Kit ck_ring, MPMC variant (holds capacity - 1; no burst)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "one-less",
	.memory = "creation",
	.create = ckq_create,
	.destroy = ckq_destroy,
	.holds = ckq_holds,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = ckq_enqueue,
	.dequeue = ckq_dequeue,
};
