/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xenium_vyukov.cpp - xenium's vyukov_bounded_queue<void *> (package
 * libxenium-dev 0.0.2, header-only) for the bare loop (bare_loop.c,
 * --queue xenium-vyukov): Vyukov's bounded MPMC queue, the algorithm of
 * NumaRing's per-node ring and of the flat peer, as another library
 * implements it. It is no peer of numaring-bench (it would measure flat's
 * algorithm twice); the bare loop runs it beside flat, single operations
 * only (it has no bursts), as a check of flat's speed: a flat ring much
 * slower than this one would be a defect of flat's implementation.
 *
 * The library's defaults: the strong try_push/try_pop (default_to_weak
 * false: a failed attempt re-reads the positions before it says full or
 * empty), cells of a sequence number and the value, 16 bytes, unpadded.
 * The capacity is a power of two >= 2 (bare_loop checks it). The
 * allocation that can fail is caught: nothing throws through the C caller.
 */
#include <new>
#include <xenium/vyukov_bounded_queue.hpp>

#include "xenium_vyukov.h"

using queue_t = xenium::vyukov_bounded_queue<void *>;

extern "C" void *xv_create(size_t capacity)
{
	try {
		return new queue_t(capacity);
	} catch (...) {
		return nullptr;
	}
}

extern "C" void xv_destroy(void *q)
{
	delete static_cast<queue_t *>(q);
}

extern "C" int xv_enqueue(void *q, void *item)
{
	return static_cast<queue_t *>(q)->try_push(item) ? 0 : 1;
}

extern "C" int xv_dequeue(void *q, void **item)
{
	return static_cast<queue_t *>(q)->try_pop(*item) ? 0 : 1;
}
