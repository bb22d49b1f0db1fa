/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tbb.c - oneTBB's tbb::concurrent_bounded_queue<void *> (package
 * libtbb-dev), through the extern "C" shim in tbb.cpp: the general-purpose
 * bounded queue of the big C++ library, capacity set by set_capacity,
 * non-blocking try_push / try_pop, FIFO, no burst operations. Not lock-free:
 * a pusher preempted inside its micro-queue can hold up the poppers behind
 * it, which on an oversubscribed run is part of what is measured.
 */
#include "peers.h"
#include "tbb_shim.h"

static void *tbq_create(const struct hq_params *p, char *err, size_t errlen)
{
	void *q = tb_create(p->capacity);
	if (!q)
		hb_err(err, errlen, "tbb: out of memory");
	return q;
}

static void *tbq_thread_init(void *q, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return q;
}

static void tbq_thread_fini(void *q, void *h)
{
	(void)q;
	(void)h;
}

const struct hq_ops hq_tbb = {
	.name = "tbb",
	.description = "oneTBB concurrent_bounded_queue, set_capacity, try_push/try_pop (not lock-free; no burst)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "per-producer",
	.capacity_kind = "exact",
	.memory = "running",
	.uncounted = "its representation and its micro-queues' pages of items, which oneTBB allocates and frees as it runs (placed by the threads' memory policy)",
	.create = tbq_create,
	.destroy = tb_destroy,
	.thread_init = tbq_thread_init,
	.thread_fini = tbq_thread_fini,
	.enqueue = tb_enqueue,
	.dequeue = tb_dequeue,
};
