/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * moodycamel.c - moodycamel::ConcurrentQueue<void *> (Cameron Desrochers;
 * package libconcurrentqueue-dev, header-only C++), through the extern "C"
 * shim in moodycamel.cpp. The variant people use for speed: explicit
 * producer and consumer tokens per thread, enqueue_bulk / try_dequeue_bulk
 * for bursts. Unbounded (enqueue allocates blocks as needed), FIFO only per
 * producer; try_dequeue may miss items being enqueued concurrently, so an
 * empty answer is a hint, not a proof.
 */
#include "moodycamel_shim.h"
#include "peers.h"

static void *mcq_create(const struct hq_params *p, char *err, size_t errlen)
{
	void *q = mc_create(p->capacity, p->threads);
	if (!q)
		hb_err(err, errlen, "moodycamel: out of memory");
	return q;
}

static void *mcq_thread_init(void *q, char *err, size_t errlen)
{
	void *h = mc_thread_init(q);
	if (!h)
		hb_err(err, errlen, "moodycamel: out of memory for a thread handle");
	return h;
}

static void mcq_thread_fini(void *q, void *h)
{
	(void)q;
	mc_thread_fini(h);
}

const struct hq_ops hq_moodycamel = {
	.name = "moodycamel",
	.description = "moodycamel::ConcurrentQueue, per-thread producer/consumer tokens, bulk ops (unbounded)",
	.bounded = 0,
	.moves_data = 1,
	.ordering = "per-producer",
	.capacity_kind = "unbounded",
	.memory = "running",
	.uncounted = "each thread's producer and consumer tokens (a few lines, operator new)",
	.create = mcq_create,
	.destroy = mc_destroy,
	.thread_init = mcq_thread_init,
	.thread_fini = mcq_thread_fini,
	.enqueue = mc_enqueue,
	.dequeue = mc_dequeue,
	.enqueue_burst = mc_enqueue_burst,
	.dequeue_burst = mc_dequeue_burst,
};
