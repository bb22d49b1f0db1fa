/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * moodycamel.cpp - the C++ half of the moodycamel adapter (see moodycamel.c):
 * extern "C" functions over moodycamel::ConcurrentQueue<void *>
 * (package libconcurrentqueue-dev, <concurrentqueue/concurrentqueue.h>).
 *
 * Each thread gets its own ProducerToken and ConsumerToken, made on its first
 * enqueue / dequeue (a thread that only consumes never registers a producer
 * sub-queue that consumers would then have to scan). Enqueue uses enqueue()
 * with the token, which allocates a new block when the producer's blocks are
 * full (try_enqueue() would never allocate, and fail instead): the queue is
 * unbounded and enqueue fails only when allocation fails.
 *
 * The queue object, its blocks and its producers come from the harness's
 * allocator (hq_mem.hpp: mc_traits' malloc and free), which --queue-mem
 * places and the run counts; the tokens are the threads' own (operator new).
 */
#include <concurrentqueue/concurrentqueue.h>
#include <new>

#include "hq_mem.hpp"
#include "moodycamel_shim.h"

/* TSan does not model the std::atomic_thread_fence the queue relies on: tell
 * it about the hand-over, as peers.h does for the C adapters. */
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define mc_tsan_release(addr) __tsan_release(addr)
#define mc_tsan_acquire(addr) __tsan_acquire(addr)
#else
#define mc_tsan_release(addr) ((void)(addr))
#define mc_tsan_acquire(addr) ((void)(addr))
#endif

/* The default traits but for where the memory comes from. */
struct mc_traits : moodycamel::ConcurrentQueueDefaultTraits {
	static inline void *malloc(size_t size)
	{
		return hq_node_alloc(size, 0);
	}
	static inline void free(void *ptr)
	{
		hq_node_free(ptr);
	}
};

using queue_t = moodycamel::ConcurrentQueue<void *, mc_traits>;

struct mc_thread {
	queue_t *q;
	moodycamel::ProducerToken *ptok = nullptr;
	moodycamel::ConsumerToken *ctok = nullptr;
};

extern "C" void *mc_create(size_t capacity, unsigned threads)
{
	/* Pre-allocates blocks for `capacity` items per explicit producer (up to
	 * `threads` of them) and no implicit producer: a warm start only. */
	return hq_make<queue_t>(capacity, threads, 0u);
}

extern "C" void mc_destroy(void *q)
{
	hq_unmake(static_cast<queue_t *>(q));
}

extern "C" void *mc_thread_init(void *q)
{
	mc_thread *t = new (std::nothrow) mc_thread;
	if (t)
		t->q = static_cast<queue_t *>(q);
	return t;
}

extern "C" void mc_thread_fini(void *h)
{
	mc_thread *t = static_cast<mc_thread *>(h);
	delete t->ptok; /* tokens go before the queue (mc_destroy) */
	delete t->ctok;
	delete t;
}

/* The thread's tokens, made on first use; false if out of memory (nothing
 * may throw through the C callers: nothrow new, and the queue reports a
 * failed allocation as an invalid token or a false return). */
static bool ptok(mc_thread *t)
{
	if (!t->ptok)
		t->ptok = new (std::nothrow) moodycamel::ProducerToken(*t->q);
	return t->ptok && t->ptok->valid();
}

static bool ctok(mc_thread *t)
{
	if (!t->ctok)
		t->ctok = new (std::nothrow) moodycamel::ConsumerToken(*t->q);
	return t->ctok != nullptr;
}

extern "C" int mc_enqueue(void *h, void *item)
{
	mc_thread *t = static_cast<mc_thread *>(h);
	mc_tsan_release(t->q);
	return !(ptok(t) && t->q->enqueue(*t->ptok, item));
}

extern "C" int mc_dequeue(void *h, void **item)
{
	mc_thread *t = static_cast<mc_thread *>(h);
	if (!(ctok(t) && t->q->try_dequeue(*t->ctok, *item)))
		return 1;
	mc_tsan_acquire(t->q);
	return 0;
}

extern "C" unsigned mc_enqueue_burst(void *h, void *const *items, unsigned n)
{
	/* enqueue_bulk is all or nothing; it fails only if allocation fails */
	mc_thread *t = static_cast<mc_thread *>(h);
	mc_tsan_release(t->q);
	return ptok(t) && t->q->enqueue_bulk(*t->ptok, items, n) ? n : 0;
}

extern "C" unsigned mc_dequeue_burst(void *h, void **items, unsigned n)
{
	mc_thread *t = static_cast<mc_thread *>(h);
	unsigned k = ctok(t) ? (unsigned)t->q->try_dequeue_bulk(*t->ctok, items, n) : 0;
	if (k)
		mc_tsan_acquire(t->q);
	return k;
}
