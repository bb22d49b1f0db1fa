/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * flat.c - the baseline: ONE bounded MPMC ring shared by every thread, no
 * NUMA awareness. It is NumaRing's own per-node ring (a Vyukov-style
 * bounded queue with bulk claims) used alone, through the lab interface
 * (numaring_lab.h, numaring_flat_*), so that numaring vs flat measures
 * exactly what the NUMA layer adds or costs: both are calls into the same
 * library. Its backoff is NumaRing's default (NUMARING_BACKOFF_DEFAULT, which
 * numaring_flat_attach sets; numaring-bench's --backoff is numaring's). Holds
 * exactly `capacity` items (a power of two).
 */
#include <errno.h>

#include "numaring_lab.h"
#include "flat_ops.h"
#include "peers.h"

static void *flat_create(const struct hq_params *p, char *err, size_t errlen)
{
	struct numaring_flat *f;

	if (!hq_pow2(p->capacity)) {
		hb_err(err, errlen, "flat: capacity %zu is not a power of two >= 2", p->capacity);
		return NULL;
	}
	f = numaring_flat_create(p->capacity);
	if (!f) {
		hb_err(err, errlen, "flat: out of memory for %zu slots", p->capacity);
		return NULL;
	}
	return f;
}

static void flat_destroy(void *q)
{
	numaring_flat_destroy(q);
}

/* The ring's own mapping (the library's, made at create under the creating
 * thread's memory policy): what the run's count of pages looks up. */
static unsigned flat_regions(void *q, struct hq_region *out, unsigned max)
{
	if (max)
		out[0].addr = numaring_flat_ring(q, &out[0].len);
	return 1;
}

static void *flat_thread_init(void *q, char *err, size_t errlen)
{
	struct numaring_flat_handle *h = numaring_flat_attach(q);
	if (!h)
		hb_err(err, errlen, "flat: out of memory for a thread handle");
	return h;
}

static void flat_thread_fini(void *q, void *h)
{
	(void)q;
	numaring_flat_detach(h);
}

/* Only failed_attempts (lost CAS races) is counted (stats_mask). */
static void flat_thread_stats(void *h, struct hq_stats *out)
{
	out->v[HQ_STAT_failed_attempts] += numaring_flat_failures(h);
}

const struct hq_ops hq_flat = {
	.name = "flat",
	.description = "one Vyukov-style bounded MPMC ring for all threads (NumaRing's ring without the NUMA layer)",
	.bounded = 1,
	.moves_data = 1,
	.ordering = "fifo",
	.capacity_kind = "exact",
	.memory = "creation",
	.uncounted = "the library's small descriptor of the ring, read only when a thread attaches",
	.regions = flat_regions,
	.stats_mask = HQ_STAT_BIT(failed_attempts),
	.create = flat_create,
	.destroy = flat_destroy,
	.thread_init = flat_thread_init,
	.thread_fini = flat_thread_fini,
	.enqueue = flat_enqueue,
	.dequeue = flat_dequeue,
	.enqueue_burst = flat_enqueue_burst,
	.dequeue_burst = flat_dequeue_burst,
	.thread_stats = flat_thread_stats,
};
