/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xenium.cpp - the C++ half of the xenium adapters (see xenium.c): extern
 * "C" functions over three of xenium's unbounded MPMC queues (Manuel
 * Pöter; package libxenium-dev 0.0.2, header-only, <xenium/...>):
 *
 *   michael_scott_queue<void *>      Michael and Scott's linked queue; push
 *                                    allocates a node every time
 *   ramalhete_queue<xn_item *>       Ramalhete's FAAArrayQueue:
 *                                    nodes of 512 entries, fetch-and-add on
 *                                    the node's indices, a pop spins up to
 *                                    1000 times on an entry being filled
 *   kirsch_kfifo_queue<xn_item *>    Kirsch, Lippautz and Payer's k-FIFO:
 *                                    segments of k = XN_KFIFO_K slots, each
 *                                    operation from a random slot
 *
 * (the library's defaults but k, which the constructor takes). All three
 * reclaim their nodes with one scheme, hazard pointers
 * (xenium::reclamation::hazard_pointer<>: 3 per thread, a scan when a
 * thread has retired 2 x the hazard pointers in use + 100 nodes; xenium.c
 * says why this scheme). A node is protected only while an operation holds
 * a guard_ptr to it, inside the operation: nothing is held between two
 * operations, so a thread that stops (preempted, done) never keeps another
 * thread's nodes from being freed. Each operation also opens the scheme's
 * region_guard for its own length and no longer (an empty object for
 * hazard pointers; an epoch-based scheme put in their place would enter
 * its critical region there, and one region held for a thread's whole run
 * would stop every reclamation).
 *
 * ramalhete_queue and kirsch_kfifo_queue take pointers, throw
 * std::invalid_argument on nullptr and keep tags in the pointer's top bits
 * (ramalhete a mark in bit 63, the k-FIFO a 16-bit ABA tag in bits 48-63):
 * they run with message items only (hq_ops.message_only), and their
 * enqueue refuses, as a failed operation, what a message pointer cannot
 * be: a value in the first page (NULL; and 0x100, which the k-FIFO of
 * 0.0.2 asserts it never pops), or from XN_VALUE_LIMIT (2^47) up. The item type is a
 * pointer to an incomplete struct: the queues' marked_ptr cannot be made
 * of void *. michael_scott_queue copies any value into its node: NULL and
 * inline items travel through it.
 *
 * Nothing may throw through the C callers: every function catches
 * everything. An allocation that fails in push (a node, a segment) is a
 * failed enqueue, as a full queue is (the harness retries). Two paths are
 * out of our reach, both only when memory runs out: the library allocates
 * a k-FIFO segment inside a noexcept function (advance_tail) and a hazard
 * pointer scan's vector inside noexcept reclaim(); either calls
 * std::terminate there.
 */
#include <new>
#include <xenium/kirsch_kfifo_queue.hpp>
#include <xenium/michael_scott_queue.hpp>
#include <xenium/policy.hpp>
#include <xenium/ramalhete_queue.hpp>
#include <xenium/reclamation/hazard_pointer.hpp>

#include "hq_mem.hpp"
#include "xenium_shim.h"

namespace {

struct xn_item; /* what a message-only queue's pointers point to, for its marked_ptr */

using reclaimer = xenium::reclamation::hazard_pointer<>;
using ms_queue = xenium::michael_scott_queue<void *, xenium::policy::reclaimer<reclaimer>>;
using rh_queue = xenium::ramalhete_queue<xn_item *, xenium::policy::reclaimer<reclaimer>>;
using kf_queue = xenium::kirsch_kfifo_queue<xn_item *, xenium::policy::reclaimer<reclaimer>>;

static_assert(rh_queue::entries_per_node == 512, "xenium.c states 512 entries per node");

/* The queue object from the harness's allocator (hq_mem.hpp: placed by
 * --queue-mem and counted; its first node with it, where the constructor
 * makes one); its later nodes come from xenium's operator new. */
template <class Q, class... Args> void *create(Args... args)
{
	return hq_make<Q>(args...); /* nullptr where it threw */
}

/* 1 if a message-only queue cannot take v (xenium_shim.h). */
inline bool refused(void *v)
{
	return reinterpret_cast<size_t>(v) < XN_VALUE_MIN ||
	       reinterpret_cast<size_t>(v) >= XN_VALUE_LIMIT;
}

template <class Q, class T> int enqueue(void *h, T item)
{
	try {
		[[maybe_unused]] typename Q::reclaimer::region_guard region; /* this operation's, no longer */
		static_cast<Q *>(h)->push(item);
		return 0;
	} catch (...) {
		return 1;
	}
}

template <class Q, class T> int dequeue(void *h, void **item)
{
	try {
		[[maybe_unused]] typename Q::reclaimer::region_guard region;
		T v;
		if (!static_cast<Q *>(h)->try_pop(v))
			return 1;
		*item = v;
		return 0;
	} catch (...) {
		return 1;
	}
}

} // namespace

extern "C" void *xn_ms_create(void)
{
	return create<ms_queue>();
}

extern "C" void xn_ms_destroy(void *q)
{
	hq_unmake(static_cast<ms_queue *>(q));
}

extern "C" int xn_ms_enqueue(void *h, void *item)
{
	return enqueue<ms_queue, void *>(h, item);
}

extern "C" int xn_ms_dequeue(void *h, void **item)
{
	return dequeue<ms_queue, void *>(h, item);
}

extern "C" void *xn_rh_create(void)
{
	return create<rh_queue>();
}

extern "C" void xn_rh_destroy(void *q)
{
	hq_unmake(static_cast<rh_queue *>(q));
}

extern "C" int xn_rh_enqueue(void *h, void *item)
{
	if (refused(item))
		return 1;
	return enqueue<rh_queue, xn_item *>(h, static_cast<xn_item *>(item));
}

extern "C" int xn_rh_dequeue(void *h, void **item)
{
	return dequeue<rh_queue, xn_item *>(h, item);
}

extern "C" void *xn_kf_create(void)
{
	return create<kf_queue>(static_cast<uint64_t>(XN_KFIFO_K));
}

extern "C" void xn_kf_destroy(void *q)
{
	hq_unmake(static_cast<kf_queue *>(q));
}

extern "C" int xn_kf_enqueue(void *h, void *item)
{
	if (refused(item))
		return 1;
	return enqueue<kf_queue, xn_item *>(h, static_cast<xn_item *>(item));
}

extern "C" int xn_kf_dequeue(void *h, void **item)
{
	return dequeue<kf_queue, xn_item *>(h, item);
}
