/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * xenium.c - three unbounded MPMC queues of xenium (Manuel Pöter; package
 * libxenium-dev, header-only C++), through the extern "C" shim in
 * xenium.cpp:
 *
 *   xenium-ms         michael_scott_queue: Michael and Scott's lock-free
 *                     linked queue (PODC 1996), FIFO; every push allocates
 *                     a node (operator new), every pop retires one
 *   xenium-ramalhete  ramalhete_queue: Ramalhete's FAAArrayQueue (2016),
 *                     FIFO; fetch-and-add on the indices of nodes of 512
 *                     entries, a node allocated per 512 pushes
 *   xenium-kfifo      kirsch_kfifo_queue: Kirsch, Lippautz and Payer's
 *                     k-FIFO (2013) with k = 64: segments of 64 slots, each
 *                     push and pop from a random slot of the tail or head
 *                     segment; an item may leave up to 63 places ahead of
 *                     its FIFO turn, as its authors state ("k-relaxed")
 *
 * Reclamation: one scheme for all three, hazard pointers (xenium's
 * hazard_pointer<>, 3 per thread). Why: an epoch-based scheme frees nothing
 * while any thread sits inside an operation, and the harness runs more
 * threads than CPUs (a preempted thread stays inside for a scheduler
 * slice): unreclaimed nodes, and the allocator's work with them, would grow
 * with the oversubscription, not with the queue. Hazard pointers bound
 * them whatever a thread does (a few hundred per thread), at the price of a
 * store and a full fence per protected node: one per push, two per
 * Michael-Scott pop; that price is part of what is measured. A guard is
 * held inside one operation only (xenium.cpp).
 *
 * k = 64: concurrent operations start at random slots of a 64-slot segment
 * (16 cache lines: an entry is a pointer padded to 16 bytes), so up to a few
 * dozen threads spread over it instead of racing for one slot; the price is
 * up to 63 places out of order and a pop that finds its segment empty
 * having read all 64 slots. It is fixed, not a setting, so that every run
 * of xenium-kfifo measures the same queue.
 *
 * ramalhete_queue and kirsch_kfifo_queue take pointers only (message_only:
 * numaring-bench refuses --item inline for them, with the reason below);
 * michael_scott_queue passes any value, NULL included. All three are
 * unbounded (the harness bounds what is in flight), have no burst
 * operations and keep no per-thread state the caller sees (the queue is
 * every thread's handle).
 */
#include "peers.h"
#include "xenium_shim.h"

_Static_assert(XN_KFIFO_K == 64, "xenium.c and the description state k = 64");

static const char rh_why[] =
	"xenium's ramalhete_queue takes pointers: it throws on NULL and keeps a "
	"mark in bit 63 of each value, which an inline item uses (the timed bit, "
	"harness/item.h)";
static const char kf_why[] =
	"xenium's kirsch_kfifo_queue takes pointers: it throws on NULL and keeps a "
	"16-bit tag in bits 48-63 of each value, which an inline item uses (its "
	"producer and timed bit, harness/item.h)";

/* The queue is made by make(); NULL with a sentence in err when it is not,
 * or when the run's items are inline and the queue takes pointers only. */
static void *created(const char *name, const struct hq_params *p, void *(*make)(void),
		     const char *message_only, char *err, size_t errlen)
{
	if (message_only && p->item != HB_ITEM_MESSAGE) {
		hb_err(err, errlen, "%s takes message items only: %s", name, message_only);
		return NULL;
	}
	void *q = make();
	if (!q)
		hb_err(err, errlen, "%s: out of memory", name);
	return q;
}

static void *ms_create(const struct hq_params *p, char *err, size_t errlen)
{
	return created("xenium-ms", p, xn_ms_create, NULL, err, errlen);
}

static void *rh_create(const struct hq_params *p, char *err, size_t errlen)
{
	return created("xenium-ramalhete", p, xn_rh_create, rh_why, err, errlen);
}

static void *kf_create(const struct hq_params *p, char *err, size_t errlen)
{
	return created("xenium-kfifo", p, xn_kf_create, kf_why, err, errlen);
}

/* --queue-mem: xenium allocates its queue, nodes (segments) and hazard
 * pointer records with operator new, as it runs: placed by the threads'
 * memory policy, and not counted */
#define XN_UNCOUNTED "the queue, its nodes or segments and its hazard pointer records, which " \
		     "xenium allocates with operator new as it runs (placed by the threads' " \
		     "memory policy)"

const struct hq_ops hq_xenium_ms = {
	.name = "xenium-ms",
	.description = "xenium michael_scott_queue: Michael-Scott, a node allocated per push, "
		       "hazard pointers (unbounded; no burst)",
	.bounded = 0,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "unbounded",
	.memory = "running",
	.uncounted = XN_UNCOUNTED,
	.create = ms_create,
	.destroy = xn_ms_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = xn_ms_enqueue,
	.dequeue = xn_ms_dequeue,
};

const struct hq_ops hq_xenium_ramalhete = {
	.name = "xenium-ramalhete",
	.description = "xenium ramalhete_queue: Ramalhete's FAAArrayQueue, 512-entry nodes, "
		       "hazard pointers; message items only (unbounded; no burst)",
	.bounded = 0,
	.moves_data = 1,
	.message_only = rh_why,
	.ordering = "fifo",
	.capacity_kind = "unbounded",
	.memory = "running",
	.uncounted = XN_UNCOUNTED,
	.create = rh_create,
	.destroy = xn_rh_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = xn_rh_enqueue,
	.dequeue = xn_rh_dequeue,
};

const struct hq_ops hq_xenium_kfifo = {
	.name = "xenium-kfifo",
	.description = "xenium kirsch_kfifo_queue: Kirsch-Lippautz-Payer k-FIFO, k = 64 (up to 63 "
		       "places out of FIFO order), hazard pointers; message items only (unbounded; "
		       "no burst)",
	.bounded = 0,
	.moves_data = 1,
	.message_only = kf_why,
	.ordering = "k-relaxed",
	.capacity_kind = "unbounded",
	.memory = "running",
	.uncounted = XN_UNCOUNTED,
	.create = kf_create,
	.destroy = xn_kf_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = xn_kf_enqueue,
	.dequeue = xn_kf_dequeue,
};
