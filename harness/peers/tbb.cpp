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
 */
#include <new>
#include <oneapi/tbb/concurrent_queue.h>

#include "tbb_shim.h"

using queue_t = tbb::concurrent_bounded_queue<void *>;

extern "C" void *tb_create(size_t capacity)
{
	try {
		queue_t *q = new queue_t();
		q->set_capacity(static_cast<queue_t::size_type>(capacity));
		return q;
	} catch (...) {
		return nullptr;
	}
}

extern "C" void tb_destroy(void *q)
{
	delete static_cast<queue_t *>(q);
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
