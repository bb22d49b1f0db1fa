/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * boost.cpp - the C++ half of the Boost.Lockfree adapter (see boost.c):
 * extern "C" functions over boost::lockfree::queue<void *> (package
 * libboost-dev, header-only, <boost/lockfree/queue.hpp>).
 *
 * The queue is Michael and Scott's with a free list of nodes and tagged
 * pointers against ABA. Made with `capacity` nodes preallocated (the
 * constructor keeps one more as the dummy) and driven with bounded_push,
 * which takes nodes from that free list only and fails when it is empty:
 * the queue holds exactly `capacity` items and never allocates after
 * creation (push would allocate a node when the list is empty). Nothing may
 * throw through the C callers: the constructor's allocation is caught.
 *
 * The queue object and its nodes come from the harness's allocator
 * (hq_mem.hpp: the node allocator), which --queue-mem places and the run
 * counts.
 */
#include <boost/lockfree/queue.hpp>
#include <new>

#include "boost_shim.h"
#include "hq_mem.hpp"

using queue_t = boost::lockfree::queue<void *, boost::lockfree::allocator<hq_node_allocator<void>>>;

extern "C" void *bl_create(size_t capacity)
{
	return hq_make<queue_t>(capacity);
}

extern "C" void bl_destroy(void *q)
{
	hq_unmake(static_cast<queue_t *>(q));
}

extern "C" int bl_lock_free(void *q)
{
	return static_cast<queue_t *>(q)->is_lock_free();
}

extern "C" int bl_enqueue(void *h, void *item)
{
	return static_cast<queue_t *>(h)->bounded_push(item) ? 0 : 1;
}

extern "C" int bl_dequeue(void *h, void **item)
{
	return static_cast<queue_t *>(h)->pop(*item) ? 0 : 1;
}
