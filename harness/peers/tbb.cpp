/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * tbb.cpp - the C++ half of the oneTBB adapter (see tbb.c): extern "C"
 * functions over tbb::concurrent_bounded_queue<void *> (package libtbb-dev,
 * <oneapi/tbb/concurrent_queue.h>, library libtbb).
 *
 * set_capacity(capacity) bounds it; try_push fails when it is full and
 * try_pop when it is empty, neither blocks (push and pop would wait on a
 * monitor). Its micro-queues allocate pages of items as they fill, so a
 * push can allocate; an allocation failure throws, which is caught here and
 * reported as a full queue: nothing may throw through the C callers.
 *
 * The queue object comes from the harness's allocator (hq_mem.hpp), which
 * --queue-mem places and the run counts; its representation and its pages
 * come from oneTBB's own allocator, as it runs: the threads' memory policy
 * places them, and they are not counted (tracking them would add to every
 * page a push opens and a pop closes).
 */
#include <new>
#include <oneapi/tbb/concurrent_queue.h>

#include "hq_mem.hpp"
#include "tbb_shim.h"

using queue_t = tbb::concurrent_bounded_queue<void *>;

extern "C" void *tb_create(size_t capacity)
{
	queue_t *q = hq_make<queue_t>();
	try {
		if (q)
			q->set_capacity(static_cast<queue_t::size_type>(capacity));
		return q;
	} catch (...) {
		hq_unmake(q);
		return nullptr;
	}
}

extern "C" void tb_destroy(void *q)
{
	hq_unmake(static_cast<queue_t *>(q));
}

extern "C" int tb_enqueue(void *h, void *item)
{
	try {
		return static_cast<queue_t *>(h)->try_push(item) ? 0 : 1;
	} catch (...) {
		return 1;
	}
}

extern "C" int tb_dequeue(void *h, void **item)
{
	return static_cast<queue_t *>(h)->try_pop(*item) ? 0 : 1;
}
