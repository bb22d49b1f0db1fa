/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rte.c - DPDK's rte_ring (package libdpdk-dev 22.11, <rte_ring.h>, library
 * librte_ring), the default multi-producer/multi-consumer variant (flags 0:
 * MP/MC, the classic head/tail CAS protocol; not the RTS/HTS variants):
 * rte_ring_mp_enqueue / rte_ring_mc_dequeue and their _burst forms (burst =
 * as many of n as fit / are there, one CAS for all of them).
 *
 * No EAL: the ring lives in memory we allocate, sized by
 * rte_ring_get_memsize() and set up by rte_ring_init(); rte_ring_create()
 * (which needs the EAL's memzones) is not used.
 *
 * Capacity: a plain rte_ring of size s holds s - 1 items. With
 * RING_F_EXACT_SZ it holds exactly `count` items in a ring of
 * rte_align32pow2(count + 1) slots, so we pass RING_F_EXACT_SZ: it HOLDS
 * `capacity` items, but for a power-of-two capacity its slot array is
 * 2 * capacity pointers (twice the other rings' footprint).
 */
#include <rte_ring.h>

#include "peers.h"
#include "rte_ops.h"

static void *rteq_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct rte_ring *r;
	ssize_t bytes;
	int rc;

	if (p->capacity < 1 || p->capacity > RTE_RING_SZ_MASK / 2) {
		hb_err(err, errlen, "rte: capacity %zu is out of range", p->capacity);
		return NULL;
	}
	bytes = rte_ring_get_memsize(rte_align32pow2((uint32_t)p->capacity + 1));
	if (bytes < 0) {
		hb_err(err, errlen, "rte: rte_ring_get_memsize failed (%zd)", bytes);
		return NULL;
	}
	r = hq_alloc((size_t)bytes);
	if (!r) {
		hb_err(err, errlen, "rte: out of memory for %zu slots", p->capacity);
		return NULL;
	}
	rc = rte_ring_init(r, "hq_rte", (unsigned)p->capacity, RING_F_EXACT_SZ);
	if (rc < 0) {
		hb_err(err, errlen, "rte: rte_ring_init failed: %s", strerror(-rc));
		hq_free(r);
		return NULL;
	}
	return r;
}

static void rteq_destroy(void *q)
{
	hq_free(q);
}

const struct hq_ops hq_rte = {
	.name = "rte",
	.description = "DPDK rte_ring, MP/MC with burst, RING_F_EXACT_SZ (no EAL)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "exact",
	.memory = "creation",
	.create = rteq_create,
	.destroy = rteq_destroy,
	.thread_init = hq_shared_thread_init,
	.thread_fini = hq_shared_thread_fini,
	.enqueue = rteq_enqueue,
	.dequeue = rteq_dequeue,
	.enqueue_burst = rteq_enqueue_burst,
	.dequeue_burst = rteq_dequeue_burst,
};
