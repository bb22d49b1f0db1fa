/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boost.c - boost::lockfree::queue<void *> (Tim Blechmann; package
 * libboost-dev, header-only C++), through the extern "C" shim in boost.cpp:
 * the Michael-Scott queue as the field's general-purpose library ships it,
 * bounded by a preallocated free list of nodes (bounded_push), strict FIFO,
 * no burst operations. Every thread shares the queue handle: the library
 * keeps no per-thread state. Refused where the platform's atomics would make
 * it take a lock (is_lock_free()).
 */
#include "boost_shim.h"
#include "peers.h"

static void *blq_create(const struct hq_params *p, char *err, size_t errlen)
{
	/* nodes are linked by tagged pointers (fixed_sized<false>, the
	 * default), so no 65535-node limit of the array variant applies */
	void *q = bl_create(p->capacity);
	if (!q) {
		hb_err(err, errlen, "boost: out of memory for %zu nodes", p->capacity);
		return NULL;
	}
	if (!bl_lock_free(q)) {
		bl_destroy(q);
		hb_err(err, errlen, "boost: the queue is not lock-free on this platform");
		return NULL;
	}
	return q;
}

static void *blq_thread_init(void *q, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return q;
}

static void blq_thread_fini(void *q, void *h)
{
	(void)q;
	(void)h;
}

const struct hq_ops hq_boost = {
	.name = "boost",
	.description = "Boost.Lockfree queue (Michael-Scott, preallocated free list, bounded_push; no burst)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "exact",
	.memory = "running",
	.create = blq_create,
	.destroy = bl_destroy,
	.thread_init = blq_thread_init,
	.thread_fini = blq_thread_fini,
	.enqueue = bl_enqueue,
	.dequeue = bl_dequeue,
};
